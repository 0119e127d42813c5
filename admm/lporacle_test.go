package admm

import (
	"math"
	"testing"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// lpOptimum is the oracle that needs no external program: it minimises
// f(y) over [0,1]^n subject to p's hard constraints with gonum's simplex
// method. Linear hinges are exact LP rows (h_i >= a_i.y - c_i, h_i >= 0,
// cost w_i*h_i). A squared hinge costs w_i*z_i with z_i above tangent
// cuts z_i >= 2t*h_i - t^2 of h_i^2 (Kelley's cutting planes): the LP
// optimum is a lower bound on the true optimum and f at the LP's y an
// upper bound; cuts are added at the LP's hinge values until the two agree
// to tol (relative; squared hinges: tol of 1e-7 or more). It returns the upper bound, f at a feasible point
// within tol of the optimum. The simplex is dense, so this is for
// problems of at most a few hundred potentials (a few dozen squared ones).
func lpOptimum(t *testing.T, p *hlmrf.Problem, tol float64) float64 {
	t.Helper()
	n := p.NumVars
	type row struct {
		cols  []int
		vals  []float64
		rhs   float64
		slack bool // a <= row: gets its own slack column
	}
	var rows []row
	ncol := n
	hcol := make([]int, p.NumPotentials()) // column of h_i, -1 for weight 0
	zcol := make([]int, p.NumPotentials()) // column of z_i for squared hinges, else -1
	for i := range p.Weight {
		hcol[i], zcol[i] = -1, -1
		if p.Weight[i] == 0 {
			continue
		}
		hcol[i] = ncol
		ncol++
		if p.Power[i] == 2 {
			zcol[i] = ncol
			ncol++
		}
		vs, cs := p.Terms(i)
		r := row{rhs: p.Const[i], slack: true}
		for k, v := range vs {
			r.cols = append(r.cols, int(v))
			r.vals = append(r.vals, cs[k])
		}
		r.cols = append(r.cols, hcol[i])
		r.vals = append(r.vals, -1)
		rows = append(rows, r)
	}
	for j := range n {
		rows = append(rows, row{cols: []int{j}, vals: []float64{1}, rhs: 1, slack: true})
	}
	for j := range p.CKind {
		vs, cs := p.CTerms(j)
		r := row{rhs: p.CConst[j], slack: p.CKind[j] == hlmrf.LessEq}
		for k, v := range vs {
			r.cols = append(r.cols, int(v))
			r.vals = append(r.vals, cs[k])
		}
		rows = append(rows, r)
	}
	// A cut z_i >= 2t*h_i - t^2, written -z_i + 2t*h_i <= t^2. Cuts that
	// are slack at the LP's optimum are dropped before the next round: the
	// optimum stays optimal without them (the LP is convex), so the lower
	// bound stays valid and never falls, and the LP stays small and well
	// conditioned (piles of nearly parallel cuts make the simplex's bases
	// singular).
	// The cut at t = 1 is never dropped, so that no z_i column is empty.
	type cutRow struct {
		pot int
		t   float64
	}
	var cuts []cutRow
	for i := range p.Weight {
		if zcol[i] >= 0 {
			cuts = append(cuts, cutRow{i, 0.5}, cutRow{i, 1})
		}
	}
	for round := 0; ; round++ {
		all := append([]row(nil), rows...)
		for _, k := range cuts {
			all = append(all, row{cols: []int{zcol[k.pot], hcol[k.pot]}, vals: []float64{-1, 2 * k.t}, rhs: k.t * k.t, slack: true})
		}
		nslack := 0
		for _, r := range all {
			if r.slack {
				nslack++
			}
		}
		A := mat.NewDense(len(all), ncol+nslack, nil)
		b := make([]float64, len(all))
		c := make([]float64, ncol+nslack)
		for i := range p.Weight {
			switch {
			case zcol[i] >= 0:
				c[zcol[i]] = p.Weight[i]
			case hcol[i] >= 0:
				c[hcol[i]] = p.Weight[i]
			}
		}
		s := ncol
		for r, rw := range all {
			for k, col := range rw.cols {
				A.Set(r, col, A.At(r, col)+rw.vals[k])
			}
			if rw.slack {
				A.Set(r, s, 1)
				s++
			}
			b[r] = rw.rhs
		}
		lower, x, err := lp.Simplex(c, A, b, 1e-12, nil)
		if err != nil {
			t.Fatalf("lpOptimum: simplex (round %d, %d rows): %v", round, len(all), err)
		}
		y := x[:n]
		upper := p.Objective(y)
		if v := p.Violations(y, 1e-7); v.Violated != 0 {
			t.Fatalf("lpOptimum: the simplex's point violates %d hard constraints (max %g)", v.Violated, v.Max)
		}
		if upper-lower <= tol*max(1, math.Abs(upper)) {
			return upper
		}
		if round == 200 {
			t.Fatalf("lpOptimum: cutting planes did not close the gap: [%.12g, %.12g] after %d rounds", lower, upper, round)
		}
		kept := cuts[:0]
		for _, k := range cuts {
			if k.t == 1 || k.t*k.t+x[zcol[k.pot]]-2*k.t*x[hcol[k.pot]] <= 1e-9 {
				kept = append(kept, k)
			}
		}
		cuts = kept
		added := 0
		for i := range p.Weight {
			if zcol[i] < 0 {
				continue
			}
			if h := p.Hinge(i, y); p.Weight[i]*(h*h-x[zcol[i]]) > 1e-3*tol*max(1, math.Abs(upper))/float64(p.NumPotentials()) {
				cuts = append(cuts, cutRow{i, h})
				added++
			}
		}
		if added == 0 {
			t.Fatalf("lpOptimum: gap [%.12g, %.12g] but no cut to add", lower, upper)
		}
	}
}

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
		got := lpOptimum(t, p, 1e-7)
		// The grid's step is 1/2000 and its constraints hold to 1e-3, so
		// it is within about 1e-3 of the optimum either way.
		if want := gridOptimum(p, 2000, 1e-3); math.Abs(got-want) > 2e-3 {
			t.Errorf("%q: lpOptimum %.8g, grid %.8g", text, got, want)
		}
	}
	p := admmtest.Random(admmtest.Config{Vars: 8, Potentials: 20, MinArity: 1, MaxArity: 3, Power: 2, Seed: 41})
	if got, want := lpOptimum(t, p, 1e-7), p.Objective(cdOptimum(t, p)); math.Abs(got-want) > 1e-6*max(1, want) {
		t.Errorf("squared hinges: lpOptimum %.12g, coordinate descent %.12g", got, want)
	}
}
