package mln

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// randomHardNetwork is a random network over n atoms built to defeat
// samplers: hard clauses of two and three literals that tie many atoms
// together (more than Gibbs' blocks hold), near-deterministic soft clauses
// (|w| 8-20) of both signs, weak unit clauses, and, with sym, pairs of
// atoms made interchangeable (every clause of atom 2i has a twin on atom
// 2i+1) so that the network has symmetric modes.
func randomHardNetwork(rng *rand.Rand, n int, sym bool) *maxsat.Instance {
	in := &maxsat.Instance{NumVars: n}
	lit := func(v int) maxsat.Lit {
		if rng.IntN(2) == 0 {
			return maxsat.Not(v)
		}
		return maxsat.Pos(v)
	}
	add := func(w float64, hard bool, lits ...maxsat.Lit) {
		if err := in.AddClause(math.Abs(w), hard, lits...); err != nil {
			panic(err)
		}
		in.Weight[len(in.Weight)-1] = w
		if !sym {
			return
		}
		twin := make([]maxsat.Lit, len(lits))
		for i, l := range lits {
			v := l.Var() ^ 1
			if v >= n {
				v = l.Var()
			}
			twin[i] = maxsat.Pos(v)
			if l.Neg() {
				twin[i] = maxsat.Not(v)
			}
		}
		if err := in.AddClause(math.Abs(w), hard, twin...); err != nil {
			panic(err)
		}
		in.Weight[len(in.Weight)-1] = w
	}
	// A hard chain of implications ties every atom to the next.
	for v := 0; v+1 < n; v++ {
		if rng.IntN(3) > 0 {
			add(0, true, maxsat.Not(v), lit(v+1), lit(rng.IntN(n)))
		}
	}
	for range n {
		k := 1 + rng.IntN(3)
		lits := make([]maxsat.Lit, k)
		for i := range lits {
			lits[i] = lit(rng.IntN(n))
		}
		w := 2*rng.Float64() - 1
		if rng.IntN(3) == 0 {
			w = 8 + 12*rng.Float64()
			if rng.IntN(2) == 0 {
				w = -w
			}
		}
		add(w, false, lits...)
	}
	return in
}

func feasible(in *maxsat.Instance) bool {
	x := make([]bool, in.NumVars)
	for mask := 0; mask < 1<<in.NumVars; mask++ {
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		if _, hv := in.Eval(x); hv == 0 {
			return true
		}
	}
	return false
}

// TestExactMarginalsAgainstEnumeration compares exact inference with the
// marginals of every world enumerated, on the sampler test networks and on
// random networks with hard, near-deterministic, negative and symmetric
// clauses, under the default limits and under limits so small that
// components go to lifted counting (over exchangeable classes and single
// atoms) instead of the junction tree.
func TestExactMarginalsAgainstEnumeration(t *testing.T) {
	cases := samplerCases(t)
	rng := rand.New(rand.NewPCG(41, 1))
	for i := range 40 {
		in := randomHardNetwork(rng, 6+rng.IntN(11), i%2 == 1)
		if feasible(in) {
			cases["random hard "+itoa(i)] = in
		}
	}
	limits := map[string]ExactOptions{
		"default":        {},
		"counting":       {MaxClique: 2, MaxConfigs: 1 << 17, MaxEnumeration: 1},
		"enumeration":    {MaxClique: 2, MaxConfigs: 1},
		"model counting": {MaxClique: 1, MaxConfigs: 1, MaxEnumeration: 1},
	}
	counted := 0
	for name, in := range cases {
		want := exactMarginals(in)
		for lname, opt := range limits {
			res, err := ExactMarginals(context.Background(), in, opt, true)
			if err != nil {
				t.Errorf("%s, %s limits: %v", name, lname, err)
				continue
			}
			if worst, at := worstError(res.Probs, want); worst > 1e-9 {
				t.Errorf("%s, %s limits: atom %d has %.12f, enumeration %.12f", name, lname, at, res.Probs[at], want[at])
			}
			if res.ExactAtoms() != in.NumVars || res.Rest != nil {
				t.Errorf("%s, %s limits: %d of %d atoms exact, rest %v", name, lname, res.ExactAtoms(), in.NumVars, res.Rest)
			}
			for _, c := range res.Components {
				if c.Method == ExactModelCounting {
					counted++
				}
			}
		}
	}
	if counted < len(cases)/2 {
		t.Errorf("model counting solved %d components of %d cases: the limits do not reach it", counted, len(cases))
	}
}

