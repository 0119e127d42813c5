// Command kgc benchmarks knowledge-graph completion with hinge's kgc
// package:
//
//   - anytime: Kinship and Family (facts + train as the graph), or the data
//     sets of -anytime-data (Nations, say), with the rules of the first
//     1, 2, 5, 10 and 20 learning rounds (-rounds; one learning run),
//     each rule set ranked by noisy-or, noisy-or counting every rule,
//     maxplus and clustered: filtered MRR and Hits@1/3/10 on the test
//     split and on its two halves (even and odd triples), the ranking's
//     CPU seconds and peak memory. One PNG per data set plots MRR against
//     the learning time, one line per scoring.
//
//   - confidence: the anytime experiment's data sets and rounds, each
//     rule set ranked by noisy-or and maxplus with the point and the lower
//     confidence (kgc.Confidence), and the point less the sampling error
//     (-lower-z adds other interval widths), on the validation split (to
//     choose on) and the test split, with paired differences and their
//     standard errors: anytime-confidence.csv.
//
//   - learned: the anytime experiment's data sets and rounds, the rounds
//     kept chosen on the validation split as hinge kgc --valid chooses
//     them, each rule set ranked by noisy-or and by learned scoring (its
//     weights fitted on the validation split): metrics, the paired
//     difference over the test queries and its standard error, the fit's
//     CPU seconds (learned.csv).
//
//   - wn18rr: WN18RR with one learning run of the longest of -wn-times
//     (10, 60, 300 and 1,000 s); the rules of the rounds done by each
//     budget (what --rounds would learn) ranked with noisy-or and maxplus.
//     MRR against learning time is plotted beside AnyBURL's rules ranked
//     by hinge, read from results/wn18rr-anyburl.csv when present
//     (AnyBURL is run by hand, see README.md); wn18rr-plot redraws the
//     plot from the CSV files.
//
//   - scale: a generated graph of -triples triples (10^6 by default) with
//     planted rules; seconds and peak resident memory of loading,
//     learning (-scale-time) and ranking -scale-test held-out triples
//     with the rules of rounds 1, 2, 5, 10 and all.
//
//   - large: a large benchmark kept outside the repository (-large-data:
//     FB15k-237), learned for the longest of -large-times (or the rules of
//     -large-rules, such as AnyBURL's), each budget's rules ranked under
//     -large-scorings with the predictions written as they come: MRR
//     beside the CPU seconds and peak memory of learning, clustering and
//     ranking.
//
//     go -C bench run ./kgc [-experiments anytime,wn18rr,scale,large] [-rounds 1,2,5,10,20] [-seed 1] [-update-results]
//
// CSV and PNG files go to -out (a temporary directory by default), or with
// -update-results into results/ beside this program.
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/kgc"
)

