package admm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

func parse(t testing.TB, text string) *hlmrf.Problem {
	t.Helper()
	p, err := hlmrf.Read(strings.NewReader(text), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func solve(t testing.TB, p *hlmrf.Problem, opt Options) *Result {
	t.Helper()
	res, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	for j, y := range res.Values {
		if !(y >= 0 && y <= 1) {
			t.Fatalf("value %d = %v outside [0,1]", j, y)
		}
	}
	return res
}

func relClose(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*max(1, math.Abs(want))
}

// TestLocalStepOptimality checks every closed-form local step against the
// optimality condition of its subproblem, min_x f(x) + rho/2 |x - v|^2:
// rho*(v - x) must be mu*a with mu in the subdifferential of the term's
// scalar function at a.x - c (linear hinge: 0 below, w above, [0,w] at the
// kink; squared hinge: 2w*max(a.x-c, 0); <=: projection, mu >= 0 and
// mu*(a.x-c) = 0 with a.x <= c; =: a.x = c).
func TestLocalStepOptimality(t *testing.T) {
	rng := newRand(1)
	kinds := []string{"linear", "squared", "leq", "eq"}
	for trial := 0; trial < 4000; trial++ {
		kind := kinds[trial%len(kinds)]
		k := 1 + rng.IntN(4)
		a := make([]float64, k)
		v := make([]float64, k)
		vars := make([]int32, k)
		for i := range a {
			a[i] = (rng.Float64()*4 - 2)
			if math.Abs(a[i]) < 0.05 {
				a[i] = 0.5
			}
			v[i] = rng.Float64()*3 - 1
			vars[i] = int32(i)
		}
		c := rng.Float64()*4 - 2
		w := rng.Float64() * 5
		if trial%17 == 0 {
			w = 0
		}
		rho := 0.1 + rng.Float64()*3
		var p hlmrf.Problem
		p.AddVars(k)
		switch kind {
		case "linear":
			p.AddPotential(w, c, 1, -1, vars, a)
		case "squared":
			p.AddPotential(w, c, 2, -1, vars, a)
		case "leq":
			p.AddConstraint(hlmrf.LessEq, c, -1, vars, a)
		case "eq":
			p.AddConstraint(hlmrf.Equal, c, -1, vars, a)
		}
		opt := DefaultOptions()
		opt.Rho = rho
		opt.RhoPolicy = RhoFixed // rho as given, not scaled to a tiny w (WeightScale)
		s, err := New(&p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.prepare(nil); err != nil {
			t.Fatal(err)
		}
		// With every copy at z = v and zero duals (q = a.v + c: a zero step
		// from v) the local step pulls towards v; the new local copy is
		// x = v - step*a, and step*a_k is what it adds to the accumulator.
		copy(s.z, v)
		s.q[0] = dot(a, v) + c
		acc := make([]float64, k)
		rec := make([]float64, 1)
		if kind == "linear" || kind == "squared" {
			localPotentials(s.prm, s.caps, s.start, s.coef, s.vars, s.q, s.z, acc, rec, 0, 1)
		} else {
			localConstraints(s.cprm, s.start[s.m:], s.coef, s.vars, s.q[s.m:], s.z, acc, rec, 0, 1)
		}
		x := make([]float64, k)
		for i := range x {
			x[i] = v[i] - rec[0]*a[i]
			if acc[i] != rec[0]*a[i] {
				t.Fatalf("%s trial %d: accumulator %v, step %v times a %v", kind, trial, acc, rec[0], a)
			}
		}
		// mu from the first coordinate, then check parallelism.
		ax := -c
		an := 0.0
		for i := range a {
			ax += a[i] * x[i]
			an += a[i] * a[i]
		}
		mu := 0.0
		for i := range a {
			mu += rho * (v[i] - x[i]) * a[i]
		}
		mu /= an
		for i := range a {
			if d := rho*(v[i]-x[i]) - mu*a[i]; math.Abs(d) > 1e-9 {
				t.Fatalf("%s trial %d: rho(v-x) not parallel to a (residual %g)", kind, trial, d)
			}
		}
		const tol = 1e-9
		switch kind {
		case "linear":
			switch {
			case ax < -tol:
				if math.Abs(mu) > tol {
					t.Fatalf("linear trial %d: inactive (a.x-c=%g) but mu=%g", trial, ax, mu)
				}
			case ax > tol:
				if math.Abs(mu-w) > 1e-8 {
					t.Fatalf("linear trial %d: active (a.x-c=%g) but mu=%g, w=%g", trial, ax, mu, w)
				}
			default:
				if mu < -tol || mu > w+tol {
					t.Fatalf("linear trial %d: at kink but mu=%g outside [0,%g]", trial, mu, w)
				}
			}
		case "squared":
			if want := 2 * w * max(ax, 0); math.Abs(mu-want) > 1e-8 {
				t.Fatalf("squared trial %d: mu=%g want %g", trial, mu, want)
			}
		case "leq":
			if ax > tol || mu < -tol || math.Abs(mu*ax) > 1e-8 {
				t.Fatalf("leq trial %d: a.x-c=%g mu=%g", trial, ax, mu)
			}
		case "eq":
			if math.Abs(ax) > tol {
				t.Fatalf("eq trial %d: a.x-c=%g", trial, ax)
			}
		}
	}
}

// TestExample1 solves paper 000 Example 1,
//
//	f(y) = 5 max(y1-y2,0)^2 + 5 max(-y1+y2+y4-1,0)^2 + 5 max(y1-y4,0)^2 + 5 max(1-y3,0)^2.
//
// Closed form: f >= 0, and f = 0 exactly when y3 = 1, y1 <= y2, y1 <= y4 and
// y2 + y4 <= 1 + y1. From a cold start (all zeros) the first three
// potentials are already satisfied and stay so, only y3 moves: the MAP state
// reached is (0, 0, 1, 0). From a start with y1 = y2 = y4 = 1 those three
// are again satisfied and the solver must stop at (1, 1, 1, 1).
func TestExample1(t *testing.T) {
	p := admmtest.ReadProblem(t, "../hlmrf/testdata/example1.hlmrf")
	for _, tc := range []struct {
		init, want []float64
	}{
		{nil, []float64{0, 0, 1, 0}},
		{[]float64{1, 1, 0, 1}, []float64{1, 1, 1, 1}},
		{[]float64{0.3, 0.6, 0.2, 0.5}, nil},
	} {
		s, err := New(p, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), tc.init)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged() {
			t.Fatalf("init %v: not converged: %+v", tc.init, res)
		}
		// Optimal value 0; every point of the optimal set satisfies the
		// conditions above, to the solver's accuracy.
		y := res.Values
		if res.Objective > 1e-5 {
			t.Errorf("init %v: objective %g, want 0", tc.init, res.Objective)
		}
		const tol = 2e-3
		if y[2] < 1-tol || y[0] > y[1]+tol || y[0] > y[3]+tol || y[1]+y[3] > 1+y[0]+tol {
			t.Errorf("init %v: %v is not in the optimal set", tc.init, y)
		}
		for j := range tc.want {
			if math.Abs(y[j]-tc.want[j]) > tol {
				t.Errorf("init %v: values %v, want %v", tc.init, y, tc.want)
				break
			}
		}
	}
}

// checkAgainst solves p at the default options and at EpsRel 1e-4 and
// demands the objective within 1e-3 (relative) of the optimum want both
// times. At PSL's residual tolerances alone the objective stopped up to
// 2.3e-3 from optimal on these problems; the default gap test
// (Options.GapTol) is what brings it within 1e-3. The Lagrangian bound the
// solver reports must not exceed the optimum.
func checkAgainst(t *testing.T, name string, p *hlmrf.Problem, want float64) {
	t.Helper()
	// The default policy at PSL's tolerance, and every policy at a tighter one.
	for _, tc := range []struct {
		epsRel, rel float64
		policy      RhoPolicy
	}{{1e-3, 1e-3, DefaultOptions().RhoPolicy}, {1e-4, 1e-3, RhoFixed}, {1e-4, 1e-3, RhoBalance}, {1e-4, 1e-3, RhoSpectral}} {
		opt := DefaultOptions()
		opt.EpsRel = tc.epsRel
		opt.RhoPolicy = tc.policy
		res := solve(t, p, opt)
		name := fmt.Sprintf("%s, eps-rel %g, rho %v", name, tc.epsRel, tc.policy)
		if !res.Converged() {
			t.Errorf("%s: not converged after %d iterations: %+v", name, res.Iterations, res)
		}
		if res.LowerBound > want+1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s: lower bound %.10g exceeds the optimum %.10g", name, res.LowerBound, want)
		}
		if !relClose(res.Objective, want, tc.rel) {
			t.Errorf("%s: objective %.8g, optimum %.8g (rel diff %.2g > %g)", name, res.Objective, want, (res.Objective-want)/max(1, math.Abs(want)), tc.rel)
		}
		t.Logf("%s: %d iterations, objective %.8g, optimum %.8g, rel diff %.1e, max violation %.1e, final rho %.3g", name, res.Iterations, res.Objective, want, (res.Objective-want)/max(1, math.Abs(want)), res.MaxViolation, res.Rho)
	}
}

// TestLinearHingesAgainstLP compares the objective of random linear-hinge
// problems, with and without hard constraints, with the LP optimum found by
// gonum's simplex method; where COIN-OR CLP is installed its optimum must
// agree with the simplex's too.
func TestLinearHingesAgainstLP(t *testing.T) {
	problems := map[string]*hlmrf.Problem{}
	for _, cfg := range []admmtest.Config{
		{Vars: 10, Potentials: 30, MinArity: 1, MaxArity: 3, Power: 1, Seed: 1},
		{Vars: 40, Potentials: 120, MinArity: 1, MaxArity: 4, Power: 1, Seed: 2},
		{Vars: 40, Potentials: 120, MinArity: 2, MaxArity: 5, Power: 1, Seed: 3, ZeroWeights: 0.2},
		{Vars: 30, Potentials: 80, MinArity: 1, MaxArity: 3, Power: 1, Constraints: 10, Seed: 4},
		{Vars: 50, Potentials: 150, MinArity: 1, MaxArity: 4, Power: 1, Constraints: 20, EqualFraction: 0.5, Seed: 5},
		{Vars: 60, Potentials: 100, MinArity: 2, MaxArity: 6, Power: 1, Constraints: 30, EqualFraction: 0.3, Seed: 6},
	} {
		problems[fmt.Sprintf("random seed %d", cfg.Seed)] = admmtest.Random(cfg)
	}
	// MAX-SAT relaxations: the LP of paper 003.
	for seed := uint64(1); seed <= 3; seed++ {
		problems[fmt.Sprintf("clauses seed %d", seed)] = clauses(80, 24, 1, seed)
	}
	for name, p := range problems {
		want := admmtest.LPOptimum(t, p, 1e-9)
		if admmtest.FindCLP() != "" {
			if c := admmtest.CLPOptimum(t, p); !relClose(c, want, 1e-7) {
				t.Errorf("%s: CLP optimum %.10g, simplex %.10g", name, c, want)
			}
		}
		checkAgainst(t, name, p, want)
	}
}

// TestSquaredHingesAgainstLP checks small squared and mixed problems with
// hard constraints against the cutting-plane oracle (gonum's simplex) and,
// where COIN-OR CLP is installed (Debian package coinor-clp; .ci/run
// installs it), larger ones against CLP's QP solver.
func TestSquaredHingesAgainstLP(t *testing.T) {
	for _, cfg := range []admmtest.Config{
		{Vars: 8, Potentials: 20, MinArity: 1, MaxArity: 3, Power: 2, Seed: 11},
		{Vars: 8, Potentials: 20, MinArity: 1, MaxArity: 4, Power: 2, Constraints: 4, EqualFraction: 0.5, Seed: 12},
		{Vars: 8, Potentials: 20, MinArity: 1, MaxArity: 4, Power: 0, Constraints: 4, EqualFraction: 0.3, Seed: 13},
		{Vars: 8, Potentials: 20, MinArity: 2, MaxArity: 5, Power: 0, ZeroWeights: 0.1, Seed: 14},
	} {
		p := admmtest.Random(cfg)
		checkAgainst(t, fmt.Sprintf("random seed %d", cfg.Seed), p, admmtest.LPOptimum(t, p, 1e-7))
	}
	if admmtest.FindCLP() == "" {
		t.Log("COIN-OR CLP not installed: the larger problems are not checked")
		return
	}
	for _, cfg := range []admmtest.Config{
		{Vars: 20, Potentials: 60, MinArity: 1, MaxArity: 3, Power: 2, Seed: 11},
		{Vars: 30, Potentials: 90, MinArity: 1, MaxArity: 4, Power: 2, Constraints: 10, EqualFraction: 0.5, Seed: 12},
		{Vars: 40, Potentials: 120, MinArity: 1, MaxArity: 4, Power: 0, Constraints: 15, EqualFraction: 0.3, Seed: 13},
		{Vars: 40, Potentials: 120, MinArity: 2, MaxArity: 5, Power: 0, ZeroWeights: 0.1, Seed: 14},
	} {
		p := admmtest.Random(cfg)
		checkAgainst(t, fmt.Sprintf("random seed %d (CLP)", cfg.Seed), p, admmtest.CLPOptimum(t, p))
	}
}

// TestSquaredHingesAgainstCoordinateDescent needs no external solver.
func TestSquaredHingesAgainstCoordinateDescent(t *testing.T) {
	for _, cfg := range []admmtest.Config{
		{Vars: 5, Potentials: 12, MinArity: 1, MaxArity: 2, Power: 2, Seed: 21},
		{Vars: 20, Potentials: 60, MinArity: 1, MaxArity: 3, Power: 2, Seed: 22},
		{Vars: 40, Potentials: 150, MinArity: 1, MaxArity: 4, Power: 2, ZeroWeights: 0.2, Seed: 23},
	} {
		p := admmtest.Random(cfg)
		checkAgainst(t, fmt.Sprintf("random seed %d", cfg.Seed), p, p.Objective(cdOptimum(t, p)))
	}
	p := clauses(300, 80, 2, 7)
	checkAgainst(t, "clauses", p, p.Objective(cdOptimum(t, p)))
}

// TestGrid checks tiny problems with constraints against a brute-force grid.
func TestGrid(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"linear and leq", "2 0:0.2 1:1 2:1\n1 0:-1 1:-1 #^1\n3 0:-0.6 2:-1\n<= 0:0.9 1:1 2:1\n"},
		{"squared and eq", "2 0:0.2 1:1 2:-1 #^2\n1 0:-1 1:-1 #^2\n= 0:0.7 1:1 2:1\n"},
		{"mixed", "1.5 0:0.3 1:2 2:-1 #^2\n0.5 0:-0.8 1:-1 2:-1\n2 0:0 2:1 #^2\n<= 0:1.2 1:1.5 2:1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.text)
			res := solve(t, p, DefaultOptions())
			// The grid optimum (step 1/2000, constraints within 1e-3) is within
			// a grid cell of the true optimum; the solver must not be worse by
			// more than the objective's change over that distance.
			want := gridOptimum(p, 2000, 1e-3)
			if !res.Converged() || res.Objective > want+2e-3 || res.Objective < want-2e-2 {
				t.Errorf("objective %.6g (converged %v), grid %.6g", res.Objective, res.Converged(), want)
			}
		})
	}
}

