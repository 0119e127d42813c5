package admm

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
)

// This file holds the independent oracles the solver is checked against:
// gonum's simplex method (lporacle_test.go), COIN-OR CLP where it is
// installed (an LP/QP solver run as a separate program on an MPS file the
// test writes), a projected coordinate-descent solver for squared hinges,
// and a brute-force grid for one- and two-variable problems.

// findCLP returns the CLP binary, or "" when it is not installed.
func findCLP() string {
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

// clpOptimum solves p with CLP and returns the optimal objective.
func clpOptimum(t *testing.T, p *hlmrf.Problem) float64 {
	t.Helper()
	clp := findCLP()
	if clp == "" {
		t.Fatal("clpOptimum: COIN-OR CLP (clp) is not installed")
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

// cdOptimum minimises a problem of squared hinges (no hard constraints) over
// [0,1]^n by exact coordinate descent: along one coordinate the objective is
// a convex piecewise quadratic whose derivative is found to vanish by
// bisection. The objective is continuously differentiable, so coordinate
// descent converges to the minimum; it runs until a sweep moves no variable
// by more than 1e-14 and returns the point.
func cdOptimum(t *testing.T, p *hlmrf.Problem) []float64 {
	t.Helper()
	if p.NumConstraints() != 0 {
		t.Fatal("cdOptimum: hard constraints are not supported")
	}
	for _, pw := range p.Power {
		if pw != 2 {
			t.Fatal("cdOptimum: only squared hinges are supported")
		}
	}
	n := p.NumVars
	// Potentials of each variable, with the variable's coefficient.
	type occ struct {
		pot  int
		coef float64
	}
	occs := make([][]occ, n)
	for i := range p.Weight {
		vs, cs := p.Terms(i)
		for k, v := range vs {
			occs[v] = append(occs[v], occ{i, cs[k]})
		}
	}
	y := make([]float64, n)
	lin := make([]float64, p.NumPotentials()) // a_i.y - c_i
	for i := range lin {
		vs, cs := p.Terms(i)
		lin[i] = -p.Const[i]
		for k, v := range vs {
			lin[i] += cs[k] * y[v]
		}
	}
	for sweep := 0; sweep < 200000; sweep++ {
		moved := 0.0
		for j := 0; j < n; j++ {
			// derivative of the objective in y_j at value x
			deriv := func(x float64) float64 {
				d := 0.0
				for _, o := range occs[j] {
					h := lin[o.pot] + o.coef*(x-y[j])
					if h > 0 {
						d += 2 * p.Weight[o.pot] * h * o.coef
					}
				}
				return d
			}
			var x float64
			switch {
			case deriv(0) >= 0:
				x = 0
			case deriv(1) <= 0:
				x = 1
			default:
				lo, hi := 0.0, 1.0
				for it := 0; it < 200 && hi-lo > 1e-17; it++ {
					mid := (lo + hi) / 2
					if deriv(mid) > 0 {
						hi = mid
					} else {
						lo = mid
					}
				}
				x = (lo + hi) / 2
			}
			if d := x - y[j]; d != 0 {
				for _, o := range occs[j] {
					lin[o.pot] += o.coef * d
				}
				moved = max(moved, math.Abs(d))
				y[j] = x
			}
		}
		if moved < 1e-14 {
			return y
		}
	}
	t.Fatal("cdOptimum: coordinate descent did not settle")
	return nil
}

// gridOptimum minimises p over a uniform grid of [0,1]^n (n <= 2) with the
// given number of steps, keeping only points that satisfy the hard
// constraints within tol, and returns the best objective.
func gridOptimum(p *hlmrf.Problem, steps int, tol float64) float64 {
	best := math.Inf(1)
	y := make([]float64, p.NumVars)
	var rec func(j int)
	rec = func(j int) {
		if j == p.NumVars {
			if p.Violations(y, tol).Violated == 0 {
				best = min(best, p.Objective(y))
			}
			return
		}
		for s := 0; s <= steps; s++ {
			y[j] = float64(s) / float64(steps)
			rec(j + 1)
		}
	}
	rec(0)
	return best
}
