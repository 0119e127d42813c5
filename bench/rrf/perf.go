package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

// perf measures the RRF engine: on one pair of each domain, the ground
// size, PLL learning time, and Gibbs sweeps per second; then the cost of
// one flip as the inclusion domain grows with every atom's ancestors fixed.
func (c *config) perf(ctx context.Context) error {
	rows := [][]string{{"domain", "query atoms", "ground features", "edges", "learn s (PLL, L-BFGS)", "Gibbs sweeps/s", "flips/s (Gibbs)"}}
	trs, tes := c.pairSeed(0)
	type dom struct {
		name string
		t    *task
	}
	var doms []dom
	for _, n := range []int{c.people, 100} {
		cfg := paperInclusion(0.01, 0.1)
		cfg.People, cfg.Projects = n, n
		tr, te := genInclusion(cfg, trs), genInclusion(cfg, tes)
		doms = append(doms, dom{fmt.Sprintf("inclusion %dx%d, extra 0.01, noise 0.1", n, n), &task{decls: inclusionDecls(cfg), rrfText: inclusionRRF,
			query: []string{"ProjectLead", "ManagerOf"}, train: tr.Training(), testEv: te.Evidence()}})
		if n == 100 {
			break
		}
	}
	for _, k := range []int{2, 5} {
		cfg := paperFD(k, 0.2)
		tr, te := genFD(cfg, trs), genFD(cfg, tes)
		doms = append(doms, dom{fmt.Sprintf("fd k=%d, noise 0.2", k), &task{decls: fdDecls(cfg), rrfText: fdRRF,
			query: []string{"Equiv"}, train: tr.Training(), testEv: te.Evidence()}})
	}
	for _, d := range doms {
		fmt.Fprintf(c.stderr, "  perf %s ...\n", d.name)
		prog, err := rrf.ParseProgram("model.rrf", []byte(d.t.decls+d.t.rrfText))
		if err != nil {
			return err
		}
		start := time.Now()
		if _, err := prog.LearnRelational(ctx, d.t.train, d.t.query, rrf.LearnOptions{L2: c.l2, MaxIter: c.learnIter}); err != nil {
			return err
		}
		learn := time.Since(start).Seconds()
		gr, err := groundTest(prog, d.t)
		if err != nil {
			return err
		}
		unknown := 0
		for _, f := range gr.Evidence.Fixed {
			if !f {
				unknown++
			}
		}
		sweeps := 200
		start = time.Now()
		if _, err := rrf.Gibbs(ctx, gr.Net, gr.Evidence, nil, rrf.GibbsOptions{Samples: sweeps, Seed: 1}); err != nil {
			return err
		}
		sps := float64(sweeps) / time.Since(start).Seconds()
		rows = append(rows, []string{d.name, fmt.Sprint(unknown), fmt.Sprint(len(gr.Net.Features)), fmt.Sprint(edges(gr.Net)),
			fmt.Sprintf("%.2f", learn), fmt.Sprintf("%.1f", sps), fmt.Sprintf("%.3g", sps*float64(unknown))})
	}
	results.Markdown(c.stdout, rows)
	if err := c.writeCSV("perf", rows); err != nil {
		return err
	}
	return c.scaling(ctx)
}

func groundTest(prog *rrf.Program, t *task) (*rrf.Grounded, error) {
	net, err := mln.Build(prog.Decls, t.testEv, mln.Options{Query: t.query})
	if err != nil {
		return nil, err
	}
	return prog.Ground(net, 0)
}

func edges(n *rrf.Net) int {
	e := 0
	for _, cs := range n.Features {
		e += len(cs)
	}
	return e
}

// ancestors returns the mean number of features above an unknown atom.
func ancestors(n *rrf.Net, fixed []bool) float64 {
	varPar := make([][]int32, n.NumVars)
	par := make([][]int32, len(n.Features))
	for i, cs := range n.Features {
		for _, ch := range cs {
			switch {
			case ch.Var >= 0:
				varPar[ch.Var] = append(varPar[ch.Var], int32(i))
			case ch.Feature >= 0:
				par[ch.Feature] = append(par[ch.Feature], int32(i))
			}
		}
	}
	seen := make([]int, len(n.Features))
	total, count := 0, 0
	for v := range n.NumVars {
		if fixed[v] {
			continue
		}
		count++
		stack := append([]int32(nil), varPar[v]...)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] == v+1 {
				continue
			}
			seen[i] = v + 1
			total++
			stack = append(stack, par[i]...)
		}
	}
	return float64(total) / float64(count)
}