func TestZeroWeightAndIsolatedVariable(t *testing.T) {
	// Variable 3 occurs only in a zero-weight potential, 4 in nothing.
	p := parse(t, "# variables: 4\n1 0:-1 1:-1\n0 0:-1 3:-1 #^2\n2 0:0 1:1 2:-1\n")
	s, err := New(p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Solve(context.Background(), []float64{0.5, 0.5, 0.25, 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged() || res.Objective > 1e-6 {
		t.Fatalf("%+v", res)
	}
	// The zero-weight potential exerts no pull: its copy tracks the
	// consensus, so variable 3 stays where it started, and variable 4 (in no
	// potential) keeps its initial value exactly.
	if res.Values[2] != 0.25 || res.Values[3] != 0.75 {
		t.Fatalf("isolated variable moved: %v", res.Values)
	}
	if math.Abs(res.Values[0]-1) > 2e-3 || res.Values[1] < res.Values[0]-2e-3 {
		t.Fatalf("values %v, want y1 = 1 and y2 >= y1", res.Values)
	}
}

func TestInfeasible(t *testing.T) {
	p := parse(t, "1 0:0 1:1 #^2\n= 0:3 1:1 2:1\n")
	opt := DefaultOptions()
	opt.MaxIter = 2000
	res, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged() || res.Iterations != 2000 || res.Violated != 1 || res.Worst != 0 {
		t.Fatalf("%+v", res)
	}
	// The closest the box gets to y1+y2 = 3 is y = (1,1): violation 1.
	if math.Abs(res.MaxViolation-1) > 1e-6 {
		t.Fatalf("max violation %v, want 1", res.MaxViolation)
	}
}

func TestEmptyProblem(t *testing.T) {
	for _, p := range []*hlmrf.Problem{{}, parse(t, "# variables: 3\n")} {
		s, err := New(p, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		init := make([]float64, p.NumVars)
		for j := range init {
			init[j] = 0.5
		}
		res, err := s.Solve(context.Background(), init)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged() || res.Iterations != 0 || len(res.Values) != p.NumVars {
			t.Fatalf("%+v", res)
		}
		for _, y := range res.Values {
			if y != 0.5 {
				t.Fatalf("values %v", res.Values)
			}
		}
	}
	// A constraint without variables that does not hold cannot converge.
	p := parse(t, "# variables: 1\n<= 0:-1\n")
	res := solve(t, p, DefaultOptions())
	if res.Converged() || res.MaxViolation != 1 {
		t.Fatalf("%+v", res)
	}
}

// TestWarmStart: after a small weight change, continuing from the previous
// state converges in fewer iterations than a cold start, to the same point.
func TestWarmStart(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 200, Potentials: 800, MinArity: 1, MaxArity: 3, Power: 0, Constraints: 20, Seed: 31})
	opt := DefaultOptions()
	opt.EpsAbs, opt.EpsRel = 1e-7, 1e-5
	s, err := New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Weight {
		p.Weight[i] *= 1 + 0.02*math.Sin(float64(i))
	}
	warm, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cold := solve(t, p, opt)
	if !first.Converged() || !warm.Converged() || !cold.Converged() {
		t.Fatalf("not converged: first %v warm %v cold %v", first.Converged(), warm.Converged(), cold.Converged())
	}
	if warm.Iterations >= cold.Iterations {
		t.Errorf("warm start took %d iterations, cold start %d", warm.Iterations, cold.Iterations)
	}
	if !relClose(warm.Objective, cold.Objective, 1e-4) {
		t.Errorf("warm objective %.10g, cold %.10g", warm.Objective, cold.Objective)
	}
	t.Logf("first %d, warm %d, cold %d iterations", first.Iterations, warm.Iterations, cold.Iterations)

	// Solve(init) restarts from init with zero duals: from the cold
	// solution it agrees with the cold solve.
	again, err := s.Solve(context.Background(), cold.Values)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Converged() || !relClose(again.Objective, cold.Objective, 1e-4) {
		t.Errorf("restart from the solution: %+v", again)
	}
}

// TestThreadsAgree: a run is reproducible (the same thread count gives
// bit-identical results), and 1, 2, 3 and 5 threads agree to rounding: the
// workers' accumulators are summed in a fixed order, but a different number
// of them groups the sums differently.
func TestThreadsAgree(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 3000, Potentials: 20000, MinArity: 1, MaxArity: 4, Power: 0, Constraints: 500, EqualFraction: 0.3, Seed: 41})
	if n := len(New0(t, p).termChunks) - 1; n < 5 {
		t.Fatalf("only %d term chunks: the test does not exercise splitting", n)
	}
	run := func(threads int) *Result {
		opt := DefaultOptions()
		opt.Threads = threads
		opt.MaxIter = 300
		return solve(t, p, opt)
	}
	var ref *Result
	for _, th := range []int{1, 2, 3, 5} {
		res, again := run(th), run(th)
		if ref == nil {
			ref = res
		}
		if !slices.Equal(res.Values, again.Values) || res.Objective != again.Objective || res.PrimalResidual != again.PrimalResidual {
			t.Fatalf("threads %d: two runs differ", th)
		}
		if res.Iterations != ref.Iterations || !relClose(res.Objective, ref.Objective, 1e-9) || !relClose(res.PrimalResidual, ref.PrimalResidual, 1e-6) {
			t.Fatalf("threads %d: %d iterations, objective %v, primal residual %v; 1 thread: %d, %v, %v", th, res.Iterations, res.Objective, res.PrimalResidual, ref.Iterations, ref.Objective, ref.PrimalResidual)
		}
		worst := 0.0
		for j := range res.Values {
			worst = max(worst, math.Abs(res.Values[j]-ref.Values[j]))
		}
		if worst > 1e-9 {
			t.Fatalf("threads %d: values differ from 1 thread's by up to %g", th, worst)
		}
		t.Logf("threads %d: values within %g of 1 thread's", th, worst)
	}
}

