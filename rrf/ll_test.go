package rrf

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
	"gonum.org/v1/gonum/optimize"
)

// enumerate calls f with every assignment agreeing with x on the variables
// ev fixes (x itself is restored afterwards).
func enumerate(x []bool, ev *Evidence, f func(y []bool)) {
	var free []int
	for v := range x {
		if !ev.fixed(v) {
			free = append(free, v)
		}
	}
	y := slices.Clone(x)
	for mask := 0; mask < 1<<len(free); mask++ {
		for k, v := range free {
			y[v] = mask>>k&1 == 1
		}
		f(y)
	}
}

// exactLL is sum_k log P(x_k | evidence of x_k) by enumeration, with the
// score from its definition (score), independent of State.
func exactLL(n *Net, worlds [][]bool, ev *Evidence) float64 {
	total := 0.0
	logZ := map[string]float64{}
	for _, x := range worlds {
		key := evidenceKey(x, ev)
		if _, ok := logZ[key]; !ok {
			var logs []float64
			enumerate(x, ev, func(y []bool) { logs = append(logs, score(n, y)) })
			m := slices.Max(logs)
			z := 0.0
			for _, l := range logs {
				z += math.Exp(l - m)
			}
			logZ[key] = m + math.Log(z)
		}
		total += score(n, x) - logZ[key]
	}
	return total
}

// exactLLGrad is the gradient of exactLL, sum_k ds_0(x_k)/dw -
// E[ds_0/dw | evidence of x_k], the expectation by enumeration; and the
// exact diagonal of the Fisher information, sum_k Var[ds_0/dw_i | evidence
// of x_k].
func exactLLGrad(t *testing.T, n *Net, worlds [][]bool, ev *Evidence) (g, fisher []float64) {
	nw := len(n.Weights)
	g, fisher = make([]float64, nw), make([]float64, nw)
	s, err := NewState(n, worlds[0])
	if err != nil {
		t.Fatal(err)
	}
	d := make([]float64, len(n.Features))
	gradAt := func(x []bool) []float64 {
		copy(s.X, x)
		s.Recompute()
		out := make([]float64, nw)
		s.grad(1, d, out)
		return out
	}
	type moments struct{ mean, variance []float64 }
	cache := map[string]moments{}
	for _, x := range worlds {
		for i, v := range gradAt(x) {
			g[i] += v
		}
		key := evidenceKey(x, ev)
		m, ok := cache[key]
		if !ok {
			var ps []float64
			var gs [][]float64
			enumerate(x, ev, func(y []bool) {
				ps = append(ps, score(n, y))
				gs = append(gs, gradAt(y))
			})
			top := slices.Max(ps)
			z := 0.0
			for k := range ps {
				ps[k] = math.Exp(ps[k] - top)
				z += ps[k]
			}
			m = moments{make([]float64, nw), make([]float64, nw)}
			for k, gk := range gs {
				for i, v := range gk {
					m.mean[i] += ps[k] / z * v
					m.variance[i] += ps[k] / z * v * v
				}
			}
			for i := range m.mean {
				m.variance[i] -= m.mean[i] * m.mean[i]
			}
			cache[key] = m
		}
		for i := range g {
			g[i] -= m.mean[i]
			fisher[i] += m.variance[i]
		}
	}
	return g, fisher
}

// sampleWorlds draws count worlds exactly from n (no evidence), by
// enumeration.
func sampleWorlds(n *Net, count int, rng *rand.Rand) [][]bool {
	var cum []float64
	z := 0.0
	x := make([]bool, n.NumVars)
	for mask := 0; mask < 1<<n.NumVars; mask++ {
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		z += math.Exp(score(n, x))
		cum = append(cum, z)
	}
	var worlds [][]bool
	for range count {
		m, _ := slices.BinarySearch(cum, rng.Float64()*z)
		w := make([]bool, n.NumVars)
		for v := range w {
			w[v] = m>>v&1 == 1
		}
		worlds = append(worlds, w)
	}
	return worlds
}

// randomWorlds returns count uniformly random worlds whose fixed variables
// take random values too.
func randomWorlds(rng *rand.Rand, nv, count int) [][]bool {
	var worlds [][]bool
	for range count {
		x := make([]bool, nv)
		for v := range x {
			x[v] = rng.IntN(2) == 0
		}
		worlds = append(worlds, x)
	}
	return worlds
}

