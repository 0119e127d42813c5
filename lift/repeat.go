package lift

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/par"
)

// Repeated components.
//
// Partition refinement costs about one touch per edge per time a node lands
// in a smaller part, and a node alone in its class is never touched again.
// A problem made of k disjoint copies of one structure (the symmetry
// injection of Srinivasan et al.'s Figure 5; data made of independent groups of the same shape)
// therefore costs far more than k times one copy: no class ever shrinks below
// k members, so the touches that one copy skips are all made (the 10-fold
// social-affiliation problem: 6.1 million touches against 0.24 million for
// one copy). colorRepeated avoids that work by finding the copies directly:
//
//  1. connected components of the factor graph (union-find);
//  2. components of at least minRepeatNodes nodes are grouped by their sizes
//     and a hash of their factors' initial colors; a group needs two members,
//     and the path is taken only when copies of large components
//     (largeComponent) are a third of the problem;
//  3. the first member of a group (the representative) gets a 64-bit hash
//     per node, round by round (a hash of its initial color, then of its
//     hash and its neighbours' hashes with the edge coefficients), until its
//     node hashes are all distinct;
//  4. every other member is hashed as many rounds, mapped node for node onto
//     the representative by hash, and the map is verified exactly to be an
//     isomorphism (same initial colors, same rows of variables and
//     coefficient bits); a member that fails is simply kept;
//  5. the problem without the verified copies (the rest) is refined as usual,
//     and every node of a copy takes the color of its image.
//
// Steps 3 and 4 look at one component at a time, so each runs as one loop
// over components on all cores.
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

// maxHashRounds bounds the hash rounds of a representative: one that is not
// told apart by then (long paths, components with symmetry) is refined like
// everything else, so that the hashing never costs more than a few passes
// over the candidates.
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
	n, nf := p.NumVars, len(p.Weight)+len(p.CKind)
	if n+nf < 2*par.minNodes {
		return nil
	}
	comp, ncomp := components(p)
	if ncomp < 2 {
		return nil
	}
	cd := &candidates{comp: comp, shape: make([]compShape, ncomp)}
	for _, c := range comp[:n] {
		cd.shape[c].vars++
	}
	for f := 0; f < nf; f++ {
		s := &cd.shape[comp[n+f]]
		row, _ := factorTerms(p, f)
		s.facs++
		s.edges += int32(len(row))
		s.keys += factorKey(p, f).hash()
	}
	// Groups are ordered by their first component, members ascending.
	byShape := make(map[compShape]int)
	copies := 0 // nodes in copies of large components
	for c, s := range cd.shape {
		if s.nodes() < par.minNodes {
			continue
		}
		k, ok := byShape[s]
		if !ok {
			k = len(cd.groups)
			byShape[s] = k
			cd.groups = append(cd.groups, nil)
		}
		cd.groups[k] = append(cd.groups[k], int32(c))
		if len(cd.groups[k]) > 1 && s.nodes() >= par.large {
			copies += s.nodes()
		}
	}
	if copies == 0 || float64(copies) < par.share*float64(n+nf) {
		return nil
	}
	cd.groups = slices.DeleteFunc(cd.groups, func(cs []int32) bool { return len(cs) < 2 })
	return cd
}

// colorRepeated returns the coarsest stable coloring of p computed with its
// candidate components matched instead of refined, or nil if no candidate
// turned out to be a copy.
func colorRepeated(g *graph, p *hlmrf.Problem, cd *candidates) *Coloring {
	mt := newMatcher(p, cd)
	threads := runtime.GOMAXPROCS(0)
	reps := make([]*compact, len(cd.groups))
	rounds := make([]int, len(cd.groups))
	index := make([]*hashIndex, len(cd.groups))
	par.For(len(cd.groups), threads, func(_, k int) {
		reps[k] = mt.compact(cd.groups[k][0])
		rounds[k], index[k] = reps[k].settle()
	})
	type member struct{ group, comp int32 }
	var members []member
	for k, grp := range cd.groups {
		if index[k] != nil { // the representative's nodes were told apart
			for _, c := range grp[1:] {
				members = append(members, member{int32(k), c})
			}
		}
	}
	img := make([]int32, len(cd.comp)) // node of a verified copy -> its image; else -1
	for i := range img {
		img[i] = -1
	}
	isCopy := make([]bool, len(cd.shape))
	par.For(len(members), threads, func(_, i int) {
		m, rep := members[i], reps[members[i].group]
		c := mt.compact(m.comp)
		c.hash(rounds[m.group])
		if local := verify(c, rep, index[m.group]); local != nil {
			for i, x := range c.nodes {
				img[x] = rep.nodes[local[i]]
			}
			isCopy[m.comp] = true
		}
	})
	if !slices.Contains(isCopy, true) {
		return nil
	}
	sub, newID := restProblem(p, func(x int) bool { return isCopy[cd.comp[x]] })
	return expand(g, img, refine(newGraph(sub), sub), newID)
}

