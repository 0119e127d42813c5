package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSolveBruteForce runs the whole pipeline on random small instances,
// with and without hard clauses, and checks it against brute force: the
// certified bound is never below the optimum, the assignment never above it
// and (without hard clauses) never below 3/4 of it; the report agrees with
// the assignment; "optimal" and "infeasible" are never claimed wrongly.
func TestSolveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	ctx := context.Background()
	trials := 82
	if testing.Short() {
		trials = 80
	}
	for trial := 0; trial < trials; trial++ {
		n := 2 + rng.IntN(13)
		if trial >= 80 {
			n = 19 + trial - 80 // two instances with 19 and 20 variables
		}
		pHard := 0.0
		if trial%4 == 3 {
			pHard = 0.2
		}
		in := randomInstance(rng, n, 1+rng.IntN(4*n), 1+rng.IntN(4), trial%2 == 0, pHard)
		opt := DefaultOptions()
		opt.ADMM.Threads = 1
		if trial%3 == 0 {
			opt.LocalSearch = 1000
			opt.Seed = uint64(trial)
		}
		res, err := Solve(ctx, in, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Report
		best, _, feasible := bruteForce(in)
		s, h := in.Eval(res.X)
		if s != r.WeightSatisfied || h != r.HardViolated {
			t.Fatalf("trial %d: report (%v,%d), Eval (%v,%d)", trial, r.WeightSatisfied, r.HardViolated, s, h)
		}
		if r.LPBoundKind != "dual" || !r.Certified {
			t.Fatalf("trial %d: bound kind %q certified %v", trial, r.LPBoundKind, r.Certified)
		}
		if !feasible {
			if h == 0 {
				t.Fatalf("trial %d: infeasible hard clauses all satisfied", trial)
			}
			if r.Optimal {
				t.Fatalf("trial %d: optimal claimed on an infeasible instance", trial)
			}
			continue
		}
		if r.Infeasible {
			t.Fatalf("trial %d: infeasible claimed, but optimum %v exists (bound %v)", trial, best, r.LPUpperBound)
		}
		if r.LPUpperBound < best-1e-9 {
			t.Fatalf("trial %d: certified bound %v below the optimum %v", trial, r.LPUpperBound, best)
		}
		if h == 0 && s > best+1e-9 {
			t.Fatalf("trial %d: weight %v above the optimum %v", trial, s, best)
		}
		if r.Optimal && math.Abs(s-best) > 1e-9 {
			t.Fatalf("trial %d: optimal claimed at %v, optimum %v", trial, s, best)
		}
		if in.NumHard() == 0 && s < 0.75*best-1e-9 {
			t.Fatalf("trial %d: weight %v below 3/4 of the optimum %v", trial, s, best)
		}
		if h == 0 && r.CertifiedRatio > 0 && r.CertifiedRatio > s/best+1e-9 {
			t.Fatalf("trial %d: certified ratio %v above the true ratio %v", trial, r.CertifiedRatio, s/best)
		}
	}
}

// TestSolveInfeasible: contradictory hard clauses are reported, and with a
// proof when the dual finds one.
func TestSolveInfeasible(t *testing.T) {
	in := &Instance{}
	in.AddClause(0, true, Pos(0))
	in.AddClause(0, true, Not(0))
	in.AddClause(3, false, Pos(1))
	res, err := Solve(context.Background(), in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.HardViolated != 1 || res.Report.Optimal {
		t.Fatalf("report %+v", res.Report)
	}
	if !res.Report.Infeasible {
		t.Logf("infeasibility not proven (bound %v)", res.Report.LPUpperBound)
	}
	// An empty hard clause is infeasible outright.
	in.AddClause(0, true)
	res, err = Solve(context.Background(), in, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Report.Infeasible || res.Report.LPUpperBound >= 0 {
		t.Fatalf("empty hard clause: infeasible %v bound %v", res.Report.Infeasible, res.Report.LPUpperBound)
	}
}

// TestSolveRoundedWeights: the LP mode sums float64 weights, so while a
// weight has more significant digits than a float64 holds it claims no
// optimum (Report.Optimal false, RoundedWeights says why); weights that
// float64 holds as written are unaffected. It called the wrong world of
// the reproducers optimal.
func TestSolveRoundedWeights(t *testing.T) {
	for _, tc := range []struct {
		text    string
		rounded int
		optimal bool
	}{
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", 2, false},
		{"1125899906842624.2 1 0\n1125899906842624.3 -1 0\n", 1, false},
		{"9007199254740993 1 0\n9007199254740992 -1 0\n", 1, false},
		{"0.1 1 0\n0.25 -1 0\n", 0, true},
		// Nothing falsified: optimal whatever the weights.
		{"100000000.123456789 1 0\n100000000.123456788 1 0\n", 2, true},
	} {
		in, err := Read(strings.NewReader(tc.text), "x")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), in, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Report.RoundedWeights != tc.rounded || res.Report.Optimal != tc.optimal {
			t.Errorf("%q: rounded weights %d optimal %v, want %d %v", tc.text, res.Report.RoundedWeights, res.Report.Optimal, tc.rounded, tc.optimal)
		}
	}
}
