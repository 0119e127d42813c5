package maxsat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	gs "github.com/crillab/gophersat/maxsat"
)

// exactOptimum solves in exactly with gophersat (integer weights only) and
// returns the best satisfied soft weight; ok is false when the hard clauses
// are unsatisfiable.
func exactOptimum(in *Instance) (best float64, ok bool) {
	constrs := make([]gs.Constr, 0, in.NumClauses())
	var lost float64 // soft empty clauses are always falsified
	for c := range in.Weight {
		lits := make([]gs.Lit, 0, 4)
		for _, l := range in.Clause(c) {
			name := fmt.Sprint("x", l.Var())
			if l.Neg() {
				lits = append(lits, gs.Not(name))
			} else {
				lits = append(lits, gs.Var(name))
			}
		}
		switch {
		case in.Hard[c]:
			constrs = append(constrs, gs.HardClause(lits...))
		case len(lits) == 0:
			lost += in.Weight[c]
		case in.Weight[c] > 0:
			constrs = append(constrs, gs.WeightedClause(lits, int(in.Weight[c])))
		}
	}
	_, cost := gs.New(constrs...).Solve()
	if cost < 0 {
		return 0, false
	}
	return in.SoftWeight() - lost - float64(cost), true
}

// TestSolveAgainstGophersat compares Solve with gophersat's exact optimum on
// medium instances with integer weights (too large for brute force): the
// certified bound is never below the optimum, the weight never above it and
// never below 3/4 of it.
func TestSolveAgainstGophersat(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	trials := 12
	if testing.Short() {
		trials = 4
	}
	var ratios []float64
	for trial := 0; trial < trials; trial++ {
		n := 30 + rng.IntN(30)
		pHard := 0.0
		if trial%3 == 2 {
			pHard = 0.05
		}
		in := randomInstance(rng, n, 3*n, 3, true, pHard)
		opt := DefaultOptions()
		opt.ADMM.Threads = 1
		opt.LocalSearch = 2000 * (trial % 2)
		res, err := Solve(context.Background(), in, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Report
		best, ok := exactOptimum(in)
		if !ok {
			if r.HardViolated == 0 {
				t.Fatalf("trial %d: gophersat says unsatisfiable, Solve satisfied every hard clause", trial)
			}
			continue
		}
		if r.Infeasible {
			t.Fatalf("trial %d: infeasible claimed; gophersat optimum %v", trial, best)
		}
		if r.LPUpperBound < best {
			t.Fatalf("trial %d: certified bound %v below the optimum %v", trial, r.LPUpperBound, best)
		}
		if r.HardViolated == 0 && r.WeightSatisfied > best {
			t.Fatalf("trial %d: weight %v above the optimum %v", trial, r.WeightSatisfied, best)
		}
		if r.HardViolated == 0 && r.WeightSatisfied < 0.75*best {
			t.Fatalf("trial %d: weight %v below 3/4 of the optimum %v", trial, r.WeightSatisfied, best)
		}
		if r.Optimal && r.WeightSatisfied != best {
			t.Fatalf("trial %d: optimal claimed at %v, optimum %v", trial, r.WeightSatisfied, best)
		}
		ratios = append(ratios, r.WeightSatisfied/best)
	}
	t.Logf("weight / exact optimum: %v", ratios)
}
