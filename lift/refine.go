package lift

import (
	"math"
	"slices"

	"hinge/hlmrf"
)

// Coloring is the coarsest stable coloring of a problem's weighted bipartite
// factor graph that refines the initial coloring (paper 000, section 3.1):
//
//   - potentials start colored by (weight, constant, power), constraints by
//     (kind, constant), never sharing a color with a potential, and all
//     variables share one color;
//   - stable means that any two nodes of one color have, for every color C,
//     the same exact sum of edge weights (coefficients) into C.
//
// Colors are numbered from 0 per node kind in order of first occurrence, so
// the coloring of a problem without symmetry is the identity.
type Coloring struct {
	Var []int32 // variable -> color, 0..NumVar-1
	Pot []int32 // potential -> color, 0..NumPot-1
	Con []int32 // constraint -> color, 0..NumCon-1

	NumVar, NumPot, NumCon int
}

// Refine computes the coarsest stable coloring of p's factor graph. It
// returns an error if p's arrays are inconsistent (see Lift).
//
// The algorithm is partition refinement with a queue of splitter classes and
// the "all but the largest part" rule (Cardon and Crochemore; Paige and
// Tarjan), running in O((n+m) log n) time for n nodes and m edges, plus the
// cost of sorting the values that split a class. Sums are compared exactly
// (see fixed.go), not in floating point.
func Refine(p *hlmrf.Problem) (*Coloring, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	return refine(newGraph(p), p), nil
}

// refiner holds the ordered partition: elems lists the nodes so that each
// class is the contiguous range elems[first[c]:end[c]], and pos is the
// inverse of elems.
type refiner struct {
	g     *graph
	words int

	elems, pos, cls []int32
	first, end      []int32
	ntouch          []int32 // per class: touched members, moved to the end of its range
	queued          []bool
	queue           []int32
	nclass          int32

	acc      []uint64 // node -> exact sum of edge weights into the current splitter
	marked   []bool   // node touched by the current splitter
	touched  []int32  // nodes touched by the current splitter
	tclasses []int32  // classes with touched members
	bounds   []int32  // scratch: group starts within a class
}

func refine(g *graph, p *hlmrf.Problem) *Coloring {
	n := g.n + g.m + g.c
	r := &refiner{
		g:      g,
		words:  g.scale.words,
		elems:  make([]int32, n),
		pos:    make([]int32, n),
		cls:    make([]int32, n),
		first:  make([]int32, n),
		end:    make([]int32, n),
		ntouch: make([]int32, n),
		queued: make([]bool, n),
		acc:    make([]uint64, n*g.scale.words),
		marked: make([]bool, n),
	}
	r.initial(p)
	for len(r.queue) > 0 {
		s := r.queue[len(r.queue)-1]
		r.queue = r.queue[:len(r.queue)-1]
		r.queued[s] = false
		r.split(s)
	}
	return r.coloring()
}

// initial sets up the initial coloring and queues every initial class.
func (r *refiner) initial(p *hlmrf.Problem) {
	g := r.g
	// Color ids: variables 0 (if any), then potential keys, then constraint keys,
	// each in order of first occurrence.
	type potKey struct {
		w, c uint64
		d    uint8
	}
	type conKey struct {
		c    uint64
		kind hlmrf.ConstraintKind
	}
	var sizes []int32
	if g.n > 0 {
		sizes = append(sizes, int32(g.n))
		for v := 0; v < g.n; v++ {
			r.cls[v] = 0
		}
	}
	pk := make(map[potKey]int32)
	for i := 0; i < g.m; i++ {
		k := potKey{bitsOf(p.Weight[i]), bitsOf(p.Const[i]), p.Power[i]}
		c, ok := pk[k]
		if !ok {
			c = int32(len(sizes))
			pk[k] = c
			sizes = append(sizes, 0)
		}
		sizes[c]++
		r.cls[g.n+i] = c
	}
	ck := make(map[conKey]int32)
	for j := 0; j < g.c; j++ {
		k := conKey{bitsOf(p.CConst[j]), p.CKind[j]}
		c, ok := ck[k]
		if !ok {
			c = int32(len(sizes))
			ck[k] = c
			sizes = append(sizes, 0)
		}
		sizes[c]++
		r.cls[g.n+g.m+j] = c
	}
	// Counting sort of the nodes by class.
	var at int32
	for c, s := range sizes {
		r.first[c], r.end[c] = at, at
		at += s
	}
	for x := range r.cls {
		c := r.cls[x]
		q := r.end[c]
		r.end[c]++
		r.elems[q] = int32(x)
		r.pos[x] = q
	}
	r.nclass = int32(len(sizes))
	for c := r.nclass - 1; c >= 0; c-- {
		r.queue = append(r.queue, c)
		r.queued[c] = true
	}
}

// bitsOf returns the bits of x with -0 folded into +0, so that equal numbers
// get equal keys.
func bitsOf(x float64) uint64 {
	if x == 0 {
		return 0
	}
	return math.Float64bits(x)
}

