package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsCheckedBeforeData: an output that cannot be written is refused
// (exit status 2, naming its flag) before the data are read, so that a large
// data set is not loaded for nothing. The data file here names a TSV file
// that does not exist, which reading the data would report first.
func TestOutputsCheckedBeforeData(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.psl")
	data := filepath.Join(dir, "d.data")
	if err := os.WriteFile(model, []byte("1.0: Smokes(X) -> Cancer(X) ^2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: missing.txt\ntargets:\n  Cancer: missing-targets.txt\ntruth:\n  Cancer: missing-truth.txt\n"
	if err := os.WriteFile(data, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "no-such-dir", "out")
	in := []string{"--model", model, "--data", data}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"ground --export", append([]string{"ground", "--export", bad}, in...), "--export"},
		{"ground --report", append([]string{"ground", "--report", bad}, in...), "--report"},
		{"learn --output", append([]string{"learn", "--output", bad}, in...), "--output"},
		{"learn --report", append([]string{"learn", "--report", bad}, in...), "--report"},
		{"infer --output", append([]string{"infer", "--output", bad}, in...), "--output"},
		{"infer --report", append([]string{"infer", "--report", bad}, in...), "--report"},
		{"structure --output", []string{"structure", "--data", data, "--target", "Cancer", "--output", bad}, "--output"},
		{"structure --report", []string{"structure", "--data", data, "--target", "Cancer", "--report", bad}, "--report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			msg := stderr.String()
			if code != 2 || !strings.Contains(msg, tc.flag+" "+bad) || strings.Contains(msg, "missing") {
				t.Fatalf("exit %d, stderr %q: want exit 2 and the message about %s %s, before the data are read", code, msg, tc.flag, bad)
			}
		})
	}
}
