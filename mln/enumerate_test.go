package mln

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// needle is the outside tester's needle: n atoms, each with a unit clause
// !S_i of weight a_i, and one clause !S_0 v ... v !S_{k-1} v S_k v ... v
// S_{n-1} of weight -W, violated only in the world x* where the first k
// atoms are true and the others false, which it makes e^W times heavier:
// a world far from where every chain starts. With q_i = e^{a_i} (the
// weight of S_i false) and f = prod_i (S_i true in x* ? 1 : q_i),
// Z = e^{-W} prod (q_i+1) + (1-e^{-W}) f and
// P(S_j) = (e^{-W} prod_{i!=j} (q_i+1) + (1-e^{-W}) f [j < k]) / Z.
func needle(n, k int, a []float64, W float64) (*maxsat.Instance, []float64) {
	in := &maxsat.Instance{NumVars: n}
	all := make([]maxsat.Lit, n)
	for i := range n {
		_ = in.AddClause(a[i], false, maxsat.Not(i))
		all[i] = maxsat.Pos(i)
		if i < k {
			all[i] = maxsat.Not(i)
		}
	}
	_ = in.AddClause(W, false, all...)
	in.Weight[len(in.Weight)-1] = -W // AddClause takes no negative weight
	// In logs, relative to log f + W, so that nothing overflows.
	logProdQ1, logF := 0.0, 0.0
	for i := range n {
		logProdQ1 += math.Log1p(math.Exp(a[i]))
		if i >= k {
			logF += a[i]
		}
	}
	ref := logF
	z := math.Exp(-W+logProdQ1-ref) + (1 - math.Exp(-W))
	want := make([]float64, n)
	for j := range n {
		p := math.Exp(-W + logProdQ1 - math.Log1p(math.Exp(a[j])) - ref)
		if j < k {
			p += 1 - math.Exp(-W)
		}
		want[j] = p / z
	}
	return in, want
}

// TestEnumerateNeedle: the tester's needle of 22 atoms (needle5.mln:
// a_i 2.5-3.44, k = 11, W = 35.15, where x* holds a quarter of the mass),
// which MC-SAT answered 0.0423 for 0.2696 with R-hat 1.000, is exact by
// enumeration under the default limits, and so are needles 100 times
// heavier (log-sum-exp; a junction tree lost the heavy world there).
func TestEnumerateNeedle(t *testing.T) {
	tester := []float64{3.12, 3.24, 3.3, 3.44, 3.24, 3.42, 2.53, 2.97, 3.44, 3.15, 3.4, 2.61, 2.97, 2.75, 3.04, 3.07, 2.51, 2.72, 2.78, 3.42, 3.27, 2.66}
	for _, tc := range []struct {
		n, k  int
		scale float64
	}{{22, 11, 1}, {20, 5, 100}, {14, 14, 100}} {
		a := make([]float64, tc.n)
		W := 0.0
		for i := range a {
			a[i] = tester[i] * tc.scale
			if i < tc.k {
				W += a[i]
			}
		}
		// x* as heavy as the all-false world: P(S_0) near 1/2.
		if tc.n == 22 {
			W = 35.15
		}
		in, want := needle(tc.n, tc.k, a, W)
		res, err := ExactMarginals(context.Background(), in, ExactOptions{}, true)
		if err != nil {
			t.Fatalf("n %d: %v", tc.n, err)
		}
		if res.Components[0].Method != ExactEnumeration {
			t.Errorf("n %d: method %s", tc.n, res.Components[0].Method)
		}
		if worst, at := worstError(res.Probs, want); worst > 1e-9 || math.IsNaN(res.Probs[at]) {
			t.Errorf("n %d: atom %d has %.12f, closed form %.12f", tc.n, at, res.Probs[at], want[at])
		}
		t.Logf("n %d: P(S_0) = %.6f (closed form %.6f)", tc.n, res.Probs[0], want[0])
	}
}

// TestEnumerateAgainstEnumeration: the Gray-code enumeration against the
// plain enumeration of the tests on random networks with hard clauses,
// near-deterministic and negative weights, repeated atoms in a clause, and
// weights in the hundreds.
func TestEnumerateAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for i := range 60 {
		in := randomHardNetwork(rng, 3+rng.IntN(12), i%2 == 1)
		if i%3 == 0 {
			for c := range in.Weight {
				in.Weight[c] *= 60
			}
		}
		if i%5 == 0 && in.NumVars > 1 {
			// A negative weight, and an atom twice in one clause.
			in.Lits = append(in.Lits, maxsat.Pos(0), maxsat.Pos(0), maxsat.Not(1))
			in.Start = append(in.Start, int32(len(in.Lits)))
			in.Weight = append(in.Weight, -1.3)
			in.Hard = append(in.Hard, false)
		}
		if !feasible(in) {
			if _, err := enumerate(context.Background(), in); err != errNoWorld {
				t.Errorf("case %d: infeasible, got %v", i, err)
			}
			continue
		}
		want := exactMarginals(in)
		got, err := enumerate(context.Background(), in)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if worst, at := worstError(got, want); worst > 1e-9 {
			t.Errorf("case %d (%d atoms): atom %d has %.12f, enumeration %.12f", i, in.NumVars, at, got[at], want[at])
		}
	}
}

