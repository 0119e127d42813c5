// Command hinge grounds, solves, lifts and learns hinge-loss Markov random
// fields from PSL models, and solves weighted MAX-SAT with a guarantee.
//
// Each subcommand lives in its own file with one options struct; logic a Go
// user would need lives in the library packages, not here.
//
// Exit status: 0 success; 1 the run failed (for example infeasible hard
// constraints or an I/O error while writing) or was cancelled (SIGINT,
// SIGTERM: nothing is written); 2 bad input or usage (unknown flag,
// malformed model or data, missing file).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/internal/textfile"
)

// The memory limit of every command: the flag, else the environment
// variable, else 80% of the memory the machine or the cgroup allows.
const (
	memoryLimitFlag = "memory-limit"
	memoryLimitEnv  = "HINGE_MEMORY_LIMIT"
)

// applyMemoryLimit resolves --memory-limit and sets Go's soft memory limit
// to it, so the collector works harder before the process outgrows it;
// loaders and the grounder read it back (memlimit.Current) to refuse work
// that cannot fit. A bad size is bad input naming the flag or variable.
func applyMemoryLimit(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup(memoryLimitFlag)
	if f == nil {
		f = cmd.InheritedFlags().Lookup(memoryLimitFlag)
	}
	val, set := "", false
	if f != nil {
		val, set = f.Value.String(), f.Changed
	}
	n, err := memlimit.Resolve(val, set, "--"+memoryLimitFlag, os.Getenv(memoryLimitEnv), memoryLimitEnv)
	if err != nil {
		return badInput(err)
	}
	switch {
	case set:
		memoryLimitFrom = "set by --" + memoryLimitFlag
	case strings.TrimSpace(os.Getenv(memoryLimitEnv)) != "":
		memoryLimitFrom = "set by $" + memoryLimitEnv
	default:
		memoryLimitFrom = "the default, 80% of the memory this process may use (the machine's, its cgroup's, or half what its ulimit leaves); --" + memoryLimitFlag + " sets another"
	}
	memlimit.Set(n)
	return nil
}

// memoryLimitFrom says where the run's memory limit came from, for the
// messages that refuse work which would not fit in it.
var memoryLimitFrom = "set by --" + memoryLimitFlag

// exitError carries the process exit status with an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks err as a problem with the user's input (exit status 2),
// except an input that fills the memory limit (textfile.FullError), which
// is refused as work that cannot fit (exit status 1).
func badInput(err error) error {
	if err == nil {
		return nil
	}
	if full := (*textfile.FullError)(nil); errors.As(err, &full) {
		return failed(err) // it names the limit and the flag
	}
	return &exitError{2, err}
}

// failed marks err as a failed run (exit status 1) whose output still
// explains what happened.
func failed(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{1, err}
}

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}

// writeJSON writes v as indented JSON to path, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	})
}