func New0(t *testing.T, p *hlmrf.Problem) *Solver {
	s, err := New(p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProgressAndCancel(t *testing.T) {
	p := admmtest.Clauses(2000, 400, 3, 2, 5)
	opt := DefaultOptions()
	opt.EpsAbs, opt.EpsRel = 0, 0 // never converges: runs until cancelled
	opt.CheckEvery = 10
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Progress
	opt.Progress = func(pr Progress) {
		seen = append(seen, pr)
		if len(seen) == 3 {
			cancel()
		}
	}
	for _, th := range []int{1, 2} {
		seen = nil
		opt.Threads = th
		ctx, cancel = context.WithCancel(context.Background())
		res, err := Solve(ctx, p, opt)
		cancel()
		if !errors.Is(err, context.Canceled) || res == nil {
			t.Fatalf("threads %d: err %v res %v", th, err, res)
		}
		if len(seen) != 3 || res.Iterations != 30 || seen[2].Iteration != 30 || res.Status != Cancelled {
			t.Fatalf("threads %d: %d progress calls, %d iterations, status %v", th, len(seen), res.Iterations, res.Status)
		}
		if !relClose(seen[2].Objective, res.Objective, 1e-12) || seen[2].PrimalResidual != res.PrimalResidual {
			t.Fatalf("progress %+v disagrees with result %+v", seen[2], res)
		}
	}
}

// TestDuals checks the documented sign convention on a converged solve: per
// variable the duals sum into the normal cone of [0,1], each linear hinge's
// duals are -theta*w*a, and the Lagrangian bound is below the optimum and
// close to it.
func TestDuals(t *testing.T) {
	p := clauses(80, 24, 1, 9)
	p.AddConstraint(hlmrf.LessEq, 1, -1, []int32{0, 1, 2}, []float64{1, 1, 1})
	opt := DefaultOptions()
	opt.EpsRel = 1e-4
	s, err := New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := s.Duals(); a != nil || b != nil {
		t.Fatal("duals before the first solve")
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil || !res.Converged() {
		t.Fatal(err, res)
	}
	pd, cd := s.Duals()
	if len(pd) != len(p.Var) || len(cd) != len(p.CVar) {
		t.Fatalf("dual lengths %d %d", len(pd), len(cd))
	}
	sum := make([]float64, p.NumVars)
	for k, v := range p.Var {
		sum[v] += pd[k]
	}
	for k, v := range p.CVar {
		sum[v] += cd[k]
	}
	for j, g := range sum {
		z := res.Values[j]
		switch {
		case z == 0 && g > 1e-9, z == 1 && g < -1e-9, z > 0 && z < 1 && math.Abs(g) > 1e-9:
			t.Fatalf("variable %d at %v: duals sum to %v (not in the normal cone)", j, z, g)
		}
	}
	// Lagrangian bound: each linear hinge contributes the exact minimum over
	// the box of w*max(a.x-c,0) + alpha.x (convex piecewise linear, so
	// attained at a box vertex or where a box edge crosses a.x = c), the
	// constraint the minimum of alpha.x over the box cut by a.x <= c (same
	// candidate points), and each variable min over y_j in [0,1] of
	// -y_j*sum of its alphas.
	// (bruteTermMin enumerates exactly those candidate points.)
	bound := 0.0
	for i := range p.Weight {
		_, cs := p.Terms(i)
		bound += bruteTermMin(cs, pd[p.Start[i]:p.Start[i+1]], p.Const[i], p.Weight[i], p.Power[i], 0, false)
	}
	for j := range p.CKind {
		_, cs := p.CTerms(j)
		bound += bruteTermMin(cs, cd[p.CStart[j]:p.CStart[j+1]], p.CConst[j], 0, 0, p.CKind[j], true)
	}
	for j := range sum {
		bound += min(0, -sum[j])
	}
	if lb := LowerBound(p, pd, cd); math.Abs(lb-bound) > 1e-9*max(1, math.Abs(bound)) {
		t.Errorf("LowerBound %.12g, vertex enumeration %.12g", lb, bound)
	}
	opt2 := admmtest.LPOptimum(t, p, 1e-9)
	if bound > opt2+1e-9 || bound < opt2-2e-3*max(1, opt2) {
		t.Fatalf("Lagrangian bound %.10g, optimum %.10g (ADMM objective %.10g)", bound, opt2, res.Objective)
	}
	t.Logf("ADMM objective %.10g, optimum %.10g, Lagrangian bound %.10g", res.Objective, opt2, bound)
}

// boxPieceVertices lists the vertices of [0,1]^k and the points where an
// edge of the box crosses a.x = c: every vertex of the two pieces of the box
// cut by the hyperplane.
func boxPieceVertices(a []float64, c float64) [][]float64 {
	k := len(a)
	var out [][]float64
	for mask := 0; mask < 1<<k; mask++ {
		x := make([]float64, k)
		for d := range x {
			x[d] = float64(mask >> d & 1)
		}
		out = append(out, x)
		for d := range x {
			if x[d] != 0 {
				continue
			}
			rest := c
			for e := range x {
				if e != d {
					rest -= a[e] * x[e]
				}
			}
			if t := rest / a[d]; t > 0 && t < 1 {
				y := append([]float64(nil), x...)
				y[d] = t
				out = append(out, y)
			}
		}
	}
	return out
}

// clauses is a random MAX-SAT relaxation with m 3-literal clauses and m/2
// unit clauses over n variables. (With only clauses of two or more literals
// y = 1/2 satisfies every potential and the optimum is 0.)
func clauses(m, n int, power uint8, seed uint64) *hlmrf.Problem {
	p := admmtest.Clauses(m, n, 3, power, seed)
	p.Append(admmtest.Clauses(m/2, n, 1, power, seed+1000), false)
	return p
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func TestBadInput(t *testing.T) {
	p := parse(t, "1 0:0 1:1 2:1\n")
	bad := []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"rho", func(o *Options) { o.Rho = 0 }, "rho"},
		{"rho nan", func(o *Options) { o.Rho = math.NaN() }, "rho"},
		{"eps", func(o *Options) { o.EpsAbs = -1 }, "eps-abs"},
		{"epsrel", func(o *Options) { o.EpsRel = math.Inf(1) }, "eps-rel"},
		{"iter", func(o *Options) { o.MaxIter = -1 }, "max-iter"},
		{"check", func(o *Options) { o.CheckEvery = 0 }, "check-every"},
		{"threads", func(o *Options) { o.Threads = -2 }, "threads"},
		{"ctol", func(o *Options) { o.ConstraintTol = -1 }, "constraint tolerance"},
	}
	for _, b := range bad {
		opt := DefaultOptions()
		b.mod(&opt)
		if _, err := New(p, opt); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one mentioning %q", b.name, err, b.want)
		}
	}
	if _, err := New(nil, DefaultOptions()); err == nil {
		t.Error("nil problem accepted")
	}
	broken := parse(t, "1 0:0 1:1 2:1\n")
	broken.Var[0] = 7
	if _, err := New(broken, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("invalid problem: %v", err)
	}
	s := New0(t, p)
	for _, tc := range []struct {
		init []float64
		want string
	}{
		{[]float64{0.5}, "init has 1 values, want 2"},
		{[]float64{0.5, 1.5}, "init[1] = 1.5 is outside [0,1]"},
		{[]float64{math.NaN(), 0}, "init[0] = NaN"},
	} {
		if _, err := s.Solve(context.Background(), tc.init); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("init %v: error %v, want %q", tc.init, err, tc.want)
		}
	}
	p.Weight[0] = -1
	if _, err := s.Solve(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "potential 0: weight -1") {
		t.Errorf("negative weight: %v", err)
	}
	p.Weight = append(p.Weight, 1)
	if _, err := s.Solve(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "weights") {
		t.Errorf("changed structure: %v", err)
	}
}

