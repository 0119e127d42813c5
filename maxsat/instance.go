// Package maxsat solves logical Markov random fields (weighted MAX-SAT) with
// a guarantee, following Bach, Huang and Getoor, "Rounding Guarantees for
// Message-Passing MAP Inference with Logical Dependencies" (2014).
//
// A logical MRF is a set of disjunctive clauses over boolean variables with
// nonnegative weights; MAP inference is weighted MAX-SAT: find the assignment
// that maximises the weight of the satisfied clauses. Hard clauses must hold.
//
// The pipeline ([Solve]) is:
//
//  1. Relax: the LP relaxation of Goemans and Williamson (Bach et al., eq. 2) is
//     the HL-MRF with linear hinges w*max(1 - sum_{I+} y - sum_{I-} (1-y), 0)
//     (toProblem); it is solved by consensus ADMM (package admm).
//  2. Certify: a dual-feasible point of that LP (relax.go) gives an upper
//     bound on the MAX-SAT optimum that does not depend on how well ADMM
//     converged, so every answer says how close to optimal it provably is.
//  3. Round: p_i = y_i/2 + 1/4 (expected weight >= 3/4 of the optimum) and
//     p_i = y_i, each derandomised by the method of conditional probabilities
//     (round); the better is kept.
//  4. Optionally improve with MaxWalkSAT ([WalkSAT]), which is also usable on
//     its own.
//
// With Options.Lift the relaxation is lifted first (Srinivasan et al.,
// "Lifted Hinge-Loss Markov Random Fields"; package lift): solved, and its
// bound certified, on the smaller problem of the classes of interchangeable
// atoms and clauses, with the same optimum and a bound that holds for the
// ground instance; the rounding keeps its guarantee and uses one
// representative per class of atoms where that keeps it too (lifted.go).
// Report.Lifted says what lifting found and what each stage took.
//
// Hard clauses are constraints of the relaxation (1 - l_c(y) <= 0). In the
// conditional expectations and in MaxWalkSAT they weigh more than all soft
// clauses together, so no soft gain can pay for a hard violation; if the
// rounded assignment still violates some (the derandomisation guarantees
// nothing for them), MaxWalkSAT repairs from it for at least
// Options.RepairSteps flips, and Report.HardViolated says how many remain.
// When the hard clauses are unsatisfiable every number is an upper bound on
// the (nonexistent) optimum; a certified bound below zero proves that they
// are unsatisfiable (Report.Infeasible).
//
// [Exact] solves an instance exactly instead: core-guided MAX-SAT (OLL,
// as RC2 runs it, with stratification by weight and hardening) on a CDCL
// SAT solver with assumptions (sat.go: one small interface, gini behind
// it), one connected component at a time; the answer is proven optimal,
// or at ExactOptions.TimeLimit comes with the cores' certified lower
// bound and the gap (exact.go).
//
// WCNF files are read and written by [Read] and [Write]. [FromProblem] turns a
// clause-shaped hlmrf.Problem (PSL rules that are clauses) into an Instance.
package maxsat

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Lit is a literal in DIMACS form: +v is variable v (1-based) and -v its
// negation. Zero is not a literal.
type Lit int32

// Var returns the literal's 0-based variable index.
func (l Lit) Var() int {
	if l < 0 {
		return int(-l) - 1
	}
	return int(l) - 1
}

// Neg reports whether the literal is negated.
func (l Lit) Neg() bool { return l < 0 }

// Pos returns the positive literal of 0-based variable v.
func Pos(v int) Lit { return Lit(v + 1) }

// Not returns the negative literal of 0-based variable v.
func Not(v int) Lit { return Lit(-(v + 1)) }

// Instance is a weighted MAX-SAT instance (a logical MRF), clauses stored in
// CSR form: clause c has literals Lits[Start[c]:Start[c+1]], weight Weight[c]
// and is hard when Hard[c]. The weight of a hard clause is kept only so that
// files round-trip; it takes no part in the objective. The zero value is an
// empty instance ready for AddClause.
type Instance struct {
	// NumVars is the number of boolean variables (0-based indexes).
	NumVars int
	Weight  []float64
	Hard    []bool
	Start   []int32
	Lits    []Lit
	// Written holds, in clause order, the soft weights that Weight does
	// not hold as they were written: a WCNF weight with more significant
	// digits than a float64 keeps (100000000.123456789 is read as
	// 100000000.12345679) keeps its text here. Nil when every weight is
	// its float64's shortest decimal, as for any instance built in Go. An
	// entry whose text no longer reads as its clause's Weight is ignored.
	// Exact scales the weights from these decimals, and no float64 sum
	// claims an optimum while there is one (RoundedWeights).
	Written []WrittenWeight
}

