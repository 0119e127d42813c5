package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/lift"
	"github.com/hinge-srl/hinge/pipeline"
)

// timing is one measured duration: wall-clock and process CPU seconds.
type timing struct{ Wall, CPU float64 }

func (t timing) add(u timing) timing { return timing{t.Wall + u.Wall, t.CPU + u.CPU} }

// stopwatch measures wall and CPU time from its start.
type stopwatch struct {
	t0   time.Time
	cpu0 float64
}

func startWatch() stopwatch { return stopwatch{time.Now(), measure.CPUSeconds()} }

func (s stopwatch) elapsed() timing {
	return timing{time.Since(s.t0).Seconds(), measure.CPUSeconds() - s.cpu0}
}

// groundPSL loads dir/name.psl with dir/name.data through the pipeline and
// grounds them with threads workers, timing both. A load error is returned
// as bad input (exit 2) when badLoad is set.
func groundPSL(dir, name string, threads int, badLoad bool) (*hlmrf.Problem, timing, error) {
	sw := startWatch()
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(dir, name+".psl"), Data: filepath.Join(dir, name+".data")})
	if err != nil {
		if badLoad {
			err = &badInputError{err}
		}
		return nil, timing{}, err
	}
	g, err := prog.Ground(ground.Options{Threads: threads})
	if err != nil {
		return nil, timing{}, err
	}
	return g.Problem, sw.elapsed(), nil
}

// sizes are the dimensions of a problem.
type sizes struct{ Vars, Pots, Cons int }

func sizesOf(p *hlmrf.Problem) sizes {
	return sizes{p.NumVars, p.NumPotentials(), p.NumConstraints()}
}

// comparison is the outcome of solving one problem unlifted and lifted,
// runs times each. Times are medians over the runs.
type comparison struct {
	Runs            int
	Orig, Lifted    sizes
	Lift            timing // lift.Lift
	Unlifted        timing // admm.Solve on the ground problem
	LiftedSolve     timing // admm.Solve on the lifted problem with copy weights, plus Expand
	LiftedTotal     timing // Lift + LiftedSolve (median of the per-run sums)
	Iter, LiftedIt  int
	Converged       bool // both solves converged in every run
	Objective       float64
	LiftedObjective float64 // the original objective at the expanded lifted solution
	MaxRelObjDiff   float64 // largest relative objective difference over the runs
	MaxValueDiff    float64 // largest |y_unlifted - y_lifted| over variables and runs
	MaxViolation    float64 // largest hard-constraint violation of either solution
}

// VarReduction, PotReduction and ConReduction are the percentage of
// variables, potentials and constraints that lifting removed.
func (c *comparison) VarReduction() float64 { return reduction(c.Orig.Vars, c.Lifted.Vars) }

// PotReduction is the percentage of potentials lifting removed.
func (c *comparison) PotReduction() float64 { return reduction(c.Orig.Pots, c.Lifted.Pots) }

// ConReduction is the percentage of constraints lifting removed.
func (c *comparison) ConReduction() float64 { return reduction(c.Orig.Cons, c.Lifted.Cons) }

// Speedup is the unlifted solve time over the lifted total (wall).
func (c *comparison) Speedup() float64 { return c.Unlifted.Wall / c.LiftedTotal.Wall }

// SpeedupCPU is the same ratio in CPU seconds.
func (c *comparison) SpeedupCPU() float64 { return c.Unlifted.CPU / c.LiftedTotal.CPU }

// LiftPct is the lifting time as a percentage of the unlifted solve (wall).
func (c *comparison) LiftPct() float64 { return 100 * c.Lift.Wall / c.Unlifted.Wall }

func reduction(before, after int) float64 {
	if before == 0 {
		return 0
	}
	return 100 * float64(before-after) / float64(before)
}

// relDiff is |a-b| relative to the larger magnitude (0 when both are 0).
func relDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d == 0 {
		return 0
	}
	return d / math.Max(math.Abs(a), math.Abs(b))
}

