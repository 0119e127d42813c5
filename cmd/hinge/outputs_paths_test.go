//go:build unix

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/devtest"
)

// singleFileOutputs are the commands and flags that write one file, each
// as a function of the path to write.
func singleFileOutputs(t *testing.T) []struct {
	name string
	args func(path string) []string
} {
	t.Helper()
	dir := t.TempDir()
	training := writeFile(t, dir, "train.db", "Smokes(Anna)\nSmokes(Bob)\nCancer(Anna)\nFriends(Anna, Bob)\n")
	return []struct {
		name string
		args func(path string) []string
	}{
		{"mln infer -r", func(p string) []string { return args([]string{"mln", "infer"}, smokersMLN, []string{"-r", p}) }},
		{"mln infer --report", func(p string) []string {
			return args([]string{"mln", "infer"}, smokersMLN, []string{"--report", p, "-r", filepath.Join(t.TempDir(), "r")})
		}},
		{"mln infer --html", func(p string) []string {
			return args([]string{"mln", "infer"}, smokersMLN, []string{"--html", p, "-r", filepath.Join(t.TempDir(), "r")})
		}},
		{"mln infer --satisfaction", func(p string) []string {
			return args([]string{"mln", "infer"}, smokersMLN, []string{"--satisfaction", p, "-r", filepath.Join(t.TempDir(), "r")})
		}},
		{"infer --report", func(p string) []string {
			return args([]string{"infer"}, smokersPSL, []string{"--report", p, "--quiet"})
		}},
		{"infer --html", func(p string) []string { return args([]string{"infer"}, smokersPSL, []string{"--html", p, "--quiet"}) }},
		{"infer --satisfaction", func(p string) []string {
			return args([]string{"infer"}, smokersPSL, []string{"--satisfaction", p, "--quiet"})
		}},
		{"kgc --predictions", func(p string) []string { return args([]string{"kgc"}, exampleKGC, []string{"--predictions", p}) }},
		{"mln learn -o", func(p string) []string {
			return []string{"mln", "learn", "-i", "../../examples/mln/smokers.mln", "-t", training, "-o", p, "--force"}
		}},
	}
}

// TestSingleFileOutputsWriteThrough: a single-file output named by a
// symlink writes the file the link points to and leaves the link; one
// naming a device (through a symlink to a null device) or a FIFO writes
// through it and leaves it a device or FIFO. Each used to rename a
// temporary file over the path: -r /dev/stdout replaced the symlink and,
// as root, --html /dev/null made /dev/null a regular file.
func TestSingleFileOutputsWriteThrough(t *testing.T) {
	for _, c := range singleFileOutputs(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			// A symlink to the user's file.
			target := writeFile(t, dir, "target", "the user's old content\n")
			l := filepath.Join(dir, "link")
			if err := os.Symlink(target, l); err != nil {
				t.Fatal(err)
			}
			if code, stdout, errs := runCLI(t, c.args(l)...); code != 0 {
				t.Fatalf("symlink: exit %d\n%s%s", code, stdout, errs)
			}
			if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the symlink was replaced by %v (%v)", st.Mode(), err)
			}
			if b, _ := os.ReadFile(target); len(b) == 0 || strings.Contains(string(b), "old content") {
				t.Errorf("the link's target was not written: %q", b)
			}
			// A symlink to a null device of our own (as root), so that a
			// failure cannot replace the machine's /dev/null.
			if dev := devtest.NullDevice(t, dir); dev != "" {
				null := filepath.Join(dir, "null")
				if err := os.Symlink(dev, null); err != nil {
					t.Fatal(err)
				}
				if code, stdout, errs := runCLI(t, c.args(null)...); code != 0 {
					t.Fatalf("device: exit %d\n%s%s", code, stdout, errs)
				}
				if st, err := os.Stat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
					t.Fatalf("the device is now %v (%v)", st.Mode(), err)
				}
				if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link to the device is now %v (%v)", st.Mode(), err)
				}
			}
			// A FIFO, read while the run writes.
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			got := make(chan []byte, 1) // a reader that never opens does not block the test
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- nil
					return
				}
				b, _ := io.ReadAll(f)
				f.Close()
				got <- b
			}()
			code, stdout, errs := runCLI(t, c.args(fifo)...)
			var b []byte
			select {
			case b = <-got:
			case <-time.After(10 * time.Second):
				// Nothing opened the FIFO: unblock the reader if it still
				// waits (a FIFO replaced by a file leaves it waiting).
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			}
			if code != 0 {
				t.Fatalf("FIFO: exit %d\n%s%s", code, stdout, errs)
			}
			if len(b) == 0 {
				t.Errorf("nothing came through the FIFO")
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO is now %v (%v)", st.Mode(), err)
			}
		})
	}
}

