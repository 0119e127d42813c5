package maxsat

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/lift"
)

// Lifted discrete MAP (Options.Lift).
//
// The LP relaxation is an HL-MRF of linear hinges (toProblem), so color
// refinement of its factor graph (Srinivasan et al., "Lifted Hinge-Loss
// Markov Random Fields", package lift) finds its symmetries and gives a
// smaller LP with the same optimum: every variable class becomes one
// variable, every class of symmetric clauses one potential (or constraint)
// of the class's summed weight. The three steps of Solve then run on it:
//
//  1. Relax: the lifted LP is solved by copy-weighted ADMM and its solution
//     holds a value for every ground atom (its class's).
//  2. Certify: the dual of a linear-hinge LP is certified for any
//     multipliers (relax.go); on the lifted LP it is computed the same way
//     (lpDual: Lagrangian bound of the lifted duals, per-potential
//     multipliers improved by exact coordinate ascent). Its optimum is the
//     ground LP's, and a lifted multiplier mu_K spread evenly over the class
//     (lambda_c = mu_K/|K| for each member c) is a ground dual-feasible point
//     of exactly the same value: by the equitable partition every variable
//     of a class J receives sum_K mu_K A_KJ / |J| from the classes K, so the
//     ground term sum_{i in J} min(0, G_i) equals the lifted min(0, G_J).
//     The certified bound is therefore a bound on the ground MAX-SAT
//     optimum, computed without touching the ground clauses.
//  3. Round: the ground rounding reads only the LP values, which the lifted
//     solution gives for every atom, so the derandomised rounding of the
//     ground instance from the expanded values keeps its guarantee as it
//     is. Rounding can itself use the colors (roundClasses): let every atom
//     of a class take one shared coin instead of its own. A clause whose
//     literals lie in distinct classes keeps its probability of being
//     satisfied, and one with literals of both signs on one class
//     (x_a v !x_b with a, b symmetric, whatever its other literals) is
//     satisfied by every such world. If every clause is one or the other,
//     the expected weight is at least the independent rounding's, so at
//     least 3/4 of the LP value, and derandomising over the classes (one
//     representative per class, one clause per clause class weighted by its
//     members) keeps that. A clause with two literals of one sign in one
//     class and none of the other sign there (x_a v x_b, or the at-most-one
//     pair !x_a v !x_b of symmetric values) would lose it: x_a v x_b at
//     y = 1/2 holds with probability 3/4 with two coins, 1/2 with one. Such
//     an instance is rounded atom by atom, as is one whose class-rounded
//     world violates a hard clause (a world constant on the classes need
//     not exist where an asymmetric one does).

// Rounding modes of LiftReport.Rounding.
const (
	// RoundClasses: one representative per variable class was rounded and
	// its value given to every atom of the class.
	RoundClasses = "classes"
	// RoundAtoms: every atom was rounded on its own (the ground rounding).
	RoundAtoms = "atoms"
)

// Sizes are the numbers of variables, potentials and constraints of an LP
// relaxation.
type Sizes struct {
	Variables   int `json:"variables"`
	Potentials  int `json:"potentials"`
	Constraints int `json:"constraints"`
}

func sizesOf(p *hlmrf.Problem) Sizes {
	return Sizes{p.NumVars, p.NumPotentials(), p.NumConstraints()}
}

