package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// randomProblem draws a small ground problem with numGroups groups, linear
// and squared hinges (power 0 draws both), breakpoints inside, outside and at
// the ends of the box, and a truth vector. With constraints it adds an
// equality over 2-3 variables and an inequality, both satisfied by the truth.
func randomProblem(rng *rand.Rand, power uint8, constraints, binaryTruth bool) (*hlmrf.Problem, []float64) {
	n := 3 + rng.IntN(4)
	p := &hlmrf.Problem{}
	p.AddVars(n)
	truth := make([]float64, n)
	for i := range truth {
		if binaryTruth {
			truth[i] = float64(rng.IntN(2))
		} else {
			truth[i] = []float64{0, 1, rng.Float64(), rng.Float64(), 0.5}[rng.IntN(5)]
		}
	}
	m := 4 + rng.IntN(8)
	for range m {
		k := 1 + rng.IntN(3)
		perm := rng.Perm(n)[:k]
		vars := make([]int32, k)
		coefs := make([]float64, k)
		for q, v := range perm {
			vars[q] = int32(v)
			coefs[q] = []float64{1, -1, 2, -0.5, rng.Float64()*4 - 2}[rng.IntN(5)]
			if coefs[q] == 0 {
				coefs[q] = 1
			}
		}
		c := []float64{0, 1, -1, rng.Float64()*3 - 1.5, 0.25}[rng.IntN(5)]
		pw := power
		if pw == 0 {
			pw = uint8(1 + rng.IntN(2))
		}
		p.AddPotential(1, c, pw, int32(rng.IntN(3)), vars, coefs)
	}
	if constraints {
		k := 2 + rng.IntN(2)
		perm := rng.Perm(n)[:k]
		vars := make([]int32, k)
		coefs := make([]float64, k)
		sum := 0.0
		for q, v := range perm {
			vars[q] = int32(v)
			coefs[q] = []float64{1, 1, 2}[rng.IntN(3)]
			sum += coefs[q] * truth[v]
		}
		p.AddConstraint(hlmrf.Equal, sum, 3, vars, coefs)
		// An inequality over other variables with slack.
		v := int32(perm[0])
		for _, x := range rng.Perm(n) {
			if x != perm[0] && x != perm[1] {
				v = int32(x)
				break
			}
		}
		p.AddConstraint(hlmrf.LessEq, truth[v]+0.3, 4, []int32{v}, []float64{1})
	}
	return p, truth
}

// oracleLine is a conditional built independently of lines.go: the energy
// is p's objective along y* + t d, the interval is found by bisection on
// feasibility.
type oracleLine struct {
	d      map[int32]float64
	lo, hi float64
}

// oracleLines enumerates the conditionals as the package documentation
// describes them.
func oracleLines(p *hlmrf.Problem, truth []float64, mode ConstraintMode) []oracleLine {
	inEq := map[int32]bool{}
	if mode == ConstraintsPairwise {
		for c := range p.CKind {
			if p.CKind[c] == hlmrf.Equal {
				vars, _ := p.CTerms(c)
				for _, v := range vars {
					inEq[v] = true
				}
			}
		}
	}
	var out []oracleLine
	for v := 0; v < p.NumVars; v++ {
		if !inEq[int32(v)] {
			out = append(out, oracleLine{d: map[int32]float64{int32(v): 1}})
		}
	}
	if mode == ConstraintsPairwise {
		for c := range p.CKind {
			if p.CKind[c] != hlmrf.Equal {
				continue
			}
			vars, coefs := p.CTerms(c)
			for x := range vars {
				for y := x + 1; y < len(vars); y++ {
					out = append(out, oracleLine{d: map[int32]float64{vars[x]: 1, vars[y]: -coefs[x] / coefs[y]}})
				}
			}
		}
	}
	keep := out[:0]
	for _, l := range out {
		feasible := func(t float64) bool {
			y := along(truth, l.d, t)
			for _, v := range y {
				if v < -1e-15 || v > 1+1e-15 {
					return false
				}
			}
			if mode == ConstraintsIgnore {
				return true
			}
			return p.Violations(y, 1e-13).Violated == 0
		}
		bound := func(dir float64) float64 {
			if !feasible(dir * 1e-9) {
				return 0
			}
			a, b := 0.0, 4.0
			for range 200 {
				m := (a + b) / 2
				if feasible(dir * m) {
					a = m
				} else {
					b = m
				}
			}
			return dir * a
		}
		l.lo, l.hi = bound(-1), bound(1)
		if l.hi-l.lo <= 1e-9 {
			continue
		}
		// Drop lines along which no potential changes.
		changes := false
		for j := range p.Weight {
			vars, coefs := p.Terms(j)
			s := 0.0
			for q, v := range vars {
				s += coefs[q] * l.d[v]
			}
			if math.Abs(s) > 1e-12 {
				changes = true
			}
		}
		if changes {
			keep = append(keep, l)
		}
	}
	return keep
}

