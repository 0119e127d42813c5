package admm

import (
	"fmt"
	"math"
)

// Options configure the solver. Start from DefaultOptions: New rejects a zero
// Rho or CheckEvery rather than guessing.
type Options struct {
	// Rho is the ADMM step size (penalty parameter), > 0: the penalty
	// throughout with RhoFixed, the first one with an adaptive policy.
	Rho float64
	// RhoPolicy says whether and how the penalty adapts during a solve
	// (rho.go). The zero value is RhoFixed.
	RhoPolicy RhoPolicy
	// EpsAbs and EpsRel are the absolute and relative tolerances of the
	// primal and dual residual test (Boyd et al. 2011, section 3.3.1), >= 0.
	EpsAbs, EpsRel float64
	// MaxIter bounds the iterations of one Solve call (>= 0; 0 runs none).
	MaxIter int
	// CheckEvery is how often (in iterations, >= 1) residuals, constraint
	// violations and the context are checked; a Solve also checks at its
	// last iteration.
	CheckEvery int
	// Threads is the number of worker goroutines; 0 means GOMAXPROCS.
	// Results do not depend on it (see the package documentation).
	Threads int
	// ConstraintTol is how far a hard constraint may be violated at the
	// consensus point for the solver to stop: constraint j counts as
	// satisfied when its violation (max(a.y-c, 0) for <=, |a.y-c| for =) is
	// at most ConstraintTol*max(1, ||a_j||_2). The scaling makes the test
	// invariant to writing a constraint as 2y1+2y2 <= 2 instead of
	// y1+y2 <= 1 (for rows with norm >= 1), and matches how a consensus
	// error e in the variables shows up in a row: |a.(z-x)| <= ||a||*||z-x||.
	ConstraintTol float64
	// GapTol is the relative duality gap the solver must also reach to
	// stop, >= 0: (objective - lower bound) <= GapTol*max(f, |objective|)
	// with f = min(1, 0.01 * the sum of the potentials' weights),
	// where the lower bound is the Lagrangian bound of the current duals
	// (see LowerBound), so the objective at stopping is certified to be
	// within that much of the optimum (exactly when the hard constraints
	// hold at the consensus point, to within ConstraintTol otherwise). 0
	// turns the test off, leaving PSL's residual test alone, and the bound
	// is then not computed (Result.LowerBound is NaN).
	GapTol float64
	// Progress, when non-nil, is called at every residual check from the
	// goroutine that called Solve (other workers wait meanwhile).
	Progress func(Progress)
	// Copies, when non-nil, weights the local copies: one positive number
	// per potential term (in the order of p.Var) followed by one per
	// constraint term (p.CVar). A copy of weight m is penalised with rho*m
	// instead of rho, and consensus takes the m-weighted mean of the copies;
	// residuals and tolerances are the weighted ones. This is consensus ADMM
	// on a lifted problem whose terms each stand for m original copies
	// (lift.Lifted.Copies): from a symmetric start it retraces plain ADMM on
	// the original problem iterate for iterate, so it needs the same number of
	// iterations over fewer terms. nil means every weight is 1. Weights
	// that are all equal (a lifted problem of k disjoint copies) run as fast
	// as unweighted ones; others cost a weight read per copy in consensus.
	Copies []float64
	// ConstraintNorms, when non-nil, has one number per constraint: the
	// ||a_j|| its tolerance ConstraintTol*max(1, ||a_j||) is scaled by,
	// in place of its own row's norm. A lifted constraint whose class
	// merges k interchangeable variables has a coefficient k where the
	// original has k coefficients of 1, a norm k for the original's
	// sqrt(k), and the same violation at every lifted point: lift.Solve
	// passes the original constraints' norms so that the lifted run stops
	// where the original's test holds, not up to sqrt(k) times past it.
	ConstraintNorms []float64
}

// Progress is the state of a solve at a residual check.
type Progress struct {
	Iteration      int     // iterations done in this Solve call
	Objective      float64 // objective at the consensus point
	PrimalResidual float64
	DualResidual   float64
	PrimalTol      float64 // eps_pri: the primal residual must fall to this
	DualTol        float64 // eps_dual: the dual residual must fall to this
	MaxViolation   float64 // largest hard-constraint violation at the consensus point
	Rho            float64 // the penalty of the iterations up to this check
}

