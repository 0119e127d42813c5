package mln

import "github.com/hinge-srl/hinge/model"

// WeightedClause is one clause of a formula with its share of the
// formula's weight (Share times the formula's weight is the clause's
// weight; Share is negative for the gathered clause of a conjunction).
type WeightedClause struct {
	Clause model.Clause
	Share  float64
}

// FormulaClauses turns a formula (converted to hinge's formula type,
// quantifiers expanded) into weighted clauses. A hard formula's clauses
// (model.Clauses) each have share 1: each is hard, which is exactly the
// formula. A soft formula's follow Alchemy's rule for a formula's weight
// (parser/folhelper.h, zzcreateClauses):
//
//   - The formula is put in conjunctive normal form by plain distribution
//     (model.CNF), and duplicate literals within a clause are removed.
//   - The clauses of two or more literals are kept. The unit clauses are
//     gathered into ONE clause, the disjunction of their negations, which
//     takes the negated share: a conjunction of literals l1 ^ ... ^ lk of
//     weight w becomes !l1 v ... v !lk of weight -w, which is
//     exp(w [l1 ^ ... ^ lk]) up to a constant, exactly the formula's
//     factor. A single unit clause is kept as it is.
//   - The weight is divided equally among the clauses so made (the
//     gathered clause counting once), tautologies included: a clause that
//     is always true takes its share and is then dropped, so its share is
//     lost, as in Alchemy.
//
// Where a formula's CNF has one clause, or is a conjunction of literals,
// the clauses give exactly the formula's factor exp(w [formula]). Where it
// has several clauses of two or more literals (an equivalence, or a
// conjunction beside a disjunction), the sum of their shares is not the
// formula's factor but an approximation of it, which is Alchemy's (and
// Tuffy's) semantics of such a formula.
//
// The result holds the clauses that are not tautologies, in CNF order with
// the gathered clause last.
func FormulaClauses(f model.Formula, hard bool) ([]WeightedClause, error) {
	if hard {
		cs, err := model.Clauses(f)
		out := make([]WeightedClause, len(cs))
		for i, c := range cs {
			out[i] = WeightedClause{Clause: c, Share: 1}
		}
		return out, err
	}
	cs, err := model.CNF(f)
	if err != nil {
		return nil, err
	}
	var multi []model.Clause
	var units model.Clause
	unitSeen := map[string]bool{}
	for _, c := range cs {
		c = dedupLiterals(c)
		if len(c) == 1 {
			if k := literalKey(c[0]); !unitSeen[k] {
				unitSeen[k] = true
				units = append(units, c[0])
			}
			continue
		}
		multi = append(multi, c)
	}
	n := len(multi)
	if len(units) > 0 {
		n++
	}
	if n == 0 {
		return nil, nil
	}
	var out []WeightedClause
	share := 1 / float64(n)
	for _, c := range multi {
		if !model.Tautology(c) {
			out = append(out, WeightedClause{Clause: c, Share: share})
		}
	}
	switch len(units) {
	case 0:
	case 1:
		out = append(out, WeightedClause{Clause: units, Share: share})
	default:
		g := make(model.Clause, len(units))
		for i, l := range units {
			l.Neg = !l.Neg
			g[i] = l
		}
		if !model.Tautology(g) {
			out = append(out, WeightedClause{Clause: g, Share: -share})
		}
	}
	return out, nil
}

// dedupLiterals returns c without repeated literals (the same atom or
// comparison with the same sign), as Alchemy's removeRedundantPredicates
// does, so that P v P counts as a unit clause. c itself is not modified
// (clauses from model.CNF may share arrays).
func dedupLiterals(c model.Clause) model.Clause {
	if len(c) < 2 {
		return c
	}
	seen := make(map[string]bool, len(c))
	var out model.Clause
	for i, l := range c {
		k := literalKey(l)
		if seen[k] {
			if out == nil {
				out = append(make(model.Clause, 0, len(c)), c[:i]...)
			}
			continue
		}
		seen[k] = true
		if out != nil {
			out = append(out, l)
		}
	}
	if out == nil {
		return c
	}
	return out
}

// literalKey names a literal: its sign and what it refers to
// (model.TargetKey).
func literalKey(l model.Literal) string {
	if l.Neg {
		return "!" + model.TargetKey(l)
	}
	return model.TargetKey(l)
}
