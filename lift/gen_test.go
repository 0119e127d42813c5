package lift

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// genSpec describes random problems for property tests and benchmarks.
type genSpec struct {
	vars, pots, cons int
	maxTerms         int       // terms per potential or constraint: 1..maxTerms
	coefs            []float64 // coefficients are drawn from here
	weights          []float64
	consts           []float64
	leafConsts       []float64 // if set, the constants of one-term potentials
	squared          float64   // probability that a potential is a squared hinge
	equalities       float64   // probability that a constraint is an equality
}

// Coefficient sets. tricky has values whose float64 sums depend on the order
// of summation (0.1+0.2-0.1 != 0.2 in float64) and pairs that cancel.
var (
	simpleCoefs = []float64{1, -1}
	trickyCoefs = []float64{1, -1, 0.1, 0.2, 0.3, -0.1, -0.2, -0.3, 0.7, 2}
)

// randomProblem returns a random problem and a point in [0,1]^n that
// satisfies its hard constraints (so the problem is feasible).
func randomProblem(rng *rand.Rand, s genSpec) (*hlmrf.Problem, []float64) {
	p := &hlmrf.Problem{}
	p.AddVars(s.vars)
	y0 := make([]float64, s.vars)
	for j := range y0 {
		y0[j] = float64(rng.IntN(5)) / 4
	}
	terms := func() ([]int32, []float64) {
		k := 1 + rng.IntN(min(s.maxTerms, s.vars))
		vars := make([]int32, 0, k)
		coefs := make([]float64, 0, k)
		for _, v := range rng.Perm(s.vars)[:k] {
			vars = append(vars, int32(v))
			coefs = append(coefs, s.coefs[rng.IntN(len(s.coefs))])
		}
		return vars, coefs
	}
	for range s.pots {
		vars, coefs := terms()
		power := uint8(1)
		if rng.Float64() < s.squared {
			power = 2
		}
		consts := s.consts
		if len(vars) == 1 && s.leafConsts != nil {
			consts = s.leafConsts
		}
		p.AddPotential(s.weights[rng.IntN(len(s.weights))], consts[rng.IntN(len(consts))], power, int32(rng.IntN(3)), vars, coefs)
	}
	for range s.cons {
		vars, coefs := terms()
		var lhs float64
		for k, v := range vars {
			lhs += coefs[k] * y0[v]
		}
		if rng.Float64() < s.equalities {
			p.AddConstraint(hlmrf.Equal, lhs, 0, vars, coefs)
		} else {
			p.AddConstraint(hlmrf.LessEq, lhs+float64(rng.IntN(3))/2, 0, vars, coefs)
		}
	}
	return p, y0
}

// planted returns k disjoint copies of base with the variables, the
// potentials, the constraints and the terms within each row randomly
// permuted, and y0 copied to the new variable order.
func planted(rng *rand.Rand, base *hlmrf.Problem, y0 []float64, k int) (*hlmrf.Problem, []float64) {
	n := base.NumVars
	perm := rng.Perm(k * n)
	p := &hlmrf.Problem{}
	p.AddVars(k * n)
	y := make([]float64, k*n)
	for r := range k {
		for j := range n {
			y[perm[r*n+j]] = y0[j]
		}
	}
	row := func(r int, vars []int32, coefs []float64) ([]int32, []float64) {
		vs := make([]int32, len(vars))
		cs := make([]float64, len(vars))
		for q, t := range rng.Perm(len(vars)) {
			vs[q] = int32(perm[r*n+int(vars[t])])
			cs[q] = coefs[t]
		}
		return vs, cs
	}
	for _, it := range rng.Perm(k * base.NumPotentials()) {
		r, i := it/base.NumPotentials(), it%base.NumPotentials()
		vs, cs := row(r, base.Var[base.Start[i]:base.Start[i+1]], base.Coef[base.Start[i]:base.Start[i+1]])
		p.AddPotential(base.Weight[i], base.Const[i], base.Power[i], base.Group[i], vs, cs)
	}
	for _, it := range rng.Perm(k * base.NumConstraints()) {
		r, j := it/base.NumConstraints(), it%base.NumConstraints()
		vs, cs := row(r, base.CVar[base.CStart[j]:base.CStart[j+1]], base.CCoef[base.CStart[j]:base.CStart[j+1]])
		p.AddConstraint(base.CKind[j], base.CConst[j], base.CGroup[j], vs, cs)
	}
	return p, y
}

func parseProblem(t testing.TB, text string) *hlmrf.Problem {
	t.Helper()
	p, err := hlmrf.Read(strings.NewReader(text), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// canonical describes p with its variables renamed by perm, as sorted lines
// independent of the order of potentials, constraints and terms.
func canonical(p *hlmrf.Problem, perm []int) []string {
	row := func(vars []int32, coefs []float64) string {
		var ts []string
		for k, v := range vars {
			ts = append(ts, fmt.Sprintf("%d:%v", perm[v], coefs[k]))
		}
		sort.Strings(ts)
		return strings.Join(ts, " ")
	}
	var out []string
	for i := range p.Weight {
		vars, coefs := p.Terms(i)
		out = append(out, fmt.Sprintf("%v %v ^%d | %s", p.Weight[i], p.Const[i], p.Power[i], row(vars, coefs)))
	}
	for j := range p.CKind {
		vars, coefs := p.CTerms(j)
		out = append(out, fmt.Sprintf("%s %v | %s", p.CKind[j], p.CConst[j], row(vars, coefs)))
	}
	sort.Strings(out)
	return out
}

// isomorphic reports whether a and b are the same function up to the order
// of variables, potentials, constraints and terms (brute force over variable
// permutations; for small problems).
func isomorphic(a, b *hlmrf.Problem) bool {
	if a.NumVars != b.NumVars || a.NumPotentials() != b.NumPotentials() || a.NumConstraints() != b.NumConstraints() {
		return false
	}
	want := strings.Join(canonical(b, identity(b.NumVars)), "\n")
	perm := identity(a.NumVars)
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(perm) {
			return strings.Join(canonical(a, perm), "\n") == want
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			if try(k + 1) {
				return true
			}
			perm[k], perm[i] = perm[i], perm[k]
		}
		return false
	}
	return try(0)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
