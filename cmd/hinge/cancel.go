package main

import "context"

// whileRunning runs f, work with no effect outside the values it returns
// (reading and parsing input files, building a network from them), and
// returns what f returns; when ctx is cancelled first, it returns at once
// with a cancelled run's error and leaves f to finish unseen on its own
// goroutine (the process ends soon after, with the command). The parsers
// it wraps do not look at a context; this way a cancelled run still stops
// within a second while one of them reads a file of gigabytes.
func whileRunning[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx == nil || ctx.Done() == nil {
		return f()
	}
	if err := interrupted(ctx); err != nil {
		var zero T
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned f does not block
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, interrupted(ctx)
	}
}
