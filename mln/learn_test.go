package mln

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPLLGradient compares the pseudo-log-likelihood's gradient with
// central finite differences on a random clause set.
func TestPLLGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	in := randomMLN(rng, 12, 40, 0)
	nw := 4
	param := make([]int32, in.NumClauses())
	share := make([]float64, in.NumClauses())
	for c := range param {
		param[c] = int32(rng.IntN(nw))
		share[c] = 1 / float64(1+rng.IntN(3))
	}
	x := make([]bool, in.NumVars)
	for v := range x {
		x[v] = rng.IntN(2) == 0
	}
	pl := newPseudoLikelihood(in, param, share, x, nw, 2)
	w := []float64{0.3, -1.2, 2.1, 0.05}
	grad := make([]float64, nw)
	pl.eval(w, grad)
	for i := range w {
		h := 1e-6
		wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
		wp[i] += h
		wm[i] -= h
		fd := (pl.eval(wp, nil) - pl.eval(wm, nil)) / (2 * h)
		if math.Abs(fd-grad[i]) > 1e-6*max(1, math.Abs(fd)) {
			t.Errorf("weight %d: gradient %.9g, finite difference %.9g", i, grad[i], fd)
		}
	}
	// The value against a direct computation of sum_v log P(x_v | rest).
	want := 0.0
	y := append([]bool(nil), x...)
	energy := func() float64 {
		e := 0.0
		for c := range in.NumClauses() {
			if in.Satisfied(c, y) {
				e += w[param[c]] * share[c]
			}
		}
		return e
	}
	for v := range y {
		e1 := energy()
		y[v] = !y[v]
		e0 := energy()
		y[v] = !y[v]
		want += e1 - math.Log(math.Exp(e1)+math.Exp(e0))
	}
	if got := pl.eval(w, nil); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("pseudo-log-likelihood %.12g, direct %.12g", got, want)
	}
}

// TestLearnRecoversWeights draws a training world from a known network in
// which each person is independent (so it can be sampled exactly) and
// checks that pseudo-likelihood learning recovers the weights, a negative
// one included.
func TestLearnRecoversWeights(t *testing.T) {
	truth := []float64{1.5, 0.8, -0.7} // Smokes => Cancer, !Cancer, Smokes
	n := 6000
	rng := rand.New(rand.NewPCG(11, 11))
	// The four states of (Smokes, Cancer) with their unnormalised weights.
	var p [4]float64
	z := 0.0
	for s := range 4 {
		sm, ca := s&1 == 1, s&2 == 2
		e := 0.0
		if !sm || ca {
			e += truth[0]
		}
		if !ca {
			e += truth[1]
		}
		if sm {
			e += truth[2]
		}
		p[s] = math.Exp(e)
		z += p[s]
	}
	var prog, db strings.Builder
	prog.WriteString("person = {")
	for i := range n {
		if i > 0 {
			prog.WriteString(", ")
		}
		fmt.Fprintf(&prog, "P%d", i)
		u, s := rng.Float64()*z, 0
		for u > p[s] {
			u -= p[s]
			s++
		}
		if s&1 == 1 {
			fmt.Fprintf(&db, "Smokes(P%d)\n", i)
		}
		if s&2 == 2 {
			fmt.Fprintf(&db, "Cancer(P%d)\n", i)
		}
	}
	prog.WriteString("}\nSmokes(person)\nCancer(person)\n0 Smokes(x) => Cancer(x)\n0 !Cancer(x)\n0 Smokes(x)\n")
	pr, err := ParseProgram("gen.mln", []byte(prog.String()))
	if err != nil {
		t.Fatal(err)
	}
	atoms, err := ParseAtoms("gen.db", []byte(db.String()), pr, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := LearnPLL(context.Background(), pr, atoms, []string{"Smokes", "Cancer"}, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Atoms != 2*n {
		t.Errorf("converged %v (%s), %d atoms", res.Converged, res.Status, res.Atoms)
	}
	for i, w := range truth {
		if math.Abs(res.Weights[i]-w) > 0.15 {
			t.Errorf("formula %d: learned %.3f, generating weight %.3f", i, res.Weights[i], w)
		}
	}
	t.Logf("learned %.3f from %v in %d iterations (%.3f s)", res.Weights, truth, res.Iter, res.Seconds.Learn)
}
