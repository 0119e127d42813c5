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
	report    string
	quiet     bool
	opt       maxsat.Options
	exact     bool
	timeLimit time.Duration
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
only when the cost meets the certified bound and float64 sums can tell costs
apart (by 1 for integer weights, by about the smallest weight for real ones:
not beside weights near 2^55, where sums are 8 apart, nor while a weight has
more significant digits than a float64 holds, such as 100000000.123456789:
a 'c' line says so), else 's SATISFIABLE'; the o line is the cost in full,
the exact sum of the weights as written;
's UNSATISFIABLE' only when the certified bound proves that no assignment
satisfies the hard clauses, and 's UNKNOWN' when the answer violates hard
clauses without such a proof (in both cases the exit status is 1); then
'v 1 -2 3 ...' with the best assignment found.

--exact solves the instance exactly instead, by core-guided MAX-SAT (OLL
with stratification by weight, on a CDCL SAT solver with assumptions): it
stops with 's OPTIMUM FOUND' once the cores' lower bound meets the best
assignment, or at --time-limit with 's SATISFIABLE', the best assignment
found, the certified lower bound and the gap. Beside the cores, on a
second core, a large neighbourhood search improves the best assignment:
it frees a few hundred variables around a falsified clause, holds the
others, and solves what is left exactly (--seed chooses the
neighbourhoods). --local-search N first runs N MaxWalkSAT flips from a
random assignment, whose best world starts the search. Real weights are
exact when they are decimals (up to nine digits after the point) whose
total times 10^digits stays below 2^60, taken from the weights as written
(not from their float64s); others are rounded and the rounding error E is
taken from the bound: a search that ends on them says its assignment is
optimal for the rounded weights (within 2E), 's SATISFIABLE', unless the
bound meets its cost and every weight is held by its float64.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.Uint64Var(&o.opt.Seed, "seed", 1, "seed of the local search and of --exact's neighbourhood search")
	f.IntVar(&o.opt.LocalSearch, "local-search", 0, "MaxWalkSAT flips from the rounded assignment (0: none)")
	f.Float64Var(&o.opt.Noise, "noise", 0.5, "MaxWalkSAT random-walk probability")
	f.IntVar(&o.opt.RepairSteps, "repair-steps", o.opt.RepairSteps, "least MaxWalkSAT flips spent repairing violated hard clauses")
	f.IntVar(&o.opt.DualSweeps, "dual-sweeps", o.opt.DualSweeps, "coordinate-ascent passes that tighten the certified bound")
	f.BoolVar(&o.quiet, "quiet", false, "no progress display even on a terminal")
	f.BoolVar(&o.exact, "exact", false, "solve exactly by core-guided MAX-SAT (proven optimum, or the gap at --time-limit)")
	f.DurationVar(&o.timeLimit, "time-limit", 0, "--exact: stop after this long (e.g. 10m) with the best assignment, the bound and the gap; 0: until proven optimal")
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
	switch {
	case o.timeLimit < 0:
		return badInput(fmt.Errorf("--time-limit %v: must be >= 0", o.timeLimit))
	case o.timeLimit > 0 && !o.exact:
		return badInput(fmt.Errorf("--time-limit %v applies to --exact only; give --exact with it, or leave it out", o.timeLimit))
	}
	if err := checkOutputs([]string{path}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The report written to standard output or error stays whole: the
	// c/o/s/v lines go with the messages when it is on standard output.
	stdout, stderr = routeMessages(ctx, stdout, stderr, false, o.report)
	start := time.Now()
	in, err := readFile(ctx, path, maxsat.Read)
	if err != nil {
		return err
	}
	if err := checkInstanceFits(path, in); err != nil {
		return err
	}
	load := time.Since(start).Seconds()
	if o.exact {
		return o.runExact(ctx, path, in, load, stdout, stderr)
	}
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
	printMaxsat(w, path, in, &rep, res.X)
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

// weightText writes a sum of weights: an integer in full (the MaxSAT
// Evaluation's o line is an integer; 1234567890123457 was written
// 1.23456789012e+15), any other number to 12 significant digits, so that
// the rounding of float64 sums does not show (0.6, not
// 0.6000000000000001). Beyond 2^53 a float64 holds only some integers:
// see inexactNote. Past 10^21 (MaxSAT weights stop at 2^63) it is 12
// digits again.
func weightText(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 12, 64)
}

