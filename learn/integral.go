package learn

import "math"

// This file integrates exp(-r(s)) and its first two moments over one piece
// of a conditional's domain in closed form, where on the piece
//
//	r(s) = alpha*s + a*s^2,   s in [0, L],  alpha >= 0, a >= 0
//
// (the caller splits pieces at the vertex of the quadratic and measures s from
// the piece's lower-energy end, so the integrand is largest at s = 0 and
// decreases). The results are returned as log I0 and the normalised moments
// E[s] = I1/I0 and E[s^2] = I2/I0 with I_k = integral of s^k exp(-r(s)), so
// nothing overflows however large the weights are.
//
// Three regimes, each free of catastrophic cancellation:
//
//   - r varies by at most flatDelta over the piece (r(L) <= flatDelta): the
//     integrand lies within a factor exp(flatDelta) of its largest value and
//     is an entire function of low degree in its exponent, where 16-point
//     Gauss-Legendre quadrature is exact to rounding. Every closed form below
//     subtracts two nearly equal numbers in this regime, so it is the one
//     place quadrature is used.
//   - a = 0 (a linear piece): exponential integrals with expm1.
//   - a > 0: with t = sqrt(a)*(s + alpha/(2a)) the piece is a Gaussian tail
//     [x1, x2] with x1 = alpha/(2 sqrt(a)) >= 0; the integrals are differences
//     of scaled tail moments T_k(x) = integral_0^inf u^k exp(-2xu - u^2) du,
//     T_0 = sqrt(pi)/2 erfcx(x), and T_1, T_2 from the continued fraction of
//     their ratios (no cancellation for large x) or their recurrence (small x).

const (
	// flatDelta is the largest variation of r over a piece integrated by
	// Gauss-Legendre quadrature.
	flatDelta = 2.0
	// tailSmall is where the tail moments switch from the recurrence to the
	// continued fraction.
	tailSmall = 2.0
)

// Gauss-Legendre nodes and weights on [0,1], 16 points.
var glX, glW = gaussLegendre01(16)

// gaussLegendre01 returns the n-point Gauss-Legendre rule on [0,1], computed
// by Newton's method on the Legendre polynomial.
func gaussLegendre01(n int) (x, w []float64) {
	x = make([]float64, n)
	w = make([]float64, n)
	// legendre returns P_n(z) and its derivative.
	legendre := func(z float64) (p, dp float64) {
		p0, p1 := 1.0, z
		for k := 2; k <= n; k++ {
			p0, p1 = p1, ((2*float64(k)-1)*z*p1-(float64(k)-1)*p0)/float64(k)
		}
		return p1, float64(n) * (z*p1 - p0) / (z*z - 1)
	}
	for i := 0; i < (n+1)/2; i++ {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		for iter := 0; iter < 100; iter++ {
			p, dp := legendre(z)
			dz := p / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		// The derivative at the converged node.
		_, dp := legendre(z)
		wt := 2 / ((1 - z*z) * dp * dp)
		x[i], x[n-1-i] = (1-z)/2, (1+z)/2
		w[i], w[n-1-i] = wt/2, wt/2
	}
	return x, w
}

// pieceMoments returns log I0, E[s] and E[s^2] for r(s) = alpha*s + a*s^2 on
// [0, L] (see the file comment). It needs alpha >= 0, a >= 0, L > 0, all finite.
func pieceMoments(alpha, a, L float64) (logI0, m1, m2 float64) {
	quadPart := a * L * L
	delta := alpha*L + quadPart
	switch {
	case delta <= flatDelta:
		var i0, i1, i2 float64
		for k, xk := range glX {
			s := L * xk
			e := glW[k] * math.Exp(-(alpha*s + a*s*s))
			i0 += e
			i1 += e * s
			i2 += e * s * s
		}
		return math.Log(i0 * L), i1 / i0, i2 / i0
	case quadPart <= 1e-17:
		// Linear: x = alpha*L > 2 - 1e-17. The quadratic term changes the
		// integrand by a factor within 1e-17 of 1.
		x := alpha * L
		e := math.Exp(-x)
		den := -math.Expm1(-x)
		logI0 = math.Log(den) - math.Log(alpha)
		m1 = (1 - e*(1+x)) / den / alpha
		m2 = 2 * (1 - e*(1+x+x*x/2)) / den / (alpha * alpha)
		return logI0, m1, m2
	}
	sa := math.Sqrt(a)
	x1 := alpha / (2 * sa)
	d := sa * L
	x2 := x1 + d
	a0, a1, a2 := tailMoments(x1)
	b0, b1, b2 := tailMoments(x2)
	e := math.Exp(-delta)
	j0 := a0 - e*b0
	j1 := a1 - e*(d*b0+b1)
	j2 := a2 - e*(d*d*b0+2*d*b1+b2)
	return math.Log(j0) - math.Log(sa), j1 / j0 / sa, j2 / j0 / a
}

// tailMoments returns T_k(x) = integral_0^inf u^k exp(-2xu - u^2) du for
// k = 0, 1, 2 and x >= 0.
func tailMoments(x float64) (t0, t1, t2 float64) {
	t0 = math.Sqrt(math.Pi) / 2 * erfcx(x)
	if x <= tailSmall {
		// 2x T0 + 2 T1 = 1 and 2x T1 + 2 T2 = T0 (integration by parts);
		// for x <= 2 the subtractions lose at most a factor 10 and 6.
		t1 = (1 - 2*x*t0) / 2
		t2 = (t0 - 2*x*t1) / 2
		return t0, t1, t2
	}
	// rho_n = T_n/T_{n-1} = n / (2x + 2 rho_{n+1}), evaluated from depth N
	// down, starting from the root of rho^2 + x rho - n/2 = 0 (the fixed
	// point for large n). Depth 10+120/x gives full precision for x >= 2.
	n := 10 + int(120/x)
	r := (-x + math.Sqrt(x*x+2*float64(n+1))) / 2
	var r1, r2 float64
	for k := n; k >= 1; k-- {
		r = float64(k) / (2*x + 2*r)
		switch k {
		case 2:
			r2 = r
		case 1:
			r1 = r
		}
	}
	t1 = t0 * r1
	t2 = t1 * r2
	return t0, t1, t2
}

// erfcx returns the scaled complementary error function exp(x^2)*erfc(x) for
// x >= 0.
func erfcx(x float64) float64 {
	if x < 26 {
		// exp(x^2) with x^2 split exactly into hi + lo.
		hi := x * x
		lo := math.FMA(x, x, -hi)
		return math.Erfc(x) * math.Exp(hi) * (1 + lo)
	}
	// Asymptotic series 1/(x sqrt(pi)) * sum (-1)^k (2k-1)!! / (2x^2)^k: for
	// x >= 26 the terms fall below 1e-17 long before they grow.
	z := 1 / (2 * x * x)
	sum, term := 1.0, 1.0
	for k := 1; k < 30; k++ {
		term *= -float64(2*k-1) * z
		sum += term
		if math.Abs(term) < 1e-17 {
			break
		}
	}
	return sum / (x * math.Sqrt(math.Pi))
}
