// Command kgc benchmarks knowledge-graph completion with hinge's kgc
// package:
//
//   - anytime: Kinship and Family (facts + train as the graph) with rules
//     learned for 2, 5, 10 and 30 s, each rule set ranked by every scoring
//     (maxplus, max, noisy-or, psl); filtered MRR and Hits@1/3/10 on the
//     test split, learning and ranking seconds. One PNG per data set plots
//     MRR against the learning time, one line per scoring.
//
//   - scale: a generated graph of -triples triples (10^6 by default) with
//     planted rules; seconds and peak resident memory of loading,
//     learning (-scale-time) and ranking -scale-test held-out triples.
//
//     go -C bench run ./kgc [-experiments anytime,scale] [-times 2s,5s,10s,30s] [-seed 1] [-update-results]
//
// CSV and PNG files go to -out (a temporary directory by default), or with
// -update-results into results/ beside this program.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/kgc"
)

var scorings = []kgc.Scoring{kgc.MaxPlus, kgc.Max, kgc.NoisyOr, kgc.PSL}

func main() {
	exps := flag.String("experiments", "anytime,scale", "comma-separated: anytime, scale")
	out := flag.String("out", "", "directory for the CSV and PNG files (default: a temporary directory)")
	update := flag.Bool("update-results", false, "write the results into results/ beside this program")
	seed := flag.Uint64("seed", 1, "seed of rule learning and of the generated graph")
	timesFlag := flag.String("times", "2s,5s,10s,30s", "learning budgets of the anytime experiment")
	triples := flag.Int("triples", 1_000_000, "triples of the generated graph (scale)")
	scaleTime := flag.Duration("scale-time", 10*time.Second, "learning budget on the generated graph")
	scaleTest := flag.Int("scale-test", 1000, "held-out triples ranked on the generated graph")
	flag.Parse()
	var times []time.Duration
	for _, s := range strings.Split(*timesFlag, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			fail(fmt.Errorf("-times: %q is not a positive duration", s))
		}
		times = append(times, d)
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
			err = anytime(ctx, dir, times, *seed)
		case "scale":
			err = scale(ctx, dir, *triples, *scaleTest, *scaleTime, *seed)
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
}

// load reads a shared data set: train (+ facts) as the graph, valid and
// test as filters, test as the queries.
func load(data, name string) (*dataset, error) {
	d := &dataset{name: name, v: kgc.NewVocab(), known: map[kgc.Triple]bool{}}
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
		}
		switch f {
		case "train", "facts":
			graph = append(graph, ts...)
		case "test":
			d.test = ts
		}
	}
	d.g = kgc.NewGraph(graph, len(d.v.Entities), len(d.v.Relations))
	return d, nil
}

// rank ranks d's test triples with rules under scoring s.
func (d *dataset) rank(ctx context.Context, rules []kgc.Rule, s kgc.Scoring, seed uint64) (kgc.Metrics, float64, error) {
	start := time.Now()
	rk := kgc.NewRanker(d.g, rules, s)
	opt := kgc.EvalOptions{ADMM: admm.DefaultOptions()}
	if s == kgc.PSL {
		var err error
		if opt.PSL, err = rk.NewPSL(ctx, d.v, kgc.PSLOptions{Seed: seed}); err != nil {
			return kgc.Metrics{}, 0, err
		}
	}
	ev, err := rk.Evaluate(ctx, d.test, func(t kgc.Triple) bool { return d.known[t] }, opt)
	if err != nil {
		return kgc.Metrics{}, 0, err
	}
	return ev.Metrics, time.Since(start).Seconds(), nil
}

func anytime(ctx context.Context, dir string, times []time.Duration, seed uint64) error {
	data, err := shareddata.Dir()
	if err != nil {
		return err
	}
	header := []string{"data", "learn_budget_s", "rules", "learn_s", "scoring", "mrr", "hits1", "hits3", "hits10", "rank_s"}
	var rows [][]string
	for _, name := range []string{"kinship", "family"} {
		d, err := load(data, name)
		if err != nil {
			return err
		}
		series := map[kgc.Scoring]plotter.XYs{}
		for _, budget := range times {
			lr, err := kgc.Learn(ctx, d.g, kgc.LearnOptions{Time: budget, Seed: seed})
			if err != nil {
				return err
			}
			for _, s := range scorings {
				fmt.Printf("  %s %v %s ...\n", name, budget, s)
				m, sec, err := d.rank(ctx, lr.Rules, s, seed)
				if err != nil {
					return err
				}
				rows = append(rows, []string{name, fmt.Sprint(budget.Seconds()), fmt.Sprint(len(lr.Rules)), f2(lr.Seconds), s.String(),
					f4(m.MRR), f4(m.Hits1), f4(m.Hits3), f4(m.Hits10), f2(sec)})
				series[s] = append(series[s], plotter.XY{X: budget.Seconds(), Y: m.MRR})
			}
		}
		if err := plotMRR(filepath.Join(dir, "anytime-"+name+".png"), name, series); err != nil {
			return err
		}
	}
	return writeCSV(filepath.Join(dir, "anytime.csv"), header, rows)
}

func plotMRR(path, name string, series map[kgc.Scoring]plotter.XYs) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: filtered MRR by learning time", name)
	p.X.Label.Text = "learning budget (s)"
	p.Y.Label.Text = "MRR"
	p.Add(plotter.NewGrid())
	for i, s := range scorings {
		l, pts, err := plotter.NewLinePoints(series[s])
		if err != nil {
			return err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.String(), l, pts)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	})
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

// peakMB resets the process's peak resident memory (Linux: clear_refs 5)
// and returns a function reading it back in MB (0 where unknown).
func peakMB() func() float64 {
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return func() float64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(b), "\n") {
			var kb float64
			if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
				return kb / 1024
			}
		}
		return 0
	}
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
		lr, err = kgc.Learn(ctx, g, kgc.LearnOptions{Time: budget, Seed: seed})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("budget %v: %d rules of %d counted, %d rounds", budget, len(lr.Rules), lr.Candidates, lr.Rounds), nil
	}); err != nil {
		return err
	}
	if err := phase("rank", func() (string, error) {
		rk := kgc.NewRanker(g, lr.Rules, kgc.MaxPlus)
		ev, err := rk.Evaluate(ctx, test, func(t kgc.Triple) bool { return known[t] }, kgc.EvalOptions{})
		if err != nil {
			return "", err
		}
		m := ev.Metrics
		return fmt.Sprintf("maxplus: %d queries, MRR %.4f, Hits@1 %.4f, Hits@3 %.4f, Hits@10 %.4f", m.Queries, m.MRR, m.Hits1, m.Hits3, m.Hits10), err
	}); err != nil {
		return err
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
