package rrf

import (
	"context"
	"errors"
	"fmt"
	"math"

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
// pseudo-likelihood gradient. Variables fixed by ev are not counted.
func PseudoLogLikelihood(net *Net, x []bool, ev *Evidence, g []float64) (float64, error) {
	if err := ev.check(net.NumVars); err != nil {
		return 0, err
	}
	if g != nil && len(g) != len(net.Weights) {
		return 0, fmt.Errorf("rrf: gradient has %d entries for %d weights", len(g), len(net.Weights))
	}
	s, err := NewState(net, x)
	if err != nil {
		return 0, err
	}
	d := make([]float64, len(net.Features))
	total := 0.0
	for v := range x {
		if ev.fixed(v) {
			continue
		}
		s0 := s.LogScore()
		s.Set(v, !x[v])
		s1 := s.LogScore() // score with v flipped
		// log P(x_v | rest) = -log(1 + exp(s1 - s0)).
		total -= softplus(s1 - s0)
		if g != nil {
			q := sigmoid(s1 - s0) // P(not x_v | rest)
			s.grad(-q, d, g)      // flipped state
			s.Set(v, x[v])
			s.grad(q, d, g) // data state
		} else {
			s.Set(v, x[v])
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
