// Command lifted runs the experiments of the lifted HL-MRF paper
// (Srinivasan, Babaki, Farnadi and Getoor, "Lifted Hinge-Loss Markov Random
// Fields", AAAI 2019, section 4)
// through hinge's real pipeline (PSL model text -> pipeline/ground -> hlmrf)
// and compares consensus ADMM on the ground problem (HL-MRF) with lifting by
// color refinement plus copy-weighted ADMM on the lifted problem (LHL-MRF,
// lift.Lift then admm.Solve with Lifted.Options, copy weights and the
// original constraints' tolerances, mapped back with Lifted.Expand):
//
//   - cora, citeseer (Table 1, Figure 3): collective classification with a
//     seeded 50/50 split (internal/citations) and the PSL example model with
//     its unlearned weights;
//   - smokers (Figure 4): the two smokers rules over 1,000 people and random
//     friendship graphs of increasing density, with binary, one-decimal and
//     four-decimal friendship values;
//   - social (Figure 5): the social-affiliation network converted to PSL
//     form, ground once, then duplicated 1x..10x on disjoint variables and
//     shuffled (symmetry injection).
//
// For every experiment it writes NAME.csv and NAME.png into -out and prints
// a Markdown table. Times are medians over -runs runs, as wall-clock and
// process CPU seconds (user+system, so a shared machine shows). Every run
// checks that the lifted solution mapped back has the unlifted objective
// (relative difference at most -obj-tol) and fails otherwise.
//
//	go -C bench run ./lifted                                  # all four, ~15 min on 2 cores
//	go -C bench run ./lifted -experiments cora,citeseer -runs 5
//	go -C bench run ./lifted -experiments smokers -smokers-edges 10000,50000
//	go -C bench run ./lifted -quick                           # a few seconds
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/shareddata"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "lifted:", err)
	var bad *badInputError
	if errors.As(err, &bad) {
		os.Exit(2)
	}
	os.Exit(1)
}

// badInputError marks an error in the flags or the input data (exit 2).
type badInputError struct{ err error }

func (e *badInputError) Error() string { return e.err.Error() }
func (e *badInputError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &badInputError{fmt.Errorf(format, args...)}
}

// config is everything the flags decide.
type config struct {
	experiments []string
	runs        int
	out         string
	threads     int
	dataDir     string // shared data directory ("" = not found)
	objTol      float64
	admm        admm.Options
	quick       bool

	citeSeed uint64

	smokersPeople  int
	smokersEdges   []int
	smokersValues  []string
	smokersSeed    uint64
	smokersSquared bool

	socialFile    string
	socialMaxK    int
	socialSeed    uint64
	socialSquared bool
	targetOnly    bool
	socialExport  string

	stdout, stderr io.Writer
}

var allExperiments = []string{"cora", "citeseer", "smokers", "social"}

