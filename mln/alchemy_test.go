package mln

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// alchemyCost is Alchemy's cost of world x by its definition: identical
// ground clauses merged with their weights summed after every soft unit
// clause !a of weight w is rewritten as a of weight -w; a clause of positive
// weight costs w when violated, one of negative weight |w| when satisfied.
func alchemyCost(in *maxsat.Instance, x []bool) (float64, int) {
	merged := map[string]float64{}
	sat := map[string]bool{}
	for c := range in.NumClauses() {
		if in.Hard[c] {
			continue
		}
		lits := slices.Clone(in.Clause(c))
		w := in.Weight[c]
		if len(lits) == 1 && lits[0].Neg() {
			lits[0], w = maxsat.Pos(lits[0].Var()), -w
		}
		slices.Sort(lits)
		k := fmt.Sprint(lits)
		merged[k] += w
		s := false
		for _, l := range lits {
			s = s || x[l.Var()] != l.Neg()
		}
		sat[k] = s
	}
	cost := 0.0
	for k, w := range merged {
		if (w > 0 && !sat[k]) || (w < 0 && sat[k]) {
			cost += math.Abs(w)
		}
	}
	return cost, len(merged)
}

// TestAlchemyConvention pins how hinge's cost relates to Alchemy's: in every
// world of small networks, hinge's cost (violated weight as grounded) minus
// AlchemyView.Offset is Alchemy's cost of the merged network, and the
// merged clause count is Alchemy's.
func TestAlchemyConvention(t *testing.T) {
	for _, tc := range []struct {
		name, prog, evidence string
		query                []string
		clauses              int     // Alchemy's ground clauses
		offset               float64 // constant hinge counts and Alchemy does not
		mapCost              float64 // hinge's optimal cost
	}{
		{"opposite units and a clause written twice", `person = {A, B}
S(person)
C(person)
1 S(x)
2 !S(x)
0.5 !S(x) v C(x)
0.25 C(x) v !S(x)
`, "", []string{"S", "C"}, 4, 2, 2},
		{"units left by evidence", `F(person, person)
S(person)
1.5 F(x, y) ^ S(x) => S(y)
1 !S(x)
0.5 S(x)
`, "F(A, B)\nF(B, A)\nS(C)\n", []string{"S"}, 4, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, net := network(t, tc.prog, tc.evidence, Options{Query: tc.query})
			res, err := net.MAP(context.Background(), DefaultMAPOptions())
			if err != nil {
				t.Fatal(err)
			}
			_, in, err := net.GroundClauses(DefaultMAPOptions().Ground)
			if err != nil {
				t.Fatal(err)
			}
			if in.NumVars > 16 {
				t.Fatalf("%d unknown atoms: too many to enumerate", in.NumVars)
			}
			av := Alchemy(in)
			if av.Clauses != tc.clauses || math.Abs(av.Offset-tc.offset) > 1e-12 {
				t.Errorf("Alchemy view %+v, want %d clauses and offset %v", av, tc.clauses, tc.offset)
			}
			if math.Abs(res.Cost-tc.mapCost) > 1e-9 || res.Alchemy != av {
				t.Errorf("MAP cost %v, view %+v; want %v, %+v", res.Cost, res.Alchemy, tc.mapCost, av)
			}
			checkWorlds(t, in, av)
		})
	}
}

// TestAlchemyNegativeWeights checks the offset where clauses of negative
// weight merge with positive ones, on a hand-made instance.
func TestAlchemyNegativeWeights(t *testing.T) {
	in := &maxsat.Instance{}
	for _, c := range []struct {
		w    float64
		lits []maxsat.Lit
	}{
		{2, []maxsat.Lit{maxsat.Pos(0), maxsat.Not(1)}},
		{-0.5, []maxsat.Lit{maxsat.Not(1), maxsat.Pos(0)}}, // merges with the first: 2 - 0.5
		{-1, []maxsat.Lit{maxsat.Pos(2)}},
		{-0.75, []maxsat.Lit{maxsat.Not(2)}}, // a of weight 0.75 beside a of weight -1
		{1.5, []maxsat.Lit{maxsat.Pos(1), maxsat.Pos(2)}},
	} {
		if err := in.AddClause(math.Abs(c.w), false, c.lits...); err != nil {
			t.Fatal(err)
		}
		in.Weight[len(in.Weight)-1] = c.w
	}
	av := Alchemy(in)
	if av.Clauses != 3 || math.Abs(av.Offset-1.25) > 1e-12 {
		t.Errorf("Alchemy view %+v, want 3 clauses and offset 0.5 + 0.75", av)
	}
	checkWorlds(t, in, av)
}

// checkWorlds checks in every world of in that hinge's cost (a clause of
// weight w < 0 costs |w| when satisfied) minus av.Offset is Alchemy's cost by
// its definition, over av.Clauses merged clauses.
func checkWorlds(t *testing.T, in *maxsat.Instance, av AlchemyView) {
	t.Helper()
	x := make([]bool, in.NumVars)
	for mask := range 1 << in.NumVars {
		cost := 0.0
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		for c := range in.NumClauses() {
			w := in.Weight[c]
			if in.Satisfied(c, x) == (w < 0) {
				cost += math.Abs(w)
			}
		}
		ac, n := alchemyCost(in, x)
		if n != av.Clauses || math.Abs(cost-av.Offset-ac) > 1e-9 {
			t.Fatalf("world %v: hinge cost %v - offset %v != Alchemy's %v (%d merged clauses, view %d)", x, cost, av.Offset, ac, n, av.Clauses)
		}
	}
}
