package lift

import (
	"cmp"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Repeated components.
//
// Partition refinement costs about one touch per edge per time a node lands
// in a smaller part, and a node alone in its class is never touched again.
// A problem made of k disjoint copies of one structure (paper 000's symmetry
// injection, Figure 5; data made of independent groups of the same shape)
// therefore costs far more than k times one copy: no class ever shrinks below
// k members, so the touches that one copy skips are all made (the 10-fold
// social-affiliation problem: 6.1 million touches against 0.24 million for
// one copy). colorRepeated avoids that work by finding the copies directly,
// in one sequential pass:
//
//  1. connected components of the factor graph (union-find);
//  2. components of at least minRepeatNodes nodes are grouped by their sizes
//     and a hash of their factors' initial colors; a group needs two members,
//     and the path is taken only when copies of large components
//     (largeComponent) are a third of the problem;
//  3. within a group, every node gets a 64-bit hash of its neighbourhood,
//     round by round (a hash of its initial color, then of its hash and its
//     neighbours' hashes with the edge coefficients), until the first member
//     (the representative) has all node hashes distinct;
//  4. every other member is mapped node for node onto the representative by
//     hash, and the map is verified exactly to be an isomorphism (same
//     initial colors, same rows of variables and coefficient bits); a member
//     that fails is simply kept;
//  5. the problem without the verified copies (the rest) is refined as usual,
//     and every node of a copy takes the color of its image.
//
// This is exact, whatever the hashes do: an isomorphic copy B of a
// component A of the rest R has, in the coarsest stable coloring of the
// whole problem, exactly the colors of its images (the coloring that gives
// them those colors is stable, so the coarsest one is at least as coarse;
// and the coarsest one restricted to R is a stable coloring of R, so no
// coarser than R's own). Hashes only decide which components are tried and
// how they are mapped; a collision or a representative whose hashes never
// become distinct (a component with symmetry of its own) means fewer copies
// are found and more is refined, never a different coloring.

// minRepeatNodes is the smallest component tried as a copy: smaller ones
// (isolated variables, a factor on its own) are left to refinement.
const minRepeatNodes = 4

// largeComponent is the size from which a repeated component counts as
// large. Refining k copies of a large component without symmetry of its own
// costs far more than k times one; copies of large components must make up
// a third of the problem for colorRepeated to be used at all (refinement
// handles small repeated components well: they end in large classes, which
// it splits rarely).
const largeComponent = 1024

// maxHashRounds bounds the hash rounds per group: a representative that is
// not told apart by then (long paths, components with symmetry) is refined
// like everything else, so that the hashing never costs more than a few
// passes over the candidates.
const maxHashRounds = 10

// color builds p's graph and computes its coarsest stable coloring, by
// colorRepeated when p has repeated components and by refine otherwise.
func color(p *hlmrf.Problem) (*graph, *Coloring) {
	g := newGraph(p)
	if cd := findCandidates(p, defaultRepeat); cd != nil {
		if col := colorRepeated(g, p, cd); col != nil {
			return g, col
		}
	}
	return g, refine(g, p)
}

// factorTerms returns the terms of factor f: potential f, or constraint
// f-m for m potentials (numbered as in graph).
func factorTerms(p *hlmrf.Problem, f int) ([]int32, []float64) {
	if m := len(p.Weight); f >= m {
		return p.CTerms(f - m)
	}
	return p.Terms(f)
}

// components labels every node (variables 0..n-1, then potentials, then
// constraints, as in graph) with its connected component, components
// numbered in order of their smallest node. Union-find runs over the
// variables alone (a factor joins its variables; a factor without terms is
// a component of its own), keeping the smallest index as the root, so
// parent[v] <= v and one ascending pass finishes the labels.
func components(p *hlmrf.Problem) (comp []int32, count int) {
	n := p.NumVars
	nf := len(p.Weight) + len(p.CKind)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for f := 0; f < nf; f++ {
		row, _ := factorTerms(p, f)
		if len(row) < 2 {
			continue
		}
		r := find(row[0])
		for _, v := range row[1:] {
			s := find(v)
			switch {
			case s < r:
				parent[r], r = s, s
			case s > r:
				parent[s] = r
			}
		}
	}
	comp = make([]int32, n+nf)
	for v := range parent {
		if q := parent[v]; q == int32(v) {
			comp[v] = int32(count)
			count++
		} else {
			r := parent[q] // q < v is already compressed: parent[q] is the root
			parent[v] = r
			comp[v] = comp[r]
		}
	}
	for f := 0; f < nf; f++ {
		if row, _ := factorTerms(p, f); len(row) > 0 {
			comp[n+f] = comp[row[0]]
		} else {
			comp[n+f] = int32(count)
			count++
		}
	}
	return comp, count
}

// compShape is what must agree for two components to be tried as copies.
type compShape struct {
	vars, facs, edges int32
	keys              uint64 // sum of the factors' initial-color hashes
}

// nodes is the component's number of variables and factors.
func (s compShape) nodes() int { return int(s.vars + s.facs) }

// candidates are the components tried as copies.
type candidates struct {
	comp   []int32     // node -> component
	shape  []compShape // per component
	groups [][]int32   // component ids of equal shape, the representative first
}

// repeatParams are findCandidates' thresholds.
type repeatParams struct {
	minNodes int     // smallest component tried (minRepeatNodes)
	large    int     // size of a large component (largeComponent)
	share    float64 // least share of all nodes in copies of large components
}

var defaultRepeat = repeatParams{minRepeatNodes, largeComponent, 1.0 / 3}

// findCandidates groups the components of at least par.minNodes nodes by
// shape and keeps the groups of two or more; it returns nil if there are
// none, or if copies of large components are less than par.share of the
// problem.
func findCandidates(p *hlmrf.Problem, par repeatParams) *candidates {
	n, m := p.NumVars, len(p.Weight)
	nf := m + len(p.CKind)
	if n+nf < 2*par.minNodes {
		return nil
	}
	comp, ncomp := components(p)
	if ncomp < 2 {
		return nil
	}
	cd := &candidates{comp: comp, shape: make([]compShape, ncomp)}
	for v := 0; v < n; v++ {
		cd.shape[comp[v]].vars++
	}
	for _, c := range comp[n:] {
		cd.shape[c].facs++
	}
	// copies counts the nodes in copies of large components of equal shape;
	// a first count by sizes alone rules out most problems without large
	// repeated components (one giant component and small ones) cheaply.
	enough := func(group func(compShape) compShape) bool {
		count := map[compShape]int{}
		copies := 0
		for _, s := range cd.shape {
			if s.nodes() >= par.large {
				if count[group(s)] > 0 {
					copies += s.nodes()
				}
				count[group(s)]++
			}
		}
		return float64(copies) >= par.share*float64(n+nf)
	}
	if !enough(func(s compShape) compShape { return compShape{vars: s.vars, facs: s.facs} }) {
		return nil
	}
	for f := 0; f < nf; f++ {
		s := &cd.shape[comp[n+f]]
		row, _ := factorTerms(p, f)
		s.edges += int32(len(row))
		s.keys += factorKey(p, f).hash()
	}
	if !enough(func(s compShape) compShape { return s }) {
		return nil
	}
	// Groups are ordered by their first component, members ascending.
	byShape := make(map[compShape]int32) // shape -> group
	for c, s := range cd.shape {
		if s.nodes() < par.minNodes {
			continue
		}
		k, ok := byShape[s]
		if !ok {
			k = int32(len(cd.groups))
			byShape[s] = k
			cd.groups = append(cd.groups, nil)
		}
		cd.groups[k] = append(cd.groups[k], int32(c))
	}
	cd.groups = slices.DeleteFunc(cd.groups, func(cs []int32) bool { return len(cs) < 2 })
	return cd
}

// colorRepeated returns the coarsest stable coloring of p computed with its
// candidate components matched instead of refined, or nil if no candidate
// turned out to be a copy.
func colorRepeated(g *graph, p *hlmrf.Problem, cd *candidates) *Coloring {
	mt := newMatcher(p, cd)
	img := make([]int32, len(cd.comp)) // node of a verified copy -> its image; else -1
	for i := range img {
		img[i] = -1
	}
	out := make([]bool, len(cd.shape)) // verified copies
	for _, grp := range cd.groups {
		for _, c := range mt.matchGroup(grp, img) {
			out[c] = true
		}
	}
	if !slices.Contains(out, true) {
		return nil
	}
	sub, newID := restProblem(p, func(x int) bool { return out[cd.comp[x]] })
	return expand(g, img, refine(newGraph(sub), sub), newID)
}

// matcher holds the candidate components compactly, so that hashing and
// verification run in cache rather than over the problem's scattered rows:
// component c's nodes are at positions off[c]..off[c+1]-1 in node order,
// variables first, and a node's local index is its position minus off[c].
// Per position: the node (nodes), its hash (h), for a factor its initial
// color (key) and its terms tVar[start[i]:start[i+1]] (local variable
// indexes) with coefficient bits tW (a variable's row is empty).
type matcher struct {
	off, nodes, start, tVar []int32
	tW, h, work             []uint64
	key                     []fkey
	nv                      []int32 // per component: its variables
	rc, rr                  []term  // scratch rows for verification
}

func newMatcher(p *hlmrf.Problem, cd *candidates) *matcher {
	nn, nc := len(cd.comp), len(cd.shape)
	mt := &matcher{off: make([]int32, nc+1), nv: make([]int32, nc),
		nodes: make([]int32, nn), start: make([]int32, nn+1),
		h: make([]uint64, nn), work: make([]uint64, nn), key: make([]fkey, nn)}
	eOff := make([]int32, nc+1)
	for c, s := range cd.shape {
		mt.off[c+1] = mt.off[c] + int32(s.nodes())
		mt.nv[c] = s.vars
		eOff[c+1] = eOff[c] + s.edges
	}
	mt.tVar = make([]int32, eOff[nc])
	mt.tW = make([]uint64, eOff[nc])
	next := slices.Clone(mt.off[:nc])
	local := make([]int32, p.NumVars) // variable -> local index
	for x, c := range cd.comp {
		i := next[c]
		next[c]++
		mt.nodes[i] = int32(x)
		mt.start[i] = eOff[c]
		if x < p.NumVars {
			local[x] = i - mt.off[c]
			continue
		}
		mt.key[i] = factorKey(p, x-p.NumVars)
		row, coefs := factorTerms(p, x-p.NumVars)
		for t, v := range row {
			mt.tVar[eOff[c]] = local[v]
			mt.tW[eOff[c]] = bitsOf(coefs[t])
			eOff[c]++
		}
	}
	mt.start[nn] = eOff[nc]
	return mt
}

// matchGroup maps and verifies every member of the group but the first
// (the representative) onto it, once hashGroup has told the
// representative's nodes apart, recording the verified copies' images in
// img. It returns the verified copies.
func (mt *matcher) matchGroup(grp []int32, img []int32) []int32 {
	tv, tf := mt.hashGroup(grp)
	if tv == nil {
		return nil
	}
	rep := mt.nodes[mt.off[grp[0]]:mt.off[grp[0]+1]]
	var copies []int32
	for _, c := range grp[1:] {
		if local := mt.verify(c, grp[0], tv, tf); local != nil {
			for i, x := range mt.nodes[mt.off[c]:mt.off[c+1]] {
				img[x] = rep[local[i]]
			}
			copies = append(copies, c)
		}
	}
	return copies
}

// hashes returns the hashes of component c's variables and factors.
func (mt *matcher) hashes(c int32) (vars, facs []uint64) {
	h := mt.h[mt.off[c]:mt.off[c+1]]
	return h[:mt.nv[c]], h[mt.nv[c]:]
}

// hashGroup runs hash rounds on the group's members until the
// representative's node hashes are all distinct, and returns the tables
// from its variables' and factors' hashes to their indexes; nil if
// maxHashRounds pass, or a round tells no more nodes apart (the
// representative has symmetry of its own, or a collision).
func (mt *matcher) hashGroup(grp []int32) (tv, tf *hashIndex) {
	for _, c := range grp {
		for i := mt.off[c]; i < mt.off[c+1]; i++ {
			mt.h[i] = 0x9e3779b97f4a7c15 // all variables share the initial color
			if i >= mt.off[c]+mt.nv[c] {
				mt.h[i] = mt.key[i].hash()
			}
		}
	}
	hv, hf := mt.hashes(grp[0])
	tv, tf = newHashIndex(len(hv)), newHashIndex(len(hf))
	distinct := func() int { return tv.fill(hv) + tf.fill(hf) }
	prev, want := distinct(), len(hv)+len(hf)
	for rounds := 0; prev < want; rounds++ {
		if rounds == maxHashRounds {
			return nil, nil
		}
		for _, c := range grp {
			mt.round(c)
		}
		d := distinct()
		if d <= prev && d < want {
			return nil, nil
		}
		prev = d
	}
	return tv, tf
}

// round computes one more hash round of component c: a factor's new hash
// mixes its hash with its terms' (coefficient, variable hash), then a
// variable's new hash mixes its hash with its terms' (coefficient, new
// factor hash), so that one round reaches variables two steps away; sums
// make the hashes independent of the order of terms and of nodes.
func (mt *matcher) round(c int32) {
	lo, fac, hi := mt.off[c], mt.off[c]+mt.nv[c], mt.off[c+1]
	for v := lo; v < fac; v++ {
		mt.work[v] = mix(mt.h[v] ^ 0x5851f42d4c957f2d)
	}
	for f := fac; f < hi; f++ {
		acc := mix(mt.h[f] ^ 0x14057b7ef767814f)
		a, b := mt.start[f], mt.start[f+1]
		for e := a; e < b; e++ {
			acc += mix(mt.tW[e]*0xbf58476d1ce4e5b9 ^ mt.h[lo+mt.tVar[e]])
		}
		for e := a; e < b; e++ {
			mt.work[lo+mt.tVar[e]] += mix(mt.tW[e]*0xbf58476d1ce4e5b9 ^ acc ^ 0x94d049bb133111eb)
		}
		mt.h[f] = acc
	}
	copy(mt.h[lo:fac], mt.work[lo:fac])
}

// verify maps component c onto the representative rep by hash (the tables
// tv, tf of rep's final hashes) and checks that the map is an isomorphism
// keeping initial colors and coefficients: a bijection of variables and of
// factors under which every factor has its image's initial color and the
// same multiset of (variable, coefficient) terms. It returns the local
// index in rep of each of c's nodes, or nil if c is not a copy.
func (mt *matcher) verify(c, rep int32, tv, tf *hashIndex) []int32 {
	nv := mt.nv[c]
	local := make([]int32, mt.off[c+1]-mt.off[c])
	used := make([]bool, len(local))
	for i, h := range mt.h[mt.off[c]:mt.off[c+1]] {
		t, base := tv, int32(0)
		if int32(i) >= nv {
			t, base = tf, nv
		}
		j, ok := t.find(h)
		if !ok || used[base+j] {
			return nil // injective on equal sizes, so a bijection
		}
		used[base+j], local[i] = true, base+j
	}
	for i := nv; i < int32(len(local)); i++ {
		x, y := mt.off[c]+i, mt.off[rep]+local[i]
		if mt.key[x] != mt.key[y] {
			return nil
		}
		a, b := mt.start[x], mt.start[x+1]
		ra := mt.start[y]
		if b-a != mt.start[y+1]-ra {
			return nil
		}
		at := func(e int32) term { return term{local[mt.tVar[e]], mt.tW[e]} }
		rat := func(e int32) term { return term{mt.tVar[e], mt.tW[e]} }
		switch b - a { // rows of one or two terms need no sorting
		case 0:
		case 1:
			if at(a) != rat(ra) {
				return nil
			}
		case 2:
			x0, x1, y0, y1 := at(a), at(a+1), rat(ra), rat(ra+1)
			if !(x0 == y0 && x1 == y1 || x0 == y1 && x1 == y0) {
				return nil
			}
		default:
			mt.rc, mt.rr = mt.rc[:0], mt.rr[:0]
			for k := range b - a {
				mt.rc = append(mt.rc, at(a+k))
				mt.rr = append(mt.rr, rat(ra+k))
			}
			slices.SortFunc(mt.rc, term.cmp)
			slices.SortFunc(mt.rr, term.cmp)
			if !slices.Equal(mt.rc, mt.rr) {
				return nil
			}
		}
	}
	return local
}

// term is one edge of a factor row: variable and coefficient bits.
type term struct {
	v int32
	w uint64
}

func (a term) cmp(b term) int {
	if c := cmp.Compare(a.v, b.v); c != 0 {
		return c
	}
	return cmp.Compare(a.w, b.w)
}

// fkey is a factor's initial color, exactly: weight bits, constant bits
// and power (1 or 2) of a potential; 0, constant bits and 16+kind of a
// constraint.
type fkey struct {
	w, c uint64
	k    uint8
}

// factorKey returns the initial color of factor f (numbered as in graph).
func factorKey(p *hlmrf.Problem, f int) fkey {
	if m := len(p.Weight); f >= m {
		return fkey{0, bitsOf(p.CConst[f-m]), 16 + uint8(p.CKind[f-m])}
	}
	return fkey{bitsOf(p.Weight[f]), bitsOf(p.Const[f]), p.Power[f]}
}

func (k fkey) hash() uint64 { return mix(k.w) ^ mix(k.c^0x2545f4914f6cdd1d) + uint64(k.k) }

// hashIndex is an open-addressing table from 64-bit hashes to indexes.
type hashIndex struct {
	keys []uint64 // 0 marks an empty slot; the key 0 is kept in zero
	vals []int32
	zero int32 // the index of key 0, or -1
}

func newHashIndex(n int) *hashIndex {
	size := 1
	for size < 2*n {
		size *= 2
	}
	return &hashIndex{keys: make([]uint64, size), vals: make([]int32, size)}
}

// fill empties the table and inserts hs[i] -> i for every i, keeping the
// first index of a repeated hash. It returns how many distinct hashes hs
// has.
func (t *hashIndex) fill(hs []uint64) int {
	clear(t.keys)
	t.zero = -1
	mask := uint64(len(t.keys) - 1)
	distinct := 0
	for i, k := range hs {
		if k == 0 {
			if t.zero < 0 {
				t.zero = int32(i)
				distinct++
			}
			continue
		}
		s := k & mask
		for t.keys[s] != 0 && t.keys[s] != k {
			s = (s + 1) & mask
		}
		if t.keys[s] == 0 {
			t.keys[s], t.vals[s] = k, int32(i)
			distinct++
		}
	}
	return distinct
}

// find returns the index stored for h.
func (t *hashIndex) find(h uint64) (int32, bool) {
	if h == 0 {
		return t.zero, t.zero >= 0
	}
	mask := uint64(len(t.keys) - 1)
	s := h & mask
	for {
		switch t.keys[s] {
		case h:
			return t.vals[s], true
		case 0:
			return 0, false
		}
		s = (s + 1) & mask
	}
}

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// restProblem returns the subproblem of p without the nodes skip reports
// (whole components; nodes numbered as in graph), renumbered in order, and
// every kept node's new index (variables, potentials and constraints
// numbered separately). Rows are copied term by term: hlmrf's builders
// would merge a repeated variable's coefficients in float64, rounding a sum
// that refinement compares exactly.
func restProblem(p *hlmrf.Problem, skip func(x int) bool) (*hlmrf.Problem, []int32) {
	n, m, c := p.NumVars, len(p.Weight), len(p.CKind)
	sub := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	newID := make([]int32, n+m+c)
	for v := 0; v < n; v++ {
		if !skip(v) {
			newID[v] = int32(sub.NumVars)
			sub.NumVars++
		}
	}
	row := func(dv []int32, dc []float64, vars []int32, coefs []float64) ([]int32, []float64) {
		for t, v := range vars {
			dv = append(dv, newID[v])
			dc = append(dc, coefs[t])
		}
		return dv, dc
	}
	for i := 0; i < m; i++ {
		if skip(n + i) {
			continue
		}
		newID[n+i] = int32(len(sub.Weight))
		sub.Weight = append(sub.Weight, p.Weight[i])
		sub.Const = append(sub.Const, p.Const[i])
		sub.Power = append(sub.Power, p.Power[i])
		sub.Group = append(sub.Group, p.Group[i])
		vars, coefs := p.Terms(i)
		sub.Var, sub.Coef = row(sub.Var, sub.Coef, vars, coefs)
		sub.Start = append(sub.Start, int32(len(sub.Var)))
	}
	for j := 0; j < c; j++ {
		if skip(n + m + j) {
			continue
		}
		newID[n+m+j] = int32(len(sub.CKind))
		sub.CKind = append(sub.CKind, p.CKind[j])
		sub.CConst = append(sub.CConst, p.CConst[j])
		sub.CGroup = append(sub.CGroup, p.CGroup[j])
		vars, coefs := p.CTerms(j)
		sub.CVar, sub.CCoef = row(sub.CVar, sub.CCoef, vars, coefs)
		sub.CStart = append(sub.CStart, int32(len(sub.CVar)))
	}
	return sub, newID
}

// expand colors the whole problem from the coloring sc of the rest (whose
// node x has index newID[x]): a node of a copy takes its image's color.
// Colors are renumbered per kind in order of first occurrence, as refine
// numbers them.
func expand(g *graph, img []int32, sc *Coloring, newID []int32) *Coloring {
	col := &Coloring{Var: make([]int32, g.n), Pot: make([]int32, g.m), Con: make([]int32, g.c)}
	number := func(dst, subColor []int32, base, classes int) int {
		for i := range dst {
			x := int32(base + i)
			if y := img[x]; y >= 0 {
				x = y
			}
			dst[i] = subColor[newID[x]]
		}
		return firstOccurrence(dst, classes)
	}
	col.NumVar = number(col.Var, sc.Var, 0, sc.NumVar)
	col.NumPot = number(col.Pot, sc.Pot, g.n, sc.NumPot)
	col.NumCon = number(col.Con, sc.Con, g.n+g.m, sc.NumCon)
	return col
}
