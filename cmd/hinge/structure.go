package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/structure"
	"github.com/hinge-srl/hinge/syntax"
)

type structureOptions struct {
	programFlags
	targets        []string
	exclude        []string
	method, output string
	report         string
	force          bool
	generateOnly   bool
	gen            structure.GenOptions
	opt            structure.Options
}

// structureReport is the --report JSON.
type structureReport struct {
	Method string `json:"method"`
	// GenerateOnly: the candidates were written without learning
	// (--generate-only); Kept, Score and the learning figures are zero.
	GenerateOnly bool                   `json:"generate_only,omitempty"`
	Output       string                 `json:"output"`
	Targets      []string               `json:"targets"`
	Generation   structureGenReport     `json:"generation"`
	Candidates   int                    `json:"candidates"`
	Kept         int                    `json:"kept"`
	Rules        []structureRuleReport  `json:"rules"`
	Score        float64                `json:"score"`
	Objective    float64                `json:"objective,omitempty"`
	Iterations   int                    `json:"iterations,omitempty"`
	Converged    bool                   `json:"converged,omitempty"`
	Rounds       []structure.Round      `json:"rounds,omitempty"`
	Learnings    int                    `json:"weight_learnings"`
	Ground       problemSizes           `json:"ground"`
	Truth        learn.TruthStats       `json:"truth"`
	Warnings     []string               `json:"warnings,omitempty"`
	Options      structureReportOptions `json:"options"`
	Seconds      structureReportSeconds `json:"seconds"`
}

type structureGenReport struct {
	Examples       int     `json:"examples"`
	Edges          int     `json:"edges"`
	Paths          int     `json:"paths"`
	Supported      int     `json:"supported"`
	Constants      int     `json:"constants,omitempty"`
	ConstSupported int     `json:"constants_supported,omitempty"`
	SampledTargets int     `json:"sampled_targets,omitempty"`
	Counted        int     `json:"counted,omitempty"`
	SampledCounts  int     `json:"sampled_counts,omitempty"`
	MaxErr         float64 `json:"max_support_err,omitempty"`
	Capped         int     `json:"capped"`
	TooLarge       int     `json:"too_large"`
}

type structureRuleReport struct {
	Rule       string  `json:"rule"`
	Support    int     `json:"support"`
	SupportErr float64 `json:"support_err,omitempty"`
	Body       int     `json:"body,omitempty"`
	Conf       float64 `json:"confidence,omitempty"`
	ConfErr    float64 `json:"confidence_err,omitempty"`
	Sampled    int     `json:"sampled,omitempty"`
	Groundings float64 `json:"groundings,omitempty"`
	Weight     float64 `json:"weight"`
	Selected   bool    `json:"selected"`
	Potentials int     `json:"potentials"`
}

type structureReportOptions struct {
	MaxLength     int     `json:"max_length"`
	MinSupport    int     `json:"min_support"`
	MaxClauses    int     `json:"max_clauses"`
	MaxExpansions int     `json:"max_expansions"`
	Constants     int     `json:"constants,omitempty"`
	ConstMinSup   int     `json:"constants_min_support,omitempty"`
	Sample        int     `json:"sample"`
	SampleErr     float64 `json:"sample_err"`
	Squared       bool    `json:"squared"`
	L2            float64 `json:"l2"`
	Iterations    int     `json:"iterations"`
	Tol           float64 `json:"tol"`
	MaxRounds     int     `json:"max_rounds,omitempty"`
	Tolerance     float64 `json:"tolerance,omitempty"`
	Seed          uint64  `json:"seed"`
	Threads       int     `json:"threads"`
}

type structureReportSeconds struct {
	Load     float64 `json:"load"`
	Generate float64 `json:"generate"`
	Ground   float64 `json:"ground"`
	Learn    float64 `json:"learn"`
	Total    float64 `json:"total"`
}