// inexactNote is the comment line that says costs are rounded when the
// soft weights add up to 2^53 or more, where float64 sums skip integers.
func inexactNote(w io.Writer, total float64) {
	if total >= 1<<53 {
		fmt.Fprintf(w, "c the soft weights add up to %s, beyond 2^53: costs and bounds are float64 sums, which at this size are %s or more apart\n",
			weightText(total), weightText(math.Nextafter(total, math.Inf(1))-total))
	}
}

// roundedNote is the comment line that says how many soft weights a
// float64 does not hold as written, with the first, and what follows.
func roundedNote(w io.Writer, in *maxsat.Instance, follows string) {
	n := in.RoundedWeights()
	if n == 0 {
		return
	}
	for _, ww := range in.Written {
		if c := int(ww.Clause); c < in.NumClauses() && !in.Hard[c] {
			if v, err := strconv.ParseFloat(ww.Text, 64); err == nil && v == in.Weight[c] {
				fmt.Fprintf(w, "c %s more significant digits than a float64 holds (the first, clause %d: %s, read as %s): %s\n",
					plural(n, "soft weight has", "soft weights have"), c+1, ww.Text, maxsat.ShortestText(v), follows)
				return
			}
		}
	}
}

func printMaxsat(w io.Writer, path string, in *maxsat.Instance, r *maxsat.Report, x []bool) {
	g := weightText
	cost := in.CostText(x)
	fmt.Fprintf(w, "c hinge maxsat %s: %d variables, %d clauses (%d hard), soft weight %s\n",
		path, r.Variables, r.Clauses, r.HardClauses, g(r.WeightTotal))
	inexactNote(w, r.WeightTotal)
	roundedNote(w, in, "the relaxation, its bound and the rounding work on the rounded weights, which may rank two assignments wrongly, so optimality is not claimed; --exact decides on the weights as written")
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
		fmt.Fprintf(w, "c its cost of falsified soft clauses: %s; it is in the v line below and in --report\n", cost)
		fmt.Fprintln(w, "s UNKNOWN")
	case r.Optimal:
		fmt.Fprintf(w, "o %s\n", cost)
		fmt.Fprintln(w, "s OPTIMUM FOUND")
	default:
		fmt.Fprintf(w, "o %s\n", cost)
		fmt.Fprintln(w, "s SATISFIABLE")
	}
	writeV(w, x)
}

