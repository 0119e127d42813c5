package lift

import (
	"cmp"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Coloring is the coarsest stable coloring of a problem's weighted bipartite
// factor graph that refines the initial coloring (Srinivasan et al., AAAI 2019, section 3.1):
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

// Symmetric reports whether the coloring has a class of two or more
// variables, potentials or constraints: whether the lifted problem is
// smaller than the original. A coloring without symmetry is the identity
// (classes are numbered in order of first occurrence).
func (c *Coloring) Symmetric() bool {
	return c.NumVar < len(c.Var) || c.NumPot < len(c.Pot) || c.NumCon < len(c.Con)
}

// Refine computes the coarsest stable coloring of p's factor graph. It
// returns an error if p's arrays are inconsistent (see Lift).
//
// The algorithm is partition refinement with a queue of splitter classes and
// the "all but the largest part" rule (Cardon and Crochemore; Paige and
// Tarjan), running in O((n+m) log n) time for n nodes and m edges, plus the
// cost of sorting the values that split a class. Sums are compared exactly
// (see fixed.go), not in floating point. The first split of each side is
// done by streaming row and column sums (see start). Before refining,
// connected components that are exact copies of another component are found
// by hashing, verified to be isomorphic, and colored like their original
// instead of being refined (repeat.go).
func Refine(p *hlmrf.Problem) (*Coloring, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	_, col := color(p)
	return col, nil
}

// refiner holds the ordered partition: elems lists the nodes so that each
// class c is the contiguous range elems[first:end] of class[c], and
// node[x].pos is x's index in elems.
//
// Refinement is bound by memory latency, not by arithmetic, so the state is
// packed for few cache misses: a touch (adding one edge weight to a node's
// sum) reads only the node's 16-byte record, and members of a class are moved
// in elems only when the class really splits. A node alone in its class can
// never split, so touching it is skipped after a look at the bit set single,
// which is small enough to stay in cache (most nodes end up alone when a
// problem has little symmetry). A node touched by the current splitter has
// pos = ^pos until its class is examined, which keeps the record small.
type refiner struct {
	g     *graph
	words int

	elems  []int32
	node   []nodeState
	single []uint64 // bit x: node x is alone in its class
	class  []classState
	queue  []int32
	nclass int32

	wide     []uint64 // words > 1: node x's sum is wide[x*words:(x+1)*words]
	touched  []int32  // nodes touched by the current splitter
	tclasses []int32  // their classes, each once
	byClass  []int32  // touched nodes grouped by class
	bounds   []int32  // scratch: group starts within a class
}

// nodeState is one node's class, position in elems and, for one-word sums,
// its sum of edge weights into the current splitter (zero when untouched).
type nodeState struct {
	acc uint64
	cls int32
	pos int32 // ^pos while touched by the current splitter
}

// classState is one class's range in elems and, while a splitter is
// processed, where its touched members are in byClass. (Whether a class is
// queued need not be recorded: splitClass queues the same parts either way.)
type classState struct {
	first, end   int32
	ntouch, base int32
}

func refine(g *graph, p *hlmrf.Problem) *Coloring {
	r := newRefiner(g)
	r.initial(p)
	r.start()
	for len(r.queue) > 0 {
		s := r.queue[len(r.queue)-1]
		r.queue = r.queue[:len(r.queue)-1]
		r.split(s)
	}
	return r.coloring()
}

// newRefiner sets up refinement of g, packing its edge weights and
// building its variables' side.
func newRefiner(g *graph) *refiner {
	g.pack()
	g.transpose()
	n := g.n + g.m + g.c
	r := &refiner{
		g:      g,
		words:  g.scale.words,
		elems:  make([]int32, n),
		node:   make([]nodeState, n),
		class:  make([]classState, n),
		single: make([]uint64, (n+63)/64),
	}
	if r.words > 1 {
		r.wide = make([]uint64, n*r.words)
	}
	return r
}

// initial sets up the initial coloring and queues every initial class.
func (r *refiner) initial(p *hlmrf.Problem) {
	g := r.g
	// Color ids: variables 0 (if any), then the factors' initial colors
	// (factorKey) in order of first occurrence.
	var sizes []int32
	if g.n > 0 {
		sizes = append(sizes, int32(g.n))
	}
	ids := make(map[fkey]int32)
	var last fkey
	lastC := int32(-1)
	for f := 0; f < g.m+g.c; f++ {
		k := factorKey(p, f)
		c := lastC
		if k != last || c < 0 { // neighbouring factors often share a color
			var ok bool
			if c, ok = ids[k]; !ok {
				c = int32(len(sizes))
				ids[k] = c
				sizes = append(sizes, 0)
			}
			last, lastC = k, c
		}
		sizes[c]++
		r.node[g.n+f].cls = c
	}
	// Counting sort of the nodes by class.
	var at int32
	for c, s := range sizes {
		r.class[c].first, r.class[c].end = at, at
		at += s
	}
	for x := range r.node {
		cs := &r.class[r.node[x].cls]
		r.elems[cs.end] = int32(x)
		r.node[x].pos = cs.end
		cs.end++
	}
	for x := range r.node {
		if sizes[r.node[x].cls] == 1 {
			r.setSingle(int32(x))
		}
	}
	r.nclass = int32(len(sizes))
}

// start performs the first two steps of refinement as streaming passes over
// the edge arrays instead of touches: it splits the factor classes by their
// sums into the class of all variables (row sums), then the variables by
// their sums into the set of all factors (column sums). The partition is then
// stable with respect to both sides as wholes, so in each side all classes
// but the largest are queued (the "all but the largest" rule applied to the
// side as one block), which also saves processing the largest class of each
// side.
func (r *refiner) start() {
	g := r.g
	if g.n == 0 || g.m+g.c == 0 {
		return // no edges: the initial coloring is stable
	}
	// Row sums split the factor classes (classes made by these splits need
	// no further split), then column sums split the variable classes.
	var varClasses []int32
	for c, n := int32(0), r.nclass; c < n; c++ {
		m := r.elems[r.class[c].first:r.class[c].end]
		if int(m[0]) < g.n {
			varClasses = append(varClasses, c)
			continue
		}
		for _, x := range m {
			f := int(x) - g.n
			r.addAll(x, g.fEdge[g.fStart[f]:g.fStart[f+1]])
		}
		r.splitAll(c)
	}
	for v := int32(0); v < int32(g.n); v++ {
		r.addAll(v, g.vEdge[g.vStart[v]:g.vStart[v+1]])
	}
	for _, c := range varClasses {
		r.splitAll(c)
	}

	// Queue every class but the largest of each side.
	r.queue = r.queue[:0]
	bigVar, bigFac := int32(-1), int32(-1)
	size := func(c int32) int32 { return r.class[c].end - r.class[c].first }
	for c := int32(0); c < r.nclass; c++ {
		if int(r.elems[r.class[c].first]) < g.n {
			if bigVar < 0 || size(c) > size(bigVar) {
				bigVar = c
			}
		} else if bigFac < 0 || size(c) > size(bigFac) {
			bigFac = c
		}
	}
	for c := r.nclass - 1; c >= 0; c-- {
		if c != bigVar && c != bigFac {
			r.queue = append(r.queue, c)
		}
	}
}

// splitAll splits class c by the sums already stored for all its members.
func (r *refiner) splitAll(c int32) {
	cs := r.class[c]
	if cs.end-cs.first == 1 {
		r.resetSums(r.elems[cs.first:cs.end])
		return
	}
	r.byClass = append(r.byClass[:0], r.elems[cs.first:cs.end]...)
	r.splitClass(c, r.byClass)
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
	g := r.g
	for _, u := range r.elems[r.class[s].first:r.class[s].end] {
		if int(u) < g.n { // variables: every incidence touches a factor node
			for _, e := range g.vEdge[g.vStart[u]:g.vStart[u+1]] {
				r.touch(int32(g.n)+e.to, e.w)
			}
			continue
		}
		f := int(u) - g.n
		for _, e := range g.fEdge[g.fStart[f]:g.fStart[f+1]] {
			r.touch(e.to, e.w)
		}
	}
	r.refineTouched()
}

// addAll adds the weights of edges (x's row or column) to node x's sum.
func (r *refiner) addAll(x int32, edges []edge) {
	for _, e := range edges {
		r.add(x, e.w)
	}
}

// add adds the weight of an edge (its w, see graph.fEdge) to node x's sum.
func (r *refiner) add(x int32, w uint64) {
	if r.words == 1 {
		r.node[x].acc += w
		return
	}
	addTo(r.wide[int(x)*r.words:int(x+1)*r.words], r.g.fix[int(w)*r.words:int(w+1)*r.words])
}

// refineTouched splits the classes of the nodes touched since the last call
// by their sums.
func (r *refiner) refineTouched() {
	if len(r.touched) == 0 {
		return
	}
	// Group the touched nodes by class (counting sort).
	for _, x := range r.touched {
		c := r.node[x].cls
		cs := &r.class[c]
		if cs.ntouch == 0 {
			r.tclasses = append(r.tclasses, c)
		}
		cs.ntouch++
	}
	var at int32
	for _, c := range r.tclasses {
		cs := &r.class[c]
		cs.base = at
		at += cs.ntouch
		cs.ntouch = 0
	}
	r.byClass = slices.Grow(r.byClass[:0], len(r.touched))[:len(r.touched)]
	for _, x := range r.touched {
		ns := &r.node[x]
		ns.pos = ^ns.pos
		cs := &r.class[ns.cls]
		r.byClass[cs.base+cs.ntouch] = x
		cs.ntouch++
	}
	for _, c := range r.tclasses {
		cs := &r.class[c]
		t := r.byClass[cs.base : cs.base+cs.ntouch]
		cs.ntouch = 0
		r.splitClass(c, t)
	}
	r.touched = r.touched[:0]
	r.tclasses = r.tclasses[:0]
}

// touch adds the weight of an edge to node x's sum, unless x is alone in
// its class.
func (r *refiner) touch(x int32, w uint64) {
	if r.single[x>>6]&(1<<(x&63)) != 0 {
		return
	}
	ns := &r.node[x]
	if ns.pos >= 0 {
		ns.pos = ^ns.pos
		r.touched = append(r.touched, x)
	}
	r.add(x, w)
}

// zero reports whether node x's sum is zero.
func (r *refiner) zero(x int32) bool {
	if r.words == 1 {
		return r.node[x].acc == 0
	}
	return isZero(r.wide[int(x)*r.words : int(x+1)*r.words])
}

// cmp orders two nodes by their sums.
func (r *refiner) cmp(a, b int32) int {
	if r.words == 1 {
		return cmp.Compare(int64(r.node[a].acc), int64(r.node[b].acc))
	}
	w := r.words
	return compare(r.wide[int(a)*w:int(a+1)*w], r.wide[int(b)*w:int(b+1)*w])
}

// resetSums clears the sums of the given nodes.
func (r *refiner) resetSums(nodes []int32) {
	for _, x := range nodes {
		if r.words == 1 {
			r.node[x].acc = 0
		} else {
			clear(r.wide[int(x)*r.words : int(x+1)*r.words])
		}
	}
}

// splitClass splits class c into groups of equal sums. Untouched members
// (sum 0) and touched members whose sum cancelled to exactly 0 form one group.
// The largest group keeps the id c; every other group gets a new id and is
// queued. If c was queued, all groups are now queued; if not, all but the
// largest are, which suffices because the partition is already stable with
// respect to c as a whole. The touched members' sums are reset to zero.
func (r *refiner) splitClass(c int32, t []int32) {
	cs := &r.class[c]
	defer r.resetSums(t)
	// Move the nonzero sums to the front of t; note whether they are all equal.
	nz := 0
	allEqual := true
	for i, x := range t {
		if r.zero(x) {
			continue
		}
		if nz > 0 && allEqual && r.cmp(x, t[0]) != 0 {
			allEqual = false
		}
		t[i], t[nz] = t[nz], x
		nz++
	}
	size := cs.end - cs.first
	if allEqual && (nz == 0 || int32(nz) == size) {
		return // one group: nothing to split
	}
	moved := t[:nz]
	if !allEqual {
		slices.SortFunc(moved, r.cmp)
	}
	// Move the nonzero members, in order, to the end of the class's range.
	lo, hi := cs.first, cs.end
	tail := hi - int32(nz)
	for i, x := range moved {
		r.swap(r.node[x].pos, tail+int32(i))
	}
	// Group boundaries: the zero group, then runs of equal sums.
	b := r.bounds[:0]
	if tail > lo {
		b = append(b, lo)
	}
	for i := range moved {
		if i == 0 || r.cmp(moved[i], moved[i-1]) != 0 {
			b = append(b, tail+int32(i))
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
		id := c
		if k == largest {
			cs.first, cs.end = b[k], b[k+1]
		} else {
			id = r.nclass
			r.nclass++
			r.class[id] = classState{first: b[k], end: b[k+1]}
			r.queue = append(r.queue, id)
		}
		if k != largest {
			for _, x := range r.elems[b[k]:b[k+1]] {
				r.node[x].cls = id
			}
		}
		if b[k+1]-b[k] == 1 {
			r.setSingle(r.elems[b[k]])
		}
	}
	r.bounds = b
}

func (r *refiner) setSingle(x int32) { r.single[x>>6] |= 1 << (x & 63) }

func (r *refiner) swap(i, j int32) {
	a, b := r.elems[i], r.elems[j]
	r.elems[i], r.elems[j] = b, a
	r.node[a].pos, r.node[b].pos = j, i
}

// coloring numbers the final classes per node kind in order of first occurrence.
func (r *refiner) coloring() *Coloring {
	g := r.g
	col := &Coloring{Var: make([]int32, g.n), Pot: make([]int32, g.m), Con: make([]int32, g.c)}
	number := func(dst []int32, base int) int {
		for i := range dst {
			dst[i] = r.node[base+i].cls
		}
		return firstOccurrence(dst, int(r.nclass))
	}
	col.NumVar = number(col.Var, 0)
	col.NumPot = number(col.Pot, g.n)
	col.NumCon = number(col.Con, g.n+g.m)
	return col
}

// firstOccurrence renumbers the class ids in dst (each below classes) in
// order of first occurrence and returns how many distinct ones there are.
func firstOccurrence(dst []int32, classes int) int {
	id := make([]int32, classes)
	for i := range id {
		id[i] = -1
	}
	next := int32(0)
	for i, c := range dst {
		if id[c] < 0 {
			id[c] = next
			next++
		}
		dst[i] = id[c]
	}
	return int(next)
}
