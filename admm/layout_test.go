package admm

import (
	"context"
	"math"
	"testing"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

// shuffled returns p with variables, potentials and constraints relabelled
// by seeded random permutations, and the variable map (p's j is q's
// varTo[j]).
func shuffled(p *hlmrf.Problem, seed uint64) (q *hlmrf.Problem, varTo []int32) {
	rng := newRand(seed)
	perm := func(n int) []int32 {
		out := make([]int32, n)
		for i, j := range rng.Perm(n) {
			out[i] = int32(j)
		}
		return out
	}
	varTo = perm(p.NumVars)
	q = &hlmrf.Problem{}
	q.AddVars(p.NumVars)
	var vars []int32
	for _, i := range rng.Perm(p.NumPotentials()) {
		vs, cs := p.Terms(i)
		vars = vars[:0]
		for _, v := range vs {
			vars = append(vars, varTo[v])
		}
		q.AddPotential(p.Weight[i], p.Const[i], p.Power[i], p.Group[i], vars, cs)
	}
	for _, j := range rng.Perm(p.NumConstraints()) {
		vs, cs := p.CTerms(j)
		vars = vars[:0]
		for _, v := range vs {
			vars = append(vars, varTo[v])
		}
		q.AddConstraint(p.CKind[j], p.CConst[j], p.CGroup[j], vars, cs)
	}
	return q, varTo
}

// TestLayout checks the internal order is a relabelling (bijections of
// variables, potentials and constraints), groups potentials by kind, and
// gives a term's variables nearby numbers on a problem with locality to find.
func TestLayout(t *testing.T) {
	cases := []struct {
		name string
		p    *hlmrf.Problem
	}{
		{"empty", &hlmrf.Problem{}},
		{"random mixed", admmtest.Random(admmtest.Config{Vars: 200, Potentials: 700, Constraints: 40, MinArity: 1, MaxArity: 5, Seed: 4})},
		{"isolated and constant", func() *hlmrf.Problem {
			p := &hlmrf.Problem{}
			p.AddVars(5)
			p.AddPotential(1, -1, 1, 0, nil, nil)
			p.AddPotential(1, 0, 2, 0, []int32{3}, []float64{1})
			p.AddConstraint(hlmrf.LessEq, 1, 0, []int32{4, 1}, []float64{1, 1})
			return p
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			l := newLayout(p)
			checkPerm(t, "variables", l.varNew, p.NumVars)
			checkPerm(t, "potentials", l.pot, p.NumPotentials())
			checkPerm(t, "constraints", l.con, p.NumConstraints())
			kind := func(i int32) [2]int {
				a := int(p.Start[i+1] - p.Start[i])
				return [2]int{min(a, 4), int(p.Power[i])}
			}
			done := map[[2]int]bool{}
			for ii, i := range l.pot {
				k := kind(i)
				if done[k] && kind(l.pot[ii-1]) != k {
					t.Fatalf("potential kind %v appears in two separate runs", k)
				}
				done[k] = true
			}
		})
	}

	// A chain y0 - y1 - ... - y(n-1) of 2-variable potentials, shuffled: the
	// layout must recover a numbering where each potential's variables
	// differ by at most 2 (a breadth-first search from any node of a path
	// numbers neighbours at most two apart).
	chain := &hlmrf.Problem{}
	chain.AddVars(1000)
	for j := range int32(999) {
		chain.AddPotential(1, 0, 2, 0, []int32{j, j + 1}, []float64{1, -1})
	}
	q, _ := shuffled(chain, 5)
	l := newLayout(q)
	for _, i := range l.pot {
		vs, _ := q.Terms(int(i))
		if d := l.varNew[vs[0]] - l.varNew[vs[1]]; d > 2 || d < -2 {
			t.Fatalf("shuffled chain: potential over variables numbered %d and %d", l.varNew[vs[0]], l.varNew[vs[1]])
		}
	}
}

func checkPerm(t *testing.T, what string, perm []int32, n int) {
	t.Helper()
	if len(perm) != n {
		t.Fatalf("%s: %d entries, want %d", what, len(perm), n)
	}
	seen := make([]bool, n)
	for _, x := range perm {
		if x < 0 || int(x) >= n || seen[x] {
			t.Fatalf("%s: %v is not a permutation", what, perm)
		}
		seen[x] = true
	}
}

// TestRelabelledProblem solves a problem and a relabelled copy of it: the
// solutions must agree variable by variable (mapped through the relabelling)
// and so must warm starts, whatever internal order each gets.
func TestRelabelledProblem(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 120, Potentials: 400, Constraints: 15, MinArity: 1, MaxArity: 4, EqualFraction: 0.3, Seed: 8})
	q, varTo := shuffled(p, 9)
	opt := DefaultOptions()
	opt.EpsAbs, opt.EpsRel = 1e-8, 1e-7
	solveFrom := func(p *hlmrf.Problem, init []float64) *Result {
		t.Helper()
		s, err := New(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), init)
		if err != nil || !res.Converged() {
			t.Fatal(err, res)
		}
		return res
	}
	for _, warm := range []bool{false, true} {
		var ip, iq []float64
		if warm {
			ip = make([]float64, p.NumVars)
			iq = make([]float64, p.NumVars)
			for j := range ip {
				ip[j] = float64(j%7) / 6
				iq[varTo[j]] = ip[j]
			}
		}
		rp, rq := solveFrom(p, ip), solveFrom(q, iq)
		if d := math.Abs(rp.Objective-rq.Objective) / max(1, rp.Objective); d > 1e-6 {
			t.Fatalf("warm=%v: objectives %.12g and %.12g (relabelled)", warm, rp.Objective, rq.Objective)
		}
		for j, y := range rp.Values {
			if d := math.Abs(y - rq.Values[varTo[j]]); d > 1e-4 {
				t.Fatalf("warm=%v: variable %d: %v, relabelled %v", warm, j, y, rq.Values[varTo[j]])
			}
		}
	}
}
