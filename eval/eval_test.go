package eval

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// vals builds argument-free atoms from parallel slices.
func vals(pred, truth []float64) []Atom {
	out := make([]Atom, len(pred))
	for i := range pred {
		out[i] = Atom{Pred: pred[i], Truth: truth[i]}
	}
	return out
}

func mustNew(t testing.TB, name string, opts map[string]string) Evaluator {
	t.Helper()
	e, err := New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func checkMetrics(t *testing.T, r Result, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		got, ok := r.Get(name)
		if !ok {
			t.Errorf("%s: no metric %s in %v", r.Evaluator, name, r)
			continue
		}
		if math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: %s = %.15g, want %.15g", r.Evaluator, name, got, w)
		}
	}
}

func TestDiscrete(t *testing.T) {
	// Hand-computed: at 0.5 the predicted positives are atoms 0,1,4 and the
	// true positives 0,2,4 (0.5 >= 0.5 counts as positive).
	atoms := vals([]float64{0.9, 0.6, 0.4, 0.2, 0.5}, []float64{1, 0, 1, 0, 0.5})
	tests := []struct {
		name string
		opts map[string]string
		in   []Atom
		want map[string]float64
	}{
		{"default threshold", nil, atoms, map[string]float64{
			"TP": 2, "FP": 1, "FN": 1, "TN": 1,
			"ACCURACY": 3.0 / 5, "POSITIVE_PRECISION": 2.0 / 3, "POSITIVE_RECALL": 2.0 / 3, "F1": 2.0 / 3,
			"NEGATIVE_PRECISION": 0.5, "NEGATIVE_RECALL": 0.5,
		}},
		{"threshold 0.7", map[string]string{"discreteevaluator.threshold": "0.7"}, atoms, map[string]float64{
			"TP": 1, "FP": 0, "FN": 1, "TN": 3,
			"ACCURACY": 4.0 / 5, "POSITIVE_PRECISION": 1, "POSITIVE_RECALL": 0.5, "F1": 2.0 / 3,
			"NEGATIVE_PRECISION": 3.0 / 4, "NEGATIVE_RECALL": 1,
		}},
		{"no positives anywhere: zero denominators give 0", nil, vals([]float64{0, 0.1}, []float64{0, 0.2}), map[string]float64{
			"TP": 0, "FP": 0, "FN": 0, "TN": 2,
			"ACCURACY": 1, "POSITIVE_PRECISION": 0, "POSITIVE_RECALL": 0, "F1": 0,
			"NEGATIVE_PRECISION": 1, "NEGATIVE_RECALL": 1,
		}},
		{"all wrong", nil, vals([]float64{1, 0}, []float64{0, 1}), map[string]float64{
			"TP": 0, "FP": 1, "FN": 1, "TN": 0, "ACCURACY": 0, "F1": 0,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := mustNew(t, "DiscreteEvaluator", tc.opts).Evaluate(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, r, tc.want)
			if r.Representative != "F1" || !r.HigherIsBetter {
				t.Errorf("representative %s higher=%v, want F1 true", r.Representative, r.HigherIsBetter)
			}
		})
	}
}

// TestF1ClosedForm checks F1 = 2TP/(2TP+FP+FN) on random confusion counts.
func TestF1ClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		c := Confusion{rng.IntN(5), rng.IntN(5), rng.IntN(5), rng.IntN(5)}
		want := 0.0
		if c.TP > 0 {
			want = 2 * float64(c.TP) / float64(2*c.TP+c.FP+c.FN)
		}
		if got := c.F1(); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%+v: F1 %v, want %v", c, got, want)
		}
	}
}

