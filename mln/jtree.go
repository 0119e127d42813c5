package mln

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// Junction tree: exact marginals of a connected ground network whose
// min-fill elimination order has small cliques (Lauritzen and Spiegelhalter
// 1988; Koller and Friedman, Probabilistic Graphical Models, chapters 9-10).
// Eliminating atom v makes the clique {v} and its neighbours at that time;
// the clique's parent is the clique of the first of those neighbours to be
// eliminated after v, and the neighbours are the separator between them.
// Every clause sits in the clique of its first atom eliminated (all its
// atoms are adjacent then). Tables hold log-potentials over the clique's
// atoms (bit j of an entry is the value of the clique's atom j, atom 0 the
// one eliminated there), so that near-deterministic weights neither
// overflow nor underflow; messages are summed by log-sum-exp. An upward
// pass in elimination order and a downward pass in reverse order calibrate
// every clique, and atom v's marginal is read from its own clique.

// elimination is an elimination order and the cliques it makes.
type elimination struct {
	// cliques[i] is the clique made by eliminating the i-th atom: that atom
	// first, then its neighbours then (the separator to parent[i]).
	cliques [][]int32
	parent  []int32 // -1 for a root
	// width is the size of the largest clique; entries the table entries
	// of all cliques together.
	width   int
	entries float64
}

// primalGraph returns the sorted neighbour lists of the atoms of in: two
// atoms are neighbours when a clause holds both. ok is false when a clause
// has more than maxClique atoms (no junction tree within maxClique exists);
// its size is then returned as width.
func primalGraph(in *maxsat.Instance, maxClique int) (adj [][]int32, width int, ok bool) {
	adj = make([][]int32, in.NumVars)
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		if len(lits) > maxClique {
			return nil, len(lits), false
		}
		for i, l := range lits {
			for _, m := range lits[i+1:] {
				a, b := int32(l.Var()), int32(m.Var())
				if a != b {
					adj[a] = append(adj[a], b)
					adj[b] = append(adj[b], a)
				}
			}
		}
	}
	for v := range adj {
		slices.Sort(adj[v])
		adj[v] = slices.Compact(adj[v])
	}
	return adj, 0, true
}

// degeneracy is the largest minimum degree over the subgraphs that
// repeatedly removing a vertex of least degree leaves (Matula and Beck
// 1983): a lower bound on the treewidth, so every junction tree of the
// graph has a clique of degeneracy+1 atoms or more.
func degeneracy(adj [][]int32) int {
	n := len(adj)
	deg := make([]int, n)
	maxDeg := 0
	for v := range adj {
		deg[v] = len(adj[v])
		maxDeg = max(maxDeg, deg[v])
	}
	buckets := make([][]int32, maxDeg+1)
	for v, d := range deg {
		buckets[d] = append(buckets[d], int32(v))
	}
	removed := make([]bool, n)
	best, d := 0, 0
	for range n {
		for d > 0 && len(buckets[d-1]) > 0 {
			d--
		}
		var v int32
		for {
			for len(buckets[d]) == 0 {
				d++
			}
			v = buckets[d][len(buckets[d])-1]
			buckets[d] = buckets[d][:len(buckets[d])-1]
			if !removed[v] && deg[v] == d {
				break
			}
		}
		removed[v] = true
		best = max(best, d)
		for _, u := range adj[v] {
			if !removed[u] {
				deg[u]--
				buckets[deg[u]] = append(buckets[deg[u]], u)
			}
		}
	}
	return best
}

// fillHeap orders atoms by their fill-in, then degree, then index
// (lazily: an entry whose version is stale is skipped).
type fillHeap []fillEntry

type fillEntry struct{ fill, deg, v, version int32 }

