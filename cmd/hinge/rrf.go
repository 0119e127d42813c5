package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

func newRRFCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rrf",
		Short: "Recursive random fields: inference and weight learning (also for Markov logic converted to an RRF)",
		Args:  rootArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRRFInferCmd(), newRRFLearnCmd())
	return cmd
}

type rrfInferOptions struct {
	mlnInputs
	result, method, norm string
	lambda, hardWeight   float64
	// hardWeightSet: --hard-weight was given, so evidence that breaks a
	// hard clause of a .mln is answered (the clause soft), not refused.
	hardWeightSet           bool
	samples, burnIn, starts int
	digits                  int // decimals of the Gibbs marginals written
	chains                  int
	strict                  bool
	seed                    uint64
	bar                     *progress.Reporter // the run's progress
	diag                    *mln.Diagnostics   // the Gibbs chains' agreement (--method gibbs)

	// Set by hinge mln infer --as-rrf: its --report, --true-only (ICM:
	// only the true query atoms, without a value) and --quiet.
	report   string
	trueOnly bool
	quiet    bool
}

// rrfReport is the --report JSON of hinge mln infer --as-rrf: what the RRF
// engine knows of its run (there is no cost or certified bound: it does
// not solve the MAX-SAT problem).
type rrfReport struct {
	Engine   string `json:"engine"` // "rrf"
	Method   string `json:"method"` // icm or gibbs
	Unknowns int    `json:"unknown_atoms"`
	// Features counts the ground features below the root (a converted
	// network: one per ground clause); Parfeatures those of a .rrf file.
	Features    int             `json:"features"`
	Parfeatures int             `json:"parfeatures,omitempty"`
	Lambda      float64         `json:"lambda,omitempty"`      // a converted network's
	HardWeight  float64         `json:"hard_weight,omitempty"` // a converted network's
	LogScore    float64         `json:"icm_log_score"`         // the ICM mode's, up to a constant
	Restarts    int             `json:"restarts"`
	TrueQuery   *int            `json:"true_query_atoms,omitempty"` // --true-only
	Accuracy    *float64        `json:"accuracy,omitempty"`
	Queries     int             `json:"queries,omitempty"`
	Samples     int             `json:"samples,omitempty"` // gibbs
	BurnIn      int             `json:"burn_in,omitempty"` // gibbs
	Mixed       *bool           `json:"mixed,omitempty"`   // gibbs
	Convergence *rrfConvergence `json:"convergence,omitempty"`
	Seconds     struct {
		Build float64 `json:"build"`
		Infer float64 `json:"infer"`
		Total float64 `json:"total"`
	} `json:"seconds"`
}

