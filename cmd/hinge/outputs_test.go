package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// TestInferOutputKeepsUserFiles: infer --output DIR where DIR holds
// hinge's earlier outputs and a file the user added is refused with exit
// status 2 before any work (no grounding summary), naming the file, and
// the file is still there; a directory that only holds hinge's earlier
// outputs is replaced as before.
func TestInferOutputKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"infer", "--model", smokersModel, "--data", smokersData, "--output", out}
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	// hinge's own directory is replaced by the next run.
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	notes := writeFile(t, out, "mynotes.txt", "my notes\n")
	for _, extra := range [][]string{nil, {"--streaming"}} {
		code, stdout, errs := runCLI(t, append(args, extra...)...)
		if code != 2 || !strings.Contains(errs, `"mynotes.txt"`) || !strings.Contains(errs, "hinge did not write") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming mynotes.txt", extra, code, errs)
		}
		if strings.Contains(stdout, "potentials") || strings.Contains(stdout, "ADMM") {
			t.Errorf("%v: work was done before the refusal:\n%s", extra, stdout)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "my notes\n" {
			t.Fatalf("%v: the user's file is %q, %v", extra, b, err)
		}
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if want := []string{".hinge-output", "CANCER.txt", "SMOKES.txt", "mynotes.txt"}; !slices.Equal(got, want) {
		t.Errorf("the output directory holds %v, want %v", got, want)
	}
}

// TestInferOutputCheckedFirst: a directory hinge did not write (no marker)
// is refused before loading, grounding or solving, with exit status 2.
func TestInferOutputCheckedFirst(t *testing.T) {
	mine := writeFiles(t, map[string]string{"data.tsv": "a\tb\n"})
	code, stdout, errs := runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--output", mine)
	if code != 2 || !strings.Contains(errs, `"data.tsv"; it has no .hinge-output marker`) || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q: want exit 2 naming data.tsv before any work", code, errs, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(mine, "data.tsv")); err != nil || string(b) != "a\tb\n" {
		t.Errorf("the user's file is %q, %v", b, err)
	}
}

