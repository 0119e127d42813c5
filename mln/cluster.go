package mln

import (
	"math"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// Cluster moves. Two clauses l1 v l2 and !l1 v !l2 that an MC-SAT step
// both selects make l1 and !l2 equal in every solution of the step: a hard
// or near-deterministic equivalence (a <=> b is !a v b and a v !b), the
// two halves of a functional constraint over two values (exactly one of a
// and b), or a soft equivalence whose two clauses the step happened to
// select (each with probability 1 - exp(-w)). The step's atoms then fall
// into clusters that move together, and the step's annealing moves flip a
// whole cluster at once (each atom as its parity to the cluster's first
// says), a move across the modes that such equivalences separate which
// single flips could make only through worlds violating one clause per
// atom. On a network of soft equivalences this is Swendsen and Wang's
// cluster algorithm (1987), which MC-SAT's selection is for such clauses,
// with the clusters' flips taken by annealing moves; on a complete graph
// of equivalences a single move flips the whole graph. Since every
// solution of the step keeps each cluster's parities, the moves are a
// Metropolis chain over the worlds that keep them, and its trace on the
// solutions is still uniform (see uniformMoves).

// selectPairs decides the selection of the soft equivalence pairs of
// positive weight before the other clauses. The two clauses of a pair,
// weights w1 >= w2 > 0, are never both violated (l1 v l2 or !l1 v !l2
// always holds), so their factor exp(w1 [c1] + w2 [c2]) is
// exp(w2) exp(w2 [l1 != l2]) exp((w1 - w2) [c1]): one feature, that the
// pair's literals differ, of weight w2, and clause c1 alone of weight
// w1 - w2. MC-SAT may take its slice over any such factorisation of the
// distribution (Poon and Domingos 2006 state it for any features), and
// this one selects the feature, both clauses as one constraint, with
// probability 1 - exp(-w2) when the world satisfies both: the bond of
// Swendsen and Wang, where clause by clause one of the two is often
// selected alone, a one-way constraint that holds a cluster still.
func (ch *mcsatChain) selectPairs() {
	pairs := ch.net.pairs()
	if len(pairs) == 0 {
		return
	}
	in := ch.net.in
	if ch.paired == nil {
		ch.paired = make([]uint32, in.NumClauses())
	}
	for _, pr := range pairs {
		c, d := pr[0], pr[1]
		wc, wd := in.Weight[c], in.Weight[d]
		if in.Hard[c] || in.Hard[d] || wc <= 0 || wd <= 0 {
			continue
		}
		ch.paired[c], ch.paired[d] = ch.stamp, ch.stamp
		if wc < wd {
			c, d, wc, wd = d, c, wd, wc
		}
		satC, satD := ch.ntrue[c] > 0, ch.ntrue[d] > 0
		if satC && satD && ch.rng.Float64() < -math.Expm1(-wd) {
			ch.selected[c], ch.selected[d] = ch.stamp, ch.stamp
			continue
		}
		if rest := wc - wd; satC && rest > 0 && ch.rng.Float64() < -math.Expm1(-rest) {
			ch.selected[c] = ch.stamp
		}
	}
}

// equivalencePairs lists the pairs (c, d) of binary clauses of in whose
// literals are each other's negations, c < d.
func equivalencePairs(in *maxsat.Instance) [][2]int32 {
	type key [2]maxsat.Lit
	binary := map[key]int32{}
	norm := func(a, b maxsat.Lit) key {
		if a > b {
			a, b = b, a
		}
		return key{a, b}
	}
	var pairs [][2]int32
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		if len(lits) != 2 || lits[0].Var() == lits[1].Var() {
			continue
		}
		if d, ok := binary[norm(-lits[0], -lits[1])]; ok {
			pairs = append(pairs, [2]int32{d, int32(c)})
		}
		binary[norm(lits[0], lits[1])] = int32(c)
	}
	return pairs
}

