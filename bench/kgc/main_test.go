package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/kgc"
)

func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		n    int
		seed uint64
	}{{2000, 1}, {20000, 2}} {
		v, ts := generate(tc.n, tc.seed)
		if len(ts) != tc.n {
			t.Fatalf("n %d: %d triples", tc.n, len(ts))
		}
		if _, again := generate(tc.n, tc.seed); !slices.Equal(ts, again) {
			t.Errorf("n %d: not reproducible from the seed", tc.n)
		}
		if _, other := generate(tc.n, tc.seed+1); slices.Equal(ts, other) {
			t.Errorf("n %d: another seed gives the same graph", tc.n)
		}
		// The planted rule knows(Y, X) <= friend(X, Y) holds for about 80%
		// of the friend edges.
		has := map[kgc.Triple]bool{}
		for _, tr := range ts {
			has[tr] = true
		}
		friend, knows := v.Relation("friend"), v.Relation("knows")
		edges, inverse := 0, 0
		for _, tr := range ts {
			if tr.R == friend {
				edges++
				if has[kgc.Triple{H: tr.T, R: knows, T: tr.H}] {
					inverse++
				}
			}
		}
		if f := float64(inverse) / float64(edges); edges == 0 || f < 0.7 || f > 0.9 {
			t.Errorf("n %d: %d of %d friend edges have their knows inverse", tc.n, inverse, edges)
		}
	}
}

// load and rank on a small data set written to a temporary directory:
// child is the inverse of parent, so maxplus answers every test query
// first.
func TestLoadAndRank(t *testing.T) {
	dir := t.TempDir()
	var train, test strings.Builder
	for x := range 30 {
		fmt.Fprintf(&train, "p%d\tparent\tp%d\n", x, x+30)
		if x%5 == 0 {
			fmt.Fprintf(&test, "p%d\tchild\tp%d\n", x+30, x)
		} else {
			fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+30, x)
		}
	}
	os.MkdirAll(filepath.Join(dir, "toy"), 0o755)
	for name, text := range map[string]string{"train": train.String(), "valid": "", "test": test.String()} {
		if err := os.WriteFile(filepath.Join(dir, "toy", name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := load(dir, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.test) != 6 || len(d.g.Triples) != 54 {
		t.Fatalf("%d test, %d graph triples", len(d.test), len(d.g.Triples))
	}
	lr, err := kgc.Learn(context.Background(), d.g, kgc.LearnOptions{Time: time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []kgc.Scoring{kgc.MaxPlus, kgc.Max, kgc.NoisyOr, kgc.PSL, kgc.Clustered} { // clustered: no validation triples, every rule alone
		m, _, err := d.rank(context.Background(), lr.Rules, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.Queries != 12 || m.MRR < 0.99 {
			t.Errorf("%s: %+v", s, m)
		}
	}
}

// The rules of rounds 1..n of a longer run are the rules a run of n rounds
// learns, in the same order: what the wn18rr and scale experiments rank as
// the snapshot of a learning time.
func TestUpToRoundIsRounds(t *testing.T) {
	v, ts := generate(3000, 1)
	g := kgc.NewGraph(ts, len(v.Entities), len(v.Relations))
	long, err := kgc.Learn(context.Background(), g, kgc.LearnOptions{Rounds: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3} {
		short, err := kgc.Learn(context.Background(), g, kgc.LearnOptions{Rounds: n, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var a, b strings.Builder
		if err := kgc.WriteRules(&a, upToRound(long.Rules, n), v); err != nil {
			t.Fatal(err)
		}
		if err := kgc.WriteRules(&b, short.Rules, v); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() || len(short.Rules) == 0 {
			t.Errorf("rounds 1-%d of 4: %d rules, a run of %d rounds: %d", n, len(upToRound(long.Rules, n)), n, len(short.Rules))
		}
	}
	if got := snapshots(67); !slices.Equal(got, []int{1, 2, 5, 10, 20, 50, 67}) {
		t.Errorf("snapshots(67) = %v", got)
	}
}

// halves splits the reciprocal ranks by the parity of the test triple.
func TestHalves(t *testing.T) {
	ev := &kgc.Evaluation{Heads: []kgc.Answer{{Rank: 1}, {Rank: 2}, {Rank: 0}}, Tails: []kgc.Answer{{Rank: 4}, {Rank: 1}, {Rank: 1}}}
	even, odd := halves(ev)
	if even != (1+0.25+0+1)/4 || odd != (0.5+1)/2 {
		t.Errorf("halves %v %v", even, odd)
	}
}
