package admmtest

import (
	"slices"
	"testing"
)

// arc returns the length of the shortest cyclic run of n variables that
// holds all of vars.
func arc(vars []int32, n int) int {
	s := slices.Clone(vars)
	slices.Sort(s)
	gap := int(s[0]) + n - int(s[len(s)-1]) // the wrap-around gap
	for k := 1; k < len(s); k++ {
		gap = max(gap, int(s[k]-s[k-1]))
	}
	return n - gap + 1
}

func TestRandomWindow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		c         Config
		wantLocal float64 // least fraction of potentials inside a window; exact 1 when Far is 0
		wantMost  float64 // most such fraction
	}{
		{"local", Config{Vars: 1000, Potentials: 2000, MinArity: 3, MaxArity: 3, Window: 20}, 1, 1},
		{"window below arity", Config{Vars: 1000, Potentials: 500, MinArity: 4, MaxArity: 4, Window: 2}, 1, 1},
		{"small world", Config{Vars: 1000, Potentials: 4000, MinArity: 3, MaxArity: 3, Window: 20, Far: 0.1}, 0.65, 0.8},
		{"uniform", Config{Vars: 1000, Potentials: 2000, MinArity: 3, MaxArity: 3}, 0, 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Random(tc.c)
			w := max(tc.c.Window, tc.c.MinArity)
			if tc.c.Window == 0 {
				w = 20
			}
			inside := 0
			for i := range p.NumPotentials() {
				vars, _ := p.Terms(i)
				if arc(vars, tc.c.Vars) <= w {
					inside++
				}
			}
			f := float64(inside) / float64(p.NumPotentials())
			if f < tc.wantLocal || f > tc.wantMost {
				t.Errorf("%.3f of potentials lie within a window of %d variables, want %.2f..%.2f", f, w, tc.wantLocal, tc.wantMost)
			}
		})
	}
}

// A window that covers every variable draws them uniformly, from the same
// random stream as no window.
func TestRandomWholeWindow(t *testing.T) {
	c := Config{Vars: 30, Potentials: 200, MinArity: 1, MaxArity: 3, Constraints: 20, Seed: 7}
	p := Random(c)
	c.Window, c.Far = 30, 0.5
	q := Random(c)
	if !slices.Equal(p.Var, q.Var) || !slices.Equal(p.Coef, q.Coef) || !slices.Equal(p.CVar, q.CVar) {
		t.Error("Window = Vars gives a different problem from Window = 0")
	}
}