// completeGraph is w S(x) <=> S(y) over n exchangeable people with the
// unit clause h S(x): as ground clauses, !S_x v S_y and S_x v !S_y of
// weight w/2 for every ordered pair x != y (the formula's weight split
// among its two clauses, the pair's two groundings merged by the
// samplers into one clause of weight w each way), and S_x of weight h.
func completeGraph(n int, w, h float64) *maxsat.Instance {
	in := &maxsat.Instance{NumVars: n}
	for x := range n {
		for y := range n {
			if x != y {
				_ = in.AddClause(w/2, false, maxsat.Not(x), maxsat.Pos(y))
				_ = in.AddClause(w/2, false, maxsat.Pos(x), maxsat.Not(y))
			}
		}
		_ = in.AddClause(math.Abs(h), false, maxsat.Pos(x))
		in.Weight[len(in.Weight)-1] = h
	}
	return in
}

// completeGraphMarginal is the closed form of completeGraph's marginal: a
// world with k of n atoms true violates 2k(n-k) of the pairs' merged
// clauses of weight w... as ground clauses, each unordered pair with
// exactly one atom true violates one clause of each of its two groundings,
// w/2 each, so w in all; it satisfies h k of the unit clauses.
func completeGraphMarginal(n int, w, h float64) float64 {
	lw := make([]float64, n+1)
	top := math.Inf(-1)
	for k := range n + 1 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		lw[k] = a - b - c - w*float64(k*(n-k)) + h*float64(k)
		top = max(top, lw[k])
	}
	z, e := 0.0, 0.0
	for k, l := range lw {
		z += math.Exp(l - top)
		e += float64(k) * math.Exp(l-top)
	}
	return e / (z * float64(n))
}

// TestExactCompleteGraph checks lifted counting on the complete graph of
// soft equivalences at sizes no junction tree reaches, against the closed
// form, and at 12 people against enumeration.
func TestExactCompleteGraph(t *testing.T) {
	for _, tc := range []struct {
		n    int
		w, h float64
	}{{12, 1.2, 0.3}, {40, 0.8, 0.1}, {40, 1.5, -0.2}, {200, 0.3, 0.05}} {
		in := completeGraph(tc.n, tc.w, tc.h)
		want := completeGraphMarginal(tc.n, tc.w, tc.h)
		if tc.n <= 12 {
			if e := exactMarginals(in)[0]; math.Abs(e-want) > 1e-9 {
				t.Fatalf("n %d: the closed form %.9f disagrees with enumeration %.9f", tc.n, want, e)
			}
		}
		res, err := ExactMarginals(context.Background(), in, ExactOptions{}, true)
		if err != nil {
			t.Fatalf("n %d: %v", tc.n, err)
		}
		for v, p := range res.Probs {
			if math.Abs(p-want) > 1e-9 {
				t.Fatalf("n %d: atom %d has %.12f, closed form %.12f", tc.n, v, p, want)
			}
		}
		if tc.n > 20 && (len(res.Components) != 1 || res.Components[0].Method != ExactCounting || res.Components[0].Classes != 1) {
			t.Errorf("n %d: components %+v, want one counted class", tc.n, res.Components)
		}
	}
}

