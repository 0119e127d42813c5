package explain

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// A Recoverer finds the substitution behind each ground potential and hard
// constraint of a ground problem: the grounder does not record them, so it
// enumerates the groundings of each logical rule's clauses again, through
// the grounder's own joins (ground.ClauseJoin), computes the potential each
// grounding gives, as the grounder computes it, and matches it to the
// problem's potentials of that rule (same variables, coefficients and
// constant). Arithmetic rules have no clause to enumerate: their ground
// rules are shown in their linear form over atom names.
//
// The joins read the store's current values of target atoms (see
// ground.ClauseJoin), so while a Recoverer enumerates it sets every target
// row's value to 0.5, which makes the joins skip no target, and puts the
// values back before returning. The store must not be used by anything
// else meanwhile.
type Recoverer struct {
	// Context, when set, stops All and Of once it is done (they return
	// its error).
	Context context.Context

	m *model.Model
	s *store.Store
	g *ground.Result
	p *hlmrf.Problem

	clauses [][]*clauseInfo // by rule index; nil for arithmetic rules
	// byVar lists the potentials (then constraints, numbered after the
	// potentials) in which each variable occurs (CSR).
	byVarStart []int64
	byVar      []int32
	steps      int
}

// clauseInfo is one CNF clause of a logical rule compiled for delta joins.
type clauseInfo struct {
	rule  *model.Rule
	index int // clause number within the rule
	join  *ground.ClauseJoin
	lits  []model.Literal // the clause's atom literals, as join.Query.Atoms
	role  []string        // per atom: "body", "head" or ""
}

// Grounding is one ground rule: the rule, which CNF clause of it, and the
// substitution of the clause's variables (Names[i] takes Values[i]).
type Grounding struct {
	Rule *model.Rule
	// Clause is the CNF clause's number in the rule, of Clauses (a rule
	// such as A -> B & C has two, each its own ground rule).
	Clause, Clauses int
	Names           []string
	Values          []string
	// Atoms are the clause's atoms under the substitution, in the
	// clause's order, with their literal's sign (Neg: the clause negates
	// the atom), where the atom sits in the rule (Role: body, head or
	// empty) and its variable column in the ground problem (-1 for an
	// observed or absent atom, whose value is Value).
	Atoms []GroundAtom
}

// GroundAtom is an atom of a ground rule.
type GroundAtom struct {
	Atom  Atom
	Neg   bool
	Role  string
	Var   int32
	Value float64 // the observed value (0 for an absent atom); for a target, filled by the caller
}