func main() {
	exps := flag.String("experiments", "anytime,wn18rr,scale", "comma-separated: anytime, confidence, choose (rounds chosen on validation, as hinge kgc --valid), learned (learned scoring against noisy-or), wn18rr, scale, large (needs -large-data), wn18rr-plot (the plot again from the CSV files)")
	wnTimes := flag.String("wn-times", "10s,60s,300s,1000s", "learning budgets of the wn18rr experiment")
	out := flag.String("out", "", "directory for the CSV and PNG files (default: a temporary directory)")
	update := flag.Bool("update-results", false, "write the results into results/ beside this program")
	seed := flag.Uint64("seed", 1, "seed of rule learning and of the generated graph")
	roundsFlag := flag.String("rounds", "1,2,5,10,20", "anytime: learning rounds whose rules are ranked (one learning run of the most)")
	anytimeData := flag.String("anytime-data", "kinship,family", "anytime: data sets, comma-separated: shared ones by name, others by directory (train.txt, valid.txt, test.txt), such as Nations from the ConvE repository")
	lowerZs := flag.String("lower-z", "", "confidence: also rank with the lower end of the Wilson interval at these z, comma-separated (the library's lower is z 1.96)")
	triples := flag.Int("triples", 1_000_000, "triples of the generated graph (scale)")
	scaleTime := flag.Duration("scale-time", 600*time.Second, "learning budget on the generated graph")
	scaleTest := flag.Int("scale-test", 2500, "held-out triples ranked on the generated graph (each asked both ways)")
	scaleFiles := flag.String("scale-files", "", "write the generated graph to this directory as train.txt, valid.txt (empty) and test.txt, for hinge kgc, and stop")
	largeData := flag.String("large-data", "", "large: the benchmark's directory (train.txt, valid.txt, test.txt; FB15k-237), outside the repository")
	largeTimes := flag.String("large-times", "60s,300s", "large: learning budgets (one run of the longest)")
	largeScorings := flag.String("large-scorings", "noisy-or,noisy-or-every-rule,maxplus,clustered", "large: scorings ranked (noisy-or-every-rule: noisy-or counting every rule)")
	largeRules := flag.String("large-rules", "", "large: rank this rules file (such as AnyBURL's) instead of learning")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run here")
	flag.Parse()
	stopProfile, err := measure.StartCPUProfile(*cpuProfile)
	if err != nil {
		fail(err)
	}
	defer stopProfile()
	durations := func(name, list string) []time.Duration {
		var ds []time.Duration
		for _, s := range strings.Split(list, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil || d <= 0 {
				fail(fmt.Errorf("%s: %q is not a positive duration", name, s))
			}
			ds = append(ds, d)
		}
		return ds
	}
	wn, lt := durations("-wn-times", *wnTimes), durations("-large-times", *largeTimes)
	var rounds []int
	for _, x := range strings.Split(*roundsFlag, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(x), &n); err != nil || n < 1 || (len(rounds) > 0 && n <= rounds[len(rounds)-1]) {
			fail(fmt.Errorf("-rounds: %q is not an increasing list of positive counts", *roundsFlag))
		}
		rounds = append(rounds, n)
	}
	var ls []variant
	for _, name := range strings.Split(*largeScorings, ",") {
		name = strings.TrimSpace(name)
		if name == "noisy-or-every-rule" {
			ls = append(ls, variant{"noisy-or, every rule", kgc.NoisyOr, true})
			continue
		}
		s, err := kgc.ParseScoring(name)
		if err != nil {
			fail(fmt.Errorf("-large-scorings: %w (or noisy-or-every-rule)", err))
		}
		ls = append(ls, variant{s.String(), s, false})
	}
	if *scaleFiles != "" {
		if err := writeScaleFiles(*scaleFiles, *triples, *scaleTest, *seed); err != nil {
			fail(err)
		}
		return
	}
	dir := *out
	switch {
	case *update:
		dir = "kgc/results"
		if _, err := os.Stat("kgc"); err != nil {
			dir = "results"
		}
	case dir == "":
		dir = filepath.Join(os.TempDir(), "hinge-bench-kgc")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	fmt.Printf("kgc benchmark (%d cores), results to %s\n", runtime.GOMAXPROCS(0), dir)
	ctx := context.Background()
	for _, e := range strings.Split(*exps, ",") {
		var err error
		switch strings.TrimSpace(e) {
		case "anytime":
			err = anytime(ctx, dir, rounds, strings.Split(*anytimeData, ","), *seed)
		case "confidence":
			var zs []float64
			for _, x := range strings.Split(*lowerZs, ",") {
				var z float64
				if x = strings.TrimSpace(x); x == "" {
					continue
				}
				if _, err := fmt.Sscan(x, &z); err != nil || !(z > 0) {
					fail(fmt.Errorf("-lower-z: %q is not a positive number", x))
				}
				zs = append(zs, z)
			}
			err = confidence(ctx, dir, rounds, strings.Split(*anytimeData, ","), zs, *seed)
		case "choose":
			err = chooseRounds(ctx, dir, rounds, strings.Split(*anytimeData, ","), *seed)
		case "learned":
			err = learnedScoring(ctx, dir, rounds, strings.Split(*anytimeData, ","), *seed)
		case "wn18rr":
			err = wn18rr(ctx, dir, wn, *seed)
		case "wn18rr-plot":
			err = plotWN18RR(dir)
		case "scale":
			err = scale(ctx, dir, *triples, *scaleTest, *scaleTime, *seed)
		case "large":
			err = large(ctx, dir, *largeData, lt, ls, *largeRules, *seed)
		default:
			err = fmt.Errorf("unknown experiment %q", e)
		}
		if err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kgc:", err)
	os.Exit(1)
}

// dataset is a graph with its test triples and every known triple.
type dataset struct {
	name  string
	v     *kgc.Vocab
	g     *kgc.Graph
	test  []kgc.Triple
	known map[kgc.Triple]bool
	// valid and knownValid (graph and validation triples, no test
	// triple) choose the clustering thresholds of clustered scoring.
	valid      []kgc.Triple
	knownValid map[kgc.Triple]bool
}

// load reads a shared data set: train (+ facts) as the graph, valid and
// test as filters, test as the queries.
func load(data, name string) (*dataset, error) {
	d := &dataset{name: name, v: kgc.NewVocab(), known: map[kgc.Triple]bool{}, knownValid: map[kgc.Triple]bool{}}
	var graph []kgc.Triple
	for _, f := range []string{"train", "facts", "valid", "test"} {
		path := filepath.Join(data, name, f+".txt")
		if _, err := os.Stat(path); f == "facts" && errors.Is(err, os.ErrNotExist) {
			continue
		}
		ts, err := kgc.ReadTriples(context.Background(), path, d.v)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			d.known[t] = true
			if f != "test" {
				d.knownValid[t] = true
			}
		}
		switch f {
		case "train", "facts":
			graph = append(graph, ts...)
		case "valid":
			d.valid = ts
		case "test":
			d.test = ts
		}
	}
	d.g = kgc.NewGraph(graph, len(d.v.Entities), len(d.v.Relations))
	return d, nil
}

