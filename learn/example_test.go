package learn_test

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// Learn the weights of two competing rules from truth data: friends of
// smokers smoke (true in this data) and friends of smokers do not smoke.
func ExampleLearn() {
	m := model.New()
	knows, _ := m.AddPredicate("Knows", 2, true)
	smokes, _ := m.AddPredicate("Smokes", 1, false)
	for _, text := range []string{
		"1.0: Knows(A, B) & Smokes(A) -> Smokes(B) ^2",
		"1.0: Knows(A, B) & Smokes(A) -> !Smokes(B) ^2",
	} {
		r, _ := syntax.ParseRule(text, srcpos.Position{})
		m.AddRule(r)
	}
	s := store.New(m)
	s.AddObservation(knows, []string{"Anna", "Bob"}, 1)
	s.AddObservation(knows, []string{"Bob", "Chris"}, 1)
	s.AddObservation(knows, []string{"Dan", "Eve"}, 1)
	s.AddObservation(smokes, []string{"Anna"}, 1)
	s.AddObservation(smokes, []string{"Dan"}, 0)
	for _, x := range []string{"Bob", "Chris", "Eve"} {
		s.AddTarget(smokes, []string{x})
	}
	s.AddTruth(smokes, []string{"Bob"}, 1)
	s.AddTruth(smokes, []string{"Chris"}, 1)
	s.AddTruth(smokes, []string{"Eve"}, 0)

	g, _ := ground.Ground(m, s, ground.Options{})
	opt := learn.DefaultOptions()
	// The truth agrees perfectly with the first rule, so without
	// regularisation its weight would grow without bound.
	opt.Method, opt.Iterations, opt.L2 = learn.MPLE, 100, 0.1
	res, err := learn.Learn(context.Background(), g, s, m, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, rule := range m.Rules {
		fmt.Printf("%.3f  %s\n", res.Weights[r], rule.Text)
	}
	// Output:
	// 1.957  1.0: Knows(A, B) & Smokes(A) -> Smokes(B) ^2
	// 0.000  1.0: Knows(A, B) & Smokes(A) -> !Smokes(B) ^2
}

// The pseudo-likelihood objective over a ground problem, built once and
// evaluated for any weights.
func ExampleNewPseudoLikelihood() {
	// One variable y with truth 1 and two potentials: w0*max(1 - y, 0)
	// (satisfied by the truth) and w1*max(y, 0)^2 (violated by it).
	p := &hlmrf.Problem{}
	p.AddVars(1)
	p.AddPotential(1, -1, 1, 0, []int32{0}, []float64{-1})
	p.AddPotential(1, 0, 2, 1, []int32{0}, []float64{1})
	obj, _ := learn.NewPseudoLikelihood(p, []float64{1}, []bool{true, true}, learn.PLOptions{})
	grad := make([]float64, 2)
	for _, w := range [][]float64{{0, 0}, {3, 0}, {0, 3}} {
		v := obj.ValueGradient(w, grad)
		fmt.Printf("w=%v  -log p(truth)=%.4f  gradient=[%.4f %.4f]\n", w, v, grad[0], grad[1])
	}
	// Output:
	// w=[0 0]  -log p(truth)=0.0000  gradient=[-0.5000 0.6667]
	// w=[3 0]  -log p(truth)=-1.1497  gradient=[-0.2809 0.4270]
	// w=[0 3]  -log p(truth)=2.3155  gradient=[-0.6860 0.8498]
}
