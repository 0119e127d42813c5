// Command structure runs the structure-learning experiments of Embar,
// Sridhar, Farnadi and Getoor, "Scalable Structure Learning for Probabilistic Soft
// Logic", with hinge's structure package:
//
//   - ddi: PSL's drug-interaction example; rules for interacts learned on
//     the learn split by PPLL and by greedy local search (GLS), inferred on
//     the eval split; AUROC and AUPRC beside the hand-written model of that
//     folder (as shipped, and with MPLE-learned weights).
//
//   - family: knowledge-base completion on Family, every relation a target:
//     the learn split holds out a seeded fifth of the training triples as
//     targets (with corrupted triples as negatives), the eval split asks the
//     test triples (with corrupted negatives) over facts + train; AUROC.
//
//   - kinship: the same on Kinship (graph = train, 25 relations; GLS is
//     skipped above -gls-max path clauses).
//
//   - scale: seconds of PPLL and GLS as the candidate set grows from 2 to 16
//     path clauses per relation (24 to 192 in all, plus 12 priors) on the
//     Family learn split (the paper's Figure 1).
//
//     go -C bench run ./structure [-experiments ddi,family,scale] [-seed 1] [-update-results]
//
// CSV files and scale.png go to -out (a temporary directory by default),
// or with -update-results into results/ beside this program.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/structure"
	"github.com/hinge-srl/hinge/syntax"
)

type bench struct {
	data, out, work string
	seed            uint64
	glsMax          int
	familyClauses   int
	// The constants experiment: its data sets, caps and minimum supports.
	constSets    []string
	constCaps    []int
	constMinSupp map[string]int
	// The sampling experiment.
	sampleSets []string
	samples    []int
	hubPeople  int
}

func main() {
	exps := flag.String("experiments", "ddi,family,kinship,scale", "comma-separated: ddi, family, kinship, scale")
	out := flag.String("out", "", "directory for the CSV and PNG files (default: a temporary directory)")
	update := flag.Bool("update-results", false, "write the results into results/ beside this program")
	seed := flag.Uint64("seed", 1, "seed of the Family splits and negatives")
	glsMax := flag.Int("gls-max", 200, "largest number of path clauses GLS is run on in the scale experiment")
	familyClauses := flag.Int("family-clauses", 10, "path clauses kept per relation in the family experiment")
	constSets := flag.String("constants-sets", "ddi,family,kinship", "constants experiment: data sets")
	constCaps := flag.String("constants", "0,20,100", "constants experiment: rules with constants kept per target (clauses, each rule and its negation), 0 for none")
	constMin := flag.String("constants-min-support", "ddi=3,family=2,kinship=3", "constants experiment: minimum support of a rule with constants per data set")
	sampleSets := flag.String("sampling-sets", "kinship,wn18rr,hubs", "sampling experiment: data sets (hubs: a generated graph with hubs)")
	samples := flag.String("samples", "1000,200", "sampling experiment: values of GenOptions.Sample compared with exact generation")
	hubPeople := flag.Int("hub-people", 10000, "sampling experiment: people in the generated graph with hubs")
	keep := flag.String("work", "", "write the generated splits (.data files) into this directory and keep them (default: a temporary directory, removed)")
	flag.Parse()
	data, err := shareddata.Dir()
	if err != nil {
		fail(err)
	}
	work := *keep
	if work == "" {
		if work, err = os.MkdirTemp("", "hinge-bench-structure-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		fail(err)
	}
	b := &bench{data: data, out: *out, work: work, seed: *seed, glsMax: *glsMax, familyClauses: *familyClauses,
		constSets: strings.Split(*constSets, ","), constMinSupp: map[string]int{},
		sampleSets: strings.Split(*sampleSets, ","), hubPeople: *hubPeople}
	for _, c := range strings.Split(*samples, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-samples %q: want numbers >= 1", *samples))
		}
		b.samples = append(b.samples, n)
	}
	for _, c := range strings.Split(*constCaps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 0 {
			fail(fmt.Errorf("-constants %q: want numbers >= 0", *constCaps))
		}
		b.constCaps = append(b.constCaps, n)
	}
	for _, kv := range strings.Split(*constMin, ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 1 {
			fail(fmt.Errorf("-constants-min-support %q: want set=N,...", *constMin))
		}
		b.constMinSupp[strings.TrimSpace(k)] = n
	}
	switch {
	case *update:
		b.out = "structure/results"
		if _, err := os.Stat("structure"); err != nil {
			b.out = "results"
		}
	case b.out == "":
		b.out = filepath.Join(os.TempDir(), "hinge-bench-structure")
	}
	if err := os.MkdirAll(b.out, 0o755); err != nil {
		fail(err)
	}
	fmt.Printf("structure benchmark (%d cores), results to %s\n", runtime.GOMAXPROCS(0), b.out)
	ctx := context.Background()
	for _, e := range strings.Split(*exps, ",") {
		var err error
		switch strings.TrimSpace(e) {
		case "ddi":
			err = b.ddi(ctx)
		case "family", "kinship":
			err = b.family(ctx, strings.TrimSpace(e))
		case "scale":
			err = b.scale(ctx)
		case "constants":
			err = b.constants(ctx)
		case "sampling":
			err = b.sampling(ctx)
		case "splits":
			// Only write the Family and Kinship splits (with -work, to
			// run hinge structure on them).
			for _, d := range []string{"family", "kinship", "wn18rr"} {
				if _, err = b.kbSplits(d, d != "wn18rr"); err != nil {
					break
				}
			}
		default:
			err = fmt.Errorf("unknown experiment %q", e)
		}
		if err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "structure:", err)
	os.Exit(1)
}

