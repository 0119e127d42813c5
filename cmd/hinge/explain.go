package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/explain"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/kgc"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/store"
)

// explainFlags are the flags that explain a run's answer, shared by hinge
// infer, hinge mln infer and hinge kgc: --explain ATOM (repeatable),
// --explain-top, --explain-json, --html, and --satisfaction (infer, mln
// infer) and --explain-resolve (mln infer).
type explainFlags struct {
	engine       string // "psl", "mln" or "kgc"
	atoms        []string
	parsed       []explain.Atom
	top          int
	json         string
	html         string
	satisfaction string
	resolve      bool

	// Filled by the prepare methods, written out by finish. htmlFile is
	// the report rendered to its temporary file by render, put in place
	// by finish.
	texts    []interface{ WriteText(io.Writer) error }
	report   *explain.Report
	htmlFile *atomicfile.File
}

// explainJSON is the --explain-json file.
type explainJSON struct {
	Engine       string `json:"engine"`
	Explanations []any  `json:"explanations"`
}

func (e *explainFlags) add(cmd *cobra.Command, engine string) {
	e.engine = engine
	f := cmd.Flags()
	var what, ex string
	switch engine {
	case "psl":
		what, ex = "the ground rules that contain it with their pulls on it (ADMM's duals at the answer: > 0 pushes up), largest first", "Cancer(Bob)"
	case "mln":
		what, ex = "the ground clauses that contain it, whether each holds, and what flipping the atom alone would cost", "Cancer(Bob)"
	case "kgc":
		what, ex = "as the answer of both its queries: the rules that predicted it, their confidences and the body groundings that fired, and its score from them", "relation(head, tail)"
	}
	usage := fmt.Sprintf("explain this atom's value: %s (repeatable; e.g. --explain '%s')", what, ex)
	if engine == "kgc" {
		usage = fmt.Sprintf("explain this triple, written relation(head, tail), %s (repeatable)", what)
	}
	f.StringArrayVar(&e.atoms, "explain", nil, usage)
	top := "explanations show this many ground rules, the largest pulls first (0: all)"
	switch engine {
	case "mln":
		top = "explanations show this many ground clauses, the largest flip costs first (0: all)"
	case "kgc":
		top = "explanations show this many rules per candidate, the most confident first, and --html this many candidates per query (0: all)"
	}
	f.IntVar(&e.top, "explain-top", 10, top)
	f.StringVar(&e.json, "explain-json", "", "write the explanations of --explain as JSON to this file")
	f.StringVar(&e.html, "html", "", "write a report of the run as one self-contained HTML file: every answer, searchable, each with its explanation")
	switch engine {
	case "psl":
		f.StringVar(&e.satisfaction, "satisfaction", "", "write every ground rule with its distance to satisfaction and penalty at the answer to this file (tab-separated, one a line)")
	case "mln":
		f.StringVar(&e.satisfaction, "satisfaction", "", "write every ground clause with whether it holds in the MAP world and its cost there to this file (tab-separated, one a line)")
	}
	if engine == "mln" {
		f.BoolVar(&e.resolve, "explain-resolve", false, "with --explain: also solve again with each explained atom flipped, and give that world's cost")
	}
}

// explains reports whether --explain or --html asks for explanations.
func (e *explainFlags) explains() bool { return len(e.atoms) > 0 || e.html != "" }

// any reports whether any flag of e is set.
func (e *explainFlags) any() bool { return e.explains() || e.satisfaction != "" }

// check parses the atoms and checks the flags, before any work.
func (e *explainFlags) check() error {
	e.parsed = e.parsed[:0]
	for _, s := range e.atoms {
		a, err := explain.ParseAtom(s)
		if err != nil {
			return badInput(fmt.Errorf("--explain: %w", err))
		}
		e.parsed = append(e.parsed, a)
	}
	switch {
	case e.top < 0:
		return badInput(fmt.Errorf("--explain-top %d: must be >= 0", e.top))
	case e.json != "" && len(e.atoms) == 0:
		return badInput(errors.New("--explain-json writes the explanations of --explain: give --explain ATOM"))
	case e.resolve && len(e.atoms) == 0:
		return badInput(errors.New("--explain-resolve solves again for the atoms of --explain: give --explain ATOM"))
	}
	return nil
}

