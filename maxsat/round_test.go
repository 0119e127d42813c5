package maxsat

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

const eps = 1e-9

// TestRoundingGuarantees checks paper 003's guarantees against brute force
// and an exact LP on random small instances without hard clauses:
//   - the LP value W - LP* is never below the optimum;
//   - each randomised rounding's expected weight (closed form, checked against
//     a sum over all assignments) meets its guarantee: GW >= 3/4 and plain
//     >= 1-1/e of the relaxed weight;
//   - each derandomised assignment is never below its expectation;
//   - Round's result is never below 3/4 of the optimum.
func TestRoundingGuarantees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []struct{ n, m, maxLen int }{
		{2, 3, 2}, {4, 10, 2}, {6, 20, 3}, {8, 30, 4}, {10, 40, 3}, {12, 60, 5}, {14, 40, 1}, {16, 80, 3},
	}
	if !testing.Short() {
		sizes = append(sizes, struct{ n, m, maxLen int }{20, 90, 3})
	}
	for _, sz := range sizes {
		trials := 6
		if sz.n >= 20 {
			trials = 2 // 2^20 assignments each
		}
		for trial := 0; trial < trials; trial++ {
			name := fmt.Sprintf("n%d_m%d_k%d_%d", sz.n, sz.m, sz.maxLen, trial)
			in := randomInstance(rng, sz.n, sz.m, sz.maxLen, trial%2 == 0, 0)
			opt, _, _ := bruteForce(in)
			lpOpt, y, ok := lpRelaxation(t, in)
			if !ok {
				t.Fatalf("%s: LP infeasible without hard clauses", name)
			}
			W := in.SoftWeight()
			if W-lpOpt < opt-1e-7 {
				t.Errorf("%s: LP upper bound %v below optimum %v", name, W-lpOpt, opt)
			}
			relaxed, _, err := relaxedWeight(context.Background(), in, y)
			if err != nil {
				t.Fatal(err)
			}
			pg, pp := gwProb(y), plainProb(y)
			eg, _ := expectedWeight(in, pg)
			ep, _ := expectedWeight(in, pp)
			if sz.n <= 12 {
				if b := bruteExpected(in, pg); math.Abs(b-eg) > 1e-9*(1+W) {
					t.Errorf("%s: closed-form GW expectation %v, sum over assignments %v", name, eg, b)
				}
				if b := bruteExpected(in, pp); math.Abs(b-ep) > 1e-9*(1+W) {
					t.Errorf("%s: closed-form plain expectation %v, sum over assignments %v", name, ep, b)
				}
			}
			if eg < 0.75*relaxed-eps {
				t.Errorf("%s: GW expectation %v < 3/4 of relaxed %v", name, eg, relaxed)
			}
			if ep < (1-1/math.E)*relaxed-eps {
				t.Errorf("%s: plain expectation %v < (1-1/e) of relaxed %v", name, ep, relaxed)
			}
			for _, c := range []struct {
				p    []float64
				want float64
			}{{pg, eg}, {pp, ep}} {
				x, e, err := derandomizeProbs(in, c.p)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(e-c.want) > 1e-9*(1+W) {
					t.Errorf("%s: Derandomize reports expectation %v, want %v", name, e, c.want)
				}
				if s, _ := in.Eval(x); s < c.want-eps*(1+W) {
					t.Errorf("%s: derandomised weight %v below expectation %v", name, s, c.want)
				}
			}
			r, err := roundRelaxed(in, y)
			if err != nil {
				t.Fatal(err)
			}
			if r.Satisfied < math.Max(eg, ep)-eps*(1+W) {
				t.Errorf("%s: Round %v below max expectation %v", name, r.Satisfied, math.Max(eg, ep))
			}
			if r.Satisfied < 0.75*opt-eps {
				t.Errorf("%s: Round %v below 3/4 of optimum %v", name, r.Satisfied, opt)
			}
			if s, h := in.Eval(r.X); s != r.Satisfied || h != r.HardViolated {
				t.Errorf("%s: Round reports (%v, %d), Eval gives (%v, %d)", name, r.Satisfied, r.HardViolated, s, h)
			}
		}
	}
}

// TestDerandomizeAnyProbabilities: the method of conditional probabilities
// never ends below the expectation, for arbitrary p (including 0 and 1) and
// with hard clauses counted at their heavy weight.
func TestDerandomizeAnyProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(10)
		in := randomInstance(rng, n, 1+rng.IntN(30), 4, trial%3 == 0, 0.2*float64(trial%2))
		// Add a tautology and (sometimes) an empty soft clause.
		in.AddClause(2, false, Pos(0), Not(0))
		if trial%5 == 0 {
			in.AddClause(3, false)
		}
		p := make([]float64, n)
		for i := range p {
			switch rng.IntN(4) {
			case 0:
				p[i] = 0
			case 1:
				p[i] = 1
			default:
				p[i] = rng.Float64()
			}
		}
		hw := hardWeight(in)
		es, eh := expectedWeight(in, p)
		nh := float64(in.NumHard())
		x, e, err := derandomizeProbs(in, p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e-es) > 1e-9*(1+es) {
			t.Fatalf("trial %d: expectation %v vs expectedWeight %v", trial, e, es)
		}
		s, h := in.Eval(x)
		got := s + hw*(nh-float64(h))
		want := es + hw*(nh-eh)
		if got < want-1e-9*(1+want) {
			t.Fatalf("trial %d: derandomised weighted value %v below expectation %v", trial, got, want)
		}
	}
}

// TestDerandomizeLongClause: a clause whose probability of being false
// underflows float64 (0.75^3000) must still count when all but one of its
// literals are fixed false: the last variable then satisfies it.
func TestDerandomizeLongClause(t *testing.T) {
	const n = 3000
	in := &Instance{}
	long := make([]Lit, n)
	for i := range long {
		long[i] = Pos(i)
		in.AddClause(1, false, Not(i))
	}
	in.AddClause(10, false, long...)
	p := make([]float64, n)
	for i := range p {
		p[i] = 0.25
	}
	x, _, err := derandomizeProbs(in, p)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := in.Eval(x); s != n-1+10 {
		t.Fatalf("got weight %v, want the optimum %v", s, n-1+10)
	}
}

// derandomizeProbs is derandomize on a fresh index: the assignment and the
// expected soft weight under p.
func derandomizeProbs(in *Instance, p []float64) ([]bool, float64, error) {
	if len(p) != in.NumVars {
		return nil, 0, fmt.Errorf("%d probabilities for %d variables", len(p), in.NumVars)
	}
	d, err := derandomize(context.Background(), in, buildIndex(in), p, hardWeight(in))
	return d.x, d.expSoft, err
}

// roundRelaxed is round on a fresh index.
func roundRelaxed(in *Instance, y []float64) (*rounded, error) {
	if len(y) != in.NumVars {
		return nil, fmt.Errorf("%d relaxed values for %d variables", len(y), in.NumVars)
	}
	return round(context.Background(), in, buildIndex(in), y)
}
