package kgc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// PSLOptions configure PSL scoring.
type PSLOptions struct {
	// Candidates is the number of a query's best candidates by maxplus
	// that PSL re-scores (0: 20); the others keep their maxplus order
	// below them.
	Candidates int
	// RulesPerRelation is the number of each head relation's rules, by
	// decreasing confidence, that become PSL rules (0: 30).
	RulesPerRelation int
	// TrainQueries is the number of training triples, sampled with Seed
	// and asked both ways, whose candidates (in the graph or not) are the
	// truth the weights are learned from (0: 300).
	TrainQueries int
	// L2 regularises PPLL (0: 0.01) and Iterations bounds it (0: 200).
	L2         float64
	Iterations int
	Seed       uint64
	Threads    int
}

func (o *PSLOptions) defaults() {
	if o.Candidates <= 0 {
		o.Candidates = 20
	}
	if o.RulesPerRelation <= 0 {
		o.RulesPerRelation = 30
	}
	if o.TrainQueries <= 0 {
		o.TrainQueries = 300
	}
	if o.L2 == 0 {
		o.L2 = 0.01
	}
	if o.Iterations <= 0 {
		o.Iterations = 200
	}
}

// PSLModel is a rule set turned into a PSL model: every relation r is a closed
// predicate G_r (the graph) and an open one Q_r (the answers), every kept
// rule a squared rule body -> Q_head with its variables pairwise distinct
// (the object identity of the rules' counting), plus a negative prior
// ~Q_r per relation. Weights are learned jointly by PPLL (package learn);
// Infer scores candidate atoms by MAP inference (ADMM).
type PSLModel struct {
	// Model holds the rules with their learned weights.
	Model *model.Model
	// Learn describes the weight learning.
	Learn *learn.Result
	// Rules are the kgc rules behind the model's rules, in order (the
	// priors come after them).
	Rules []*Rule

	g        *Graph
	v        *Vocab
	opt      PSLOptions
	obs, tgt []*model.Predicate // by relation
	text     []string           // rule texts without weights, model order
}

// predStems are the PSL names of relations 0..n-1 without their prefix
// (G_, Q_): a relation's own name when that is an identifier, else rel and
// its id; PSL predicate names are case-insensitive, so a stem equal to an
// earlier one but for case (likes and LIKES, or a relation named rel5 and
// the fallback of relation 5) takes the first free suffix _2, _3, ... that
// no relation's stem has.
func predStems(v *Vocab, n int) []string {
	stems := make([]string, n)
	taken := map[string]bool{} // lower-case stems, every relation's first
	for r := range n {
		if name := v.Relations[r]; model.IsIdentifier(name) {
			stems[r] = name
		} else {
			stems[r] = fmt.Sprintf("rel%d", r)
		}
		taken[strings.ToLower(stems[r])] = true
	}
	first := map[string]bool{}
	for r, stem := range stems {
		low := strings.ToLower(stem)
		if !first[low] {
			first[low] = true
			continue
		}
		for k := 2; ; k++ {
			c := fmt.Sprintf("%s_%d", stem, k)
			if !taken[strings.ToLower(c)] {
				stems[r] = c
				taken[strings.ToLower(c)] = true
				break
			}
		}
	}
	return stems
}

// Renamed lists, one line each, the relations whose PSL predicates are not
// G_ and Q_ followed by the relation's name: a name that is not a PSL
// identifier, or one that differs from another only in case.
func (p *PSLModel) Renamed() []string {
	var out []string
	for r, o := range p.obs {
		if name := p.v.Relations[r]; o.Name != "G_"+name {
			out = append(out, fmt.Sprintf("relation %q is %s and %s", name, o.Name, p.tgt[r].Name))
		}
	}
	return out
}

// pslText writes the rule as a PSL rule without its weight.
func (r *Rule) pslText(g, q func(int32) string, v *Vocab) string {
	quote := func(e int32) string {
		if e == Self {
			return "X" // the self-loop r(X, X) or b(X, X)
		}
		return syntax.Quote(v.Entities[e])
	}
	atom := func(p, a, b string) string { return p + "(" + a + ", " + b + ")" }
	step := func(st Step, from, to string) string {
		if st.Inverse {
			from, to = to, from
		}
		return atom(g(st.R), from, to)
	}
	var body []string
	var head string
	switch r.Kind {
	case Cyclic:
		vars := []string{"X"}
		for i := 1; i < len(r.Body); i++ {
			vars = append(vars, fmt.Sprintf("A%d", i))
		}
		vars = append(vars, "Y")
		for i, st := range r.Body {
			body = append(body, step(st, vars[i], vars[i+1]))
		}
		for i := range vars {
			for j := range i {
				body = append(body, vars[j]+" != "+vars[i])
			}
		}
		head = atom(q(r.Head), "X", "Y")
	default:
		head = atom(q(r.Head), "X", quote(r.C))
		if !r.ConstTail {
			head = atom(q(r.Head), quote(r.C), "X")
		}
		switch r.Kind {
		case AcyclicConst:
			body = append(body, step(r.Body[0], "X", quote(r.D)))
		case AcyclicAny:
			body = append(body, step(r.Body[0], "X", "A"), "X != A", "A != "+quote(r.C))
		case Default:
			return head + " ^2"
		}
	}
	return strings.Join(body, " & ") + " -> " + head + " ^2"
}

