package admm

import (
	"fmt"
	"strconv"
)

// Status says why a Solve stopped, as gonum's optimize.Status does. The
// zero value is no status (no solve has ended).
type Status int

const (
	// Converged: the residuals met their tolerances, every hard constraint
	// holds within its tolerance and, when Options.GapTol > 0, the objective
	// is within GapTol of the Lagrangian lower bound.
	Converged Status = iota + 1
	// IterationLimit: Options.MaxIter iterations ran without converging.
	IterationLimit
	// Cancelled: the context was cancelled; the result is the iterate
	// where the solve stopped, with the residuals of the last check.
	Cancelled
	// Infeasible: the solve stopped without converging and the duals prove
	// the hard constraints infeasible within [0,1] (the Lagrangian lower
	// bound is +Inf).
	Infeasible
	// NumericalFailure: a residual or the objective became non-finite
	// (coefficients, constants or weights too large in magnitude).
	NumericalFailure
)

var statusNames = [...]string{
	0:                "no status",
	Converged:        "converged",
	IterationLimit:   "iteration limit",
	Cancelled:        "cancelled",
	Infeasible:       "infeasible",
	NumericalFailure: "numerical failure",
}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the status as String does, so JSON reports carry
// "converged" rather than a number.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (s *Status) UnmarshalText(b []byte) error {
	for i, name := range statusNames {
		if name == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("admm: unknown status %q", b)
}
