package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/hinge-srl/hinge/kgc"
)

// learnedScoring learns once per data set for the most rounds and, for
// each budget n, keeps the rounds hinge kgc --valid keeps (ChooseRounds,
// noisy-or), then ranks the test split with noisy-or and with learned
// scoring (its weights fitted on the validation split, as hinge kgc
// --score learned fits them): the metrics of both, the paired difference
// of learned against noisy-or over the test queries and its standard
// error, and the fit's CPU seconds (results/learned.csv).
func learnedScoring(ctx context.Context, dir string, rounds []int, names []string, seed uint64) error {
	header := []string{"data", "budget_rounds", "kept_rounds", "rules", "scoring", "mrr", "hits1", "hits3", "hits10", "d_mrr_vs_noisy_or", "se", "valid_mrr_in_sample", "fit_cpu_s", "rank_cpu_s"}
	var rows [][]string
	for _, path := range names {
		d, lr, err := loadAndLearn(ctx, path, slices.Max(rounds), seed)
		if err != nil {
			return err
		}
		known := func(t kgc.Triple) bool { return d.known[t] }
		knownValid := func(t kgc.Triple) bool { return d.knownValid[t] }
		for _, n := range rounds {
			if n > lr.Rounds {
				break // learning saturated
			}
			ch, err := kgc.ChooseRounds(ctx, d.g, upToRound(lr.Rules, n), n, d.valid, knownValid, kgc.RoundsOptions{Scoring: kgc.NoisyOr, Seed: seed})
			if err != nil {
				return err
			}
			rules := upToRound(lr.Rules, ch.Rounds)
			var base []float64
			for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.Learned} {
				rk := kgc.NewRanker(d.g, rules, s)
				var rep *kgc.LearnedReport
				fit, err := measured(func() error {
					if s != kgc.Learned {
						return nil
					}
					var err error
					rep, err = rk.FitWeights(ctx, d.valid, knownValid, kgc.LearnedOptions{Seed: seed})
					return err
				})
				if err != nil {
					return err
				}
				var ev *kgc.Evaluation
				rank, err := measured(func() error {
					var err error
					ev, err = rk.Evaluate(ctx, d.test, known, kgc.EvalOptions{})
					return err
				})
				if err != nil {
					return err
				}
				rr := ev.ReciprocalRanks()
				diff, se, valid := "", "", ""
				if base == nil {
					base = rr
				} else {
					dm, dse := kgc.PairedDiff(rr, base)
					diff, se, valid = f4(dm), f4(dse), f4(rep.ValidMRR)
				}
				m := ev.Metrics
				fmt.Printf("  %s, budget %d rounds (kept %d, %d rules), %s: MRR %.4f, Hits@1 %.4f, Hits@10 %.4f; vs noisy-or %s +-%s; fit %.1f CPU s, rank %.1f CPU s\n",
					d.name, n, ch.Rounds, len(rules), s, m.MRR, m.Hits1, m.Hits10, diff, se, fit.cpu, rank.cpu)
				rows = append(rows, []string{d.name, fmt.Sprint(n), fmt.Sprint(ch.Rounds), fmt.Sprint(len(rules)), s.String(), f4(m.MRR), f4(m.Hits1), f4(m.Hits3), f4(m.Hits10),
					diff, se, valid, f2(fit.cpu), f2(rank.cpu)})
			}
		}
	}
	return writeCSV(filepath.Join(dir, "learned.csv"), header, rows)
}
