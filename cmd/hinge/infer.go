package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/lift"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/store/pgstore"
)

type inferOptions struct {
	programFlags
	admm       admm.Options
	output     string
	report     string
	evals      []string
	evalOpts   []string
	includeObs bool
	// includeObsSet: --include-observed (or -D eval.includeobs) is on the
	// command line, and decides over the config's eval.includeobs.
	includeObsSet bool
	lifted        bool
	discrete      bool
	localSearch   int
	seed          uint64
	printValues   bool
	outputTable   string // --output-table: write the values to this table of --db-schema
	streaming     streamOptions
	explain       explainFlags
	solver        *admm.Solver // the ADMM solver of the answer (not lifted, discrete or streamed), for --explain
}

// inferReport is the --report JSON of hinge infer: the grounding fields of
// hinge ground plus the solve and evaluation.
type inferReport struct {
	problemSizes
	Rules  []ruleReport `json:"rules"`
	Method string       `json:"method"`
	solverReport
	Lifted     *problemSizes                 `json:"lifted,omitempty"`
	Discrete   *maxsat.Report                `json:"discrete,omitempty"`
	Streaming  *streamReport                 `json:"streaming,omitempty"`
	Evaluation map[string]map[string]float64 `json:"evaluation"`
	Outputs    []string                      `json:"outputs,omitempty"`
	Seconds    inferSeconds                  `json:"seconds"`
}

type inferSeconds struct {
	Load   float64  `json:"load"`
	Ground float64  `json:"ground"`
	Lift   *float64 `json:"lift,omitempty"`
	Solve  float64  `json:"solve"`
	Total  float64  `json:"total"`
}

