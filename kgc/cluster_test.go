package kgc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// A graph where two rules are redundant (the same predictions) and two
// others overlap by a third; the Jaccard indexes, the clusters, the
// thresholds chosen on the validation triple and the scores are computed
// by hand.
func TestClusterByHand(t *testing.T) {
	const (
		a, b, c, d, e, f, x, y, z = 0, 1, 2, 3, 4, 5, 6, 7, 8
		r, s, u, v, w             = 0, 1, 2, 3, 4
	)
	g := NewGraph([]Triple{
		{H: a, R: r, T: x}, {H: c, R: r, T: y}, {H: e, R: r, T: z}, // heads of r: a, c, e; tails x, y, z
		{H: a, R: s, T: d}, {H: c, R: s, T: b}, // s and u: the same pairs
		{H: a, R: u, T: d}, {H: c, R: u, T: b},
		{H: a, R: v, T: b}, {H: e, R: v, T: f}, // v and w share (a, b) of 3 pairs
		{H: a, R: w, T: b}, {H: c, R: w, T: d},
	}, 9, 5)
	rule := func(body int32, conf float64) Rule {
		return Rule{Kind: Cyclic, Head: r, Body: []Step{{R: body}}, Conf: conf}
	}
	// Positions in the ranker (decreasing confidence): s 0, u 1, v 2, w 3.
	rules := []Rule{rule(w, 0.4), rule(s, 0.6), rule(v, 0.45), rule(u, 0.5)}
	rk := NewRanker(g, rules, Clustered)

	// Predicted pairs from the heads a, c, e (the tails x, y, z add
	// none; nor do the validation queries below): s, u {(a,d), (c,b)}; v
	// {(a,b), (e,f)}; w {(a,b), (c,d)}. Jaccard: s-u 1, v-w 1/3, the
	// other pairs 0; at threshold 0.5 s and u share a cluster, at 0.3
	// also v and w.
	valid := []Triple{{H: a, R: r, T: b}}
	known := func(t Triple) bool { return g.Has(t) || t == valid[0] }
	opt := ClusterOptions{Starts: 10, MaxRules: 10, Sketch: 16, MaxFired: 50, TopK: 100, Threads: 2}
	res, err := newClusterWork(rk, opt).relation(context.Background(), r, valid, known, []float64{0.5, 0.3}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if res.pairs != 6 || res.similar != 2 || res.similarKinds != [kindGroups]bool{true, false, false} {
		t.Fatalf("pairs %d compared, %d similar, kinds %v: want 6, 2 among the cyclic rules", res.pairs, res.similar, res.similarKinds)
	}
	if got := res.unionsByThreshold[0]; !slices.Equal(got, []int32{0, 0, 2, 3}) {
		t.Fatalf("clusters at 0.5: %v", got)
	}
	if got := res.unionsByThreshold[1]; !slices.Equal(got, []int32{0, 0, 2, 2}) {
		t.Fatalf("clusters at 0.3: %v", got)
	}

	// Query (a, r, ?): d by s, u (0.6, 0.5); b by v, w (0.45, 0.4).
	// No clustering: d 1-0.4*0.5 = 0.8, b 1-0.55*0.6 = 0.67, d first.
	// At 0.5: d 0.6 (s, u one cluster), b 0.67: b first. At 0.3: d 0.6,
	// b 0.45 (v, w one cluster): d first. (?, r, b) is the same with c
	// for d and a for b. So the validation triple r(a, b) chooses 0.5 for
	// cyclic rules both ways.
	rep, err := rk.Cluster(context.Background(), valid, known, ClusterOptions{Thresholds: []float64{0.3, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range 2 {
		if got := rep.Thresholds[r][dir]; got != [kindGroups]float64{0.5, 0, 0} {
			t.Fatalf("direction %d: thresholds %v, want 0.5 for cyclic rules", dir, got)
		}
	}
	if rep.ValidQueries != 2 || rep.ValidMRR != 1 || rep.ValidMRRUnclustered != 0.5 || rep.Merged != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, tc := range []struct {
		e    int32
		tail bool
		want map[int32]float64
	}{
		{a, true, map[int32]float64{b: 1 - 0.55*0.6, d: 0.6}},
		{b, false, map[int32]float64{a: 1 - 0.55*0.6, c: 0.6}},
	} {
		got := rk.Rank(tc.e, r, tc.tail, 0)
		if len(got) != 2 {
			t.Fatalf("query %d %v: %v", tc.e, tc.tail, got)
		}
		for i, cd := range got {
			if math.Abs(cd.Score-tc.want[cd.Entity]) > 1e-15 {
				t.Fatalf("query %d %v: %d scored %v, want %v", tc.e, tc.tail, cd.Entity, cd.Score, tc.want[cd.Entity])
			}
			if i > 0 && cd.Score > got[i-1].Score {
				t.Fatalf("query %d %v: not sorted: %v", tc.e, tc.tail, got)
			}
		}
	}
	// Noisy-or counting every rule, the same rules unclustered: d 0.8
	// first. Noisy-or counts a query's repeated prediction sets once: s
	// and u both predict {d} for (a, r, ?), v and w both {b}: d 0.6, b
	// 0.45.
	nor := NewRanker(g, rules, NoisyOr)
	nor.RepeatedSets = true
	if got := nor.Rank(a, r, true, 0); got[0].Entity != d || math.Abs(got[0].Score-0.8) > 1e-15 {
		t.Fatalf("noisy-or, every rule: %v", got)
	}
	if got := NewRanker(g, rules, NoisyOr).Rank(a, r, true, 0); len(got) != 2 || got[0].Entity != d || math.Abs(got[0].Score-0.6) > 1e-15 || math.Abs(got[1].Score-0.45) > 1e-15 {
		t.Fatalf("noisy-or: %v", got)
	}
}

// Jaccard from bottom-k sketches: exact for sets within the sketch, close
// for larger ones.
func TestJaccardSketch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(3000)
		var A, B []uint64
		inter := 0
		for i := range n {
			inA, inB := rng.IntN(3) > 0, rng.IntN(3) > 0
			if inA {
				A = append(A, uint64(i))
			}
			if inB {
				B = append(B, uint64(i))
			}
			if inA && inB {
				inter++
			}
		}
		union := len(A) + len(B) - inter
		exact := float64(inter) / float64(max(union, 1))
		if len(A) == 0 || len(B) == 0 {
			exact = 0
		}
		const k = 256
		sk := func(xs []uint64) sketch {
			// Inserted in random order, some twice.
			var hs []uint64
			for _, i := range rng.Perm(len(xs)) {
				hs = addHash(hs, mix64(xs[i]^7), k)
				if rng.IntN(4) == 0 {
					hs = addHash(hs, mix64(xs[i]^7), k)
				}
			}
			all := make([]uint64, len(xs))
			for i, x := range xs {
				all[i] = mix64(x ^ 7)
			}
			slices.Sort(all)
			if want := all[:min(k, len(all))]; !slices.Equal(hs, want) {
				t.Fatalf("trial %d: sketch of %d elements is not their %d smallest hashes", trial, len(xs), k)
			}
			return newSketch(hs, k)
		}
		got := jaccard(sk(A), sk(B), k)
		tol := 1e-12
		if len(A) >= k || len(B) >= k {
			tol = 4*math.Sqrt(exact*(1-exact)/k) + 0.01
		}
		if math.Abs(got-exact) > tol {
			t.Fatalf("trial %d: |A| %d |B| %d: estimate %v, exact %v", trial, len(A), len(B), got, exact)
		}
	}
}

// Clustered ranking without Cluster is refused by Evaluate, and ranks as
// noisy-or through Rank (every rule alone).
func TestClusteredNeedsCluster(t *testing.T) {
	g := randomGraph(3, 15, 2, 80)
	res, err := Learn(context.Background(), g, LearnOptions{Rounds: 1, SamplesPerRound: 1000, Seed: 1, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	rk := NewRanker(g, res.Rules, Clustered)
	if _, err := rk.Evaluate(context.Background(), []Triple{{H: 0, R: 0, T: 1}}, g.Has, EvalOptions{}); err == nil {
		t.Fatal("Evaluate ranked with clustered scoring before Cluster")
	}
	nor := NewRanker(g, res.Rules, NoisyOr)
	nor.RepeatedSets = true // every rule counted, as by clusters of one
	for e := range int32(15) {
		a, b := rk.Rank(e, 0, true, 0), nor.Rank(e, 0, true, 0)
		if len(a) != len(b) {
			t.Fatalf("entity %d: %d candidates, noisy-or %d", e, len(a), len(b))
		}
		for i := range a {
			if a[i].Entity != b[i].Entity || a[i].Score != b[i].Score {
				t.Fatalf("entity %d #%d: %v, noisy-or %v", e, i, a[i], b[i])
			}
		}
	}
	if _, err := rk.Cluster(context.Background(), nil, g.Has, ClusterOptions{Thresholds: []float64{1.5}}); err == nil {
		t.Fatal("threshold 1.5 accepted")
	}
	// An empty list of thresholds means the default ones (it used to
	// index past its end).
	if _, err := rk.Cluster(context.Background(), g.Triples[:5], g.Has, ClusterOptions{Thresholds: []float64{}}); err != nil {
		t.Fatal(err)
	}
}

// countdownCtx is a context whose Err is nil for its first left calls and
// context.Canceled from then on: it cancels at a chosen look at the
// context, whichever loop makes it.
type countdownCtx struct {
	context.Context
	left, calls atomic.Int64
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func newCountdown(left int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(left)
	return c
}

// Cluster looks at its context in every loop that grows with the rules or
// the validation queries (comparing rules, applying them to validation
// queries, choosing thresholds), and a cancellation at any of those looks
// stops it with the context's error and no clusters.
func TestClusterCancelled(t *testing.T) {
	g := randomGraph(8, 40, 3, 400)
	res, err := Learn(context.Background(), g, LearnOptions{Rounds: 2, SamplesPerRound: 2000, Seed: 1, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	valid := g.Triples[:80]
	opt := ClusterOptions{Threads: 1, Thresholds: []float64{0.5, 0.2}}
	full := newCountdown(math.MaxInt64)
	if _, err := NewRanker(g, res.Rules, Clustered).Cluster(full, valid, g.Has, opt); err != nil {
		t.Fatal(err)
	}
	looks := full.calls.Load()
	t.Logf("%d rules, %d looks at the context", len(res.Rules), looks)
	// A look at least every 64 rules compared or applied.
	if min := int64(len(res.Rules)) / 64; looks < min {
		t.Fatalf("%d looks at the context for %d rules", looks, len(res.Rules))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 25 {
		left := rng.Int64N(looks)
		rk := NewRanker(g, res.Rules, Clustered)
		rep, err := rk.Cluster(newCountdown(left), valid, g.Has, opt)
		if !errors.Is(err, context.Canceled) || rep != nil || rk.Clustered() {
			t.Fatalf("cancelled at look %d of %d: report %v, error %v, clustered %v", left, looks, rep != nil, err, rk.Clustered())
		}
	}
}
