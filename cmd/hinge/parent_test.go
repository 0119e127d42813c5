package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWatchParent: a run whose $HINGE_PARENT_PID is its parent is not
// cancelled while that runs; one naming another live process (a wrapper
// script that did not exec hinge stands between them) is cancelled, with
// the reason, once that process ends, and not before (every run under a
// wrapper was cancelled at once); no value, a bad one or a process that
// does not exist watches nothing.
func TestWatchParent(t *testing.T) {
	ctx, cancel := watchParent(context.Background(), strconv.Itoa(os.Getppid()))
	select {
	case <-ctx.Done():
		t.Fatal("cancelled while the parent runs")
	case <-time.After(600 * time.Millisecond):
	}
	cancel()
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Skip("no sleep to stand for the process that started hinge:", err)
	}
	defer other.Process.Kill()
	ctx, cancel = watchParent(context.Background(), strconv.Itoa(other.Process.Pid))
	defer cancel()
	select {
	case <-ctx.Done():
		t.Fatal("cancelled while the process named runs")
	case <-time.After(600 * time.Millisecond):
	}
	other.Process.Kill()
	other.Wait()
	select {
	case <-ctx.Done():
		if msg := cancelMessage(ctx); !strings.Contains(msg, "the process that started hinge") {
			t.Errorf("message %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not cancelled 5 s after the process named ended")
	}
	for _, v := range []string{"", "x", "1", "-3", strconv.Itoa(other.Process.Pid)} {
		ctx, cancel := watchParent(context.Background(), v)
		if ctx != context.Background() {
			t.Errorf("%q: watched", v)
		}
		cancel()
	}
}
