package eval_test

import (
	"fmt"

	"github.com/hinge-srl/hinge/eval"
)

// Categorical accuracy of HasCat(paper, category) predictions, configured
// with PSL's option names as in the Cora example.
func ExampleNew() {
	e, err := eval.New("CategoricalEvaluator", map[string]string{
		"categoricalevaluator.categoryindexes": "1",
		"eval.includeobs":                      "true", // the caller's business; ignored here
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	atoms := []eval.Atom{
		{Args: []string{"p1", "1"}, Pred: 0.8, Truth: 1},
		{Args: []string{"p1", "2"}, Pred: 0.2, Truth: 0},
		{Args: []string{"p2", "1"}, Pred: 0.6, Truth: 0},
		{Args: []string{"p2", "2"}, Pred: 0.4, Truth: 1},
	}
	r, err := e.Evaluate(atoms)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r)
	fmt.Println(r.Representative, r.RepresentativeValue())
	// Output:
	// CategoricalEvaluator: ACCURACY=0.5 CORRECT=1 SCORED=2 UNPREDICTED=0 PRED_TIES=0
	// ACCURACY 0.5
}

// AUROC handles tied scores exactly: a tied positive/negative pair counts 1/2.
func ExampleAUROC() {
	items := []eval.Scored{{Score: 0.8, Positive: true}, {Score: 0.8}, {Score: 0.3, Positive: true}, {Score: 0.1}}
	fmt.Println(eval.AUROC(items), eval.AUPRC(items))
	// Output: 0.625 0.6666666666666666
}

// Printing every metric of a discrete evaluation in a stable order.
func ExampleEvaluator_MetricNames() {
	e, _ := eval.New("discrete", map[string]string{"discreteevaluator.threshold": "0.5"})
	r, _ := e.Evaluate([]eval.Atom{{Pred: 0.9, Truth: 1}, {Pred: 0.7, Truth: 0}, {Pred: 0.1, Truth: 0}})
	for _, name := range e.MetricNames() {
		v, _ := r.Get(name)
		fmt.Printf("%s %.3f\n", name, v)
	}
	// Output:
	// ACCURACY 0.667
	// F1 0.667
	// POSITIVE_PRECISION 0.500
	// POSITIVE_RECALL 1.000
	// NEGATIVE_PRECISION 1.000
	// NEGATIVE_RECALL 0.500
	// TP 1.000
	// FP 1.000
	// TN 1.000
	// FN 0.000
}
