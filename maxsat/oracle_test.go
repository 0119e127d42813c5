package maxsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Test oracles that share no code with the package: brute force over all
// assignments, and the LP relaxation solved exactly by gonum's simplex.

// randomInstance makes n variables and m clauses of 1..maxLen distinct
// variables with random signs; weights are integers in [1, 10] when intW,
// else reals in (0, 10); each clause is hard with probability pHard.
func randomInstance(rng *rand.Rand, n, m, maxLen int, intW bool, pHard float64) *Instance {
	in := &Instance{NumVars: n, Start: []int32{0}}
	for c := 0; c < m; c++ {
		k := 1 + rng.IntN(maxLen)
		if k > n {
			k = n
		}
		perm := rng.Perm(n)[:k]
		lits := make([]Lit, k)
		for j, v := range perm {
			lits[j] = Pos(v)
			if rng.IntN(2) == 0 {
				lits[j] = Not(v)
			}
		}
		w := 10 * (1 - rng.Float64())
		if intW {
			w = float64(1 + rng.IntN(10))
		}
		hard := rng.Float64() < pHard
		if err := in.AddClause(w, hard, lits...); err != nil {
			panic(err)
		}
	}
	return in
}

// bruteForce returns the best soft weight over assignments that satisfy all
// hard clauses (ok false when none does) and one optimal assignment.
func bruteForce(in *Instance) (best float64, arg []bool, ok bool) {
	n, m := in.NumVars, in.NumClauses()
	pos, neg := make([]uint64, m), make([]uint64, m)
	for c := 0; c < m; c++ {
		for _, l := range in.Clause(c) {
			if l.Neg() {
				neg[c] |= 1 << l.Var()
			} else {
				pos[c] |= 1 << l.Var()
			}
		}
	}
	best = math.Inf(-1)
	bestMask := uint64(0)
	for mask := uint64(0); mask < 1<<n; mask++ {
		var s float64
		feasible := true
		for c := 0; c < m; c++ {
			sat := mask&pos[c] != 0 || ^mask&neg[c] != 0
			if in.Hard[c] {
				if !sat {
					feasible = false
					break
				}
			} else if sat {
				s += in.Weight[c]
			}
		}
		if feasible && s > best {
			best, bestMask, ok = s, mask, true
		}
	}
	if ok {
		arg = make([]bool, n)
		for i := range arg {
			arg[i] = bestMask>>i&1 == 1
		}
	}
	return best, arg, ok
}

// bruteExpected returns the expected satisfied soft weight under independent
// rounding with probabilities p, by summing over all assignments.
func bruteExpected(in *Instance, p []float64) float64 {
	n := in.NumVars
	x := make([]bool, n)
	var e float64
	for mask := 0; mask < 1<<n; mask++ {
		pr := 1.0
		for i := range x {
			x[i] = mask>>i&1 == 1
			if x[i] {
				pr *= p[i]
			} else {
				pr *= 1 - p[i]
			}
		}
		s, _ := in.Eval(x)
		e += pr * s
	}
	return e
}

// lpRelaxation solves min sum_soft w_c t_c s.t. t_c >= 1 - l_c(y) (soft),
// 1 - l_c(y) <= 0 (hard), t >= 0, 0 <= y <= 1 exactly with gonum's simplex,
// in standard form with variables (y, u = 1 - y, t, s = surplus). It returns
// the optimum and y; ok is false when the LP is infeasible.
func lpRelaxation(t *testing.T, in *Instance) (opt float64, y []float64, ok bool) {
	t.Helper()
	n, m := in.NumVars, in.NumClauses()
	// columns: y 0..n-1, u n..2n-1, t 2n..2n+m-1 (unused for hard: fixed by a row), s 2n+m..2n+2m-1
	cols := 2*n + 2*m
	rows := n + m
	A := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	for i := 0; i < n; i++ {
		A.Set(i, i, 1)
		A.Set(i, n+i, 1)
		b[i] = 1
	}
	for k := 0; k < m; k++ {
		r := n + k
		nneg := 0
		for _, l := range in.Clause(k) {
			if l.Neg() {
				A.Set(r, l.Var(), A.At(r, l.Var())-1)
				nneg++
			} else {
				A.Set(r, l.Var(), A.At(r, l.Var())+1)
			}
		}
		// l_c(y) + t_c - s_c = 1, i.e. sum_pos y - sum_neg y + t - s = 1 - nneg.
		A.Set(r, 2*n+m+k, -1)
		if !in.Hard[k] { // a hard clause has no t_c: its column is dropped below
			A.Set(r, 2*n+k, 1)
			c[2*n+k] = in.Weight[k]
		}
		b[r] = float64(1 - nneg)
	}
	// Columns of t for hard clauses are all zero: Simplex rejects zero
	// columns, so drop them.
	keep := make([]int, 0, cols)
	for j := 0; j < cols; j++ {
		if j >= 2*n && j < 2*n+m && in.Hard[j-2*n] {
			continue
		}
		keep = append(keep, j)
	}
	A2 := mat.NewDense(rows, len(keep), nil)
	c2 := make([]float64, len(keep))
	for jj, j := range keep {
		for r := 0; r < rows; r++ {
			A2.Set(r, jj, A.At(r, j))
		}
		c2[jj] = c[j]
	}
	f, x, err := lp.Simplex(c2, A2, b, 1e-10, nil)
	if err == lp.ErrInfeasible {
		return 0, nil, false
	}
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	y = make([]float64, n)
	copy(y, x[:n])
	return f, y, true
}

func TestOracleLPMatchesRelaxedWeight(t *testing.T) {
	// The LP optimum equals W - relaxedWeight(y*) at the simplex's y*.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		in := randomInstance(rng, 6, 12, 3, false, 0)
		opt, y, ok := lpRelaxation(t, in)
		if !ok {
			t.Fatal("soft-only LP infeasible")
		}
		rw, _, err := relaxedWeight(context.Background(), in, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(in.SoftWeight()-rw-opt) > 1e-7 {
			t.Fatalf("trial %d: LP %v but W - relaxed(y*) = %v", trial, opt, in.SoftWeight()-rw)
		}
	}
}