// NumClauses returns the number of clauses.
func (in *Instance) NumClauses() int { return len(in.Weight) }

// Clause returns the literals of clause c (a view; do not append to it).
func (in *Instance) Clause(c int) []Lit { return in.Lits[in.Start[c]:in.Start[c+1]] }

// AddClause appends a clause. Repeated literals are merged (x | x is x); a
// clause with both x and ~x is kept and is always satisfied. NumVars grows to
// cover the literals. It returns an error for a zero literal or a weight that
// is negative, NaN or infinite (hard clauses may have any weight).
func (in *Instance) AddClause(weight float64, hard bool, lits ...Lit) error {
	if !hard && (weight < 0 || math.IsNaN(weight) || math.IsInf(weight, 0)) {
		return fmt.Errorf("maxsat: clause weight %v is not a finite nonnegative number", weight)
	}
	if len(in.Start) == 0 {
		in.Start = append(in.Start, 0)
	}
	from := len(in.Lits)
	// Repeated literals are found by scanning for short clauses and with a
	// set for long ones, so that a clause of k literals costs O(k).
	var seen map[Lit]struct{}
	if len(lits) > 16 {
		seen = make(map[Lit]struct{}, len(lits))
	}
	for _, l := range lits {
		if l == 0 {
			in.Lits = in.Lits[:from]
			return errors.New("maxsat: 0 is not a literal")
		}
		dup := false
		if seen != nil {
			_, dup = seen[l]
			seen[l] = struct{}{}
		} else {
			for _, m := range in.Lits[from:] {
				if m == l {
					dup = true
					break
				}
			}
		}
		if !dup {
			in.Lits = append(in.Lits, l)
		}
		if v := l.Var() + 1; v > in.NumVars {
			in.NumVars = v
		}
	}
	in.Start = append(in.Start, int32(len(in.Lits)))
	in.Weight = append(in.Weight, weight)
	in.Hard = append(in.Hard, hard)
	return nil
}

// Validate checks the structural invariants of an instance built by hand:
// consistent lengths, monotone offsets, literals nonzero and in range, soft
// weights finite and nonnegative.
func (in *Instance) Validate() error {
	return in.validate(context.Background())
}

// validate is Validate looking at ctx every few thousand literals: it
// returns ctx's error once ctx is done.
func (in *Instance) validate(ctx context.Context) error {
	pl := newPoll(ctx)
	m := len(in.Weight)
	if len(in.Hard) != m {
		return errors.New("maxsat: Weight and Hard have different lengths")
	}
	if m == 0 && len(in.Start) == 0 {
		if len(in.Lits) != 0 {
			return errors.New("maxsat: literals without clauses")
		}
		return nil
	}
	if len(in.Start) != m+1 || in.Start[0] != 0 || int(in.Start[m]) != len(in.Lits) {
		return errors.New("maxsat: Start is not a CSR offset array for the clauses")
	}
	for c := 0; c < m; c++ {
		if err := pl.add(1); err != nil {
			return err
		}
		if in.Start[c] > in.Start[c+1] {
			return fmt.Errorf("maxsat: clause %d: offsets decrease", c)
		}
		if !in.Hard[c] {
			if w := in.Weight[c]; w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("maxsat: clause %d: weight %v is not a finite nonnegative number", c, w)
			}
		}
	}
	for k, l := range in.Lits {
		if err := pl.add(1); err != nil {
			return err
		}
		if l == 0 {
			return fmt.Errorf("maxsat: literal %d is 0", k)
		}
		if l.Var() >= in.NumVars {
			return fmt.Errorf("maxsat: literal %d (%d) is beyond NumVars %d", k, l, in.NumVars)
		}
	}
	// Rounding multiplies one factor per literal: a repeated literal would
	// be counted twice (AddClause merges them).
	mark := make([]int32, in.NumVars)
	for c := 0; c < m; c++ {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return err
		}
		for _, l := range in.Clause(c) {
			s := int32(c + 1)
			if l.Neg() {
				s = -s
			}
			if mark[l.Var()] == s {
				return fmt.Errorf("maxsat: clause %d repeats literal %d", c, l)
			}
			mark[l.Var()] = s
		}
	}
	return nil
}

