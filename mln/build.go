package mln

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// Options say which atoms are asked for and which predicates are open.
type Options struct {
	// Query names the query predicates (Alchemy's -q).
	Query []string
	// QueryAtoms are the atoms of a query file; a variable argument stands
	// for every constant of its type. Their predicates are query predicates.
	QueryAtoms []GroundAtom
	// Open names predicates that are open besides the query predicates
	// (Alchemy's -o); ignored under Tuffy's '*' convention.
	Open []string
	// HardWeight, when positive, makes every clause of a hard formula soft
	// with this weight, as Alchemy and Tuffy treat hard clauses: a
	// network whose hard clauses cannot all hold then still has a most
	// probable world.
	HardWeight float64
	// DomainAtoms are atoms whose constants join the domains, as the
	// evidence's do, but which are neither evidence nor queries: weight
	// learning passes the whole training world, so that the domains do not
	// depend on which predicates are queried. Their constants come first,
	// in order, after the declared ones.
	DomainAtoms []GroundAtom
	// Lazy leaves the unknown atoms out of the store: only lazy inference
	// (Network.LazyMAP) applies to the network, which adds them as they come
	// into play; MaxAtoms then bounds nothing.
	Lazy bool
	// MaxAtoms bounds the unknown atoms of one predicate (its domain
	// product): a bigger one is refused with the sizes that make it, before
	// anything is allocated. 0 means 50 million.
	MaxAtoms int
}

// Network is a Markov logic network bound to its evidence: a hinge model
// whose rules are the network's clauses, and a store with the evidence as
// observations and every unknown atom as a target.
type Network struct {
	Model *model.Model
	Store *store.Store
	// Clauses describes each rule of Model: where it came from.
	Clauses []ClauseInfo
	// Query marks the query predicates (by Model predicate index).
	Query []bool
	// Domains maps each type to its constants.
	Domains map[string][]string
	// Formulas counts the formulas after +var expansion; Dropped counts
	// clauses of weight 0 (they cannot change the answer).
	Formulas, Dropped int

	hardWeight float64 // Options.HardWeight
	// soft holds the soft evidence atoms (each once); open says which
	// predicates are open-world (a closed one with soft evidence is open
	// in the model, for its soft atoms only).
	soft []GroundAtom
	open map[string]bool
	// given says which predicates have evidence atoms (soft ones too).
	given map[string]bool
	lazy  bool     // Options.Lazy: the store has no unknown atoms
	prog  *Program // the program built (lazy inference reads argument types)
	// asked holds, for a query predicate asked for only through ground
	// query atoms, those atoms (see Asked).
	asked map[string]*askedAtoms
}

// askedAtoms are the atoms of a predicate that query atoms ask for: the
// ground ones by their arguments (argsKey), the others as patterns.
type askedAtoms struct {
	ground   map[string]bool
	patterns [][]Term
}

// argsKey joins arguments into one map key.
func argsKey(args []string) string { return strings.Join(args, "\x00") }

// hasVar reports whether a term of ts is a variable.
func hasVar(ts []Term) bool {
	return slices.ContainsFunc(ts, func(t Term) bool { return t.IsVar })
}

// Asked reports whether the atom pred(args) of a query predicate is asked
// for: every atom of a predicate named as a query (-q Pred) or by an atom
// of variables only (Cancer(x)); else only those matching one of its query
// atoms (Cancer(Bob); Knows(Anna, y): a variable matches any constant, the
// same one wherever it repeats). Inference covers every atom of a query
// predicate either way (they depend on each other); results list the
// asked ones.
func (net *Network) Asked(pred string, args []string) bool {
	a, some := net.asked[pred]
	if !some {
		return true
	}
	if a.ground[argsKey(args)] {
		return true
	}
	for _, p := range a.patterns {
		if matches(p, args) {
			return true
		}
	}
	return false
}

// Reported reports whether the atom pred(args) is in a query's results:
// pred is a query predicate and the atom is asked for (Asked).
func (net *Network) Reported(pred *model.Predicate, args []string) bool {
	return net.Query[pred.Index] && net.Asked(pred.Name, args)
}

// matches reports whether args fits the pattern p.
func matches(p []Term, args []string) bool {
	if len(p) != len(args) {
		return false
	}
	bound := map[string]string{}
	for i, t := range p {
		if !t.IsVar {
			if t.Name != args[i] {
				return false
			}
			continue
		}
		if b, ok := bound[t.Name]; ok && b != args[i] {
			return false
		}
		bound[t.Name] = args[i]
	}
	return true
}

