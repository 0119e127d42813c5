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
	dir, model, data := programWithoutData(t)
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

// TestOutputsWritableBeforeData: an output whose directory exists but where
// no file can be created is refused up front (exit status 2, naming the
// flag and the path), before the data are read, not with exit status 1
// after the whole run. /proc/self is a directory in which even root cannot
// create a file, so the test holds when run as root (as CI runs it); a
// directory without write permission is tried too when not root.
func TestOutputsWritableBeforeData(t *testing.T) {
	dir, model, data := programWithoutData(t)
	missing := filepath.Join(dir, "missing")
	dirs := []string{"/proc/self"}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, ro)
	} else {
		t.Log("running as root: the directory without write permission is not tried (root may write there); /proc/self is")
	}
	in := []string{"--model", model, "--data", data}
	for _, d := range dirs {
		bad := filepath.Join(d, "out")
		for _, tc := range []struct {
			name string
			args []string
			flag string
		}{
			{"infer --report", append([]string{"infer", "--report", bad}, in...), "--report"},
			{"infer --output", append([]string{"infer", "--output", bad}, in...), "--output"},
			{"infer --satisfaction", append([]string{"infer", "--satisfaction", bad}, in...), "--satisfaction"},
			{"ground --export", append([]string{"ground", "--export", bad}, in...), "--export"},
			{"learn --output", append([]string{"learn", "--output", bad}, in...), "--output"},
			{"structure --output", []string{"structure", "--data", data, "--target", "Cancer", "--output", bad}, "--output"},
			{"kgc --rules", []string{"kgc", "--train", missing, "--test", missing, "--rules", bad}, "--rules"},
			{"mln infer -r", []string{"mln", "infer", "-i", missing, "-e", missing, "-q", "Q", "-r", bad}, "--result"},
			{"mln learn -o", []string{"mln", "learn", "-i", missing, "-t", missing, "-o", bad}, "-o"},
		} {
			t.Run(d+"/"+tc.name, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := run(tc.args, &stdout, &stderr)
				msg := stderr.String()
				if code != 2 || !strings.Contains(msg, tc.flag+" "+bad) || !strings.Contains(msg, "cannot write") || strings.Contains(msg, "missing") {
					t.Fatalf("exit %d, stderr %q: want exit 2 and the message that %s %s cannot be written, before the inputs are read", code, msg, tc.flag, bad)
				}
			})
		}
	}
}

// programWithoutData writes a model and a data file into a new directory
// whose data file names TSV files that do not exist, which reading the
// data would report first.
func programWithoutData(t *testing.T) (dir, model, data string) {
	t.Helper()
	dir = t.TempDir()
	model, data = filepath.Join(dir, "m.psl"), filepath.Join(dir, "d.data")
	if err := os.WriteFile(model, []byte("1.0: Smokes(X) -> Cancer(X) ^2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: missing.txt\ntargets:\n  Cancer: missing-targets.txt\ntruth:\n  Cancer: missing-truth.txt\n"
	if err := os.WriteFile(data, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, model, data
}