func TestMaxIterZero(t *testing.T) {
	p := parse(t, "1 0:-1 1:-1\n")
	opt := DefaultOptions()
	opt.MaxIter = 0
	s, _ := New(p, opt)
	res, err := s.Solve(context.Background(), []float64{0.25})
	if err != nil || res.Iterations != 0 || res.Converged() || res.Values[0] != 0.25 {
		t.Fatalf("%v %+v", err, res)
	}
}

// FuzzSolve runs the solver briefly on arbitrary exchange-format problems:
// it must return an error or values in [0,1], never panic or hang.
func FuzzSolve(f *testing.F) {
	f.Add("5 0:0 1:1 2:-1 #^2\n5 0:1 1:-1 2:1 4:1 #^2\n5 0:-1 3:-1 #^2\n", uint8(1))
	f.Add("1 0:0 1:1 #^2\n= 0:3 1:1 2:1\n", uint8(2))
	f.Add("# variables: 4\n0 0:-1 3:-1 #^2\n<= 0:0.5 1:2 2:1\n>= 0:0.2 1:1\n", uint8(3))
	f.Add("1e300 0:-1e300 1:1e300 2:-1e300 #^2\n", uint8(1))
	f.Fuzz(func(t *testing.T, text string, threads uint8) {
		p, err := hlmrf.Read(strings.NewReader(text), "fuzz")
		if err != nil || p.NumVars > 1000 || len(p.Var)+len(p.CVar) > 10000 {
			return
		}
		opt := DefaultOptions()
		opt.MaxIter = 200
		opt.CheckEvery = 7
		opt.Threads = 1 + int(threads%4)
		res, err := Solve(context.Background(), p, opt)
		if err != nil {
			return
		}
		for j, y := range res.Values {
			if !(y >= 0 && y <= 1) {
				t.Fatalf("value %d = %v", j, y)
			}
		}
	})
}

