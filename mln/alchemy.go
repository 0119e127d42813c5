package mln

import "github.com/hinge-srl/hinge/maxsat"

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
	m := mergeClauses(in)
	return AlchemyView{Clauses: m.in.NumClauses(), Offset: m.offset()}
}
