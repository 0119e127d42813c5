package main

import (
	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readValues(t *testing.T, path string) []float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vals []float64
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatalf("bad value line %q", line)
		}
		vals = append(vals, v)
	}
	return vals
}

// TestSolveExample1 solves paper 000 Example 1 (optimum 0 at y3 = 1; from
// the cold start y = (0, 0, 1, 0)) and checks the values and report files.
func TestSolveExample1(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "values.txt")
	report := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, "solve", "../../hlmrf/testdata/example1.hlmrf", "--output", values, "--report", report, "--threads", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"4 variables, 4 potentials, 0 hard constraints", "ADMM converged after", "objective ", "primal residual", "seconds: load"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	vals := readValues(t, values)
	want := []float64{0, 0, 1, 0}
	if len(vals) != 4 {
		t.Fatalf("values %v", vals)
	}
	for j := range want {
		if math.Abs(vals[j]-want[j]) > 1e-3 {
			t.Fatalf("values %v, want %v", vals, want)
		}
	}
	var r map[string]any
	data := readJSON(t, report, &r)
	for _, key := range []string{"variables", "potentials", "constraints", "objective", "iterations", "converged", "primal_residual", "dual_residual", "max_constraint_violation", "violated_constraints", "seconds"} {
		if _, ok := r[key]; !ok {
			t.Errorf("report lacks %q: %s", key, data)
		}
	}
	if r["variables"] != 4.0 || r["converged"] != true || r["violated_constraints"] != 0.0 {
		t.Errorf("report %s", data)
	}
	// The certified bound: the optimum (0) lies between it and the objective.
	lb, ok1 := r["lower_bound"].(float64)
	gap, ok2 := r["relative_gap"].(float64)
	if !ok1 || !ok2 || lb > 1e-12 || gap > admm.DefaultGapTol || !strings.Contains(out, "Lagrangian lower bound") {
		t.Errorf("lower bound / gap missing or wrong: %s\n%s", data, out)
	}
	sec, _ := r["seconds"].(map[string]any)
	for _, key := range []string{"load", "solve", "total"} {
		if _, ok := sec[key]; !ok {
			t.Errorf("report seconds lack %q: %s", key, data)
		}
	}
}

// TestSolveFlagsChangeTheRun: the ADMM flags reach the solver.
func TestSolveFlagsChangeTheRun(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "p.hlmrf", "# variables: 3\n1 0:-1 1:-1\n2 0:0 1:1 2:-1 #^2\n")
	report := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, "solve", path, "--report", report, "--max-iter", "7", "--check-every", "3", "--rho", "0.5", "--eps-abs", "0", "--eps-rel", "0", "--threads", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var r solveReport
	data := readJSON(t, report, &r)
	if r.Iterations != 7 || r.Converged || r.Status != admm.IterationLimit {
		t.Fatalf("report %s", data)
	}
	if !strings.Contains(errs, "warning: "+path+": ADMM stopped at the iteration limit (7)") || !strings.Contains(out, "iteration limit (7)") {
		t.Fatalf("no warning about the iteration limit:\n%s\n%s", out, errs)
	}
	// The isolated third column is kept: three values.
	values := filepath.Join(dir, "v.txt")
	if code, out, errs := runCLI(t, "solve", path, "--output", values); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if vals := readValues(t, values); len(vals) != 3 || math.Abs(vals[0]-1) > 1e-3 || vals[2] != 0 {
		t.Fatalf("values %v", vals)
	}
}

// TestSolveGapTol: a demanding --gap-tol keeps the solver going after the
// (here loose) residual test has passed, until the certified gap is met.
func TestSolveGapTol(t *testing.T) {
	dir := t.TempDir()
	// A random MAX-SAT relaxation (3-literal and unit clauses, linear
	// hinges), on which ADMM's residuals settle before the objective does.
	p := admmtest.Clauses(200, 50, 3, 1, 2)
	p.Append(admmtest.Clauses(100, 50, 1, 1, 1002), false)
	var b strings.Builder
	if err := hlmrf.Write(&b, p); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, "p.hlmrf", b.String())
	var iters [2]int
	for i, tol := range []string{"0", "1e-5"} {
		report := filepath.Join(dir, "r"+tol+".json")
		code, out, errs := runCLI(t, "solve", path, "--report", report, "--gap-tol", tol)
		if code != 0 {
			t.Fatalf("--gap-tol %s: exit %d\n%s\n%s", tol, code, out, errs)
		}
		var r solveReport
		data := readJSON(t, report, &r)
		if !r.Converged {
			t.Fatalf("--gap-tol %s: report %s", tol, data)
		}
		// --gap-tol 0 is PSL's rule: no bound is computed or reported.
		if tol == "0" {
			if r.LowerBound != nil {
				t.Fatalf("--gap-tol 0 reported a lower bound: %s", data)
			}
		} else if r.LowerBound == nil || *r.LowerBound > r.Objective+1e-12 || *r.RelativeGap > 1e-5 {
			t.Fatalf("--gap-tol %s: bound missing or gap not met: %s", tol, data)
		}
		iters[i] = r.Iterations
	}
	if iters[1] <= iters[0] {
		t.Fatalf("iterations with --gap-tol 0: %d, with 1e-5: %d; the gap test had no effect", iters[0], iters[1])
	}
}

