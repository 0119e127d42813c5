package rrf

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

// countdownCtx is a context whose Err is nil for its first left calls and
// context.Canceled from then on, counting the calls.
type countdownCtx struct {
	context.Context
	left, calls int
}

func (c *countdownCtx) Err() error {
	c.calls++
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancelWithinSweep: ICM and Gibbs look at the context before every
// variable, not once a sweep, so a run whose single sweep is long (many
// variables under deep feature chains: seconds a sweep) stops at once; here
// a run of one sweep cancelled after its first variables.
func TestCancelWithinSweep(t *testing.T) {
	net := randomNet(rand.New(rand.NewPCG(3, 4)), 200, 40)
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"icm", func(ctx context.Context) error {
			_, _, err := ICM(ctx, net, nil, ICMOptions{Restarts: 1, MaxSweeps: 1, Seed: 1})
			return err
		}},
		{"gibbs", func(ctx context.Context) error {
			_, err := Gibbs(ctx, net, nil, nil, GibbsOptions{Samples: 1, Seed: 1})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := &countdownCtx{Context: context.Background(), left: 5}
			if err := tc.run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled from within the sweep", err)
			}
			if ctx.calls != 6 {
				t.Errorf("%d looks at the context, want 6 (it stops at the first that sees it done)", ctx.calls)
			}
			// Not cancelled, the same run finishes.
			if err := tc.run(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
