package lift

import (
	"math/bits"

	"hinge/hlmrf"
)

// Certified singletons.
//
// colorRepeated refines the rest of a problem (everything but the verified
// copies), and that rest holds the representative of every group of copies,
// which on ground problems without symmetry of their own (the
// social-affiliation network) is most of the remaining work. Yet such a
// representative ends with every node alone in its class, and that can be
// proved without refining it: hash every node round by round with a hash
// that depends only on a node's class in round-by-round color refinement by
// sums, and a node whose hash no other node shares is alone in its class of
// the coarsest stable coloring.
//
// The hash is sum-based: a node's new hash mixes its hash with
// sum over its edges of w(e)*G(hash of the other end) (mod the prime
// P = 2^61-1), where w(e) is the edge's exact coefficient in units of 2^lsb,
// reduced mod P. Grouping the edges by the other end's class, this is
// sum over classes C of (exact sum of weights into C)*G(hash of C), so by
// induction two nodes of one class of round r of refinement by sums have one
// hash after round r. Hence different hashes mean different classes at
// round r, and so in the coarsest stable coloring, which only refines them.
// Collisions can only hide a proof, never make a false one.
//
// When all nodes of a representative are proved alone in their classes of
// the rest, the rest's coloring is the refinement of the rest without that
// representative, plus one class per node of it (components do not
// interact, and no class of the rest can contain a node of it).

// mersenne61 is the prime 2^61-1 of the sum hash.
const mersenne61 = 1<<61 - 1

// mulmod61 returns a*b mod 2^61-1 for a, b < 2^61.
func mulmod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := (lo & mersenne61) + (lo>>61 | hi<<3)
	for r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

// addmod61 returns a+b mod 2^61-1 for a, b < 2^61-1.
func addmod61(a, b uint64) uint64 {
	r := a + b
	if r >= mersenne61 {
		r -= mersenne61
	}
	return r
}

// weightMod61 returns x/2^lsb mod 2^61-1: the exact coefficient x in units of
// 2^lsb (an integer, x being a multiple of 2^lsb), reduced. It is additive:
// the exact sum of coefficients maps to the sum of their images.
func weightMod61(x float64, lsb int) uint64 {
	if x == 0 {
		return 0
	}
	m, e, neg := decompose(x)
	r := mulmod61(m%mersenne61, 1<<((e-lsb)%61))
	if neg && r != 0 {
		r = mersenne61 - r
	}
	return r
}

// certifySingletons runs sum-hash rounds on p and reports, per tag value
// 0..ntags-1, whether every node with that tag (tag is indexed by node:
// variables, potentials, constraints) had, after some round, a hash that no
// other node of its kind has: such nodes are alone in their classes of p's
// coarsest stable coloring. lsb is the unit exponent of p's coefficients
// (any exponent that divides them all). It stops when every tag is proved,
// when a round tells no more nodes apart, or after maxHashRounds rounds.
func certifySingletons(p *hlmrf.Problem, lsb int, tag []int32, ntags int) []bool {
	n, m := p.NumVars, len(p.Weight)
	nf := m + len(p.CKind)
	start := func(f int) (lo, hi int32) {
		if f < m {
			return p.Start[f], p.Start[f+1]
		}
		return p.CStart[f-m], p.CStart[f-m+1]
	}
	wm := make([]uint64, len(p.Coef)+len(p.CCoef))
	last, lastW := 0.0, uint64(0)
	for i, cs := range [][]float64{p.Coef, p.CCoef} {
		off := i * len(p.Coef)
		for t, x := range cs {
			if x != last {
				last, lastW = x, weightMod61(x, lsb)
			}
			wm[off+t] = lastW
		}
	}
	hv := make([]uint64, n)
	acc := make([]uint64, n)
	hf := make([]uint64, nf)
	for v := range hv {
		hv[v] = 0x9e3779b97f4a7c15
	}
	for f := range hf {
		hf[f] = factorKey(p, m, f).hash()
	}
	proved := make([]bool, ntags)
	bad := make([]bool, ntags)
	left := ntags
	tv, tf := newHashIndex(n), newHashIndex(nf)
	prev := -1
	for round := 0; round < maxHashRounds && left > 0; round++ {
		clear(acc)
		for f := range hf {
			lo, hi := start(f)
			vars := p.Var
			off := int32(0)
			if f >= m {
				vars, off = p.CVar, int32(len(p.Coef))
			}
			gf := mix(hf[f]^0x14057b7ef767814f) >> 3
			var a uint64
			for t := lo; t < hi; t++ {
				v, w := vars[t], wm[off+t]
				a = addmod61(a, mulmod61(w, mix(hv[v]^0x5851f42d4c957f2d)>>3))
				acc[v] = addmod61(acc[v], mulmod61(w, gf))
			}
			hf[f] = mix(hf[f]^0x94d049bb133111eb) + a
		}
		for v := range hv {
			hv[v] = mix(hv[v]^0xbf58476d1ce4e5b9) + acc[v]
		}
		distinct := tv.fillCount(hv) + tf.fillCount(hf)
		clear(bad)
		for x, t := range tag {
			if t < 0 || proved[t] || bad[t] {
				continue
			}
			if x < n {
				bad[t] = tv.count(hv[x]) > 1
			} else {
				bad[t] = tf.count(hf[x-n]) > 1
			}
		}
		for t := range proved {
			if !proved[t] && !bad[t] {
				proved[t] = true
				left--
			}
		}
		if distinct <= prev {
			break // no more nodes told apart: no more proofs to come
		}
		prev = distinct
	}
	return proved
}

// refineCertified returns the coarsest stable coloring of p, where tag
// marks (0..ntags-1) whole components that are likely to end with every
// node alone in its class: those certifySingletons proves so are given one
// class per node, and only the rest of p is refined. Colors are not
// numbered in order of first occurrence.
func refineCertified(p *hlmrf.Problem, lsb int, tag []int32, ntags int) *Coloring {
	proved := certifySingletons(p, lsb, tag, ntags)
	single := func(x int) bool { return tag[x] >= 0 && proved[tag[x]] }
	any := false
	for _, ok := range proved {
		any = any || ok
	}
	if !any {
		return refine(newGraph(p), p)
	}
	rest, id := restProblem(p, single)
	rc := refine(newGraph(rest), rest)
	n, m := p.NumVars, len(p.Weight)
	col := &Coloring{Var: make([]int32, n), Pot: make([]int32, m), Con: make([]int32, len(p.CKind)),
		NumVar: rc.NumVar, NumPot: rc.NumPot, NumCon: rc.NumCon}
	assign := func(dst, sub []int32, base int, next *int) {
		for i := range dst {
			if x := base + i; single(x) {
				dst[i] = int32(*next)
				*next++
			} else {
				dst[i] = sub[id[x]]
			}
		}
	}
	assign(col.Var, rc.Var, 0, &col.NumVar)
	assign(col.Pot, rc.Pot, n, &col.NumPot)
	assign(col.Con, rc.Con, n+m, &col.NumCon)
	return col
}
