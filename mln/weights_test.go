package mln

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// clauseSet lists a network's clauses as "weight text" (the weight to 4
// decimals), sorted.
func clauseSet(net *Network) []string {
	var out []string
	for r, info := range net.Clauses {
		text := net.Model.Rules[r].Text
		if i := strings.IndexByte(text, ' '); i >= 0 && !info.Hard {
			text = text[i+1:]
		}
		out = append(out, fmt.Sprintf("%.4f %s", info.Weight, sortLiterals(text)))
	}
	slices.Sort(out)
	return out
}

// sortLiterals writes a clause's literals in sorted order.
func sortLiterals(clause string) string {
	lits := strings.Split(clause, " v ")
	slices.Sort(lits)
	return strings.Join(lits, " v ")
}

// TestFormulaClausesAlchemyRule checks the clauses and weights of single
// formulas against Alchemy's rule (parser/folhelper.h, zzcreateClauses),
// worked out by hand here: the unit clauses of a formula's CNF become one
// clause of negated literals with the negated share, and the weight is
// divided by the number of clauses (the gathered one counting once)
// before tautologies are dropped. These are the outside tester's cases,
// whose figures Alchemy 2 printed.
func TestFormulaClausesAlchemyRule(t *testing.T) {
	const decl = "t = {A, B}\nP(t)\nQ(t)\nR(t)\nS(t)\n"
	for _, tc := range []struct {
		formula string
		want    []string
	}{
		// A conjunction of literals: one clause, the weight negated.
		{"2 P(A) ^ Q(A)", []string{"-2.0000 !P(A) v !Q(A)"}},
		{"3 P(A) ^ Q(A) ^ R(A)", []string{"-3.0000 !P(A) v !Q(A) v !R(A)"}},
		{"3 P(x) ^ !Q(x)", []string{"-3.0000 !P(x) v Q(x)"}},
		{"-1.5 P(x) ^ Q(y)", []string{"1.5000 !P(x) v !Q(y)"}},
		// A hard conjunction is not gathered: each of its unit clauses is
		// hard, which is exactly the formula.
		{"P(A) ^ Q(A).", []string{"0.0000 P(A).", "0.0000 Q(A)."}},
		// A single unit clause keeps its sign.
		{"1.2 !P(A)", []string{"1.2000 !P(A)"}},
		// Units beside a clause of two literals: two clauses, w/2 each.
		{"1 P(x) ^ (Q(x) v R(x))", []string{"0.5000 P(x)", "0.5000 Q(x) v R(x)"}},
		{"1 P(x) ^ Q(x) ^ (R(x) v S(x))", []string{"-0.5000 !P(x) v !Q(x)", "0.5000 R(x) v S(x)"}},
		// An equivalence of two atoms: two clauses of two literals.
		{"1 P(x) <=> Q(x)", []string{"0.5000 P(x) v !Q(x)", "0.5000 Q(x) v !P(x)"}},
		// Three tautologies among four clauses: the one left weighs 1/4
		// (Alchemy 2 prints 0.25).
		{"1 (Q(B) <=> P(A)) => !P(A)", []string{"0.2500 !P(A) v !Q(B)"}},
		// An existential over a conjunction: four clauses of two literals.
		{"1 EXIST y (P(y) ^ Q(y))", []string{"0.2500 P(A) v P(B)", "0.2500 P(A) v Q(B)", "0.2500 Q(A) v P(B)", "0.2500 Q(A) v Q(B)"}},
		// +x: one formula per constant, each with the whole weight.
		{"1.5 P(+x) ^ Q(+x)", []string{"-1.5000 !P(A) v !Q(A)", "-1.5000 !P(B) v !Q(B)"}},
		// A repeated literal is removed, so P v P is a unit clause.
		{"2 (P(A) v P(A)) ^ Q(A)", []string{"-2.0000 !P(A) v !Q(A)"}},
		// Six clauses by distribution (repeated clauses count, as in
		// Alchemy, which does not remove them), 1/6 each.
		{"1 (!Q(A) ^ P(A) => P(B)) => (Q(A) ^ P(B) => P(A) ^ Q(B))", []string{
			"0.1667 P(A) v !Q(A) v !P(B) v Q(B)",
			"0.1667 !Q(A) v !P(B) v P(A)", "0.1667 !Q(A) v !P(B) v P(A)", "0.1667 !Q(A) v !P(B) v P(A)",
			"0.1667 !Q(A) v !P(B) v Q(B)", "0.1667 !Q(A) v !P(B) v Q(B)"}},
	} {
		t.Run(tc.formula, func(t *testing.T) {
			_, _, net := network(t, decl+tc.formula+"\n", "", Options{Query: []string{"P", "Q", "R", "S"}})
			got := clauseSet(net)
			var want []string
			for _, c := range tc.want {
				w, text, _ := strings.Cut(c, " ")
				want = append(want, w+" "+sortLiterals(text))
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("clauses\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestConjunctionsMatchDefinition: on random programs of conjunctions of
// literals (variables, constants, negations, +x, negative weights, several
// formulas sharing atoms, evidence), the exact marginals are those of the
// Markov logic definition, exp(sum of the weights of the true groundings
// of each formula), enumerated over every world here; and MAP's world has
// the best score. Splitting a conjunction's weight among its literals (what
// hinge did before) gives a different distribution and fails this test.
func TestConjunctionsMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	preds := []string{"P", "Q", "R"}
	lit := func(vars []string) string {
		p := preds[rng.IntN(len(preds))]
		var arg string
		switch r := rng.IntN(10); {
		case r < 2:
			arg = []string{"A", "B"}[rng.IntN(2)]
		case r < 3:
			arg = "+" + vars[0]
		default:
			arg = vars[rng.IntN(len(vars))]
		}
		s := p + "(" + arg + ")"
		if rng.IntN(3) == 0 {
			s = "!" + s
		}
		return s
	}
	for trial := range 40 {
		var b strings.Builder
		b.WriteString("t = {A, B}\nP(t)\nQ(t)\nR(t)\n")
		for range 1 + rng.IntN(3) {
			vars := []string{"x", "y"}[:1+rng.IntN(2)]
			k := 2 + rng.IntN(3)
			lits := make([]string, k)
			for i := range lits {
				lits[i] = lit(vars)
			}
			w := math.Round((rng.Float64()*6-3)*100) / 100
			fmt.Fprintf(&b, "%g %s\n", w, strings.Join(lits, " ^ "))
		}
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "%g %s\n", math.Round((rng.Float64()*4-2)*100)/100, lit([]string{"x"}))
		}
		evidence := ""
		if rng.IntN(2) == 0 {
			evidence = []string{"P(A)\n", "!Q(B)\n", "R(A)\n!P(B)\n"}[rng.IntN(3)]
		}
		prog := b.String()
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			p, ev, net := network(t, prog, evidence, Options{Query: preds})
			res, err := net.Marginals(context.Background(), "exact", DefaultMAPOptions(), SampleOptions{Seed: 1})
			if err != nil {
				t.Fatalf("%s\n%v", prog, err)
			}
			g := res.Ground
			n := len(res.Probs)
			if n > 12 {
				t.Fatalf("%d atoms", n)
			}
			names := make([]string, n)
			for v := range names {
				names[v] = key(g.Vars[v].Pred.Name, g.Args(v))
			}
			base := world{}
			for _, a := range ev {
				base[key(a.Pred, constants(a.Args))] = a.Value == 1
			}
			scores, top := definitionScores(t, p, net.Domains, names, base, nil)
			want := definitionMarginals(scores, top, n)
			for v := range n {
				if got := res.Probs[v]; math.Abs(got-want[v]) > 1e-9 {
					t.Errorf("%s\n%s = %.9f, the definition gives %.9f", prog, names[v], got, want[v])
				}
			}
			m, err := net.MAP(context.Background(), DefaultMAPOptions())
			if err != nil {
				t.Fatal(err)
			}
			mask := 0
			for v, x := range m.Values {
				if x == 1 {
					mask |= 1 << v
				}
			}
			if len(m.Values) == n && scores[mask] < top-1e-9 {
				t.Errorf("%s\nMAP world scores %v, best %v", prog, scores[mask], top)
			}
		})
	}
}

// TestLearnConjunctionWeights: pseudo-likelihood learning recovers the
// weights of conjunctions (whose one clause carries the negated weight)
// and of a formula with a unit clause beside a clause of two literals, on
// data drawn from the definition's distribution over (Smokes, Cancer,
// Asthma) per person. A wrong sign on the gathered clause learns -1.2
// where 1.2 generated the data.
func TestLearnConjunctionWeights(t *testing.T) {
	// The formulas and their truth in a state (bit 0 Smokes, 1 Cancer, 2
	// Asthma); the weights are those of the definition (Alchemy's rule
	// gives each formula's factor exactly for the first three; the last,
	// Asthma ^ (Smokes v Cancer), is two clauses of half its weight each,
	// so its weight generates and is learned as that pair).
	type feature struct {
		text string
		w    float64
		f    func(s, c, a bool) float64
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	features := []feature{
		{"Smokes(x) ^ Cancer(x)", 1.2, func(s, c, a bool) float64 { return b2f(s && c) }},
		{"!Smokes(x) ^ !Asthma(x) ^ Cancer(x)", -0.9, func(s, c, a bool) float64 { return b2f(!s && !a && c) }},
		{"Smokes(x)", -0.6, func(s, c, a bool) float64 { return b2f(s) }},
		{"Asthma(x) ^ (Smokes(x) v Cancer(x))", 1.6, func(s, c, a bool) float64 { return (b2f(a) + b2f(s || c)) / 2 }},
	}
	var p [8]float64
	z := 0.0
	for st := range 8 {
		e := 0.0
		for _, f := range features {
			e += f.w * f.f(st&1 == 1, st&2 == 2, st&4 == 4)
		}
		p[st] = math.Exp(e)
		z += p[st]
	}
	n := 6000
	rng := rand.New(rand.NewPCG(5, 9))
	var prog, db strings.Builder
	prog.WriteString("person = {")
	for i := range n {
		if i > 0 {
			prog.WriteString(", ")
		}
		fmt.Fprintf(&prog, "P%d", i)
		u, st := rng.Float64()*z, 0
		for u > p[st] {
			u -= p[st]
			st++
		}
		for k, name := range []string{"Smokes", "Cancer", "Asthma"} {
			if st>>k&1 == 1 {
				fmt.Fprintf(&db, "%s(P%d)\n", name, i)
			}
		}
	}
	prog.WriteString("}\nSmokes(person)\nCancer(person)\nAsthma(person)\n")
	for _, f := range features {
		prog.WriteString("0 " + f.text + "\n")
	}
	pr, err := ParseProgram("gen.mln", []byte(prog.String()))
	if err != nil {
		t.Fatal(err)
	}
	atoms, err := ParseAtoms("gen.db", []byte(db.String()), pr, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := LearnPLL(context.Background(), pr, atoms, []string{"Smokes", "Cancer", "Asthma"}, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range features {
		if math.Abs(res.Weights[i]-f.w) > 0.2 {
			t.Errorf("%s: learned %.3f, generating weight %.3f", f.text, res.Weights[i], f.w)
		}
	}
	t.Logf("learned %.3f (converged %v)", res.Weights, res.Converged)
}

// definitionScores is the log-weight, by the formulas' definition
// (score), of every world over the unknown atoms names (bit v of a world's
// index is names[v]) with the evidence base fixed, plus log p or log(1-p)
// for each soft atom of prior; and the largest of them.
func definitionScores(t *testing.T, p *Program, dom map[string][]string, names []string, base world, prior map[string]float64) ([]float64, float64) {
	t.Helper()
	scores := make([]float64, 1<<len(names))
	top := math.Inf(-1)
	for mask := range scores {
		w := world{}
		for k, v := range base {
			w[k] = v
		}
		for v, name := range names {
			w[name] = mask>>v&1 == 1
		}
		s, _ := score(t, p, w, dom)
		for k, q := range prior {
			if w[k] {
				s += math.Log(q)
			} else {
				s += math.Log(1 - q)
			}
		}
		scores[mask] = s
		top = max(top, s)
	}
	return scores, top
}

// definitionMarginals is each of n atoms' probability under the worlds'
// log-weights scores (largest top).
func definitionMarginals(scores []float64, top float64, n int) []float64 {
	want := make([]float64, n)
	z := 0.0
	for mask, s := range scores {
		e := math.Exp(s - top)
		z += e
		for v := range n {
			if mask>>v&1 == 1 {
				want[v] += e
			}
		}
	}
	for v := range want {
		want[v] /= z
	}
	return want
}