// NewRecoverer prepares to recover the groundings of g, grounded from m over
// s (ground.Ground(m, s, ...)). It compiles every logical rule's clauses
// for delta joins and indexes the problem's terms by variable.
func NewRecoverer(m *model.Model, s *store.Store, g *ground.Result) (*Recoverer, error) {
	if m == nil || s == nil || g == nil || g.Problem == nil {
		return nil, errors.New("explain: nil model, store or ground result")
	}
	p := g.Problem
	r := &Recoverer{m: m, s: s, g: g, p: p, clauses: make([][]*clauseInfo, len(m.Rules))}
	for _, rule := range m.Rules {
		if rule.Logical == nil {
			continue
		}
		joins, err := ground.ClauseJoins(m, s, rule)
		if err != nil {
			return nil, err
		}
		cls, err := model.Clauses(rule.Logical)
		if err != nil {
			return nil, err
		}
		if len(cls) != len(joins) {
			return nil, fmt.Errorf("explain: rule %d has %d clauses but %d joins", rule.Index, len(cls), len(joins))
		}
		roles := atomRoles(rule.Logical)
		for k, c := range cls {
			ci := &clauseInfo{rule: rule, index: k, join: joins[k]}
			for _, l := range c {
				if l.Atom != nil {
					ci.lits = append(ci.lits, l)
					ci.role = append(ci.role, roles[l.Atom])
				}
			}
			if len(ci.lits) != len(ci.join.Query.Atoms) {
				return nil, fmt.Errorf("explain: rule %d clause %d has %d atoms but its join %d", rule.Index, k, len(ci.lits), len(ci.join.Query.Atoms))
			}
			r.clauses[rule.Index] = append(r.clauses[rule.Index], ci)
		}
	}
	// Variable -> terms.
	np := p.NumPotentials()
	count := make([]int64, p.NumVars+1)
	for _, v := range p.Var {
		count[v+1]++
	}
	for _, v := range p.CVar {
		count[v+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	r.byVarStart = slices.Clone(count)
	r.byVar = make([]int32, count[len(count)-1])
	next := count[:len(count)-1]
	for i := range np {
		vs, _ := p.Terms(i)
		for _, v := range vs {
			r.byVar[next[v]] = int32(i)
			next[v]++
		}
	}
	for j := range p.NumConstraints() {
		vs, _ := p.CTerms(j)
		for _, v := range vs {
			r.byVar[next[v]] = int32(np + j)
			next[v]++
		}
	}
	return r, nil
}

// atomRoles maps each atom of a logical formula to where it sits: "body"
// (in an implication's body), "head" (in its head) or "" (a formula that is
// no implication, such as a prior).
func atomRoles(f model.Formula) map[*model.Atom]string {
	out := map[*model.Atom]string{}
	var walk func(f model.Formula, role string)
	walk = func(f model.Formula, role string) {
		switch x := f.(type) {
		case *model.Atom:
			out[x] = role
		case *model.Not:
			walk(x.X, role)
		case *model.And:
			for _, a := range x.Args {
				walk(a, role)
			}
		case *model.Or:
			for _, a := range x.Args {
				walk(a, role)
			}
		case *model.Implies:
			b, h := "body", "head"
			if role != "" {
				b, h = role, role
			}
			walk(x.Body, b)
			walk(x.Head, h)
		}
	}
	walk(f, "")
	return out
}

// TermsOf returns the potentials and constraints in which variable v
// occurs: indexes below NumPotentials are potentials, the others
// constraints numbered from NumPotentials.
func (r *Recoverer) TermsOf(v int) []int32 {
	return r.byVar[r.byVarStart[v]:r.byVarStart[v+1]]
}

// termKey identifies a ground term by its rule, variables and
// coefficients (sorted by variable); the constant is compared apart.
func termKey(group int32, hard bool, vars []int32, coefs []float64) string {
	type vc struct {
		v int32
		c float64
	}
	pairs := make([]vc, len(vars))
	for i := range vars {
		pairs[i] = vc{vars[i], coefs[i]}
	}
	slices.SortFunc(pairs, func(a, b vc) int { return int(a.v) - int(b.v) })
	buf := make([]byte, 0, 5+12*len(pairs))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(group))
	if hard {
		buf = append(buf, 1)
	} else {
		buf = append(buf, 0)
	}
	for _, p := range pairs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(p.v))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(p.c))
	}
	return string(buf)
}

// candidates holds ground terms by key, each with its constant, to be
// matched once each.
type candidates map[string][]candidate

type candidate struct {
	term int32 // potential, or NumPotentials + constraint
	c    float64
	used bool
}

func (r *Recoverer) addCandidate(cs candidates, term int32) {
	np := r.p.NumPotentials()
	var key string
	var c float64
	if int(term) < np {
		vs, cf := r.p.Terms(int(term))
		key, c = termKey(r.p.Group[term], false, vs, cf), r.p.Const[term]
	} else {
		j := int(term) - np
		vs, cf := r.p.CTerms(j)
		key, c = termKey(r.p.CGroup[j], true, vs, cf), r.p.CConst[j]
	}
	cs[key] = append(cs[key], candidate{term: term, c: c})
}

// take finds an unused candidate with key and a constant within rounding
// of c, marks it used and returns it (-1 when there is none).
func (cs candidates) take(key string, c float64) int32 {
	list := cs[key]
	best, bestD := -1, math.Inf(1)
	for i := range list {
		if list[i].used {
			continue
		}
		d := math.Abs(list[i].c - c)
		if d <= 1e-9*(1+math.Abs(c)) && d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return -1
	}
	list[best].used = true
	return list[best].term
}

