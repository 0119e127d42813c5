package learn

import (
	"fmt"
	"math"
	"testing"
)

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

func TestPieceMomentsAgainstQuadrature(t *testing.T) {
	alphas := []float64{0, 1e-12, 1e-3, 0.5, 1.9, 3, 10, 100, 1e3, 1e4, 1e6}
	as := []float64{0, 1e-12, 1e-6, 1e-3, 0.5, 1, 2.5, 10, 1e3, 1e6}
	Ls := []float64{1, 0.5, 1e-3, 1e-7}
	worst := 0.0
	for _, alpha := range alphas {
		for _, a := range as {
			for _, L := range Ls {
				name := fmt.Sprintf("alpha=%g/a=%g/L=%g", alpha, a, L)
				logI0, m1, m2 := pieceMoments(alpha, a, L)
				// Integrate exp(-r) relative to its value at 0, which is 1.
				f0 := func(s float64) float64 { return math.Exp(-(alpha*s + a*s*s)) }
				i0 := integrateRel(f0, 0, L, 1e-13)
				i1 := integrateRel(func(s float64) float64 { return s * f0(s) }, 0, L, 1e-13)
				i2 := integrateRel(func(s float64) float64 { return s * s * f0(s) }, 0, L, 1e-13)
				worst = max(worst, relErr(math.Exp(logI0), i0), relErr(m1, i1/i0), relErr(m2, i2/i0))
				if e := relErr(math.Exp(logI0), i0); e > 1e-11 {
					t.Errorf("%s: I0 = %.17g, quadrature %.17g (rel %.2g)", name, math.Exp(logI0), i0, e)
				}
				if e := relErr(m1, i1/i0); e > 1e-10 {
					t.Errorf("%s: E[s] = %.17g, quadrature %.17g (rel %.2g)", name, m1, i1/i0, e)
				}
				if e := relErr(m2, i2/i0); e > 1e-10 {
					t.Errorf("%s: E[s^2] = %.17g, quadrature %.17g (rel %.2g)", name, m2, i2/i0, e)
				}
			}
		}
	}
	t.Logf("largest relative error %.2g", worst)
}

func TestErfcx(t *testing.T) {
	// Reference: erfc(x)*exp(x^2) in the range where both are representable,
	// and the continued fraction beyond.
	for _, x := range []float64{0, 0.1, 1, 2, 5, 10, 20, 25.9, 26, 30, 100, 1e4, 1e8} {
		got := erfcx(x)
		var want float64
		if x < 20 {
			want = math.Erfc(x) * math.Exp(x*x)
		} else {
			// sqrt(pi) erfcx(x) = 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
			cf := x
			for k := 200; k >= 1; k-- {
				cf = x + float64(k)/2/cf
			}
			want = 1 / cf / math.Sqrt(math.Pi)
		}
		if e := relErr(got, want); e > 1e-13 {
			t.Errorf("erfcx(%g) = %.17g, want %.17g (rel %.2g)", x, got, want, e)
		}
	}
}
