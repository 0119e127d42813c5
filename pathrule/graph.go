package pathrule

import (
	"fmt"
	"slices"
)

// Triple is a fact head -relation-> tail, by ids.
type Triple struct{ H, R, T int32 }

// Step is a body atom walked from one variable to the next: relation R
// forwards (from head to tail) or, when Inverse, backwards.
type Step struct {
	R       int32
	Inverse bool
}

// Edge is one step from an entity: relation R walked forwards (Inverse
// false: from head to tail) or backwards, reaching To.
type Edge struct {
	R       int32
	Inverse bool
	To      int32
}

// Key numbers a step: 2R forwards, 2R+1 backwards.
func (s Step) Key() int32 {
	if s.Inverse {
		return s.R*2 + 1
	}
	return s.R * 2
}

// StepOf is the step with key k.
func StepOf(k int32) Step { return Step{R: k >> 1, Inverse: k&1 == 1} }

// Reverse is steps walked backwards, from the end to the start.
func Reverse(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		out[len(steps)-1-i] = Step{st.R, !st.Inverse}
	}
	return out
}

// Graph indexes a set of triples for walking: every entity's edges in
// both directions, sorted by (relation, direction, neighbour), in one flat
// array (CSR), and for every relation and direction the sorted entities
// that have such an edge.
type Graph struct {
	NumEntities, NumRelations int
	// Triples are the distinct triples, in first-seen order.
	Triples []Triple
	start   []int64 // by entity: its edges are [start[e], start[e+1])
	ekey    []int32 // edge key: Step.Key
	eto     []int32 // the neighbour
	// from[key]: the sorted entities with an edge of key; selfOnly[key]
	// those of them whose edges of key are all self-loops; loops[r] the
	// sorted entities x with r(x, x).
	from, selfOnly, loops [][]int32
}

// NewGraph indexes the triples (duplicates are kept once) over
// numEntities entities and numRelations relations; every id must be in
// range.
func NewGraph(triples []Triple, numEntities, numRelations int) *Graph {
	g := &Graph{NumEntities: numEntities, NumRelations: numRelations}
	deg := make([]int64, numEntities+1)
	for _, t := range triples {
		deg[t.H+1]++
		deg[t.T+1]++
	}
	for e := range numEntities {
		deg[e+1] += deg[e]
	}
	packed := make([]uint64, deg[numEntities])
	fill := slices.Clone(deg[:numEntities])
	pack := func(key, to int32) uint64 { return uint64(key)<<32 | uint64(uint32(to)) }
	for _, t := range triples {
		packed[fill[t.H]] = pack(Step{t.R, false}.Key(), t.T)
		fill[t.H]++
		packed[fill[t.T]] = pack(Step{t.R, true}.Key(), t.H)
		fill[t.T]++
	}
	g.start = make([]int64, numEntities+1)
	g.ekey = make([]int32, 0, len(packed))
	g.eto = make([]int32, 0, len(packed))
	for e := range numEntities {
		es := packed[deg[e]:deg[e+1]]
		slices.Sort(es)
		es = slices.Compact(es)
		for _, p := range es {
			g.ekey = append(g.ekey, int32(p>>32))
			g.eto = append(g.eto, int32(uint32(p)))
		}
		g.start[e+1] = int64(len(g.ekey))
	}
	// Distinct triples in first-seen order: a triple is new when its
	// forward edge has not been claimed yet.
	claimed := make([]bool, len(g.ekey))
	for _, t := range triples {
		lo, hi := g.keyRange(t.H, Step{t.R, false}.Key())
		j, _ := slices.BinarySearch(g.eto[lo:hi], t.T)
		if i := lo + int64(j); !claimed[i] {
			claimed[i] = true
			g.Triples = append(g.Triples, t)
		}
	}
	nk := 2 * numRelations
	g.from, g.selfOnly, g.loops = make([][]int32, nk), make([][]int32, nk), make([][]int32, numRelations)
	for e := range int32(numEntities) {
		lo, hi := g.start[e], g.start[e+1]
		for i := lo; i < hi; {
			j, self := i, true
			for ; j < hi && g.ekey[j] == g.ekey[i]; j++ {
				self = self && g.eto[j] == e
				if g.eto[j] == e && g.ekey[j]&1 == 0 {
					g.loops[g.ekey[j]>>1] = append(g.loops[g.ekey[j]>>1], e)
				}
			}
			g.from[g.ekey[i]] = append(g.from[g.ekey[i]], e)
			if self {
				g.selfOnly[g.ekey[i]] = append(g.selfOnly[g.ekey[i]], e)
			}
			i = j
		}
	}
	return g
}

// keyRange is the range of e's edges of key.
func (g *Graph) keyRange(e, key int32) (int64, int64) {
	lo, hi := g.start[e], g.start[e+1]
	ks := g.ekey[lo:hi]
	i, found := slices.BinarySearch(ks, key)
	if !found {
		return 0, 0
	}
	j := i + 1
	for j < len(ks) && ks[j] == key {
		j++
	}
	return lo + int64(i), lo + int64(j)
}

// Has reports whether the graph holds the triple.
func (g *Graph) Has(t Triple) bool {
	if int(t.H) >= g.NumEntities || int(t.R) >= g.NumRelations || t.H < 0 || t.R < 0 {
		return false
	}
	_, found := slices.BinarySearch(g.Step(t.H, t.R, false), t.T)
	return found
}

// Step returns the sorted entities reached from e by one step of relation
// r (forwards: e's tails; inverse: e's heads). The slice is shared.
func (g *Graph) Step(e, r int32, inverse bool) []int32 {
	lo, hi := g.keyRange(e, Step{r, inverse}.Key())
	return g.eto[lo:hi]
}

// Degree is the number of e's edges, both directions.
func (g *Graph) Degree(e int32) int { return int(g.start[e+1] - g.start[e]) }

// EdgeAt returns e's i-th edge, 0 <= i < Degree(e), in (relation,
// direction, neighbour) order.
func (g *Graph) EdgeAt(e int32, i int) Edge {
	j := g.start[e] + int64(i)
	s := StepOf(g.ekey[j])
	return Edge{R: s.R, Inverse: s.Inverse, To: g.eto[j]}
}

// Edges returns e's edges, in (relation, direction, neighbour) order (a
// new slice).
func (g *Graph) Edges(e int32) []Edge {
	out := make([]Edge, g.Degree(e))
	for i := range out {
		out[i] = g.EdgeAt(e, i)
	}
	return out
}

// From returns the sorted entities with at least one edge of relation r in
// the given direction (the heads of r forwards, its tails backwards). The
// slice is shared.
func (g *Graph) From(r int32, inverse bool) []int32 { return g.from[Step{r, inverse}.Key()] }

// SelfOnly returns the sorted entities of From(r, inverse) whose edges of
// that kind are all self-loops (shared).
func (g *Graph) SelfOnly(r int32, inverse bool) []int32 { return g.selfOnly[Step{r, inverse}.Key()] }

// Loops returns the sorted entities x with r(x, x) (shared).
func (g *Graph) Loops(r int32) []int32 { return g.loops[r] }

// String summarises the graph.
func (g *Graph) String() string {
	return fmt.Sprintf("%d entities, %d relations, %d triples", g.NumEntities, g.NumRelations, len(g.Triples))
}
