package mln

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// exactMarginals enumerates every world: P(x) is proportional to
// exp(weight of satisfied soft clauses) on worlds that satisfy the hard ones.
func exactMarginals(in *maxsat.Instance) []float64 {
	n := in.NumVars
	p := make([]float64, n)
	z := 0.0
	x := make([]bool, n)
	for mask := 0; mask < 1<<n; mask++ {
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		sat, hv := in.Eval(x)
		if hv > 0 {
			continue
		}
		w := math.Exp(sat)
		z += w
		for v, b := range x {
			if b {
				p[v] += w
			}
		}
	}
	for v := range p {
		p[v] /= z
	}
	return p
}

// randomMLN is a random instance of k-literal clauses over n variables with
// weights in [0, 2), some hard.
func randomMLN(rng *rand.Rand, n, m int, hard int) *maxsat.Instance {
	in := &maxsat.Instance{NumVars: n}
	for c := range m {
		k := 1 + rng.IntN(3)
		lits := make([]maxsat.Lit, k)
		for i := range lits {
			v := rng.IntN(n)
			if rng.IntN(2) == 0 {
				lits[i] = maxsat.Pos(v)
			} else {
				lits[i] = maxsat.Not(v)
			}
		}
		if err := in.AddClause(2*rng.Float64(), c < hard && k > 1, lits...); err != nil {
			panic(err)
		}
	}
	return in
}

// TestSamplersAgainstEnumeration compares MC-SAT and Gibbs marginals with
// exact ones on networks of 10-12 atoms. At 20,000 samples the sampling
// error of a marginal is about 0.01 for independent samples; the chains'
// autocorrelation makes it larger, so the bound is 0.04.
func TestSamplersAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 4 {
		hard := 0
		if trial%2 == 1 {
			hard = 4
		}
		in := randomMLN(rng, 10+trial/2*2, 24, hard)
		exact := exactMarginals(in)
		opt := SampleOptions{Samples: 20000, BurnIn: 500, Seed: uint64(trial + 1)}
		start := make([]bool, in.NumVars)
		if hard > 0 {
			wr, err := maxsat.WalkSAT(context.Background(), in, nil, maxsat.WalkOptions{Steps: 100000, Seed: 1})
			if err != nil || wr.HardViolated > 0 {
				t.Fatalf("trial %d: no world satisfies the hard clauses (%v)", trial, err)
			}
			start = wr.X
		}
		mc, err := MCSAT(context.Background(), in, start, opt)
		if err != nil {
			t.Fatal(err)
		}
		check := func(name string, got []float64) {
			worst := 0.0
			for v := range got {
				worst = max(worst, math.Abs(got[v]-exact[v]))
			}
			if worst > 0.04 {
				t.Errorf("trial %d %s: largest error %.3f\nexact %.3f\ngot   %.3f", trial, name, worst, exact, got)
			}
			t.Logf("trial %d %s: largest error %.4f", trial, name, worst)
		}
		check("MC-SAT", mc)
		if hard == 0 {
			gb, err := Gibbs(context.Background(), in, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			check("Gibbs", gb)
		} else if _, err := Gibbs(context.Background(), in, nil, opt); err == nil {
			t.Errorf("trial %d: Gibbs accepted hard clauses", trial)
		}
	}
}

// Clauses of negative weight (a learner's weights may go below zero): MC-SAT
// selects a violated one as the constraint that it stays violated, and
// Gibbs reads the weight as it is; both must match enumeration.
func TestSamplersNegativeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 3 {
		hard := 0
		if trial == 2 {
			hard = 3
		}
		in := randomMLN(rng, 10, 24, hard)
		for c := range in.NumClauses() {
			if !in.Hard[c] && rng.IntN(2) == 0 {
				in.Weight[c] = -in.Weight[c]
			}
		}
		exact := exactMarginals(in)
		opt := SampleOptions{Samples: 20000, BurnIn: 500, Seed: uint64(trial + 1)}
		start := make([]bool, in.NumVars)
		if hard > 0 {
			for mask := 0; ; mask++ { // a world satisfying the hard clauses
				for v := range start {
					start[v] = mask>>v&1 == 1
				}
				if _, hv := in.Eval(start); hv == 0 {
					break
				}
			}
		}
		samplers := map[string]func() ([]float64, error){
			"MC-SAT": func() ([]float64, error) { return MCSAT(context.Background(), in, start, opt) },
		}
		if hard == 0 {
			samplers["Gibbs"] = func() ([]float64, error) { return Gibbs(context.Background(), in, nil, opt) }
		}
		for name, run := range samplers {
			got, err := run()
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for v := range got {
				worst = max(worst, math.Abs(got[v]-exact[v]))
			}
			if worst > 0.04 {
				t.Errorf("trial %d %s: largest error %.3f\nexact %.3f\ngot   %.3f", trial, name, worst, exact, got)
			}
		}
	}
}
