package rrf

import (
	"fmt"
	"math"
)

// maxMagnitude bounds every feature value and every sum s_i the network
// may reach: float64's largest value with a margin of 1e8, so that the
// sums and differences inference forms from them (Gibbs gains, a parent's
// sum after an incremental update) stay finite too.
const maxMagnitude = 1e300

// rangeExcess describes a feature whose value (or, for the root, whose sum)
// may exceed maxMagnitude.
type rangeExcess struct {
	feature int     // the feature, 0 for the root
	logHi   float64 // for a feature, the log of its value's bound: s_hi - M_i
	sumHi   float64 // the bound of |s_i|
	height  int     // the longest chain of features below it, itself included
}

// checkRange bounds every feature's value over all the assignments the
// evidence allows (interval arithmetic from the leaves up: a free variable
// in [0, 1], a fixed one or a constant at its value, a feature child
// within its own bounds) and returns the first feature, in children-first
// order, whose value or sum may pass maxMagnitude, or nil. Net.Validate
// bounds a feature by its immediate children only; under NormSmooth a value
// may exceed 1, and a chain of features compounds the excess: a chain of
// a few hundred features with unit weights reaches a tower of exponentials
// that no float64 holds, which inference would turn into a score of +Inf
// and marginals computed from it. The bound of a value is reached when its
// children's bounds are reached together, as they are in such a chain.
func (n *Net) checkRange(ev *Evidence) *rangeExcess {
	nf := len(n.Features)
	lo, hi := make([]float64, nf), make([]float64, nf)
	height := make([]int, nf)
	normW := make([]float64, len(n.Weights)) // m(w) per weight
	for k, w := range n.Weights {
		normW[k] = n.Norm.norm(w)
	}
	for i := nf - 1; i >= 0; i-- {
		m, sLo, sHi := 0.0, 0.0, 0.0
		for k := range n.Features[i] {
			c := &n.Features[i][k]
			w := n.Weights[c.Weight]
			m += c.mult() * normW[c.Weight]
			vlo, vhi := 0.0, 1.0
			switch {
			case c.Var >= 0:
				if ev.fixed(int(c.Var)) {
					vlo = 0
					if ev.X[c.Var] != c.Neg {
						vlo = 1
					}
					vhi = vlo
				}
			case c.Feature >= 0:
				vlo, vhi = lo[c.Feature], hi[c.Feature]
				height[i] = max(height[i], height[c.Feature])
			case c.Neg:
				vhi = 0
			default:
				vlo = 1
			}
			a := w * c.mult()
			if a >= 0 {
				sLo, sHi = sLo+a*vlo, sHi+a*vhi
			} else {
				sLo, sHi = sLo+a*vhi, sHi+a*vlo
			}
		}
		height[i]++
		abs := max(math.Abs(sLo), math.Abs(sHi))
		if !(abs <= maxMagnitude) {
			return &rangeExcess{feature: i, logHi: sHi - m, sumHi: abs, height: height[i]}
		}
		if i == 0 {
			break
		}
		lo[i], hi[i] = math.Exp(sLo-m), math.Exp(sHi-m)
		if !(hi[i] <= maxMagnitude) {
			return &rangeExcess{feature: i, logHi: sHi - m, sumHi: abs, height: height[i]}
		}
	}
	return nil
}

// describe says what passes the range, for the feature named name.
func (e *rangeExcess) describe(name string, norm Norm) string {
	if e.feature == 0 {
		return fmt.Sprintf("%s's score can reach %.3g, beyond the range of a float64 (the weights times the numbers of groundings under it are too large)", name, e.sumHi)
	}
	why := ""
	if norm == NormSmooth && e.height > 2 {
		why = fmt.Sprintf(": under the smooth normalisation a feature's value may exceed 1, and the excess compounds along the chain of %d features from its leaves up (use the max normalisation, where every value is at most 1)", e.height)
	}
	return fmt.Sprintf("%s's value can reach exp(%.4g), beyond the range of a float64%s", name, e.logHi, why)
}

// RangeError is the refusal of a network whose feature values could
// overflow a float64 under its weights (a property of the model and its
// evidence, found before any inference).
type RangeError struct{ msg string }

func (e *RangeError) Error() string { return e.msg }

// rangeError is checkRange's refusal for a propositional network.
func (n *Net) rangeError(ev *Evidence) error {
	e := n.checkRange(ev)
	if e == nil {
		return nil
	}
	name := fmt.Sprintf("feature %d", e.feature)
	if e.feature == 0 {
		name = "the root feature"
	}
	return &RangeError{"rrf: " + e.describe(name, n.Norm)}
}

// finiteScore is the check that inference never reports a score that is
// not a number: checkRange makes it unreachable, and it stays so that an
// overflow it missed is an error rather than an answer.
func finiteScore(s float64) error {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("rrf: the log score is %v: a feature's value overflowed, and no answer is computed from it", s)
	}
	return nil
}
