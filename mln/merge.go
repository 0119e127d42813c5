package mln

import (
	"slices"
	"sync"

	"github.com/hinge-srl/hinge/maxsat"
)

// mergedNet is a ground network with identical ground clauses merged, as
// Alchemy 2 builds its ground network: a soft unit clause !a of weight w is
// first rewritten as a of weight -w (w*[!a] = w - w*[a]: the same
// distribution), then clauses with the same literals become one whose weight
// is the sum of theirs (hard when any of them is). Opposite unit clauses on
// one atom (a of weight 22, !a of weight 12) thus cancel into one clause a of
// weight 10, and the samplers see each atom's net pull instead of two
// near-deterministic clauses that freeze it. The probability of every world
// is unchanged; the cost of a world changes by a constant (AlchemyView).
type mergedNet struct {
	// in holds the merged clauses; its soft weights are kept equal to the
	// sums of the source's by refresh.
	in  *maxsat.Instance
	src *maxsat.Instance
	// into[c] is the merged clause source clause c went into, and flip[c]
	// says that it went in as its negation (a soft unit !a folded into a):
	// its weight counts with the opposite sign.
	into []int32
	flip []bool

	// equiv holds in's equivalence pairs (equivalencePairs), found once.
	equivOnce sync.Once
	equiv     [][2]int32
}

// pairs returns the merged clauses' equivalence pairs (see
// equivalencePairs), found on the first call; the chains share them.
func (m *mergedNet) pairs() [][2]int32 {
	m.equivOnce.Do(func() { m.equiv = equivalencePairs(m.in) })
	return m.equiv
}

// mergeClauses merges the clauses of src (soft weights may be negative).
// Clauses are found by a hash of their sorted literals, chained through
// next, and compared literal by literal.
func mergeClauses(src *maxsat.Instance) *mergedNet {
	m := &mergedNet{in: &maxsat.Instance{NumVars: src.NumVars, Start: []int32{0}}, src: src,
		into: make([]int32, src.NumClauses()), flip: make([]bool, src.NumClauses())}
	first := make(map[uint64]int32, src.NumClauses())
	var next []int32 // merged clause -> the next one with the same hash, or -1
	var lits []maxsat.Lit
	for c := range src.NumClauses() {
		lits = append(lits[:0], src.Clause(c)...)
		if len(lits) == 1 && !src.Hard[c] && lits[0].Neg() {
			lits[0], m.flip[c] = maxsat.Pos(lits[0].Var()), true
		}
		slices.Sort(lits)
		h := uint64(14695981039346656037)
		for _, l := range lits {
			h = (h ^ uint64(uint32(l))) * 1099511628211
		}
		k, ok := first[h]
		for ok && k >= 0 && !slices.Equal(m.in.Clause(int(k)), lits) {
			k = next[k]
		}
		if !ok || k < 0 {
			k = int32(m.in.NumClauses())
			if head, seen := first[h]; seen {
				next = append(next, head)
			} else {
				next = append(next, -1)
			}
			first[h] = k
			m.in.Lits = append(m.in.Lits, lits...)
			m.in.Start = append(m.in.Start, int32(len(m.in.Lits)))
			m.in.Weight = append(m.in.Weight, 0)
			m.in.Hard = append(m.in.Hard, false)
		}
		m.into[c] = k
		m.in.Hard[k] = m.in.Hard[k] || src.Hard[c]
	}
	m.refresh()
	return m
}

// mergedAlready wraps a network whose identical clauses are merged
// already (each clause its own, soft unit clauses positive) as a
// mergedNet, without hashing its clauses again.
func mergedAlready(in *maxsat.Instance) *mergedNet {
	m := &mergedNet{in: in, src: in, into: make([]int32, in.NumClauses()), flip: make([]bool, in.NumClauses())}
	for c := range m.into {
		m.into[c] = int32(c)
	}
	return m
}

// refresh sets the merged soft weights from the source's current ones (a
// learner changes them between sampling steps).
func (m *mergedNet) refresh() {
	w := m.in.Weight
	clear(w)
	for c, k := range m.into {
		if m.in.Hard[k] {
			continue
		}
		if m.flip[c] {
			w[k] -= m.src.Weight[c]
		} else {
			w[k] += m.src.Weight[c]
		}
	}
}

// offset is what the source network's cost of any world exceeds the merged
// network's by: for each merged clause, the smaller of the weights that
// pull it each way (they cost that much together in every world).
func (m *mergedNet) offset() float64 {
	pos := make([]float64, m.in.NumClauses())
	neg := make([]float64, m.in.NumClauses())
	for c, k := range m.into {
		if m.in.Hard[k] {
			continue
		}
		w := m.src.Weight[c]
		if m.flip[c] {
			w = -w
		}
		if w > 0 {
			pos[k] += w
		} else {
			neg[k] -= w
		}
	}
	off := 0.0
	for k := range pos {
		off += min(pos[k], neg[k])
	}
	return off
}

// walkable returns in with identical clauses merged, for MaxWalkSAT: the
// soft clauses whose weights cancel to 0 are left out, and a unit clause of
// negative weight -w on a literal becomes the unit clause of weight w on its
// negation (the same worlds are best). The walk picks clauses to repair
// among those that cost: a negative-weight unit clause costs in the worlds
// that satisfy it, the optimum among them, and a walk kept picking it.
func walkable(in *maxsat.Instance) *maxsat.Instance {
	return walkableMerged(mergeClauses(in).in)
}

// walkableMerged is walkable for a network whose identical clauses are
// merged already.
func walkableMerged(m *maxsat.Instance) *maxsat.Instance {
	out := &maxsat.Instance{NumVars: m.NumVars, Start: []int32{0}}
	for c := range m.NumClauses() {
		w, lits := m.Weight[c], m.Clause(c)
		switch {
		case m.Hard[c]:
		case w == 0:
			continue
		case w < 0 && len(lits) == 1:
			lits, w = []maxsat.Lit{-lits[0]}, -w
		}
		out.Lits = append(out.Lits, lits...)
		out.Start = append(out.Start, int32(len(out.Lits)))
		out.Weight = append(out.Weight, w)
		out.Hard = append(out.Hard, m.Hard[c])
	}
	return out
}