func TestContinuous(t *testing.T) {
	r, err := mustNew(t, "continuous", nil).Evaluate(vals([]float64{0.5, 1, 0}, []float64{1, 1, 0.2}))
	if err != nil {
		t.Fatal(err)
	}
	checkMetrics(t, r, map[string]float64{"MAE": 0.7 / 3, "MSE": 0.29 / 3, "RMSE": math.Sqrt(0.29 / 3)})
	if r.Representative != "MSE" || r.HigherIsBetter {
		t.Errorf("representative %s higher=%v, want MSE false", r.Representative, r.HigherIsBetter)
	}
	r, err = mustNew(t, "ContinuousEvaluator", map[string]string{"ContinuousEvaluator.Representative": "mae"}).Evaluate(vals([]float64{1}, []float64{0}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Representative != "MAE" || r.RepresentativeValue() != 1 {
		t.Errorf("representative %s = %v, want MAE = 1", r.Representative, r.RepresentativeValue())
	}
}

func TestAUC(t *testing.T) {
	tests := []struct {
		name        string
		pred, truth []float64
		want        map[string]float64
	}{
		{"perfect", []float64{0.9, 0.8, 0.3, 0.1}, []float64{1, 1, 0, 0},
			map[string]float64{"AUROC": 1, "POSITIVE_AUPRC": 1, "NEGATIVE_AUPRC": 1, "POSITIVES": 2, "NEGATIVES": 2}},
		{"reversed", []float64{0.1, 0.3, 0.8, 0.9}, []float64{1, 1, 0, 0},
			// PR points (0,1) (0,0) (0,0) (.5,1/3) (1,.5): .5*(0+1/3)/2 + .5*(1/3+1/2)/2
			map[string]float64{"AUROC": 0, "POSITIVE_AUPRC": 1.0/12 + 5.0/24, "NEGATIVE_AUPRC": 1.0/12 + 5.0/24}},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []float64{1, 0, 1, 0},
			// one PR point (1, .5): trapezoid from (0,1) is 1*(1+.5)/2
			map[string]float64{"AUROC": 0.5, "POSITIVE_AUPRC": 0.75, "NEGATIVE_AUPRC": 0.75}},
		{"interleaved", []float64{0.9, 0.8, 0.7, 0.6}, []float64{1, 0, 1, 0},
			// PR points (0,1) (.5,1) (.5,.5) (1,2/3) (1,.5): .5 + .5*(.5+2/3)/2 = 19/24
			map[string]float64{"AUROC": 0.75, "POSITIVE_AUPRC": 19.0 / 24, "NEGATIVE_AUPRC": 19.0 / 24}},
		{"tie across classes", []float64{0.8, 0.8, 0.3, 0.1}, []float64{1, 0, 1, 0},
			// pairs: (.8,.8)=1/2 (.8,.1)=1 (.3,.8)=0 (.3,.1)=1 -> 2.5/4.
			// PR points (0,1) (.5,.5) (1,2/3) (1,.5): .5*1.5/2 + .5*(7/6)/2 = 2/3.
			// Negative class (ascending): .1 neg, .3 pos, .8 tie:
			// points (0,1) (.5,1) (.5,.5) (1,.5): .5 + .5*.5 = .75
			map[string]float64{"AUROC": 0.625, "POSITIVE_AUPRC": 2.0 / 3, "NEGATIVE_AUPRC": 0.75}},
		{"truth at threshold is positive", []float64{0.2, 0.9}, []float64{0.5, 0.49},
			map[string]float64{"AUROC": 0, "POSITIVES": 1, "NEGATIVES": 1}},
		{"no positives", []float64{0.2, 0.9}, []float64{0, 0},
			map[string]float64{"AUROC": 0, "POSITIVE_AUPRC": 0, "NEGATIVE_AUPRC": 1}},
		{"no negatives", []float64{0.2, 0.9}, []float64{1, 1},
			map[string]float64{"AUROC": 1, "POSITIVE_AUPRC": 1, "NEGATIVE_AUPRC": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := mustNew(t, "AUCEvaluator", nil).Evaluate(vals(tc.pred, tc.truth))
			if err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, r, tc.want)
		})
	}
}

