package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// A line is one factor of the (composite) pseudo-likelihood: the conditional
// density of the ground problem along a direction d through the truth y*,
//
//	p(t) ∝ exp(-f(y* + t d)),   t in [lo, hi],
//
// where f is the weighted sum of the potentials that change along d and
// [lo, hi] is where y* + t d satisfies the box [0,1]^n and the hard
// constraints. Along d every potential is a hinge of t,
// w*max(a*t + b, 0)^p, with a = (potential's coefficients).d and b its
// argument at the truth, so f is piecewise linear or quadratic in t with
// breakpoints -b/a. d is a unit vector e_i (the usual pseudo-likelihood) or,
// for a variable in an equality constraint, e_i - (c_i/c_j) e_j, which keeps
// c_i y_i + c_j y_j fixed.
//
// Everything that depends only on the truth (the incidences' a and b, their
// breakpoints in sorted order, the interval) is computed once, in newLines;
// an evaluation only reads the weights.
type lines struct {
	lo, hi   []float64 // per line
	incStart []int32   // per line: incidences incStart[l]..incStart[l+1]
	bndStart []int32   // per line: interior breakpoints bnd[bndStart[l]..bndStart[l+1]]
	bnd      []float64

	// Per incidence, sorted by breakpoint within a line.
	a, b, bp []float64
	phi0     []float64 // max(b, 0)^p: the potential's value at the truth
	pow      []uint8
	grp      []int32   // learnable group, or -1 for a fixed weight
	fixedW   []float64 // the weight when grp is -1
	// piece is, for a > 0, the first piece (0..K) on which the hinge is
	// active (K: never) and, for a < 0, the last one (-1: never), where
	// piece k of a line with K pieces lies between boundary k and k+1 of
	// lo, bnd..., hi.
	piece []int32

	maxPieces int
}

// ConstraintMode says how hard constraints enter the pseudo-likelihood.
type ConstraintMode int

const (
	// ConstraintsPairwise (the default) restricts each conditional to the
	// interval the inequality constraints allow with the other variables at
	// their true values, and replaces the conditionals of variables in
	// equality constraints by conditionals along pairwise moves that keep the
	// equality (see the package documentation).
	ConstraintsPairwise ConstraintMode = iota
	// ConstraintsIgnore drops hard constraints: every variable's conditional
	// is over [0,1], as PSL's pseudo-likelihood learner does.
	ConstraintsIgnore
)

// String returns "pairwise" or "ignore".
func (c ConstraintMode) String() string {
	if c == ConstraintsIgnore {
		return "ignore"
	}
	return "pairwise"
}

// maxAllPairs is the largest equality constraint whose variables are paired
// all with all; in larger ones each variable is paired with the next along a
// random cycle drawn from the seed.
const maxAllPairs = 32

// LineStats counts the conditionals of a pseudo-likelihood.
type LineStats struct {
	// Lines is the number of one-dimensional conditionals in the objective.
	Lines int `json:"lines"`
	// Single and Pairwise split Lines into conditionals of one variable and
	// along pairwise moves in an equality constraint.
	Single   int `json:"single"`
	Pairwise int `json:"pairwise"`
	// Fixed counts conditionals dropped because the constraints fix the
	// variable (or the pair move) given the rest at truth: they carry no
	// information about the weights.
	Fixed int `json:"fixed"`
	// FixedBroken counts those of Fixed whose atoms are in a hard
	// constraint that the truth itself breaks (Label(c, x) + Label(c, y)
	// = 1 with both at 0 leaves the pair no room).
	FixedBroken int `json:"fixed_broken"`
	// Empty counts conditionals dropped because no potential changes along
	// them (their factor does not depend on the weights).
	Empty int `json:"empty"`
	// TruthViolations counts (conditional, constraint) pairs where the truth
	// itself violates a hard constraint by more than 1e-9; the conditional's
	// interval is then widened to include the truth.
	TruthViolations int `json:"truth_violations"`
	// Incidences is the total number of (conditional, potential) pairs: the
	// work of one evaluation is linear in it.
	Incidences int `json:"incidences"`
	// Terms is the number of factors the objective averages over: Lines,
	// or for PPLL one per (conditional, rule with potentials along it).
	Terms int `json:"terms"`
}

