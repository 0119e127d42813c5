package ground

import (
	"errors"
	"fmt"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
)

// A Joiner enumerates the substitutions of rules outside the grounder, for
// example as SQL joins inside a database (package store/pgstore); the
// grounder turns what it returns into ground potentials exactly as it turns
// its own joins' substitutions, so a Joiner's ground problem equals the
// in-memory one.
type Joiner interface {
	// JoinClause calls emit once per substitution of the clause: rows[i]
	// is the row of q.Atoms[i] in its predicate's table (store.Table, the
	// observed and target atoms), or -1 when a non-binding atom is absent.
	// It must return every substitution under which all binding atoms are
	// present and the ground clause is not satisfied by an observed
	// literal or a comparison (see ClauseQuery); it may also return some
	// of those the grounder would skip, which the grounder drops. rows is
	// only valid during the call. An error from emit must be returned.
	JoinClause(q *ClauseQuery, emit func(rows []int32) error) error
	// JoinVars calls emit once per distinct substitution of the query's
	// variables under which every atom is present (observed or a target,
	// any value; Neg, Binding and Cmps do not apply): vals[k] is the
	// store.Dict id of variable k. Free terms match any value. vals is
	// only valid during the call. An error from emit must be returned.
	JoinVars(q *ClauseQuery, emit func(vals []int32) error) error
}

// ClauseQuery is one CNF clause of a logical rule (JoinClause), or the
// atoms of an arithmetic rule (JoinVars), compiled against the store, as a
// Joiner sees it.
type ClauseQuery struct {
	Rule *model.Rule
	// Atoms are the clause's atoms. A substitution needs every Binding
	// atom present; a non-binding atom (a positive literal) may be absent.
	Atoms []QueryAtom
	// Cmps are the clause's comparisons between a variable and a term; a
	// substitution under which one of them is true satisfies the clause
	// and is skipped (comparisons of two constants are decided already).
	Cmps []QueryCmp
	// Vars is the number of variables (QueryTerm.Var is in [0, Vars)).
	Vars int
	// NeedTarget is set for a weighted rule, whose ground clauses without
	// a target atom are dropped: a Joiner may skip substitutions under
	// which every atom is observed or absent.
	NeedTarget bool
}

// QueryAtom is an atom of a ClauseQuery.
type QueryAtom struct {
	Pred *model.Predicate
	Args []QueryTerm
	// Neg says the clause negates the atom: the literal is 1 - value.
	Neg bool
	// Binding atoms must be present (an inner join); a substitution whose
	// binding atom is observed with the value that makes its literal true
	// (0 when negated, 1 otherwise) is skipped. A non-binding atom observed
	// at 1 also makes the substitution skipped.
	Binding bool
}

// QueryTerm is a variable (Var >= 0), a constant (Var = -1, Const the
// constant's store.Dict id, or -1 for a constant the dictionary does not
// have, which matches no atom and differs from every constant), or, when
// Free, a summation variable, which takes no part in a JoinVars join.
type QueryTerm struct {
	Var   int32
	Const int32
	Free  bool
}

// QueryCmp is a comparison literal of a ClauseQuery: Left Op Right, negated
// when Neg (a comparison in the rule's body). The literal is true, and the
// substitution skipped, when the comparison's truth differs from Neg.
type QueryCmp struct {
	Op          model.CmpOp
	Left, Right QueryTerm
	Neg         bool
}

// JoinError is an error of a Joiner (a lost database connection, say), as
// opposed to an error in the rules or data.
type JoinError struct {
	Err error
}

func (e *JoinError) Error() string { return e.Err.Error() }

// Unwrap returns the Joiner's error.
func (e *JoinError) Unwrap() error { return e.Err }

// query describes the clause for a Joiner.
func (p *clausePlan) query(r *model.Rule) *ClauseQuery {
	operand := func(o operand) QueryTerm {
		if o.slot >= 0 {
			return QueryTerm{Var: o.slot, Const: -1}
		}
		return QueryTerm{Var: -1, Const: o.id}
	}
	q := &ClauseQuery{Rule: r, Vars: p.nslots, NeedTarget: !p.hard}
	q.Atoms = queryAtoms(p.atoms)
	for _, c := range p.cmps {
		if !c.constant() {
			q.Cmps = append(q.Cmps, QueryCmp{Op: c.op, Left: operand(c.l), Right: operand(c.r), Neg: c.neg})
		}
	}
	return q
}

// queryAtoms describes compiled atoms for a Joiner.
func queryAtoms(atoms []patom) []QueryAtom {
	out := make([]QueryAtom, len(atoms))
	for i := range atoms {
		a := &atoms[i]
		qa := QueryAtom{Pred: a.tab.Pred, Neg: a.neg, Binding: a.skipTrue, Args: make([]QueryTerm, len(a.args))}
		for k, x := range a.args {
			switch x.kind {
			case argVar:
				qa.Args[k] = QueryTerm{Var: x.v, Const: -1}
			case argSum:
				qa.Args[k] = QueryTerm{Var: -1, Const: -1, Free: true}
			case argConst:
				qa.Args[k] = QueryTerm{Var: -1, Const: x.v}
			default:
				qa.Args[k] = QueryTerm{Var: -1, Const: -1}
			}
		}
		out[i] = qa
	}
	return out
}