// outputs are the files the flags name.
func (e *explainFlags) outputs() []output {
	return []output{{flag: "--explain-json", path: e.json}, {flag: "--html", path: e.html}, {flag: "--satisfaction", path: e.satisfaction}}
}

// flagNames names the set flags, for messages.
func (e *explainFlags) flagNames() string {
	var names []string
	if len(e.atoms) > 0 {
		names = append(names, "--explain")
	}
	if e.html != "" {
		names = append(names, "--html")
	}
	if e.satisfaction != "" {
		names = append(names, "--satisfaction")
	}
	return strings.Join(names, " and ")
}

// finish prints the explanations prepared, writes --explain-json and puts
// the --html report rendered by render in place. The commands call it
// after their own outputs: the work is done by then (the prepare methods,
// which end by rendering the report, run before any output is written,
// so a run cancelled during them writes nothing).
func (e *explainFlags) finish(stdout io.Writer) error {
	xs := make([]any, 0, len(e.texts))
	for _, x := range e.texts {
		if err := x.WriteText(stdout); err != nil {
			return failed(err)
		}
		xs = append(xs, x)
	}
	if e.json != "" {
		if err := writeJSON(e.json, explainJSON{Engine: e.engine, Explanations: xs}); err != nil {
			return failed(err)
		}
	}
	if e.htmlFile != nil {
		if err := e.htmlFile.Commit(); err != nil {
			return failed(err)
		}
	}
	return nil
}

// render writes the HTML report to its temporary file: the prepare
// methods end with it, before the run writes any output, so that a run
// cancelled while the report is written (the last step a cancellation
// stops) writes nothing; finish only puts the file in place.
func (e *explainFlags) render(ctx context.Context) error {
	if err := interrupted(ctx); err != nil || e.html == "" || e.report == nil {
		return err
	}
	f, err := atomicfile.Create(e.html)
	if err != nil {
		return failed(err)
	}
	if renderHook != nil {
		renderHook()
	}
	if err := e.report.WriteHTMLContext(ctx, f); err != nil {
		f.Abort()
		if ctx.Err() != nil {
			return failed(ctx.Err())
		}
		return failed(fmt.Errorf("writing %s: %w", e.html, err))
	}
	e.htmlFile = f
	return nil
}

// renderHook, when set (by tests), runs as render begins writing.
var renderHook func()

// discard removes a rendered report that finish did not put in place (a
// run that failed after rendering it); deferred by the commands.
func (e *explainFlags) discard() {
	if e.htmlFile != nil {
		e.htmlFile.Abort()
	}
}

// checkPSL refuses, before any work, flag combinations the explanations
// of hinge infer cannot serve.
func (e *explainFlags) checkPSL(o *inferOptions) error {
	if err := e.check(); err != nil {
		return err
	}
	if !e.any() {
		return nil
	}
	switch {
	case o.dbURL() != "":
		return badInput(fmt.Errorf("%s: not with --db: an explanation grounds the rules again over the atoms in memory, and under --db they are in PostgreSQL (run without --db to explain)", e.flagNames()))
	case o.streaming.on:
		return badInput(fmt.Errorf("%s: not with --streaming: the ground problem must be in memory", e.flagNames()))
	case e.explains() && (o.lifted || o.discrete):
		return badInput(errors.New("--explain and --html give each ground rule's pull from ADMM's duals on the ground problem: not with --lifted or --discrete (--satisfaction works with both)"))
	}
	return nil
}

// findPSL checks, once the program is loaded and before grounding, that
// every atom to explain is a target of the data.
func (e *explainFlags) findPSL(prog *pipeline.Program) error {
	for _, a := range e.parsed {
		if _, err := explain.FindVar(prog.Model, prog.Store, nil, a); err != nil {
			return badInput(fmt.Errorf("--explain: %w", err))
		}
	}
	return nil
}