// scaling grounds the inclusion RRF (initial weights) on growing domains:
// every atom keeps the same ancestors (its NoLead/NoMan feature, the two
// constraint features above it, its implication feature, the root), while
// the model grows with the square of the domain. One flip (State.Set of an
// unknown atom, updating the cached sums of its ancestors) should cost the
// same at every size; a full re-evaluation (Recompute) grows with the
// model. The flips are drawn at random over the whole domain (worst case for
// the caches); a Gibbs sweep visits the atoms in order, and its time per
// flip includes the recomputation every 16 sweeps that drops rounding
// drift.
func (c *config) scaling(ctx context.Context) error {
	rows := [][]string{{"people = projects", "unknown atoms", "ground features", "edges", "ancestors per atom", "ns per flip", "ns per full re-evaluation", "Gibbs sweeps/s", "ns per Gibbs flip"}}
	for _, n := range []int{25, 50, 100, 200, 400} {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(c.stderr, "  scaling %d ...\n", n)
		cfg := paperInclusion(0.01, 0.1)
		cfg.People, cfg.Projects = n, n
		w := genInclusion(cfg, 7)
		prog, err := rrf.ParseProgram("model.rrf", []byte(inclusionDecls(cfg)+inclusionRRF))
		if err != nil {
			return err
		}
		gr, err := groundTest(prog, &task{query: []string{"ProjectLead", "ManagerOf"}, testEv: w.Evidence()})
		if err != nil {
			return err
		}
		var unknown []int
		for v, f := range gr.Evidence.Fixed {
			if !f {
				unknown = append(unknown, v)
			}
		}
		s, err := rrf.NewState(gr.Net, gr.Evidence.X)
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(3, uint64(n)))
		const flips = 400_000
		picks := make([]int, flips)
		for i := range picks {
			picks[i] = unknown[r.IntN(len(unknown))]
		}
		start := time.Now()
		for _, v := range picks {
			s.Set(v, !s.X[v])
		}
		perFlip := float64(time.Since(start).Nanoseconds()) / flips
		reps := max(3, 2_000_000/edges(gr.Net))
		start = time.Now()
		for range reps {
			s.Recompute()
		}
		perRecompute := float64(time.Since(start).Nanoseconds()) / float64(reps)
		sweeps := max(5, 4_000_000/len(unknown))
		start = time.Now()
		if _, err := rrf.Gibbs(ctx, gr.Net, gr.Evidence, nil, rrf.GibbsOptions{Samples: sweeps, Seed: 1}); err != nil {
			return err
		}
		sps := float64(sweeps) / time.Since(start).Seconds()
		rows = append(rows, []string{fmt.Sprint(n), fmt.Sprint(len(unknown)), fmt.Sprint(len(gr.Net.Features)), fmt.Sprint(edges(gr.Net)),
			fmt.Sprintf("%.2f", ancestors(gr.Net, gr.Evidence.Fixed)), fmt.Sprintf("%.0f", perFlip), fmt.Sprintf("%.0f", perRecompute), fmt.Sprintf("%.2f", sps), fmt.Sprintf("%.0f", 1e9/(sps*float64(len(unknown))))})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("scaling", rows)
}

