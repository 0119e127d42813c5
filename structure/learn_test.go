package structure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// planted generates data where T(x, z) holds (with probability 0.9) when
// P(x, y) & Q(z, y) for some y (Q walked backwards), and otherwise with
// probability 0.03; R is an independent random relation.
func planted(t testing.TB, seed uint64) *store.Store { return plantedSized(t, seed, 40, 0.04) }

// plantedSized is planted over n entities with P and Q of the given
// density.
func plantedSized(t testing.TB, seed uint64, n int, density float64) *store.Store {
	r := rand.New(rand.NewPCG(seed, 11))
	name := func(i int) string { return fmt.Sprintf("e%d", i) }
	var obs, tg []atom
	p := map[[2]int]bool{}
	q := map[[2]int]bool{}
	for x := range n {
		for y := range n {
			if r.Float64() < density {
				p[[2]int{x, y}] = true
				obs = append(obs, atom{"P", []string{name(x), name(y)}, 1})
			}
			if r.Float64() < density {
				q[[2]int{x, y}] = true
				obs = append(obs, atom{"Q", []string{name(x), name(y)}, 1})
			}
			if r.Float64() < 0.05 {
				obs = append(obs, atom{"R", []string{name(x), name(y)}, 1})
			}
		}
	}
	for x := range n {
		for z := range n {
			if x == z {
				continue
			}
			linked := false
			for y := range n {
				if p[[2]int{x, y}] && q[[2]int{z, y}] {
					linked = true
				}
			}
			v := 0.0
			if (linked && r.Float64() < 0.9) || (!linked && r.Float64() < 0.03) {
				v = 1
			}
			tg = append(tg, atom{"T", []string{name(x), name(z)}, v})
		}
	}
	return world(t, map[string]int{"P": 2, "Q": 2, "R": 2, "T": 2}, []string{"T"}, obs, tg)
}

func candidates(t testing.TB, s *store.Store) []Candidate {
	res, err := Generate(context.Background(), s, []*model.Predicate{s.Model.Predicate("T")},
		GenOptions{MaxLength: 2, MinSupport: 1, MaxClauses: -1})
	if err != nil {
		t.Fatal(err)
	}
	return res.Candidates
}

const (
	plantedClause = "P(E1, E2) & Q(E3, E2) -> T(E1, E3)"
	randomClause  = "R(E1, E2) -> T(E1, E2)"
)

func TestPlantedRule(t *testing.T) {
	for _, method := range []Method{PPLL, GLS} {
		t.Run(method.String(), func(t *testing.T) {
			s := planted(t, 1)
			cands := candidates(t, s)
			opt := DefaultOptions()
			opt.Method = method
			opt.MaxRounds = 3
			res, err := Learn(context.Background(), s, cands, opt)
			if err != nil {
				t.Fatal(err)
			}
			best, bestW := "", -1.0
			weight := map[string]float64{}
			for i, c := range res.Candidates {
				weight[c.Text()] = res.Rules[i].Weight
				if !c.IsPrior() && !c.Negated && res.Rules[i].Weight > bestW {
					best, bestW = c.Text(), res.Rules[i].Weight
				}
			}
			if best != plantedClause {
				t.Errorf("largest weight %g on %s, want %s (weight %g)", bestW, best, plantedClause, weight[plantedClause])
			}
			if _, ok := weight[randomClause]; !ok {
				t.Fatalf("%s was not generated", randomClause)
			}
			if method == PPLL && weight[randomClause] != 0 {
				t.Errorf("%s: weight %g, want 0", randomClause, weight[randomClause])
			}
			if method == GLS && (len(res.Rounds) == 0 || res.Rounds[0].Added < 0 || res.Candidates[res.Rounds[0].Added].Text() != plantedClause) {
				t.Errorf("GLS rounds %+v: the first clause added should be %s", res.Rounds, plantedClause)
			}
			kept := res.Model()
			if len(kept) == 0 || kept[0].Weight < kept[len(kept)-1].Weight {
				t.Errorf("Model() not sorted by weight")
			}
		})
	}
}

