package maxsat

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// The LP relaxation (Bach, Huang and Getoor, eq. 2), written as a minimisation:
//
//	min  sum_{c soft} w_c t_c
//	s.t. t_c >= 1 - l_c(y)     soft c          l_c(y) = sum_{I+} y_i + sum_{I-} (1 - y_i)
//	     0   >= 1 - l_c(y)     hard c
//	     t >= 0, y in [0,1]^n
//
// Its optimum LP* satisfies W - LP* >= OPT, where W is the total soft weight
// and OPT the MAX-SAT optimum (the weight of the best assignment that
// satisfies every hard clause). Eliminating t gives the HL-MRF objective
// sum_c w_c max(1 - l_c(y), 0) with hard clauses as constraints, which is
// what toProblem builds for ADMM.
//
// Writing 1 - l_c(y) = b_c - a_c.y with b_c = 1 - |I-_c| and a_ci = +1 for a
// positive literal, -1 for a negated one, the Lagrangian dual is
//
//	g(lambda) = sum_c lambda_c b_c + sum_i min(0, G_i),   G_i = -sum_c lambda_c a_ci
//
// over 0 <= lambda_c <= w_c for soft clauses and lambda_c >= 0 for hard ones
// (minimising the Lagrangian over t_c >= 0 forces lambda_c <= w_c, and over
// y_i in [0,1] gives min(0, G_i)). By weak duality g(lambda) <= LP* for every
// such lambda, so W - g(lambda) is an upper bound on OPT that holds however
// roughly lambda was found: the dual type (newDual, value) computes it. When the hard clauses are
// unsatisfiable OPT is -infinity and every number is a valid bound; a bound
// below zero proves that no assignment satisfies them.

// relaxation is the HL-MRF form of an instance's LP relaxation.
type relaxation struct {
	// Problem has one linear hinge w*max(sum Coef*y - Const, 0) per soft
	// clause of positive weight, with Coef = -1 for a positive literal, +1
	// for a negated one and Const = |I-| - 1, and one LessEq constraint
	// sum Coef*y <= Const per hard clause. Tautologies, zero-weight soft
	// clauses and empty clauses are left out: they do not depend on y.
	Problem *hlmrf.Problem
	// PotClause[i] is the clause of potential i; ConClause[j] that of
	// constraint j.
	PotClause []int32
	ConClause []int32
}

// toProblem builds the LP relaxation of in as an HL-MRF. The rows are
// written straight into the CSR arrays: a validated instance has no
// repeated literal and toProblem leaves out tautologies, so no row repeats
// a variable (what hlmrf's Add methods would merge). It looks at ctx every
// few thousand literals and returns its error, and no relaxation, once it
// is done.
func toProblem(ctx context.Context, in *Instance, ix *index) (*relaxation, error) {
	pl := newPoll(ctx)
	np, nc, tp, tc := 0, 0, 0, 0
	keep := func(c int) bool {
		return !ix.taut[c] && in.Start[c] < in.Start[c+1] && (in.Hard[c] || in.Weight[c] != 0)
	}
	for c := range in.Weight {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if !keep(c) {
			continue
		}
		k := int(in.Start[c+1] - in.Start[c])
		if in.Hard[c] {
			nc, tc = nc+1, tc+k
		} else {
			np, tp = np+1, tp+k
		}
	}
	p := &hlmrf.Problem{
		NumVars: in.NumVars,
		Weight:  make([]float64, 0, np), Const: make([]float64, 0, np), Power: make([]uint8, 0, np), Group: make([]int32, 0, np),
		Start: make([]int32, 1, np+1), Var: make([]int32, 0, tp), Coef: make([]float64, 0, tp),
		CKind: make([]hlmrf.ConstraintKind, 0, nc), CConst: make([]float64, 0, nc), CGroup: make([]int32, 0, nc),
		CStart: make([]int32, 1, nc+1), CVar: make([]int32, 0, tc), CCoef: make([]float64, 0, tc),
	}
	r := &relaxation{Problem: p, PotClause: make([]int32, 0, np), ConClause: make([]int32, 0, nc)}
	for c := range in.Weight {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if !keep(c) {
			continue
		}
		vars, coefs := &p.Var, &p.Coef
		if in.Hard[c] {
			vars, coefs = &p.CVar, &p.CCoef
		}
		nneg := 0
		for _, l := range in.Clause(c) {
			*vars = append(*vars, int32(l.Var()))
			if l.Neg() {
				*coefs = append(*coefs, 1)
				nneg++
			} else {
				*coefs = append(*coefs, -1)
			}
		}
		if in.Hard[c] {
			p.CKind = append(p.CKind, hlmrf.LessEq)
			p.CConst = append(p.CConst, float64(nneg-1))
			p.CGroup = append(p.CGroup, -1)
			p.CStart = append(p.CStart, int32(len(p.CVar)))
			r.ConClause = append(r.ConClause, int32(c))
		} else {
			p.Weight = append(p.Weight, in.Weight[c])
			p.Const = append(p.Const, float64(nneg-1))
			p.Power = append(p.Power, 1)
			p.Group = append(p.Group, -1)
			p.Start = append(p.Start, int32(len(p.Var)))
			r.PotClause = append(r.PotClause, int32(c))
		}
	}
	return r, nil
}

