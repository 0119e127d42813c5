package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClosedStdoutKeepsTheOutputs: a reader that closes standard output at
// once (| head -1 after the first line) does not kill the run: it writes
// its output files and exits 0. It was killed by SIGPIPE (exit 141) at its
// first summary line after the work, with no output file and no message.
func TestClosedStdoutKeepsTheOutputs(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := "../../examples/kgc/"
	pred, rules, report := filepath.Join(dir, "p.txt"), filepath.Join(dir, "r.txt"), filepath.Join(dir, "r.json")
	cmd, stdout, errb := startHinge(t, exe, "kgc", "--train", e+"train.txt", "--valid", e+"valid.txt", "--test", e+"test.txt", "--rounds", "2", "--quiet",
		"--predictions", pred, "--rules", rules, "--report", report)
	stdout.Close() // the reader goes away before the first line
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, p := range []string{pred, rules, report} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