// TestResultToDevStdout: mln infer -r naming /proc/self/fd/1 (what
// /dev/stdout links to) in a real process writes the result to its
// standard output (a pipe here), alone (what the run prints goes to
// standard error), and the link stays.
func TestResultToDevStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	// A link of our own to what /dev/stdout links to, so that a failure
	// replaces no more than the link.
	stdout := filepath.Join(t.TempDir(), "stdout")
	if err := os.Symlink("/proc/self/fd/1", stdout); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args([]string{"mln", "infer"}, smokersMLN, []string{"-r", stdout, "--quiet", "--explain", "Cancer(Bob)"})...)
	cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The result alone: the explanation, printed to standard output
	// otherwise, goes to standard error when the result is written there.
	if !strings.Contains(string(out), "Cancer(Bob) 1") || strings.Contains(string(out), "in the MAP world") || !strings.Contains(stderr.String(), "Cancer(Bob) = 1 in the MAP world") {
		t.Errorf("standard output does not hold the result alone:\n%s\nstandard error:\n%s", out, stderr.String())
	}
	if st, err := os.Lstat(stdout); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", st.Mode(), err)
	}
}

// TestOutputsNamingOneFile: two outputs of one run that name one file (as
// spelled differently, through a symlink, or a hard link) are refused with
// exit status 2 before any work, naming both flags; the last writer used
// to win silently.
func TestOutputsNamingOneFile(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	writeFile(t, dir, "hard", "")
	if err := os.Link(p("hard"), p("hard2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("target.txt"), p("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A side file (the export's atoms, the lift's map) a symlink to the
	// export: the side file replaced the problem, exit 0.
	if err := os.Symlink(p("g.txt"), p("g.txt.atoms")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("l.txt"), p("l.txt.map")); err != nil {
		t.Fatal(err)
	}
	ground := writeFile(t, dir, "ground.hlmrf", "1 0:0 1:1\n1 0:0 2:1\n")
	for _, tc := range []struct {
		name   string
		args   []string
		flags  []string
		unmade []string
	}{
		{"mln -r and --report", args([]string{"mln", "infer"}, smokersMLN, []string{"-r", p("same.txt"), "--report", p("same.txt")}),
			[]string{"--result", "--report"}, []string{p("same.txt")}},
		{"infer --html, --satisfaction, --report", args([]string{"infer"}, smokersPSL, []string{"--html", p("h.html"), "--satisfaction", dir + "/./h.html", "--report", p("sub") + "/../h.html"}),
			[]string{"--html", "--report"}, []string{p("h.html")}},
		{"kgc --predictions and --html", args([]string{"kgc"}, exampleKGC, []string{"--predictions", p("p.txt"), "--html", p("p.txt")}),
			[]string{"--predictions", "--html"}, []string{p("p.txt")}},
		{"a symlink and its target", args([]string{"mln", "infer"}, smokersMLN, []string{"-r", p("link.txt"), "--report", p("target.txt")}),
			[]string{"--result", "--report"}, []string{p("target.txt")}},
		{"two hard links", args([]string{"mln", "infer"}, smokersMLN, []string{"-r", p("hard"), "--report", p("hard2")}),
			[]string{"--result", "--report"}, nil},
		{"ground --export and its atoms", []string{"ground", "--model", smokersModel, "--data", smokersData, "--export", p("g.txt")},
			[]string{"--export"}, []string{p("g.txt")}},
		{"lift --export and its map", []string{"lift", ground, "--export", p("l.txt")},
			[]string{"--export"}, []string{p("l.txt")}},
		{"learn --output and --report", []string{"learn", "--model", smokersModel, "--data", smokersData, "--output", p("l.psl"), "--report", p("l.psl")},
			[]string{"--output", "--report"}, []string{p("l.psl")}},
	} {
		code, stdout, errs := runCLI(t, tc.args...)
		ok := code == 2 && strings.Contains(errs, "name the same file") && stdout == ""
		for _, f := range tc.flags {
			ok = ok && strings.Contains(errs, f+" ")
		}
		if !ok {
			t.Errorf("%s: exit %d, stderr %q, stdout %q: want exit 2 naming %v before any work", tc.name, code, errs, stdout, tc.flags)
		}
		for _, f := range tc.unmade {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: %s was written", tc.name, f)
			}
		}
	}
	// The user's own export, its side file a symlink to it, is left as it
	// was by the refused run.
	mine := writeFile(t, dir, "mine.txt", "the user's ground problem\n")
	if err := os.Symlink(mine, mine+".atoms"); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "ground", "--model", smokersModel, "--data", smokersData, "--export", mine); code != 2 || !strings.Contains(errs, "name the same file") {
		t.Errorf("ground --export over a symlinked side file: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "the user's ground problem\n" {
		t.Errorf("the user's export is now %q (%v)", b, err)
	}
	// Two outputs through one device are written through, one after the
	// other, and are not refused (a null device of our own, as root).
	if dev := devtest.NullDevice(t, dir); dev != "" {
		if code, _, errs := runCLI(t, args([]string{"mln", "infer"}, smokersMLN, []string{"-r", dev, "--report", dev})...); code != 0 {
			t.Errorf("-r and --report through one device: exit %d: %s", code, errs)
		}
		if st, err := os.Lstat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("the device is now %v (%v)", st.Mode(), err)
		}
	}
	// A file output named as --output DIR's lock would be removed with
	// the lock; a descriptor not open for writing, or one of hinge's own,
	// cannot take an output: refused before any work.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "--model", smokersModel, "--data", smokersData, "--output", p("out"), "--report", p("out.lock")}, "is the lock file of --output"},
		{args([]string{"mln", "infer"}, smokersMLN, []string{"-r", "/proc/self/fd/0"}), "descriptor 0"},
	} {
		if code, stdout, errs := runCLI(t, tc.args...); code != 2 || !strings.Contains(errs, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, %q: want exit 2 and %q before any work", tc.args, code, errs, tc.want)
		}
	}
}

