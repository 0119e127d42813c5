package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/hinge-srl/hinge/kgc"
)

// chooseRounds learns once per data set for the most rounds and, for each
// budget n, does what hinge kgc does with --valid: kgc.ChooseRounds picks,
// on the validation split, the checkpoint (n rounds, n/2, n/4, ... down to 1) whose
// rules rank best, and the test split is ranked with those rules (noisy-or,
// point confidences) beside the rules of all n rounds. The paired
// differences against the first budget (over the test queries) say what a
// longer budget changes with and without the choice.
func chooseRounds(ctx context.Context, dir string, rounds []int, names []string, seed uint64) error {
	header := []string{"data", "budget_rounds", "learn_s", "rules", "chosen_rounds", "chosen_rules", "valid_mrr_chosen", "valid_mrr_all",
		"test_mrr_chosen", "test_mrr_all", "d_test_chosen_vs_first", "se_chosen", "d_test_all_vs_first", "se_all", "choose_cpu_s"}
	var rows [][]string
	for _, path := range names {
		d, lr, err := loadAndLearn(ctx, path, slices.Max(rounds), seed)
		if err != nil {
			return err
		}
		known := func(t kgc.Triple) bool { return d.known[t] }
		testRR := func(rules []kgc.Rule) (float64, []float64, error) {
			ev, err := kgc.NewRanker(d.g, rules, kgc.NoisyOr).Evaluate(ctx, d.test, known, kgc.EvalOptions{})
			if err != nil {
				return 0, nil, err
			}
			return ev.Metrics.MRR, ev.ReciprocalRanks(), nil
		}
		var firstChosen, firstAll []float64
		for _, n := range rounds {
			if n > lr.Rounds {
				break // learning saturated
			}
			rules := upToRound(lr.Rules, n)
			var ch *kgc.RoundsChoice
			c, err := measured(func() error {
				var err error
				ch, err = kgc.ChooseRounds(ctx, d.g, rules, n, d.valid, func(t kgc.Triple) bool { return d.knownValid[t] }, kgc.RoundsOptions{Scoring: kgc.NoisyOr, Seed: seed})
				return err
			})
			if err != nil {
				return err
			}
			kept := upToRound(rules, ch.Rounds)
			mrrChosen, rrChosen, err := testRR(kept)
			if err != nil {
				return err
			}
			mrrAll, rrAll, err := testRR(rules)
			if err != nil {
				return err
			}
			if firstChosen == nil {
				firstChosen, firstAll = rrChosen, rrAll
			}
			dc, sec := kgc.PairedDiff(rrChosen, firstChosen)
			da, sea := kgc.PairedDiff(rrAll, firstAll)
			validChosen, validAll := "", "" // one round: nothing ranked on validation
			for _, t := range ch.Tried {
				if t.Rounds == ch.Rounds {
					validChosen = f4(t.ValidMRR)
				}
				if t.Rounds == n {
					validAll = f4(t.ValidMRR)
				}
			}
			fmt.Printf("  %s, budget %d rounds (%d rules): kept %d rounds (%d rules), valid %s (all %s); test %.4f (all %.4f); vs first budget %+.4f +-%.4f (all %+.4f +-%.4f); choosing %.1f CPU s\n",
				d.name, n, len(rules), ch.Rounds, len(kept), validChosen, validAll, mrrChosen, mrrAll, dc, sec, da, sea, c.cpu)
			rows = append(rows, []string{d.name, fmt.Sprint(n), f2(lr.Log[n-1].Seconds), fmt.Sprint(len(rules)), fmt.Sprint(ch.Rounds), fmt.Sprint(len(kept)),
				validChosen, validAll, f4(mrrChosen), f4(mrrAll), f4(dc), f4(sec), f4(da), f4(sea), f2(c.cpu)})
		}
	}
	return writeCSV(filepath.Join(dir, "anytime-choose.csv"), header, rows)
}
