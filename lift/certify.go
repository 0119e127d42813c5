package lift

import (
	"math"
	"math/bits"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Certified singletons.
//
// colorRepeated refines the rest of a problem (everything but the verified
// copies), and that rest holds the representative of the copies, which on
// ground problems without symmetry of their own (the social-affiliation
// network) is most of the remaining work. Yet such a representative ends
// with every node alone in its class, and that can be proved without
// refining it: hash every node round by round with a hash that depends only
// on the node's class in a sequence of refinement steps by sums, and a node
// whose hash no other node shares is alone in its class of the coarsest
// stable coloring.
//
// The hash is sum-based. A round first gives every factor the hash
// mix(its hash) + sum over its terms of w*G(variable's hash) (mod the prime
// P = 2^61-1), w being the term's exact coefficient in units of 2^lsb
// reduced mod P; then every variable mix(its hash) + sum over its terms of
// w*G'(factor's new hash). Grouping the terms by the other end's class,
// each sum is sum over classes C of (exact sum of coefficients into C) *
// G(hash of C): so by induction the hashes are functions of the classes of
// the refinement that splits the factors by their sums into the variable
// classes, then the variables by their sums into the new factor classes,
// and so on. Every such step keeps the partition coarser than the coarsest
// stable coloring, so different hashes mean different classes there.
// Collisions can only hide a proof, never make a false one.
//
// When every node of a representative has a hash that no other node of the
// rest has, the rest's coloring is the refinement of the rest without the
// representative plus one class per node of it: components do not
// interact, and no class of the rest can contain a node of it.

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

// flatRows is a factor graph in flat arrays: factor i (of len(key)) has
// initial color key[i] and the terms start[i]..start[i+1] of v (variable
// index plus vBase) and w (coefficient bits), over nv variables.
type flatRows struct {
	nv    int
	vBase int32
	key   []fkey
	start []int32
	v     []int32
	w     []uint64
}

// flatOf returns p's factors (potentials, then constraints) as flatRows.
func flatOf(p *hlmrf.Problem) *flatRows {
	m, nf := len(p.Weight), len(p.Weight)+len(p.CKind)
	fr := &flatRows{nv: p.NumVars, key: make([]fkey, nf), start: make([]int32, 1, nf+1),
		v: make([]int32, 0, len(p.Var)+len(p.CVar)), w: make([]uint64, 0, len(p.Var)+len(p.CVar))}
	for f := range nf {
		fr.key[f] = factorKey(p, m, f)
		vars, coefs := factorTerms(p, f)
		fr.v = append(fr.v, vars...)
		for _, x := range coefs {
			fr.w = append(fr.w, bitsOf(x))
		}
		fr.start = append(fr.start, int32(len(fr.v)))
	}
	return fr
}

// sumHasher runs sum-hash rounds on flatRows.
type sumHasher struct {
	fr       *flatRows
	lsb      int
	hv, hf   []uint64 // the hashes
	acc      []uint64 // scratch: the variables' sums
	lastBits uint64   // a cache of the last coefficient's weight
	lastW    uint64
}

// newSumHasher sets the round-0 hashes: one value for every variable (they
// share the initial color), a hash of the initial color for a factor.
func newSumHasher(fr *flatRows, lsb int) *sumHasher {
	h := &sumHasher{fr: fr, lsb: lsb, hv: make([]uint64, fr.nv), hf: make([]uint64, len(fr.key)), acc: make([]uint64, fr.nv)}
	for i := range h.hv {
		h.hv[i] = 0x9e3779b97f4a7c15
	}
	for i, k := range fr.key {
		h.hf[i] = k.hash()
	}
	return h
}

// weight returns the term's weight mod 2^61-1.
func (h *sumHasher) weight(b uint64) uint64 {
	if b != h.lastBits {
		h.lastBits, h.lastW = b, weightMod61(math.Float64frombits(b), h.lsb)
	}
	return h.lastW
}

// round computes one round: every factor's new hash, then every variable's
// from the factors' new hashes.
func (h *sumHasher) round() {
	fr := h.fr
	clear(h.acc)
	for i := range fr.key {
		lo, hi := fr.start[i], fr.start[i+1]
		var a uint64
		for t := lo; t < hi; t++ {
			a = addmod61(a, mulmod61(h.weight(fr.w[t]), mix(h.hv[fr.v[t]-fr.vBase]^0x5851f42d4c957f2d)>>3))
		}
		nf := mix(h.hf[i]^0x14057b7ef767814f) + a
		h.hf[i] = nf
		gf := mix(nf^0x94d049bb133111eb) >> 3
		for t := lo; t < hi; t++ {
			j := fr.v[t] - fr.vBase
			h.acc[j] = addmod61(h.acc[j], mulmod61(h.weight(fr.w[t]), gf))
		}
	}
	for j, x := range h.hv {
		h.hv[j] = mix(x^0xbf58476d1ce4e5b9) + h.acc[j]
	}
}

// provedAlone reports whether every node of rep has, after some number of
// sum-hash rounds (at most maxHashRounds), a hash that no other node of rep
// or of rest has (of its kind): then, in the coarsest stable coloring of
// rep and rest side by side, every node of rep is alone in its class.
func provedAlone(rep, rest *flatRows, lsb int) bool {
	hr := newSumHasher(rep, lsb)
	tv, tf := newHashIndex(rep.nv), newHashIndex(len(rep.key))
	rounds, ok := roundsToDistinct(hr.round, hr.hv, hr.hf, tv, tf)
	if !ok {
		return false
	}
	hs := newSumHasher(rest, lsb)
	for range rounds {
		hs.round()
	}
	for _, x := range hs.hv {
		if _, ok := tv.find(x); ok {
			return false
		}
	}
	for _, x := range hs.hf {
		if _, ok := tf.find(x); ok {
			return false
		}
	}
	return true
}
