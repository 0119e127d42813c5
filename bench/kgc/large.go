package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/kgc"
)

// phaseCost is what one phase of a run cost: wall and CPU seconds (user +
// system, all threads) and the process's peak resident memory during it.
type phaseCost struct {
	wall, cpu, peakMB float64
}

// measured runs f and returns its cost.
func measured(f func() error) (phaseCost, error) {
	measure.ResetPeak()
	start, cpu := time.Now(), measure.CPUSeconds()
	err := f()
	return phaseCost{wall: time.Since(start).Seconds(), cpu: measure.CPUSeconds() - cpu, peakMB: measure.PeakRSSMB()}, err
}

// large runs a large benchmark read from data (train.txt, valid.txt and
// test.txt: FB15k-237, about 15k entities and 272k training triples, kept
// outside the repository): one learning run of the longest budget (or the
// rules of rulesFile, such as AnyBURL's), then for each budget the rules
// of the rounds done by it ranked under each scoring, the predictions
// written (to nowhere) while ranking as hinge kgc --predictions writes
// them. Every phase reports wall and CPU seconds and its peak resident
// memory beside the metrics (results/large.csv).
func large(ctx context.Context, dir, data string, budgets []time.Duration, scorings []variant, rulesFile string, seed uint64) error {
	if data == "" {
		return errors.New("large: give -large-data DIR (train.txt, valid.txt, test.txt of the benchmark, e.g. FB15k-237 from the ConvE repository)")
	}
	name := filepath.Base(data)
	var d *dataset
	load, err := measured(func() error {
		var err error
		d, err = load(filepath.Dir(data), name)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("  %s: %s, %d test triples; loaded in %.1f s, %.0f MB\n", name, d.g, len(d.test), load.wall, load.peakMB)
	header := []string{"data", "rules_from", "learn_budget_s", "rounds", "rules", "learn_cpu_s", "learn_peak_rss_mb", "scoring",
		"mrr", "hits1", "hits3", "hits10", "mrr_even_half", "mrr_odd_half", "cluster_cpu_s", "rank_cpu_s", "rank_wall_s", "query_median_ms", "query_max_ms", "rank_peak_rss_mb"}
	var rows [][]string
	type ruleSet struct {
		from          string
		budget        float64
		rounds        int
		rules         []kgc.Rule
		learnCPU, mem float64
	}
	var sets []ruleSet
	if rulesFile != "" {
		var rules []kgc.Rule
		c, err := measured(func() error {
			f, err := textfile.Open(rulesFile)
			if err != nil {
				return err
			}
			defer f.Close()
			rules, err = kgc.ReadRules(rulesFile, f, d.v)
			return err
		})
		if err != nil {
			return err
		}
		if len(d.v.Entities) > d.g.NumEntities || len(d.v.Relations) > d.g.NumRelations {
			fmt.Printf("  the rules name %d entities or relations the graph lacks: their rules are not used\n",
				len(d.v.Entities)-d.g.NumEntities+len(d.v.Relations)-d.g.NumRelations)
		}
		sets = append(sets, ruleSet{from: filepath.Base(rulesFile), rules: rules, mem: c.peakMB})
	} else {
		longest := slices.Max(budgets)
		fmt.Printf("  %s: learning for %v ...\n", name, longest)
		var lr *kgc.LearnResult
		c, err := measured(func() error {
			var err error
			lr, err = kgc.Learn(ctx, d.g, kgc.LearnOptions{Time: longest, Seed: seed, Progress: func(st kgc.RoundStat) {
				if st.Round%10 == 0 {
					fmt.Printf("    round %d: %d rules, %.0f s\n", st.Round, st.Rules, st.Seconds)
				}
			}})
			return err
		})
		if err != nil {
			return err
		}
		fmt.Printf("  learned %d rules in %d rounds: %.0f CPU s, %.0f MB\n", len(lr.Rules), lr.Rounds, c.cpu, c.peakMB)
		for _, b := range budgets {
			rounds := 0
			for _, st := range lr.Log {
				if st.Seconds <= b.Seconds() {
					rounds = st.Round
				}
			}
			// The learning CPU of a shorter budget is the longest run's
			// share of it by rounds' time (rounds run one after another).
			share := 1.0
			if rounds > 0 && rounds < lr.Rounds {
				share = lr.Log[rounds-1].Seconds / lr.Seconds
			}
			sets = append(sets, ruleSet{from: "hinge", budget: b.Seconds(), rounds: rounds, rules: upToRound(lr.Rules, rounds), learnCPU: c.cpu * share, mem: c.peakMB})
		}
	}
	for _, set := range sets {
		for _, vr := range scorings {
			fmt.Printf("  %s, rules of %s %v s (%d rules), %s ...\n", name, set.from, set.budget, len(set.rules), vr.name)
			rk := kgc.NewRanker(d.g, set.rules, vr.s)
			rk.RepeatedSets = vr.repeated
			var clusterCPU float64
			if vr.s == kgc.Clustered {
				c, err := measured(func() error {
					rep, err := rk.Cluster(ctx, d.valid, func(t kgc.Triple) bool { return d.knownValid[t] }, kgc.ClusterOptions{Seed: seed})
					if err == nil {
						fmt.Printf("    clustered: %d validation queries, validation MRR %.4f (%.4f without clustering), %d rules merged\n",
							rep.ValidQueries, rep.ValidMRR, rep.ValidMRRUnclustered, rep.Merged)
					}
					return err
				})
				if err != nil {
					return err
				}
				clusterCPU = c.cpu
				fmt.Printf("    clustering: %.0f s, %.0f CPU s, %.0f MB\n", c.wall, c.cpu, c.peakMB)
			}
			var ev *kgc.Evaluation
			pw := kgc.NewPredictionWriter(io.Discard, d.v)
			c, err := measured(func() error {
				var err error
				ev, err = rk.Evaluate(ctx, d.test, func(t kgc.Triple) bool { return d.known[t] }, kgc.EvalOptions{
					Answers: func(i int, heads, tails kgc.Answer) error { return pw.Write(d.test[i], heads, tails) }})
				return err
			})
			if err != nil {
				return err
			}
			m := ev.Metrics
			med, _, mx := ev.QueryTimes()
			even, odd := halves(ev)
			fmt.Printf("    MRR %.4f (halves %.4f, %.4f), Hits@1 %.4f, Hits@10 %.4f; ranking %.0f s, %.0f CPU s, %.0f MB\n", m.MRR, even, odd, m.Hits1, m.Hits10, c.wall, c.cpu, c.peakMB)
			rows = append(rows, []string{name, set.from, fmt.Sprint(set.budget), fmt.Sprint(set.rounds), fmt.Sprint(len(set.rules)), fmt.Sprintf("%.0f", set.learnCPU),
				fmt.Sprintf("%.0f", set.mem), vr.name, f4(m.MRR), f4(m.Hits1), f4(m.Hits3), f4(m.Hits10), f4(even), f4(odd), fmt.Sprintf("%.0f", clusterCPU),
				fmt.Sprintf("%.0f", c.cpu), fmt.Sprintf("%.0f", c.wall), f2(1000 * med), f2(1000 * mx), fmt.Sprintf("%.0f", c.peakMB)})
		}
	}
	out := "large.csv"
	if rulesFile != "" {
		out = "large-rules.csv"
	}
	return writeCSV(filepath.Join(dir, out), header, rows)
}