// NewPSL turns the ranker's best rules into a PSL model and learns its
// weights by PPLL from sampled training queries: for each, its best
// maxplus candidates are the target atoms, true when the graph holds them.
func (rk *Ranker) NewPSL(ctx context.Context, v *Vocab, opt PSLOptions) (*PSLModel, error) {
	opt.defaults()
	g := rk.g
	if len(g.Triples) == 0 {
		return nil, errors.New("kgc: psl: the graph has no triples")
	}
	p := &PSLModel{Model: model.New(), g: g, v: v, opt: opt}
	stems := predStems(v, g.NumRelations)
	gname := func(r int32) string { return "G_" + stems[r] }
	qname := func(r int32) string { return "Q_" + stems[r] }
	for r := range int32(g.NumRelations) {
		o, err := p.Model.AddPredicate(gname(r), 2, true)
		if err != nil {
			return nil, fmt.Errorf("kgc: psl: relation %q: %w", v.Relations[r], err)
		}
		t, err := p.Model.AddPredicate(qname(r), 2, false)
		if err != nil {
			return nil, fmt.Errorf("kgc: psl: relation %q: %w", v.Relations[r], err)
		}
		p.obs, p.tgt = append(p.obs, o), append(p.tgt, t)
	}
	for _, rs := range rk.byHead {
		for _, r := range rs[:min(len(rs), opt.RulesPerRelation)] {
			p.Rules = append(p.Rules, r)
			p.text = append(p.text, r.pslText(gname, qname, v))
		}
	}
	for r := range int32(g.NumRelations) {
		p.text = append(p.text, "~"+qname(r)+"(X, Y) ^2")
	}
	for i, text := range p.text {
		rule, err := syntax.ParseRule("1: "+text, srcpos.Position{})
		if err == nil {
			err = p.Model.AddRule(rule)
		}
		if err != nil {
			return nil, fmt.Errorf("kgc: psl: rule %q: %w", text, err)
		}
		rule.Text, rule.Index = text, i
	}
	// Training queries: sampled graph triples, asked both ways.
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b9))
	var queries []Triple
	for range min(opt.TrainQueries, len(g.Triples)) {
		queries = append(queries, g.Triples[rng.IntN(len(g.Triples))])
	}
	atoms := rk.candidateAtoms(ctx, queries, opt.Candidates, opt.Threads)
	s, err := p.store(atoms)
	if err != nil {
		return nil, err
	}
	for _, a := range atoms {
		v := 0.0
		if g.Has(a) {
			v = 1
		}
		if err := s.AddTruth(p.tgt[a.R], p.args(a), v); err != nil {
			return nil, err
		}
	}
	gr, err := ground.Ground(p.Model, s, ground.Options{Threads: opt.Threads})
	if err != nil {
		return nil, err
	}
	lo := learn.DefaultOptions()
	lo.Method, lo.Iterations, lo.L2, lo.Threads, lo.Seed = learn.PPLL, opt.Iterations, opt.L2, opt.Threads, opt.Seed
	lr, err := learn.Learn(ctx, gr, s, p.Model, lo)
	if err != nil {
		return nil, fmt.Errorf("kgc: psl: weight learning: %w", err)
	}
	p.Learn = lr
	for i, r := range p.Model.Rules {
		switch {
		case i >= len(p.Rules) && lr.Weights[i] == 0:
			// A prior PPLL sets to 0 (it does when more than a third of
			// the training candidates are true: the piecewise conditional
			// of w*y^2 alone then prefers w = 0) would let any rule push
			// its candidates to 1, all tied; with the answers independent
			// a candidate's MAP value is S / (S + w0), S the weighted count
			// of its rule groundings, so any w0 > 0 ranks alike.
			r.Weight = 1
		case lr.Learned[i]:
			r.Weight = lr.Weights[i]
		default:
			r.Weight = 0 // no grounding among the training candidates: no evidence
		}
	}
	return p, nil
}

// candidateAtoms returns the distinct atoms (as triples) of the best n
// maxplus candidates of every query asked both ways, in a fixed order.
func (rk *Ranker) candidateAtoms(ctx context.Context, queries []Triple, n, threads int) []Triple {
	per := make([][]Triple, len(queries))
	rk.forQueries(ctx, len(queries), threads, func(i int, qs *queryScratch) {
		t := queries[i]
		tails, _, _ := rk.rank(ctx, MaxPlus, t.H, t.R, true, n, nil, qs)
		heads, _, _ := rk.rank(ctx, MaxPlus, t.T, t.R, false, n, nil, qs)
		per[i] = appendAtoms(per[i], t, true, tails, n)
		per[i] = appendAtoms(per[i], t, false, heads, n)
	})
	return distinct(per)
}

