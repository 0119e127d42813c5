package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// clauseString renders a clause compactly for comparison: "!A(X) | B(X)".
func clauseString(c Clause) string {
	parts := make([]string, len(c))
	for i, l := range c {
		s := ""
		if l.Neg {
			s = "!"
		}
		if l.Atom != nil {
			args := make([]string, len(l.Atom.Args))
			for j, t := range l.Atom.Args {
				args[j] = t.Name
				if t.Kind == Constant {
					args[j] = "'" + t.Name + "'"
				}
			}
			s += l.Atom.PredName + "(" + strings.Join(args, ",") + ")"
		} else {
			s += l.Cmp.Left.Name + l.Cmp.Op.String() + l.Cmp.Right.Name
		}
		parts[i] = s
	}
	return strings.Join(parts, " | ")
}

func testModel(t *testing.T) (*Model, *Predicate, *Predicate, *Predicate) {
	t.Helper()
	m := New()
	a, err := m.AddPredicate("A", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.AddPredicate("B", 1, false)
	k, _ := m.AddPredicate("Knows", 2, false)
	return m, a, b, k
}

func TestClauses(t *testing.T) {
	_, a, b, k := testModel(t)
	x, y, z := Var("X"), Var("Y"), Var("Z")
	tests := []struct {
		name string
		f    Formula
		want []string
	}{
		{"horn", &Implies{Body: &And{Args: []Formula{NewAtom(k, x, y), NewAtom(k, y, z)}}, Head: NewAtom(k, x, z)},
			[]string{"!Knows(X,Y) | !Knows(Y,Z) | Knows(X,Z)"}},
		{"negated head", &Implies{Body: NewAtom(a, x), Head: &Not{X: NewAtom(b, x)}},
			[]string{"!A(X) | !B(X)"}},
		{"disjunctive head", &Implies{Body: NewAtom(a, x), Head: &Or{Args: []Formula{NewAtom(b, x), NewAtom(k, x, x)}}},
			[]string{"!A(X) | B(X) | Knows(X,X)"}},
		{"conjunctive head splits", &Implies{Body: NewAtom(a, x), Head: &And{Args: []Formula{NewAtom(b, x), NewAtom(k, x, x)}}},
			[]string{"!A(X) | B(X)", "!A(X) | Knows(X,X)"}},
		{"comparison in body", &Implies{Body: &And{Args: []Formula{NewAtom(k, x, y), &Comparison{Op: CmpNeq, Left: x, Right: y}}}, Head: NewAtom(k, y, x)},
			[]string{"!Knows(X,Y) | !X!=Y | Knows(Y,X)"}},
		{"double negation", &Not{X: &Not{X: NewAtom(b, x)}}, []string{"B(X)"}},
		{"negated disjunction", &Not{X: &Or{Args: []Formula{NewAtom(a, x), NewAtom(b, x)}}}, []string{"!A(X)", "!B(X)"}},
		{"tautology dropped", &Or{Args: []Formula{NewAtom(b, x), &Not{X: NewAtom(b, x)}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := Clauses(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cs {
				got = append(got, clauseString(c))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestClauseLimit(t *testing.T) {
	_, a, b, _ := testModel(t)
	// (A1 & B1) | (A2 & B2) | ... explodes as 2^n clauses.
	var args []Formula
	for i := 0; i < 10; i++ {
		v := Var(string(rune('P' + i)))
		args = append(args, &And{Args: []Formula{NewAtom(a, v), NewAtom(b, v)}})
	}
	if _, err := Clauses(&Or{Args: args}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("got %v, want a clause-limit error", err)
	}
}

func TestValidate(t *testing.T) {
	x, y := Var("X"), Var("Y")
	tests := []struct {
		name string
		rule func(a, b, k *Predicate) *Rule
		want string // substring of the error, "" for none
	}{
		{"ok horn", func(a, b, k *Predicate) *Rule {
			return &Rule{Weighted: true, Weight: 1, Logical: &Implies{Body: NewAtom(k, x, y), Head: NewAtom(b, y)}}
		}, ""},
		{"ok prior", func(a, b, k *Predicate) *Rule {
			return &Rule{Weighted: true, Weight: 1, Logical: NewAtom(b, x)}
		}, ""},
		{"unbound head", func(a, b, k *Predicate) *Rule {
			return &Rule{Weighted: true, Weight: 1, Logical: &Implies{Body: NewAtom(a, x), Head: NewAtom(k, x, y)}}
		}, "variable Y is not bound"},
		{"unbound comparison", func(a, b, k *Predicate) *Rule {
			return &Rule{Weighted: true, Weight: 1, Logical: &Implies{Body: &And{Args: []Formula{NewAtom(a, x), &Comparison{Op: CmpNeq, Left: x, Right: y}}}, Head: NewAtom(b, x)}}
		}, "variable Y is not bound"},
		{"negative weight", func(a, b, k *Predicate) *Rule {
			return &Rule{Weighted: true, Weight: -1, Logical: NewAtom(b, x)}
		}, "must be a finite number >= 0"},
		{"squared hard", func(a, b, k *Predicate) *Rule {
			return &Rule{Squared: true, Logical: NewAtom(b, x)}
		}, "cannot be squared"},
		{"arith ok", func(a, b, k *Predicate) *Rule {
			return &Rule{Arith: &Arithmetic{LHS: []Summand{{Atom: NewAtom(k, x, SumVar("Y"))}}, RHS: []Summand{{Coef: &Number{1}}}, Rel: EQ}}
		}, ""},
		{"arith card unknown", func(a, b, k *Predicate) *Rule {
			return &Rule{Arith: &Arithmetic{LHS: []Summand{{Atom: NewAtom(k, x, SumVar("Y"))}}, RHS: []Summand{{Coef: &Cardinality{Var: "Z"}}}, Rel: EQ}}
		}, "|Z| must name a summation variable"},
		{"arith filter on open", func(a, b, k *Predicate) *Rule {
			return &Rule{Arith: &Arithmetic{LHS: []Summand{{Atom: NewAtom(k, x, SumVar("Y"))}}, RHS: []Summand{{Coef: &Number{1}}}, Rel: LE,
				Filters: []Filter{{Var: "Y", Expr: NewAtom(b, Var("Y"))}}}}
		}, "must be of a closed"},
		{"arith filter ok", func(a, b, k *Predicate) *Rule {
			return &Rule{Arith: &Arithmetic{LHS: []Summand{{Atom: NewAtom(k, x, SumVar("Y"))}}, RHS: []Summand{{Coef: &Number{1}}}, Rel: LE,
				Filters: []Filter{{Var: "Y", Expr: NewAtom(a, Var("Y"))}}}}
		}, ""},
		{"arith mixed var", func(a, b, k *Predicate) *Rule {
			return &Rule{Arith: &Arithmetic{LHS: []Summand{{Atom: NewAtom(k, x, SumVar("X"))}}, RHS: []Summand{{Coef: &Number{1}}}, Rel: LE}}
		}, "both as a summation variable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, a, b, k := testModel(t)
			err := m.AddRule(tt.rule(a, b, k))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want error containing %q", err, tt.want)
			}
			if len(m.Rules) != 0 {
				t.Fatal("a rejected rule was added")
			}
		})
	}
}

func TestResolve(t *testing.T) {
	m, _, _, _ := testModel(t)
	r := &Rule{Weighted: true, Weight: 1, Logical: &Atom{PredName: "knows", Args: []Term{Var("X")}, Pos: srcpos.Position{File: "m.psl", Line: 3, Col: 4}}}
	err := m.AddRule(r)
	if err == nil || err.Error() != "m.psl:3:4: predicate Knows takes 2 arguments, found 1" {
		t.Fatalf("got %v", err)
	}
	r = &Rule{Weighted: true, Weight: 1, Logical: &Atom{PredName: "Nope", Args: []Term{Var("X")}, Pos: srcpos.Position{File: "m.psl", Line: 1, Col: 5}}}
	if err := m.AddRule(r); err == nil || !strings.HasPrefix(err.Error(), "m.psl:1:5: unknown predicate Nope") {
		t.Fatalf("got %v", err)
	}
	if _, err := m.AddPredicate("KNOWS", 3, true); err == nil {
		t.Fatal("redeclaring with another arity must fail")
	}
}

func TestEvalCoef(t *testing.T) {
	c := &CoefBinary{Op: '/', A: &CoefFunc{Max: true, A: &Number{1}, B: &Cardinality{Var: "X"}}, B: &Number{2}}
	if got := EvalCoef(c, func(string) int { return 5 }); got != 2.5 {
		t.Fatalf("got %v", got)
	}
	if got := EvalCoef(nil, nil); got != 1 {
		t.Fatalf("nil coefficient = %v, want 1", got)
	}
}

// BenchmarkClausesLong measures CNF and the tautology check of one
// disjunction of k literals (once quadratic in k: 600,000 conjuncts did not
// finish): the time per literal should not grow with k.
//
//	go test -run '^$' -bench ClausesLong ./model
func BenchmarkClausesLong(b *testing.B) {
	for _, k := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			args := make([]Formula, k)
			for i := range args {
				args[i] = &Not{X: &Atom{PredName: "P", Args: []Term{Var(fmt.Sprintf("X%d", i))}}}
			}
			f := &Or{Args: args}
			for b.Loop() {
				cs, err := Clauses(f)
				if err != nil || len(cs) != 1 || len(cs[0]) != k {
					b.Fatal(err, len(cs))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(k), "ns/literal")
		})
	}
}

// TestLongTautology: the keyed check for long clauses finds an atom and its
// negation as the pairwise check does for short ones.
func TestLongTautology(t *testing.T) {
	for _, n := range []int{4, 40} {
		lits := func(withNeg bool) Formula {
			var args []Formula
			for i := range n {
				args = append(args, &Atom{PredName: "P", Args: []Term{Var(fmt.Sprintf("X%d", i))}})
			}
			if withNeg {
				args = append(args, &Not{X: &Atom{PredName: "p", Args: []Term{Var("X3")}}})
			}
			args = append(args, &Comparison{Op: CmpNeq, Left: Var("X1"), Right: Var("X2")}, &Not{X: &Comparison{Op: CmpNeq, Left: Var("X1"), Right: Const("X2")}})
			return &Or{Args: args}
		}
		if cs, err := Clauses(lits(false)); err != nil || len(cs) != 1 {
			t.Errorf("%d literals without a complementary pair: %v clauses, %v", n, len(cs), err)
		}
		if cs, err := Clauses(lits(true)); err != nil || len(cs) != 0 {
			t.Errorf("%d literals with P(X3) and !p(X3): %v clauses, %v; want the tautology dropped", n, len(cs), err)
		}
	}
}
