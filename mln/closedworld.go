package mln

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// closedWhy says why predicate p is closed-world, "" when it is open:
// Tuffy's '*' in the program, or Alchemy's convention that a predicate
// neither queried nor opened is closed.
func (net *Network) closedWhy(p *model.Predicate) string {
	if !p.Closed || IsDomainPredicate(p.Name) {
		return ""
	}
	if d := net.prog.Pred(p.Name); d != nil && d.Closed {
		return fmt.Sprintf("%s is closed-world ('*' in the program)", p.Name)
	}
	return fmt.Sprintf("%s is closed-world by default (neither queried nor opened, so its atoms the evidence does not list are false): -o %s (or -q %s) opens it", p.Name, p.Name, p.Name)
}

// decided describes a ground clause of query q whose every literal the
// evidence decides false: the ground clause with its substitution (names
// take vals), and for each literal why it is false (its atom in the
// evidence, or absent from a closed-world predicate). closed collects the
// reasons of the closed-world predicates involved.
func (net *Network) decided(q *ground.ClauseQuery, names []string, vals, rows []int32, closed map[string]string) string {
	d := net.Store.Dict
	var lits, sub, why []string
	for i, qa := range q.Atoms {
		if IsDomainPredicate(qa.Pred.Name) {
			continue
		}
		args := make([]string, len(qa.Args))
		for k, t := range qa.Args {
			switch {
			case t.Var >= 0:
				args[k] = d.Name(vals[t.Var])
			case t.Const >= 0:
				args[k] = d.Name(t.Const)
			default:
				args[k] = "?"
			}
		}
		atom := AtomString(qa.Pred.Name, args)
		lit := atom
		if qa.Neg {
			lit = "!" + atom
		}
		lits = append(lits, lit)
		row := int(rows[i])
		switch {
		case row >= 0 && net.Store.Table(qa.Pred).Kind(row) == store.Observed:
			v := net.Store.Table(qa.Pred).Value(row)
			why = append(why, fmt.Sprintf("%s is %s in the evidence", atom, map[bool]string{true: "true", false: "false"}[v == 1]))
		case row < 0:
			why = append(why, atom+" is false, absent from the evidence")
			if c := net.closedWhy(qa.Pred); c != "" {
				closed[qa.Pred.Name] = c
			}
		}
	}
	for i, n := range names {
		sub = append(sub, n+"="+d.Name(vals[i]))
	}
	text := strings.Join(lits, " v ")
	if len(sub) > 0 {
		text += "   (" + strings.Join(sub, ", ") + ")"
	}
	if len(why) > 0 {
		text += ": " + strings.Join(why, "; ")
	}
	return text
}

// emptyGrounding finds a grounding of rule r (a hard clause) that the
// evidence decides false in every literal and describes it (decided); ok is
// false when there is none or the joins fail.
func (net *Network) emptyGrounding(r *model.Rule, closed map[string]string) (text string, ok bool) {
	if r.Logical == nil {
		return "", false
	}
	joins, err := ground.ClauseJoins(net.Model, net.Store, r)
	if err != nil {
		return "", false
	}
	found := fmt.Errorf("found")
	for _, j := range joins {
		err := j.All(func(vals, rows []int32) error {
			for i, qa := range j.Query.Atoms {
				row := int(rows[i])
				if row >= 0 && net.Store.Table(qa.Pred).Kind(row) != store.Observed {
					return nil // an unknown atom: not decided
				}
				x := 0.0
				if row >= 0 {
					x = net.Store.Table(qa.Pred).Value(row)
				}
				if qa.Neg {
					x = 1 - x
				}
				if x != 0 {
					return nil // a true literal
				}
			}
			text = net.decided(j.Query, j.Names, slices.Clone(vals), slices.Clone(rows), closed)
			return found
		})
		if err == found {
			return text, true
		}
	}
	return "", false
}

// ClosedNotes says, for each query predicate whose unknown atoms all come
// out false (a value below 0.001 in values, one per variable of g: a MAP
// world or marginals), which closed-world-by-default predicates that share
// a formula with it have no true atom in the evidence, and so are false
// everywhere, which a user who forgot to open them would not see.
func (net *Network) ClosedNotes(g *ground.Result, values []float64) []string {
	anyTrue := map[*model.Predicate]bool{}
	counted := map[*model.Predicate]bool{}
	for v, ref := range g.Vars {
		if net.Query[ref.Pred.Index] {
			counted[ref.Pred] = true
			anyTrue[ref.Pred] = anyTrue[ref.Pred] || values[v] >= 1e-3
		}
	}
	var notes []string
	for _, q := range net.Model.Predicates {
		if !counted[q] || anyTrue[q] {
			continue
		}
		var why []string
		seen := map[*model.Predicate]bool{}
		for i, r := range net.Model.Rules {
			atoms := r.Atoms()
			text := r.Text
			if i < len(net.Clauses) && net.Clauses[i].Formula != nil {
				text = net.Clauses[i].Formula.Text // as written, not its clause
			}
			if !slices.ContainsFunc(atoms, func(a *model.Atom) bool { return a.Pred == q }) {
				continue
			}
			for _, a := range atoms {
				p := a.Pred
				if seen[p] || p == q || net.prog.Pred(p.Name) == nil || net.prog.Pred(p.Name).Closed || net.closedWhy(p) == "" || net.hasTrue(p) {
					continue
				}
				seen[p] = true
				why = append(why, fmt.Sprintf("%s, in %s, is closed-world by default and no atom of it is true in the evidence, so it is false everywhere (-o %s opens it)", p.Name, strings.TrimSpace(text), p.Name))
			}
		}
		if len(why) > 0 {
			notes = append(notes, fmt.Sprintf("every unknown atom of %s came out false; %s", q.Name, strings.Join(why, "; ")))
		}
	}
	return notes
}

// hasTrue reports whether predicate p has a true atom in the store.
func (net *Network) hasTrue(p *model.Predicate) bool {
	t := net.Store.Table(p)
	for row := range t.Len() {
		if t.Kind(row) == store.Observed && t.Value(row) > 0 {
			return true
		}
	}
	return false
}
