package admm

import (
	"cmp"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Lagrangian lower bound (duality gap).
//
// For duals alpha (one per local copy, as Duals returns them) the Lagrangian
// dual function of consensus ADMM's splitting, with the local copies kept in
// the box [0,1] (which changes no optimum, since z is in the box and x = z at
// a solution), is
//
//	g(alpha) = sum_i min_{x in [0,1]^{n_i}} (f_i(x) + alpha_i.x)
//	         + sum_j min_{y_j in [0,1]} (-y_j * A_j)          A_j = sum of var j's alphas
//
// and g(alpha) <= f(y) for every y in [0,1]^n that satisfies the hard
// constraints (weak duality), whatever alpha is. Each term's minimum is a
// one-dimensional concave maximisation (minimax over a compact box):
//
//	min_x f_i(x) + alpha.x = max_{lambda in L} -q*lambda^2 - c*lambda + sum_k min(0, alpha_k + lambda*a_k)
//
// where w*max(t,0) = max_{lambda in [0,w]} lambda*t (linear hinge: L = [0,w],
// q = 0), w*max(t,0)^2 = max_{lambda >= 0} lambda*t - lambda^2/(4w) (squared:
// L = [0,inf), q = 1/(4w)), the indicator of a.x <= c is
// max_{lambda >= 0} lambda*(a.x-c) and that of a.x = c the same over all
// lambda. The function is concave and piecewise quadratic with breakpoints
// at lambda = -alpha_k/a_k; termBound walks them in order, so a term costs
// O(k log k) for k variables. The bound is exact for the given alpha, and
// as the duals converge it converges to the optimum (strong duality holds:
// the problem is convex with linear constraints).

// LowerBound returns the Lagrangian lower bound g(alpha) on the optimum of
// p for the duals potential and constraint (in the layout Duals returns:
// one per entry of p.Var and of p.CVar). Every point of [0,1]^n that
// satisfies p's hard constraints has an objective at least this large;
// +Inf means the duals prove the hard constraints infeasible within the box.
// The duals need not come from a solver: any values give a valid bound.
func LowerBound(p *hlmrf.Problem, potential, constraint []float64) float64 {
	var sc boundScratch
	sum := make([]float64, p.NumVars)
	bound := 0.0
	for i := range p.Weight {
		vs, cs := p.Terms(i)
		al := potential[p.Start[i]:p.Start[i+1]]
		for k, v := range vs {
			sum[v] += al[k]
		}
		bound += sc.termBound(cs, al, p.Const[i], potentialRange(p.Weight[i], p.Power[i]))
	}
	for j := range p.CKind {
		vs, cs := p.CTerms(j)
		al := constraint[p.CStart[j]:p.CStart[j+1]]
		for k, v := range vs {
			sum[v] += al[k]
		}
		bound += sc.termBound(cs, al, p.CConst[j], constraintRange(p.CKind[j] == hlmrf.Equal))
	}
	for _, a := range sum {
		bound += min(0, -a)
	}
	return bound
}

// lambdaRange is the range L of a term's multiplier and its quadratic
// coefficient q (see above).
type lambdaRange struct{ lo, hi, q float64 }

// potentialRange is L and q for a potential of weight w and power d.
func potentialRange(w float64, power uint8) lambdaRange {
	lo, hi, q := DualRange(w, power)
	return lambdaRange{lo, hi, q}
}

// DualRange is the range [lo, hi] of the multiplier lambda of a potential
// of weight w >= 0 and power 1 or 2 in w*max(t,0)^p = max over lambda of
// lambda*t - q*lambda^2: [0, w] and q = 0 for a linear hinge, [0, inf) and
// q = 1/(4w) for a squared one, [0, 0] for weight 0.
func DualRange(w float64, power uint8) (lo, hi, q float64) {
	switch {
	case w == 0:
		return 0, 0, 0
	case power == 2:
		return 0, math.Inf(1), 1 / (4 * w)
	default:
		return 0, w, 0
	}
}

// constraintRange is L for a hard constraint: an equality or a <=.
func constraintRange(equal bool) lambdaRange {
	if equal {
		return lambdaRange{math.Inf(-1), math.Inf(1), 0}
	}
	return lambdaRange{0, math.Inf(1), 0}
}

// boundScratch is reusable memory for termBound and its callers.
type boundScratch struct {
	pts []breakpoint
	al  []float64
}

// alpha returns scratch room for k duals.
func (sc *boundScratch) alpha(k int) []float64 {
	if cap(sc.al) < k {
		sc.al = make([]float64, k)
	}
	return sc.al[:k]
}

type breakpoint struct{ at, a, alpha float64 }

// termBound returns max over lambda in [r.lo, r.hi] of
// -r.q*lambda^2 - c*lambda + sum_k min(0, alpha_k + lambda*a_k), or +Inf if
// it is unbounded.
func (sc *boundScratch) termBound(a, alpha []float64, c float64, r lambdaRange) float64 {
	// Left of every breakpoint, term k is active (alpha_k + lambda*a_k < 0)
	// iff a_k > 0; terms with a_k = 0 contribute the constant min(0, alpha_k).
	pts := sc.pts[:0]
	var slope, base float64 // sum of a_k and of alpha_k over the active terms
	konst := 0.0
	for k, ak := range a {
		switch {
		case ak == 0:
			konst += min(0, alpha[k])
			continue
		case ak > 0:
			slope += ak
			base += alpha[k]
		}
		pts = append(pts, breakpoint{-alpha[k] / ak, ak, alpha[k]})
	}
	if len(pts) <= 16 {
		// Insertion sort: terms are short, and this runs at every check.
		for i := 1; i < len(pts); i++ {
			for j := i; j > 0 && pts[j].at < pts[j-1].at; j-- {
				pts[j], pts[j-1] = pts[j-1], pts[j]
			}
		}
	} else {
		slices.SortFunc(pts, func(x, y breakpoint) int { return cmp.Compare(x.at, y.at) })
	}
	sc.pts = pts
	// Segment s runs from the previous breakpoint (or -Inf) to pts[s].at
	// (or +Inf); on it the function is -q*l^2 + (slope-c)*l + base + konst.
	// Segments are visited left to right; since the function is concave, the
	// first segment whose maximum lies before its right end holds the global
	// maximum.
	best := math.Inf(-1)
	left := math.Inf(-1)
	inv2q := 0.0
	if r.q > 0 {
		inv2q = 1 / (2 * r.q)
	}
	for s := 0; s <= len(pts); s++ {
		right := math.Inf(1)
		if s < len(pts) {
			right = pts[s].at
		}
		if lo, hi := max(left, r.lo), min(right, r.hi); lo <= hi {
			m, b := slope-c, base+konst
			var l float64
			switch {
			case r.q > 0:
				l = min(max(m*inv2q, lo), hi)
			case m > 0:
				l = hi
			case m < 0:
				l = lo
			default:
				best = max(best, b) // flat: b everywhere on the segment
				l = lo
			}
			if m != 0 || r.q > 0 {
				if math.IsInf(l, 0) {
					return math.Inf(1) // increasing without bound
				}
				best = max(best, -r.q*l*l+m*l+b)
			}
			if l < hi || hi == r.hi {
				return best
			}
		}
		if s < len(pts) {
			// Crossing the breakpoint: a_k > 0 leaves the active set, a_k < 0 enters.
			if b := pts[s]; b.a > 0 {
				slope -= b.a
				base -= b.alpha
			} else {
				slope += b.a
				base += b.alpha
			}
			left = right
		}
	}
	return best
}
