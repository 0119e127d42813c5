package maxsattest

import (
	"math/rand/v2"
	"testing"
)

// Every instance has the clauses its doc names, all hard, and some world
// satisfies them (checked by enumeration).
func TestPlantedHard(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 4; n <= 14; n++ {
		in := PlantedHard(rng, n)
		if in.NumClauses() != n-2+n/2 || in.NumHard() != in.NumClauses() {
			t.Fatalf("n %d: %d clauses, %d hard", n, in.NumClauses(), in.NumHard())
		}
		solutions := 0
		x := make([]bool, n)
		for w := range 1 << n {
			for v := range x {
				x[v] = w>>v&1 == 1
			}
			if _, violated := in.Eval(x); violated == 0 {
				solutions++
			}
		}
		if solutions == 0 {
			t.Fatalf("n %d: no world satisfies the planted instance", n)
		}
	}
}
