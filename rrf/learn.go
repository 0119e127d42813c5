package rrf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// grad adds c * d s_0 / d w (at the state's current values) to g, by
// back-propagation: d_i = d s_0 / d s_i is 1 at the root and
// d_j += d_i * w_ij * f_j down every edge to a feature child j (parents come
// before children, so one pass in index order suffices). For the root
// d s_0 / d w_0j = v_j; for an inner feature the normalisation M_i moves
// with its weights, and d s_0 / d w_ij = d_i * (v_j - [w_ij > 0]).
func (s *State) grad(c float64, d, g []float64) {
	n := s.net
	clear(d)
	d[0] = 1
	for i, cs := range n.Features {
		di := d[i]
		if di == 0 {
			continue
		}
		for _, ch := range cs {
			w := n.Weights[ch.Weight]
			var v float64
			if ch.Var >= 0 {
				v = s.leaf(ch.Var, ch.Neg)
			} else {
				v = s.val[ch.Feature]
				d[ch.Feature] += di * w * v
			}
			if i > 0 && w > 0 {
				v--
			}
			g[ch.Weight] += c * di * v
		}
	}
}

// PseudoLogLikelihood returns sum over the unknown variables v of
// log P(x_v | x_-v) at the data x and, if g is not nil, adds its gradient in
// the weights to g: for each v, P(not x_v | rest) times
// (d s_0(x)/dw - d s_0(x with v flipped)/dw), the paper's back-propagated
// pseudo-likelihood gradient. The data term is back-propagated once; the
// flips are shared among GOMAXPROCS workers, each with its own cached
// state. Variables fixed by ev are not counted.
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
	workers := min(runtime.GOMAXPROCS(0), max(1, net.NumVars/64))
	type part struct {
		total, sumQ float64
		flipGrad    []float64
		err         error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt := &parts[w]
			s, err := NewState(net, x)
			if err != nil {
				pt.err = err
				return
			}
			d := make([]float64, len(net.Features))
			if g != nil {
				pt.flipGrad = make([]float64, len(net.Weights))
			}
			for v := w; v < len(x); v += workers {
				if ev.fixed(v) {
					continue
				}
				s0 := s.LogScore()
				s.Set(v, !x[v])
				s1 := s.LogScore() // score with v flipped
				// log P(x_v | rest) = -log(1 + exp(s1 - s0)).
				pt.total -= softplus(s1 - s0)
				if g != nil {
					q := sigmoid(s1 - s0) // P(not x_v | rest)
					pt.sumQ += q
					s.grad(q, d, pt.flipGrad)
				}
				s.Set(v, x[v])
			}
		}()
	}
	wg.Wait()
	total, sumQ := 0.0, 0.0
	for _, pt := range parts {
		if pt.err != nil {
			return 0, pt.err
		}
		total += pt.total
		sumQ += pt.sumQ
	}
	if g != nil {
		s, err := NewState(net, x)
		if err != nil {
			return 0, err
		}
		s.grad(sumQ, make([]float64, len(net.Features)), g) // the data state, once
		for _, pt := range parts {
			for i, v := range pt.flipGrad {
				g[i] -= v
			}
		}
	}
	return total, nil
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus is log(1 + exp(z)) without overflow.
func softplus(z float64) float64 {
	if z > 30 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// LearnOptions configure weight learning.
type LearnOptions struct {
	// L2 is the weight of the penalty L2/2 * |w - w_init|^2 (a Gaussian
	// prior centred on the initial weights, which keeps a knowledge base's
	// weights unless the data say otherwise; 0: none).
	L2 float64
	// MaxIter bounds L-BFGS iterations (0: 500).
	MaxIter int
}

// Learn maximises the pseudo-log-likelihood of the training worlds (each a
// full assignment; ev fixes the evidence variables in all of them) over the
// net's weights by L-BFGS, starting from the net's weights, which it
// replaces. It returns the final pseudo-log-likelihood.
func Learn(ctx context.Context, net *Net, worlds [][]bool, ev *Evidence, opt LearnOptions) (float64, error) {
	if len(worlds) == 0 {
		return 0, errors.New("rrf: no training world")
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 500
	}
	init := append([]float64(nil), net.Weights...)
	var evalErr error
	f := func(w []float64, g []float64) float64 {
		copy(net.Weights, w)
		total := 0.0
		for _, x := range worlds {
			pl, err := PseudoLogLikelihood(net, x, ev, g)
			if err != nil {
				evalErr = err
				return math.NaN()
			}
			total += pl
		}
		obj := -total
		for i := range w {
			dw := w[i] - init[i]
			obj += opt.L2 / 2 * dw * dw
		}
		if g != nil {
			for i := range g {
				g[i] = -g[i] + opt.L2*(w[i]-init[i])
			}
		}
		return obj
	}
	problem := optimize.Problem{
		Func: func(w []float64) float64 { return f(w, nil) },
		Grad: func(g, w []float64) {
			clear(g)
			f(w, g)
		},
	}
	r, err := optimize.Minimize(problem, init, &optimize.Settings{MajorIterations: opt.MaxIter, GradientThreshold: 1e-6}, &optimize.LBFGS{})
	if evalErr != nil {
		return 0, evalErr
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if r == nil {
		return 0, fmt.Errorf("rrf: L-BFGS: %w", err)
	}
	copy(net.Weights, r.X)
	return -r.F - opt.L2/2*sqDist(r.X, init), nil
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}
