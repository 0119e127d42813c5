package eval

import (
	"cmp"
	"math"
)

// ContinuousEvaluator is PSL's ContinuousEvaluator: mean absolute error, mean
// squared error and its root over all atoms.
type ContinuousEvaluator struct {
	// Representative is MAE, MSE or RMSE; option
	// continuousevaluator.representative, default MSE (as in PSL).
	Representative string
}

var continuousMetrics = []string{"MAE", "MSE", "RMSE"}

func newContinuous(opts map[string]string) (Evaluator, error) {
	e := &ContinuousEvaluator{Representative: "MSE"}
	if err := setRepresentative(e.Name(), opts, continuousMetrics, &e.Representative); err != nil {
		return nil, err
	}
	return e, nil
}

// Name returns "ContinuousEvaluator".
func (e *ContinuousEvaluator) Name() string { return "ContinuousEvaluator" }

// MetricNames lists MAE, MSE, RMSE.
func (e *ContinuousEvaluator) MetricNames() []string {
	return append([]string(nil), continuousMetrics...)
}

// Evaluate computes the errors of Pred against Truth. Lower is better.
func (e *ContinuousEvaluator) Evaluate(atoms []Atom) (Result, error) {
	atoms, err := checkPaired(atoms)
	if err != nil {
		return Result{}, err
	}
	var abs, sq float64
	for _, a := range atoms {
		d := a.Pred - a.Truth
		abs += math.Abs(d)
		sq += d * d
	}
	n := float64(len(atoms))
	mse := sq / n
	vals := []float64{abs / n, mse, math.Sqrt(mse)}
	return result(e.Name(), continuousMetrics, vals, cmp.Or(e.Representative, "MSE"), false), nil
}