// run is one structure-learning run: data file, targets, options.
type run struct {
	data    string
	targets []string
	exclude []string
	gen     structure.GenOptions
	opt     structure.Options
}

// outcome is what a run learned and how long each phase took.
type outcome struct {
	rules                     []*model.Rule
	selected                  []structure.Candidate // the candidates of rules
	candidates, kept          int
	constants                 int // rules with constants kept
	gen, ground, learn, total float64
	potentials                int
}

func (r run) learn(ctx context.Context) (*outcome, error) {
	start := time.Now()
	prog, err := pipeline.LoadData(pipeline.Inputs{Data: r.data})
	if err != nil {
		return nil, err
	}
	var targets []*model.Predicate
	for _, t := range r.targets {
		targets = append(targets, prog.Model.Predicate(t))
	}
	for _, x := range r.exclude {
		r.gen.Exclude = append(r.gen.Exclude, prog.Model.Predicate(x))
	}
	gen, err := structure.Generate(ctx, prog.Store, targets, r.gen)
	if err != nil {
		return nil, err
	}
	res, err := structure.Learn(ctx, prog.Store, gen.Candidates, r.opt)
	if err != nil {
		return nil, err
	}
	rules := res.Model()
	o := &outcome{rules: rules, candidates: len(gen.Candidates), kept: len(rules), gen: gen.Seconds,
		ground: res.GroundSeconds, learn: res.LearnSeconds, total: time.Since(start).Seconds(), potentials: res.GroundPotentials}
	for i, c := range res.Candidates {
		if res.Selected[i] {
			o.selected = append(o.selected, c)
			if c.HasConstants() {
				o.constants++
			}
		}
	}
	return o, nil
}

// infer writes the model text to the work directory, loads it with the
// data, grounds and solves it, and returns the program, the ground problem
// and the inferred values (as PSL stores them, see pipeline.AsPSL).
func (b *bench) infer(ctx context.Context, modelText, data string) (*pipeline.Program, *ground.Result, []float64, error) {
	path := filepath.Join(b.work, "model.psl")
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, modelText); return err }); err != nil {
		return nil, nil, nil, err
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: path, Data: data})
	if err != nil {
		return nil, nil, nil, err
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	sol, err := admm.Solve(ctx, g.Problem, admm.DefaultOptions())
	if err != nil {
		return nil, nil, nil, err
	}
	for v := range sol.Values {
		sol.Values[v] = pipeline.AsPSL(sol.Values[v])
	}
	return prog, g, sol.Values, nil
}

// score infers with the rules on the data
// file and returns AUROC and AUPRC of the target atoms of preds that have
// truth values.
func (b *bench) score(ctx context.Context, rules []*model.Rule, data string, preds []string) (auroc, auprc float64, err error) {
	var text strings.Builder
	if err := syntax.Print(&text, rules); err != nil {
		return 0, 0, err
	}
	prog, g, values, err := b.infer(ctx, text.String(), data)
	if err != nil {
		return 0, 0, err
	}
	var items []eval.Scored
	for v, ref := range g.Vars {
		if !slices.ContainsFunc(preds, func(p string) bool { return strings.EqualFold(p, ref.Pred.Name) }) {
			continue
		}
		tt := prog.Store.Truth(ref.Pred)
		row, ok := tt.Find(prog.Store.Table(ref.Pred).Args(ref.Row))
		if !ok {
			continue
		}
		items = append(items, eval.Scored{Score: values[v], Positive: tt.Value(row) >= 0.5})
	}
	return eval.AUROC(items), eval.AUPRC(items), nil
}

