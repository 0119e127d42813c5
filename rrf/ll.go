package rrf

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/hinge-srl/hinge/internal/par"
)

// llGroup is the training worlds that agree on the evidence, and the
// persistent Gibbs chains that sample the model conditioned on it.
type llGroup struct {
	worlds [][]bool
	chains []*llChain
}

// llChain is one persistent Gibbs chain and its samples of the last step.
type llChain struct {
	s       *State
	rng     *rand.Rand
	d       []float64   // back-propagation scratch
	samples [][]float64 // d s_0/dw after each sweep of the last step
}

// llLearner holds the state of log-likelihood learning between steps.
type llLearner struct {
	net     *Net
	ev      *Evidence
	sweeps  int
	noFlips bool // single-variable moves and blocks only (for tests)
	groups  []*llGroup
	data    *State // evaluates the data term, world after world
	d       []float64
}

// newLLLearner groups the worlds by their evidence values and starts
// chains chains per group at the group's worlds, chain k seeded by
// (seed, k).
func newLLLearner(net *Net, worlds [][]bool, ev *Evidence, chains, sweeps int, seed uint64) (*llLearner, error) {
	l := &llLearner{net: net, ev: ev, sweeps: sweeps, d: make([]float64, len(net.Features))}
	tp := newTopology(net)
	byKey := map[string]*llGroup{}
	for _, x := range worlds {
		key := evidenceKey(x, ev)
		g := byKey[key]
		if g == nil {
			g = &llGroup{}
			byKey[key] = g
			l.groups = append(l.groups, g)
		}
		g.worlds = append(g.worlds, x)
	}
	k := uint64(0)
	for _, g := range l.groups {
		for c := range chains {
			s, err := newState(net, tp, g.worlds[c%len(g.worlds)])
			if err != nil {
				return nil, err
			}
			g.chains = append(g.chains, &llChain{s: s, rng: rand.New(rand.NewPCG(seed, k)), d: make([]float64, len(net.Features))})
			k++
		}
	}
	var err error
	l.data, err = newState(net, tp, worlds[0])
	return l, err
}

// evidenceKey names the values of the variables ev fixes in x: worlds
// with the same key share the conditional distribution.
func evidenceKey(x []bool, ev *Evidence) string {
	key := make([]byte, len(x))
	for v, b := range x {
		if ev.fixed(v) && b {
			key[v] = 1
		}
	}
	return string(key)
}

