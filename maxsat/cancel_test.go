package maxsat

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// lookCtx is a context whose Err is nil for its first left calls and
// context.Canceled from then on; calls
// counts every call and where counts them by the maxsat function that
// looked (the innermost frame of package maxsat that is not the poll
// helper), so that a test can see which stages look at the context.
type lookCtx struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
	mu    sync.Mutex
	where map[string]int
}

func newLookCtx(left int64) *lookCtx {
	c := &lookCtx{Context: context.Background(), where: map[string]int{}}
	c.left.Store(left)
	return c
}

func (c *lookCtx) Err() error {
	c.calls.Add(1)
	pcs := make([]uintptr, 16)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		const pkg = "github.com/hinge-srl/hinge/maxsat."
		if name, ok := strings.CutPrefix(f.Function, pkg); ok && !strings.HasPrefix(name, "(*poll)") {
			name, _, _ = strings.Cut(name, ".func") // a closure counts for its function
			c.mu.Lock()
			c.where[name]++
			c.mu.Unlock()
			break
		}
		if !more {
			break
		}
	}
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// never is a lookCtx that is never done.
func never() *lookCtx { return newLookCtx(1 << 62) }

// cancelInstance is a random instance of m clauses of one to three
// literals over m/3 variables, a tenth of them hard (wide enough that every
// pass over it is thousands of literals).
func cancelInstance(m int) *Instance {
	rng := rand.New(rand.NewPCG(7, 8))
	n := m / 3
	in := &Instance{NumVars: n, Start: []int32{0}}
	for range m {
		k := 1 + rng.IntN(3)
		lits := make([]Lit, 0, k)
		for len(lits) < k {
			l := Pos(rng.IntN(n))
			if rng.IntN(2) == 0 {
				l = -l
			}
			lits = append(lits, l)
		}
		in.AddClause(float64(1+rng.IntN(5)), rng.IntN(10) == 0, lits...)
	}
	return in
}

// symmetricInstance is k disjoint copies of a ring of four implications
// a_i -> a_{i+1} with priors a_i: lifting finds one class of atoms and
// rounds on the classes.
func symmetricInstance(k int) *Instance {
	base := &Instance{Start: []int32{0}}
	for i := range 4 {
		base.AddClause(2, false, Not(i), Pos((i+1)%4))
		base.AddClause(1, false, Pos(i))
	}
	return copies(rand.New(rand.NewPCG(3, 4)), base, k)
}

// cancelOptions are the defaults with a short ADMM run: the stages around
// it are what these tests are about.
func cancelOptions(lift bool) Options {
	opt := DefaultOptions()
	opt.ADMM.MaxIter = 5
	opt.RepairSteps = 0
	opt.DualSweeps = 2
	opt.Lift = lift
	return opt
}

func literals(in *Instance) int { return len(in.Lits) }

// TestSolveLooksAtContext: checking the instance, indexing its clauses,
// building the relaxation, the certificate and the rounding (by atom, and
// by class with Options.Lift), and reading a problem in SolveProblem, each
// look at the context at least once per 64Ki literals of the instance, so
// that a cancelled run stops within milliseconds whichever stage it is in,
// not after the stage's pass over millions of clauses.
func TestSolveLooksAtContext(t *testing.T) {
	const perLook = 1 << 16
	ground := cancelInstance(150000)
	sym := symmetricInstance(20000)
	for _, c := range []struct {
		name   string
		in     *Instance
		lift   bool
		stages []string
	}{
		{"ground", ground, false, []string{"(*Instance).validate", "buildIndexCtx", "toProblem", "relaxedWeight", "lambdaFromPrimal", "newDual", "(*dual).ascend", "(*dual).value", "derandomizeMult"}},
		{"lifted, rounded by class", sym, true, []string{"toProblem", "(*liftedRelax).roundClasses"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := never()
			res, err := Solve(ctx, c.in, cancelOptions(c.lift))
			if err != nil {
				t.Fatal(err)
			}
			if c.lift && (res.Report.Lifted == nil || res.Report.Lifted.Rounding != RoundClasses) {
				t.Fatalf("want a run rounded by class, got %+v", res.Report.Lifted)
			}
			min := literals(c.in) / perLook
			for _, s := range c.stages {
				if got := ctx.where[s]; got < min {
					t.Errorf("%s looked at the context %d times over %d literals, want at least %d (looks: %v)", s, got, literals(c.in), min, ctx.where)
				}
			}
		})
	}
	t.Run("SolveProblem", func(t *testing.T) {
		p := problemOf(t, ground)
		ctx := never()
		if _, err := SolveProblem(ctx, p, cancelOptions(false)); err != nil {
			t.Fatal(err)
		}
		if got, min := ctx.where["fromProblem"], literals(ground)/perLook; got < min {
			t.Errorf("reading the problem looked at the context %d times, want at least %d (looks: %v)", got, min, ctx.where)
		}
	})
}

// problemOf is the relaxation of in as a clause-shaped HL-MRF, for
// SolveProblem.
func problemOf(t *testing.T, in *Instance) *hlmrf.Problem {
	t.Helper()
	return relaxOf(in, buildIndex(in)).Problem
}

// relaxOf is toProblem under a context that is never done.
func relaxOf(in *Instance, ix *index) *relaxation {
	rel, err := toProblem(context.Background(), in, ix)
	if err != nil {
		panic(err) // context.Background is never done
	}
	return rel
}

// TestSolveCancelled: a context done at any look stops Solve (ground,
// lifted, and SolveProblem) with the context's error and no result, within
// a few further looks (the two rounding passes run side by side, each
// notices on its own).
func TestSolveCancelled(t *testing.T) {
	ground := cancelInstance(20000)
	sym := symmetricInstance(5000)
	p := problemOf(t, ground)
	for _, c := range []struct {
		name  string
		solve func(ctx context.Context) (*Result, error)
	}{
		{"ground", func(ctx context.Context) (*Result, error) { return Solve(ctx, ground, cancelOptions(false)) }},
		{"lifted", func(ctx context.Context) (*Result, error) { return Solve(ctx, sym, cancelOptions(true)) }},
		{"SolveProblem", func(ctx context.Context) (*Result, error) { return SolveProblem(ctx, p, cancelOptions(false)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			full := never()
			if _, err := c.solve(full); err != nil {
				t.Fatal(err)
			}
			total := full.calls.Load()
			for k := int64(0); k < total; k += max(1, total/15) {
				ctx := newLookCtx(k)
				res, err := c.solve(ctx)
				if !errors.Is(err, context.Canceled) || res != nil {
					t.Fatalf("done at look %d of %d: got result %v, error %v; want no result and context.Canceled", k, total, res != nil, err)
				}
				if extra := ctx.calls.Load() - (k + 1); extra > 4 {
					t.Errorf("done at look %d of %d: %d further looks before stopping (looks: %v)", k, total, extra, ctx.where)
				}
			}
		})
	}
}
