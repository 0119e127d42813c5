package dcd

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/cache"
	"github.com/hinge-srl/hinge/hlmrf"
)

// tight are options that converge far past the oracles' comparisons.
func tight() Options {
	o := DefaultOptions()
	o.GapTol, o.ConstraintTol, o.MaxEpochs = 1e-6, 1e-7, 20000
	return o
}

func solve(t *testing.T, src Source, o Options) *Result {
	t.Helper()
	r, err := Solve(context.Background(), src, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkResult checks a converged result against the optimum: the lower
// bound is valid (at most the optimum), the objective within rel of it, the
// values in the box and the reported objective the problem's at them.
func checkResult(t *testing.T, name string, p *hlmrf.Problem, r *Result, optimum, rel float64) {
	t.Helper()
	scale := max(1, math.Abs(optimum))
	if r.Status != admm.Converged {
		t.Errorf("%s: %v after %d epochs (gap %.3g, violation %.3g)", name, r.Status, r.Epochs, (r.Objective-r.LowerBound)/scale, r.MaxViolation)
	}
	if r.LowerBound > optimum+1e-7*scale {
		t.Errorf("%s: lower bound %.10g above the optimum %.10g", name, r.LowerBound, optimum)
	}
	if math.Abs(r.Objective-optimum) > rel*scale {
		t.Errorf("%s: objective %.10g, optimum %.10g", name, r.Objective, optimum)
	}
	for i, v := range r.Values {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("%s: value %d is %v", name, i, v)
		}
	}
	if got := p.Objective(r.Values); math.Abs(got-r.Objective) > 1e-9*scale {
		t.Errorf("%s: reported objective %.12g, problem's at the values %.12g", name, r.Objective, got)
	}
	if v := p.Violations(r.Values, 0); math.Abs(v.Max-r.MaxViolation) > 1e-12 {
		t.Errorf("%s: reported violation %g, problem's %g", name, r.MaxViolation, v.Max)
	}
}

// TestAgainstLP: random problems with linear and squared hinges, zero
// weights and hard constraints (<= and =), against gonum's simplex method.
func TestAgainstLP(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		cfg := admmtest.Config{Vars: 25, Potentials: 60, MinArity: 1, MaxArity: 4, Power: uint8(seed % 3),
			Constraints: int(seed % 4 * 3), EqualFraction: 0.3, ZeroWeights: 0.1, Seed: seed}
		if cfg.Power != 1 {
			cfg.Potentials = 25 // the oracle's cutting planes are slow on many squared hinges
		}
		p := admmtest.Random(cfg)
		want := admmtest.LPOptimum(t, p, 1e-9)
		for _, bs := range []int{0, 7} {
			r := solve(t, FromProblem(p, bs), tight())
			checkResult(t, fmt.Sprintf("seed %d, blocks of %d", seed, bs), p, r, want, 1e-5)
		}
	}
}

// TestAgainstCLP: larger linear problems against COIN-OR CLP, where it is
// installed (.ci/run installs it).
func TestAgainstCLP(t *testing.T) {
	if admmtest.FindCLP() == "" {
		t.Skip("COIN-OR CLP (clp) is not installed: apt-get install coinor-clp")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		p := admmtest.Random(admmtest.Config{Vars: 400, Potentials: 2000, MinArity: 2, MaxArity: 4, Power: 1,
			Constraints: 40 * int(seed%2), EqualFraction: 0.2, Window: 50, Far: 0.05, Seed: seed})
		want := admmtest.CLPOptimum(t, p)
		r := solve(t, FromProblem(p, 500), tight())
		checkResult(t, fmt.Sprintf("seed %d", seed), p, r, want, 1e-5)
	}
}