// newStructureProgress is the progress reporter of hinge structure: a
// status line on a terminal, elsewhere a line every few seconds (tests
// make it print every status).
var newStructureProgress = func(w io.Writer, quiet bool) *progress.Reporter {
	return progress.New(w, quiet, "hinge structure")
}

func newStructureCmd() *cobra.Command {
	o := &structureOptions{opt: structure.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "structure --data D.data --target PRED [--target PRED ...] [--method ppll|gls] [--output learned.psl] [--report R.json]",
		Short: "Learn the rules of a PSL model from data (path-constrained clauses, PPLL or greedy search)",
		Long: `Learn a PSL model's rules, not only their weights, from relational data
(Embar et al., "Scalable Structure Learning for Probabilistic Soft Logic").

Candidate clauses are generated from the observed atoms (values rounded at
0.5): for every true truth atom t(a, b) of a target predicate, every path of
observed atoms from a to b of length at most --max-length, each atom walked in
either direction, becomes the clause
  p1(E1, E2) & ... & ps(Es, Es+1) -> t(E1, Es+1)
and its negation (head negated). Paths connecting fewer than --min-support
true target atoms are dropped; the best supported are kept up to
--max-clauses clauses per target. Each target also gets the negative prior !t(A, B).
With --constants N, rules with constants from the atoms' neighbours,
  p(E1, 'd') -> t(E1, 'c')   and   p(E1, 'd') -> t('c', E1),
are kept the same way, up to N clauses per target (their support at least
--constants-min-support).

A target with more than --sample true atoms is searched from --sample of them
(drawn with --seed), and the support of the paths found is counted over all
its true atoms from sampled values of E1, each with its 95% interval (stop
drawing once the confidence's is --sample-err wide), the way 'hinge kgc'
counts its rules; with fewer, every support is exact.

Methods:
  ppll  piecewise pseudo-likelihood: one weight learning over all candidates
        (projected gradient, w >= 0); the clauses with non-zero weight are the
        model. Fast: the default.
  gls   greedy local search: add the candidate that most improves the
        pseudo-likelihood after learning the weights (MPLE), one per round,
        while the mean log pseudo-likelihood per target atom improves by at
        least --tolerance, for at most --max-rounds rounds.

The output is a .psl model, rules sorted by weight, each after a comment with
its support, that 'hinge infer' and 'hinge learn' read with the same .data
file's predicates. Target predicates must be binary, open, with truth atoms.
With a JSON config the data split defaults to "learn".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	o.addData(cmd, "learn")
	o.addDB(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.targets, "target", nil, "target predicate to learn rules for (repeat for several)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "predicate whose atoms are not walked in paths (repeat for several), e.g. a blocking predicate true for every pair")
	f.StringVar(&o.method, "method", "ppll", "ppll or gls")
	f.StringVar(&o.output, "output", "learned.psl", "learned model file")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.BoolVar(&o.force, "force", false, "overwrite the learned model file if it exists")
	f.BoolVar(&o.generateOnly, "generate-only", false, "write the candidate clauses (weight 1, with their support) to --output and stop")
	f.IntVar(&o.gen.MaxLength, "max-length", 3, fmt.Sprintf("longest path (clause body), 1 to %d", structure.MaxPathLength))
	f.IntVar(&o.gen.MinSupport, "min-support", 10, "drop paths connecting fewer true target atoms")
	f.IntVar(&o.gen.MaxClauses, "max-clauses", 50, "keep the clauses of the best supported paths, at most this many per target (each path gives a clause and its negation; 0 = all)")
	f.Float64Var(&o.gen.MaxGroundings, "max-groundings", 2_000_000, "skip a path whose clause body has more substitutions than this over the targets and non-zero observed atoms (counted before grounding; -1: no limit)")
	f.IntVar(&o.gen.MaxExpansions, "max-expansions", 1_000_000, "cap on path extensions searched from one target atom (atoms that hit it are reported)")
	f.IntVar(&o.gen.Constants, "constants", 0, "also keep rules with constants, p(E1, 'd') -> t(E1, 'c') and p(E1, 'd') -> t('c', E1), up to this many clauses per target (0: none)")
	f.IntVar(&o.gen.ConstMinSupport, "constants-min-support", 0, "--constants: drop rules with constants supported by fewer true target atoms (0: --min-support)")
	f.IntVar(&o.gen.Sample, "sample", 1000, "search a target with more true atoms from this many of them, and count supports and confidences from this many sampled values of E1 (0: every atom, every count exact)")
	f.Float64Var(&o.gen.SampleErr, "sample-err", 0.01, "stop drawing values of E1 once the confidence's 95% interval is this narrow (0: draw --sample)")
	f.BoolVar(&o.opt.Squared, "squared", o.opt.Squared, "squared hinges (^2) for the learned rules; --squared=false for linear")
	f.Float64Var(&o.opt.L2, "l2", o.opt.L2, "L2 regularisation weight of every weight learning")
	f.IntVar(&o.opt.Iterations, "iterations", o.opt.Iterations, "largest number of projected-gradient iterations per weight learning")
	f.Float64Var(&o.opt.Tol, "tol", o.opt.Tol, "projected-gradient tolerance of every weight learning")
	f.IntVar(&o.opt.MaxRounds, "max-rounds", o.opt.MaxRounds, "gls: largest number of rounds (clauses added)")
	f.Float64Var(&o.opt.Tolerance, "tolerance", o.opt.Tolerance, "gls: stop when the score (mean log pseudo-likelihood per target atom) improves by less")
	f.Uint64Var(&o.opt.Seed, "seed", 1, "seed of the draws of --sample and of the pairing of variables in large equality constraints")
	f.IntVar(&o.opt.Threads, "threads", 0, "threads for generation, grounding and learning (0: all cores); results do not depend on it")
	return cmd
}

func (o *structureOptions) run(ctx context.Context, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	method, err := structure.ParseMethod(o.method)
	if err != nil {
		return badInput(fmt.Errorf("--method: %w", err))
	}
	o.opt.Method = method
	if len(o.targets) == 0 {
		return badInput(errors.New("give at least one --target PRED (the predicate to learn rules for)"))
	}
	switch {
	case o.gen.MaxLength < 1 || o.gen.MaxLength > structure.MaxPathLength:
		return badInput(fmt.Errorf("--max-length %d: must be between 1 and %d", o.gen.MaxLength, structure.MaxPathLength))
	case o.gen.MinSupport < 1:
		return badInput(fmt.Errorf("--min-support %d: must be >= 1", o.gen.MinSupport))
	case o.gen.MaxClauses < 0:
		return badInput(fmt.Errorf("--max-clauses %d: must be >= 0 (0: all)", o.gen.MaxClauses))
	case o.gen.MaxGroundings == 0 || math.IsNaN(o.gen.MaxGroundings):
		return badInput(fmt.Errorf("--max-groundings %v: must be > 0 (or -1: no limit)", o.gen.MaxGroundings))
	case o.gen.MaxExpansions < 1:
		return badInput(fmt.Errorf("--max-expansions %d: must be >= 1", o.gen.MaxExpansions))
	case o.gen.Constants < 0:
		return badInput(fmt.Errorf("--constants %d: must be >= 0 (0: none)", o.gen.Constants))
	case o.gen.ConstMinSupport < 0:
		return badInput(fmt.Errorf("--constants-min-support %d: must be >= 1 (0: --min-support)", o.gen.ConstMinSupport))
	case o.gen.Sample < 0:
		return badInput(fmt.Errorf("--sample %d: must be >= 0 (0: exact)", o.gen.Sample))
	case !(o.gen.SampleErr >= 0 && o.gen.SampleErr <= 1):
		return badInput(fmt.Errorf("--sample-err %v: must be between 0 and 1", o.gen.SampleErr))
	}
	if o.gen.MaxClauses == 0 {
		o.gen.MaxClauses = -1
	}
	// The flags' 0 (exact, draw --sample) is GenOptions' negative.
	if o.gen.Sample == 0 {
		o.gen.Sample = -1
	}
	if o.gen.SampleErr == 0 {
		o.gen.SampleErr = -1
	}
	o.gen.Seed = o.opt.Seed
	o.gen.Threads = o.opt.Threads
	if err := o.opt.Validate(); err != nil {
		return badInput(err)
	}
	// The outputs are checked before the data are read (a large data set
	// is not loaded for an output that cannot be written), and again
	// below against the program's input files.
	if err := checkOutputs(nil, output{flag: "--output", path: o.output}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	if _, err := os.Stat(o.output); err == nil && o.output != "" {
		// An existing output that is one of the inputs (the data file or
		// a file it names) is refused as such, --force or not, before
		// refuseExisting suggests --force.
		inputs, err := configInputs(&o.programFlags)
		if err != nil {
			return err
		}
		if err := checkOutputs(inputs, output{flag: "--output", path: o.output}); err != nil {
			return err
		}
	}
	if err := refuseExisting(o.output, "--output", o.force); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole, the
	// warnings of loading too.
	stdout, o.stderr = routeMessages(ctx, stdout, o.stderr, false, o.output, o.report)
	prog, err := o.loadData()
	if err != nil {
		return err
	}
	if o.dbRead && o.dbURL() == "" {
		return badInput(errors.New("--db-read needs --db (or HINGE_DB)"))
	}
	if o.dbURL() != "" {
		// The candidates are grounded by joins in PostgreSQL; path
		// generation reads the store (read back from the tables with
		// --db-read).
		db, err := o.loadDB(prog)
		if err != nil {
			return err
		}
		defer db.Close()
		o.opt.Joiner = db.Joiner()
	}
	var targets []*model.Predicate
	for _, name := range o.targets {
		p := prog.Model.Predicate(name)
		switch {
		case p == nil:
			return badInput(fmt.Errorf("--target %s: no such predicate in %s", clipPath(name), prog.RulesFrom))
		case p.Closed:
			return badInput(fmt.Errorf("--target %s: the predicate is closed (observed); a target must be open, with target and truth atoms", p))
		case p.Arity != 2:
			return badInput(fmt.Errorf("--target %s: structure learning generates clauses for binary target predicates only", p))
		case !prog.Store.HasTruth(p):
			return badInput(fmt.Errorf("--target %s: no truth atoms: structure learning needs truth data (a truth: section in the .data file)", p))
		}
		targets = append(targets, p)
	}
	for _, name := range o.exclude {
		p := prog.Model.Predicate(name)
		if p == nil {
			return badInput(fmt.Errorf("--exclude %s: no such predicate in %s", clipPath(name), prog.RulesFrom))
		}
		o.gen.Exclude = append(o.gen.Exclude, p)
	}
	if err := checkOutputs(programInputs(&o.programFlags, prog), output{flag: "--output", path: o.output}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}

	rep := newStructureProgress(o.stderr, o.quiet)
	rep.Status("generating path-constrained clauses")
	o.gen.Progress = func(done, total int) {
		rep.Status("generating clauses: searched paths from %d/%d true target atoms", done, total)
	}
	gen, err := structure.Generate(ctx, prog.Store, targets, o.gen)
	if errors.Is(err, structure.ErrNoExamples) {
		rep.Done()
		return badInput(err)
	}
	if err != nil {
		rep.Done()
		return failed(err)
	}
	fmt.Fprintf(stdout, "generated %d candidate clauses from %d true target atoms over %d observed edges: %d distinct paths, %d with support >= %d (%.3f s)\n",
		len(gen.Candidates), gen.Examples, gen.Edges, gen.Paths, gen.Supported, o.gen.MinSupport, gen.Seconds)
	if gen.TooLarge > 0 {
		fmt.Fprintf(stdout, "skipped %d supported paths whose clauses would have more than --max-groundings %g groundings\n", gen.TooLarge, o.gen.MaxGroundings)
	}
	if o.gen.Constants > 0 {
		ms := o.gen.ConstMinSupport
		if ms == 0 {
			ms = o.gen.MinSupport
		}
		fmt.Fprintf(stdout, "rules with constants: %d found, %d with support >= %d\n", gen.Constants, gen.ConstSupported, ms)
	}
	if gen.SampledTargets > 0 {
		fmt.Fprintf(stdout, "sampled: %d targets with more than --sample %d true atoms searched from %d of them each; %d supports counted over all their atoms, the kept ones' 95%% intervals at most +-%.0f atoms\n",
			gen.SampledTargets, o.gen.Sample, o.gen.Sample, gen.Counted, gen.MaxErr)
	}
	var genWarnings []string
	if gen.Capped > 0 {
		genWarnings = append(genWarnings, fmt.Sprintf("the search from %d of %d target atoms stopped at --max-expansions %d; their paths are incomplete",
			gen.Capped, gen.Examples, o.gen.MaxExpansions))
	}
	for _, w := range genWarnings {
		fmt.Fprintln(o.stderr, "warning:", w)
	}
	if o.generateOnly {
		rep.Done()
		var rules []*model.Rule
		for i := range gen.Candidates {
			r, err := structure.CandidateRule(&gen.Candidates[i], o.opt.Squared)
			if err != nil {
				return failed(err)
			}
			rules = append(rules, r)
		}
		if err := writeLearned(o.output, o.force, func(w io.Writer) error { return syntax.Print(w, rules) }); err != nil {
			return failed(err)
		}
		fmt.Fprintf(stdout, "wrote %d candidate clauses to %s\n", len(rules), o.output)
		if o.report != "" {
			jr := o.newReport(method, gen, prog.Seconds)
			jr.GenerateOnly, jr.Candidates, jr.Warnings = true, len(rules), genWarnings
			jr.Seconds.Total = time.Since(start).Seconds()
			for i, c := range gen.Candidates {
				jr.Rules = append(jr.Rules, candidateReport(c, rules[i].Weight))
			}
			if err := writeJSON(o.report, jr); err != nil {
				return failed(err)
			}
		}
		return nil
	}
	o.opt.Progress = func(s string) { rep.Status("%s", s) }
	res, err := structure.Learn(ctx, prog.Store, gen.Candidates, o.opt)
	rep.Done()
	if errors.Is(err, learn.ErrNoTruth) || errors.Is(err, learn.ErrNothingToLearn) {
		return badInput(err)
	}
	if err != nil {
		return failed(err)
	}
	rules := res.Model()
	if err := writeLearned(o.output, o.force, func(w io.Writer) error { return syntax.Print(w, rules) }); err != nil {
		return failed(err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(o.stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "ground problem: %d variables, %d potentials (%.3f s)\n", res.Variables, res.GroundPotentials, res.GroundSeconds)
	switch method {
	case structure.PPLL:
		conv := "converged"
		if !res.Converged {
			conv = "not converged"
		}
		fmt.Fprintf(stdout, "ppll: %d iterations (%s), objective %.10g, %.3f s\n", res.Iterations, conv, res.Objective, res.LearnSeconds)
	case structure.GLS:
		for _, r := range res.Rounds {
			if r.Added < 0 {
				fmt.Fprintf(stdout, "gls round %d: best gain %.3g < tolerance %g: stop (%d candidates scored)\n", r.Round, r.Improvement, o.opt.Tolerance, r.Scored)
				continue
			}
			fmt.Fprintf(stdout, "gls round %d: score %.8g (+%.3g) adding %s (%d candidates scored, %.1f s)\n",
				r.Round, r.Score, r.Improvement, res.Candidates[r.Added].Text(), r.Scored, r.Seconds)
		}
		fmt.Fprintf(stdout, "gls: %d weight learnings, %.3f s\n", res.Learnings, res.LearnSeconds)
	}
	fmt.Fprintf(stdout, "kept %d of %d candidate clauses; mean log pseudo-likelihood per target atom %.6g\n", len(rules), len(res.Candidates), res.Score)
	fmt.Fprintf(stdout, "%12s %8s  %s\n", "weight", "support", "rule")
	index := map[*model.Rule]int{}
	for i, r := range res.Rules {
		index[r] = i
	}
	for _, r := range rules {
		c := res.Candidates[index[r]]
		fmt.Fprintf(stdout, "%12.6g %8d  %s\n", r.Weight, c.Support, c.Text())
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.output)

	if o.report != "" {
		jr := o.newReport(method, gen, prog.Seconds)
		jr.Candidates, jr.Kept, jr.Score, jr.Objective = len(res.Candidates), len(rules), res.Score, res.Objective
		jr.Iterations, jr.Converged, jr.Rounds, jr.Learnings = res.Iterations, res.Converged, res.Rounds, res.Learnings
		jr.Ground = problemSizes{Variables: res.Variables, Potentials: res.GroundPotentials}
		jr.Truth, jr.Warnings = res.Truth, append(genWarnings, res.Warnings...)
		jr.Seconds.Ground, jr.Seconds.Learn, jr.Seconds.Total = res.GroundSeconds, res.LearnSeconds, time.Since(start).Seconds()
		for i, c := range res.Candidates {
			jr.Rules = append(jr.Rules, candidateReport(c, res.Rules[i].Weight))
			jr.Rules[i].Selected, jr.Rules[i].Potentials = res.Selected[i], res.Potentials[i]
		}
		if err := writeJSON(o.report, jr); err != nil {
			return failed(err)
		}
	}
	return nil
}

// newReport starts the JSON report with what generation found and the
// options; learning adds its figures.
func (o *structureOptions) newReport(method structure.Method, gen *structure.GenResult, load float64) structureReport {
	jr := structureReport{
		Method: method.String(), Output: o.output, Targets: o.targets,
		Generation: structureGenReport{Examples: gen.Examples, Edges: gen.Edges, Paths: gen.Paths, Supported: gen.Supported,
			Constants: gen.Constants, ConstSupported: gen.ConstSupported, SampledTargets: gen.SampledTargets, Counted: gen.Counted,
			SampledCounts: gen.SampledCounts, MaxErr: gen.MaxErr, Capped: gen.Capped, TooLarge: gen.TooLarge},
		Options: structureReportOptions{MaxLength: o.gen.MaxLength, MinSupport: o.gen.MinSupport, MaxClauses: max(o.gen.MaxClauses, 0),
			MaxExpansions: o.gen.MaxExpansions, Constants: o.gen.Constants, ConstMinSup: o.gen.ConstMinSupport, Sample: max(o.gen.Sample, 0), SampleErr: max(o.gen.SampleErr, 0), Squared: o.opt.Squared, L2: o.opt.L2, Iterations: o.opt.Iterations, Tol: o.opt.Tol, Seed: o.opt.Seed, Threads: o.opt.Threads},
		Seconds: structureReportSeconds{Load: load, Generate: gen.Seconds},
	}
	if method == structure.GLS {
		jr.Options.MaxRounds, jr.Options.Tolerance = o.opt.MaxRounds, o.opt.Tolerance
	}
	return jr
}

// candidateReport is a candidate clause's line of the report, with weight w.
func candidateReport(c structure.Candidate, w float64) structureRuleReport {
	return structureRuleReport{Rule: c.Text(), Support: c.Support, SupportErr: c.SupportErr, Body: c.Body, Conf: c.Conf,
		ConfErr: c.ConfErr, Sampled: c.Sampled, Groundings: c.Groundings, Weight: w}
}
