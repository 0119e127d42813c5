package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestRRFDeepChainOverflow: a 300-level chain of parfeatures, whose values
// under the smooth normalisation overflow a float64, is refused with exit 2
// and the parfeature's position, and prints no answer (it printed a log
// score of +Inf and a marginal of 0.062 with exit 0); under --norm max it
// is answered.
func TestRRFDeepChainOverflow(t *testing.T) {
	dir := t.TempDir()
	lines := []string{"Smokes(person)", "Cancer(person)", "root = 1 * sum(x) F0(x)"}
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("F%d(x) = 1 * F%d(x) + 1 * Smokes(x)", i, i+1))
	}
	lines = append(lines, "F300(x) = 1 * Cancer(x)")
	model := writeFile(t, dir, "ch.rrf", strings.Join(lines, "\n")+"\n")
	ev := writeFile(t, dir, "d.db", "Smokes(Anna)\n")
	for _, method := range []string{"icm", "gibbs"} {
		code, stdout, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Cancer", "--method", method)
		if code != 2 || stdout != "" || !strings.Contains(errs, "ch.rrf:68:1: parfeature F64's value can reach") || strings.Contains(errs, "Inf") {
			t.Errorf("--method %s: exit %d\n%s%s", method, code, stdout, errs)
		}
	}
	code, stdout, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Cancer", "--norm", "max")
	if code != 0 || !strings.HasPrefix(stdout, "Cancer(Anna) ") || !strings.Contains(errs, "ICM mode log score 1 ") {
		t.Errorf("--norm max: exit %d\n%s%s", code, stdout, errs)
	}
}

// TestRRFConversionFlags: a --hard-weight or --lambda that converts no
// network, and an --l2 that is not a finite number, are refused (exit 2,
// naming the flag, nothing written): a negative hard weight rewarded
// breaking the hard clauses (Cancer(Anna) 0.0000 where the hard clause
// forces 1) and --l2 NaN wrote weights learned from a NaN objective under
// exit 0. A hard weight whose features overflow is refused as bad input too.
func TestRRFConversionFlags(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "h.mln", "Smokes(person)\nCancer(person)\nSmokes(x) => Cancer(x).\n0.5 !Cancer(x)\n")
	ev := writeFile(t, dir, "d.db", "Smokes(Anna)\n")
	out := dir + "/out"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rrf", "infer", "--hard-weight", "-20"}, "--hard-weight -20 must be"},
		{[]string{"rrf", "infer", "--hard-weight", "NaN"}, "--hard-weight NaN must be"},
		{[]string{"rrf", "infer", "--lambda", "+Inf"}, "--lambda +Inf must be"},
		{[]string{"rrf", "infer", "--hard-weight", "1e308"}, "beyond the range of a float64"},
		{[]string{"mln", "infer", "--as-rrf", "--marginal", "--hard-weight", "-20"}, "--hard-weight -20 must be"},
		{[]string{"mln", "infer", "--hard-weight", "NaN"}, "--hard-weight NaN must be"},
		{[]string{"rrf", "learn", "-t", ev, "-o", out, "--l2", "NaN"}, "--l2 NaN must be"},
		{[]string{"rrf", "learn", "-t", ev, "-o", out, "--l2", "Inf"}, "--l2 +Inf must be"},
		{[]string{"rrf", "learn", "-t", ev, "-o", out, "--hard-weight", "-1"}, "--hard-weight -1 must be"},
	} {
		args := append(tc.args, "-i", prog, "-q", "Cancer")
		if tc.args[1] == "infer" {
			args = append(args, "-e", ev, "-r", out)
		}
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
}