// uwperf measures the RRF engine on UW-CSE's ai area, the Markov logic
// knowledge base converted to an RRF (rrf.FromMLN, lambda c.lambda): the
// grounding over the area's facts, Gibbs sweeps, one pseudo-log-likelihood
// with its gradient, and pseudo-likelihood learning from the area's facts
// and advisedBy truths (L-BFGS, at most c.learnIter iterations), each with
// its wall time and the process's CPU time (user + system: the machine is
// shared, so the CPU time is the figure of the work) and the peak resident
// memory.
func (c *config) uwperf(ctx context.Context) error {
	rows := [][]string{{"step", "repeats", "wall s (median)", "CPU s (median)", "peak MB", "detail"}}
	fo, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", "ai"))
	if err != nil {
		return err
	}
	p, err := rrf.FromMLN(fo.Program, c.lambda, 20)
	if err != nil {
		return err
	}
	p.Norm = c.norm
	type timing struct{ wall, cpu float64 }
	timeIt := func(f func() error) (timing, error) {
		c0, w0 := measure.CPUSeconds(), time.Now()
		err := f()
		return timing{time.Since(w0).Seconds(), measure.CPUSeconds() - c0}, err
	}
	med := func(ts []timing) (float64, float64) {
		ws, cs := make([]float64, len(ts)), make([]float64, len(ts))
		for i, t := range ts {
			ws[i], cs[i] = t.wall, t.cpu
		}
		return measure.Median(ws), measure.Median(cs)
	}
	add := func(step string, ts []timing, peak float64, detail string) {
		w, cpu := med(ts)
		rows = append(rows, []string{step, fmt.Sprint(len(ts)), fmt.Sprintf("%.3f", w), fmt.Sprintf("%.3f", cpu), fmt.Sprintf("%.0f", peak), detail})
		fmt.Fprintf(c.stderr, "    %s: wall %.3f s, CPU %.3f s (median of %d), peak %.0f MB; %s\n", step, w, cpu, len(ts), peak, detail)
	}
	var gr *rrf.Grounded
	var ts []timing
	peak := peakMB()
	for range 3 {
		t, err := timeIt(func() error {
			net, err := mln.Build(p.Decls, fo.Evidence, mln.Options{Query: []string{"advisedBy"}})
			if err != nil {
				return err
			}
			gr, err = p.GroundWith(net, rrf.GroundOptions{MemoryLimit: c.memLimit, Context: ctx})
			return err
		})
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	add("ground (mln.Build + GroundWith)", ts, peak(), fmt.Sprintf("%d unknown atoms, %d features, %d child entries", gr.Net.NumVars, len(gr.Net.Features), edges(gr.Net)))
	// A Gibbs call of 100 sweeps (with its setup: the state, the random
	// start) and of 500, taking turns; the per-sweep cost is their
	// difference over 400 sweeps, pair by pair.
	var t100, t500, marg []timing
	peak = peakMB()
	for r := range 5 {
		for _, n := range []int{100, 500} {
			t, err := timeIt(func() error {
				_, err := rrf.Gibbs(ctx, gr.Net, gr.Evidence, nil, rrf.GibbsOptions{Samples: n, Seed: uint64(r + 1)})
				return err
			})
			if err != nil {
				return err
			}
			if n == 100 {
				t100 = append(t100, t)
			} else {
				t500 = append(t500, t)
			}
		}
		marg = append(marg, timing{(t500[r].wall - t100[r].wall) / 4, (t500[r].cpu - t100[r].cpu) / 4})
	}
	gpeak := peak()
	fixed := make([]bool, gr.Net.NumVars)
	for v := range fixed {
		fixed[v] = gr.Evidence != nil && gr.Evidence.Fixed[v]
	}
	add("Gibbs, 100 sweeps from a random world (one call)", t100, gpeak, fmt.Sprintf("%d flips", 100*gr.Net.NumVars))
	add("Gibbs, 500 sweeps from a random world (one call)", t500, gpeak, fmt.Sprintf("%d flips", 500*gr.Net.NumVars))
	add("Gibbs, per 100 sweeps after the setup ((500 - 100) / 4)", marg, gpeak, fmt.Sprintf("%.1f features above an unknown atom on average", ancestors(gr.Net, fixed)))
	ts = ts[:0]
	x := make([]bool, gr.Net.NumVars)
	g := make([]float64, len(gr.Net.Weights))
	peak = peakMB()
	for range 3 {
		t, err := timeIt(func() error {
			_, err := rrf.PseudoLogLikelihood(gr.Net, x, gr.Evidence, g)
			return err
		})
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	add("pseudo-log-likelihood and gradient", ts, peak(), "all-false world")
	train := append(slices.Clone(fo.Evidence), fo.Queries...)
	learned, err := rrf.FromMLN(fo.Program, c.lambda, 20)
	if err != nil {
		return err
	}
	learned.Norm = c.norm
	peak = peakMB()
	var lr *rrf.LearnResult
	t, err := timeIt(func() error {
		var err error
		lr, err = learned.LearnRelational(ctx, train, []string{"advisedBy"}, rrf.LearnOptions{L2: c.l2, MaxIter: c.learnIter, Ground: rrf.GroundOptions{MemoryLimit: c.memLimit}})
		return err
	})
	if err != nil {
		return err
	}
	add("learning (PLL, L-BFGS) on ai's facts and truths", []timing{t}, peak(), fmt.Sprintf("%s after %d iterations, pseudo-log-likelihood %.2f, gradient norm %.3g", lr.Status, lr.Iterations, lr.PLL, lr.GradNorm))
	results.Markdown(c.stdout, rows)
	return c.writeCSV("uwperf-"+c.norm.String(), rows)
}