// Lemma 1: the PPLL objective separates over clauses, so learning every
// clause at once gives each clause the weight it gets alone (without L2,
// which averaging over a different number of factors would rescale).
func TestPPLLSeparates(t *testing.T) {
	opt := DefaultOptions()
	opt.L2 = 0
	opt.Tol = 1e-9
	opt.Iterations = 2000
	s := planted(t, 2)
	cands := candidates(t, s)[:9]
	joint, err := Learn(context.Background(), s, cands, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cands {
		alone, err := Learn(context.Background(), planted(t, 2), []Candidate{c}, opt)
		if err != nil {
			t.Fatal(err)
		}
		a, j := alone.Rules[0].Weight, joint.Rules[i].Weight
		if math.Abs(a-j) > 1e-4*math.Max(1, math.Abs(a)) {
			t.Errorf("%s: weight %g alone, %g jointly", c.Text(), a, j)
		}
	}
}

func TestLearnErrors(t *testing.T) {
	s := planted(t, 3)
	cands := candidates(t, s)
	bad := DefaultOptions()
	bad.L2 = -1
	if _, err := Learn(context.Background(), s, cands, bad); err == nil {
		t.Error("negative L2 accepted")
	}
	if _, err := Learn(context.Background(), s, nil, DefaultOptions()); err == nil {
		t.Error("no candidates accepted")
	}
	if _, err := Learn(context.Background(), s, cands[:1], DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if _, err := Learn(context.Background(), s, cands[:1], DefaultOptions()); err == nil {
		t.Error("a model that already has rules was accepted")
	}
}

// A rule with constants that explains its target: T(x, 'hub') holds for
// the members of group 'g0' (and rarely otherwise); members of other
// groups point elsewhere. Generated with Constants, the rule grounds
// (constants quoted in the rule language) and PPLL gives it the largest
// weight of the positive clauses.
func TestLearnRuleWithConstants(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	var obs, tg []atom
	for x := range 60 {
		name := fmt.Sprintf("p%d", x)
		group := fmt.Sprintf("g%d", x%3)
		obs = append(obs, atom{"In", []string{name, group}, 1})
		if r.Float64() < 0.2 {
			obs = append(obs, atom{"Knows", []string{name, fmt.Sprintf("p%d", r.IntN(60))}, 1})
		}
		for _, place := range []string{"hub", "town", "city"} {
			v := 0.0
			if (place == "hub" && x%3 == 0 && r.Float64() < 0.95) || r.Float64() < 0.05 {
				v = 1
			}
			tg = append(tg, atom{"Visits", []string{name, place}, v})
		}
	}
	s := world(t, map[string]int{"In": 2, "Knows": 2, "Visits": 2}, []string{"Visits"}, obs, tg)
	T := []*model.Predicate{s.Model.Predicate("Visits")}
	gen, err := Generate(context.Background(), s, T, GenOptions{MinSupport: 1, Constants: 8})
	if err != nil {
		t.Fatal(err)
	}
	const want = "In(E1, 'g0') -> Visits(E1, 'hub')"
	found := false
	for _, c := range gen.Candidates {
		if c.Text() == want {
			found = true
			if c.Body != 20 || c.Support < 15 {
				t.Errorf("%s: support %d of %d body groundings, want about 19 of 20", want, c.Support, c.Body)
			}
		}
	}
	if !found {
		t.Fatalf("%s not generated:\n%v", want, clauseTexts(gen.Candidates))
	}
	// Their own support threshold: none at 20, the rule at 15.
	for _, tc := range []struct{ min, want int }{{20, 0}, {15, 2}} {
		g, err := Generate(context.Background(), s, T, GenOptions{MinSupport: 100, ConstMinSupport: tc.min, Constants: 8})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(g.Candidates) - 1; n != tc.want || (n > 0 && g.Candidates[1].Text() != want) {
			t.Errorf("constants' minimum support %d: %v", tc.min, clauseTexts(g.Candidates))
		}
	}
	res, err := Learn(context.Background(), s, gen.Candidates, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	best, bestW := "", -1.0
	for i, c := range res.Candidates {
		if c.Text() == want && res.Potentials[i] != 20 {
			t.Errorf("%s: %d ground potentials, want 20", want, res.Potentials[i])
		}
		if !c.IsPrior() && !c.Negated && res.Rules[i].Weight > bestW {
			best, bestW = c.Text(), res.Rules[i].Weight
		}
	}
	if best != want {
		t.Errorf("largest weight %g on %s, want %s", bestW, best, want)
	}
}