// rank ranks d's test triples with rules under scoring s.
func (d *dataset) rank(ctx context.Context, rules []kgc.Rule, s kgc.Scoring, seed uint64) (kgc.Metrics, float64, error) {
	ev, sec, err := d.evaluate(ctx, rules, s, seed)
	if err != nil {
		return kgc.Metrics{}, 0, err
	}
	return ev.Metrics, sec, nil
}

// evaluate ranks d's test triples with rules under scoring s (for
// clustered scoring the seconds include the clustering, its thresholds
// chosen on d's validation triples).
func (d *dataset) evaluate(ctx context.Context, rules []kgc.Rule, s kgc.Scoring, seed uint64) (*kgc.Evaluation, float64, error) {
	start := time.Now()
	rk := kgc.NewRanker(d.g, rules, s)
	opt := kgc.EvalOptions{ADMM: admm.DefaultOptions()}
	if s == kgc.PSL {
		var err error
		if opt.PSL, err = rk.NewPSL(ctx, d.v, kgc.PSLOptions{Seed: seed}); err != nil {
			return nil, 0, err
		}
	}
	if s == kgc.Clustered {
		if _, err := rk.Cluster(ctx, d.valid, func(t kgc.Triple) bool { return d.knownValid[t] }, kgc.ClusterOptions{Seed: seed}); err != nil {
			return nil, 0, err
		}
	}
	if s == kgc.Learned {
		if _, err := rk.FitWeights(ctx, d.valid, func(t kgc.Triple) bool { return d.knownValid[t] }, kgc.LearnedOptions{Seed: seed}); err != nil {
			return nil, 0, err
		}
	}
	ev, err := rk.Evaluate(ctx, d.test, func(t kgc.Triple) bool { return d.known[t] }, opt)
	if err != nil {
		return nil, 0, err
	}
	return ev, time.Since(start).Seconds(), nil
}

// variant is a scoring as the anytime experiment ranks with it.
type variant struct {
	name     string
	s        kgc.Scoring
	repeated bool // noisy-or counting every rule (Ranker.RepeatedSets)
}

var variants = []variant{{"noisy-or", kgc.NoisyOr, false}, {"noisy-or, every rule", kgc.NoisyOr, true}, {"maxplus", kgc.MaxPlus, false}, {"clustered", kgc.Clustered, false}}

