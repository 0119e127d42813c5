package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

// stopwatch measures wall-clock seconds from its start.
type stopwatch struct{ t0 time.Time }

func startWatch() stopwatch          { return stopwatch{time.Now()} }
func (s stopwatch) elapsed() float64 { return time.Since(s.t0).Seconds() }

// instance is one network to solve: a Markov logic network (net), or a
// clause-shaped ground PSL problem (prob, grounded once in groundSec).
type instance struct {
	family, name string
	symmetry     float64 // copies per community template (communities and symmetry families)
	people       int
	net          *mln.Network
	prob         *hlmrf.Problem
	groundSec    float64
}

// Modes: ground MAP, lifted MAP, lifted MAP rounding every atom.
const (
	modeGround = iota
	modeLifted
	modeLiftedAtoms
	modes
)

var modeNames = [modes]string{"ground", "lifted", "lifted-atoms"}

// outcome is one MAP run.
type outcome struct {
	ground, mapSec float64 // wall seconds: grounding; MAP after grounding (relaxation, lifting, solve, certificate, rounding, mapping back)
	// mapCPU is the process CPU seconds of the MAP after grounding: for a
	// Markov logic network, those of the whole MAP call less those of a
	// separate grounding just before it (the grounding is deterministic).
	mapCPU        float64
	rep           maxsat.Report
	cost, bound   float64 // violated soft weight; certified lower bound on it
	vars, clauses int
	hard          int
}

// threads is the grounding and ADMM threads (-threads; 0: all cores).
var threads int

// profile, when set (-cpuprofile), receives a CPU profile of the lifted runs.
var profile io.Writer

// solve runs one MAP of inst in mode m.
func solve(ctx context.Context, inst *instance, m int, method string, flips int) (*outcome, error) {
	if profile != nil && m == modeLifted {
		if err := pprof.StartCPUProfile(profile); err == nil {
			defer pprof.StopCPUProfile()
		}
	}
	opt := maxsat.DefaultOptions()
	opt.Lift = m != modeGround
	opt.AtomRounding = m == modeLiftedAtoms
	opt.ADMM.Threads = threads
	if inst.net != nil {
		mo := mln.DefaultMAPOptions()
		mo.Method = method
		mo.MaxSAT = opt
		mo.MaxSAT.LocalSearch = flips
		mo.Ground.Threads = threads
		runtime.GC() // the previous run's garbage is not this run's cost
		c0 := measure.CPUSeconds()
		if _, _, err := inst.net.GroundClauses(mo.Ground); err != nil {
			return nil, err
		}
		c1 := measure.CPUSeconds()
		res, err := inst.net.MAP(ctx, mo)
		if err != nil {
			return nil, err
		}
		c2 := measure.CPUSeconds()
		p := res.Ground.Problem
		return &outcome{ground: res.Seconds.Ground, mapSec: res.Seconds.Solve, mapCPU: max(0, (c2-c1)-(c1-c0)), rep: res.Report, cost: res.Cost, bound: res.LowerBound,
			vars: p.NumVars, clauses: p.NumPotentials() + p.NumConstraints(), hard: p.NumConstraints()}, nil
	}
	if method == mln.MethodLPWalkSAT {
		opt.LocalSearch = flips
	}
	runtime.GC()
	sw := startWatch()
	c0 := measure.CPUSeconds()
	res, err := maxsat.SolveProblem(ctx, inst.prob, opt)
	if err != nil {
		return nil, err
	}
	r := res.Report
	return &outcome{ground: inst.groundSec, mapSec: sw.elapsed(), mapCPU: measure.CPUSeconds() - c0, rep: r, cost: r.WeightTotal - r.WeightSatisfied,
		bound: math.Max(0, r.WeightTotal-r.LPUpperBound), vars: inst.prob.NumVars,
		clauses: inst.prob.NumPotentials() + inst.prob.NumConstraints(), hard: inst.prob.NumConstraints()}, nil
}

// result is an instance's runs in every mode and the checks on them.
type result struct {
	inst *instance
	runs [modes][]*outcome
	// Checks, over all runs: the largest difference between the lifted and
	// ground certified bounds and LP values (relative to the total soft
	// weight), whether a lifted world violated hard clauses that the ground
	// one satisfied, the smallest certified ratio (satisfied weight over
	// the certified upper bound; the rounding guarantees 3/4 of the LP
	// value) of any world.
	boundDiff, lpDiff float64
	hardWorse         bool
	minRatio          float64
}

// measureInstance runs inst runs times in every mode, alternating the modes.
func measureInstance(ctx context.Context, inst *instance, runs int, method string, flips int) (*result, error) {
	r := &result{inst: inst, minRatio: math.Inf(1)}
	for range runs {
		for m := range modes {
			o, err := solve(ctx, inst, m, method, flips)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", inst.name, modeNames[m], err)
			}
			r.runs[m] = append(r.runs[m], o)
		}
		g := r.runs[modeGround][len(r.runs[modeGround])-1]
		W := 1 + g.rep.WeightTotal
		for _, m := range []int{modeLifted, modeLiftedAtoms} {
			l := r.runs[m][len(r.runs[m])-1]
			r.boundDiff = math.Max(r.boundDiff, math.Abs(l.rep.LPUpperBound-g.rep.LPUpperBound)/W)
			r.lpDiff = math.Max(r.lpDiff, math.Abs(l.rep.LPPrimalValue-g.rep.LPPrimalValue)/W)
			if g.rep.HardViolated == 0 && l.rep.HardViolated > 0 {
				r.hardWorse = true
			}
		}
		for m := range modes {
			o := r.runs[m][len(r.runs[m])-1]
			ratio := 0.0
			if o.rep.HardViolated == 0 {
				ratio = o.rep.CertifiedRatio
			}
			r.minRatio = math.Min(r.minRatio, ratio)
		}
	}
	return r, nil
}

// ok reports whether the checks hold: lifted and ground bounds and LP values
// within tol (relative to the soft weight), no lifted world worse for the
// hard clauses, every world at least 3/4 of the certified bound.
func (r *result) ok(tol float64) bool {
	return r.boundDiff <= tol && r.lpDiff <= tol && !r.hardWorse && r.minRatio >= 0.75
}

// median of f over mode m's runs.
func (r *result) median(m int, f func(*outcome) float64) float64 {
	xs := make([]float64, len(r.runs[m]))
	for i, o := range r.runs[m] {
		xs[i] = f(o)
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// last returns mode m's last run (costs and bounds are the same in every
// run: the pipeline is deterministic).
func (r *result) last(m int) *outcome { return r.runs[m][len(r.runs[m])-1] }

func mapSec(o *outcome) float64    { return o.mapSec }
func mapCPU(o *outcome) float64    { return o.mapCPU }
func relaxSec(o *outcome) float64  { return o.rep.Seconds.Relax }
func groundSec(o *outcome) float64 { return o.ground }
func roundSec(o *outcome) float64  { return o.rep.Seconds.Round }
func liftSec(o *outcome) float64 {
	if o.rep.Lifted == nil {
		return 0
	}
	return o.rep.Lifted.Seconds.Lift
}
func liftedSolveSec(o *outcome) float64 {
	if o.rep.Lifted == nil {
		return 0
	}
	return o.rep.Lifted.Seconds.Solve
}
func certifySec(o *outcome) float64 {
	if o.rep.Lifted == nil {
		return 0
	}
	return o.rep.Lifted.Seconds.Certify
}