// groundTerm computes the key and constant of the ground term the grounder
// makes from a grounding of clause ci (rows as a ClauseJoin emits them).
func (r *Recoverer) groundTerm(ci *clauseInfo, rows []int32) (string, float64) {
	k := 1.0
	var vars []int32
	var coefs []float64
	for i, qa := range ci.join.Query.Atoms {
		row := rows[i]
		if row < 0 {
			continue
		}
		if v := r.g.VarOf(qa.Pred, int(row)); v >= 0 {
			vars = append(vars, v)
			if qa.Neg {
				k--
				coefs = append(coefs, 1)
			} else {
				coefs = append(coefs, -1)
			}
			continue
		}
		x := r.s.Table(qa.Pred).Value(int(row))
		if qa.Neg {
			k -= 1 - x
		} else {
			k -= x
		}
	}
	// Merge repeated variables as the grounder does.
	n := 0
	for i, v := range vars {
		merged := false
		for q := 0; q < n; q++ {
			if vars[q] == v {
				coefs[q] += coefs[i]
				merged = true
				break
			}
		}
		if !merged {
			vars[n], coefs[n] = v, coefs[i]
			n++
		}
	}
	vars, coefs = vars[:n], coefs[:n]
	m := 0
	for i := range vars {
		if coefs[i] != 0 {
			vars[m], coefs[m] = vars[i], coefs[i]
			m++
		}
	}
	vars, coefs = vars[:m], coefs[:m]
	c := -k
	if c <= 1e-12 && c >= -1e-12 {
		c = 0
	}
	return termKey(int32(ci.rule.Index), !ci.rule.Weighted, vars, coefs), c
}

// withTargetsAt runs f with every target row of the store at value 0.5
// (see Recoverer) and puts the values back afterwards.
func (r *Recoverer) withTargetsAt(f func() error) error {
	type saved struct {
		t   *store.Table
		row int
		v   float64
	}
	var old []saved
	for _, pred := range r.m.Predicates {
		t := r.s.Table(pred)
		for row := range t.Len() {
			if t.Kind(row) == store.Target {
				old = append(old, saved{t, row, t.Value(row)})
				t.SetValue(row, 0.5)
			}
		}
	}
	defer func() {
		for _, o := range old {
			o.t.SetValue(o.row, o.v)
		}
	}()
	return f()
}

// grounding builds the Grounding of a substitution of clause ci.
func (r *Recoverer) grounding(ci *clauseInfo, vals, rows []int32) *Grounding {
	d := r.s.Dict
	gr := &Grounding{Rule: ci.rule, Clause: ci.index, Clauses: len(r.clauses[ci.rule.Index]), Names: ci.join.Names, Values: make([]string, len(vals))}
	for i, id := range vals {
		gr.Values[i] = d.Name(id)
	}
	for i, qa := range ci.join.Query.Atoms {
		ga := GroundAtom{Neg: qa.Neg, Role: ci.role[i], Var: -1, Atom: Atom{Pred: qa.Pred.Name, Args: make([]string, len(qa.Args))}}
		for k, t := range qa.Args {
			switch {
			case t.Var >= 0:
				ga.Atom.Args[k] = d.Name(vals[t.Var])
			case t.Const >= 0:
				ga.Atom.Args[k] = d.Name(t.Const)
			default:
				ga.Atom.Args[k] = ci.lits[i].Atom.Args[k].Name
			}
		}
		if row := rows[i]; row >= 0 {
			ga.Var = r.g.VarOf(qa.Pred, int(row))
			if ga.Var < 0 {
				ga.Value = r.s.Table(qa.Pred).Value(int(row))
			}
		}
		gr.Atoms = append(gr.Atoms, ga)
	}
	return gr
}

