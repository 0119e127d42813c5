package kgc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCheckpoints(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, nil}, {1, []int{1}}, {2, []int{1, 2}}, {5, []int{1, 2, 3, 5}}, {8, []int{1, 2, 4, 8}}, {9, []int{1, 2, 3, 5, 9}}, {10, []int{1, 2, 3, 5, 10}},
		{404, []int{1, 2, 4, 7, 13, 26, 51, 101, 202, 404}}} {
		if got := Checkpoints(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Checkpoints(%d) = %v, want %v", tc.n, got, tc.want)
		}
		if double := Checkpoints(2 * tc.n); tc.n > 0 && !isSubset(tc.want, double) {
			t.Errorf("Checkpoints(%d) = %v: not all among those of %d rounds, %v", tc.n, tc.want, 2*tc.n, double)
		}
	}
}

func isSubset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// denseKG is a small dense random graph of n entities, rels relations and
// m triples, in which relation 1 is, 70% of the time, the inverse of
// relation 0; a quarter of those inverse triples are the validation
// triples. Later learning rounds find rarer rules there, some of which
// rank the validation triples worse.
func denseKG(seed uint64, n, rels, m int) (*Graph, []Triple, map[Triple]bool) {
	rng := rand.New(rand.NewPCG(seed, 9))
	var train, valid []Triple
	seen := map[Triple]bool{}
	for len(seen) < m {
		t := Triple{H: int32(rng.IntN(n)), R: int32(rng.IntN(rels)), T: int32(rng.IntN(n))}
		if seen[t] {
			continue
		}
		seen[t] = true
		if t.R == 1 { // planted: r1 mostly the inverse of r0
			continue
		}
		train = append(train, t)
		if t.R == 0 && rng.IntN(10) < 7 {
			inv := Triple{H: t.T, R: 1, T: t.H}
			if rng.IntN(4) == 0 {
				valid = append(valid, inv)
			} else {
				train = append(train, inv)
			}
		}
	}
	known := map[Triple]bool{}
	for _, ts := range [][]Triple{train, valid} {
		for _, t := range ts {
			known[t] = true
		}
	}
	return NewGraph(train, n, rels), valid, known
}

