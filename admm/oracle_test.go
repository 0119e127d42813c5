package admm

import (
	"math"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// This file holds the independent oracles the solver is checked against:
// gonum's simplex method (lporacle_test.go), COIN-OR CLP where it is
// installed (an LP/QP solver run as a separate program on an MPS file the
// test writes), a projected coordinate-descent solver for squared hinges,
// and a brute-force grid for one- and two-variable problems.

// cdOptimum minimises a problem of squared hinges (no hard constraints) over
// [0,1]^n by exact coordinate descent: along one coordinate the objective is
// a convex piecewise quadratic whose derivative is found to vanish by
// bisection. The objective is continuously differentiable, so coordinate
// descent converges to the minimum; it runs until a sweep moves no variable
// by more than 1e-14 and returns the point.
func cdOptimum(t *testing.T, p *hlmrf.Problem) []float64 {
	t.Helper()
	if p.NumConstraints() != 0 {
		t.Fatal("cdOptimum: hard constraints are not supported")
	}
	for _, pw := range p.Power {
		if pw != 2 {
			t.Fatal("cdOptimum: only squared hinges are supported")
		}
	}
	n := p.NumVars
	// Potentials of each variable, with the variable's coefficient.
	type occ struct {
		pot  int
		coef float64
	}
	occs := make([][]occ, n)
	for i := range p.Weight {
		vs, cs := p.Terms(i)
		for k, v := range vs {
			occs[v] = append(occs[v], occ{i, cs[k]})
		}
	}
	y := make([]float64, n)
	lin := make([]float64, p.NumPotentials()) // a_i.y - c_i
	for i := range lin {
		vs, cs := p.Terms(i)
		lin[i] = -p.Const[i]
		for k, v := range vs {
			lin[i] += cs[k] * y[v]
		}
	}
	for sweep := 0; sweep < 200000; sweep++ {
		moved := 0.0
		for j := 0; j < n; j++ {
			// derivative of the objective in y_j at value x
			deriv := func(x float64) float64 {
				d := 0.0
				for _, o := range occs[j] {
					h := lin[o.pot] + o.coef*(x-y[j])
					if h > 0 {
						d += 2 * p.Weight[o.pot] * h * o.coef
					}
				}
				return d
			}
			var x float64
			switch {
			case deriv(0) >= 0:
				x = 0
			case deriv(1) <= 0:
				x = 1
			default:
				lo, hi := 0.0, 1.0
				for it := 0; it < 200 && hi-lo > 1e-17; it++ {
					mid := (lo + hi) / 2
					if deriv(mid) > 0 {
						hi = mid
					} else {
						lo = mid
					}
				}
				x = (lo + hi) / 2
			}
			if d := x - y[j]; d != 0 {
				for _, o := range occs[j] {
					lin[o.pot] += o.coef * d
				}
				moved = max(moved, math.Abs(d))
				y[j] = x
			}
		}
		if moved < 1e-14 {
			return y
		}
	}
	t.Fatal("cdOptimum: coordinate descent did not settle")
	return nil
}

// gridOptimum minimises p over a uniform grid of [0,1]^n (n <= 2) with the
// given number of steps, keeping only points that satisfy the hard
// constraints within tol, and returns the best objective.
func gridOptimum(p *hlmrf.Problem, steps int, tol float64) float64 {
	best := math.Inf(1)
	y := make([]float64, p.NumVars)
	var rec func(j int)
	rec = func(j int) {
		if j == p.NumVars {
			if p.Violations(y, tol).Violated == 0 {
				best = min(best, p.Objective(y))
			}
			return
		}
		for s := 0; s <= steps; s++ {
			y[j] = float64(s) / float64(steps)
			rec(j + 1)
		}
	}
	rec(0)
	return best
}
