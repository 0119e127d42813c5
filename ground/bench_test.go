package ground

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/hinge-srl/hinge/ground/groundtest"
)

// transitivitySizes are generation parameters for about 10k, 100k and 1M
// ground potentials (degree 10, half the links observed).
var transitivitySizes = []struct {
	name   string
	people int
}{
	{"10k", 130},
	{"100k", 1300},
	{"1M", 13000},
}

// BenchmarkGroundTransitivity grounds 1: Knows(A,B) & Knows(B,C) ->
// Knows(A,C) ^2 on generated data (groundtest.Transitivity) and reports
// ground potentials per second and allocated bytes per potential. The
// store's indexes are built in the first iteration and reused after (as when
// several rules are grounded over one store); the bench/ground program
// measures cold runs on fresh stores, CPU time and heap in use.
func BenchmarkGroundTransitivity(b *testing.B) {
	for _, size := range transitivitySizes {
		m, s, err := groundtest.Transitivity(size.people, 10, 0.5, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", size.name, threads), func(b *testing.B) {
				var pots int
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					res, err := Ground(m, s, Options{Threads: threads})
					if err != nil {
						b.Fatal(err)
					}
					pots = res.Problem.NumPotentials()
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(pots)*float64(b.N)/b.Elapsed().Seconds(), "potentials/s")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(pots), "B/potential")
				b.ReportMetric(float64(pots), "potentials")
			})
		}
	}
}

// BenchmarkGroundMetered is BenchmarkGroundTransitivity's 1M case with and
// without Options.MemoryLimit, which the command line always sets: the
// cost of estimating each rule and metering what workers emit.
func BenchmarkGroundMetered(b *testing.B) {
	m, s, err := groundtest.Transitivity(13000, 10, 0.5, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		for _, limit := range []int64{0, 16 << 30} {
			b.Run(fmt.Sprintf("threads=%d/limit=%d", threads, limit>>30), func(b *testing.B) {
				var pots int
				for b.Loop() {
					res, err := Ground(m, s, Options{Threads: threads, MemoryLimit: limit})
					if err != nil {
						b.Fatal(err)
					}
					pots = res.Problem.NumPotentials()
				}
				b.ReportMetric(float64(pots)*float64(b.N)/b.Elapsed().Seconds(), "potentials/s")
			})
		}
	}
}
