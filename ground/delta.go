package ground

import (
	"errors"
	"fmt"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// A ClauseJoin enumerates the groundings of one CNF clause of a logical rule
// over a store that may grow between calls: all of them (All), or only those
// in which one given atom takes the place of one of the clause's atoms
// (From, a delta join). Lazy inference grounds this way (Markov
// logic's LazySAT, package mln): it keeps the values of a world in the
// store's target rows, adds atoms to the store as they come into play, and,
// when an atom becomes true, asks which ground clauses that atom completes,
// instead of grounding every clause over every atom.
//
// The joins are the grounder's (the same planning, indexes and checks), with
// one difference: a binding atom (an atom the clause negates, or the single
// atom of a prior) takes part through its current value whatever its kind,
// so a target row whose value makes the literal true (0 for a negated atom,
// 1 for a prior) is skipped, as an observed one is. A grounding is thus a
// substitution of the clause's variables under which
//
//   - every binding atom is in the store, with a value that does not make
//     its literal true (for a negated atom: a value above 0);
//   - no other atom (a positive literal) is observed with the value 1;
//   - no comparison literal is true.
//
// A negated atom that is not in the store is false, so a ground clause that
// negates it is satisfied: it is never enumerated. Non-binding atoms may be
// absent, and targets among them count whatever their values.
//
// A ClauseJoin is not safe for concurrent use, and the store must not change
// during a call (between calls it may: rows added to a table keep its
// indexes up to date, see store.SubIndex).
type ClauseJoin struct {
	// Query describes the clause as a Joiner sees it: its atoms (an
	// emitted row slice is indexed like Query.Atoms) and comparisons.
	Query *ClauseQuery
	// Names are the clause's variables by number (QueryTerm.Var).
	Names []string

	g      *Grounder
	rule   *model.Rule
	clause model.Clause
	never  bool          // a constant comparison makes every grounding true, or a binding atom names an unknown constant
	seeded []*clausePlan // by atom: the join that starts from it
	work   []*joinWorker // by atom: the reused worker of seeded
	emit   func(vals, rows []int32) error
}

// ClauseJoins compiles every CNF clause of logical rule r (resolved against
// m) for delta joins over s, whose model must be m.
func ClauseJoins(m *model.Model, s *store.Store, r *model.Rule) ([]*ClauseJoin, error) {
	if m == nil || s == nil || r == nil {
		return nil, errors.New("ground: nil model, store or rule")
	}
	if s.Model != m {
		return nil, errors.New("ground: the store was built for a different model")
	}
	if r.Logical == nil {
		return nil, ruleError(r, errors.New("delta joins take logical rules only"))
	}
	for _, a := range r.Atoms() {
		p := a.Pred
		switch {
		case p == nil:
			return nil, ruleError(r, fmt.Errorf("atom %s is not resolved to a predicate", a.PredName))
		case p.Index < 0 || p.Index >= len(m.Predicates) || m.Predicates[p.Index] != p:
			return nil, ruleError(r, fmt.Errorf("predicate %s is not one of the model's", p.Name))
		case p.Arity > 32:
			return nil, ruleError(r, fmt.Errorf("predicate %s has arity %d; grounding supports at most 32 arguments", p.Name, p.Arity))
		}
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	clauses, err := model.Clauses(r.Logical)
	if err != nil {
		return nil, ruleError(r, err)
	}
	// A grounder without variable numbering: patom.varOf stays nil, so the
	// joins ask the tables for each row's kind (rows are added later).
	g := &Grounder{m: m, s: s, threads: 1, tables: make([]*store.Table, len(m.Predicates)), varOf: make([][]int32, len(m.Predicates))}
	for i, p := range m.Predicates {
		g.tables[i] = s.Table(p)
	}
	out := make([]*ClauseJoin, 0, len(clauses))
	for _, c := range clauses {
		p, binding, _ := g.compileClause(r, c)
		j := &ClauseJoin{Query: p.query(r), Names: p.names, g: g, rule: r, clause: c, never: p.never}
		j.seeded = make([]*clausePlan, len(p.atoms))
		j.work = make([]*joinWorker, len(p.atoms))
		for _, ai := range binding {
			if p.atoms[ai].missing {
				j.never = true
			}
		}
		if !j.never {
			for ai := range p.atoms {
				sp := g.planClauseFrom(r, c, ai, true)
				j.seeded[ai] = sp
				w := newJoinWorker(&sp.joinPlan)
				w.cp = sp
				w.emit = func() {
					if err := j.emit(w.val, w.row); err != nil {
						w.err = err
					}
				}
				j.work[ai] = w
			}
		}
		out = append(out, j)
	}
	return out, nil
}

// Never reports whether the clause has no grounding to give whatever the
// store holds: a comparison between constants makes every grounding true,
// or a binding atom names a constant the store has never seen (All and
// From then emit nothing).
func (j *ClauseJoin) Never() bool { return j.never }

// All calls emit once per grounding of the clause (see ClauseJoin) over the
// store as it is now, the join planned afresh: vals[k] is the store.Dict id
// of variable k (QueryTerm.Var), rows[i] the row of atom i in its
// predicate's table, or -1 for a non-binding atom that is not in the store.
// vals and rows are only valid during the call. An error from emit stops
// the join and is returned.
func (j *ClauseJoin) All(emit func(vals, rows []int32) error) error {
	if j.never {
		return nil
	}
	p := j.g.planClauseFrom(j.rule, j.clause, -1, true)
	if p.never {
		return nil
	}
	w := newJoinWorker(&p.joinPlan)
	w.cp = p
	w.emit = func() {
		if err := emit(w.val, w.row); err != nil {
			w.err = err
		}
	}
	if err := w.join(0, p.items()); err != nil {
		return err
	}
	return w.err
}

// From calls emit (as All does) once per grounding of the clause in which
// atom atom (an index into Query.Atoms) is row row of its predicate's
// table: the delta join of that atom. For a binding atom, set the row's
// value first (a negated atom at 0 completes nothing); a non-binding atom
// (a positive literal) may have any value unless observed at 1. It is an
// error for atom not to be an atom of the clause or row not to be a row of
// its table.
func (j *ClauseJoin) From(atom int, row int32, emit func(vals, rows []int32) error) error {
	if atom < 0 || atom >= len(j.Query.Atoms) {
		return fmt.Errorf("ground: the clause has no atom %d", atom)
	}
	if j.never {
		return nil
	}
	p := j.seeded[atom]
	a := &p.atoms[atom]
	if row < 0 || int(row) >= a.tab.Len() {
		return fmt.Errorf("ground: row %d of %s, which has %d", row, a.tab.Pred.Name, a.tab.Len())
	}
	if p.never || !j.Query.Atoms[atom].Binding && a.observed(row) && a.tab.Value(int(row)) == 1 {
		return nil // a positive literal observed true satisfies every grounding
	}
	for k, x := range a.args {
		if x.kind == argConst && a.tab.Arg(int(row), k) != x.v {
			return nil // the row does not match the atom's constants
		}
	}
	w := j.work[atom]
	j.emit, w.err = emit, nil
	defer func() { j.emit = nil }()
	if !w.check(&p.pre) {
		return nil
	}
	w.try(0, row)
	return w.err
}