// LiftReport describes the lifting of a Solve with Options.Lift.
type LiftReport struct {
	// Symmetry is true when the relaxation was solved lifted. It is false
	// when refinement found no symmetric atoms or clauses, or too few for
	// lifting to pay (the lifted relaxation would keep more than LiftWorth
	// of the terms); Note then says which, and the relaxation was solved,
	// certified and rounded as without lifting, at the cost of the
	// refinement (Seconds.Lift).
	Symmetry bool   `json:"symmetry"`
	Note     string `json:"note,omitempty"`
	// Hashed is true when the coloring came from hashed refinement checked
	// exactly (lift.Bounder.Lift) rather than from partition refinement:
	// the same coloring, found faster when the copies are many.
	Hashed bool `json:"hashed,omitempty"`
	// Ground is the size of the LP relaxation (one potential per soft
	// clause of positive weight, one constraint per hard clause; clauses
	// that do not depend on the variables left out), Lifted that of the
	// lifted relaxation (equal to Ground when refinement was not run or
	// found no symmetry).
	Ground Sizes `json:"ground"`
	Lifted Sizes `json:"lifted"`
	// Rounding is RoundClasses or RoundAtoms; RoundingNote says why the
	// atoms were rounded one by one when there was symmetry.
	Rounding     string `json:"rounding"`
	RoundingNote string `json:"rounding_note,omitempty"`
	// ClassClauses is the number of clauses of the class-level instance
	// that was rounded (RoundClasses).
	ClassClauses int `json:"class_clauses,omitempty"`
	// Seconds: deciding, color refinement and building the lifted problem;
	// the lifted ADMM solve; the certificate on the lifted problem. They are
	// part of Report.Seconds.Relax.
	Seconds LiftSeconds `json:"seconds"`
}

// LiftSeconds are the wall-clock times of the lifted stages.
type LiftSeconds struct {
	Lift    float64 `json:"lift"`
	Solve   float64 `json:"solve"`
	Certify float64 `json:"certify"`
}

// LiftWorth is the largest share of the relaxation's terms (clause
// literals) that a lifted relaxation may keep for the lifted path to be
// taken: a lifted term costs ADMM about 1.4 times a ground one (copy
// weights), and the lifted certificate and rounding have costs of their
// own, so a problem that lifting shrinks by less than this is solved as it
// is (bench/liftedmap measures both sides).
const LiftWorth = 0.6

// boundRounds bounds the rounds of hashed refinement (lift.Bounder) run
// before refinement proper: on a problem without much symmetry the bound
// passes LiftWorth within a few rounds (each a pass over the terms), and the
// refinement is never run.
const boundRounds = 8

// hashWorth is the largest share of the relaxation's clauses that the
// bound may leave apart for the lifted problem to be built from the hashed
// coloring (lift.Bounder.Lift) rather than by refinement, and hashRounds
// the rounds it may take: refinement costs 15 to 40 hash rounds on the
// problems of bench/liftedmap, most where the copies are many (10^5 people
// in communities: 0.16 s of hashing against 0.65 s of refinement), least
// where classes are small (Cora: 28 rounds, slower than refinement).
const (
	hashWorth  = 0.05
	hashRounds = 48
)

