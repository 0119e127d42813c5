package ground

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
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

// BenchmarkManyConjuncts grounds 1: A(X) & ... & A(X) -> B(X) with 10^4 and
// 10^5 conjuncts over one observed A and one target B: planning a rule is
// linear in its atoms when its variables are few (each step no longer
// rescans every remaining atom; 80,000 conjuncts took 32 s before).
func BenchmarkManyConjuncts(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		m := model.New()
		a, _ := m.AddPredicate("A", 1, true)
		bp, _ := m.AddPredicate("B", 1, false)
		src := "1: " + strings.Repeat("A(X) & ", n-1) + "A(X) -> B(X)\n"
		if err := syntax.ParseModel("many.psl", []byte(src), m); err != nil {
			b.Fatal(err)
		}
		s := store.New(m)
		if err := s.AddObservation(a, []string{"x"}, 1); err != nil {
			b.Fatal(err)
		}
		if err := s.AddTarget(bp, []string{"x"}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				res, err := Ground(m, s, Options{Threads: 1})
				if err != nil {
					b.Fatal(err)
				}
				if res.Problem.NumPotentials() != 1 {
					b.Fatalf("%d potentials, want 1", res.Problem.NumPotentials())
				}
			}
		})
	}
}