func (h fillHeap) Len() int { return len(h) }
func (h fillHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.fill != b.fill {
		return a.fill < b.fill
	}
	if a.deg != b.deg {
		return a.deg < b.deg
	}
	return a.v < b.v
}
func (h fillHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *fillHeap) Push(x any)   { *h = append(*h, x.(fillEntry)) }
func (h *fillHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// minFill finds an elimination order greedily: at each step the atom whose
// elimination adds the fewest edges between its neighbours (min-fill, ties
// to the lower degree; Kjaerulff 1990). Fill-ins are kept in a heap and
// recomputed only for the atoms within two edges of the one eliminated
// (the only ones whose neighbourhoods change), and only for atoms of fewer
// than maxClique neighbours, the others being out of reach. adj is
// consumed. It stops with ok false as soon as no atom can be eliminated
// within maxClique atoms or the tables exceed maxEntries entries; the
// elimination then holds the width and entries reached so far.
func minFill(ctx context.Context, adj [][]int32, maxClique int, maxEntries float64) (*elimination, bool, error) {
	n := len(adj)
	el := &elimination{cliques: make([][]int32, 0, n), parent: make([]int32, n)}
	alive := make([]bool, n)
	version := make([]int32, n)
	pos := make([]int32, n) // atom -> step at which it was eliminated
	adjacent := func(a, b int32) bool {
		_, ok := slices.BinarySearch(adj[a], b)
		return ok
	}
	const far = math.MaxInt32
	fill := func(v int32) int32 {
		nb := adj[v]
		if len(nb)+1 > maxClique {
			return far
		}
		f := int32(0)
		for i, a := range nb {
			for _, b := range nb[i+1:] {
				if !adjacent(a, b) {
					f++
				}
			}
		}
		return f
	}
	h := make(fillHeap, 0, n)
	for v := range adj {
		alive[v] = true
		h = append(h, fillEntry{fill(int32(v)), int32(len(adj[v])), int32(v), 0})
	}
	heap.Init(&h)
	touched := make([]int32, n) // stamp: recomputed at this step
	var stamp int32
	for step := range n {
		if step&255 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		var e fillEntry
		for {
			e = heap.Pop(&h).(fillEntry)
			if alive[e.v] && e.version == version[e.v] {
				break
			}
		}
		v := e.v
		nb := adj[v]
		if e.fill == far {
			el.width = max(el.width, len(nb)+1)
			return el, false, nil
		}
		cl := append([]int32{v}, nb...)
		el.cliques = append(el.cliques, cl)
		el.width = max(el.width, len(cl))
		el.entries += math.Ldexp(1, len(cl))
		if el.entries > maxEntries {
			return el, false, nil
		}
		alive[v] = false
		pos[v] = int32(step)
		for i, a := range nb {
			for _, b := range nb[i+1:] {
				if !adjacent(a, b) {
					adj[a] = insertSorted(adj[a], b)
					adj[b] = insertSorted(adj[b], a)
				}
			}
		}
		for _, a := range nb {
			i, _ := slices.BinarySearch(adj[a], v)
			adj[a] = slices.Delete(adj[a], i, i+1)
		}
		adj[v] = nil
		// The neighbours and their neighbours have new fill-ins.
		stamp++
		for _, a := range nb {
			for _, u := range append([]int32{a}, adj[a]...) {
				if touched[u] == stamp {
					continue
				}
				touched[u] = stamp
				version[u]++
				heap.Push(&h, fillEntry{fill(u), int32(len(adj[u])), u, version[u]})
			}
		}
	}
	for i, cl := range el.cliques {
		el.parent[i] = -1
		for _, u := range cl[1:] {
			if p := pos[u]; el.parent[i] < 0 || p < el.parent[i] {
				el.parent[i] = p
			}
		}
	}
	return el, true, nil
}

func insertSorted(s []int32, x int32) []int32 {
	i, found := slices.BinarySearch(s, x)
	if found {
		return s
	}
	return slices.Insert(s, i, x)
}

// projector maps an entry of a parent clique's table to the index of a
// child's separator (the child's atoms but its first, in their order):
// one lookup per byte of the entry.
type projector [][256]int32

func newProjector(parent, child []int32) projector {
	at := map[int32]int{}
	for j, v := range child[1:] {
		at[v] = j
	}
	p := make(projector, (len(parent)+7)/8)
	for i, v := range parent {
		j, ok := at[v]
		if !ok {
			continue
		}
		chunk, bit := i/8, i%8
		for b := range 256 {
			if b>>bit&1 == 1 {
				p[chunk][b] |= 1 << j
			}
		}
	}
	return p
}

func (p projector) index(e int) int32 {
	var s int32
	for k := range p {
		s |= p[k][(e>>(8*k))&255]
	}
	return s
}

// junctionTree computes the marginal probability of every atom of in (a
// connected network; weights signed, P(world) proportional to the exp of
// the weights of the soft clauses it satisfies, 0 when it violates a hard
// one) on the cliques of el. It returns an error when no world satisfies
// the hard clauses. It runs on scaled potentials, and again on
// logarithms where those lose an entry (junctionTreeScaled).
func junctionTree(ctx context.Context, in *maxsat.Instance, el *elimination) ([]float64, error) {
	probs, err := junctionTreeScaled(ctx, in, el)
	if errors.Is(err, errUnderflow) {
		return junctionTreeLog(ctx, in, el)
	}
	return probs, err
}

// logTables are the cliques' log-potentials: a soft clause of weight w
// takes w away from the entries of its clique that violate it (adding w
// to all the others, up to a constant), a hard one makes them impossible
// (-Inf). first maps an atom to the clique it is eliminated in.
func logTables(in *maxsat.Instance, el *elimination) [][]float64 {
	nc := len(el.cliques)
	tables := make([][]float64, nc)
	first := make([]int32, in.NumVars) // atom -> its clique (where eliminated)
	for i, cl := range el.cliques {
		first[cl[0]] = int32(i)
		tables[i] = make([]float64, 1<<len(cl))
	}
	// The clauses' log-potentials: a soft clause of weight w takes w away
	// from the entries that violate it (adding w to all the others, up to a
	// constant), a hard one makes them impossible.
	bit := make([]int8, in.NumVars)
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		if len(lits) == 0 || (!in.Hard[c] && in.Weight[c] == 0) {
			continue
		}
		home := first[lits[0].Var()]
		for _, l := range lits[1:] {
			home = min(home, first[l.Var()])
		}
		cl := el.cliques[home]
		for j, v := range cl {
			bit[v] = int8(j)
		}
		var pos, neg int
		for _, l := range lits {
			if l.Neg() {
				neg |= 1 << bit[l.Var()]
			} else {
				pos |= 1 << bit[l.Var()]
			}
		}
		if pos&neg != 0 {
			continue // x v !x: always satisfied
		}
		t := tables[home]
		free := (len(t) - 1) &^ (pos | neg)
		for sub := free; ; sub = (sub - 1) & free {
			if in.Hard[c] {
				t[sub|neg] = math.Inf(-1)
			} else {
				t[sub|neg] -= in.Weight[c]
			}
			if sub == 0 {
				break
			}
		}
	}
	return tables
}

