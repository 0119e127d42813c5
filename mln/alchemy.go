package mln

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/maxsat"
)

// AlchemyView is a ground network as Alchemy 2 counts it. Alchemy builds its
// ground network (MRF) by merging identical ground clauses and summing their
// weights, after rewriting a soft unit clause !a of weight w as a of weight
// -w; a clause of negative weight costs |w| when it is satisfied. Clauses
// that merge into one with positive weights summing to A and negative ones
// summing to -B (a unit clause a of weight A and a unit clause !a of weight B,
// say) become one clause of weight A-B, and min(A, B), which they cost
// together in every world, is no longer counted: Alchemy's cost of a world is
// hinge's (the weight of the ground clauses as grounded that the world
// violates, or satisfies for a negative weight) minus Offset, and both pick
// the same most probable worlds.
type AlchemyView struct {
	// Clauses is the number of ground clauses after merging, hard ones
	// included: the count Alchemy prints as "number of grounded clauses".
	Clauses int
	// Offset is the constant hinge's cost exceeds Alchemy's by.
	Offset float64
}

// Alchemy merges the clauses of a ground network (an instance from
// GroundClauses; a soft clause may have a negative weight) as Alchemy does
// and returns the merged clause count and the cost offset between the two
// conventions.
func Alchemy(in *maxsat.Instance) AlchemyView {
	type sums struct{ pos, neg float64 }
	merged := make(map[string]*sums, in.NumClauses())
	keys := []string{} // in first-seen order, so that Offset is summed in a fixed order
	var b strings.Builder
	lits := []maxsat.Lit{}
	for c := range in.NumClauses() {
		lits = append(lits[:0], in.Clause(c)...)
		w := in.Weight[c]
		if len(lits) == 1 && !in.Hard[c] && lits[0].Neg() {
			lits[0], w = maxsat.Pos(lits[0].Var()), -w
		}
		slices.Sort(lits)
		b.Reset()
		for _, l := range lits {
			b.WriteString(strconv.Itoa(int(l)))
			b.WriteByte(' ')
		}
		k := b.String()
		s := merged[k]
		if s == nil {
			s = &sums{}
			merged[k] = s
			keys = append(keys, k)
		}
		if in.Hard[c] {
			continue
		}
		if w > 0 {
			s.pos += w
		} else {
			s.neg -= w
		}
	}
	var off float64
	for _, k := range keys {
		off += min(merged[k].pos, merged[k].neg)
	}
	return AlchemyView{Clauses: len(merged), Offset: off}
}