// DefaultConstraintTol is the default Options.ConstraintTol. The residual
// test at the default tolerances leaves objectives about 1e-3 (relative)
// from optimal; demanding constraints much tighter than that mostly buys
// iterations (bench/admm/README.md, "Choosing the defaults").
const DefaultConstraintTol = 1e-4

// gapFloorShare is the share of the potentials' total weight below which
// the gap test's floor falls from 1: a problem whose weights are all 10^-4
// times the smokers example's (same optimum, objective 3e-5) stopped
// "converged" at 3.6 times its optimal objective, the absolute gap 1e-3
// being more than its whole objective.
const gapFloorShare = 1e-2

// GapFloor is the smallest |objective| a relative duality gap is taken
// against for a problem whose potentials' weights sum to wsum: 1, or
// wsum/100 when that is smaller (the Options.GapTol test; package dcd's
// too). With no weight at all (wsum 0) the objective is 0 everywhere and
// the floor is 1: a floor of 0 asked the bound to reach 0 exactly, and a
// bound rounded to -1e-17 held a feasible problem to its iteration limit.
func GapFloor(wsum float64) float64 {
	if wsum == 0 {
		return 1
	}
	return min(1, gapFloorShare*wsum)
}

// RelativeGap is (objective - lowerBound) / max(floor, |objective|), the
// gap the Options.GapTol test compares (floor from GapFloor; 0, as in a
// result that never set it, reads as 1).
func RelativeGap(objective, lowerBound, floor float64) float64 {
	if floor == 0 {
		floor = 1
	}
	return (objective - lowerBound) / max(floor, math.Abs(objective))
}

// DefaultGapTol is the default Options.GapTol: at PSL's residual
// tolerances alone the objective can stop measurably further than 1e-3
// (relative) from the optimum on problems of linear hinges (2.3e-3 on one of
// the CLP oracle problems in the tests); the gap test makes 1e-3 a
// certified bound.
const DefaultGapTol = 1e-3

// DefaultOptions returns the defaults of PSL 2.3's ADMM reasoner: rho 1,
// EpsAbs 1e-5, EpsRel 1e-3, 25000 iterations, checks every 50 iterations,
// all cores, ConstraintTol DefaultConstraintTol; and hinge's additions: the
// gap test with GapTol DefaultGapTol, and rho adapted by residual balancing
// (RhoBalance; bench/convergence measures it against fixed penalties and
// RhoSpectral). RhoFixed restores PSL's fixed rho exactly.
func DefaultOptions() Options {
	return Options{
		Rho:           1,
		EpsAbs:        1e-5,
		EpsRel:        1e-3,
		MaxIter:       25000,
		CheckEvery:    50,
		Threads:       0,
		ConstraintTol: DefaultConstraintTol,
		GapTol:        DefaultGapTol,
		RhoPolicy:     RhoBalance,
	}
}

// Validate reports the first option that is out of range.
func (o Options) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !(o.Rho > 0) || !finite(o.Rho):
		return fmt.Errorf("admm: rho %v must be a finite number > 0", o.Rho)
	case o.RhoPolicy < RhoFixed || o.RhoPolicy > rhoPolicies:
		return fmt.Errorf("admm: unknown rho policy %d", o.RhoPolicy)
	case !(o.EpsAbs >= 0) || !finite(o.EpsAbs):
		return fmt.Errorf("admm: eps-abs %v must be a finite number >= 0", o.EpsAbs)
	case !(o.EpsRel >= 0) || !finite(o.EpsRel):
		return fmt.Errorf("admm: eps-rel %v must be a finite number >= 0", o.EpsRel)
	case o.MaxIter < 0:
		return fmt.Errorf("admm: max-iter %d must be >= 0", o.MaxIter)
	case o.CheckEvery < 1:
		return fmt.Errorf("admm: check-every %d must be >= 1", o.CheckEvery)
	case o.Threads < 0:
		return fmt.Errorf("admm: threads %d must be >= 0 (0 means all cores)", o.Threads)
	case !(o.GapTol >= 0) || !finite(o.GapTol):
		return fmt.Errorf("admm: gap-tol %v must be a finite number >= 0", o.GapTol)
	case !(o.ConstraintTol >= 0) || !finite(o.ConstraintTol):
		return fmt.Errorf("admm: constraint tolerance %v must be a finite number >= 0", o.ConstraintTol)
	}
	return nil
}
