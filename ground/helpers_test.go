package ground

import (
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// Terse builders for hand-made models. Terms: "X" a variable, "'x'" a
// constant, "+X" a summation variable.

func term(s string) model.Term {
	switch {
	case strings.HasPrefix(s, "'"):
		return model.Const(strings.Trim(s, "'"))
	case strings.HasPrefix(s, "+"):
		return model.SumVar(s[1:])
	}
	return model.Var(s)
}

func at(p *model.Predicate, args ...string) *model.Atom {
	ts := make([]model.Term, len(args))
	for i, a := range args {
		ts[i] = term(a)
	}
	return model.NewAtom(p, ts...)
}

func not(f model.Formula) model.Formula { return &model.Not{X: f} }
func and(fs ...model.Formula) model.Formula {
	return &model.And{Args: fs}
}
func or(fs ...model.Formula) model.Formula { return &model.Or{Args: fs} }
func imp(b, h model.Formula) model.Formula { return &model.Implies{Body: b, Head: h} }
func cmp(op model.CmpOp, a, b string) model.Formula {
	return &model.Comparison{Op: op, Left: term(a), Right: term(b)}
}

// Coefficients.
func num(v float64) model.Coefficient { return &model.Number{Value: v} }
func card(v string) model.Coefficient { return &model.Cardinality{Var: v} }
func bin(op byte, a, b model.Coefficient) model.Coefficient {
	return &model.CoefBinary{Op: op, A: a, B: b}
}
func cmax(a, b model.Coefficient) model.Coefficient { return &model.CoefFunc{Max: true, A: a, B: b} }
func cmin(a, b model.Coefficient) model.Coefficient { return &model.CoefFunc{A: a, B: b} }

func sa(c model.Coefficient, a *model.Atom) model.Summand { return model.Summand{Coef: c, Atom: a} }
func sc(v float64) model.Summand                          { return model.Summand{Coef: num(v)} }

// weighted returns a weighted logical rule; hard a hard one.
func weighted(w float64, squared bool, f model.Formula) *model.Rule {
	return &model.Rule{Weight: w, Weighted: true, Squared: squared, Logical: f}
}
func hard(f model.Formula) *model.Rule { return &model.Rule{Logical: f} }

func arith(w float64, squared bool, lhs []model.Summand, rel model.Relation, rhs []model.Summand, filters ...model.Filter) *model.Rule {
	return &model.Rule{Weight: w, Weighted: w >= 0, Squared: squared && w >= 0, Arith: &model.Arithmetic{LHS: lhs, RHS: rhs, Rel: rel, Filters: filters}}
}

func filter(v string, f model.Formula) model.Filter { return model.Filter{Var: v, Expr: f} }

// social is a small hand-made data set with observed values in (0,1),
// observed 0 and 1, targets and absent atoms.
type social struct {
	m                                    *model.Model
	s                                    *store.Store
	friend, lives, smokes, cancer, knows *model.Predicate
}

func newSocial(t testing.TB) *social {
	t.Helper()
	m := model.New()
	must := func(p *model.Predicate, err error) *model.Predicate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	x := &social{m: m}
	x.friend = must(m.AddPredicate("Friend", 2, true))
	x.lives = must(m.AddPredicate("Lives", 2, true))
	x.smokes = must(m.AddPredicate("Smokes", 1, false))
	x.cancer = must(m.AddPredicate("Cancer", 1, false))
	x.knows = must(m.AddPredicate("Knows", 2, false))
	x.s = store.New(m)
	obs := func(p *model.Predicate, v float64, args ...string) {
		t.Helper()
		if err := x.s.AddObservation(p, args, v); err != nil {
			t.Fatal(err)
		}
	}
	tgt := func(p *model.Predicate, args ...string) {
		t.Helper()
		if err := x.s.AddTarget(p, args); err != nil {
			t.Fatal(err)
		}
	}
	obs(x.friend, 1, "alice", "bob")
	obs(x.friend, 0.7, "bob", "carol")
	obs(x.friend, 0.3, "carol", "alice")
	obs(x.friend, 0, "alice", "carol")
	obs(x.friend, 1, "dan", "alice")
	obs(x.friend, 0.5, "bob", "bob")
	obs(x.lives, 1, "alice", "paris")
	obs(x.lives, 0.6, "bob", "paris")
	obs(x.lives, 1, "carol", "rome")
	obs(x.lives, 0, "dan", "rome")
	obs(x.smokes, 1, "alice")
	tgt(x.smokes, "bob")
	tgt(x.smokes, "carol")
	obs(x.smokes, 0.4, "dan")
	tgt(x.cancer, "alice")
	tgt(x.cancer, "bob")
	obs(x.cancer, 0, "carol")
	tgt(x.knows, "alice", "bob")
	tgt(x.knows, "bob", "alice")
	tgt(x.knows, "bob", "carol")
	tgt(x.knows, "carol", "dan")
	tgt(x.knows, "alice", "alice")
	obs(x.knows, 1, "carol", "alice")
	obs(x.knows, 0, "dan", "bob")
	obs(x.knows, 0.5, "alice", "carol")
	obs(x.knows, 1, "dan", "carol")
	return x
}

func (x *social) add(t testing.TB, rules ...*model.Rule) {
	t.Helper()
	for _, r := range rules {
		if err := x.m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
}
