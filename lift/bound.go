package lift

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Lower bounds on the lifted sizes.
//
// Refinement costs O(m log n) touches, and on a problem without useful
// symmetry all of it buys nothing. ClassBound looks ahead cheaply: it runs a
// few rounds of color refinement in which a color is a 64-bit hash instead
// of a class, every node updated at once from its neighbours' previous
// colors. A node's new hash is a function of its old hash and of
//
//	sum over its edges e of w_e * R(hash of e's other end)   (mod 2^64)
//
// with w_e the edge's exact coefficient as a fixed-point integer (its low
// 64 bits, fixed.go) and R a 64-bit mixing function. Two nodes with equal
// exact sums of coefficients into every color class get equal values, so the
// coloring after r rounds is never finer than r rounds of the sum criterion
// refinement uses, and that is never finer than the coarsest stable coloring
// (refinement only ever splits). Hash collisions can only merge classes. The
// number of distinct hashes of each kind is therefore a lower bound on the
// number of classes of the coarsest stable coloring, however the hashes
// fall: a proof that the lifted problem is at least that large.

// ClassBound returns lower bounds on the numbers of variable, potential and
// constraint classes of p's coarsest stable coloring (the sizes of its
// lifted problem, before constant classes are dropped), from at most rounds
// rounds of hashed refinement (it stops early when a round adds no class).
// See Bounder for doing the rounds one at a time. p must be well formed (see
// Lift).
func ClassBound(p *hlmrf.Problem, rounds int) (vars, pots, cons int, err error) {
	b, err := NewBounder(p)
	if err != nil {
		return 0, 0, 0, err
	}
	vars, pots, cons = b.Counts()
	for range rounds {
		if !b.Round() {
			break
		}
		vars, pots, cons = b.Counts()
	}
	return vars, pots, cons, nil
}

// Bounder runs hashed refinement one round at a time (see ClassBound). Each
// round is one pass over the problem's terms and a count of the distinct
// hashes, a small part of Refine's cost, so a caller can stop as soon as
// the bound shows that a problem has too little symmetry to be worth
// lifting.
type Bounder struct {
	p       *hlmrf.Problem
	g       *graph
	w       []uint64 // exact coefficient of every edge, low word
	h, next []uint64 // colors: variables, then potentials, then constraints
	acc     []uint64
	set     *countSet
	counts  [3]int
}

// NewBounder sets up hashed refinement of p from its initial coloring
// (variables alike, factors by weight, constant and power or kind). p must
// be well formed (see Lift).
func NewBounder(p *hlmrf.Problem) (*Bounder, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	n, m, c := p.NumVars, len(p.Weight), len(p.CKind)
	g := newGraph(p)
	b := &Bounder{p: p, g: g, w: make([]uint64, len(g.fVar)), h: make([]uint64, n+m+c), next: make([]uint64, n+m+c), acc: make([]uint64, n), set: newCountSet(max(n, m+c))}
	// Exact coefficients, low word (see fixed.go): sums of low words are the
	// low words of exact sums.
	tmp := make([]uint64, g.scale.words)
	last, have := 0.0, false
	for e := range b.w {
		x := g.coef(int32(e))
		if !have || x != last {
			g.scale.put(tmp, x)
			last, have = x, true
		}
		b.w[e] = tmp[0]
	}
	for v := range n {
		b.h[v] = 0x9e3779b97f4a7c15
	}
	for f := range m + c {
		b.h[n+f] = factorKey(p, f).hash()
	}
	b.count()
	return b, nil
}

// Counts returns the current lower bounds on the numbers of variable,
// potential and constraint classes.
func (b *Bounder) Counts() (vars, pots, cons int) { return b.counts[0], b.counts[1], b.counts[2] }

// count counts the distinct colors of each kind.
func (b *Bounder) count() {
	n, m := b.p.NumVars, len(b.p.Weight)
	b.counts = [3]int{b.set.distinct(b.h[:n]), b.set.distinct(b.h[n : n+m]), b.set.distinct(b.h[n+m:])}
}