// builder accumulates lines.
type builder struct {
	p         *hlmrf.Problem
	truth     []float64
	arg       []float64 // potential arguments sum coef*y* - c at the truth
	carg      []float64 // constraint sides sum coef*y* - c at the truth
	vpStart   []int32   // variable -> potentials (transpose of the CSR)
	vpPot     []int32
	vpCoef    []float64
	vcStart   []int32 // variable -> constraints
	vcCon     []int32
	vcCoef    []float64
	mark      []int32 // potential -> stamp of the line that saw it
	stamp     int32
	learn     []bool // group -> learnable
	piecewise bool
	out       *lines
	stats     LineStats
	tmp       []incidence
	seen      []int32
}

type incidence struct {
	a, b, bp float64
	pot      int32
	pow      uint8
}

// newLines builds the conditionals of the pseudo-likelihood of p at truth.
// learnable[g] tells whether potentials of group g have a learned weight;
// the others keep p.Weight. With piecewise set, each conditional is split by
// group into one conditional per learnable group (PPLL, Embar et al., eq. (7)).
func newLines(p *hlmrf.Problem, truth []float64, learnable []bool, mode ConstraintMode, piecewise bool, seed uint64) (*lines, LineStats, error) {
	if len(truth) != p.NumVars {
		return nil, LineStats{}, fmt.Errorf("truth has %d values for %d variables", len(truth), p.NumVars)
	}
	for i, v := range truth {
		if !(v >= 0 && v <= 1) {
			return nil, LineStats{}, fmt.Errorf("truth value %v of variable %d is not in [0,1]", v, i)
		}
	}
	bl := &builder{p: p, truth: truth, learn: learnable, piecewise: piecewise,
		out: &lines{incStart: []int32{0}, bndStart: []int32{0}}}
	bl.prepare()

	inEquality := make([]bool, p.NumVars)
	if mode == ConstraintsPairwise {
		for c := range p.CKind {
			if p.CKind[c] != hlmrf.Equal {
				continue
			}
			vars, _ := p.CTerms(c)
			for _, v := range vars {
				inEquality[v] = true
			}
		}
	}
	for v := 0; v < p.NumVars; v++ {
		if inEquality[v] {
			continue
		}
		bl.addLine(int32(v), -1, 0, mode == ConstraintsPairwise, false)
	}
	if mode == ConstraintsPairwise {
		for c := range p.CKind {
			if p.CKind[c] != hlmrf.Equal {
				continue
			}
			vars, coefs := p.CTerms(c)
			k := len(vars)
			if k == 1 {
				bl.fixed(vars[0], -1)
				continue
			}
			if k <= maxAllPairs {
				for x := 0; x < k; x++ {
					for y := x + 1; y < k; y++ {
						bl.addLine(vars[x], vars[y], -coefs[x]/coefs[y], true, true)
					}
				}
			} else {
				// A random cycle through the variables (seeded per
				// constraint), each variable paired with the next.
				perm := rand.New(rand.NewPCG(seed, uint64(c))).Perm(k)
				for q := 0; q < k; q++ {
					x, y := perm[q], perm[(q+1)%k]
					bl.addLine(vars[x], vars[y], -coefs[x]/coefs[y], true, true)
				}
			}
		}
	}
	bl.stats.Incidences = len(bl.out.a)
	bl.stats.Terms = bl.out.numLines()
	return bl.out, bl.stats, nil
}

// prepare computes the arguments at the truth and the variable -> term
// transposes.
func (bl *builder) prepare() {
	p := bl.p
	bl.arg = make([]float64, p.NumPotentials())
	for i := range bl.arg {
		bl.arg[i] = p.Arg(i, bl.truth)
	}
	bl.carg = make([]float64, p.NumConstraints())
	for j := range bl.carg {
		bl.carg[j] = p.CArg(j, bl.truth)
	}
	bl.vpStart, bl.vpPot, bl.vpCoef = transpose(p.NumVars, p.Start, p.Var, p.Coef)
	bl.vcStart, bl.vcCon, bl.vcCoef = transpose(p.NumVars, p.CStart, p.CVar, p.CCoef)
	bl.mark = make([]int32, len(p.Weight))
}

