package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// equiv is l <=> r as the Markov logic readers build it: the conjunction of
// both implications, sharing l and r (a DAG, not a tree).
func equiv(l, r Formula) Formula {
	return &And{Args: []Formula{&Implies{Body: l, Head: r}, &Implies{Body: r, Head: l}}}
}

// equivChain is (Cancer <=> (Smokes <=> (Cancer <=> ... ))) with k
// operands, as written out in text: k-1 nested equivalences. With distinct
// set, the operands are P0(X), P1(X), ... instead (their parity, 2^(k-1)
// clauses).
func equivChain(k int, distinct bool) Formula {
	x := Var("X")
	atom := func(i int) Formula {
		switch {
		case distinct:
			return &Atom{PredName: fmt.Sprintf("P%d", i), Args: []Term{x}}
		case i%2 == 0:
			return &Atom{PredName: "Cancer", Args: []Term{x}}
		}
		return &Atom{PredName: "Smokes", Args: []Term{x}}
	}
	f := atom(k - 1)
	for i := k - 2; i >= 0; i-- {
		f = equiv(atom(i), f)
	}
	return f
}

// Nested equivalences share their operands, and their clauses double with
// each level: the clause cap must refuse them after a bounded amount of
// work at any depth (expanding the shared operands into a tree first took
// 2^depth nodes: 209 MB at depth 20, gigabytes at 24). Allocations are
// counted rather than time measured.
func TestClausesNestedEquivalenceBounded(t *testing.T) {
	for _, depth := range []int{20, 40, 200} {
		f := equivChain(depth, false)
		var err error
		allocs := testing.AllocsPerRun(1, func() { _, err = Clauses(f) })
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d clauses", MaxClauses)) {
			t.Fatalf("depth %d: error %v, want the clause cap", depth, err)
		}
		// The cap is reached about 8 levels from the bottom; what comes
		// before it costs a few thousand allocations, whatever the depth.
		if allocs > 20_000 {
			t.Fatalf("depth %d: %.0f allocations before the clause cap refused it, want at most 20000", depth, allocs)
		}
	}
}

// refClauses is the conversion as it was before the bound applied during
// expansion: negation normal form built as a tree, then CNF. Clauses must
// give exactly its clauses, in its order, and refuse what it refused.
func refClauses(f Formula) ([]Clause, error) {
	cs, err := refCNF(refNNF(f, false))
	if err != nil {
		return nil, err
	}
	out := cs[:0]
	for _, c := range cs {
		if !Tautology(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

type refLit struct{ l Literal }

func (*refLit) formula()                  {}
func (*refLit) Position() srcpos.Position { return srcpos.Position{} }
func refJunction(and bool, args []Formula) Formula {
	if and {
		return &And{Args: args}
	}
	return &Or{Args: args}
}

func refNNF(f Formula, neg bool) Formula {
	switch x := f.(type) {
	case *Atom:
		return &refLit{Literal{Atom: x, Neg: neg}}
	case *Comparison:
		return &refLit{Literal{Cmp: x, Neg: neg}}
	case *Not:
		return refNNF(x.X, !neg)
	case *And, *Or:
		var xs []Formula
		and := false
		if a, ok := x.(*And); ok {
			xs, and = a.Args, !neg
		} else {
			xs, and = x.(*Or).Args, neg
		}
		args := make([]Formula, len(xs))
		for i, a := range xs {
			args[i] = refNNF(a, neg)
		}
		return refJunction(and, args)
	case *Implies:
		if neg {
			return &And{Args: []Formula{refNNF(x.Body, false), refNNF(x.Head, true)}}
		}
		return &Or{Args: []Formula{refNNF(x.Body, true), refNNF(x.Head, false)}}
	}
	panic(fmt.Sprintf("unknown %T", f))
}

func refCNF(f Formula) ([]Clause, error) {
	tooMany := fmt.Errorf("rule expands to more than %d clauses; simplify it", MaxClauses)
	switch x := f.(type) {
	case *refLit:
		return []Clause{{x.l}}, nil
	case *And:
		var out []Clause
		for _, a := range x.Args {
			cs, err := refCNF(a)
			if err != nil {
				return nil, err
			}
			out = append(out, cs...)
			if len(out) > MaxClauses {
				return nil, tooMany
			}
		}
		return out, nil
	case *Or:
		acc := []Clause{{}}
		for _, a := range x.Args {
			cs, err := refCNF(a)
			if err != nil {
				return nil, err
			}
			if len(acc)*len(cs) > MaxClauses {
				return nil, tooMany
			}
			next := make([]Clause, 0, len(acc)*len(cs))
			for _, c1 := range acc {
				for _, c2 := range cs {
					next = append(next, append(append(Clause{}, c1...), c2...))
				}
			}
			acc = next
		}
		return acc, nil
	}
	panic(fmt.Sprintf("unexpected %T", f))
}

// randFormula draws a formula over the propositions P(X), Q(X), R(X) and
// X != Y, with and without shared operands (equivalences).
func randFormula(r *rand.Rand, depth int) Formula {
	x, y := Var("X"), Var("Y")
	if depth == 0 || r.IntN(5) == 0 {
		switch r.IntN(4) {
		case 0:
			return &Comparison{Op: CmpNeq, Left: x, Right: y}
		default:
			return &Atom{PredName: string(rune('P' + r.IntN(3))), Args: []Term{x}}
		}
	}
	switch r.IntN(6) {
	case 0:
		return &Not{X: randFormula(r, depth-1)}
	case 1:
		return &Implies{Body: randFormula(r, depth-1), Head: randFormula(r, depth-1)}
	case 2:
		return equiv(randFormula(r, depth-1), randFormula(r, depth-1))
	case 3:
		s := randFormula(r, depth-1) // one operand used twice
		return &Or{Args: []Formula{s, &Not{X: s}, randFormula(r, depth-1)}[:2+r.IntN(2)]}
	}
	args := make([]Formula, 1+r.IntN(3))
	for i := range args {
		args[i] = randFormula(r, depth-1)
	}
	if r.IntN(2) == 0 {
		return &And{Args: args}
	}
	return &Or{Args: args}
}

// propKey names what a literal refers to, for evaluation.
func propKey(l Literal) string {
	if l.Atom != nil {
		return l.Atom.PredName
	}
	return "X!=Y"
}

var props = []string{"P", "Q", "R", "X!=Y"}

// evalFormula evaluates f in world w (bit i: props[i] holds).
func evalFormula(f Formula, w int) bool {
	switch x := f.(type) {
	case *Atom:
		return evalLit(Literal{Atom: x}, w)
	case *Comparison:
		return evalLit(Literal{Cmp: x}, w)
	case *Not:
		return !evalFormula(x.X, w)
	case *And:
		for _, a := range x.Args {
			if !evalFormula(a, w) {
				return false
			}
		}
		return true
	case *Or:
		for _, a := range x.Args {
			if evalFormula(a, w) {
				return true
			}
		}
		return false
	case *Implies:
		return !evalFormula(x.Body, w) || evalFormula(x.Head, w)
	}
	panic(fmt.Sprintf("unknown %T", f))
}

func evalLit(l Literal, w int) bool {
	for i, p := range props {
		if p == propKey(l) {
			return (w>>i&1 == 1) != l.Neg
		}
	}
	panic(propKey(l))
}

// Clauses gives exactly what the tree expansion gave (same clauses, same
// order, same refusals) on random formulas, most of them just under or
// over the clause cap, and its clauses hold in exactly the worlds where the
// formula holds (enumeration over the 16 worlds of four propositions).
func TestClausesSameAsTreeExpansion(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 7))
	var accepted, refused, nearCap int
	for i := range 3000 {
		f := randFormula(r, 2+i%6)
		got, gerr := Clauses(f)
		want, werr := refClauses(f)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("formula %d: error %v, before %v", i, gerr, werr)
		}
		if werr != nil {
			if gerr.Error() != werr.Error() {
				t.Fatalf("formula %d: error %q, before %q", i, gerr, werr)
			}
			refused++
			continue
		}
		accepted++
		if n, _ := refCNF(refNNF(f, false)); len(n) > MaxClauses/4 {
			nearCap++
		}
		if len(got) != len(want) {
			t.Fatalf("formula %d: %d clauses, before %d", i, len(got), len(want))
		}
		for k := range got {
			if g, w := clauseString(got[k]), clauseString(want[k]); g != w {
				t.Fatalf("formula %d clause %d: %s, before %s", i, k, g, w)
			}
		}
		for w := range 1 << len(props) {
			holds := true
			for _, c := range got {
				sat := false
				for _, l := range c {
					sat = sat || evalLit(l, w)
				}
				holds = holds && sat
			}
			if holds != evalFormula(f, w) {
				t.Fatalf("formula %d, world %04b: clauses give %v, the formula %v", i, w, holds, !holds)
			}
		}
	}
	if accepted < 1000 || refused < 100 || nearCap < 50 {
		t.Fatalf("%d accepted (%d with more than %d clauses before tautologies are dropped), %d refused: too few of each kind to compare", accepted, nearCap, MaxClauses/4, refused)
	}
	t.Logf("%d accepted (%d with more than %d clauses), %d refused", accepted, nearCap, MaxClauses/4, refused)
}

