package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/hinge-srl/hinge/kgc"
)

// confVariant is a confidence estimate as the confidence experiment ranks
// with it: the library's point and lower estimates, the point less the
// sampling error alone, and the lower end of intervals of other widths
// (z), to choose the library's on validation.
type confVariant struct {
	name string
	conf func(r *kgc.Rule) float64
}

func lowerZ(z float64) confVariant {
	return confVariant{fmt.Sprintf("lower z=%g", z), func(r *kgc.Rule) float64 { return kgc.LowerConf(r.Conf, r.Support, r.Err, z) }}
}

// confVariants are point, lower, the point less the sampling error, and
// the lower end at each z of zs.
func confVariants(zs []float64) []confVariant {
	vs := []confVariant{
		{"point", func(r *kgc.Rule) float64 { return r.RankingConf(kgc.PointConfidence) }},
		{"lower", func(r *kgc.Rule) float64 { return r.RankingConf(kgc.LowerConfidence) }},
		{"point less sampling error", func(r *kgc.Rule) float64 { return max(0, r.Conf-r.Err) }},
	}
	for _, z := range zs {
		vs = append(vs, lowerZ(z))
	}
	return vs
}

// confidence learns once per data set for the most rounds and ranks the
// rules of the first n rounds, for each n, with noisy-or and maxplus under
// each confidence estimate (confVariants), on the validation split
// (filtered by the graph and validation triples; settings are chosen on
// it) and on the test split: MRR against rounds,
// the split's even and odd halves, and two paired differences with their
// standard errors (over the split's queries): against the first rounds
// ranked with the same scoring and estimate (what a longer budget
// changes), and against the point estimate at the same rounds.
func confidence(ctx context.Context, dir string, rounds []int, names []string, zs []float64, seed uint64) error {
	header := []string{"data", "rounds", "learn_s", "rules", "scoring", "confidence", "split", "mrr", "hits1", "hits10", "mrr_even_half", "mrr_odd_half",
		"d_mrr_vs_first_rounds", "se_d_first", "d_mrr_vs_point", "se_d_point", "rank_cpu_s"}
	var rows [][]string
	for _, path := range names {
		d, lr, err := loadAndLearn(ctx, path, slices.Max(rounds), seed)
		if err != nil {
			return err
		}
		name := d.name
		first := map[string][]float64{} // reciprocal ranks of the first rounds, by scoring, estimate and split
		for _, n := range rounds {
			if n > lr.Rounds {
				break // learning saturated
			}
			rules := upToRound(lr.Rules, n)
			learnSec := lr.Log[n-1].Seconds
			for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.MaxPlus} {
				point := map[string][]float64{} // by split
				for _, cv := range confVariants(zs) {
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
						rr := ev.ReciprocalRanks()
						key := s.String() + "/" + cv.name + "/" + split.name
						if first[key] == nil {
							first[key] = rr
						}
						if cv.name == "point" {
							point[split.name] = rr
						}
						dFirst, seFirst := kgc.PairedDiff(rr, first[key])
						dPoint, sePoint := kgc.PairedDiff(rr, point[split.name])
						fmt.Printf("  %s, %d rounds (%d rules), %s, %s, %s: MRR %.4f (halves %.4f %.4f; %+.4f +-%.4f vs first rounds, %+.4f +-%.4f vs point)\n",
							name, n, len(rules), s, cv.name, split.name, m.MRR, even, odd, dFirst, seFirst, dPoint, sePoint)
						rows = append(rows, []string{name, fmt.Sprint(n), f2(learnSec), fmt.Sprint(len(rules)), s.String(), cv.name, split.name,
							f4(m.MRR), f4(m.Hits1), f4(m.Hits10), f4(even), f4(odd), f4(dFirst), f4(seFirst), f4(dPoint), f4(sePoint), f2(c.cpu)})
					}
				}
			}
		}
	}
	return writeCSV(filepath.Join(dir, "anytime-confidence.csv"), header, rows)
}
