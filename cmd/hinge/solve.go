package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/lift"
)

type solveOptions struct {
	admm   admm.Options
	output string
	report string
	quiet  bool
	lifted bool
}

// solveReport is the --report JSON of hinge solve.
type solveReport struct {
	File string `json:"file"`
	problemSizes
	solverReport
	PrimalTolerance float64       `json:"primal_tolerance"`
	DualTolerance   float64       `json:"dual_tolerance"`
	WorstConstraint int           `json:"worst_constraint"` // 1-based among the file's constraints, 0 when none is violated
	Lifted          *problemSizes `json:"lifted,omitempty"`
	Seconds         solveSeconds  `json:"seconds"`
}

// solverReport is the part of the --report JSON that hinge solve and hinge
// infer share: how the solve ended, on the user's problem.
type solverReport struct {
	Objective              float64     `json:"objective"`
	LowerBound             *float64    `json:"lower_bound,omitempty"`
	RelativeGap            *float64    `json:"relative_gap,omitempty"`
	Iterations             int         `json:"iterations"`
	Status                 admm.Status `json:"status"`
	Converged              bool        `json:"converged"`
	PrimalResidual         *float64    `json:"primal_residual,omitempty"` // ADMM's (nil when streaming)
	DualResidual           *float64    `json:"dual_residual,omitempty"`
	MaxConstraintViolation float64     `json:"max_constraint_violation"`
	ViolatedConstraints    int         `json:"violated_constraints"`
	Rho                    *float64    `json:"rho,omitempty"` // ADMM's penalty at the end
}

// solverReportOf fills a solverReport from an ADMM result.
func solverReportOf(res *admm.Result) solverReport {
	r := solverReport{
		Objective:              res.Objective,
		Iterations:             res.Iterations,
		Status:                 res.Status,
		Converged:              res.Converged(),
		PrimalResidual:         &res.PrimalResidual,
		DualResidual:           &res.DualResidual,
		MaxConstraintViolation: res.MaxViolation,
		ViolatedConstraints:    res.Violated,
		Rho:                    &res.Rho,
	}
	r.LowerBound, r.RelativeGap = gapFields(res.Objective, res.LowerBound, res.GapFloor)
	return r
}

type solveSeconds struct {
	Load  float64  `json:"load"`
	Lift  *float64 `json:"lift,omitempty"`
	Solve float64  `json:"solve"`
	Total float64  `json:"total"`
}

