package learn

import (
	"fmt"
	"strings"

	"github.com/hinge-srl/hinge/internal/recession"
	"github.com/hinge-srl/hinge/model"
)

// atTruth is how close to the truth a hinge's kink or an interval's end
// counts as at the truth when the directions of unbounded decrease are
// looked for: a conditional whose minimiser is that close to the truth
// has its optimal weight beyond 1/atTruth or so.
const atTruth = 1e-9

// recessionCone returns the cone of directions in which the pseudo-
// likelihood without regulariser does not increase as the weights grow:
// along d, each conditional's term is f_l(y*) + log integral exp(-f_l(t))
// dt, and as the weights go to infinity along d it grows like
// s * (g_l(0) - min_t g_l(t)) with g_l = sum_r d_r phi_lr, phi_lr the
// summed potentials of rule r along conditional l. So F does not grow
// along d exactly when t = 0 (the truth) minimises every g_l over its
// interval; g_l is convex, so that is one-sided derivatives at 0: the
// right one >= 0 (when the interval goes right of 0) and the left one
// <= 0 (when it goes left), one linear row in d each. Along such a d, F
// keeps decreasing when some g_l is not constant over its interval, that
// is when sum_l g_l(lo) + g_l(hi) - 2 g_l(0) > 0: the gain, linear in d.
func (ls *lines) recessionCone(groups int) *recession.Cone {
	c := recession.New(groups, nil)
	type acc struct {
		g     int32
		right float64
		left  float64
	}
	var rs []acc
	var idx []int32
	var val []float64
	for l := range ls.numLines() {
		lo, hi := ls.lo[l], ls.hi[l]
		rs = rs[:0]
		for k := ls.incStart[l]; k < ls.incStart[l+1]; k++ {
			g := ls.grp[k]
			if g < 0 {
				continue
			}
			a, b, p := ls.a[k], ls.b[k], ls.pow[k]
			var right, left float64
			switch {
			case b > atTruth:
				right, left = a, a
				if p == 2 {
					right, left = 2*a*b, 2*a*b
				}
			case b >= -atTruth && p != 2:
				right, left = max(a, 0), min(a, 0)
			}
			phi := func(t float64) float64 {
				v := max(a*t+b, 0)
				if p == 2 {
					return v * v
				}
				return v
			}
			c.AddGain(int(g), phi(lo)+phi(hi)-2*phi(0))
			i := 0
			for i < len(rs) && rs[i].g != g {
				i++
			}
			if i == len(rs) {
				rs = append(rs, acc{g: g})
			}
			rs[i].right += right
			rs[i].left += left
		}
		if len(rs) == 0 {
			continue
		}
		if hi > atTruth {
			idx, val = idx[:0], val[:0]
			for _, r := range rs {
				idx, val = append(idx, r.g), append(val, r.right)
			}
			c.Add(idx, val)
		}
		if lo < -atTruth {
			idx, val = idx[:0], val[:0]
			for _, r := range rs {
				idx, val = append(idx, r.g), append(val, -r.left)
			}
			c.Add(idx, val)
		}
	}
	return c
}

// Unbounded describes the learned weights along which the objective keeps
// decreasing without bound, so that it has no finite optimum: the rules
// whose weights grow together, each by the factor in Direction (largest
// 1); a single rule when it does so alone.
type Unbounded struct {
	Rules     []int     `json:"rules"`
	Direction []float64 `json:"direction"`
}

// Unbounded returns the directions along which F decreases without bound
// as the weights grow (none with an L2 regulariser): one per rule that
// does so alone, then at most one combination of the other rules. checked
// is false when combinations of rules were too many to check (then an
// empty answer does not prove that F has a minimiser).
func (o *PseudoLikelihood) Unbounded() (out []Unbounded, checked bool) {
	if o.l2 > 0 {
		return nil, true
	}
	res := o.ls.recessionCone(len(o.learnable)).Solve(recession.MaxLP)
	for r, s := range res.Alone {
		if s > 0 && o.learnable[r] {
			out = append(out, Unbounded{Rules: []int{r}, Direction: []float64{1}})
		}
	}
	if res.Direction != nil {
		var u Unbounded
		for r, d := range res.Direction {
			if d > 0 && o.learnable[r] {
				u.Rules, u.Direction = append(u.Rules, r), append(u.Direction, d)
			}
		}
		if len(u.Rules) > 0 {
			out = append(out, u)
		}
	}
	return out, res.Decided
}

// unboundedWarning says that the weights of u's rules have no finite
// optimum.
func unboundedWarning(m *model.Model, u Unbounded, method Method, w []float64) string {
	var names []string
	for k, r := range u.Rules {
		rule := m.Rules[r]
		s := fmt.Sprintf("%s %s (weight %.6g", rulePos(rule), ruleText(rule), w[r])
		if len(u.Rules) > 1 {
			s += fmt.Sprintf(", direction %.3g", u.Direction[k])
		}
		names = append(names, s+")")
	}
	if method == MLE {
		return fmt.Sprintf("the likelihood keeps increasing as the weight of the rule %s grows without bound: the truth never violates it, so no finite weight is optimal, and the perceptron stopped where the MAP state also satisfied it; add --l2 to bound it, or give the rule training data that violates it", names[0])
	}
	if len(u.Rules) == 1 {
		return fmt.Sprintf("%s's objective keeps decreasing as the weight of the rule %s grows without bound: the truth is the most likely value of every conditional the rule takes part in, so no finite weight is optimal and the one written is where the optimiser stopped; add --l2 to bound it, or give the rule training data that violates it",
			method, names[0])
	}
	return fmt.Sprintf("%s's objective keeps decreasing as the weights of the rules %s grow together without bound, so no finite weights are optimal and those written are where the optimiser stopped; add --l2 to bound them", method, strings.Join(names, "; "))
}
