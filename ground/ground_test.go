package ground

import (
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// TestPaperExample1 is Example 1 of the lifted HL-MRF paper (papers/000):
// transitive Knows over Ben, Elsa and Dan with Knows(X, X) observed 0 and
// two links observed 1 grounds to exactly four potentials. The paper's
// energy function is written with P1, P2, P3 distinct: the rule as printed
// also has the groundings that close a two-step cycle onto Knows(X, X)
// (for example Knows(Ben, Dan) & Knows(Dan, Ben) -> Knows(Ben, Ben), giving
// max(y3 + y1 - 1, 0)^2), which the paper's four potentials do not list. So
// the rule carries P1 != P3, PSL's usual idiom; P1 != P2 and P2 != P3 follow
// from Knows(X, X) being observed 0. The variant without the comparison is
// checked against the brute-force grounder below.
func TestPaperExample1(t *testing.T) {
	build := func(distinct bool) (*model.Model, *store.Store) {
		m := model.New()
		knows, err := m.AddPredicate("Knows", 2, false)
		if err != nil {
			t.Fatal(err)
		}
		body := []model.Formula{at(knows, "P1", "P2"), at(knows, "P2", "P3")}
		if distinct {
			body = append(body, cmp(model.CmpNeq, "P1", "P3"))
		}
		if err := m.AddRule(weighted(5, true, imp(and(body...), at(knows, "P1", "P3")))); err != nil {
			t.Fatal(err)
		}
		s := store.New(m)
		for _, x := range []string{"Ben", "Elsa", "Dan"} {
			if err := s.AddObservation(knows, []string{x, x}, 0); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range [][]string{{"Ben", "Elsa"}, {"Elsa", "Dan"}} {
			if err := s.AddObservation(knows, l, 1); err != nil {
				t.Fatal(err)
			}
		}
		// y1..y4 in the paper's numbering (read off its energy function).
		for _, l := range [][]string{{"Dan", "Ben"}, {"Elsa", "Ben"}, {"Ben", "Dan"}, {"Dan", "Elsa"}} {
			if err := s.AddTarget(knows, l); err != nil {
				t.Fatal(err)
			}
		}
		return m, s
	}

	m, s := build(true)
	res, err := Ground(m, s, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	// f(y) = 5 max(y1 - y2, 0)^2 + 5 max(-y1 + y2 + y4 - 1, 0)^2
	//      + 5 max(y1 - y4, 0)^2 + 5 max(-y3 + 1, 0)^2
	paper, err := hlmrf.Read(strings.NewReader(`# variables: 4
5 0:0 1:1 2:-1 #^2
5 0:1 1:-1 2:1 4:1 #^2
5 0:0 1:1 4:-1 #^2
5 0:-1 3:-1 #^2
`), "paper")
	if err != nil {
		t.Fatal(err)
	}
	for i := range paper.Group {
		paper.Group[i] = 0 // the rule's index
	}
	ids := []string{"y1", "y2", "y3", "y4"}
	if d := diffPots(canonical(res.Problem, ids), canonical(paper, ids)); d != "" {
		t.Fatalf("ground problem is not the paper's:\n%s", d)
	}
	if res.Problem.NumVars != 4 || res.Rules[0].Potentials != 4 {
		t.Fatalf("got %d variables, %d potentials; want 4 and 4", res.Problem.NumVars, res.Rules[0].Potentials)
	}
	want := [][]string{{"Knows", "Dan", "Ben"}, {"Knows", "Elsa", "Ben"}, {"Knows", "Ben", "Dan"}, {"Knows", "Dan", "Elsa"}}
	for v, row := range res.AtomNames() {
		if !slices.Equal(row, want[v]) {
			t.Fatalf("variable %d is %v, want %v", v, row, want[v])
		}
	}

	// Without P1 != P3: the brute-force grounder decides.
	m, s = build(false)
	res = compareWithOracle(t, m, s, 1, 2)
	if n := res.Problem.NumPotentials(); n <= 4 {
		t.Fatalf("without P1 != P3: %d potentials, want more than the paper's 4", n)
	}
}

// TestHandMade grounds hand-made rules over a small data set and compares
// with the brute-force grounder. minItems guards against vacuous cases.
func TestHandMade(t *testing.T) {
	type mk func(x *social) []*model.Rule
	tests := []struct {
		name     string
		rules    mk
		minItems int
	}{
		{"horn", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1.5, false, imp(and(at(x.friend, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B")))}
		}, 2},
		{"horn squared", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(2, true, imp(and(at(x.friend, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B")))}
		}, 2},
		{"observed head in (0,1)", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(at(x.knows, "A", "B"), at(x.friend, "A", "B")))}
		}, 2},
		{"negated head", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(at(x.smokes, "A"), not(at(x.cancer, "A"))))}
		}, 1},
		{"negated body atom", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(and(at(x.friend, "A", "B"), not(at(x.smokes, "A"))), not(at(x.smokes, "B"))))}
		}, 2},
		{"disjunctive head", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(at(x.friend, "A", "B"), or(at(x.smokes, "A"), at(x.smokes, "B"))))}
		}, 2},
		{"conjunctive head gives two clauses", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, true, imp(at(x.smokes, "A"), and(at(x.cancer, "A"), at(x.knows, "A", "A"))))}
		}, 3},
		{"not equal", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(and(at(x.knows, "A", "B"), at(x.knows, "B", "C"), cmp(model.CmpNeq, "A", "C")), at(x.knows, "A", "C")))}
		}, 3},
		{"equal", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(and(at(x.knows, "A", "B"), at(x.friend, "C", "B"), cmp(model.CmpEq, "A", "C")), at(x.smokes, "A")))}
		}, 1},
		{"non-symmetric", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(and(at(x.knows, "A", "B"), cmp(model.CmpNonSym, "A", "B")), at(x.knows, "B", "A")))}
		}, 1},
		{"comparison with constants", func(x *social) []*model.Rule {
			return []*model.Rule{
				weighted(1, false, imp(and(at(x.knows, "A", "B"), cmp(model.CmpNeq, "A", "'alice'")), at(x.smokes, "A"))),
				weighted(1, false, imp(and(at(x.knows, "A", "B"), cmp(model.CmpNonSym, "A", "'zed'")), at(x.smokes, "B"))),
			}
		}, 2},
		{"comparison in head", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(at(x.knows, "A", "B"), cmp(model.CmpEq, "A", "B")))}
		}, 1},
		{"constants in atoms", func(x *social) []*model.Rule {
			return []*model.Rule{
				weighted(1, false, imp(at(x.friend, "'bob'", "B"), at(x.smokes, "B"))),
				weighted(1, false, imp(at(x.knows, "A", "'bob'"), at(x.cancer, "A"))),
				weighted(1, false, imp(at(x.lives, "A", "'paris'"), at(x.knows, "A", "'carol'"))),
			}
		}, 3},
		{"constant absent from the data", func(x *social) []*model.Rule {
			return []*model.Rule{
				weighted(1, false, imp(at(x.friend, "'zed'", "B"), at(x.smokes, "B"))),
				weighted(1, false, imp(at(x.smokes, "A"), at(x.knows, "A", "'zed'"))),
			}
		}, 2},
		{"repeated atoms", func(x *social) []*model.Rule {
			return []*model.Rule{
				weighted(1, false, imp(and(at(x.knows, "A", "B"), at(x.knows, "B", "A")), at(x.knows, "A", "A"))),
				weighted(1, false, imp(and(at(x.knows, "A", "B"), at(x.knows, "A", "B")), at(x.smokes, "A"))),
				weighted(1, false, imp(and(at(x.knows, "A", "B"), at(x.knows, "B", "C")), at(x.knows, "A", "C"))),
			}
		}, 3},
		{"repeated variable in an atom", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, imp(at(x.knows, "A", "A"), at(x.cancer, "A")))}
		}, 1},
		{"positive prior", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(0.5, true, at(x.knows, "A", "B"))}
		}, 5},
		{"negative prior", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(0.5, true, not(at(x.knows, "A", "B")))}
		}, 5},
		{"constant prior", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(3, false, at(x.smokes, "'bob'")), weighted(3, false, not(at(x.smokes, "'zed'")))}
		}, 1},
		{"ground rule without variables", func(x *social) []*model.Rule {
			return []*model.Rule{weighted(1, false, or(at(x.smokes, "'bob'"), at(x.cancer, "'bob'"))), hard(or(at(x.cancer, "'carol'"), at(x.cancer, "'dan'")))}
		}, 2},
		{"hard rule", func(x *social) []*model.Rule {
			return []*model.Rule{hard(imp(and(at(x.friend, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B")))}
		}, 2},
		{"hard rule violated by constants", func(x *social) []*model.Rule {
			return []*model.Rule{
				hard(imp(at(x.lives, "P", "C"), at(x.friend, "P", "P"))),
				hard(imp(at(x.friend, "A", "B"), cmp(model.CmpEq, "A", "B"))),
				hard(at(x.smokes, "'dan'")),
			}
		}, 3},
		{"several rules", func(x *social) []*model.Rule {
			return []*model.Rule{
				weighted(1, false, imp(at(x.smokes, "A"), at(x.cancer, "A"))),
				weighted(2, true, imp(and(at(x.knows, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B"))),
				hard(imp(at(x.knows, "A", "B"), at(x.knows, "B", "A"))),
			}
		}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newSocial(t)
			x.add(t, tt.rules(x)...)
			res := compareWithOracle(t, x.m, x.s, 1, 2, 3)
			if n := res.Problem.NumPotentials() + res.Problem.NumConstraints(); n < tt.minItems {
				t.Fatalf("%d potentials and constraints, want at least %d", n, tt.minItems)
			}
		})
	}
}

// TestHandChecked pins a few groundings worked out by hand.
func TestHandChecked(t *testing.T) {
	x := newSocial(t)
	// Friend(A,B) & Smokes(A) -> Smokes(B), weight 1.5:
	//  alice,bob: 1 + 1 - y_bob - 1 = 1 - y_bob       -> 1.5 max(-y_bob + 1, 0)
	//  bob,carol: 0.7 + y_bob - y_carol - 1            -> 1.5 max(y_bob - y_carol - 0.3, 0)
	//  carol,alice: Smokes(alice) observed 1: satisfied
	//  alice,carol: Friend observed 0: satisfied
	//  dan,alice: head observed 1: satisfied
	//  bob,bob: 0.5 + y_bob - y_bob - 1 < 0: trivially satisfied
	x.add(t, weighted(1.5, false, imp(and(at(x.friend, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B"))))
	// Hard: Lives(P, C) -> Friend(P, P): only bob, paris has a value:
	// 0.6 - 0.5 > 0 is violated by constants; alice and carol have no
	// Friend(P, P) (0) and Lives 1: violated too; dan lives nowhere (0).
	x.add(t, hard(imp(at(x.lives, "P", "C"), at(x.friend, "P", "P"))))
	res, err := Ground(x.m, x.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bob, carol := res.VarOf(x.smokes, 1), res.VarOf(x.smokes, 2)
	if res.VarOf(x.smokes, 0) != -1 || bob != 0 || carol != 1 {
		t.Fatalf("VarOf: alice %d bob %d carol %d", res.VarOf(x.smokes, 0), bob, carol)
	}
	p := res.Problem
	if p.NumPotentials() != 2 {
		t.Fatalf("%d potentials, want 2", p.NumPotentials())
	}
	check := func(i int, c float64, vars []int32, coefs []float64) {
		t.Helper()
		vs, cs := p.Terms(i)
		if p.Weight[i] != 1.5 || p.Power[i] != 1 || p.Group[i] != 0 || !close9(p.Const[i], c) || !slices.Equal(vs, vars) || !slices.Equal(cs, coefs) {
			t.Fatalf("potential %d: w=%v c=%v p=%d g=%d %v %v", i, p.Weight[i], p.Const[i], p.Power[i], p.Group[i], vs, cs)
		}
	}
	check(0, -1, []int32{bob}, []float64{-1})
	check(1, 0.3, []int32{bob, carol}, []float64{1, -1})
	st := res.Rules[1]
	if st.Constraints != 3 || st.ConstantViolated != 3 || p.NumConstraints() != 3 {
		t.Fatalf("hard rule: %+v, %d constraints", st, p.NumConstraints())
	}
	for j := range 3 {
		if vs, _ := p.CTerms(j); len(vs) != 0 || p.CConst[j] >= 0 || p.CGroup[j] != 1 {
			t.Fatalf("constraint %d: %v <= %v group %d", j, vs, p.CConst[j], p.CGroup[j])
		}
	}
	if v := p.Violations(make([]float64, p.NumVars), 1e-9); v.Violated != 3 {
		t.Fatalf("violations %+v", v)
	}
}

func TestArithmetic(t *testing.T) {
	type mk func(x *social) []*model.Rule
	one := []model.Summand{sc(1)}
	tests := []struct {
		name     string
		rules    mk
		minItems int
	}{
		{"sum of atoms <= 1", func(x *social) []*model.Rule {
			return []*model.Rule{arith(1, false, []model.Summand{sa(nil, at(x.smokes, "A")), sa(nil, at(x.cancer, "A"))}, model.LE, one)}
		}, 1},
		{"coefficients and constants on both sides", func(x *social) []*model.Rule {
			return []*model.Rule{arith(2, true,
				[]model.Summand{sa(num(2), at(x.smokes, "A")), sc(-0.5)}, model.GE,
				[]model.Summand{sa(num(0.5), at(x.knows, "A", "B")), sc(0.25), sa(num(-1), at(x.smokes, "B"))})}
		}, 2},
		{"weighted equality is two hinges", func(x *social) []*model.Rule {
			return []*model.Rule{arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "B"))}, model.EQ, []model.Summand{sa(nil, at(x.knows, "B", "A"))})}
		}, 2},
		{"hard <= >= =", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(-1, false, []model.Summand{sa(nil, at(x.smokes, "A")), sa(nil, at(x.cancer, "A"))}, model.LE, one),
				arith(-1, false, []model.Summand{sa(nil, at(x.smokes, "A"))}, model.GE, []model.Summand{sa(num(0.5), at(x.friend, "A", "B"))}),
				arith(-1, false, []model.Summand{sa(nil, at(x.knows, "A", "B"))}, model.EQ, []model.Summand{sa(nil, at(x.knows, "B", "A"))}),
			}
		}, 3},
		{"summation", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(-1, false, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}, model.LE, []model.Summand{sc(1)}),
				arith(1, true, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}, model.EQ, []model.Summand{sa(num(2), at(x.smokes, "A"))}),
			}
		}, 3},
		{"summation without plain variables", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(-1, false, []model.Summand{sa(nil, at(x.knows, "+A", "+B"))}, model.EQ, []model.Summand{sc(3)}),
				arith(1, false, []model.Summand{sa(nil, at(x.smokes, "+A")), sa(nil, at(x.cancer, "+A"))}, model.LE, []model.Summand{sc(1)}),
			}
		}, 2},
		{"repeated summation variable", func(x *social) []*model.Rule {
			return []*model.Rule{arith(1, false, []model.Summand{sa(nil, at(x.knows, "+A", "+A"))}, model.GE, []model.Summand{sc(1)})}
		}, 1},
		{"cardinality", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(1, false, []model.Summand{sa(bin('/', num(1), card("B")), at(x.knows, "A", "+B"))}, model.EQ, []model.Summand{sa(nil, at(x.smokes, "A"))}),
				arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}, model.LE, []model.Summand{sa(card("B"), nil), sa(bin('*', num(-1), card("B")), at(x.smokes, "A"))}),
			}
		}, 2},
		{"summation variable in two atoms", func(x *social) []*model.Rule {
			// |B| counts distinct values: bob appears in both atoms for alice.
			return []*model.Rule{arith(1, false,
				[]model.Summand{sa(nil, at(x.knows, "A", "+B")), sa(nil, at(x.friend, "A", "+B"))}, model.LE,
				[]model.Summand{sa(bin('*', num(0.5), card("B")), nil)})}
		}, 2},
		{"max and min", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(1, false, []model.Summand{sa(cmax(num(1), card("B")), at(x.smokes, "A"))}, model.GE, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}),
				arith(1, false, []model.Summand{sa(cmin(num(2), bin('+', card("B"), num(0.5))), at(x.smokes, "A"))}, model.LE, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}),
			}
		}, 2},
		{"filters", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}, model.LE, one, filter("B", at(x.friend, "A", "B"))),
				arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "+B"))}, model.GE, one, filter("B", not(at(x.lives, "B", "'paris'")))),
				arith(1, false, []model.Summand{sa(bin('/', num(1), cmax(num(1), card("B"))), at(x.knows, "A", "+B"))}, model.LE, []model.Summand{sc(0.1)},
					filter("B", and(cmp(model.CmpNeq, "B", "'alice'"), or(at(x.lives, "B", "'rome'"), at(x.friend, "B", "A"))))),
				arith(1, false, []model.Summand{sa(nil, at(x.knows, "+A", "B"))}, model.EQ, []model.Summand{sa(nil, at(x.smokes, "B"))}, filter("A", imp(at(x.lives, "A", "'paris'"), at(x.friend, "A", "B")))),
			}
		}, 4},
		{"constant-violated hard arithmetic", func(x *social) []*model.Rule {
			return []*model.Rule{
				arith(-1, false, []model.Summand{sa(nil, at(x.lives, "P", "+C"))}, model.EQ, []model.Summand{sc(1)}),
				arith(-1, false, []model.Summand{sa(nil, at(x.friend, "P", "+Q"))}, model.LE, []model.Summand{sc(1)}),
				arith(-1, false, []model.Summand{sa(nil, at(x.smokes, "A")), sa(num(-1), at(x.smokes, "A"))}, model.EQ, []model.Summand{sc(0.5)}),
			}
		}, 3},
		{"terms cancel", func(x *social) []*model.Rule {
			return []*model.Rule{arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "B")), sc(1)}, model.LE, []model.Summand{sa(nil, at(x.knows, "A", "B"))})}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newSocial(t)
			x.add(t, tt.rules(x)...)
			res := compareWithOracle(t, x.m, x.s, 1, 2)
			n := res.Problem.NumPotentials() + res.Problem.NumConstraints()
			if n < tt.minItems {
				t.Fatalf("%d potentials and constraints, want at least %d", n, tt.minItems)
			}
		})
	}
}