// appendAtoms appends the atoms of the first n candidates of query t (its
// tail asked when tail, else its head).
func appendAtoms(out []Triple, t Triple, tail bool, cands []Candidate, n int) []Triple {
	for _, c := range cands[:min(n, len(cands))] {
		if tail {
			out = append(out, Triple{H: t.H, R: t.R, T: c.Entity})
		} else {
			out = append(out, Triple{H: c.Entity, R: t.R, T: t.T})
		}
	}
	return out
}

// distinct is the triples of lists, each once, in first-seen order.
func distinct(lists [][]Triple) []Triple {
	seen := map[Triple]bool{}
	var out []Triple
	for _, ts := range lists {
		for _, a := range ts {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

func (p *PSLModel) args(a Triple) []string { return []string{p.v.Entities[a.H], p.v.Entities[a.T]} }

// store holds the graph as observations and atoms as targets.
func (p *PSLModel) store(atoms []Triple) (*store.Store, error) {
	s := store.New(p.Model)
	for _, t := range p.g.Triples {
		if err := s.AddObservation(p.obs[t.R], p.args(t), 1); err != nil {
			return nil, err
		}
	}
	for _, a := range atoms {
		if err := s.AddTarget(p.tgt[a.R], p.args(a)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Infer returns the MAP value of every atom (ADMM with opt) given the
// graph: its score under the learned model.
func (p *PSLModel) Infer(ctx context.Context, atoms []Triple, opt admm.Options) ([]float64, *admm.Result, error) {
	s, err := p.store(atoms)
	if err != nil {
		return nil, nil, err
	}
	gr, err := ground.Ground(p.Model, s, ground.Options{Threads: p.opt.Threads})
	if err != nil {
		return nil, nil, err
	}
	res, err := admm.Solve(ctx, gr.Problem, opt)
	if err != nil {
		return nil, nil, err
	}
	idx := make(map[Triple]int, len(atoms))
	for i, a := range atoms {
		idx[a] = i
	}
	rel := make(map[*model.Predicate]int32, len(p.tgt))
	for r, t := range p.tgt {
		rel[t] = int32(r)
	}
	ent := func(id int32) int32 { return p.v.ent[s.Dict.Name(id)] }
	values := make([]float64, len(atoms))
	for x, ref := range gr.Vars {
		args := s.Table(ref.Pred).Args(ref.Row)
		values[idx[Triple{H: ent(args[0]), R: rel[ref.Pred], T: ent(args[1])}]] = res.Values[x]
	}
	return values, res, nil
}

// WriteFiles writes the learned model and the inference data of atoms to
// dir as hinge infer (and PSL) read them: model.psl, kgc.data, and a
// graph and a targets file per relation. The files are written in place,
// replacing any of the same names: give it a new directory (hinge kgc
// --psl-out gives the temporary one of atomicfile.WriteDir).
func (p *PSLModel) WriteFiles(dir string, atoms []Triple) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var m, d strings.Builder
	for _, line := range p.Renamed() {
		fmt.Fprintf(&m, "# %s\n", line)
		fmt.Fprintf(&d, "# %s\n", line)
	}
	for i, r := range p.Model.Rules {
		fmt.Fprintf(&m, "%.17g: %s\n", r.Weight, p.text[i])
	}
	if err := os.WriteFile(filepath.Join(dir, "model.psl"), []byte(m.String()), 0o644); err != nil {
		return err
	}
	byRel := func(ts []Triple) map[int32][]Triple {
		out := map[int32][]Triple{}
		for _, t := range ts {
			out[t.R] = append(out[t.R], t)
		}
		return out
	}
	obs, tgt := byRel(p.g.Triples), byRel(atoms)
	d.WriteString("predicates:\n")
	for r := range p.obs {
		fmt.Fprintf(&d, "  %s/2: closed\n  %s/2: open\n", p.obs[r].Name, p.tgt[r].Name)
	}
	for _, sec := range []struct {
		name string
		ts   map[int32][]Triple
		pred []*model.Predicate
	}{{"observations", obs, p.obs}, {"targets", tgt, p.tgt}} {
		fmt.Fprintf(&d, "%s:\n", sec.name)
		rels := make([]int32, 0, len(sec.ts))
		for r := range sec.ts {
			rels = append(rels, r)
		}
		slices.Sort(rels)
		for _, r := range rels {
			file := sec.pred[r].Name + "_" + sec.name + ".txt"
			fmt.Fprintf(&d, "  %s: %s\n", sec.pred[r].Name, file)
			if err := p.writeTriples(filepath.Join(dir, file), sec.ts[r]); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(dir, "kgc.data"), []byte(d.String()), 0o644)
}

func (p *PSLModel) writeTriples(path string, ts []Triple) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, t := range ts {
		fmt.Fprintf(w, "%s\t%s\n", p.v.Entities[t.H], p.v.Entities[t.T])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteValues writes "Q_r<TAB>h<TAB>t<TAB>value" lines, one per atom.
func (p *PSLModel) WriteValues(w io.Writer, atoms []Triple, values []float64) error {
	bw := bufio.NewWriter(w)
	for i, a := range atoms {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%.17g\n", p.tgt[a.R].Name, p.v.Entities[a.H], p.v.Entities[a.T], values[i])
	}
	return bw.Flush()
}
