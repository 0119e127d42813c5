package maxsat

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
)

// lagrangianMin computes min over y in {0,1}^n (a linear function's minimum
// over the box is at a vertex) of sum_c lambda_c (1 - l_c(y)): the dual
// function g(lambda) for lambda in the box, from its definition.
func lagrangianMin(in *Instance, lambda []float64) float64 {
	n := in.NumVars
	best := math.Inf(1)
	for mask := 0; mask < 1<<n; mask++ {
		var s float64
		for c := range in.Weight {
			l := 0.0
			for _, lit := range in.Clause(c) {
				v := float64(mask >> lit.Var() & 1)
				if lit.Neg() {
					v = 1 - v
				}
				l += v
			}
			s += lambda[c] * (1 - l)
		}
		best = math.Min(best, s)
	}
	return best
}

func TestDualBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(9)
		pHard := 0.0
		if trial%3 == 0 {
			pHard = 0.15
		}
		in := randomInstance(rng, n, 1+rng.IntN(25), 4, trial%2 == 0, pHard)
		lambda := make([]float64, in.NumClauses())
		for c := range lambda {
			if in.Hard[c] {
				lambda[c] = 5 * rng.Float64()
			} else {
				lambda[c] = in.Weight[c] * rng.Float64()
			}
		}
		// g without ascent is the Lagrangian's minimum.
		g0, _, err := dualBound(in, lambda, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := lagrangianMin(in, lambda); math.Abs(g0-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: g(lambda) %v, Lagrangian minimum %v", trial, g0, want)
		}
		// Ascent never lowers g, keeps lambda feasible, and stays <= LP*.
		g1, improved, _ := dualBound(in, lambda, 20)
		if g1 < g0-1e-12*(1+math.Abs(g0)) {
			t.Fatalf("trial %d: ascent lowered g from %v to %v", trial, g0, g1)
		}
		for c, l := range improved {
			if l < 0 || (!in.Hard[c] && l > in.Weight[c]) {
				t.Fatalf("trial %d: ascent left lambda_%d = %v outside [0, %v]", trial, c, l, in.Weight[c])
			}
		}
		if want := lagrangianMin(in, improved); math.Abs(g1-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: improved g %v, Lagrangian minimum %v", trial, g1, want)
		}
		lpOpt, _, feasible := lpRelaxation(t, in)
		opt, _, satisfiable := bruteForce(in)
		if feasible && g1 > lpOpt+1e-7*(1+lpOpt) {
			t.Fatalf("trial %d: dual value %v above the LP optimum %v", trial, g1, lpOpt)
		}
		if satisfiable && in.SoftWeight()-g1 < opt-1e-7 {
			t.Fatalf("trial %d: certified bound %v below the optimum %v", trial, in.SoftWeight()-g1, opt)
		}
	}
}

// TestDualAscentFromPrimal: starting from the exact LP solution's
// complementary-slackness guess, ascent reaches close to LP* on soft-only
// instances (the gap is what the certificate loses).
func TestDualAscentFromPrimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	var worst float64
	for trial := 0; trial < 40; trial++ {
		in := randomInstance(rng, 8, 30, 3, true, 0)
		lpOpt, y, _ := lpRelaxation(t, in)
		lambda, err := lambdaFromPrimal(context.Background(), in, y, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		g, _, _ := dualBound(in, lambda, 50)
		if g > lpOpt+1e-7 {
			t.Fatalf("trial %d: dual %v above LP %v", trial, g, lpOpt)
		}
		worst = math.Max(worst, (lpOpt-g)/in.SoftWeight())
	}
	if worst > 0.05 {
		t.Errorf("dual gap up to %.3g of the total weight from an exact primal solution", worst)
	}
	t.Logf("largest dual gap from the exact primal: %.3g of the total weight", worst)
}