func TestNonFiniteCoefficient(t *testing.T) {
	x := newSocial(t)
	// Nobody knows 'zed'... the filter empties B for everyone, and 1/|B|
	// multiplies a plain atom.
	r := arith(1, false, []model.Summand{sa(nil, at(x.knows, "A", "+B")), sa(bin('/', num(1), card("B")), at(x.smokes, "A"))}, model.LE, []model.Summand{sc(1)},
		filter("B", cmp(model.CmpEq, "B", "'zed'")))
	r.Text = "1: Knows(A, +B) + 1/|B| * Smokes(A) <= 1 {B: B == 'zed'}"
	x.add(t, r)
	_, err := Ground(x.m, x.s, Options{Threads: 2})
	if err == nil || !strings.Contains(err.Error(), "evaluates to +Inf") || !strings.Contains(err.Error(), r.Text) || !strings.Contains(err.Error(), "|B|=0") {
		t.Fatalf("got %v", err)
	}
}

func TestGroundRule(t *testing.T) {
	x := newSocial(t)
	x.add(t, weighted(1, false, imp(at(x.smokes, "A"), at(x.cancer, "A"))))
	res, err := Ground(x.m, x.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A candidate rule, not in the model, grounded against the same
	// numbering, equals grounding a model that has it.
	cand := weighted(2, true, imp(and(at(x.knows, "A", "B"), at(x.smokes, "A")), at(x.smokes, "B")))
	if err := x.m.Resolve(cand); err != nil {
		t.Fatal(err)
	}
	cand.Index = 7
	p, st, err := res.Grounder.GroundRule(cand)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumVars != res.Problem.NumVars || st.Potentials != p.NumPotentials() || st.Potentials == 0 || st.Rule != cand {
		t.Fatalf("NumVars %d vs %d, stats %+v", p.NumVars, res.Problem.NumVars, st)
	}
	for _, g := range p.Group {
		if g != 7 {
			t.Fatalf("group %d, want 7", g)
		}
	}
	y := newSocial(t)
	y.add(t, weighted(1, false, imp(at(y.smokes, "A"), at(y.cancer, "A"))))
	c2 := weighted(2, true, imp(and(at(y.knows, "A", "B"), at(y.smokes, "A")), at(y.smokes, "B")))
	y.add(t, c2)
	res2, err := Ground(y.m, y.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sub := &hlmrf.Problem{NumVars: res2.Problem.NumVars}
	for i := res2.Rules[0].Potentials; i < res2.Problem.NumPotentials(); i++ {
		vs, cs := res2.Problem.Terms(i)
		sub.AddPotential(res2.Problem.Weight[i], res2.Problem.Const[i], res2.Problem.Power[i], 7, vs, cs)
	}
	names := varNames(res.Grounder)
	if d := diffPots(canonical(p, names), canonical(sub, names)); d != "" {
		t.Fatalf("GroundRule differs from grounding the model:\n%s", d)
	}
}

func TestErrors(t *testing.T) {
	x := newSocial(t)
	g, err := NewGrounder(x.m, x.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := model.New()
	op, _ := other.AddPredicate("Other", 1, false)
	foreign := weighted(1, false, at(op, "A"))
	late, _ := x.m.AddPredicate("Late", 1, false)
	lateRule := weighted(1, false, at(late, "A"))
	unresolved := weighted(1, false, &model.Atom{PredName: "Smokes", Args: []model.Term{model.Var("A")}})
	tests := []struct {
		name string
		r    *model.Rule
		want string
	}{
		{"foreign predicate", foreign, "not one the grounder was made for"},
		{"predicate added later", lateRule, "not one the grounder was made for"},
		{"unresolved", unresolved, "not resolved"},
		{"nil", nil, "nil rule"},
	}
	for _, tt := range tests {
		if _, _, err := g.GroundRule(tt.r); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	ok := weighted(1, false, at(x.smokes, "A"))
	if err := x.m.Resolve(ok); err != nil {
		t.Fatal(err)
	}
	if err := x.s.AddTarget(x.smokes, []string{"erin"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.GroundRule(ok); err == nil || !strings.Contains(err.Error(), "changed after") {
		t.Errorf("store changed: got %v", err)
	}
	if _, err := NewGrounder(x.m, store.New(model.New()), Options{}); err == nil {
		t.Error("store of another model accepted")
	}
	if _, err := NewGrounder(nil, nil, Options{}); err == nil {
		t.Error("nil model accepted")
	}
}

func TestProgress(t *testing.T) {
	for _, threads := range []int{1, 2} {
		x := newSocial(t)
		x.add(t, weighted(1, false, at(x.knows, "A", "B")), weighted(1, false, imp(at(x.smokes, "A"), at(x.cancer, "A"))),
			weighted(1, false, imp(at(x.friend, "'zed'", "A"), at(x.smokes, "A")))) // nothing to ground
		last := map[int][2]int{}
		calls := 0
		_, err := Ground(x.m, x.s, Options{Threads: threads, Progress: func(rule, done, total int) {
			calls++
			if total == 0 {
				if rule != 2 || done != 0 {
					t.Errorf("rule %d: done %d of 0", rule, done)
				}
				last[rule] = [2]int{-1, -1}
				return
			}
			if prev := last[rule]; done != prev[0]+1 || done > total {
				t.Errorf("rule %d: done %d after %d, total %d", rule, done, prev[0], total)
			}
			last[rule] = [2]int{done, total}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if last[2] != [2]int{-1, -1} {
			t.Errorf("threads %d: the empty rule did not report", threads)
		}
		for r := range 2 {
			if l := last[r]; l[0] == 0 || l[0] != l[1] {
				t.Errorf("threads %d rule %d: ended at %v", threads, r, l)
			}
		}
	}
}

func TestVariables(t *testing.T) {
	x := newSocial(t)
	res, err := Ground(x.m, x.s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Predicate order (Friend, Lives, Smokes, Cancer, Knows), then rows.
	want := []string{"Smokes(bob)", "Smokes(carol)", "Cancer(alice)", "Cancer(bob)",
		"Knows(alice,bob)", "Knows(bob,alice)", "Knows(bob,carol)", "Knows(carol,dan)", "Knows(alice,alice)"}
	if got := varNames(res.Grounder); !slices.Equal(got, want) {
		t.Fatalf("variables %v, want %v", got, want)
	}
	if res.Problem.NumVars != len(want) || len(res.Vars) != len(want) {
		t.Fatalf("NumVars %d, Vars %d", res.Problem.NumVars, len(res.Vars))
	}
	for v, a := range res.Vars {
		if res.VarOf(a.Pred, a.Row) != int32(v) {
			t.Fatalf("VarOf(Vars[%d]) = %d", v, res.VarOf(a.Pred, a.Row))
		}
	}
	if got := res.Args(4); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Fatalf("Args(4) = %v", got)
	}
	if res.VarOf(x.knows, 100) != -1 || res.VarOf(x.friend, 0) != -1 {
		t.Fatal("VarOf of an observed or missing row is not -1")
	}
}

func TestNameLess(t *testing.T) {
	names := []string{"a", "b", "B", "10", "9", "-3", "x1", "", "007", "7"}
	d := store.NewDict()
	for _, n := range names {
		d.ID(n)
	}
	for _, a := range names {
		for _, b := range names {
			ia, _ := d.Lookup(a)
			ib, _ := d.Lookup(b)
			if nameLess(a, b) != d.Less(ia, ib) {
				t.Errorf("nameLess(%q, %q) = %v, Dict.Less %v", a, b, nameLess(a, b), d.Less(ia, ib))
			}
		}
	}
}