// The deepest equivalence chains under the cap (more than half of it before
// tautologies are dropped), and exactly 256 clauses (a disjunction of eight
// two-literal conjunctions), convert as before; nine conjunctions are
// refused.
func TestClausesAtTheCap(t *testing.T) {
	x := Var("X")
	dnf := func(n int) Formula {
		var args []Formula
		for i := range n {
			v := Var(fmt.Sprintf("V%d", i))
			args = append(args, &And{Args: []Formula{&Atom{PredName: "A", Args: []Term{v}}, &Atom{PredName: "B", Args: []Term{x, v}}}})
		}
		return &Or{Args: args}
	}
	cases := []struct {
		name string
		f    Formula
		n    int // clauses, -1 for refused
	}{
		{"256 clauses", dnf(8), 256},
		{"512 clauses", dnf(9), -1},
	}
	for k := 2; k <= 12; k++ {
		for _, distinct := range []bool{false, true} {
			cases = append(cases, struct {
				name string
				f    Formula
				n    int
			}{fmt.Sprintf("chain of %d (distinct %v)", k, distinct), equivChain(k, distinct), 0})
		}
	}
	deepest := 0
	for _, tc := range cases {
		got, gerr := Clauses(tc.f)
		want, werr := refClauses(tc.f)
		if (gerr == nil) != (werr == nil) || (tc.n > 0 && len(got) != tc.n) || (tc.n < 0 && gerr == nil) {
			t.Fatalf("%s: %d clauses, %v; before %d, %v", tc.name, len(got), gerr, len(want), werr)
		}
		for i := range want {
			if clauseString(got[i]) != clauseString(want[i]) {
				t.Fatalf("%s clause %d: %s, before %s", tc.name, i, clauseString(got[i]), clauseString(want[i]))
			}
		}
		if gerr == nil && strings.HasPrefix(tc.name, "chain") {
			all, _ := refCNF(refNNF(tc.f, false))
			deepest = max(deepest, len(all))
		}
	}
	if deepest <= MaxClauses/2 {
		t.Fatalf("the longest accepted chain expands to %d clauses (before tautologies are dropped): no chain came near the cap", deepest)
	}
}
