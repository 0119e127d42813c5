package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

func TestInferSmokersExample(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	report := filepath.Join(dir, "r.json")
	code, stdout, errs := runCLI(t, "infer", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data",
		"--output", out, "--report", report)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"ADMM:", "converged", "evaluation Smokes", "evaluation Cancer", "DiscreteEvaluator", "ContinuousEvaluator"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// PSL-style output files: one line per target, arg<TAB>value, values in [0,1].
	vals := map[string]float64{}
	for _, name := range []string{"SMOKES.txt", "CANCER.txt"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 2 {
				t.Fatalf("%s: bad line %q", name, line)
			}
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil || v < 0 || v > 1 {
				t.Fatalf("%s: bad value in %q", name, line)
			}
			vals[name+":"+f[0]] = v
		}
	}
	if len(vals) != 18 {
		t.Fatalf("want 18 inferred atoms, got %d", len(vals))
	}
	// Friends of smokers smoke more than friends of non-smokers; smokers get cancer.
	if !(vals["SMOKES.txt:Bob"] > 0.5 && vals["SMOKES.txt:Helen"] < 0.1 && vals["CANCER.txt:Anna"] > 0.9 && vals["CANCER.txt:Gary"] < 0.1) {
		t.Fatalf("implausible MAP state: %v", vals)
	}
	var rep map[string]any
	readJSON(t, report, &rep)
	for _, k := range []string{"variables", "potentials", "constraints", "rules", "objective", "iterations", "primal_residual", "dual_residual", "max_constraint_violation", "evaluation", "seconds"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	sec := rep["seconds"].(map[string]any)
	for _, k := range []string{"load", "ground", "solve", "total"} {
		if _, ok := sec[k]; !ok {
			t.Errorf("report lacks seconds.%s", k)
		}
	}
	ev := rep["evaluation"].(map[string]any)["Smokes"].(map[string]any)
	if _, ok := ev["ACCURACY"]; !ok {
		t.Errorf("evaluation lacks Smokes.ACCURACY: %v", ev)
	}
}

// TestInferLiftedAndDiscrete: --lifted gives the same MAP state as the plain
// solve; --discrete gives 0/1 values with a certified ratio.
func TestInferLiftedAndDiscrete(t *testing.T) {
	args := []string{"infer", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--eps-abs", "1e-8", "--eps-rel", "1e-8"}
	plain := readOutputs(t, args...)
	lifted := readOutputs(t, append(args, "--lifted")...)
	for k, v := range plain {
		if math.Abs(lifted[k]-v) > 1e-3 {
			t.Errorf("%s: lifted %v, plain %v", k, lifted[k], v)
		}
	}
	disc := readOutputs(t, append(args, "--discrete")...)
	for k, v := range disc {
		if v != 0 && v != 1 {
			t.Errorf("--discrete gave %s = %v", k, v)
		}
	}
}

func readOutputs(t *testing.T, args ...string) map[string]float64 {
	t.Helper()
	dir := t.TempDir()
	code, _, errs := runCLI(t, append(args, "--output", dir)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	vals := map[string]float64{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".txt") {
			continue // the directory's marker
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			i := strings.LastIndexByte(line, '\t')
			v, _ := strconv.ParseFloat(line[i+1:], 64)
			vals[e.Name()+":"+line[:i]] = v
		}
	}
	return vals
}

func TestInferEdgeCases(t *testing.T) {
	data := `predicates:
  Friends/2: closed
  Smokes/1: open
observations:
  Friends: friends.txt
  Smokes: smokes_obs.txt
targets:
  Smokes: smokes_targets.txt
`
	base := map[string]string{
		"d.data":             data,
		"friends.txt":        "a\tb\nb\tc\n",
		"smokes_obs.txt":     "a\t1\n",
		"smokes_targets.txt": "b\nc\nlonely\n",
	}
	tests := []struct {
		name     string
		model    string
		patch    map[string]string
		extra    []string
		code     int
		contains []string
	}{
		{"zero weight and isolated variable", "0: Friends(A, B) & Smokes(A) -> Smokes(B)\n1: Friends(A, B) & Smokes(A) -> Smokes(B)\n", nil, nil, 0,
			[]string{"Smokes('lonely') = 0.000000", "Smokes('c') = 1.000000"}},
		{"infeasible hard constraint", "1: Friends(A, B) & Smokes(A) -> Smokes(B)\nSmokes(B) + Smokes(C) >= 3 .\n", nil, []string{"--max-iter", "200"}, 1,
			[]string{"still violated", "Smokes(B) + Smokes(C) >= 3 ."}},
		{"no targets", "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n", map[string]string{"smokes_targets.txt": "", "d.data": strings.Replace(data, "targets:\n  Smokes: smokes_targets.txt\n", "", 1)}, nil, 0,
			[]string{"total: 0 variables"}},
		{"not clausal for --discrete", "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n0.5 * Smokes(B) + Smokes(C) <= 1 .\n", nil, []string{"--discrete"}, 2,
			[]string{"--discrete", "m.psl:2:1: rule \"0.5 * Smokes(B) + Smokes(C) <= 1 .\" grounds to a hard constraint that is not a clause"}},
		{"bad eval option", "1: Friends(A, B) & Smokes(A) -> Smokes(B)\n", nil, []string{"--eval-option", "nokeyvalue"}, 2,
			[]string{"want KEY=VALUE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"m.psl": tt.model}
			patch(files, base)
			patch(files, tt.patch)
			dir := writeFiles(t, files)
			args := append([]string{"infer", "--model", filepath.Join(dir, "m.psl"), "--data", filepath.Join(dir, "d.data")}, tt.extra...)
			code, stdout, errs := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, errs)
			}
			for _, want := range tt.contains {
				if !strings.Contains(stdout+errs, want) {
					t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", want, stdout, errs)
				}
			}
		})
	}
}

