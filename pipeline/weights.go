package pipeline

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
)

// EvaluateWeights infers the targets of g (grounded from p) with the rules'
// weights set to weights (one per rule of p.Model, in model order; a hard
// rule's entry is ignored) by consensus ADMM with opt, and evaluates that
// answer against the truth data as Evaluate does. g's own weights are put
// back before it returns. Learning commands use it to compare the learned
// weights with the initial ones on the training truth.
func (p *Program) EvaluateWeights(ctx context.Context, g *ground.Result, weights []float64, opt admm.Options, eo EvalOptions) ([]Evaluation, error) {
	if len(weights) != len(p.Model.Rules) {
		return nil, fmt.Errorf("%d weights for %d rules", len(weights), len(p.Model.Rules))
	}
	prob := g.Problem
	saved := append([]float64(nil), prob.Weight...)
	defer copy(prob.Weight, saved)
	for i, grp := range prob.Group {
		if grp >= 0 && int(grp) < len(weights) && p.Model.Rules[grp].Weighted {
			prob.Weight[i] = weights[grp]
		}
	}
	s, err := admm.New(prob, opt)
	if err != nil {
		return nil, err
	}
	res, err := s.Solve(ctx, nil)
	if err != nil {
		return nil, err
	}
	return p.Evaluate(g, res.Values, eo)
}

// Change is one evaluation's representative metric under two sets of
// weights.
type Change struct {
	Predicate string  `json:"predicate"`
	Evaluator string  `json:"evaluator"`
	Metric    string  `json:"metric"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	// Worse says the metric got worse (lower, or higher for an error
	// measure) by more than rounding.
	Worse bool `json:"worse"`
}

// Compare pairs the evaluations of the same predicates and evaluators
// (EvaluateWeights under two sets of weights, in the same order) by their
// representative metric.
func Compare(before, after []Evaluation) []Change {
	var out []Change
	for i := range min(len(before), len(after)) {
		b, a := before[i], after[i]
		if b.Predicate != a.Predicate || b.Result.Evaluator != a.Result.Evaluator {
			continue
		}
		name := b.Result.Representative
		x, ok1 := b.Result.Get(name)
		y, ok2 := a.Result.Get(name)
		if !ok1 || !ok2 {
			continue
		}
		d := y - x
		if !b.Result.HigherIsBetter {
			d = -d
		}
		out = append(out, Change{Predicate: b.Predicate.Name, Evaluator: b.Result.Evaluator, Metric: name, Before: x, After: y, Worse: d < -1e-9})
	}
	return out
}