// TestLearnOutputIsInput: a learning command whose output names one of its
// inputs (the model itself, or a data file) is refused as such, without
// suggesting --force, which would not help; with --force it is refused the
// same way, and the input is left as it was.
func TestLearnOutputIsInput(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.psl":        "1: Smokes(A) -> Cancer(A)\n",
		"d.data":       "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: s.txt\ntargets:\n  Cancer: c.txt\ntruth:\n  Cancer: t.txt\n",
		"s.txt":        "a\n",
		"c.txt":        "a\n",
		"t.txt":        "a\t1\n",
		"k.data":       "predicates:\n  Friends/2: closed\n  Knows/2: open\nobservations:\n  Friends: f.txt\ntargets:\n  Knows: k.txt\ntruth:\n  Knows: kt.txt\n",
		"f.txt":        "a\tb\n",
		"k.txt":        "a\tb\n",
		"kt.txt":       "a\tb\t1\n",
		"p.mln":        "Smokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n",
		"train.db":     "Smokes(A)\nCancer(A)\n",
		"decl.mln":     "Smokes(person)\nCancer(person)\n",
		"sub/more.mln": "#include \"../decl.mln\"\n",
		"inc.mln":      "#include \"sub/more.mln\"\n1 Smokes(x) => Cancer(x)\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name  string
		args  []string
		input string
	}{
		{"learn, the model", []string{"learn", "-m", in("m.psl"), "-d", in("d.data"), "--output", in("m.psl")}, "m.psl"},
		{"learn, a data file", []string{"learn", "-m", in("m.psl"), "-d", in("d.data"), "--output", in("s.txt")}, "s.txt"},
		{"structure, the data", []string{"structure", "-d", in("k.data"), "--target", "Knows", "--output", in("k.data")}, "k.data"},
		{"mln learn, the program", []string{"mln", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("p.mln")}, "p.mln"},
		{"structure, an observation file", []string{"structure", "-d", in("k.data"), "--target", "Knows", "--output", in("f.txt")}, "f.txt"},
		{"mln learn, the training database", []string{"mln", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("train.db")}, "train.db"},
		{"rrf learn, the training database", []string{"rrf", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("train.db")}, "train.db"},
		{"mln learn, a file the program includes", []string{"mln", "learn", "-i", in("inc.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("decl.mln")}, "decl.mln"},
		{"mln learn --report, an included file", []string{"mln", "learn", "-i", in("inc.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("x.mln"), "--report", in("sub/more.mln")}, "sub/more.mln"},
		{"rrf learn, a file the program includes", []string{"rrf", "learn", "-i", in("inc.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", in("sub/more.mln")}, "sub/more.mln"},
	} {
		before, err := os.ReadFile(in(tc.input))
		if err != nil {
			t.Fatal(err)
		}
		for _, force := range []bool{false, true} {
			args := tc.args
			if force {
				args = append(args, "--force")
			}
			code, _, errs := runCLI(t, args...)
			if code != 2 || !strings.Contains(errs, "is the input file") || strings.Contains(errs, "--force") {
				t.Errorf("%s (force %v): exit %d, stderr %q: want exit 2, 'is the input file' and no --force suggestion", tc.name, force, code, errs)
			}
		}
		if after, _ := os.ReadFile(in(tc.input)); string(after) != string(before) {
			t.Errorf("%s: the input changed", tc.name)
		}
	}
}

// TestMLNOutputIsIncludedFile: a file that a Markov logic program pulls in
// by #include (directly or through another included file) is an input:
// mln infer's and rrf infer's outputs naming it are refused, exit 2, and
// it is left as it was. It was overwritten, and the next run failed to
// read the program.
func TestMLNOutputIsIncludedFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"decl.mln":     "Smokes(person)\nCancer(person)\n",
		"sub/more.mln": "#include \"../decl.mln\"\n",
		"inc.mln":      "#include \"sub/more.mln\"\n1.5 Smokes(x) => Cancer(x)\n",
		"e.db":         "Smokes(Anna)\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	infer := []string{"mln", "infer", "-i", in("inc.mln"), "-e", in("e.db"), "-q", "Cancer", "--quiet"}
	for _, tc := range []struct {
		name  string
		args  []string
		input string
	}{
		{"mln infer -r", append(infer, "-r", in("decl.mln")), "decl.mln"},
		{"mln infer --report", append(infer, "--report", in("sub/more.mln")), "sub/more.mln"},
		{"mln infer --html", append(infer, "--html", in("decl.mln")), "decl.mln"},
		{"mln infer --satisfaction", append(infer, "--satisfaction", in("decl.mln")), "decl.mln"},
		{"rrf infer -r", []string{"rrf", "infer", "-i", in("inc.mln"), "-e", in("e.db"), "-q", "Cancer", "-r", in("decl.mln")}, "decl.mln"},
	} {
		refusedAsInput(t, tc.name, in(tc.input), tc.args...)
	}
	if code, out, errs := runCLI(t, infer...); code != 0 || !strings.Contains(out, "Cancer(Anna) 1") {
		t.Errorf("the program with its includes: exit %d, %q, %q", code, out, errs)
	}
}

// TestInferOutputSpelledRelative: infer --output names its directory in
// any spelling: "." (the current directory), "./", "out/", the parent
// "..". WriteDir put its lock (DIR.lock) and its new set beside the
// directory by the name as given, which for "." is inside it ("..lock"), so
// a run into an empty current directory ended, after all the work, refusing
// the files it had itself put there. Now the directory is written (and
// holds hinge's files only) or, for "..", which holds the current directory,
// refused up front, exit 2, leaving nothing behind.
func TestInferOutputSpelledRelative(t *testing.T) {
	model, err := filepath.Abs(smokersModel)
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs(smokersData)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cwd, output, written string // cwd and written under the test's directory
		extra                      []string
		code                       int
	}{
		{"dot", "out", ".", "out", nil, 0},
		{"dot slash", "out", "./", "out", nil, 0},
		{"new directory with a slash", "", "out/", "out", nil, 0},
		{"existing directory with a slash", "", "out/", "out", nil, 0},
		{"dot dot", "a/b", "..", "", nil, 2},
		// A report inside the directory that is replaced as a whole.
		{"dot with a report in it", "out", ".", "", []string{"--report", "r.json"}, 2},
		{"report inside", "", "out", "", []string{"--report", "out/r.json"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cwd := filepath.Join(root, tc.cwd)
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.name == "existing directory with a slash" {
				if err := os.Mkdir(filepath.Join(root, "out"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(cwd)
			code, stdout, errs := runCLI(t, append([]string{"infer", "--model", model, "--data", data, "--output", tc.output}, tc.extra...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, errs)
			}
			if tc.code != 0 {
				if strings.Contains(stdout, "potentials") {
					t.Errorf("work was done before the refusal:\n%s", stdout)
				}
			} else {
				got := dirNames(t, filepath.Join(root, tc.written))
				if want := []string{".hinge-output", "CANCER.txt", "SMOKES.txt"}; !slices.Equal(got, want) {
					t.Errorf("the output directory holds %v, want %v", got, want)
				}
			}
			// Nothing else beside it: no lock, no temporary directory.
			var want []string
			if tc.cwd != "" {
				want = []string{strings.Split(tc.cwd, "/")[0]}
			} else if tc.written != "" {
				want = []string{tc.written}
			}
			if got := dirNames(t, root); !slices.Equal(got, want) {
				t.Errorf("the test's directory holds %v, want %v", got, want)
			}
		})
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestConfigOtherPartitionIsInput: a JSON config names the data of every
// split; a run reads one (--partition), but an output naming a file of
// another split is refused as an input all the same (it was overwritten,
// and the next learning run read the report as target atoms).
func TestConfigOtherPartitionIsInput(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"r.psl":             "1.0: Friends(A, B) & Smokes(A) -> Smokes(B) ^2\n",
		"learn_targets.txt": "Bob\n",
		"learn_truth.txt":   "Bob\t1\n",
		"c.json": `{"rules": "r.psl", "predicates": {"Friends/2": {"observations": [["Anna", "Bob"]]},
 "Smokes/1": {"observations": [["Anna", 1]], "targets": {"infer": [["Bob"]], "learn": ["learn_targets.txt"]},
  "truth": {"learn": ["learn_truth.txt"]}}}}`,
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
		file string
	}{
		{"infer --report, a learn target file", []string{"infer", "--config", in("c.json"), "--report", in("learn_targets.txt"), "--quiet"}, "learn_targets.txt"},
		{"infer --report, a learn truth file", []string{"infer", "--config", in("c.json"), "--partition", "infer", "--report", in("learn_truth.txt"), "--quiet"}, "learn_truth.txt"},
		{"learn --report, an infer-only config's rules", []string{"learn", "--config", in("c.json"), "--output", in("x.psl"), "--report", in("r.psl"), "--quiet"}, "r.psl"},
	} {
		refusedAsInput(t, tc.name, in(tc.file), tc.args...)
	}
}

// refusedAsInput runs hinge with args and checks that the run is refused,
// exit 2, because an output names the input file, which stays as it was.
func refusedAsInput(t *testing.T, name, file string, args ...string) {
	t.Helper()
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, args...)
	if code != 2 || !strings.Contains(errs, "is the input file") {
		t.Errorf("%s: exit %d, stderr %q: want exit 2 and 'is the input file'", name, code, errs)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("%s: %s changed", name, file)
	}
}

// TestLearnedModelToDevice: a learned model written to a device replaces
// nothing, so it needs no --force (it was refused as "exists (an earlier
// learned model?)").
func TestLearnedModelToDevice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p.mln":    "Smokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n",
		"train.db": "Smokes(A)\nCancer(A)\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"learn", "-m", "../../examples/smokers/smokers.psl", "-d", "../../examples/smokers/smokers.data", "--output", os.DevNull, "--quiet"},
		{"mln", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", os.DevNull},
		{"rrf", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o", os.DevNull},
	} {
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

// TestFailedWriteKeepsEveryOutput: when one output of a run cannot be
// written (here --report to /dev/full), the run exits 1 and none of its
// outputs is put in place: the --output directory and the --satisfaction
// file keep the earlier run's. They held the failed run's values, beside
// the earlier run's others.
func TestFailedWriteKeepsEveryOutput(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	dir := t.TempDir()
	out, sat := filepath.Join(dir, "out"), filepath.Join(dir, "sat.tsv")
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	if code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--quiet", "--output", out, "--satisfaction", sat); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, errs)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		for _, p := range []string{sat, filepath.Join(out, "CANCER.txt"), filepath.Join(out, "SMOKES.txt")} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = string(b)
		}
		return m
	}
	before := snapshot()
	code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--quiet", "--output", out, "--satisfaction", sat, "--report", "/dev/full", "--max-iter", "3")
	if code != 1 || !strings.Contains(errs, "/dev/full") {
		t.Fatalf("exit %d, stderr %q: want exit 1 naming /dev/full", code, errs)
	}
	after := snapshot()
	for p, s := range before {
		if after[p] != s {
			t.Errorf("%s changed although the run failed", p)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left in the directory: %v", entries)
	}
}

// TestThroughOutputNeedsTMPDIR: an output to a device is kept in the
// temporary directory until the run ends, so an unwritable TMPDIR is
// refused before any work, exit 2, naming the flag; the run failed at its
// end, and (before the batch was failed by it) replaced its other outputs.
func TestThroughOutputNeedsTMPDIR(t *testing.T) {
	dir := t.TempDir()
	r := filepath.Join(dir, "r.txt")
	if err := os.WriteFile(r, []byte("OLD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "nonexistent"))
	code, _, errs := runCLI(t, "mln", "infer", "-i", "../../examples/mln/smokers.mln", "-e", "../../examples/mln/smokers.db",
		"-q", "Cancer", "-r", r, "--report", os.DevNull)
	if code != 2 || !strings.Contains(errs, "--report "+os.DevNull) || !strings.Contains(errs, "TMPDIR") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming --report and TMPDIR", code, errs)
	}
	if b, _ := os.ReadFile(r); string(b) != "OLD\n" {
		t.Errorf("-r was replaced: %q", b)
	}
}

// failingWriter fails every write, as /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutWriteFailure: a run whose standard output cannot be written
// (its printed answer lost) exits 1 saying so, and puts none of its
// outputs in place; it ended with status 0.
func TestStdoutWriteFailure(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	if err := os.WriteFile(rep, []byte("OLD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := runContext(context.Background(), []string{"infer", "-m", "../../examples/smokers/smokers.psl", "-d", "../../examples/smokers/smokers.data", "--report", rep}, failingWriter{}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "writing standard output: no space left on device") || !strings.Contains(stderr.String(), "none of the run's outputs was written") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if b, _ := os.ReadFile(rep); string(b) != "OLD\n" {
		t.Errorf("--report was replaced: %q", b)
	}
}

// TestOutputDirHoldsInput: an output directory that the run would replace
// as a whole (infer --output, kgc --psl-out) is refused, exit 2 before any
// work, naming the flag and the input file, when an input of the run lies
// in it: the model and data that kgc --psl-out wrote there, or an earlier
// infer's result read as observations, directly, through a symlink to the
// directory or a symlink to the file. They were deleted with the old set,
// exit 0. The inputs are left as they were; an output directory elsewhere
// runs.
func TestOutputDirHoldsInput(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	// A set written by hinge (so that the marker lists every file and the
	// directory alone is no reason to refuse) holding a model and its data.
	psl := in("psl")
	if err := atomicfile.WriteDir(psl, func(tmp string) error {
		for name, text := range map[string]string{
			"m.psl":  "1: Smokes(A) -> Cancer(A)\n",
			"d.data": "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: s.txt\ntargets:\n  Cancer: c.txt\n",
			"s.txt":  "a\n", "c.txt": "a\n",
			"train.txt": "a\tr\tb\nb\tr\tc\n", "test.txt": "a\tr\tc\n",
		} {
			if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// An earlier infer's result, and a second model reading it.
	out := in("out")
	if code, _, errs := runCLI(t, "infer", "-m", smokersModel, "-d", smokersData, "--output", out, "--quiet"); code != 0 {
		t.Fatalf("first infer: exit %d: %s", code, errs)
	}
	if err := os.Symlink(out, in("link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "CANCER.txt"), in("cancer.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "c2.psl", "0.5: Cancer(X) -> Smokes(X) ^2\n0.01: !Smokes(X)\n")
	targets, err := filepath.Abs("../../examples/smokers/smokes_targets.txt")
	if err != nil {
		t.Fatal(err)
	}
	data := func(name, cancer string) string {
		return writeFile(t, dir, name, "predicates:\n  Smokes/1: open\n  Cancer/1: closed\nobservations:\n  Cancer: "+cancer+"\ntargets:\n  Smokes: "+targets+"\n")
	}
	direct, viaDir, viaFile := data("direct.data", "out/CANCER.txt"), data("viadir.data", "link/CANCER.txt"), data("viafile.data", "cancer.txt")
	for _, tc := range []struct {
		name  string
		args  []string
		flag  string
		input string // "" : the run succeeds
	}{
		{"infer, model and data in --output", []string{"infer", "-m", in("psl/m.psl"), "-d", in("psl/d.data"), "--output", psl}, "--output", "m.psl"},
		{"infer, a data file in --output", []string{"infer", "-m", smokersModel, "-d", in("psl/d.data"), "--output", psl}, "--output", "d.data"},
		{"infer, an observation file in --output", []string{"infer", "-m", in("c2.psl"), "-d", direct, "--output", out}, "--output", "CANCER.txt"},
		{"infer, --output spelled through a symlink", []string{"infer", "-m", in("c2.psl"), "-d", direct, "--output", in("link")}, "--output", "CANCER.txt"},
		{"infer, an observation file through a symlinked directory", []string{"infer", "-m", in("c2.psl"), "-d", viaDir, "--output", out}, "--output", "CANCER.txt"},
		{"infer, an observation file that is a symlink into --output", []string{"infer", "-m", in("c2.psl"), "-d", viaFile, "--output", out}, "--output", "cancer.txt"},
		{"kgc, training data in --psl-out", []string{"kgc", "--train", in("psl/train.txt"), "--test", in("psl/test.txt"), "--rounds", "1", "--score", "psl", "--psl-out", psl}, "--psl-out", "train.txt"},
		{"infer, the output elsewhere", []string{"infer", "-m", in("c2.psl"), "-d", direct, "--output", in("other")}, "", ""},
	} {
		before := map[string]string{}
		for _, d := range []string{psl, out} {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				b, _ := os.ReadFile(filepath.Join(d, e.Name()))
				before[filepath.Join(d, e.Name())] = string(b)
			}
		}
		code, stdout, errs := runCLI(t, append(tc.args, "--quiet")...)
		if tc.input == "" {
			if code != 0 {
				t.Errorf("%s: exit %d: %s", tc.name, code, errs)
			}
			continue
		}
		if code != 2 || !strings.Contains(errs, tc.flag+" ") || !strings.Contains(errs, "the input file") || !strings.Contains(errs, tc.input) {
			t.Errorf("%s: exit %d, stderr %q: want exit 2 naming %s and the input %s", tc.name, code, errs, tc.flag, tc.input)
		}
		if strings.Contains(stdout, "potentials") || strings.Contains(stdout, "MRR") {
			t.Errorf("%s: work was done before the refusal:\n%s", tc.name, stdout)
		}
		for path, text := range before {
			if b, err := os.ReadFile(path); err != nil || string(b) != text {
				t.Errorf("%s: %s is now %q, %v", tc.name, path, b, err)
			}
		}
	}
}

// TestLearnedModelAppearsDuringRun: a learning command without --force
// that finds, when it writes its model, a file at the output path that
// was not there at its start (another run's model, written meanwhile)
// leaves that file as it is and fails, exit 1, saying so and where its
// own result was kept; it replaced the file silently, exit 0. With --force
// the file is replaced.
func TestLearnedModelAppearsDuringRun(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.psl":    "1: Smokes(A) -> Cancer(A)\n",
		"d.data":   "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: s.txt\ntargets:\n  Cancer: c.txt\ntruth:\n  Cancer: t.txt\n",
		"s.txt":    "a\n",
		"c.txt":    "a\n",
		"t.txt":    "a\t1\n",
		"k.data":   "predicates:\n  Friends/2: closed\n  Knows/2: open\nobservations:\n  Friends: f.txt\ntargets:\n  Knows: k.txt\ntruth:\n  Knows: kt.txt\n",
		"f.txt":    "a\tb\n",
		"k.txt":    "a\tb\n",
		"kt.txt":   "a\tb\t1\n",
		"p.mln":    "Smokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n",
		"train.db": "Smokes(A)\nCancer(A)\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	defer func() { testHookBeforeLearnedWrite = nil }()
	for _, tc := range []struct {
		name string
		args []string
		out  string
	}{
		{"learn", []string{"learn", "-m", in("m.psl"), "-d", in("d.data"), "--quiet", "--output"}, "learned.psl"},
		{"structure", []string{"structure", "-d", in("k.data"), "--target", "Knows", "--quiet", "--output"}, "structure.psl"},
		{"mln learn", []string{"mln", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o"}, "learned.mln"},
		{"rrf learn", []string{"rrf", "learn", "-i", in("p.mln"), "-t", in("train.db"), "-q", "Cancer", "-o"}, "learned.rrf"},
	} {
		for _, force := range []bool{false, true} {
			out := in(tc.out)
			os.Remove(out)
			testHookBeforeLearnedWrite = func(path string) {
				if err := os.WriteFile(path, []byte("another run's model\n"), 0o644); err != nil {
					t.Error(err)
				}
			}
			args := append(slices.Clone(tc.args), out)
			if force {
				args = append(args, "--force")
			}
			code, _, errs := runCLI(t, args...)
			got, _ := os.ReadFile(out)
			kept, _ := filepath.Glob(filepath.Join(dir, "."+tc.out+".tmp*"))
			if force {
				if code != 0 || string(got) == "another run's model\n" {
					t.Errorf("%s --force: exit %d, the file holds %q: want it replaced (%s)", tc.name, code, got, errs)
				}
				continue
			}
			if code != 1 || !strings.Contains(errs, "appeared while the run went on") || len(kept) != 1 || !strings.Contains(errs, kept[0]) {
				t.Errorf("%s: exit %d, stderr %q, kept %q: want exit 1 saying the file appeared and where the result is", tc.name, code, errs, kept)
			}
			if string(got) != "another run's model\n" {
				t.Errorf("%s: the other run's file was replaced by %q", tc.name, got)
			}
			for _, k := range kept {
				os.Remove(k)
			}
		}
	}
}

// TestOutputNamesNearNameMax: outputs named near NAME_MAX (which a shell
// creates) are written: they failed only once the run was done, exit 1,
// as the temporary name ".NAME.tmpNNNN" was too long. An output directory
// whose lock name (NAME.lock) cannot exist is refused before any work.
func TestOutputNamesNearNameMax(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"--report of 245 bytes", []string{"--report", strings.Repeat("r", 245)}, 0},
		{"--report of 255 bytes", []string{"--report", strings.Repeat("r", 255)}, 0},
		{"--satisfaction of 250 bytes", []string{"--satisfaction", strings.Repeat("s", 250)}, 0},
		{"--output of 238 bytes", []string{"--output", strings.Repeat("d", 238)}, 0},
		{"--output of 250 bytes", []string{"--output", strings.Repeat("e", 250)}, 0},
		{"--output of 251 bytes", []string{"--output", strings.Repeat("f", 251)}, 2},
	} {
		args := []string{"infer", "-m", smokersModel, "-d", smokersData}
		for i := 0; i < len(tc.args); i += 2 {
			args = append(args, tc.args[i], filepath.Join(dir, tc.args[i+1]))
		}
		for run := 1; run <= 2; run++ { // written, then replaced
			code, stdout, errs := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("%s, run %d: exit %d, want %d: %s", tc.name, run, code, tc.code, errs)
			}
			if code == 2 && (strings.Contains(stdout, "potentials") || !strings.Contains(errs, "shorter name")) {
				t.Errorf("%s: refused %q after work:\n%s", tc.name, errs, stdout)
			}
		}
	}
}
