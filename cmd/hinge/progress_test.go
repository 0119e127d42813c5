package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// screen is standard output and standard error on one terminal: what a
// user sees, escape sequences and all.
type screen struct{ bytes.Buffer }

func (*screen) Terminal() bool { return true }

// TestProgressClearedBeforeSummary: on a terminal, the solver's status line
// is cleared before the summary line is printed, so the summary starts its
// own line (it was printed after the status: '...rho 2.97ADMM: 650
// iterations').
func TestProgressClearedBeforeSummary(t *testing.T) {
	psl, data := writeTransitivity(t, 60, 6)
	for _, tc := range []struct {
		args           []string
		status, result string
	}{
		{[]string{"infer", "-m", psl, "-d", data, "--check-every", "5"}, "ADMM iteration", "ADMM: "},
		{[]string{"infer", "-m", psl, "-d", data, "--lifted", "--check-every", "5"}, "ADMM iteration", "ADMM: "},
		{[]string{"infer", "-m", psl, "-d", data, "--streaming"}, "epoch ", "streaming DCD: "},
	} {
		var scr screen
		code := runContext(context.Background(), tc.args, &scr, &scr)
		out := scr.String()
		if code != 0 {
			t.Fatalf("%v: exit %d:\n%q", tc.args, code, out)
		}
		if !strings.Contains(out, tc.status) {
			t.Errorf("%v: no status line shown:\n%q", tc.args, out)
			continue
		}
		i := strings.Index(out, tc.result)
		if i < 0 {
			t.Fatalf("%v: no %q in %q", tc.args, tc.result, out)
		}
		if before := out[:i]; !strings.HasSuffix(before, "\033[K") && !strings.HasSuffix(before, "\n") {
			t.Errorf("%v: the summary follows the status line on screen: %q", tc.args, before[max(0, len(before)-80):]+out[i:i+20])
		}
	}
}
