// Command hinge grounds, solves, lifts and learns hinge-loss Markov random
// fields from PSL models, and solves weighted MAX-SAT with a guarantee.
//
// Each subcommand lives in its own file with one options struct; logic a Go
// user would need lives in the library packages, not here.
//
// Exit status: 0 success; 1 the run failed (for example infeasible hard
// constraints or an I/O error while writing); 2 bad input or usage (unknown
// flag, malformed model or data, missing file).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// exitError carries the process exit status with an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks err as a problem with the user's input (exit status 2).
func badInput(err error) error {
	if err == nil {
		return nil
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
// names path in its errors.
func readFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(bufio.NewReaderSize(f, 1<<20), path)
}

// commands lists the constructors of every subcommand; each file adds its own
// in an init function so that files can be added without touching this one.
var commands []func() *cobra.Command

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "hinge",
		Short:         "Statistical relational learning: PSL / hinge-loss MRF inference, lifting, MAX-SAT rounding, learning",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return badInput(fmt.Errorf("%s: %w", c.CommandPath(), err))
	})
	for _, mk := range commands {
		root.AddCommand(mk())
	}
	return root
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err != nil {
		// Cobra's own argument errors (unknown command, wrong arg count) are usage errors.
		var e *exitError
		if !errors.As(err, &e) && isUsageError(err) {
			err = badInput(err)
		}
		fmt.Fprintln(stderr, "hinge:", err)
	}
	return exitCode(err)
}

// isUsageError recognises errors cobra returns for a bad command line.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "flag needs an argument", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
