package admm

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/measure"
)

// benchProblem is one generated problem of the iteration benchmarks.
type benchProblem struct {
	name string
	p    *hlmrf.Problem
}

// benchProblems are the problems of BenchmarkIteration and BenchmarkTouch:
// each kind (admmtest.BenchConfig) with m = 10^4, 10^5 and 10^6 potentials
// over m/4 variables, so each variable has about 12 local copies. In sq3
// and lin3 a potential's variables are drawn uniformly, so no order of the
// problem keeps them near each other in memory; sq3local is a small-world
// problem. Their optimum is far from every potential being satisfied, so no
// run reaches an exact fixed point and stops early.
func benchProblems(kinds ...string) []benchProblem {
	var out []benchProblem
	for _, kind := range kinds {
		for _, m := range []int{1e4, 1e5, 1e6} {
			c, err := admmtest.BenchConfig(kind, m, m/4, 1)
			if err != nil {
				panic(err)
			}
			out = append(out, benchProblem{fmt.Sprintf("%s/pots=%d", kind, m), admmtest.Random(c)})
		}
	}
	return out
}

// BenchmarkIteration measures ns per potential-iteration: each b.Loop round
// continues the same solver for 100 iterations (two residual checks, as in a
// real solve with CheckEvery 50) with convergence disabled, on
// benchProblems.
//
//	go test -run '^$' -bench Iteration -benchtime 20x ./admm
//
// Besides wall time (ns/pot-iter) it reports the process CPU time per
// potential-iteration (cpu-ns/pot-iter), which is what to read on a machine
// shared with other work; with two threads it is the sum over both cores,
// including time spent waiting at barriers.
func BenchmarkIteration(b *testing.B) {
	for _, bp := range benchProblems("sq3", "lin3", "sq3local") {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", bp.name, threads), func(b *testing.B) {
				benchIterations(b, bp.p, threads)
			})
		}
	}
}

// BenchmarkTouch measures the memory floor under BenchmarkIteration's
// one-thread figure: one pass over the squared-hinge problems' potentials,
// in the solver's layout, that only reads each of a potential's three
// variables' consensus values and adds their sum into each variable's
// accumulator. That is the scattered memory traffic every local step makes,
// without the potentials' own state and arithmetic, the consensus step or
// the residual checks, so no iteration can cost less; where the variables
// outgrow the caches (10^6 random potentials: 250,000 variables, 4 MB of
// consensus values and accumulators against 1 MiB of L2), this floor alone
// is set by how many scattered cache misses the core keeps in flight, and
// on a machine whose L3 is shared with other work it moves with that work:
// compare it with BenchmarkIteration in the same batch.
//
//	go test -run '^$' -bench Touch -benchtime 100x ./admm
func BenchmarkTouch(b *testing.B) {
	for _, bp := range benchProblems("sq3", "sq3local") {
		b.Run(bp.name, func(b *testing.B) {
			s, err := New(bp.p, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			if len(s.runs) != 1 || s.runs[0].arity != 3 {
				b.Fatalf("want one run of 3-variable potentials, got %+v", s.runs)
			}
			vars := rows[int32, [3]int32](s.vars)
			z, acc := s.z, make([]float64, s.n)
			touch3(vars, z, acc) // page in
			for b.Loop() {
				touch3(vars, z, acc)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vars)), "ns/pot")
		})
	}
}

// touch3 is BenchmarkTouch's pass.
func touch3(vars [][3]int32, z, acc []float64) {
	for i := range vars {
		v := &vars[i]
		t := z[v[0]] + z[v[1]] + z[v[2]]
		acc[v[0]] += t
		acc[v[1]] += t
		acc[v[2]] += t
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