// writeV writes the 'v' line of assignment x.
func writeV(w io.Writer, x []bool) {
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

// maxsatExactReport is the --report JSON of hinge maxsat --exact.
type maxsatExactReport struct {
	File        string  `json:"file"`
	Variables   int     `json:"variables"`
	Clauses     int     `json:"clauses"`
	HardClauses int     `json:"hard_clauses"`
	WeightTotal float64 `json:"weight_total"`
	// Cost is the best assignment's weight of falsified soft clauses (null
	// when none satisfying the hard clauses was found), LowerBound a
	// certified lower bound on the cost of any assignment that satisfies
	// the hard clauses.
	Cost        *float64 `json:"cost"`
	LowerBound  float64  `json:"cost_lower_bound"`
	Gap         float64  `json:"gap"`
	Status      string   `json:"status"`
	Optimal     bool     `json:"optimal"`
	Infeasible  bool     `json:"infeasible"`
	Scale       float64  `json:"weight_scale"`
	WeightError float64  `json:"weight_error"`
	Cores       int      `json:"cores"`
	SATCalls    int      `json:"sat_calls"`
	Hardened    int      `json:"hardened"`
	// Neighbourhoods and Improvements are the large neighbourhood
	// search's: neighbourhoods solved, and those that gave a better world.
	Neighbourhoods int `json:"neighbourhoods"`
	Improvements   int `json:"improvements"`
	Seconds        struct {
		Load        float64 `json:"load"`
		LocalSearch float64 `json:"local_search"`
		Solve       float64 `json:"solve"`
		Total       float64 `json:"total"`
	} `json:"seconds"`
}

// runExact is hinge maxsat --exact: maxsat.Exact, from a MaxWalkSAT world
// when --local-search is given.
func (o *maxsatOptions) runExact(ctx context.Context, path string, in *maxsat.Instance, load float64, stdout, stderr io.Writer) error {
	rep := maxsatExactReport{File: path, Variables: in.NumVars, Clauses: in.NumClauses(), HardClauses: in.NumHard(), WeightTotal: in.SoftWeight()}
	rep.Seconds.Load = load
	prog := progress.New(stderr, o.quiet, "hinge maxsat")
	xo := maxsat.ExactOptions{TimeLimit: o.timeLimit, Seed: o.opt.Seed, Progress: func(p maxsat.ExactProgress) {
		prog.Status("exact: cost %.10g, lower bound %.10g, %d cores, %.0f s", p.Cost, p.LowerBound, p.Cores, p.Seconds)
	}}
	t0 := time.Now()
	if o.opt.LocalSearch > 0 {
		prog.Status("MaxWalkSAT: %d flips", o.opt.LocalSearch)
		wr, err := maxsat.WalkSAT(ctx, in, nil, maxsat.WalkOptions{Steps: o.opt.LocalSearch, Noise: o.opt.Noise, Seed: o.opt.Seed})
		if err != nil {
			prog.Done()
			return failed(err)
		}
		xo.Start = [][]bool{wr.X}
		if o.timeLimit > 0 {
			xo.TimeLimit = max(time.Nanosecond, o.timeLimit-time.Since(t0))
		}
	}
	rep.Seconds.LocalSearch = time.Since(t0).Seconds()
	res, err := maxsat.Exact(ctx, in, xo)
	prog.Done()
	if err != nil {
		return failed(err)
	}
	rep.Seconds.Solve = res.Seconds
	rep.Seconds.Total = time.Since(t0).Seconds() + load
	rep.LowerBound, rep.Gap, rep.Status, rep.Optimal, rep.Infeasible = res.LowerBound, res.Gap(), res.Status, res.Optimal, res.Infeasible
	rep.Scale, rep.WeightError, rep.Cores, rep.SATCalls, rep.Hardened = res.Scale, res.WeightError, res.Cores, res.SATCalls, res.Hardened
	rep.Neighbourhoods, rep.Improvements = res.Neighbourhoods, res.Improvements
	if res.X != nil {
		rep.Cost = &res.Cost
	}
	g := weightText
	w := bufio.NewWriterSize(stdout, 1<<16)
	fmt.Fprintf(w, "c hinge maxsat --exact %s: %d variables, %d clauses (%d hard), soft weight %s\n", path, rep.Variables, rep.Clauses, rep.HardClauses, g(rep.WeightTotal))
	inexactNote(w, rep.WeightTotal)
	if res.WeightError > 0 {
		roundedNote(w, in, "they are rounded further to integers, and no optimum is claimed")
	} else {
		roundedNote(w, in, "the search works on them as written, in integers")
	}
	fmt.Fprintf(w, "c core-guided (OLL): %d cores, %d SAT calls, %d soft literals hardened; weights scaled by %s", res.Cores, res.SATCalls, res.Hardened, g(res.Scale))
	if res.WeightError > 0 {
		fmt.Fprintf(w, " with rounding error %.3g (taken from the bound)", res.WeightError)
	}
	fmt.Fprintln(w)
	if res.Neighbourhoods > 0 {
		fmt.Fprintf(w, "c large neighbourhood search: %s solved, %d gave a better assignment\n", plural(res.Neighbourhoods, "neighbourhood", "neighbourhoods"), res.Improvements)
	}
	fmt.Fprintf(w, "c certified lower bound on the cost: %s\n", g(res.LowerBound))
	fmt.Fprintf(w, "c seconds: load %.3f local search %.3f exact %.3f total %.3f\n", load, rep.Seconds.LocalSearch, res.Seconds, rep.Seconds.Total)
	switch {
	case res.Infeasible:
		fmt.Fprintln(w, "c the hard clauses are unsatisfiable")
		fmt.Fprintln(w, "s UNSATISFIABLE")
	case res.X == nil:
		fmt.Fprintf(w, "c no assignment satisfying the hard clauses found within the time limit (%v)\n", o.timeLimit)
		fmt.Fprintln(w, "s UNKNOWN")
	case res.Optimal:
		fmt.Fprintf(w, "o %s\n", in.CostText(res.X))
		fmt.Fprintln(w, "s OPTIMUM FOUND")
	default:
		end := exactEnd(res)
		if res.Status != "rounded" {
			end = fmt.Sprintf("%s (%v)", end, o.timeLimit)
		}
		fmt.Fprintf(w, "c %s: %s\n", end, aboveOptimum(res.Cost, res.LowerBound))
		fmt.Fprintf(w, "o %s\n", in.CostText(res.X))
		fmt.Fprintln(w, "s SATISFIABLE")
	}
	if res.X != nil {
		writeV(w, res.X)
	}
	if err := w.Flush(); err != nil {
		return failed(err)
	}
	if o.report != "" {
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	if res.X == nil {
		return failed(fmt.Errorf("%s: no assignment satisfies the hard clauses (%s)", path, res.Status))
	}
	return nil
}