// bruteAUROC is the pairwise definition: the fraction of (positive,
// negative) pairs ranked correctly, ties counting 1/2.
func bruteAUROC(items []Scored) float64 {
	var num, pairs float64
	for _, p := range items {
		if !p.Positive {
			continue
		}
		for _, n := range items {
			if n.Positive {
				continue
			}
			pairs++
			switch {
			case p.Score > n.Score:
				num++
			case p.Score == n.Score:
				num += 0.5
			}
		}
	}
	return num / pairs
}

// bruteAUPRC builds the PR curve by thresholding at every distinct score
// from scratch (O(n^2)) and integrates it by trapezoids from (0,1).
func bruteAUPRC(items []Scored) float64 {
	var thresholds []float64
	seen := map[float64]bool{}
	P := 0
	for _, x := range items {
		if !seen[x.Score] {
			seen[x.Score] = true
			thresholds = append(thresholds, x.Score)
		}
		if x.Positive {
			P++
		}
	}
	// descending, by selection (independent of the package's sort)
	for i := range thresholds {
		for j := i + 1; j < len(thresholds); j++ {
			if thresholds[j] > thresholds[i] {
				thresholds[i], thresholds[j] = thresholds[j], thresholds[i]
			}
		}
	}
	area, pr, pp := 0.0, 0.0, 1.0
	for _, th := range thresholds {
		tp, sel := 0, 0
		for _, x := range items {
			if x.Score >= th {
				sel++
				if x.Positive {
					tp++
				}
			}
		}
		r, p := float64(tp)/float64(P), float64(tp)/float64(sel)
		area += (r - pr) * (p + pp) / 2
		pr, pp = r, p
	}
	return area
}

func randomItems(rng *rand.Rand, n, levels int) []Scored {
	items := make([]Scored, n)
	for i := range items {
		// few distinct levels force many ties
		items[i] = Scored{float64(rng.IntN(levels)) / float64(levels), rng.IntN(3) == 0}
	}
	return items
}

func TestAUCAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 500 {
		n := 2 + rng.IntN(40)
		items := randomItems(rng, n, 1+rng.IntN(8))
		P := 0
		for _, x := range items {
			if x.Positive {
				P++
			}
		}
		if P == 0 || P == n {
			continue
		}
		if got, want := AUROC(items), bruteAUROC(items); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUROC %v, brute force %v (%v)", trial, got, want, items)
		}
		if got, want := AUPRC(items), bruteAUPRC(items); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUPRC %v, brute force %v (%v)", trial, got, want, items)
		}
		// Input order must not matter, ties included.
		shuffled := append([]Scored(nil), items...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if AUROC(shuffled) != AUROC(items) || AUPRC(shuffled) != AUPRC(items) {
			t.Fatalf("trial %d: result depends on input order", trial)
		}
	}
}

// TestNegativeAUPRCIsFlippedProblem checks NEGATIVE_AUPRC against AUPRC of
// the complementary problem (score 1-pred, labels flipped).
func TestNegativeAUPRCIsFlippedProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	e := mustNew(t, "auc", nil)
	for range 200 {
		items := randomItems(rng, 2+rng.IntN(30), 1+rng.IntN(6))
		atoms := make([]Atom, len(items))
		flipped := make([]Scored, len(items))
		for i, x := range items {
			truth := 0.0
			if x.Positive {
				truth = 1
			}
			atoms[i] = Atom{Pred: x.Score, Truth: truth}
			flipped[i] = Scored{-x.Score, !x.Positive}
		}
		r, err := e.Evaluate(atoms)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := r.Get("NEGATIVE_AUPRC")
		if want := AUPRC(flipped); math.Abs(got-want) > 1e-12 {
			t.Fatalf("NEGATIVE_AUPRC %v, want %v", got, want)
		}
	}
}

func cat(entity, category string, pred, truth float64) Atom {
	return Atom{Args: []string{entity, category}, Pred: pred, Truth: truth}
}