// liftedResult is one timed LHL-MRF run (see liftedRun).
type liftedResult struct {
	lifted      *lift.Lifted
	res         *admm.Result // the lifted solve
	values      []float64    // mapped back to p's variables
	lift, solve timing       // lifting; solving and mapping back
}

// liftedRun lifts p, solves the lifted problem with copy weights and maps
// the answer back, timing the lifting and the rest separately. (lift.Solve
// does the same but also evaluates the original objective and constraints,
// which would be timed with the solve.)
func liftedRun(ctx context.Context, p *hlmrf.Problem, opt admm.Options) (*liftedResult, error) {
	sw := startWatch()
	l, err := lift.Lift(p)
	tl := sw.elapsed()
	if err != nil {
		return nil, fmt.Errorf("lifting: %w", err)
	}
	sw = startWatch()
	res, err := admm.Solve(ctx, l.Problem, l.Options(p, opt))
	if err != nil {
		return nil, fmt.Errorf("lifted solve: %w", err)
	}
	values := l.Expand(res.Values)
	return &liftedResult{lifted: l, res: res, values: values, lift: tl, solve: sw.elapsed()}, nil
}

// compare solves p by ADMM (HL-MRF) and by lifting plus copy-weighted ADMM
// (LHL-MRF), alternating runs times, and checks that the lifted solution
// mapped back has the unlifted objective within objTol (relative). It
// fails on a larger difference or a non-finite objective.
func compare(ctx context.Context, p *hlmrf.Problem, opt admm.Options, runs int, objTol float64) (*comparison, error) {
	c := &comparison{Runs: runs, Orig: sizesOf(p), Converged: true}
	var lifts, unl, lsol, ltot []timing
	for r := range runs {
		// Unlifted.
		runtime.GC()
		sw := startWatch()
		res, err := admm.Solve(ctx, p, opt)
		t := sw.elapsed()
		if err != nil {
			return nil, fmt.Errorf("unlifted solve: %w", err)
		}
		unl = append(unl, t)

		// Lifted.
		runtime.GC()
		lr, err := liftedRun(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		l, lres, values, tl, ts := lr.lifted, lr.res, lr.values, lr.lift, lr.solve
		lifts, lsol, ltot = append(lifts, tl), append(lsol, ts), append(ltot, tl.add(ts))

		obj := p.Objective(values)
		if math.IsNaN(obj) || math.IsInf(obj, 0) || math.IsNaN(res.Objective) || math.IsInf(res.Objective, 0) {
			return nil, fmt.Errorf("run %d: non-finite objective (unlifted %g, lifted %g)", r+1, res.Objective, obj)
		}
		d := relDiff(res.Objective, obj)
		if d > objTol {
			return nil, fmt.Errorf("run %d: lifted objective %.12g differs from unlifted %.12g by %.3g relative (> %g)",
				r+1, obj, res.Objective, d, objTol)
		}
		c.MaxRelObjDiff = math.Max(c.MaxRelObjDiff, d)
		for j := range values {
			c.MaxValueDiff = math.Max(c.MaxValueDiff, math.Abs(values[j]-res.Values[j]))
		}
		lviol, _, _ := admm.Check(p, values, opt.ConstraintTol)
		c.MaxViolation = math.Max(c.MaxViolation, math.Max(res.MaxViolation, lviol))
		c.Converged = c.Converged && res.Converged() && lres.Converged()
		c.Lifted = sizesOf(l.Problem)
		c.Iter, c.LiftedIt = res.Iterations, lres.Iterations
		c.Objective, c.LiftedObjective = res.Objective, obj
	}
	c.Lift, c.Unlifted, c.LiftedSolve, c.LiftedTotal = medianTiming(lifts), medianTiming(unl), medianTiming(lsol), medianTiming(ltot)
	return c, nil
}

// medianTiming takes the median of the wall times and, separately, of the
// CPU times.
func medianTiming(ts []timing) timing {
	w := make([]float64, len(ts))
	u := make([]float64, len(ts))
	for i, t := range ts {
		w[i], u[i] = t.Wall, t.CPU
	}
	return timing{measure.Median(w), measure.Median(u)}
}