// ChooseRounds' figures are those of a ranker built on each checkpoint's
// rules alone, its choice their argmax (the last on a tie), and the rules
// KeepRounds leaves are those a run of that many rounds learns.
func TestChooseRoundsAgainstRanking(t *testing.T) {
	ctx := context.Background()
	earlier := 0 // choices of fewer rounds than done
	for seed := range uint64(4) {
		g, valid, known := denseKG(seed, 16, 6, 400)
		isKnown := func(t Triple) bool { return known[t] }
		lo := LearnOptions{Rounds: 12, Seed: seed, SamplesPerRound: 400}
		lr, err := Learn(ctx, g, lo)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Scoring{NoisyOr, MaxPlus} {
			ch, err := ChooseRounds(ctx, g, lr.Rules, lr.Rounds, valid, isKnown, RoundsOptions{Scoring: s, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(ch.Tried); got != len(Checkpoints(lr.Rounds)) || ch.ValidQueries != 2*len(valid) {
				t.Fatalf("seed %d: %d checkpoints tried over %d queries, want %d over %d", seed, got, ch.ValidQueries, len(Checkpoints(lr.Rounds)), 2*len(valid))
			}
			best := -1.0
			want := 0
			for _, tr := range ch.Tried {
				var rules []Rule
				for _, r := range lr.Rules {
					if r.Round <= tr.Rounds {
						rules = append(rules, r)
					}
				}
				ev, err := NewRanker(g, rules, s).Evaluate(ctx, valid, isKnown, EvalOptions{TopK: 10})
				if err != nil {
					t.Fatal(err)
				}
				if tr.Rules != len(rules) || tr.ValidMRR != ev.Metrics.MRR {
					t.Errorf("seed %d, %v, %d rounds: %d rules, MRR %v; ranked alone: %d rules, MRR %v", seed, s, tr.Rounds, tr.Rules, tr.ValidMRR, len(rules), ev.Metrics.MRR)
				}
				if ev.Metrics.MRR >= best {
					best, want = ev.Metrics.MRR, tr.Rounds
				}
			}
			if ch.Rounds != want || ch.Of != lr.Rounds {
				t.Errorf("seed %d, %v: chose %d of %d rounds, want %d of %d", seed, s, ch.Rounds, ch.Of, want, lr.Rounds)
			}
			if ch.Rounds < ch.Of {
				earlier++
			}
		}
		for _, n := range []int{1, 3} {
			short := lo
			short.Rounds = n
			want, err := Learn(ctx, g, short)
			if err != nil {
				t.Fatal(err)
			}
			kept := *lr
			kept.Rules = slices.Clone(lr.Rules)
			kept.KeepRounds(n)
			if kept.Kept != n || !slices.EqualFunc(kept.Rules, want.Rules, func(a, b Rule) bool { return a.key() == b.key() && a.Conf == b.Conf }) ||
				kept.Sampled != want.Sampled || kept.MaxErr != want.MaxErr {
				t.Errorf("seed %d: KeepRounds(%d): %d rules (%d sampled), a run of %d rounds %d (%d)", seed, n, len(kept.Rules), kept.Sampled, n, len(want.Rules), want.Sampled)
			}
		}
	}
	if earlier == 0 {
		t.Error("every choice kept every round: the graphs test no choice of fewer rounds")
	}
}

// A later round's rule that misleads is dropped; one that helps is kept.
func TestChooseRoundsDropsMisleadingRound(t *testing.T) {
	ctx := context.Background()
	v := NewVocab()
	var b strings.Builder
	for x := range 30 {
		fmt.Fprintf(&b, "a%d\tparent\tb%d\n", x, x)
		fmt.Fprintf(&b, "a%d\tfriend\tc%d\n", x, x)
		if x%3 != 0 {
			fmt.Fprintf(&b, "b%d\tchild\ta%d\n", x, x)
		}
	}
	train, err := ParseTriples(ctx, "train", strings.NewReader(b.String()), v)
	if err != nil {
		t.Fatal(err)
	}
	var valid []Triple
	for x := 0; x < 30; x += 3 {
		valid = append(valid, Triple{H: v.Entity(fmt.Sprint("b", x)), R: v.Relation("child"), T: v.Entity(fmt.Sprint("a", x))})
	}
	g := NewGraph(train, len(v.Entities), len(v.Relations))
	known := map[Triple]bool{}
	for _, ts := range [][]Triple{train, valid} {
		for _, t := range ts {
			known[t] = true
		}
	}
	for _, tc := range []struct {
		second string // the rule of round 2
		want   int
	}{
		{"child(X,Y) <= friend(Y,X)", 1}, // c's are never anyone's child: wrong answers above the right one
		{"child(X,Y) <= parent(Y,X)", 2}, // the same rule again, more confident: as good, and the later kept on a tie
	} {
		rules, err := ReadRules("rules", strings.NewReader("20\t10\t0.5\tchild(X,Y) <= parent(Y,X)\n20\t18\t0.9\t"+tc.second+"\n"), v)
		if err != nil {
			t.Fatal(err)
		}
		rules[0].Round, rules[1].Round = 1, 2
		ch, err := ChooseRounds(ctx, g, rules, 2, valid, func(t Triple) bool { return known[t] }, RoundsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ch.Rounds != tc.want {
			t.Errorf("round 2 %s: kept %d rounds (%+v), want %d", tc.second, ch.Rounds, ch.Tried, tc.want)
		}
	}
}

func TestChooseRoundsCancelled(t *testing.T) {
	g, valid, known := denseKG(1, 16, 6, 400)
	lr, err := Learn(context.Background(), g, LearnOptions{Rounds: 4, Seed: 1, SamplesPerRound: 300})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ChooseRounds(ctx, g, lr.Rules, lr.Rounds, valid, func(t Triple) bool { return known[t] }, RoundsOptions{}); err == nil {
		t.Error("cancelled: no error")
	}
}

// A choice of fewer rounds made on a sample is confirmed on the larger
// one (here every validation triple): kept only if those rounds' rules
// rank it better than all rounds', the figures those of rankers of their
// own.
func TestChooseRoundsConfirmed(t *testing.T) {
	ctx := context.Background()
	confirmed, overturned := 0, 0
	for seed := range uint64(12) {
		g, valid, known := denseKG(seed, 16, 6, 400)
		if len(valid) > 3*confirmTimes {
			continue // the confirmation would sample too
		}
		isKnown := func(t Triple) bool { return known[t] }
		lr, err := Learn(ctx, g, LearnOptions{Rounds: 12, Seed: seed, SamplesPerRound: 400})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := ChooseRounds(ctx, g, lr.Rules, lr.Rounds, valid, isKnown, RoundsOptions{Scoring: NoisyOr, MaxValid: 3, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		cf := ch.Confirm
		if cf == nil {
			if ch.Rounds != lr.Rounds {
				t.Errorf("seed %d: %d of %d rounds kept unconfirmed", seed, ch.Rounds, lr.Rounds)
			}
			continue
		}
		mrr := func(c int) float64 {
			var rules []Rule
			for _, r := range lr.Rules {
				if r.Round <= c {
					rules = append(rules, r)
				}
			}
			ev, err := NewRanker(g, rules, NoisyOr).Evaluate(ctx, valid, isKnown, EvalOptions{TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			return ev.Metrics.MRR
		}
		if few, all := mrr(cf.Rounds), mrr(lr.Rounds); math.Abs(cf.ValidMRR-few) > 1e-12 || math.Abs(cf.AllMRR-all) > 1e-12 || cf.ValidQueries != 2*len(valid) {
			t.Errorf("seed %d: confirmation %+v; ranked alone on every validation triple: %v and %v", seed, cf, few, all)
		}
		switch {
		case cf.ValidMRR > cf.AllMRR && ch.Rounds == cf.Rounds:
			confirmed++
		case cf.ValidMRR <= cf.AllMRR && ch.Rounds == lr.Rounds:
			overturned++
		default:
			t.Errorf("seed %d: confirmation %+v, kept %d rounds", seed, cf, ch.Rounds)
		}
	}
	if confirmed == 0 || overturned == 0 {
		t.Errorf("%d choices confirmed, %d overturned: the graphs test only one way", confirmed, overturned)
	}
}

func TestReciprocalRanks(t *testing.T) {
	ev := &Evaluation{Heads: []Answer{{Rank: 1}, {Rank: 0}}, Tails: []Answer{{Rank: 4}, {Rank: 1.5}}}
	if rr := ev.ReciprocalRanks(); !slices.Equal(rr, []float64{1, 0.25, 0, 1 / 1.5}) {
		t.Errorf("ReciprocalRanks = %v", rr)
	}
}

// The paired difference of reciprocal ranks and its standard error, by
// hand: differences 1, 2, 3 have mean 2 and sample deviation 1.
func TestPairedDiff(t *testing.T) {
	for _, tc := range []struct {
		a, b     []float64
		mean, se float64
	}{
		{[]float64{1, 2, 3}, []float64{0, 0, 0}, 2, 1 / math.Sqrt(3)},
		{[]float64{2, 4, 6}, []float64{1, 2, 3}, 2, 1 / math.Sqrt(3)},
		{[]float64{0.5, 0.5}, []float64{0.5, 0.5}, 0, 0},
		{[]float64{1}, []float64{0}, 0, 0}, // too few queries to say
	} {
		mean, se := PairedDiff(tc.a, tc.b)
		if math.Abs(mean-tc.mean) > 1e-12 || math.Abs(se-tc.se) > 1e-12 {
			t.Errorf("PairedDiff(%v, %v) = %v, %v; want %v, %v", tc.a, tc.b, mean, se, tc.mean, tc.se)
		}
	}
}

// Degenerate inputs: nothing to choose from (0 or 1 round, no validation
// triple, none inside the graph) keeps every round and ranks nothing;
// checkpoints that rank alike (every rule of round 0, as read from a file)
// keep the last, however many validation triples miss.
func TestChooseRoundsDegenerate(t *testing.T) {
	ctx := context.Background()
	g, valid, known := denseKG(3, 16, 6, 400)
	isKnown := func(t Triple) bool { return known[t] }
	lr, err := Learn(ctx, g, LearnOptions{Rounds: 6, Seed: 3, SamplesPerRound: 400})
	if err != nil {
		t.Fatal(err)
	}
	outside := []Triple{{H: 99, R: 0, T: 1}, {H: 1, R: 42, T: 2}, {H: -1, R: 0, T: 1}}
	for _, tc := range []struct {
		name   string
		rounds int
		valid  []Triple
	}{{"0 rounds", 0, valid}, {"1 round", 1, valid}, {"no validation triples", 6, nil}, {"all outside the graph", 6, outside}} {
		ch, err := ChooseRounds(ctx, g, lr.Rules, tc.rounds, tc.valid, isKnown, RoundsOptions{MaxValid: -1})
		if err != nil || ch.Rounds != tc.rounds || ch.Of != tc.rounds || len(ch.Tried) != 0 || ch.Confirm != nil {
			t.Errorf("%s: %+v, %v; want all %d rounds kept, nothing ranked", tc.name, ch, err, tc.rounds)
		}
	}
	flat := slices.Clone(lr.Rules)
	for i := range flat {
		flat[i].Round = 0
	}
	ch, err := ChooseRounds(ctx, g, flat, 6, valid, isKnown, RoundsOptions{Scoring: NoisyOr})
	if err != nil || ch.Rounds != 6 || len(ch.Tried) != 4 {
		t.Fatalf("every rule of round 0: %+v, %v; want the last of 4 tied checkpoints", ch, err)
	}
	for _, tr := range ch.Tried {
		if tr.ValidMRR != ch.Tried[0].ValidMRR || tr.Rules != len(flat) || tr.SE != 0 {
			t.Errorf("every rule of round 0: checkpoint %+v differs from %+v", tr, ch.Tried[0])
		}
	}
	// No rule at all: every validation query a miss, MRR 0 at every
	// checkpoint, the last kept.
	ch, err = ChooseRounds(ctx, g, nil, 6, valid, isKnown, RoundsOptions{})
	if err != nil || ch.Rounds != 6 || ch.Tried[0].ValidMRR != 0 {
		t.Errorf("no rules: %+v, %v", ch, err)
	}
}