// halves is the MRR over the test triples of even and of odd position
// (both queries of each): two held-out halves, the first to choose on,
// the second to check the choice.
func halves(ev *kgc.Evaluation) (even, odd float64) {
	var sum, n [2]float64
	for i := range ev.Heads {
		for _, r := range []float64{ev.Heads[i].Rank, ev.Tails[i].Rank} {
			n[i%2]++
			if r > 0 {
				sum[i%2] += 1 / r
			}
		}
	}
	return sum[0] / max(n[0], 1), sum[1] / max(n[1], 1)
}

// loadAndLearn reads the data set at path (a name alone: one of the
// shared data sets) and learns rounds rounds of rules on its graph.
func loadAndLearn(ctx context.Context, path string, rounds int, seed uint64) (*dataset, *kgc.LearnResult, error) {
	if !strings.ContainsRune(path, os.PathSeparator) {
		data, err := shareddata.Dir()
		if err != nil {
			return nil, nil, err
		}
		path = filepath.Join(data, path)
	}
	d, err := load(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, nil, err
	}
	fmt.Printf("  %s: learning %d rounds ...\n", d.name, rounds)
	lr, err := kgc.Learn(ctx, d.g, kgc.LearnOptions{Rounds: rounds, Seed: seed})
	return d, lr, err
}

// anytime learns once per data set for the largest number of rounds and
// ranks the rules of the first n rounds, for each n, under every variant:
// MRR against the learning time, and the two halves of the test split.
func anytime(ctx context.Context, dir string, rounds []int, names []string, seed uint64) error {
	header := []string{"data", "rounds", "learn_s", "rules", "scoring", "mrr", "hits1", "hits3", "hits10", "mrr_even_half", "mrr_odd_half", "rank_cpu_s", "peak_rss_mb"}
	var rows [][]string
	for _, path := range names {
		d, lr, err := loadAndLearn(ctx, path, slices.Max(rounds), seed)
		if err != nil {
			return err
		}
		name := d.name
		series := map[string]plotter.XYs{}
		for _, n := range rounds {
			if n > lr.Rounds {
				break // learning saturated
			}
			rules := upToRound(lr.Rules, n)
			learnSec := lr.Log[n-1].Seconds
			for _, vr := range variants {
				fmt.Printf("  %s, %d rounds (%d rules), %s ...\n", name, n, len(rules), vr.name)
				var ev *kgc.Evaluation
				c, err := measured(func() error {
					rk := kgc.NewRanker(d.g, rules, vr.s)
					rk.RepeatedSets = vr.repeated
					if vr.s == kgc.Clustered {
						if _, err := rk.Cluster(ctx, d.valid, func(t kgc.Triple) bool { return d.knownValid[t] }, kgc.ClusterOptions{Seed: seed}); err != nil {
							return err
						}
					}
					var err error
					ev, err = rk.Evaluate(ctx, d.test, func(t kgc.Triple) bool { return d.known[t] }, kgc.EvalOptions{})
					return err
				})
				if err != nil {
					return err
				}
				m := ev.Metrics
				even, odd := halves(ev)
				rows = append(rows, []string{name, fmt.Sprint(n), f2(learnSec), fmt.Sprint(len(rules)), vr.name,
					f4(m.MRR), f4(m.Hits1), f4(m.Hits3), f4(m.Hits10), f4(even), f4(odd), f2(c.cpu), fmt.Sprintf("%.0f", c.peakMB)})
				series[vr.name] = append(series[vr.name], plotter.XY{X: learnSec, Y: m.MRR})
			}
		}
		if err := plotSeries(filepath.Join(dir, "anytime-"+name+".png"), name+": filtered MRR by learning time (rules of the first rounds)", series); err != nil {
			return err
		}
	}
	return writeCSV(filepath.Join(dir, "anytime.csv"), header, rows)
}

