package main

import (
	"context"
	"math"
	"math/rand/v2"
	"os/exec"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/maxsat"
)

// TestLPAgainstEnumeration: the integer program writeLP writes, solved by
// CBC, has the optimum that enumerating every world of the signed network
// gives (repeated clauses, units, negative weights, hard clauses). It is
// skipped without CBC.
func TestLPAgainstEnumeration(t *testing.T) {
	cbc, err := exec.LookPath("cbc")
	if err != nil {
		t.Skip("no cbc on PATH (apt-get install coinor-cbc)")
	}
	if _, err := exec.LookPath("/usr/bin/time"); err != nil {
		t.Skip("no GNU time")
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 8 {
		const n = 7
		in := &maxsat.Instance{NumVars: n, Start: []int32{0}}
		for range 14 {
			var lits []maxsat.Lit
			for _, v := range rng.Perm(n)[:1+rng.IntN(3)] {
				l := maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					l = -l
				}
				lits = append(lits, l)
			}
			hard := rng.IntN(10) == 0
			if err := in.AddClause(float64(1+rng.IntN(8))/4, hard, lits...); err != nil {
				t.Fatal(err)
			}
			if !hard && rng.IntN(3) == 0 {
				in.Weight[len(in.Weight)-1] *= -1
			}
		}
		best := math.Inf(1)
		x := make([]bool, n)
		for mask := range 1 << n {
			for v := range x {
				x[v] = mask>>v&1 == 1
			}
			cost, ok := 0.0, true
			for c := range in.NumClauses() {
				sat := in.Satisfied(c, x)
				switch w := in.Weight[c]; {
				case in.Hard[c]:
					ok = ok && sat
				case w > 0 && !sat:
					cost += w
				case w < 0 && sat:
					cost -= w
				}
			}
			if ok {
				best = min(best, cost)
			}
		}
		r, err := runCBC(context.Background(), cbc, t.TempDir(), in, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(best, 1) {
			if r.status != "infeasible" {
				t.Errorf("trial %d: infeasible, CBC says %s", trial, r.status)
			}
			continue
		}
		if r.status != "optimal" || math.Abs(r.cost-best) > 1e-6 {
			t.Errorf("trial %d: optimum %v, CBC %s %v", trial, best, r.status, r.cost)
		}
	}
}

// TestGeneratedWCSPFeasible: the generated weighted CSPs keep their
// planted assignment feasible, and the exact solver proves an optimum.
func TestGeneratedWCSPFeasible(t *testing.T) {
	in := generateWCSP(wcspParams{vars: 12, domain: 3, density: 0.4, hardFrac: 0.5, seed: 7})
	r, err := maxsat.Exact(context.Background(), in, maxsat.ExactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Optimal || r.X == nil {
		t.Fatalf("%+v", r)
	}
}
