package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// SchemaLock holds a schema for one run: a session-level advisory lock of
// PostgreSQL, on a connection of its own, keyed by the schema's name. Two
// runs on one schema, each taking it before it touches the schema's tables
// and keeping it to its end, run one after the other: a run never grounds
// over tables another run is replacing, and two runs never create one new
// schema at once. PostgreSQL releases the lock when its connection ends,
// so a run that dies leaves no lock behind; and a session that ends while
// the run goes on (a server-side idle timeout, an administrator, a proxy,
// the server gone) has let the lock go: Check and Watch tell the run.
type SchemaLock struct {
	schema string
	mu     sync.Mutex // the connection, between Check and Release
	conn   *pgx.Conn
	lost   error         // the first failed check
	stop   chan struct{} // closed by Release: Watch's loop ends
	done   chan struct{} // closed when Watch's loop has ended
}

// lockKey is the advisory lock's key for schema: the first 8 bytes of a
// hash of its name in a namespace of hinge's own, so that it is unlikely to
// be any other program's key.
func lockKey(schema string) int64 {
	h := sha256.Sum256([]byte("hinge schema lock\x00" + schema))
	return int64(binary.BigEndian.Uint64(h[:8]))
}

// LockSchema takes schema's lock on the server at url. When another run
// holds it, waiting is called once with a description of that run (its
// client's application name and PostgreSQL process, and since when), and
// LockSchema waits until the lock is free or ctx is done.
func LockSchema(ctx context.Context, url, schema string, waiting func(holder string)) (*SchemaLock, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	setApplicationName(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	// The session idles for the whole run: a server-side idle timeout
	// (PostgreSQL 14's idle_session_timeout, in the URL or the role's
	// settings) would end it and let the lock go. Older servers do not know
	// the setting: a failure here changes nothing.
	_, _ = conn.Exec(ctx, "SET idle_session_timeout = 0")
	key := lockKey(schema)
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&got); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("locking schema %s: %w", schema, err)
	}
	if !got {
		if waiting != nil {
			waiting(holder(ctx, conn, key))
		}
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
			conn.Close(context.Background())
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("waiting for schema %s: %w", schema, err)
		}
	}
	return &SchemaLock{schema: schema, conn: conn}, nil
}

// lockCheckTimeout bounds one Check: a server that does not answer in it
// counts as gone.
const lockCheckTimeout = 5 * time.Second

// Check reports whether the run still holds the lock: the session that
// took it answers (a session-level advisory lock lasts as long as its
// session). Once a check has failed, every later one returns its error.
func (l *SchemaLock) Check() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil || l.conn == nil {
		return l.lost
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockCheckTimeout)
	defer cancel()
	if _, err := l.conn.Exec(ctx, "SELECT 1"); err != nil {
		l.lost = fmt.Errorf("the PostgreSQL session holding schema %s for this run ended (%w): another run may have replaced its tables meanwhile", l.schema, err)
	}
	return l.lost
}

// Watch checks the lock every interval until Release, and calls lost once,
// from its own goroutine, when a check fails (a run cancels itself).
func (l *SchemaLock) Watch(every time.Duration, lost func(error)) {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				if err := l.Check(); err != nil {
					lost(err)
					return
				}
			}
		}
	}()
}

// holder describes the session holding the advisory lock key, as well as
// pg_locks and pg_stat_activity tell it (a user without the right to see
// other sessions sees less).
func holder(ctx context.Context, conn *pgx.Conn, key int64) string {
	var pid int32
	var app string
	var since *time.Time
	err := conn.QueryRow(ctx, `SELECT l.pid, coalesce(a.application_name, ''), a.backend_start
		FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		  AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid LIMIT 1`,
		int64(uint64(key)>>32), int64(uint64(key)&0xffffffff)).Scan(&pid, &app, &since)
	if err != nil {
		return "another session"
	}
	s := fmt.Sprintf("PostgreSQL process %d", pid)
	if app != "" {
		s = app + ", " + s
	}
	if since != nil {
		s += ", connected at " + since.Local().Format("15:04:05")
	}
	return s
}

// Release stops Watch, gives the lock up and closes its connection.
func (l *SchemaLock) Release() error {
	if l == nil {
		return nil
	}
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	err := l.conn.Close(context.Background())
	l.conn = nil
	return err
}

// setApplicationName names hinge's connections "hinge (process PID)" in
// pg_stat_activity unless the URL names them, so that a run waiting for a
// schema can say which run holds it.
func setApplicationName(cfg *pgx.ConnConfig) {
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = fmt.Sprintf("hinge (process %d)", os.Getpid())
	}
}
