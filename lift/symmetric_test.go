package lift

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLiftIfSymmetric: a problem without symmetry gives no lifted problem
// and a coloring that says so; a problem with symmetry (permuted copies)
// gives what Lift gives.
func TestLiftIfSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 5))
	for range 10 {
		p := noSymmetry(rng, 10, 40)
		l, col, err := LiftIfSymmetric(p)
		if err != nil {
			t.Fatal(err)
		}
		if l != nil || col == nil || col.Symmetric() {
			t.Fatalf("no symmetry: lifted %v, coloring %+v", l != nil, col)
		}
		if col.NumVar != 10 || col.NumPot != 40 {
			t.Fatalf("no symmetry: %d variable and %d potential colors, want 10 and 40", col.NumVar, col.NumPot)
		}
	}
	for _, tc := range refineCases {
		base, y0 := randomProblem(rng, tc.spec)
		p, _ := planted(rng, base, y0, 3)
		l, col, err := LiftIfSymmetric(p)
		if err != nil {
			t.Fatal(err)
		}
		if l == nil || !col.Symmetric() || l.Coloring != col {
			t.Fatalf("%s: three copies: lifted %v, symmetric %v", tc.name, l != nil, col.Symmetric())
		}
		want, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Problem, l.Problem, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: LiftIfSymmetric differs from Lift:\n%s", tc.name, diff)
		}
	}
	if _, _, err := LiftIfSymmetric(nil); err == nil {
		t.Fatal("nil problem accepted")
	}
}