// TestMatchesADMM: at the default tolerances the answer's objective is
// within 1e-3 (relative) of ADMM's, on clause-shaped problems.
func TestMatchesADMM(t *testing.T) {
	for _, power := range []uint8{1, 2} {
		p := admmtest.Clauses(20000, 4000, 3, power, uint64(power))
		ar, err := admm.Solve(context.Background(), p, admm.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		r := solve(t, FromProblem(p, 4096), DefaultOptions())
		if r.Status != admm.Converged {
			t.Errorf("power %d: %v after %d epochs", power, r.Status, r.Epochs)
		}
		if d := math.Abs(r.Objective-ar.Objective) / max(1, ar.Objective); d > 1e-3 {
			t.Errorf("power %d: objective %.8g, ADMM's %.8g (relative difference %.2g)", power, r.Objective, ar.Objective, d)
		}
		// Each solver's bound holds for the other's point.
		if r.LowerBound > ar.Objective+1e-9 || ar.LowerBound > r.Objective+1e-9 {
			t.Errorf("power %d: bounds cross: dcd [%.8g, %.8g], admm [%.8g, %.8g]", power, r.LowerBound, r.Objective, ar.LowerBound, ar.Objective)
		}
	}
}

// TestSources: the cache file, memory blocks of any size and duals kept in
// a file give bit-identical answers (the sweep order is the terms' order),
// and the dual file is removed afterwards.
func TestSources(t *testing.T) {
	p := admmtest.Random(admmtest.Config{Vars: 300, Potentials: 5000, MinArity: 1, MaxArity: 5,
		Constraints: 100, EqualFraction: 0.2, Seed: 9})
	dir := t.TempDir()
	path := filepath.Join(dir, "p.cache")
	if _, err := cache.WriteProblem(path, p); err != nil {
		t.Fatal(err)
	}
	cr, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	o := DefaultOptions()
	o.MaxEpochs = 60
	want := solve(t, FromProblem(p, 0), o)
	withFile := o
	withFile.DualFile = filepath.Join(dir, "duals")
	for name, r := range map[string]*Result{
		"blocks of 333": solve(t, FromProblem(p, 333), o),
		"cache":         solve(t, cr, o),
		"cache, file":   solve(t, cr, withFile),
	} {
		if !slices.Equal(r.Values, want.Values) || r.Objective != want.Objective || r.LowerBound != want.LowerBound || r.Epochs != want.Epochs {
			t.Errorf("%s: differs from one block in memory (objective %.12g vs %.12g)", name, r.Objective, want.Objective)
		}
	}
	if _, err := os.Stat(withFile.DualFile); !os.IsNotExist(err) {
		t.Errorf("dual file left behind: %v", err)
	}
}

// TestShuffle: a shuffled solve depends only on its seed, and converges too.
func TestShuffle(t *testing.T) {
	p := admmtest.Clauses(5000, 1000, 3, 0, 4)
	o := DefaultOptions()
	o.Shuffle, o.Seed = true, 7
	a := solve(t, FromProblem(p, 100), o)
	b := solve(t, FromProblem(p, 100), o)
	if !slices.Equal(a.Values, b.Values) {
		t.Error("two shuffled solves with one seed differ")
	}
	o.Seed = 8
	c := solve(t, FromProblem(p, 100), o)
	if slices.Equal(a.Values, c.Values) {
		t.Error("seeds 7 and 8 gave identical values: is the order shuffled?")
	}
	for _, r := range []*Result{a, c} {
		if r.Status != admm.Converged || math.Abs(r.Objective-c.Objective) > 2e-3*max(1, c.Objective) {
			t.Errorf("%v, objective %.8g (other seed %.8g)", r.Status, r.Objective, c.Objective)
		}
	}
}

// TestCancel: a solve whose context is done before it starts returns at
// once with the context's error, Cancelled, the starting point and no check.
func TestCancel(t *testing.T) {
	p := admmtest.Clauses(2000, 500, 3, 1, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Solve(ctx, FromProblem(p, 0), DefaultOptions())
	if err != context.Canceled || r == nil {
		t.Fatalf("error %v, result %v: want context.Canceled and the result so far", err, r != nil)
	}
	if r.Status != admm.Cancelled || len(r.Trajectory) != 0 || len(r.Values) != p.NumVars {
		t.Errorf("status %v, %d checks, %d values", r.Status, len(r.Trajectory), len(r.Values))
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, bad := range []func(*Options){
		func(o *Options) { o.Tau = 0 },
		func(o *Options) { o.Tau = math.Inf(1) },
		func(o *Options) { o.MaxEpochs = 0 },
		func(o *Options) { o.CheckEvery = -1 },
		func(o *Options) { o.GapTol = math.NaN() },
		func(o *Options) { o.ConstraintTol = -1 },
	} {
		o := DefaultOptions()
		bad(&o)
		if _, err := Solve(context.Background(), FromProblem(&hlmrf.Problem{NumVars: 1}, 0), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestConstantTerms: a potential with no variable counts in both the
// objective and the bound, and a constraint with no variable that the
// constants violate ends the solve as Infeasible, not at the epoch limit.
func TestConstantTerms(t *testing.T) {
	p := admmtest.Clauses(200, 50, 3, 1, 3)
	p.AddPotential(1.5, -1, 1, 0, nil, nil) // 1.5*max(1, 0): a constant 1.5
	r := solve(t, FromProblem(p, 0), tight())
	checkResult(t, "constant potential", p, r, admmtest.LPOptimum(t, p, 1e-9), 1e-5)
	p.AddConstraint(hlmrf.LessEq, -1, 0, nil, nil) // 0 <= -1
	r = solve(t, FromProblem(p, 0), DefaultOptions())
	if r.Status != admm.Infeasible || r.Violated != 1 || r.Epochs > 100 {
		t.Errorf("violated constant constraint: %v after %d epochs, %d violated", r.Status, r.Epochs, r.Violated)
	}
}

// TestCancelMidSolve: a solve cancelled after a check returns at the next
// epoch with the context's error, the point reached and that check's figures,
// which are the point's.
func TestCancelMidSolve(t *testing.T) {
	p := admmtest.Clauses(20000, 4000, 3, 1, 6)
	ctx, cancel := context.WithCancel(context.Background())
	o := tight()
	o.CheckEvery = 3
	checks := 0
	o.Progress = func(Check) {
		if checks++; checks == 2 {
			cancel()
		}
	}
	r, err := Solve(ctx, FromProblem(p, 1000), o)
	if err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	last := r.Trajectory[len(r.Trajectory)-1]
	if r.Status != admm.Cancelled || last.Epoch != r.Epochs || r.Epochs != 6 || r.Objective != p.Objective(r.Values) {
		t.Errorf("status %v, last check at epoch %d of %d, objective %.10g vs %.10g at the values", r.Status, last.Epoch, r.Epochs, r.Objective, p.Objective(r.Values))
	}
}

// cancelAt is a Source that cancels a context when block number at (in the
// order they are asked for, from 1) is asked for, and counts the blocks
// asked for.
type cancelAt struct {
	Source
	at, asked int
	cancel    func()
}

func (c *cancelAt) Block(b int, scratch *hlmrf.Problem) (*hlmrf.Problem, error) {
	if c.asked++; c.asked == c.at {
		c.cancel()
	}
	return c.Source.Block(b, scratch)
}

// TestCancelInAnyPass: a context cancelled in the middle of any pass over
// the blocks (the first, which counts each variable's terms; a sweep; a
// check) stops the solve within a block or two, without finishing the
// pass: a cancelled solve of a problem of any size returns within about one
// block's work.
func TestCancelInAnyPass(t *testing.T) {
	p := admmtest.Clauses(20000, 4000, 3, 1, 7)
	const blocks = 20
	o := tight()
	o.CheckEvery = 2
	for _, tc := range []struct {
		name   string
		at     int // the block asked for when the context is cancelled
		checks int // checks finished by then
	}{
		{"counting terms", blocks / 2, 0},
		{"first sweep", blocks + blocks/2, 0},
		{"first check", blocks + 2*blocks + blocks/2, 0},
		{"third sweep", blocks + 3*blocks + blocks/2, 1},
		{"second check", blocks + 3*blocks + 2*blocks + blocks/2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src := &cancelAt{Source: FromProblem(p, (p.NumPotentials()+blocks-1)/blocks), at: tc.at, cancel: cancel}
			if n := src.NumBlocks(); n != blocks {
				t.Fatalf("%d blocks, want %d", n, blocks)
			}
			r, err := Solve(ctx, src, o)
			if err != context.Canceled || r == nil || r.Status != admm.Cancelled {
				t.Fatalf("error %v, result %v: want context.Canceled and a Cancelled result", err, r != nil && r.Status == admm.Cancelled)
			}
			// The decoder reads at most two blocks ahead of the one in use.
			if src.asked > tc.at+2 {
				t.Errorf("%d blocks asked for, cancelled at %d", src.asked, tc.at)
			}
			if len(r.Trajectory) != tc.checks || len(r.Values) != p.NumVars {
				t.Errorf("%d checks (want %d), %d values", len(r.Trajectory), tc.checks, len(r.Values))
			}
		})
	}
}