func along(y []float64, d map[int32]float64, t float64) []float64 {
	out := append([]float64(nil), y...)
	for v, dv := range d {
		out[v] += t * dv
	}
	return out
}

// oracleValue is the objective computed by quadrature: the mean over lines
// of log integral exp(-(E(t) - E(0))), E the problem's energy with weights
// w per group.
func oracleValue(p *hlmrf.Problem, truth []float64, w []float64, mode ConstraintMode, l2 float64) float64 {
	q := p.Clone()
	wmax := 0.0
	for i, g := range q.Group {
		q.Weight[i] = w[g]
		wmax = max(wmax, w[g])
	}
	defer func(old float64) { quadNoise = old }(quadNoise)
	quadNoise = max(quadNoise, 1e-15*wmax)
	ls := oracleLines(q, truth, mode)
	total := 0.0
	for _, l := range ls {
		e0 := q.Objective(truth)
		energy := func(t float64) float64 { return q.Objective(along(truth, l.d, t)) - e0 }
		// Split at the hinge breakpoints and at the minimiser (the energy
		// is convex along the line, so that is the only peak).
		var at []float64
		for j := range q.Weight {
			vars, coefs := q.Terms(j)
			s, a := -q.Const[j], 0.0
			for k, v := range vars {
				s += coefs[k] * truth[v]
				a += coefs[k] * l.d[v]
			}
			if a != 0 {
				at = append(at, -s/a)
			}
		}
		tmin := ternaryMin(energy, l.lo, l.hi, 200)
		at = append(at, tmin)
		emin := energy(tmin)
		z := integrateSplit(func(t float64) float64 { return math.Exp(-(energy(t) - emin)) }, l.lo, l.hi, 1e-11, at...)
		total += math.Log(z) - emin
	}
	v := total / float64(len(ls))
	for _, x := range w {
		v += l2 / 2 * x * x
	}
	return v
}

