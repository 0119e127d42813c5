package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsToDevStderr: every command writing an output to standard
// error (/dev/stderr, /dev/fd/2) writes it there alone, its notes,
// warnings and summary lines going to standard output, and the error of a
// failing run too; they were mixed into the output (a warning before the
// report, the learned model after mln learn's and rrf learn's status
// lines, maxsat's error after its report). Each case's input makes the
// command say something besides its output. lift (which prints nothing on
// standard error) and mln infer (which did this already) are here so that
// they stay so. A note on PSL's -D keys was printed before the command
// routed its messages, ahead of the report.
func TestOutputsToDevStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// An open predicate without targets: loading warns.
	ex := abs("../../examples/smokers")
	psl := []string{"--model", smokersModel, "--data", writeFile(t, dir, "warn.data",
		"predicates:\n  Friends/2: closed\n  Smokes/1: open\n  Cancer/1: open\n  Unused/1: open\n"+
			"observations:\n  Friends: "+ex+"/friends_obs.txt\n  Smokes: "+ex+"/smokes_obs.txt\n"+
			"targets:\n  Smokes: "+ex+"/smokes_targets.txt\n  Cancer: "+ex+"/cancer_targets.txt\n"+
			"truth:\n  Smokes: "+ex+"/smokes_truth.txt\n  Cancer: "+ex+"/cancer_truth.txt\n")}
	fam := abs("../../examples/structure")
	family := writeFile(t, dir, "family.data",
		"predicates:\n  Parent/2: closed\n  Friend/2: closed\n  Grandparent/2: open\n  Unused/1: open\n"+
			"observations:\n  Parent: "+fam+"/parent.txt\n  Friend: "+fam+"/friend.txt\n"+
			"targets:\n  Grandparent: "+fam+"/grandparent_targets.txt\n"+
			"truth:\n  Grandparent: "+fam+"/grandparent_truth.txt\n")
	unsat := writeFile(t, dir, "unsat.wcnf", "p wcnf 1 3 10\n10 1 0\n10 -1 0\n1 1 0\n")
	kgcDir := abs("../../examples/kgc")
	const hlmrf = "../../hlmrf/testdata/example1.hlmrf"
	warning := "warning: open predicate Unused/1 has no target atoms"
	for _, tc := range []struct {
		name string
		args []string // OUT: the output written to standard error
		// report: the output is JSON with times in it, checked for being
		// one JSON value alone; else it is compared with the output of a
		// run writing it to a file.
		report bool
		code   int    // the exit status
		stdout string // wanted on standard output (a message)
		// stdoutIs: standard output holds exactly the output the same
		// run writes to this flag's file (an output there too).
		stdoutIs string
	}{
		{"ground --report", append([]string{"ground", "--report", "OUT"}, psl...), true, 0, warning, ""},
		{"infer --report", append([]string{"infer", "--report", "OUT"}, psl...), true, 0, warning, ""},
		{"infer --report -D (a note)", append([]string{"infer", "--report", "OUT", "-D", "votedperceptron.numsteps=5"}, psl...), true, 0,
			"hinge infer: note: PSL's -D votedperceptron.numsteps=5 is ignored", ""},
		{"ground --report -D (a note)", append([]string{"ground", "--report", "OUT", "-D", "random.seed=4"}, psl...), true, 0,
			"hinge ground: note: PSL's -D random.seed=4 is ignored", ""},
		{"infer --report, the model missing", []string{"infer", "--model", filepath.Join(dir, "missing.psl"), "--data", psl[3], "--report", "OUT"},
			true, 2, "hinge infer: reading model", ""},
		{"learn --output", append([]string{"learn", "--output", "OUT"}, psl...), false, 0, warning, ""},
		{"structure --output", []string{"structure", "--data", family, "--target", "Grandparent", "--min-support", "2", "--output", "OUT"},
			false, 0, warning, ""},
		{"solve --output", []string{"solve", hlmrf, "--max-iter", "1", "--output", "OUT"}, false, 0, "warning: " + hlmrf + ": ADMM stopped", ""},
		{"solve --report, --output /dev/stdout", []string{"solve", hlmrf, "--max-iter", "1", "--report", "OUT", "--output", "/dev/stdout"},
			true, 0, "", "--output"},
		{"lift --report", []string{"lift", hlmrf, "--export", filepath.Join(dir, "l.hlmrf"), "--report", "OUT"}, true, 0, "hinge lift ", ""},
		{"kgc --predictions", []string{"kgc", "--train", kgcDir + "/train.txt", "--test", kgcDir + "/test.txt", "--rounds", "1", "--predictions", "OUT"},
			false, 0, "hinge kgc: note: no --valid", ""},
		{"maxsat --report, unsatisfiable", []string{"maxsat", unsat, "--report", "OUT"}, true, 1, "hinge maxsat: " + unsat + ": the assignment violates 1 hard clauses", ""},
		{"maxsat --exact --report, unsatisfiable", []string{"maxsat", "--exact", unsat, "--report", "OUT"}, true, 1, "no assignment satisfies the hard clauses", ""},
		{"mln learn -o", []string{"mln", "learn", "-i", smokersMLN[1], "-t", smokersMLN[3], "-q", "Cancer", "-o", "OUT"}, false, 0, "mln learn (pll)", ""},
		{"rrf learn -o", []string{"rrf", "learn", "-i", "../../examples/rrf/smokers.rrf", "-t", smokersMLN[3], "-q", "Cancer", "-o", "OUT"}, false, 0, "rrf learn (pll)", ""},
		{"mln infer --report, -r /dev/stdout", append([]string{"mln", "infer", "--report", "OUT", "-r", "/dev/stdout"}, smokersMLN...), true, 0, "", "-r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			with := func(out string) []string {
				args := append([]string(nil), tc.args...)
				for i, a := range args {
					if a == "OUT" {
						args[i] = out
					}
				}
				return args
			}
			file := filepath.Join(t.TempDir(), "out")
			var want []byte
			if !tc.report || tc.stdoutIs != "" {
				args := with(file)
				if tc.stdoutIs != "" {
					args = with("/dev/null")
					for i, a := range args {
						if a == "/dev/stdout" && args[i-1] == tc.stdoutIs {
							args[i] = file
						}
					}
				}
				if code, out, errs := runCLI(t, args...); code != tc.code {
					t.Fatalf("to a file: exit %d\n%s%s", code, out, errs)
				}
				if want, err = os.ReadFile(file); err != nil || len(want) == 0 {
					t.Fatalf("to a file: %q, %v", want, err)
				}
			}
			for _, dev := range []string{"/dev/stderr", "/dev/fd/2"} {
				cmd := exec.Command(exe, with(dev)...)
				cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != tc.code {
					t.Fatalf("%s: exit %d, want %d\nstandard output:\n%s\nstandard error:\n%s", dev, code, tc.code, stdout.String(), stderr.String())
				}
				switch {
				case tc.code == 2:
					// Refused: nothing written, the error on standard output.
					if stderr.Len() != 0 {
						t.Errorf("%s: standard error holds %q; want nothing (the error on standard output)", dev, stderr.String())
					}
				case tc.report:
					var v map[string]any
					dec := json.NewDecoder(bytes.NewReader(stderr.Bytes()))
					if err := dec.Decode(&v); err != nil || dec.More() || !strings.HasSuffix(stderr.String(), "}\n") {
						t.Errorf("%s: standard error is not the report alone (%v):\n%s", dev, err, stderr.String())
					}
				case !bytes.Equal(stderr.Bytes(), want):
					t.Errorf("%s: standard error is not the output alone:\n%s\nwant:\n%s", dev, stderr.String(), want)
				}
				if tc.stdoutIs != "" {
					if !bytes.Equal(stdout.Bytes(), want) {
						t.Errorf("%s: standard output is not the %s output alone:\n%s\nwant:\n%s", dev, tc.stdoutIs, stdout.String(), want)
					}
				} else if !strings.Contains(stdout.String(), tc.stdout) {
					t.Errorf("%s: standard output lacks %q:\n%s", dev, tc.stdout, stdout.String())
				}
			}
		})
	}
}

// TestErrorOutputsOnClosedStdout: a failing run whose report is on
// standard error prints its error on standard output, unless the reader
// of standard output is gone: then on standard error, after the report
// (the error was written to the closed pipe and lost, exit 1 with no word
// of why).
func TestErrorOutputsOnClosedStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	unsat := writeFile(t, t.TempDir(), "unsat.wcnf", "p wcnf 1 3 10\n10 1 0\n10 -1 0\n1 1 0\n")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(exe, "maxsat", unsat, "--report", "/dev/stderr")
	cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "hinge maxsat: ") || !strings.Contains(stderr.String(), "violates") {
		t.Errorf("standard error lacks the run's error:\n%s", stderr.String())
	}
}