// TestInferChecksBeforeSolving: an evaluator that cannot fit a predicate is
// an error before grounding; --discrete says it treats ^2 as linear; an
// open predicate without targets gets a warning.
func TestInferChecksBeforeSolving(t *testing.T) {
	code, out, errs := runCLI(t, "infer", "-m", smokersModel, "-d", smokersData, "--eval", "CategoricalEvaluator")
	if code != 2 || !strings.Contains(errs, "no entity to classify") || strings.Contains(out, "ADMM") || strings.Contains(out, "loaded") {
		t.Errorf("categorical on unary predicates: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = runCLI(t, "infer", "-m", smokersModel, "-d", smokersData, "--discrete")
	if code != 0 || !strings.Contains(errs, "--discrete treats squared rules (^2) as linear") {
		t.Errorf("--discrete: exit %d, stderr %q", code, errs)
	}
	dir := t.TempDir()
	writeFile(t, dir, "m.psl", "1: A(X) -> B(X)\n")
	writeFile(t, dir, "a.txt", "x\n")
	writeFile(t, dir, "b.txt", "")
	data := writeFile(t, dir, "d.data", "predicates:\n  A/1: closed\n  B/1: open\nobservations:\n  A: a.txt\ntargets:\n  B: b.txt\n")
	code, _, errs = runCLI(t, "ground", "-m", filepath.Join(dir, "m.psl"), "-d", data)
	if code != 0 || !strings.Contains(errs, "warning: open predicate B/1 has no target atoms") {
		t.Errorf("empty targets: exit %d, stderr %q", code, errs)
	}
}

// TestInferTiesAsPSL: a symmetric model leaves every target at an exact
// tie of 0.5 (ADMM's arithmetic may land a hair below); outputs and the
// evaluation use PSL's 32-bit value, so the file says 0.5 and
// DiscreteEvaluator (value >= 0.5 is positive) counts every atom positive.
func TestInferTiesAsPSL(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.psl": "1: Knows(A, B) -> Trusts(A, B) ^2\n1: Knows(A, B) -> !Trusts(A, B) ^2\n1: Trusts(A, B) -> Trusts(B, A) ^2\n",
		"d.data": "predicates:\n  Knows/2: closed\n  Trusts/2: open\nobservations:\n  Knows: knows.txt\n" +
			"targets:\n  Trusts: trusts.txt\ntruth:\n  Trusts: truth.txt\n",
		"knows.txt":  "a\tb\nb\ta\nb\tc\nc\tb\na\tc\nc\ta\n",
		"trusts.txt": "a\tb\nb\ta\nb\tc\nc\tb\na\tc\nc\ta\n",
		"truth.txt":  "a\tb\t1\nb\ta\t1\nb\tc\t1\nc\tb\t1\na\tc\t1\nc\ta\t1\n",
	})
	out := filepath.Join(dir, "out")
	code, stdout, errs := runCLI(t, "infer", "-m", filepath.Join(dir, "m.psl"), "-d", filepath.Join(dir, "d.data"),
		"--eval", "DiscreteEvaluator", "--output", out)
	if code != 0 || !strings.Contains(stdout, "ACCURACY=1 ") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	text, err := os.ReadFile(filepath.Join(out, "TRUSTS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		if !strings.HasSuffix(line, "\t0.5") {
			t.Errorf("line %q: want the value 0.5", line)
		}
	}
}

