package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

// why takes a point where the RRF loses to the MLN (functional
// dependencies, k = c.whyK, noise c.whyNoise) and separates the three
// possible causes, pair by pair:
//
//   - inference: the learned RRF's marginals from a 10 times longer Gibbs
//     chain with another seed; if the AUC-PR does not move, sampling is not
//     what loses;
//   - learning: the same nested model learned from other starting points
//     (inner weights scaled by 0.1, out of saturation; and random weights),
//     keeping the best training pseudo-log-likelihood; if a start reaches a
//     better pseudo-likelihood and AUC-PR, the optimiser stopped at a poor
//     point of a non-convex objective;
//   - the model: the MLN's own knowledge base converted to an RRF
//     (rrf.FromMLN, lambda 10), learned and inferred by the RRF engine; if
//     it does as well as the MLN, the engine is sound and the loss is in
//     the nested model (what it can represent, or what it is initialised
//     to).
func (c *config) why(ctx context.Context) error {
	rows := [][]string{{"k", "noise", "pair", "model", "start", "Gibbs samples", "train PLL", "L-BFGS", "AUC-PR", "CLL", "learn s"}}
	cfg := paperFD(c.whyK, c.whyNoise)
	for i := range c.pairs {
		trs, tes := c.pairSeed(i)
		tr, te := genFD(cfg, trs), genFD(cfg, tes)
		t := &task{decls: fdDecls(cfg), mlnText: fdMLN, rrfText: fdRRF, query: []string{"Equiv"}, train: tr.Training(), testEv: te.Evidence(), truth: te.Truth(), inferSeed: tes}
		add := func(model, start string, samples int, r result) {
			rows = append(rows, []string{fmt.Sprint(c.whyK), g(c.whyNoise), fmt.Sprint(i), model, start, fmt.Sprint(samples),
				fmt.Sprintf("%.2f", r.PLL), r.LearnStatus, fmt.Sprintf("%.4f", r.AUC), fmt.Sprintf("%.4f", r.CLL), fmt.Sprintf("%.1f", r.Learn)})
			fmt.Fprintf(c.stderr, "    pair %d %s, %s, %d samples: PLL %.2f (%s) AUC-PR %.4f CLL %.4f\n", i, model, start, samples, r.PLL, r.LearnStatus, r.AUC, r.CLL)
		}
		m, err := c.runMLN(ctx, t)
		if err != nil {
			return err
		}
		add("MLN", "learned (PLL)", c.samples, m)
		// The nested RRF as in Figure 2, then a 10x longer chain.
		base, prog, err := c.runRRF(ctx, t)
		if err != nil {
			return err
		}
		add("RRF nested", "knowledge base", c.samples, base)
		long, err := c.inferRRF(ctx, prog, t, 10*c.samples, 10*c.burn, tes+17)
		if err != nil {
			return err
		}
		long.PLL, long.LearnStatus = base.PLL, base.LearnStatus
		add("RRF nested", "knowledge base", 10*c.samples, long)
		// Other starts.
		rng := newRand(trs, 99)
		starts := []struct {
			name string
			init func(p *rrf.Program)
		}{
			{"inner weights x0.1", func(p *rrf.Program) {
				for _, f := range p.Features {
					if f.Name == "root" {
						continue
					}
					for _, tm := range f.Terms {
						p.Weights[tm.W] *= 0.1
					}
				}
			}},
		}
		for r := range 3 {
			starts = append(starts, struct {
				name string
				init func(p *rrf.Program)
			}{fmt.Sprintf("random N(0,1) #%d", r+1), func(p *rrf.Program) {
				for k := range p.Weights {
					p.Weights[k] = rng.NormFloat64()
				}
			}})
		}
		for _, st := range starts {
			r, _, err := c.learnInfer(ctx, t, t.rrfText, st.init)
			if err != nil {
				return err
			}
			add("RRF nested", st.name, c.samples, r)
		}
		// The MLN's knowledge base as an RRF.
		conv, err := c.convertedMLN(ctx, t)
		if err != nil {
			return err
		}
		add("RRF of the MLN", "0 (as the MLN)", c.samples, conv)
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV(fmt.Sprintf("why-fd-k%d-noise%s", c.whyK, g(c.whyNoise)), rows)
}

// learnInfer learns the RRF text's weights from the task's training world,
// after init changes the starting weights, and scores its test marginals.
func (c *config) learnInfer(ctx context.Context, t *task, text string, init func(p *rrf.Program)) (result, *rrf.Program, error) {
	prog, err := rrf.ParseProgram("model.rrf", []byte(t.decls+text))
	if err != nil {
		return result{}, nil, err
	}
	prog.Norm = c.norm
	if init != nil {
		init(prog)
	}
	return c.learnInferProgram(ctx, prog, t)
}

func (c *config) learnInferProgram(ctx context.Context, prog *rrf.Program, t *task) (result, *rrf.Program, error) {
	start := time.Now()
	lr, err := prog.LearnRelational(ctx, t.train, t.query, rrf.LearnOptions{Method: c.rrfLearn, L2: c.l2, MaxIter: c.learnIter, Seed: t.inferSeed})
	if err != nil {
		return result{}, nil, fmt.Errorf("RRF learning: %w", err)
	}
	learn := time.Since(start).Seconds()
	r, err := c.inferRRF(ctx, prog, t, c.samples, c.burn, t.inferSeed)
	r.Learn, r.LearnStatus, r.PLL, r.Converged, r.GradNorm = learn, lr.Status, lr.PLL, lr.Converged, lr.GradNorm
	return r, prog, err
}

// inferRRF grounds prog over the test world's evidence and scores Gibbs
// marginals (samples after burn, from an ICM mode, seeded by seed).
func (c *config) inferRRF(ctx context.Context, prog *rrf.Program, t *task, samples, burn int, seed uint64) (result, error) {
	start := time.Now()
	net, err := mln.Build(prog.Decls, t.testEv, mln.Options{Query: t.query})
	if err != nil {
		return result{}, err
	}
	gr, err := prog.Ground(net, 0)
	if err != nil {
		return result{}, err
	}
	mode, _, err := rrf.ICM(ctx, gr.Net, gr.Evidence, rrf.ICMOptions{Restarts: 1, Seed: seed})
	if err != nil {
		return result{}, err
	}
	marg, err := rrf.Gibbs(ctx, gr.Net, gr.Evidence, mode, rrf.GibbsOptions{Samples: samples, BurnIn: burn, Seed: seed})
	if err != nil {
		return result{}, err
	}
	prob := map[string]float64{}
	for v, a := range gr.Atoms {
		prob[mln.AtomString(a.Pred, a.Args)] = marg[v]
	}
	r, err := score(prob, t.truth)
	r.Infer = time.Since(start).Seconds()
	return r, err
}

// convertedMLN is the task's Markov logic knowledge base converted to an
// RRF (rrf.FromMLN, lambda 10: each clause a feature of its negated
// literals, its weight in the root), learned and inferred by the RRF
// engine, from the MLN's starting weights (0).
func (c *config) convertedMLN(ctx context.Context, t *task) (result, error) {
	kb, err := mln.ParseProgram("model.mln", []byte(t.decls+t.mlnText))
	if err != nil {
		return result{}, err
	}
	prog, err := rrf.FromMLN(kb, 10, 20)
	if err != nil {
		return result{}, err
	}
	prog.Norm = c.norm
	r, _, err := c.learnInferProgram(ctx, prog, t)
	return r, err
}
