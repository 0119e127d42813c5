// Package abandon runs work that looks at no context (a parser, a solver's
// layout) so that a cancelled context returns at once: the work goes on,
// unseen, on its own goroutine until it ends, and its result is dropped.
// Meant for a program that ends soon after it is cancelled, as the hinge
// command does; a long-lived program pays the abandoned work's time and
// memory.
package abandon

import "context"

// Run runs f and returns what it returns, or ctx's error as soon as ctx is
// done, whichever comes first (ctx's error at once when ctx is already
// done, without starting f). A ctx that can never be done runs f in the
// caller's goroutine.
func Run[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	var zero T
	if err := ctx.Err(); err != nil {
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
		return zero, ctx.Err()
	}
}
