package admm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

// bruteTermMin is min over x in [0,1]^k of f(x) + alpha.x for one term, by
// enumeration of the candidate vertices (linear hinges, constraints) or by
// projected gradient descent (squared hinges, smooth): an independent check
// of termBound's one-dimensional dual maximisation.
func bruteTermMin(a, alpha []float64, c, w float64, power uint8, kind hlmrf.ConstraintKind, isCon bool) float64 {
	dot := func(u, x []float64) float64 {
		s := 0.0
		for k := range u {
			s += u[k] * x[k]
		}
		return s
	}
	if isCon || power != 2 {
		best := math.Inf(1)
		for _, x := range boxPieceVertices(a, c) {
			h := dot(a, x) - c
			switch {
			case !isCon:
				best = min(best, w*max(h, 0)+dot(alpha, x))
			case kind == hlmrf.LessEq && h <= 1e-12, kind == hlmrf.Equal && math.Abs(h) <= 1e-12:
				best = min(best, dot(alpha, x))
			}
		}
		return best
	}
	x := make([]float64, len(a))
	for k := range x {
		x[k] = 0.5
	}
	step := 1 / (2*w*dot(a, a) + 1e-12)
	for range 200000 {
		h := max(dot(a, x)-c, 0)
		for k := range x {
			x[k] = min(max(x[k]-step*(2*w*h*a[k]+alpha[k]), 0), 1)
		}
	}
	return w*math.Pow(max(dot(a, x)-c, 0), 2) + dot(alpha, x)
}

func TestTermBound(t *testing.T) {
	rng := newRand(31)
	var sc boundScratch
	for trial := range 400 {
		k := 1 + rng.IntN(4)
		a := make([]float64, k)
		alpha := make([]float64, k)
		for d := range a {
			a[d] = float64(rng.IntN(7)-3) / 2
			if rng.IntN(4) == 0 {
				a[d] = rng.NormFloat64()
			}
			alpha[d] = rng.NormFloat64()
			if rng.IntN(5) == 0 {
				alpha[d] = 0
			}
		}
		c := rng.NormFloat64()
		w := rng.Float64() * 3
		kind := []string{"linear", "squared", "leq", "eq"}[trial%4]
		var r lambdaRange
		var want float64
		switch kind {
		case "linear":
			r, want = potentialRange(w, 1), bruteTermMin(a, alpha, c, w, 1, 0, false)
		case "squared":
			r, want = potentialRange(w, 2), bruteTermMin(a, alpha, c, w, 2, 0, false)
		case "leq":
			r, want = constraintRange(false), bruteTermMin(a, alpha, c, 0, 0, hlmrf.LessEq, true)
		case "eq":
			r, want = constraintRange(true), bruteTermMin(a, alpha, c, 0, 0, hlmrf.Equal, true)
		}
		got := sc.termBound(a, alpha, c, r)
		name := fmt.Sprintf("trial %d (%s): a=%v alpha=%v c=%v w=%v", trial, kind, a, alpha, c, w)
		switch {
		case math.IsInf(want, 1):
			// Infeasible within the box: the bound must say so.
			if !math.IsInf(got, 1) {
				t.Errorf("%s: bound %v, want +Inf (no feasible point)", name, got)
			}
		case math.Abs(got-want) > 1e-6*max(1, math.Abs(want)):
			t.Errorf("%s: bound %.10g, brute-force minimum %.10g", name, got, want)
		}
	}
}

// TestLowerBound checks the bound of whole problems against the optimum
// (gonum's simplex, cutting planes for the squared one): it never exceeds
// the optimum and closes on it as the solver converges.
func TestLowerBound(t *testing.T) {
	p := clauses(80, 24, 1, 9)
	p.AddConstraint(hlmrf.LessEq, 1, -1, []int32{0, 1, 2}, []float64{1, 1, 1})
	q := admmtest.Random(admmtest.Config{Vars: 12, Potentials: 30, MinArity: 1, MaxArity: 4, Power: 2, Constraints: 3, EqualFraction: 1, Seed: 10})
	for _, tc := range []struct {
		name string
		p    *hlmrf.Problem
	}{{"linear", p}, {"squared", q}} {
		opt := DefaultOptions()
		opt.EpsRel = 1e-5
		s, err := New(tc.p, opt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), nil)
		if err != nil || !res.Converged() {
			t.Fatal(err, res)
		}
		optimum := admmtest.LPOptimum(t, tc.p, 1e-7)
		pd, cd := s.Duals()
		bound := LowerBound(tc.p, pd, cd)
		if bound > optimum+1e-9*max(1, optimum) || bound < optimum-1e-4*max(1, optimum) {
			t.Errorf("%s: Lagrangian bound %.10g, optimum %.10g", tc.name, bound, optimum)
		}
		// Any duals give a valid bound, even zero ones (then it is sum_i min f_i = 0 here).
		if b := LowerBound(tc.p, make([]float64, len(pd)), make([]float64, len(cd))); b > optimum {
			t.Errorf("%s: bound at zero duals %v exceeds the optimum %v", tc.name, b, optimum)
		}
	}
}

// BenchmarkTermBound measures one term's share of the Lagrangian bound
// (termBound) for 3-variable squared hinges with random coefficients and
// duals: what a bound phase costs per potential.
//
//	go test -run '^$' -bench TermBound ./admm
func BenchmarkTermBound(b *testing.B) {
	rng := newRand(1)
	type term struct {
		a, alpha []float64
		c        float64
		r        lambdaRange
	}
	ts := make([]term, 1024)
	for i := range ts {
		a, alpha := make([]float64, 3), make([]float64, 3)
		for k := range a {
			a[k], alpha[k] = rng.NormFloat64(), rng.NormFloat64()
		}
		ts[i] = term{a, alpha, rng.NormFloat64(), potentialRange(1+rng.Float64(), 2)}
	}
	var sc boundScratch
	sum, i := 0.0, 0
	for b.Loop() {
		t := &ts[i&1023]
		sum += sc.termBound(t.a, t.alpha, t.c, t.r)
		i++
	}
	if math.IsNaN(sum) {
		b.Fatal("NaN bound")
	}
}