// TestInferOutputDirSymlink: infer --output naming a symlink (to an empty
// directory, with a trailing slash, dangling) leaves the symlink and
// writes the directory it names; it used to replace the link by a real
// directory.
func TestInferOutputDirSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(dir, "l")
	if err := os.Symlink(real, l); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "d")
	if err := os.Symlink(filepath.Join(dir, "new"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ given, link, holds string }{{l, l, real}, {l + "/", l, real}, {dangling, dangling, filepath.Join(dir, "new")}} {
		if code, stdout, errs := runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--output", tc.given, "--quiet"); code != 0 {
			t.Fatalf("--output %s: exit %d\n%s%s", tc.given, code, stdout, errs)
		}
		if st, err := os.Lstat(tc.link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("--output %s: the symlink is now %v (%v)", tc.given, st.Mode(), err)
		}
		if _, err := os.Stat(filepath.Join(tc.holds, "CANCER.txt")); err != nil {
			t.Errorf("--output %s: %v", tc.given, err)
		}
	}
}

// TestOverlappingRunsOneOutputDir: while another hinge process holds an
// output directory (its DIR.lock, taken at its start), a second run
// writing it is refused at its start with exit status 2 naming that
// process; the lock used to be taken only for the final swap, so both
// runs succeeded and the later replaced the earlier's set.
func TestOverlappingRunsOneOutputDir(t *testing.T) {
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	out := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Dir(out), "out.lock", strconv.Itoa(other.Process.Pid)+"\n")
	code, stdout, errs := runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--output", out)
	if code != 2 || !strings.Contains(errs, "another hinge run (process "+strconv.Itoa(other.Process.Pid)+")") || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q: want exit 2 naming process %d before any work", code, errs, stdout, other.Process.Pid)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
	// The lock of a run that is over (this one, here) is gone: a third
	// run with the other process gone succeeds.
	other.Process.Kill()
	other.Wait()
	if code, _, errs := runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--output", out, "--quiet"); code != 0 {
		t.Fatalf("after the other run: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(out + ".lock"); err == nil {
		t.Errorf("the lock was left behind")
	}
}

