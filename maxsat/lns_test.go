package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// withLNSOnAll runs the large neighbourhood search on instances of every
// size, from the start, for the rest of the test (it is kept for two
// variables or more, and waits for the cores' first lnsDelay).
func withLNSOnAll(t *testing.T) {
	minVars, delay := lnsMinVars, lnsDelay
	lnsMinVars, lnsDelay = 1, 0
	t.Cleanup(func() { lnsMinVars, lnsDelay = minVars, delay })
}

// TestExactWithLNSAgainstBruteForce runs Exact with the neighbourhood
// search beside the cores on random instances with every feature
// (exactCase) and checks each answer against enumeration, without a time
// limit (proven optima) and with short ones (the search's world may then
// be the answer, or meet the bound and end the run).
func TestExactWithLNSAgainstBruteForce(t *testing.T) {
	withLNSOnAll(t)
	rng := rand.New(rand.NewPCG(21, 22))
	trials := 200
	if testing.Short() {
		trials = 40
	}
	rounds, improvements := 0, 0
	for trial := range trials {
		n := 2 + rng.IntN(13)
		in := exactCase(rng, n, n+rng.IntN(3*n), []float64{0, 0.1, 0.3}[trial%3], trial%3)
		best, _, ok := bruteForce(in)
		opt := in.SoftWeight() - best
		o := ExactOptions{Seed: uint64(trial)}
		if trial%2 == 1 {
			x := make([]bool, n)
			for i := range x {
				x[i] = rng.IntN(2) == 0
			}
			o.Start = [][]bool{x}
		}
		r, err := Exact(context.Background(), in, o)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkExact(t, "no limit", in, r, opt, ok)
		if ok && !r.Optimal {
			t.Fatalf("trial %d: not proven optimal without a time limit: %+v", trial, r)
		}
		rounds, improvements = rounds+r.Neighbourhoods, improvements+r.Improvements
		o.TimeLimit = time.Duration(1+rng.IntN(2000)) * time.Microsecond
		if r, err = Exact(context.Background(), in, o); err != nil {
			t.Fatalf("trial %d, time limit: %v", trial, err)
		}
		if !ok && r.X == nil && !r.Optimal && !r.Infeasible {
			continue // stopped before infeasibility was proven
		}
		checkExact(t, "time limit", in, r, opt, ok)
	}
	t.Logf("%d neighbourhoods, %d improvements", rounds, improvements)
	if rounds == 0 {
		t.Fatal("the neighbourhood search never ran")
	}
}

