package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/kgc"
)

// confVariant is a confidence estimate as the confidence experiment ranks
// with it: the library's point and lower estimates, and the lower end of
// intervals of other widths (z), to choose the library's on validation.
type confVariant struct {
	name string
	conf func(r *kgc.Rule) float64
}

func lowerZ(z float64) confVariant {
	return confVariant{fmt.Sprintf("lower z=%g", z), func(r *kgc.Rule) float64 { return kgc.LowerConf(r.Conf, r.Support, r.Err, z) }}
}

var confVariants = []confVariant{
	{"point", func(r *kgc.Rule) float64 { return r.RankingConf(kgc.PointConfidence) }},
	{"lower", func(r *kgc.Rule) float64 { return r.RankingConf(kgc.LowerConfidence) }},
	lowerZ(1),
}

// confidence learns once per data set for the most rounds and ranks the
// rules of the first n rounds, for each n, with noisy-or and maxplus under
// each confidence estimate, on the validation split (filtered by the
// graph and validation triples; settings are chosen on it) and on the
// test split: MRR against rounds, and the test split's even and odd
// halves, whose difference shows the noise.
func confidence(ctx context.Context, dir string, rounds []int, names []string, seed uint64) error {
	header := []string{"data", "rounds", "learn_s", "rules", "scoring", "confidence", "split", "mrr", "hits1", "hits10", "mrr_even_half", "mrr_odd_half", "rank_cpu_s"}
	var rows [][]string
	for _, path := range names {
		if !strings.ContainsRune(path, os.PathSeparator) {
			data, err := shareddata.Dir()
			if err != nil {
				return err
			}
			path = filepath.Join(data, path)
		}
		name := filepath.Base(path)
		d, err := load(filepath.Dir(path), name)
		if err != nil {
			return err
		}
		fmt.Printf("  %s: learning %d rounds ...\n", name, slices.Max(rounds))
		lr, err := kgc.Learn(ctx, d.g, kgc.LearnOptions{Rounds: slices.Max(rounds), Seed: seed})
		if err != nil {
			return err
		}
		for _, n := range rounds {
			if n > lr.Rounds {
				break // learning saturated
			}
			rules := upToRound(lr.Rules, n)
			learnSec := lr.Log[n-1].Seconds
			for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.MaxPlus} {
				for _, cv := range confVariants {
					rk := kgc.NewRanker(d.g, rules, s)
					rk.RankBy(cv.conf)
					for _, split := range []struct {
						name  string
						ts    []kgc.Triple
						known map[kgc.Triple]bool
					}{{"valid", d.valid, d.knownValid}, {"test", d.test, d.known}} {
						var ev *kgc.Evaluation
						c, err := measured(func() error {
							var err error
							ev, err = rk.Evaluate(ctx, split.ts, func(t kgc.Triple) bool { return split.known[t] }, kgc.EvalOptions{})
							return err
						})
						if err != nil {
							return err
						}
						m := ev.Metrics
						even, odd := halves(ev)
						fmt.Printf("  %s, %d rounds (%d rules), %s, %s, %s: MRR %.4f (halves %.4f %.4f)\n", name, n, len(rules), s, cv.name, split.name, m.MRR, even, odd)
						rows = append(rows, []string{name, fmt.Sprint(n), f2(learnSec), fmt.Sprint(len(rules)), s.String(), cv.name, split.name,
							f4(m.MRR), f4(m.Hits1), f4(m.Hits10), f4(even), f4(odd), f2(c.cpu)})
					}
				}
			}
		}
	}
	return writeCSV(filepath.Join(dir, "anytime-confidence.csv"), header, rows)
}
