package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/syntax"
)

type learnOptions struct {
	programFlags
	method, output, report, constraints string
	iterations                          int
	force                               bool
	checkTrain                          bool // --check-train
	opt                                 learn.Options
}

// learnReport is the --report JSON.
type learnReport struct {
	Method      string             `json:"method"`
	Output      string             `json:"output"`
	Objective   float64            `json:"objective"`
	Iterations  int                `json:"iterations"`
	Converged   bool               `json:"converged"`
	Unbounded   []unboundedReport  `json:"unbounded,omitempty"`
	Rules       []learnRuleReport  `json:"rules"`
	History     []learnStepReport  `json:"history"`
	Truth       learn.TruthStats   `json:"truth"`
	Lines       *learn.LineStats   `json:"conditionals,omitempty"`
	Constraints string             `json:"constraints,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
	TrainCheck  []pipeline.Change  `json:"train_check,omitempty"`
	Options     learnReportOptions `json:"options"`
	Seconds     learnReportSeconds `json:"seconds"`
	Ground      problemSizes       `json:"ground"`
}

// unboundedReport is one direction in which the learning objective has
// no finite optimum: the rules (as written) whose weights grow together,
// each by its factor in Direction.
type unboundedReport struct {
	Rules     []string  `json:"rules"`
	Direction []float64 `json:"direction"`
}

type learnRuleReport struct {
	Rule        string  `json:"rule"`
	Initial     float64 `json:"initial_weight"`
	Learned     float64 `json:"learned_weight"`
	WasLearned  bool    `json:"learned"`
	Potentials  int     `json:"potentials"`
	Constraints int     `json:"constraints"`
}

type learnStepReport struct {
	Iteration      int       `json:"iteration"`
	Objective      float64   `json:"objective"`
	GradNorm       float64   `json:"gradient_norm"`
	Weights        []float64 `json:"weights"`
	ADMMIterations int       `json:"admm_iterations,omitempty"`
	Seconds        float64   `json:"seconds"`
}

type learnReportOptions struct {
	Iterations int     `json:"iterations"`
	StepSize   float64 `json:"step_size,omitempty"`
	L2         float64 `json:"l2"`
	Tol        float64 `json:"tol"`
	Seed       uint64  `json:"seed"`
	Threads    int     `json:"threads"`
}

type learnReportSeconds struct {
	Load   float64 `json:"load"`
	Ground float64 `json:"ground"`
	Learn  float64 `json:"learn"`
	Total  float64 `json:"total"`
}

func newLearnCmd() *cobra.Command {
	o := &learnOptions{opt: learn.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "learn --model M.psl --data D.data [--method mle|mple|ppll] [--output M-learned.psl] [--report R.json]",
		Short: "Learn rule weights from truth data (voted perceptron, pseudo-likelihood or piecewise pseudo-likelihood)",
		Long: `Learn the weights of a PSL model's weighted rules from the truth values of its
target atoms, then write the model back with the learned weights (same rules,
same order, comments kept).

The data is grounded once; learning changes weights in place.

Methods (case-insensitive; PSL's names are accepted):
  mle   (VotedPerceptron, MaxLikelihoodMPE) maximum likelihood with the
        expectation replaced by the MAP state (ADMM, warm-started between
        steps); per step w_r += step * ((Phi_r(MAP) - Phi_r(truth)) / n_r - L2 w_r),
        kept >= 0, n_r the rule's number of ground potentials; returns the average of the
        iterates. Default 25 steps.
  mple  (MaxPseudoLikelihood) maximum pseudo-likelihood with exact one-
        dimensional integrals, optimised by projected gradient with w >= 0.
        Default at most 200 iterations.
  ppll  piecewise pseudo-likelihood: each conditional restricted to one rule.

--constraints says how hard constraints enter mple/ppll: pairwise (default;
inequalities restrict each conditional's interval, variables of an equality
constraint get conditionals along pairwise moves that keep it) or ignore.

Targets without a truth value are taken as 0 (PSL's closed truth database) and
counted in the report. With a JSON config the data split defaults to "learn".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	o.add(cmd, "learn")
	f := cmd.Flags()
	f.StringVar(&o.method, "method", "mle", "learning method: mle, mple or ppll (or PSL's VotedPerceptron, MaxLikelihoodMPE, MaxPseudoLikelihood)")
	f.StringVar(&o.method, "learn", "mle", "alias of --method (PSL's name)")
	f.StringVar(&o.output, "output", "", "learned model file (default: the model's name with -learned.psl)")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.BoolVar(&o.force, "force", false, "overwrite the learned model file if it exists")
	f.BoolVar(&o.checkTrain, "check-train", true, "infer with the initial and with the learned weights on the training data and compare them on its truth (two ADMM solves): a warning says when the learned weights do worse")
	f.IntVar(&o.iterations, "iterations", 0, "perceptron steps (mle; default 25) or largest number of optimiser iterations (mple, ppll; default 200)")
	f.Float64Var(&o.opt.StepSize, "step-size", o.opt.StepSize, "perceptron step size (mle)")
	f.Float64Var(&o.opt.L2, "l2", o.opt.L2, "L2 regularisation weight")
	f.Float64Var(&o.opt.Tol, "tol", o.opt.Tol, "stopping tolerance (largest weight change for mle, projected gradient for mple/ppll)")
	f.Uint64Var(&o.opt.Seed, "seed", 1, "seed (pairing of variables in equality constraints with more than 32 variables)")
	f.StringVar(&o.constraints, "constraints", "pairwise", "hard constraints in mple/ppll: pairwise or ignore")
	addADMMFlags(cmd, &o.opt.ADMM)
	return cmd
}

func (o *learnOptions) run(ctx context.Context, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	method, err := learn.ParseMethod(methodName(o.method))
	if err != nil {
		return badInput(err)
	}
	o.opt.Method = method
	switch strings.ToLower(o.constraints) {
	case "pairwise":
		o.opt.Constraints = learn.ConstraintsPairwise
	case "ignore":
		o.opt.Constraints = learn.ConstraintsIgnore
	default:
		return badInput(fmt.Errorf("--constraints %q: want pairwise or ignore", o.constraints))
	}
	switch {
	case o.iterations < 0:
		return badInput(fmt.Errorf("--iterations %d: must be >= 0 (0: the method's default)", o.iterations))
	case o.iterations > 0:
		o.opt.Iterations = o.iterations
	case method == learn.MLE:
		o.opt.Iterations = 25
	default:
		o.opt.Iterations = 200
	}
	// --threads (from the ADMM flags) also sets grounding's and the
	// pseudo-likelihood's workers.
	threads := o.opt.ADMM.Threads
	o.opt.Threads = threads
	if err := o.opt.Validate(); err != nil {
		return badInput(err)
	}
	// The outputs before loading too (a large data set takes a while); that
	// none is an input, and the default output, are known once the program
	// is read.
	if err := checkOutputs(nil, output{flag: "--output", path: o.output}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole, the
	// warnings of loading too.
	stdout, o.stderr = routeMessages(ctx, stdout, o.stderr, false, o.output, o.report)

	prog, err := whileRunning(ctx, o.load) // left behind if the run is cancelled
	if err != nil {
		return err
	}
	out := o.output
	if out == "" {
		if out, err = learnedPath(prog.RulesFrom, ".psl", "--output"); err != nil {
			return err
		}
	}
	// An output that is an input is refused before one that exists: --force
	// would not help there.
	if err := checkOutputs(programInputs(&o.programFlags, prog), output{flag: "--output", path: out}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	if err := refuseExisting(out, "--output", o.force); err != nil {
		return err
	}
	if o.output == "" {
		// The default output: a new file, unless a symlink was there.
		stdout, o.stderr = routeMessages(ctx, stdout, o.stderr, false, out, o.report)
	}
	g, groundSec, err := o.ground(ctx, prog, threads)
	if err != nil {
		return err
	}

	rep := newProgress(o.stderr, o.quiet, "hinge learn")
	o.opt.Progress = func(s learn.Step) {
		// A line off a terminal ends with the time already.
		elapsed := ""
		if !rep.LineMode() {
			elapsed = fmt.Sprintf(" (%.1f s)", s.Seconds)
		}
		if method == learn.MLE {
			rep.Status("%s step %d/%d: energy gap %.6g, gradient %.3g, ADMM %d iterations%s",
				method, s.Iteration, o.opt.Iterations, s.Objective, s.GradNorm, s.ADMMIterations, elapsed)
		} else {
			rep.Status("%s iteration %d: objective %.10g, projected gradient %.3g%s",
				method, s.Iteration, s.Objective, s.GradNorm, elapsed)
		}
	}
	learnStart := time.Now()
	res, err := learn.Learn(ctx, g, prog.Store, prog.Model, o.opt)
	rep.Done()
	learnSec := time.Since(learnStart).Seconds()
	if errors.Is(err, learn.ErrNoTruth) || errors.Is(err, learn.ErrNothingToLearn) {
		return badInput(err)
	}
	if err != nil {
		return failed(err)
	}

	// The initial and the learned weights on the training truth: learning
	// fits its objective, which can disagree with the metrics a user reads.
	// It runs before the model is written, so that a cancelled run writes
	// nothing; a check that fails otherwise leaves a warning, not the
	// learned weights thrown away.
	var checks []pipeline.Change
	var checkErr error
	if o.checkTrain {
		if checks, checkErr = o.trainCheck(ctx, prog, g, res); checkErr != nil && isCancel(checkErr) {
			return failed(checkErr)
		}
	}
	if err := interrupted(ctx); err != nil {
		return err
	}
	// The model with learned weights.
	for r, rule := range prog.Model.Rules {
		if res.Learned[r] {
			rule.Weight = res.Weights[r]
		}
	}
	if err := writeLearned(out, o.force, func(w io.Writer) error { return syntax.Print(w, prog.Model.Rules) }); err != nil {
		return failed(err)
	}

	// Every warning goes to standard error and into the report.
	warnings := slices.Clone(res.Warnings)
	if checkErr != nil {
		warnings = append(warnings, fmt.Sprintf("the learned weights could not be compared with the initial ones on the training truth: %v", checkErr))
	}
	conv := "converged"
	switch {
	case len(res.Unbounded) > 0:
		conv = "not converged: no finite optimum"
	case !res.Converged:
		conv = "not converged"
	}
	fmt.Fprintf(stdout, "%s: %d iterations (%s), objective %.10g, %.3f s; truth for %d of %d targets\n",
		method, res.Iterations, conv, res.Objective, learnSec, res.Truth.WithTruth, res.Truth.Targets)
	if res.Lines != nil {
		l := res.Lines
		broken := ""
		if l.FixedBroken > 0 {
			broken = fmt.Sprintf(" (%d of them on atoms of a hard constraint the truth breaks: see the warning)", l.FixedBroken)
		}
		fmt.Fprintf(stdout, "conditionals: %d (%d single, %d pairwise), %d fixed by constraints%s, %d with no potential\n",
			l.Lines, l.Single, l.Pairwise, l.Fixed, broken, l.Empty)
	}
	fmt.Fprintf(stdout, "%12s %12s  %s\n", "initial", "learned", "rule")
	for r, rule := range prog.Model.Rules {
		if !rule.Weighted {
			continue
		}
		note := ""
		if !res.Learned[r] {
			note = "  (no groundings: unchanged)"
		}
		fmt.Fprintf(stdout, "%12.6g %12.6g  %s%s\n", res.Initial[r], res.Weights[r], pipeline.RuleText(rule), note)
	}
	var worse []string
	if len(checks) > 0 {
		fmt.Fprintln(stdout, "on the training truth, initial -> learned weights:")
	}
	for _, c := range checks {
		fmt.Fprintf(stdout, "  %s %s %s %.6g -> %.6g\n", c.Predicate, c.Evaluator, c.Metric, c.Before, c.After)
		if c.Worse {
			worse = append(worse, fmt.Sprintf("%s %s %.6g -> %.6g", c.Predicate, c.Metric, c.Before, c.After))
		}
	}
	if len(worse) > 0 {
		warnings = append(warnings, fmt.Sprintf("the learned weights do worse than the initial ones on the training truth (%s): %s fits its own objective, not these metrics; check on a held-out split (hinge infer --model %s --data HELD_OUT.data) before using them",
			strings.Join(worse, ", "), method, out))
	}
	for _, w := range warnings {
		fmt.Fprintln(o.stderr, "warning:", w)
	}
	fmt.Fprintf(stdout, "wrote %s\n", out)

	if o.report != "" {
		jr := learnReport{
			Method: method.String(), Output: out, Objective: res.Objective, Iterations: res.Iterations,
			Converged: res.Converged, Truth: res.Truth, Lines: res.Lines, Warnings: warnings, TrainCheck: checks,
			Options: learnReportOptions{Iterations: o.opt.Iterations, L2: o.opt.L2, Tol: o.opt.Tol, Seed: o.opt.Seed, Threads: threads},
			Seconds: learnReportSeconds{Load: prog.Seconds, Ground: groundSec, Learn: learnSec, Total: time.Since(start).Seconds()},
			Ground:  sizesOf(g.Problem),
		}
		for _, u := range res.Unbounded {
			ur := unboundedReport{Direction: u.Direction}
			for _, r := range u.Rules {
				ur.Rules = append(ur.Rules, pipeline.RuleText(prog.Model.Rules[r]))
			}
			jr.Unbounded = append(jr.Unbounded, ur)
		}
		if method == learn.MLE {
			jr.Options.StepSize = o.opt.StepSize
		} else {
			jr.Constraints = o.opt.Constraints.String()
		}
		for r, rule := range prog.Model.Rules {
			rs := g.Rules[r]
			jr.Rules = append(jr.Rules, learnRuleReport{Rule: pipeline.RuleText(rule), Initial: res.Initial[r], Learned: res.Weights[r],
				WasLearned: res.Learned[r], Potentials: rs.Potentials, Constraints: rs.Constraints})
		}
		for _, s := range res.History {
			jr.History = append(jr.History, learnStepReport{Iteration: s.Iteration, Objective: s.Objective, GradNorm: s.GradNorm,
				Weights: s.Weights, ADMMIterations: s.ADMMIterations, Seconds: s.Seconds})
		}
		if err := writeJSON(o.report, jr); err != nil {
			return failed(err)
		}
	}
	return nil
}

// trainCheck infers the training data's targets with the initial and
// with the learned weights and compares the answers on its truth
// (pipeline.EvaluateWeights, pipeline.Compare), solving with the run's ADMM
// settings.
func (o *learnOptions) trainCheck(ctx context.Context, prog *pipeline.Program, g *ground.Result, res *learn.Result) ([]pipeline.Change, error) {
	opt := o.opt.ADMM // the run's ADMM settings (--max-iter, --rho, -D admmreasoner.*)
	before, err := prog.EvaluateWeights(ctx, g, res.Initial, opt, pipeline.EvalOptions{})
	if err != nil {
		return nil, err
	}
	after, err := prog.EvaluateWeights(ctx, g, res.Weights, opt, pipeline.EvalOptions{})
	if err != nil {
		return nil, err
	}
	return pipeline.Compare(before, after), nil
}

// methodName accepts PSL's fully qualified class names by their last part.
func methodName(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