// matcher holds the candidate components compactly, so that hashing and
// verification run in cache rather than over the problem's scattered rows:
// component c's nodes are at positions off[c]..off[c+1]-1, variables first
// (nodes, ascending), its terms at eoff[c]..eoff[c+1]-1, and compact views
// one component's ranges (components are hashed and verified in parallel,
// each in its own ranges).
type matcher struct {
	cd                            *candidates
	off, eoff, nodes, start, tVar []int32
	tW, h, work                   []uint64
	key                           []fkey
	imgs                          []int32
	used                          []bool
}

// newMatcher copies every component out of p in one pass over p's rows in
// order.
func newMatcher(p *hlmrf.Problem, cd *candidates) *matcher {
	nn, nc := len(cd.comp), len(cd.shape)
	mt := &matcher{cd: cd, off: make([]int32, nc+1), eoff: make([]int32, nc+1),
		nodes: make([]int32, nn), start: make([]int32, nn+nc), h: make([]uint64, nn),
		work: make([]uint64, nn), key: make([]fkey, nn), imgs: make([]int32, nn), used: make([]bool, nn)}
	for c, s := range cd.shape {
		mt.off[c+1] = mt.off[c] + int32(s.nodes())
		mt.eoff[c+1] = mt.eoff[c] + s.edges
	}
	mt.tVar, mt.tW = make([]int32, mt.eoff[nc]), make([]uint64, mt.eoff[nc])
	next, enext := slices.Clone(mt.off), slices.Clone(mt.eoff)
	local := make([]int32, p.NumVars) // variable -> its index in its component
	for x, c := range cd.comp {
		i := next[c]
		next[c]++
		mt.nodes[i] = int32(x)
		if x < p.NumVars {
			local[x] = i - mt.off[c]
			continue
		}
		mt.key[i] = factorKey(p, x-p.NumVars)
		mt.start[i+c] = enext[c] - mt.eoff[c] // factor i's terms, within its component's
		row, coefs := factorTerms(p, x-p.NumVars)
		for t, v := range row {
			mt.tVar[enext[c]], mt.tW[enext[c]] = local[v], bitsOf(coefs[t])
			enext[c]++
		}
	}
	for c, s := range cd.shape {
		mt.start[mt.off[c+1]+int32(c)] = s.edges
	}
	return mt
}

// compact is one component in the matcher's arrays, nodes numbered locally
// (variables 0..nv-1, then the factors): per node its hash h and, in
// verify, its image (img); per factor its initial color (key) and its
// terms tVar[start[i]:start[i+1]] (local variable indexes) with coefficient
// bits tW.
type compact struct {
	nodes, img, start, tVar []int32
	nv                      int
	key                     []fkey
	tW, h, work             []uint64
	used                    []bool
}

// compact returns component c's view.
func (mt *matcher) compact(c int32) *compact {
	lo, hi, nv := mt.off[c], mt.off[c+1], mt.cd.shape[c].vars
	return &compact{nodes: mt.nodes[lo:hi], img: mt.imgs[lo:hi], nv: int(nv),
		start: mt.start[lo+c+nv : hi+c+1], key: mt.key[lo+nv : hi],
		tVar: mt.tVar[mt.eoff[c]:mt.eoff[c+1]], tW: mt.tW[mt.eoff[c]:mt.eoff[c+1]],
		h: mt.h[lo:hi], work: mt.work[lo : lo+nv], used: mt.used[lo:hi]}
}

// hash sets every node's hash to that of its initial color and runs rounds
// hash rounds.
func (k *compact) hash(rounds int) {
	for i := range k.h {
		k.h[i] = 0x9e3779b97f4a7c15 // all variables share the initial color
		if i >= k.nv {
			k.h[i] = k.key[i-k.nv].hash()
		}
	}
	for range rounds {
		k.round()
	}
}