func newRRFInferCmd() *cobra.Command {
	o := &rrfInferOptions{}
	cmd := &cobra.Command{
		Use:   "infer -i MODEL.rrf|PROG.mln -e EVIDENCE.db -q PRED[,PRED] [--method icm|gibbs] | --folder DIR",
		Short: "ICM (MAP) or Gibbs marginals of a recursive random field (or a Markov logic network as one)",
		Long: `With -i MODEL.rrf, read a relational recursive random field (declarations
as in Markov logic, then one parfeature per line; go doc
github.com/hinge-srl/hinge/rrf has the grammar), ground it over the
evidence's atoms and infer.

Otherwise read a Markov logic network as hinge mln infer does, convert it to a recursive
random field (Lowd and Domingos 2007: each ground clause a feature
exp(lambda * (sum of its negated literals - k)), 1 when the clause is false and
at most exp(-lambda) otherwise, weighted by minus the clause's weight in the
root; hard clauses weigh --hard-weight) and infer with the RRF's own
algorithms: ICM with random restarts (--method icm, a mode) or Gibbs sampling
started from the ICM mode (--method gibbs, marginals). Each variable change
updates only the cached sums of its ancestor features.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.hardWeightSet = cmd.Flags().Changed("hard-weight")
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.mlnInputs.add(cmd)
	f := cmd.Flags()
	f.Lookup("input").Usage = "relational RRF (.rrf), or Markov logic program (.mln) converted to one"
	f.StringVarP(&o.result, "result", "r", "", "write the query atoms' values to this file (default: standard output)")
	f.StringVar(&o.method, "method", "gibbs", "icm (a mode) or gibbs (marginals, from the ICM mode)")
	f.Float64Var(&o.lambda, "lambda", 10, "sharpness of each clause feature (the RRF tends to the Markov logic network as it grows)")
	f.Float64Var(&o.hardWeight, "hard-weight", 20, "root weight of the hard clauses' features")
	f.IntVar(&o.samples, "samples", 1000, "Gibbs sweeps kept")
	f.IntVar(&o.digits, "digits", 4, "Gibbs marginals: decimals written per probability, 1 to 17")
	f.IntVar(&o.burnIn, "burn-in", 100, "Gibbs sweeps discarded first")
	f.IntVar(&o.starts, "restarts", 10, "ICM random restarts")
	f.IntVar(&o.chains, "chains", 4, "Gibbs chains sharing --samples, the first from the ICM mode, the second from every unknown atom false, the third from every one true, the others from random worlds; their agreement (R-hat) says whether the run has mixed")
	f.BoolVar(&o.strict, "strict", false, "fail (exit 1, nothing written) when the Gibbs chains disagree")
	f.Uint64Var(&o.seed, "seed", 1, "seed of every random choice")
	f.StringVar(&o.norm, "norm", rrf.NormSmooth.String(), normHelp)
	return cmd
}

// normHelp describes --norm.
const normHelp = "feature normalisation, which decides what the weights mean: smooth (max(w, 0) smoothed near 0), max or softplus (go doc github.com/hinge-srl/hinge/rrf)"

func (o *rrfInferOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.method != "icm" && o.method != "gibbs" {
		return badInput(fmt.Errorf("--method %q: want icm or gibbs", o.method))
	}
	if o.norm == "" { // hinge mln infer --as-rrf
		o.norm = rrf.NormSmooth.String()
	}
	norm, err := rrf.ParseNorm(o.norm)
	if err != nil {
		return badInput(fmt.Errorf("--norm: %w", err))
	}
	if o.samples <= 0 || o.burnIn < 0 || o.starts <= 0 || o.chains <= 0 {
		return badInput(errors.New("--samples, --restarts and --chains must be > 0, --burn-in >= 0"))
	}
	if err := checkDigits(o.digits); err != nil {
		return err
	}
	if err := checkConversion(o.lambda, o.hardWeight); err != nil {
		return err
	}
	if err := checkOutputs(o.mlnInputs.files(), output{flag: "--result", path: o.result}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The result or report written to standard output or error stays
	// whole, as in mln infer.
	stdout, stderr = routeMessages(ctx, stdout, stderr, o.result == "", o.result, o.report)
	o.bar = newProgress(stderr, o.quiet, "hinge rrf infer")
	defer o.bar.Done()
	o.mlnInputs.progress, o.mlnInputs.warn = o.bar, stderr
	if strings.EqualFold(filepath.Ext(o.input), ".rrf") {
		return o.runRelational(ctx, norm, stdout, stderr)
	}
	start := time.Now()
	type built struct {
		net     *mln.Network
		queries []mln.GroundAtom
	}
	b, err := whileRunning(ctx, func() (built, error) {
		net, queries, err := o.mlnInputs.network(mln.Options{})
		return built{net, queries}, err
	})
	if err != nil {
		return programKindHint(err, o.input, "Markov logic", ".rrf", "an RRF program")
	}
	net, queries := b.net, b.queries
	rules := len(net.Model.Rules)
	g, in, err := net.GroundClauses(ground.Options{MemoryLimit: memlimit.Current(), Context: ctx,
		Progress: func(rule, done, total int) { o.bar.Status("grounding: rule %d of %d", rule+1, rules) }})
	if err != nil {
		return failed(err)
	}
	if !o.hardWeightSet {
		// The features make hard clauses soft; evidence that breaks one
		// has probability 0 in the network and is refused as mln infer
		// refuses it (it was answered under exit 0).
		if err := net.CheckHard(g, in); err != nil {
			return mlnFailed(fmt.Errorf("%w\n(the RRF weighs a hard clause's feature at --hard-weight, %g by default, but refuses evidence that breaks one unless --hard-weight is given: the Markov logic network gives that evidence probability 0)", err, o.hardWeight))
		}
	}
	// One root weight per rule (a clause of a formula, with the formula's
	// share of the weight), tied across its groundings.
	weights := make([]float64, len(net.Model.Rules))
	for r, info := range net.Clauses {
		weights[r] = -info.Weight
		if info.Hard {
			weights[r] = -o.hardWeight
		}
	}
	tie := make([]int32, in.NumClauses())
	p := g.Problem
	for c := range tie {
		if c < p.NumPotentials() {
			tie[c] = p.Group[c]
		} else {
			tie[c] = p.CGroup[c-p.NumPotentials()]
		}
	}
	o.bar.Status("building the random field")
	rnet, err := rrf.FromClauses(in, o.lambda, o.hardWeight, tie, weights)
	if err != nil {
		return badInput(err)
	}
	rnet.Norm = norm
	groundSecs := time.Since(start).Seconds()
	t0 := time.Now()
	values, format, score, err := o.infer(ctx, rnet, nil)
	o.bar.Done() // cleared before the summary
	if err != nil {
		return err
	}
	inferSecs := time.Since(t0).Seconds()
	lines := queryLines(g, net, values, format)
	fmt.Fprintf(stderr, "rrf: %d unknown atoms, %d clause features (lambda %g), built in %.3f s; ICM mode log score %.6g (%d restarts; up to a constant the evidence fixes); %s in %.3f s\n",
		rnet.NumVars, len(rnet.Features)-1, o.lambda, groundSecs, score, o.starts, o.method, inferSecs)
	rep := rrfReport{Unknowns: rnet.NumVars, Features: len(rnet.Features) - 1, Lambda: o.lambda, HardWeight: o.hardWeight, LogScore: score}
	rep.Seconds.Build, rep.Seconds.Infer = groundSecs, inferSecs
	if acc, ok := queryAccuracy(queries, g, net, values); ok {
		fmt.Fprintf(stderr, "accuracy on %d query atoms with truth (values >= 0.5 count as true): %.4f\n", len(queries), acc)
		rep.Accuracy, rep.Queries = &acc, len(queries)
	}
	atom := func(v int) string { return mln.AtomString(g.Vars[v].Pred.Name, g.Args(v)) }
	if err := o.convergence(stderr, atom); err != nil {
		return err
	}
	return o.finish(ctx, stdout, lines, &rep, atom, start)
}

// rrfConvergence is the Gibbs chains' agreement in rrfReport, with the
// keys of hinge mln infer --marginal's report.
type rrfConvergence struct {
	Chains          int     `json:"chains"`
	SamplesPerChain int     `json:"samples_per_chain"`
	RHat            float64 `json:"r_hat"`
	RHatAtom        string  `json:"r_hat_atom"`
	Spread          float64 `json:"spread"`
	SpreadAtom      string  `json:"spread_atom"`
	MCSE            float64 `json:"mcse"`
	MCSEAtom        string  `json:"mcse_atom"`
	Mixed           bool    `json:"mixed"`
}

// finish writes the result lines (only the true atoms with --true-only)
// and the --report, once the run was not interrupted.
func (o *rrfInferOptions) finish(ctx context.Context, stdout io.Writer, lines []string, rep *rrfReport, atom func(int) string, start time.Time) error {
	if err := interrupted(ctx); err != nil {
		return err
	}
	if o.trueOnly {
		lines = trueAtoms(lines)
		n := len(lines)
		rep.TrueQuery = &n
	}
	if err := writeResult(o.result, stdout, lines); err != nil {
		return err
	}
	if o.report == "" {
		return nil
	}
	rep.Engine, rep.Method, rep.Restarts = "rrf", o.method, o.starts
	if d := o.diag; d != nil {
		name := func(v int) string {
			if v < 0 {
				return "-"
			}
			return atom(v)
		}
		rep.Samples, rep.BurnIn, rep.Mixed = o.samples, o.burnIn, &d.Mixed
		rep.Convergence = &rrfConvergence{d.Chains, d.SamplesPerChain, d.RHat, name(d.RHatAtom), d.Spread, name(d.SpreadAtom), d.MCSE, name(d.MCSEAtom), d.Mixed}
	}
	rep.Seconds.Total = time.Since(start).Seconds()
	return failedIf(writeJSON(o.report, rep))
}

// infer finds a mode by ICM (random restarts) and, with --method gibbs,
// marginals by Gibbs sampling started from it: the values to print, their
// format and the mode's log score.
func (o *rrfInferOptions) infer(ctx context.Context, net *rrf.Net, ev *rrf.Evidence) ([]float64, string, float64, error) {
	mode, score, err := rrf.ICM(ctx, net, ev, rrf.ICMOptions{Restarts: o.starts, Seed: o.seed,
		Progress: func(restart, sweeps int) {
			o.bar.Status("ICM: restart %d of %d, sweep %d", restart+1, o.starts, sweeps)
		}})
	if re := (*rrf.RangeError)(nil); errors.As(err, &re) {
		return nil, "", 0, badInput(err) // the weights, before any inference
	}
	if err != nil {
		return nil, "", 0, failed(err)
	}
	if o.method == "gibbs" {
		res, err := rrf.GibbsChains(ctx, net, ev, mode, o.chains, rrf.GibbsOptions{Samples: o.samples, BurnIn: o.burnIn, Seed: o.seed,
			Progress: func(done, total int) { o.bar.Status("Gibbs: sweep %d of %d", done, total) }})
		if err != nil {
			return nil, "", 0, failed(err)
		}
		o.diag = &res.Diagnostics
		return res.Probs, probFormat(o.digits), score, nil
	}
	values := make([]float64, len(mode))
	for v, b := range mode {
		if b {
			values[v] = 1
		}
	}
	return values, "%s %g", score, nil
}

// runRelational reads a relational RRF file (declarations and
// parfeatures), grounds it over the evidence's atoms and infers.
func (o *rrfInferOptions) runRelational(ctx context.Context, norm rrf.Norm, stdout, stderr io.Writer) error {
	start := time.Now()
	text, err := o.mlnInputs.text.read(o.input)
	if err != nil {
		return badInput(err)
	}
	prog, err := rrf.ParseProgram(o.input, text)
	if err != nil {
		return badInput(err)
	}
	prog.Norm = norm
	evidence, err := whileRunning(ctx, func() ([]mln.GroundAtom, error) { return readDBs(o.evidence, prog.Decls, o.bar) })
	if err != nil {
		return err
	}
	words := queryWords(o.query)
	opt := mln.Options{Query: queryNames(words), Open: trimmed(o.open)}
	if opt.QueryAtoms, err = o.queryAtoms(prog.Decls, words); err != nil {
		return err
	}
	type grounded struct {
		net *mln.Network
		gr  *rrf.Grounded
	}
	g, err := whileRunning(ctx, func() (grounded, error) {
		o.bar.Status("grounding the parfeatures")
		net, err := mln.Build(prog.Decls, evidence, opt)
		if err != nil {
			return grounded{}, badInput(err)
		}
		gr, err := prog.GroundWith(net, rrf.GroundOptions{MemoryLimit: memlimit.Current(), Context: ctx})
		if err != nil {
			return grounded{}, rrfGroundError(err)
		}
		return grounded{net, gr}, nil
	})
	if err != nil {
		return err
	}
	net, gr := g.net, g.gr
	built := time.Since(start).Seconds()
	t0 := time.Now()
	values, format, score, err := o.infer(ctx, gr.Net, gr.Evidence)
	o.bar.Done() // cleared before the summary
	if err != nil {
		return err
	}
	var lines []string
	for v, a := range gr.Atoms {
		if gr.Target[v] && net.Reported(net.Model.Predicate(a.Pred), a.Args) {
			lines = append(lines, fmt.Sprintf(format, mln.AtomString(a.Pred, a.Args), values[v]))
		}
	}
	sort.Strings(lines)
	inferSecs := time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "rrf: %d parfeatures grounded to %d features over %d atoms in %.3f s; ICM mode log score %.6g (%d restarts; up to a constant the evidence fixes); %s in %.3f s\n",
		len(prog.Features), len(gr.Net.Features), gr.Net.NumVars, built, score, o.starts, o.method, inferSecs)
	rep := rrfReport{Unknowns: gr.Net.NumVars, Features: len(gr.Net.Features), Parfeatures: len(prog.Features), LogScore: score}
	rep.Seconds.Build, rep.Seconds.Infer = built, inferSecs
	atom := func(v int) string { return mln.AtomString(gr.Atoms[v].Pred, gr.Atoms[v].Args) }
	if err := o.convergence(stderr, atom); err != nil {
		return err
	}
	return o.finish(ctx, stdout, lines, &rep, atom, start)
}

// convergence prints whether the Gibbs chains agree (R-hat and the largest
// spread between them, as hinge mln infer --marginal does), warns when they
// do not, and with --strict makes that an error (nothing written). atom
// names a variable.
func (o *rrfInferOptions) convergence(stderr io.Writer, atom func(int) string) error {
	d := o.diag
	if d == nil {
		return nil
	}
	name := func(v int) string {
		if v < 0 {
			return "-"
		}
		return atom(v)
	}
	fmt.Fprintf(stderr, "convergence: %d chains x %d samples; %s\n", d.Chains, d.SamplesPerChain, convergenceText(*d, name))
	if d.Mixed {
		return nil
	}
	why := "the Gibbs chains have not mixed (" + notMixedWhy(*d, name) + ")"
	if o.strict {
		return notTrusted(why)
	}
	fmt.Fprintf(stderr, "warning: %s: the marginals are not yet to be trusted; take more samples (--samples, --burn-in)\n", why)
	return nil
}

// checkConversion refuses a --lambda or --hard-weight that converts no
// Markov logic network: lambda must be a positive finite number, the hard
// weight a positive finite one (a negative one rewarded breaking the hard
// clauses, NaN was refused later without naming the flag).
func checkConversion(lambda, hardWeight float64) error {
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return badInput(fmt.Errorf("--lambda %v must be a finite number > 0", lambda))
	}
	if !(hardWeight > 0) || math.IsInf(hardWeight, 1) {
		return badInput(fmt.Errorf("--hard-weight %v must be a finite number > 0 (the root weight that makes a hard clause's feature near-deterministic)", hardWeight))
	}
	return nil
}

// rrfGroundError types an error of the RRF grounder: a
// grounding past the memory limit or the feature bound, or cancelled, fails
// the run (exit status 1); anything else is bad input.
func rrfGroundError(err error) error {
	if isCancel(err) {
		return failed(err)
	}
	if le := (*rrf.LimitError)(nil); errors.As(err, &le) {
		if le.Limit > 0 {
			return failed(fmt.Errorf("%w (%s)", err, memoryLimitFrom))
		}
		return failed(err)
	}
	return badInput(err)
}

func failedIf(err error) error {
	if err != nil {
		return failed(err)
	}
	return nil
}

type rrfLearnOptions struct {
	input, output, method string
	norm                  string
	separate              bool
	training              []string
	query                 []string
	l2, revise            float64
	lambda, hardWeight    float64
	maxIter               int
	chains, sweeps        int
	seed                  uint64
	force                 bool
	text                  programText // the model's, read once
}

func newRRFLearnCmd() *cobra.Command {
	o := &rrfLearnOptions{}
	cmd := &cobra.Command{
		Use:   "learn -i MODEL.rrf|KB.mln -t TRAIN.db -q PRED[,PRED] [--method pll|ll] [--revise EPS] [-o LEARNED.rrf]",
		Short: "Learn a recursive random field's weights by back-propagated pseudo-likelihood or likelihood",
		Long: `Learn the weights of a relational RRF (a .rrf file) from a training world
(Lowd and Domingos 2007: back-propagation through the feature DAG). A Markov
logic knowledge base (a .mln file of quantifier-free formulas) is converted
first, each clause a parfeature lambda * (its negated literals), 1 when the
clause is false, weighted by minus the clause's weight in the root (--lambda,
--hard-weight for hard formulas). The training database lists the true atoms;
an atom of a query predicate that it does not list is false, every other atom
is evidence. Several databases (-t a.db,b.db) are one world, or with
--separate-dbs a world each, with its own constants, grounded on its own, the
weights tied across them (the objective sums over them).

--method pll (the default) maximises the pseudo-log-likelihood of the query
predicates' atoms (toggle each atom) by L-BFGS. --method ll maximises their
log-likelihood given the evidence: the gradient is the back-propagated
gradient at the training world minus its expectation under the model, the
expectation from --chains persistent Gibbs chains that run --sweeps sweeps
per step (seeded by --seed); --max-iter steps, each scaled by the sampled
Fisher information, the weights averaged over the second half of them.

--l2 pulls the weights towards the file's (a knowledge base's weights stay
unless the data move them). --revise EPS first adds to every parfeature but
the root each atom over its parameters that it does not use, with weight EPS
(the paper's theory revision: learning grows the dependencies the data call
for; the distribution moves by O(EPS) before learning). The model is written
back with the learned weights (-o, default MODEL-learned.rrf; an existing
file only with --force).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.input, "input", "i", "", "relational RRF (.rrf) or Markov logic knowledge base (.mln)")
	f.StringSliceVarP(&o.training, "train", "t", nil, "training database(s) (.db)")
	f.StringSliceVarP(&o.query, "query", "q", nil, "query predicate(s)")
	f.StringVarP(&o.output, "output", "o", "", "learned model (default: MODEL-learned.rrf)")
	f.StringVar(&o.method, "method", "pll", "pll (pseudo-likelihood, L-BFGS) or ll (likelihood, sampled gradient)")
	f.Float64Var(&o.l2, "l2", 0.01, "weight of the pull towards the file's weights, l2/2 * |w - w0|^2")
	f.Float64Var(&o.lambda, "lambda", 10, "sharpness of a converted clause's feature (.mln input)")
	f.Float64Var(&o.hardWeight, "hard-weight", 20, "root weight of a converted hard clause (.mln input)")
	f.Float64Var(&o.revise, "revise", 0, "add the atoms each parfeature does not use with this small weight before learning (0: off)")
	f.IntVar(&o.maxIter, "max-iter", 0, "L-BFGS iterations (pll, default 500) or steps (ll, default 100)")
	f.IntVar(&o.chains, "chains", 8, "persistent Gibbs chains (ll)")
	f.IntVar(&o.sweeps, "sweeps", 5, "Gibbs sweeps per chain and step (ll)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the chains (ll)")
	f.BoolVar(&o.force, "force", false, "overwrite the output file if it exists")
	f.StringVar(&o.norm, "norm", rrf.NormSmooth.String(), normHelp)
	f.BoolVar(&o.separate, "separate-dbs", false, "each training database is a world of its own (its own constants), the weights tied across them")
	return cmd
}