// TestExactTooLarge checks that a component too large for both methods
// is refused with its cost when strict, and otherwise left to be sampled
// while the rest is exact.
func TestExactTooLarge(t *testing.T) {
	// A 6x6 grid of soft equivalences with random unit clauses (no two
	// atoms exchangeable; treewidth 6), beside a small chain.
	rng := rand.New(rand.NewPCG(2, 3))
	in := &maxsat.Instance{NumVars: 40}
	id := func(r, c int) int { return r*6 + c }
	for r := range 6 {
		for c := range 6 {
			_ = in.AddClause(0.1+rng.Float64(), false, maxsat.Pos(id(r, c)))
			if c+1 < 6 {
				_ = in.AddClause(1, false, maxsat.Not(id(r, c)), maxsat.Pos(id(r, c+1)))
			}
			if r+1 < 6 {
				_ = in.AddClause(1, false, maxsat.Not(id(r, c)), maxsat.Pos(id(r+1, c)))
			}
		}
	}
	_ = in.AddClause(0, true, maxsat.Not(36), maxsat.Pos(37))
	_ = in.AddClause(2, false, maxsat.Not(37), maxsat.Pos(38))
	_ = in.AddClause(0, true, maxsat.Pos(39)) // propagated
	opt := ExactOptions{MaxClique: 4, MaxConfigs: 64, MaxModelCount: 1}
	_, err := ExactMarginals(context.Background(), in, opt, true)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Component.Atoms != 36 || tl.Component.Width <= 4 {
		t.Fatalf("strict: got %v, want a TooLargeError for the 36-atom grid", err)
	}
	res, err := ExactMarginals(context.Background(), in, opt, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rest == nil || res.Rest.NumVars != 36 || res.ExactAtoms() != 4 {
		t.Fatalf("rest %v, %d exact atoms; want the grid's 36 atoms to sample and 4 exact", res.Rest, res.ExactAtoms())
	}
	if res.Probs[39] != 1 || res.Probs[36] == 0 {
		t.Errorf("atom 39 (hard unit) %v, atom 36 %v", res.Probs[39], res.Probs[36])
	}
}

// gridNetwork is an r x c grid of soft equivalences (weight 1) with random
// unit clauses: treewidth min(r, c).
func gridNetwork(r, c int, seed uint64) *maxsat.Instance {
	rng := rand.New(rand.NewPCG(seed, 9))
	in := &maxsat.Instance{NumVars: r * c}
	for i := range r {
		for j := range c {
			v := i*c + j
			_ = in.AddClause(rng.Float64(), false, maxsat.Pos(v))
			if j+1 < c {
				_ = in.AddClause(1, false, maxsat.Not(v), maxsat.Pos(v+1))
				_ = in.AddClause(1, false, maxsat.Pos(v), maxsat.Not(v+1))
			}
			if i+1 < r {
				_ = in.AddClause(1, false, maxsat.Not(v), maxsat.Pos(v+c))
				_ = in.AddClause(1, false, maxsat.Pos(v), maxsat.Not(v+c))
			}
		}
	}
	return in
}

// BenchmarkExactGrid measures exact inference on grids of widths 8 and 12
// (junction tree cliques of about width+4 atoms), 40 rows each: ns/op is
// one network, entries its junction tree's table entries. Widths 16 and 19
// were listed too, and failed: their cliques (20 atoms and more, 8.5e6 and
// 9.2e6 entries) pass the default limits, which refuse them as designed.
func BenchmarkExactGrid(b *testing.B) {
	opt := ExactOptions{}
	for _, w := range []int{8, 12} {
		in := gridNetwork(40, w, 1)
		b.Run("width-"+itoa(w), func(b *testing.B) {
			var res *ExactResult
			for b.Loop() {
				var err error
				if res, err = ExactMarginals(context.Background(), in, opt, true); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(res.Components[0].Entries, "entries")
			b.ReportMetric(float64(res.Components[0].Width), "clique")
		})
	}
}

// TestExactUnderflow: weights of 800 that pull apart make the junction
// tree's messages underflow (every entry of a product below float64's
// range). A component whose worlds are few is enumerated (log-weights kept
// exactly), before any junction tree when the weights span more than 700;
// otherwise the junction tree runs on logarithms, and without one
// (cliques too large) it goes to counting, which sums in log space. With the clauses
// a (800), !a v b (800) and b (-800), three worlds weigh 800 and one 0, so
// P(a) = 2/3 and P(b) = 1/3.
func TestExactUnderflow(t *testing.T) {
	in := clauses(t, 2, "800: 1", "800: -1 2", "-800: 2")
	for _, tc := range []struct {
		opt    ExactOptions
		method string
	}{{ExactOptions{}, ExactEnumeration}, {ExactOptions{MaxEnumeration: 1}, ExactJunctionTree},
		{ExactOptions{MaxEnumeration: 1, MaxClique: 1}, ExactCounting}} {
		res, err := ExactMarginals(context.Background(), in, tc.opt, true)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Probs[0]-2.0/3) > 1e-9 || math.Abs(res.Probs[1]-1.0/3) > 1e-9 || res.Components[0].Method != tc.method {
			t.Errorf("got %v by %s, want [2/3 1/3] by %s", res.Probs, res.Components[0].Method, tc.method)
		}
	}
}
