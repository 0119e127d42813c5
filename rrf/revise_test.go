package rrf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

func TestReviseAddsMissingAtoms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		eps        float64
		want       []string // every parfeature after revision
	}{
		{"smokers", smokersRRF, 0.01, []string{
			"root = -2 * sum(x) NotImplied(x) + 1.5 * sum(x) Social(x) - 0.3 * sum(x) Smokes(x)",
			"NotImplied(x) = 4 * Smokes(x) + 4 * !Cancer(x)",
			"Social(x) = 0.8 * sum(y) Pair(x, y) - 1 * !Smokes(x) + 0.01 * Cancer(x)",
			"Pair(x, y) = 2 * Friends(x, y) + 2 * Smokes(y) + 0.01 * Friends(y, x) + 0.01 * Smokes(x) + 0.01 * Cancer(x) + 0.01 * Cancer(y)",
		}},
		{"types", "P(a)\nQ(a, b)\nR(b)\nroot = 1 * sum(x, y) F(x, y)\nF(x, y) = 2 * sum(z) Q(x, z) - 1 * Q(x, y)\n", -0.5, []string{
			"root = 1 * sum(x, y) F(x, y)",
			"F(x, y) = 2 * sum(z) Q(x, z) - 1 * Q(x, y) - 0.5 * P(x) - 0.5 * R(y)",
		}},
	} {
		p, err := ParseProgram("r.rrf", []byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		n := len(p.Weights)
		added, err := p.Revise(tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range p.Features {
			got = append(got, p.String(f))
		}
		if !slices.Equal(got, tc.want) || added != len(p.Weights)-n {
			t.Errorf("%s: %d added\n%s\nwant\n%s", tc.name, added, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		// The written file reads back to the same parfeatures.
		q, err := ParseProgram("r.rrf", p.WithWeights([]byte(tc.text)))
		if err != nil {
			t.Fatal(err)
		}
		for k, f := range q.Features {
			if s := q.String(f); s != got[k] {
				t.Errorf("%s: read back %s, want %s", tc.name, s, got[k])
			}
		}
	}
	p, _ := ParseProgram("r.rrf", []byte(smokersRRF))
	for _, eps := range []float64{0, math.NaN(), math.Inf(1)} {
		if _, err := p.Revise(eps); err == nil {
			t.Errorf("eps %v accepted", eps)
		}
	}
}

// groundedLogP grounds the program over three people (Friends given,
// Smokes and Cancer unknown) and returns log P of every assignment of the
// unknown atoms, keyed by the true atoms' names, by enumeration; and the
// grounding.
func groundedLogP(t *testing.T, p *Program) (map[string]float64, *Grounded) {
	t.Helper()
	ev, err := mln.ParseAtoms("e.db", []byte("Friends(Anna, Bob)\nFriends(Bob, Carl)\nFriends(Carl, Bob)\n"), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, ev, mln.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := slices.Clone(gr.Evidence.X)
	scores := map[string]float64{}
	enumerate(x, gr.Evidence, func(y []bool) {
		var names []string
		for v, b := range y {
			if b && !gr.Evidence.Fixed[v] {
				names = append(names, mln.AtomString(gr.Atoms[v].Pred, gr.Atoms[v].Args))
			}
		}
		slices.Sort(names)
		scores[strings.Join(names, " ")] = score(gr.Net, y)
	})
	m, z := math.Inf(-1), 0.0
	for _, s := range scores {
		m = max(m, s)
	}
	for _, s := range scores {
		z += math.Exp(s - m)
	}
	for k := range scores {
		scores[k] -= m + math.Log(z)
	}
	return scores, gr
}

// TestReviseBound: the revised program's distribution differs from the
// knowledge base's by at most the documented bound 2 b_0 (log P of every
// world, by enumeration over 6 unknown atoms), and the difference vanishes
// linearly with eps.
func TestReviseBound(t *testing.T) {
	base, err := ParseProgram("s.rrf", []byte(smokersRRF))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := groundedLogP(t, base)
	var diffs []float64
	for _, eps := range []float64{0.3, -0.03, 0.003} {
		p, _ := ParseProgram("s.rrf", []byte(smokersRRF))
		n := len(p.Weights)
		if _, err := p.Revise(eps); err != nil {
			t.Fatal(err)
		}
		got, gr := groundedLogP(t, p)
		if len(got) != len(want) || len(got) != 64 {
			t.Fatalf("eps %v: %d worlds, knowledge base %d", eps, len(got), len(want))
		}
		diff := 0.0
		for k, lp := range want {
			q, ok := got[k]
			if !ok {
				t.Fatalf("world %q missing", k)
			}
			diff = max(diff, math.Abs(q-lp))
		}
		// The bound, features from the last (children) to the root.
		nt := gr.Net
		b := make([]float64, len(nt.Features))
		for i := len(nt.Features) - 1; i >= 0; i-- {
			for _, c := range nt.Features[i] {
				switch {
				case int(c.Weight) >= n:
					b[i] += math.Abs(eps)
				case c.Feature >= 0:
					b[i] += math.Abs(nt.Weights[c.Weight]) * b[c.Feature]
				}
			}
		}
		if diff == 0 || diff > 2*b[0] {
			t.Errorf("eps %v: log P moves by up to %.3g, bound %.3g", eps, diff, 2*b[0])
		}
		t.Logf("eps %v: log P moves by up to %.3g, bound %.3g", eps, diff, 2*b[0])
		diffs = append(diffs, diff)
	}
	if diffs[2] > diffs[0]/20 {
		t.Errorf("the change does not vanish with eps: %.3g", diffs)
	}
}

// TestReviseLearnsMissingLiteral: the data come from "smoking and stress
// cause cancer", the knowledge base says only "smoking causes cancer".
// After revision, learning (pseudo-likelihood or likelihood) gives the added Stressed(x)
// dependency of the rule's feature a large weight and the irrelevant
// Tall(x) a small one, and fits the data better than the knowledge base
// learned without revision.
func TestReviseLearnsMissingLiteral(t *testing.T) {
	const people = 1000
	var consts []string
	for i := range people {
		consts = append(consts, fmt.Sprintf("P%d", i))
	}
	decls := "person = {" + strings.Join(consts, ", ") + "}\nSmokes(person)\nStressed(person)\nTall(person)\nCancer(person)\n"
	const truth = "root = -3 * sum(x) NotImplied(x) - 0.5 * sum(x) Cancer(x)\nNotImplied(x) = 4 * Smokes(x) + 4 * Stressed(x) + 4 * !Cancer(x)\n"
	const kb = "root = -3 * sum(x) NotImplied(x) + 0 * sum(x) Cancer(x)\nNotImplied(x) = 4 * Smokes(x) + 4 * !Cancer(x)\n"
	gen, err := ParseProgram("truth.rrf", []byte(decls+truth))
	if err != nil {
		t.Fatal(err)
	}
	// Evidence at random; Cancer from the generating model. The people are
	// independent given the evidence, so each Cancer atom drawn from its
	// conditional is an exact sample.
	rng := rand.New(rand.NewPCG(21, 21))
	var db strings.Builder
	for _, c := range consts {
		for _, pred := range []string{"Smokes", "Stressed", "Tall"} {
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&db, "%s(%s)\n", pred, c)
			}
		}
	}
	ev, err := mln.ParseAtoms("ev.db", []byte(db.String()), gen.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(gen.Decls, ev, mln.Options{Query: []string{"Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := gen.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewState(gr.Net, gr.Evidence.X)
	if err != nil {
		t.Fatal(err)
	}
	for v, a := range gr.Atoms {
		if a.Pred == "Cancer" && rng.Float64() < 1/(1+math.Exp(-s.flipGain(v))) {
			fmt.Fprintf(&db, "Cancer(%s)\n", a.Args[0])
		}
	}
	learn := func(revise bool, method string) (*Program, *LearnResult) {
		p, err := ParseProgram("kb.rrf", []byte(decls+kb))
		if err != nil {
			t.Fatal(err)
		}
		if revise {
			if n, err := p.Revise(0.01); err != nil || n != 2 {
				t.Fatalf("revision added %d terms (%v), want Stressed(x) and Tall(x)", n, err)
			}
		}
		train, err := mln.ParseAtoms("train.db", []byte(db.String()), p.Decls, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.LearnRelational(t.Context(), train, []string{"Cancer"}, LearnOptions{Method: method, L2: 0.01, MaxIter: 40, Chains: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return p, res
	}
	_, plain := learn(false, "pll")
	for _, method := range []string{"pll", "ll"} {
		p, revised := learn(true, method)
		weight := func(pred string) float64 {
			for _, term := range p.byName["NotImplied"].Terms {
				if term.Pred == pred {
					return p.Weights[term.W]
				}
			}
			t.Fatalf("no %s term", pred)
			return 0
		}
		stressed, tall := weight("Stressed"), weight("Tall")
		if stressed < 2 || math.Abs(tall) > 0.5 || revised.PLL < plain.PLL+10 {
			t.Errorf("%s: learned NotImplied: %s\npseudo-log-likelihood %.2f, without revision %.2f", method, p.String(p.byName["NotImplied"]), revised.PLL, plain.PLL)
		}
		t.Logf("%s: learned %s; %s\npseudo-log-likelihood %.2f, without revision %.2f", method, p.String(p.byName["root"]), p.String(p.byName["NotImplied"]), revised.PLL, plain.PLL)
	}
}
