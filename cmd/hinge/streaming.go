package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/cache"
	"github.com/hinge-srl/hinge/dcd"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/pipeline"
)

// streamOptions are hinge infer's --streaming flags.
type streamOptions struct {
	on       bool
	cacheDir string
	epochs   int
	tau      float64
	shuffle  bool
}

func (s *streamOptions) add(cmd *cobra.Command) {
	d := dcd.DefaultOptions()
	s.epochs, s.tau = d.MaxEpochs, d.Tau
	f := cmd.Flags()
	f.BoolVar(&s.on, "streaming", false, "ground to a cache file on disk and solve by dual coordinate descent streaming it (memory per variable, not per potential); chosen by itself when the problem does not fit --memory-limit")
	f.StringVar(&s.cacheDir, "cache", "", "with --streaming: write the cache file in this directory and keep it (ground.cache, replaced on each run; the solver's duals go there too, removed at the end); default: a temporary directory, removed")
	f.IntVar(&s.epochs, "epochs", s.epochs, "with --streaming: the most passes over the potentials")
	f.Float64Var(&s.tau, "tau", s.tau, "with --streaming: the first proximal step (> 0); the solve raises it up to 4x while the duality gap lags, and lowers it while hard constraints do")
	f.BoolVar(&s.shuffle, "shuffle", false, "with --streaming: visit the cache's blocks in a new random order each pass (--seed; nothing changes for a cache of one block, about 1 MB)")
}

// checkCache refuses, before any work, a --cache directory that cannot
// hold the cache: a file, one whose ground.cache is a directory or a file
// that is not a cache (an input, or the user's: each run replaces it), or
// one that --output (output, a directory replaced whole) would replace.
func (s *streamOptions) checkCache(output string) error {
	dir := s.cacheDir
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return badInput(fmt.Errorf("--cache %s is a file; give a directory", clipPath(dir)))
	}
	path := filepath.Join(dir, "ground.cache")
	if st, err := os.Lstat(path); err == nil {
		switch {
		case st.IsDir():
			return badInput(fmt.Errorf("--cache %s: %s is a directory; the cache file goes there", clipPath(dir), clipPath(path)))
		case !st.Mode().IsRegular() || !cache.IsCacheFile(path):
			return badInput(fmt.Errorf("--cache %s: %s exists and is not a cache hinge wrote; each run replaces that file: give another directory, or move the file", clipPath(dir), clipPath(path)))
		}
	}
	if output != "" {
		c, err1 := filepath.Abs(dir)
		o, err2 := filepath.Abs(output)
		if rel, err := filepath.Rel(o, c); err1 == nil && err2 == nil && err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return badInput(fmt.Errorf("--cache %s is inside --output %s, which is replaced whole: give another directory", clipPath(dir), clipPath(output)))
		}
	}
	return nil
}

// output is the cache file --cache DIR keeps, as an output (none without
// --cache, when the cache lives in a temporary directory, or while DIR is
// still to be created, when it holds neither an input nor another output).
func (s *streamOptions) output() output {
	if st, err := os.Stat(s.cacheDir); s.cacheDir == "" || err != nil || !st.IsDir() {
		return output{}
	}
	return output{flag: "--cache", path: filepath.Join(s.cacheDir, "ground.cache")}
}

// streamed is what a streaming solve hands back to hinge infer.
type streamed struct {
	g         *ground.Result
	groundSec float64
	values    []float64
	sum       *solveSummary
}

