// Package progress shows what a long command is doing on a terminal: a bar
// for stages with a known size (grounding rules) and a status line for
// iterative solvers (ADMM iterations, objective, residuals). When the output
// is not a terminal it prints nothing, so logs and pipes stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Reporter writes progress to one stream. The zero value and a nil
// *Reporter are silent.
type Reporter struct {
	w       io.Writer
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	last    time.Time
	pending bool // a status line is on screen and needs clearing
}

// ForTerminal returns a reporter writing to w when w is a terminal (an
// *os.File on one) and quiet is false; otherwise a silent one.
func ForTerminal(w io.Writer, quiet bool) *Reporter {
	f, ok := w.(*os.File)
	if quiet || !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Reporter{w: f}
}

// To returns a reporter that always writes to w (for tests).
func To(w io.Writer) *Reporter { return &Reporter{w: w} }

// Stage starts a bar for a stage of total steps, ending any previous one.
func (r *Reporter) Stage(name string, total int) {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishLocked()
	r.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(r.w),
		progressbar.OptionSetDescription(name),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}

// Set moves the current bar to n steps done.
func (r *Reporter) Set(n int) {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		r.bar.Set(n)
	}
}

// Status overwrites a one-line status, at most ten times a second.
func (r *Reporter) Status(format string, args ...any) {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.last) < 100*time.Millisecond {
		return
	}
	r.last = time.Now()
	fmt.Fprintf(r.w, "\r\033[K"+format, args...)
	r.pending = true
}

// Done clears whatever is on screen.
func (r *Reporter) Done() {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishLocked()
}

func (r *Reporter) finishLocked() {
	if r.bar != nil {
		r.bar.Finish()
		r.bar = nil
	}
	if r.pending {
		fmt.Fprint(r.w, "\r\033[K")
		r.pending = false
	}
}