// allVars reports whether the terms are distinct variables (an atom that
// asks for every atom of its predicate).
func allVars(ts []Term) bool {
	seen := map[string]bool{}
	for _, t := range ts {
		if !t.IsVar || seen[t.Name] {
			return false
		}
		seen[t.Name] = true
	}
	return true
}

// ClauseInfo says which formula a clause (a rule of the network's model)
// comes from and its Markov logic weight (after the split among the
// formula's clauses; 0 for hard clauses).
type ClauseInfo struct {
	Formula *Formula
	Weight  float64
	Hard    bool
	// Plus holds the constants that the formula's +variables (in the order
	// PlusVars gives) take in this clause's instance of the formula; nil
	// for a formula without +variables.
	Plus []string
}

// domainPred names the closed unary predicate holding a type's constants;
// '$' cannot occur in a Markov logic name, so it never collides.
func domainPred(typ string) string { return "dom$" + typ }

// IsDomainPredicate reports whether name is one of the closed unary
// predicates that grounding adds to enumerate a type's constants (no user
// wrote it, and explanations leave it out).
func IsDomainPredicate(name string) bool { return strings.HasPrefix(name, "dom$") }

// Build binds prog to its evidence: it declares the predicates, computes the
// domains, loads the evidence, makes every atom of an open predicate that the
// evidence does not fix a target, and turns every formula into clauses
// (rules of the model, see the package documentation).
func Build(prog *Program, evidence []GroundAtom, opt Options) (*Network, error) {
	if opt.MaxAtoms <= 0 {
		opt.MaxAtoms = 50_000_000
	}
	for _, f := range prog.Formulas {
		if err := CheckNesting(f.F); err != nil {
			return nil, err
		}
	}
	query := map[string]bool{}
	for _, q := range opt.Query {
		if prog.Pred(q) == nil {
			return nil, prog.undeclared("query predicate", q)
		}
		query[q] = true
	}
	// Ground query atoms (Cancer(Bob), Knows(Anna, y)) ask for those atoms
	// only; a predicate named alone, or in an atom of variables only
	// (Cancer(x)), is asked for in full.
	whole := map[string]bool{}
	for q := range query {
		whole[q] = true
	}
	patterns := map[string][][]Term{}
	for _, a := range opt.QueryAtoms {
		query[a.Pred] = true
		if allVars(a.Args) {
			whole[a.Pred] = true
		} else {
			patterns[a.Pred] = append(patterns[a.Pred], a.Args)
		}
	}
	if len(query) == 0 {
		return nil, fmt.Errorf("no query predicate: give -q Pred or a query file")
	}
	tuffy := false
	for _, d := range prog.Preds {
		tuffy = tuffy || d.Closed
	}
	open := map[string]bool{}
	for _, d := range prog.Preds {
		open[d.Name] = !d.Closed && (tuffy || query[d.Name])
	}
	for _, o := range opt.Open {
		if prog.Pred(o) == nil {
			return nil, prog.undeclared("open predicate", o)
		}
		if !tuffy {
			open[o] = true
		}
	}
	for q := range query {
		if !open[q] {
			return nil, fmt.Errorf("query predicate %s is closed-world ('*'): it has no unknown atoms to infer", q)
		}
	}

	// Soft evidence (a truth value strictly between 0 and 1) is Tuffy's: the
	// atom is unknown, with a prior unit clause of weight log(p/(1-p)) (see
	// addSoftEvidence); a closed predicate's soft atoms are unknown too.
	hasSoft := map[string]bool{}
	for _, a := range evidence {
		if a.Value > 0 && a.Value < 1 {
			hasSoft[a.Pred] = true
		}
	}

	net := &Network{Model: model.New(), Domains: map[string][]string{}, lazy: opt.Lazy, prog: prog, asked: map[string]*askedAtoms{}, open: open, given: map[string]bool{}}
	for p, ps := range patterns {
		if whole[p] {
			continue
		}
		a := &askedAtoms{ground: map[string]bool{}}
		for _, args := range ps {
			if hasVar(args) {
				a.patterns = append(a.patterns, args)
				continue
			}
			names := make([]string, len(args))
			for i, t := range args {
				names[i] = t.Name
			}
			a.ground[argsKey(names)] = true
		}
		net.asked[p] = a
	}
	if err := net.domains(prog, opt.DomainAtoms, evidence, opt.QueryAtoms); err != nil {
		return nil, err
	}
	preds := map[string]*model.Predicate{}
	for _, d := range prog.Preds {
		if old := net.Model.Predicate(d.Name); old != nil {
			return nil, srcpos.Errorf(d.Pos, "predicates %s and %s differ only in case, and hinge matches predicate names ignoring case", old.Name, d.Name)
		}
		// A closed predicate with soft evidence is open in the model (its
		// soft atoms are targets), and its other atoms, absent from the
		// store, are false all the same.
		mp, err := net.Model.AddPredicate(d.Name, len(d.Types), !open[d.Name] && !hasSoft[d.Name])
		if err != nil {
			return nil, srcpos.Errorf(d.Pos, "%v", err)
		}
		preds[d.Name] = mp
	}
	net.Query = make([]bool, len(net.Model.Predicates))
	for q := range query {
		net.Query[preds[q].Index] = true
	}
	types := slices.Sorted(maps.Keys(net.Domains))
	for _, t := range types {
		if _, err := net.Model.AddPredicate(domainPred(t), 1, true); err != nil {
			return nil, err
		}
	}
	net.Store = store.New(net.Model)
	for _, t := range types {
		dp := net.Model.Predicate(domainPred(t))
		for _, c := range net.Domains[t] {
			if err := net.Store.AddObservation(dp, []string{c}, 1); err != nil {
				return nil, err
			}
		}
	}
	fixed := map[string]map[string]bool{} // predicate -> evidence atoms, by key
	softAt := map[string]GroundAtom{}     // soft evidence atoms, by AtomString
	for _, a := range evidence {
		args := constants(a.Args)
		net.given[preds[a.Pred].Name] = true
		k, key := AtomString(a.Pred, args), strings.Join(args, "\x00")
		isSoft := a.Value > 0 && a.Value < 1
		if b, ok := softAt[k]; ok {
			if b.Value == a.Value {
				continue
			}
			return nil, srcpos.Errorf(a.Pos, "%s is given two truth values, %v (at %s) and %v", k, b.Value, b.Pos, a.Value)
		}
		if isSoft {
			if fixed[a.Pred][key] {
				return nil, srcpos.Errorf(a.Pos, "%s is given a soft truth value %v and also as true or false", k, a.Value)
			}
			softAt[k] = a
			net.soft = append(net.soft, a)
			continue // an unknown atom: not in fixed
		}
		if err := net.Store.AddObservation(preds[a.Pred], args, a.Value); err != nil {
			return nil, srcpos.Errorf(a.Pos, "%v", err)
		}
		if fixed[a.Pred] == nil {
			fixed[a.Pred] = map[string]bool{}
		}
		fixed[a.Pred][key] = true
	}
	for _, d := range prog.Preds {
		if open[d.Name] && !opt.Lazy {
			if err := net.targets(d, preds[d.Name], fixed[d.Name], opt.MaxAtoms); err != nil {
				return nil, err
			}
		}
	}
	if !opt.Lazy {
		if err := net.softTargets(); err != nil {
			return nil, err
		}
	}
	if opt.HardWeight < 0 || math.IsNaN(opt.HardWeight) || math.IsInf(opt.HardWeight, 0) {
		return nil, fmt.Errorf("hard weight %v must be a finite number >= 0", opt.HardWeight)
	}
	net.hardWeight = opt.HardWeight
	for _, f := range prog.Formulas {
		if err := net.addFormula(prog, f); err != nil {
			return nil, err
		}
	}
	for _, a := range net.soft {
		if err := net.addSoftEvidence(a, preds[a.Pred]); err != nil {
			return nil, err
		}
	}
	for _, d := range prog.Preds {
		if err := net.addFunctional(prog, d); err != nil {
			return nil, err
		}
	}
	if err := net.groundUnitsHold(); err != nil {
		return nil, err
	}
	return net, nil
}

