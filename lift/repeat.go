package lift

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

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
// one copy, and 16 times its refinement time). colorRepeated avoids that work
// by finding the copies directly:
//
//  1. connected components of the factor graph (union-find);
//  2. components of at least minRepeatNodes nodes are grouped by their sizes
//     and a hash of their factors' initial colors; a group needs two members,
//     and the whole path is taken only when copies of large components
//     (largeComponent) are a third of the problem;
//  3. within a group, every node gets a 64-bit hash of its neighbourhood,
//     round by round (a hash of its initial color, then of its hash and its
//     neighbours' hashes with the edge coefficients), until the first member
//     (the representative) has all node hashes distinct;
//  4. every other member whose hashes are exactly the representative's is
//     mapped node for node onto it by hash, and the map is verified exactly
//     to be an isomorphism (same initial colors, same rows of variables and
//     coefficient bits); a member that fails is simply kept;
//  5. the problem without the verified copies is refined as usual (refine),
//     and every node of a copy takes the color of its image. This runs
//     concurrently with steps 3 and 4, on the bet that every candidate is a
//     copy; if one is not, the rest is refined again with it. When there is
//     one group of large components, its representative is left out of the
//     rest and not refined at all if a sum hash proves every node of it alone
//     in its class (certify.go); otherwise it is refined with the rest.
//
// Steps 3 and 4 use all cores (GOMAXPROCS): members of a large group in
// parallel, small groups in parallel with each other.
//
// This is exact, whatever the hashes do: an isomorphic copy B of a
// component A of the rest R has, in the coarsest stable coloring of the
// whole problem, exactly the colors of its images (the coloring that gives
// them those colors is stable, so the coarsest one is at least as coarse;
// and the coarsest one restricted to R is a stable coloring of R, so no
// coarser than R's own, which is the refinement in step 5). Hashes only
// decide which components are tried and how they are mapped; a collision or
// a representative whose hashes never become distinct (a component with
// symmetry of its own) means fewer copies are found and more is refined,
// never a different coloring. The hash rounds resemble naive color
// refinement, but they run only on candidate copies, stop as soon as the
// representative is told apart completely (a few rounds on the
// social-affiliation problem), and are never taken as the coloring.
//
// minRepeatNodes is the smallest component tried as a copy: smaller ones
// (isolated variables, a factor on its own) are left to refinement.
const minRepeatNodes = 4

// maxHashRounds bounds the hash rounds per group: a representative that is
// not told apart by then (long paths, components with symmetry) is refined
// like everything else, so that the hashing never costs more than a few
// passes over the candidates.
const maxHashRounds = 10

