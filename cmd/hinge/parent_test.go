package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWatchParent: a run whose $HINGE_PARENT_PID is not its parent (the
// parent ended, and the process was handed to another) is cancelled, with
// the reason; one whose parent is alive is not; no or a bad value watches
// nothing.
func TestWatchParent(t *testing.T) {
	ctx, cancel := watchParent(context.Background(), strconv.Itoa(os.Getppid()))
	select {
	case <-ctx.Done():
		t.Fatal("cancelled while the parent runs")
	case <-time.After(600 * time.Millisecond):
	}
	cancel()
	ctx, cancel = watchParent(context.Background(), strconv.Itoa(os.Getppid()+1_000_000))
	defer cancel()
	select {
	case <-ctx.Done():
		if msg := cancelMessage(ctx); !strings.Contains(msg, "the process that started hinge") {
			t.Errorf("message %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not cancelled 5 s after the parent named was gone")
	}
	for _, v := range []string{"", "x", "1", "-3"} {
		ctx, cancel := watchParent(context.Background(), v)
		if ctx != context.Background() {
			t.Errorf("%q: watched", v)
		}
		cancel()
	}
}
