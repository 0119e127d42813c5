package rrf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/hinge-srl/hinge/internal/logistic"
)

// grad adds c * d s_0 / d w (at the state's current values) to g, by
// back-propagation (backprop gives d_i = d s_0 / d s_i). For the root
// d s_0 / d w_0j = n_0j v_j; for an inner feature the normalisation M_i
// moves with its weights, and d s_0 / d w_ij = d_i n_ij (v_j - m'(w_ij))
// (m the net's Norm). d is scratch of one entry per feature.
func (s *State) grad(c float64, d, g []float64) {
	n := s.net
	s.backprop(d)
	for i, cs := range n.Features {
		di := d[i]
		if di == 0 {
			continue
		}
		for k := range cs {
			ch := &cs[k]
			v := s.childValue(ch)
			if i > 0 {
				v -= n.Norm.dnorm(n.Weights[ch.Weight])
			}
			g[ch.Weight] += c * di * ch.mult() * v
		}
	}
}

// backprop fills d with d s_0 / d s_i at the state's current values: d_0 is
// 1 and d_j += d_i * n_ij * w_ij * f_j down every edge to a feature child j
// (parents come before children, so one pass in index order suffices).
func (s *State) backprop(d []float64) {
	n := s.net
	clear(d)
	d[0] = 1
	for i, cs := range n.Features {
		if d[i] == 0 {
			continue
		}
		for k := range cs {
			if ch := &cs[k]; ch.Feature >= 0 {
				d[ch.Feature] += d[i] * n.Weights[ch.Weight] * ch.mult() * s.val[ch.Feature]
			}
		}
	}
}

// flipScratch is one worker's memory for flipDiff.
type flipScratch struct {
	in    []bool    // feature is in the affected set
	list  []int32   // the affected set
	d2    []float64 // d s_0 / d s_i with the variable flipped, for the affected set
	stack []int32
}

func newFlipScratch(nf int) *flipScratch {
	return &flipScratch{in: make([]bool, nf), d2: make([]float64, nf)}
}

// flipDiff adds c * (d s_0/dw at the state - d s_0/dw with v flipped) to g
// and leaves the state as it was. d is d s_0 / d s_i at the state (from
// backprop). Only two kinds of edge contribute to the difference: those
// out of a feature whose derivative d_i changes (v's ancestors below the
// root, whose values change, and their descendants, whose parents' d
// change), and the root's edges to children whose value changes. So a flip
// costs the size of that region, not of the model, which matters when the
// root sums over every grounding.
func (s *State) flipDiff(v int, c float64, d []float64, sc *flipScratch, g []float64) {
	n := s.net
	tp := s.tp
	sc.list = sc.list[:0]
	add := func(i int32) {
		if i != 0 && !sc.in[i] {
			sc.in[i] = true
			sc.list = append(sc.list, i)
			sc.stack = append(sc.stack, i)
		}
	}
	// Ancestors of v below the root.
	for _, p := range tp.varParents(v) {
		add(p.feature)
	}
	for len(sc.stack) > 0 {
		i := sc.stack[len(sc.stack)-1]
		sc.stack = sc.stack[:len(sc.stack)-1]
		for _, p := range tp.parents(i) {
			add(p.feature)
		}
	}
	// Their descendants.
	for k := 0; k < len(sc.list); k++ {
		sc.stack = append(sc.stack, sc.list[k])
	}
	for len(sc.stack) > 0 {
		i := sc.stack[len(sc.stack)-1]
		sc.stack = sc.stack[:len(sc.stack)-1]
		for k := range n.Features[i] {
			if ch := &n.Features[i][k]; ch.Feature >= 0 {
				add(ch.Feature)
			}
		}
	}
	if len(sc.list) > 1 {
		slices.Sort(sc.list) // parents before children
	}
	// contrib adds sign * c * (the region's edge terms) with derivatives dd.
	contrib := func(sign float64, dd []float64) {
		for _, i := range sc.list {
			di := dd[i]
			if di == 0 {
				continue
			}
			for k := range n.Features[i] {
				ch := &n.Features[i][k]
				u := s.childValue(ch) - n.Norm.dnorm(n.Weights[ch.Weight])
				g[ch.Weight] += sign * c * di * ch.mult() * u
			}
		}
		// The root's edges to changed children (d_0 = 1, no normalisation).
		for _, p := range tp.varParents(v) {
			if p.feature == 0 {
				g[p.weight] += sign * c * p.count * s.leaf(int32(v), p.neg)
			}
		}
		for _, i := range sc.list {
			for _, p := range tp.parents(i) {
				if p.feature == 0 {
					g[p.weight] += sign * c * p.count * s.val[i]
				}
			}
		}
	}
	contrib(1, d)
	old := s.X[v]
	s.try(v, !old)
	for _, j := range sc.list {
		t := 0.0
		for _, p := range tp.parents(j) {
			dp := d[p.feature]
			if sc.in[p.feature] {
				dp = sc.d2[p.feature]
			}
			t += dp * n.Weights[p.weight] * p.count
		}
		sc.d2[j] = t * s.val[j]
	}
	contrib(-1, sc.d2)
	s.rollback(v, old)
	for _, i := range sc.list {
		sc.in[i] = false
	}
}