// readFile parses the file at path with read (hlmrf.Read, maxsat.Read), which
// names path in its errors: bad input. It reads while ctx runs
// (whileRunning): Ctrl-C during a file of gigabytes returns the cancelled
// run's error at once.
func readFile[T any](ctx context.Context, path string, read func(io.Reader, string) (T, error)) (T, error) {
	v, err := whileRunning(ctx, func() (T, error) {
		f, err := textfile.Open(path)
		if err != nil {
			var zero T
			return zero, err
		}
		defer f.Close()
		return read(bufio.NewReaderSize(f, 1<<20), path)
	})
	if err != nil && !isCancel(err) {
		err = badInput(err)
	}
	return v, err
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "hinge",
		Short: "Statistical relational learning: PSL / hinge-loss MRF inference, lifting, MAX-SAT rounding, learning",
		// The root takes no arguments of its own: a word that is not a
		// command is reported (with suggestions) by rootArgs, typed as bad
		// input, instead of by cobra's message text.
		Args:          rootArgs,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("hinge {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().String(memoryLimitFlag, "", "the memory the run may use: `SIZE` in bytes or with a unit (512MiB, 4GB, 1.5G); default $"+memoryLimitEnv+", else 80% of the machine's, the cgroup's or the ulimit's memory")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return applyMemoryLimit(cmd) }
	root.AddCommand(
		newGroundCmd(),
		newInferCmd(),
		newSolveCmd(),
		newLiftCmd(),
		newMaxsatCmd(),
		newLearnCmd(),
		newStructureCmd(),
		newKGCCmd(),
		newMLNCmd(),
		newRRFCmd(),
		newFmtCmd(),
	)
	for _, c := range root.Commands() {
		if slices.Contains(pslDefineCommands, c.CommandPath()) {
			addPSLDefineHelp(c)
		}
	}
	return root
}

// run executes the command line args and returns the exit status; it is the
// whole program except for the process's streams and signals.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run with a context that cancels the command (SIGINT and
// SIGTERM in main).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	args, err := alchemyArgs(root, args)
	var notes []string
	if err == nil {
		args, notes, err = pslDefines(root, args)
	}
	if err != nil {
		for _, n := range notes {
			fmt.Fprintln(stderr, n)
		}
		fmt.Fprintln(stderr, "hinge:", err)
		return exitCode(err)
	}
	args = longFlagsWithOneDash(root, args)
	if err := pslModeFlag(args); err != nil {
		fmt.Fprintln(stderr, "hinge:", err)
		return exitCode(err)
	}
	defer memlimit.Restore(memlimit.Set(0))     // in-process runs (tests) leave the limit as they found it
	defer atomicfile.SetInterrupt(ctx.Done())() // Ctrl-C ends a wait for a FIFO output's reader
	root.SetArgs(args)
	root.SetErr(stderr)
	// The run's outputs are put in place together when it ends, or none
	// of them when one failed (a full disk part-way through them) or the
	// run was cancelled.
	batch := atomicfile.Begin()
	ended := false
	defer func() {
		if !ended { // a panic: nothing is put in place, the temporary files go
			batch.Fail()
			batch.End()
		}
	}()
	out := &recordingWriter{w: stdout}
	root.SetOut(out)
	// Where the run's error goes: standard error, unless the command's
	// outputs take it and standard output is free (routeMessages).
	route := &messageRoute{notes: notes}
	cmd, err := root.ExecuteContextC(withRoute(atomicfile.WithBatch(ctx, batch), route))
	for _, n := range route.notes { // a run that ended before routing its messages
		fmt.Fprintln(stderr, n)
	}
	if err == nil && out.err != nil {
		// What the run printed (its answer, for some commands) is lost.
		err = failed(fmt.Errorf("writing standard output: %w", out.err))
		batch.Fail()
	}
	if err != nil && ctx.Err() != nil && isCancel(err) {
		batch.Fail()
	}
	dropped, berr := batch.End()
	ended = true
	if berr != nil && err == nil {
		err = failed(berr)
	}
	if err != nil {
		if cmd == nil {
			cmd = root
		}
		if route.errors != nil && !out.closed && out.err == nil {
			// Standard output as routed, unless its reader is gone: then
			// standard error, where the error is not lost.
			stderr = route.errors
		}
		if ctx.Err() != nil && isCancel(err) {
			fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), cancelMessage(ctx))
			return 1
		}
		// One prefix: the command that failed ("hinge infer: ...").
		fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), clipMessage(describeError(err)))
		if dropped > 0 && berr == nil {
			fmt.Fprintf(stderr, "%s: so none of the run's outputs was written: each file is as it was before the run\n", cmd.CommandPath())
		}
	}
	return exitCode(err)
}

// recordingWriter passes writes to w and keeps the first error, so that a
// run whose standard output could not be written (a full disk, /dev/full,
// a file size limit) fails instead of ending with status 0. A broken pipe
// is not an error: the reader stopped reading on purpose (| head), so the
// rest of standard output is dropped and the run goes on to write its
// files.
type recordingWriter struct {
	w      io.Writer
	err    error
	closed bool // the reader closed the pipe
}

