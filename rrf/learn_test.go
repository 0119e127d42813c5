package rrf

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/optimize"

	"github.com/hinge-srl/hinge/internal/logistic"
)

func TestPseudoLikelihoodGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 24 {
		nv, nf := 7, 5
		if trial%12 >= 10 {
			nv, nf = 300, 60 // several workers share the flips
		}
		n := randomNet(rng, nv, nf)
		if trial >= 12 { // counts, constants, both normalisations
			n = randomFoldedNet(rng, nv, nf, []Norm{NormMax, NormSoftplus, NormSmooth}[trial%3])
		}
		x := make([]bool, n.NumVars)
		for v := range x {
			x[v] = rng.IntN(2) == 0
		}
		g := make([]float64, len(n.Weights))
		if _, err := PseudoLogLikelihood(n, x, nil, g); err != nil {
			t.Fatal(err)
		}
		for i := range n.Weights {
			w := n.Weights[i]
			h := 1e-6
			n.Weights[i] = w + h
			fp, _ := PseudoLogLikelihood(n, x, nil, nil)
			n.Weights[i] = w - h
			fm, _ := PseudoLogLikelihood(n, x, nil, nil)
			n.Weights[i] = w
			if fd := (fp - fm) / (2 * h); math.Abs(fd-g[i]) > 1e-5*max(1, math.Abs(fd)) {
				t.Errorf("trial %d weight %d (%.3f): gradient %.9g, finite difference %.9g", trial, i, w, g[i], fd)
			}
		}
		if nv > 7 {
			continue
		}
		// The value against the definition: sum_v log P(x_v | rest).
		want := 0.0
		for v := range x {
			s0 := score(n, x)
			x[v] = !x[v]
			s1 := score(n, x)
			x[v] = !x[v]
			want += s0 - math.Log(math.Exp(s0)+math.Exp(s1))
		}
		if got, _ := PseudoLogLikelihood(n, x, nil, nil); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("trial %d: pseudo-log-likelihood %.12g, definition %.12g", trial, got, want)
		}
	}
}

// TestLearnFromSamples samples worlds exactly from a small RRF, then learns
// from a perturbed start: the pseudo-likelihood of the data rises to at
// least its value at the generating weights.
func TestLearnFromSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	n := randomNet(rng, 6, 3)
	// Exact sampling by enumeration.
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
	for range 400 {
		u := rng.Float64() * z
		m := 0
		for cum[m] < u {
			m++
		}
		w := make([]bool, n.NumVars)
		for v := range w {
			w[v] = m>>v&1 == 1
		}
		worlds = append(worlds, w)
	}
	pll := func() float64 {
		s := 0.0
		for _, w := range worlds {
			p, err := PseudoLogLikelihood(n, w, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			s += p
		}
		return s
	}
	atTruth := pll()
	for i := range n.Weights {
		n.Weights[i] += rng.NormFloat64()
	}
	start := pll()
	res, err := Learn(context.Background(), n, worlds, nil, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := res.PLL
	if !res.Converged {
		t.Errorf("L-BFGS stopped with %s after %d iterations (gradient norm %.3g)", res.Status, res.Iterations, res.GradNorm)
	}
	if math.Abs(got-pll()) > 1e-9*math.Abs(got) || got < atTruth-1e-6 || got <= start {
		t.Errorf("pseudo-log-likelihood: perturbed start %.6g, learned %.6g (recomputed %.6g), generating weights %.6g", start, got, pll(), atTruth)
	}
	t.Logf("pseudo-log-likelihood: start %.4f, learned %.4f, generating weights %.4f; weights %v", start, got, atTruth, n.Weights)
}

// TestFlipDiffMatchesDense checks the pseudo-likelihood gradient, whose
// flips touch only the affected region, against the dense formula
// sum_v q_v (d s_0(x)/dw - d s_0(x^v)/dw) evaluated by full
// back-propagation, on random DAGs (deep, shared children, tied weights)
// with some variables fixed.
func TestFlipDiffMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 40 {
		nv, nf := 10+rng.IntN(40), 3+rng.IntN(30)
		n := randomNet(rng, nv, nf)
		if trial >= 20 {
			n = randomFoldedNet(rng, nv, nf, []Norm{NormMax, NormSoftplus, NormSmooth}[trial%3])
		}
		x := make([]bool, nv)
		ev := &Evidence{Fixed: make([]bool, nv), X: x}
		for v := range x {
			x[v] = rng.IntN(2) == 0
			ev.Fixed[v] = rng.IntN(4) == 0
		}
		got := make([]float64, len(n.Weights))
		if _, err := PseudoLogLikelihood(n, x, ev, got); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(n.Weights))
		s, err := NewState(n, x)
		if err != nil {
			t.Fatal(err)
		}
		d := make([]float64, len(n.Features))
		for v := range x {
			if ev.Fixed[v] {
				continue
			}
			s0 := s.LogScore()
			s.Set(v, !x[v])
			q := logistic.Sigmoid(s.LogScore() - s0)
			s.grad(-q, d, want)
			s.Set(v, x[v])
			s.grad(q, d, want)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9*max(1, math.Abs(want[i])) {
				t.Errorf("trial %d weight %d: gradient %.12g, dense %.12g", trial, i, got[i], want[i])
			}
		}
	}
}

