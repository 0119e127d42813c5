package admm

import (
	"context"
	"syscall"
	"testing"

	"hinge/admm/admmtest"
)

func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func measure(f func(), reps, m int) float64 {
	cpu := 1e18
	for round := 0; round < 7; round++ {
		c0 := cpuNow()
		for r := 0; r < reps; r++ {
			f()
		}
		cpu = min(cpu, float64(cpuNow()-c0)/float64(reps*m))
	}
	return cpu
}

func TestScratchPhases(t *testing.T) {
	for _, m := range []int{10000, 100000, 1000000} {
		p := admmtest.Random(admmtest.Config{Vars: m / 4, Potentials: m, MinArity: 3, MaxArity: 3, Power: 2, Seed: 1})
		opt := DefaultOptions()
		opt.MaxIter = 100
		opt.Threads = 1
		s, _ := New(p, opt)
		s.Solve(context.Background(), nil)
		reps := max(1, int(1e7)/m)
		l := measure(func() { s.localRuns(0, 0, s.m) }, reps, m)
		c := measure(func() { consensus(s.tstart, s.tcopy, s.s, s.z, 0, s.n) }, reps, m)
		t.Logf("m=%d local %.2f consensus %.2f cpu ns/pot", m, l, c)
	}
}
