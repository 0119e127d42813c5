package learn

import (
	"math"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// FuzzPseudoLikelihood decodes bytes into a small ground problem (hinges with
// arbitrary coefficients, constants and powers, equality and inequality
// constraints, truth values, weights from tiny to huge) and checks that the
// objective and its gradient are finite, never NaN, and that the objective
// does not depend on the thread count.
func FuzzPseudoLikelihood(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{5, 255, 0, 128, 64, 32, 16, 8, 4, 2, 1, 0, 0, 0, 200, 100, 50, 25, 12, 6, 3})
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		pos := 0
		next := func() byte {
			if pos >= len(data) {
				return 0
			}
			b := data[pos]
			pos++
			return b
		}
		n := 1 + int(next())%6
		p := &hlmrf.Problem{}
		p.AddVars(n)
		truth := make([]float64, n)
		for i := range truth {
			truth[i] = float64(next()%5) / 4
		}
		coef := func(b byte) float64 {
			return []float64{1, -1, 2, -0.5, 1e-6, -1e6, 3.25, -7}[b%8]
		}
		for k := int(next()) % 8; k >= 0; k-- {
			v1, v2 := int32(next())%int32(n), int32(next())%int32(n)
			c := float64(int(next())-128) / 32
			vars, coefs := []int32{v1}, []float64{coef(next())}
			if v2 != v1 {
				vars, coefs = append(vars, v2), append(coefs, coef(next()))
			}
			p.AddPotential(1, c, 1+next()%2, int32(next()%3), vars, coefs)
		}
		if next()%2 == 1 && n >= 2 {
			vars := []int32{0, 1}
			coefs := []float64{1, coef(next())}
			p.AddConstraint(hlmrf.Equal, coefs[0]*truth[0]+coefs[1]*truth[1], 3, vars, coefs)
		}
		if next()%2 == 1 {
			v := int32(next()) % int32(n)
			p.AddConstraint(hlmrf.LessEq, float64(next()%5)/4, 3, []int32{v}, []float64{1})
		}
		if p.Validate() != nil {
			return
		}
		w := make([]float64, 3)
		for g := range w {
			w[g] = []float64{0, 1e-9, 0.5, 1, 30, 1e3, 1e6, 1e9}[next()%8]
		}
		learnable := []bool{true, next()%2 == 0, true}
		for _, mode := range []ConstraintMode{ConstraintsPairwise, ConstraintsIgnore} {
			o1, err := NewPseudoLikelihood(p, truth, learnable, PLOptions{Constraints: mode, Threads: 1, L2: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			o2, err := NewPseudoLikelihood(p, truth, learnable, PLOptions{Constraints: mode, Threads: 3, L2: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			g1, g2 := make([]float64, 3), make([]float64, 3)
			v1 := o1.ValueGradient(w, g1)
			v2 := o2.ValueGradient(w, g2)
			if math.IsNaN(v1) || math.IsInf(v1, 0) {
				t.Fatalf("objective %v at w=%v (truth %v)", v1, w, truth)
			}
			for g := range g1 {
				if math.IsNaN(g1[g]) || math.IsInf(g1[g], 0) {
					t.Fatalf("gradient %v at w=%v", g1, w)
				}
			}
			if v1 != v2 || g1[0] != g2[0] || g1[1] != g2[1] || g1[2] != g2[2] {
				t.Fatalf("thread count changed the result: %v %v vs %v %v", v1, g1, v2, g2)
			}
		}
	})
}