// color builds p's graph and computes its coarsest stable coloring, by
// colorRepeated when p has repeated components and by refine otherwise. The
// search for repeated components runs beside the graph's construction.
func color(p *hlmrf.Problem) (*graph, *Coloring) {
	found := make(chan *candidates, 1)
	go func() { found <- findCandidates(p, defaultRepeat) }()
	g := newGraph(p)
	if cd := <-found; cd != nil {
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
	large  []bool      // per group: components of at least largeComponent nodes
	proved bool        // set by colorRepeated: a representative was proved discrete
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
	minNodes := par.minNodes
	n, m := p.NumVars, len(p.Weight)
	nf := m + len(p.CKind)
	if n+nf < 2*minNodes {
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
	// A first bound by sizes alone, which rules out most problems without
	// large repeated components (one giant component and small ones) cheaply.
	sameSize := map[[2]int32]int{}
	for _, s := range cd.shape {
		if s.nodes() >= par.large {
			sameSize[[2]int32{s.vars, s.facs}]++
		}
	}
	bound := 0
	for vf, k := range sameSize {
		bound += (k - 1) * int(vf[0]+vf[1])
	}
	if float64(bound) < par.share*float64(n+nf) {
		return nil
	}
	for f := 0; f < nf; f++ {
		s := &cd.shape[comp[n+f]]
		row, _ := factorTerms(p, f)
		s.edges += int32(len(row))
		s.keys += factorKey(p, m, f).hash()
	}
	// Groups are ordered by their first component, members ascending.
	byShape := make(map[compShape]int32) // shape -> group
	for c, s := range cd.shape {
		if s.nodes() < minNodes {
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
	if len(cd.groups) == 0 {
		return nil
	}
	// Worth it only when large copies make up much of the problem:
	// refinement handles small repeated components well (they end in large
	// classes, which it splits rarely), and the rest must be copied out.
	cd.large = make([]bool, len(cd.groups))
	copies := 0
	for i, grp := range cd.groups {
		if size := cd.shape[grp[0]].nodes(); size >= par.large {
			cd.large[i] = true
			copies += (len(grp) - 1) * size
		}
	}
	if float64(copies) < par.share*float64(n+nf) {
		return nil
	}
	return cd
}

// colorRepeated returns the coarsest stable coloring of p computed with its
// candidate components matched instead of refined, or nil if no candidate
// turned out to be a copy.
func colorRepeated(g *graph, p *hlmrf.Problem, cd *candidates) *Coloring {
	// The components not in the rest: the candidate copies and, when there
	// is one group of large components, its representative, which
	// provedAlone may spare refining (see certify.go).
	out := make([]bool, len(cd.shape))
	for _, grp := range cd.groups {
		for _, c := range grp[1:] {
			out[c] = true
		}
	}
	large := slices.Index(cd.large, true)
	if large >= 0 && slices.Contains(cd.large[large+1:], true) {
		large = -1 // several: their representatives are refined
	}
	if large >= 0 {
		out[cd.groups[large][0]] = true
	}
	// Refine the rest while the copies are matched, on the bet that all of
	// them are copies.
	bet := make(chan *restColoring, 1)
	go func() { bet <- cd.rest(p, slices.Clone(out)) }()

	cs := newCopySet(g, p, cd)
	img := make([]int32, len(cd.comp)) // node of a verified copy -> its image; else -1
	for i := range img {
		img[i] = -1
	}
	ok := cs.match(img)
	rest := <-bet
	missed, matched := false, false
	for _, grp := range cs.groups {
		for _, k := range grp[1:] {
			if ok[k] {
				matched = true
			} else {
				out[cs.comp[k]] = false
				missed = true
			}
		}
	}
	if !matched {
		return nil
	}
	if large >= 0 && !missed {
		rep := cs.groups[large][0]
		if provedAlone(cs.rows(rep), flatOf(rest.sub), g.scale.lsb) {
			cd.proved = true
			rest.addSingletons(g, cs.vars[cs.vOff[rep]:cs.vOff[rep+1]], cs.facs[cs.fOff[rep]:cs.fOff[rep+1]])
			return expand(g, img, rest.col, rest.newID)
		}
	}
	// Refine the rest again, with the candidates that were not copies and
	// the representative that was left out above.
	if large >= 0 {
		out[cd.groups[large][0]] = false
	}
	if missed || large >= 0 {
		rest = cd.rest(p, out)
	}
	return expand(g, img, rest.col, rest.newID)
}

// restColoring is the coloring of the rest of a problem, the rest itself,
// and each kept node's index in the rest (see restProblem).
type restColoring struct {
	col   *Coloring
	sub   *hlmrf.Problem
	newID []int32
}

// rest refines the problem without the components out marks.
func (cd *candidates) rest(p *hlmrf.Problem, out []bool) *restColoring {
	sub, newID := restProblem(p, func(x int) bool { return out[cd.comp[x]] })
	return &restColoring{refine(newGraph(sub), sub), sub, newID}
}

// addSingletons gives every node of a proved representative (variables
// vars, factors facs as node ids) a class of its own.
func (rc *restColoring) addSingletons(g *graph, vars, facs []int32) {
	col := rc.col
	for _, x := range vars {
		rc.newID[x] = int32(len(col.Var))
		col.Var = append(col.Var, int32(col.NumVar))
		col.NumVar++
	}
	for _, x := range facs {
		if int(x) < g.n+g.m {
			rc.newID[x] = int32(len(col.Pot))
			col.Pot = append(col.Pot, int32(col.NumPot))
			col.NumPot++
		} else {
			rc.newID[x] = int32(len(col.Con))
			col.Con = append(col.Con, int32(col.NumCon))
			col.NumCon++
		}
	}
}

// copySet holds the candidate copies, each a compact graph of its own in
// flat arrays, so that hashing and matching run in cache: candidate k's
// variables are vars[vOff[k]:vOff[k+1]] (node ids, ascending), its factors
// facs[fOff[k]:fOff[k+1]], and the flatRows hold every candidate's factors
// in that order, their terms' v being flat variable indexes.
type copySet struct {
	flatRows
	groups [][]int32 // candidate indexes, the representative first
	large  []bool    // per group: of large components (see largeComponent)
	comp   []int32   // candidate -> component

	vOff, fOff []int32
	vars, facs []int32

	hv, hf, work []uint64 // hashes of variables and factors; scratch
}

// rows returns candidate k's factors as flatRows of its own.
func (cs *copySet) rows(k int32) *flatRows {
	f0, f1 := cs.fOff[k], cs.fOff[k+1]
	return &flatRows{nv: int(cs.vOff[k+1] - cs.vOff[k]), vBase: cs.vOff[k],
		key: cs.key[f0:f1], start: cs.start[f0 : f1+1], v: cs.v, w: cs.w}
}

func newCopySet(g *graph, p *hlmrf.Problem, cd *candidates) *copySet {
	comp, shape := cd.comp, cd.shape
	cs := &copySet{large: cd.large}
	cand := make([]int32, len(shape)) // component -> candidate, or -1
	for i := range cand {
		cand[i] = -1
	}
	for _, grp := range cd.groups {
		ks := make([]int32, len(grp))
		for i, c := range grp {
			ks[i] = int32(len(cs.comp))
			cand[c] = ks[i]
			cs.comp = append(cs.comp, c)
		}
		cs.groups = append(cs.groups, ks)
	}
	nc := len(cs.comp)
	cs.vOff = make([]int32, nc+1)
	cs.fOff = make([]int32, nc+1)
	eOff := make([]int32, nc+1)
	for k, c := range cs.comp {
		cs.vOff[k+1] = cs.vOff[k] + shape[c].vars
		cs.fOff[k+1] = cs.fOff[k] + shape[c].facs
		eOff[k+1] = eOff[k] + shape[c].edges
	}
	// Variables first, so every term's variable has its flat index when its
	// factor comes; factors in node order, so that each candidate's come in
	// its own order and each writes its terms at its own cursor.
	cs.vars = make([]int32, cs.vOff[nc])
	cs.facs = make([]int32, cs.fOff[nc])
	cs.nv = len(cs.vars)
	cs.key = make([]fkey, len(cs.facs))
	cs.start = make([]int32, len(cs.facs)+1)
	cs.v = make([]int32, eOff[nc])
	cs.w = make([]uint64, eOff[nc])
	loc := make([]int32, g.n) // candidate variable -> flat index
	nextV := slices.Clone(cs.vOff[:nc])
	nextF := slices.Clone(cs.fOff[:nc])
	nextE := eOff[:nc]
	for v, c := range comp[:g.n] {
		if k := cand[c]; k >= 0 {
			loc[v] = nextV[k]
			cs.vars[nextV[k]] = int32(v)
			nextV[k]++
		}
	}
	// The factors in two halves, side by side: the second half's cursors
	// start after each candidate's factors and terms in the first.
	nf := g.m + g.c
	half := nf / 2
	nextF2, nextE2 := slices.Clone(nextF), slices.Clone(nextE)
	for f, c := range comp[g.n : g.n+half] {
		if k := cand[c]; k >= 0 {
			nextF2[k]++
			nextE2[k] += g.fStart[f+1] - g.fStart[f]
		}
	}
	fill := func(from, to int, nextF, nextE []int32) {
		for f := from; f < to; f++ {
			k := cand[comp[g.n+f]]
			if k < 0 {
				continue
			}
			i := nextF[k]
			nextF[k]++
			cs.facs[i] = int32(g.n + f)
			cs.key[i] = factorKey(p, g.m, f)
			e := nextE[k]
			for t := g.fStart[f]; t < g.fStart[f+1]; t++ {
				cs.v[e] = loc[g.fVar[t]]
				cs.w[e] = bitsOf(g.coef(t))
				e++
			}
			cs.start[i+1] = e
			nextE[k] = e
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { fill(half, nf, nextF2, nextE2) })
	fill(0, half, nextF, nextE)
	wg.Wait()
	cs.hv = make([]uint64, len(cs.vars))
	cs.work = make([]uint64, len(cs.vars))
	cs.hf = make([]uint64, len(cs.facs))
	return cs
}

// largeComponent is the size from which a repeated component counts as
// large. Refining k copies of a large component without symmetry of its own
// costs far more than k times one (see above); copies of large components
// must make up a third of the problem for colorRepeated to be used at all.
// Members of a group of large components are hashed and matched in
// parallel (smaller groups run in parallel with each other instead), and
// its representative is offered to provedAlone when it is the only such
// group.
const largeComponent = 1024

// match matches every group and records the verified copies' images in
// img. It reports per candidate whether it is a verified copy.
func (cs *copySet) match(img []int32) []bool {
	ok := make([]bool, len(cs.comp))
	var small [][]int32
	for i, grp := range cs.groups {
		if cs.large[i] {
			cs.matchGroup(grp, parallel, img, ok)
		} else {
			small = append(small, grp)
		}
	}
	parallel(len(small), func(i int) { cs.matchGroup(small[i], serial, img, ok) })
	return ok
}

// serial runs f(0..n-1) in order.
func serial(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}

// matchGroup hashes the group's members until the representative's hashes
// are all distinct, then maps and verifies every other member, recording
// the verified copies' images in img and setting ok. Loops over members run
// through each.
func (cs *copySet) matchGroup(members []int32, each func(int, func(int)), img []int32, ok []bool) {
	each(len(members), func(i int) { cs.initHashes(members[i]) })
	rep := members[0]
	hv := cs.hv[cs.vOff[rep]:cs.vOff[rep+1]]
	hf := cs.hf[cs.fOff[rep]:cs.fOff[rep+1]]
	tv, tf := newHashIndex(len(hv)), newHashIndex(len(hf))
	round := func() { each(len(members), func(i int) { cs.round(members[i]) }) }
	if _, distinct := roundsToDistinct(round, hv, hf, tv, tf); !distinct {
		return // the representative has symmetry (or a collision)
	}
	each(len(members)-1, func(i int) {
		k := members[i+1]
		vimg, fimg := cs.matchCopy(k, rep, tv, tf)
		if vimg == nil {
			return
		}
		for i, j := range vimg {
			img[cs.vars[cs.vOff[k]+int32(i)]] = cs.vars[cs.vOff[rep]+j]
		}
		for i, j := range fimg {
			img[cs.facs[cs.fOff[k]+int32(i)]] = cs.facs[cs.fOff[rep]+j]
		}
		ok[k] = true
	})
}

// roundsToDistinct runs hash rounds until the hashes hv (variables) and hf
// (factors), which round updates in place, are all distinct, at most
// maxHashRounds, and stops early when a round tells no more nodes apart
// than the one before. After every round it fills tv and tf (hash -> index)
// from them, so on success they are the tables of the final hashes. It
// returns how many rounds ran and whether the hashes ended all distinct.
func roundsToDistinct(round func(), hv, hf []uint64, tv, tf *hashIndex) (int, bool) {
	prev := tv.fill(hv) + tf.fill(hf)
	for rounds := 1; rounds <= maxHashRounds; rounds++ {
		round()
		dv, df := tv.fill(hv), tf.fill(hf)
		if dv == len(hv) && df == len(hf) {
			return rounds, true
		}
		if dv+df <= prev {
			return rounds, false
		}
		prev = dv + df
	}
	return maxHashRounds, false
}

// initHashes sets candidate k's round-0 hashes: one value for every
// variable (they share the initial color), a hash of the initial color for
// a factor.
func (cs *copySet) initHashes(k int32) {
	for i := cs.vOff[k]; i < cs.vOff[k+1]; i++ {
		cs.hv[i] = 0x9e3779b97f4a7c15
	}
	for i := cs.fOff[k]; i < cs.fOff[k+1]; i++ {
		cs.hf[i] = cs.key[i].hash()
	}
}

// round computes one more hash round of candidate k: a factor's new hash
// mixes its hash with its terms' (coefficient, variable hash), then a
// variable's new hash mixes its hash with its terms' (coefficient, new
// factor hash), so that one round reaches variables two steps away; sums
// make the hashes independent of the order of terms and of nodes.
func (cs *copySet) round(k int32) {
	v0, v1 := cs.vOff[k], cs.vOff[k+1]
	for i := v0; i < v1; i++ {
		cs.work[i] = mix(cs.hv[i] ^ 0x5851f42d4c957f2d)
	}
	for f := cs.fOff[k]; f < cs.fOff[k+1]; f++ {
		acc := mix(cs.hf[f] ^ 0x14057b7ef767814f)
		lo, hi := cs.start[f], cs.start[f+1]
		for e := lo; e < hi; e++ {
			acc += mix(cs.w[e]*0xbf58476d1ce4e5b9 ^ cs.hv[cs.v[e]])
		}
		for e := lo; e < hi; e++ {
			cs.work[cs.v[e]] += mix(cs.w[e]*0xbf58476d1ce4e5b9 ^ acc ^ 0x94d049bb133111eb)
		}
		cs.hf[f] = acc
	}
	copy(cs.hv[v0:v1], cs.work[v0:v1])
}

// mapByHash maps each hash of hs to the representative's local index with
// that hash (tab), or returns nil if one has none or two share one: the map
// must be injective.
func mapByHash(hs []uint64, tab *hashIndex) []int32 {
	img := make([]int32, len(hs))
	used := make([]bool, len(hs))
	for i, h := range hs {
		j, ok := tab.find(h)
		if !ok || used[j] {
			return nil
		}
		used[j] = true
		img[i] = j
	}
	return img
}

// matchCopy maps candidate k onto the representative rep through the
// tables (hash -> local index) and verifies that the map is an isomorphism
// keeping initial colors and coefficients: a bijection of variables and of
// factors under which every factor has its image's initial color and the
// same multiset of (variable, coefficient) terms. It returns the local
// images of k's variables and factors, or nils if k is not a copy.
func (cs *copySet) matchCopy(k, rep int32, tv, tf *hashIndex) (vimg, fimg []int32) {
	hv := cs.hv[cs.vOff[k]:cs.vOff[k+1]]
	hf := cs.hf[cs.fOff[k]:cs.fOff[k+1]]
	if vimg = mapByHash(hv, tv); vimg == nil {
		return nil, nil
	}
	if fimg = mapByHash(hf, tf); fimg == nil {
		return nil, nil
	}
	// Terms compared by local variable index (image for k, own for rep).
	kv, rv := cs.vOff[k], cs.vOff[rep]
	at := func(e int32) term { return term{vimg[cs.v[e]-kv], cs.w[e]} }
	rat := func(e int32) term { return term{cs.v[e] - rv, cs.w[e]} }
	var rc, rr []term
	for i, j := range fimg {
		fk, fr := cs.fOff[k]+int32(i), cs.fOff[rep]+j
		if cs.key[fk] != cs.key[fr] {
			return nil, nil
		}
		a, b := cs.start[fk], cs.start[fk+1]
		ra, rb := cs.start[fr], cs.start[fr+1]
		if b-a != rb-ra {
			return nil, nil
		}
		switch b - a {
		case 0:
		case 1:
			if at(a) != rat(ra) {
				return nil, nil
			}
		case 2:
			x0, x1, y0, y1 := at(a), at(a+1), rat(ra), rat(ra+1)
			if !(x0 == y0 && x1 == y1 || x0 == y1 && x1 == y0) {
				return nil, nil
			}
		default:
			rc, rr = rc[:0], rr[:0]
			for e := a; e < b; e++ {
				rc = append(rc, at(e))
			}
			for e := ra; e < rb; e++ {
				rr = append(rr, rat(e))
			}
			slices.SortFunc(rc, term.cmp)
			slices.SortFunc(rr, term.cmp)
			if !slices.Equal(rc, rr) {
				return nil, nil
			}
		}
	}
	return vimg, fimg
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

func factorKey(p *hlmrf.Problem, m, f int) fkey {
	if f < m {
		return fkey{bitsOf(p.Weight[f]), bitsOf(p.Const[f]), p.Power[f]}
	}
	j := f - m
	return fkey{0, bitsOf(p.CConst[j]), 16 + uint8(p.CKind[j])}
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
	for i, h := range hs {
		if h == 0 {
			if t.zero < 0 {
				t.zero = int32(i)
				distinct++
			}
			continue
		}
		s := h & mask
		for t.keys[s] != 0 && t.keys[s] != h {
			s = (s + 1) & mask
		}
		if t.keys[s] == 0 {
			t.keys[s], t.vals[s] = h, int32(i)
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

// parallel runs f(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// restProblem returns the subproblem of p without the nodes skip reports
// (whole components; nodes numbered as in graph), renumbered in order, and
// every kept node's new index (variables, potentials and constraints
// numbered separately).
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