// TestCategorical: PSL's CategoricalEvaluator.compute: each entity's
// predicted category is its argmax over the atoms with a prediction, and
// every truth atom of value 1 is a hit when it is that argmax, a miss
// otherwise. hinge used to compare the predicted argmax with the truth's
// argmax entity by entity, which differs when an entity has no true
// category or more than one (PSL's cat3 case: 0 instead of 0.5).
func TestCategorical(t *testing.T) {
	base := []Atom{
		// p1: argmax pred 2, truth 2 -> hit
		cat("p1", "1", 0.2, 0), cat("p1", "2", 0.7, 1), cat("p1", "3", 0.1, 0),
		// p2: pred tie between 1 and 2 -> 1 (lowest); truth 2 -> miss
		cat("p2", "1", 0.5, 0), cat("p2", "2", 0.5, 1), cat("p2", "3", 0, 0),
		// p3: pred 3, truth 1 -> miss
		cat("p3", "1", 0.1, 1), cat("p3", "2", 0.2, 0), cat("p3", "3", 0.7, 0),
		// p4: no truth atom of value 1 -> not scored
		cat("p4", "1", 0.4, 0), cat("p4", "2", 0.3, 0), cat("p4", "3", 0.3, 0),
	}
	rel := func(t, c string, pred, truth float64) Atom {
		return Atom{Args: []string{"e1", t, c}, Pred: pred, Truth: truth}
	}
	// The outside tester's Rel/3 (values as inferred): category c is the
	// last argument, t the second.
	rel3 := []Atom{rel("t1", "c1", 0.45, 1), rel("t1", "c2", 0.05, 0), rel("t2", "c1", 0.475, 1), rel("t2", "c2", 0.3, 0)}
	tests := []struct {
		name string
		opts map[string]string
		in   []Atom
		want map[string]float64
	}{
		{"mixed", map[string]string{"categoricalevaluator.categoryindexes": "1"}, base,
			map[string]float64{"ACCURACY": 1.0 / 3, "CORRECT": 1, "SCORED": 3, "UNPREDICTED": 0, "PRED_TIES": 1}},
		{"default index is the last argument", nil, base,
			map[string]float64{"ACCURACY": 1.0 / 3, "SCORED": 3}},
		{"index 0 swaps entity and category", map[string]string{"categoricalevaluator.categoryindexes": "0"}, base,
			// entities are now categories "1","2","3"; categories the papers.
			// "1": argmax p2 0.5; truth 1 at p3 -> miss.
			// "2": argmax p1 0.7; truth 1 at p1 (hit) and p2 (miss).
			// "3": argmax p3 0.7; no truth of value 1.
			map[string]float64{"ACCURACY": 1.0 / 3, "CORRECT": 1, "SCORED": 3, "PRED_TIES": 0}},
		{"Rel/3, default: category the last argument", nil, rel3,
			map[string]float64{"ACCURACY": 1, "CORRECT": 2, "SCORED": 2}},
		{"Rel/3, categoryindexes 1", map[string]string{"categoricalevaluator.categoryindexes": "1"}, rel3,
			// entity (e1, c1): argmax t2; truth 1 at t1 (miss) and t2 (hit).
			// entity (e1, c2): argmax t2; no truth of value 1.
			map[string]float64{"ACCURACY": 0.5, "CORRECT": 1, "SCORED": 2}},
		// The case of PSL's CategoricalEvaluatorTest: truth only for one
		// atom per entity (value 1), the other targets without truth.
		{"PSL's own case", nil, []Atom{
			cat("1", "1", 1, 1),
			cat("2", "1", 0.99, 1), {Args: []string{"2", "2"}, Pred: 1, NoTruth: true},
			cat("3", "1", 0, 1), {Args: []string{"3", "2"}, Pred: 0, NoTruth: true}, {Args: []string{"3", "3"}, Pred: 1, NoTruth: true},
			cat("4", "1", 0.3, 1), {Args: []string{"4", "2"}, Pred: 0.2, NoTruth: true}, {Args: []string{"4", "3"}, Pred: 0.25, NoTruth: true}, {Args: []string{"4", "4"}, Pred: 0.25, NoTruth: true},
		}, map[string]float64{"ACCURACY": 0.5, "CORRECT": 2, "SCORED": 4, "PRED_TIES": 0}},
		{"numeric category order on ties", nil, []Atom{cat("x", "10", 0.5, 0), cat("x", "9", 0.5, 1)},
			map[string]float64{"ACCURACY": 1, "PRED_TIES": 1}},
		{"string category order on ties", nil, []Atom{cat("x", "b", 0.5, 1), cat("x", "a", 0.5, 0)},
			map[string]float64{"ACCURACY": 0, "PRED_TIES": 1}},
		{"two true categories: at most one hits", nil, []Atom{cat("x", "a", 0.7, 1), cat("x", "b", 0.3, 1), cat("x", "c", 0.1, 0)},
			map[string]float64{"ACCURACY": 0.5, "CORRECT": 1, "SCORED": 2}},
		{"truth below 1 is not scored", nil, []Atom{cat("x", "a", 0.7, 0.99), cat("x", "b", 0.3, 0), cat("y", "a", 0.3, 0), cat("y", "b", 0.7, 1)},
			map[string]float64{"ACCURACY": 1, "SCORED": 1}},
		{"no truth of value 1", nil, []Atom{cat("x", "a", 0.7, 0), cat("x", "b", 0.3, 0)},
			map[string]float64{"ACCURACY": 0, "SCORED": 0, "CORRECT": 0}},
		{"a target without truth can be the argmax", nil, []Atom{cat("x", "a", 0.3, 1), {Args: []string{"x", "b"}, Pred: 0.6, NoTruth: true}, cat("y", "a", 0.6, 1)},
			map[string]float64{"ACCURACY": 0.5, "CORRECT": 1, "SCORED": 2}},
		{"a truth atom without prediction is a miss", nil, []Atom{{Args: []string{"x", "a"}, Truth: 1, NoPred: true}, cat("x", "b", 0.5, 0), cat("y", "a", 0.6, 1)},
			map[string]float64{"ACCURACY": 0.5, "CORRECT": 1, "SCORED": 2, "UNPREDICTED": 1}},
		{"an entity without predictions", nil, []Atom{{Args: []string{"x", "a"}, Truth: 1, NoPred: true}},
			map[string]float64{"ACCURACY": 0, "SCORED": 1, "UNPREDICTED": 1}},
		{"two category arguments", map[string]string{"categoricalevaluator.categoryindexes": "2:3"}, []Atom{
			{Args: []string{"here", "mon", "Cold", "Rain"}, Pred: 0.2, Truth: 0},
			{Args: []string{"here", "mon", "Cold", "Snow"}, Pred: 0.8, Truth: 1},
			{Args: []string{"here", "tue", "Cold", "Snow"}, Pred: 0.3, Truth: 0},
			{Args: []string{"here", "tue", "Hot", "Sun"}, Pred: 0.6, Truth: 1},
			{Args: []string{"there", "mon", "Cold", "Snow"}, Pred: 0.6, Truth: 0},
			{Args: []string{"there", "mon", "Hot", "Sun"}, Pred: 0.4, Truth: 1},
		}, map[string]float64{"ACCURACY": 2.0 / 3, "SCORED": 3}},
		{"negative and comma/space separated indexes", map[string]string{"categoricalevaluator.categoryindexes": " -2, -1 "}, []Atom{
			{Args: []string{"here", "Cold", "Rain"}, Pred: 0.2, Truth: 0},
			{Args: []string{"here", "Cold", "Snow"}, Pred: 0.8, Truth: 1},
		}, map[string]float64{"ACCURACY": 1, "SCORED": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, "CategoricalEvaluator", tc.opts)
			r, err := e.Evaluate(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			checkMetrics(t, r, tc.want)
			// The tie rule makes the result independent of atom order.
			rng := rand.New(rand.NewPCG(1, 1))
			for range 20 {
				in := append([]Atom(nil), tc.in...)
				rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				r2, err := e.Evaluate(in)
				if err != nil {
					t.Fatal(err)
				}
				if r2.String() != r.String() {
					t.Fatalf("order changed the result: %v vs %v", r2, r)
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		eval    string
		opts    map[string]string
		in      []Atom
		wantErr string
	}{
		{"unknown evaluator", "Ranking", nil, nil, `unknown evaluator "Ranking"`},
		{"empty name", "", nil, nil, `unknown evaluator ""`},
		{"unknown option", "Discrete", map[string]string{"discreteevaluator.treshold": "0.5"}, nil, `unknown option "discreteevaluator.treshold"`},
		{"unknown prefix", "Discrete", map[string]string{"threshold": "0.5"}, nil, `unknown option "threshold"`},
		{"bad threshold", "Discrete", map[string]string{"discreteevaluator.threshold": "1.5"}, nil, `threshold "1.5" is not a number in [0,1]`},
		{"NaN threshold", "AUC", map[string]string{"aucevaluator.threshold": "NaN"}, nil, `threshold "NaN"`},
		{"bad representative", "AUC", map[string]string{"aucevaluator.representative": "F1"}, nil, `unknown representative metric "F1"`},
		{"bad other evaluator option", "Categorical", map[string]string{"discreteevaluator.bogus": "1"}, nil, `unknown option "discreteevaluator.bogus"`},
		{"bad category index", "Categorical", map[string]string{"categoricalevaluator.categoryindexes": "1;2"}, nil, `"1;2" is not an integer`},
		{"no category index", "Categorical", map[string]string{"categoricalevaluator.categoryindexes": " , "}, nil, `no index given`},
		{"empty input discrete", "Discrete", nil, []Atom{}, "no atoms to evaluate"},
		{"empty input continuous", "Continuous", nil, nil, "no atoms to evaluate"},
		{"empty input auc", "AUC", nil, nil, "no atoms to evaluate"},
		{"empty input categorical", "Categorical", nil, nil, "no atoms to evaluate"},
		{"NaN prediction", "Continuous", nil, []Atom{{Args: []string{"a"}, Pred: math.NaN()}}, "atom 0 (a): predicted value NaN is not a number"},
		{"truth out of range", "AUC", nil, []Atom{{}, {Args: []string{"b"}, Truth: 1.5}}, "atom 1 (b): truth value 1.5 is outside [0,1]"},
		{"arity mismatch", "Categorical", nil, []Atom{cat("a", "1", 0, 0), {Args: []string{"a"}}}, "atom 1 (a) has 1 arguments, atom 0 has 2"},
		{"index out of range", "Categorical", map[string]string{"categoricalevaluator.categoryindexes": "2"}, []Atom{cat("a", "1", 0, 0)}, "category index 2 out of range for atoms with 2 arguments"},
		{"negative index out of range", "Categorical", map[string]string{"categoricalevaluator.categoryindexes": "-3"}, []Atom{cat("a", "1", 0, 0)}, "category index -3 out of range"},
		{"duplicate atom", "Categorical", nil, []Atom{cat("a", "1", 0, 0), cat("a", "2", 0, 0), cat("a", "1", 1, 1)}, "atom 2 (a, 1) repeats atom 0"},
		{"neither value", "Categorical", nil, []Atom{{Args: []string{"a", "1"}, NoPred: true, NoTruth: true}}, "atom 0 (a, 1) has neither a prediction nor a truth value"},
		{"nothing paired", "Discrete", nil, []Atom{{Args: []string{"a"}, Pred: 1, NoTruth: true}, {Args: []string{"b"}, Truth: 1, NoPred: true}}, "none of the 2 has both a prediction and a truth value"},
		{"unpaired value is not checked", "Continuous", nil, []Atom{{Args: []string{"a"}, Pred: 2, NoPred: true}, {Args: []string{"b"}, Pred: math.NaN(), Truth: 1}}, "atom 1 (b): predicted value NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.eval, tc.opts)
			if err == nil {
				_, err = e.Evaluate(tc.in)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestNewNames(t *testing.T) {
	for name, want := range map[string]string{
		"DiscreteEvaluator": "DiscreteEvaluator",
		"discrete":          "DiscreteEvaluator",
		"  AUC ":            "AUCEvaluator",
		"aucevaluator":      "AUCEvaluator",
		"org.linqs.psl.evaluation.statistics.CategoricalEvaluator": "CategoricalEvaluator",
		"CONTINUOUS": "ContinuousEvaluator",
	} {
		e, err := New(name, nil)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if e.Name() != want {
			t.Errorf("New(%q).Name() = %q, want %q", name, e.Name(), want)
		}
	}
}

// TestNewOptionScope: one global option map may configure several
// evaluators; each takes its own options and checks the others' names.
func TestNewOptionScope(t *testing.T) {
	opts := map[string]string{
		"DiscreteEvaluator.Threshold":          "0.8",
		"aucevaluator.threshold":               "0.2",
		"categoricalevaluator.categoryindexes": "1",
		"eval.includeobs":                      "true",
		"eval.closetruth":                      "false",
	}
	d := mustNew(t, "discrete", opts).(*DiscreteEvaluator)
	a := mustNew(t, "auc", opts).(*AUCEvaluator)
	c := mustNew(t, "categorical", opts).(*CategoricalEvaluator)
	if d.Threshold != 0.8 || a.Threshold != 0.2 || len(c.CategoryIndexes) != 1 || c.CategoryIndexes[0] != 1 {
		t.Fatalf("options not applied: %+v %+v %+v", d, a, c)
	}
}

func TestMetricNamesMatchResult(t *testing.T) {
	atoms := []Atom{cat("a", "1", 0.2, 0), cat("a", "2", 0.9, 1), cat("b", "1", 0.6, 1), cat("b", "2", 0.4, 0)}
	for _, name := range Names() {
		e := mustNew(t, name, nil)
		r, err := e.Evaluate(atoms)
		if err != nil {
			t.Fatal(err)
		}
		names := e.MetricNames()
		if len(names) != len(r.Metrics) {
			t.Fatalf("%s: %d names, %d metrics", name, len(names), len(r.Metrics))
		}
		for i := range names {
			if names[i] != r.Metrics[i].Name {
				t.Errorf("%s: metric %d is %s, MetricNames says %s", name, i, r.Metrics[i].Name, names[i])
			}
		}
		if _, ok := r.Get(r.Representative); !ok {
			t.Errorf("%s: representative %s is not a metric", name, r.Representative)
		}
		if r.Evaluator != e.Name() {
			t.Errorf("%s: Result.Evaluator = %s", name, r.Evaluator)
		}
	}
}

func TestParseCategoryIndexes(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "-1": {-1}, "0,2": {0, 2}, "0:2": {0, 2}, " 0  2\t3 ": {0, 2, 3}} {
		got, err := ParseCategoryIndexes(in)
		if err != nil || len(got) != len(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: %v, want %v", in, got, want)
			}
		}
	}
}

// FuzzEvaluate runs every evaluator on atoms decoded from fuzz bytes: the
// result is an error or finite metrics, never a panic or a NaN.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, "1")
	f.Add([]byte{0, 255, 128, 128, 3, 3}, "-1,0")
	f.Add([]byte{}, "")
	f.Fuzz(func(t *testing.T, data []byte, indexes string) {
		var atoms []Atom
		for i := 0; i+2 < len(data); i += 3 {
			atoms = append(atoms, Atom{
				Args:  []string{string(rune('a' + data[i]%4)), string(rune('0' + data[i]/64))},
				Pred:  float64(data[i+1]) / 255,
				Truth: float64(data[i+2]) / 255,
			})
		}
		for _, name := range Names() {
			e, err := New(name, map[string]string{"categoricalevaluator.categoryindexes": indexes})
			if err != nil {
				continue
			}
			r, err := e.Evaluate(atoms)
			if err != nil {
				continue
			}
			for _, m := range r.Metrics {
				if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
					t.Fatalf("%s: %s = %v", name, m.Name, m.Value)
				}
			}
		}
	})
}

// FuzzParseCategoryIndexes: any string gives indexes or an error.
func FuzzParseCategoryIndexes(f *testing.F) {
	for _, s := range []string{"1", "0,2", "-1:3", "", "x", " 1 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		idx, err := ParseCategoryIndexes(s)
		if err == nil && len(idx) == 0 {
			t.Fatalf("%q: no indexes and no error", s)
		}
	})
}

func BenchmarkAUC(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	atoms := make([]Atom, 100000)
	for i := range atoms {
		atoms[i] = Atom{Pred: float64(rng.IntN(1000)) / 1000, Truth: float64(rng.IntN(2))}
	}
	e := mustNew(b, "AUCEvaluator", nil)
	for b.Loop() {
		if _, err := e.Evaluate(atoms); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCategorical(b *testing.B) {
	// Cora-sized: 2708 entities x 7 categories.
	rng := rand.New(rand.NewPCG(1, 2))
	var atoms []Atom
	for p := range 2708 {
		truth := rng.IntN(7)
		for c := range 7 {
			tv := 0.0
			if c == truth {
				tv = 1
			}
			atoms = append(atoms, Atom{Args: []string{strconv.Itoa(p), strconv.Itoa(c + 1)}, Pred: rng.Float64(), Truth: tv})
		}
	}
	e := mustNew(b, "CategoricalEvaluator", nil)
	for b.Loop() {
		if _, err := e.Evaluate(atoms); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCategoricalCheckArity(t *testing.T) {
	for _, tc := range []struct {
		indexes string
		arity   int
		ok      bool
	}{
		{"-1", 2, true},
		{"1", 2, true},
		{"1,2", 3, true},
		{"-1", 1, false}, // a unary predicate: no entity
		{"0,1", 2, false},
		{"2", 2, false}, // out of range
		{"-3", 2, false},
	} {
		ev, err := New("CategoricalEvaluator", map[string]string{"categoricalevaluator.categoryindexes": tc.indexes})
		if err != nil {
			t.Fatal(err)
		}
		err = ev.(ArityChecker).CheckArity(tc.arity)
		if (err == nil) != tc.ok {
			t.Errorf("indexes %s, arity %d: error %v, want ok=%v", tc.indexes, tc.arity, err, tc.ok)
		}
	}
}

// TestIsOption: the evaluators' namespace is eval.* and each evaluator's
// prefix, in any case; other components' options are outside it.
func TestIsOption(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"eval.includeobs", true},
		{"DiscreteEvaluator.Threshold", true},
		{"discreteevaluator.treshold", true}, // misspelt, but the evaluator's to refuse
		{" aucevaluator.representative ", true},
		{"admm.maxiterations", false},
		{"runtime.db.intids", false},
		{"discreteevaluator", false},
		{"", false},
	} {
		if got := IsOption(tc.name); got != tc.want {
			t.Errorf("IsOption(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestUnpairedAtomsSkipped: the evaluators other than CategoricalEvaluator
// score only atoms with both values, as PSL's score only its TrainingMap's
// pairs: a prediction without truth (NoTruth) or a truth atom without
// prediction (NoPred) changes nothing, whatever its other field holds.
func TestUnpairedAtomsSkipped(t *testing.T) {
	pairs := []Atom{{Args: []string{"a"}, Pred: 0.9, Truth: 1}, {Args: []string{"b"}, Pred: 0.7, Truth: 0}, {Args: []string{"c"}, Pred: 0.1, Truth: 0}}
	extra := append(append([]Atom(nil), pairs...),
		Atom{Args: []string{"d"}, Pred: 0.8, Truth: 0, NoTruth: true},
		Atom{Args: []string{"e"}, Pred: 0, Truth: 1, NoPred: true})
	for _, name := range []string{"DiscreteEvaluator", "ContinuousEvaluator", "AUCEvaluator"} {
		e := mustNew(t, name, nil)
		want, err := e.Evaluate(pairs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Evaluate(extra)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: %v with unpaired atoms, want %v", name, got, want)
		}
	}
}
