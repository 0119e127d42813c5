package admmtest

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Independent optimum oracles for MAP solvers' tests: gonum's simplex
// method (LPOptimum, no external program) and COIN-OR CLP where it is
// installed (CLPOptimum, an LP/QP solver run as a separate program on an
// MPS file the test writes).

// LPOptimum is the oracle that needs no external program: it minimises
// f(y) over [0,1]^n subject to p's hard constraints with gonum's simplex
// method. Linear hinges are exact LP rows (h_i >= a_i.y - c_i, h_i >= 0,
// cost w_i*h_i). A squared hinge costs w_i*z_i with z_i above tangent
// cuts z_i >= 2t*h_i - t^2 of h_i^2 (Kelley's cutting planes): the LP
// optimum is a lower bound on the true optimum and f at the LP's y an
// upper bound; cuts are added at the LP's hinge values until the two agree
// to tol (relative; squared hinges: tol of 1e-7 or more). It returns the upper bound, f at a feasible point
// within tol of the optimum. The simplex is dense, so this is for
// problems of at most a few hundred potentials (a few dozen squared ones).
func LPOptimum(t testing.TB, p *hlmrf.Problem, tol float64) float64 {
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
			t.Fatalf("LPOptimum: simplex (round %d, %d rows): %v", round, len(all), err)
		}
		y := x[:n]
		upper := p.Objective(y)
		if v := p.Violations(y, 1e-7); v.Violated != 0 {
			t.Fatalf("LPOptimum: the simplex's point violates %d hard constraints (max %g)", v.Violated, v.Max)
		}
		if upper-lower <= tol*max(1, math.Abs(upper)) {
			return upper
		}
		if round == 200 {
			t.Fatalf("LPOptimum: cutting planes did not close the gap: [%.12g, %.12g] after %d rounds", lower, upper, round)
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
			t.Fatalf("LPOptimum: gap [%.12g, %.12g] but no cut to add", lower, upper)
		}
	}
}

// FindCLP returns the CLP binary, or "" when it is not installed.
func FindCLP() string {
	if path, err := exec.LookPath("clp"); err == nil {
		return path
	}
	if _, err := os.Stat("/usr/bin/clp"); err == nil {
		return "/usr/bin/clp"
	}
	return ""
}

// writeMPS writes min f(y) over [0,1]^n subject to p's hard constraints as
// an LP (linear hinges only) or convex QP: one column Y<j> per variable, one
// column H<i> >= 0 and row P<i>: H_i - a_i.y >= -c_i per potential of
// nonzero weight, objective w_i*H_i (linear) or w_i*H_i^2 (squared, QUADOBJ
// entry 2w_i since MPS quadratic objectives are 1/2 x'Qx), rows C<j> for the
// constraints.
func writeMPS(path string, p *hlmrf.Problem) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	fmt.Fprintln(w, "NAME          ORACLE")
	fmt.Fprintln(w, "ROWS")
	fmt.Fprintln(w, " N  OBJ")
	for i := range p.Weight {
		if p.Weight[i] > 0 {
			fmt.Fprintf(w, " G  P%d\n", i)
		}
	}
	for j := range p.CKind {
		k := "L"
		if p.CKind[j] == hlmrf.Equal {
			k = "E"
		}
		fmt.Fprintf(w, " %s  C%d\n", k, j)
	}
	// Column-major entries for the Y columns.
	type entry struct {
		row string
		val float64
	}
	col := make([][]entry, p.NumVars)
	for i := range p.Weight {
		if p.Weight[i] == 0 {
			continue
		}
		vs, cs := p.Terms(i)
		for k, v := range vs {
			col[v] = append(col[v], entry{fmt.Sprintf("P%d", i), -cs[k]})
		}
	}
	for j := range p.CKind {
		vs, cs := p.CTerms(j)
		for k, v := range vs {
			col[v] = append(col[v], entry{fmt.Sprintf("C%d", j), cs[k]})
		}
	}
	fmt.Fprintln(w, "COLUMNS")
	for j := 0; j < p.NumVars; j++ {
		// Every column appears, so that the bounds section may name it.
		field(w, fmt.Sprintf("Y%d", j), "OBJ", "0")
		for _, e := range col[j] {
			field(w, fmt.Sprintf("Y%d", j), e.row, num(e.val))
		}
	}
	for i := range p.Weight {
		if p.Weight[i] == 0 {
			continue
		}
		lin := 0.0
		if p.Power[i] == 1 {
			lin = p.Weight[i]
		}
		field(w, fmt.Sprintf("H%d", i), "OBJ", num(lin))
		field(w, fmt.Sprintf("H%d", i), fmt.Sprintf("P%d", i), "1")
	}
	fmt.Fprintln(w, "RHS")
	for i := range p.Weight {
		if p.Weight[i] > 0 && p.Const[i] != 0 {
			field(w, "RHS", fmt.Sprintf("P%d", i), num(-p.Const[i]))
		}
	}
	for j := range p.CKind {
		if p.CConst[j] != 0 {
			field(w, "RHS", fmt.Sprintf("C%d", j), num(p.CConst[j]))
		}
	}
	fmt.Fprintln(w, "BOUNDS")
	for j := 0; j < p.NumVars; j++ {
		fmt.Fprintf(w, " UP %-8s  %-8s  1\n", "BND", fmt.Sprintf("Y%d", j))
	}
	quad := false
	for i := range p.Weight {
		if p.Weight[i] > 0 && p.Power[i] == 2 {
			if !quad {
				fmt.Fprintln(w, "QUADOBJ")
				quad = true
			}
			field(w, fmt.Sprintf("H%d", i), fmt.Sprintf("H%d", i), num(2*p.Weight[i]))
		}
	}
	fmt.Fprintln(w, "ENDATA")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// field writes one fixed-format MPS data line: name in columns 5-12, row
// in 15-22, value from column 25 (CLP reads values longer than the nominal
// 12 characters).
func field(w io.Writer, name, row, val string) {
	fmt.Fprintf(w, "    %-8s  %-8s  %s\n", name, row, val)
}

// CLPOptimum solves p with CLP and returns the optimal objective.
func CLPOptimum(t testing.TB, p *hlmrf.Problem) float64 {
	t.Helper()
	clp := FindCLP()
	if clp == "" {
		t.Fatal("CLPOptimum: COIN-OR CLP (clp) is not installed")
	}
	dir := t.TempDir()
	mps := filepath.Join(dir, "p.mps")
	sol := filepath.Join(dir, "p.sol")
	if err := writeMPS(mps, p); err != nil {
		t.Fatal(err)
	}
	quad := false
	for i := range p.Power {
		quad = quad || (p.Power[i] == 2 && p.Weight[i] > 0)
	}
	args := []string{mps, "-primalT", "1e-10", "-dualT", "1e-10"}
	if quad {
		// CLP's interior-point method solves convex QPs to high accuracy.
		args = append(args, "-barrier")
	} else {
		args = append(args, "-dualsimplex")
	}
	args = append(args, "-solution", sol)
	out, err := exec.Command(clp, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("clp failed: %v\n%s", err, out)
	}
	data, err := os.ReadFile(sol)
	if err != nil {
		t.Fatalf("clp wrote no solution: %v\n%s", err, out)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if !strings.HasPrefix(first, "Optimal") {
		t.Fatalf("clp did not find an optimum: %q\n%s", first, out)
	}
	fs := strings.Fields(first)
	obj, err := strconv.ParseFloat(fs[len(fs)-1], 64)
	if err != nil {
		t.Fatalf("cannot parse clp objective from %q", first)
	}
	return obj
}