// TestLNSRoundNeverWorse solves neighbourhoods of random instances with
// hard clauses: the world keeps every hard clause, its cost never rises,
// and a round that lowers it says so.
func TestLNSRoundNeverWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for trial := range 12 {
		n := 60 + rng.IntN(100)
		in := randomInstance(rng, n, 4*n, 3, trial%2 == 0, 0.1)
		r, err := Exact(context.Background(), in, ExactOptions{TimeLimit: 50 * time.Millisecond, NoLNS: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.X == nil {
			continue // no world satisfies the hard clauses (or none found yet)
		}
		l := newLNS(in, buildIndex(in), r.X, uint64(trial))
		l.size = 10 + rng.IntN(40)
		cost := in.FalsifiedWeight(l.x)
		for round := range 10 {
			improved, done, err := l.round(context.Background(), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, hv := in.Eval(l.x); hv > 0 {
				t.Fatalf("trial %d round %d: %d hard clauses violated", trial, round, hv)
			}
			c := in.FalsifiedWeight(l.x)
			tol := 1e-9 * (1 + cost) // the float sums' rounding only
			if c > cost+tol || !improved && c < cost-tol {
				t.Fatalf("trial %d round %d: cost %v -> %v, improved %v", trial, round, cost, c, improved)
			}
			if done != (c == 0) {
				t.Fatalf("trial %d round %d: done %v at cost %v", trial, round, done, c)
			}
			if done {
				break
			}
			cost = c
		}
	}
}

// TestLNSRoundBesideHugeWeight: an improvement of 1 beside a weight of
// 10^12 that every world pays is an improvement (a threshold of 1e-9 of
// the cost hid it, and the better world stayed the search's own).
func TestLNSRoundBesideHugeWeight(t *testing.T) {
	in := &Instance{}
	must(in.AddClause(0, true, Pos(0)))
	must(in.AddClause(1e12, false, Not(0))) // falsified in every world
	must(in.AddClause(1, false, Pos(1)))
	l := newLNS(in, buildIndex(in), []bool{true, false}, 1)
	l.size = 2
	improved, _, err := l.round(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !improved || !l.x[1] || in.FalsifiedWeight(l.x) != 1e12 {
		t.Errorf("improved %v, world %v costing %v; want x2 true, cost 1e12", improved, l.x, in.FalsifiedWeight(l.x))
	}
}

// TestLNSMeetsTheBound: with the cores' SAT calls slowed, the
// neighbourhood search finds a world meeting the lower bound given (the
// optimum, by enumeration) first, stops their SAT calls, and the run ends
// proven optimal at the optimum with no time limit: the path the cores'
// own speed hides on small instances.
func TestLNSMeetsTheBound(t *testing.T) {
	withLNSOnAll(t)
	testSlowSAT = 20 * time.Millisecond
	defer func() { testSlowSAT = 0 }()
	rng := rand.New(rand.NewPCG(29, 30))
	before := lnsStops.Load()
	runs := 0
	for trial := range 40 {
		n := 6 + rng.IntN(8)
		in := exactCase(rng, n, 2*n+rng.IntN(2*n), 0.1, 0)
		best, _, ok := bruteForce(in)
		if !ok {
			continue
		}
		opt := in.SoftWeight() - best
		x := make([]bool, n) // a start that satisfies the hard clauses: the all-false world, when it does
		if _, hv := in.Eval(x); hv > 0 || opt <= 0 {
			continue
		}
		runs++
		r, err := Exact(context.Background(), in, ExactOptions{Start: [][]bool{x}, LowerBound: opt, Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, "meets the bound", in, r, opt, true)
		if !r.Optimal || math.Abs(r.Cost-opt) > 1e-9 {
			t.Fatalf("trial %d: cost %v optimal %v (%s), optimum %v", trial, r.Cost, r.Optimal, r.Status, opt)
		}
	}
	stops := lnsStops.Load() - before
	t.Logf("%d runs, %d ended by the search meeting the bound", runs, stops)
	if runs == 0 || stops == 0 {
		t.Fatalf("the search never stopped the cores (%d runs)", runs)
	}
}

// TestExactWithLNSDegenerate: the search beside the cores on degenerate
// instances (no clause, variables in no clause, hard clauses only, an
// empty soft clause that every world falsifies, a contradiction among the
// hard clauses, a weight of 10^12 beside weights of 1) gives what
// enumeration gives.
func TestExactWithLNSDegenerate(t *testing.T) {
	withLNSOnAll(t)
	for _, tc := range []struct {
		name    string
		vars    int
		clauses []func(in *Instance)
	}{
		{"no clause", 3, nil},
		{"hard clauses only", 3, []func(*Instance){
			func(in *Instance) { must(in.AddClause(0, true, Pos(0), Pos(1))) },
			func(in *Instance) { must(in.AddClause(0, true, Not(0))) }}},
		{"an empty soft clause", 2, []func(*Instance){
			func(in *Instance) { must(in.AddClause(2.5, false)) },
			func(in *Instance) { must(in.AddClause(1, false, Pos(0), Pos(1))) }}},
		{"a contradiction", 2, []func(*Instance){
			func(in *Instance) { must(in.AddClause(0, true, Pos(0))) },
			func(in *Instance) { must(in.AddClause(0, true, Not(0))) },
			func(in *Instance) { must(in.AddClause(1, false, Pos(1))) }}},
		{"10^12 beside 1", 3, []func(*Instance){
			func(in *Instance) { must(in.AddClause(1e12, false, Pos(0))) },
			func(in *Instance) { must(in.AddClause(1e12, false, Not(0))) },
			func(in *Instance) { must(in.AddClause(1, false, Pos(1), Pos(2))) },
			func(in *Instance) { must(in.AddClause(1, false, Not(1))) },
			func(in *Instance) { must(in.AddClause(1, false, Not(2))) }}},
	} {
		in := &Instance{NumVars: tc.vars}
		for _, add := range tc.clauses {
			add(in)
		}
		best, _, ok := bruteForce(in)
		for seed := range uint64(3) {
			r, err := Exact(context.Background(), in, ExactOptions{Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			checkExact(t, tc.name, in, r, in.SoftWeight()-best, ok)
			if ok && !r.Optimal {
				t.Errorf("%s: not proven optimal: %+v", tc.name, r)
			}
		}
	}
}
