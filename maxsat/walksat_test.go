package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestWalkerIncremental flips variables at random and compares the
// incrementally kept counts with a walker built from scratch.
func TestWalkerIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		n := 2 + rng.IntN(12)
		in := randomInstance(rng, n, 1+rng.IntN(40), 4, trial%2 == 0, 0.3)
		in.AddClause(1, false, Pos(0), Not(0)) // a tautology
		in.AddClause(2, false)                 // an empty clause
		if trial%3 == 0 {                      // some negative soft weights, as Markov logic has
			for c := range in.Weight {
				if !in.Hard[c] && rng.IntN(2) == 0 {
					in.Weight[c] = -in.Weight[c]
				}
			}
		}
		ix := buildIndex(in)
		x := make([]bool, n)
		for i := range x {
			x[i] = rng.IntN(2) == 1
		}
		w := newWalker(in, ix, x)
		for step := 0; step < 100; step++ {
			w.flip(rng.IntN(n))
			fresh := newWalker(in, ix, append([]bool(nil), x...))
			for v := 0; v < n; v++ {
				if math.Abs(w.mb[v].make-fresh.mb[v].make) > 1e-9 || math.Abs(w.mb[v].brk-fresh.mb[v].brk) > 1e-9 {
					t.Fatalf("trial %d step %d var %d: make/break %v, from scratch %v", trial, step, v, w.mb[v], fresh.mb[v])
				}
			}
			if w.hardCost != fresh.hardCost || math.Abs(w.softCost-fresh.softCost) > 1e-9 || len(w.unsat) != len(fresh.unsat) {
				t.Fatalf("trial %d step %d: cost (%v,%d) %d unsat, from scratch (%v,%d) %d unsat",
					trial, step, w.softCost, w.hardCost, len(w.unsat), fresh.softCost, fresh.hardCost, len(fresh.unsat))
			}
			for _, c := range w.unsat {
				if in.Satisfied(int(c), x) != (in.Weight[c] < 0 && !in.Hard[c]) {
					t.Fatalf("trial %d step %d: clause %d (weight %v) on the unsat list does not cost", trial, step, c, in.Weight[c])
				}
			}
		}
	}
}

// TestWalkSATFindsOptimum: on small instances a few thousand flips reach the
// brute-force optimum, and the reported weight matches the assignment.
func TestWalkSATFindsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 30; trial++ {
		in := randomInstance(rng, 10, 40, 3, trial%2 == 0, 0.1)
		opt, _, ok := bruteForce(in)
		res, err := WalkSAT(context.Background(), in, nil, WalkOptions{Steps: 20000, Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		s, h := in.Eval(res.X)
		if s != res.Satisfied || h != res.HardViolated {
			t.Fatalf("trial %d: reported (%v,%d), Eval (%v,%d)", trial, res.Satisfied, res.HardViolated, s, h)
		}
		if res.BestFlip > res.Flips || res.Flips > 20000 {
			t.Fatalf("trial %d: best flip %d of %d", trial, res.BestFlip, res.Flips)
		}
		if !ok {
			if h == 0 {
				t.Fatalf("trial %d: hard clauses are unsatisfiable but WalkSAT satisfied them", trial)
			}
			continue
		}
		if h != 0 || math.Abs(s-opt) > 1e-9 {
			t.Errorf("trial %d: WalkSAT got (%v, %d hard violated), optimum %v", trial, s, h, opt)
		}
	}
}

// TestWalkSATKeepsBest: the result is never worse than the start, even with
// a pure random walk (noise 1) that wanders away from it.
func TestWalkSATKeepsBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 30; trial++ {
		in := randomInstance(rng, 30, 120, 3, false, 0.1)
		start := make([]bool, in.NumVars)
		for i := range start {
			start[i] = rng.IntN(2) == 1
		}
		s0, h0 := in.Eval(start)
		res, err := WalkSAT(context.Background(), in, start, WalkOptions{Steps: 500 + 1000*(trial%3), Noise: 1, Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		if res.HardViolated > h0 || (res.HardViolated == h0 && res.Satisfied < s0) {
			t.Fatalf("trial %d: result (%v,%d) worse than start (%v,%d)", trial, res.Satisfied, res.HardViolated, s0, h0)
		}
		if s, h := in.Eval(res.X); s != res.Satisfied || h != res.HardViolated {
			t.Fatalf("trial %d: reported (%v,%d), Eval (%v,%d)", trial, res.Satisfied, res.HardViolated, s, h)
		}
	}
}

func TestWalkSATSeedReproducible(t *testing.T) {
	in := randomInstance(rand.New(rand.NewPCG(1, 1)), 50, 200, 3, false, 0)
	a, _ := WalkSAT(context.Background(), in, nil, WalkOptions{Steps: 3000, Seed: 42})
	b, _ := WalkSAT(context.Background(), in, nil, WalkOptions{Steps: 3000, Seed: 42})
	for i := range a.X {
		if a.X[i] != b.X[i] {
			t.Fatal("same seed gave different assignments")
		}
	}
	if _, err := WalkSAT(context.Background(), in, make([]bool, 3), WalkOptions{Steps: 1}); err == nil {
		t.Fatal("a start of the wrong length was accepted")
	}
}

// A few violated hard clauses among thousands of violated soft ones are
// repaired at once: picked uniformly, each waited thousands of flips, and
// the walk's best feasible world stayed near its start.
func TestWalkSATRepairsHardFirst(t *testing.T) {
	in := &Instance{}
	const n = 2000
	for v := range n {
		if err := in.AddClause(1, false, Pos(v)); err != nil {
			t.Fatal(err)
		}
		if err := in.AddClause(0.5, false, Not(v)); err != nil {
			t.Fatal(err)
		}
	}
	for v := 0; v < 20; v += 2 {
		if err := in.AddClause(0, true, Not(v), Not(v+1)); err != nil {
			t.Fatal(err)
		}
	}
	start := make([]bool, n)
	for v := range start {
		start[v] = true // violates the 10 hard clauses and every !x unit
	}
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := WalkSAT(context.Background(), in, start, WalkOptions{Steps: 1500, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if res.HardViolated > 0 {
			t.Errorf("seed %d: %d hard clauses still violated after %d flips", seed, res.HardViolated, res.Flips)
		}
	}
}