// TestLearnPLLAtKinks: on small random problems started near 0, under
// NormMax L-BFGS's line search fails at the kinks of the objective (inner
// weights crossing 0) far from a stationary point, and Learn returns a
// point at least as good as plain L-BFGS's last iterate, clearly better on
// some; under NormSmooth, the default, learning converges on every problem
// (the normaliser decision of the package documentation).
func TestLearnPLLAtKinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	failures, unconverged, gain := 0, 0, 0.0
	for trial := range 50 {
		n := randomNet(rng, 6, 3)
		n.Norm = NormMax
		worlds := sampleWorlds(n, 30, rng)
		for i := range n.Weights {
			n.Weights[i] = 0.3 * rng.NormFloat64()
		}
		start := slices.Clone(n.Weights)
		pll := func(w []float64, g []float64) float64 {
			copy(n.Weights, w)
			s := 0.0
			for _, x := range worlds {
				p, err := PseudoLogLikelihood(n, x, nil, g)
				if err != nil {
					t.Fatal(err)
				}
				s += p
			}
			return s
		}
		r, _ := optimize.Minimize(optimize.Problem{
			Func: func(w []float64) float64 { return -pll(w, nil) },
			Grad: func(g, w []float64) {
				clear(g)
				pll(w, g)
				for i := range g {
					g[i] = -g[i]
				}
			},
		}, start, &optimize.Settings{MajorIterations: 500, GradientThreshold: 1e-6}, &optimize.LBFGS{})
		copy(n.Weights, start)
		res, err := Learn(context.Background(), n, worlds, nil, LearnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.PLL < -r.F-1e-9 {
			t.Errorf("trial %d: pseudo-log-likelihood %.6f, plain L-BFGS %.6f", trial, res.PLL, -r.F)
		}
		if r.Status == optimize.Failure {
			failures++
			gain = max(gain, res.PLL+r.F)
		}
		// With a prior (so that the optimum is finite) under max, then
		// under the smooth normalisation.
		copy(n.Weights, start)
		mp, err := Learn(context.Background(), n, worlds, nil, LearnOptions{L2: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		if !mp.Converged {
			unconverged++
		}
		n.Norm = NormSmooth
		copy(n.Weights, start)
		sm, err := Learn(context.Background(), n, worlds, nil, LearnOptions{L2: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		if !sm.Converged {
			t.Errorf("trial %d: smooth normalisation: L-BFGS stopped with %s after %d iterations, gradient norm %.3g", trial, sm.Status, sm.Iterations, sm.GradNorm)
		}
	}
	if failures == 0 || unconverged == 0 || gain < 1 {
		t.Errorf("max: %d line-search failures in 50 problems (%d not converged with the prior), largest gain %.3g: the test no longer exercises the kinks", failures, unconverged, gain)
	}
	t.Logf("max: %d line-search failures in 50 problems, %d not converged with the prior, largest gain %.3g", failures, unconverged, gain)
}

// TestLearnTied: learning tied across two copies of one network, each with
// half the worlds, finds the weights that one network with all of them
// does (the objective is the same sum); tied across two
// different networks, the returned pseudo-log-likelihood is the sum of the
// two at the learned weights, which every network receives.
func TestLearnTied(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	n := randomNet(rng, 8, 4)
	worlds := sampleWorlds(n, 40, rng)
	w0 := slices.Clone(n.Weights)
	opt := LearnOptions{L2: 0.1, MaxIter: 60}
	one := &Net{NumVars: n.NumVars, Features: n.Features, Weights: slices.Clone(w0)}
	if _, err := Learn(context.Background(), one, worlds[:20], nil, opt); err != nil {
		t.Fatal(err)
	}
	a := &Net{NumVars: n.NumVars, Features: n.Features, Weights: slices.Clone(w0)}
	b := &Net{NumVars: n.NumVars, Features: n.Features, Weights: slices.Clone(w0)}
	if _, err := LearnTied(context.Background(), []Data{{Net: a, Worlds: worlds[:10]}, {Net: b, Worlds: worlds[10:20]}}, opt); err != nil {
		t.Fatal(err)
	}
	for i := range one.Weights {
		if math.Abs(a.Weights[i]-one.Weights[i]) > 1e-6*max(1, math.Abs(one.Weights[i])) || b.Weights[i] != a.Weights[i] {
			t.Errorf("weight %d: tied %.9g (%.9g), one network %.9g", i, a.Weights[i], b.Weights[i], one.Weights[i])
		}
	}
	// Two different networks with as many weights.
	m := randomNet(rng, 6, 3)
	m.Weights = slices.Clone(w0)
	other := sampleWorlds(m, 20, rng)
	a = &Net{NumVars: n.NumVars, Features: n.Features, Weights: slices.Clone(w0)}
	res, err := LearnTied(context.Background(), []Data{{Net: a, Worlds: worlds[:20]}, {Net: m, Worlds: other}}, LearnOptions{L2: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Weights, m.Weights) {
		t.Errorf("the networks' weights differ: %v, %v", a.Weights, m.Weights)
	}
	sum := 0.0
	for _, d := range []Data{{Net: a, Worlds: worlds[:20]}, {Net: m, Worlds: other}} {
		for _, x := range d.Worlds {
			p, err := PseudoLogLikelihood(d.Net, x, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum += p
		}
	}
	if math.Abs(res.PLL-sum) > 1e-9*math.Abs(sum) || !res.Converged {
		t.Errorf("tied pseudo-log-likelihood %.9g (converged %v), sum over the networks %.9g", res.PLL, res.Converged, sum)
	}
	// Likelihood learning over two networks: each network's chains sample
	// its own model; the step sums their estimates. Every network ends with
	// the same weights, and the pseudo-likelihood of both rises.
	copy(a.Weights, w0)
	copy(m.Weights, w0)
	before := 0.0
	for _, d := range []Data{{Net: a, Worlds: worlds[:20]}, {Net: m, Worlds: other}} {
		for _, x := range d.Worlds {
			p, _ := PseudoLogLikelihood(d.Net, x, nil, nil)
			before += p
		}
	}
	ll, err := LearnTied(context.Background(), []Data{{Net: a, Worlds: worlds[:20]}, {Net: m, Worlds: other}}, LearnOptions{Method: "ll", L2: 0.1, MaxIter: 60, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Weights, m.Weights) || ll.PLL <= before {
		t.Errorf("ll: weights %v and %v, pseudo-log-likelihood %.4g from %.4g", a.Weights, m.Weights, ll.PLL, before)
	}
	if _, err := LearnTied(context.Background(), []Data{{Net: a, Worlds: worlds}, {Net: &Net{NumVars: 1, Features: [][]Child{{}}, Weights: []float64{1}}, Worlds: [][]bool{{true}}}}, LearnOptions{}); err == nil {
		t.Error("networks with different numbers of weights accepted")
	}
}
