package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// TestSchemaLockLost: a lock whose session ends (here terminated by an
// administrator; a server-side idle timeout or a server gone do the same)
// is seen lost by Check and by Watch, which calls back within about a
// second; an idle_session_timeout in the URL does not end the lock's
// session. A run that lost its session went on and reported another run's
// tables under exit 0.
func TestSchemaLockLost(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	ctx := context.Background()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	l, err := LockSchema(ctx, url+sep+"options=-c%20idle_session_timeout%3D200", schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	time.Sleep(600 * time.Millisecond) // past the URL's idle timeout
	if err := l.Check(); err != nil {
		t.Fatalf("the lock's session ended at the URL's idle timeout: %v", err)
	}
	var pid int32 // read before Watch shares the connection
	if err := l.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 1)
	l.Watch(50*time.Millisecond, func(err error) { lost <- err })
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-lost:
		if !strings.Contains(err.Error(), "the PostgreSQL session holding schema "+schema+" for this run ended") {
			t.Errorf("lost: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not see the lock's session end")
	}
	if err := l.Check(); err == nil {
		t.Error("Check after the session ended: nil")
	}
	// The lock is free for another run.
	other, err := LockSchema(ctx, url, schema, func(string) { t.Error("the lost lock still held the schema") })
	if err != nil {
		t.Fatal(err)
	}
	other.Release()
}