// generate makes a graph of about n triples over n/10 entities with
// planted regularities: friend edges; knows mostly the inverse of friend;
// fof two friend steps; every entity in one of 50 groups, and its label
// mostly its group's; the rest random "noise" edges. It returns the
// triples in a seeded random order.
func generate(n int, seed uint64) (*kgc.Vocab, []kgc.Triple) {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := kgc.NewVocab()
	ents := max(n/10, 100)
	for e := range ents {
		v.Entity(fmt.Sprint("e", e))
	}
	const groups = 50
	for g := range groups {
		v.Entity(fmt.Sprint("group", g))
		v.Entity(fmt.Sprint("label", g))
	}
	group := func(g int) int32 { return int32(ents + 2*g) }
	label := func(g int) int32 { return int32(ents + 2*g + 1) }
	friend, knows, fof, member, hasLabel, noise := v.Relation("friend"), v.Relation("knows"), v.Relation("fof"), v.Relation("member"), v.Relation("label"), v.Relation("noise")
	var ts []kgc.Triple
	out := make([][]int32, ents)
	for range 3 * n / 10 {
		a, b := int32(rng.IntN(ents)), int32(rng.IntN(ents))
		ts = append(ts, kgc.Triple{H: a, R: friend, T: b})
		out[a] = append(out[a], b)
		if rng.Float64() < 0.8 {
			ts = append(ts, kgc.Triple{H: b, R: knows, T: a})
		}
	}
	for range 2 * n / 10 {
		x := int32(rng.IntN(ents))
		if len(out[x]) == 0 {
			continue
		}
		a := out[x][rng.IntN(len(out[x]))]
		if len(out[a]) == 0 {
			continue
		}
		ts = append(ts, kgc.Triple{H: x, R: fof, T: out[a][rng.IntN(len(out[a]))]})
	}
	for e := range ents {
		g := rng.IntN(groups)
		ts = append(ts, kgc.Triple{H: int32(e), R: member, T: group(g)})
		if rng.Float64() < 0.9 {
			ts = append(ts, kgc.Triple{H: int32(e), R: hasLabel, T: label(g)})
		} else {
			ts = append(ts, kgc.Triple{H: int32(e), R: hasLabel, T: label(rng.IntN(groups))})
		}
	}
	for len(ts) < n {
		ts = append(ts, kgc.Triple{H: int32(rng.IntN(ents)), R: noise, T: int32(rng.IntN(ents))})
	}
	rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
	return v, ts[:n]
}

// peakMB resets the process's peak resident memory and returns a function
// reading it back in MB (0 where unknown).
func peakMB() func() float64 {
	measure.ResetPeak()
	return measure.PeakRSSMB
}

func scale(ctx context.Context, dir string, n, nTest int, budget time.Duration, seed uint64) error {
	header := []string{"triples", "entities", "phase", "seconds", "peak_rss_mb", "detail"}
	var rows [][]string
	phase := func(name string, f func() (string, error)) error {
		fmt.Printf("  scale %s ...\n", name)
		peak := peakMB()
		start := time.Now()
		detail, err := f()
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(n), "", name, f2(time.Since(start).Seconds()), fmt.Sprintf("%.0f", peak()), detail})
		return nil
	}
	var (
		v     *kgc.Vocab
		g     *kgc.Graph
		test  []kgc.Triple
		known = map[kgc.Triple]bool{}
		lr    *kgc.LearnResult
	)
	if err := phase("generate+index", func() (string, error) {
		var ts []kgc.Triple
		v, ts = generate(n, seed)
		test = ts[:min(nTest, len(ts))]
		for _, t := range ts {
			known[t] = true
		}
		g = kgc.NewGraph(ts[len(test):], len(v.Entities), len(v.Relations))
		return fmt.Sprintf("%d graph triples, %d test", len(g.Triples), len(test)), nil
	}); err != nil {
		return err
	}
	if err := phase("learn", func() (string, error) {
		var err error
		lr, err = kgc.Learn(ctx, g, kgc.LearnOptions{Time: budget, Seed: seed, Progress: func(st kgc.RoundStat) {
			fmt.Printf("    round %d: %d new rules counted, %d kept, %.1f s\n", st.Round, st.Candidates, st.Rules, st.Seconds)
		}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("budget %v: %d rules of %d counted, %d rounds (%d sampled, 95%% error within %.3g)", budget, len(lr.Rules), lr.Candidates, lr.Rounds, lr.Sampled, lr.MaxErr), nil
	}); err != nil {
		return err
	}
	for _, upTo := range snapshots(lr.Rounds) {
		if err := phase(fmt.Sprintf("rank, rules of rounds 1-%d", upTo), func() (string, error) {
			rules := upToRound(lr.Rules, upTo)
			rk := kgc.NewRanker(g, rules, kgc.MaxPlus)
			ev, err := rk.Evaluate(ctx, test, func(t kgc.Triple) bool { return known[t] }, kgc.EvalOptions{})
			if err != nil {
				return "", err
			}
			m := ev.Metrics
			med, p90, mx := ev.QueryTimes()
			return fmt.Sprintf("%d rules (learned in %.0f s); maxplus: %d queries, MRR %.4f, Hits@1 %.4f, Hits@3 %.4f, Hits@10 %.4f; per query median %.2g ms, 90%% %.2g ms, max %.2g ms",
				len(rules), lr.Log[upTo-1].Seconds, m.Queries, m.MRR, m.Hits1, m.Hits3, m.Hits10, 1000*med, 1000*p90, 1000*mx), err
		}); err != nil {
			return err
		}
	}
	for _, r := range rows {
		r[1] = fmt.Sprint(len(v.Entities))
	}
	return writeCSV(filepath.Join(dir, "scale.csv"), header, rows)
}

func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
func f4(x float64) string { return fmt.Sprintf("%.4f", x) }

// writeCSV prints header and rows as a Markdown table and writes them to
// path.
func writeCSV(path string, header []string, rows [][]string) error {
	table := append([][]string{header}, rows...)
	results.Markdown(os.Stdout, table)
	return results.WriteCSV(path, table)
}

// snapshots are the rounds whose rules are ranked: 1, 2, 5, 10, 20, ... up
// to n, and n.
func snapshots(n int) []int {
	var out []int
	for _, r := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500} {
		if r < n {
			out = append(out, r)
		}
	}
	if n > 0 {
		out = append(out, n)
	}
	return out
}

