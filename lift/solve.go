package lift

import (
	"context"
	"math"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
)

// SolveResult is a lifted solve mapped back to the original problem.
type SolveResult struct {
	// Result describes the original problem: Values for every original
	// variable, and Objective and the constraint figures evaluated on the
	// original problem at those values; Iterations, Status and residuals
	// are the lifted solve's, LowerBound the lifted problem's bound plus the
	// dropped constants (a bound on the original problem's optimum, which
	// the lifted problem shares).
	admm.Result
	// Lifted is the lifted problem that was solved.
	Lifted *Lifted
	// LiftSeconds is the time spent lifting.
	LiftSeconds float64
}

// Solve lifts p, solves the lifted problem by consensus ADMM with copy
// weights (admm.Options.Copies = Lifted.Copies, so the lifted iterates follow
// the unlifted ones from the symmetric cold start), and maps the answer back.
// Any opt.Copies is replaced by the lifting's, and the lifted constraints'
// tolerances are scaled by the original constraints' norms
// (ConstraintNorms), so that the lifted run stops where the original's
// constraint test holds. Lifting errors (including an
// *InfeasibleError) are returned with a nil result; a cancelled solve
// returns the result so far with the context's error, like admm.Solve.
func Solve(ctx context.Context, p *hlmrf.Problem, opt admm.Options) (*SolveResult, error) {
	t0 := time.Now()
	l, err := LiftWithin(p, opt.ConstraintTol)
	if err != nil {
		return nil, err
	}
	liftSec := time.Since(t0).Seconds()
	res, err := admm.Solve(ctx, l.Problem, l.Options(p, opt))
	if res == nil {
		return nil, err
	}
	out := &SolveResult{Result: *res, Lifted: l, LiftSeconds: liftSec}
	out.Values = l.Expand(res.Values)
	out.Objective = p.Objective(out.Values)
	out.LowerBound += l.Offset
	out.MaxViolation, out.Violated, out.Worst = admm.Check(p, out.Values, opt.ConstraintTol)
	return out, err
}

// Options returns opt set up to solve the lifted problem as the original
// p (the problem l was lifted from) would be solved: copy weights (Copies)
// and the original constraints' tolerances (ConstraintNorms). lift.Solve
// uses it; so should any caller that solves l.Problem itself.
func (l *Lifted) Options(p *hlmrf.Problem, opt admm.Options) admm.Options {
	opt.Copies = l.Copies
	opt.ConstraintNorms = l.ConstraintNorms(p)
	return opt
}

// ConstraintNorms returns, for each constraint of the lifted problem, the
// smallest Euclidean norm of the coefficients of the original constraints
// of its class in p (the problem l was lifted from):
// admm.Options.ConstraintNorms for solving the lifted problem with the
// original's tolerances. Members of a class have the same summed
// coefficients on each variable class, so at a lifted point every member is
// violated by the same amount, but their own coefficients may differ
// (3y1 - y2 + y3 + y4 + y5 beside y1 + ... + y5, both summing to 5 on one
// class): the member with the smallest norm has the tightest tolerance.
func (l *Lifted) ConstraintNorms(p *hlmrf.Problem) []float64 {
	out := make([]float64, l.Problem.NumConstraints())
	for c := range out {
		out[c] = math.Inf(1)
	}
	for j, c := range l.ConClass {
		if c >= 0 {
			out[c] = min(out[c], p.ConstraintNorm(j))
		}
	}
	return out
}
