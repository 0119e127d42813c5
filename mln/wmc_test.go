package mln

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// TestModelCountAgainstEnumeration: weighted model counting against the
// marginals of every world enumerated, on random networks with hard
// chains, near-deterministic soft clauses of both signs, weights in the
// hundreds, symmetric twins (several modes), an atom twice in one clause,
// tautologies, long clauses and unit clauses; an infeasible network is
// errNoWorld.
func TestModelCountAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 7))
	infeasible := 0
	for i := range 300 {
		in := randomHardNetwork(rng, 2+rng.IntN(13), i%2 == 1)
		if i%3 == 0 {
			for c := range in.Weight {
				in.Weight[c] *= 40
			}
		}
		if i%5 == 0 && in.NumVars > 1 {
			in.Lits = append(in.Lits, maxsat.Pos(0), maxsat.Pos(0), maxsat.Not(1))
			in.Start = append(in.Start, int32(len(in.Lits)))
			in.Weight = append(in.Weight, -1.3)
			in.Hard = append(in.Hard, false)
			in.Lits = append(in.Lits, maxsat.Pos(1), maxsat.Not(1))
			in.Start = append(in.Start, int32(len(in.Lits)))
			in.Weight = append(in.Weight, 2.5)
			in.Hard = append(in.Hard, false)
		}
		if i%7 == 0 {
			// A long clause over every atom, of either sign, or hard.
			lits := make([]maxsat.Lit, in.NumVars)
			for v := range lits {
				lits[v] = maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					lits[v] = maxsat.Not(v)
				}
			}
			if err := in.AddClause(1, rng.IntN(3) == 0, lits...); err != nil {
				t.Fatal(err)
			}
			in.Weight[len(in.Weight)-1] = 30 * (rng.Float64() - 0.5)
		}
		if i%4 == 2 && in.NumVars > 2 {
			// Hard clauses that no world satisfies together: x0 both
			// ways through x1, then !x0 both ways through x2.
			a, b, c := rng.IntN(in.NumVars), rng.IntN(in.NumVars), rng.IntN(in.NumVars)
			for _, cl := range [][]maxsat.Lit{{maxsat.Pos(a), maxsat.Pos(b)}, {maxsat.Pos(a), maxsat.Not(b)}, {maxsat.Not(a), maxsat.Pos(c)}, {maxsat.Not(a), maxsat.Not(c)}} {
				if err := in.AddClause(0, true, cl...); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, _, err := modelCount(context.Background(), in, math.Inf(1))
		if !feasible(in) {
			infeasible++
			if err != errNoWorld {
				t.Errorf("case %d: infeasible, got %v", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := exactMarginals(in)
		if worst, at := worstError(got, want); worst > 1e-9 || math.IsNaN(got[at]) {
			t.Errorf("case %d (%d atoms): atom %d has %.12f, enumeration %.12f", i, in.NumVars, at, got[at], want[at])
		}
	}
	if infeasible == 0 || infeasible > 150 {
		t.Errorf("%d of 300 infeasible: the cases do not cover both", infeasible)
	}
}

// halfNeedle is a needle of n atoms (see needle) with unit weights drawn
// from 2.5-3.5 and its heavy world, half the atoms true, as heavy as the
// all-false world, and its closed-form marginals.
func halfNeedle(rng *rand.Rand, n int) (*maxsat.Instance, []float64) {
	a := make([]float64, n)
	W := 0.0
	for i := range a {
		a[i] = 2.5 + rng.Float64()
		if i < n/2 {
			W += a[i]
		}
	}
	return needle(n, n/2, a, W)
}

// TestModelCountNeedles: needles far past enumeration (60 and 200 atoms,
// a heavy world holding about half the mass) against their closed form,
// and a budget too small to finish is errCountBudget.
func TestModelCountNeedles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{22, 60, 200} {
		in, want := halfNeedle(rng, n)
		got, st, err := modelCount(context.Background(), in, 1<<26)
		if err != nil {
			t.Fatalf("n %d: %v", n, err)
		}
		if worst, at := worstError(got, want); worst > 1e-9 {
			t.Errorf("n %d: atom %d has %.12f, closed form %.12f", n, at, got[at], want[at])
		}
		t.Logf("n %d: P(S_0) = %.6f (closed form %.6f), %d nodes, %.3g units", n, got[0], want[0], st.Nodes, st.Work)
	}
	in, _ := needle(200, 100, make([]float64, 200), 1)
	if _, _, err := modelCount(context.Background(), in, 1000); err != errCountBudget {
		t.Errorf("budget 1000: %v, want errCountBudget", err)
	}
}

// BenchmarkModelCount counts random hard networks of 40 and 50 atoms
// (treewidth past the junction tree's limits at 50), reporting the
// nanoseconds per work unit that ExactOptions.MaxModelCount's default
// is set by.
func BenchmarkModelCount(b *testing.B) {
	for _, n := range []int{40, 50} {
		in := randomHardNetwork(rand.New(rand.NewPCG(1, uint64(n))), n, false)
		b.Run(itoa(n), func(b *testing.B) {
			var st wmcStats
			for b.Loop() {
				var err error
				if _, st, err = modelCount(context.Background(), in, math.Inf(1)); err != nil && err != errNoWorld {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/st.Work, "ns/unit")
			b.ReportMetric(float64(st.Nodes), "nodes")
		})
	}
}

// TestModelCountBudgetShared: a hopeless component (30 atoms, a soft
// clause on every pair, random weights: no junction tree, no enumeration,
// no exchangeable classes, no decomposition) is tried first, being
// smaller, and a needle beside it that needs more than the first round's
// budget (200 atoms, 2.7*10^5 units) is still counted exactly: the first
// failure took the whole budget, and the needle went to MC-SAT (0.042 for
// 0.163 at 40 atoms); the hopeless one is reported with the budget it ran
// past.
func TestModelCountBudgetShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const n = 200
	in, want := halfNeedle(rng, n)
	in.NumVars += 30
	for x := n; x < n+30; x++ {
		for y := x + 1; y < n+30; y++ {
			lits := []maxsat.Lit{maxsat.Pos(x), maxsat.Not(y)}
			if rng.IntN(2) == 0 {
				lits[0] = maxsat.Not(x)
			}
			if err := in.AddClause(0.2+rng.Float64(), false, lits...); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := ExactMarginals(context.Background(), in, ExactOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for v := range n {
		if !res.Exact[v] || math.Abs(res.Probs[v]-want[v]) > 1e-9 {
			t.Fatalf("needle atom %d: exact %v, %.9f; closed form %.9f", v, res.Exact[v], res.Probs[v], want[v])
		}
	}
	var methods []string
	for _, c := range res.Components {
		methods = append(methods, c.Method)
		if c.Method == Sampled && (c.Atoms != 30 || c.CountWork < 1<<21) {
			t.Errorf("sampled component %+v: want the 30-atom clique, past 2^21 units at least", c)
		}
	}
	if len(res.Components) != 2 || res.Components[0].Method != ExactModelCounting || res.Components[1].Method != Sampled || res.Components[0].Atoms != n {
		t.Errorf("components %v: want the needle counted and the clique sampled", methods)
	}
}

// TestModelCountAgainstJunctionTree: on sparse banded networks of 10-60
// atoms (clauses over nearby atoms, a quarter hard, weights of both
// signs, an eighth near-deterministic up to 15), beyond enumeration, where the component splitting and the
// cache matter, model counting agrees with the junction tree, and an
// infeasible network is infeasible for both.
func TestModelCountAgainstJunctionTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	compared, infeasible := 0, 0
	for i := range 300 {
		n := 10 + rng.IntN(50)
		in := &maxsat.Instance{NumVars: n}
		for range n + rng.IntN(n) {
			a := rng.IntN(n)
			lits := make([]maxsat.Lit, 1+rng.IntN(3))
			for k := range lits {
				v := min(max(a+rng.IntN(5)-2, 0), n-1)
				lits[k] = maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					lits[k] = maxsat.Not(v)
				}
			}
			w := 6*rng.Float64() - 3
			if rng.IntN(8) == 0 {
				w *= 5 // near-deterministic, both signs
			}
			if err := in.AddClause(math.Abs(w), rng.IntN(4) == 0, lits...); err != nil {
				t.Fatal(err)
			}
			in.Weight[len(in.Weight)-1] = w
		}
		got, _, err := modelCount(context.Background(), in, math.Inf(1))
		res, err2 := ExactMarginals(context.Background(), in, ExactOptions{MaxEnumeration: 1, MaxModelCount: 1}, false)
		if err == errNoWorld {
			infeasible++
			if err2 == nil {
				t.Errorf("case %d: model counting finds no world, the junction tree does", i)
			}
			continue
		}
		if err != nil || err2 != nil {
			t.Fatalf("case %d: %v, %v", i, err, err2)
		}
		if res.Rest != nil {
			continue // not all exact by the junction tree
		}
		compared++
		if w, at := worstError(got, res.Probs); w > 1e-9 {
			t.Errorf("case %d (%d atoms): atom %d %.12f, junction tree %.12f", i, n, at, got[at], res.Probs[at])
		}
	}
	if compared < 150 || infeasible == 0 {
		t.Errorf("%d compared, %d infeasible: the generator tests too little", compared, infeasible)
	}
}

// TestModelCountDegenerate: no atoms; atoms in no clause beside an empty
// soft clause (every atom 1/2, the clause costing nothing); an empty hard
// clause (no world); a hard unit clause and its negation (no world).
func TestModelCountDegenerate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *maxsat.Instance
		want []float64 // nil: errNoWorld
	}{
		{"no atoms", &maxsat.Instance{}, []float64{}},
		{"empty soft clause", &maxsat.Instance{NumVars: 2, Start: []int32{0, 0}, Weight: []float64{3}, Hard: []bool{false}}, []float64{0.5, 0.5}},
		{"empty hard clause", &maxsat.Instance{NumVars: 2, Start: []int32{0, 0}, Weight: []float64{0}, Hard: []bool{true}}, nil},
		{"x and not x", &maxsat.Instance{NumVars: 1, Lits: []maxsat.Lit{maxsat.Pos(0), maxsat.Not(0)}, Start: []int32{0, 1, 2}, Weight: []float64{0, 0}, Hard: []bool{true, true}}, nil},
	} {
		got, _, err := modelCount(context.Background(), tc.in, math.Inf(1))
		if tc.want == nil {
			if err != errNoWorld {
				t.Errorf("%s: %v, %v; want errNoWorld", tc.name, got, err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
			continue
		}
		if w, at := worstError(got, tc.want); w > 1e-12 {
			t.Errorf("%s: atom %d %v, want %v", tc.name, at, got[at], tc.want[at])
		}
	}
}