// TestSolveInfeasible: y1 + y2 = 3 cannot hold in the box; the command
// names the constraint and the violation, writes the outputs and exits 1.
func TestSolveInfeasible(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "inf.hlmrf", "1 0:0 1:1 #^2\n<= 0:1 1:1\n= 0:3 1:1 2:1\n")
	values := filepath.Join(dir, "v.txt")
	report := filepath.Join(dir, "r.json")
	code, out, errs := runCLI(t, "solve", path, "--output", values, "--report", report, "--max-iter", "500")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "constraint 2, y1 + y2 = 3, violated by 1") {
		t.Fatalf("stderr does not name the constraint and its violation:\n%s", errs)
	}
	if vals := readValues(t, values); len(vals) != 2 {
		t.Fatalf("values %v", vals)
	}
	var r solveReport
	data := readJSON(t, report, &r)
	if r.Converged || r.Status != admm.Infeasible || r.ViolatedConstraints != 1 || r.WorstConstraint != 2 || math.Abs(r.MaxConstraintViolation-1) > 1e-6 || r.Iterations != 500 {
		t.Fatalf("report %s", data)
	}
	// The duals prove y1 + y2 = 3 infeasible in the box: the bound is +Inf,
	// which the report leaves out rather than writing invalid JSON.
	if r.LowerBound != nil || r.RelativeGap != nil {
		t.Fatalf("report has a finite lower bound for an infeasible problem: %s", data)
	}
}

func TestSolveBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.hlmrf", "1 0:-1 1:-1\n")
	bad := writeFile(t, dir, "bad.hlmrf", "1 0:-1 1:-1\n2 0:1 x:1\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"syntax error", []string{"solve", bad}, "bad.hlmrf:2:7: bad column"},
		{"missing file", []string{"solve", filepath.Join(dir, "nope.hlmrf")}, "nope.hlmrf"},
		{"no file", []string{"solve"}, "exactly one input file"},
		{"bad rho", []string{"solve", good, "--rho", "0"}, "rho 0 must be"},
		{"bad check", []string{"solve", good, "--check-every", "0"}, "check-every"},
		{"bad threads", []string{"solve", good, "--threads", "-1"}, "threads"},
		{"bad gap", []string{"solve", good, "--gap-tol", "-1"}, "gap-tol -1 must be"},
		{"unknown flag", []string{"solve", good, "--nope"}, "unknown flag"},
		{"bad number", []string{"solve", good, "--eps-abs", "x"}, "invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q, want exit 2 and %q\n%s", code, errs, tc.want, out)
			}
		})
	}
	// Unwritable output: refused before the solve (bad input), nothing written.
	code, out, errs := runCLI(t, "solve", good, "--output", filepath.Join(dir, "no", "such", "dir", "v.txt"))
	if code != 2 || !strings.Contains(errs, "v.txt: directory") || strings.Contains(out, "ADMM") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
}

// TestSolveLifted: --lifted reaches the same MAP state as the plain solve
// and reports the lifted sizes (paper 000 Example 3: 3 variables, 3
// potentials).
func TestSolveLifted(t *testing.T) {
	dir := t.TempDir()
	plainOut, liftOut, report := filepath.Join(dir, "plain"), filepath.Join(dir, "lifted"), filepath.Join(dir, "r.json")
	if code, _, errs := runCLI(t, "solve", "../../hlmrf/testdata/example1.hlmrf", "--output", plainOut); code != 0 {
		t.Fatalf("plain: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "solve", "../../hlmrf/testdata/example1.hlmrf", "--lifted", "--output", liftOut, "--report", report)
	if code != 0 {
		t.Fatalf("lifted: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "lifted to 3 variables, 3 potentials") {
		t.Fatalf("summary lacks the lifted sizes:\n%s", out)
	}
	a, _ := os.ReadFile(plainOut)
	b, _ := os.ReadFile(liftOut)
	if string(a) != string(b) {
		t.Fatalf("lifted values differ:\n%s\nvs plain\n%s", b, a)
	}
	var rep struct {
		Lifted  struct{ Variables, Potentials int }
		Seconds struct{ Lift *float64 }
	}
	raw := readJSON(t, report, &rep)
	if rep.Lifted.Variables != 3 || rep.Lifted.Potentials != 3 || rep.Seconds.Lift == nil {
		t.Fatalf("report %s", raw)
	}
}
