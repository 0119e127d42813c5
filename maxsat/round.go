package maxsat

import (
	"context"
	"math"
)

// Rounding probability functions of Goemans and Williamson (Bach et al., section 2.4).
const (
	// MethodGW is the linear rounding p_i = y_i/2 + 1/4: for any y in
	// [0,1]^n each clause is satisfied with probability at least 3/4 of its
	// relaxed value min(1, l_c(y)), so at the LP optimum the expected weight
	// is at least 3/4 of the MAX-SAT optimum.
	MethodGW = "gw"
	// MethodPlain is p_i = y_i: a clause of k literals is satisfied with
	// probability at least 1-(1-1/k)^k >= 1-1/e of its relaxed value.
	MethodPlain = "plain"
)

// gwProb returns the Goemans-Williamson rounding probabilities y/2 + 1/4.
func gwProb(y []float64) []float64 {
	p := make([]float64, len(y))
	for i, v := range y {
		p[i] = clamp01(v)/2 + 0.25
	}
	return p
}

// plainProb returns the rounding probabilities p = y clamped into [0,1].
func plainProb(y []float64) []float64 {
	p := make([]float64, len(y))
	for i, v := range y {
		p[i] = clamp01(v)
	}
	return p
}

func clamp01(v float64) float64 {
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

// relaxedSat returns clause c's relaxed truth l_c(y) = sum_{I+} y_i +
// sum_{I-} (1 - y_i), with y clamped into [0,1].
func (in *Instance) relaxedSat(c int, y []float64) float64 {
	l := 0.0
	for _, lit := range in.Clause(c) {
		v := clamp01(y[lit.Var()])
		if lit.Neg() {
			v = 1 - v
		}
		l += v
	}
	return l
}

// relaxedWeight returns sum over soft clauses of w_c * min(1, l_c(y)), the
// objective of Bach et al.'s eq. (2) at y, and the largest relaxed violation
// max(0, 1 - l_c(y)) of a hard clause. It looks at ctx every few thousand
// literals and returns its error once it is done.
func relaxedWeight(ctx context.Context, in *Instance, y []float64) (weight, hardResidual float64, err error) {
	pl := newPoll(ctx)
	for c := range in.Weight {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return 0, 0, err
		}
		l := in.relaxedSat(c, y)
		if in.Hard[c] {
			hardResidual = math.Max(hardResidual, 1-l)
			continue
		}
		weight += in.Weight[c] * math.Min(1, l)
	}
	return weight, hardResidual, nil
}

// expectedWeight returns the exact expected weight of the satisfied soft
// clauses when each variable i is set true independently with probability
// p[i], and the expected number of violated hard clauses.
func expectedWeight(in *Instance, p []float64) (weight, hardViolated float64) {
	ix := buildIndex(in)
	for c := range in.Weight {
		if ix.taut[c] {
			if !in.Hard[c] {
				weight += in.Weight[c]
			}
			continue
		}
		u := 1.0 // probability that every literal is false
		for _, lit := range in.Clause(c) {
			u *= litFalseProb(p[lit.Var()], lit.Neg())
		}
		if in.Hard[c] {
			hardViolated += u
		} else {
			weight += in.Weight[c] * (1 - u)
		}
	}
	return weight, hardViolated
}

// hardWeight is the weight given to a hard clause where a single objective
// is needed (conditional expectations, local search): more than all soft
// clauses together, so that no soft gain pays for a hard violation.
func hardWeight(in *Instance) float64 {
	return in.SoftWeight() + 1
}

// scaled is a nonnegative product kept as m * 2^(-scaleStep*e) so that long
// clauses whose probability of being unsatisfied underflows float64 recover
// exactly when their literals are later fixed; z counts zero factors, which
// are kept out of m.
type scaled struct {
	m float64
	e int32
	z int32
}

const scaleStep = 500

var (
	scaleUp   = math.Ldexp(1, scaleStep)
	scaleDown = math.Ldexp(1, -scaleStep)
)

