package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/shareddata"
)

// infer loads, grounds and solves a program at tight tolerances.
func infer(t *testing.T, in Inputs) (*Program, *ground.Result, []float64) {
	t.Helper()
	prog, err := Load(in)
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := admm.Solve(context.Background(), g.Problem, admm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged() {
		t.Fatalf("ADMM did not converge in %d iterations", res.Iterations)
	}
	return prog, g, res.Values
}

// value returns the inferred value of pred(args...).
func value(t *testing.T, g *ground.Result, values []float64, pred string, args ...string) float64 {
	t.Helper()
	for v, ref := range g.Vars {
		if strings.EqualFold(ref.Pred.Name, pred) && strings.Join(g.Args(v), "\t") == strings.Join(args, "\t") {
			return values[v]
		}
	}
	t.Fatalf("no variable %s(%v)", pred, args)
	return 0
}

func metric(t *testing.T, evs []Evaluation, pred, evaluator, name string) float64 {
	t.Helper()
	for _, ev := range evs {
		if strings.EqualFold(ev.Predicate.Name, pred) && ev.Result.Evaluator == evaluator {
			if v, ok := ev.Result.Get(name); ok {
				return v
			}
		}
	}
	t.Fatalf("no %s %s for %s in %v", evaluator, name, pred, evs)
	return 0
}

func TestExampleSmokers(t *testing.T) {
	prog, g, y := infer(t, Inputs{Model: "../examples/smokers/smokers.psl", Data: "../examples/smokers/smokers.data"})
	// Bob's friends Anna (smokes) and Dora: Bob smokes more than Helen,
	// whose friends do not smoke; observed smokers get cancer.
	if b, h := value(t, g, y, "Smokes", "Bob"), value(t, g, y, "Smokes", "Helen"); b < 0.5 || h > 0.1 {
		t.Errorf("Smokes(Bob) = %v, Smokes(Helen) = %v", b, h)
	}
	if c := value(t, g, y, "Cancer", "Anna"); c < 0.9 {
		t.Errorf("Cancer(Anna) = %v", c)
	}
	evs, err := prog.Evaluate(g, y, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if acc := metric(t, evs, "Smokes", "DiscreteEvaluator", "ACCURACY"); acc < 0.8 {
		t.Errorf("Smokes accuracy %v", acc)
	}
}

// TestPSLSmokers: PSL's smokers example (psl-examples smokers.json). Bob and
// Frank are friends of smokers, Gary and Helen are not; every smoker gets
// cancer. The truth data says exactly that, so every atom is on the right
// side of 0.5.
func TestPSLSmokers(t *testing.T) {
	path := shareddata.Require(t, "psl-examples", "models", "smokers.json")
	prog, g, y := infer(t, Inputs{Config: path})
	evs, err := prog.Evaluate(g, y, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pred := range []string{"Smokes", "Cancer"} {
		if acc := metric(t, evs, pred, "DiscreteEvaluator", "ACCURACY"); acc != 1 {
			t.Errorf("%s accuracy %v, want 1", pred, acc)
		}
	}
}

// TestPSLSimpleAcquaintances: PSL's simple-acquaintances example. Knows is
// symmetric by a hard constraint, and the model recovers most of the truth.
func TestPSLSimpleAcquaintances(t *testing.T) {
	path := shareddata.Require(t, "psl-examples", "models", "simple-acquaintances.json")
	prog, g, y := infer(t, Inputs{Config: path})
	if v := g.Problem.Violations(y, 0); v.Max > 1e-3 {
		t.Errorf("Knows(P1, P2) = Knows(P2, P1) violated by %v", v.Max)
	}
	evs, err := prog.Evaluate(g, y, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acc := metric(t, evs, "Knows", "DiscreteEvaluator", "ACCURACY")
	t.Logf("simple-acquaintances Knows accuracy %.4f", acc)
	if acc < 0.85 {
		t.Errorf("Knows accuracy %v, want at least 0.85", acc)
	}
}

// TestCollectiveClassification: on Cora and Citeseer with a seeded 50/50
// split and the PSL example model's unlearned weights, categorical accuracy
// beats the neighbour-majority baseline on the same split, and every target
// paper's category values sum to 1 as the hard constraint demands.
func TestCollectiveClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("real data sets; skipped in -short")
	}
	for _, name := range []string{"cora", "citeseer"} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			split, err := citations.WriteSplitPSL(shareddata.Require(t, name), name, 1, 0.5, out)
			if err != nil {
				t.Fatal(err)
			}
			baseline, _, err := citations.NeighbourMajority(split)
			if err != nil {
				t.Fatal(err)
			}
			prog, g, y := infer(t, Inputs{Model: filepath.Join(out, name+".psl"), Data: filepath.Join(out, name+".data")})
			evs, err := prog.Evaluate(g, y, EvalOptions{Evaluators: []string{"CategoricalEvaluator"}})
			if err != nil {
				t.Fatal(err)
			}
			acc := metric(t, evs, "HasCat", "CategoricalEvaluator", "ACCURACY")
			t.Logf("%s: categorical accuracy %.4f, neighbour-majority baseline %.4f", name, acc, baseline)
			if acc <= baseline {
				t.Errorf("accuracy %.4f does not beat the baseline %.4f", acc, baseline)
			}
			sums := map[string]float64{}
			for v := range g.Vars {
				sums[g.Args(v)[0]] += y[v]
			}
			worst := 0.0
			for _, s := range sums {
				worst = math.Max(worst, math.Abs(s-1))
			}
			// ADMM stops with constraints met to ConstraintTol*||a|| (a has
			// one entry per category).
			tol := admm.DefaultConstraintTol * math.Sqrt(float64(len(split.Dataset.Categories)))
			if worst > tol {
				t.Errorf("a paper's categories sum to 1 +- %v, beyond %v", worst, tol)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "d.data"), []byte("predicates:\n  P/1: open\ntargets:\n  P: t.txt\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.psl"), []byte("# nothing\n"), 0o644)
	tests := []struct {
		in   Inputs
		want string
	}{
		{Inputs{Model: "m.psl"}, "no data"},
		{Inputs{Data: "a.data", Config: "b.json"}, "not both"},
		{Inputs{Data: filepath.Join(dir, "d.data")}, "no rules"},
		{Inputs{Data: filepath.Join(dir, "d.data"), Model: filepath.Join(dir, "empty.psl")}, "has no rules"},
		{Inputs{Data: filepath.Join(dir, "d.data"), Model: filepath.Join(dir, "missing.psl")}, "missing.psl"},
	}
	for _, tt := range tests {
		_, err := Load(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%+v) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// TestConfigRulePositions: an error in a JSON config's rule string points
// at the character in the file, past any escape sequences before it
// (\", \u0022, \n); the columns were off by the escapes' length and a \n
// counted as a new line of the file.
func TestConfigRulePositions(t *testing.T) {
	for _, tc := range []struct {
		rule string // as written inside the JSON string
		want string // line:col of the error in the file, and its text
	}{
		{`1: Lives(A, 'P') & Foo(A) -> Knows(A, A)`, `c.json:3:25: unknown predicate Foo `},
		{`1: Lives(A, \"P\") & Foo(A) -> Knows(A, A)`, `c.json:3:27: unknown predicate Foo `},
		{`1: Lives(A, \u0022P\u0022) & Foo(A) -> Knows(A, A)`, `c.json:3:35: unknown predicate Foo `},
		{`1: Lives(A, \"P\") &\n Foo(A) -> Knows(A, A)`, `c.json:3:29: unknown predicate Foo `},
		{`1: Lives(A,\tB) & -> Knows(A, B)`, `c.json:3:24: `},
		{`1: Lives(A, \"P\") & Knows(A, B) -> Knows(A, B) ^3`, `c.json:3:55: expected 1 or 2 after`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "c.json")
		src := "{\"predicates\": {\"Knows/2\": {\"targets\": [[\"a\", \"b\"]]}, \"Lives/2\": {\"observations\": [[\"a\", \"P\"]]}},\n" +
			"  \"rules\": [\n" +
			"    \"" + tc.rule + "\"\n  ]}\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(Inputs{Config: path})
		if err == nil {
			t.Errorf("%s: loaded, want an error at %s", tc.rule, tc.want)
			continue
		}
		got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.rule, got, tc.want)
		}
	}
}

// TestEvaluateScoresWhatPSLScores: evaluation pairs truth with predictions
// as PSL's TrainingMap and Evaluator.getMap do. P's truth atoms: c and d are
// targets (scored), a is observed (scored only with eval.includeobs), f is
// neither (a "missing target": never scored; hinge used to score it as a
// prediction of 0). Target e has no truth (scored against 0 only with
// eval.closetruth). The rule pushes every target to 0, so c (truth 1) is a
// false negative, d and e true negatives, and a (observed 1, truth 1) a
// true positive. Each kind left out is named in a note.
func TestEvaluateScoresWhatPSLScores(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"m.psl":       "1: !P(X) ^2\n",
		"d.data":      "predicates:\n  P/1: open\nobservations:\n  P: obs.txt\ntargets:\n  P: targets.txt\ntruth:\n  P: truth.txt\n",
		"obs.txt":     "a\t1\nb\t0\n",
		"targets.txt": "c\nd\ne\n",
		"truth.txt":   "a\t1\nc\t1\nd\t0\nf\t1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, g, y := infer(t, Inputs{Model: filepath.Join(dir, "m.psl"), Data: filepath.Join(dir, "d.data")})
	notTarget := `1 truth atom of P is neither a target nor observed, e.g. P('f'): not scored`
	observed := `1 truth atom of P is observed, e.g. P('a'): not scored`
	latent := `1 target atom of P has no truth value, e.g. P('e'): not scored`
	for _, tc := range []struct {
		name       string
		opt        EvalOptions
		atoms      int
		tp, fn, tn float64
		notes      []string
	}{
		{"default", EvalOptions{}, 2, 0, 1, 1, []string{notTarget, observed, latent}},
		{"include observed", EvalOptions{IncludeObserved: true}, 3, 1, 1, 1, []string{notTarget, latent}},
		{"close truth", EvalOptions{CloseTruth: true}, 3, 0, 1, 2, []string{notTarget, observed}},
		{"eval.closetruth option", EvalOptions{Options: map[string]string{"eval.closetruth": "true"}}, 3, 0, 1, 2, []string{notTarget, observed}},
		{"both", EvalOptions{Options: map[string]string{"eval.closetruth": "true", "eval.includeobs": "true"}}, 4, 1, 1, 2, []string{notTarget}},
		// The caller's option decides, false too (a -D over the config's).
		{"caller's false", EvalOptions{IncludeObserved: true, Options: map[string]string{"eval.includeobs": "false"}}, 2, 0, 1, 1, []string{notTarget, observed, latent}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes []string
			tc.opt.Evaluators = []string{"DiscreteEvaluator"}
			tc.opt.Note = func(s string) { notes = append(notes, s) }
			evs, err := prog.Evaluate(g, y, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].Atoms != tc.atoms {
				t.Fatalf("evaluations %v, want one over %d atoms", evs, tc.atoms)
			}
			for name, want := range map[string]float64{"TP": tc.tp, "FN": tc.fn, "TN": tc.tn, "FP": 0} {
				if got := metric(t, evs, "P", "DiscreteEvaluator", name); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, want := range tc.notes {
				if !strings.HasPrefix(notes[i], want) {
					t.Errorf("note %d = %q, want %q...", i, notes[i], want)
				}
			}
		})
	}
}

// TestEvaluateCategoricalAsPSL: CategoricalEvaluator sees what PSL's sees:
// every target is a candidate for its entity's predicted category, truth
// or not (Cat(y, b) has none and wins y), and every truth atom of value 1
// is scored, a target or not (Cat(w, a) is none: a miss). hinge passed it
// only the (target, truth) pairs: y was a hit and w unseen (ACCURACY 1).
func TestEvaluateCategoricalAsPSL(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"m.psl":       "1: Score(E, C) -> Cat(E, C) ^2\n1: !Cat(E, C) ^2\n",
		"d.data":      "predicates:\n  Score/2: closed\n  Cat/2: open\nobservations:\n  Score: score.txt\ntargets:\n  Cat: targets.txt\ntruth:\n  Cat: truth.txt\n",
		"score.txt":   "x\ta\t0.9\nx\tb\t0.1\ny\ta\t0.2\ny\tb\t0.8\nz\ta\t0.5\n",
		"targets.txt": "x\ta\nx\tb\ny\ta\ny\tb\nz\ta\n",
		"truth.txt":   "x\ta\t1\nx\tb\t0\ny\ta\t1\nw\ta\t1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, g, y := infer(t, Inputs{Model: filepath.Join(dir, "m.psl"), Data: filepath.Join(dir, "d.data")})
	var notes []string
	evs, err := prog.Evaluate(g, y, EvalOptions{Evaluators: []string{"CategoricalEvaluator", "DiscreteEvaluator"}, Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"ACCURACY": 1.0 / 3, "CORRECT": 1, "SCORED": 3, "UNPREDICTED": 1} {
		if got := metric(t, evs, "Cat", "CategoricalEvaluator", name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// The other evaluators score the three pairs.
	if len(evs) != 2 || evs[0].Atoms != 3 || evs[1].Atoms != 3 {
		t.Errorf("evaluations %v, want two over 3 atoms", evs)
	}
	if n := metric(t, evs, "Cat", "DiscreteEvaluator", "TN") + metric(t, evs, "Cat", "DiscreteEvaluator", "FN") + metric(t, evs, "Cat", "DiscreteEvaluator", "TP"); n != 3 {
		t.Errorf("DiscreteEvaluator scored %v atoms, want 3", n)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "CategoricalEvaluator, as PSL's, counts those of truth 1 as misses") {
		t.Errorf("notes %q, want two, the first saying that CategoricalEvaluator counts missing targets", notes)
	}
}

// TestEvaluateCategoricalNothingPaired: when no truth atom of a predicate
// has a prediction (none is a target), CategoricalEvaluator still scores
// those of value 1, each a miss (ACCURACY 0, as PSL prints), and the other
// evaluators, which need pairs, are not applied; the predicate was left
// out entirely while the note said its truth atoms "count as misses".
func TestEvaluateCategoricalNothingPaired(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"m.psl":       "1: Score(E, C) -> Cat(E, C) ^2\n1: !Cat(E, C) ^2\n",
		"d.data":      "predicates:\n  Score/2: closed\n  Cat/2: open\nobservations:\n  Score: score.txt\ntargets:\n  Cat: targets.txt\ntruth:\n  Cat: truth.txt\n",
		"score.txt":   "x\ta\t0.9\nx\tb\t0.1\n",
		"targets.txt": "x\ta\nx\tb\n",
		"truth.txt":   "w\ta\t1\nv\tb\t1\nv\ta\t0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, g, y := infer(t, Inputs{Model: filepath.Join(dir, "m.psl"), Data: filepath.Join(dir, "d.data")})
	for _, tc := range []struct {
		evaluators []string
		evaluated  bool
	}{
		{[]string{"CategoricalEvaluator", "DiscreteEvaluator"}, true},
		{[]string{"DiscreteEvaluator"}, false},
	} {
		var notes []string
		evs, err := prog.Evaluate(g, y, EvalOptions{Evaluators: tc.evaluators, Note: func(s string) { notes = append(notes, s) }})
		if err != nil {
			t.Fatal(err)
		}
		if !tc.evaluated {
			if len(evs) != 0 || len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "it is not evaluated") {
				t.Errorf("%v: evaluations %v, notes %q; want none, and a note that Cat is not evaluated", tc.evaluators, evs, notes)
			}
			continue
		}
		if len(evs) != 1 || evs[0].Result.Evaluator != "CategoricalEvaluator" {
			t.Fatalf("%v: evaluations %v, want CategoricalEvaluator's only", tc.evaluators, evs)
		}
		for name, want := range map[string]float64{"ACCURACY": 0, "CORRECT": 0, "SCORED": 2, "UNPREDICTED": 2} {
			if got := metric(t, evs, "Cat", "CategoricalEvaluator", name); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
		if len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "only CategoricalEvaluator is applied") {
			t.Errorf("notes %q, want the last to say only CategoricalEvaluator is applied", notes)
		}
	}
}

// TestConfigEvalKeysAnyCase: a config's eval.closetruth is read in any
// case and with spaces around it, as eval.New reads its keys ("Eval.CloseTruth"
// was accepted and ignored: 2 atoms scored for 3).
func TestConfigEvalKeysAnyCase(t *testing.T) {
	dir := t.TempDir()
	for _, key := range []string{"eval.closetruth", "Eval.CloseTruth", " EVAL.closetruth "} {
		cfg := `{"options": {"` + key + `": true}, "rules": ["1: !P(X) ^2"],
 "predicates": {"P/1": {"observations": [["a", 1], ["b", 0]], "targets": [["c"], ["d"], ["e"]],
   "truth": [["a", 1], ["c", 1], ["d", 0], ["f", 1]]}}}`
		path := filepath.Join(dir, "c.json")
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		prog, g, y := infer(t, Inputs{Config: path})
		evs, err := prog.Evaluate(g, y, EvalOptions{Evaluators: []string{"DiscreteEvaluator"}})
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		// c and d paired, e a target without truth scored against 0.
		if evs[0].Atoms != 3 {
			t.Errorf("%q: %d atoms scored, want 3", key, evs[0].Atoms)
		}
	}
}