// clusters groups the step's walk atoms by the selected equivalence pairs
// (union-find with parities) into ch.units: it returns false when no two
// atoms are tied, so that moves flip single atoms.
func (ch *mcsatChain) clusters() bool {
	pairs := ch.net.pairs()
	if len(pairs) == 0 {
		return false
	}
	n := len(ch.x)
	if ch.parent == nil {
		ch.parent, ch.parity = make([]int32, n), make([]bool, n)
	}
	for _, v := range ch.walk {
		ch.parent[v], ch.parity[v] = v, false
	}
	// find returns v's root and v's parity to it.
	find := func(v int32) (int32, bool) {
		p := false
		for ch.parent[v] != v {
			p = p != ch.parity[v]
			v = ch.parent[v]
		}
		return v, p
	}
	tied := false
	for _, pr := range pairs {
		c, d := int(pr[0]), int(pr[1])
		if !ch.isActive(c) || !ch.isActive(d) {
			continue
		}
		lits := ch.net.in.Clause(c)
		a, b := int32(lits[0].Var()), int32(lits[1].Var())
		if ch.fixed[a] == ch.stamp || ch.fixed[b] == ch.stamp {
			continue // cannot be: an active clause with a fixed atom is a unit one, propagated
		}
		// l1 != l2 in every solution: a xor b = 1 xor neg1 xor neg2.
		odd := !(lits[0].Neg() != lits[1].Neg())
		ra, pa := find(a)
		rb, pb := find(b)
		if ra == rb {
			continue
		}
		ch.parent[rb], ch.parity[rb] = ra, pa != pb != odd
		tied = true
	}
	if !tied {
		return false
	}
	// Units: each root, then the other atoms of its cluster, each with its
	// parity to the root (paths compressed first).
	if ch.unitOf == nil {
		ch.unitOf = make([]int32, n)
	}
	ch.unitStart = ch.unitStart[:0]
	for _, v := range ch.walk {
		ch.parent[v], ch.parity[v] = find(v)
		if ch.parent[v] == v {
			ch.unitOf[v] = int32(len(ch.unitStart))
			ch.unitStart = append(ch.unitStart, 1)
		}
	}
	for _, v := range ch.walk {
		if r := ch.parent[v]; r != v {
			ch.unitStart[ch.unitOf[r]]++
		}
	}
	at := int32(0) // sizes to offsets; the root's slot first
	for u, size := range ch.unitStart {
		ch.unitStart[u] = at
		at += size
	}
	ch.unitStart = append(ch.unitStart, at)
	ch.unitAtoms = slices.Grow(ch.unitAtoms[:0], int(at))[:at]
	next := slices.Grow(ch.unitNext[:0], len(ch.unitStart))[:len(ch.unitStart)-1]
	copy(next, ch.unitStart)
	ch.unitNext = next
	for _, v := range ch.walk {
		if ch.parent[v] == v {
			u := ch.unitOf[v]
			ch.unitAtoms[next[u]] = v
			next[u]++
		}
	}
	for _, v := range ch.walk {
		if r := ch.parent[v]; r != v {
			u := ch.unitOf[r]
			ch.unitAtoms[next[u]] = v
			next[u]++
		}
	}
	return true
}

// annealUnit makes one annealing move over the step's clusters: a random
// cluster, all its atoms flipped, kept with probability
// min(1, exp(-delta/temp)), delta the change in violated active clauses.
// It returns whether it moved.
func (ch *mcsatChain) annealUnit(temp float64) bool {
	u := ch.rng.IntN(len(ch.unitStart) - 1)
	atoms := ch.unitAtoms[ch.unitStart[u]:ch.unitStart[u+1]]
	if len(atoms) == 1 {
		return ch.anneal1(int(atoms[0]), temp)
	}
	// A cluster's atoms flip together, so every atom keeps its parity to
	// the root and every selected equivalence among them stays satisfied.
	before := len(ch.unsat)
	for _, v := range atoms {
		ch.flip(int(v))
	}
	d := len(ch.unsat) - before
	if d <= 0 || (temp > 0 && ch.rng.Float64() < math.Exp(-float64(d)/temp)) {
		return true
	}
	for _, v := range atoms {
		ch.flip(int(v))
	}
	return false
}
