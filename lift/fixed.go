package lift

import (
	"math"
	"math/big"
	"math/bits"
)

// Exact sums of coefficients.
//
// Color refinement of a weighted graph compares, for two nodes of one color,
// the sums of their edge weights into every color. Floating-point addition is
// not associative (0.1+0.2-0.1 != 0.2-0.1+0.1 in float64), so summing in
// float64 would split nodes that are symmetric, and could merge nodes that
// are not (1 + 1e-17 == 1 in float64). hinge compares the exact real sums of
// the float64 coefficients instead.
//
// Every finite float64 is an integer multiple of 2^e for some e >= -1074, so
// all coefficients of one problem are integer multiples of 2^lsb, lsb being
// the smallest such exponent over the problem. A sum of at most maxTerms of
// them is an integer of bounded size, stored exactly as a fixed-width two's
// complement integer of `words` 64-bit words (little-endian). For the usual
// coefficients (small integers, 0.5, 0.1, ...) one or two words suffice; an
// extreme mix such as 1e300 and 1e-300 needs up to about 34 words and is slower
// but still exact. Equal sums are then detected by comparing words.

// fixedScale is the fixed-point format of one problem's coefficient sums.
type fixedScale struct {
	lsb   int // value of a sum = integer * 2^lsb
	words int // 64-bit words per value
}

// decompose writes a finite nonzero x as ±m*2^e with m odd.
func decompose(x float64) (m uint64, e int, neg bool) {
	b := math.Float64bits(x)
	neg = b>>63 != 0
	exp := int(b >> 52 & 0x7ff)
	m = b & (1<<52 - 1)
	if exp == 0 {
		e = -1074
	} else {
		m |= 1 << 52
		e = exp - 1075
	}
	tz := bits.TrailingZeros64(m)
	return m >> tz, e + tz, neg
}

// scaleBuilder collects the coefficients' range to choose a fixedScale.
type scaleBuilder struct {
	lsb, top int // smallest unit exponent; largest exclusive top bit exponent
	any      bool
}

func (s *scaleBuilder) add(x float64) {
	if x == 0 {
		return
	}
	m, e, _ := decompose(x)
	t := e + bits.Len64(m)
	if !s.any {
		s.lsb, s.top, s.any = e, t, true
		return
	}
	s.lsb = min(s.lsb, e)
	s.top = max(s.top, t)
}

// scale returns a format in which any sum of at most maxTerms of the added
// coefficients is exact.
func (s *scaleBuilder) scale(maxTerms int) fixedScale {
	if !s.any {
		return fixedScale{lsb: 0, words: 1}
	}
	// |coefficient| < 2^(top-lsb) units; a sum of maxTerms of them is below
	// maxTerms*2^(top-lsb) <= 2^(top-lsb+Len(maxTerms)); one more bit for the sign.
	need := s.top - s.lsb + bits.Len(uint(max(maxTerms, 1))) + 1
	return fixedScale{lsb: s.lsb, words: (need + 63) / 64}
}

// put stores x exactly in dst (len words). x must be a multiple of 2^lsb
// within range, which scale guarantees for the coefficients it saw.
func (f fixedScale) put(dst []uint64, x float64) {
	clear(dst)
	if x == 0 {
		return
	}
	m, e, neg := decompose(x)
	shift := e - f.lsb
	w, off := shift/64, uint(shift%64)
	dst[w] = m << off
	if off != 0 && w+1 < len(dst) {
		dst[w+1] = m >> (64 - off)
	}
	if neg {
		negate(dst)
	}
}

// negate replaces a by -a (two's complement).
func negate(a []uint64) {
	carry := uint64(1)
	for i := range a {
		a[i], carry = bits.Add64(^a[i], 0, carry)
	}
}

// addTo adds b to a (same length).
func addTo(a, b []uint64) {
	var carry uint64
	for i := range a {
		a[i], carry = bits.Add64(a[i], b[i], carry)
	}
}

// isZero reports whether a is zero.
func isZero(a []uint64) bool {
	for _, w := range a {
		if w != 0 {
			return false
		}
	}
	return true
}

// compare orders two's complement integers of equal length: -1, 0 or +1.
func compare(a, b []uint64) int {
	n := len(a) - 1
	if x, y := int64(a[n]), int64(b[n]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	for i := n - 1; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// float returns the float64 nearest to the exact value a*2^lsb (ties to
// even), and false if it overflows float64. A nonzero value never rounds to
// zero: it is a multiple of 2^lsb >= 2^-1074.
func (f fixedScale) float(a []uint64) (float64, bool) {
	if len(a) == 1 {
		if v := int64(a[0]); v >= -1<<53 && v <= 1<<53 {
			r := math.Ldexp(float64(v), f.lsb) // exact: representable
			return r, !math.IsInf(r, 0)
		}
	}
	neg := int64(a[len(a)-1]) < 0
	mag := append([]uint64(nil), a...)
	if neg {
		negate(mag)
	}
	ws := make([]big.Word, 0, 2*len(mag))
	for _, w := range mag {
		if bits.UintSize == 64 {
			ws = append(ws, big.Word(w))
		} else {
			ws = append(ws, big.Word(uint32(w)), big.Word(w>>32))
		}
	}
	i := new(big.Int).SetBits(ws)
	if neg {
		i.Neg(i)
	}
	x := new(big.Float).SetInt(i) // exact: precision = bit length
	x.SetMantExp(x, f.lsb)
	r, _ := x.Float64()
	return r, !math.IsInf(r, 0)
}