// Round runs one round and reports whether it added a class (when it did
// not, the hashed coloring is stable and, barring hash collisions, no later
// round will).
func (b *Bounder) Round() bool {
	n, m, c := b.p.NumVars, len(b.p.Weight), len(b.p.CKind)
	g, h, next, w, acc := b.g, b.h, b.next, b.w, b.acc
	// R(color) of every variable, once per round, kept in next's variable
	// part until the factors have read it.
	rv := next[:n]
	for v := range n {
		rv[v] = mix(h[v] + 0x2545f4914f6cdd1d)
	}
	clear(acc)
	for f := range m + c {
		hf := mix(h[n+f] ^ 0x51afd7ed558ccd)
		var s uint64
		for e := g.fStart[f]; e < g.fStart[f+1]; e++ {
			v := g.fVar[e]
			s += w[e] * rv[v]
			acc[v] += w[e] * hf
		}
		next[n+f] = mix(h[n+f] ^ bits.RotateLeft64(s, 17) ^ 0x5851f42d4c957f2d)
	}
	for v := range n {
		next[v] = mix(h[v] ^ bits.RotateLeft64(acc[v], 29) ^ 0x14057b7ef767814f)
	}
	b.h, b.next = next, h
	old := b.counts
	b.count()
	return b.counts != old
}

// countSet counts distinct 64-bit values with an open-addressing table
// whose slots are marked used by a stamp, so that a count needs no
// clearing.
type countSet struct {
	slots []uint64
	stamp []uint32
	now   uint32
}

func newCountSet(n int) *countSet {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return &countSet{slots: make([]uint64, size), stamp: make([]uint32, size)}
}

// distinct returns the number of distinct values in hs (at most half the
// table's size).
func (s *countSet) distinct(hs []uint64) int {
	s.now++
	if s.now == 0 { // wrapped: every old stamp could look current
		clear(s.stamp)
		s.now = 1
	}
	mask := uint64(len(s.slots) - 1)
	k := 0
	for _, x := range hs {
		i := mix(x) & mask
		for s.stamp[i] == s.now && s.slots[i] != x {
			i = (i + 1) & mask
		}
		if s.stamp[i] != s.now {
			s.stamp[i], s.slots[i] = s.now, x
			k++
		}
	}
	return k
}

// Lift goes on with the rounds until the hashed coloring is stable (at most
// maxRounds rounds in all), checks exactly that it is stable in the sense
// of Refine (every member of a class has the same exact sum of coefficients
// into every class, and the factors of a class the same weight, constant
// and power or kind), and builds the lifted problem from it. ok is false,
// with a nil *Lifted, when the rounds did not settle or the check failed
// (a hash collision merged two classes); the caller then lifts by
// refinement (Lift). Problems whose coefficients need more than one 64-bit
// word of fixed point (see fixed.go) are left to refinement too.
//
// A coloring that passes is the coarsest stable coloring, the one Refine
// computes, numbered the same way: the hashed coloring is never finer than
// it (the comment at the top), and a stable coloring is never coarser.
// Hashing costs one pass over the terms per round whatever the symmetry,
// where refinement touches every copy of a repeated structure at every
// split, so on problems of many copies it is several times faster.
func (b *Bounder) Lift(maxRounds int) (l *Lifted, ok bool, err error) {
	if b.g.scale.words != 1 {
		return nil, false, nil
	}
	for r := 0; ; r++ {
		if r >= maxRounds {
			return nil, false, nil
		}
		if !b.Round() {
			break
		}
	}
	col := b.coloring()
	if !b.stable(col) {
		return nil, false, nil
	}
	l, err = build(b.p, b.g, col, 0)
	return l, err == nil, err
}