func (o *rrfLearnOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.input == "" || len(o.training) == 0 || len(o.query) == 0 {
		return badInput(errors.New("give the model (-i), the training database (-t) and the query predicates (-q)"))
	}
	if o.method != "pll" && o.method != "ll" {
		return badInput(fmt.Errorf("--method %q: want pll or ll", o.method))
	}
	if !(o.l2 >= 0) || math.IsInf(o.l2, 1) || o.maxIter < 0 || o.chains <= 0 || o.sweeps <= 0 {
		return badInput(fmt.Errorf("--l2 %v must be a finite number >= 0, --max-iter %d >= 0, --chains %d and --sweeps %d > 0", o.l2, o.maxIter, o.chains, o.sweeps))
	}
	if err := checkConversion(o.lambda, o.hardWeight); err != nil {
		return err
	}
	inputs := append(o.text.includes(o.input), o.training...)
	out, err := learnedOutput(o.output, o.input, ".rrf", "-o", o.force, inputs...)
	if err != nil {
		return err
	}
	if err := checkOutputs(append([]string{o.input}, inputs...), output{flag: "--output", path: out}); err != nil {
		return err
	}
	// rrf learn says everything on standard error: with the model written
	// there, on standard output (rrf learn prints nothing else there).
	_, stderr = routeMessages(ctx, stdout, stderr, false, out)
	norm, err := rrf.ParseNorm(o.norm)
	if err != nil {
		return badInput(fmt.Errorf("--norm: %w", err))
	}
	prog, text, err := o.program()
	if err != nil {
		return programKindHint(badInput(err), o.input, "an RRF", ".mln", "a Markov logic program")
	}
	prog.Norm = norm
	if o.revise != 0 {
		n, err := prog.Revise(o.revise)
		if err != nil {
			return badInput(fmt.Errorf("--revise: %w", err))
		}
		fmt.Fprintf(stderr, "rrf learn: --revise added %d dependencies of weight %g\n", n, o.revise)
	}
	worlds, err := whileRunning(ctx, func() ([][]mln.GroundAtom, error) {
		if !o.separate {
			w, err := readDBs(o.training, prog.Decls, nil)
			return [][]mln.GroundAtom{w}, err
		}
		var ws [][]mln.GroundAtom
		for _, db := range o.training {
			w, err := readDBs([]string{db}, prog.Decls, nil)
			if err != nil {
				return nil, err
			}
			ws = append(ws, w)
		}
		return ws, nil
	})
	if err != nil {
		return err
	}
	if strings.EqualFold(filepath.Ext(o.input), ".mln") {
		// The features make the hard formulas soft: a training world
		// that breaks one is learned from without complaint, where the
		// knowledge base gives it probability 0 (mln learn warns).
		for i, w := range worlds {
			n, err := mln.HardViolated(ctx, prog.Decls, w, o.query, ground.Options{MemoryLimit: memlimit.Current(), Context: ctx})
			if err != nil {
				return mlnFailed(err)
			}
			if n > 0 {
				which := "the training world"
				if o.separate {
					which = "training world " + o.training[i]
				}
				fmt.Fprintf(stderr, "warning: %s violates %d ground hard clause(s) of %s, so the knowledge base gives it probability 0: their features are learned like the others, from --hard-weight %g; fix the data or make those formulas soft\n",
					which, n, o.input, o.hardWeight)
			}
		}
	}
	start := time.Now()
	res, err := prog.LearnRelationalWorlds(ctx, worlds, o.query, rrf.LearnOptions{Method: o.method, L2: o.l2, MaxIter: o.maxIter,
		Chains: o.chains, Sweeps: o.sweeps, Seed: o.seed, Ground: rrf.GroundOptions{MemoryLimit: memlimit.Current()}})
	if err != nil {
		return rrfGroundError(err)
	}
	if err := writeLearned(out, o.force, func(w io.Writer) error { _, err := w.Write(text()); return err }); err != nil {
		return failed(err)
	}
	measure := "pseudo-log-likelihood"
	if o.method == "ll" {
		// The likelihood itself needs the partition function; its
		// gradient is sampled, and the pseudo-log-likelihood is the
		// figure both methods can be compared on.
		measure = "pseudo-log-likelihood (the likelihood is not computed exactly)"
	}
	fmt.Fprintf(stderr, "rrf learn (%s): %s %.6g after %d iterations (%s, gradient norm %.3g) in %.3f s\n",
		o.method, measure, res.PLL, res.Iterations, res.Status, res.GradNorm, time.Since(start).Seconds())
	for _, f := range prog.Features {
		fmt.Fprintln(stderr, "  "+prog.String(f))
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	return nil
}

// programKindHint adds to err, an error about the program input of hinge
// rrf infer or learn, which tell an RRF from Markov logic by the name's
// extension, that a name with neither .rrf nor .mln (a pipe: /dev/fd/63,
// /dev/stdin) is read as readAs, and that the other kind (other) is given
// in a file named *ext. Other errors are returned as they are.
func programKindHint(err error, input, readAs, ext, other string) error {
	e := filepath.Ext(input)
	if input == "" || strings.EqualFold(e, ".rrf") || strings.EqualFold(e, ".mln") ||
		!strings.HasPrefix(err.Error(), input+":") || exitCode(err) != 2 {
		return err
	}
	why := "its name ends in neither .rrf nor .mln"
	if fi, serr := os.Stat(input); serr == nil && !fi.Mode().IsRegular() {
		why = "a pipe has no name to tell the kind by"
	}
	return &exitError{2, fmt.Errorf("%w (%s was read as %s, since %s: give %s as a file whose name ends in %s)", err, clipPath(input), readAs, why, other, ext)}
}

// program reads the model to learn: a .rrf file, or a .mln knowledge base
// converted by rrf.FromMLN; and what writes it back with its weights (the
// .rrf file's own text, or the whole converted program).
func (o *rrfLearnOptions) program() (*rrf.Program, func() []byte, error) {
	if strings.EqualFold(filepath.Ext(o.input), ".mln") {
		text, err := o.text.read(o.input)
		if err != nil {
			return nil, nil, err
		}
		kb, err := mln.ParseProgram(o.input, text)
		if err != nil {
			return nil, nil, err
		}
		if len(kb.Formulas) == 0 {
			return nil, nil, errors.New(noFormulas(o.input, len(kb.Preds)))
		}
		prog, err := rrf.FromMLN(kb, o.lambda, o.hardWeight)
		if err != nil {
			return nil, nil, err
		}
		return prog, prog.Text, nil
	}
	src, err := o.text.read(o.input)
	if err != nil {
		return nil, nil, err
	}
	prog, err := rrf.ParseProgram(o.input, src)
	if err != nil {
		return nil, nil, err
	}
	return prog, func() []byte { return prog.WithWeights(src) }, nil
}