func (b *bench) ddi(ctx context.Context) error {
	dir := filepath.Join(b.data, "psl-examples", "drug-interaction")
	learnData, evalData := filepath.Join(dir, "drug-interaction-learn.data"), filepath.Join(dir, "drug-interaction-eval.data")
	if _, err := os.Stat(learnData); err != nil {
		return err
	}
	header := []string{"model", "candidates", "kept", "potentials", "generate_s", "ground_s", "learn_s", "total_s", "auroc", "auprc"}
	var rows [][]string
	for _, m := range []structure.Method{structure.PPLL, structure.GLS} {
		opt := structure.DefaultOptions()
		opt.Method = m
		fmt.Printf("  ddi %s ...\n", m)
		o, err := run{data: learnData, targets: []string{"interacts"}, exclude: []string{"validInteraction"}, opt: opt}.learn(ctx)
		if err != nil {
			return err
		}
		auroc, auprc, err := b.score(ctx, o.rules, evalData, []string{"interacts"})
		if err != nil {
			return err
		}
		rows = append(rows, []string{m.String(), fmt.Sprint(o.candidates), fmt.Sprint(o.kept), fmt.Sprint(o.potentials),
			f3(o.gen), f3(o.ground), f3(o.learn), f3(o.total), f4(auroc), f4(auprc)})
	}
	// The hand-written model, as shipped and with MPLE weights.
	src, err := os.ReadFile(filepath.Join(dir, "drug-interaction.psl"))
	if err != nil {
		return err
	}
	shipped, err := syntax.ParseFile("drug-interaction.psl", src)
	if err != nil {
		return err
	}
	auroc, auprc, err := b.score(ctx, shipped, evalData, []string{"interacts"})
	if err != nil {
		return err
	}
	rows = append(rows, []string{"hand-written (shipped weights)", "", fmt.Sprint(len(shipped)), "", "", "", "", "", f4(auroc), f4(auprc)})
	start := time.Now()
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(dir, "drug-interaction.psl"), Data: learnData})
	if err != nil {
		return err
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		return err
	}
	lo := learn.DefaultOptions()
	lo.Method, lo.Iterations = learn.MPLE, 200
	lr, err := learn.Learn(ctx, g, prog.Store, prog.Model, lo)
	if err != nil {
		return err
	}
	for r, rule := range prog.Model.Rules {
		if lr.Learned[r] {
			rule.Weight = lr.Weights[r]
		}
	}
	secs := time.Since(start).Seconds()
	auroc, auprc, err = b.score(ctx, prog.Model.Rules, evalData, []string{"interacts"})
	if err != nil {
		return err
	}
	rows = append(rows, []string{"hand-written (MPLE weights)", "", fmt.Sprint(len(prog.Model.Rules)), fmt.Sprint(g.Problem.NumPotentials()), "", "", "", f3(secs), f4(auroc), f4(auprc)})
	return writeCSV(filepath.Join(b.out, "ddi.csv"), header, rows)
}

// familySplits writes the learn and eval .data files of the Family
// experiment into the work directory and returns their paths and the
// relation (predicate) names.
func (b *bench) familySplits() (fd *familyData, err error) { return b.kbSplits("family", true) }

