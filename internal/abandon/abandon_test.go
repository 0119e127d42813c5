package abandon

import (
	"context"
	"errors"
	"testing"
)

// TestRun: f's own answer when it ends first; ctx's error at once when ctx
// is cancelled first (f left to finish) or was cancelled before.
func TestRun(t *testing.T) {
	boom := errors.New("boom")
	if v, err := Run(context.Background(), func() (int, error) { return 2, boom }); v != 2 || err != boom {
		t.Fatalf("background: %d, %v", v, err)
	}
	live, stop := context.WithCancel(context.Background())
	defer stop()
	if v, err := Run(live, func() (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("live: %d, %v", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release, started := make(chan struct{}), make(chan struct{})
	go func() { <-started; cancel() }()
	v, err := Run(ctx, func() (int, error) {
		close(started)
		<-release // work that would go on for minutes
		return 1, nil
	})
	close(release)
	if v != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while running: %d, %v", v, err)
	}
	ran := false
	if _, err := Run(ctx, func() (int, error) { ran = true; return 4, nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("cancelled before: %v, ran %v", err, ran)
	}
}