func TestPseudoLikelihoodAgainstQuadrature(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for trial := range 60 {
		power := uint8(trial % 3) // 0: mixed, 1: linear, 2: squared
		constraints := trial%2 == 1
		p, truth := randomProblem(rng, power, constraints, trial%5 == 0)
		mode := ConstraintsPairwise
		if trial%4 == 3 {
			mode = ConstraintsIgnore
		}
		learnable := []bool{true, true, true}
		obj, err := NewPseudoLikelihood(p, truth, learnable, PLOptions{Constraints: mode, L2: 0.1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if obj.Stats().Lines == 0 {
			continue
		}
		for _, scale := range []float64{0, 1e-3, 1, 10, 1e3, 1e6} {
			w := []float64{scale * rng.Float64(), scale * (0.5 + rng.Float64()), scale * rng.Float64()}
			got := obj.Value(w)
			want := oracleValue(p, truth, w, mode, 0.1)
			// The objective is an average of logs; compare relative to
			// the size of the terms.
			e := math.Abs(got-want) / math.Max(1, math.Abs(want))
			worst = max(worst, e)
			if e > 1e-9 {
				t.Errorf("trial %d (power %d, constraints %v, %v) w=%v: value %.15g, quadrature %.15g (err %.2g)",
					trial, power, constraints, mode, w, got, want, e)
			}
		}
	}
	t.Logf("largest error %.2g", worst)
}

func TestPseudoLikelihoodGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 80 {
		power := uint8(trial % 3)
		constraints := trial%2 == 1
		p, truth := randomProblem(rng, power, constraints, trial%3 == 0)
		for _, piecewise := range []bool{false, true} {
			learnable := []bool{true, true, trial%7 != 0}
			obj, err := NewPseudoLikelihood(p, truth, learnable, PLOptions{Piecewise: piecewise, L2: 0.05, Threads: 1 + trial%2})
			if err != nil {
				t.Fatal(err)
			}
			if obj.Stats().Lines == 0 {
				continue
			}
			for _, scale := range []float64{0.01, 1, 30} {
				w := []float64{scale * rng.Float64(), scale * rng.Float64(), scale * rng.Float64()}
				g := make([]float64, 3)
				obj.ValueGradient(w, g)
				for k := range w {
					if !learnable[k] {
						if g[k] != 0 {
							t.Errorf("trial %d: gradient %v for a fixed group", trial, g[k])
						}
						continue
					}
					h := 1e-5 * max(1, w[k])
					wp := append([]float64(nil), w...)
					wm := append([]float64(nil), w...)
					wp[k] += h
					wm[k] -= h
					fd := (obj.Value(wp) - obj.Value(wm)) / (2 * h)
					if math.Abs(fd-g[k]) > 1e-6*max(1, math.Abs(fd)) {
						t.Errorf("trial %d (power %d, constraints %v, piecewise %v) w=%v: d/dw%d = %.12g, finite difference %.12g",
							trial, power, constraints, piecewise, w, k, g[k], fd)
					}
				}
			}
		}
	}
}

// The single-variable conditional's closed form against quadrature, at
// large weights with breakpoints inside, outside and at the ends of [0,1]:
// Z and E[phi] per potential, to 1e-9 relative.
func TestConditionalMomentsLargeWeights(t *testing.T) {
	type hinge struct {
		a, b  float64
		power uint8
	}
	cases := []struct {
		name   string
		truth  float64
		hinges []hinge
	}{
		{"inside", 0.3, []hinge{{1, -0.6, 2}, {-1, 0.2, 1}, {2, -0.5, 2}}},
		{"outside", 0.5, []hinge{{1, 0.7, 2}, {-1, -0.8, 1}, {1, 2, 1}, {-2, 3, 2}}},
		{"at ends", 1, []hinge{{1, -1, 2}, {-1, 0, 2}, {1, 0, 1}, {-1, 1, 1}}},
		{"coincident", 0, []hinge{{1, -0.5, 2}, {2, -1, 1}, {-1, 0.5, 2}, {-1, 0.5, 1}}},
		{"mixed slopes", 0.7, []hinge{{3, -0.3, 2}, {-0.5, 0.1, 1}, {1, -0.9, 1}, {-4, 1.2, 2}}},
	}
	for _, tc := range cases {
		for _, W := range []float64{1e-3, 1, 1e3, 1e6} {
			for _, mixed := range []bool{false, true} {
				name := fmt.Sprintf("%s/w=%g/mixed=%v", tc.name, W, mixed)
				p := &hlmrf.Problem{}
				p.AddVars(1)
				weights := make([]float64, len(tc.hinges))
				for j, h := range tc.hinges {
					// Potential: w*max(a*y - c, 0)^p with the breakpoint
					// of a*t + b along t = y - truth.
					c := -(h.b - h.a*tc.truth)
					p.AddPotential(1, c, h.power, int32(j), []int32{0}, []float64{h.a})
					weights[j] = W
					if mixed && j%2 == 1 {
						weights[j] = 1
					}
				}
				learnable := make([]bool, len(tc.hinges))
				for j := range learnable {
					learnable[j] = true
				}
				ls, _, err := newLines(p, []float64{tc.truth}, learnable, ConstraintsIgnore, false, 0)
				if err != nil {
					t.Fatal(err)
				}
				sc := newScratch(ls.maxPieces)
				grad := make([]float64, len(tc.hinges))
				logZ := ls.evalLine(0, weights, sc, grad, 1)

				energy := func(y float64) float64 {
					e := 0.0
					for j := range p.Weight {
						s := p.Coef[j]*y - p.Const[j]
						if s > 0 {
							if p.Power[j] == 2 {
								s *= s
							}
							e += weights[j] * s
						}
					}
					return e
				}
				var at []float64
				for j := range p.Weight {
					at = append(at, p.Const[j]/p.Coef[j])
				}
				ymin := ternaryMin(energy, 0, 1, 200)
				at = append(at, ymin)
				emin := energy(ymin)
				dens := func(y float64) float64 { return math.Exp(-(energy(y) - emin)) }
				quadNoise = max(1e-13, 1e-15*W)
				z := integrateSplit(dens, 0, 1, 1e-12, at...)
				wantLogZ := math.Log(z) - emin + energy(tc.truth)
				if e := math.Abs(logZ-wantLogZ) / max(1, math.Abs(wantLogZ)); e > 1e-9 {
					t.Errorf("%s: log Z = %.15g, quadrature %.15g (err %.2g)", name, logZ, wantLogZ, e)
				}
				for j := range p.Weight {
					phi := func(y float64) float64 {
						s := max(p.Coef[j]*y-p.Const[j], 0)
						if p.Power[j] == 2 {
							s *= s
						}
						return s
					}
					num := integrateSplit(func(y float64) float64 { return phi(y) * dens(y) }, 0, 1, 1e-12, at...)
					want := num / z
					got := phi(tc.truth) - grad[j]
					if e := math.Abs(got-want) / max(math.Abs(want), 1e-300); e > 1e-9 && math.Abs(got-want) > 1e-14*max(1, phi(tc.truth)) {
						t.Errorf("%s: E[phi_%d] = %.15g, quadrature %.15g (rel %.2g)", name, j, got, want, e)
					}
				}
				quadNoise = 1e-13
			}
		}
	}
}

func TestPseudoLikelihoodThreadsIdentical(t *testing.T) {
	// A larger problem so that there are several chunks.
	p, truth := chainProblem(3000)
	learnable := []bool{true, true, true}
	w := []float64{0.3, 1.7, 0.01}
	var ref []float64
	var refV float64
	for _, th := range []int{1, 2, 3, 8} {
		obj, err := NewPseudoLikelihood(p, truth, learnable, PLOptions{Threads: th})
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, 3)
		v := obj.ValueGradient(w, g)
		if ref == nil {
			ref, refV = g, v
			continue
		}
		if v != refV || g[0] != ref[0] || g[1] != ref[1] || g[2] != ref[2] {
			t.Errorf("threads %d: value %v grad %v, want %v %v (bit-identical)", th, v, g, refV, ref)
		}
	}
}
