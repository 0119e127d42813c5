package mln

import (
	"context"
	"fmt"
	"testing"
)

// TestLearnPLLUnbounded: without a prior the pseudo-log-likelihood has no
// maximum when the training world never violates a clause (the tester's
// reproducer: -noPrior said "converged" at 14.86) or never satisfies one;
// learning now says so and does not claim convergence. With a prior, or a
// world that both satisfies and violates the clause, it converges.
func TestLearnPLLUnbounded(t *testing.T) {
	prog := "P(t)\nQ(t)\nR(t)\n1 P(x) v Q(x)\n"
	for _, tc := range []struct {
		name  string
		db    string
		prior float64
		want  string // "" bounded, else the sign of the unbounded direction
	}{
		{"never violated", "P(A)\nQ(B)\nP(C)\nQ(C)\n", -1, "+"},
		{"never violated, prior", "P(A)\nQ(B)\nP(C)\nQ(C)\n", 0, ""},
		{"never satisfied", "R(A)\nR(B)\n", -1, "-"},
		{"both", "P(A)\nQ(B)\nR(C)\n", -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, atoms := parseLearning(t, prog, tc.db)
			res, err := LearnPLL(context.Background(), pr, atoms, nil, LearnOptions{PriorStdDev: tc.prior})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, u := range res.Unbounded {
				if len(u.Params) != 1 || u.Params[0] != 0 || u.Formulas[0] != "P(x) v Q(x)" {
					t.Fatalf("unbounded %+v", u)
				}
				got += map[bool]string{true: "+", false: "-"}[u.Direction[0] > 0]
			}
			if got != tc.want || res.Converged != (tc.want == "") || res.UnboundedUnchecked {
				t.Fatalf("unbounded %q converged %v (weights %v, status %s), want %q", got, res.Converged, res.Weights, res.Status, tc.want)
			}
			if tc.want == "" {
				return
			}
			// The objective itself keeps rising along the direction.
			prev := res.PLL
			for _, step := range []float64{1, 10, 100} {
				w := res.Weights[0] + step*res.Unbounded[0].Direction[0]
				pl, _ := learnedPLL(t, pr, atoms, w)
				if !(pl > prev) {
					t.Errorf("at %v: pseudo-log-likelihood %v, not above %v", w, pl, prev)
				}
				prev = pl
			}
		})
	}
}

// learnedPLL is the pseudo-log-likelihood of the training world with the
// one formula's weight w.
func learnedPLL(t *testing.T, pr *Program, atoms []GroundAtom, w float64) (float64, error) {
	t.Helper()
	l, _, err := prepareLearning(context.Background(), pr, atoms, nil, LearnOptions{}.Ground, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.learned) != 1 {
		return 0, fmt.Errorf("%d weights", len(l.learned))
	}
	return l.pl.eval([]float64{w}, nil), nil
}