// kbSplits writes the learn, eval and (withRank) ranking splits of a
// knowledge graph in the shared data (train, valid, test and, when
// present, facts).
func (b *bench) kbSplits(dataset string, withRank bool) (fd *familyData, err error) {
	dir := filepath.Join(b.data, dataset)
	read := func(name string) ([][3]string, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if name == "facts.txt" && errors.Is(err, os.ErrNotExist) {
			return nil, nil // Kinship has no background facts
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var out [][3]string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			p := strings.Split(strings.TrimSpace(sc.Text()), "\t")
			if len(p) == 3 {
				out = append(out, [3]string{p[0], p[1], p[2]})
			}
		}
		return out, sc.Err()
	}
	var facts, train, valid, test [][3]string
	for name, dst := range map[string]*[][3]string{"facts.txt": &facts, "train.txt": &train, "valid.txt": &valid, "test.txt": &test} {
		if *dst, err = read(name); err != nil {
			return nil, err
		}
	}
	known := map[[3]string]bool{}
	var entities []string
	seenE := map[string]bool{}
	relSet := map[string]bool{}
	for _, ts := range [][][3]string{facts, train, valid, test} {
		for _, t := range ts {
			known[t] = true
			relSet[t[1]] = true
			for _, e := range []string{t[0], t[2]} {
				if !seenE[e] {
					seenE[e] = true
					entities = append(entities, e)
				}
			}
		}
	}
	var rels []string
	for r := range relSet {
		rels = append(rels, r)
	}
	slices.Sort(rels)
	rng := rand.New(rand.NewPCG(b.seed, 17))
	// corrupt returns k triples (h, r, t') not known to be true.
	corrupt := func(t [3]string, k int) [][3]string {
		var out [][3]string
		for len(out) < k {
			c := [3]string{t[0], t[1], entities[rng.IntN(len(entities))]}
			if !known[c] {
				out = append(out, c)
			}
		}
		return out
	}
	// labeled turns positives into targets with truth 1, each followed by
	// 3 corruptions with truth 0.
	labeled := func(pos [][3]string) []target {
		var out []target
		for _, t := range pos {
			out = append(out, target{t, 1})
			for _, c := range corrupt(t, 3) {
				out = append(out, target{c, 0})
			}
		}
		return out
	}
	// write writes a split; with bodyCopy the graph goes into closed
	// predicates kb_REL (for rule bodies, see rank) and REL holds only the
	// targets.
	write := func(name string, obs [][3]string, targets []target, bodyCopy bool) (string, error) {
		d := filepath.Join(b.work, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		files := map[string]*strings.Builder{}
		add := func(file, line string) {
			if files[file] == nil {
				files[file] = &strings.Builder{}
			}
			files[file].WriteString(line)
		}
		for _, t := range obs {
			add(t[1]+"_obs.txt", t[0]+"\t"+t[2]+"\n")
		}
		seen := map[[3]string]bool{}
		for _, tg := range targets {
			c := tg.t
			if seen[c] {
				continue
			}
			seen[c] = true
			add(c[1]+"_targets.txt", c[0]+"\t"+c[2]+"\n")
			add(c[1]+"_truth.txt", fmt.Sprintf("%s\t%s\t%d\n", c[0], c[2], tg.truth))
		}
		var y strings.Builder
		y.WriteString("predicates:\n")
		for _, r := range rels {
			fmt.Fprintf(&y, "  %s/2: open\n", r)
			if bodyCopy {
				fmt.Fprintf(&y, "  kb_%s/2: closed\n", r)
			}
		}
		for _, sec := range []struct{ name, suffix string }{{"observations", "_obs.txt"}, {"targets", "_targets.txt"}, {"truth", "_truth.txt"}} {
			fmt.Fprintf(&y, "%s:\n", sec.name)
			for _, r := range rels {
				if files[r+sec.suffix] == nil {
					continue
				}
				pred := r
				if bodyCopy && sec.name == "observations" {
					pred = "kb_" + r
				}
				fmt.Fprintf(&y, "  %s: %s%s\n", pred, r, sec.suffix)
			}
		}
		files["family.data"] = &y
		for f, text := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte(text.String()), 0o644); err != nil {
				return "", err
			}
		}
		return filepath.Join(d, "family.data"), nil
	}
	// Learn split: a fifth of train held out as targets.
	shuffled := slices.Clone(train)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	held := shuffled[:len(shuffled)/5]
	rest := append(slices.Clone(facts), shuffled[len(shuffled)/5:]...)
	fd = &familyData{rels: rels, test: test, known: known, entities: len(entities)}
	heldRel := map[string]bool{}
	for _, t := range held {
		heldRel[t[1]] = true
	}
	for _, r := range rels {
		if heldRel[r] {
			fd.learnRels = append(fd.learnRels, r)
		}
	}
	if fd.learn, err = write(dataset+"-learn", rest, labeled(held), false); err != nil {
		return nil, err
	}
	graph := append(slices.Clone(facts), train...)
	if fd.eval, err = write(dataset+"-eval", graph, labeled(test), false); err != nil {
		return nil, err
	}
	if !withRank {
		return fd, nil
	}
	// Ranking split: every test triple asked both ways, the candidates of
	// (h, r, ?) the entities within 3 steps of h in the graph (a path rule
	// of up to 3 atoms reaches no other) plus t, and the same for (?, r, t).
	adj := map[string][]string{}
	inGraph := map[[3]string]bool{}
	for _, t := range graph {
		inGraph[t] = true
		adj[t[0]] = append(adj[t[0]], t[2])
		adj[t[2]] = append(adj[t[2]], t[0])
	}
	near := func(e string) []string {
		seen := map[string]bool{e: true}
		frontier := []string{e}
		var out []string
		for range 3 {
			var next []string
			for _, x := range frontier {
				for _, y := range adj[x] {
					if !seen[y] {
						seen[y] = true
						next = append(next, y)
						out = append(out, y)
					}
				}
			}
			frontier = next
		}
		return out
	}
	fd.cands = map[query][]string{}
	var rankTargets []target
	for _, t := range test {
		for _, q := range []query{{t[0], t[1], true}, {t[2], t[1], false}} {
			if _, done := fd.cands[q]; done {
				continue
			}
			cs := near(q.e)
			fd.cands[q] = cs
			for _, c := range cs {
				tr := [3]string{q.e, q.r, c}
				if !q.tail {
					tr = [3]string{c, q.r, q.e}
				}
				if !inGraph[tr] { // an observed triple is known, so filtered
					rankTargets = append(rankTargets, target{tr, map[bool]int{true: 1}[known[tr]]})
				}
			}
		}
		rankTargets = append(rankTargets, target{t, 1})
	}
	if fd.rank, err = write(dataset+"-rank", graph, rankTargets, true); err != nil {
		return nil, err
	}
	fd.graph, fd.inGraph, fd.write, fd.dataset = graph, inGraph, write, dataset
	return fd, nil
}