// upToRound is the rules found by rounds 1..n (and the default rules):
// what a run of n rounds learns, in the same order.
func upToRound(rules []kgc.Rule, n int) []kgc.Rule {
	var out []kgc.Rule
	for _, r := range rules {
		if r.Round <= n {
			out = append(out, r)
		}
	}
	return out
}

// wn18rr learns once for the longest budget and ranks the rules of the
// rounds done by each budget with noisy-or, maxplus and clustered.
func wn18rr(ctx context.Context, dir string, budgets []time.Duration, seed uint64) error {
	data, err := shareddata.Dir()
	if err != nil {
		return err
	}
	d, err := load(data, "wn18rr")
	if err != nil {
		return err
	}
	longest := slices.Max(budgets)
	fmt.Printf("  wn18rr: learning for %v ...\n", longest)
	peak := peakMB()
	lr, err := kgc.Learn(ctx, d.g, kgc.LearnOptions{Time: longest, Seed: seed, Progress: func(st kgc.RoundStat) {
		if st.Round%20 == 0 {
			fmt.Printf("    round %d: %d rules, %.0f s\n", st.Round, st.Rules, st.Seconds)
		}
	}})
	if err != nil {
		return err
	}
	learnPeak := peak()
	header := []string{"learn_budget_s", "rounds", "rules", "sampled_rules", "learn_s", "scoring", "mrr", "hits1", "hits3", "hits10", "rank_s", "query_median_ms", "query_p90_ms", "query_max_ms", "peak_rss_mb"}
	var rows [][]string
	series := map[string]plotter.XYs{}
	for _, b := range budgets {
		rounds := 0
		learnSec := 0.0
		for _, st := range lr.Log {
			if st.Seconds <= b.Seconds() {
				rounds, learnSec = st.Round, st.Seconds
			}
		}
		rules := upToRound(lr.Rules, rounds)
		sampled := 0
		for _, r := range rules {
			if r.Sampled > 0 {
				sampled++
			}
		}
		for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.MaxPlus, kgc.Clustered} {
			fmt.Printf("  wn18rr %v (%d rounds, %d rules) %s ...\n", b, rounds, len(rules), s)
			peak := peakMB()
			ev, sec, err := d.evaluate(ctx, rules, s, seed)
			if err != nil {
				return err
			}
			m := ev.Metrics
			med, p90, mx := ev.QueryTimes()
			rows = append(rows, []string{fmt.Sprint(b.Seconds()), fmt.Sprint(rounds), fmt.Sprint(len(rules)), fmt.Sprint(sampled), f2(learnSec), s.String(),
				f4(m.MRR), f4(m.Hits1), f4(m.Hits3), f4(m.Hits10), f2(sec), f2(1000 * med), f2(1000 * p90), f2(1000 * mx), fmt.Sprintf("%.0f", max(learnPeak, peak()))})
			series["hinge "+s.String()] = append(series["hinge "+s.String()], plotter.XY{X: b.Seconds(), Y: m.MRR})
		}
	}
	if err := writeCSV(filepath.Join(dir, "wn18rr.csv"), header, rows); err != nil {
		return err
	}
	return plotWN18RR(dir)
}

