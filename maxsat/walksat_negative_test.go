package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// signedCost is a world's cost with signed soft weights: w for a violated
// clause of positive weight, |w| for a satisfied clause of negative weight;
// and its violated hard clauses.
func signedCost(in *Instance, x []bool) (float64, int) {
	cost, hard := 0.0, 0
	for c := range in.NumClauses() {
		sat := in.Satisfied(c, x)
		switch w := in.Weight[c]; {
		case in.Hard[c]:
			if !sat {
				hard++
			}
		case w > 0 && !sat:
			cost += w
		case w < 0 && sat:
			cost -= w
		}
	}
	return cost, hard
}

// TestWalkSATNegativeWeights: on small random instances with negative soft
// weights (and some hard clauses) MaxWalkSAT finds the optimum that
// enumeration finds, and reports Satisfied as the signed sum.
func TestWalkSATNegativeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		n := 4 + rng.IntN(7)
		in := &Instance{NumVars: n, Start: []int32{0}}
		for range 3 * n {
			k := 1 + rng.IntN(3)
			lits := make([]Lit, k)
			for i := range lits {
				lits[i] = Pos(rng.IntN(n))
				if rng.IntN(2) == 0 {
					lits[i] = Not(rng.IntN(n))
				}
			}
			w := math.Round(rng.NormFloat64()*20) / 10
			hard := rng.IntN(12) == 0
			in.Weight = append(in.Weight, w)
			in.Hard = append(in.Hard, hard)
			in.Lits = append(in.Lits, lits...)
			in.Start = append(in.Start, int32(len(in.Lits)))
		}
		best, bestHard := math.Inf(1), math.MaxInt
		x := make([]bool, n)
		for mask := range 1 << n {
			for v := range x {
				x[v] = mask>>v&1 == 1
			}
			c, h := signedCost(in, x)
			if h < bestHard || h == bestHard && c < best {
				best, bestHard = c, h
			}
		}
		res, err := WalkSAT(context.Background(), in, nil, WalkOptions{Steps: 20000, Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		got, gotHard := signedCost(in, res.X)
		if gotHard != bestHard || math.Abs(got-best) > 1e-9 {
			t.Errorf("trial %d: MaxWalkSAT cost %v (%d hard violated), optimum %v (%d)", trial, got, gotHard, best, bestHard)
		}
		sat, hv := in.Eval(res.X)
		pos := 0.0
		for c, w := range in.Weight {
			if !in.Hard[c] && w > 0 {
				pos += w
			}
		}
		if hv != gotHard || math.Abs(pos-sat-got) > 1e-9 {
			t.Errorf("trial %d: Satisfied %v, positive weight %v, cost %v", trial, sat, pos, got)
		}
	}
}
