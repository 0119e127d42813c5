package lift

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/measure"
)

// clauseProblem is a random PSL-like ground problem: m potentials over m/3
// variables, each the Lukasiewicz distance to satisfaction of a clause of 3
// literals with random signs, weights from three rule weights, linear or
// squared. Random structure: after refinement almost every node is alone in
// its class, which is refinement's hardest case.
func clauseProblem(m int, seed uint64) *hlmrf.Problem {
	rng := rand.New(rand.NewPCG(seed, 11))
	n := max(m/3, 3)
	p := &hlmrf.Problem{}
	p.AddVars(n)
	var vars [3]int32
	var coefs [3]float64
	for range m {
		c := 1.0
		for t := range vars {
			v := int32(rng.IntN(n))
			for t > 0 && (v == vars[0] || v == vars[t-1]) {
				v = int32(rng.IntN(n))
			}
			vars[t] = v
			if rng.IntN(2) == 0 {
				coefs[t] = -1
			} else {
				coefs[t] = 1
				c--
			}
		}
		p.AddPotential(float64(1+rng.IntN(3)), c, uint8(1+rng.IntN(2)), 0, vars[:], coefs[:])
	}
	return p
}

// symmetricProblem is 10 permuted copies of clauseProblem(m/10).
func symmetricProblem(m int, seed uint64) *hlmrf.Problem {
	base := clauseProblem(m/10, seed)
	p, _ := planted(rand.New(rand.NewPCG(seed, 12)), base, make([]float64, base.NumVars), 10)
	return p
}

func graphSize(p *hlmrf.Problem) int {
	return p.NumVars + p.NumPotentials() + p.NumConstraints() + len(p.Var) + len(p.CVar)
}

// reportPerElem reports wall and CPU nanoseconds per (node+edge) of p's
// factor graph, CPU time counted from c0.
func reportPerElem(b *testing.B, p *hlmrf.Problem, c0 time.Duration) {
	cpu := measure.CPUTime() - c0
	per := float64(b.N) * float64(graphSize(p))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/elem")
	b.ReportMetric(float64(cpu.Nanoseconds())/per, "cpu-ns/elem")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

var benchSizes = []int{1e4, 1e5, 1e6}

// benchKinds are the generated problem kinds of BenchmarkRefine and
// BenchmarkLift.
var benchKinds = []struct {
	name string
	gen  func(int, uint64) *hlmrf.Problem
}{{"nosym", clauseProblem}, {"sym10", symmetricProblem}}

// BenchmarkRefine reports ns per (node+edge) of the factor graph, so that
// quasilinear scaling shows as a slowly growing figure across sizes.
func BenchmarkRefine(b *testing.B) {
	for _, kind := range benchKinds {
		for _, m := range benchSizes {
			b.Run(fmt.Sprintf("%s/pot=%d", kind.name, m), func(b *testing.B) {
				p := kind.gen(m, 1)
				var col *Coloring
				c0 := measure.CPUTime()
				for b.Loop() {
					var err error
					if col, err = Refine(p); err != nil {
						b.Fatal(err)
					}
				}
				reportPerElem(b, p, c0)
				b.ReportMetric(float64(col.NumVar+col.NumPot)/float64(p.NumVars+p.NumPotentials()), "lifted/orig")
			})
		}
	}
}

// BenchmarkLift is Refine plus building the lifted problem.
func BenchmarkLift(b *testing.B) {
	for _, kind := range benchKinds {
		for _, m := range benchSizes {
			b.Run(fmt.Sprintf("%s/pot=%d", kind.name, m), func(b *testing.B) {
				p := kind.gen(m, 1)
				c0 := measure.CPUTime()
				for b.Loop() {
					if _, err := Lift(p); err != nil {
						b.Fatal(err)
					}
				}
				reportPerElem(b, p, c0)
			})
		}
	}
}

// BenchmarkOverhead measures lifting against an ADMM solve (default
// options, all cores) of the same problem and reports the ratios of their
// wall and CPU times ("lift/solve-wall", "lift/solve-cpu"). Besides generated
// problems it takes the exchange-format file named by $HINGE_LIFT_FILE, for
// example a problem written by `hinge ground --export`.
func BenchmarkOverhead(b *testing.B) {
	type problem struct {
		name string
		gen  func() *hlmrf.Problem
	}
	probs := []problem{
		{"nosym/pot=10000", func() *hlmrf.Problem { return clauseProblem(1e4, 1) }},
		{"nosym/pot=100000", func() *hlmrf.Problem { return clauseProblem(1e5, 1) }},
		{"sym10/pot=100000", func() *hlmrf.Problem { return symmetricProblem(1e5, 1) }},
	}
	if path := os.Getenv("HINGE_LIFT_FILE"); path != "" {
		probs = append(probs, problem{"file=" + filepath.Base(path), func() *hlmrf.Problem { return admmtest.ReadProblem(b, path) }})
	}
	for _, pr := range probs {
		b.Run(pr.name, func(b *testing.B) {
			p := pr.gen()
			var liftWall, liftCPU, solveWall, solveCPU time.Duration
			var iters int
			for b.Loop() {
				w0, c0 := time.Now(), measure.CPUTime()
				if _, err := Lift(p); err != nil {
					b.Fatal(err)
				}
				w1, c1 := time.Now(), measure.CPUTime()
				r, err := admm.Solve(context.Background(), p, admm.DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				liftWall += w1.Sub(w0)
				liftCPU += c1 - c0
				solveWall += time.Since(w1)
				solveCPU += measure.CPUTime() - c1
				iters = r.Iterations
			}
			b.ReportMetric(float64(liftWall)/float64(solveWall), "lift/solve-wall")
			b.ReportMetric(float64(liftCPU)/float64(solveCPU), "lift/solve-cpu")
			b.ReportMetric(float64(iters), "admm-iters")
		})
	}
}