// run parses the arguments and runs the chosen experiments.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lifted", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", strings.Join(allExperiments, ","), "comma-separated experiments: "+strings.Join(allExperiments, ", "))
	runs := fs.Int("runs", 3, "timed runs per measurement (medians are reported)")
	out := fs.String("out", "", "directory for the CSV and PNG files (default: hinge-bench-lifted in the system's temporary directory)")
	update := fs.Bool("update-results", false, "write the CSV and PNG files into the committed results/ directory beside this program (refreshing the figures the README quotes)")
	threads := fs.Int("threads", 0, "grounding and ADMM threads (0: all cores)")
	data := fs.String("data", "", "shared data directory (default: $HINGE_DATA or ../shared/data)")
	objTol := fs.Float64("obj-tol", 1e-6, "largest accepted relative objective difference lifted vs unlifted")
	quick := fs.Bool("quick", false, "small smoke run: smokers (60 people) and social (generated, up to 3x) unless -experiments says otherwise, one run each")
	citeSeed := fs.Uint64("seed", 1, "seed of the Cora/Citeseer observed/target split")
	people := fs.Int("smokers-people", 1000, "people in the synthetic smokers graphs")
	edges := fs.String("smokers-edges", "10000,50000,100000,200000,500000", "friendship edge counts (comma-separated)")
	values := fs.String("smokers-values", "binary,decimal1,decimal4", "friendship value ranges: binary, decimal1 ({0.0..1.0}), decimal4 ({0.0000..1.0000})")
	smokersSeed := fs.Uint64("smokers-seed", 1, "seed of the smokers graphs, labels and values")
	smokersSquared := fs.Bool("smokers-squared", true, "squared hinges for the smokers rules (false: linear)")
	socialFile := fs.String("social-file", "", "social-affiliation network (default: DATA/social-affiliation/socialNet22050.txt; with -quick a generated 300-person network)")
	socialMaxK := fs.Int("social-max-k", 10, "largest duplication factor k (1x..kx)")
	socialSeed := fs.Uint64("social-seed", 1, "seed of the shuffles of the duplicated problems")
	socialSquared := fs.Bool("social-squared", true, "squared hinges for the social-affiliation rules (false: linear, about 9x more ADMM iterations)")
	targetOnly := fs.Bool("social-target-only", false, "social: skip the 1x..kx sweep, run only the alternating target check (-runs pairs)")
	socialExport := fs.String("social-export", "", "social: write the k-fold duplicated, shuffled problem (k = -social-max-k) to this file in exchange format and stop")
	rho := fs.Float64("rho", 1, "ADMM step size")
	epsAbs := fs.Float64("eps-abs", 1e-5, "ADMM absolute tolerance")
	epsRel := fs.Float64("eps-rel", 1e-3, "ADMM relative tolerance")
	maxIter := fs.Int("max-iter", 25000, "ADMM iteration limit")
	gapTol := fs.Float64("gap-tol", admm.DefaultGapTol, "ADMM relative duality-gap tolerance (0: PSL's residual test alone)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &badInputError{err}
	}
	if fs.NArg() > 0 {
		return badInput("unexpected arguments %q", fs.Args())
	}

	switch {
	case *update && *out != "":
		return badInput("-out and -update-results exclude each other")
	case *update:
		_, src, _, ok := runtime.Caller(0)
		if !ok {
			return badInput("-update-results: cannot locate the source directory")
		}
		*out = filepath.Join(filepath.Dir(src), "results")
	case *out == "":
		*out = filepath.Join(os.TempDir(), "hinge-bench-lifted")
	}
	c := &config{
		runs: *runs, out: *out, threads: *threads, objTol: *objTol, quick: *quick,
		citeSeed: *citeSeed, smokersPeople: *people, smokersSeed: *smokersSeed,
		smokersSquared: *smokersSquared,
		socialFile:     *socialFile, socialMaxK: *socialMaxK, socialSeed: *socialSeed,
		socialSquared: *socialSquared, targetOnly: *targetOnly, socialExport: *socialExport, stdout: stdout, stderr: stderr,
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var err error
	if c.experiments, err = parseList(*experiments, allExperiments); err != nil {
		return badInput("-experiments: %v", err)
	}
	if c.smokersEdges, err = parseInts(*edges); err != nil {
		return badInput("-smokers-edges: %v", err)
	}
	if c.smokersValues, err = parseList(*values, []string{"binary", "decimal1", "decimal4"}); err != nil {
		return badInput("-smokers-values: %v", err)
	}
	if c.quick {
		if !set["runs"] {
			c.runs = 1
		}
		if !set["smokers-people"] {
			c.smokersPeople = 60
		}
		if !set["smokers-edges"] {
			c.smokersEdges = []int{200, 1000}
		}
		if !set["social-max-k"] {
			c.socialMaxK = 3
		}
		if !set["experiments"] {
			c.experiments = []string{"smokers", "social"}
		}
	}
	switch {
	case c.runs < 1:
		return badInput("-runs must be at least 1, got %d", c.runs)
	case c.smokersPeople < 2:
		return badInput("-smokers-people must be at least 2, got %d", c.smokersPeople)
	case c.socialMaxK < 1:
		return badInput("-social-max-k must be at least 1, got %d", c.socialMaxK)
	case !(c.objTol >= 0):
		return badInput("-obj-tol must be nonnegative, got %g", c.objTol)
	}
	for _, e := range c.smokersEdges {
		if max := c.smokersPeople * (c.smokersPeople - 1); e < 1 || e > max {
			return badInput("-smokers-edges: %d edges is not in [1, %d] (ordered pairs of %d people)", e, max, c.smokersPeople)
		}
	}

	c.admm = admm.DefaultOptions()
	c.admm.Rho, c.admm.EpsAbs, c.admm.EpsRel, c.admm.MaxIter, c.admm.GapTol = *rho, *epsAbs, *epsRel, *maxIter, *gapTol
	c.admm.Threads = c.threads
	if err := c.admm.Validate(); err != nil {
		return badInput("ADMM options: %v", err)
	}

	c.dataDir = *data
	if c.dataDir == "" {
		if d, err := shareddata.Dir(); err == nil {
			c.dataDir = d
		}
	}
	if c.socialFile == "" && c.dataDir != "" && !c.quick {
		c.socialFile = filepath.Join(c.dataDir, "social-affiliation", "socialNet22050.txt")
	}

	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	stopProfile, err := measure.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if !c.quick && c.socialExport == "" {
		fmt.Fprintf(stderr, "lifted benchmark: %s, %d run(s) each; all four experiments take about 8 minutes on 2 cores (-quick: seconds)\nwriting CSV and PNG files to %s\n",
			strings.Join(c.experiments, ", "), c.runs, c.out)
	}
	for _, e := range c.experiments {
		fmt.Fprintf(stderr, "lifted benchmark: %s ...\n", e)
		var err error
		switch e {
		case "cora", "citeseer":
			err = runCitations(ctx, c, e)
		case "smokers":
			err = runSmokers(ctx, c)
		case "social":
			err = runSocial(ctx, c)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
	}
	return nil
}

// parseList splits a comma-separated list and checks every item is allowed.
func parseList(s string, allowed []string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("unknown item %q (want one of %s)", f, strings.Join(allowed, ", "))
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// parseInts parses a comma-separated list of positive integers; "k"
// multiplies by 1000 (10k = 10000).
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mult := 1
		if g, ok := strings.CutSuffix(strings.ToLower(f), "k"); ok {
			f, mult = g, 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n*mult)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// logf reports progress on stderr.
func (c *config) logf(format string, args ...any) {
	fmt.Fprintf(c.stderr, format+"\n", args...)
}
