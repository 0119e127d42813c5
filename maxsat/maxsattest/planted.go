// Package maxsattest generates MAX-SAT instances for tests and benchmarks
// of samplers and solvers.
package maxsattest

import (
	"math/rand/v2"

	"github.com/hinge-srl/hinge/maxsat"
)

// PlantedHard is a random instance of n atoms (n >= 4) and hard clauses
// only, every atom tied to the next: a clause of three literals over each
// atom and the next two, and n/2 more over windows of four (a small
// treewidth), their signs drawn from rng but each with a literal true in a
// planted world, so that the instance is satisfiable and about
// (7/8)^(3n/2) of all worlds satisfy it. The uniform distribution over
// those worlds is what MC-SAT samples there (SampleSAT alone).
func PlantedHard(rng *rand.Rand, n int) *maxsat.Instance {
	in := &maxsat.Instance{NumVars: n}
	plant := make([]bool, n)
	for v := range plant {
		plant[v] = rng.IntN(2) == 1
	}
	clause := func(vs ...int) {
		lits := make([]maxsat.Lit, len(vs))
		ok := false
		for i, v := range vs {
			val := rng.IntN(2) == 1
			ok = ok || val == plant[v]
			lits[i] = maxsat.Not(v)
			if val {
				lits[i] = maxsat.Pos(v)
			}
		}
		if !ok { // make the first literal the planted world's
			lits[0] = -lits[0]
		}
		_ = in.AddClause(0, true, lits...)
	}
	for v := 0; v+2 < n; v++ {
		clause(v, v+1, v+2)
	}
	for range n / 2 {
		v := rng.IntN(n - 3)
		clause(v, v+1+rng.IntN(3), v+3)
	}
	return in
}