// TestOutputConstantsReadBack: a constant with a tab and a line break (from
// a JSON config) is written quoted and loads back unchanged.
func TestOutputConstantsReadBack(t *testing.T) {
	weird := "tab\there\nand a line"
	dir := writeFiles(t, map[string]string{
		"c.json": `{"rules": ["1: A(X) -> B(X)"], "predicates": {"A/1": {"observations": [["` + strings.ReplaceAll(strings.ReplaceAll(weird, "\t", `\t`), "\n", `\n`) + `"]]}, "B/1": {"targets": [["` +
			strings.ReplaceAll(strings.ReplaceAll(weird, "\t", `\t`), "\n", `\n`) + `"], ["plain"]]}}}`,
	})
	out := filepath.Join(dir, "out")
	if code, stdout, errs := runCLI(t, "infer", "--config", filepath.Join(dir, "c.json"), "--output", out); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	m := model.New()
	p, _ := m.AddPredicate("B", 1, false)
	s := store.New(m)
	f, err := os.Open(filepath.Join(out, "B.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := store.LoadTSV(s, p, store.Truth, f, "B.txt"); err != nil {
		t.Fatal(err)
	}
	tab := s.Truth(p)
	var names []string
	for r := range tab.Len() {
		names = append(names, s.Names(tab.Args(r))[0])
	}
	if len(names) != 2 || !slices.Contains(names, weird) || !slices.Contains(names, "plain") {
		t.Errorf("read back %q", names)
	}
}

// terminalBuffer is a buffer that says it is a terminal
// (progress.IsTerminal).
type terminalBuffer struct{ bytes.Buffer }

func (*terminalBuffer) Terminal() bool { return true }

// TestInferPrintsSummary: without --output, infer prints every value of a
// small problem, but on a terminal, of more than 100 only the first 20,
// saying how many there are and how to get them all (they used to bury the
// evaluation: 9,892 lines on drug-interaction); into a file or a pipe, and
// with --print, every one.
func TestInferPrintsSummary(t *testing.T) {
	psl, data := writeTransitivity(t, 40, 5) // 40 people, 5 others each: about 150 targets
	count := func(out string) int { return strings.Count(out, "') = ") }
	var tty, errb terminalBuffer
	if code := run([]string{"infer", "--model", psl, "--data", data, "--quiet"}, &tty, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := count(tty.String()); n != 20 || !strings.Contains(tty.String(), "inferred values; the first 20 (--output DIR writes them all") {
		t.Errorf("on a terminal, %d values printed:\n%s", n, tty.String())
	}
	for _, extra := range [][]string{nil, {"--print"}} {
		code, all, stderr := runCLI(t, append([]string{"infer", "--model", psl, "--data", data, "--quiet"}, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		if n := count(all); n <= printAll || strings.Contains(all, "the first 20") {
			t.Errorf("%v, not a terminal: %d values printed", extra, n)
		}
	}
	code, small, _ := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--quiet"})...)
	if n := count(small); code != 0 || n != 18 {
		t.Errorf("smokers: exit %d, %d values printed, want all 18", code, n)
	}
}