// softTargets adds the soft evidence atoms of closed predicates as targets
// (an open predicate's are added with its other unknown atoms).
func (net *Network) softTargets() error {
	for _, a := range net.soft {
		if !net.open[a.Pred] {
			if err := net.Store.AddTarget(net.Model.Predicate(a.Pred), constants(a.Args)); err != nil {
				return srcpos.Errorf(a.Pos, "%v", err)
			}
		}
	}
	return nil
}

// CheckLazy says whether lazy inference (LazyMAP, LazyExactMAP,
// LazyMarginals) applies to the network: it does not take soft evidence,
// and the error names the first soft atom's file, line and column.
func (net *Network) CheckLazy() error {
	if len(net.soft) == 0 {
		return nil
	}
	a := net.soft[0]
	return srcpos.Errorf(a.Pos, "soft evidence (truth value %v of %s) is not supported by lazy inference: give the atom as true or false, or leave out --lazy (every other method takes it)", a.Value, AtomString(a.Pred, constants(a.Args)))
}

// addSoftEvidence adds the prior of a soft evidence atom a (truth value p
// strictly between 0 and 1), as Tuffy does: the atom is unknown, and the
// unit clause a of weight log(p/(1-p)) makes its probability p when no
// other clause touches it. Its formula is fixed (@w): learning keeps it.
func (net *Network) addSoftEvidence(a GroundAtom, p *model.Predicate) error {
	w := math.Log(a.Value / (1 - a.Value))
	args := constants(a.Args)
	text := fmt.Sprintf("%v %s", a.Value, AtomString(a.Pred, args))
	f := &Formula{Weight: w, Fixed: true, Pos: a.Pos, Text: text}
	ts := make([]model.Term, len(args))
	for i, c := range args {
		ts[i] = model.Const(c)
	}
	r := &model.Rule{
		Weight:   math.Abs(w),
		Weighted: true,
		Logical:  model.NewAtom(p, ts...),
		Pos:      a.Pos,
		Text:     fmt.Sprintf("%.6g %s (soft evidence %v)", w, AtomString(a.Pred, args), a.Value),
	}
	if err := net.Model.AddRule(r); err != nil {
		return srcpos.Errorf(a.Pos, "%v", err)
	}
	net.Clauses = append(net.Clauses, ClauseInfo{Formula: f, Weight: w})
	return nil
}