// split refines every class by the exact sum of edge weights of its members
// into class s.
func (r *refiner) split(s int32) {
	g, w := r.g, r.words
	members := r.elems[r.first[s]:r.end[s]]
	if int(members[0]) < g.n {
		// Variables: add each incidence to its factor node.
		for _, v := range members {
			for k := g.vStart[v]; k < g.vStart[v+1]; k++ {
				r.touch(int32(g.n)+g.vFac[k], g.vEdge[k], w)
			}
		}
	} else {
		for _, u := range members {
			f := int(u) - g.n
			for e := g.fStart[f]; e < g.fStart[f+1]; e++ {
				r.touch(g.fVar[e], e, w)
			}
		}
	}
	for _, c := range r.tclasses {
		r.splitClass(c)
	}
	for _, x := range r.touched {
		r.marked[x] = false
		clear(r.acc[int(x)*w : int(x+1)*w])
	}
	r.touched = r.touched[:0]
	r.tclasses = r.tclasses[:0]
}

// touch adds edge e's weight to node x's sum, moving x to the touched tail of
// its class on first touch.
func (r *refiner) touch(x, e int32, w int) {
	if !r.marked[x] {
		r.marked[x] = true
		r.touched = append(r.touched, x)
		c := r.cls[x]
		if r.ntouch[c] == 0 {
			r.tclasses = append(r.tclasses, c)
		}
		r.ntouch[c]++
		r.swap(r.pos[x], r.end[c]-r.ntouch[c])
	}
	if w == 1 {
		r.acc[x] += r.g.fix[e]
		return
	}
	addTo(r.acc[int(x)*w:int(x+1)*w], r.g.fix[int(e)*w:int(e+1)*w])
}

func (r *refiner) swap(i, j int32) {
	a, b := r.elems[i], r.elems[j]
	r.elems[i], r.elems[j] = b, a
	r.pos[a], r.pos[b] = j, i
}

func (r *refiner) value(x int32) []uint64 {
	return r.acc[int(x)*r.words : int(x+1)*r.words]
}

// splitClass splits class c into groups of equal sums. Untouched members
// (sum 0) and touched members whose sum cancelled to exactly 0 form one group.
// The largest group keeps the id c; every other group gets a new id and is
// queued. If c was queued, all groups are now queued; if not, all but the
// largest are, which suffices because the partition is already stable with
// respect to c as a whole.
func (r *refiner) splitClass(c int32) {
	t := r.ntouch[c]
	r.ntouch[c] = 0
	lo, hi := r.first[c], r.end[c]
	tlo := hi - t
	// Move touched zeros to the front of the touched range; note whether the
	// nonzero sums are all equal.
	z := tlo
	var ref []uint64
	allEqual := true
	for i := tlo; i < hi; i++ {
		x := r.elems[i]
		v := r.value(x)
		if isZero(v) {
			r.swap(i, z)
			z++
			continue
		}
		if ref == nil {
			ref = v
		} else if allEqual && compare(v, ref) != 0 {
			allEqual = false
		}
	}
	if allEqual && (z == lo || z == hi) {
		return // one group: nothing to split
	}
	if !allEqual {
		w := r.words
		nz := r.elems[z:hi]
		if w == 1 {
			slices.SortFunc(nz, func(a, b int32) int {
				x, y := int64(r.acc[a]), int64(r.acc[b])
				if x < y {
					return -1
				}
				if x > y {
					return 1
				}
				return 0
			})
		} else {
			slices.SortFunc(nz, func(a, b int32) int { return compare(r.value(a), r.value(b)) })
		}
		for i := z; i < hi; i++ {
			r.pos[r.elems[i]] = i
		}
	}
	// Group boundaries.
	b := r.bounds[:0]
	if z > lo {
		b = append(b, lo)
	}
	for i := z; i < hi; i++ {
		if i == z || compare(r.value(r.elems[i]), r.value(r.elems[i-1])) != 0 {
			b = append(b, i)
		}
	}
	b = append(b, hi)
	largest := 0
	for k := 1; k+1 < len(b); k++ {
		if b[k+1]-b[k] > b[largest+1]-b[largest] {
			largest = k
		}
	}
	for k := 0; k+1 < len(b); k++ {
		if k == largest {
			r.first[c], r.end[c] = b[k], b[k+1]
			continue
		}
		nc := r.nclass
		r.nclass++
		r.first[nc], r.end[nc] = b[k], b[k+1]
		for i := b[k]; i < b[k+1]; i++ {
			r.cls[r.elems[i]] = nc
		}
		r.queue = append(r.queue, nc)
		r.queued[nc] = true
	}
	r.bounds = b
}

// coloring numbers the final classes per node kind in order of first occurrence.
func (r *refiner) coloring() *Coloring {
	g := r.g
	col := &Coloring{
		Var: make([]int32, g.n),
		Pot: make([]int32, g.m),
		Con: make([]int32, g.c),
	}
	id := make([]int32, r.nclass)
	for i := range id {
		id[i] = -1
	}
	number := func(dst []int32, base int) int {
		next := int32(0)
		for i := range dst {
			c := r.cls[base+i]
			if id[c] < 0 {
				id[c] = next
				next++
			}
			dst[i] = id[c]
		}
		return int(next)
	}
	col.NumVar = number(col.Var, 0)
	col.NumPot = number(col.Pot, g.n)
	col.NumCon = number(col.Con, g.n+g.m)
	return col
}