// withConstants returns the splits with a ranking split whose candidates
// also hold what the rules with constants among rules can predict: for
// t(E1, 'c') <= p(E1, 'd'), c for every (h, t, ?) and, for (?, t, c), every
// x with p(x, d) in the graph (and the same the other way for t('c', E1)).
// An entity outside a query's candidates only has the prior's value.
func (b *bench) withConstants(fd *familyData, rules []structure.Candidate) (*familyData, error) {
	type key struct {
		rel   string
		first bool
	}
	named := map[key][]string{}           // rel, constant's side -> constants
	reach := map[query][]structure.Step{} // (c, rel, side): the steps into d
	ds := map[query][]string{}
	for _, c := range rules {
		if !c.HasConstants() {
			continue
		}
		k := key{c.Target.Name, c.ConstFirst}
		if !slices.Contains(named[k], c.C) {
			named[k] = append(named[k], c.C)
		}
		// A query giving the head's constant asks for the variable.
		q := query{c.C, c.Target.Name, c.ConstFirst}
		reach[q] = append(reach[q], c.Path[0])
		ds[q] = append(ds[q], c.D)
	}
	if len(named) == 0 {
		return fd, nil
	}
	byPred := map[string][][3]string{}
	for _, t := range fd.graph {
		byPred[t[1]] = append(byPred[t[1]], t)
	}
	out := *fd
	out.cands = map[query][]string{}
	var rankTargets []target
	for _, t := range fd.test {
		for _, q := range []query{{t[0], t[1], true}, {t[2], t[1], false}} {
			if _, done := out.cands[q]; done {
				continue
			}
			cs := slices.Clone(fd.cands[q])
			in := map[string]bool{q.e: true}
			for _, c := range cs {
				in[c] = true
			}
			add := func(c string) {
				if !in[c] {
					in[c] = true
					cs = append(cs, c)
				}
			}
			// (h, t, ?) gets the c of t(E1, 'c'); (?, t, e) those of t('c', E1).
			for _, c := range named[key{q.r, !q.tail}] {
				add(c)
			}
			for i, st := range reach[q] {
				for _, tr := range byPred[st.Pred.Name] {
					if st.From == 0 && tr[2] == ds[q][i] {
						add(tr[0])
					} else if st.From == 1 && tr[0] == ds[q][i] {
						add(tr[2])
					}
				}
			}
			out.cands[q] = cs
			for _, c := range cs {
				tr := [3]string{q.e, q.r, c}
				if !q.tail {
					tr = [3]string{c, q.r, q.e}
				}
				if !fd.inGraph[tr] {
					rankTargets = append(rankTargets, target{tr, map[bool]int{true: 1}[fd.known[tr]]})
				}
			}
		}
		rankTargets = append(rankTargets, target{t, 1})
	}
	var err error
	if out.rank, err = fd.write(fd.dataset+"-rank-constants", fd.graph, rankTargets, true); err != nil {
		return nil, err
	}
	return &out, nil
}

// target is a target triple with its truth value.
type target struct {
	t     [3]string
	truth int
}

// query is (e, r, ?) when tail, else (?, r, e).
type query struct {
	e, r string
	tail bool
}

// familyData are the Family splits.
type familyData struct {
	learn, eval, rank string
	rels              []string
	learnRels         []string // relations with held-out triples: the targets of learning
	test              [][3]string
	known             map[[3]string]bool
	cands             map[query][]string
	entities          int
	// What withConstants needs to write another ranking split.
	graph   [][3]string
	inGraph map[[3]string]bool
	dataset string
	write   func(name string, obs [][3]string, targets []target, bodyCopy bool) (string, error)
}

