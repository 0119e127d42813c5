package rrf

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/mln"
)

// wideNet has a variable with k ancestors in two layers: k features over
// variable 0 and a few others, and k/10 features over ten of those each,
// all under the root.
func wideNet(k int, rng *rand.Rand) *Net {
	nv := 100
	n := &Net{NumVars: nv, Weights: []float64{0.5, -1, 2, 0.3}}
	mid := k / 10
	n.Features = make([][]Child, 1+mid+k)
	for i := 1; i <= mid; i++ {
		n.Features[0] = append(n.Features[0], Child{Var: -1, Feature: int32(i), Weight: 0})
		for j := range 10 {
			n.Features[i] = append(n.Features[i], Child{Var: -1, Feature: int32(1 + mid + (i-1)*10 + j), Weight: 1})
		}
	}
	for i := 1 + mid; i < len(n.Features); i++ {
		n.Features[0] = append(n.Features[0], Child{Var: -1, Feature: int32(i), Weight: 3})
		n.Features[i] = []Child{{Var: 0, Feature: -1, Weight: 2}, {Var: int32(1 + rng.IntN(nv-1)), Feature: -1, Weight: 1}}
	}
	return n
}

// BenchmarkFlipManyAncestors flips a variable with k (+ k/10) ancestor
// features: the cost of one Set should grow like the number of ancestors.
func BenchmarkFlipManyAncestors(b *testing.B) {
	for _, k := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("ancestors=%d", k+k/10), func(b *testing.B) {
			s, err := NewState(wideNet(k, rand.New(rand.NewPCG(1, 1))), make([]bool, 100))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s.Set(0, !s.X[0])
			}
		})
	}
}

// BenchmarkLearnPLL: 30 L-BFGS iterations of pseudo-likelihood learning
// on a random net of 2,000 variables and 400 features, 2 training worlds.
func BenchmarkLearnPLL(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := randomNet(rng, 2000, 400)
	worlds := randomWorlds(rng, 2000, 2)
	w0 := append([]float64(nil), n.Weights...)
	for b.Loop() {
		copy(n.Weights, w0)
		if _, err := Learn(b.Context(), n, worlds, nil, LearnOptions{MaxIter: 30}); err != nil {
			b.Fatal(err)
		}
	}
}

// uwcseAI grounds UW-CSE's ai area as an RRF (the Markov logic knowledge
// base converted by FromMLN, lambda 10) over its facts, advisedBy unknown.
func uwcseAI(b *testing.B) *Grounded {
	dir := shareddata.Require(b, "uw-cse", "ai")
	fo, err := mln.ReadFolder(dir)
	if err != nil {
		b.Fatal(err)
	}
	p, err := FromMLN(fo.Program, 10, 20)
	if err != nil {
		b.Fatal(err)
	}
	net, err := mln.Build(p.Decls, fo.Evidence, mln.Options{Query: []string{"advisedBy"}})
	if err != nil {
		b.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		b.Fatal(err)
	}
	return gr
}

// BenchmarkUWCSE: UW-CSE ai as an RRF (4,624 unknown atoms): grounding,
// one Gibbs sweep, and one pseudo-log-likelihood with its gradient.
func BenchmarkUWCSE(b *testing.B) {
	gr := uwcseAI(b)
	b.Run("ground", func(b *testing.B) {
		for b.Loop() {
			uwcseAI(b)
		}
	})
	b.Run("gibbs-sweep", func(b *testing.B) {
		s, err := NewState(gr.Net, make([]bool, gr.Net.NumVars))
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for b.Loop() {
			if err := s.gibbsSweep(b.Context(), gr.Evidence, nil, rng); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pll-gradient", func(b *testing.B) {
		x := make([]bool, gr.Net.NumVars)
		g := make([]float64, len(gr.Net.Weights))
		for b.Loop() {
			if _, err := PseudoLogLikelihood(gr.Net, x, gr.Evidence, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}
