package rrf

import (
	"context"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/mln"
)

// TestUWCSEEndToEnd: UW-CSE's language area (28 people) as an RRF, the
// Markov logic knowledge base converted by FromMLN: it grounds to a small
// fraction of the full grounding (whose size is counted from the domains),
// 20 iterations of pseudo-likelihood learning from the area's facts and
// advisedBy truths raise the pseudo-log-likelihood, and Gibbs marginals from
// the learned weights rank the true advisedBy atoms far above the base
// rate. (Learned and scored on the same area: a check that the pipeline
// works, not a measurement; bench/rrf holds leave-one-area-out.)
func TestUWCSEEndToEnd(t *testing.T) {
	dir := shareddata.Require(t, "uw-cse", "language")
	fo, err := mln.ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromMLN(fo.Program, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, fo.Evidence, mln.Options{Query: []string{"advisedBy"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The full grounding: every clause over the product of its variables'
	// domains.
	full := 0.0
	for _, f := range p.Features[1:] {
		n := 1.0
		for _, v := range f.Params {
			n *= float64(len(net.Domains[f.types[v]]))
		}
		full += n
	}
	if got := float64(len(gr.Net.Features)); got > full/20 || gr.Net.NumVars != 28*28 {
		t.Errorf("%d ground features over %d atoms; the full grounding has %.0f", len(gr.Net.Features), gr.Net.NumVars, full)
	}
	t.Logf("%d ground features over %d atoms; the full grounding has %.0f", len(gr.Net.Features), gr.Net.NumVars, full)

	before := slices.Clone(p.Weights)
	train := append(slices.Clone(fo.Evidence), fo.Queries...)
	res, err := p.LearnRelational(context.Background(), train, []string{"advisedBy"}, LearnOptions{L2: 0.01, MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	copy(gr.Net.Weights, before)
	x := make([]bool, gr.Net.NumVars)
	truth := map[string]bool{}
	for _, q := range fo.Queries {
		truth[mln.AtomString(q.Pred, []string{q.Args[0].Name, q.Args[1].Name})] = q.Value == 1
	}
	for v, a := range gr.Atoms {
		x[v] = truth[mln.AtomString(a.Pred, a.Args)]
	}
	start, err := PseudoLogLikelihood(gr.Net, x, gr.Evidence, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.PLL <= start+10 {
		t.Errorf("learning: %s after %d iterations (gradient norm %.3g), pseudo-log-likelihood %.2f from %.2f", res.Status, res.Iterations, res.GradNorm, res.PLL, start)
	}
	copy(gr.Net.Weights, p.Weights)
	marg, err := Gibbs(context.Background(), gr.Net, gr.Evidence, nil, GibbsOptions{Samples: 300, BurnIn: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var items []eval.Scored
	pos := 0
	for v, a := range gr.Atoms {
		tv := truth[mln.AtomString(a.Pred, a.Args)]
		if tv {
			pos++
		}
		items = append(items, eval.Scored{Score: marg[v], Positive: tv})
	}
	if auc, base := eval.AUPRC(items), float64(pos)/float64(len(items)); auc < 10*base {
		t.Errorf("AUC-PR %.3f, base rate %.3f", auc, base)
	}
	t.Logf("learning: %s after %d iterations, pseudo-log-likelihood %.2f from %.2f; AUC-PR %.3f over %d atoms, %d true", res.Status, res.Iterations, res.PLL, start, eval.AUPRC(items), len(items), pos)
}
