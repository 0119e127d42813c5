// Package unionfind is a disjoint-set forest over the integers 0..n-1
// (union by linking, path halving), and the grouping of its sets that the
// samplers' blocks and flip groups are made of.
package unionfind

import "slices"

// Sets is a partition of 0..n-1 into disjoint sets.
type Sets struct{ parent []int32 }

// New returns n singleton sets.
func New(n int) *Sets {
	s := &Sets{parent: make([]int32, n)}
	for v := range s.parent {
		s.parent[v] = int32(v)
	}
	return s
}

// Find returns the representative of v's set.
func (s *Sets) Find(v int32) int32 {
	p := s.parent
	for p[v] != v {
		p[v] = p[p[v]]
		v = p[v]
	}
	return v
}

// Union joins the sets of a and b.
func (s *Sets) Union(a, b int32) {
	if ra, rb := s.Find(a), s.Find(b); ra != rb {
		s.parent[rb] = ra
	}
}

// Groups returns the sets of the elements keep accepts (nil: all), each in
// increasing order, the sets ordered by their smallest element.
func (s *Sets) Groups(keep func(v int) bool) [][]int32 {
	at := make(map[int32]int, len(s.parent))
	var groups [][]int32
	for v := range s.parent {
		if keep != nil && !keep(v) {
			continue
		}
		r := s.Find(int32(v))
		i, ok := at[r]
		if !ok {
			i = len(groups)
			at[r] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], int32(v))
	}
	return groups
}

// Distinct holds groups of elements, each sorted (as Groups returns them),
// so that a group equal to one held already is told apart: samplers keep
// one move per set of atoms, whichever construction found it first.
type Distinct struct{ byFirst map[int32][][]int32 }

// Add holds g and reports true, unless a group equal to g is held already
// (then false). g must not be empty, nor change while held.
func (d *Distinct) Add(g []int32) bool {
	if d.byFirst == nil {
		d.byFirst = map[int32][][]int32{}
	}
	for _, h := range d.byFirst[g[0]] {
		if slices.Equal(h, g) {
			return false
		}
	}
	d.byFirst[g[0]] = append(d.byFirst[g[0]], g)
	return true
}
