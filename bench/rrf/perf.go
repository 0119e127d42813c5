package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
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
			if ch.Var >= 0 {
				varPar[ch.Var] = append(varPar[ch.Var], int32(i))
			} else {
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
// flip includes the one Recompute per sweep that drops rounding drift.
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