// TestLogLikelihoodGradient: the back-propagated log-likelihood gradient,
// expectation by enumeration, equals finite differences of the exact
// log-likelihood, with and without evidence.
func TestLogLikelihoodGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial, tc := range []struct{ nv, nf, fixed int }{{6, 3, 0}, {8, 5, 0}, {10, 6, 3}, {12, 8, 4}, {9, 12, 2}} {
		n := randomNet(rng, tc.nv, tc.nf)
		ev := &Evidence{Fixed: make([]bool, tc.nv), X: make([]bool, tc.nv)}
		for v := range tc.fixed {
			ev.Fixed[v] = true
		}
		worlds := randomWorlds(rng, tc.nv, 3)
		g, _ := exactLLGrad(t, n, worlds, ev)
		for i := range n.Weights {
			w, h := n.Weights[i], 1e-5
			n.Weights[i] = w + h
			fp := exactLL(n, worlds, ev)
			n.Weights[i] = w - h
			fm := exactLL(n, worlds, ev)
			n.Weights[i] = w
			if fd := (fp - fm) / (2 * h); math.Abs(fd-g[i]) > 1e-6*max(1, math.Abs(fd)) {
				t.Errorf("trial %d weight %d (%.3f): gradient %.9g, finite difference %.9g", trial, i, w, g[i], fd)
			}
		}
	}
}

// TestSampledGradient: the gradient and Fisher diagonal the log-likelihood
// learner estimates from its Gibbs chains are within sampling error of the
// exact ones, on worlds that differ in their evidence (so the expectation
// is conditioned per group of worlds).
func TestSampledGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	n := randomNet(rng, 12, 8)
	// Fix the variable with the most parents, so that the evidence matters.
	uses := make([]int, 12)
	for _, cs := range n.Features {
		for _, c := range cs {
			if c.Var >= 0 {
				uses[c.Var]++
			}
		}
	}
	ev := &Evidence{Fixed: make([]bool, 12), X: make([]bool, 12)}
	ev.Fixed[slices.Index(uses, slices.Max(uses))] = true
	worlds := randomWorlds(rng, 12, 12)
	want, wantF := exactLLGrad(t, n, worlds, ev)
	free, _ := exactLLGrad(t, n, worlds, nil) // the expectation not conditioned
	l, err := newLLLearner(n, worlds, ev, 8, 2500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.groups) < 2 {
		t.Fatalf("%d evidence groups, want several", len(l.groups))
	}
	got, gotF, _, err := l.estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A bound on the standard error of the expected term: the sum over
	// groups of N_g times the standard error of a mean of 20,000
	// independent samples (the errors of the groups' estimates are
	// independent, so this overstates it, and the realised errors are
	// smaller still: the autocorrelation of the chains is low here).
	samples := 8 * 2500.0
	conditioned := false // the evidence changes the gradient beyond sampling error
	for i := range want {
		se := 0.0
		for _, g := range l.groups {
			var v float64
			var vs []float64
			for _, ch := range g.chains {
				for _, s := range ch.samples {
					vs = append(vs, s[i])
				}
			}
			m := 0.0
			for _, x := range vs {
				m += x / samples
			}
			for _, x := range vs {
				v += (x - m) * (x - m) / samples
			}
			se += float64(len(g.worlds)) * math.Sqrt(v/samples)
		}
		if math.Abs(got[i]-want[i]) > 4*se+1e-9 {
			t.Errorf("weight %d: sampled gradient %.5f, exact %.5f (standard error %.5f)", i, got[i], want[i], se)
		}
		conditioned = conditioned || math.Abs(free[i]-want[i]) > 20*se
		if math.Abs(gotF[i]-wantF[i]) > 0.1*wantF[i]+1e-9 {
			t.Errorf("weight %d: sampled Fisher diagonal %.5f, exact %.5f", i, gotF[i], wantF[i])
		}
	}
	if !conditioned {
		t.Errorf("the evidence hardly changes the exact gradient (%.4f, %.4f without it): the test no longer checks the conditioning", want, free)
	}
	t.Logf("sampled %.4f\nexact   %.4f\nwithout evidence %.4f", got, want, free)
}

