package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/pgtest"
)

// TestLockSchema: a second holder of a schema's lock waits, told who holds
// it, until the first releases it; another schema is not held up; a wait
// ends with the context.
func TestLockSchema(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	ctx := context.Background()
	first, err := LockSchema(ctx, url, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()

	other, err := LockSchema(ctx, url, schema+"_other", func(string) { t.Error("another schema's lock waited") })
	if err != nil {
		t.Fatal(err)
	}
	other.Release()

	told := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		l, err := LockSchema(ctx, url, schema, func(h string) { told <- h })
		if err == nil {
			defer l.Release()
		}
		done <- err
	}()
	select {
	case h := <-told:
		if want := fmt.Sprintf("hinge (process %d)", os.Getpid()); !strings.Contains(h, want) || !strings.Contains(h, "PostgreSQL process") {
			t.Errorf("holder %q, want it to name %q and the PostgreSQL process", h, want)
		}
	case err := <-done:
		t.Fatalf("the second lock did not wait (error %v)", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the second lock neither waited nor returned")
	}
	select {
	case err := <-done:
		t.Fatalf("the second lock returned (%v) while the first was held", err)
	case <-time.After(300 * time.Millisecond):
	}
	first.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the second lock was not granted once the first was released")
	}

	// A wait ends when its context does.
	held, err := LockSchema(ctx, url, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := LockSchema(cctx, url, schema, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a cancelled wait returned %v", err)
	}
}