// BenchmarkEnumerate22 times the needle of 22 atoms and a 22-atom random
// network of clauses of three literals (2^22 worlds).
func BenchmarkEnumerate22(b *testing.B) {
	a := make([]float64, 22)
	for i := range a {
		a[i] = 3.12 + 0.01*float64(i)
	}
	needleIn, _ := needle(22, 11, a, 35.15)
	rng := rand.New(rand.NewPCG(1, 1))
	dense := &maxsat.Instance{NumVars: 22}
	for range 66 {
		_ = dense.AddClause(rng.Float64()*2-1, false, maxsat.Pos(rng.IntN(22)), maxsat.Not(rng.IntN(22)), maxsat.Pos(rng.IntN(22)))
	}
	for name, in := range map[string]*maxsat.Instance{"needle": needleIn, "dense": dense} {
		b.Run(name, func(b *testing.B) {
			b.ReportMetric(enumerationWork(in), "work")
			for b.Loop() {
				if _, err := enumerate(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestJunctionTreeHeavyWeights: with weights in the hundreds a junction
// tree's scaled tables lose entries below e^-745 of their largest, which
// the other tables can make the mass: a 12-atom needle with weights near
// 300 gave P = 1 for an exact 2e-22, by junction tree, with no warning.
// The scaled tree now says so and the log-domain one answers: forced past
// enumeration (MaxEnumeration 1), the needle against its closed form and
// random networks with weights times 100 and 300 against enumeration.
func TestJunctionTreeHeavyWeights(t *testing.T) {
	tester := []float64{3.12, 3.24, 3.3, 3.44, 3.24, 3.42, 2.53, 2.97, 3.44, 3.15, 3.4, 2.61}
	opt := ExactOptions{MaxEnumeration: 1}
	trees := 0
	check := func(name string, in *maxsat.Instance, want []float64) {
		t.Helper()
		res, err := ExactMarginals(context.Background(), in, opt, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range res.Components {
			if c.Method != ExactJunctionTree {
				return // not a junction tree's: counted or sampled
			}
		}
		trees++
		if worst, at := worstError(res.Probs, want); worst > 1e-9 || math.IsNaN(res.Probs[at]) {
			t.Errorf("%s: atom %d has %.6g, want %.6g", name, at, res.Probs[at], want[at])
		}
	}
	for _, k := range []int{3, 6, 12} {
		a := make([]float64, len(tester))
		W := 0.0
		for i := range a {
			a[i] = 100 * tester[i]
			if i < k {
				W += a[i]
			}
		}
		in, want := needle(len(a), k, a, W-1)
		check(fmt.Sprintf("needle of %d", k), in, want)
	}
	rng := rand.New(rand.NewPCG(17, 3))
	for i := range 60 {
		in := randomHardNetwork(rng, 3+rng.IntN(10), i%2 == 1)
		for c := range in.Weight {
			in.Weight[c] *= []float64{100, 300}[i%2]
		}
		if !feasible(in) {
			continue
		}
		check(fmt.Sprintf("case %d (%d atoms)", i, in.NumVars), in, exactMarginals(in))
	}
	if trees < 30 {
		t.Errorf("only %d of the networks went to a junction tree", trees)
	}
}

// TestEnumerateHeavySymmetric: on a ring whose clauses come in
// complementary pairs of one weight (a_i v a_{i+1} and !a_i v !a_{i+1}),
// flipping every atom maps each world to one of the same weight, so every
// marginal is 1/2 exactly. With weights in the thousands the running
// log-weight, updated at every flip, drifted (3.6e-12 at 13 atoms here,
// 1.5e-8 in a review's case) before it was summed with compensation.
func TestEnumerateHeavySymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 13))
	for _, tc := range []struct {
		n int
		w float64
	}{{13, 3000}, {16, 3000}, {12, 0.1}, {14, 1e5}, {15, 1}} {
		in := &maxsat.Instance{NumVars: tc.n}
		for i := range tc.n {
			// Each pair has its own weight, up to tc.w.
			j := (i + 1) % tc.n
			w := tc.w * (0.5 + rng.Float64())
			_ = in.AddClause(w, false, maxsat.Pos(i), maxsat.Pos(j))
			_ = in.AddClause(w, false, maxsat.Not(i), maxsat.Not(j))
			w = tc.w * rng.Float64()
			_ = in.AddClause(w, false, maxsat.Pos(i))
			_ = in.AddClause(w, false, maxsat.Not(i))
		}
		p, err := enumerate(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, v := range p {
			worst = max(worst, math.Abs(v-0.5))
		}
		if worst > 1e-12 {
			t.Errorf("n %d, weight %g: largest |P - 1/2| = %.3g", tc.n, tc.w, worst)
		}
	}
}
