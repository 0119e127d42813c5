package kgc

import (
	"context"
	"math/rand/v2"
	"testing"
)

// A candidate's place, read from a list as Evaluate keeps it (PlaceIn) or
// ranked afresh with every rule (PlaceOf), is the rank Evaluate gives the
// true answer, under every scoring an explanation serves; the candidates
// above it are those its list puts before it, tied ones excepted. Small
// random graphs give many ties (maxplus ties need equal confidence
// vectors, which Evaluate's kept lists no longer hold).
func TestPlaceAgreesWithEvaluate(t *testing.T) {
	checked, tiedSeen := 0, 0
	for seed := range uint64(4) {
		g := randomGraph(seed, 20, 3, 140)
		rng := rand.New(rand.NewPCG(seed, 9))
		var test []Triple
		for range 40 {
			test = append(test, Triple{H: int32(rng.IntN(20)), R: int32(rng.IntN(3)), T: int32(rng.IntN(20))})
		}
		known := func(tr Triple) bool { return g.Has(tr) || containsTriple(test, tr) }
		res, err := Learn(context.Background(), g, LearnOptions{Rounds: 2, SamplesPerRound: 2000, Seed: seed, MinSupport: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scoring{MaxPlus, Max, NoisyOr} {
			rk := NewRanker(g, res.Rules, s)
			ev, err := rk.Evaluate(context.Background(), test, known, EvalOptions{TopK: 1000, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range test {
				for _, q := range []struct {
					a           Answer
					e, truth    int32
					tail        bool
					knownAnswer func(int32) bool
				}{
					{ev.Tails[i], tr.H, tr.T, true, func(c int32) bool { return known(Triple{H: tr.H, R: tr.R, T: c}) }},
					{ev.Heads[i], tr.T, tr.H, false, func(c int32) bool { return known(Triple{H: c, R: tr.R, T: tr.T}) }},
				} {
					of, err := rk.PlaceOf(context.Background(), q.e, tr.R, q.tail, q.truth, q.knownAnswer)
					if err != nil {
						t.Fatal(err)
					}
					if of.Rank != q.a.Rank {
						t.Fatalf("seed %d %s %v tail %v: PlaceOf rank %g, Evaluate's %g", seed, s, tr, q.tail, of.Rank, q.a.Rank)
					}
					at := -1
					for j := range q.a.List {
						if q.a.List[j].Entity == q.truth {
							at = j
						}
					}
					if at < 0 {
						continue
					}
					in := rk.PlaceIn(q.a.List, at)
					if in.Rank != q.a.Rank || len(in.Above) != len(of.Above) || in.Tied != of.Tied {
						t.Fatalf("seed %d %s %v tail %v: PlaceIn %g (%d above, %d tied), PlaceOf %g (%d above, %d tied), Evaluate %g",
							seed, s, tr, q.tail, in.Rank, len(in.Above), in.Tied, of.Rank, len(of.Above), of.Tied, q.a.Rank)
					}
					for j := range in.Above {
						if in.Above[j].Entity != of.Above[j].Entity || in.Above[j].Entity != q.a.List[j].Entity {
							t.Fatalf("seed %d %s %v: above differ at %d", seed, s, tr, j)
						}
					}
					checked++
					if in.Tied > 0 {
						tiedSeen++
					}
				}
			}
		}
	}
	if checked < 100 || tiedSeen == 0 {
		t.Fatalf("%d places checked, %d with ties: the test shows little", checked, tiedSeen)
	}
}
