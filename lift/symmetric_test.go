package lift

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hinge-srl/hinge/hlmrf"
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

// TestClassBound: the hashed rounds never count more classes than the
// coarsest stable coloring has, whatever the coefficients (exact sums,
// cancelling pairs, parallel edges) or the number of rounds; with enough
// rounds they find every class of these problems; and a problem without
// symmetry is seen to have none.
func TestClassBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 7))
	for _, tc := range refineCases {
		for seed := range 8 {
			base, y0 := randomProblem(rng, tc.spec)
			p := base
			if seed%2 == 1 {
				p, _ = planted(rng, base, y0, 2+seed%3)
			}
			col, err := Refine(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, rounds := range []int{0, 1, 2, 50} {
				v, m, c, err := ClassBound(p, rounds)
				if err != nil {
					t.Fatal(err)
				}
				if v > col.NumVar || m > col.NumPot || c > col.NumCon {
					t.Fatalf("%s seed %d, %d rounds: bound %d/%d/%d above the coloring's %d/%d/%d", tc.name, seed, rounds, v, m, c, col.NumVar, col.NumPot, col.NumCon)
				}
				if rounds == 50 && (v != col.NumVar || m != col.NumPot || c != col.NumCon) {
					t.Errorf("%s seed %d: 50 rounds find %d/%d/%d classes, the coloring has %d/%d/%d", tc.name, seed, v, m, c, col.NumVar, col.NumPot, col.NumCon)
				}
			}
		}
	}
	p := noSymmetry(rng, 30, 90)
	if v, m, _, _ := ClassBound(p, 3); v != 30 || m != 90 {
		t.Errorf("no symmetry: bound %d variables, %d potentials after 3 rounds, want 30 and 90", v, m)
	}
	// Sums, not multisets: 2*y0 and y1 + y1 (a variable repeated within a
	// row) are alike.
	q := &hlmrf.Problem{NumVars: 2, Weight: []float64{1, 1}, Const: []float64{0, 0}, Power: []uint8{1, 1}, Group: []int32{-1, -1},
		Start: []int32{0, 1, 3}, Var: []int32{0, 1, 1}, Coef: []float64{2, 1, 1}, CStart: []int32{0}}
	col, err := Refine(q)
	if err != nil {
		t.Fatal(err)
	}
	if v, m, _, _ := ClassBound(q, 5); v > col.NumVar || m > col.NumPot || col.NumPot != 1 || col.NumVar != 1 {
		t.Errorf("parallel terms: bound %d/%d classes, coloring %d/%d", v, m, col.NumVar, col.NumPot)
	}
	if _, _, _, err := ClassBound(nil, 1); err == nil {
		t.Error("nil problem accepted")
	}
}

// TestBounderLift: lifting from the hashed coloring gives exactly what
// Lift gives (problem, maps, offset, copy weights) whenever it succeeds,
// and it succeeds on these problems with one-word coefficients; a coloring
// that merges two classes fails the stability check.
func TestBounderLift(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 8))
	succeeded := 0
	for _, tc := range refineCases {
		for seed := range 8 {
			base, y0 := randomProblem(rng, tc.spec)
			p := base
			if seed%2 == 1 {
				p, _ = planted(rng, base, y0, 2+seed%3)
			}
			want, err := Lift(p)
			if err != nil {
				continue // infeasible constant classes: Lift's error, tested elsewhere
			}
			b, err := NewBounder(p)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := b.Lift(100)
			if err != nil {
				t.Fatalf("%s seed %d: %v", tc.name, seed, err)
			}
			if !ok {
				if b.g.scale.words == 1 {
					t.Errorf("%s seed %d: hashed lifting failed on one-word coefficients", tc.name, seed)
				}
				continue
			}
			succeeded++
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Lifted{}, "Coloring")); diff != "" {
				t.Fatalf("%s seed %d: hashed lifting differs from Lift (-Lift +hashed):\n%s", tc.name, seed, diff)
			}
			if diff := cmp.Diff(want.Coloring, got.Coloring); diff != "" {
				t.Fatalf("%s seed %d: colorings differ:\n%s", tc.name, seed, diff)
			}
			// Merge two variable classes (or two potential classes): no
			// longer stable, unless the merge is itself stable, which the
			// coarsest stable coloring rules out.
			col := got.Coloring
			bad := &Coloring{Var: slices.Clone(col.Var), Pot: slices.Clone(col.Pot), Con: slices.Clone(col.Con), NumVar: col.NumVar, NumPot: col.NumPot, NumCon: col.NumCon}
			switch {
			case col.NumVar >= 2:
				for i, k := range bad.Var {
					if k == 1 {
						bad.Var[i] = 0
					}
				}
			case col.NumPot >= 2:
				for i, k := range bad.Pot {
					if k == 1 {
						bad.Pot[i] = 0
					}
				}
			default:
				continue
			}
			if b.stable(bad) {
				t.Fatalf("%s seed %d: a coloring with two classes merged passes as stable", tc.name, seed)
			}
		}
	}
	if succeeded < 20 {
		t.Errorf("hashed lifting succeeded on %d problems only", succeeded)
	}
	// Rounds that do not settle in time: refused, not wrong.
	p := noSymmetry(rng, 30, 90)
	b, _ := NewBounder(p)
	if l, ok, _ := b.Lift(1); ok || l != nil {
		t.Error("one round accepted as settled")
	}
}