// TestLearnLLFromSamples learns by log-likelihood from 500 worlds drawn
// exactly from an RRF, from perturbed weights: the exact log-likelihood
// rises from the start to within 1 nat (of about 2,600) of the exact
// maximum (L-BFGS on the enumerated likelihood, the oracle), which is
// about where the generating weights are.
func TestLearnLLFromSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for trial := range 2 {
		n := randomNet(rng, 8, 4)
		worlds := sampleWorlds(n, 500, rng)
		atTruth := exactLL(n, worlds, nil)
		for i := range n.Weights {
			n.Weights[i] += rng.NormFloat64()
		}
		start := slices.Clone(n.Weights)
		atStart := exactLL(n, worlds, nil)
		// The oracle.
		r, err := optimize.Minimize(optimize.Problem{
			Func: func(w []float64) float64 { copy(n.Weights, w); return -exactLL(n, worlds, nil) },
			Grad: func(g, w []float64) {
				copy(n.Weights, w)
				eg, _ := exactLLGrad(t, n, worlds, nil)
				for i := range g {
					g[i] = -eg[i]
				}
			},
		}, start, nil, &optimize.LBFGS{})
		if r == nil { // a line search failing at the optimum still returns it
			t.Fatal(err)
		}
		best := -r.F
		copy(n.Weights, start)
		res, err := Learn(context.Background(), n, worlds, nil, LearnOptions{Method: "ll", MaxIter: 200, Chains: 16, Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		got := exactLL(n, worlds, nil)
		if got < best-1 || got <= atStart || res.Iterations != 200 {
			t.Errorf("trial %d: log-likelihood: start %.3f, learned %.3f, generating weights %.3f, exact maximum %.3f (%d steps)",
				trial, atStart, got, atTruth, best, res.Iterations)
		}
		t.Logf("trial %d: log-likelihood: start %.3f, learned %.3f, generating weights %.3f, exact maximum %.3f", trial, atStart, got, atTruth, best)
	}
}

func TestLearnRefusesBadInput(t *testing.T) {
	n := randomNet(rand.New(rand.NewPCG(1, 2)), 4, 2)
	good := [][]bool{{true, false, true, false}}
	for _, tc := range []struct {
		worlds [][]bool
		ev     *Evidence
		opt    LearnOptions
		want   string
	}{
		{nil, nil, LearnOptions{}, "no training world"},
		{[][]bool{{true}}, nil, LearnOptions{}, "training world 0 has 1 values for 4 variables"},
		{good, &Evidence{Fixed: []bool{true}, X: []bool{true}}, LearnOptions{}, "evidence has 1/1 entries for 4 variables"},
		{good, nil, LearnOptions{Method: "em"}, `learning method "em": want pll or ll`},
		{good, nil, LearnOptions{Method: "ll", Chains: -1}, "chains -1"},
		{good, nil, LearnOptions{L2: -1}, "L2 -1"},
	} {
		if _, err := Learn(context.Background(), n, tc.worlds, tc.ev, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opt, err, tc.want)
		}
	}
	// A cancelled context stops both methods.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []string{"pll", "ll"} {
		if _, err := Learn(ctx, n, good, nil, LearnOptions{Method: m}); err != context.Canceled {
			t.Errorf("%s with a cancelled context: %v", m, err)
		}
	}
}

// TestSampledGradientTwoModes: the persistent chains of log-likelihood
// learning make the moves of GibbsChains (flip groups and blocks). Four
// atoms tied by implications both ways (weight 3) beside a weak prior have
// two modes, all true and all false; training worlds all in the all-false
// mode start every chain there, and single-variable sweeps stay in it, so
// that the expected term, and the gradient, missed the other mode. With the
// flip moves the sampled gradient is within 4 standard errors of the exact
// one; without them it is off by more than 20.
func TestSampledGradientTwoModes(t *testing.T) {
	in := &maxsat.Instance{NumVars: 4}
	for a := range 4 {
		for b := range 4 {
			if a != b {
				if err := in.AddClause(3, false, maxsat.Not(a), maxsat.Pos(b)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := in.AddClause(0.3, false, maxsat.Not(a)); err != nil {
			t.Fatal(err)
		}
	}
	net, err := FromClauses(in, 10, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	worlds := [][]bool{{false, false, false, false}, {false, false, false, false}, {true, false, false, false}}
	want, _ := exactLLGrad(t, net, worlds, nil)
	off := [2]float64{}
	for f, noFlips := range []bool{false, true} {
		l, err := newLLLearner(net, worlds, nil, 4, 2000, 1)
		if err != nil {
			t.Fatal(err)
		}
		l.noFlips = noFlips
		got, _, _, err := l.estimate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		samples := 4 * 2000.0
		for i := range want {
			var vs []float64
			for _, ch := range l.groups[0].chains {
				for _, s := range ch.samples {
					vs = append(vs, s[i])
				}
			}
			m, v := 0.0, 0.0
			for _, x := range vs {
				m += x / samples
			}
			for _, x := range vs {
				v += (x - m) * (x - m) / samples
			}
			// An autocorrelated chain's error is larger than this; the
			// floor keeps a weight that hardly varies from counting as
			// exact.
			se := float64(len(worlds))*math.Sqrt(v/samples) + 1e-3
			off[f] = max(off[f], math.Abs(got[i]-want[i])/se)
		}
	}
	t.Logf("largest error in standard errors: %.1f with flip moves, %.1f without", off[0], off[1])
	if off[0] > 4 {
		t.Errorf("with flip moves the sampled gradient is %.1f standard errors off", off[0])
	}
	if off[1] < 20 {
		t.Errorf("without flip moves the gradient is only %.1f standard errors off: the case no longer tests them", off[1])
	}
}