// TestKernelsAgree: the fixed-arity kernels give bit-identical local steps to
// the general loop, on runs of every arity and power, split at arbitrary
// boundaries.
func TestKernelsAgree(t *testing.T) {
	rng := newRand(5)
	var p hlmrf.Problem
	p.AddVars(50)
	for block := 0; block < 40; block++ {
		arity := 1 + rng.IntN(4)
		power := uint8(1 + rng.IntN(2))
		n := 1 + rng.IntN(40)
		for i := 0; i < n; i++ {
			vars := make([]int32, 0, arity)
			coefs := make([]float64, 0, arity)
			for len(vars) < arity {
				v := int32(rng.IntN(50))
				if !slices.Contains(vars, v) {
					vars = append(vars, v)
					coefs = append(coefs, rng.Float64()*4-2)
				}
			}
			p.AddPotential(rng.Float64()*3, rng.Float64()*2-1, power, -1, vars, coefs)
		}
	}
	s := New0(t, &p)
	kinds := map[[2]int]bool{}
	for _, r := range s.runs {
		sq := 0
		if r.squared {
			sq = 1
		}
		kinds[[2]int{r.arity, sq}] = true
	}
	if len(kinds) < 6 {
		t.Fatalf("runs cover only %v", kinds)
	}
	if err := s.prepare(nil); err != nil {
		t.Fatal(err)
	}
	for j := range s.z {
		s.z[j] = rng.Float64()
	}
	for i := range s.q {
		s.q[i] = rng.Float64()*4 - 2
	}
	q0 := slices.Clone(s.q)
	wantAcc := make([]float64, s.n)
	localPotentials(s.prm, s.caps, s.start, s.coef, s.vars, s.q, s.z, wantAcc, nil, 0, s.m)
	wantQ := slices.Clone(s.q)
	acc := make([]float64, s.n)
	for trial := 0; trial < 50; trial++ {
		copy(s.q, q0)
		clear(acc)
		// Split at a random point, as chunk boundaries do.
		cut := rng.IntN(s.m + 1)
		r := 0
		s.localRuns(r, 0, cut, acc)
		for r < len(s.runs) && s.runs[r].hi <= cut {
			r++
		}
		s.localRuns(r, cut, s.m, acc)
		for i := range wantQ {
			if s.q[i] != wantQ[i] {
				t.Fatalf("cut %d: potential %d: q = %v, general loop %v", cut, i, s.q[i], wantQ[i])
			}
		}
		for j := range wantAcc {
			if acc[j] != wantAcc[j] {
				t.Fatalf("cut %d: variable %d: accumulator %v, general loop %v", cut, j, acc[j], wantAcc[j])
			}
		}
	}
}

// TestNoAllocationPerIteration: a Solve allocates its result and its
// workers, but nothing per iteration: 300 iterations allocate no more than
// 30.
func TestNoAllocationPerIteration(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 1000, Potentials: 10000, MinArity: 1, MaxArity: 4, Power: 0, Constraints: 50, EqualFraction: 0.3, Seed: 51})
	if n := len(New0(t, p).tpart); n < 2 {
		t.Fatalf("%d chunks: two workers would not both run", n)
	}
	for _, th := range []int{1, 2} {
		allocs := func(iters int) float64 {
			opt := DefaultOptions()
			opt.EpsAbs, opt.EpsRel = 0, 0
			opt.MaxIter, opt.Threads = iters, th
			s := New0(t, p)
			s.opt = opt
			return testing.AllocsPerRun(3, func() {
				if _, err := s.Solve(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
			})
		}
		short, long := allocs(30), allocs(300)
		if long > short {
			t.Errorf("threads %d: %v allocations for 300 iterations, %v for 30", th, long, short)
		}
		t.Logf("threads %d: %v allocations per Solve", th, long)
	}
}