// round computes one more hash round: a factor's new hash mixes its hash
// with its terms' (coefficient, variable hash), then a variable's new hash
// mixes its hash with its terms' (coefficient, new factor hash), so that one
// round reaches variables two steps away; sums make the hashes independent
// of the order of terms and of nodes.
func (k *compact) round() {
	hv, hf, work := k.h[:k.nv], k.h[k.nv:], k.work
	for v, h := range hv {
		work[v] = mix(h ^ 0x5851f42d4c957f2d)
	}
	for f, h := range hf {
		vars, ws := k.tVar[k.start[f]:k.start[f+1]], k.tW[k.start[f]:k.start[f+1]]
		acc := mix(h ^ 0x14057b7ef767814f)
		for t, v := range vars {
			acc += mix(ws[t]*0xbf58476d1ce4e5b9 ^ hv[v])
		}
		for t, v := range vars {
			work[v] += mix(ws[t]*0xbf58476d1ce4e5b9 ^ acc ^ 0x94d049bb133111eb)
		}
		hf[f] = acc
	}
	copy(hv, work)
}

// settle hashes a representative round by round until its node hashes are
// all distinct, and returns the number of rounds and the index of its
// hashes; nil if maxHashRounds pass, or a round tells no more nodes apart
// (the component has symmetry of its own, or a collision).
func (k *compact) settle() (int, *hashIndex) {
	k.hash(0)
	index := newHashIndex(len(k.h))
	prev := 0
	for rounds := 0; ; rounds++ {
		d := index.fill(k.h)
		switch {
		case d == len(k.h):
			return rounds, index
		case rounds == maxHashRounds || d <= prev:
			return 0, nil
		}
		prev = d
		k.round()
	}
}

// hashIndex is an open-addressing table from a representative's node
// hashes to their local indexes.
type hashIndex struct {
	keys []uint64
	vals []int32 // local index + 1; 0 marks an empty slot
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
	clear(t.vals)
	distinct := 0
	for i, h := range hs {
		if s := t.slot(h); t.vals[s] == 0 {
			t.keys[s], t.vals[s] = h, int32(i+1)
			distinct++
		}
	}
	return distinct
}

// find returns the index stored for h.
func (t *hashIndex) find(h uint64) (int32, bool) {
	s := t.slot(h)
	return t.vals[s] - 1, t.vals[s] != 0
}

// slot returns the slot that holds h, or the empty slot where it would go.
func (t *hashIndex) slot(h uint64) uint64 {
	mask := uint64(len(t.keys) - 1)
	s := h & mask
	for t.vals[s] != 0 && t.keys[s] != h {
		s = (s + 1) & mask
	}
	return s
}

// verify maps component c onto the representative rep by hash (index, from
// rep's final hashes) and checks that the map is an isomorphism keeping
// initial colors and coefficients: a bijection of variables and of factors
// under which every factor has its image's initial color and the same
// multiset of (variable, coefficient) terms. It returns the local index in
// rep of each of c's nodes, or nil if c is not a copy.
func verify(c, rep *compact, index *hashIndex) []int32 {
	local, used := c.img, c.used
	clear(used)
	for i, h := range c.h {
		j, ok := index.find(h)
		if !ok || used[j] || (i < c.nv) != (int(j) < rep.nv) {
			return nil // injective on equal sizes, so a bijection
		}
		used[j], local[i] = true, j
	}
	var rc, rr []term
	for f, key := range c.key {
		g := int(local[c.nv+f]) - rep.nv
		a, b, ra := c.start[f], c.start[f+1], rep.start[g]
		if key != rep.key[g] || b-a != rep.start[g+1]-ra {
			return nil
		}
		same := true // the same terms in the same order?
		for t := range b - a {
			same = same && local[c.tVar[a+t]] == rep.tVar[ra+t] && c.tW[a+t] == rep.tW[ra+t]
		}
		if same {
			continue
		}
		rc, rr = rc[:0], rr[:0]
		for t := range b - a {
			rc = append(rc, term{local[c.tVar[a+t]], c.tW[a+t]})
			rr = append(rr, term{rep.tVar[ra+t], rep.tW[ra+t]})
		}
		slices.SortFunc(rc, term.cmp)
		slices.SortFunc(rr, term.cmp)
		if !slices.Equal(rc, rr) {
			return nil
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