// NotClauseError says which potential (or constraint) of a problem is not a
// clause and why, so that a caller can name the rule it came from.
type NotClauseError struct {
	Constraint bool // a hard constraint, else a potential
	Index      int
	Reason     string
}

func (e *NotClauseError) Error() string {
	what := "potential"
	if e.Constraint {
		what = "constraint"
	}
	return fmt.Sprintf("maxsat: %s %d is not a clause: %s", what, e.Index, e.Reason)
}

// FromProblem reads a clause-shaped HL-MRF as an instance: every potential
// must be a linear hinge w*max(sum Coef*y - Const, 0) with every coefficient
// +1 or -1 and Const = (number of +1 coefficients) - 1, which is
// w*max(1 - sum_{I+} y - sum_{I-} (1-y), 0) for the clause with a positive
// literal for each -1 coefficient and a negated one for each +1; every
// constraint must be a LessEq of the same shape (a hard clause). Grounding
// a rule in which one atom occurs twice sums its occurrences: a coefficient
// of +k or -k is a literal repeated k times, which the clause merges (at 0/1
// values the hinge is the same), and a constant above the clause's (an atom
// and its negation both occurred and cancelled) is a clause that always
// holds, kept with one of its variables as x | ~x. Variable i of p is
// variable i of the instance, clause c < p.NumPotentials() is potential c,
// and the hard clauses follow in constraint order. A potential or
// constraint of any other shape is an error naming it.
func FromProblem(p *hlmrf.Problem) (*Instance, error) {
	return fromProblem(context.Background(), p)
}