func newInferCmd() *cobra.Command {
	o := &inferOptions{admm: admm.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "infer --model M.psl --data D.data [--output DIR] [--eval NAME ...] [--report R.json]",
		Short: "MAP inference: the most probable truth values of a PSL model's targets",
		Long: `Ground a PSL model over its data and find the most probable truth values of
its targets by consensus ADMM (PSL 2.3 defaults), then evaluate them against
every predicate's truth data.

Without --output the inferred values are printed, one atom per line; with
--output DIR they are written to DIR/PRED.txt for each open predicate, one
'arg1<TAB>...<TAB>value' line per target atom, as PSL writes them.

Evaluation: every predicate with truth atoms is evaluated with the evaluators
named by --eval (PSL names: DiscreteEvaluator, ContinuousEvaluator,
AUCEvaluator, CategoricalEvaluator), else those its JSON config names, else
DiscreteEvaluator and ContinuousEvaluator. As in PSL, the truth atoms of
target atoms are scored: a truth atom that is observed only with
--include-observed (PSL's eval.includeobs), a target without truth only with
-D eval.closetruth=true (against 0), and a truth atom that is neither target
nor observed never; a note on standard error counts what was left out.

--lifted solves a smaller problem of the same form found by color refinement
of the ground problem (Srinivasan et al., AAAI 2019) and maps the answer back:
same optimum, less work when the data has symmetries.

--discrete returns 0/1 values with a guarantee, for models whose rules are
clauses over 0/1 data: the LP relaxation solved by ADMM, rounded by
derandomised Goemans-Williamson rounding (at least 3/4 of the optimum), with a
certified bound on how far from optimal the answer is (Bach et al. 2014).

--lifted --discrete lifts the LP relaxation instead: its optimum and the
certified bound are those of the ground relaxation, computed on the smaller
problem, and the rounding keeps its 3/4 guarantee (it rounds one atom per
class of symmetric atoms where that keeps the guarantee, every atom otherwise).

If hard constraints remain violated (infeasible constraints), the worst one
and its rule are printed, the outputs are written anyway, and the exit status
is 1.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.includeObsSet = cmd.Flags().Changed("include-observed")
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.add(cmd, "infer")
	addADMMFlags(cmd, &o.admm)
	f := cmd.Flags()
	f.StringVar(&o.output, "output", "", "write DIR/PRED.txt for every open predicate instead of printing the values")
	f.BoolVar(&o.printValues, "print", false, "print every inferred value (without --output, more than 100 are summed up by the first 20 on a terminal)")
	f.StringVar(&o.outputTable, "output-table", "", "with --db: also write the inferred values to this table of --db-schema (predicate, atom, args, value), replacing it")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.StringArrayVar(&o.evals, "eval", nil, "evaluator to apply to every predicate with truth data (repeatable)")
	f.StringArrayVar(&o.evalOpts, "eval-option", nil, "evaluator option KEY=VALUE, PSL names (e.g. categoricalevaluator.categoryindexes=1; repeatable)")
	f.BoolVar(&o.includeObs, "include-observed", false, "also score observed atoms that have truth values (PSL eval.includeobs)")
	f.BoolVar(&o.lifted, "lifted", false, "lifted inference: solve the problem reduced by its symmetries, then map back")
	f.BoolVar(&o.discrete, "discrete", false, "0/1 MAP by LP relaxation and derandomised rounding, with a certified bound (clause-shaped rules only)")
	f.IntVar(&o.localSearch, "local-search", 0, "with --discrete: MaxWalkSAT flips after rounding")
	f.Uint64Var(&o.seed, "seed", 1, "seed for every random choice (local search, --shuffle)")
	o.streaming.add(cmd)
	o.explain.add(cmd, "psl")
	return cmd
}

func (o *inferOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	if err := o.admm.Validate(); err != nil {
		return badInput(err)
	}
	if o.streaming.on && (o.lifted || o.discrete) {
		return badInput(errors.New("--streaming cannot be combined with --lifted or --discrete"))
	}
	// Checked also without --streaming: a run may choose it itself.
	if o.streaming.epochs <= 0 {
		return badInput(fmt.Errorf("--epochs %d: must be > 0", o.streaming.epochs))
	}
	if !(o.streaming.tau > 0) || math.IsInf(o.streaming.tau, 0) {
		return badInput(fmt.Errorf("--tau %v: must be a finite number > 0", o.streaming.tau))
	}
	if o.localSearch < 0 {
		return badInput(fmt.Errorf("--local-search %d: must be >= 0", o.localSearch))
	}
	if o.outputTable != "" && o.dbURL() == "" {
		return badInput(errors.New("--output-table needs --db (or HINGE_DB)"))
	}
	if err := o.explain.checkPSL(o); err != nil {
		return err
	}
	evalOpts, err := parseKeyValues(o.evalOpts, "--eval-option")
	if err != nil {
		return badInput(err)
	}
	if o.includeObsSet { // the command line's word, over the config's eval.includeobs
		evalOpts["eval.includeobs"] = strconv.FormatBool(o.includeObs)
	}
	if err := o.streaming.checkCache(o.output); err != nil {
		return err
	}
	// The outputs before loading too (a large data set takes a while),
	// against the inputs named on the command line; the data files the
	// .data file names are known once the program is read.
	if err := checkOutputs([]string{o.model, o.data, o.config}, append([]output{{flag: "--output", path: o.output, dir: true}, {flag: "--report", path: o.report}, o.streaming.output()}, o.explain.outputs()...)...); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole.
	stdout, stderr = routeMessages(ctx, stdout, stderr, false, o.report, o.explain.json, o.explain.html, o.explain.satisfaction)
	o.stderr = stderr
	unlock, err := lockOutputDir("--output", o.output)
	if err != nil {
		return err
	}
	defer unlock()
	prog, err := whileRunning(ctx, o.load) // left behind if the run is cancelled
	if err != nil {
		return err
	}
	outs := append(append(outputFiles(o.output, prog), output{flag: "--report", path: o.report}, o.streaming.output()), o.explain.outputs()...)
	if err := checkOutputs(programInputs(&o.programFlags, prog), outs...); err != nil {
		return err
	}
	if o.outputTable != "" {
		if err := o.checkOutputTable(prog); err != nil {
			return err
		}
	}
	if err := o.explain.findPSL(prog); err != nil {
		return err
	}
	evalOptions := pipeline.EvalOptions{Evaluators: o.evals, Options: evalOpts, IncludeObserved: o.includeObs,
		Note: func(s string) { fmt.Fprintf(stderr, "hinge infer: note: %s\n", s) }}
	if err := prog.CheckEvaluators(evalOptions); err != nil {
		return badInput(err)
	}
	if o.discrete && hasSquared(prog.Model) {
		fmt.Fprintln(stderr, "hinge infer: note: --discrete treats squared rules (^2) as linear: on 0/1 values a clause's distance to satisfaction is 0 or 1, so squaring changes nothing")
	}
	rep := inferReport{Method: "admm"}
	var g *ground.Result
	var groundSec float64
	var values []float64
	var sol *solveSummary
	if !o.streaming.on {
		g, groundSec, err = o.ground(ctx, prog, o.admm.Threads)
		var me *ground.MemoryError
		if errors.As(err, &me) && !me.Counted && !me.CrossProduct && !o.lifted && !o.discrete {
			// What the estimate says does not fit in memory goes to disk
			// (not a cross product: that is nearly always a mistake, and
			// its message says so; --streaming grounds it all the same).
			if o.explain.any() {
				return failed(fmt.Errorf("%v; %s: the ground problem must be in memory", err, o.explain.flagNames()))
			}
			fmt.Fprintf(stderr, "hinge infer: note: %v; grounding to a disk cache and solving by streaming instead (--streaming)\n", err)
			o.streaming.on = true
		} else if err != nil {
			return err
		}
		if !o.streaming.on && o.streaming.cacheDir != "" {
			fmt.Fprintf(stderr, "hinge infer: note: --cache %s: the problem fit in memory and is solved without streaming, so no cache file is written (--streaming streams it all the same)\n", clipPath(o.streaming.cacheDir))
		}
	}
	if o.streaming.on {
		s, err := o.stream(ctx, prog, &rep, stdout)
		if err != nil {
			return err
		}
		g, groundSec, values, sol = s.g, s.groundSec, s.values, s.sum
	} else {
		printGroundSummary(stdout, prog, g, groundSec)
		if testHookBeforeSolve != nil {
			testHookBeforeSolve()
		}
		if values, sol, err = o.solve(ctx, g.Problem, prog.Model.Rules, &rep, stdout); err != nil {
			return err
		}
	}
	rep.problemSizes, rep.Rules = groundSizes(g), ruleReports(g)
	rep.Seconds.Load, rep.Seconds.Ground = prog.Seconds, groundSec

	// The explanations are worked out before any output is written.
	defer o.explain.discard() // a report rendered but not put in place
	if err := o.explain.preparePSL(ctx, prog, g, values, o.solver, o.streaming.on); err != nil {
		return err
	}
	if err := interrupted(ctx); err != nil {
		return err
	}
	// Outputs first: they are written even when constraints are violated.
	if o.output != "" {
		files, err := pipeline.WriteOutputs(o.output, g, values)
		if err != nil {
			return failed(err)
		}
		rep.Outputs = files
		if len(files) == 0 {
			fmt.Fprintf(stdout, "wrote no file to %s: no predicate has targets\n", o.output)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", strings.Join(files, ", "))
		}
	}
	if o.outputTable != "" {
		db, err := o.connectDB()
		if err != nil {
			return err
		}
		// Committed when the run's files are put in place, and given up with
		// them: a run that could not write its files had replaced the table.
		commit, rollback, err := db.PrepareValues(o.outputTable, prog.Model, g, values)
		if err != nil {
			db.Close()
			return o.dbError(err)
		}
		table := o.dbSchema + "." + o.outputTable
		err = atomicfile.Stage("table "+table, func() error {
			defer db.Close()
			if err := commit(); err != nil {
				return fmt.Errorf("table %s: %w", table, err)
			}
			return nil
		}, func() {
			rollback()
			db.Close()
		})
		if err != nil {
			return failed(err)
		}
		fmt.Fprintf(stdout, "wrote %d values to table %s\n", len(values), table)
	}
	switch {
	case o.printValues:
		printValues(stdout, g, values, len(values))
	case o.output == "":
		// On a terminal, a long list would bury the evaluation printed
		// after it: the first few, and where the rest are. Into a file or
		// a pipe, every value, for the program reading them.
		if n := len(values); n > printAll && progress.IsTerminal(stdout) {
			fmt.Fprintf(stdout, "%d inferred values; the first %d (--output DIR writes them all, one file per predicate; --print prints them all):\n", n, printFirst)
			printValues(stdout, g, values, printFirst)
		} else {
			printValues(stdout, g, values, n)
		}
	}

	evs, err := prog.Evaluate(g, values, evalOptions)
	if err != nil {
		return badInput(err)
	}
	rep.Evaluation = map[string]map[string]float64{}
	for _, ev := range evs {
		m := rep.Evaluation[ev.Predicate.Name]
		if m == nil {
			m = map[string]float64{}
			rep.Evaluation[ev.Predicate.Name] = m
		}
		for _, mt := range ev.Result.Metrics {
			m[mt.Name] = mt.Value
		}
		fmt.Fprintf(stdout, "evaluation %s (%d atoms) %s\n", ev.Predicate.Name, ev.Atoms, ev.Result)
	}
	if err := o.explain.finish(stdout); err != nil {
		return err
	}
	rep.Seconds.Total = time.Since(start).Seconds()
	if o.report != "" {
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	if sol != nil && sol.Violated > 0 {
		rule := "?"
		if w := sol.WorstRule; w >= 0 && w < len(prog.Model.Rules) {
			r := prog.Model.Rules[w]
			rule = fmt.Sprintf("%s %s", r.Pos, pipeline.RuleText(r))
		}
		limit := "--max-iter iterations"
		if o.streaming.on {
			limit = "--epochs epochs"
		}
		return failed(fmt.Errorf("%d hard constraint(s) still violated after %d %ss (%s); the worst is violated by %.6g, a ground constraint of rule %s",
			sol.Violated, sol.Iterations, sol.unit(), violationCauseIn(sol.Status, limit), sol.MaxViolation, rule))
	}
	if sol != nil && sol.Status != admm.Converged {
		solver := "ADMM"
		if o.streaming.on {
			solver = "streaming DCD"
		}
		fmt.Fprintf(stderr, "hinge: warning: %s %s; the values are the last iterate\n", solver, stoppedAfter(sol.Status, sol.Iterations, sol.unit()))
	}
	return nil
}

// testHookBeforeSolve, when set (by tests), is called by hinge infer once
// grounding is done, just before the solve starts.
var testHookBeforeSolve func()

// solveSummary is what the caller needs to know about a continuous solve.
type solveSummary struct {
	Status       admm.Status
	Iterations   int
	Violated     int
	WorstRule    int // the rule of the most violated constraint, -1 if unknown
	MaxViolation float64
	Unit         string // what Iterations counts: "iteration" (when empty) or "epoch"
}

func (s *solveSummary) unit() string {
	if s.Unit == "" {
		return "iteration"
	}
	return s.Unit
}

// worstRule is the rule index of constraint w of p, or -1.
func worstRule(p *hlmrf.Problem, w int) int {
	if w < 0 || w >= len(p.CGroup) {
		return -1
	}
	return int(p.CGroup[w])
}

// solve runs ADMM (optionally lifted) or the discrete MAX-SAT pipeline and
// fills the report. It returns values for every variable of p.
func (o *inferOptions) solve(ctx context.Context, p *hlmrf.Problem, rules []*model.Rule, rep *inferReport, stdout io.Writer) ([]float64, *solveSummary, error) {
	bar := progress.New(o.stderr, o.quiet, "hinge infer")
	defer bar.Done()
	opt := o.admm
	opt.Progress = admmProgress(bar)

	if o.discrete {
		rep.Method = "discrete"
		q := p.Clone()
		// On 0/1 values a clause's hinge is 0 or 1, so squaring changes
		// nothing: the discrete problem is the same for ^1 and ^2 rules.
		for i := range q.Power {
			q.Power[i] = 1
		}
		mo := maxsat.DefaultOptions()
		mo.ADMM = opt
		mo.Seed = o.seed
		mo.LocalSearch = o.localSearch
		mo.Lift = o.lifted
		t0 := time.Now()
		res, err := maxsat.SolveProblem(ctx, q, mo)
		bar.Done() // the status line is cleared before anything is printed
		var nc *maxsat.NotClauseError
		if errors.As(err, &nc) {
			// Name the rule the offending ground rule came from.
			g := p.Group
			if nc.Constraint {
				g = p.CGroup
			}
			if r := int(g[nc.Index]); r >= 0 && r < len(rules) {
				return nil, nil, badInput(fmt.Errorf("--discrete: %s: rule %q grounds to a %s that is not a clause (%s); --discrete takes rules that are disjunctions of atoms",
					rules[r].Pos, pipeline.RuleText(rules[r]), map[bool]string{false: "potential", true: "hard constraint"}[nc.Constraint], nc.Reason))
			}
		}
		if err != nil {
			return nil, nil, badInput(fmt.Errorf("--discrete: %w", err))
		}
		rep.Seconds.Solve = time.Since(t0).Seconds()
		values := make([]float64, len(res.X))
		for i, x := range res.X {
			if x {
				values[i] = 1
			}
		}
		r := res.Report
		rep.Discrete = &r
		if l := r.Lifted; l != nil {
			rep.Method = "discrete-lifted"
			printLiftedDiscrete(stdout, l, r.Seconds.Round)
			rep.Lifted = &problemSizes{Variables: l.Lifted.Variables, Potentials: l.Lifted.Potentials, Constraints: l.Lifted.Constraints}
			rep.Seconds.Lift = &l.Seconds.Lift
			rep.Seconds.Solve -= l.Seconds.Lift
		}
		rep.Objective = p.Objective(values)
		rep.Iterations = r.ADMM.Iterations
		rep.Status, rep.Converged = r.ADMM.Status, r.ADMM.Converged
		v := p.Violations(values, 0)
		rep.MaxConstraintViolation, rep.ViolatedConstraints = v.Max, v.Violated
		fmt.Fprintf(stdout, "discrete MAP: satisfied weight %.6g of %.6g, certified upper bound %.6g (ratio >= %.4f), %d hard clause(s) violated; %.3f s\n",
			r.WeightSatisfied, r.WeightTotal, r.LPUpperBound, r.CertifiedRatio, r.HardViolated, rep.Seconds.Solve)
		sum := &solveSummary{Status: admm.Converged, Iterations: r.ADMM.Iterations, Violated: v.Violated, WorstRule: worstRule(p, v.Worst), MaxViolation: v.Max}
		return values, sum, nil
	}

	t0 := time.Now()
	var res *admm.Result
	if o.lifted {
		rep.Method = "admm-lifted"
		lr, err := lift.Solve(ctx, p, opt)
		bar.Done()
		if err != nil {
			return nil, nil, failed(err)
		}
		lp := lr.Lifted.Problem
		rep.Seconds.Lift = &lr.LiftSeconds
		ls := sizesOf(lp)
		rep.Lifted = &ls
		fmt.Fprintf(stdout, "lifted: %d variables, %d potentials, %d constraints (from %d, %d, %d) in %.3f s\n",
			lp.NumVars, lp.NumPotentials(), lp.NumConstraints(), p.NumVars, p.NumPotentials(), p.NumConstraints(), lr.LiftSeconds)
		res = &lr.Result
	} else {
		s, err := admm.NewContext(ctx, p, opt)
		if err == nil {
			res, err = s.Solve(ctx, nil)
		}
		if err != nil {
			return nil, nil, failed(err)
		}
		o.solver = s // its duals explain the answer (--explain)
	}
	bar.Done()
	rep.Seconds.Solve = time.Since(t0).Seconds()
	if rep.Seconds.Lift != nil {
		rep.Seconds.Solve -= *rep.Seconds.Lift
	}
	// For a lifted solve these figures are already those of the original problem.
	rep.solverReport = solverReportOf(res)
	bound := ""
	if rep.LowerBound != nil {
		bound = fmt.Sprintf(" (lower bound %.6g, relative gap %.2g)", *rep.LowerBound, *rep.RelativeGap)
	}
	fmt.Fprintf(stdout, "ADMM: %d iterations, objective %.6g%s, primal residual %.3g, dual residual %.3g, max constraint violation %.3g, rho %.3g, %s; %.3f s\n",
		res.Iterations, res.Objective, bound, res.PrimalResidual, res.DualResidual, res.MaxViolation, res.Rho, res.Status, rep.Seconds.Solve)
	return res.Values, &solveSummary{Status: res.Status, Iterations: res.Iterations, Violated: res.Violated, WorstRule: worstRule(p, res.Worst), MaxViolation: res.MaxViolation}, nil
}

// printLiftedDiscrete prints what lifting the LP relaxation of a discrete
// MAP run found and what each lifted stage took.
func printLiftedDiscrete(w io.Writer, l *maxsat.LiftReport, roundSec float64) {
	if !l.Symmetry {
		fmt.Fprintf(w, "lifted: the relaxation (%d variables, %d clauses, %d hard) was solved without lifting: %s; looking took %.3f s\n",
			l.Ground.Variables, l.Ground.Potentials, l.Ground.Constraints, l.Note, l.Seconds.Lift)
		return
	}
	how := "one atom per class of symmetric atoms"
	if l.Rounding != maxsat.RoundClasses {
		how = "atom by atom"
	}
	fmt.Fprintf(w, "lifted relaxation: %d variables, %d potentials, %d constraints (from %d, %d, %d); lifting %.3f s, lifted solve %.3f s, certificate %.3f s; rounded %s in %.3f s\n",
		l.Lifted.Variables, l.Lifted.Potentials, l.Lifted.Constraints, l.Ground.Variables, l.Ground.Potentials, l.Ground.Constraints,
		l.Seconds.Lift, l.Seconds.Solve, l.Seconds.Certify, how, roundSec)
	if l.Rounding != maxsat.RoundClasses {
		fmt.Fprintf(w, "lifted: rounded atom by atom: %s\n", l.RoundingNote)
	}
}

// printAll is the most inferred values infer prints on a terminal without
// --output or --print; above it, it prints the first printFirst and says
// where the rest are.
const (
	printAll   = 100
	printFirst = 20
)

// printValues prints PRED('a', 'b') = value for the first n variables, in
// predicate then row order (the grounder's variable order).
func printValues(w io.Writer, g *ground.Result, values []float64, n int) {
	for v, ref := range g.Vars[:n] {
		args := g.Args(v)
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = "'" + a + "'"
		}
		fmt.Fprintf(w, "%s(%s) = %.6f\n", ref.Pred.Name, strings.Join(q, ", "), values[v])
	}
}

// parseKeyValues parses KEY=VALUE flag values.
func parseKeyValues(list []string, flag string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: want KEY=VALUE", flag, kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// hasSquared reports whether a weighted rule of m is squared (^2).
func hasSquared(m *model.Model) bool {
	for _, r := range m.Rules {
		if r.Weighted && r.Squared {
			return true
		}
	}
	return false
}

// checkOutputTable refuses, before any work, an --output-table that cannot
// be written: a name PostgreSQL would not keep, a table of hinge's or of the
// model, or a table hinge did not create (unless --db-replace).
func (o *inferOptions) checkOutputTable(prog *pipeline.Program) error {
	if err := pgstore.CheckOutputName(o.outputTable, prog.Model); err != nil {
		return badInput(fmt.Errorf("--output-table: %w", err))
	}
	db, err := o.connectDB()
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CheckOutput(o.outputTable, prog.Model); err != nil {
		return o.dbError(err)
	}
	return nil
}