// TestCopyWeights: unit copy weights give the unweighted iterates (to
// rounding: the weighted mean multiplies by 1/sum instead of dividing), and
// malformed weights are rejected. That weighted ADMM on a lifted problem
// retraces plain ADMM on the original is tested in package lift.
func TestCopyWeights(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 30, Potentials: 80, Constraints: 6, MinArity: 1, MaxArity: 4, Power: 0, Seed: 3})
	opt := DefaultOptions()
	opt.Threads = 1
	plain, weighted := solveUnitWeights(t, p, opt)
	if weighted.Iterations != plain.Iterations {
		t.Fatalf("unit weights: %d iterations, unweighted %d", weighted.Iterations, plain.Iterations)
	}
	for j := range plain.Values {
		if math.Abs(weighted.Values[j]-plain.Values[j]) > 1e-9 {
			t.Fatalf("variable %d: %v with unit weights, %v without", j, weighted.Values[j], plain.Values[j])
		}
	}
	ones := make([]float64, len(p.Var)+len(p.CVar))
	for k := range ones {
		ones[k] = 1
	}
	for _, bad := range [][]float64{ones[1:], append(append([]float64(nil), ones[1:]...), 0), append(append([]float64(nil), ones[1:]...), math.NaN())} {
		opt.Copies = bad
		if _, err := New(p, opt); err == nil || !strings.Contains(err.Error(), "Copies") {
			t.Fatalf("Copies %v...: got %v, want an error naming Copies", bad[len(bad)-1], err)
		}
	}
}

// TestConstraintNorms: norms equal to the rows' own leave the run as it
// was; the tolerances are scaled by the norms given; a
// ConstraintNorms of the wrong length or with a negative or NaN entry is
// refused, naming the option.
func TestConstraintNorms(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 30, Potentials: 80, Constraints: 6, MinArity: 1, MaxArity: 4, Power: 0, Seed: 3})
	opt := DefaultOptions()
	opt.Threads = 1
	plain, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	own := make([]float64, p.NumConstraints())
	for j := range own {
		_, a := p.CTerms(j)
		for _, x := range a {
			own[j] += x * x
		}
		own[j] = math.Sqrt(own[j])
	}
	opt.ConstraintNorms = own
	same, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if same.Iterations != plain.Iterations || !slices.Equal(same.Values, plain.Values) {
		t.Fatalf("the rows' own norms: %d iterations, without %d", same.Iterations, plain.Iterations)
	}
	given := []float64{0, 0.5, 1, 2, 3, 1e6}
	for j, tol := range constraintTols(p, 1e-4, given) {
		if want := 1e-4 * max(1, given[j]); tol != want {
			t.Fatalf("constraint %d, norm %v: tolerance %v, want %v", j, given[j], tol, want)
		}
	}
	for _, bad := range [][]float64{own[1:], append(append([]float64(nil), own[1:]...), -1), append(append([]float64(nil), own[1:]...), math.NaN())} {
		opt.ConstraintNorms = bad
		if _, err := New(p, opt); err == nil || !strings.Contains(err.Error(), "ConstraintNorms") {
			t.Fatalf("ConstraintNorms %v...: got %v, want an error naming ConstraintNorms", bad[len(bad)-1], err)
		}
	}
}

// solveUnitWeights solves p with opt unweighted, then with every copy
// weight 1.
func solveUnitWeights(t *testing.T, p *hlmrf.Problem, opt Options) (plain, weighted *Result) {
	t.Helper()
	plain, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Copies = make([]float64, len(p.Var)+len(p.CVar))
	for k := range opt.Copies {
		opt.Copies[k] = 1
	}
	if weighted, err = Solve(context.Background(), p, opt); err != nil {
		t.Fatal(err)
	}
	return plain, weighted
}

// TestStatusText: every status has a name that reads back.
func TestStatusText(t *testing.T) {
	for st := Converged; st <= NumericalFailure; st++ {
		b, _ := st.MarshalText()
		var back Status
		if err := back.UnmarshalText(b); err != nil || back != st {
			t.Errorf("%d: %q reads back as %v, %v", st, b, back, err)
		}
	}
}

// TestSetRhoKeepsDuals: changing the penalty mid-solve keeps the unscaled
// duals exactly (the scaled ones are rescaled), so the Lagrangian bound is
// unchanged, and the solve still reaches the LP optimum.
func TestSetRhoKeepsDuals(t *testing.T) {
	for _, cfg := range []admmtest.Config{
		{Vars: 30, Potentials: 80, MinArity: 1, MaxArity: 3, Power: 1, Constraints: 6, Seed: 21},
		{Vars: 30, Potentials: 80, MinArity: 1, MaxArity: 4, Power: 0, Constraints: 6, EqualFraction: 0.5, Seed: 22},
	} {
		p := admmtest.Random(cfg)
		for _, weighted := range []bool{false, true} {
			opt := DefaultOptions()
			opt.RhoPolicy = RhoFixed
			opt.MaxIter = 100
			if weighted { // copy weights 1..3, as a lifted problem has
				opt.Copies = make([]float64, len(p.Var)+len(p.CVar))
				for k := range opt.Copies {
					opt.Copies[k] = float64(1 + k%3)
				}
			}
			s, err := New(p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Solve(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			pd, cd := s.Duals()
			for _, rho := range []float64{7, 0.05, 1} {
				s.setRho(rho)
				pd2, cd2 := s.Duals()
				for k := range pd {
					if math.Abs(pd2[k]-pd[k]) > 1e-12*max(1, math.Abs(pd[k])) {
						t.Fatalf("seed %d weighted %v: rho -> %g changed potential dual %d from %v to %v", cfg.Seed, weighted, rho, k, pd[k], pd2[k])
					}
				}
				for k := range cd {
					if math.Abs(cd2[k]-cd[k]) > 1e-12*max(1, math.Abs(cd[k])) {
						t.Fatalf("seed %d weighted %v: rho -> %g changed constraint dual %d from %v to %v", cfg.Seed, weighted, rho, k, cd[k], cd2[k])
					}
				}
			}
			if weighted {
				continue
			}
			s.setRho(5)
			s.opt.MaxIter = 25000
			res, err := s.Solve(context.Background(), nil)
			if err != nil || !res.Converged() {
				t.Fatalf("seed %d: after the change: %v %+v", cfg.Seed, err, res)
			}
			if want := admmtest.LPOptimum(t, p, 1e-9); !relClose(res.Objective, want, 1e-3) {
				t.Errorf("seed %d: objective %.8g after rho changes, optimum %.8g", cfg.Seed, res.Objective, want)
			}
		}
	}
}

// TestAdaptiveCopyWeights: with uniform copy weights (a lifted problem of
// k disjoint copies) every policy retraces the unweighted solve, and
// adapts rho the same way.
func TestAdaptiveCopyWeights(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 30, Potentials: 80, Constraints: 6, MinArity: 1, MaxArity: 4, Power: 0, Seed: 3})
	for _, pol := range []RhoPolicy{RhoBalance, RhoSpectral} {
		opt := DefaultOptions()
		opt.Threads = 1
		opt.RhoPolicy = pol
		opt.CheckEvery = 10
		plain, weighted := solveUnitWeights(t, p, opt)
		if weighted.Iterations != plain.Iterations || math.Abs(weighted.Rho-plain.Rho) > 1e-9*plain.Rho {
			t.Fatalf("%v: unit weights %d iterations, rho %v; unweighted %d, rho %v", pol, weighted.Iterations, weighted.Rho, plain.Iterations, plain.Rho)
		}
		for j := range plain.Values {
			if math.Abs(weighted.Values[j]-plain.Values[j]) > 1e-9 {
				t.Fatalf("%v: variable %d: %v with unit weights, %v without", pol, j, weighted.Values[j], plain.Values[j])
			}
		}
	}
}