// coloring numbers the hash classes of each kind in order of first
// occurrence.
func (b *Bounder) coloring() *Coloring {
	n, m := b.p.NumVars, len(b.p.Weight)
	number := func(hs []uint64) ([]int32, int) {
		ids := make(map[uint64]int32, len(hs)/4+1)
		out := make([]int32, len(hs))
		for i, h := range hs {
			id, seen := ids[h]
			if !seen {
				id = int32(len(ids))
				ids[h] = id
			}
			out[i] = id
		}
		return out, len(ids)
	}
	col := &Coloring{}
	col.Var, col.NumVar = number(b.h[:n])
	col.Pot, col.NumPot = number(b.h[n : n+m])
	col.Con, col.NumCon = number(b.h[n+m:])
	return col
}

// classSum is one entry of a node's exact sums into the classes of the
// other side: the class and the sum (one-word fixed point).
type classSum struct {
	class int32
	sum   uint64
}

// stable reports whether col is stable: factors of a class share their
// initial color and, like variables of a class, their exact sums into every
// class of the other side (one-word fixed point; zero sums left out).
func (b *Bounder) stable(col *Coloring) bool {
	p, g, w := b.p, b.g, b.w
	n, m, c := p.NumVars, len(p.Weight), len(p.CKind)
	fclass := func(f int) int32 { // potentials and constraints in one numbering
		if f < m {
			return col.Pot[f]
		}
		return int32(col.NumPot) + col.Con[f-m]
	}
	nf := col.NumPot + col.NumCon
	// The first member of every class: its key and sums are the class's.
	fRep := make([]int32, nf)
	for i := range fRep {
		fRep[i] = -1
	}
	var fSums [][]classSum // per factor class, its representative's sums
	fSums = make([][]classSum, nf)
	var buf []classSum
	// sums collects (class, weight) pairs, sorts them by class, adds equal
	// classes and drops zero sums.
	sums := func(entries []classSum) []classSum {
		slicesSortClassSum(entries)
		out := entries[:0]
		for _, e := range entries {
			if k := len(out); k > 0 && out[k-1].class == e.class {
				out[k-1].sum += e.sum
				continue
			}
			out = append(out, e)
		}
		keep := out[:0]
		for _, e := range out {
			if e.sum != 0 {
				keep = append(keep, e)
			}
		}
		return keep
	}
	for f := range m + c {
		k := fclass(f)
		buf = buf[:0]
		for e := g.fStart[f]; e < g.fStart[f+1]; e++ {
			buf = append(buf, classSum{col.Var[g.fVar[e]], w[e]})
		}
		s := sums(buf)
		if fRep[k] < 0 {
			fRep[k] = int32(f)
			fSums[k] = append([]classSum(nil), s...)
			continue
		}
		if factorKey(p, f) != factorKey(p, int(fRep[k])) || !equalSums(s, fSums[k]) {
			return false
		}
	}
	// Variables: their incidences, grouped by variable.
	start := make([]int32, n+1)
	for _, v := range g.fVar {
		start[v+1]++
	}
	for v := range n {
		start[v+1] += start[v]
	}
	inc := make([]classSum, len(g.fVar))
	fill := append([]int32(nil), start[:n]...)
	for f := range m + c {
		k := fclass(f)
		for e := g.fStart[f]; e < g.fStart[f+1]; e++ {
			v := g.fVar[e]
			inc[fill[v]] = classSum{k, w[e]}
			fill[v]++
		}
	}
	vSums := make([][]classSum, col.NumVar)
	vSeen := make([]bool, col.NumVar)
	for v := range n {
		s := sums(inc[start[v]:start[v+1]])
		k := col.Var[v]
		if !vSeen[k] {
			vSeen[k] = true
			vSums[k] = s
			continue
		}
		if !equalSums(s, vSums[k]) {
			return false
		}
	}
	return true
}

func equalSums(a, b []classSum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// slicesSortClassSum sorts entries by class (insertion sort for the short
// rows of most factors).
func slicesSortClassSum(s []classSum) {
	if len(s) > 12 {
		slices.SortFunc(s, func(x, y classSum) int { return cmp.Compare(x.class, y.class) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].class < s[j-1].class; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