// fromProblem is FromProblem looking at ctx every few thousand terms: it
// returns ctx's error, and no instance, once ctx is done.
func fromProblem(ctx context.Context, p *hlmrf.Problem) (*Instance, error) {
	pl := newPoll(ctx)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	in := &Instance{NumVars: p.NumVars, Start: []int32{0}}
	lits := make([]Lit, 0, 16)
	clause := func(what string, idx int, vars []int32, coefs []float64, c float64) error {
		lits = lits[:0]
		nneg := 0
		for k, v := range vars {
			a := coefs[k]
			switch {
			case a == 0:
			case a < 0 && a == math.Trunc(a):
				lits = append(lits, Pos(int(v)))
			case a > 0 && a == math.Trunc(a):
				lits = append(lits, Not(int(v)))
				nneg += int(a)
			default:
				return &NotClauseError{Constraint: what == "constraint", Index: idx, Reason: fmt.Sprintf("coefficient %v on variable %d (want +1 or -1, or an integer for a repeated literal)", a, v)}
			}
		}
		switch d := c - float64(nneg-1); {
		case math.Abs(d) <= 1e-9:
		case d == math.Trunc(d) && d > 0 && len(lits) > 0:
			// Cancelled occurrences of an atom and its negation.
			lits = append(lits, -lits[0])
		default:
			return &NotClauseError{Constraint: what == "constraint", Index: idx, Reason: fmt.Sprintf("constant %v, but a clause with %d negated literals has constant %d", c, nneg, nneg-1)}
		}
		return nil
	}
	for i := range p.Weight {
		if p.Power[i] != 1 {
			return nil, &NotClauseError{Index: i, Reason: fmt.Sprintf("squared hinge (power %d)", p.Power[i])}
		}
		vars, coefs := p.Terms(i)
		if err := pl.add(len(vars) + 1); err != nil {
			return nil, err
		}
		if err := clause("potential", i, vars, coefs, p.Const[i]); err != nil {
			return nil, err
		}
		if err := in.AddClause(p.Weight[i], false, lits...); err != nil {
			return nil, fmt.Errorf("maxsat: potential %d: %w", i, err)
		}
	}
	for j := range p.CKind {
		if p.CKind[j] != hlmrf.LessEq {
			return nil, &NotClauseError{Constraint: true, Index: j, Reason: "an equality"}
		}
		vars, coefs := p.CTerms(j)
		if err := pl.add(len(vars) + 1); err != nil {
			return nil, err
		}
		if err := clause("constraint", j, vars, coefs, p.CConst[j]); err != nil {
			return nil, err
		}
		if err := in.AddClause(0, true, lits...); err != nil {
			return nil, fmt.Errorf("maxsat: constraint %d: %w", j, err)
		}
	}
	return in, nil
}

// dual holds a dual point lambda with its running G_i = -sum_c lambda_c a_ci.
type dual struct {
	in     *Instance
	ix     *index
	lambda []float64
	g      []float64
}

// upper returns the largest feasible lambda_c.
func (d *dual) upper(c int) float64 {
	if d.in.Hard[c] {
		return math.Inf(1)
	}
	return d.in.Weight[c]
}

// newDual returns the dual point lambda clamped into the feasible box (nil:
// all zero). It looks at ctx every few thousand literals and returns its
// error once it is done.
func newDual(ctx context.Context, in *Instance, ix *index, lambda []float64) (*dual, error) {
	pl := newPoll(ctx)
	d := &dual{in: in, ix: ix, lambda: make([]float64, in.NumClauses()), g: make([]float64, in.NumVars)}
	for c := range d.lambda {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if ix.taut[c] || lambda == nil {
			continue
		}
		l := lambda[c]
		if !(l > 0) { // also NaN
			l = 0
		}
		d.lambda[c] = math.Min(l, d.upper(c))
		d.shift(in.Clause(c), d.lambda[c])
	}
	return d, nil
}

// shift updates the running G for a change dl in the multiplier of the
// clause with literals lits: G_i += dl for a negated literal on i, -= dl for
// a positive one.
func (d *dual) shift(lits []Lit, dl float64) {
	for _, lit := range lits {
		if lit.Neg() {
			d.g[lit.Var()] += dl
		} else {
			d.g[lit.Var()] -= dl
		}
	}
}

// value returns g(lambda), recomputing G from lambda so that drift in the
// running sums cannot make the bound invalid. It looks at ctx every few
// thousand literals and returns its error once it is done.
func (d *dual) value(ctx context.Context) (float64, error) {
	in := d.in
	pl := newPoll(ctx)
	G := make([]float64, in.NumVars)
	var s float64
	for c, l := range d.lambda {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return 0, err
		}
		if l == 0 || d.ix.taut[c] {
			continue
		}
		nneg := 0
		for _, lit := range in.Clause(c) {
			if lit.Neg() {
				G[lit.Var()] += l
				nneg++
			} else {
				G[lit.Var()] -= l
			}
		}
		s += l * float64(1-nneg)
	}
	for _, gi := range G {
		if gi < 0 {
			s += gi
		}
	}
	return s, nil
}