// TestRhoPolicyNames: every policy's name reads back, and a bad one is
// refused.
func TestRhoPolicyNames(t *testing.T) {
	for p := RhoFixed; p <= rhoPolicies; p++ {
		if back, err := ParseRhoPolicy(p.String()); err != nil || back != p {
			t.Errorf("%v: read back %v, %v", p, back, err)
		}
	}
	if _, err := ParseRhoPolicy("adaptive"); err == nil {
		t.Error("unknown policy accepted")
	}
	opt := DefaultOptions()
	opt.RhoPolicy = 7
	if err := opt.Validate(); err == nil {
		t.Error("policy 7 accepted")
	}
}

// TestPoliciesAgree: at tight tolerances every policy certifies the same
// answer as the fixed penalty on random problems with hard constraints:
// objectives within 1e-6 (relative) of each other, and each lower bound
// below every objective.
func TestPoliciesAgree(t *testing.T) {
	for seed := uint64(31); seed <= 34; seed++ {
		p := admmtest.Random(admmtest.Config{Vars: 40, Potentials: 120, MinArity: 1, MaxArity: 4, Power: uint8(seed % 3), Constraints: 12, EqualFraction: 0.3, Seed: seed})
		var res [3]*Result
		for i, pol := range []RhoPolicy{RhoFixed, RhoBalance, RhoSpectral} {
			opt := DefaultOptions()
			opt.RhoPolicy, opt.EpsRel, opt.EpsAbs, opt.GapTol, opt.ConstraintTol = pol, 1e-6, 1e-8, 1e-6, 1e-7
			opt.MaxIter = 200000
			res[i] = solve(t, p, opt)
			if !res[i].Converged() {
				t.Fatalf("seed %d %v: %v after %d iterations", seed, pol, res[i].Status, res[i].Iterations)
			}
			t.Logf("seed %d %v: %d iterations, objective %.10g, bound %.10g", seed, pol, res[i].Iterations, res[i].Objective, res[i].LowerBound)
		}
		for i, r := range res {
			if !relClose(r.Objective, res[0].Objective, 1e-6) {
				t.Errorf("seed %d: policy %d objective %.10g, fixed %.10g", seed, i, r.Objective, res[0].Objective)
			}
			for _, o := range res {
				if r.LowerBound > o.Objective+1e-6*max(1, math.Abs(o.Objective)) {
					t.Errorf("seed %d: policy %d bound %.10g above an objective %.10g", seed, i, r.LowerBound, o.Objective)
				}
			}
		}
	}
}

// A cancellation between residual checks stops the solve within an
// iteration, not at the next check: with the first check a million
// iterations away, a cancellation 20 ms into the solve ends it long before
// (Ctrl-C took up to 55 s on large problems, waiting for the check).
func TestCancelBetweenChecks(t *testing.T) {
	p := admmtest.Clauses(2000, 400, 3, 2, 5)
	for _, th := range []int{1, 2} {
		opt := DefaultOptions()
		opt.EpsAbs, opt.EpsRel = 0, 0
		opt.CheckEvery, opt.MaxIter, opt.Threads = 1_000_000, 2_000_000, th
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res, err := Solve(ctx, p, opt)
		cancel()
		if !errors.Is(err, context.Canceled) || res == nil || res.Status != Cancelled {
			t.Fatalf("threads %d: err %v, result %+v", th, err, res)
		}
		if res.Iterations >= opt.CheckEvery {
			t.Errorf("threads %d: stopped at iteration %d, the first check", th, res.Iterations)
		}
	}
}

// TestGapFloorFollowsTheWeights: the gap test's floor scales with the
// weights. Every weight times 10^-4 gives the same optimum and 10^-4 of
// its objective; an absolute floor of 1 let the scaled problem stop
// "converged" far from it (3.6 times the optimal objective on the smokers
// example). Either the scaled solve converges to the same point, or it
// says it did not.
func TestGapFloorFollowsTheWeights(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 20, Potentials: 60, Constraints: 0, MinArity: 1, MaxArity: 3, Power: 2, Seed: 7})
	opt := DefaultOptions()
	opt.Threads = 1
	base, err := Solve(context.Background(), p, opt)
	if err != nil || !base.Converged() {
		t.Fatalf("unscaled: %v, %v", err, base.Status)
	}
	q := *p
	q.Weight = slices.Clone(p.Weight)
	for i := range q.Weight {
		q.Weight[i] *= 1e-4
	}
	scaled, err := Solve(context.Background(), &q, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1e-4 * base.Objective; scaled.Converged() && scaled.Objective > want*(1+3*opt.GapTol)+1e-12 {
		t.Fatalf("scaled weights: converged at objective %g, the unscaled optimum scaled is %g (floor %g)", scaled.Objective, want, scaled.GapFloor)
	}
	if GapFloor(1e-3) != 1e-5 || GapFloor(1e6) != 1 || GapFloor(0) != 1 {
		t.Errorf("GapFloor: %v, %v, %v", GapFloor(1e-3), GapFloor(1e6), GapFloor(0))
	}
}

// TestBalanceLowersRho: residual balancing lowers rho when the dual
// residual dominates: on a problem whose weights are all 10^-4 (rho 1 far
// too stiff) it ends below rho 1 and converges. 1/balanceRatio was an
// integer division (0), so rho was only ever raised and the solve ran to
// its iteration limit.
func TestBalanceLowersRho(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 20, Potentials: 60, Constraints: 0, MinArity: 1, MaxArity: 3, Power: 2, Seed: 7})
	for i := range p.Weight {
		p.Weight[i] *= 1e-4
	}
	opt := DefaultOptions()
	opt.Threads = 1
	opt.Rho = 1e4 // times the weights' scale (WeightScale, 1e-4): a first rho of 1
	s, err := New(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged() || s.rho >= 1 {
		t.Fatalf("%s after %d iterations, rho %g: want converged with rho lowered", res.Status, res.Iterations, s.rho)
	}
}