func newSolveCmd() *cobra.Command {
	o := &solveOptions{admm: admm.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "solve FILE [--output VALUES] [--report R.json] [ADMM flags]",
		Short: "MAP inference by consensus ADMM on a ground problem in the exchange format",
		Long: `Solve a ground hinge-loss MRF given in the exchange format (one potential per
line, 'w 0:c j:x_j ... #^d'; hard constraints as '<= 0:c ...', '= 0:c ...',
'>= 0:c ...') by consensus ADMM, and print a summary: sizes, iterations,
objective, primal and dual residuals against their tolerances, the largest
hard-constraint violation and time.

--output writes the MAP state, one value per line: line j is variable column j.
--report writes the same summary as JSON.

The solver stops when the residuals meet their tolerances (PSL 2.3 rule), no
hard constraint is violated by more than --constraint-tol times the norm of
its coefficients (at least 1), and the objective is within --gap-tol
(relative) of a Lagrangian lower bound on the optimum computed from the duals,
or after --max-iter iterations. The bound is printed and reported: the optimum
lies between it and the objective. If hard
constraints are still violated at the end (infeasible constraints), the worst
one is printed, the outputs are written anyway and the exit status is 1.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addADMMFlags(cmd, &o.admm)
	f := cmd.Flags()
	f.StringVar(&o.output, "output", "", "write the MAP state to this file, one value per line (line j = variable column j)")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.BoolVar(&o.quiet, "quiet", false, "no progress display even on a terminal")
	f.BoolVar(&o.lifted, "lifted", false, "lifted inference: solve the problem reduced by its symmetries (color refinement), then map back")
	return cmd
}

// addADMMFlags registers the ADMM solver options as flags, with the values
// already in o as defaults (start from admm.DefaultOptions). hinge solve and
// hinge infer share these names.
func addADMMFlags(cmd *cobra.Command, o *admm.Options) {
	f := cmd.Flags()
	f.IntVar(&o.Threads, "threads", o.Threads, "ADMM worker threads (0: all cores); the same count gives the same answer on every run, another count changes the values only by rounding (by about 1e-15)")
	f.Float64Var(&o.Rho, "rho", o.Rho, "ADMM step size (penalty parameter), > 0: the first one when --rho-policy adapts it (times 10^k when all weights are above 1, or all below, and the one nearest 1 rounds to 10^k, |k| >= 3)")
	f.Var(rhoPolicyFlag{&o.RhoPolicy}, "rho-policy", "how the penalty adapts: fixed (--rho throughout, PSL's behaviour), balance (residual balancing) or spectral (Xu et al. 2017)")
	f.Float64Var(&o.EpsAbs, "eps-abs", o.EpsAbs, "ADMM absolute residual tolerance")
	f.Float64Var(&o.EpsRel, "eps-rel", o.EpsRel, "ADMM relative residual tolerance")
	f.IntVar(&o.MaxIter, "max-iter", o.MaxIter, "ADMM iteration limit")
	f.IntVar(&o.CheckEvery, "check-every", o.CheckEvery, "check residuals and constraints every N iterations")
	f.Float64Var(&o.ConstraintTol, "constraint-tol", o.ConstraintTol, "largest hard-constraint violation accepted at convergence, times max(1, norm of the constraint's coefficients)")
	f.Float64Var(&o.GapTol, "gap-tol", o.GapTol, "relative duality gap (objective - Lagrangian lower bound)/max(floor, |objective|) required to stop, floor the smaller of 1 and a hundredth of the potentials' total weight; 0: PSL's residual test alone")
}

// rhoPolicyFlag reads --rho-policy.
type rhoPolicyFlag struct{ p *admm.RhoPolicy }

func (f rhoPolicyFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

func (f rhoPolicyFlag) Set(s string) error {
	p, err := admm.ParseRhoPolicy(s)
	if err == nil {
		*f.p = p
	}
	return err
}

func (rhoPolicyFlag) Type() string { return "policy" }

// admmProgress shows each ADMM residual check on the progress line.
func admmProgress(bar *progress.Reporter) func(admm.Progress) {
	return func(pr admm.Progress) {
		bar.Status("ADMM iteration %d  objective %.6g  primal %.2e (tol %.2e)  dual %.2e (tol %.2e)  max violation %.2e  rho %.3g",
			pr.Iteration, pr.Objective, pr.PrimalResidual, pr.PrimalTol, pr.DualResidual, pr.DualTol, pr.MaxViolation, pr.Rho)
	}
}

// stoppedText says how an ADMM solve ended, for the summaries of hinge
// solve and hinge infer.
func stoppedText(st admm.Status, iterations int) string {
	return stoppedAfter(st, iterations, "iteration")
}

// stoppedAfter is stoppedText counting in unit (iteration, epoch).
func stoppedAfter(st admm.Status, n int, unit string) string {
	switch st {
	case admm.Converged:
		return fmt.Sprintf("converged after %d %ss", n, unit)
	case admm.IterationLimit:
		return fmt.Sprintf("stopped at the %s limit (%d) without converging", unit, n)
	default:
		return fmt.Sprintf("stopped after %d %ss: %s", n, unit, st)
	}
}

// violationCause says what a solve's status tells about hard constraints
// still violated at its end.
func violationCause(st admm.Status) string {
	return violationCauseIn(st, "--max-iter iterations")
}

// violationCauseIn is violationCause naming the limit that ran out.
func violationCauseIn(st admm.Status, limit string) string {
	switch st {
	case admm.Infeasible:
		return "the duals prove the constraints infeasible"
	case admm.IterationLimit:
		return "the constraints may be infeasible, or need more than " + limit
	}
	return "the constraints may be infeasible"
}

// gapFields returns the lower bound and the relative gap for a report
// (admm.RelativeGap, as the solver's test takes it), nil when the bound is
// not finite (+Inf: the duals prove the hard constraints infeasible; JSON
// has no infinities).
func gapFields(objective, lowerBound, floor float64) (lb, gap *float64) {
	if math.IsInf(lowerBound, 0) || math.IsNaN(lowerBound) {
		return nil, nil
	}
	g := admm.RelativeGap(objective, lowerBound, floor)
	return &lowerBound, &g
}

func (o *solveOptions) run(ctx context.Context, path string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := o.admm.Validate(); err != nil {
		return badInput(err)
	}
	if err := checkOutputs([]string{path}, output{flag: "--output", path: o.output}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole.
	stdout, stderr = routeMessages(ctx, stdout, stderr, false, o.output, o.report)
	start := time.Now()
	p, err := readFile(ctx, path, hlmrf.Read)
	if err != nil {
		return err
	}
	if err := checkProblemFits(path, p); err != nil {
		return err
	}
	rep := progress.New(stderr, o.quiet, "hinge solve")
	opt := o.admm
	opt.Progress = admmProgress(rep)
	var res *admm.Result
	var lifted *problemSizes
	var liftSec *float64
	load := time.Since(start).Seconds()
	solveStart := time.Now()
	if o.lifted {
		lr, err := lift.Solve(ctx, p, opt)
		if err != nil {
			rep.Done()
			return failed(fmt.Errorf("%s: %w", path, err))
		}
		res, liftSec = &lr.Result, &lr.LiftSeconds
		ls := sizesOf(lr.Lifted.Problem)
		lifted = &ls
	} else {
		s, err := admm.NewContext(ctx, p, opt)
		if isCancel(err) {
			return err
		}
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", path, err))
		}
		load = time.Since(start).Seconds() // reading and the solver's setup
		solveStart = time.Now()
		res, err = s.Solve(ctx, nil)
		if err != nil {
			rep.Done()
			return failed(fmt.Errorf("%s: %w", path, err))
		}
	}
	rep.Done()
	solveSec := time.Since(solveStart).Seconds()
	if liftSec != nil {
		solveSec -= *liftSec
	}

	if err := interrupted(ctx); err != nil {
		return err
	}
	if o.output != "" {
		if err := atomicfile.Write(o.output, func(w io.Writer) error { return writeValues(w, res.Values) }); err != nil {
			return failed(err)
		}
	}
	r := solveReport{
		File:            path,
		problemSizes:    sizesOf(p),
		solverReport:    solverReportOf(res),
		PrimalTolerance: res.PrimalTol,
		DualTolerance:   res.DualTol,
		WorstConstraint: res.Worst + 1,
		Lifted:          lifted,
		Seconds:         solveSeconds{Load: load, Lift: liftSec, Solve: solveSec, Total: time.Since(start).Seconds()},
	}
	if res.Violated == 0 {
		r.WorstConstraint = 0
	}
	printSolveSummary(stdout, &r, res.Status)
	if o.report != "" {
		if err := writeJSON(o.report, r); err != nil {
			return failed(err)
		}
	}
	if res.Violated > 0 {
		return failed(fmt.Errorf("%s: %d hard constraint(s) still violated after %d iterations (%s); worst: constraint %d, %s, violated by %.6g",
			path, res.Violated, res.Iterations, violationCause(res.Status), res.Worst+1, constraintText(p, res.Worst), res.MaxViolation))
	}
	if !res.Converged() {
		fmt.Fprintf(stderr, "hinge: warning: %s: ADMM %s; the values are the last iterate\n", path, stoppedText(res.Status, res.Iterations))
	}
	return nil
}

// writeValues writes one value per line with the fewest digits that read
// back exactly.
func writeValues(w io.Writer, vals []float64) error {
	buf := make([]byte, 0, 32)
	for _, v := range vals {
		buf = strconv.AppendFloat(buf[:0], v, 'g', -1, 64)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

func printSolveSummary(w io.Writer, r *solveReport, st admm.Status) {
	fmt.Fprintf(w, "problem %s: %d variables, %d potentials, %d hard constraints\n", r.File, r.Variables, r.Potentials, r.Constraints)
	if l := r.Lifted; l != nil {
		fmt.Fprintf(w, "lifted to %d variables, %d potentials, %d hard constraints in %.3f s\n", l.Variables, l.Potentials, l.Constraints, *r.Seconds.Lift)
	}
	fmt.Fprintf(w, "ADMM %s\n", stoppedText(st, r.Iterations))
	if r.LowerBound != nil {
		fmt.Fprintf(w, "objective %.10g (Lagrangian lower bound %.10g, relative gap %.2g)\n", r.Objective, *r.LowerBound, *r.RelativeGap)
	} else {
		fmt.Fprintf(w, "objective %.10g\n", r.Objective)
	}
	fmt.Fprintf(w, "primal residual %.3g (tolerance %.3g), dual residual %.3g (tolerance %.3g)\n", *r.PrimalResidual, r.PrimalTolerance, *r.DualResidual, r.DualTolerance)
	if r.Constraints > 0 {
		fmt.Fprintf(w, "max hard-constraint violation %.3g (%d violated beyond tolerance)\n", r.MaxConstraintViolation, r.ViolatedConstraints)
	}
	fmt.Fprintf(w, "seconds: load %.3f, solve %.3f, total %.3f\n", r.Seconds.Load, r.Seconds.Solve, r.Seconds.Total)
}

// constraintText renders constraint j as in the exchange format with
// variable columns, e.g. "y1 + y2 = 3".
func constraintText(p *hlmrf.Problem, j int) string {
	return p.ConstraintText(j, func(v int32) string { return "y" + strconv.Itoa(int(v)+1) })
}