// SoftWeight returns the total weight of the soft clauses.
func (in *Instance) SoftWeight() float64 {
	var s float64
	for c, w := range in.Weight {
		if !in.Hard[c] {
			s += w
		}
	}
	return s
}

// NumHard returns the number of hard clauses.
func (in *Instance) NumHard() int {
	n := 0
	for _, h := range in.Hard {
		if h {
			n++
		}
	}
	return n
}

// Satisfied reports whether clause c holds under the assignment x.
func (in *Instance) Satisfied(c int, x []bool) bool {
	for _, l := range in.Clause(c) {
		if x[l.Var()] != l.Neg() {
			return true
		}
	}
	return false
}

// Eval returns the weight of the satisfied soft clauses and the number of
// violated hard clauses under x.
func (in *Instance) Eval(x []bool) (satisfied float64, hardViolated int) {
	for c := range in.Weight {
		ok := in.Satisfied(c, x)
		if in.Hard[c] {
			if !ok {
				hardViolated++
			}
		} else if ok {
			satisfied += in.Weight[c]
		}
	}
	return satisfied, hardViolated
}

// IntegerWeights reports whether every soft weight is a whole number and
// their sum is exactly representable, so that the optimum is an integer.
func (in *Instance) IntegerWeights() bool {
	for c, w := range in.Weight {
		if !in.Hard[c] && w != math.Trunc(w) {
			return false
		}
	}
	return in.SoftWeight() < 1<<52
}

// index is the variable -> clause occurrence structure shared by rounding and
// local search. occ[occStart[v]:occStart[v+1]] lists c<<1|neg for every clause
// c in which variable v occurs (neg = 1 when negated). Tautologies (x | ~x)
// are marked and left out of the occurrence lists: they are always satisfied.
type index struct {
	occStart []int32
	occ      []int32
	taut     []bool
}

func buildIndex(in *Instance) *index {
	ix, err := buildIndexCtx(context.Background(), in)
	if err != nil {
		panic(err) // context.Background is never done
	}
	return ix
}

// buildIndexCtx is buildIndex looking at ctx every few thousand literals:
// it returns ctx's error, and no index, once ctx is done.
func buildIndexCtx(ctx context.Context, in *Instance) (*index, error) {
	pl := newPoll(ctx)
	n, m := in.NumVars, in.NumClauses()
	ix := &index{occStart: make([]int32, n+1), taut: make([]bool, m)}
	// Tautology detection with a per-variable marker (clause id + 1, signed).
	mark := make([]int32, n)
	for c := 0; c < m; c++ {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		for _, l := range in.Clause(c) {
			v := l.Var()
			s := int32(c + 1)
			if l.Neg() {
				s = -s
			}
			if mark[v] == -s {
				ix.taut[c] = true
			}
			mark[v] = s
		}
	}
	for c := 0; c < m; c++ {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if ix.taut[c] {
			continue
		}
		for _, l := range in.Clause(c) {
			ix.occStart[l.Var()+1]++
		}
	}
	for v := 0; v < n; v++ {
		ix.occStart[v+1] += ix.occStart[v]
	}
	ix.occ = make([]int32, ix.occStart[n])
	fill := append([]int32(nil), ix.occStart[:n]...)
	for c := 0; c < m; c++ {
		if err := pl.add(int(in.Start[c+1]-in.Start[c]) + 1); err != nil {
			return nil, err
		}
		if ix.taut[c] {
			continue
		}
		for _, l := range in.Clause(c) {
			v := l.Var()
			e := int32(c) << 1
			if l.Neg() {
				e |= 1
			}
			ix.occ[fill[v]] = e
			fill[v]++
		}
	}
	return ix, nil
}

// WeightUnit returns the smallest magnitude of a nonzero soft weight, 1
// when there is none: the scale of CostScale.Tol's floors. A negative
// weight (Markov logic's signed instances: the clause costs |w| when
// satisfied) counts by its magnitude: counted as none, -0.956 beside
// 10^12 left a unit of 10^12, whose floor of 1,000 took a world of cost
// 0.956 for 0, and -0.5 and -0.3 beside 10^9 called a world of 2.3
// optimal where 1.5 was possible.
func (in *Instance) WeightUnit() float64 {
	u := math.Inf(1)
	for c, w := range in.Weight {
		if !in.Hard[c] && w != 0 {
			u = min(u, math.Abs(w))
		}
	}
	if math.IsInf(u, 1) {
		return 1
	}
	return u
}

