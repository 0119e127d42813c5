package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/lift"
)

// copies returns k copies of base on disjoint variables, shuffled by a
// seeded permutation of the variables and of the clauses, so that lifting
// has to find the copies rather than read them off the numbering.
func copies(rng *rand.Rand, base *Instance, k int) *Instance {
	n := base.NumVars
	perm := rng.Perm(n * k)
	order := rng.Perm(base.NumClauses() * k)
	out := &Instance{NumVars: n * k, Start: []int32{0}}
	for _, o := range order {
		cp, c := o/base.NumClauses(), o%base.NumClauses()
		var lits []Lit
		for _, l := range base.Clause(c) {
			v := perm[cp*n+l.Var()]
			if l.Neg() {
				lits = append(lits, Not(v))
			} else {
				lits = append(lits, Pos(v))
			}
		}
		if err := out.AddClause(base.Weight[c], base.Hard[c], lits...); err != nil {
			panic(err)
		}
	}
	return out
}

// interchangeable is a small Markov logic network over n constants that no
// evidence tells apart, grounded: atoms S(i) and F(i, j) for i != j, the
// soft clauses !F(i,j) v !S(i) v S(j) (weight 2), S(i) (weight wS), !F(i,j)
// (weight 1), and, when pairs, S(i) v S(j) for i < j (weight 1: two positive
// literals on one class of symmetric atoms). With hardSym the hard clauses
// !F(i,j) v F(j,i) (friendship is symmetric).
func interchangeable(n int, wS float64, pairs, hardSym bool) *Instance {
	in := &Instance{Start: []int32{0}}
	s := func(i int) int { return i }
	f := func(i, j int) int { // i != j
		k := i*(n-1) + j
		if j > i {
			k--
		}
		return n + k
	}
	add := func(w float64, hard bool, lits ...Lit) {
		if err := in.AddClause(w, hard, lits...); err != nil {
			panic(err)
		}
	}
	for i := range n {
		add(wS, false, Pos(s(i)))
		for j := range n {
			if i == j {
				continue
			}
			add(2, false, Not(f(i, j)), Not(s(i)), Pos(s(j)))
			add(1, false, Not(f(i, j)))
			if hardSym {
				add(0, true, Not(f(i, j)), Pos(f(j, i)))
			}
			if pairs && i < j {
				add(1, false, Pos(s(i)), Pos(s(j)))
			}
		}
	}
	return in
}

