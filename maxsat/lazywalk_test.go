package maxsat

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// lazyCost is the SoftCost and violated hard clauses of world x over the
// clauses of in (signed weights: a violated soft clause adds its weight).
func lazyCost(in *Instance, x []bool) (float64, int) {
	soft, hard := 0.0, 0
	for c := range in.NumClauses() {
		if in.Satisfied(c, x) {
			continue
		}
		if in.Hard[c] {
			hard++
		} else {
			soft += in.Weight[c]
		}
	}
	return soft, hard
}

// TestLazyWalkerCounts adds variables and clauses while flipping at random
// and checks the incremental counts (make and break, costs, the costly
// list) against a recount from the clauses, and Best's cost against the
// best world's cost over every clause added, also those added after it was
// found.
func TestLazyWalkerCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 60 {
		w := NewLazyWalker(WalkOptions{Seed: uint64(trial)})
		in := &Instance{Start: []int32{0}}
		addVar := func() {
			v := w.AddVar(rng.IntN(3) == 0)
			in.NumVars = v + 1
		}
		addClause := func() {
			k := rng.IntN(4) // 0: an empty clause
			lits := make([]Lit, k)
			for j := range lits {
				v := rng.IntN(in.NumVars)
				lits[j] = Pos(v)
				if rng.IntN(2) == 0 {
					lits[j] = Not(v)
				}
			}
			hard := rng.IntN(6) == 0
			wt := float64(1+rng.IntN(5)) / 2
			if trial%2 == 1 && rng.IntN(3) == 0 {
				wt = -wt
			}
			if err := w.AddClause(wt, hard, lits...); err != nil {
				t.Fatal(err)
			}
			taut := false
			for _, l := range lits {
				for _, m := range lits {
					taut = taut || l == -m
				}
			}
			if !taut {
				in.Weight = append(in.Weight, wt)
				in.Hard = append(in.Hard, hard)
				for _, l := range dedup(lits) {
					in.Lits = append(in.Lits, l)
				}
				in.Start = append(in.Start, int32(len(in.Lits)))
			}
		}
		for range 3 {
			addVar()
		}
		for range 5 {
			addClause()
		}
		check := func(step int) {
			t.Helper()
			if w.NumClauses() != in.NumClauses() {
				t.Fatalf("trial %d step %d: %d clauses kept, want %d", trial, step, w.NumClauses(), in.NumClauses())
			}
			x := make([]bool, w.NumVars())
			for v := range x {
				x[v] = w.Value(v)
			}
			soft, hard := lazyCost(in, x)
			if gs, gh := w.Cost(); math.Abs(gs-soft) > 1e-9 || gh != hard {
				t.Fatalf("trial %d step %d: cost (%v, %d), recount (%v, %d)", trial, step, gs, gh, soft, hard)
			}
			for v := range x {
				var want lazyScore
				for c := range in.NumClauses() {
					before := in.Satisfied(c, x)
					x[v] = !x[v]
					after := in.Satisfied(c, x)
					x[v] = !x[v]
					if before == after {
						continue
					}
					mk, brk := 0, 0
					if after {
						mk = 1
					} else {
						brk = 1
					}
					if in.Hard[c] {
						want.hmake += int32(mk)
						want.hbreak += int32(brk)
					} else {
						want.smake += float64(mk) * in.Weight[c]
						want.sbreak += float64(brk) * in.Weight[c]
					}
				}
				got := w.mb[v]
				if got.hmake != want.hmake || got.hbreak != want.hbreak || math.Abs(got.smake-want.smake) > 1e-9 || math.Abs(got.sbreak-want.sbreak) > 1e-9 {
					t.Fatalf("trial %d step %d var %d: scores %+v, recount %+v", trial, step, v, got, want)
				}
			}
			costly := 0
			for c := range in.NumClauses() {
				if len(in.Clause(c)) > 0 && in.Satisfied(c, x) == (!in.Hard[c] && in.Weight[c] < 0) {
					costly++
				}
			}
			if costly != len(w.unsat)+len(w.hardU) {
				t.Fatalf("trial %d step %d: %d clauses listed as costly, recount %d", trial, step, len(w.unsat)+len(w.hardU), costly)
			}
			bx, bs, bh, _ := w.Best()
			if s, h := lazyCost(in, bx); math.Abs(s-bs) > 1e-9 || h != bh {
				t.Fatalf("trial %d step %d: best world costs (%v, %d), reported (%v, %d)", trial, step, s, h, bs, bh)
			}
			// Inside the callback the current world may be better than the
			// best one: Run compares them after the callback returns.
			if step <= 0 && (bh > hard || bh == hard && bs > soft+1e-9) {
				t.Fatalf("trial %d step %d: best (%v, %d) worse than current (%v, %d)", trial, step, bs, bh, soft, hard)
			}
		}
		check(0)
		step := 0
		err := w.Run(context.Background(), 80, func(int) error {
			step++
			if rng.IntN(3) == 0 {
				addVar()
			}
			for range rng.IntN(3) {
				addClause()
			}
			check(step)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		check(-1)
	}
}

func dedup(lits []Lit) []Lit {
	var out []Lit
	for _, l := range lits {
		seen := false
		for _, m := range out {
			seen = seen || m == l
		}
		if !seen {
			out = append(out, l)
		}
	}
	return out
}

// TestLazyWalkerFindsOptimum: with every clause given up front, a few
// thousand flips reach the brute-force optimum on small instances.
func TestLazyWalkerFindsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 30 {
		in := randomInstance(rng, 10, 40, 3, trial%2 == 0, 0.1)
		opt, _, ok := bruteForce(in)
		w := NewLazyWalker(WalkOptions{Seed: uint64(trial)})
		for range in.NumVars {
			w.AddVar(false)
		}
		total := 0.0
		for c := range in.NumClauses() {
			if !in.Hard[c] {
				total += in.Weight[c]
			}
			if err := w.AddClause(in.Weight[c], in.Hard[c], in.Clause(c)...); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Run(context.Background(), 20000, nil); err != nil {
			t.Fatal(err)
		}
		x, soft, hard, _ := w.Best()
		s, h := in.Eval(x)
		if math.Abs(total-soft-s) > 1e-9 || h != hard {
			t.Fatalf("trial %d: reported (%v, %d), Eval (%v satisfied, %d)", trial, soft, hard, s, h)
		}
		if !ok {
			if h == 0 {
				t.Fatalf("trial %d: hard clauses are unsatisfiable but the walk satisfied them", trial)
			}
			continue
		}
		if h != 0 || math.Abs(s-opt) > 1e-9 {
			t.Errorf("trial %d: walk got (%v, %d hard violated), optimum %v", trial, s, h, opt)
		}
	}
}

func TestLazyWalkerErrors(t *testing.T) {
	w := NewLazyWalker(WalkOptions{Seed: 1})
	w.AddVar(false)
	if err := w.AddClause(1, false, Pos(1)); err == nil {
		t.Error("a literal of a variable not added: no error")
	}
	if err := w.AddClause(math.NaN(), false, Pos(0)); err == nil {
		t.Error("a NaN weight: no error")
	}
	if err := w.AddClause(1, false, Pos(0)); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := w.Run(context.Background(), 10, func(int) error { return boom })
	if !errors.Is(err, ErrWalkCallback) || !errors.Is(err, boom) {
		t.Fatalf("callback error: got %v", err)
	}
}

// TestLazyWalkerDescend: from a start where one flip improves the world
// but nearly every costly clause is one that no flip repairs without
// violating a hard clause, the greedy descent finds the flip at once.
func TestLazyWalkerDescend(t *testing.T) {
	w := NewLazyWalker(WalkOptions{Seed: 1})
	a := w.AddVar(false)
	if err := w.AddClause(1, false, Pos(a)); err != nil {
		t.Fatal(err)
	}
	for range 5000 {
		b, c := w.AddVar(true), w.AddVar(false)
		must(w.AddClause(-1, false, Pos(b), Pos(c))) // costly while b holds
		must(w.AddClause(0, true, Pos(b)))           // and b must hold
	}
	_, start, _, _ := w.Best()
	if err := w.Descend(context.Background(), 10, nil); err != nil {
		t.Fatal(err)
	}
	x, soft, hard, _ := w.Best()
	if hard != 0 || soft != start-1 || !x[a] {
		t.Fatalf("after the descent: soft cost %v (start %v), %d hard violated, a = %v", soft, start, hard, x[a])
	}
}