// liftRelaxation decides whether the relaxation is worth lifting and lifts
// it: first a lower bound on the lifted sizes from a few cheap rounds of
// hashed refinement (a problem that cannot shrink to LiftWorth of its
// clauses is not refined at all), then the coarsest stable coloring and the
// lifted problem, kept if its terms are at most LiftWorth of the ground
// relaxation's. It returns nil (with the report saying why) when the
// relaxation is to be solved as it is. It returns ctx's error when ctx is
// done between rounds of refinement (a round itself, in package lift, runs
// to its end).
func liftRelaxation(ctx context.Context, rel *relaxation) (*liftedRelax, *LiftReport, error) {
	p := rel.Problem
	lrep := &LiftReport{Ground: sizesOf(p), Lifted: sizesOf(p), Rounding: RoundAtoms}
	rows := p.NumPotentials() + p.NumConstraints()
	if rows == 0 {
		lrep.Note = "the relaxation is empty"
		return nil, lrep, nil
	}
	b, err := lift.NewBounder(p)
	if err != nil {
		return nil, nil, fmt.Errorf("lifting the relaxation: %w", err)
	}
	for r := 1; r <= boundRounds && b.Round(); r++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		_, bp, bc := b.Counts()
		if bp+bc == rows {
			lrep.Note = fmt.Sprintf("no symmetry: %d rounds of refinement tell every clause of the relaxation apart", r)
			return nil, lrep, nil
		}
		if float64(bp+bc) > LiftWorth*float64(rows) {
			lrep.Note = fmt.Sprintf("too little symmetry to pay: %d rounds of refinement leave at least %d of the %d clauses apart (lifting pays below %.0f%%)", r, bp+bc, rows, 100*LiftWorth)
			return nil, lrep, nil
		}
	}
	// Much symmetry (many copies of few structures): hashing on to a stable
	// coloring, checked exactly, costs a pass per round where refinement
	// touches every copy at every split. Otherwise, or if hashing does not
	// settle, refine.
	var l *lift.Lifted
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if _, bp, bc := b.Counts(); float64(bp+bc) <= hashWorth*float64(rows) {
		var ok bool
		if l, ok, err = b.Lift(hashRounds); err != nil {
			return nil, nil, fmt.Errorf("lifting the relaxation: %w", err)
		} else if ok {
			lrep.Hashed = true
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if l == nil {
		var col *lift.Coloring
		if l, col, err = lift.LiftIfSymmetric(p); err != nil {
			return nil, nil, fmt.Errorf("lifting the relaxation: %w", err)
		}
		if l != nil && !col.Symmetric() {
			l = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if l == nil {
		lrep.Note = "no symmetry: refinement tells every atom and clause of the relaxation apart"
		return nil, lrep, nil
	}
	lrep.Lifted = sizesOf(l.Problem)
	terms, liftedTerms := len(p.Var)+len(p.CVar), len(l.Problem.Var)+len(l.Problem.CVar)
	if float64(liftedTerms) > LiftWorth*float64(terms) {
		lrep.Note = fmt.Sprintf("too little symmetry to pay: the lifted relaxation keeps %d of %d terms (lifting pays below %.0f%%)", liftedTerms, terms, 100*LiftWorth)
		return nil, lrep, nil
	}
	lrep.Symmetry = true
	return &liftedRelax{l: l, rel: rel}, lrep, nil
}

// liftedRelax is a lifted LP relaxation and what its solve left.
type liftedRelax struct {
	l   *lift.Lifted
	rel *relaxation
	// y is the lifted solution; pot and con the lifted ADMM duals (nil
	// when there was nothing to solve).
	y, pot, con []float64
	// mu holds the multipliers of the best certificate when it came from
	// lpDual (one per lifted potential, then per lifted constraint), nil
	// otherwise; for tests (groundMultipliers).
	mu []float64
}

// solve runs copy-weighted ADMM on the lifted problem.
func (lr *liftedRelax) solve(ctx context.Context, opt admm.Options) (*admm.Result, error) {
	lp := lr.l.Problem
	lr.y = make([]float64, lp.NumVars)
	if lp.NumPotentials()+lp.NumConstraints() == 0 {
		for i := range lr.y {
			lr.y[i] = 0.5 // every clause cancelled within its classes: any value will do
		}
		return nil, nil
	}
	s, err := admm.NewContext(ctx, lp, lr.l.Options(lr.rel.Problem, opt))
	if err != nil {
		return nil, err
	}
	res, err := s.Solve(ctx, nil)
	if err != nil {
		return nil, err
	}
	copy(lr.y, res.Values)
	lr.pot, lr.con = s.Duals()
	return res, nil
}

// primal returns the relaxed weight sum_c w_c min(1, l_c(y)) of the
// expanded solution and the largest relaxed violation of a hard clause,
// computed on the lifted problem (as relaxedWeight computes them on the
// ground instance): the lifted objective plus Offset is the relaxation's
// objective at the expanded point, and each ground hard clause's relaxed
// violation is its class's.
func (lr *liftedRelax) primal(in *Instance, emptySoft float64) (weight, hardResidual float64) {
	lp := lr.l.Problem
	weight = in.SoftWeight() - emptySoft - (lp.Objective(lr.y) + lr.l.Offset)
	for j := range lp.CKind {
		hardResidual = math.Max(hardResidual, lp.CArg(j, lr.y))
	}
	return weight, hardResidual
}

// certify returns the best lower bound on the LP optimum that it finds on
// the lifted problem and which multipliers gave it (the sources are those
// of certify). constant is what the clauses left out of the relaxation add
// to any dual value (emptyClauses). It returns ctx's error once ctx is done
// (coordinate ascent looks at it every few thousand terms).
func (lr *liftedRelax) certify(ctx context.Context, constant float64, sweeps int) (float64, string, error) {
	lp := lr.l.Problem
	constant += lr.l.Offset
	best, source := 0.0, "trivial"
	try := func(g float64, s string, mu []float64) {
		if !math.IsNaN(g) && !math.IsInf(g, 0) && g > best {
			best, source, lr.mu = g, s, mu
		}
	}
	try(constant, "trivial", make([]float64, lp.NumPotentials()+lp.NumConstraints()))
	if lr.pot != nil {
		try(admm.LowerBound(lp, lr.pot, lr.con)+constant, "admm-duals", nil)
		d := newLPDual(lp, lpMultipliersFromDuals(lp, lr.pot, lr.con))
		if err := d.ascend(ctx, sweeps, 1e-9); err != nil {
			return 0, "", err
		}
		try(d.value()+constant, "clause-duals", d.mu)
	}
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	d := newLPDual(lp, lpMultipliersFromPrimal(lp, lr.y, 1e-3))
	if err := d.ascend(ctx, sweeps, 1e-9); err != nil {
		return 0, "", err
	}
	try(d.value()+constant, "slackness", d.mu)
	return best, source, nil
}

// groundMultipliers spreads lifted multipliers mu (as lpDual holds them)
// over the ground clauses: lambda_c = mu_K/|K| for every member c of class
// K; clauses of a class that lifting dropped as constant get 0 (their
// constant is max(-c, 0) = 0 for a clause of a negated literal or more,
// the only ones whose terms can cancel). g(lambda) on the ground instance
// equals the lifted dual value of mu (see the comment at the top).
func (lr *liftedRelax) groundMultipliers(in *Instance, mu []float64) []float64 {
	l := lr.l
	lambda := make([]float64, in.NumClauses())
	size := make([]int, len(mu))
	for _, k := range l.PotClass {
		if k >= 0 {
			size[k]++
		}
	}
	np := l.Problem.NumPotentials()
	for _, k := range l.ConClass {
		if k >= 0 {
			size[np+int(k)]++
		}
	}
	for i, k := range l.PotClass {
		if k >= 0 {
			lambda[lr.rel.PotClause[i]] = mu[k] / float64(size[k])
		}
	}
	for j, k := range l.ConClass {
		if k >= 0 {
			lambda[lr.rel.ConClause[j]] = mu[np+int(k)] / float64(size[np+int(k)])
		}
	}
	return lambda
}

// lpDual is a dual point of a linear-hinge LP
//
//	min sum_k w_k max(a_k.y - c_k, 0)  s.t.  a_j.y <= c_j,  y in [0,1]^n
//
// (the lifted relaxation; every potential linear, every constraint a <=):
// multipliers mu_k in [0, w_k] for the potentials and mu_j >= 0 for the
// constraints, with the running sums S_v = sum_k mu_k a_kv. Its value
//
//	g(mu) = -sum_k mu_k c_k + sum_v min(0, S_v)
//
// is a lower bound on the LP optimum for every such mu (weak duality), as
// g(lambda) of relax.go is for clauses, which it generalises to any
// coefficients.
type lpDual struct {
	p   *hlmrf.Problem
	mu  []float64 // potentials, then constraints
	s   []float64
	pts []lpBreak // scratch for best
}

func newLPDual(p *hlmrf.Problem, mu []float64) *lpDual {
	d := &lpDual{p: p, mu: mu, s: make([]float64, p.NumVars)}
	for k := range mu {
		m := mu[k]
		if !(m > 0) { // also NaN
			m = 0
		}
		d.mu[k] = math.Min(m, d.upper(k))
		vs, as := d.row(k)
		for q, v := range vs {
			d.s[v] += d.mu[k] * as[q]
		}
	}
	return d
}

// row returns the terms of multiplier k's potential or constraint.
func (d *lpDual) row(k int) ([]int32, []float64) {
	if np := d.p.NumPotentials(); k >= np {
		return d.p.CTerms(k - np)
	}
	return d.p.Terms(k)
}

// constant returns c_k of multiplier k's potential or constraint.
func (d *lpDual) constant(k int) float64 {
	if np := d.p.NumPotentials(); k >= np {
		return d.p.CConst[k-np]
	}
	return d.p.Const[k]
}

// upper returns the largest feasible mu_k.
func (d *lpDual) upper(k int) float64 {
	if k >= d.p.NumPotentials() {
		return math.Inf(1)
	}
	return d.p.Weight[k]
}

// value returns g(mu), recomputing the sums from mu so that drift in the
// running sums cannot make the bound invalid.
func (d *lpDual) value() float64 {
	s := make([]float64, d.p.NumVars)
	var g float64
	for k, m := range d.mu {
		if m == 0 {
			continue
		}
		vs, as := d.row(k)
		for q, v := range vs {
			s[v] += m * as[q]
		}
		g -= m * d.constant(k)
	}
	for _, sv := range s {
		if sv < 0 {
			g += sv
		}
	}
	return g
}

// ascend does exact coordinate ascent on g, as dual.ascend does for
// clauses: each multiplier in turn is set to a maximiser of the concave
// piecewise-linear function of it alone (best). It stops after sweeps
// passes or when a pass gains less than tol (relative). It looks at ctx
// every few thousand terms and returns its error once it is done (mu is
// then feasible but unfinished).
func (d *lpDual) ascend(ctx context.Context, sweeps int, tol float64) error {
	pl := newPoll(ctx)
	prev := d.value()
	for range sweeps {
		for k := range d.mu {
			vs, _ := d.row(k)
			if err := pl.add(len(vs) + 1); err != nil {
				return err
			}
			t := d.best(k)
			old := d.mu[k]
			if math.IsInf(t, 1) || t == old {
				continue // an unbounded rise proves the constraints infeasible; left to the other certificates
			}
			d.mu[k] = t
			vs, as := d.row(k)
			for q, v := range vs {
				d.s[v] += (t - old) * as[q]
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		cur := d.value()
		if cur-prev <= tol*(1+math.Abs(cur)) {
			break
		}
		prev = cur
	}
	return nil
}

// lpBreak is a breakpoint of g along one multiplier: where it is and by how
// much the slope drops there.
type lpBreak struct{ at, drop float64 }

// best returns a maximiser over [0, upper(k)] of g as a function of mu_k
// alone, the others fixed:
//
//	h(t) = -c_k t + sum_v min(0, S'_v + t a_kv),   S' = S without k,
//
// the middle of a flat top (the left end of an unbounded one), or +Inf when
// h rises without bound (a constraint's multiplier: the constraints are
// infeasible).
func (d *lpDual) best(k int) float64 {
	vs, as := d.row(k)
	old := d.mu[k]
	// At t = 0+ a term with a > 0 is active (negative) while t < -S'/a, one
	// with a < 0 once t > -S'/a; every breakpoint in (0, hi) lowers the
	// slope by |a|.
	slope := -d.constant(k)
	pts := d.pts[:0]
	for q, v := range vs {
		a := as[q]
		if a == 0 {
			continue
		}
		at := -(d.s[v] - old*a) / a
		switch {
		case a > 0 && at > 0:
			slope += a
			pts = append(pts, lpBreak{at, a})
		case a < 0 && at <= 0:
			slope += a
		case a < 0:
			pts = append(pts, lpBreak{at, -a})
		}
	}
	slices.SortFunc(pts, func(x, y lpBreak) int { return cmpFloat(x.at, y.at) })
	d.pts = pts
	hi := d.upper(k)
	cur := 0.0
	for q := 0; q < len(pts); {
		if !(slope > 0) || pts[q].at >= hi {
			break
		}
		// Cross every breakpoint at this position.
		cur = pts[q].at
		for ; q < len(pts) && pts[q].at == cur; q++ {
			slope -= pts[q].drop
		}
		if slope == 0 {
			// Flat from here to the next breakpoint (or hi).
			next := hi
			if q < len(pts) {
				next = math.Min(pts[q].at, hi)
			}
			if math.IsInf(next, 1) {
				return cur
			}
			return (cur + next) / 2
		}
	}
	switch {
	case slope > 0:
		return hi // still rising: to the bound
	case slope == 0 && len(pts) == 0 && !math.IsInf(hi, 1):
		return hi / 2 // flat everywhere
	}
	return cur
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lpMultipliersFromDuals projects per-copy ADMM duals onto one multiplier
// per potential and constraint: the mean over its copies of -alpha_k/a_k
// (lambdaFromDuals for any coefficients).
func lpMultipliersFromDuals(p *hlmrf.Problem, pot, con []float64) []float64 {
	mu := make([]float64, p.NumPotentials()+p.NumConstraints())
	set := func(k int, coef, alpha []float64) {
		var s float64
		n := 0
		for q, a := range coef {
			if a != 0 {
				s -= alpha[q] / a
				n++
			}
		}
		if n > 0 {
			mu[k] = s / float64(n)
		}
	}
	for i := range p.Weight {
		a, b := p.Start[i], p.Start[i+1]
		set(i, p.Coef[a:b], pot[a:b])
	}
	for j := range p.CKind {
		a, b := p.CStart[j], p.CStart[j+1]
		set(p.NumPotentials()+j, p.CCoef[a:b], con[a:b])
	}
	return mu
}

// lpMultipliersFromPrimal guesses multipliers by complementary slackness
// from a solution y (lambdaFromPrimal for any coefficients): w_k where the
// hinge is clearly active (a.y - c > delta), 0 where clearly slack,
// interpolated between; constraints start at 0.
func lpMultipliersFromPrimal(p *hlmrf.Problem, y []float64, delta float64) []float64 {
	mu := make([]float64, p.NumPotentials()+p.NumConstraints())
	for i := range p.Weight {
		r := p.Arg(i, y)
		mu[i] = p.Weight[i] * math.Min(1, math.Max(0, (r+delta)/(2*delta)))
	}
	return mu
}

// roundClasses rounds with one shared coin per variable class, when that
// keeps the guarantee (see the comment at the top): it returns nil and the
// reason when some ground clause has two literals of one sign in one class
// and no class with literals of both signs (which would make it hold in
// every world constant on the classes), or when lifting and the clauses disagree (which would be a bug, and is
// answered by rounding the atoms). hw is the weight of a ground hard clause
// (hardWeight of the ground instance). The result's figures are the ground
// instance's: satisfied soft weight and violated hard clauses of the
// expanded world, expected weights of randomised rounding with shared coins.
//
// One pass over the ground clauses checks them and counts, per clause
// class, the members whose literals lie in distinct classes; the members
// with a literal of each sign on one class are satisfied by every world
// that is constant on the classes, and their weight is added as a constant.
// The class-level instance has one clause per clause class with such
// members, its literals those of the lifted row (coefficient -1: the class
// positive, +1: negated), weighted by its members; derandomizeMult rounds
// it with both probability functions, as round does. Its passes look at
// ctx every few thousand literals; once ctx is done it returns its error
// and nothing else.
func (lr *liftedRelax) roundClasses(ctx context.Context, in *Instance, ix *index, hw float64) (*rounded, []bool, *Instance, string, error) {
	pl := newPoll(ctx)
	l, rel := lr.l, lr.rel
	lp := l.Problem
	nClass := lp.NumVars
	np := lp.NumPotentials()
	count := make([]float64, np+lp.NumConstraints()) // members with distinct classes
	var constSat float64                             // soft weight satisfied by every class-constant world
	posMark := make([]int32, nClass)
	negMark := make([]int32, nClass)
	for i := range posMark {
		posMark[i], negMark[i] = -1, -1
	}
	check := func(c int32, stamp int32, class int32, rowLen int) (taut bool, err string) {
		lits := in.Clause(int(c))
		dup := int32(-1)
		for _, lit := range lits {
			k := l.VarClass[lit.Var()]
			same, other := posMark, negMark
			if lit.Neg() {
				same, other = negMark, posMark
			}
			if same[k] == stamp {
				dup = k
			}
			same[k] = stamp
			if other[k] == stamp {
				taut = true
			}
		}
		switch {
		case taut:
			return true, ""
		case dup >= 0:
			return false, fmt.Sprintf("ground clause %d has two literals of one sign on symmetric atoms and none of the other sign on them (as an at-most-one pair !a v !b of interchangeable atoms has): one coin for their class (%d) would lose the 3/4 guarantee", c, dup)
		case class < 0 || len(lits) != rowLen:
			return false, fmt.Sprintf("clause %d: its literals do not match its lifted clause", c)
		}
		return false, ""
	}
	stamp := int32(0)
	for i, c := range rel.PotClause {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, nil, nil, "", err
		}
		k := l.PotClass[i]
		rowLen := -1
		if k >= 0 {
			rowLen = int(lp.Start[k+1] - lp.Start[k])
		}
		taut, why := check(c, stamp, k, rowLen)
		stamp++
		switch {
		case why != "":
			return nil, nil, nil, why, nil
		case taut:
			constSat += in.Weight[c]
		default:
			count[k]++
		}
	}
	for j, c := range rel.ConClause {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, nil, nil, "", err
		}
		k := l.ConClass[j]
		rowLen := -1
		if k >= 0 {
			rowLen = int(lp.CStart[k+1] - lp.CStart[k])
		}
		taut, why := check(c, stamp, k, rowLen)
		stamp++
		if why != "" {
			return nil, nil, nil, why, nil
		}
		if !taut {
			count[np+int(k)]++
		}
	}

	// The class-level instance.
	ci := &Instance{NumVars: nClass, Start: []int32{0}}
	var mult []float64
	var lits []Lit
	add := func(k int, vars []int32, coefs []float64, w float64, hard bool) string {
		lits = lits[:0]
		for q, v := range vars {
			switch coefs[q] {
			case -1:
				lits = append(lits, Pos(int(v)))
			case 1:
				lits = append(lits, Not(int(v)))
			default:
				return fmt.Sprintf("lifted clause %d has coefficient %v", k, coefs[q])
			}
		}
		if err := ci.AddClause(w, hard, lits...); err != nil {
			return err.Error()
		}
		mult = append(mult, count[k])
		return ""
	}
	// The members' weight: the class's summed weight is |K| times it.
	size := make([]float64, np)
	for _, k := range l.PotClass {
		if k >= 0 {
			size[k]++
		}
	}
	for k := range np {
		if count[k] == 0 {
			continue
		}
		vars, coefs := lp.Terms(k)
		if why := add(k, vars, coefs, lp.Weight[k]/size[k], false); why != "" {
			return nil, nil, nil, why, nil
		}
	}
	for j := range lp.NumConstraints() {
		if count[np+j] == 0 {
			continue
		}
		vars, coefs := lp.CTerms(j)
		if why := add(np+j, vars, coefs, 0, true); why != "" {
			return nil, nil, nil, why, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, "", err
	}
	r, err := roundMult(ctx, ci, buildIndex(ci), lr.y, hw, mult)
	if err != nil {
		return nil, nil, nil, "", err
	}
	// Ground figures: the clauses outside the relaxation (tautologies are
	// satisfied, empty clauses never) and the class-tautological members.
	// The satisfied weight is the total less the violated weight, summed
	// over the violated classes, so that a world that violates nothing
	// costs exactly 0.
	var extra, violated float64
	emptyHard := 0
	for c := range in.Weight {
		if err := pl.add(1); err != nil {
			return nil, nil, nil, "", err
		}
		switch {
		case ix.taut[c] && !in.Hard[c]:
			extra += in.Weight[c]
		case in.Start[c] == in.Start[c+1] && in.Hard[c]:
			emptyHard++
		case in.Start[c] == in.Start[c+1]:
			violated += in.Weight[c]
		}
	}
	for k := range ci.NumClauses() {
		if !ci.Hard[k] && !ci.Satisfied(k, r.X) {
			violated += ci.Weight[k] * mult[k]
		}
	}
	extra += constSat
	r.Satisfied = in.SoftWeight() - violated
	r.ExpectedGW += extra
	r.ExpectedPlain += extra
	r.HardViolated += emptyHard
	r.ExpectedHardGW += float64(emptyHard)
	r.ExpectedHardPlain += float64(emptyHard)
	x := make([]bool, in.NumVars)
	for v, k := range l.VarClass {
		x[v] = r.X[k]
	}
	classX := r.X
	r.X = x
	return r, classX, ci, "", nil
}
