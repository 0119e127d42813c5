package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

var uwAreas = []string{"ai", "graphics", "language", "systems", "theory"}

// uwcse runs UW-CSE leave one area out with the knowledge base converted to
// an RRF (rrf.FromMLN, lambda c.lambda): for each area, weights learned by
// pseudo-likelihood on the other four areas' facts and advisedBy truths,
// each area a world of its own with the weights tied (-merged: merged into
// one world, as bench/mln does for its Markov logic rows; it grounds to
// more than 10 million features), then advisedBy marginals of the
// held-out area by Gibbs sampling from an ICM mode; AUC-PR and CLL against
// the file's weights (every clause 1).
func (c *config) uwcse(ctx context.Context) error {
	rows := [][]string{{"test area", "weights", "norm", "query atoms", "positives", "AUC-PR", "CLL", "learn s", "learn CPU s", "L-BFGS", "iterations", "train PLL",
		"learn peak MB", "ground features", "infer s", "infer CPU s", "infer peak MB"}}
	for _, test := range c.areas {
		fmt.Fprintf(c.stderr, "  uwcse %s ...\n", test)
		fo, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", test))
		if err != nil {
			return err
		}
		// The other areas, each a training world of its own (-merged: one
		// world, as bench/mln trains its Markov logic rows).
		var train [][]mln.GroundAtom
		for _, a := range uwAreas {
			if a == test {
				continue
			}
			other, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", a))
			if err != nil {
				return err
			}
			w := append(slices.Clone(other.Evidence), other.Queries...)
			if c.merged && len(train) > 0 {
				train[0] = append(train[0], w...)
			} else {
				train = append(train, w)
			}
		}
		file, err := rrf.FromMLN(fo.Program, c.lambda, 20)
		if err != nil {
			return err
		}
		file.Norm = c.norm
		type set struct {
			name string
			prog *rrf.Program
			cols []string // learn s, learn CPU s, L-BFGS, iterations, train PLL, learn peak MB
		}
		sets := []set{{"file (all 1)", file, []string{"", "", "", "", "", ""}}}
		if c.learnIter > 0 {
			learned, err := rrf.FromMLN(fo.Program, c.lambda, 20)
			if err != nil {
				return err
			}
			learned.Norm = c.norm
			peak := peakMB()
			start, cpu0 := time.Now(), measure.CPUSeconds()
			lr, err := learned.LearnRelationalWorlds(ctx, train, []string{"advisedBy"}, rrf.LearnOptions{L2: c.l2, MaxIter: c.learnIter,
				Ground: rrf.GroundOptions{MemoryLimit: c.memLimit}})
			if err != nil {
				return fmt.Errorf("%s: learning: %w", test, err)
			}
			secs, cpu := time.Since(start).Seconds(), measure.CPUSeconds()-cpu0
			fmt.Fprintf(c.stderr, "    learned in %.1f s (CPU %.1f s): %s after %d iterations, pseudo-log-likelihood %.2f, gradient norm %.3g\n",
				secs, cpu, lr.Status, lr.Iterations, lr.PLL, lr.GradNorm)
			sets = append(sets, set{"learned (PLL)", learned, []string{fmt.Sprintf("%.1f", secs), fmt.Sprintf("%.1f", cpu), lr.Status, fmt.Sprint(lr.Iterations),
				fmt.Sprintf("%.2f", lr.PLL), fmt.Sprintf("%.0f", peak())}})
			if c.saveDir != "" {
				path := filepath.Join(c.saveDir, "uwcse-"+test+"-"+c.norm.String()+".rrf")
				if err := os.WriteFile(path, learned.Text(), 0o644); err != nil {
					return err
				}
			}
		}
		for _, s := range sets {
			peak := peakMB()
			start, cpu0 := time.Now(), measure.CPUSeconds()
			auc, cll, pos, nf, err := c.uwMarginals(ctx, s.prog, fo)
			if err != nil {
				return fmt.Errorf("%s: %w", test, err)
			}
			secs, cpu := time.Since(start).Seconds(), measure.CPUSeconds()-cpu0
			fmt.Fprintf(c.stderr, "    %s: AUC-PR %.4f CLL %.4f (%d features, %.1f s, CPU %.1f s)\n", s.name, auc, cll, nf, secs, cpu)
			row := []string{test, s.name, c.norm.String(), fmt.Sprint(len(fo.Queries)), fmt.Sprint(pos), fmt.Sprintf("%.4f", auc), fmt.Sprintf("%.4f", cll)}
			row = append(row, s.cols...)
			row = append(row, fmt.Sprint(nf), fmt.Sprintf("%.1f", secs), fmt.Sprintf("%.1f", cpu), fmt.Sprintf("%.0f", peak()))
			rows = append(rows, row)
		}
		if err := c.writeCSV("uwcse-"+c.norm.String(), rows); err != nil {
			return err
		}
	}
	results.Markdown(c.stdout, rows)
	return nil
}

// uwMarginals grounds the program over an area's facts, finds an ICM mode
// and estimates the advisedBy marginals by Gibbs sampling from it
// (c.samples after c.burn), then scores them as bench/mln does: AUC-PR of
// the positives and the mean conditional log-likelihood, probabilities
// clipped to [0.001, 0.999].
func (c *config) uwMarginals(ctx context.Context, p *rrf.Program, fo *mln.Folder) (auc, cll float64, pos, features int, err error) {
	net, err := mln.Build(p.Decls, fo.Evidence, mln.Options{Query: []string{"advisedBy"}})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	gr, err := p.GroundWith(net, rrf.GroundOptions{MemoryLimit: c.memLimit, Context: ctx})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	mode, _, err := rrf.ICM(ctx, gr.Net, gr.Evidence, rrf.ICMOptions{Restarts: 1, Seed: 1})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	marg, err := rrf.Gibbs(ctx, gr.Net, gr.Evidence, mode, rrf.GibbsOptions{Samples: c.samples, BurnIn: c.burn, Seed: 1})
	if err != nil {
		return 0, 0, 0, 0, err
	}
	prob := map[string]float64{}
	for v, a := range gr.Atoms {
		prob[mln.AtomString(a.Pred, a.Args)] = marg[v]
	}
	items := make([]eval.Scored, 0, len(fo.Queries))
	for _, q := range fo.Queries {
		args := make([]string, len(q.Args))
		for i, t := range q.Args {
			args[i] = t.Name
		}
		pr := prob[mln.AtomString(q.Pred, args)] // an atom no feature mentions has no variable: 0, as bench/mln counts it
		items = append(items, eval.Scored{Score: pr, Positive: q.Value == 1})
		pc := min(0.999, max(0.001, pr))
		if q.Value == 1 {
			cll += math.Log(pc)
			pos++
		} else {
			cll += math.Log(1 - pc)
		}
	}
	return eval.AUPRC(items), cll / float64(len(fo.Queries)), pos, len(gr.Net.Features), nil
}

// peakMB resets the process's peak resident memory and returns a function
// reading it back in MB (0 where unknown).
func peakMB() func() float64 {
	measure.ResetPeak()
	return measure.PeakRSSMB
}