// plotWN18RR plots hinge's MRR against learning time (dir/wn18rr.csv)
// beside AnyBURL's rules ranked by hinge (results/wn18rr-anyburl.csv,
// measured by hand, see README.md) and the published AnyBURL + SAFRAN
// figure.
func plotWN18RR(dir string) error {
	series := map[string]plotter.XYs{}
	add := func(table [][]string, prefix string, budget, scoring, mrr int) {
		if len(table) == 0 {
			return
		}
		for _, row := range table[1:] {
			var x, y float64
			fmt.Sscan(row[budget], &x)
			fmt.Sscan(row[mrr], &y)
			series[prefix+row[scoring]] = append(series[prefix+row[scoring]], plotter.XY{X: x, Y: y})
		}
	}
	own, err := readCSVAt(filepath.Join(dir, "wn18rr.csv"))
	if err != nil {
		return err
	}
	add(own, "hinge, ", 0, 5, 6)
	if ab, err := readCSV("wn18rr-anyburl.csv"); err == nil {
		add(ab, "AnyBURL-23-1 rules, hinge's ", 0, 2, 3)
	}
	return plotSeries(filepath.Join(dir, "wn18rr.png"), "WN18RR: filtered MRR by learning time (2 shared cores)", series)
}

// plotSeries plots MRR against learning time (log scale), one line per
// series, in name order.
func plotSeries(path, title string, series map[string]plotter.XYs) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "learning time (s, log scale)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Label.Text = "MRR"
	p.Add(plotter.NewGrid())
	names := slices.Sorted(maps.Keys(series))
	for i, name := range names {
		l, pts, err := plotter.NewLinePoints(series[name])
		if err != nil {
			return err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(name, l, pts)
	}
	if strings.HasPrefix(title, "WN18RR") {
		// The published AnyBURL + SAFRAN figure (1,000 s of learning on
		// many cores, another machine).
		pub, err := plotter.NewLine(plotter.XYs{{X: 10, Y: 0.498}, {X: 1000, Y: 0.498}})
		if err != nil {
			return err
		}
		pub.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(pub)
		p.Legend.Add("AnyBURL + SAFRAN, published (0.494-0.502)", pub)
		p.Y.Max = max(p.Y.Max, 0.505)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	return atomicfile.Write(path, func(w io.Writer) error {
		wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	})
}

// readCSV reads a CSV file of results/ (run from bench/ or bench/kgc/).
func readCSV(name string) ([][]string, error) {
	t, err := readCSVAt(filepath.Join("kgc", "results", name))
	if err != nil {
		return readCSVAt(filepath.Join("results", name))
	}
	return t, nil
}

func readCSVAt(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}

// writeScaleFiles writes scale's generated graph (the same triples, the
// same held-out test triples) as files hinge kgc reads.
func writeScaleFiles(dir string, n, nTest int, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	v, ts := generate(n, seed)
	test := ts[:min(nTest, len(ts))]
	write := func(name string, ts []kgc.Triple) error {
		return atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for _, t := range ts {
				fmt.Fprintf(bw, "%s\t%s\t%s\n", v.Entities[t.H], v.Relations[t.R], v.Entities[t.T])
			}
			return bw.Flush()
		})
	}
	if err := write("train.txt", ts[len(test):]); err != nil {
		return err
	}
	if err := write("valid.txt", nil); err != nil {
		return err
	}
	return write("test.txt", test)
}
