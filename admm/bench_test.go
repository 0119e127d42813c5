package admm

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"hinge/admm/admmtest"
	"hinge/hlmrf"
	"hinge/internal/measure"
)

// BenchmarkIteration measures ns per potential-iteration: each b.Loop round
// continues the same solver for 100 iterations (two residual checks, as in a
// real solve with CheckEvery 50) with convergence disabled. Problems are
// 3-variable hinges (squared or linear) with random coefficients and
// constants (admmtest.Random) over m/4 variables, so each variable has about
// 12 local copies; their optimum is far from every potential being
// satisfied, so no run reaches an exact fixed point and stops early.
//
//	go test -run '^$' -bench Iteration -benchtime 20x ./admm
//
// Besides wall time (ns/pot-iter) it reports the process CPU time per
// potential-iteration (cpu-ns/pot-iter), which is what to read on a machine
// shared with other work; with two threads it is the sum over both cores,
// including time spent waiting at barriers.
func BenchmarkIteration(b *testing.B) {
	for _, kind := range []struct {
		name  string
		power uint8
	}{{"sq3", 2}, {"lin3", 1}} {
		for _, m := range []int{1e4, 1e5, 1e6} {
			p := admmtest.Random(admmtest.Config{Vars: m / 4, Potentials: m, MinArity: 3, MaxArity: 3, Power: kind.power, Seed: 1})
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/pots=%d/threads=%d", kind.name, m, threads), func(b *testing.B) {
					benchIterations(b, p, threads)
				})
			}
		}
	}
}

func benchIterations(b *testing.B, p *hlmrf.Problem, threads int) {
	opt := DefaultOptions()
	// Iterations only: no convergence, and no Lagrangian bound at the
	// last iteration (GapTol 0), which would add about five iterations' worth.
	opt.EpsAbs, opt.EpsRel, opt.GapTol = 0, 0, 0
	opt.MaxIter = 100
	opt.Threads = threads
	s, err := New(p, opt)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Solve(ctx, nil); err != nil { // warm up: page in, settle
		b.Fatal(err)
	}
	iters := 0
	cpu0 := measure.CPUTime()
	for b.Loop() {
		res, err := s.Solve(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.Iterations != opt.MaxIter {
			b.Fatalf("solve stopped after %d of %d iterations", res.Iterations, opt.MaxIter)
		}
		iters += res.Iterations
	}
	cpu := measure.CPUTime() - cpu0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters)/float64(p.NumPotentials()), "ns/pot-iter")
	b.ReportMetric(float64(cpu)/float64(iters)/float64(p.NumPotentials()), "cpu-ns/pot-iter")
}

// BenchmarkBarrier measures one barrier round with two goroutines and no
// work between rounds: the synchronisation cost an iteration pays twice.
func BenchmarkBarrier(b *testing.B) {
	bar := newBarrier(2)
	var final atomic.Int64 // the helper's last round, set by the main goroutine before it
	done := make(chan struct{})
	go func() {
		defer close(done)
		for round := int64(1); ; round++ {
			bar.wait()
			if final.Load() == round {
				return
			}
		}
	}()
	rounds := int64(0)
	for b.Loop() {
		bar.wait()
		rounds++
	}
	final.Store(rounds + 1)
	bar.wait()
	<-done
}