// joinVars collects the substitutions of the plain variables of an
// arithmetic rule from the Joiner (planArith's binding join).
func (p *arithPlan) joinVars(r *model.Rule) error {
	q := &ClauseQuery{Rule: r, Atoms: queryAtoms(p.atoms), Vars: p.nplain}
	n := p.g.s.Dict.Len()
	err := p.g.joiner.JoinVars(q, func(vals []int32) error {
		if len(vals) != p.nplain {
			return &badRows{fmt.Sprintf("%d values for %d variables", len(vals), p.nplain)}
		}
		for _, v := range vals {
			if v < 0 || int(v) >= n {
				return &badRows{fmt.Sprintf("constant id %d, not in the dictionary", v)}
			}
		}
		p.subs = append(p.subs, vals...)
		p.nsubs++
		return nil
	})
	if err != nil {
		var bad *badRows
		if !errors.As(err, &bad) {
			err = &JoinError{Err: err}
		}
	}
	return err
}

// groundJoined grounds logical rule r through g.joiner into dst and
// returns the number of constant-violated constraints.
func (g *Grounder) groundJoined(r *model.Rule, dst *hlmrf.Problem) (int, error) {
	clauses, err := model.Clauses(r.Logical)
	if err != nil {
		return 0, ruleError(r, err)
	}
	viol := 0
	for k, c := range clauses {
		p, _, _ := g.compileClause(r, c)
		if !p.never {
			w := newJoinWorker(&p.joinPlan)
			w.cp, w.out, w.sink = p, dst, g.sink
			if err := g.joiner.JoinClause(p.query(r), w.emitRows); err != nil {
				var bad *badRows
				var se *SinkError
				if !errors.As(err, &bad) && !errors.As(err, &se) {
					err = &JoinError{Err: err}
				}
				return 0, ruleError(r, err)
			}
			viol += w.viol
		}
		if g.prog != nil {
			g.prog(r.Index, k+1, len(clauses))
		}
	}
	if len(clauses) == 0 && g.prog != nil {
		g.prog(r.Index, 0, 0)
	}
	return viol, nil
}

// badRows is a Joiner's substitution that does not fit its query.
type badRows struct{ msg string }

func (e *badRows) Error() string { return "ground: the joiner returned " + e.msg }

// emitRows checks a substitution from a Joiner, binds the clause's
// variables from its binding atoms' rows, skips it when an observed literal
// or a comparison is true (as the in-memory join does), and otherwise emits
// its ground clause (emitClause, the in-memory join's emitter).
func (w *joinWorker) emitRows(rows []int32) error {
	p := w.cp
	if w.steps++; w.steps%cancelEvery == 0 {
		if err := p.g.cancelled(); err != nil {
			return err
		}
	}
	if len(rows) != len(p.atoms) {
		return &badRows{fmt.Sprintf("%d rows for a clause of %d atoms", len(rows), len(p.atoms))}
	}
	for i := range p.atoms {
		a := &p.atoms[i]
		r := rows[i]
		if r == -1 && !a.skipTrue {
			continue
		}
		if r < 0 || int(r) >= a.tab.Len() {
			return &badRows{fmt.Sprintf("row %d of %s, which has %d", r, a.tab.Pred.Name, a.tab.Len())}
		}
		if a.skipTrue {
			for k, x := range a.args {
				if x.kind == argVar {
					w.val[x.v] = a.tab.Arg(int(r), k)
				}
			}
		}
	}
	for i := range p.atoms {
		a := &p.atoms[i]
		r := rows[i]
		w.row[i] = r
		if r < 0 {
			continue
		}
		if !argsMatch(a, w.val, a.tab.Args(int(r))) {
			return &badRows{fmt.Sprintf("a row of %s that does not match the clause's atom", a.tab.Pred.Name)}
		}
		if a.varOf[r] < 0 {
			if v := a.tab.Value(int(r)); a.neg && v == 0 || !a.neg && v == 1 {
				return nil // the literal is true: the ground clause is satisfied
			}
		}
	}
	for i := range p.cmps {
		if p.cmps[i].literalTrue(w.val, p.g.s.Dict) {
			return nil
		}
	}
	w.emitClause()
	if w.sink != nil && w.out.NumPotentials()+w.out.NumConstraints() >= sinkFlush {
		if err := w.sink.Add(w.out); err != nil {
			return err
		}
		w.out.Reset()
	}
	return nil
}

// argsMatch reports whether args are a's arguments under the
// substitution val.
func argsMatch(a *patom, val []int32, args []int32) bool {
	for k, x := range a.args {
		want := x.v
		switch x.kind {
		case argMissing:
			return false
		case argVar, argSum:
			want = val[x.v]
		}
		if args[k] != want {
			return false
		}
	}
	return true
}
