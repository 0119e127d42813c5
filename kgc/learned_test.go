package kgc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/pathrule"
)

// Learned ranks every candidate by the sum, over its NoisyOrK most
// confident rules (a query's repeated prediction set counted once, as
// NoisyOr counts it), of -log(1 - conf) times the weight of the rule's
// class and place, computed here from each rule's predictions alone.
func TestLearnedMatchesBruteForce(t *testing.T) {
	g := randomGraph(5, 12, 3, 70)
	res, err := Learn(context.Background(), g, LearnOptions{Time: time.Second, Seed: 2, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[uint8]bool{}
	for i := range res.Rules {
		classes[ruleClass(&res.Rules[i])] = true
	}
	if len(classes) < 4 {
		t.Fatalf("the rules fall into %d classes: the test weighs too few apart", len(classes))
	}
	sc := pathrule.NewWalker(g)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 3, 5} {
		rk := NewRanker(g, res.Rules, Learned)
		rk.NoisyOrK = k
		rk.weights = make([][]float64, len(RuleClasses))
		for c := range rk.weights {
			for range k {
				rk.weights[c] = append(rk.weights[c], rng.Float64()*4-2)
			}
		}
		// The rules in the order the ranker applies them: decreasing
		// confidence, ties in the rules' order.
		rules := make([]*Rule, len(res.Rules))
		for i := range res.Rules {
			rules[i] = &res.Rules[i]
		}
		slices.SortStableFunc(rules, func(a, b *Rule) int { return cmp.Compare(b.Conf, a.Conf) })
		for e := range int32(g.NumEntities) {
			for r := range int32(g.NumRelations) {
				for _, tail := range []bool{true, false} {
					type ev struct {
						conf float64
						cls  uint8
					}
					got := map[int32][]ev{}
					seen := map[string]bool{}
					for _, rule := range rules {
						if rule.Head != r {
							continue
						}
						ys := slices.Sorted(slices.Values(rule.predict(g, e, tail, sc, nil)))
						if key := fmt.Sprint(ys); len(ys) > 0 {
							if seen[key] {
								continue
							}
							seen[key] = true
						}
						for _, y := range ys {
							got[y] = append(got[y], ev{rule.Conf, ruleClass(rule)})
						}
					}
					score := func(y int32) float64 {
						s := 0.0
						for j, x := range got[y][:min(k, len(got[y]))] {
							s += rk.weights[x.cls][j] * -math.Log(1-min(x.conf, clampConf))
						}
						return s
					}
					list := rk.Rank(e, r, tail, 0)
					if len(list) != len(got) {
						t.Fatalf("k %d (%d,%d,%v): %d candidates, brute force %d", k, e, r, tail, len(list), len(got))
					}
					for i := range list {
						if w := score(list[i].Entity); math.Abs(list[i].Score-w) > 1e-9 {
							t.Fatalf("k %d (%d,%d,%v): %d scored %v, brute force %v", k, e, r, tail, list[i].Entity, list[i].Score, w)
						}
						if i > 0 && list[i-1].Score < list[i].Score {
							t.Fatalf("k %d (%d,%d,%v): %d (%v) ranked before %d (%v)", k, e, r, tail, list[i-1].Entity, list[i-1].Score, list[i].Entity, list[i].Score)
						}
					}
				}
			}
		}
	}
}

// learnedKG is a dense random graph and rules learned from it, with its
// validation triples and known answers.
func learnedKG(t *testing.T, seed uint64) (*Graph, []Rule, []Triple, func(Triple) bool) {
	t.Helper()
	g, valid, known := denseKG(seed, 16, 6, 400)
	lr, err := Learn(context.Background(), g, LearnOptions{Rounds: 6, Seed: seed, SamplesPerRound: 400})
	if err != nil {
		t.Fatal(err)
	}
	return g, lr.Rules, valid, func(t Triple) bool { return known[t] }
}

// FitWeights finds the minimum of its objective (checked by the
// objective's finite differences, the gradient too), and its figures are
// Evaluate's: the validation MRR with the fitted weights and with
// NoisyOr. The weights do not depend on the threads; with every weight 1
// Learned's lists are NoisyOr's.
func TestFitWeights(t *testing.T) {
	ctx := context.Background()
	moved := 0
	for seed := range uint64(3) {
		g, rules, valid, known := learnedKG(t, seed)
		rk := NewRanker(g, rules, Learned)
		if _, err := rk.Evaluate(ctx, valid, known, EvalOptions{}); err == nil {
			t.Fatal("Evaluate under Learned before FitWeights: no error")
		}
		opt := LearnedOptions{MaxValid: -1, TopK: 20, Threads: 1, Seed: seed}
		rep, err := rk.FitWeights(ctx, valid, known, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Converged || rep.ValidQueries != 2*len(valid) || rep.Fitted == 0 {
			t.Fatalf("seed %d: %+v", seed, rep)
		}
		ev, err := rk.Evaluate(ctx, valid, known, EvalOptions{TopK: opt.TopK})
		if err != nil {
			t.Fatal(err)
		}
		exh, err := rk.Evaluate(ctx, valid, known, EvalOptions{TopK: opt.TopK, Exhaustive: true})
		if err != nil {
			t.Fatal(err)
		}
		nor, err := NewRanker(g, rules, NoisyOr).Evaluate(ctx, valid, known, EvalOptions{TopK: opt.TopK})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Metrics.MRR != rep.ValidMRR || exh.Metrics.MRR != ev.Metrics.MRR || nor.Metrics.MRR != rep.ValidMRRNoisyOr {
			t.Errorf("seed %d: fit says MRR %v (noisy-or %v); Evaluate %v, exhaustive %v (noisy-or %v)", seed, rep.ValidMRR, rep.ValidMRRNoisyOr, ev.Metrics.MRR, exh.Metrics.MRR, nor.Metrics.MRR)
		}
		if rep.ValidMRR != rep.ValidMRRNoisyOr {
			moved++
		}

		// The fitted weights minimise the objective: no step along a
		// coordinate lowers it, and the gradient is its slope.
		K := rk.NoisyOrK
		qs, err := rk.fitQueries(ctx, valid, known, opt.TopK, K, 1)
		if err != nil {
			t.Fatal(err)
		}
		var fit []*fitQuery
		for i := range qs {
			if qs[i].truth >= 0 && len(qs[i].off) > 2 { // as FitWeights: the true answer and another candidate
				fit = append(fit, &qs[i])
			}
		}
		loss := fitLoss(fit, K, 1e-3)
		var x []float64
		for _, cw := range rep.Weights {
			x = append(x, cw.Weights...)
		}
		f0 := loss(x, nil)
		for j := range x {
			for _, h := range []float64{-1e-3, 1e-3} {
				y := slices.Clone(x)
				y[j] += h
				if f := loss(y, nil); f < f0-1e-9 {
					t.Errorf("seed %d: weight %d moved by %v lowers the objective from %v to %v", seed, j, h, f0, f)
				}
			}
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		for range 3 {
			y := make([]float64, len(x))
			for j := range y {
				y[j] = rng.Float64()*3 - 1
			}
			grad := make([]float64, len(y))
			loss(y, grad)
			for j := range y {
				a, b := slices.Clone(y), slices.Clone(y)
				a[j] += 1e-6
				b[j] -= 1e-6
				if fd := (loss(a, nil) - loss(b, nil)) / 2e-6; math.Abs(fd-grad[j]) > 1e-5*max(1, math.Abs(fd)) {
					t.Errorf("seed %d: gradient %d %v, finite difference %v", seed, j, grad[j], fd)
				}
			}
		}

		// Threads change nothing.
		rk2 := NewRanker(g, rules, Learned)
		opt.Threads = 2
		rep2, err := rk2.FitWeights(ctx, valid, known, opt)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rep2.Weights) != fmt.Sprint(rep.Weights) {
			t.Errorf("seed %d: weights %v on 2 threads, %v on 1", seed, rep2.Weights, rep.Weights)
		}

		// Weights of 1 rank as NoisyOr.
		for c := range rk.weights {
			for j := range rk.weights[c] {
				rk.weights[c][j] = 1
			}
		}
		ones, err := rk.Evaluate(ctx, valid, known, EvalOptions{TopK: opt.TopK})
		if err != nil {
			t.Fatal(err)
		}
		for i := range valid {
			for _, pair := range [][2]Answer{{ones.Heads[i], nor.Heads[i]}, {ones.Tails[i], nor.Tails[i]}} {
				a, b := pair[0], pair[1]
				if a.Rank != b.Rank || !slices.EqualFunc(a.List, b.List, func(x, y Candidate) bool {
					return x.Entity == y.Entity && math.Abs(x.Score-(-math.Log1p(-min(y.Score, clampConf)))) < 1e-9
				}) {
					t.Fatalf("seed %d, triple %d: weights of 1 rank %v (rank %v), noisy-or %v (rank %v)", seed, i, a.List, a.Rank, b.List, b.Rank)
				}
			}
		}
	}
	if moved == 0 {
		t.Error("the fitted weights never changed the validation MRR: the graphs test nothing")
	}
}

// FitWeights stops with the context's error, the ranker left unfitted.
func TestFitWeightsCancelled(t *testing.T) {
	g, rules, valid, known := learnedKG(t, 1)
	full := newCountdown(math.MaxInt64)
	rk := NewRanker(g, rules, Learned)
	if _, err := rk.FitWeights(full, valid, known, LearnedOptions{Threads: 1}); err != nil {
		t.Fatal(err)
	}
	looks := full.calls.Load()
	for _, at := range []int64{0, looks / 3, looks - 2} {
		if _, err := rk.FitWeights(newCountdown(at), valid, known, LearnedOptions{Threads: 1}); err != context.Canceled {
			t.Errorf("cancelled at look %d of %d: error %v", at, looks, err)
		}
		if rk.Fitted() {
			t.Errorf("cancelled at look %d of %d: the ranker is fitted", at, looks)
		}
	}
}

// Learned re-weighs the first TopK candidates FitWeights was given,
// ranked above the others in their NoisyOr order, whatever the length of
// the list asked for: Evaluate's lists, Rank's and PlaceOf's places agree.
func TestLearnedPrefix(t *testing.T) {
	ctx := context.Background()
	g, rules, valid, known := learnedKG(t, 2)
	rk := NewRanker(g, rules, Learned)
	if _, err := rk.FitWeights(ctx, valid, known, LearnedOptions{MaxValid: -1, TopK: 4, Threads: 1}); err != nil {
		t.Fatal(err)
	}
	nor := NewRanker(g, rules, NoisyOr)
	checked := 0
	for _, topK := range []int{2, 4, 12} {
		ev, err := rk.Evaluate(ctx, valid, known, EvalOptions{TopK: topK})
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range valid {
			for _, tail := range []bool{true, false} {
				e, y, skip := askedAs(tr, tail, known)
				a := ev.Heads[i]
				if tail {
					a = ev.Tails[i]
				}
				// Every rule applied (no early stop), known answers left out.
				all, _, err := rk.rank(ctx, Learned, e, tr.R, tail, 0, skip, rk.newQueryScratch())
				if err != nil {
					t.Fatal(err)
				}
				rk.reweigh(Learned, all)
				base, _, err := nor.rank(ctx, NoisyOr, e, tr.R, tail, 0, skip, nor.newQueryScratch())
				if err != nil {
					t.Fatal(err)
				}
				// The first 4 of NoisyOr's (and its ties) are those re-weighed, first.
				n := len(cut(NoisyOr, base, 4))
				if !sameSet(all[:n], base[:n]) || !slices.EqualFunc(all[n:], base[n:], func(a, b Candidate) bool { return a.Entity == b.Entity }) {
					t.Fatalf("query %d: learned %v, noisy-or %v: not its first %d re-weighed above the rest", i, entities(all), entities(base), n)
				}
				if len(a.List) > len(all) {
					t.Fatalf("top %d, query %d: Evaluate lists %d candidates, %d predicted", topK, i, len(a.List), len(all))
				}
				for j := range a.List {
					if a.List[j].Entity != all[j].Entity {
						t.Fatalf("top %d, query %d: Evaluate lists %v, every rule applied %v", topK, i, entities(a.List), entities(all))
					}
				}
				p, err := rk.PlaceOf(ctx, e, tr.R, tail, y, skip)
				if err != nil {
					t.Fatal(err)
				}
				if a.Rank > 0 && p.Rank != a.Rank {
					t.Errorf("top %d, query %d: Evaluate ranks the answer %v, PlaceOf %v", topK, i, a.Rank, p.Rank)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no query checked")
	}
}

func entities(cs []Candidate) []int32 {
	var out []int32
	for _, c := range cs {
		out = append(out, c.Entity)
	}
	return out
}

func sameSet(a, b []Candidate) bool {
	return slices.Equal(slices.Sorted(slices.Values(entities(a))), slices.Sorted(slices.Values(entities(b))))
}

// Weights fitted on a few validation triples (half of each random graph's
// validation split, 2 to 10 triples) rank the other half better than
// noisy-or on average over 40 graphs: the fit generalises even from very
// little data (measured: +0.011 of MRR).
func TestLearnedGeneralises(t *testing.T) {
	ctx := context.Background()
	var sum, n float64
	for seed := range uint64(40) {
		g, valid, known := denseKG(seed, 16, 6, 400)
		if len(valid) < 4 {
			continue
		}
		lr, err := Learn(ctx, g, LearnOptions{Rounds: 4, Seed: seed, SamplesPerRound: 400})
		if err != nil {
			t.Fatal(err)
		}
		fit, held := valid[:len(valid)/2], valid[len(valid)/2:]
		isKnown := func(t Triple) bool { return known[t] }
		rk := NewRanker(g, lr.Rules, Learned)
		if _, err := rk.FitWeights(ctx, fit, isKnown, LearnedOptions{}); err != nil {
			t.Fatal(err)
		}
		ev, err := rk.Evaluate(ctx, held, isKnown, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ev0, err := NewRanker(g, lr.Rules, NoisyOr).Evaluate(ctx, held, isKnown, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum += ev.Metrics.MRR - ev0.Metrics.MRR
		n++
	}
	if n < 30 || sum/n <= 0 {
		t.Errorf("over %v graphs learned weights rank the held-out triples %+.4f against noisy-or on average", n, sum/n)
	}
}

// Weights fitted for one NoisyOrK do not rank with another: Evaluate says
// to fit again.
func TestLearnedNoisyOrKChanged(t *testing.T) {
	g, rules, valid, known := learnedKG(t, 0)
	rk := NewRanker(g, rules, Learned)
	if _, err := rk.FitWeights(context.Background(), valid, known, LearnedOptions{}); err != nil {
		t.Fatal(err)
	}
	rk.NoisyOrK = 3
	if _, err := rk.Evaluate(context.Background(), valid, known, EvalOptions{}); err == nil || !strings.Contains(err.Error(), "FitWeights again") {
		t.Fatalf("NoisyOrK changed after the fit: error %v", err)
	}
}

// Degenerate validation splits fit nothing (every weight stays 1, which
// ranks as noisy-or); confidences of exactly 1 (no smoothing) fit finite
// weights whose in-sample MRR is Evaluate's.
func TestFitWeightsDegenerate(t *testing.T) {
	ctx := context.Background()
	g, rules, valid, known := learnedKG(t, 3)
	nor, err := NewRanker(g, rules, NoisyOr).Evaluate(ctx, valid, known, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	outside := []Triple{{H: int32(g.NumEntities), R: 0, T: 0}, {H: 0, R: int32(g.NumRelations), T: 1}}
	for _, c := range []struct {
		name  string
		valid []Triple
		topK  int
	}{{"no triples", nil, 0}, {"only triples outside the graph", outside, 0}, {"lists of one", valid, 1}} {
		rk := NewRanker(g, rules, Learned)
		rep, err := rk.FitWeights(ctx, c.valid, known, LearnedOptions{MaxValid: -1, TopK: c.topK})
		if err != nil {
			t.Fatal(err)
		}
		if c.topK == 0 && (rep.ValidQueries != 0 || rep.Fitted != 0) {
			t.Errorf("%s: %d queries, %d fitted", c.name, rep.ValidQueries, rep.Fitted)
		}
		if rep.Fitted > 0 {
			continue // lists of one with ties: something to fit
		}
		for _, cw := range rep.Weights {
			for _, w := range cw.Weights {
				if w != 1 {
					t.Fatalf("%s: nothing fitted but weights %v", c.name, rep.Weights)
				}
			}
		}
		if !rep.Converged || rep.ValidMRR != rep.ValidMRRNoisyOr || !rk.Fitted() {
			t.Errorf("%s: %+v", c.name, rep)
		}
		ev, err := rk.Evaluate(ctx, valid, known, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Metrics.MRR != nor.Metrics.MRR {
			t.Errorf("%s: weights of 1 rank with MRR %v, noisy-or %v", c.name, ev.Metrics.MRR, nor.Metrics.MRR)
		}
	}

	// No smoothing: rules counted exactly with every body grounding true
	// have confidence 1, whose -log(1 - conf) is clamped.
	lr, err := Learn(ctx, g, LearnOptions{Rounds: 6, Seed: 3, SamplesPerRound: 400, PC: -1})
	if err != nil {
		t.Fatal(err)
	}
	ones := 0
	for _, r := range lr.Rules {
		if r.Conf == 1 {
			ones++
		}
	}
	if ones == 0 {
		t.Fatal("no rule of confidence 1: the case is not tested")
	}
	rk := NewRanker(g, lr.Rules, Learned)
	rep, err := rk.FitWeights(ctx, valid, known, LearnedOptions{MaxValid: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, cw := range rep.Weights {
		for _, w := range cw.Weights {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				t.Fatalf("weights %v", rep.Weights)
			}
		}
	}
	ev, err := rk.Evaluate(ctx, valid, known, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fitted == 0 || ev.Metrics.MRR != rep.ValidMRR {
		t.Errorf("confidences of 1: %d fitted, in-sample MRR %v, Evaluate %v", rep.Fitted, rep.ValidMRR, ev.Metrics.MRR)
	}
}