// Of returns the groundings of the terms in which variable v occurs, keyed
// by term (TermsOf's numbering). A term of an arithmetic rule, or one no
// grounding matched, is absent from the map.
func (r *Recoverer) Of(v int) (map[int32]*Grounding, error) {
	terms := r.TermsOf(v)
	out := map[int32]*Grounding{}
	if len(terms) == 0 {
		return out, nil
	}
	ref := r.g.Vars[v]
	byRule := make([]candidates, len(r.clauses))
	for _, t := range terms {
		r.addTo(byRule, t)
	}
	err := r.withTargetsAt(func() error {
		for grp, cs := range byRule {
			if cs == nil {
				continue
			}
			for _, ci := range r.clauses[grp] {
				seen := map[string]bool{}
				for ai, qa := range ci.join.Query.Atoms {
					if qa.Pred != ref.Pred {
						continue
					}
					err := ci.join.From(ai, int32(ref.Row), func(vals, rows []int32) error {
						if err := r.tick(); err != nil {
							return err
						}
						sk := valsKey(vals)
						if seen[sk] {
							return nil
						}
						seen[sk] = true
						key, c := r.groundTerm(ci, rows)
						if t := cs.take(key, c); t >= 0 {
							out[t] = r.grounding(ci, vals, rows)
						}
						return nil
					})
					if err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	return out, err
}

// All calls f for every ground term of a logical rule with the grounding
// that made it (term in TermsOf's numbering), rule by rule in model order;
// terms of arithmetic rules and terms no grounding matched are not passed
// (Unmatched counts the latter).
func (r *Recoverer) All(f func(term int32, g *Grounding) error) (unmatched int, err error) {
	byRule := make([]candidates, len(r.clauses))
	for t := range r.p.NumPotentials() + r.p.NumConstraints() {
		r.addTo(byRule, int32(t))
	}
	err = r.withTargetsAt(func() error {
		unmatched, err = r.pass(byRule, func(t int32, ci *clauseInfo, vals, rows []int32) error {
			return f(t, r.grounding(ci, vals, rows))
		})
		return err
	})
	return unmatched, err
}

// many finds the groundings of the terms in which any of vs occurs, in one
// pass over the groundings of the rules those terms belong to (as All, but
// keeping only these terms), which costs less than one join per variable
// (Of) once there are more than a few. It keeps each grounding's
// substitution and rows, and makes a Grounding of it only when asked for
// (foundSet.get).
func (r *Recoverer) many(vs []int) (*foundSet, error) {
	byRule := make([]candidates, len(r.clauses))
	seen := map[int32]bool{}
	for _, v := range vs {
		for _, t := range r.TermsOf(v) {
			if !seen[t] {
				seen[t] = true
				r.addTo(byRule, t)
			}
		}
	}
	f := &foundSet{r: r, at: map[int32]foundRef{}}
	err := r.withTargetsAt(func() error {
		_, err := r.pass(byRule, func(t int32, ci *clauseInfo, vals, rows []int32) error {
			f.at[t] = foundRef{ci: ci, start: len(f.arena), nv: len(vals)}
			f.arena = append(append(f.arena, vals...), rows...)
			return nil
		})
		return err
	})
	return f, err
}

// foundSet holds the groundings found for terms: built ones, or the
// substitution and rows of each, made into a Grounding when asked for.
type foundSet struct {
	r     *Recoverer
	built map[int32]*Grounding
	at    map[int32]foundRef
	arena []int32
}

// foundRef is a grounding of clause ci: its values at arena[start:],
// nv of them, and its rows after them, one per atom of the clause.
type foundRef struct {
	ci    *clauseInfo
	start int
	nv    int
}

// get returns the grounding of term t, nil when none was found.
func (f *foundSet) get(t int32) *Grounding {
	if g, ok := f.built[t]; ok {
		return g
	}
	ref, ok := f.at[t]
	if !ok {
		return nil
	}
	vals := f.arena[ref.start : ref.start+ref.nv]
	rows := f.arena[ref.start+ref.nv : ref.start+ref.nv+len(ref.ci.join.Query.Atoms)]
	return f.r.grounding(ref.ci, vals, rows)
}

// addTo adds term t (TermsOf's numbering) to the candidates of its rule,
// when that is a logical rule.
func (r *Recoverer) addTo(byRule []candidates, t int32) {
	np := r.p.NumPotentials()
	g := int32(-1)
	if int(t) < np {
		g = r.p.Group[t]
	} else {
		g = r.p.CGroup[int(t)-np]
	}
	if g < 0 || int(g) >= len(r.clauses) || r.clauses[g] == nil {
		return
	}
	if byRule[g] == nil {
		byRule[g] = candidates{}
	}
	r.addCandidate(byRule[g], t)
}

// pass enumerates the groundings of every rule with candidates and calls
// f for each candidate a grounding matches, with the grounding's clause,
// values and rows (see All); the caller holds withTargetsAt.
func (r *Recoverer) pass(byRule []candidates, f func(term int32, ci *clauseInfo, vals, rows []int32) error) (unmatched int, err error) {
	for grp, cls := range r.clauses {
		cs := byRule[grp]
		if cs == nil {
			continue
		}
		for _, ci := range cls {
			err := ci.join.All(func(vals, rows []int32) error {
				if err := r.tick(); err != nil {
					return err
				}
				key, c := r.groundTerm(ci, rows)
				if t := cs.take(key, c); t >= 0 {
					return f(t, ci, vals, rows)
				}
				return nil
			})
			if err != nil {
				return unmatched, err
			}
		}
		for _, list := range cs {
			for _, c := range list {
				if !c.used {
					unmatched++
				}
			}
		}
	}
	return unmatched, nil
}

// tick counts a step (a grounding, an explanation) and, every 1024,
// looks at the context.
func (r *Recoverer) tick() error {
	r.steps++
	if r.Context != nil && r.steps%1024 == 0 {
		return r.Context.Err()
	}
	return nil
}

// groundings returns the groundings of the terms in which the variables vs
// occur: by a join per variable (Of) for a few, else in one pass (many).
func (r *Recoverer) groundings(vs []int) (*foundSet, error) {
	if len(vs) >= manyAtOnce {
		return r.many(vs)
	}
	f := &foundSet{r: r, built: map[int32]*Grounding{}}
	for _, v := range vs {
		grs, err := r.Of(v)
		if err != nil {
			return nil, err
		}
		maps.Copy(f.built, grs)
	}
	return f, nil
}

// manyAtOnce is the number of variables from which explaining them goes
// through one pass over their rules' groundings (many) instead of a join
// per variable (Of).
const manyAtOnce = 16

func valsKey(vals []int32) string {
	buf := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	return string(buf)
}

// Substitution writes the grounding's substitution as "X=Bob, Y=Anna".
func (g *Grounding) Substitution() string {
	parts := make([]string, len(g.Names))
	for i, n := range g.Names {
		parts[i] = n + "=" + g.Values[i]
	}
	return strings.Join(parts, ", ")
}

// PSLText writes the ground rule as the user wrote the rule, in PSL
// syntax, with every variable replaced by its constant:
// 0.4: Friends('Anna', 'Bob') & Smokes('Anna') -> Smokes('Bob') ^2. For a
// rule of several clauses it adds which one:
// "1: Close('a', 'b') -> Likes('a', 'b') & Likes('b', 'a')   [clause 2 of 2: ~Close('a', 'b') | Likes('b', 'a')]".
func (g *Grounding) PSLText() string {
	text := g.pslRule()
	if g.Clauses > 1 {
		lits := make([]string, len(g.Atoms))
		for i, a := range g.Atoms {
			lits[i] = pslName(a.Atom)
			if a.Neg {
				lits[i] = "~" + lits[i]
			}
		}
		text += fmt.Sprintf("   [clause %d of %d: %s]", g.Clause+1, g.Clauses, strings.Join(lits, " | "))
	}
	return text
}

// pslRule is the rule with the substitution applied.
func (g *Grounding) pslRule() string {
	sub := make(map[string]string, len(g.Names))
	for i, n := range g.Names {
		sub[n] = g.Values[i]
	}
	cp := *g.Rule
	cp.Logical = substitute(g.Rule.Logical, sub)
	return syntax.Format(&cp)
}

// substitute returns a copy of f with the variables in sub replaced by
// constants.
func substitute(f model.Formula, sub map[string]string) model.Formula {
	term := func(t model.Term) model.Term {
		if t.Kind != model.Constant {
			if c, ok := sub[t.Name]; ok {
				return model.Term{Kind: model.Constant, Name: c, Pos: t.Pos}
			}
		}
		return t
	}
	switch x := f.(type) {
	case *model.Atom:
		cp := *x
		cp.Args = make([]model.Term, len(x.Args))
		for i, t := range x.Args {
			cp.Args[i] = term(t)
		}
		return &cp
	case *model.Comparison:
		cp := *x
		cp.Left, cp.Right = term(x.Left), term(x.Right)
		return &cp
	case *model.Not:
		return &model.Not{X: substitute(x.X, sub), Pos: x.Pos}
	case *model.And:
		args := make([]model.Formula, len(x.Args))
		for i, a := range x.Args {
			args[i] = substitute(a, sub)
		}
		return &model.And{Args: args, Pos: x.Pos}
	case *model.Or:
		args := make([]model.Formula, len(x.Args))
		for i, a := range x.Args {
			args[i] = substitute(a, sub)
		}
		return &model.Or{Args: args, Pos: x.Pos}
	case *model.Implies:
		return &model.Implies{Body: substitute(x.Body, sub), Head: substitute(x.Head, sub), Reversed: x.Reversed, Pos: x.Pos}
	}
	return f
}