// estimate advances every chain by its sweeps at the net's current weights
// and returns the log-likelihood gradient estimate g (data term minus
// expected term), the diagonal of the Fisher information fisher (sum over
// groups of N_group times the sampled variance of d s_0/dw_i) and a
// function giving d'Fd for a direction d.
func (l *llLearner) estimate(ctx context.Context) (g, fisher []float64, dFd func(d []float64) float64, err error) {
	nw := len(l.net.Weights)
	g, fisher = make([]float64, nw), make([]float64, nw)
	for _, grp := range l.groups {
		for _, x := range grp.worlds {
			copy(l.data.X, x)
			l.data.Recompute()
			l.data.grad(1, l.d, g)
		}
	}
	var all []*llChain
	for _, grp := range l.groups {
		all = append(all, grp.chains...)
	}
	// The chains' moves at the current weights (flip groups and blocks
	// follow the weights' signs and sizes).
	plan := newGibbsPlan(l.net, l.ev, l.noFlips)
	par.For(len(all), runtime.GOMAXPROCS(0), func(_, k int) {
		ch := all[k]
		ch.s.Recompute() // the weights changed
		ch.samples = ch.samples[:0]
		for range l.sweeps {
			if ch.s.step(ctx, l.ev, plan, ch.rng) != nil {
				return // cancelled: the error is ctx's, returned below
			}
			n := make([]float64, nw)
			ch.s.grad(1, ch.d, n)
			ch.samples = append(ch.samples, n)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	// Per group: the mean and variance of the samples, weighted by the
	// group's number of worlds.
	type groupSamples struct {
		worlds  float64
		samples [][]float64
	}
	var gs []groupSamples
	for _, grp := range l.groups {
		var samples [][]float64
		for _, ch := range grp.chains {
			samples = append(samples, ch.samples...)
		}
		mean := make([]float64, nw)
		for _, n := range samples {
			for i, v := range n {
				mean[i] += v
			}
		}
		ns, nWorlds := float64(len(samples)), float64(len(grp.worlds))
		for i := range mean {
			mean[i] /= ns
			g[i] -= nWorlds * mean[i]
		}
		for _, n := range samples {
			for i, v := range n {
				fisher[i] += nWorlds * (v - mean[i]) * (v - mean[i]) / ns
			}
		}
		gs = append(gs, groupSamples{nWorlds, samples})
	}
	dFd = func(d []float64) float64 {
		total := 0.0
		for _, m := range gs {
			dn := make([]float64, len(m.samples))
			mean := 0.0
			for k, n := range m.samples {
				for i, v := range n {
					dn[k] += d[i] * v
				}
				mean += dn[k]
			}
			mean /= float64(len(dn))
			for _, v := range dn {
				total += m.worlds * (v - mean) * (v - mean) / float64(len(dn))
			}
		}
		return total
	}
	return g, fisher, dFd, nil
}

// learnLL maximises the log-likelihood (see Learn).
func learnLL(ctx context.Context, data []Data, opt LearnOptions) (*LearnResult, error) {
	if opt.MaxIter == 0 {
		opt.MaxIter = 100
	}
	if opt.Chains == 0 {
		opt.Chains = 8
	}
	if opt.Sweeps == 0 {
		opt.Sweeps = 5
	}
	const maxStep = 1.0 // largest change of one weight in one step
	ls := make([]*llLearner, len(data))
	for k, d := range data {
		// Chains of network k > 0 are seeded apart from those of the others.
		l, err := newLLLearner(d.Net, d.Worlds, d.Evidence, opt.Chains, opt.Sweeps, opt.Seed+uint64(k)*0x9e3779b97f4a7c15)
		if err != nil {
			return nil, err
		}
		ls[k] = l
	}
	w := slices.Clone(data[0].Net.Weights)
	init := slices.Clone(w)
	avg := make([]float64, len(init))
	res := &LearnResult{Status: "IterationLimit"}
	for t := range opt.MaxIter {
		var g, fisher []float64
		var dFds []func([]float64) float64
		for _, l := range ls {
			lg, lf, ldFd, err := l.estimate(ctx)
			if err != nil {
				return nil, err
			}
			if g == nil {
				g, fisher = lg, lf
			} else {
				for i := range g {
					g[i] += lg[i]
					fisher[i] += lf[i]
				}
			}
			dFds = append(dFds, ldFd)
		}
		dFd := func(d []float64) float64 {
			total := 0.0
			for _, f := range dFds {
				total += f(d)
			}
			return total
		}
		d := make([]float64, len(g))
		for i := range g {
			g[i] -= opt.L2 * (w[i] - init[i])
			d[i] = g[i] / max(fisher[i]+opt.L2, 1e-6)
		}
		big := 0.0
		alpha := dot(d, g) / max(dFd(d)+opt.L2*dot(d, d), 1e-12)
		for i := range d {
			big = max(big, math.Abs(alpha*d[i]))
		}
		if big > maxStep {
			alpha *= maxStep / big
		}
		for i := range d {
			w[i] += alpha * d[i]
		}
		setWeights(data, w)
		res.GradNorm = math.Sqrt(dot(g, g))
		res.Iterations = t + 1
		if t >= opt.MaxIter/2 {
			for i, v := range w {
				avg[i] += v
			}
		}
	}
	for i := range avg {
		w[i] = avg[i] / float64(opt.MaxIter-opt.MaxIter/2)
	}
	setWeights(data, w)
	return res, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
