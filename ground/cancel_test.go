package ground

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// countdownCtx is a context whose Err is nil for its first left calls and
// context.Canceled from then on; calls counts every call. It cancels a
// grounding at a chosen look at the context, whichever code makes it.
type countdownCtx struct {
	context.Context
	left  atomic.Int64
	calls atomic.Int64
}

func newCountdown(left int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(left)
	return c
}

func (c *countdownCtx) Err() error {
	c.calls.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// crossModel is one rule whose first join step has one row and whose
// second scans n rows: a single chunk of n join steps; with arithmetic, the
// rule C(X, Y) <= 0.5 instead, n substitutions in chunks of n/64.
func crossModel(t *testing.T, n int, arithmetic bool) (*model.Model, *store.Store) {
	t.Helper()
	m := model.New()
	a, _ := m.AddPredicate("A", 1, true)
	b, _ := m.AddPredicate("B", 1, true)
	c, _ := m.AddPredicate("C", 2, false)
	s := store.New(m)
	if err := s.AddObservation(a, []string{"a"}, 1); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		y := fmt.Sprint("b", i)
		if err := s.AddObservation(b, []string{y}, 1); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTarget(c, []string{"a", y}); err != nil {
			t.Fatal(err)
		}
	}
	r := weighted(1, false, imp(and(at(a, "X"), at(b, "Y")), at(c, "X", "Y")))
	if arithmetic {
		r = arith(1, false, []model.Summand{sa(num(1), at(c, "X", "Y"))}, model.LE, []model.Summand{sc(0.5)})
	}
	if err := m.AddRule(r); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestGroundCancelled: a done Options.Context stops grounding with its
// error (not a partial result), whether it is done before grounding,
// between chunks, or in the middle of one chunk's join, with or without a
// Sink and on any number of threads.
func TestGroundCancelled(t *testing.T) {
	for _, arithmetic := range []bool{false, true} {
		t.Run(map[bool]string{false: "logical", true: "arithmetic"}[arithmetic], func(t *testing.T) { testGroundCancelled(t, arithmetic) })
	}
}

func testGroundCancelled(t *testing.T, arithmetic bool) {
	const n = 50000
	m, s := crossModel(t, n, arithmetic)
	// A context that is never done counts the looks a full grounding takes.
	full := newCountdown(1 << 40)
	g, err := Ground(m, s, Options{Threads: 1, Context: full})
	if err != nil || g.Problem.NumPotentials() != n {
		t.Fatalf("grounding with a live context: %v, %d potentials", err, g.Problem.NumPotentials())
	}
	looks := full.calls.Load()
	if looks < 16 {
		t.Fatalf("a %d-step grounding looked at the context %d times; want one look every %d steps", n, looks, cancelEvery)
	}
	for _, tc := range []struct {
		name    string
		left    int64 // looks before the context is done
		threads int
		sink    bool
	}{
		{"before grounding", 0, 1, false},
		{"in the join", looks / 2, 1, false},
		{"at the last look", looks - 1, 1, false},
		{"in the join, 2 threads", looks / 2, 2, false},
		{"in the join, sink", looks / 2, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCountdown(tc.left)
			opt := Options{Threads: tc.threads, Context: ctx}
			if tc.sink {
				opt.Sink = &discard{}
			}
			g, err := Ground(m, s, opt)
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Fatalf("got %v (result %v), want context.Canceled and no result", err, g != nil)
			}
			// It stopped at once: at most one more look per thread.
			if got := ctx.calls.Load(); got > tc.left+int64(tc.threads) {
				t.Errorf("%d looks at the context, done after %d", got, tc.left)
			}
		})
	}
}

// TestGroundCancelledBetweenChunks: a context cancelled while a rule of
// many chunks is grounded (here from the progress report of the first
// chunk) stops before the next chunk.
func TestGroundCancelledBetweenChunks(t *testing.T) {
	m := model.New()
	p, _ := m.AddPredicate("P", 1, false)
	q, _ := m.AddPredicate("Q", 1, true)
	s := store.New(m)
	for i := range 1000 {
		s.AddObservation(q, []string{fmt.Sprint(i)}, 1)
		s.AddTarget(p, []string{fmt.Sprint(i)})
	}
	if err := m.AddRule(weighted(1, false, imp(at(q, "X"), at(p, "X")))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	chunks := 0
	_, err := Ground(m, s, Options{Threads: 1, Context: ctx, Progress: func(rule, done, total int) {
		chunks++
		if total < 2 {
			t.Fatalf("the rule has %d chunks; the test needs several", total)
		}
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || chunks != 1 {
		t.Fatalf("got %v after %d chunks, want context.Canceled after 1", err, chunks)
	}
}