// Terminal says whether w is a terminal (progress.IsTerminal).
func (r *recordingWriter) Terminal() bool { return progress.IsTerminal(r.w) }

func (r *recordingWriter) Write(p []byte) (int, error) {
	if r.closed {
		return len(p), nil
	}
	n, err := r.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		r.closed = true
		return len(p), nil
	}
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// interrupted is the error of a cancelled run once ctx is done, else nil.
// Commands look before writing anything, so that a cancelled run writes
// nothing even when the step it interrupted had come to its end.
func interrupted(ctx context.Context) error {
	if ctx != nil && ctx.Err() != nil {
		return failed(ctx.Err())
	}
	return nil
}

// isCancel reports whether err comes from a cancelled context.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// cancelMessage says that a run stopped because ctx was cancelled, and by
// what when the context knows (a signal: "interrupt signal received").
func cancelMessage(ctx context.Context) string {
	why := ""
	if c := context.Cause(ctx); c != nil && c != context.Canceled && c != context.DeadlineExceeded {
		why = " (" + c.Error() + ")"
	}
	return "the run was cancelled" + why + "; no output was written"
}

// clipMessage caps the user input a message echoes: every word (a run of
// non-blank bytes: a path, a quoted value) longer than a few hundred bytes
// keeps only its ends, so a 10 MB path or line cannot make a 10 MB message.
func clipMessage(msg string) string {
	if len(msg) <= 200 {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		j := i
		for j < len(msg) && msg[j] != ' ' && msg[j] != '\n' && msg[j] != '\t' {
			j++
		}
		b.WriteString(clipPath(msg[i:j]))
		if j < len(msg) {
			b.WriteByte(msg[j])
			j++
		}
		i = j
	}
	return b.String()
}

// describeError is err's message, saying "symlink loop" where the system
// only says "too many levels of symbolic links".
func describeError(err error) string {
	msg := err.Error()
	if errors.Is(err, syscall.ELOOP) && !strings.Contains(msg, "symlink loop") {
		msg += " (a symlink loop)"
	}
	return msg
}

func main() {
	// A reader that closes standard output early (hinge kgc ... | head -1)
	// must not kill the run by SIGPIPE before it writes its output files:
	// with the signal ignored the write fails with EPIPE, which
	// recordingWriter takes as the reader's choice.
	signal.Ignore(syscall.SIGPIPE)
	// SIGHUP too: a closed terminal or a dropped ssh session killed the
	// run outright, leaving its temporary files and --cache behind. Not
	// when it was ignored at the start (nohup, trap '' HUP): the user
	// asked the run to outlive the terminal, and Notify would undo that.
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	go func() {
		// After the first signal, which cancels the run, the signals'
		// default action comes back: a second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	ctx, cancel := watchParent(ctx, os.Getenv("HINGE_PARENT_PID"))
	code := runContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	stop()
	os.Exit(code)
}

// watchParent cancels ctx, as a signal does, once the process that
// started hinge has ended, when that process named itself in
// $HINGE_PARENT_PID (the Python package does: a Python killed by SIGTERM
// or SIGHUP runs no cleanup, and hinge, in a session of its own, ran on to
// the end and wrote into a directory nobody removed). When it is hinge's
// parent, its end shows as a new parent process id; otherwise (a wrapper
// script between them, which does not exec hinge) the process itself is
// watched. Either is looked at four times a second.
func watchParent(ctx context.Context, pid string) (context.Context, context.CancelFunc) {
	want, err := strconv.Atoi(pid)
	if err != nil || want <= 1 {
		return ctx, func() {}
	}
	running := func() bool { return os.Getppid() == want }
	if !running() {
		running = func() bool { return atomicfile.ProcessAlive(want) }
		if !running() {
			return ctx, func() {} // not a process: nothing to watch
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for running() {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		cancel(fmt.Errorf("the process that started hinge, %d, ended", want))
	}()
	return ctx, func() { cancel(nil) }
}