// transpose turns row -> (variable, coefficient) CSR arrays into variable ->
// (row, coefficient), rows ascending within a variable.
func transpose(n int, start, vars []int32, coefs []float64) ([]int32, []int32, []float64) {
	cnt := make([]int32, n+1)
	for _, v := range vars {
		cnt[v+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	rows := make([]int32, len(vars))
	cf := make([]float64, len(vars))
	next := slices.Clone(cnt[:n])
	for r := 0; r+1 < len(start); r++ {
		for k := start[r]; k < start[r+1]; k++ {
			v := vars[k]
			rows[next[v]] = int32(r)
			cf[next[v]] = coefs[k]
			next[v]++
		}
	}
	return cnt, rows, cf
}

// fixed counts a conditional along v1 (and v2 when >= 0) dropped as fixed.
func (bl *builder) fixed(v1, v2 int32) {
	bl.stats.Fixed++
	if bl.inBroken(v1) || v2 >= 0 && bl.inBroken(v2) {
		bl.stats.FixedBroken++
	}
}

// inBroken reports whether v is in a hard constraint that the truth
// breaks (truthBreaks' test).
func (bl *builder) inBroken(v int32) bool {
	for k := bl.vcStart[v]; k < bl.vcStart[v+1]; k++ {
		c := bl.vcCon[k]
		d := bl.carg[c]
		if brokenAt(bl.p.CKind[c], d) {
			return true
		}
	}
	return false
}

// addLine adds the conditional along e_v1 + d2*e_v2 (v2 < 0: along e_v1).
// With constrained set, hard constraints restrict the interval.
func (bl *builder) addLine(v1, v2 int32, d2 float64, constrained, pair bool) {
	lo, hi := -bl.truth[v1], 1-bl.truth[v1]
	if v2 >= 0 {
		l2, h2 := boxRange(bl.truth[v2], d2)
		lo, hi = max(lo, l2), min(hi, h2)
	}
	if constrained {
		var fixed bool
		lo, hi, fixed = bl.constrain(v1, v2, d2, lo, hi)
		if fixed {
			bl.fixed(v1, v2)
			return
		}
	}
	if !(hi-lo > 1e-12) {
		bl.fixed(v1, v2)
		return
	}

	// Incidences: potentials of v1, then those of v2 without v1.
	bl.stamp++
	inc := bl.tmp[:0]
	p := bl.p
	for k := bl.vpStart[v1]; k < bl.vpStart[v1+1]; k++ {
		j := bl.vpPot[k]
		bl.mark[j] = bl.stamp
		a := bl.vpCoef[k]
		if v2 >= 0 {
			if c2, ok := coefOf(p, j, v2); ok {
				a += c2 * d2
				if math.Abs(a) <= 1e-12*(math.Abs(bl.vpCoef[k])+math.Abs(c2*d2)) {
					continue
				}
			}
		}
		inc = append(inc, incidence{a: a, b: bl.arg[j], pot: j, pow: p.Power[j]})
	}
	if v2 >= 0 {
		for k := bl.vpStart[v2]; k < bl.vpStart[v2+1]; k++ {
			j := bl.vpPot[k]
			if bl.mark[j] == bl.stamp {
				continue
			}
			inc = append(inc, incidence{a: bl.vpCoef[k] * d2, b: bl.arg[j], pot: j, pow: p.Power[j]})
		}
	}
	bl.tmp = inc
	if len(inc) == 0 {
		bl.stats.Empty++
		return
	}
	for i := range inc {
		inc[i].bp = -inc[i].b / inc[i].a
	}
	slices.SortStableFunc(inc, func(x, y incidence) int {
		switch {
		case x.bp < y.bp:
			return -1
		case x.bp > y.bp:
			return 1
		}
		return 0
	})
	if bl.piecewise {
		// One conditional per learnable group among the incidences, in
		// group order.
		var order []int32
		for _, in := range inc {
			if g := p.Group[in.pot]; bl.learns(g) {
				order = append(order, g)
			}
		}
		slices.Sort(order)
		order = slices.Compact(order)
		if len(order) == 0 {
			bl.stats.Empty++
			return
		}
		sub := make([]incidence, 0, len(inc))
		for _, g := range order {
			sub = sub[:0]
			for _, in := range inc {
				if p.Group[in.pot] == g {
					sub = append(sub, in)
				}
			}
			bl.emit(lo, hi, sub)
		}
	} else {
		bl.emit(lo, hi, inc)
	}
	bl.stats.Lines++
	if pair {
		bl.stats.Pairwise++
	} else {
		bl.stats.Single++
	}
}

// learns reports whether potentials of group g have a learned weight.
func (bl *builder) learns(g int32) bool {
	return g >= 0 && int(g) < len(bl.learn) && bl.learn[g]
}

// boxRange returns the range of t for which y + d*t stays in [0,1].
func boxRange(y, d float64) (lo, hi float64) {
	a, b := -y/d, (1-y)/d
	if d < 0 {
		a, b = b, a
	}
	return a, b
}

// coefOf returns the coefficient of variable v in potential j.
func coefOf(p *hlmrf.Problem, j, v int32) (float64, bool) {
	for k := p.Start[j]; k < p.Start[j+1]; k++ {
		if p.Var[k] == v {
			return p.Coef[k], true
		}
	}
	return 0, false
}

// constrain intersects [lo, hi] with what the hard constraints allow along
// the line, the other variables at the truth. fixed reports an equality
// constraint that the move would change (the line is a point).
func (bl *builder) constrain(v1, v2 int32, d2 float64, lo, hi float64) (float64, float64, bool) {
	p := bl.p
	bl.seen = bl.seen[:0]
	for pass, v := range []int32{v1, v2} {
		if v < 0 {
			break
		}
		for k := bl.vcStart[v]; k < bl.vcStart[v+1]; k++ {
			c := bl.vcCon[k]
			if pass == 1 && slices.Contains(bl.seen, c) {
				continue // shared by v1 and v2: already applied
			}
			if pass == 0 && v2 >= 0 {
				bl.seen = append(bl.seen, c)
			}
			var gamma, scale float64
			for q := p.CStart[c]; q < p.CStart[c+1]; q++ {
				switch p.CVar[q] {
				case v1:
					gamma += p.CCoef[q]
					scale += math.Abs(p.CCoef[q])
				case v2:
					gamma += p.CCoef[q] * d2
					scale += math.Abs(p.CCoef[q] * d2)
				}
			}
			if math.Abs(gamma) <= 1e-12*scale {
				continue // the constraint does not change along the line
			}
			if p.CKind[c] == hlmrf.Equal {
				return lo, hi, true
			}
			// gamma*t + carg <= 0; a truth that violates it keeps t = 0.
			bound := -bl.carg[c] / gamma
			if bl.carg[c] > 1e-9 {
				bl.stats.TruthViolations++
			}
			if gamma > 0 {
				hi = min(hi, max(bound, 0))
			} else {
				lo = max(lo, min(bound, 0))
			}
		}
	}
	return lo, hi, false
}

// emit appends one conditional with sorted incidences.
func (bl *builder) emit(lo, hi float64, inc []incidence) {
	out := bl.out
	p := bl.p
	out.lo = append(out.lo, lo)
	out.hi = append(out.hi, hi)
	first := len(out.bnd)
	for _, in := range inc {
		if in.bp > lo && in.bp < hi && (len(out.bnd) == first || out.bnd[len(out.bnd)-1] != in.bp) {
			out.bnd = append(out.bnd, in.bp)
		}
	}
	bnd := out.bnd[first:]
	K := len(bnd) + 1
	for _, in := range inc {
		g := p.Group[in.pot]
		w := 0.0
		if !bl.learns(g) {
			g, w = -1, p.Weight[in.pot]
		}
		var piece int32
		if in.a > 0 {
			switch {
			case in.bp <= lo:
				piece = 0
			case in.bp >= hi:
				piece = int32(K)
			default:
				idx, _ := slices.BinarySearch(bnd, in.bp)
				piece = int32(idx + 1)
			}
		} else {
			switch {
			case in.bp >= hi:
				piece = int32(K - 1)
			case in.bp <= lo:
				piece = -1
			default:
				idx, _ := slices.BinarySearch(bnd, in.bp)
				piece = int32(idx)
			}
		}
		phi0 := max(in.b, 0)
		if in.pow == 2 {
			phi0 *= phi0
		}
		out.a = append(out.a, in.a)
		out.b = append(out.b, in.b)
		out.bp = append(out.bp, in.bp)
		out.phi0 = append(out.phi0, phi0)
		out.pow = append(out.pow, in.pow)
		out.grp = append(out.grp, g)
		out.fixedW = append(out.fixedW, w)
		out.piece = append(out.piece, piece)
	}
	out.incStart = append(out.incStart, int32(len(out.a)))
	out.bndStart = append(out.bndStart, int32(len(out.bnd)))
	out.maxPieces = max(out.maxPieces, K)
}

// numLines is the number of conditionals.
func (ls *lines) numLines() int { return len(ls.lo) }