// junctionTreeScaled is junctionTree on potentials (exp of the
// log-potentials) scaled to a largest entry of 1 in every table and
// product: fast, but an entry below e^-745 of its table's largest
// becomes 0 whatever the other tables hold. Where that happens to an entry
// that is not impossible (weights in the hundreds: a 12-atom needle with
// weights near 300 gave 1 for an exact 2e-22) it returns errUnderflow.
func junctionTreeScaled(ctx context.Context, in *maxsat.Instance, el *elimination) ([]float64, error) {
	nc := len(el.cliques)
	tables := logTables(in, el)
	for _, t := range tables {
		top := math.Inf(-1)
		for _, x := range t {
			top = max(top, x)
		}
		if math.IsInf(top, -1) {
			return nil, errNoWorldIn(in)
		}
		for e, x := range t {
			t[e] = math.Exp(x - top)
			if t[e] == 0 && !math.IsInf(x, -1) {
				return nil, errUnderflow
			}
		}
	}
	children, proj := treeLinks(el)
	// Upward: cliques in elimination order, children first; clique i sends
	// its table summed over its own atom (bit 0), indexed by the rest.
	up := make([][]float64, nc)
	for i := range nc {
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t := tables[i]
		for _, ch := range children[i] {
			m, pr := up[ch], proj[ch]
			for e, x := range t {
				f := m[pr.index(e)]
				t[e] = x * f
				if t[e] == 0 && x != 0 && f != 0 {
					return nil, errUnderflow
				}
			}
			if !scaleMax(t) {
				// Both tables had a nonzero entry, so the product's mass
				// sits where each is below 1e-308 of its largest: too
				// far apart for float64 (weights in the hundreds).
				return nil, errUnderflow
			}
		}
		if el.parent[i] < 0 {
			continue
		}
		m := make([]float64, len(t)/2)
		for s := range m {
			m[s] = t[2*s] + t[2*s+1]
		}
		scaleMax(m)
		up[i] = m
	}
	// Downward: parents first; a clique's table becomes its calibrated
	// belief, and the message to a child is the parent's belief summed
	// onto the separator, less (divided by) what the child sent up.
	probs := make([]float64, in.NumVars)
	var down []float64
	for i := nc - 1; i >= 0; i-- {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t := tables[i]
		if p := el.parent[i]; p >= 0 {
			pt, m, pr := tables[p], up[i], proj[i]
			down = slices.Grow(down[:0], len(m))[:len(m)]
			clear(down)
			for e, x := range pt {
				if x == 0 {
					continue
				}
				s := pr.index(e)
				down[s] += x / m[s] // m[s] > 0 wherever the belief x is
			}
			for e, x := range t {
				f := down[e>>1]
				t[e] = x * f
				if t[e] == 0 && x != 0 && f != 0 {
					return nil, errUnderflow
				}
			}
			scaleMax(t)
		}
		on, all := 0.0, 0.0
		for e, x := range t {
			all += x
			if e&1 == 1 {
				on += x
			}
		}
		probs[el.cliques[i][0]] = on / all
	}
	return probs, nil
}