// TestLiftedMatchesGround solves symmetric instances (shuffled disjoint
// copies of random instances, and interchangeable constants) with and
// without Options.Lift and checks, against brute force where the instance
// is small enough: lifting found symmetry and shrank the relaxation; the LP
// value and the certified bound agree with the ground run's (within the
// solver's tolerance; integer-weight bounds exactly, as both are floored);
// the certified bound is never below the optimum; the lifted world
// satisfies the hard clauses whenever the ground one does; the report
// agrees with the world; and the world meets the 3/4 guarantee: without
// hard clauses at least 3/4 of the relaxed value (exact) and of the
// optimum.
func TestLiftedMatchesGround(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	ctx := context.Background()
	type instance struct {
		name string
		in   *Instance
	}
	var cases []instance
	for trial := range 30 {
		n := 3 + rng.IntN(3)
		pHard := 0.0
		if trial%3 == 2 {
			pHard = 0.15
		}
		base := randomInstance(rng, n, 1+rng.IntN(3*n), 1+rng.IntN(3), trial%2 == 0, pHard)
		cases = append(cases, instance{"copies", copies(rng, base, 2+rng.IntN(3))})
	}
	for range 4 { // many copies: the coloring comes from hashing (LiftReport.Hashed)
		base := randomInstance(rng, 4, 8, 3, true, 0.1)
		cases = append(cases, instance{"many-copies", copies(rng, base, 40)})
	}
	cases = append(cases,
		instance{"interchangeable", interchangeable(3, 1, false, false)},
		instance{"interchangeable-hard", interchangeable(3, 0.5, false, true)},
		instance{"interchangeable-pairs", interchangeable(3, 0.25, true, true)},
		instance{"interchangeable-4", interchangeable(4, 1.5, false, true)},
	)
	classRounded := 0
	for trial, c := range cases {
		in := c.in
		opt := DefaultOptions()
		opt.ADMM.Threads = 1
		ground, err := Solve(ctx, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Lift = true
		lifted, err := Solve(ctx, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		g, l := ground.Report, lifted.Report
		lr := l.Lifted
		if lr == nil || !lr.Symmetry || lr.Lifted.Variables >= lr.Ground.Variables && lr.Lifted.Potentials >= lr.Ground.Potentials {
			t.Fatalf("%d %s: lifting found no symmetry: %+v", trial, c.name, lr)
		}
		if lr.Rounding == RoundClasses {
			classRounded++
		}
		if c.name == "many-copies" && !lr.Hashed {
			t.Errorf("%d %s: forty copies not lifted by hashing", trial, c.name)
		}
		W := in.SoftWeight()
		if d := math.Abs(g.LPPrimalValue - l.LPPrimalValue); d > 2e-3*(1+W) {
			t.Errorf("%d %s: LP value ground %v, lifted %v", trial, c.name, g.LPPrimalValue, l.LPPrimalValue)
		}
		tol := 2e-3 * (1 + W)
		if in.IntegerWeights() {
			tol = 0
		}
		if d := math.Abs(g.LPUpperBound - l.LPUpperBound); d > tol {
			t.Errorf("%d %s: certified bound ground %v (%s), lifted %v (%s)", trial, c.name, g.LPUpperBound, g.LPBoundSource, l.LPUpperBound, l.LPBoundSource)
		}
		s, h := in.Eval(lifted.X)
		if math.Abs(s-l.WeightSatisfied) > 1e-9*(1+W) || h != l.HardViolated {
			t.Fatalf("%d %s: report (%v, %d), world (%v, %d)", trial, c.name, l.WeightSatisfied, l.HardViolated, s, h)
		}
		if g.HardViolated == 0 && l.HardViolated > 0 {
			t.Errorf("%d %s: lifted world violates %d hard clauses, ground none", trial, c.name, l.HardViolated)
		}
		if in.NumHard() == 0 && l.Rounding.Weight < 0.75*l.LPPrimalValue-1e-9*(1+W) {
			t.Errorf("%d %s: rounded weight %v below 3/4 of the relaxed value %v (rounding %s)", trial, c.name, l.Rounding.Weight, l.LPPrimalValue, lr.Rounding)
		}
		if lr.Rounding == RoundClasses && in.NumHard() == 0 {
			// Shared coins per class: at least the independent rounding's
			// expectation, exactly computed on the ground instance.
			eGW, _ := expectedWeight(in, gwProb(lifted.Relaxed))
			ePlain, _ := expectedWeight(in, plainProb(lifted.Relaxed))
			if l.Rounding.ExpectedGW < eGW-1e-9*(1+W) || l.Rounding.ExpectedPlain < ePlain-1e-9*(1+W) {
				t.Errorf("%d %s: class expectations (%v, %v) below the independent ones (%v, %v)", trial, c.name, l.Rounding.ExpectedGW, l.Rounding.ExpectedPlain, eGW, ePlain)
			}
			if l.Rounding.Weight < math.Max(eGW, ePlain)-1e-9*(1+W) {
				t.Errorf("%d %s: class-rounded weight %v below the independent expectation %v", trial, c.name, l.Rounding.Weight, math.Max(eGW, ePlain))
			}
		}
		if in.NumVars > 20 {
			continue
		}
		best, _, feasible := bruteForce(in)
		if !feasible {
			continue
		}
		if l.LPUpperBound < best-1e-7*(1+W) {
			t.Fatalf("%d %s: lifted certified bound %v below the optimum %v", trial, c.name, l.LPUpperBound, best)
		}
		if l.HardViolated == 0 && l.WeightSatisfied > best+1e-9*(1+W) {
			t.Fatalf("%d %s: weight %v above the optimum %v", trial, c.name, l.WeightSatisfied, best)
		}
		if in.NumHard() == 0 && l.Rounding.Weight < 0.75*best-2e-3*(1+W) {
			t.Errorf("%d %s: rounded weight %v below 3/4 of the optimum %v", trial, c.name, l.Rounding.Weight, best)
		}
	}
	if classRounded < len(cases)/2 {
		t.Errorf("rounded on the classes in %d of %d instances", classRounded, len(cases))
	}
	t.Logf("rounded on the classes in %d of %d instances", classRounded, len(cases))
}

// TestLiftedDualIsGroundDual: the lifted certificate's multipliers, spread
// evenly over each class's members, are a ground dual point of the same
// value (the bound is a bound on the ground problem), and no dual value
// exceeds the ground LP optimum (gonum's simplex).
func TestLiftedDualIsGroundDual(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	for trial := range 40 {
		var in *Instance
		if trial%4 == 3 {
			in = interchangeable(3, 0.5+rng.Float64(), trial%8 == 7, true)
		} else {
			pHard := 0.0
			if trial%2 == 1 {
				pHard = 0.2
			}
			base := randomInstance(rng, 3+rng.IntN(3), 2+rng.IntN(8), 1+rng.IntN(3), trial%3 == 0, pHard)
			in = copies(rng, base, 2+rng.IntN(2))
		}
		ix := buildIndex(in)
		rel := relaxOf(in, ix)
		l, err := lift.Lift(rel.Problem)
		if err != nil {
			t.Fatal(err)
		}
		lr := &liftedRelax{l: l, rel: rel}
		if _, err := lr.solve(context.Background(), DefaultOptions().ADMM); err != nil {
			t.Fatal(err)
		}
		lp := l.Problem
		// Random multipliers, improved by ascent, and the certificate's.
		mu := make([]float64, lp.NumPotentials()+lp.NumConstraints())
		for k := range mu {
			mu[k] = 3 * rng.Float64()
		}
		d := newLPDual(lp, mu)
		g0 := d.value()
		if err := d.ascend(context.Background(), 20, 0); err != nil {
			t.Fatal(err)
		}
		if g1 := d.value(); g1 < g0-1e-9*(1+math.Abs(g0)) {
			t.Fatalf("trial %d: ascent lowered the lifted dual from %v to %v", trial, g0, g1)
		}
		emptySoft, emptyHard := emptyClauses(in)
		constant := emptySoft + float64(len(emptyHard))*hardWeight(in)
		best, source, err := lr.certify(context.Background(), constant, 10)
		if err != nil {
			t.Fatal(err)
		}
		lpOpt, _, feasible := lpRelaxation(t, in)
		for _, m := range [][]float64{d.mu, lr.mu} {
			if m == nil {
				continue
			}
			lifted := newLPDual(lp, append([]float64(nil), m...)).value() + l.Offset + constant
			lambda := lr.groundMultipliers(in, m)
			for c, x := range lambda {
				if x < 0 || (!in.Hard[c] && x > in.Weight[c]*(1+1e-12)) {
					t.Fatalf("trial %d: ground multiplier %d = %v outside [0, %v]", trial, c, x, in.Weight[c])
				}
			}
			gd, err := newDual(context.Background(), in, ix, lambda)
			if err != nil {
				t.Fatal(err)
			}
			groundG, err := gd.value(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			groundG += emptySoft
			if math.Abs(groundG-lifted) > 1e-9*(1+math.Abs(lifted)) {
				t.Fatalf("trial %d: lifted dual value %v, ground value of the spread multipliers %v", trial, lifted, groundG)
			}
			if feasible && lifted > lpOpt+1e-7*(1+math.Abs(lpOpt)) {
				t.Fatalf("trial %d: lifted dual value %v above the LP optimum %v", trial, lifted, lpOpt)
			}
		}
		if feasible && best > lpOpt+1e-7*(1+math.Abs(lpOpt)) {
			t.Fatalf("trial %d: certificate %v (%s) above the LP optimum %v", trial, best, source, lpOpt)
		}
		if feasible && best < lpOpt-2e-3*(1+math.Abs(lpOpt)) {
			t.Errorf("trial %d: certificate %v (%s) far below the LP optimum %v", trial, best, source, lpOpt)
		}
	}
}

// TestClassRounding checks when the rounding uses the classes, on
// hand-made instances.
func TestClassRounding(t *testing.T) {
	// Four symmetric atoms a0..a3 in two pairs.
	xorCycle := func() *Instance {
		// A 6-cycle a1 b1 c1 a2 b2 c2 of hard "exactly one of the two"
		// pairs, with unit clauses that tell a, b and c apart: the classes
		// {a1,a2}, {b1,b2}, {c1,c2} form a triangle of such pairs, which no
		// world constant on the classes satisfies, though the cycle is
		// 2-colourable.
		in := &Instance{Start: []int32{0}}
		a1, b1, c1, a2, b2, c2 := 0, 1, 2, 3, 4, 5
		cycle := []int{a1, b1, c1, a2, b2, c2, a1}
		for k := range 6 {
			u, v := cycle[k], cycle[k+1]
			in.AddClause(0, true, Pos(u), Pos(v))
			in.AddClause(0, true, Not(u), Not(v))
		}
		for v, w := range []float64{1, 2, 3, 1, 2, 3} {
			in.AddClause(w, false, Pos(v))
		}
		return in
	}()
	implications := &Instance{Start: []int32{0}}
	for i := range 4 { // a ring of implications a_i -> a_{i+1}, and priors
		implications.AddClause(2, false, Not(i), Pos((i+1)%4))
		implications.AddClause(1, false, Pos(i))
	}
	pairs := &Instance{Start: []int32{0}}
	for i := range 4 {
		pairs.AddClause(1, false, Pos(i), Pos((i+1)%4))
		pairs.AddClause(0.5, false, Not(i))
	}
	transitive := &Instance{Start: []int32{0}}
	for i := range 5 { // !a_i v !a_{i+1} v a_{i+2}: two negated literals in one class, and a positive one
		transitive.AddClause(2, false, Not(i), Not((i+1)%5), Pos((i+2)%5))
		transitive.AddClause(1, false, Not(i))
	}
	for _, c := range []struct {
		name     string
		in       *Instance
		rounding string
		note     string
	}{
		{"implications", implications, RoundClasses, ""},
		{"two negated literals and a positive one in one class", transitive, RoundClasses, ""},
		{"two positive literals in one class", pairs, RoundAtoms, "two literals of one sign"},
		{"class world infeasible", xorCycle, RoundAtoms, "violates"},
	} {
		opt := DefaultOptions()
		opt.Lift = true
		res, err := Solve(context.Background(), c.in, opt)
		if err != nil {
			t.Fatal(err)
		}
		lr := res.Report.Lifted
		if !lr.Symmetry || lr.Rounding != c.rounding || !contains(lr.RoundingNote, c.note) {
			t.Errorf("%s: symmetry %v, rounding %s (%q), want %s (%q)", c.name, lr.Symmetry, lr.Rounding, lr.RoundingNote, c.rounding, c.note)
		}
		if res.Report.HardViolated > 0 {
			t.Errorf("%s: %d hard clauses violated", c.name, res.Report.HardViolated)
		}
		if s, h := c.in.Eval(res.X); s != res.Report.WeightSatisfied || h != res.Report.HardViolated {
			t.Errorf("%s: report (%v, %d), world (%v, %d)", c.name, res.Report.WeightSatisfied, res.Report.HardViolated, s, h)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestLiftedNoSymmetry: an instance without symmetry is solved as without
// lifting (same world, same bound), and the report says none was found.
func TestLiftedNoSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	in := &Instance{Start: []int32{0}}
	for c := range 40 {
		// Distinct weights and a chain over distinct variables: nothing
		// is interchangeable.
		in.AddClause(1+float64(c)/7, false, Pos(c%12), Not((c+1+rng.IntN(3))%12))
	}
	opt := DefaultOptions()
	ground, err := Solve(context.Background(), in, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Lift = true
	lifted, err := Solve(context.Background(), in, opt)
	if err != nil {
		t.Fatal(err)
	}
	lr := lifted.Report.Lifted
	if lr == nil || lr.Symmetry || lr.Lifted != lr.Ground || lr.Rounding != RoundAtoms {
		t.Fatalf("lift report %+v, want no symmetry", lr)
	}
	if lifted.Report.LPUpperBound != ground.Report.LPUpperBound || lifted.Report.WeightSatisfied != ground.Report.WeightSatisfied {
		t.Errorf("lifted (%v, %v), ground (%v, %v)", lifted.Report.LPUpperBound, lifted.Report.WeightSatisfied, ground.Report.LPUpperBound, ground.Report.WeightSatisfied)
	}
	for v := range in.NumVars {
		if lifted.X[v] != ground.X[v] {
			t.Fatalf("atom %d: lifted %v, ground %v", v, lifted.X[v], ground.X[v])
		}
	}
}

// TestLPDualBestIsMaximiser: on random linear-hinge LPs with coefficients
// -3..3 (as lifted clauses have), the coordinate step's choice is at least
// as good as every breakpoint, bound and point between them, and the dual
// value never exceeds the LP optimum found by the simplex on the ground
// form (checked through TestLiftedDualIsGroundDual for lifted clauses).
func TestLPDualBestIsMaximiser(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 4))
	for trial := range 200 {
		n := 1 + rng.IntN(5)
		p := &hlmrf.Problem{}
		p.AddVars(n)
		for range 1 + rng.IntN(6) {
			vars, coefs := randomRow(rng, n)
			p.AddPotential(float64(1+rng.IntN(4)), float64(rng.IntN(5)-2), 1, -1, vars, coefs)
		}
		for range rng.IntN(3) {
			vars, coefs := randomRow(rng, n)
			p.AddConstraint(hlmrf.LessEq, float64(rng.IntN(5)-1), -1, vars, coefs)
		}
		mu := make([]float64, p.NumPotentials()+p.NumConstraints())
		for k := range mu {
			mu[k] = 4 * rng.Float64()
			if rng.IntN(3) == 0 {
				mu[k] = float64(rng.IntN(3))
			}
		}
		d := newLPDual(p, mu)
		for k := range d.mu {
			t0 := d.best(k)
			if math.IsInf(t0, 1) {
				continue
			}
			at := func(x float64) float64 {
				e := newLPDual(p, append([]float64(nil), d.mu...))
				e.mu[k] = x
				return e.value()
			}
			got := at(t0)
			hi := d.upper(k)
			cands := []float64{0, hi, d.mu[k]}
			vs, as := d.row(k)
			for q, v := range vs {
				if as[q] != 0 {
					cands = append(cands, -(d.s[v]-d.mu[k]*as[q])/as[q])
				}
			}
			m := len(cands)
			for i := range m {
				for j := range m {
					cands = append(cands, (cands[i]+cands[j])/2)
				}
			}
			for _, x := range cands {
				if x < 0 || x > hi || math.IsInf(x, 0) || math.IsNaN(x) {
					continue
				}
				if v := at(x); v > got+1e-9*(1+math.Abs(got)) {
					t.Fatalf("trial %d, multiplier %d: best %v gives %v, but %v gives %v", trial, k, t0, got, x, v)
				}
			}
		}
	}
}

// randomRow returns 1..3 distinct variables of n with coefficients in
// -3..3, not all zero.
func randomRow(rng *rand.Rand, n int) ([]int32, []float64) {
	k := 1 + rng.IntN(min(3, n))
	var vars []int32
	var coefs []float64
	for _, v := range rng.Perm(n)[:k] {
		vars = append(vars, int32(v))
		c := float64(rng.IntN(7) - 3)
		if c == 0 {
			c = 1
		}
		coefs = append(coefs, c)
	}
	return vars, coefs
}

// TestLiftedTooLittleSymmetry: a problem that lifting would shrink by a
// few clauses only is solved as it is, and the report says why.
func TestLiftedTooLittleSymmetry(t *testing.T) {
	in := &Instance{Start: []int32{0}}
	for c := range 40 {
		in.AddClause(1+float64(c)/7, false, Pos(c%12), Not((c+5)%12))
	}
	// Two interchangeable atoms 12 and 13, alike in everything.
	in.AddClause(0.5, false, Pos(12))
	in.AddClause(0.5, false, Pos(13))
	opt := DefaultOptions()
	opt.Lift = true
	res, err := Solve(context.Background(), in, opt)
	if err != nil {
		t.Fatal(err)
	}
	lr := res.Report.Lifted
	if lr.Symmetry || !contains(lr.Note, "too little symmetry") || lr.Rounding != RoundAtoms {
		t.Errorf("lift report %+v, want too little symmetry", lr)
	}
}