// ascend does coordinate ascent on g: each clause's lambda_c in turn is set
// to a maximiser of g with the others fixed (a concave piecewise-linear
// function of one variable, solved exactly from its breakpoints; on a flat
// top the middle is taken). Every step keeps lambda feasible and g never
// decreases. It stops after sweeps passes or when a pass gains less than
// tol (relative). It looks at ctx every few thousand literals and returns
// its error once it is done (lambda is then feasible but unfinished).
func (d *dual) ascend(ctx context.Context, sweeps int, tol float64) error {
	in := d.in
	pl := newPoll(ctx)
	bps := make([]float64, 0, 16)
	prev, err := d.value(ctx)
	if err != nil {
		return err
	}
	for s := 0; s < sweeps; s++ {
		for c := range d.lambda {
			lits := in.Clause(c)
			if err := pl.add(len(lits) + 1); err != nil {
				return err
			}
			if d.ix.taut[c] {
				continue
			}
			old := d.lambda[c]
			// Remove clause c from G, collect breakpoints and the slope at 0+.
			slope := 1
			bps = bps[:0]
			for _, lit := range lits {
				v := lit.Var()
				if lit.Neg() {
					// term min(0, G' + t): slope +1 until t = -G'.
					gp := d.g[v] - old
					slope--
					if gp < 0 {
						slope++
						bps = append(bps, -gp)
					}
				} else {
					// term min(0, G' - t): slope -1 from t = G' on.
					gp := d.g[v] + old
					if gp <= 0 {
						slope--
					} else {
						bps = append(bps, gp)
					}
				}
			}
			// slope counts b_c = 1 - nneg (the -- for negated literals) plus
			// the terms' slopes at 0+; each breakpoint lowers it by one.
			hi := d.upper(c)
			var t float64
			if slope < 0 {
				t = 0
			} else {
				slices.Sort(bps)
				var lo, up float64
				switch {
				case slope == 0:
					lo, up = 0, hi
					if len(bps) > 0 {
						up = math.Min(bps[0], hi)
					}
				case slope <= len(bps):
					lo, up = bps[slope-1], hi
					if slope < len(bps) {
						up = math.Min(bps[slope], hi)
					}
				default:
					lo, up = hi, hi // slope stays positive: go to the bound
				}
				if lo >= hi {
					t = hi
				} else if math.IsInf(up, 1) {
					t = lo
				} else {
					t = (lo + up) / 2
				}
			}
			if math.IsInf(t, 1) || t == old {
				continue
			}
			d.lambda[c] = t
			d.shift(lits, t-old)
		}
		cur, err := d.value(ctx)
		if err != nil {
			return err
		}
		if cur-prev <= tol*(1+math.Abs(cur)) {
			break
		}
		prev = cur
	}
	return nil
}

// lambdaFromPrimal guesses multipliers from a relaxed solution by
// complementary slackness: lambda_c = w_c where the clause's hinge is clearly
// active (1 - l_c(y) > delta), 0 where it is clearly slack, interpolated in
// between. Hard clauses start at 0. It looks at ctx every few thousand
// literals and returns its error once it is done.
func lambdaFromPrimal(ctx context.Context, in *Instance, y []float64, delta float64) ([]float64, error) {
	pl := newPoll(ctx)
	lambda := make([]float64, in.NumClauses())
	for c := range lambda {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if in.Hard[c] {
			continue
		}
		r := 1 - in.relaxedSat(c, y)
		lambda[c] = in.Weight[c] * math.Min(1, math.Max(0, (r+delta)/(2*delta)))
	}
	return lambda, nil
}
