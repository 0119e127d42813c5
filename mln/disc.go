package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/hinge-srl/hinge/ground"
)

// DiscOptions configure discriminative weight learning.
type DiscOptions struct {
	// Iterations of diagonal Newton (0: 100, Alchemy's default).
	Iterations int
	// Samples is the number of MC-SAT samples per iteration and chain (0:
	// 50); BurnIn the steps discarded before them (0: 5; the chains
	// persist across iterations, so little burn-in is needed).
	Samples, BurnIn int
	// Chains run in parallel, each with its own seed; results depend on
	// Chains and Seed, not on the number of cores (0: 2).
	Chains int
	// PriorStdDev is the standard deviation of the Gaussian prior on every
	// weight, centred on the formula's weight in the program as in
	// LearnPLL (0: 1; negative: no prior).
	PriorStdDev float64
	// Lambda is the initial trust-region damping (0: 1).
	Lambda float64
	// Seed seeds the chains.
	Seed uint64
	// Ground configures the grounder.
	Ground ground.Options
	// Progress, if set, is called after every iteration with the norm of
	// the gradient estimate and the damping.
	Progress func(iteration int, gradNorm, lambda float64)
}

// LearnDiscriminative learns the weights of prog's soft formulas by
// maximising the conditional log-likelihood of the query atoms given the
// evidence (the other predicates of the training world), by diagonal Newton
// (Lowd and Domingos, "Efficient weight learning for Markov logic
// networks", 2007; Alchemy's learnwts -d default). The gradient of the
// conditional log-likelihood with respect to a formula's weight is
// n_i(truth) - E_w[n_i], n_i the weighted count of its satisfied ground
// clauses; the expectation and the diagonal of the Hessian (the variances
// of the counts) are estimated from MC-SAT samples of persistent chains
// started at the training world. The search direction is d_i = g_i / H_ii
// and the step d scaled by alpha = d.g / (d'Hd + lambda d.d), d'Hd the
// sample variance of d.n plus the prior's curvature; lambda follows the
// trust-region rule (halved when the estimated improvement, from the
// gradients at both ends of the step, is at least 3/4 of the predicted
// one, quadrupled when it is below 1/4). Weights may become negative.
// Training data and +x formulas are as for LearnPLL; the query predicates
// must be given (Alchemy's learnwts -d needs -ne too), as the likelihood is
// conditioned on the other predicates.
func LearnDiscriminative(ctx context.Context, prog *Program, training []GroundAtom, query []string, opt DiscOptions) (*LearnResult, error) {
	if len(query) == 0 {
		return nil, errors.New("mln: discriminative learning needs the query predicates (Alchemy's -ne): the conditional likelihood is of their atoms given the others")
	}
	if opt.Iterations == 0 {
		opt.Iterations = 100
	}
	if opt.Samples == 0 {
		opt.Samples = 50
	}
	if opt.BurnIn == 0 {
		opt.BurnIn = 5
	}
	if opt.Chains == 0 {
		opt.Chains = 2
	}
	if opt.PriorStdDev == 0 {
		opt.PriorStdDev = 1
	}
	if opt.Lambda == 0 {
		opt.Lambda = 1
	}
	if opt.Iterations < 0 || opt.Samples < 0 || opt.BurnIn < 0 || opt.Chains < 0 || !(opt.Lambda > 0) {
		return nil, fmt.Errorf("mln: iterations %d, samples %d, burn-in %d and chains %d must be >= 0 and lambda %v > 0",
			opt.Iterations, opt.Samples, opt.BurnIn, opt.Chains, opt.Lambda)
	}
	l, res, err := prepareLearning(ctx, prog, training, query, opt.Ground, false)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	in, nw := l.in, len(l.learned)

	// The chains start at the training world. One that violates a hard
	// clause has conditional likelihood 0 at every weight: nothing to
	// maximise (a first version went on from a repaired world and wrote the
	// artefact of one Newton step on a gradient that never vanishes).
	x0 := l.x
	if res.HardViolated > 0 {
		return nil, fmt.Errorf("mln: the training world violates %d ground hard clauses, so its conditional likelihood is 0 whatever the weights: discriminative learning has nothing to maximise; fix the data, make those formulas soft, or learn by pseudo-likelihood (which leaves the broken clauses out)", res.HardViolated)
	}
	w := make([]float64, nw)
	setWeights := func() {
		for c, p := range l.param {
			if p >= 0 {
				in.Weight[c] = w[p] * l.share[c]
			}
		}
	}
	setWeights()
	// The chains share one merged network, refreshed after each change
	// of the weights.
	pn := newPersistentNet(in)
	chains := make([]*chain, opt.Chains)
	for k := range chains {
		so := SampleOptions{Samples: opt.Samples, BurnIn: opt.BurnIn, Seed: opt.Seed + uint64(k)*0x9e3779b97f4a7c15}
		if err := so.check(); err != nil {
			return nil, err
		}
		chains[k] = pn.chain(x0, so)
	}
	truthCounts := l.counts(l.x, make([]float64, nw))
	priorMean := l.priorMeans()
	sigma2 := opt.PriorStdDev * opt.PriorStdDev
	prior := opt.PriorStdDev > 0

	// sample runs every chain and returns the per-sample counts.
	sample := func() ([][]float64, error) {
		out := make([][][]float64, len(chains))
		var wg sync.WaitGroup
		for k, ch := range chains {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for it := 0; it < opt.BurnIn+opt.Samples; it++ {
					if ctx.Err() != nil {
						return
					}
					ch.step()
					if it >= opt.BurnIn {
						out[k] = append(out[k], l.counts(ch.x, make([]float64, nw)))
					}
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var all [][]float64
		for _, o := range out {
			all = append(all, o...)
		}
		return all, nil
	}
	gradient := func(samples [][]float64) (g, mean []float64) {
		g, mean = make([]float64, nw), make([]float64, nw)
		for _, n := range samples {
			for i, v := range n {
				mean[i] += v
			}
		}
		for i := range mean {
			mean[i] /= float64(len(samples))
			g[i] = truthCounts[i] - mean[i]
			if prior {
				g[i] -= (w[i] - priorMean[i]) / sigma2
			}
		}
		return g, mean
	}

	lambda := opt.Lambda
	samples, err := sample()
	if err != nil {
		return nil, err
	}
	g, mean := gradient(samples)
	for it := 1; it <= opt.Iterations; it++ {
		// Diagonal Hessian: variances of the counts (plus the prior).
		d := make([]float64, nw)
		for i := range d {
			h := 0.0
			for _, n := range samples {
				h += (n[i] - mean[i]) * (n[i] - mean[i])
			}
			h /= float64(len(samples))
			if prior {
				h += 1 / sigma2
			}
			d[i] = g[i] / max(h, 1e-6)
		}
		// d'Hd from the sample variance of d.n.
		dn := make([]float64, len(samples))
		dnMean := 0.0
		for k, n := range samples {
			for i := range d {
				dn[k] += d[i] * n[i]
			}
			dnMean += dn[k]
		}
		dnMean /= float64(len(samples))
		dHd := 0.0
		for _, v := range dn {
			dHd += (v - dnMean) * (v - dnMean)
		}
		dHd /= float64(len(samples))
		dd, dg := 0.0, 0.0
		for i := range d {
			dd += d[i] * d[i]
			dg += d[i] * g[i]
			if prior {
				dHd += d[i] * d[i] / sigma2
			}
		}
		if dg <= 0 || dd == 0 {
			res.Iter = it - 1
			res.Converged = dd == 0
			break
		}
		alpha := dg / (dHd + lambda*dd)
		predicted := alpha*dg - alpha*alpha*dHd/2
		step := make([]float64, nw)
		for i := range w {
			step[i] = alpha * d[i]
			w[i] += step[i]
		}
		setWeights()
		pn.refresh()
		if samples, err = sample(); err != nil {
			return nil, err
		}
		gOld := g
		g, mean = gradient(samples)
		// Estimated change of the objective along the step (trapezoid rule
		// on the directional derivative at both ends).
		actual := 0.0
		for i := range step {
			actual += step[i] * (gOld[i] + g[i]) / 2
		}
		switch r := actual / predicted; {
		case r > 0.75:
			lambda /= 2
		case r < 0.25:
			lambda *= 4
		}
		lambda = min(max(lambda, 1e-6), 1e6)
		res.Iter = it
		if opt.Progress != nil {
			norm := 0.0
			for _, v := range g {
				norm += v * v
			}
			opt.Progress(it, math.Sqrt(norm), lambda)
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("mln: diagonal Newton diverged (a weight is not a number); try a stronger prior or more samples")
		}
	}
	l.finish(res, w)
	res.Status = fmt.Sprintf("diagonal Newton, %d iterations, damping %.3g", res.Iter, lambda)
	res.Seconds.Learn = time.Since(start).Seconds()
	return res, nil
}

// counts adds to n, for every learned weight, the weighted count of its
// ground clauses that x satisfies (share * [satisfied]), and returns n.
func (l *learning) counts(x []bool, n []float64) []float64 {
	for c, p := range l.param {
		if p >= 0 && l.in.Satisfied(c, x) {
			n[p] += l.share[c]
		}
	}
	return n
}