// rank infers with the rules on the ranking split and returns the
// filtered MRR, Hits@1 and Hits@10 of the test triples asked both ways: a
// candidate tied with the true answer counts half, and entities outside
// the candidates (no path rule reaches them: only the prior) tie with it
// when it is at the lowest value of its query, else rank below it.
//
// Each query is answered from the graph alone: rule bodies read closed
// copies kb_REL of the relations (the rules' body atoms are renamed), so
// the candidates of other queries are not unknowns in this query's bodies.
// Collective inference over all candidates at once would make every
// candidate atom a body variable and the grounding of 3-atom paths over
// 1.2 million candidates does not fit in memory.
func (b *bench) rank(ctx context.Context, rules []*model.Rule, fd *familyData) (mrr, h1, h10 float64, err error) {
	body := regexp.MustCompile(`\b(` + strings.Join(fd.rels, "|") + `)\(`)
	var text strings.Builder
	for _, r := range rules {
		line := syntax.Format(r)
		if i := strings.Index(line, " -> "); i >= 0 {
			line = body.ReplaceAllString(line[:i], "kb_$1(") + line[i:]
		}
		text.WriteString(line + "\n")
	}
	_, g, values, err := b.infer(ctx, text.String(), fd.rank)
	if err != nil {
		return 0, 0, 0, err
	}
	value := map[[3]string]float64{}
	for v := range g.Vars {
		a := g.Args(v)
		value[[3]string{a[0], g.Vars[v].Pred.Name, a[1]}] = values[v]
	}
	n := 0
	for _, t := range fd.test {
		for _, q := range []query{{t[0], t[1], true}, {t[2], t[1], false}} {
			answer := t[2]
			if !q.tail {
				answer = t[0]
			}
			triple := func(c string) [3]string {
				if q.tail {
					return [3]string{q.e, q.r, c}
				}
				return [3]string{c, q.r, q.e}
			}
			tv := value[triple(answer)]
			better, tied, lowest, counted := 0, 0, math.Inf(1), 1
			for _, c := range fd.cands[q] {
				if c == answer {
					continue
				}
				counted++
				v := value[triple(c)]
				lowest = min(lowest, v)
				if fd.known[triple(c)] {
					continue
				}
				switch {
				case v > tv:
					better++
				case v == tv:
					tied++
				}
			}
			if tv <= lowest {
				tied += fd.entities - counted
			}
			rank := 1 + float64(better) + float64(tied)/2
			mrr += 1 / rank
			if rank <= 1 {
				h1++
			}
			if rank <= 10 {
				h10++
			}
			n++
		}
	}
	return mrr / float64(n), h1 / float64(n), h10 / float64(n), nil
}

func (b *bench) family(ctx context.Context, dataset string) error {
	fd, err := b.kbSplits(dataset, true)
	if err != nil {
		return err
	}
	learnData, evalData, rels := fd.learn, fd.eval, fd.rels
	header := []string{"method", "candidates", "kept", "potentials", "generate_s", "ground_s", "learn_s", "total_s", "auroc", "auprc", "mrr", "hits1", "hits10"}
	var rows [][]string
	for _, m := range []structure.Method{structure.PPLL, structure.GLS} {
		if m == structure.GLS && b.familyClauses*len(rels) > b.glsMax {
			fmt.Printf("  %s gls skipped: %d path clauses > -gls-max %d\n", dataset, b.familyClauses*len(rels), b.glsMax)
			continue
		}
		opt := structure.DefaultOptions()
		opt.Method = m
		fmt.Printf("  %s %s ...\n", dataset, m)
		o, err := run{data: learnData, targets: fd.learnRels, gen: structure.GenOptions{MaxClauses: b.familyClauses}, opt: opt}.learn(ctx)
		if err != nil {
			return err
		}
		auroc, auprc, err := b.score(ctx, o.rules, evalData, rels)
		if err != nil {
			return err
		}
		mrr, h1, h10, err := b.rank(ctx, o.rules, fd)
		if err != nil {
			return err
		}
		rows = append(rows, []string{m.String(), fmt.Sprint(o.candidates), fmt.Sprint(o.kept), fmt.Sprint(o.potentials),
			f3(o.gen), f3(o.ground), f3(o.learn), f3(o.total), f4(auroc), f4(auprc), f4(mrr), f4(h1), f4(h10)})
	}
	return writeCSV(filepath.Join(b.out, dataset+".csv"), header, rows)
}

