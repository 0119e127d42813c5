package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/maxsat"
)

type maxsatOptions struct {
	report string
	quiet  bool
	opt    maxsat.Options
}

// maxsatFileReport is the --report JSON: the library's report plus the file.
type maxsatFileReport struct {
	File string `json:"file"`
	maxsat.Report
}

func newMaxsatCmd() *cobra.Command {
	o := &maxsatOptions{opt: maxsat.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "maxsat FILE.wcnf [--report R.json] [--seed S] [--local-search STEPS] [ADMM flags]",
		Short: "Weighted MAX-SAT with a guarantee: LP relaxation by ADMM, certified bound, derandomised rounding",
		Long: `Solve a weighted MAX-SAT instance (a logical MRF) as in Bach, Huang and Getoor
(2014): solve the LP relaxation of Goemans and Williamson with ADMM, round it
with p = y/2 + 1/4 and with p = y, each derandomised by the method of
conditional probabilities (the answer's weight is at least 3/4 of the
optimum), and optionally improve it with MaxWalkSAT. A dual-feasible point of
the relaxation gives a certified upper bound on the optimum, so every answer
says how close to optimal it provably is (the certified ratio).

FILE is WCNF: the classic form ('p wcnf NVARS NCLAUSES [TOP]', clauses
'W l1 l2 ... 0' that may span lines, weight >= TOP is hard; 'p cnf' is read
as unweighted MAX-SAT, every clause soft with weight 1) or the MaxSAT
Evaluation 2022 form (no p line, 'h l1 ... 0' hard, 'W l1 ... 0' soft, one
clause per line). Weights may be real numbers.

Output follows the MaxSAT Evaluation: 'c' comment lines (bound, ratio,
times), 'o COST' (the weight of falsified soft clauses), 's OPTIMUM FOUND'
only when the cost meets the certified bound, else 's SATISFIABLE';
's UNSATISFIABLE' only when the certified bound proves that no assignment
satisfies the hard clauses, and 's UNKNOWN' when the answer violates hard
clauses without such a proof (in both cases the exit status is 1); then
'v 1 -2 3 ...' with the best assignment found.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.Uint64Var(&o.opt.Seed, "seed", 1, "seed of the local search")
	f.IntVar(&o.opt.LocalSearch, "local-search", 0, "MaxWalkSAT flips from the rounded assignment (0: none)")
	f.Float64Var(&o.opt.Noise, "noise", 0.5, "MaxWalkSAT random-walk probability")
	f.IntVar(&o.opt.RepairSteps, "repair-steps", o.opt.RepairSteps, "least MaxWalkSAT flips spent repairing violated hard clauses")
	f.IntVar(&o.opt.DualSweeps, "dual-sweeps", o.opt.DualSweeps, "coordinate-ascent passes that tighten the certified bound")
	f.BoolVar(&o.quiet, "quiet", false, "no progress display even on a terminal")
	addADMMFlags(cmd, &o.opt.ADMM)
	return cmd
}

func (o *maxsatOptions) run(ctx context.Context, path string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := o.opt.ADMM.Validate(); err != nil {
		return badInput(err)
	}
	if o.opt.LocalSearch < 0 || o.opt.RepairSteps < 0 || o.opt.DualSweeps < 0 {
		return badInput(fmt.Errorf("--local-search, --repair-steps and --dual-sweeps must be >= 0"))
	}
	if o.opt.Noise < 0 || o.opt.Noise > 1 {
		return badInput(fmt.Errorf("--noise %v must be in [0,1]", o.opt.Noise))
	}
	if err := checkOutputs([]string{path}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	start := time.Now()
	in, err := readFile(path, maxsat.Read)
	if err != nil {
		return badInput(err)
	}
	if err := checkInstanceFits(path, in); err != nil {
		return err
	}
	load := time.Since(start).Seconds()
	prog := progress.New(stderr, o.quiet, "hinge maxsat")
	opt := o.opt
	opt.ADMM.Progress = func(pr admm.Progress) {
		prog.Status("relaxation: ADMM iteration %d  objective %.6g  primal %.2e (tol %.2e)  dual %.2e (tol %.2e)",
			pr.Iteration, pr.Objective, pr.PrimalResidual, pr.PrimalTol, pr.DualResidual, pr.DualTol)
	}
	res, err := maxsat.Solve(ctx, in, opt)
	prog.Done()
	if err != nil {
		return failed(err)
	}
	if err := interrupted(ctx); err != nil {
		return err // the local search stops early on cancellation, with its best so far
	}
	rep := res.Report
	rep.Seconds.Load = load
	rep.Seconds.Total += load

	w := bufio.NewWriterSize(stdout, 1<<16)
	printMaxsat(w, path, &rep, res.X, in.FalsifiedWeight(res.X))
	if err := w.Flush(); err != nil {
		return failed(err)
	}
	if o.report != "" {
		if err := writeJSON(o.report, maxsatFileReport{File: path, Report: rep}); err != nil {
			return failed(err)
		}
	}
	if rep.HardViolated > 0 {
		return failed(fmt.Errorf("%s: the assignment violates %d hard clauses", path, rep.HardViolated))
	}
	return nil
}

func printMaxsat(w io.Writer, path string, r *maxsat.Report, x []bool, cost float64) {
	g := func(v float64) string {
		if math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	fmt.Fprintf(w, "c hinge maxsat %s: %d variables, %d clauses (%d hard), soft weight %s\n",
		path, r.Variables, r.Clauses, r.HardClauses, g(r.WeightTotal))
	conv := "converged"
	if !r.ADMM.Converged {
		conv = "not converged"
	}
	fmt.Fprintf(w, "c relaxation: ADMM %d iterations (%s), LP value about %s, hard residual %.3g\n",
		r.ADMM.Iterations, conv, g(r.LPPrimalValue), r.LPPrimalResidual)
	fmt.Fprintf(w, "c certified upper bound on the satisfied weight: %s (%s, from %s)\n", g(r.LPUpperBound), r.LPBoundKind, r.LPBoundSource)
	fmt.Fprintf(w, "c rounding: %s, weight %s (expected gw %.6g, plain %.6g), hard violated %d\n",
		r.Rounding.Method, g(r.Rounding.Weight), r.Rounding.ExpectedGW, r.Rounding.ExpectedPlain, r.Rounding.HardViolated)
	if r.LocalSearch.Steps > 0 {
		fmt.Fprintf(w, "c local search: %d of %d flips, weight %s\n", r.LocalSearch.Flips, r.LocalSearch.Steps, g(r.LocalSearch.Weight))
	}
	fmt.Fprintf(w, "c satisfied weight %s, certified ratio %.6f (at least this fraction of optimal)\n", g(r.WeightSatisfied), r.CertifiedRatio)
	s := r.Seconds
	fmt.Fprintf(w, "c seconds: load %.3f relax %.3f round %.3f local search %.3f total %.3f\n", s.Load, s.Relax, s.Round, s.LocalSearch, s.Total)
	switch {
	case r.HardViolated > 0 && r.Infeasible:
		fmt.Fprintln(w, "c the certified bound is negative: no assignment satisfies the hard clauses")
		fmt.Fprintln(w, "s UNSATISFIABLE")
	case r.HardViolated > 0:
		// No proof either way: the MaxSAT Evaluation's answer is UNKNOWN.
		fmt.Fprintf(w, "c the best assignment found violates %d hard clauses, and the bound does not prove that none satisfies them\n", r.HardViolated)
		fmt.Fprintf(w, "c its cost of falsified soft clauses: %s; it is in the v line below and in --report\n", g(cost))
		fmt.Fprintln(w, "s UNKNOWN")
	case r.Optimal:
		fmt.Fprintf(w, "o %s\n", g(cost))
		fmt.Fprintln(w, "s OPTIMUM FOUND")
	default:
		fmt.Fprintf(w, "o %s\n", g(cost))
		fmt.Fprintln(w, "s SATISFIABLE")
	}
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, 'v')
	for i, b := range x {
		buf = append(buf, ' ')
		if !b {
			buf = append(buf, '-')
		}
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		if len(buf) > 1<<15 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, '\n')
	w.Write(buf)
}
