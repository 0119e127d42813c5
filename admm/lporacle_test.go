package admm

import (
	"math"
	"testing"

	"github.com/hinge-srl/hinge/admm/admmtest"
)

// TestLPOracle checks lpOptimum itself against the oracles it stands in
// for: brute force on the tiny grid problems, coordinate descent on squared
// problems without constraints, and CLP where it is installed.
func TestLPOracle(t *testing.T) {
	for _, text := range []string{
		"2 0:0.2 1:1 2:1\n1 0:-1 1:-1 #^1\n3 0:-0.6 2:-1\n<= 0:0.9 1:1 2:1\n",
		"2 0:0.2 1:1 2:-1 #^2\n1 0:-1 1:-1 #^2\n= 0:0.7 1:1 2:1\n",
		"1.5 0:0.3 1:2 2:-1 #^2\n0.5 0:-0.8 1:-1 2:-1\n2 0:0 2:1 #^2\n<= 0:1.2 1:1.5 2:1\n",
	} {
		p := parse(t, text)
		got := admmtest.LPOptimum(t, p, 1e-7)
		// The grid's step is 1/2000 and its constraints hold to 1e-3, so
		// it is within about 1e-3 of the optimum either way.
		if want := gridOptimum(p, 2000, 1e-3); math.Abs(got-want) > 2e-3 {
			t.Errorf("%q: lpOptimum %.8g, grid %.8g", text, got, want)
		}
	}
	p := admmtest.Random(admmtest.Config{Vars: 8, Potentials: 20, MinArity: 1, MaxArity: 3, Power: 2, Seed: 41})
	if got, want := admmtest.LPOptimum(t, p, 1e-7), p.Objective(cdOptimum(t, p)); math.Abs(got-want) > 1e-6*max(1, want) {
		t.Errorf("squared hinges: lpOptimum %.12g, coordinate descent %.12g", got, want)
	}
}
