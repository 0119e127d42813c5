// Package progress shows what a long command is doing. On a terminal it
// draws a bar for stages with a known size (grounding rules) and a status
// line for iterative solvers (ADMM iterations, objective, residuals), and
// clears them when done. Elsewhere (a log file, a pipe) New's reporter
// prints a plain line every few seconds (the phase, how far it got, the
// time since the start), and nothing at all for a run that ends sooner,
// so that short runs' logs stay clean and long ones still show progress.
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

// DefaultEvery is how often a reporter that is not on a terminal prints a
// line.
const DefaultEvery = 5 * time.Second

// Reporter writes progress to one stream. The zero value and a nil
// *Reporter are silent.
type Reporter struct {
	w       io.Writer
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	last    time.Time
	pending bool // a status line is on screen and needs clearing

	// Line mode (not a terminal): a line at most every every, the first
	// one every after start; now is the clock (tests replace it).
	lines        bool
	prefix       string
	every        time.Duration
	now          func() time.Time
	start        time.Time
	stage        string
	done, total  int
	status       string
	lastLine     time.Time
	stageStarted bool
}

// terminal is a writer that says it is a terminal whatever its type (a
// test's stand-in for one).
type terminal interface{ Terminal() bool }

// IsTerminal reports whether w is a terminal (a writer with a Terminal
// method, as tests give, says so itself).
func IsTerminal(w io.Writer) bool { return isTerminal(w) }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if t, ok := w.(terminal); ok {
		return t.Terminal()
	}
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// ForTerminal returns a reporter writing to w when w is a terminal (an
// *os.File on one) and quiet is false; otherwise a silent one (nil).
func ForTerminal(w io.Writer, quiet bool) *Reporter {
	if quiet || w == nil || !isTerminal(w) {
		return nil
	}
	return &Reporter{w: w}
}

// New returns a reporter writing to w: on a terminal as ForTerminal's;
// otherwise one that prints "PREFIX: phase, how far (N s)" lines, at most
// one every DefaultEvery and none before DefaultEvery has passed. With
// quiet it is silent (nil).
func New(w io.Writer, quiet bool, prefix string) *Reporter {
	if quiet || w == nil {
		return nil
	}
	if isTerminal(w) {
		return &Reporter{w: w}
	}
	return Lines(w, prefix, DefaultEvery, time.Now)
}

// Lines returns a reporter that prints plain lines to w, at most one every
// every and none before every has passed since it was made, reading the
// time from now.
func Lines(w io.Writer, prefix string, every time.Duration, now func() time.Time) *Reporter {
	t := now()
	return &Reporter{w: w, lines: true, prefix: prefix, every: every, now: now, start: t, lastLine: t}
}

// LineMode reports whether r prints plain lines (stderr is not a
// terminal), which end with the time since r was made: a caller's status
// text then need not give the time itself.
func (r *Reporter) LineMode() bool { return r != nil && r.lines }

// To returns a reporter that always writes to w as on a terminal (for
// tests).
func To(w io.Writer) *Reporter { return &Reporter{w: w} }

// Stage starts a bar for a stage of total steps, ending any previous one.
func (r *Reporter) Stage(name string, total int) {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines {
		r.stage, r.done, r.total, r.status, r.stageStarted = name, 0, total, "", true
		return
	}
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
	if r.lines {
		r.done = n
		r.lineLocked()
		return
	}
	if r.bar != nil {
		r.bar.Set(n)
	}
}

// Status overwrites a one-line status, at most ten times a second (on a
// terminal; elsewhere it is the line's text, printed as often as lines
// are).
func (r *Reporter) Status(format string, args ...any) {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines {
		r.status = fmt.Sprintf(format, args...)
		r.stageStarted = false
		r.lineLocked()
		return
	}
	if time.Since(r.last) < 100*time.Millisecond {
		return
	}
	r.last = time.Now()
	fmt.Fprintf(r.w, "\r\033[K"+format, args...)
	r.pending = true
}

// lineLocked prints the current state as one line when it is time.
func (r *Reporter) lineLocked() {
	t := r.now()
	if t.Sub(r.lastLine) < r.every {
		return
	}
	r.lastLine = t
	what := r.status
	if r.stageStarted || what == "" {
		what = r.stage
		if r.total > 0 {
			what = fmt.Sprintf("%s %d/%d", r.stage, r.done, r.total)
		}
	}
	if what == "" {
		return
	}
	prefix := ""
	if r.prefix != "" {
		prefix = r.prefix + ": "
	}
	fmt.Fprintf(r.w, "%s%s (%.0f s)\n", prefix, what, t.Sub(r.start).Seconds())
}

// Done clears whatever is on screen. Call it before printing anything
// else on the terminal (a summary on standard output shares the screen),
// else the summary starts at the end of the last status line.
func (r *Reporter) Done() {
	if r == nil || r.w == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines {
		r.stage, r.status, r.total, r.done = "", "", 0, 0
		return
	}
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
