package eval

import (
	"cmp"
	"slices"
)

// AUCEvaluator is PSL's AUCEvaluator: the area under the ROC curve and under
// the precision-recall curve, ranking atoms by predicted value.
//
// An atom is positive when its truth value >= Threshold (PSL uses >= for
// AUPRC but > for AUROC; here both use >=). Curves are exact under tied
// predictions: the curve has one point per distinct predicted value (all
// atoms sharing a value enter together) and the area is the trapezoid rule
// over those points, so AUROC equals the Mann-Whitney statistic in which a
// tied positive/negative pair counts 1/2, and neither area depends on the
// order of the input. (PSL steps atom by atom through its sort order, so
// its areas depend on how tied atoms happen to be ordered.) The PR curve
// starts at (recall 0, precision 1), as in PSL.
//
// Degenerate inputs follow PSL: with no positive atom AUROC and
// POSITIVE_AUPRC are 0; with no negative atom AUROC is 1 and NEGATIVE_AUPRC
// is 0.
//
// New gives PSL's defaults; the zero value thresholds at 0 (every atom
// positive) and reports AUROC.
type AUCEvaluator struct {
	// Threshold in [0,1] separating positive from negative truth; option
	// aucevaluator.threshold, default 0.5.
	Threshold float64
	// Representative is AUROC, POSITIVE_AUPRC or NEGATIVE_AUPRC; option
	// aucevaluator.representative, default AUROC (as in PSL).
	Representative string
}

var aucMetrics = []string{"AUROC", "POSITIVE_AUPRC", "NEGATIVE_AUPRC", "POSITIVES", "NEGATIVES"}

func newAUC(opts map[string]string) (Evaluator, error) {
	e := &AUCEvaluator{Threshold: 0.5, Representative: "AUROC"}
	if err := setThreshold(e.Name(), opts, &e.Threshold); err != nil {
		return nil, err
	}
	if err := setRepresentative(e.Name(), opts, aucMetrics[:3], &e.Representative); err != nil {
		return nil, err
	}
	return e, nil
}

// Name returns "AUCEvaluator".
func (e *AUCEvaluator) Name() string { return "AUCEvaluator" }

// MetricNames lists AUROC, POSITIVE_AUPRC, NEGATIVE_AUPRC and the counts
// POSITIVES, NEGATIVES.
func (e *AUCEvaluator) MetricNames() []string { return append([]string(nil), aucMetrics...) }

// Evaluate ranks the atoms by predicted value and computes the areas.
func (e *AUCEvaluator) Evaluate(atoms []Atom) (Result, error) {
	atoms, err := checkPaired(atoms)
	if err != nil {
		return Result{}, err
	}
	pts := make([]Scored, len(atoms))
	for i, a := range atoms {
		pts[i] = Scored{a.Pred, a.Truth >= e.Threshold}
	}
	npos, nneg := counts(pts)
	sortDesc(pts)
	roc := aurocSorted(pts, npos, nneg)
	pprc := auprcSorted(pts, npos)
	// The negative class ranks by ascending prediction: reverse the order
	// (groups of tied values stay together) and flip the labels.
	slices.Reverse(pts)
	for i := range pts {
		pts[i].Positive = !pts[i].Positive
	}
	nprc := auprcSorted(pts, nneg)
	vals := []float64{roc, pprc, nprc, float64(npos), float64(nneg)}
	return result(e.Name(), aucMetrics, vals, cmp.Or(e.Representative, "AUROC"), true), nil
}

// Scored is one ranked item: its score (higher ranks first) and whether it
// belongs to the positive class.
type Scored struct {
	Score    float64
	Positive bool
}

func sortDesc(pts []Scored) {
	slices.SortFunc(pts, func(a, b Scored) int { return cmp.Compare(b.Score, a.Score) })
}

// AUROC returns the area under the ROC curve of the items ranked by
// descending score, exact under ties: the probability that a random
// positive outscores a random negative, a tie counting 1/2. It is 0 without
// positives and 1 without negatives (PSL's convention). Scores must not be
// NaN. items is not modified.
func AUROC(items []Scored) float64 {
	pts := slices.Clone(items)
	sortDesc(pts)
	P, N := counts(pts)
	return aurocSorted(pts, P, N)
}

// AUPRC returns the area under the precision-recall curve of the items
// ranked by descending score, with one curve point per distinct score and
// the trapezoid rule between points, starting at (recall 0, precision 1).
// It is 0 without positives. Scores must not be NaN. items is not modified.
func AUPRC(items []Scored) float64 {
	pts := slices.Clone(items)
	sortDesc(pts)
	P, _ := counts(pts)
	return auprcSorted(pts, P)
}

// counts returns the numbers of positive and negative items.
func counts(pts []Scored) (p, n int) {
	for _, x := range pts {
		if x.Positive {
			p++
		}
	}
	return p, len(pts) - p
}

// aurocSorted needs pts sorted by descending score, P of them positive and
// N negative.
func aurocSorted(pts []Scored, P, N int) float64 {
	if P == 0 {
		return 0
	}
	if N == 0 {
		return 1
	}
	// Sum of trapezoids in (fp, tp) count space, divided by P*N at the end
	// so the sum is exact in integers halves.
	var area2 int64 // twice the area in count units
	tp, fp := 0, 0
	for i := 0; i < len(pts); {
		j := i
		dtp, dfp := 0, 0
		for ; j < len(pts) && pts[j].Score == pts[i].Score; j++ {
			if pts[j].Positive {
				dtp++
			} else {
				dfp++
			}
		}
		area2 += int64(dfp) * int64(2*tp+dtp)
		tp += dtp
		fp += dfp
		i = j
	}
	return float64(area2) / (2 * float64(P) * float64(N))
}

// auprcSorted needs pts sorted by descending score, P of them positive.
func auprcSorted(pts []Scored, P int) float64 {
	if P == 0 {
		return 0
	}
	area := 0.0
	prevR, prevP := 0.0, 1.0
	tp, fp := 0, 0
	for i := 0; i < len(pts); {
		j := i
		for ; j < len(pts) && pts[j].Score == pts[i].Score; j++ {
			if pts[j].Positive {
				tp++
			} else {
				fp++
			}
		}
		r := float64(tp) / float64(P)
		p := float64(tp) / float64(tp+fp)
		area += (r - prevR) * (p + prevP) / 2
		prevR, prevP = r, p
		i = j
	}
	return area
}
