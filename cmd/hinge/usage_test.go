package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

const (
	smokersModel = "../../examples/smokers/smokers.psl"
	smokersData  = "../../examples/smokers/smokers.data"
)

// TestCommandLineHelp checks the answers to mistyped command lines: the exit
// status, one "hinge CMD:" prefix, and the suggestion.
func TestCommandLineHelp(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // exact substring of stderr
	}{
		{"misspelt flag", []string{"infer", "--model", smokersModel, "--data", smokersData, "--ouput", "x"}, "hinge infer: unknown flag: --ouput (did you mean --output?)"},
		{"misspelt ADMM flag", []string{"solve", "f", "--max-itr", "3"}, "did you mean --max-iter?"},
		{"no near flag", []string{"ground", "--zzzzzz"}, "hinge ground: unknown flag: --zzzzzz\n"},
		{"misspelt command", []string{"infr"}, `hinge: unknown command "infr" (did you mean infer?)`},
		{"misspelt command with flags", []string{"infr", "-m", "x"}, `hinge: unknown command "infr" (did you mean infer?)`},
		{"misspelt subcommand with flags", []string{"mln", "infr", "-i", "x"}, `hinge mln: unknown command "infr" (did you mean infer?)`},
		{"flag of no command", []string{"--bogus"}, "hinge: unknown flag: --bogus\n"},
		{"lift without --export", []string{"lift", "f"}, "hinge lift: --export OUT is required\n"},
		{"PSL mode flag", []string{"-infer", "-model", "M.psl", "-data", "D.data"}, "did you mean `hinge infer --model M.psl --data D.data`?"},
		{"PSL mode long flag", []string{"--learn"}, "did you mean `hinge learn --model M.psl --data D.data`?"},
		{"files without flags", []string{"infer", "M.psl", "D.data"}, "did you mean `hinge infer --model M.psl --data D.data`?"},
		{"config without flag", []string{"learn", "c.json"}, "did you mean `hinge learn --config c.json`?"},
		{"other argument", []string{"ground", "what"}, `unexpected argument "what"`},
		{"solve without file", []string{"solve"}, "hinge solve: want exactly one input file, got 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
			}
			if strings.Count(errs, "hinge") > 1+strings.Count(tc.want, "hinge") {
				t.Errorf("stderr %q names hinge more than once", errs)
			}
		})
	}
}