func (s *scaled) normalise() {
	for s.m < scaleDown && s.m > 0 {
		s.m *= scaleUp
		s.e++
	}
	for s.m > 1 && s.e > 0 {
		s.m *= scaleDown
		s.e--
	}
}

// value returns the product (0 when a factor is zero).
func (s *scaled) value() float64 {
	if s.z > 0 {
		return 0
	}
	if s.e == 0 {
		return s.m
	}
	return s.m * math.Pow(scaleDown, float64(s.e))
}

// without returns the product with one factor q removed.
func (s *scaled) without(q float64) float64 {
	if s.z == 0 && s.e == 0 && q != 0 {
		return s.m / q // the common case: no zero factor, no underflow
	}
	if q == 0 {
		if s.z != 1 {
			return 0
		}
		t := scaled{m: s.m, e: s.e}
		return t.value()
	}
	if s.z > 0 {
		return 0
	}
	t := scaled{m: s.m / q, e: s.e}
	t.normalise()
	return t.value()
}

// replace swaps factor old for new (new is 0 or 1).
func (s *scaled) replace(old, new float64) {
	if old == 0 {
		s.z--
	} else {
		s.m /= old
	}
	if new == 0 {
		s.z++
	}
	s.normalise()
}

// clauseState is one clause's running product of literal-false
// probabilities together with its objective weight (hard clauses at the
// heavy weight), packed so that a step touches one cache line per clause.
type clauseState struct {
	scaled
	w float64
}

// derandomized is the outcome of one derandomised pass.
type derandomized struct {
	x                []bool
	expSoft, expHard float64 // expected satisfied soft weight, violated hard clauses under p
	satisfied        float64 // soft weight satisfied by x
	hardViolated     int
}

// derandomize turns the independent rounding probabilities p into a 0/1
// assignment by the method of conditional probabilities: variables are set
// in index order, each to the value with the higher conditional expected
// weight, where hard clauses weigh more than all soft clauses together. Each
// step touches only the clauses of its variable, through running per-clause
// products, so the pass is linear in the instance size. The weight of the
// result (counting hard clauses with that weight) is never below the
// expectation under p. hw is the weight of a hard clause (hardWeight).
// It looks at ctx every few thousand literals and returns its error, and no
// assignment, once it is done.
func derandomize(ctx context.Context, in *Instance, ix *index, p []float64, hw float64) (derandomized, error) {
	return derandomizeMult(ctx, in, ix, p, hw, nil)
}

// derandomizeMult is derandomize for an instance whose clause c stands for
// mult[c] identical clauses (a class of symmetric ground clauses, see
// roundClasses): its objective weight, satisfied weight, expected values
// and violated hard count are mult[c] times a single clause's. mult nil
// means 1 for every clause.
func derandomizeMult(ctx context.Context, in *Instance, ix *index, p []float64, hw float64, mult []float64) (derandomized, error) {
	pl := newPoll(ctx)
	m := in.NumClauses()
	st := make([]clauseState, m)
	var d derandomized
	times := func(c int) float64 {
		if mult == nil {
			return 1
		}
		return mult[c]
	}
	for c := 0; c < m; c++ {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return derandomized{}, err
		}
		w := in.Weight[c]
		if in.Hard[c] {
			w = hw
		}
		w *= times(c)
		s := scaled{m: 1}
		if ix.taut[c] {
			s.z = 1 // always satisfied
		} else {
			for _, lit := range in.Clause(c) {
				q := litFalseProb(p[lit.Var()], lit.Neg())
				if q == 0 {
					s.z++
				} else {
					s.m *= q
					s.normalise()
				}
			}
		}
		st[c] = clauseState{s, w}
		if in.Hard[c] {
			d.expHard += times(c) * s.value()
		} else {
			d.expSoft += w * (1 - s.value())
		}
	}
	x := make([]bool, in.NumVars)
	for v := 0; v < in.NumVars; v++ {
		pv := p[v]
		occ := ix.occ[ix.occStart[v]:ix.occStart[v+1]]
		if err := pl.add(2*len(occ) + 1); err != nil {
			return derandomized{}, err
		}
		// delta = E[W | x_v = 1] - E[W | x_v = 0].
		var delta float64
		for _, e := range occ {
			cs := &st[e>>1]
			neg := e&1 == 1
			rest := cs.without(litFalseProb(pv, neg))
			if neg {
				delta -= cs.w * rest
			} else {
				delta += cs.w * rest
			}
		}
		val := delta > 0 || (delta == 0 && pv >= 0.5)
		x[v] = val
		for _, e := range occ {
			neg := e&1 == 1
			newq := 1.0
			if val != neg {
				newq = 0
			}
			st[e>>1].replace(litFalseProb(pv, neg), newq)
		}
	}
	// Every variable is fixed: a clause holds exactly when a factor is 0.
	for c := range st {
		switch sat := st[c].z > 0; {
		case in.Hard[c] && !sat:
			d.hardViolated += int(times(c))
		case !in.Hard[c] && sat:
			d.satisfied += in.Weight[c] * times(c)
		}
	}
	d.x = x
	return d, nil
}

