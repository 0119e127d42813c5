package lift

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// randFloat draws a finite float64 from a family chosen to stress the fixed
// point format: small integers, decimal fractions, wide exponent ranges,
// subnormals and the extremes.
func randFloat(rng *rand.Rand, family int) float64 {
	sign := 1.0
	if rng.IntN(2) == 0 {
		sign = -1
	}
	switch family {
	case 0:
		return sign * float64(1+rng.IntN(5))
	case 1:
		return sign * []float64{0.1, 0.2, 0.3, 0.7, 1.1, 1e-3}[rng.IntN(6)]
	case 2:
		return sign * rng.Float64() * math.Pow(10, float64(rng.IntN(40)-20))
	case 3:
		return sign * math.Float64frombits(uint64(1+rng.IntN(1<<20))) // subnormal
	default:
		return sign * []float64{math.MaxFloat64, math.SmallestNonzeroFloat64, 1e300, 1e-300, 1}[rng.IntN(5)]
	}
}

// TestFixedExact checks the fixed-point sums against big.Rat: equality and
// order of sums, and rounding back to float64.
func TestFixedExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 3000 {
		family := trial % 5
		k := 1 + rng.IntN(6)
		xs := make([]float64, 2*k)
		for i := range xs {
			xs[i] = randFloat(rng, family)
			if rng.IntN(4) == 0 && i > 0 {
				xs[i] = -xs[i-1] // exact cancellation
			}
		}
		// Two sums over a shared pool so that they are often equal.
		a, b := xs[:k], append([]float64(nil), xs[:k]...)
		rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		if rng.IntN(2) == 0 {
			b = xs[k:]
		}
		var sb scaleBuilder
		for _, x := range xs {
			sb.add(x)
		}
		f := sb.scale(k)
		sum := func(vals []float64) ([]uint64, *big.Rat) {
			acc := make([]uint64, f.words)
			tmp := make([]uint64, f.words)
			r := new(big.Rat)
			for _, x := range vals {
				f.put(tmp, x)
				addTo(acc, tmp)
				r.Add(r, new(big.Rat).SetFloat64(x))
			}
			return acc, r
		}
		fa, ra := sum(a)
		fb, rb := sum(b)
		if got, want := compare(fa, fb), ra.Cmp(rb); got != want {
			t.Fatalf("trial %d: compare(%v, %v) = %d, exact %d", trial, a, b, got, want)
		}
		if got, want := isZero(fa), ra.Sign() == 0; got != want {
			t.Fatalf("trial %d: isZero(sum %v) = %v, exact %v", trial, a, got, want)
		}
		got, ok := f.float(fa)
		want, _ := ra.Float64()
		if !ok {
			if !math.IsInf(want, 0) {
				t.Fatalf("trial %d: float(sum %v) overflowed, exact rounds to %v", trial, a, want)
			}
			continue
		}
		if got != want {
			t.Fatalf("trial %d: float(sum %v) = %v, exact sum rounds to %v", trial, a, got, want)
		}
	}
}

// TestFixedWords checks the width chosen for typical coefficient sets.
func TestFixedWords(t *testing.T) {
	for _, tc := range []struct {
		coefs    []float64
		terms    int
		maxWords int
	}{
		{[]float64{1, -1, 2}, 1000, 1},
		{[]float64{0.1, 0.2, -0.3, 1}, 1 << 20, 2},
		{[]float64{math.MaxFloat64, math.SmallestNonzeroFloat64}, 10, 34},
	} {
		var sb scaleBuilder
		for _, x := range tc.coefs {
			sb.add(x)
		}
		if w := sb.scale(tc.terms).words; w > tc.maxWords {
			t.Errorf("%v: %d words, want at most %d", tc.coefs, w, tc.maxWords)
		}
	}
}