// TestOutputPathsRefused: an output path that cannot mean what it seems is
// refused with exit status 2 before any work, naming the flag: "-" (hinge
// has no such convention; mln infer -r - wrote a file named -), and no
// path for a learned model when the model is not a regular file (learn -m
// /dev/stdin wrote /dev/stdin-learned.psl, a regular file in /dev).
func TestOutputPathsRefused(t *testing.T) {
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // where mln infer -r - wrote its file
	mlnProg, mlnDB := filepath.Join(repoRoot, "examples/mln/smokers.mln"), filepath.Join(repoRoot, "examples/mln/smokers.db")
	pslModel, pslData := filepath.Join(repoRoot, "examples/smokers/smokers.psl"), filepath.Join(repoRoot, "examples/smokers/smokers.data")
	psl, err := os.ReadFile(pslModel)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile(mlnProg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args func() []string
		want string // in stderr
	}{
		{"mln infer -r -", func() []string {
			return []string{"mln", "infer", "-i", mlnProg, "-e", mlnDB, "-q", "Cancer", "-r", "-"}
		}, "--result -: hinge does not read - as standard output"},
		{"mln infer --report -", func() []string {
			return []string{"mln", "infer", "-i", mlnProg, "-e", mlnDB, "-q", "Cancer", "--report", "-"}
		}, "--report -"},
		{"infer --output -", func() []string { return []string{"infer", "-m", pslModel, "-d", pslData, "--output", "-"} }, "--output -"},
		{"learn -m pipe", func() []string { return []string{"learn", "-m", pipePath(t, string(psl)), "-d", pslData} }, "give --output"},
		{"mln learn -i pipe", func() []string { return []string{"mln", "learn", "-i", pipePath(t, string(prog)), "-t", mlnDB} }, "give -o"},
		{"rrf learn -i pipe", func() []string {
			return []string{"rrf", "learn", "-i", pipePath(t, string(prog)), "-t", mlnDB, "-q", "Cancer"}
		}, "give -o"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args()...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, tc.want)
			}
			if names, _ := os.ReadDir(dir); len(names) > 0 {
				t.Errorf("the refused run wrote %v", names)
				for _, n := range names {
					os.RemoveAll(filepath.Join(dir, n.Name()))
				}
			}
		})
	}
}

// TestResultToDevStderr: mln infer (and --as-rrf) with the result on
// standard error writes it there alone, the run's messages going to
// standard output; they were mixed into the result.
func TestResultToDevStderr(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	stderrLink := filepath.Join(dir, "stderr")
	if err := os.Symlink("/proc/self/fd/2", stderrLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		extra   []string
		message string // a status line's start, wanted on standard output
	}{
		{"mln infer", nil, "MAP (lp-round)"},
		{"mln infer --as-rrf", []string{"--as-rrf"}, "rrf: "},
		{"mln infer --marginal", []string{"--marginal", "--method", "mcsat", "--samples", "200"}, "convergence:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if code, out, errs := runCLI(t, args([]string{"mln", "infer"}, smokersMLN, []string{"-r", file}, tc.extra)...); code != 0 {
				t.Fatalf("to a file: exit %d\n%s%s", code, out, errs)
			}
			want, err := os.ReadFile(file)
			if err != nil || len(want) == 0 {
				t.Fatalf("to a file: %q, %v", want, err)
			}
			cmd := exec.Command(exe, args([]string{"mln", "infer"}, smokersMLN, []string{"-r", stderrLink}, tc.extra)...)
			cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\nstandard output:\n%s\nstandard error:\n%s", err, out, stderr.String())
			}
			if stderr.String() != string(want) {
				t.Errorf("standard error is not the result alone:\n%s\nwant:\n%s", stderr.String(), want)
			}
			if !strings.Contains(string(out), tc.message) {
				t.Errorf("the messages (%q) are not on standard output:\n%s", tc.message, out)
			}
		})
	}
}

// TestReportToDevStdoutAsRRF: mln infer --as-rrf --report /dev/stdout
// wrote the result lines and then the report on standard output; as plain
// mln infer, standard output now holds the report alone (the result lines,
// with no -r, go to standard error with the messages).
func TestReportToDevStdoutAsRRF(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, extra := range [][]string{nil, {"--as-rrf"}} {
		cmd := exec.Command(exe, args([]string{"mln", "infer"}, smokersMLN, []string{"--report", "/dev/stdout"}, extra)...)
		cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\nstandard error:\n%s", extra, err, stderr.String())
		}
		var rep map[string]any
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Errorf("%v: standard output is not the report alone (%v):\n%s", extra, err, out)
		}
	}
}