// TestBalanceMovesAStuckConsensus: with rho far below the weights
// (weights near 1e7, a first rho of 1) every copy is pushed out of the box
// the same way and the consensus does not move: a dual residual of 0 beside
// a primal one of 3.95. Balancing took that for no imbalance and left rho
// at 1 for 25,000 iterations (objective 5.45 times the optimum); it must
// raise rho and converge to what a solve started at the weights' scale
// reaches. (An outside tester's generated PSL model, ground.)
func TestBalanceMovesAStuckConsensus(t *testing.T) {
	p := parse(t, `# variables: 12
241210.07685637294 0:0 1:1 4:-1 #^2
241210.07685637294 0:0 1:1 5:-1 #^2
241210.07685637294 0:0.808 3:1 11:-1 #^2
7.471113496100415e+07 0:1 1:2 #^1
7.471113496100415e+07 0:1 1:1 2:1 #^1
7.471113496100415e+07 0:1.808 3:1 2:1 #^1
5.086872622641015e+06 0:-1.469 1:-0.499 #^2
5.086872622641015e+06 0:-1.469 2:-0.499 #^2
5.086872622641015e+06 0:-1.4538 3:-0.499 #^2
601978.4187440769 0:-2.245 1:-0.946 #^1
601978.4187440769 0:-2.245 2:-0.946 #^1
601978.4187440769 0:-1.137224 3:-0.946 #^1
2.1859968472563356e+07 0:-1 1:-1 #^2
2.1859968472563356e+07 0:-1 2:-1 #^2
`)
	opt := DefaultOptions()
	opt.Threads = 1
	ref, err := Solve(context.Background(), p, opt)
	if err != nil || !ref.Converged() {
		t.Fatalf("at the weights' scale: %v, %+v", err, ref)
	}
	opt.Rho = 1e-5 // a first rho of 1: WeightScale is 1e5
	res, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged() || math.Abs(res.Objective-ref.Objective) > 2*opt.GapTol*ref.Objective {
		t.Fatalf("from rho 1: %s after %d iterations, objective %g, rho %g; at the weights' scale %g", res.Status, res.Iterations, res.Objective, res.Rho, ref.Objective)
	}
}

// TestSmallWeightsHardCases: scaling every weight by a factor from 1e-12
// to 1e12 leaves the minimisers where they were and the optimum scaled,
// with hard constraints (equalities among them), linear and squared
// hinges, and weight-0 potentials; a problem whose weights are all 0 has
// optimum 0 and a bound of 0. Each must converge there with its
// constraints held, in about the unscaled solve's iterations (the gap
// floor, the first rho and the dual tolerance follow the weights, not a
// floor of 1 nor a rho of 1 that balancing could move only so far: at
// 1e-8 and 1e10 the solves reached the iteration limit).
func TestSmallWeightsHardCases(t *testing.T) {
	opt := DefaultOptions()
	opt.Threads = 1
	scales := []float64{1e-12, 1e-8, 1e-4, 1e-2, 1e3, 1e6, 1e10, 1e12}
	for _, tc := range []struct {
		name   string
		cfg    admmtest.Config
		scales []float64
	}{
		{"constraints, mixed powers", admmtest.Config{Vars: 20, Potentials: 60, Constraints: 10, EqualFraction: 0.3, MinArity: 1, MaxArity: 3}, scales},
		{"linear hinges, zero weights", admmtest.Config{Vars: 20, Potentials: 60, Constraints: 5, MinArity: 1, MaxArity: 4, Power: 1, ZeroWeights: 0.3}, scales},
		{"all weights 0", admmtest.Config{Vars: 10, Potentials: 20, Constraints: 5, EqualFraction: 0.5, MinArity: 1, MaxArity: 3}, []float64{0}},
	} {
		for seed := range uint64(10) {
			tc.cfg.Seed = seed + 1
			p := admmtest.Random(tc.cfg)
			base, err := Solve(context.Background(), p, opt)
			if err != nil || !base.Converged() {
				t.Fatalf("%s, seed %d, unscaled: %v, %v", tc.name, seed+1, err, base.Status)
			}
			for _, scale := range tc.scales {
				q := *p
				q.Weight = slices.Clone(p.Weight)
				for i := range q.Weight {
					q.Weight[i] *= scale
				}
				res, err := Solve(context.Background(), &q, opt)
				if err != nil {
					t.Fatal(err)
				}
				want := scale * base.Objective
				slack := 3 * opt.GapTol * max(res.GapFloor, math.Abs(want), scale*base.GapFloor)
				if !res.Converged() || res.Violated > 0 || math.Abs(res.Objective-want) > slack || res.LowerBound > res.Objective+slack {
					t.Fatalf("%s, seed %d, weights x %g: %s after %d iterations, objective %g (bound %g, %d violated); the unscaled optimum scaled is %g (slack %g)",
						tc.name, seed+1, scale, res.Status, res.Iterations, res.Objective, res.LowerBound, res.Violated, want, slack)
				}
				if scale != 0 && res.Iterations > 4*base.Iterations+200 {
					t.Errorf("%s, seed %d, weights x %g: %d iterations where the unscaled solve took %d", tc.name, seed+1, scale, res.Iterations, base.Iterations)
				}
				if viol, _, _ := Check(&q, res.Values, opt.ConstraintTol); viol > opt.ConstraintTol*10 {
					t.Fatalf("%s, seed %d, weights x %g: a constraint is violated by %g", tc.name, seed+1, scale, viol)
				}
			}
		}
	}
}

// TestWeightScale: the power of ten nearest the weight nearest 1 when all
// positive weights are on one side of 1, from |exponent| 3 on; 1 nearer 1,
// with weights on both sides of 1, and with no positive weight.
func TestWeightScale(t *testing.T) {
	for _, tc := range []struct {
		w    []float64
		want float64
	}{
		{nil, 1},
		{[]float64{0, 0}, 1},
		{[]float64{1, 5, 100}, 1},
		{[]float64{300}, 1},
		{[]float64{0.004}, 1},
		{[]float64{4000}, 1e4},
		{[]float64{2000, 1e9}, 1e3},
		{[]float64{0, 2e-12, 3e-12, 5e-4}, 1e-3},
		{[]float64{0, 2e-12, 3e-12, 5e-9}, 1e-8},
		{[]float64{1e-9, 1e9, 5e9, 7e9}, 1},
		{[]float64{1, 2, 3, 1e12, 1.9e17}, 1},
		{[]float64{2.4e5, 6e5, 5e6, 7.5e7}, 1e5},
	} {
		if got := WeightScale(tc.w); got != tc.want {
			t.Errorf("WeightScale(%v) = %g, want %g", tc.w, got, tc.want)
		}
	}
}
