package learn

import (
	"math"
	"slices"
)

// Independent numerical oracles for the closed forms: adaptive Gauss-Kronrod
// (7/15 points) quadrature, written here and used only by tests.

var (
	gkX = []float64{0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
		0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
		0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
		0.207784955007898467600689403773245, 0}
	gkWK = []float64{0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
		0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
		0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
		0.204432940075298892414161999234649, 0.209482141084727828012999174891714}
	gkWG = []float64{0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
		0.381830050505118944950369775488975, 0.417959183673469387755102040816327}
)

// gk15 integrates f over [a,b] with the 15-point Kronrod rule and returns the
// estimate and the difference from the embedded 7-point Gauss rule.
func gk15(f func(float64) float64, a, b float64) (float64, float64) {
	c, h := (a+b)/2, (b-a)/2
	fc := f(c)
	k := fc * gkWK[7]
	g := fc * gkWG[3]
	for i := 0; i < 7; i++ {
		f1, f2 := f(c-h*gkX[i]), f(c+h*gkX[i])
		k += gkWK[i] * (f1 + f2)
		if i%2 == 1 {
			g += gkWG[i/2] * (f1 + f2)
		}
	}
	return k * h, math.Abs((k - g) * h)
}

// quadNoise is the relative rounding noise of the integrands under test:
// below it the error estimate of a subinterval cannot fall, so bisection
// stops there. Tests with large weights raise it (an energy of size E
// computed in floating point carries noise of about 1e-16*E in the exponent).
var quadNoise = 1e-13

// adaptiveIntegral integrates f over [a,b] to absolute tolerance tol by
// recursive bisection.
func adaptiveIntegral(f func(float64) float64, a, b, tol float64, depth int) float64 {
	v, err := gk15(f, a, b)
	if err <= tol || err <= quadNoise*math.Abs(v) || depth > 40 || b-a < 1e-300 {
		return v
	}
	m := (a + b) / 2
	return adaptiveIntegral(f, a, m, tol/2, depth+1) + adaptiveIntegral(f, m, b, tol/2, depth+1)
}

// integrateRel integrates a nonnegative f over [a,b] to about rel relative
// precision. The interval is first cut geometrically towards both ends (so a
// sharp peak at an end is resolved), then each part is integrated adaptively
// to rel times a first estimate of the total.
func integrateRel(f func(float64) float64, a, b, rel float64) float64 {
	if b <= a {
		return 0
	}
	m := (a + b) / 2
	cuts := []float64{a}
	for k := 40; k >= 1; k-- {
		cuts = append(cuts, a+(m-a)*math.Ldexp(1, -k))
	}
	cuts = append(cuts, m)
	for k := 1; k <= 40; k++ {
		cuts = append(cuts, b-(b-m)*math.Ldexp(1, -k))
	}
	cuts = append(cuts, b)
	est := 0.0
	for i := 1; i < len(cuts); i++ {
		if cuts[i] > cuts[i-1] {
			v, _ := gk15(f, cuts[i-1], cuts[i])
			est += v
		}
	}
	total := 0.0
	for i := 1; i < len(cuts); i++ {
		if cuts[i] > cuts[i-1] {
			total += adaptiveIntegral(f, cuts[i-1], cuts[i], math.Abs(est)*rel/float64(len(cuts)), 0)
		}
	}
	return total
}

// integrateSplit integrates f over [a,b] split at the given points (those
// inside the interval), each part with integrateRel.
func integrateSplit(f func(float64) float64, a, b, rel float64, at ...float64) float64 {
	pts := []float64{a}
	for _, x := range at {
		if x > a && x < b {
			pts = append(pts, x)
		}
	}
	pts = append(pts, b)
	slices.Sort(pts)
	total := 0.0
	for i := 1; i < len(pts); i++ {
		total += integrateRel(f, pts[i-1], pts[i], rel)
	}
	return total
}

// ternaryMin returns the minimiser of a convex f on [a,b] after iters steps
// of ternary search.
func ternaryMin(f func(float64) float64, a, b float64, iters int) float64 {
	for range iters {
		m1, m2 := a+(b-a)/3, b-(b-a)/3
		if f(m1) <= f(m2) {
			b = m2
		} else {
			a = m1
		}
	}
	return (a + b) / 2
}