func constants(ts []Term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// domains collects each type's constants: declared ones, then those at
// arguments of the type in the domain atoms, the evidence, the query atoms
// and the formulas, in order of first appearance.
func (net *Network) domains(prog *Program, extra, evidence, queries []GroundAtom) error {
	seen := map[string]map[string]bool{}
	add := func(typ, c string) {
		if seen[typ] == nil {
			seen[typ] = map[string]bool{}
		}
		if !seen[typ][c] {
			seen[typ][c] = true
			net.Domains[typ] = append(net.Domains[typ], c)
		}
	}
	for _, t := range prog.TypeOrder {
		for _, c := range prog.Types[t] {
			add(t, c)
		}
	}
	for _, d := range prog.Preds {
		for _, t := range d.Types {
			if net.Domains[t] == nil {
				net.Domains[t] = []string{}
			}
		}
	}
	atom := func(pred string, args []Term) {
		d := prog.Pred(pred)
		for i, t := range args {
			if !t.IsVar && !t.Plus {
				add(d.Types[i], t.Name)
			}
		}
	}
	for _, a := range extra {
		atom(a.Pred, a.Args)
	}
	for _, a := range evidence {
		atom(a.Pred, a.Args)
	}
	for _, a := range queries {
		atom(a.Pred, a.Args)
	}
	for _, f := range prog.Formulas {
		walk(f.F, func(n Node) {
			if a, ok := n.(*Atom); ok {
				atom(a.Pred, a.Args)
			}
		})
	}
	return nil
}

// targets makes every atom of open predicate d that the evidence does not
// fix a target: the domain product of its argument types.
func (net *Network) targets(d *PredDecl, p *model.Predicate, fixed map[string]bool, maxAtoms int) error {
	size := 1.0
	var sizes []string
	for _, t := range d.Types {
		n := len(net.Domains[t])
		size *= float64(n)
		sizes = append(sizes, fmt.Sprintf("%s: %d", t, n))
	}
	if size > float64(maxAtoms) {
		return srcpos.Errorf(d.Pos, "open predicate %s has %.0f atoms (%s), more than the limit of %d", d.Name, size, strings.Join(sizes, ", "), maxAtoms)
	}
	args := make([]string, len(d.Types))
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(args) {
			if fixed[strings.Join(args, "\x00")] {
				return nil
			}
			return net.Store.AddTarget(p, args)
		}
		for _, c := range net.Domains[d.Types[i]] {
			args[i] = c
			if err := rec(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(0)
}

// PlusVars lists the +variables of a formula (Alchemy's per-constant
// weights: P(+x) stands for one formula per constant of x's type, each
// with its own weight), in order of first appearance.
func PlusVars(f *Formula) []string {
	var plus []string
	walk(f.F, func(n Node) {
		if a, ok := n.(*Atom); ok {
			for _, t := range a.Args {
				if t.Plus && !slices.Contains(plus, t.Name) {
					plus = append(plus, t.Name)
				}
			}
		}
	})
	return plus
}

// addFormula expands f's +variables, then turns each instance into clauses.
func (net *Network) addFormula(prog *Program, f *Formula) error {
	vt, err := varTypes(prog, f.F)
	if err != nil {
		return err
	}
	plus := PlusVars(f)
	if len(plus) == 0 {
		net.Formulas++
		return net.addClauses(prog, f, f.F, vt, nil)
	}
	// One formula per combination of the +variables' constants.
	sub := map[string]string{}
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(plus) {
			net.Formulas++
			consts := make([]string, len(plus))
			for k, v := range plus {
				consts[k] = sub[v]
			}
			return net.addClauses(prog, f, substitute(f.F, sub), vt, consts)
		}
		for _, c := range net.Domains[vt[plus[i]]] {
			sub[plus[i]] = c
			if err := rec(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return rec(0)
}

// varTypes gives each variable of a formula the type of the arguments it
// occurs at; a variable at arguments of two types is an error.
func varTypes(prog *Program, n Node) (map[string]string, error) {
	vt := map[string]string{}
	var err error
	walk(n, func(x Node) {
		a, ok := x.(*Atom)
		if !ok || err != nil {
			return
		}
		d := prog.Pred(a.Pred)
		for i, t := range a.Args {
			if !t.IsVar && !t.Plus {
				continue
			}
			if old, ok := vt[t.Name]; ok && old != d.Types[i] {
				err = srcpos.Errorf(t.Pos, "variable %s is of type %s here but of type %s elsewhere in the formula", t.Name, d.Types[i], old)
				return
			}
			vt[t.Name] = d.Types[i]
		}
	})
	if err != nil {
		return nil, err
	}
	walk(n, func(x Node) {
		if e, ok := x.(*Eq); ok && err == nil {
			for _, t := range []Term{e.L, e.R} {
				if t.IsVar && vt[t.Name] == "" {
					err = srcpos.Errorf(t.Pos, "variable %s occurs only in comparisons: its type is unknown", t.Name)
				}
			}
		}
	})
	return vt, err
}

// substitute replaces variables by constants (sub) in a copy of n; it also
// turns +x into the constant.
func substitute(n Node, sub map[string]string) Node {
	term := func(t Term) Term {
		if c, ok := sub[t.Name]; ok && (t.IsVar || t.Plus) {
			return Term{Name: c, Pos: t.Pos}
		}
		return t
	}
	switch x := n.(type) {
	case *Atom:
		a := &Atom{Pred: x.Pred, P: x.P, Args: make([]Term, len(x.Args))}
		for i, t := range x.Args {
			a.Args[i] = term(t)
		}
		return a
	case *Eq:
		return &Eq{L: term(x.L), R: term(x.R), Neg: x.Neg, P: x.P}
	case *Not:
		return &Not{X: substitute(x.X, sub), P: x.P}
	case *Binary:
		return &Binary{Op: x.Op, X: substitute(x.X, sub), Y: substitute(x.Y, sub), P: x.P}
	case *Quant:
		inner := sub
		for _, v := range x.Vars {
			if _, ok := sub[v]; ok {
				// The quantifier rebinds v: do not substitute it below.
				inner = map[string]string{}
				for k, c := range sub {
					if !slices.Contains(x.Vars, k) {
						inner[k] = c
					}
				}
				break
			}
		}
		return &Quant{Exist: x.Exist, Vars: x.Vars, Body: substitute(x.Body, inner), P: x.P}
	}
	panic(fmt.Sprintf("mln: unknown node %T", n))
}

// Connect joins hinge formulas l and r (the converted operands of x) with
// x's connective: ^ as And, v as Or, => as Implies, <=> as the And of both
// implications (sharing l and r, which is fine: normalisation copies what
// it changes).
func (x *Binary) Connect(l, r model.Formula) model.Formula {
	switch x.Op {
	case "^":
		return &model.And{Args: []model.Formula{l, r}, Pos: x.P}
	case "v":
		return &model.Or{Args: []model.Formula{l, r}, Pos: x.P}
	case "=>":
		return &model.Implies{Body: l, Head: r, Pos: x.P}
	}
	return &model.And{Args: []model.Formula{
		&model.Implies{Body: l, Head: r, Pos: x.P},
		&model.Implies{Body: r, Head: l, Pos: x.P},
	}, Pos: x.P}
}

// maxExpansion bounds the disjuncts (or conjuncts) one quantifier expands
// to, times the number of copies of it the quantifiers around it make.
const maxExpansion = 100_000

// toModel converts a formula to hinge's formula type, expanding quantifiers
// over their variables' domains: EXIST x F is the disjunction of F over the
// constants of x's type, FORALL x F the conjunction. outer is the number
// of copies of n the enclosing quantifiers make (1 at the top): nested
// quantifiers multiply, and maxExpansion bounds the product.
func (net *Network) toModel(n Node, vt map[string]string, outer int) (model.Formula, error) {
	term := func(t Term) model.Term {
		if t.IsVar {
			mt := model.Var(t.Name)
			mt.Pos = t.Pos
			return mt
		}
		mt := model.Const(t.Name)
		mt.Pos = t.Pos
		return mt
	}
	switch x := n.(type) {
	case *Atom:
		a := &model.Atom{PredName: x.Pred, Pos: x.P, Args: make([]model.Term, len(x.Args))}
		for i, t := range x.Args {
			a.Args[i] = term(t)
		}
		return a, nil
	case *Eq:
		op := model.CmpEq
		if x.Neg {
			op = model.CmpNeq
		}
		return &model.Comparison{Op: op, Left: term(x.L), Right: term(x.R), Pos: x.P}, nil
	case *Not:
		y, err := net.toModel(x.X, vt, outer)
		if err != nil {
			return nil, err
		}
		return &model.Not{X: y, Pos: x.P}, nil
	case *Binary:
		l, err := net.toModel(x.X, vt, outer)
		if err != nil {
			return nil, err
		}
		r, err := net.toModel(x.Y, vt, outer)
		if err != nil {
			return nil, err
		}
		return x.Connect(l, r), nil
	case *Quant:
		subs := []map[string]string{{}}
		for _, v := range x.Vars {
			typ := vt[v]
			if typ == "" {
				return nil, srcpos.Errorf(x.P, "quantified variable %s does not occur in an atom: its type is unknown", v)
			}
			dom := net.Domains[typ]
			if len(subs)*len(dom) > maxExpansion {
				return nil, srcpos.Errorf(x.P, "quantifier expands to more than %d terms (domain of %s has %d constants)", maxExpansion, typ, len(dom))
			}
			if outer*len(subs)*len(dom) > maxExpansion {
				return nil, srcpos.Errorf(x.P, "nested quantifiers expand to more than %d terms (this one to %d, inside quantifiers that make %d copies of it)", maxExpansion, len(subs)*len(dom), outer)
			}
			next := make([]map[string]string, 0, len(subs)*len(dom))
			for _, s := range subs {
				for _, c := range dom {
					m := map[string]string{v: c}
					for k, val := range s {
						m[k] = val
					}
					next = append(next, m)
				}
			}
			subs = next
		}
		parts := make([]model.Formula, 0, len(subs))
		for _, s := range subs {
			y, err := net.toModel(substitute(x.Body, s), vt, outer*len(subs))
			if err != nil {
				return nil, err
			}
			parts = append(parts, y)
		}
		if len(parts) == 0 {
			// An empty domain: EXIST is false, FORALL true. Write them as a
			// comparison that is always false or true.
			op := model.CmpNeq
			if x.Exist {
				op = model.CmpEq
			}
			c := model.Const("$")
			return &model.Not{X: &model.Comparison{Op: op, Left: c, Right: c, Pos: x.P}, Pos: x.P}, nil
		}
		if x.Exist {
			return &model.Or{Args: parts, Pos: x.P}, nil
		}
		return &model.And{Args: parts, Pos: x.P}, nil
	}
	panic(fmt.Sprintf("mln: unknown node %T", n))
}

// addClauses converts one formula instance to clauses and adds them. A
// soft formula's clauses follow Alchemy's rule (FormulaClauses: the unit
// clauses gathered into one clause of negated literals and negated weight,
// the weight divided equally among the clauses before tautologies are
// dropped). A hard formula's clauses are each hard, which is exactly the
// formula; softened by Options.HardWeight, each weighs HardWeight. A clause
// of negative weight is kept as written (see addClause).
func (net *Network) addClauses(prog *Program, f *Formula, n Node, vt map[string]string, plus []string) error {
	mf, err := net.toModel(n, vt, 1)
	if err != nil {
		return err
	}
	cs, err := FormulaClauses(mf, f.Hard)
	if err != nil {
		return srcpos.Errorf(f.Pos, "%v%s", err, expansionHint(f.F))
	}
	w := f.Weight
	switch {
	case f.Hard && net.hardWeight > 0:
		soft := *f
		soft.Hard, soft.Weight = false, net.hardWeight
		f, w = &soft, net.hardWeight // each clause of a hard formula weighs HardWeight
	case f.Hard:
		w = 0
	case w == 0:
		net.Dropped += len(cs)
		return nil
	}
	for _, c := range cs {
		if err := net.addClause(prog, f, c.Clause, w*c.Share, vt, plus); err != nil {
			return err
		}
	}
	return nil
}

// addClause adds one clause as a rule: every variable not bound by a
// negative literal gets a negative domain literal !dom$T(v), which is always
// false and so leaves the clause's value unchanged but lets the grounder
// enumerate v over its type.
func (net *Network) addClause(prog *Program, f *Formula, c model.Clause, w float64, vt map[string]string, plus []string) error {
	bound := map[string]bool{}
	for _, l := range c {
		if l.Atom != nil && l.Neg {
			for _, t := range l.Atom.Args {
				if t.IsVar() {
					bound[t.Name] = true
				}
			}
		}
	}
	var free []string
	for _, l := range c {
		var ts []model.Term
		if l.Atom != nil {
			ts = l.Atom.Args
		} else {
			ts = []model.Term{l.Cmp.Left, l.Cmp.Right}
		}
		for _, t := range ts {
			if t.IsVar() && !bound[t.Name] && !slices.Contains(free, t.Name) {
				free = append(free, t.Name)
			}
		}
	}
	lits := make([]model.Formula, 0, len(c)+len(free))
	for _, v := range free {
		dp := net.Model.Predicate(domainPred(vt[v]))
		if dp == nil {
			return srcpos.Errorf(f.Pos, "variable %s has no type", v)
		}
		lits = append(lits, &model.Not{X: model.NewAtom(dp, model.Var(v)), Pos: f.Pos})
	}
	for _, l := range c {
		var x model.Formula = l.Cmp
		if l.Atom != nil {
			x = l.Atom
		}
		if l.Neg {
			x = &model.Not{X: x, Pos: f.Pos}
		}
		lits = append(lits, x)
	}
	// A clause of negative weight w costs |w| when it is satisfied: its
	// rule grounds the clause with weight |w| (a rule's weight is never
	// negative) and GroundClauses gives its ground clauses the weight w
	// back (ClauseInfo.Weight keeps the sign).
	r := &model.Rule{
		Weight:   math.Abs(w),
		Weighted: !f.Hard,
		Logical:  &model.Or{Args: lits, Pos: f.Pos},
		Pos:      f.Pos,
		Text:     clauseText(c, f.Hard, w),
	}
	if math.IsInf(w, 0) || math.IsNaN(w) {
		return srcpos.Errorf(f.Pos, "clause weight %v is not finite", w)
	}
	if err := net.Model.AddRule(r); err != nil {
		return srcpos.Errorf(f.Pos, "%v (in %s)", err, textfile.Clip(f.Text))
	}
	net.Clauses = append(net.Clauses, ClauseInfo{Formula: f, Weight: w, Hard: f.Hard, Plus: plus})
	return nil
}

// clauseText writes a clause in Alchemy syntax, for reports.
func clauseText(c model.Clause, hard bool, w float64) string {
	parts := make([]string, len(c))
	for i, l := range c {
		var s string
		if l.Atom != nil {
			args := make([]string, len(l.Atom.Args))
			for k, t := range l.Atom.Args {
				args[k] = Term{Name: t.Name, IsVar: t.IsVar()}.String()
			}
			s = l.Atom.PredName + "(" + strings.Join(args, ", ") + ")"
		} else {
			op := "="
			if l.Cmp.Op == model.CmpNeq {
				op = "!="
			}
			s = Term{Name: l.Cmp.Left.Name, IsVar: l.Cmp.Left.IsVar()}.String() + " " + op + " " +
				Term{Name: l.Cmp.Right.Name, IsVar: l.Cmp.Right.IsVar()}.String()
		}
		if l.Neg {
			s = "!" + s
		}
		parts[i] = s
	}
	body := strings.Join(parts, " v ")
	if hard {
		return body + "."
	}
	return fmt.Sprintf("%.6g %s", w, body)
}

// expansionHint says why a formula with an existential quantifier can
// expand to too many clauses, and the way out: EXIST y (A ^ B) is a
// disjunction over y's constants of conjunctions, whose clauses multiply
// (2 per constant here); naming the conjunction by a predicate defined
// with a hard equivalence keeps one clause per grounding (with the
// formula's whole weight: the same distribution only where the expanded
// formula had one clause, since a formula's weight is divided among its
// clauses).
func expansionHint(n Node) string {
	exist := false
	walk(n, func(m Node) {
		if q, ok := m.(*Quant); ok && q.Exist {
			exist = true
		}
	})
	if !exist {
		return ""
	}
	return " (an existential is expanded over its variables' constants, and an existential over a conjunction or an equivalence multiplies its clauses with every constant: name the conjunction by a predicate, e.g. FS(x, y) <=> Friends(x, y) ^ Smokes(y). with FS an open predicate, and write EXIST y FS(x, y); that formula is one clause with the whole weight, where the expanded one divides it among its clauses, as Alchemy does)"
}

// addFunctional adds, for a predicate with a functional argument (type!),
// the hard clauses saying that for every combination of the other
// arguments exactly one value of that argument is true: at least one (an
// existential) and at most one (no two different values). They are added
// for a closed predicate too, where the evidence alone decides them: the
// grounding refuses evidence that breaks them, as it does any hard clause
// (an atom with two values, or none, in a closed predicate passed
// silently).
func (net *Network) addFunctional(prog *Program, d *PredDecl) error {
	for k, u := range d.Unique {
		if !u {
			continue
		}
		vars := make([]Term, len(d.Types))
		other := make([]Term, len(d.Types))
		for i := range d.Types {
			vars[i] = Term{Name: fmt.Sprintf("a%d", i), IsVar: true, Pos: d.Pos}
			other[i] = vars[i]
		}
		other[k] = Term{Name: "b", IsVar: true, Pos: d.Pos}
		y := vars[k]
		atLeast := &Formula{Hard: true, Pos: d.Pos, Text: fmt.Sprintf("functional argument %d of %s: at least one", k+1, d)}
		atLeast.F = &Quant{Exist: true, Vars: []string{y.Name}, Body: &Atom{Pred: d.Name, Args: vars, P: d.Pos}, P: d.Pos}
		atMost := &Formula{Hard: true, Pos: d.Pos, Text: fmt.Sprintf("functional argument %d of %s: at most one", k+1, d)}
		atMost.F = &Binary{Op: "v", P: d.Pos,
			X: &Binary{Op: "v", P: d.Pos, X: &Not{X: &Atom{Pred: d.Name, Args: vars, P: d.Pos}, P: d.Pos}, Y: &Not{X: &Atom{Pred: d.Name, Args: other, P: d.Pos}, P: d.Pos}},
			Y: &Eq{L: y, R: other[k], P: d.Pos}}
		for _, f := range []*Formula{atLeast, atMost} {
			vt, err := varTypes(prog, f.F)
			if err != nil {
				return err
			}
			if err := net.addClauses(prog, f, f.F, vt, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// groundUnitsHold checks the hard clauses of one positive literal whose
// atom has no variable (Qb(Ann).) against the evidence: the grounder
// grounds such a clause over its atom's rows, so an atom of a closed
// predicate that the evidence leaves out (false) gave no ground clause
// at all, and the clause was silently dropped. One the evidence makes
// false is an InfeasibleError, as the clauses with variables give,
// described as they are (decided).
func (net *Network) groundUnitsHold() error {
	e := &InfeasibleError{}
	closed := map[string]string{}
	for _, r := range net.Model.Rules {
		if r.Weighted || r.Logical == nil {
			continue
		}
		joins, err := ground.ClauseJoins(net.Model, net.Store, r)
		if err != nil || len(joins) != 1 {
			continue
		}
		q := joins[0].Query
		if len(q.Atoms) != 1 || q.Vars != 0 || q.Atoms[0].Neg || !q.Atoms[0].Pred.Closed {
			continue
		}
		qa := q.Atoms[0]
		ids := make([]int32, len(qa.Args))
		for i, t := range qa.Args {
			ids[i] = t.Const
		}
		t := net.Store.Table(qa.Pred)
		row := -1 // absent (a constant the store has never seen, -1, too)
		if r, ok := t.Find(ids); ok {
			row = r
		}
		if row < 0 || t.Kind(row) == store.Observed && t.Value(row) == 0 {
			e.Clauses = append(e.Clauses, net.decided(q, nil, nil, []int32{int32(row)}, closed)+"   from "+r.Text)
		}
	}
	if len(e.Clauses) == 0 {
		return nil
	}
	e.Closed = closedList(closed)
	return e
}
