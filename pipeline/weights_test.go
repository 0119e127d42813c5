package pipeline

import (
	"context"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
)

// TestEvaluateWeights: the model's own weights evaluate as inferring and
// evaluating by hand does; other weights change the answer and not the
// ground problem's weights; Compare marks a lower F1 and a higher MSE as
// worse and the same scores as not.
func TestEvaluateWeights(t *testing.T) {
	prog, err := Load(Inputs{Model: "../examples/smokers/smokers.psl", Data: "../examples/smokers/smokers.data"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Ground(ground.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(g.Problem.Weight)
	opt := admm.DefaultOptions()
	opt.Threads = 1
	own := make([]float64, len(prog.Model.Rules))
	for r, rule := range prog.Model.Rules {
		own[r] = rule.Weight
	}
	got, err := prog.EvaluateWeights(context.Background(), g, own, opt, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := admm.New(g.Problem, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := prog.Evaluate(g, res.Values, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d evaluations, want %d", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].Result.Metrics, want[i].Result.Metrics) {
			t.Errorf("%s %s: %v, want %v", got[i].Predicate.Name, got[i].Result.Evaluator, got[i].Result.Metrics, want[i].Result.Metrics)
		}
	}
	for _, c := range Compare(want, got) {
		if c.Worse || c.Before != c.After {
			t.Errorf("the same answer compared as %+v", c)
		}
	}
	// Only the prior on Cancer: no reason left for Cancer to be true.
	prior := make([]float64, len(own))
	prior[4] = 1
	other, err := prog.EvaluateWeights(context.Background(), g, prior, opt, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Problem.Weight, before) {
		t.Fatal("EvaluateWeights left other weights in the ground problem")
	}
	worse := 0
	for _, c := range Compare(want, other) {
		if c.Predicate == "Cancer" {
			if !c.Worse {
				t.Errorf("Cancer %s %v -> %v not marked worse", c.Metric, c.Before, c.After)
			}
			worse++
		}
	}
	if worse != 2 {
		t.Errorf("%d Cancer evaluations compared, want 2 (discrete and continuous)", worse)
	}
}