// PseudoLogLikelihood returns sum over the unknown variables v of
// log P(x_v | x_-v) at the data x and, if g is not nil, adds its gradient in
// the weights to g: for each v, P(not x_v | rest) times
// (d s_0(x)/dw - d s_0(x with v flipped)/dw), the paper's back-propagated
// pseudo-likelihood gradient, computed for each flip over the features
// whose back-propagated derivative changes only (see flipDiff). The flips
// are shared among GOMAXPROCS workers, each with its own cached state.
// Variables fixed by ev are not counted.
func PseudoLogLikelihood(net *Net, x []bool, ev *Evidence, g []float64) (float64, error) {
	if err := ev.check(net.NumVars); err != nil {
		return 0, err
	}
	if g != nil && len(g) != len(net.Weights) {
		return 0, fmt.Errorf("rrf: gradient has %d entries for %d weights", len(g), len(net.Weights))
	}
	if err := net.Validate(); err != nil {
		return 0, err
	}
	return pseudoLogLikelihood(net, newTopology(net), x, ev, g)
}

// pseudoLogLikelihood is PseudoLogLikelihood for a validated net and its
// topology.
func pseudoLogLikelihood(net *Net, tp *topology, x []bool, ev *Evidence, g []float64) (float64, error) {
	if len(x) != net.NumVars {
		return 0, fmt.Errorf("rrf: %d values for %d variables", len(x), net.NumVars)
	}
	var d []float64 // d s_0 / d s_i at the data, shared read-only
	if g != nil {
		s, err := newState(net, tp, x)
		if err != nil {
			return 0, err
		}
		d = make([]float64, len(net.Features))
		s.backprop(d)
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, net.NumVars/64))
	type part struct {
		total    float64
		flipGrad []float64
		err      error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt := &parts[w]
			s, err := newState(net, tp, x)
			if err != nil {
				pt.err = err
				return
			}
			var sc *flipScratch
			if g != nil {
				pt.flipGrad = make([]float64, len(net.Weights))
				sc = newFlipScratch(len(net.Features))
			}
			for v := w; v < len(x); v += workers {
				if ev.fixed(v) {
					continue
				}
				// s1 - s0: the score with v flipped minus the score now.
				diff := s.flipGain(v)
				if x[v] {
					diff = -diff
				}
				// log P(x_v | rest) = -log(1 + exp(s1 - s0)).
				pt.total -= logistic.Softplus(diff)
				if g != nil {
					// P(not x_v | rest) times the gradient difference.
					s.flipDiff(v, logistic.Sigmoid(diff), d, sc, pt.flipGrad)
				}
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for _, pt := range parts {
		if pt.err != nil {
			return 0, pt.err
		}
		total += pt.total
		for i, v := range pt.flipGrad {
			g[i] += v
		}
	}
	return total, nil
}

// LearnOptions configure weight learning.
type LearnOptions struct {
	// Method is "pll" (the default): maximise the pseudo-log-likelihood by
	// L-BFGS; or "ll": maximise the log-likelihood by stochastic steps with
	// the expectation sampled from persistent Gibbs chains (see Learn).
	Method string
	// L2 is the weight of the penalty L2/2 * |w - w_init|^2 (a Gaussian
	// prior centred on the initial weights, which keeps a knowledge base's
	// weights unless the data say otherwise; 0: none).
	L2 float64
	// MaxIter bounds L-BFGS iterations (pll, 0: 500) or is the number of
	// steps (ll, 0: 100).
	MaxIter int
	// Chains is the number of persistent Gibbs chains per distinct evidence
	// (ll, 0: 8), Sweeps the Gibbs sweeps each runs per step, every one a
	// sample (ll, 0: 5).
	Chains, Sweeps int
	// Seed seeds the chains (ll); results do not depend on the number of
	// cores.
	Seed uint64
	// Ground bounds the grounding of Program.LearnRelational (its Context
	// defaults to the learning's).
	Ground GroundOptions
}

// LearnResult reports a learning run.
type LearnResult struct {
	// PLL is the pseudo-log-likelihood of the training worlds at the
	// learned weights (without the prior), whichever the method.
	PLL float64
	// Iterations is the number of L-BFGS iterations or ll steps.
	Iterations int
	// Status says why the optimiser stopped: gonum's optimize.Status name
	// (pll; Failure when a line search failed, see Learn), or
	// IterationLimit (ll, which runs its steps).
	Status string
	// Converged is true when L-BFGS stopped at a small gradient or no
	// further progress, or when its line search failed where the gradient's
	// largest entry is below 1e-6 times the objective (1 at least), where
	// the objective's rounding decides the line search (pll); ll never
	// claims it.
	Converged bool
	// GradNorm is the Euclidean norm of the objective's gradient (with the
	// prior) at the end: exact (pll) or the last sampled estimate (ll).
	GradNorm float64
}

// Learn fits the net's weights to the training worlds (each a full
// assignment; ev fixes the evidence variables, which take their values from
// each world), starting from the net's weights, which it replaces.
//
// Method "pll" maximises the pseudo-log-likelihood (PseudoLogLikelihood)
// by L-BFGS. The objective is smooth when the net's Norm is a temperature
// (> 0); with NormMax it has a kink wherever an inner weight crosses 0,
// where L-BFGS's line search can fail (Status Failure) far from a
// stationary point. The best point evaluated is returned.
//
// Method "ll" maximises the log-likelihood sum_k log P(x_k | evidence_k),
// whose gradient is the paper's
//
//	sum_k d s_0(x_k)/dw - N * E_w[d s_0(x)/dw]
//
// (both terms back-propagated through the DAG, see grad), with the
// expectation over the model conditioned on the evidence estimated from
// persistent Gibbs chains: Chains chains per distinct assignment of the
// evidence, started at the training worlds, each running Sweeps sweeps per
// step and kept between steps (persistent contrastive divergence). A noisy
// gradient breaks L-BFGS's line search, so each step is a Fisher-scaled
// gradient step instead: with F the covariance of d s_0/dw under the model
// (the Fisher information, sampled from the same sweeps) plus the prior's
// curvature, the direction is d_i = g_i / F_ii and the step length the
// maximiser of the quadratic model along it, alpha = d.g / d'Fd (with
// d'Fd the sampled variance of d . ds_0/dw); no weight moves by more than 1
// in one step. This makes the steps independent of how many groundings
// share a weight. The returned weights are the average of the iterates of
// the second half of the steps (Polyak averaging), which smooths the
// sampling noise.
func Learn(ctx context.Context, net *Net, worlds [][]bool, ev *Evidence, opt LearnOptions) (*LearnResult, error) {
	return LearnTied(ctx, []Data{{Net: net, Worlds: worlds, Evidence: ev}}, opt)
}

// Data is one ground network with its training worlds: full assignments,
// in which the variables Evidence fixes take their values.
type Data struct {
	Net      *Net
	Worlds   [][]bool
	Evidence *Evidence
}

// LearnTied is Learn over several networks whose weights are tied: the
// groundings of one program over databases of their own (each with its own
// domains), as UW-CSE's areas are. The objective is the sum over the
// networks (their pseudo-log-likelihoods, or log-likelihoods with the
// chains of each), the prior counted once. Every network must have as many
// weights as the first, whose weights are the start; the learned weights
// replace every network's.
func LearnTied(ctx context.Context, data []Data, opt LearnOptions) (*LearnResult, error) {
	if len(data) == 0 {
		return nil, errors.New("rrf: no training network")
	}
	for k, d := range data {
		if len(d.Worlds) == 0 {
			return nil, errors.New("rrf: no training world")
		}
		if err := d.Net.Validate(); err != nil {
			return nil, err
		}
		if len(d.Net.Weights) != len(data[0].Net.Weights) {
			return nil, fmt.Errorf("rrf: network %d has %d weights, the first %d", k, len(d.Net.Weights), len(data[0].Net.Weights))
		}
		if err := d.Evidence.check(d.Net.NumVars); err != nil {
			return nil, err
		}
		for i, x := range d.Worlds {
			if len(x) != d.Net.NumVars {
				return nil, fmt.Errorf("rrf: training world %d has %d values for %d variables", i, len(x), d.Net.NumVars)
			}
		}
	}
	if opt.L2 < 0 || opt.MaxIter < 0 || opt.Chains < 0 || opt.Sweeps < 0 {
		return nil, fmt.Errorf("rrf: L2 %v, iterations %d, chains %d and sweeps %d must be >= 0", opt.L2, opt.MaxIter, opt.Chains, opt.Sweeps)
	}
	for _, d := range data[1:] {
		copy(d.Net.Weights, data[0].Net.Weights)
	}
	var res *LearnResult
	var err error
	switch opt.Method {
	case "", "pll":
		res, err = learnPLL(ctx, data, opt)
	case "ll":
		res, err = learnLL(ctx, data, opt)
		if err == nil {
			res.PLL, err = totalPLL(data)
		}
	default:
		return nil, fmt.Errorf("rrf: learning method %q: want pll or ll", opt.Method)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// setWeights gives every network the weights w.
func setWeights(data []Data, w []float64) {
	for _, d := range data {
		copy(d.Net.Weights, w)
	}
}

// learnPLL maximises the pseudo-log-likelihood by L-BFGS (see Learn). At
// a kink of NormMax (d s_i/d w_ij jumps from v_j to v_j - 1 as w_ij
// crosses 0) the line search can fail, on about 1 in 10 small random
// problems started near 0; gonum then returns its last accepted iterate,
// learnPLL the best point it evaluated, which is often past the kink and
// better.
func learnPLL(ctx context.Context, data []Data, opt LearnOptions) (*LearnResult, error) {
	if opt.MaxIter == 0 {
		opt.MaxIter = 500
	}
	nw := len(data[0].Net.Weights)
	tps := make([]*topology, len(data))
	for k, d := range data {
		tps[k] = newTopology(d.Net)
	}
	init := slices.Clone(data[0].Net.Weights)
	best, bestW, bestG := math.Inf(1), slices.Clone(init), make([]float64, nw)
	// gonum asks for the value and the gradient at each point in two calls;
	// one evaluation gives both, so the last point's are kept.
	var lastX []float64
	lastF, lastG := 0.0, make([]float64, nw)
	var evalErr error
	evaluated := false
	eval := func(w []float64) {
		if evaluated && slices.Equal(w, lastX) {
			return
		}
		evaluated = true
		lastX = append(lastX[:0], w...)
		if evalErr == nil {
			evalErr = ctx.Err()
		}
		if evalErr != nil {
			lastF = math.NaN()
			return
		}
		setWeights(data, w)
		clear(lastG)
		total := 0.0
		for k, d := range data {
			for _, x := range d.Worlds {
				pl, err := pseudoLogLikelihood(d.Net, tps[k], x, d.Evidence, lastG)
				if err != nil {
					evalErr = err
					lastF = math.NaN()
					return
				}
				total += pl
			}
		}
		lastF = -total + opt.L2/2*sqDist(w, init)
		for i := range lastG {
			lastG[i] = -lastG[i] + opt.L2*(w[i]-init[i])
		}
		if lastF < best {
			best = lastF
			copy(bestW, w)
			copy(bestG, lastG)
		}
	}
	problem := optimize.Problem{
		Func: func(w []float64) float64 { eval(w); return lastF },
		Grad: func(g, w []float64) { eval(w); copy(g, lastG) },
	}
	r, err := optimize.Minimize(problem, slices.Clone(init), &optimize.Settings{MajorIterations: opt.MaxIter, GradientThreshold: 1e-6}, &optimize.LBFGS{})
	if evalErr != nil {
		return nil, evalErr
	}
	if r == nil {
		return nil, fmt.Errorf("rrf: L-BFGS: %w", err)
	}
	setWeights(data, bestW)
	return &LearnResult{
		PLL:        -(best - opt.L2/2*sqDist(bestW, init)),
		Iterations: r.Stats.MajorIterations,
		Status:     r.Status.String(),
		Converged:  err == nil && (r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence) || atRounding(bestG, best),
		GradNorm:   math.Sqrt(dot(bestG, bestG)),
	}, nil
}

// atRounding reports whether gradient g of an objective of value f is at
// the objective's rounding: its largest entry below 1e-6 * max(1, |f|). A
// pseudo-log-likelihood sums thousands of terms, each rounded to 1e-16 of
// its size, and a line search asked for a decrease below that fails.
func atRounding(g []float64, f float64) bool {
	big := 0.0
	for _, v := range g {
		big = max(big, math.Abs(v))
	}
	return big <= 1e-6*max(1, math.Abs(f))
}

// totalPLL is the pseudo-log-likelihood of every network's worlds.
func totalPLL(data []Data) (float64, error) {
	total := 0.0
	for _, d := range data {
		tp := newTopology(d.Net)
		for _, x := range d.Worlds {
			pl, err := pseudoLogLikelihood(d.Net, tp, x, d.Evidence, nil)
			if err != nil {
				return 0, err
			}
			total += pl
		}
	}
	return total, nil
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}
