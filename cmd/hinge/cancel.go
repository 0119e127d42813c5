package main

import (
	"context"
	"errors"

	"github.com/hinge-srl/hinge/internal/abandon"
)

// whileRunning runs f, work with no effect outside the values it returns
// (reading and parsing input files, building a network from them), and
// returns what f returns; when ctx is cancelled first, it returns at once
// with a cancelled run's error and leaves f to finish unseen on its own
// goroutine (the process ends soon after, with the command). The parsers
// it wraps do not look at a context; this way a cancelled run still stops
// within a second while one of them reads a file of gigabytes.
func whileRunning[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx == nil {
		return f()
	}
	v, err := abandon.Run(ctx, f)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return v, interrupted(ctx)
	}
	return v, err
}