// preparePSL works out what the flags ask for about a PSL answer, before
// any output is written: the explanations (printed by finish, and in
// --explain-json) and the HTML report; it writes the satisfaction file.
// solver is the ADMM solver that found values (nil for a lifted or discrete
// answer).
func (e *explainFlags) preparePSL(ctx context.Context, prog *pipeline.Program, g *ground.Result, values []float64, solver *admm.Solver, streamed bool) error {
	if !e.any() {
		return nil
	}
	if streamed {
		return failed(fmt.Errorf("%s: the ground problem must be in memory, and this run solved it from disk (--streaming, chosen because it did not fit in --memory-limit)", e.flagNames()))
	}
	var pd, cd []float64
	if solver != nil {
		pd, cd = solver.Duals()
	}
	if e.explains() && pd == nil && cd == nil && (len(g.Problem.Var) > 0 || len(g.Problem.CVar) > 0) {
		return failed(errors.New("--explain: the solver's duals are not available"))
	}
	x, err := explain.NewPSL(prog.Model, prog.Store, g, values, pd, cd)
	if err != nil {
		return failed(err)
	}
	x.SetContext(ctx)
	vs, err := e.vars(prog.Model, prog.Store, g)
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		xs, err := x.ExplainMany(vs, e.top)
		if err != nil {
			return failed(err)
		}
		for _, ex := range xs {
			e.texts = append(e.texts, ex)
		}
	}
	if e.html != "" {
		all, err := x.ExplainAll(e.top)
		if err != nil {
			return failed(err)
		}
		r := &explain.Report{Engine: "psl", Title: "hinge infer: " + prog.RulesFrom, Example: "Cancer('Bob')",
			Summary: fmt.Sprintf("%d target atoms, %d ground rules (%d potentials, %d hard constraints); objective %.6g",
				len(values), g.Problem.NumPotentials()+g.Problem.NumConstraints(), g.Problem.NumPotentials(), g.Problem.NumConstraints(), g.Problem.Objective(values))}
		for v, ex := range all {
			if v%1024 == 0 && ctx.Err() != nil {
				return failed(ctx.Err())
			}
			r.Items = append(r.Items, explain.Item{Name: ex.Atom, Group: g.Vars[v].Pred.Name, Value: values[v], Explanation: ex})
		}
		if len(r.Items) > 0 {
			r.Example = r.Items[0].Name
		}
		e.report = r
	}
	if e.satisfaction != "" {
		if err := atomicfile.Write(e.satisfaction, x.WriteSatisfaction); err != nil {
			return failed(err)
		}
	}
	return e.render(ctx)
}

// vars finds the variables of the atoms of --explain in the ground
// problem g.
func (e *explainFlags) vars(m *model.Model, s *store.Store, g *ground.Result) ([]int, error) {
	vs := make([]int, len(e.parsed))
	for i, a := range e.parsed {
		v, err := explain.FindVar(m, s, g, a)
		if err != nil {
			return nil, badInput(fmt.Errorf("--explain: %w", err))
		}
		vs[i] = v
	}
	return vs, nil
}

// checkMLN refuses, before any work, what the explanations of hinge mln
// infer cannot serve.
func (e *explainFlags) checkMLN(o *mlnInferOptions) error {
	if err := e.check(); err != nil {
		return err
	}
	if !e.any() {
		return nil
	}
	switch {
	case o.asRRF:
		return badInput(fmt.Errorf("%s: not with --as-rrf: explanations are of a MAP world of the Markov logic engine", e.flagNames()))
	case o.marginal || o.method == mln.MethodMCSAT || o.method == mln.MethodGibbs:
		return badInput(fmt.Errorf("%s: not with --marginal or a sampling method: explanations are of a MAP world", e.flagNames()))
	case o.lazy:
		return badInput(fmt.Errorf("%s: not with --lazy: explanations need the full grounding", e.flagNames()))
	}
	return nil
}

// findMLN checks, once the network is built and before grounding, that
// every atom to explain is an unknown atom of the network.
func (e *explainFlags) findMLN(net *mln.Network) error {
	for _, a := range e.parsed {
		if _, err := explain.FindVar(net.Model, net.Store, nil, a); err != nil {
			return badInput(fmt.Errorf("--explain: %w", err))
		}
	}
	return nil
}

