package mln

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// enumerationWork is the work of enumerating every world of in in Gray-code
// order with the variables ordered by increasing occurrences (the order
// enumerate uses): one unit per world, plus one per clause occurrence of
// each flipped variable (variable i of the order flips 2^(n-1-i) times).
// +Inf beyond 62 variables.
func enumerationWork(in *maxsat.Instance) float64 {
	n := in.NumVars
	if n > 62 {
		return math.Inf(1)
	}
	occ := occurrenceCounts(in)
	slices.Sort(occ)
	work := math.Ldexp(1, n)
	for i, o := range occ {
		work += math.Ldexp(float64(o), n-1-i)
	}
	return work
}

// occurrenceCounts counts each variable's literal occurrences in in.
func occurrenceCounts(in *maxsat.Instance) []int {
	occ := make([]int, in.NumVars)
	for _, l := range in.Lits {
		occ[l.Var()]++
	}
	return occ
}

// enumerate computes the exact marginals of a small network by visiting
// every world once, in Gray-code order (each world differs from the last
// in one atom), keeping each clause's number of true literals and the
// world's log-weight (the signed weights of the satisfied soft clauses; a
// world that violates a hard clause weighs 0) up to date as the flipped
// atom's clauses change. The most frequently flipped positions go to the
// atoms in the fewest clauses. The sums are kept relative to a reference
// log-weight that is raised, and the sums rescaled, whenever a world
// weighs more than e^30 times it (log-sum-exp), so nothing overflows. An
// atom's sum grows by the total weight accumulated while it is true,
// taken when it turns false, so each world costs O(1) beyond its flip.
// errNoWorld when no world satisfies the hard clauses.
func enumerate(ctx context.Context, in *maxsat.Instance) ([]float64, error) {
	n := in.NumVars
	occ := occurrenceCounts(in)
	order := make([]int, n) // Gray-code position -> variable
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return occ[a] - occ[b] })
	// Occurrence lists in CSR form: for each variable, its clauses, with
	// the literal's sign.
	start := make([]int32, n+1)
	for v, o := range occ {
		start[v+1] = start[v] + int32(o)
	}
	at := slices.Clone(start[:n])
	occClause := make([]int32, len(in.Lits))
	occNeg := make([]bool, len(in.Lits))
	nc := in.NumClauses()
	for c := range nc {
		for _, l := range in.Clause(c) {
			v := l.Var()
			occClause[at[v]], occNeg[at[v]] = int32(c), l.Neg()
			at[v]++
		}
	}
	// The all-false world.
	x := make([]bool, n)
	trueLits, logw, hardBroken := allFalse(in)
	const margin = 30
	ref := logw // reference log-weight of the sums
	var z float64
	sum := make([]float64, n)   // per variable, weight while true (closed runs)
	since := make([]float64, n) // per variable, z when it last turned true
	// logw is summed with Neumaier's compensation (logw + comp is the
	// world's log-weight): 2^n worlds of updates by weights in the
	// thousands left it 1e-8 off otherwise.
	var comp float64
	add := func(w float64) {
		t := logw + w
		if math.Abs(logw) >= math.Abs(w) {
			comp += (logw - t) + w
		} else {
			comp += (w - t) + logw
		}
		logw = t
	}
	flip := func(v int) {
		x[v] = !x[v]
		for k := start[v]; k < start[v+1]; k++ {
			c := occClause[k]
			wasSat := trueLits[c] > 0
			if occNeg[k] != x[v] { // the literal turned true
				trueLits[c]++
			} else {
				trueLits[c]--
			}
			if isSat := trueLits[c] > 0; isSat != wasSat {
				switch {
				case in.Hard[c] && isSat:
					hardBroken--
				case in.Hard[c]:
					hardBroken++
				case isSat:
					add(in.Weight[c])
				default:
					add(-in.Weight[c])
				}
			}
		}
		if x[v] {
			since[v] = z
		} else {
			sum[v] += z - since[v]
		}
	}
	worlds := uint64(1) << n
	for i := uint64(0); ; i++ {
		if hardBroken == 0 {
			lw := logw + comp
			if lw > ref+margin || z == 0 {
				// Rescale to the new reference (the first feasible
				// world sets it).
				s := math.Exp(ref - lw)
				if z == 0 {
					s = 0
				}
				z *= s
				for v := range sum {
					sum[v] *= s
					since[v] *= s
				}
				ref = lw
			}
			z += math.Exp(lw - ref)
		}
		if i+1 == worlds {
			break
		}
		if i&0xffff == 0xffff {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Gray code: world i+1 flips the position of i+1's lowest set bit.
		flip(order[bits.TrailingZeros64(i+1)])
	}
	if z == 0 || math.IsNaN(z) {
		return nil, errNoWorld
	}
	probs := make([]float64, n)
	for v := range n {
		s := sum[v]
		if x[v] {
			s += z - since[v]
		}
		probs[v] = min(max(s/z, 0), 1)
	}
	return probs, nil
}

// allFalse evaluates the all-false world of in: each clause's number of
// true literals (its negative ones), the signed weight of the satisfied
// soft clauses and the number of violated hard ones.
func allFalse(in *maxsat.Instance) (trueLits []int32, weight float64, hardViolated int) {
	trueLits = make([]int32, in.NumClauses())
	for c := range trueLits {
		for _, l := range in.Clause(c) {
			if l.Neg() {
				trueLits[c]++
			}
		}
		switch {
		case trueLits[c] > 0 && !in.Hard[c]:
			weight += in.Weight[c]
		case trueLits[c] == 0 && in.Hard[c]:
			hardViolated++
		}
	}
	return trueLits, weight, hardViolated
}
