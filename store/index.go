package store

// hashTuple hashes a tuple of ids (splitmix64 finaliser over a running mix).
func hashTuple(vals []int32) uint64 {
	h := uint64(len(vals)) * 0x9E3779B97F4A7C15
	for _, v := range vals {
		h ^= uint64(uint32(v))
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	h ^= h >> 30
	h *= 0x94D049BB133111EB
	h ^= h >> 27
	return h
}

// hashIndex maps a full argument tuple to its row by open addressing over
// the table's own argument array (slots hold row+1; 0 is empty).
type hashIndex struct {
	slots []int32
	n     int
}

func equalRow(all []int32, row, arity int, vals []int32) bool {
	r := all[row*arity : row*arity+arity]
	for i, v := range vals {
		if r[i] != v {
			return false
		}
	}
	return true
}

func (h *hashIndex) find(vals []int32, all []int32, arity int) (int, bool) {
	if len(h.slots) == 0 {
		return 0, false
	}
	m := uint64(len(h.slots) - 1)
	for i := hashTuple(vals) & m; ; i = (i + 1) & m {
		s := h.slots[i]
		if s == 0 {
			return 0, false
		}
		if equalRow(all, int(s-1), arity, vals) {
			return int(s - 1), true
		}
	}
}

func (h *hashIndex) insert(row int, all []int32, arity int) {
	if (h.n+1)*2 > len(h.slots) {
		h.grow(all, arity)
	}
	m := uint64(len(h.slots) - 1)
	i := hashTuple(all[row*arity:row*arity+arity]) & m
	for h.slots[i] != 0 {
		i = (i + 1) & m
	}
	h.slots[i] = int32(row + 1)
	h.n++
}

func (h *hashIndex) grow(all []int32, arity int) {
	size := 16
	if len(h.slots) > 0 {
		size = len(h.slots) * 2
	}
	old := h.slots
	h.slots = make([]int32, size)
	m := uint64(size - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		row := int(s - 1)
		i := hashTuple(all[row*arity:row*arity+arity]) & m
		for h.slots[i] != 0 {
			i = (i + 1) & m
		}
		h.slots[i] = s
	}
}

// SubIndex groups a table's rows by the values at a subset of argument
// positions: Lookup(values at those positions) returns the matching rows, in
// ascending row order.
//
// An index is kept up to date as rows are added to its table (lazy
// inference adds atoms while it joins): a group that gains rows after the
// index was built keeps its rows in a slice of its own (grown), and once
// the rows added that way outnumber the rows the index was built with, it
// is rebuilt in place; a row added costs amortised constant time.
type SubIndex struct {
	t     *Table
	pos   []int   // indexed positions, ascending
	rows  []int32 // rows grouped by key (as built)
	start []int32 // group g < len(start)-1 is rows[start[g]:start[g+1]] unless grown
	rep   []int32 // a representative row of each group
	slots []int32 // open addressing: group+1, 0 empty
	// grown[g], when not nil, holds every row of group g: the built ones
	// and those added since (groups made since the build have only this).
	grown [][]int32
	added int // rows added since the build
}

// Positions returns the indexed argument positions in ascending order; the
// values passed to Lookup are in this order.
func (ix *SubIndex) Positions() []int { return ix.pos }

func buildSubIndex(t *Table, mask uint32) *SubIndex {
	ix := &SubIndex{t: t}
	for i := 0; i < t.arity; i++ {
		if mask&(1<<i) != 0 {
			ix.pos = append(ix.pos, i)
		}
	}
	n := t.Len()
	size := 16
	for size < 2*n {
		size *= 2
	}
	ix.slots = make([]int32, size)
	m := uint64(size - 1)
	group := make([]int32, n)
	key := make([]int32, len(ix.pos))
	var counts []int32
	for row := 0; row < n; row++ {
		for k, p := range ix.pos {
			key[k] = t.args[row*t.arity+p]
		}
		i := hashTuple(key) & m
		for {
			s := ix.slots[i]
			if s == 0 {
				g := int32(len(ix.rep))
				ix.rep = append(ix.rep, int32(row))
				counts = append(counts, 0)
				ix.slots[i] = g + 1
				group[row] = g
				break
			}
			if ix.matches(int(ix.rep[s-1]), key) {
				group[row] = s - 1
				break
			}
			i = (i + 1) & m
		}
		counts[group[row]]++
	}
	ix.start = make([]int32, len(counts)+1)
	for g, c := range counts {
		ix.start[g+1] = ix.start[g] + c
	}
	fill := append([]int32(nil), ix.start[:len(counts)]...)
	ix.rows = make([]int32, n)
	for row := 0; row < n; row++ {
		g := group[row]
		ix.rows[fill[g]] = int32(row)
		fill[g]++
	}
	return ix
}

// insert adds row, just appended to the table, to the index (Table.add
// calls it for every index the table has).
func (ix *SubIndex) insert(row int) {
	if ix.added >= max(len(ix.rows), 1024) {
		*ix = *buildSubIndex(ix.t, ix.mask()) // the row is in the table already
		return
	}
	ix.added++
	key := make([]int32, len(ix.pos))
	for k, p := range ix.pos {
		key[k] = ix.t.args[row*ix.t.arity+p]
	}
	g, ok := ix.group(key)
	if !ok {
		if 2*(len(ix.rep)+1) > len(ix.slots) {
			ix.rehash(2 * len(ix.slots))
		}
		g = int32(len(ix.rep))
		ix.rep = append(ix.rep, int32(row))
		m := uint64(len(ix.slots) - 1)
		i := hashTuple(key) & m
		for ix.slots[i] != 0 {
			i = (i + 1) & m
		}
		ix.slots[i] = g + 1
	}
	for len(ix.grown) <= int(g) {
		ix.grown = append(ix.grown, nil)
	}
	if ix.grown[g] == nil && int(g) < len(ix.start)-1 {
		base := ix.rows[ix.start[g]:ix.start[g+1]]
		ix.grown[g] = append(make([]int32, 0, len(base)+1), base...)
	}
	ix.grown[g] = append(ix.grown[g], int32(row))
}

// mask is the bit set of the indexed positions.
func (ix *SubIndex) mask() uint32 {
	var m uint32
	for _, p := range ix.pos {
		m |= 1 << p
	}
	return m
}

// rehash rebuilds the open-addressing slots with size entries.
func (ix *SubIndex) rehash(size int) {
	ix.slots = make([]int32, size)
	m := uint64(size - 1)
	key := make([]int32, len(ix.pos))
	for g, row := range ix.rep {
		for k, p := range ix.pos {
			key[k] = ix.t.args[int(row)*ix.t.arity+p]
		}
		i := hashTuple(key) & m
		for ix.slots[i] != 0 {
			i = (i + 1) & m
		}
		ix.slots[i] = int32(g) + 1
	}
}

// group finds the group of key.
func (ix *SubIndex) group(vals []int32) (int32, bool) {
	if len(ix.rep) == 0 {
		return 0, false
	}
	m := uint64(len(ix.slots) - 1)
	for i := hashTuple(vals) & m; ; i = (i + 1) & m {
		s := ix.slots[i]
		if s == 0 {
			return 0, false
		}
		if ix.matches(int(ix.rep[s-1]), vals) {
			return s - 1, true
		}
	}
}

func (ix *SubIndex) matches(row int, vals []int32) bool {
	base := row * ix.t.arity
	for k, p := range ix.pos {
		if ix.t.args[base+p] != vals[k] {
			return false
		}
	}
	return true
}

// Lookup returns the rows whose indexed positions hold vals (in the order of
// Positions). The result is a view into the index: do not modify it.
func (ix *SubIndex) Lookup(vals []int32) []int32 {
	g, ok := ix.group(vals)
	switch {
	case !ok:
		return nil
	case int(g) < len(ix.grown) && ix.grown[g] != nil:
		return ix.grown[g]
	}
	return ix.rows[ix.start[g]:ix.start[g+1]]
}

// Groups is the number of distinct keys in the index.
func (ix *SubIndex) Groups() int { return len(ix.rep) }

// MeanGroup is the average number of rows per key: the expected fan-out of a
// lookup, which the grounder uses to order joins.
func (ix *SubIndex) MeanGroup() float64 {
	if len(ix.rep) == 0 {
		return 0
	}
	return float64(len(ix.rows)+ix.added) / float64(len(ix.rep))
}
