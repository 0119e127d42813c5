package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputToStdoutAlone: a command whose output (a report, values, a
// learned model) names standard output writes that output there alone, in
// a real process as TestResultToDevStdout runs one; its summary (the c/o/
// s/v lines of maxsat, the tables of ground, lift and learn, "wrote ...")
// goes to standard error. The summary used to come first on standard
// output, so that a JSON report there did not parse.
func TestOutputToStdoutAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	// A link of our own to what /dev/stdout links to, so that a failure
	// replaces no more than the link.
	stdout := p("stdout")
	if err := os.Symlink("/proc/self/fd/1", stdout); err != nil {
		t.Fatal(err)
	}
	wcnf := writeFile(t, dir, "w.wcnf", "p wcnf 2 3 10\n10 1 2 0\n1 -1 0\n1 -2 0\n")
	problem := p("g.hlmrf")
	if code, out, errs := runCLI(t, "ground", "--model", smokersModel, "--data", smokersData, "--export", problem, "--quiet"); code != 0 {
		t.Fatalf("ground --export: exit %d\n%s%s", code, out, errs)
	}
	family := familyWorld(t, 1)
	mlnProg, mlnDB := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"

	for _, tc := range []struct {
		name string
		// args is the command line with out, the output under test.
		args func(out string) []string
		// file: the output is a file whose bytes are compared with those
		// of the same run writing a regular file; else a JSON report.
		file bool
		// summary is a piece of the summary, wanted on standard error.
		summary string
	}{
		{"maxsat --report", func(out string) []string { return []string{"maxsat", wcnf, "--report", out, "--quiet"} }, false, "s OPTIMUM FOUND"},
		{"maxsat --exact --report", func(out string) []string { return []string{"maxsat", wcnf, "--exact", "--report", out, "--quiet"} }, false, "s OPTIMUM FOUND"},
		{"solve --report", func(out string) []string { return []string{"solve", problem, "--report", out, "--quiet"} }, false, "objective"},
		{"solve --output", func(out string) []string { return []string{"solve", problem, "--output", out, "--quiet"} }, true, "objective"},
		{"ground --report", func(out string) []string {
			return []string{"ground", "--model", smokersModel, "--data", smokersData, "--report", out, "--quiet"}
		}, false, "total:"},
		{"lift --report", func(out string) []string { return []string{"lift", problem, "--export", p("l.hlmrf"), "--report", out} }, false, "hinge lift"},
		{"learn --report", func(out string) []string {
			return []string{"learn", "--model", smokersModel, "--data", smokersData, "--output", p("l.psl"), "--force", "--report", out, "--quiet"}
		}, false, "wrote "},
		// --force: the link exists.
		{"learn --output", func(out string) []string {
			return []string{"learn", "--model", smokersModel, "--data", smokersData, "--output", out, "--force", "--quiet"}
		}, true, "wrote "},
		{"structure --report", func(out string) []string {
			return []string{"structure", "--data", family, "--target", "Grandparent", "--min-support", "2", "--output", p("s.psl"), "--force", "--report", out, "--quiet"}
		}, false, "kept "},
		{"structure --output", func(out string) []string {
			return []string{"structure", "--data", family, "--target", "Grandparent", "--min-support", "2", "--output", out, "--force", "--quiet"}
		}, true, "kept "},
		{"structure --generate-only --output", func(out string) []string {
			return []string{"structure", "--data", family, "--target", "Grandparent", "--min-support", "2", "--generate-only", "--output", out, "--force", "--quiet"}
		}, true, "candidate clauses"},
		{"mln learn --report", func(out string) []string {
			return []string{"mln", "learn", "-i", mlnProg, "-t", mlnDB, "-q", "Smokes,Cancer", "-o", p("m.mln"), "--force", "--report", out}
		}, false, "wrote "},
		{"mln learn -o", func(out string) []string {
			return []string{"mln", "learn", "-i", mlnProg, "-t", mlnDB, "-q", "Smokes,Cancer", "-o", out, "--force"}
		}, true, "wrote "},
		{"rrf learn -o", func(out string) []string {
			return []string{"rrf", "learn", "-i", mlnProg, "-t", mlnDB, "-q", "Cancer", "-o", out, "--force"}
		}, true, "wrote "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []byte
			if tc.file {
				file := p(strings.NewReplacer(" ", "_", "/", "_").Replace(tc.name))
				if code, out, errs := runCLI(t, tc.args(file)...); code != 0 {
					t.Fatalf("to a file: exit %d\n%s%s", code, out, errs)
				}
				if want, err = os.ReadFile(file); err != nil || len(want) == 0 {
					t.Fatalf("to a file: %d bytes (%v)", len(want), err)
				}
			}
			cmd := exec.Command(exe, tc.args(stdout)...)
			cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\nstandard output:\n%s\nstandard error:\n%s", err, got, stderr.String())
			}
			switch {
			case tc.file && !bytes.Equal(got, want):
				t.Errorf("standard output (%d bytes) is not the output alone (%d bytes, as written to a file):\n%.600s\nwant:\n%.600s", len(got), len(want), got, want)
			case !tc.file && !json.Valid(got):
				t.Errorf("standard output is not the JSON report alone:\n%.600s", got)
			}
			if !strings.Contains(stderr.String(), tc.summary) {
				t.Errorf("the summary (%q) is not on standard error:\n%s", tc.summary, stderr.String())
			}
			if st, err := os.Lstat(stdout); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link is now %v (%v)", st.Mode(), err)
			}
		})
	}
}