// constants learns with PPLL on each data set with no rules with
// constants and with up to each cap of them per target (at the data set's
// minimum support for them), and scores the models as the ddi, family and
// kinship experiments do (the ranking split of Family and Kinship also
// holds what the rules with constants predict).
func (b *bench) constants(ctx context.Context) error {
	header := []string{"data", "constants", "min_support", "candidates", "kept", "kept_constants", "potentials", "generate_s", "ground_s", "learn_s", "total_s", "auroc", "auprc", "mrr", "hits1", "hits10"}
	var rows [][]string
	for _, set := range b.constSets {
		set = strings.TrimSpace(set)
		var (
			r        run
			fd       *familyData
			evalData string
			preds    []string
		)
		switch set {
		case "ddi":
			dir := filepath.Join(b.data, "psl-examples", "drug-interaction")
			r = run{data: filepath.Join(dir, "drug-interaction-learn.data"), targets: []string{"interacts"}, exclude: []string{"validInteraction"}}
			evalData, preds = filepath.Join(dir, "drug-interaction-eval.data"), []string{"interacts"}
		case "family", "kinship":
			var err error
			if fd, err = b.kbSplits(set, true); err != nil {
				return err
			}
			r = run{data: fd.learn, targets: fd.learnRels, gen: structure.GenOptions{MaxClauses: b.familyClauses}}
			evalData, preds = fd.eval, fd.rels
		default:
			return fmt.Errorf("constants experiment: unknown data set %q", set)
		}
		for _, n := range b.constCaps {
			r.opt = structure.DefaultOptions()
			r.gen.Constants, r.gen.ConstMinSupport = n, b.constMinSupp[set]
			fmt.Printf("  constants %s %d ...\n", set, n)
			o, err := r.learn(ctx)
			if err != nil {
				return err
			}
			auroc, auprc, err := b.score(ctx, o.rules, evalData, preds)
			if err != nil {
				return err
			}
			mrr, h1, h10 := "", "", ""
			if fd != nil {
				fdc, err := b.withConstants(fd, o.selected)
				if err != nil {
					return err
				}
				m, a, c, err := b.rank(ctx, o.rules, fdc)
				if err != nil {
					return err
				}
				mrr, h1, h10 = f4(m), f4(a), f4(c)
			}
			rows = append(rows, []string{set, fmt.Sprint(n), fmt.Sprint(r.gen.ConstMinSupport), fmt.Sprint(o.candidates), fmt.Sprint(o.kept), fmt.Sprint(o.constants),
				fmt.Sprint(o.potentials), f3(o.gen), f3(o.ground), f3(o.learn), f3(o.total), f4(auroc), f4(auprc), mrr, h1, h10})
			// Each row as it comes: a long run keeps what it did.
			if err := writeCSV(filepath.Join(b.out, "constants.csv"), header, rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// sampling compares generation with every true atom searched and every
// count exact against generation with GenOptions.Sample: seconds (median
// of 3 runs), atoms searched, and how the kept path clauses agree: the
// share of the exact run's kept clauses the sampled run keeps, and for
// those, how far the estimated supports are from the exact ones and how
// often the stated 95% interval holds the exact support.
func (b *bench) sampling(ctx context.Context) error {
	header := []string{"data", "sample", "true_atoms", "searched", "paths_found", "counted", "candidates", "generate_s", "kept_of_exact", "median_rel_err", "in_interval"}
	var rows [][]string
	for _, set := range b.sampleSets {
		set = strings.TrimSpace(set)
		var data string
		var targets []string
		gen := structure.GenOptions{}
		switch set {
		case "family", "kinship", "wn18rr":
			fd, err := b.kbSplits(set, false)
			if err != nil {
				return err
			}
			data, targets = fd.learn, fd.learnRels
			if set != "wn18rr" {
				gen.MaxClauses = b.familyClauses
			}
		case "hubs":
			var err error
			if data, targets, err = b.hubs(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("sampling experiment: unknown data set %q", set)
		}
		prog, err := pipeline.LoadData(pipeline.Inputs{Data: data})
		if err != nil {
			return err
		}
		var preds []*model.Predicate
		for _, t := range targets {
			preds = append(preds, prog.Model.Predicate(t))
		}
		trueAtoms := 0
		for _, p := range preds {
			tt := prog.Store.Truth(p)
			for row := range tt.Len() {
				if tt.Value(row) >= 0.5 {
					trueAtoms++
				}
			}
		}
		var exact map[string]structure.Candidate
		for _, sample := range append([]int{-1}, b.samples...) {
			g := gen
			g.Sample = sample
			var res *structure.GenResult
			var secs []float64
			for range 3 {
				fmt.Printf("  sampling %s %d ...\n", set, sample)
				if res, err = structure.Generate(ctx, prog.Store, preds, g); err != nil {
					return err
				}
				secs = append(secs, res.Seconds)
			}
			slices.Sort(secs)
			kept := map[string]structure.Candidate{}
			for _, c := range res.Candidates {
				if !c.IsPrior() && !c.Negated {
					kept[c.Text()] = c
				}
			}
			name, agree, relErr, inside := "exact", "", "", ""
			if sample < 0 {
				exact = kept
			} else {
				name = fmt.Sprint(sample)
				both, in, n := 0, 0, 0
				var rel []float64
				for text, c := range exact {
					s, ok := kept[text]
					if !ok {
						continue
					}
					both++
					if s.SupportErr > 0 {
						n++
						d := math.Abs(float64(s.Support - c.Support))
						rel = append(rel, d/float64(c.Support))
						if d <= s.SupportErr+0.5 {
							in++
						}
					}
				}
				agree = fmt.Sprintf("%d/%d", both, len(exact))
				if n > 0 {
					slices.Sort(rel)
					relErr, inside = f3(rel[len(rel)/2]), fmt.Sprintf("%d/%d", in, n)
				}
			}
			rows = append(rows, []string{set, name, fmt.Sprint(trueAtoms), fmt.Sprint(res.Examples), fmt.Sprint(res.Paths), fmt.Sprint(res.Counted),
				fmt.Sprint(len(res.Candidates)), f3(secs[1]), agree, relErr, inside})
			if err := writeCSV(filepath.Join(b.out, "sampling.csv"), header, rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// hubs writes a generated graph with hubs: people, each a member of one
// of 20 groups, with three random friends; knows(x, y) holds for most
// reversed friendships and for a few pairs of the same group, and is
// observed for half of its pairs, the rest (with as many false pairs)
// being the targets. A path through a group visits its thousand members.
func (b *bench) hubs() (string, []string, error) {
	r := rand.New(rand.NewPCG(b.seed, 29))
	n := b.hubPeople
	const groups = 20
	var member, friend, knowsObs, targets, truth strings.Builder
	person := func(i int) string { return fmt.Sprintf("p%d", i) }
	group := make([]int, n)
	byGroup := make([][]int, groups)
	for i := range n {
		group[i] = r.IntN(groups)
		byGroup[group[i]] = append(byGroup[group[i]], i)
		fmt.Fprintf(&member, "%s\tg%d\n", person(i), group[i])
	}
	seen := map[[2]int]bool{}
	knows := func(x, y int) {
		if x == y || seen[[2]int{x, y}] {
			return
		}
		seen[[2]int{x, y}] = true
		if r.IntN(2) == 0 {
			fmt.Fprintf(&knowsObs, "%s\t%s\n", person(x), person(y))
			return
		}
		fmt.Fprintf(&targets, "%s\t%s\n", person(x), person(y))
		fmt.Fprintf(&truth, "%s\t%s\t1\n", person(x), person(y))
		// A false pair beside it.
		z := r.IntN(n)
		if !seen[[2]int{x, z}] && z != x {
			seen[[2]int{x, z}] = true
			fmt.Fprintf(&targets, "%s\t%s\n", person(x), person(z))
			fmt.Fprintf(&truth, "%s\t%s\t0\n", person(x), person(z))
		}
	}
	for x := range n {
		for range 3 {
			y := r.IntN(n)
			fmt.Fprintf(&friend, "%s\t%s\n", person(x), person(y))
			if r.Float64() < 0.8 {
				knows(y, x)
			}
		}
		if r.Float64() < 0.3 {
			g := byGroup[group[x]]
			knows(x, g[r.IntN(len(g))])
		}
	}
	dir := filepath.Join(b.work, "hubs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	files := map[string]string{
		"hubs.data": "predicates:\n  member/2: closed\n  friend/2: closed\n  knows/2: open\n" +
			"observations:\n  member: member.txt\n  friend: friend.txt\n  knows: knows_obs.txt\n" +
			"targets:\n  knows: knows_targets.txt\ntruth:\n  knows: knows_truth.txt\n",
		"member.txt": member.String(), "friend.txt": friend.String(), "knows_obs.txt": knowsObs.String(),
		"knows_targets.txt": targets.String(), "knows_truth.txt": truth.String(),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", nil, err
		}
	}
	return filepath.Join(dir, "hubs.data"), []string{"knows"}, nil
}

func (b *bench) scale(ctx context.Context) error {
	fd, err := b.familySplits()
	if err != nil {
		return err
	}
	learnData, rels := fd.learn, fd.rels
	header := []string{"clauses_per_target", "method", "candidates", "total_s", "learn_s"}
	var rows [][]string
	series := map[structure.Method]plotter.XYs{}
	for _, n := range []int{2, 4, 8, 16} {
		for _, m := range []structure.Method{structure.PPLL, structure.GLS} {
			if m == structure.GLS && n*len(rels) > b.glsMax {
				continue
			}
			opt := structure.DefaultOptions()
			opt.Method = m
			fmt.Printf("  scale %d per target %s ...\n", n, m)
			o, err := run{data: learnData, targets: rels, gen: structure.GenOptions{MaxClauses: n}, opt: opt}.learn(ctx)
			if err != nil {
				return err
			}
			rows = append(rows, []string{fmt.Sprint(n), m.String(), fmt.Sprint(o.candidates), f3(o.total), f3(o.learn)})
			series[m] = append(series[m], plotter.XY{X: float64(o.candidates), Y: o.total})
		}
	}
	if err := writeCSV(filepath.Join(b.out, "scale.csv"), header, rows); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = "Structure learning on Family: seconds by candidate clauses"
	p.X.Label.Text = "candidate clauses"
	p.Y.Label.Text = "seconds (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	for _, m := range []structure.Method{structure.PPLL, structure.GLS} {
		l, pts, err := plotter.NewLinePoints(series[m])
		if err != nil {
			return err
		}
		p.Add(l, pts)
		p.Legend.Add(m.String(), l, pts)
		if m == structure.GLS {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
	}
	p.Legend.Top = true
	return atomicfile.Write(filepath.Join(b.out, "scale.png"), func(w io.Writer) error {
		wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	})
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }
func f4(x float64) string { return fmt.Sprintf("%.4f", x) }

// writeCSV prints header and rows as a Markdown table and writes them to
// path.
func writeCSV(path string, header []string, rows [][]string) error {
	table := append([][]string{header}, rows...)
	results.Markdown(os.Stdout, table)
	return results.WriteCSV(path, table)
}