// litFalseProb is the probability that a literal on a variable that is true
// with probability p is false.
func litFalseProb(p float64, neg bool) float64 {
	if neg {
		return p
	}
	return 1 - p
}

// rounded is the result of round.
type rounded struct {
	X             []bool  // the assignment
	Method        string  // MethodGW or MethodPlain: which rounding gave X
	Satisfied     float64 // weight of the satisfied soft clauses under X
	HardViolated  int     // hard clauses X violates
	ExpectedGW    float64 // exact expected soft weight of randomised GW rounding of y
	ExpectedPlain float64 // exact expected soft weight of randomised plain rounding of y
	ExpectedHardGW,
	ExpectedHardPlain float64 // expected violated hard clauses under each rounding
}

// round rounds the relaxed solution y with both GW (y/2 + 1/4) and plain
// (y) probabilities, each derandomised by derandomize, and keeps the better
// assignment (fewer violated hard clauses, then more satisfied weight). For
// an instance without hard clauses the result's weight is at least
// max(ExpectedGW, ExpectedPlain) >= 3/4 * relaxedWeight(y). Both passes
// look at ctx every few thousand literals; once it is done, round returns
// its error and no assignment.
func round(ctx context.Context, in *Instance, ix *index, y []float64) (*rounded, error) {
	return roundMult(ctx, in, ix, y, hardWeight(in), nil)
}

// roundMult is round with derandomizeMult's clause multiplicities, and the
// weight hw of one hard clause given.
func roundMult(ctx context.Context, in *Instance, ix *index, y []float64, hw float64, mult []float64) (*rounded, error) {
	// The two passes are independent: run them side by side.
	var g, pl derandomized
	var gErr, plErr error
	done := make(chan struct{})
	go func() {
		g, gErr = derandomizeMult(ctx, in, ix, gwProb(y), hw, mult)
		close(done)
	}()
	pl, plErr = derandomizeMult(ctx, in, ix, plainProb(y), hw, mult)
	<-done
	if plErr != nil {
		return nil, plErr
	}
	if gErr != nil {
		return nil, gErr
	}
	r := &rounded{ExpectedGW: g.expSoft, ExpectedPlain: pl.expSoft, ExpectedHardGW: g.expHard, ExpectedHardPlain: pl.expHard}
	if pl.hardViolated < g.hardViolated || (pl.hardViolated == g.hardViolated && pl.satisfied > g.satisfied) {
		r.X, r.Method, r.Satisfied, r.HardViolated = pl.x, MethodPlain, pl.satisfied, pl.hardViolated
	} else {
		r.X, r.Method, r.Satisfied, r.HardViolated = g.x, MethodGW, g.satisfied, g.hardViolated
	}
	return r, nil
}