// TestDualProvesInfeasible: hard x and hard ~x cannot both hold; multipliers
// (5, 5) give g = 5, above the soft weight 1, so the bound is negative.
func TestDualProvesInfeasible(t *testing.T) {
	in := &Instance{}
	in.AddClause(0, true, Pos(0))
	in.AddClause(0, true, Not(0))
	in.AddClause(1, false, Pos(1))
	g, _, err := dualBound(in, []float64{5, 5, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ub := in.SoftWeight() - g; ub >= 0 {
		t.Fatalf("bound %v, want < 0 (infeasible)", ub)
	}
}

func TestToFromProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for trial := 0; trial < 30; trial++ {
		in := randomInstance(rng, 6, 20, 4, false, 0.2)
		rel := relaxOf(in, buildIndex(in))
		p := rel.Problem
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		// The HL-MRF objective is W_soft - relaxedWeight at any y.
		y := make([]float64, in.NumVars)
		for i := range y {
			y[i] = rng.Float64()
		}
		rw, hres, err := relaxedWeight(context.Background(), in, y)
		if err != nil {
			t.Fatal(err)
		}
		if f := p.Objective(y); math.Abs(f-(in.SoftWeight()-rw)) > 1e-9 {
			t.Fatalf("trial %d: HL-MRF objective %v, W - relaxed %v", trial, f, in.SoftWeight()-rw)
		}
		if v := p.Violations(y, 0); math.Abs(v.Max-math.Max(hres, 0)) > 1e-12 {
			t.Fatalf("trial %d: constraint violation %v, hard residual %v", trial, v.Max, hres)
		}
		back, err := FromProblem(p)
		if err != nil {
			t.Fatal(err)
		}
		if back.NumClauses() != len(rel.PotClause)+len(rel.ConClause) {
			t.Fatalf("trial %d: %d clauses back from %d potentials + %d constraints", trial, back.NumClauses(), len(rel.PotClause), len(rel.ConClause))
		}
		for i, c := range append(append([]int32(nil), rel.PotClause...), rel.ConClause...) {
			a, b := in.Clause(int(c)), back.Clause(i)
			if len(a) != len(b) || in.Hard[c] != back.Hard[i] || (!in.Hard[c] && in.Weight[c] != back.Weight[i]) {
				t.Fatalf("trial %d: clause %d %v came back as %v", trial, c, a, b)
			}
			for k := range a {
				if a[k] != b[k] {
					t.Fatalf("trial %d: clause %d %v came back as %v", trial, c, a, b)
				}
			}
		}
	}
}

func TestFromProblemRejects(t *testing.T) {
	mk := func(f func(p *hlmrf.Problem)) *hlmrf.Problem {
		p := &hlmrf.Problem{NumVars: 3}
		f(p)
		return p
	}
	cases := []struct {
		name string
		p    *hlmrf.Problem
		want string
	}{
		{"squared", mk(func(p *hlmrf.Problem) { p.AddPotential(1, -1, 2, -1, []int32{0}, []float64{-1}) }), "potential 0 is not a clause: squared hinge"},
		{"coefficient", mk(func(p *hlmrf.Problem) { p.AddPotential(1, -1, 1, -1, []int32{0}, []float64{-0.5}) }), "potential 0 is not a clause: coefficient -0.5"},
		{"constant", mk(func(p *hlmrf.Problem) {
			p.AddPotential(1, -1, 1, -1, []int32{0}, []float64{-1})
			p.AddPotential(1, 0.5, 1, -1, []int32{0, 1}, []float64{1, -1})
		}), "potential 1 is not a clause: constant 0.5"},
		{"equality", mk(func(p *hlmrf.Problem) { p.AddConstraint(hlmrf.Equal, 1, -1, []int32{0, 1}, []float64{1, 1}) }), "constraint 0 is not a clause: an equality"},
		{"constraint constant", mk(func(p *hlmrf.Problem) { p.AddConstraint(hlmrf.LessEq, 0, -1, []int32{0, 1}, []float64{1, 1}) }), "constraint 0 is not a clause: constant 0, but a clause with 2 negated literals has constant 1"},
	}
	for _, c := range cases {
		_, err := FromProblem(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A PSL-style clause: 2: a & b -> c is ~a | ~b | c, hinge a + b - c - 1.
	p := mk(func(p *hlmrf.Problem) { p.AddPotential(2, 1, 1, -1, []int32{0, 1, 2}, []float64{1, 1, -1}) })
	in, err := FromProblem(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Clause(0); len(got) != 3 || got[0] != Not(0) || got[1] != Not(1) || got[2] != Pos(2) {
		t.Fatalf("got clause %v, want [-1 -2 3]", got)
	}
	// Repeated atoms, as grounding sums them: x | x (coefficient -2,
	// constant -1) is the clause x; x | ~x | y (x cancels: y's -1 and
	// constant 0) always holds. At every 0/1 point the hinge and the clause
	// agree.
	p = mk(func(p *hlmrf.Problem) {
		p.AddPotential(1, -1, 1, -1, []int32{0}, []float64{-2})
		p.AddPotential(1, 0, 1, -1, []int32{1}, []float64{-1})
		p.AddPotential(1, 1, 1, -1, []int32{0, 2}, []float64{2, -1}) // ~x | ~x | z
	})
	in, err = FromProblem(p)
	if err != nil {
		t.Fatal(err)
	}
	for mask := range 8 {
		x := []bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}
		y := []float64{0, 0, 0}
		for i, b := range x {
			if b {
				y[i] = 1
			}
		}
		for c := range in.NumClauses() {
			sat := false
			for _, l := range in.Clause(c) {
				sat = sat || x[l.Var()] != l.Neg()
			}
			if hinge := p.Hinge(c, y); sat != (hinge == 0) {
				t.Errorf("clause %d %v at %v: satisfied %v, hinge %v", c, in.Clause(c), x, sat, hinge)
			}
		}
	}
}

// TestConsensusBound: for arbitrary per-copy multipliers admm.LowerBound
// never exceeds the LP optimum (simplex), and for copies that agree
// (alpha_k = -lambda_c*Coef_k) it equals g(lambda).
func TestConsensusBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for trial := 0; trial < 60; trial++ {
		pHard := 0.0
		if trial%2 == 1 {
			pHard = 0.15
		}
		in := randomInstance(rng, 2+rng.IntN(7), 1+rng.IntN(20), 4, trial%3 == 0, pHard)
		rel := relaxOf(in, buildIndex(in))
		p := rel.Problem
		lpOpt, _, feasible := lpRelaxation(t, in)
		pot := make([]float64, len(p.Var))
		con := make([]float64, len(p.CVar))
		for k := range pot {
			pot[k] = 6 * (rng.Float64() - 0.5)
		}
		for k := range con {
			con[k] = 6 * (rng.Float64() - 0.5)
		}
		g := admm.LowerBound(p, pot, con)
		if feasible && g > lpOpt+1e-9*(1+lpOpt) {
			t.Fatalf("trial %d: consensus bound %v above the LP optimum %v", trial, g, lpOpt)
		}
		// Agreeing copies reproduce the clause dual.
		lambda := make([]float64, in.NumClauses())
		for i, c := range rel.PotClause {
			lambda[c] = in.Weight[c] * rng.Float64()
			for k := p.Start[i]; k < p.Start[i+1]; k++ {
				pot[k] = -lambda[c] * p.Coef[k]
			}
		}
		for j, c := range rel.ConClause {
			lambda[c] = 3 * rng.Float64()
			for k := p.CStart[j]; k < p.CStart[j+1]; k++ {
				con[k] = -lambda[c] * p.CCoef[k]
			}
		}
		want, _, _ := dualBound(in, lambda, 0)
		if got := admm.LowerBound(p, pot, con); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: consensus bound %v for agreeing copies, g(lambda) %v", trial, got, want)
		}
	}
}

// dualBound returns g(lambda) for lambda clipped into the dual-feasible box
// (0 <= lambda_c <= w_c for soft clauses, lambda_c >= 0 for hard ones; nil
// means all zeros), improved by sweeps passes of exact coordinate ascent,
// and the improved lambda. g is a lower bound on the LP optimum, so
// in.SoftWeight() - g is a certified upper bound on the MAX-SAT optimum.
func dualBound(in *Instance, lambda []float64, sweeps int) (g float64, improved []float64, err error) {
	if lambda != nil && len(lambda) != in.NumClauses() {
		return 0, nil, fmt.Errorf("%d multipliers for %d clauses", len(lambda), in.NumClauses())
	}
	ctx := context.Background()
	d, err := newDual(ctx, in, buildIndex(in), lambda)
	if err != nil {
		return 0, nil, err
	}
	if err := d.ascend(ctx, sweeps, 0); err != nil {
		return 0, nil, err
	}
	g, err = d.value(ctx)
	return g, d.lambda, err
}

// TestToProblemRows: toProblem's directly written rows are those that
// hlmrf's Add methods build (merging, dropping zeros), on random instances
// with tautologies, empty and zero-weight clauses.
func TestToProblemRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 6))
	for trial := range 50 {
		in := randomInstance(rng, 2+rng.IntN(6), 1+rng.IntN(20), 4, trial%2 == 0, 0.2)
		in.AddClause(0, false, Pos(0))                // zero weight
		in.AddClause(2, false)                        // empty
		in.AddClause(1, trial%3 == 0, Pos(0), Not(0)) // tautology
		ix := buildIndex(in)
		got := relaxOf(in, ix)
		want := &hlmrf.Problem{NumVars: in.NumVars, Start: []int32{0}, CStart: []int32{0}}
		var pots, cons []int32
		for c := range in.Weight {
			lits := in.Clause(c)
			if ix.taut[c] || len(lits) == 0 || (!in.Hard[c] && in.Weight[c] == 0) {
				continue
			}
			var vars []int32
			var coefs []float64
			nneg := 0
			for _, l := range lits {
				vars = append(vars, int32(l.Var()))
				if l.Neg() {
					coefs = append(coefs, 1)
					nneg++
				} else {
					coefs = append(coefs, -1)
				}
			}
			if in.Hard[c] {
				want.AddConstraint(hlmrf.LessEq, float64(nneg-1), -1, vars, coefs)
				cons = append(cons, int32(c))
			} else {
				want.AddPotential(in.Weight[c], float64(nneg-1), 1, -1, vars, coefs)
				pots = append(pots, int32(c))
			}
		}
		if diff := cmp.Diff(want, got.Problem, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("trial %d: toProblem differs (-Add methods +direct):\n%s", trial, diff)
		}
		if !cmp.Equal(pots, got.PotClause, cmpopts.EquateEmpty()) || !cmp.Equal(cons, got.ConClause, cmpopts.EquateEmpty()) {
			t.Fatalf("trial %d: clause maps %v %v, want %v %v", trial, got.PotClause, got.ConClause, pots, cons)
		}
	}
}