// junctionTreeLog is junctionTree with every table, message and belief
// kept as logarithms (sums by log-sum-exp): no entry is lost whatever the
// weights, at the price of a logarithm and an exponential per term. It
// runs where the scaled version would lose entries (errUnderflow).
func junctionTreeLog(ctx context.Context, in *maxsat.Instance, el *elimination) ([]float64, error) {
	nc := len(el.cliques)
	tables := logTables(in, el)
	for _, t := range tables {
		if !shiftMax(t) {
			return nil, errNoWorldIn(in)
		}
	}
	children, proj := treeLinks(el)
	up := make([][]float64, nc)
	for i := range nc {
		if i&63 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t := tables[i]
		for _, ch := range children[i] {
			m, pr := up[ch], proj[ch]
			for e := range t {
				t[e] += m[pr.index(e)]
			}
			if !shiftMax(t) {
				return nil, errNoWorldIn(in) // no entry both tables allow
			}
		}
		if el.parent[i] < 0 {
			continue
		}
		m := make([]float64, len(t)/2)
		for s := range m {
			m[s] = logAdd(t[2*s], t[2*s+1])
		}
		shiftMax(m)
		up[i] = m
	}
	probs := make([]float64, in.NumVars)
	var down []float64
	for i := nc - 1; i >= 0; i-- {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t := tables[i]
		if p := el.parent[i]; p >= 0 {
			pt, m, pr := tables[p], up[i], proj[i]
			down = slices.Grow(down[:0], len(m))[:len(m)]
			for s := range down {
				down[s] = math.Inf(-1)
			}
			for e, x := range pt {
				if math.IsInf(x, -1) {
					continue
				}
				s := pr.index(e)
				down[s] = logAdd(down[s], x-m[s]) // m[s] > -Inf wherever the belief x is
			}
			for e := range t {
				t[e] += down[e>>1]
			}
			shiftMax(t)
		}
		on, all := math.Inf(-1), math.Inf(-1)
		for e, x := range t {
			all = logAdd(all, x)
			if e&1 == 1 {
				on = logAdd(on, x)
			}
		}
		probs[el.cliques[i][0]] = math.Exp(on - all)
	}
	return probs, nil
}

// treeLinks returns each clique's children and, for every clique with a
// parent, the projection of the parent's entries onto its separator.
func treeLinks(el *elimination) (children [][]int32, proj []projector) {
	children = make([][]int32, len(el.cliques))
	proj = make([]projector, len(el.cliques))
	for i, p := range el.parent {
		if p >= 0 {
			children[p] = append(children[p], int32(i))
			proj[i] = newProjector(el.cliques[p], el.cliques[i])
		}
	}
	return children, proj
}

// errNoWorldIn says that no world satisfies a component's hard clauses.
func errNoWorldIn(in *maxsat.Instance) error {
	return fmt.Errorf("mln: exact marginals: no world satisfies the hard clauses of a component of %d atoms", in.NumVars)
}

// logAdd is log(e^a + e^b), exact for -Inf.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// shiftMax subtracts t's largest entry from every entry (logarithms: a
// division by the largest); false when every entry is -Inf.
func shiftMax(t []float64) bool {
	top := math.Inf(-1)
	for _, x := range t {
		top = max(top, x)
	}
	if math.IsInf(top, -1) {
		return false
	}
	if top != 0 {
		for e := range t {
			t[e] -= top
		}
	}
	return true
}

// errUnderflow says that a junction tree's potentials underflowed.
var errUnderflow = errors.New("mln: exact marginals: the junction tree's potentials underflow")

// scaleMax divides t by its largest entry; false when every entry is 0.
func scaleMax(t []float64) bool {
	top := 0.0
	for _, x := range t {
		top = max(top, x)
	}
	if top == 0 {
		return false
	}
	if top != 1 {
		f := 1 / top
		for e := range t {
			t[e] *= f
		}
	}
	return true
}