// prepareMLN works out what the flags ask for about a MAP world, before
// any output is written (see preparePSL); opt are the MAP options of the
// run (--explain-resolve solves again with them). The --html report lists
// the query predicates in order, the order the query named them in (a
// predicate it does not name last), each one's atoms in the network's
// order.
func (e *explainFlags) prepareMLN(ctx context.Context, net *mln.Network, res *mln.MAPResult, opt mln.MAPOptions, order []string) error {
	if !e.any() {
		return nil
	}
	x, err := explain.NewMLN(net, res.Ground, res.Values)
	if err != nil {
		return failed(err)
	}
	x.SetContext(ctx)
	vs, err := e.vars(net.Model, net.Store, res.Ground)
	if err != nil {
		return err
	}
	var xs []*explain.MLNExplanation
	if len(vs) > 0 {
		if xs, err = x.ExplainMany(vs, e.top); err != nil {
			return failed(err)
		}
	}
	for i, ex := range xs {
		if e.resolve {
			if ex.Resolved, err = x.Resolve(ctx, vs[i], opt); err != nil {
				return failed(err)
			}
		}
		e.texts = append(e.texts, ex)
	}
	if e.html != "" {
		all, err := x.ExplainAll(e.top)
		if err != nil {
			return failed(err)
		}
		cost, _ := x.WorldCost(res.Values)
		r := &explain.Report{Engine: "mln", Title: "hinge mln infer", Example: "Cancer(Bob)"}
		resolved := map[int]*explain.Resolved{} // --explain-resolve's outcomes, shown on the page too
		for i, ex := range xs {
			if ex.Resolved != nil {
				resolved[vs[i]] = ex.Resolved
			}
		}
		for v, ex := range all {
			if v%1024 == 0 && ctx.Err() != nil {
				return failed(ctx.Err())
			}
			if r, ok := resolved[v]; ok {
				ex.Resolved = r
			}
			if !net.Reported(res.Ground.Vars[v].Pred, res.Ground.Args(v)) {
				continue
			}
			r.Items = append(r.Items, explain.Item{Name: ex.Atom, Group: res.Ground.Vars[v].Pred.Name, Value: res.Values[v], Explanation: ex})
		}
		rank := func(group string) int {
			if i := slices.Index(order, group); i >= 0 {
				return i
			}
			return len(order)
		}
		slices.SortStableFunc(r.Items, func(a, b explain.Item) int { return cmp.Compare(rank(a.Group), rank(b.Group)) })
		r.Summary = fmt.Sprintf("%d unknown atoms of the query predicates, %d ground clauses; MAP world (%s) costs %.6g",
			len(r.Items), res.Ground.Problem.NumPotentials()+res.Ground.Problem.NumConstraints(), opt.Method, cost)
		if len(r.Items) > 0 {
			r.Example = r.Items[0].Name
		}
		e.report = r
	}
	if e.satisfaction != "" {
		if err := atomicfile.Write(e.satisfaction, x.WriteSatisfaction); err != nil {
			return failed(err)
		}
	}
	return e.render(ctx)
}

// checkKGC refuses what the explanations of hinge kgc cannot serve.
func (e *explainFlags) checkKGC(scoring kgc.Scoring) error {
	if err := e.check(); err != nil {
		return err
	}
	if e.explains() && scoring == kgc.PSL {
		return badInput(fmt.Errorf("%s: not with --score psl: explanations recombine scores from rule confidences (noisy-or, maxplus, max, learned)", e.flagNames()))
	}
	return nil
}