func TestShortAndOneDashFlags(t *testing.T) {
	for _, args := range [][]string{
		{"ground", "-m", smokersModel, "-d", smokersData},
		{"ground", "-model", smokersModel, "-data=" + smokersData},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "40           0  total") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	// In a test binary the main module's version is "(devel)" or empty.
	if code != 0 || !regexp.MustCompile(`^hinge \S.*go1\.\d+`).MatchString(out) {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestHelpDefaults checks the help of flags whose defaults were once shown
// wrong or differed between commands.
func TestHelpDefaults(t *testing.T) {
	for _, tc := range []struct {
		cmd, want, notWant string
	}{
		{"learn", "data split of a JSON config: infer or learn (default \"learn\")", ""},
		{"infer", "data split of a JSON config: infer or learn (default \"infer\")", ""},
		{"learn", "(mple, ppll; default 200)\n", "(default 25)"},
		{"learn", "--seed uint", ""},
		{"learn", "(default 1)", ""},
		{"infer", "--seed uint                 seed for every random choice (local search, --shuffle) (default 1)", ""},
		{"maxsat", "seed of the local search and of --exact's neighbourhood search (default 1)", ""},
		{"infer", "-m, --model string", ""},
	} {
		code, out, _ := runCLI(t, tc.cmd, "--help")
		if code != 0 || !strings.Contains(out, tc.want) || (tc.notWant != "" && strings.Contains(out, tc.notWant)) {
			t.Errorf("hinge %s --help: want %q, not %q, in:\n%s", tc.cmd, tc.want, tc.notWant, out)
		}
	}
}

func TestLearnKeepsEarlierModel(t *testing.T) {
	out := writeFile(t, t.TempDir(), "learned.psl", "1: A(X) -> B(X)\n")
	args := []string{"learn", "--model", smokersModel, "--data", smokersData, "--method", "mple", "--output", out}
	code, _, errs := runCLI(t, args...)
	if code != 2 || !strings.Contains(errs, filepath.Base(out)+" exists") {
		t.Fatalf("exit %d, %s: want a refusal to overwrite", code, errs)
	}
	if code, _, errs = runCLI(t, append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d, %s", code, errs)
	}
}

// TestOutputsCheckedFirst: an output that names an input, a directory where
// a file goes (or the reverse), or a missing directory is refused before any
// grounding or solving, and the input is left as it was.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.psl": "1: Smokes(A) -> Cancer(A)\n", "d.data": "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: s.txt\ntargets:\n  Cancer: c.txt\n",
		"s.txt": "a\n", "c.txt": "a\n", "f.hlmrf": "1 0:0 1:1\n",
	})
	model, data := filepath.Join(dir, "m.psl"), filepath.Join(dir, "d.data")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "-m", model, "-d", data, "--report", model}, "is the input file"},
		{[]string{"infer", "-m", model, "-d", data, "--report", filepath.Join(dir, "s.txt")}, "is the input file"},
		{[]string{"infer", "-m", model, "-d", data, "--report", dir}, "is a directory; give a file name"},
		// A path ending in / names a directory, as the shell's > says:
		// hinge wrote a file "new" for "new/" (and replaced r.json for
		// "r.json/").
		{[]string{"infer", "-m", model, "-d", data, "--report", filepath.Join(dir, "new") + "/"}, "ends in /, which names a directory"},
		{[]string{"infer", "-m", model, "-d", data, "--report", filepath.Join(dir, "s.txt") + "/"}, "ends in /, which names a directory"},
		{[]string{"infer", "-m", model, "-d", data, "--output", model}, "is a file; give a directory"},
		{[]string{"ground", "-m", model, "-d", data, "--export", filepath.Join(dir, "no", "x.hlmrf")}, "does not exist"},
		{[]string{"learn", "-m", model, "-d", data, "--output", data, "--force"}, "is the input file"},
		{[]string{"solve", filepath.Join(dir, "f.hlmrf"), "--report", filepath.Join(dir, "f.hlmrf")}, "is the input file"},
		{[]string{"maxsat", filepath.Join(dir, "f.hlmrf"), "--report", filepath.Join(dir, "f.hlmrf")}, "is the input file"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(out, "potentials") {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q before any work", tc.args, code, errs, out, tc.want)
		}
	}
	if b, err := os.ReadFile(model); err != nil || string(b) != "1: Smokes(A) -> Cancer(A)\n" {
		t.Errorf("the model changed: %q %v", b, err)
	}
	// infer --output into a directory holding an input named like an output
	// (refused as an input inside the directory, which replacing it deletes).
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// (hinge wrote it: its marker lists CANCER.txt.)
	if err := atomicfile.WriteDir(out, func(tmp string) error { writeFile(t, tmp, "CANCER.txt", "a\n"); return nil }); err != nil {
		t.Fatal(err)
	}
	data2 := writeFile(t, dir, "d2.data", "predicates:\n  Smokes/1: closed\n  Cancer/1: open\nobservations:\n  Smokes: s.txt\ntargets:\n  Cancer: out/CANCER.txt\n")
	if code, _, errs := runCLI(t, "infer", "-m", model, "-d", data2, "--output", out); code != 2 || !strings.Contains(errs, "CANCER.txt is inside it") {
		t.Errorf("output over an input: exit %d, %s", code, errs)
	}
}

// TestMissingInputsNamed: infer, learn and ground run with no input name
// every input they need (hinge infer alone asked for --data only, and then,
// once given it, for the model).
func TestMissingInputsNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"infer"}, "give --model M.psl and --data D.data, or --config C.json"},
		{[]string{"learn"}, "give --model M.psl and --data D.data, or --config C.json"},
		{[]string{"ground"}, "give --model M.psl and --data D.data, or --config C.json"},
		{[]string{"infer", "--model", "M.psl"}, "give --data FILE.data or --config FILE.json"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q: want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
