// Package optimctx lets a context stop gonum's optimisers: Converger wraps
// a convergence test and reports optimize.RuntimeLimit once the context is
// done, so that optimize.Minimize returns at its next iteration.
package optimctx

import (
	"context"

	"gonum.org/v1/gonum/optimize"
)

// Converger is Converger's test, stopped by Ctx: once Ctx is done it
// reports optimize.RuntimeLimit.
type Converger struct {
	Ctx context.Context
	optimize.Converger
}

// Converged implements optimize.Converger.
func (c Converger) Converged(loc *optimize.Location) optimize.Status {
	if c.Ctx.Err() != nil {
		return optimize.RuntimeLimit
	}
	return c.Converger.Converged(loc)
}