// stream grounds prog into a cache file and solves it by dcd, filling the
// report. auto says the run chose streaming itself.
func (o *inferOptions) stream(ctx context.Context, prog *pipeline.Program, rep *inferReport, stdout io.Writer) (*streamed, error) {
	dir := o.streaming.cacheDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "hinge-cache-")
		if err != nil {
			return nil, failed(fmt.Errorf("creating a temporary directory for the cache (set TMPDIR or give --cache DIR): %w", err))
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, badInput(fmt.Errorf("--cache %s: %w", clipPath(dir), err))
		}
		// The cache is written, then read back by name: a second run on
		// the same directory meanwhile made this one solve its problem.
		// Held to the run's end, as --output's lock is.
		unlock, err := atomicfile.LockDir(dir)
		if err != nil {
			return nil, badInput(fmt.Errorf("--cache %s: %w", clipPath(dir), err))
		}
		defer unlock()
	}
	path := filepath.Join(dir, "ground.cache")
	removeStale(dir)
	var g *ground.Result
	var groundSec float64
	var cw *cache.Writer
	_, targets, _ := prog.Store.Counts() // the ground problem's variables
	st, err := cache.Write(path, targets, func(w *cache.Writer) error {
		var err error
		cw = w
		g, groundSec, err = o.groundTo(ctx, prog, o.admm.Threads, w)
		return err
	})
	if err != nil {
		if cw != nil && cw.Err() != nil {
			// The cache's write failed (a full disk, a file size limit),
			// whichever rule's grounding met it.
			return nil, failed(fmt.Errorf("writing the cache %s: %w", clipPath(path), cw.Err()))
		}
		var ce *exitError
		if errors.As(err, &ce) {
			return nil, ce // grounding's own error, not the cache's
		}
		return nil, failed(fmt.Errorf("writing the cache %s: %w", clipPath(path), err))
	}
	printGroundSummary(stdout, prog, g, groundSec)
	fmt.Fprintf(stdout, "cache: %s, %d bytes in %d blocks (%.1f bytes a potential)\n",
		path, st.Bytes, st.Blocks, float64(st.Bytes)/float64(max(1, st.Potentials+st.Constraints)))

	r, err := cache.Open(path)
	if err != nil {
		return nil, failed(err)
	}
	defer r.Close()
	bar := progress.New(o.stderr, o.quiet, "hinge infer")
	defer bar.Done()
	opt := dcd.DefaultOptions()
	opt.Tau, opt.MaxEpochs = o.streaming.tau, o.streaming.epochs
	opt.GapTol, opt.ConstraintTol = o.admm.GapTol, o.admm.ConstraintTol
	if opt.GapTol == 0 {
		// ADMM's residual test has no counterpart here: the gap decides.
		opt.GapTol = admm.DefaultGapTol
		fmt.Fprintf(o.stderr, "hinge infer: note: streaming stops on the duality gap alone: --gap-tol 0 means %g here\n", opt.GapTol)
	}
	opt.Shuffle, opt.Seed = o.streaming.shuffle, o.seed
	duals, err := os.CreateTemp(dir, ".duals*")
	if err != nil {
		return nil, failed(fmt.Errorf("--cache: %w", err))
	}
	duals.Close()
	opt.DualFile = duals.Name() // dcd truncates it, and removes it at the end
	opt.Progress = func(c dcd.Check) {
		bar.Status("epoch %d  objective %.6g  lower bound %.6g  gap %.2e  max violation %.2e", c.Epoch, c.Objective, c.LowerBound, c.RelativeGap(), c.MaxViolation)
	}
	if testHookBeforeSolve != nil {
		testHookBeforeSolve()
	}
	t0 := time.Now()
	res, err := dcd.Solve(ctx, r, opt)
	bar.Done() // the status line is cleared before the summary is printed
	if err != nil {
		return nil, failed(err) // a cancelled solve too: its values are not written
	}
	rep.Seconds.Solve = time.Since(t0).Seconds()
	rep.Method = "dcd-streaming"
	rep.Objective, rep.Iterations, rep.Status, rep.Converged = res.Objective, res.Epochs, res.Status, res.Status == admm.Converged
	rep.LowerBound, rep.RelativeGap = gapFields(res.Objective, res.LowerBound, res.GapFloor)
	rep.MaxConstraintViolation, rep.ViolatedConstraints = res.MaxViolation, res.Violated
	rep.Streaming = &streamReport{CacheBytes: st.Bytes, Blocks: st.Blocks, Tau: res.Tau}
	for _, c := range res.Trajectory {
		rep.Streaming.Trajectory = append(rep.Streaming.Trajectory, checkReport{c.Epoch, c.Objective, c.LowerBound, c.MaxViolation, c.Seconds})
	}
	bound := ""
	if rep.LowerBound != nil {
		bound = fmt.Sprintf(" (lower bound %.6g, relative gap %.2g)", *rep.LowerBound, *rep.RelativeGap)
	}
	fmt.Fprintf(stdout, "streaming DCD: %d epochs, objective %.6g%s, max constraint violation %.3g, tau %.3g, %s; %.3f s\n",
		res.Epochs, res.Objective, bound, res.MaxViolation, res.Tau, res.Status, rep.Seconds.Solve)
	worst := -1
	if res.Worst >= 0 {
		worst = int(res.WorstGroup)
	}
	sum := &solveSummary{Status: res.Status, Iterations: res.Epochs, Violated: res.Violated, WorstRule: worst, MaxViolation: res.MaxViolation, Unit: "epoch"}
	return &streamed{g: g, groundSec: groundSec, values: res.Values, sum: sum}, nil
}

// staleAge is how long a temporary file of the cache directory must have
// gone unwritten to count as a killed run's.
const staleAge = 10 * time.Minute

// removeStale removes what killed runs left in a cache directory: their
// temporary cache files and duals (a running writer keeps its own fresh),
// by the names hinge gives them: the prefix and then digits only
// (os.CreateTemp's), so that no file of the user's is taken for one.
func removeStale(dir string) {
	for _, prefix := range []string{".ground.cache.tmp", ".duals"} {
		old, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
		for _, f := range old {
			rest := strings.TrimPrefix(filepath.Base(f), prefix)
			if rest == "" || strings.Trim(rest, "0123456789") != "" {
				continue
			}
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleAge {
				os.Remove(f)
			}
		}
	}
}

// streamReport is the streaming part of hinge infer's --report.
type streamReport struct {
	CacheBytes int64         `json:"cache_bytes"`
	Blocks     int           `json:"blocks"`
	Tau        float64       `json:"tau"`
	Trajectory []checkReport `json:"trajectory"`
}

type checkReport struct {
	Epoch        int     `json:"epoch"`
	Objective    float64 `json:"objective"`
	LowerBound   float64 `json:"lower_bound"`
	MaxViolation float64 `json:"max_violation"`
	Seconds      float64 `json:"seconds"`
}