// TestExportThroughRefused: ground --export and lift --export write a
// second file beside the export, named by its path and a suffix (.atoms,
// .map). An export written through (a device, a FIFO, standard output) has
// no directory of its own for it: --export /dev/null used to create the
// regular file /dev/null.atoms. Such an export is refused with exit status
// 2 before any work, naming the flag and the way out, and nothing is
// created beside it.
func TestExportThroughRefused(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, out, errs := runCLI(t, "ground", "--model", smokersModel, "--data", smokersData, "--export", p("g.hlmrf"), "--quiet"); code != 0 {
		t.Fatalf("ground --export: exit %d\n%s%s", code, out, errs)
	}
	targets := []string{"/dev/null"}
	// /dev/null.atoms or /dev/null.map left by an earlier hinge, a regular
	// file, would hide a new one.
	for _, s := range []string{"/dev/null.atoms", "/dev/null.map"} {
		if st, err := os.Lstat(s); err == nil && st.Mode().IsRegular() {
			if err := os.Remove(s); err != nil {
				t.Logf("cannot remove %s, left by an earlier run: %v", s, err)
			}
		}
	}
	if err := syscall.Mkfifo(p("fifo"), 0o600); err == nil {
		// A reader, so that a run writing the FIFO (as one did before the
		// refusal) does not wait for one; the pipe holds these exports.
		if r, err := os.OpenFile(p("fifo"), os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
			targets = append(targets, p("fifo"))
		}
	}
	if _, err := os.Stat("/proc/self/fd/1"); err == nil {
		if err := os.Symlink("/proc/self/fd/1", p("stdout")); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, p("stdout"))
	}
	for _, target := range targets {
		for _, tc := range []struct {
			name, sidecar string
			args          []string
		}{
			{"ground", target + ".atoms", []string{"ground", "--model", smokersModel, "--data", smokersData, "--export", target, "--quiet"}},
			{"lift", target + ".map", []string{"lift", p("g.hlmrf"), "--export", target}},
		} {
			_, statBefore := os.Lstat(tc.sidecar)
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(errs, "--export "+target) || !strings.Contains(errs, "written through") ||
				!strings.Contains(errs, tc.sidecar) || !strings.Contains(errs, "give --export a file path") {
				t.Errorf("%s --export %s: exit %d, stdout %q, stderr %q: want exit 2, before any work, naming --export, the file %s and the way out",
					tc.name, target, code, out, errs, tc.sidecar)
			}
			if _, err := os.Lstat(tc.sidecar); err == nil && statBefore != nil {
				t.Errorf("%s --export %s created %s", tc.name, target, tc.sidecar)
				if target == "/dev/null" {
					os.Remove(tc.sidecar)
				}
			}
		}
	}
	// A file path still gets the file beside it.
	if code, out, errs := runCLI(t, "lift", p("g.hlmrf"), "--export", p("l.hlmrf")); code != 0 {
		t.Fatalf("lift --export FILE: exit %d\n%s%s", code, out, errs)
	}
	for _, f := range []string{p("g.hlmrf.atoms"), p("l.hlmrf.map")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}
