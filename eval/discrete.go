package eval

import "cmp"

// Confusion holds the confusion counts of a thresholded binary evaluation.
type Confusion struct {
	TP, FP, TN, FN int
}

// NewConfusion counts, at threshold t, true/false positives/negatives; an
// atom is positive when its value >= t, for prediction and truth alike (as
// PSL's DiscreteEvaluator does). Atoms without both values (NoPred,
// NoTruth) are skipped.
func NewConfusion(atoms []Atom, t float64) Confusion {
	var c Confusion
	for _, a := range atoms {
		if a.NoPred || a.NoTruth {
			continue
		}
		pred, truth := a.Pred >= t, a.Truth >= t
		switch {
		case pred && truth:
			c.TP++
		case pred && !truth:
			c.FP++
		case !pred && truth:
			c.FN++
		default:
			c.TN++
		}
	}
	return c
}

// Accuracy is (TP+TN)/N, 0 when N is 0.
func (c Confusion) Accuracy() float64 {
	return ratio(float64(c.TP+c.TN), float64(c.TP+c.TN+c.FP+c.FN))
}

// PositivePrecision is TP/(TP+FP), 0 when nothing is predicted positive.
func (c Confusion) PositivePrecision() float64 { return ratio(float64(c.TP), float64(c.TP+c.FP)) }

// PositiveRecall is TP/(TP+FN), 0 when nothing is truly positive.
func (c Confusion) PositiveRecall() float64 { return ratio(float64(c.TP), float64(c.TP+c.FN)) }

// NegativePrecision is TN/(TN+FN), 0 when nothing is predicted negative.
func (c Confusion) NegativePrecision() float64 { return ratio(float64(c.TN), float64(c.TN+c.FN)) }

// NegativeRecall is TN/(TN+FP), 0 when nothing is truly negative.
func (c Confusion) NegativeRecall() float64 { return ratio(float64(c.TN), float64(c.TN+c.FP)) }

// F1 is the harmonic mean of positive precision and recall, 2TP/(2TP+FP+FN);
// it is 0 when precision+recall is 0 (which includes TP = 0).
func (c Confusion) F1() float64 {
	p, r := c.PositivePrecision(), c.PositiveRecall()
	return ratio(2*p*r, p+r)
}

// DiscreteEvaluator is PSL's DiscreteEvaluator: atoms are thresholded
// (value >= Threshold is positive, for prediction and truth) and compared.
//
// Zero denominators follow PSL: a precision, recall or F1 whose denominator
// is 0 is reported as 0 (e.g. no predicted positives gives precision 0).
//
// New gives PSL's defaults; the zero value thresholds at 0 (every atom
// positive) and reports F1.
type DiscreteEvaluator struct {
	// Threshold in [0,1]; option discreteevaluator.threshold, default 0.5.
	Threshold float64
	// Representative is one of the metric names; option
	// discreteevaluator.representative, default F1 (as in PSL).
	Representative string
}

var discreteMetrics = []string{"ACCURACY", "F1", "POSITIVE_PRECISION", "POSITIVE_RECALL", "NEGATIVE_PRECISION", "NEGATIVE_RECALL", "TP", "FP", "TN", "FN"}

func newDiscrete(opts map[string]string) (Evaluator, error) {
	e := &DiscreteEvaluator{Threshold: 0.5, Representative: "F1"}
	if err := setThreshold(e.Name(), opts, &e.Threshold); err != nil {
		return nil, err
	}
	if err := setRepresentative(e.Name(), opts, discreteMetrics[:6], &e.Representative); err != nil {
		return nil, err
	}
	return e, nil
}

// Name returns "DiscreteEvaluator".
func (e *DiscreteEvaluator) Name() string { return "DiscreteEvaluator" }

// MetricNames lists ACCURACY, F1, POSITIVE_PRECISION, POSITIVE_RECALL,
// NEGATIVE_PRECISION, NEGATIVE_RECALL and the counts TP, FP, TN, FN.
func (e *DiscreteEvaluator) MetricNames() []string { return append([]string(nil), discreteMetrics...) }

// Evaluate thresholds and compares every atom.
func (e *DiscreteEvaluator) Evaluate(atoms []Atom) (Result, error) {
	atoms, err := checkPaired(atoms)
	if err != nil {
		return Result{}, err
	}
	c := NewConfusion(atoms, e.Threshold)
	vals := []float64{c.Accuracy(), c.F1(), c.PositivePrecision(), c.PositiveRecall(), c.NegativePrecision(), c.NegativeRecall(),
		float64(c.TP), float64(c.FP), float64(c.TN), float64(c.FN)}
	return result(e.Name(), discreteMetrics, vals, cmp.Or(e.Representative, "F1"), true), nil
}

func result(name string, names []string, vals []float64, representative string, higher bool) Result {
	r := Result{Evaluator: name, Representative: representative, HigherIsBetter: higher, Metrics: make([]Metric, len(names))}
	for i := range names {
		r.Metrics[i] = Metric{names[i], vals[i]}
	}
	return r
}
