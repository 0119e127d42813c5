package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/pipeline"
)

// chainProblem is a synthetic problem of n variables with 4n two-variable
// potentials (mixed linear and squared, three groups) and binary truth.
func chainProblem(n int) (*hlmrf.Problem, []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	p := &hlmrf.Problem{}
	p.AddVars(n)
	truth := make([]float64, n)
	for i := range truth {
		truth[i] = float64(rng.IntN(2))
	}
	for len(p.Weight) < 4*n {
		a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
		if a == b {
			continue
		}
		p.AddPotential(1, 0, uint8(1+rng.IntN(2)), int32(rng.IntN(3)), []int32{a, b}, []float64{1, -1})
	}
	return p, truth
}

// One objective + gradient evaluation: the ns/incidence metric stays flat
// as the problem grows (linear time).
func BenchmarkValueGradient(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("vars=%d/threads=%d", n, threads), func(b *testing.B) {
				p, truth := chainProblem(n)
				obj, err := NewPseudoLikelihood(p, truth, []bool{true, true, true}, PLOptions{Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				w := []float64{0.5, 1, 2}
				g := make([]float64, 3)
				for b.Loop() {
					obj.ValueGradient(w, g)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(obj.Stats().Incidences), "ns/incidence")
			})
		}
	}
}

// coraLearnSplit writes the Cora learn split (seed 2) and grounds it.
func coraLearnSplit(b *testing.B) (*pipeline.Program, *ground.Result) {
	out := b.TempDir()
	if _, err := citations.WriteSplitPSL(shareddata.Require(b, "cora"), "cora", 2, 0.5, out); err != nil {
		b.Fatal(err)
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(out, "cora.psl"), Data: filepath.Join(out, "cora.data")})
	if err != nil {
		b.Fatal(err)
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return prog, g
}

// A full MPLE learning run on the Cora learn split (grounding excluded).
func BenchmarkCoraMPLE(b *testing.B) {
	prog, g := coraLearnSplit(b)
	for _, mode := range []ConstraintMode{ConstraintsPairwise, ConstraintsIgnore} {
		b.Run(mode.String(), func(b *testing.B) {
			opt := DefaultOptions()
			opt.Method, opt.Iterations, opt.Constraints = MPLE, 200, mode
			// Every run starts from the model's weights: Learn sets them on
			// the ground problem first.
			for b.Loop() {
				if _, err := Learn(context.Background(), g, prog.Store, prog.Model, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// One objective + gradient evaluation on the Cora learn split.
func BenchmarkCoraValueGradient(b *testing.B) {
	prog, g := coraLearnSplit(b)
	truth, _, err := Truth(g, prog.Store)
	if err != nil {
		b.Fatal(err)
	}
	learnable := make([]bool, len(prog.Model.Rules))
	w := make([]float64, len(learnable))
	for r, rule := range prog.Model.Rules {
		learnable[r] = rule.Weighted
		w[r] = rule.Weight
	}
	obj, err := NewPseudoLikelihood(g.Problem, truth, learnable, PLOptions{})
	if err != nil {
		b.Fatal(err)
	}
	grad := make([]float64, len(w))
	for b.Loop() {
		obj.ValueGradient(w, grad)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(obj.Stats().Incidences), "ns/incidence")
}