// findKGC checks, once the triples are read, that every atom to explain
// names a relation and entities of them.
func (e *explainFlags) findKGC(v *kgc.Vocab) ([]kgc.Triple, error) {
	var ts []kgc.Triple
	for _, a := range e.parsed {
		t, err := explain.FindTriple(v, a)
		if err != nil {
			return nil, badInput(fmt.Errorf("--explain: %w", err))
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// prepareKGC works out the explanations of the triples and the HTML
// report of the test queries' lists, before any output is written. known
// says which triples are known answers, left out of the rankings that
// place an explained triple; topK is --top-k, the length of the test
// queries' lists.
func (e *explainFlags) prepareKGC(ctx context.Context, g *kgc.Graph, v *kgc.Vocab, rk *kgc.Ranker, known func(kgc.Triple) bool, triples []kgc.Triple, test []kgc.Triple, ev *kgc.Evaluation, topK int) error {
	if !e.any() {
		return nil
	}
	x := &explain.KGC{Graph: g, Vocab: v, Ranker: rk, Top: e.top, Known: known}
	for _, t := range triples {
		ex, err := x.Explain(ctx, t)
		if err != nil {
			return failed(err)
		}
		e.texts = append(e.texts, ex)
	}
	if e.html != "" {
		r := &explain.Report{Engine: "kgc", Title: "hinge kgc", Scoring: rk.Scoring().String(), Example: "(head, relation, ?)",
			Summary: fmt.Sprintf("%d test triples, each asked both ways; each query's first %d candidates and its true answers (of the test triples that ask it), marked, when a rule ranks them within --top-k %d (known answers other than the triple's own left out), scored by %s", len(test), e.top, topK, rk.Scoring())}
		if e.top == 0 {
			r.Summary = fmt.Sprintf("%d test triples, each asked both ways; each query's candidates within --top-k %d, its true answers (of the test triples that ask it) marked (known answers other than the triple's own left out), scored by %s", len(test), topK, rk.Scoring())
		}
		items, err := kgcReportItems(ctx, x, rk, test, ev, e.top)
		if err != nil {
			return err
		}
		r.Items = items
		if len(r.Items) > 0 {
			r.Example = r.Items[0].Name
		}
		e.report = r
	}
	return e.render(ctx)
}

// kgcReportItems are the HTML report's items for the test queries: per
// query, its first top candidates (every one when top is 0) and its true
// answer, marked, where it ranks below them, each explained. A query that
// several test triples share, such as (h, r, ?) of h r t1 and h r t2, is
// one group listing each candidate once (with its place in the first list
// that shows it) and every true answer, marked: each triple's list leaves
// out the others' answers as known, so the group gathers them.
func kgcReportItems(ctx context.Context, x *explain.KGC, rk *kgc.Ranker, test []kgc.Triple, ev *kgc.Evaluation, top int) ([]explain.Item, error) {
	type query struct {
		e, r int32
		tail bool
	}
	type shownKey struct {
		q query
		y int32
	}
	var order []query                    // queries in the order of their first test triple
	groups := map[query][]explain.Item{} // each query's items
	done := map[shownKey]bool{}          // candidates already listed under their query
	for i, t := range test {
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		for _, q := range []struct {
			a     kgc.Answer
			e     int32
			truth int32
			tail  bool
		}{{ev.Tails[i], t.H, t.T, true}, {ev.Heads[i], t.T, t.H, false}} {
			// The first candidates, and the true answer where it is
			// ranked below them; those listed before left out.
			full := q.a.List
			qk := query{q.e, t.R, q.tail}
			if _, ok := groups[qk]; !ok {
				order = append(order, qk)
				groups[qk] = nil
			}
			n := upTo(len(full), top)
			var shown []int
			for j := range full {
				if k := (shownKey{qk, full[j].Entity}); (j < n || full[j].Entity == q.truth) && !done[k] {
					shown = append(shown, j)
					done[k] = true
				}
			}
			if len(shown) == 0 {
				continue
			}
			cands := make([]int32, len(shown))
			for m, j := range shown {
				cands[m] = full[j].Entity
			}
			for m, qx := range x.ExplainQuery(q.e, t.R, q.tail, cands) {
				tr := kgc.Triple{H: q.e, R: t.R, T: cands[m]}
				if !q.tail {
					tr = kgc.Triple{H: cands[m], R: t.R, T: q.e}
				}
				x.SetPlace(&qx, rk.PlaceIn(full, shown[m]))
				qx.Answer = cands[m] == q.truth
				groups[qk] = append(groups[qk], explain.Item{Name: x.KGCAtom(tr), Group: qx.Query, Value: full[shown[m]].Score, Explanation: qx})
			}
		}
	}
	var items []explain.Item
	for _, qk := range order {
		// By place: each triple's list places its own true answer (the
		// others' are left out of it), the candidates in the first list
		// that shows them.
		slices.SortStableFunc(groups[qk], func(a, b explain.Item) int {
			return cmp.Compare(a.Explanation.(explain.KGCQuery).Rank, b.Explanation.(explain.KGCQuery).Rank)
		})
		items = append(items, groups[qk]...)
	}
	return items, nil
}