// CostScale is how an instance's costs are compared: NewCostScale(in).
type CostScale struct {
	m                  int
	total, unit, steps float64
}

// NewCostScale returns the cost comparison of in: its clauses, soft
// weight and unit (Tol), and the step a proof must tell costs apart
// by: 1 for integer weights (IntegerWeights), the least step between
// their costs; else the smallest positive soft weight, a scale rather
// than the least step (weights 1.0 and 1.5 make costs 0.5 apart), so that
// for real weights "optimal" means within the sums' rounding.
func NewCostScale(in *Instance) CostScale {
	var total float64 // the magnitudes: signed weights cancel in SoftWeight, their sums' errors do not
	for c, w := range in.Weight {
		if !in.Hard[c] {
			total += math.Abs(w)
		}
	}
	cs := CostScale{m: in.NumClauses(), total: total, unit: in.WeightUnit()}
	cs.steps = cs.unit
	if in.IntegerWeights() {
		cs.steps = 1
	}
	return cs
}

// Tol is how far apart a cost and a certified bound on it may be and
// still count as one number: the rounding error of float64 sums of up to m
// weights whose magnitudes add up to total (each addition errs by at most
// 2^-53 of the running sum), plus 1e-9 of the cost itself for the bound's
// own optimisation (a dual point found by iterations). It is far below
// the fixed 1e-9 of the total weight it replaces when a few weights are
// huge: beside one weight of 10^12, in a network of fewer than about
// 4,000 clauses, a cost of 1 is no longer taken for 0, nor called optimal
// against a bound of 0 (the sum's own error does grow with m times the
// total: 2.3 for 10,000 clauses there, where float64 cannot tell 1 from
// 0 in such sums anyway).
//
// The floors scale with the weights' unit (Instance.WeightUnit), in place
// of the 1 that both terms had for weights near 1: with every weight
// 10^-9 a floor of 10^-9 took a cost of one clause for 0 and called it
// optimal.
func (cs CostScale) Tol(cost float64) float64 {
	return cs.SumError() + 1e-9*(cs.unit+math.Abs(cost))
}

// SumError bounds the rounding error of a float64 sum of the instance's
// weights, such as a bound found as the total weight less the relaxation's
// upper bound on the weight satisfied: a certified bound is lowered by it
// (beside a weight of 10^12 such a difference came out at 0.666016 for an
// optimum of 0.666).
func (cs CostScale) SumError() float64 {
	return 2.3e-16 * float64(cs.m+2) * (cs.unit + math.Abs(cs.total))
}

// Proven says whether a world of that cost is proven optimal by bound, a
// certified lower bound on the cost of every world that satisfies the
// hard clauses: its cost is 0, or within Tol of the bound while Tol is
// below half a step between costs, and for real weights the sums' error
// is below a millionth of the smallest weight. When the float64 sums cannot tell
// costs a step apart (a weight of 3 beside weights near 2^55, where sums
// are 8 apart) nothing is proven: such a world was called optimal at
// cost 3 where 0 was possible.
func (cs CostScale) Proven(cost, bound float64) bool {
	if cost <= 0 {
		return true
	}
	if cs.steps != 1 && cs.SumError() > 1e-6*cs.unit {
		// Real weights whose sums' rounding error is not far below the
		// smallest weight: two costs (sums of different weights) can be
		// closer than that error, and a bound within it of a cost proves
		// nothing (weights 0.950-0.956 beside 10^12, error 0.002: 0.954
		// was called optimal where 0.952 was possible).
		return false
	}
	tol := cs.Tol(cost)
	return cost <= bound+tol && tol < cs.steps/2
}

// FalsifiedWeight returns the weight of the soft clauses that x falsifies
// (the MaxSAT Evaluation's cost), summed directly rather than as a
// difference so that it is exact for integer weights.
func (in *Instance) FalsifiedWeight(x []bool) float64 {
	var s float64
	for c, w := range in.Weight {
		if !in.Hard[c] && !in.Satisfied(c, x) {
			s += w
		}
	}
	return s
}
