package optimctx

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// A cancelled context stops L-BFGS at its next iteration; otherwise the
// wrapped test decides.
func TestConverger(t *testing.T) {
	p := optimize.Problem{
		Func: func(x []float64) float64 { return (x[0]-3)*(x[0]-3) + (x[1]+1)*(x[1]+1) },
		Grad: func(g, x []float64) { g[0], g[1] = 2*(x[0]-3), 2*(x[1]+1) },
	}
	run := func(ctx context.Context) *optimize.Result {
		s := &optimize.Settings{GradientThreshold: 1e-12, Converger: Converger{ctx, &optimize.FunctionConverge{Absolute: 1e-14, Iterations: 20}}}
		r, _ := optimize.Minimize(p, []float64{0, 0}, s, &optimize.LBFGS{})
		return r
	}
	if r := run(context.Background()); r.Status == optimize.RuntimeLimit || r.X[0] < 2.999 || r.X[0] > 3.001 {
		t.Fatalf("not cancelled: %v at %v", r.Status, r.X)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := run(ctx); r.Status != optimize.RuntimeLimit {
		t.Fatalf("cancelled: status %v", r.Status)
	}
}
