package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

func newMLNCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mln",
		Short: "Markov logic networks in Alchemy/Tuffy format: MAP and marginal inference, weight learning",
		Long: `Markov logic networks read from Alchemy and Tuffy files (.mln programs, .db
evidence) or ExpressGNN folders, grounded by hinge's grounder and solved as
weighted MAX-SAT with a certified bound.`,
		Args: rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	infer, learn := newMLNInferCmd(), newMLNLearnCmd()
	addAlchemyHelp(infer, inferArgs)
	addAlchemyHelp(learn, learnwtsArgs)
	cmd.AddCommand(infer, learn)
	return cmd
}

// mlnInputs are the flags that name a Markov logic network and its
// evidence, shared by hinge mln infer and hinge rrf infer.
type mlnInputs struct {
	input, queryFile, folder string
	evidence, query, open    []string
	// progress, when set, shows the reading of the evidence and the
	// building of the network.
	progress *progress.Reporter
	// warn, when set, takes the warnings about the query atoms.
	warn io.Writer
	// text is the program's, read once.
	text programText
	// rounded says that some formula weights have more significant
	// digits than a float64 holds (mln.Program.RoundedWeights): an
	// optimum proven is one for the weights as read. roundedWarned: the
	// warnings about them were written (network may be called again).
	rounded, roundedWarned bool
	// queryOrder names the query predicates in the order the query gave
	// them (-q's words, then the query file's or the folder's atoms), set
	// by network; the --html report lists them in this order.
	queryOrder []string
}

// programText reads a program (-i) once, for its #include lines and for
// its parse: a pipe (/dev/stdin, a process substitution) gives its text to
// one read only, and the #include scan came first, leaving the parse an
// empty program.
type programText struct {
	path string
	text []byte
	err  error
	done bool
}

// read returns the text of the program at path, read at the first call.
func (c *programText) read(path string) ([]byte, error) {
	if !c.done || c.path != path {
		c.path, c.done = path, true
		c.text, c.err = textfile.ReadFile(path)
	}
	return c.text, c.err
}

// includes lists the files the program at path includes
// (mln.IncludedFilesIn); none when it cannot be read (the parse says why).
func (c *programText) includes(path string) []string {
	text, err := c.read(path)
	if err != nil {
		return nil
	}
	return mln.IncludedFilesIn(path, text)
}

// newProgress makes a command's progress reporter (progress.New; tests
// replace it to see every line).
var newProgress = progress.New

func (in *mlnInputs) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&in.input, "input", "i", "", "Markov logic program (.mln)")
	f.StringSliceVarP(&in.evidence, "evidence", "e", nil, "evidence file(s) (.db; repeatable or comma-separated)")
	f.StringArrayVarP(&in.query, "query", "q", nil, "query predicate(s) or atom(s) (repeatable or comma-separated; Cancer(Bob) asks for that atom only, Cancer or Cancer(x) for every one)")
	f.StringVar(&in.queryFile, "query-file", "", "query atoms, one per line (Tuffy's -queryFile); a variable stands for every constant; only the atoms asked for are listed")
	f.StringSliceVarP(&in.open, "open", "o", nil, "predicates that are open besides the queries (Alchemy's -ow; ignored when the program marks closed ones with '*')")
	f.StringVar(&in.folder, "folder", "", "an ExpressGNN folder (predicates, rules, facts, queries) instead of -i/-e/-q")
}

// files lists the input files the flags name.
func (in *mlnInputs) files() []string {
	files := append([]string{in.input, in.queryFile}, in.evidence...)
	if in.input != "" {
		files = append(files, in.text.includes(in.input)...)
	}
	if in.folder != "" {
		for _, f := range []string{"predicates", "rules", "facts", "queries"} {
			files = append(files, filepath.Join(in.folder, f))
		}
	}
	return files
}

// network reads the program and evidence and binds them (opt's query and
// open lists are filled from the flags); with --folder it also returns the
// query atoms with their truth. Every failure is bad input.
func (in *mlnInputs) network(opt mln.Options) (*mln.Network, []mln.GroundAtom, error) {
	var prog *mln.Program
	var evidence, queries []mln.GroundAtom
	words := queryWords(in.query)
	opt.Query, opt.Open = queryNames(words), trimmed(in.open)
	switch {
	case in.folder != "" && (in.input != "" || len(in.evidence) > 0):
		return nil, nil, badInput(errors.New("give either --folder or -i/-e, not both"))
	case in.folder != "" && len(opt.Query) < len(words):
		return nil, nil, badInput(errors.New("-q with atoms: a --folder's queries file names the query atoms; give predicates only"))
	case in.folder != "":
		fo, err := mln.ReadFolder(in.folder)
		if err != nil {
			return nil, nil, badInput(err)
		}
		prog, evidence, queries = fo.Program, fo.Evidence, fo.Queries
		for _, q := range queries {
			opt.Query = append(opt.Query, q.Pred)
		}
	case in.input == "":
		return nil, nil, badInput(errors.New("give the program with -i PROG.mln (and evidence with -e), or --folder DIR"))
	default:
		text, err := in.text.read(in.input)
		if err != nil {
			return nil, nil, badInput(err)
		}
		if prog, err = mln.ParseProgram(in.input, text); err != nil {
			return nil, nil, badInput(err)
		}
		if err := checkProgram(in.input, prog); err != nil {
			return nil, nil, err
		}
		if evidence, err = readDBs(in.evidence, prog, in.progress); err != nil {
			return nil, nil, err
		}
		if opt.QueryAtoms, err = in.queryAtoms(prog, words); err != nil {
			return nil, nil, err
		}
		if in.warn != nil {
			for _, n := range mln.QueryNotes(prog, evidence, opt.QueryAtoms) {
				fmt.Fprintln(in.warn, "warning:", n)
			}
		}
	}
	in.queryOrder = in.queryOrder[:0]
	addQuery := func(name string) {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(in.queryOrder, name) {
			in.queryOrder = append(in.queryOrder, name)
		}
	}
	for _, w := range words {
		name, _, _ := strings.Cut(w, "(")
		addQuery(name)
	}
	for _, atoms := range [][]mln.GroundAtom{opt.QueryAtoms, queries} {
		for _, a := range atoms {
			addQuery(a.Pred)
		}
	}
	in.rounded = len(prog.RoundedWeights) > 0
	if in.warn != nil && !in.roundedWarned {
		for _, w := range prog.RoundedWeights {
			fmt.Fprintln(in.warn, "warning:", w)
		}
		in.roundedWarned = true
	}
	in.progress.Status("building the network")
	net, err := mln.Build(prog, evidence, opt)
	if err != nil {
		for _, o := range opt.Open {
			if prog.Pred(o) == nil {
				// Tuffy's -o is its output file; here it is Alchemy's.
				err = fmt.Errorf("%w; -o (--open) names open-world predicates, as in Alchemy's first infer: the result file is -r, which is Tuffy's -o", err)
				break
			}
		}
		return nil, nil, badInput(err)
	}
	if in.warn != nil && in.folder == "" {
		for _, n := range net.HiddenNotes() {
			fmt.Fprintln(in.warn, "warning:", n)
		}
	}
	return net, queries, nil
}

// mlnFailed types an error of Markov logic inference: hard clauses that
// the evidence contradicts (mln.InfeasibleError, proven by unit propagation
// before any search, whatever the method) are bad input, exit status 2, as
// the evidence and the program disagree; a cancelled run or anything else
// fails it (exit status 1).
func mlnFailed(err error) error {
	var ie *mln.InfeasibleError
	if errors.As(err, &ie) && !isCancel(err) {
		return badInput(err)
	}
	return failed(err)
}

// queryAtoms reads the query atoms: those of --query-file and those given
// to -q among words (Cancer(Bob), Knows(Anna, y)), which ask for those
// atoms only.
func (in *mlnInputs) queryAtoms(prog *mln.Program, words []string) ([]mln.GroundAtom, error) {
	var atoms []mln.GroundAtom
	if in.queryFile != "" {
		qs, err := mln.ReadAtoms(in.queryFile, prog, true)
		if err != nil {
			return nil, badInput(err)
		}
		atoms = qs
	}
	for _, w := range words {
		if strings.Contains(w, "(") {
			qs, err := mln.ParseAtoms("-q", []byte(w), prog, true)
			if err != nil {
				return nil, badInput(err)
			}
			atoms = append(atoms, qs...)
		}
	}
	return atoms, nil
}

// queryNames are the predicate names among -q's words.
func queryNames(words []string) []string {
	var names []string
	for _, w := range words {
		if !strings.Contains(w, "(") {
			names = append(names, w)
		}
	}
	return names
}

// queryWords splits -q's values into predicate names and atoms: at the
// commas outside an atom's parentheses and outside quotes
// (-q "Smokes, Friends(Anna, Bob)", -q 'Cancer("Bob, Jr")'), blanks around
// each trimmed.
func queryWords(vals []string) []string {
	var out []string
	for _, v := range vals {
		depth, quote, start := 0, byte(0), 0
		for i := 0; i <= len(v); i++ {
			if i < len(v) {
				c := v[i]
				switch {
				case quote != 0:
					if c == '\\' {
						i++
					} else if c == quote {
						quote = 0
					}
					continue
				case c == '"' || c == '\'':
					quote = c
					continue
				case c == '(':
					depth++
					continue
				case c == ')':
					depth--
					continue
				case c != ',' || depth > 0:
					continue
				}
			}
			if w := strings.TrimSpace(v[start:min(i, len(v))]); w != "" {
				out = append(out, w)
			}
			start = i + 1
		}
	}
	return out
}

// trimmed returns the names of a comma-separated list flag without the
// blanks around them (-q "Smokes, Cancer"), leaving out empty ones.
func trimmed(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// readDBs reads the atoms of every .db file in paths for prog, showing
// how far it got on rep (the file's statements parsed); a bad file is bad
// input.
func readDBs(paths []string, prog *mln.Program, rep *progress.Reporter) ([]mln.GroundAtom, error) {
	var atoms []mln.GroundAtom
	defer rep.Done()
	for _, p := range paths {
		stage := "reading " + filepath.Base(p)
		a, err := mln.ReadAtomsProgress(p, prog, false, func(done, total int) {
			if done == 0 && total > 0 {
				rep.Stage(stage, total)
			}
			rep.Set(done)
		})
		if err != nil {
			return nil, badInput(err)
		}
		atoms = append(atoms, a...)
	}
	return atoms, nil
}

// queryLines formats every unknown atom of the query predicates, sorted:
// format takes the atom and its value.
func queryLines(g *ground.Result, net *mln.Network, values []float64, format string) []string {
	var lines []string
	for v, ref := range g.Vars {
		if net.Reported(ref.Pred, g.Args(v)) {
			lines = append(lines, fmt.Sprintf(format, mln.AtomString(ref.Pred.Name, g.Args(v)), values[v]))
		}
	}
	sort.Strings(lines)
	return lines
}

// queryAccuracy is the fraction of the query atoms (with their truth) whose
// 0/1 value in values matches; ok is false when there are none.
func queryAccuracy(queries []mln.GroundAtom, g *ground.Result, net *mln.Network, values []float64) (acc float64, ok bool) {
	if len(queries) == 0 {
		return 0, false
	}
	value := map[string]float64{}
	for v, ref := range g.Vars {
		if net.Reported(ref.Pred, g.Args(v)) {
			value[mln.AtomString(ref.Pred.Name, g.Args(v))] = values[v]
		}
	}
	right := 0
	for _, q := range queries {
		args := make([]string, len(q.Args))
		for i, t := range q.Args {
			args[i] = t.Name
		}
		if v, ok := value[mln.AtomString(q.Pred, args)]; ok && (v >= 0.5) == (q.Value >= 0.5) {
			right++
		}
	}
	return float64(right) / float64(len(queries)), true
}

type mlnInferOptions struct {
	mlnInputs
	result, report, method string
	flips, samples, burnIn int
	// changed reports whether a flag was given (the command's flags).
	changed           func(name string) bool
	digits            int // decimals of the marginals written
	chains            int
	hardWeight        float64
	marginal, mapFlag bool
	trueOnly          bool
	lazy              bool
	noise             float64
	asRRF             bool
	lifted            bool
	seed              uint64
	quiet             bool
	bar               *progress.Reporter // the run's progress (hinge mln infer)
	admm              admm.Options
	explain           explainFlags
	timeLimit         time.Duration // --method exact (MAP)

	// marginalMethod is auto or exact when --marginal takes exact
	// inference (MC-SAT samples what it leaves: method is mcsat then);
	// strict makes marginals that cannot be trusted an error.
	marginalMethod string
	strict         bool
	lazyAsked      bool // --lazy given, not chosen for want of memory
}

// mlnReport is the --report JSON of hinge mln infer.
type mlnReport struct {
	Formulas      int     `json:"formulas"`
	Clauses       int     `json:"clauses"`
	GroundClauses int     `json:"ground_clauses"`
	HardClauses   int     `json:"ground_hard_clauses"`
	Unknowns      int     `json:"unknown_atoms"`
	Method        string  `json:"method"`
	Cost          float64 `json:"cost"`
	LowerBound    float64 `json:"cost_lower_bound"`
	// Alchemy's convention (mln.AlchemyView): merged ground clauses, and
	// the same world's cost and bound without the constant min(P, N) of
	// opposite soft unit clauses.
	AlchemyClauses    int              `json:"alchemy_ground_clauses"`
	AlchemyCost       float64          `json:"alchemy_cost"`
	AlchemyLowerBound float64          `json:"alchemy_cost_lower_bound"`
	HardViolated      int              `json:"hard_violated"`
	Optimal           bool             `json:"optimal"`
	Accuracy          *float64         `json:"accuracy,omitempty"`
	Queries           int              `json:"queries,omitempty"`
	MaxSAT            maxsat.Report    `json:"maxsat"`
	Exact             *exactMAPSummary `json:"exact,omitempty"` // --method exact
	Seconds           struct {
		Load   float64 `json:"load"`
		Ground float64 `json:"ground"`
		Solve  float64 `json:"solve"`
		Total  float64 `json:"total"`
	} `json:"seconds"`
}

func newMLNInferCmd() *cobra.Command {
	o := &mlnInferOptions{admm: maxsat.DefaultOptions().ADMM}
	cmd := &cobra.Command{
		Use:   "infer -i PROG.mln -e EVIDENCE.db -q PRED[,PRED] [-r OUT] | --folder DIR",
		Short: "MAP inference: the most probable world of a Markov logic network",
		Long: `Read a Markov logic network (Alchemy/Tuffy .mln with .db evidence, or an
ExpressGNN folder with predicates, rules, facts and queries), ground it with
hinge's grounder and find its most probable world as weighted MAX-SAT.

Methods (--method):
  lp-round    the LP relaxation by ADMM, rounded by derandomised
              Goemans-Williamson rounding (at least 3/4 of the optimum)
  lp-walksat  lp-round followed by MaxWalkSAT (--flips) from the rounded world
  maxwalksat  MaxWalkSAT alone from a random world (Alchemy's and Tuffy's MAP)
  exact       core-guided exact MAX-SAT (OLL on a CDCL SAT solver), with a
              large neighbourhood search on a second core improving the
              world: it is proven optimal, or at --time-limit the best world
              found is given with a certified lower bound and the gap
Every method also reports a certified lower bound on the cost (the weight of
violated ground clauses) of any world that satisfies the hard clauses.
--lifted solves the LP relaxation lifted by color refinement (Srinivasan et
al., "Lifted Hinge-Loss Markov Random Fields"): same optimum and certified
bound from a smaller problem when atoms are interchangeable, and rounding of
one atom per class of symmetric atoms where that keeps the 3/4 guarantee.

--marginal writes every query atom's probability ('Pred(A, B) 0.2732'),
exact wherever that is affordable (--method auto, the default): the ground
network, identical clauses merged and the atoms the hard clauses force
fixed, splits into connected components, each solved by a junction tree
when its cliques have at most 20 atoms, by enumerating its worlds (up to
about 24 atoms), by counting when its atoms are exchangeable, or by
weighted model counting when its search fits a budget (under a second),
and only the others are sampled by MC-SAT; stderr and the report say
which. --method exact refuses a component too large (exit 1),
with its cost; --method mcsat or gibbs samples the whole network. The
chains start apart; when they disagree stderr warns, the report has
"mixed": false, and --strict makes it an error (exit 1, nothing written).

--lazy grounds lazily (LazySAT, Singla and Domingos, "Memory-Efficient
Inference in Relational Domains", AAAI 2006): every unknown atom starts
false and a ground clause is built only once every atom it negates is true,
so memory grows with the clauses that can be violated, not with the
groundings. MAP is then cutting-plane inference (Riedel, "Improving the
Accuracy and Efficiency of MAP Inference for Markov Logic", UAI 2008): the
LP relaxation of the clauses built so far is solved and rounded (lp-round,
the default), the clauses the rounded world can make cost are built, and
when none of them costs, the world's cost holds for the whole network and
so does the relaxation's certified lower bound; --method exact then solves
the rounds exactly and proves the optimum when they end (--time-limit
stops either with the best world and the bound). --method maxwalksat
searches by lazy MaxWalkSAT (--flips, --seed, no bound), building clauses
as it makes atoms true. With --marginal, lazy MC-SAT (Poon, Domingos and
Sumner, "A General Method for Reducing the Complexity of Relational
Inference and its Application to MCMC", AAAI 2008) samples over the same
lazily built clauses. With at most 100,000 unknown atoms every atom is
active from the start, so it samples what MC-SAT samples and lists every
query atom; otherwise (and when lazy grounding was chosen for want of
memory) an atom that no built clause reaches is never moved: the marginals
are those of the network conditioned on such atoms being false (the result
lists the activated query atoms, stderr says how many atoms were held
false, and the run counts as not mixed). MAP, and marginals by MC-SAT,
ground lazily by themselves when the unknown atoms or the full grounding
would not fit in --memory-limit.

The result (-r FILE, else standard output) lists every unknown atom of the
query predicates, 'Pred(A, B) 1' or 'Pred(A, B) 0'; after lazy grounding,
only the true ones ('Pred(A, B) 1'): every other atom is false. With --folder the query
atoms come with their truth and the accuracy of the MAP world on them is
printed. Predicates marked '*' are closed-world (Tuffy); with no '*' in the
program the query predicates and --open ones are open and all others closed
(Alchemy 1; Alchemy 2 opens a predicate without evidence atoms, and hinge
warns, naming such predicates). -o means --open, as the open-world option of Alchemy's first
infer did (Alchemy 2 calls it -ow, accepted too); the result file is -r, as
in Alchemy.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.mlnInputs.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.result, "result", "r", "", "write the query atoms' values to this file (default: standard output)")
	f.StringVar(&o.method, "method", "", "MAP: lp-round (default), lp-walksat, maxwalksat or exact (proven optimal, or the best world and the gap at --time-limit); marginals: auto (default: exact where affordable, MC-SAT for the rest), exact (exact or refused with the cost), mcsat or gibbs (sampling alone)")
	f.DurationVar(&o.timeLimit, "time-limit", 0, "MAP --method exact, or --lazy's cutting planes: stop after this long (e.g. 10m) with the best world, the certified bound and the gap; 0: until proven optimal (--lazy: until the rounds end)")
	f.BoolVar(&o.marginal, "marginal", false, "every query atom's probability (exact where affordable, else sampled) instead of the MAP world")
	f.BoolVar(&o.strict, "strict", false, "marginals: fail (exit 1, nothing written) when the sampled marginals cannot be trusted (chains that disagree, atoms lazy MC-SAT never activated)")
	f.BoolVar(&o.mapFlag, "map", false, "the most probable world (the default)")
	f.BoolVar(&o.trueOnly, "true-only", false, "MAP: write only the query atoms that are true, one per line without a value (Alchemy's -m)")
	f.BoolVar(&o.lazy, "lazy", false, "ground lazily (LazySAT): MAP by cutting planes (lp-round, exact) or MaxWalkSAT, --marginal by lazy MC-SAT; chosen by itself when the full grounding would not fit in --memory-limit")
	sd := mln.DefaultSampleOptions()
	f.IntVar(&o.samples, "samples", sd.Samples, "marginals: samples kept, over all chains together")
	f.IntVar(&o.digits, "digits", 4, "marginals: decimals written per probability, 1 to 17 (4 as Alchemy writes them)")
	f.IntVar(&o.burnIn, "burn-in", sd.BurnIn, "marginals: steps each chain discards first")
	f.IntVar(&o.chains, "chains", sd.Chains, "marginals: independent chains, started apart (MaxWalkSAT's world, every atom false, every atom true, random worlds), that share --samples; their agreement (R-hat) says whether the run has mixed; results depend on it, not on the cores")
	f.IntVar(&o.flips, "flips", 1_000_000, "MaxWalkSAT flips (lp-walksat, maxwalksat; Alchemy's -mwsMaxSteps); with --lazy, lp-round and exact, those of the start world (default 100000)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of MaxWalkSAT, of --method exact's neighbourhood search and of the samplers' chains")
	f.Float64Var(&o.noise, "noise", 0.5, "MaxWalkSAT's random-walk probability (lp-walksat, maxwalksat, and the walk that repairs a rounded world breaking hard clauses)")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.Float64Var(&o.hardWeight, "hard-weight", 0, "treat every hard clause as soft with this weight (as Alchemy and Tuffy do), so that unsatisfiable hard clauses still give a world; 0: hard clauses are constraints")
	f.BoolVar(&o.quiet, "quiet", false, "no progress display even on a terminal")
	f.BoolVar(&o.lifted, "lifted", false, "MAP: solve the LP relaxation lifted by its symmetries (same optimum and certified bound), round one atom per class of symmetric atoms where the guarantee allows")
	f.BoolVar(&o.asRRF, "as-rrf", false, "run the network through the recursive-random-field engine (hinge rrf infer): ICM for the MAP world, Gibbs from the ICM mode for --marginal")
	addADMMFlags(cmd, &o.admm)
	o.explain.add(cmd, "mln")
	return cmd
}

// formulaCounts says how many formulas and clauses the network has, and
// how many clauses of weight 0 it left out (Tuffy's cse has 68: "94
// formulas, 26 clauses" left them unexplained).
func formulaCounts(net *mln.Network) string {
	s := fmt.Sprintf("%d formulas, %d clauses", net.Formulas, len(net.Clauses))
	if net.Dropped > 0 {
		s += fmt.Sprintf(" (%d of weight 0 left out: they cannot change the answer)", net.Dropped)
	}
	return s
}

// probFormat is the format of a marginal's line: the atom, then its
// probability with digits decimals (checkDigits).
func probFormat(digits int) string { return fmt.Sprintf("%%s %%.%df", digits) }

// checkDigits refuses a --digits outside 1..17 (a float64's decimals).
func checkDigits(digits int) error {
	if digits < 1 || digits > 17 {
		return badInput(fmt.Errorf("--digits %d: want 1 to 17", digits))
	}
	return nil
}

// runAsRRF hands the network to hinge rrf infer with the matching method.
func (o *mlnInferOptions) runAsRRF(ctx context.Context, stdout, stderr io.Writer) error {
	r := &rrfInferOptions{mlnInputs: o.mlnInputs, result: o.result, method: "icm", lambda: 10, hardWeight: 20,
		samples: o.samples, burnIn: o.burnIn, starts: 10, chains: o.chains, strict: o.strict, seed: o.seed, digits: o.digits,
		report: o.report, trueOnly: o.trueOnly, quiet: o.quiet}
	switch o.method {
	case "", mln.MethodLPRound, mln.MethodGibbs, mln.MethodMCSAT:
	default:
		return badInput(fmt.Errorf("--as-rrf: --method %s has no RRF counterpart (the RRF engine finds a mode by ICM and marginals by Gibbs)", o.method))
	}
	// The Markov logic engine's settings, which the RRF engine has no use
	// for: refused, where they were ignored without a word.
	for _, name := range []string{"lazy", "flips", "noise", "threads", "time-limit", "max-iter", "rho", "rho-policy", "eps-abs", "eps-rel", "check-every", "constraint-tol", "gap-tol"} {
		if o.changed(name) {
			return badInput(fmt.Errorf("--%s: not with --as-rrf: it sets the Markov logic engine's search, and the RRF engine (ICM, Gibbs) has none", name))
		}
	}
	if o.marginal || o.method == mln.MethodGibbs || o.method == mln.MethodMCSAT {
		r.method = "gibbs"
		if o.trueOnly {
			return badInput(errors.New("--true-only (Alchemy's -m) writes a MAP world: it excludes --marginal and the sampling methods"))
		}
	}
	if o.hardWeight > 0 {
		r.hardWeight, r.hardWeightSet = o.hardWeight, true
	}
	return r.run(ctx, stdout, stderr)
}

func (o *mlnInferOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if err := o.explain.checkMLN(o); err != nil {
		return err
	}
	if o.asRRF && o.lifted {
		return badInput(errors.New("--lifted lifts the MAX-SAT relaxation; the RRF engine (--as-rrf) has none"))
	}
	if !(o.hardWeight >= 0) || math.IsInf(o.hardWeight, 1) {
		return badInput(fmt.Errorf("--hard-weight %v must be a finite number >= 0 (0: hard clauses are constraints)", o.hardWeight))
	}
	if err := checkDigits(o.digits); err != nil {
		return err
	}
	if o.asRRF {
		return o.runAsRRF(ctx, stdout, stderr)
	}
	start := time.Now()
	o.bar = newProgress(stderr, o.quiet, "hinge mln infer")
	o.mlnInputs.progress, o.mlnInputs.warn = o.bar, stderr
	if err := o.admm.Validate(); err != nil {
		return badInput(err)
	}
	if o.flips <= 0 {
		return badInput(fmt.Errorf("--flips %d: must be > 0 (the default is 1000000, and 100000 for the start world of --lazy's cutting planes)", o.flips))
	}
	if !(o.noise > 0 && o.noise <= 1) {
		return badInput(fmt.Errorf("--noise %v: must be in (0,1]", o.noise))
	}
	o.lazyAsked = o.lazy
	if o.marginal && o.method == "" {
		o.method = mln.MarginalAuto
	}
	if o.method == mln.MarginalAuto || (o.marginal && o.method == mln.MarginalExact) {
		// Exact marginals (mln.InferMarginals); MC-SAT samples the rest.
		o.marginal, o.marginalMethod, o.method = true, o.method, mln.MethodMCSAT
		if o.lazy && o.marginalMethod == mln.MarginalExact {
			return badInput(errors.New("--method exact computes marginals on the full grounding; --lazy samples them by lazy MC-SAT"))
		}
	}
	explicitMethod := o.method
	switch o.method {
	case mln.MethodLPRound, mln.MethodLPWalkSAT, mln.MethodWalkSAT, mln.MethodExact:
	case mln.MethodMCSAT, mln.MethodGibbs:
		o.marginal = true
	default:
		return badInput(fmt.Errorf("--method %q: want lp-round, lp-walksat, maxwalksat or exact (MAP), or auto, exact, mcsat or gibbs (marginals; auto, mcsat and gibbs give marginals without --marginal)", o.method))
	case "":
		o.method = mln.MethodLPRound
		if o.marginal {
			o.method = mln.MethodMCSAT
		}
	}
	if o.marginal && o.trueOnly {
		return badInput(errors.New("--true-only (Alchemy's -m) writes a MAP world: it excludes --marginal and the sampling methods"))
	}
	if o.marginal && o.lifted {
		return badInput(errors.New("--lifted is for MAP inference (lp-round, lp-walksat, maxwalksat); the samplers of --marginal do not lift"))
	}
	if o.lazy && o.lifted {
		return badInput(errors.New("--lifted lifts the LP relaxation of the full grounding; --lazy solves relaxations of clauses built as needed, which are not lifted: give one or the other"))
	}
	if o.marginal && o.mapFlag {
		return badInput(errors.New("--map and --marginal exclude each other"))
	}
	if o.marginal && o.method != mln.MethodMCSAT && o.method != mln.MethodGibbs {
		return badInput(fmt.Errorf("--method %s is a MAP method; marginals take mcsat or gibbs", o.method))
	}
	if o.marginal && (o.samples <= 0 || o.burnIn < 0 || o.chains <= 0 || o.samples < o.chains) {
		return badInput(fmt.Errorf("--samples %d must be > 0 and at least --chains %d (> 0), --burn-in %d >= 0", o.samples, o.chains, o.burnIn))
	}
	if o.lazy && o.marginal && o.method != mln.MethodMCSAT {
		return badInput(fmt.Errorf("--lazy estimates marginals by lazy MC-SAT (--method mcsat); --method %s needs the full grounding", o.method))
	}
	if o.lazy && !o.marginal && explicitMethod == mln.MethodLPWalkSAT {
		return badInput(fmt.Errorf("--lazy solves by cutting planes (--method lp-round, the default, or exact) or searches by MaxWalkSAT (--method maxwalksat), or samples by MC-SAT with --marginal; --method %s needs the full grounding", explicitMethod))
	}
	switch {
	case o.timeLimit < 0:
		return badInput(fmt.Errorf("--time-limit %v: must be >= 0", o.timeLimit))
	case o.timeLimit > 0 && !o.marginal && o.lazy && o.method == mln.MethodLPRound:
		// The cutting planes over the relaxation stop at the limit.
	case o.timeLimit > 0 && (o.method != mln.MethodExact || o.marginal):
		return badInput(fmt.Errorf("--time-limit %v applies to MAP by --method exact, and by --lazy's cutting planes (lp-round), only (the other methods run their iterations: --flips, --max-iter, --samples); give --method exact with it, or leave it out", o.timeLimit))
	}
	// Lazy grounding by itself beyond the memory limit: for MAP, and for
	// marginals by MC-SAT (Gibbs has no lazy form).
	autoLazy := !o.marginal || (o.method == mln.MethodMCSAT && o.marginalMethod != mln.MarginalExact)
	if err := checkOutputs(o.mlnInputs.files(), append([]output{{flag: "--result", path: o.result}, {flag: "--report", path: o.report}}, o.explain.outputs()...)...); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole.
	outs := []string{o.result, o.report, o.explain.json, o.explain.html, o.explain.satisfaction}
	var to io.Writer
	stdout, to = routeMessages(ctx, stdout, stderr, o.result == "", outs...)
	if to != stderr {
		stderr = to
		o.bar = newProgress(stderr, o.quiet, "hinge mln infer")
		o.mlnInputs.progress, o.mlnInputs.warn = o.bar, stderr
	}
	// Built without its unknown atoms; they are added (Materialize) unless
	// the grounding is lazy.
	// Read and built on a goroutine left behind if the run is cancelled
	// (the .db parser does not look at a context).
	type built struct {
		net     *mln.Network
		queries []mln.GroundAtom
	}
	b, err := whileRunning(ctx, func() (built, error) {
		net, queries, err := o.mlnInputs.network(mln.Options{HardWeight: o.hardWeight, Lazy: true})
		return built{net, queries}, err
	})
	if err != nil {
		return err
	}
	net, queries := b.net, b.queries
	o.bar.Done() // the reading and building shown
	load := time.Since(start).Seconds()
	if !o.lazy {
		n, limit := net.UnknownAtoms(), memlimit.Current()
		if autoLazy && limit > 0 && n*bytesPerUnknownAtom > float64(limit) {
			fmt.Fprintf(stderr, "hinge mln infer: note: %.3g unknown atoms would take about %s, more than the memory limit of %s; grounding lazily instead (--lazy)\n",
				n, memlimit.Format(int64(n*bytesPerUnknownAtom)), memlimit.Format(limit))
			o.lazy = true
		} else if err := net.Materialize(0); err != nil {
			return badInput(err)
		} else if autoLazy && limit > 0 {
			// The unknown atoms fit; their full grounding, by the
			// grounder's estimate (nothing is grounded yet)?
			clauses, bytes, err := net.GroundingEstimate()
			if err != nil {
				return failed(err)
			}
			if need := bytes + n*bytesPerUnknownAtom; need > float64(limit) {
				fmt.Fprintf(stderr, "hinge mln infer: note: the full grounding, about %.3g ground clauses over %.3g unknown atoms, would take about %s, more than the memory limit of %s; grounding lazily instead (--lazy)\n",
					clauses, n, memlimit.Format(int64(need)), memlimit.Format(limit))
				if net, queries, err = o.mlnInputs.network(mln.Options{HardWeight: o.hardWeight, Lazy: true}); err != nil {
					return err
				}
				o.lazy = true
			}
		}
	}
	if o.lazy && o.explain.any() {
		return failed(fmt.Errorf("%s: explanations need the full grounding, and it would not fit in --memory-limit (the run would ground lazily)", o.explain.flagNames()))
	}
	if o.lazy && o.lifted {
		return failed(errors.New("--lifted lifts the LP relaxation of the full grounding, and it would not fit in --memory-limit (the run would ground lazily, without lifting)"))
	}
	if o.lazy {
		if err := net.CheckLazy(); err != nil {
			if !o.lazyAsked {
				// Chosen for want of memory: the user gave no --lazy.
				return failed(fmt.Errorf("the full grounding would not fit in --memory-limit, so the run would ground lazily, which cannot take this evidence: raise --memory-limit (%w)", err))
			}
			return badInput(err)
		}
	}
	if o.lazy && o.marginal {
		return o.lazyMarginals(ctx, net, load, start, stdout, stderr)
	}
	if o.lazy {
		return o.lazyMAPBy(ctx, net, queries, load, start, stdout, stderr)
	}
	if (o.method == mln.MethodLPRound || o.method == mln.MethodExact) && o.changed("flips") {
		// --lazy takes them for its start world.
		fmt.Fprintf(stderr, "hinge mln infer: note: --flips counts MaxWalkSAT's flips, which --method %s does not make on the full grounding; ignored (--method maxwalksat or lp-walksat walks)\n", o.method)
	}
	if err := o.explain.findMLN(net); err != nil {
		return err
	}

	bar := o.bar
	mo := mln.DefaultMAPOptions()
	mo.Method = o.method
	mo.MaxSAT.ADMM = o.admm
	mo.MaxSAT.ADMM.Progress = func(pr admm.Progress) {
		bar.Status("relaxation: ADMM iteration %d  objective %.6g", pr.Iteration, pr.Objective)
	}
	mo.MaxSAT.Seed = o.seed
	mo.MaxSAT.Noise = o.noise
	mo.MaxSAT.LocalSearch = o.flips
	mo.MaxSAT.Lift = o.lifted
	mo.TimeLimit = o.timeLimit
	mo.ExactProgress = func(p maxsat.ExactProgress) {
		bar.Status("exact: cost %.6g, lower bound %.6g, %d cores, %.0f s", p.Cost, p.LowerBound, p.Cores, p.Seconds)
	}
	mo.Ground.MemoryLimit = memlimit.Current()
	mo.Ground.Context = ctx
	if o.marginal {
		bar.Done()
		return o.marginals(ctx, net, mo, load, start, queries, stdout, stderr)
	}
	res, err := net.MAP(ctx, mo)
	bar.Done()
	var me *ground.MemoryError
	if errors.As(err, &me) {
		// The unknown atoms fit, their full grounding does not: a network
		// without them (the joins then pass over fewer rows).
		if o.explain.any() {
			return failed(fmt.Errorf("%v; %s: explanations need the full grounding", err, o.explain.flagNames()))
		}
		if o.lifted {
			return failed(fmt.Errorf("%v; --lifted lifts the LP relaxation of the full grounding", err))
		}
		fmt.Fprintf(stderr, "hinge mln infer: note: %v; grounding lazily instead (--lazy)\n", err)
		if net, queries, err = o.mlnInputs.network(mln.Options{HardWeight: o.hardWeight, Lazy: true}); err != nil {
			return err
		}
		return o.lazyMAPBy(ctx, net, queries, load, start, stdout, stderr)
	}
	if err != nil {
		return mlnFailed(err)
	}
	g := res.Ground
	ac, alb := res.AlchemyCosts()
	rep := mlnReport{
		Formulas: net.Formulas, Clauses: len(net.Clauses), Unknowns: g.Problem.NumVars,
		GroundClauses: g.Problem.NumPotentials() + g.Problem.NumConstraints(), HardClauses: g.Problem.NumConstraints(),
		Method: o.method, Cost: res.Cost, LowerBound: res.LowerBound, HardViolated: res.Report.HardViolated,
		Optimal: res.Report.Optimal, MaxSAT: res.Report, AlchemyClauses: res.Alchemy.Clauses,
		AlchemyCost: ac, AlchemyLowerBound: alb,
		Exact: exactMAPSummaryOf(res.Exact, res.Cost, res.LowerBound),
	}
	rep.Seconds.Load, rep.Seconds.Ground, rep.Seconds.Solve = load, res.Seconds.Ground, res.Seconds.Solve

	// The query atoms' values, and the accuracy on atoms with a known truth.
	lines := queryLines(g, net, res.Values, "%s %g")
	if o.trueOnly {
		lines = trueAtoms(lines)
	}
	if acc, ok := queryAccuracy(queries, g, net, res.Values); ok {
		rep.Accuracy, rep.Queries = &acc, len(queries)
	}
	write := func(w io.Writer) error { return writeLines(w, lines) }
	// The explanations are worked out before any output is written.
	defer o.explain.discard() // a report rendered but not put in place
	if err := o.explain.prepareMLN(ctx, net, res, mo, o.mlnInputs.queryOrder); err != nil {
		return err
	}
	if o.result != "" {
		if err := atomicfile.Write(o.result, write); err != nil {
			return failed(err)
		}
	}
	fmt.Fprintf(stderr, "mln: %s; %d unknown atoms, %d ground clauses (%d hard), grounded in %.3f s\n",
		formulaCounts(net), rep.Unknowns, rep.GroundClauses, rep.HardClauses, rep.Seconds.Ground)
	if l := res.Report.Lifted; l != nil {
		printLiftedDiscrete(stderr, l, res.Report.Seconds.Round)
	}
	fmt.Fprintf(stderr, "MAP (%s): cost %.6g, certified lower bound %.6g, %d hard clause(s) violated%s; %.3f s\n",
		o.method, res.Cost, res.LowerBound, res.Report.HardViolated, optimalWord(res.Report.Optimal, o.rounded), res.Seconds.Solve)
	if x := res.Exact; x != nil {
		printExactStatus(stderr, x, res.Cost, res.LowerBound, o.rounded)
	}
	fmt.Fprintf(stderr, "as Alchemy counts it (identical ground clauses merged, opposite unit clauses cancelled): %d ground clauses, cost %.6g, lower bound %.6g\n",
		rep.AlchemyClauses, rep.AlchemyCost, rep.AlchemyLowerBound)
	if rep.Accuracy != nil {
		fmt.Fprintf(stderr, "accuracy on %d query atoms with truth: %.4f\n", rep.Queries, *rep.Accuracy)
	}
	for _, n := range net.ClosedNotes(g, res.Values) {
		fmt.Fprintln(stderr, "hinge mln infer: note:", n)
	}
	if o.result == "" {
		if err := write(stdout); err != nil {
			return failed(err)
		}
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
	if res.Report.HardViolated > 0 {
		why := ""
		if res.Report.Infeasible {
			why = ": the hard clauses are proven unsatisfiable (the relaxation's certified bound is negative); --hard-weight W treats them as soft, as Alchemy and Tuffy do"
		}
		return failed(fmt.Errorf("the MAP world violates %d hard clause(s)%s", res.Report.HardViolated, why))
	}
	return nil
}

// bytesPerUnknownAtom is the memory an unknown atom takes when it is
// grounded in full (its row in the store, its variable in the grounder and
// the solver: bytesPerVar), with a margin.
const bytesPerUnknownAtom = 200

// lazyReport is the --report JSON of hinge mln infer after lazy grounding.
type lazyReport struct {
	Formulas      int  `json:"formulas"`
	Clauses       int  `json:"clauses"`
	Lazy          bool `json:"lazy"`
	GroundClauses int  `json:"ground_clauses"`
	// InitialClauses of the ground clauses were built before the search:
	// those the world with every unknown atom false can violate.
	InitialClauses int `json:"initial_ground_clauses"`
	HardClauses    int `json:"ground_hard_clauses"`
	Unknowns       int `json:"unknown_atoms"`
	// AllUnknowns are the unknown atoms of the network, of which the
	// search brought Unknowns into play; CrossProduct the substitutions of
	// every clause's variables over their types' domains.
	AllUnknowns  float64 `json:"all_unknown_atoms"`
	CrossProduct float64 `json:"cross_product"`
	Method       string  `json:"method"`
	Cost         float64 `json:"cost"`
	// LowerBound is null: there is no certified bound without the full
	// grounding.
	LowerBound   *float64 `json:"cost_lower_bound"`
	HardViolated int      `json:"hard_violated"`
	Flips        int      `json:"flips"`
	BestFlip     int      `json:"best_flip"`
	TrueQuery    int      `json:"true_query_atoms"`
	Accuracy     *float64 `json:"accuracy,omitempty"`
	Queries      int      `json:"queries,omitempty"`
	Seconds      struct {
		Load   float64 `json:"load"`
		Ground float64 `json:"ground"`
		Solve  float64 `json:"solve"`
		Total  float64 `json:"total"`
	} `json:"seconds"`
}

// lazyMAP finds a MAP world by lazy grounding (mln.Network.LazyMAP) and
// writes the true query atoms.
func (o *mlnInferOptions) lazyMAP(ctx context.Context, net *mln.Network, queries []mln.GroundAtom, load float64, start time.Time, stdout, stderr io.Writer) error {
	bar := o.bar
	res, err := net.LazyMAP(ctx, mln.LazyOptions{Flips: o.flips, Seed: o.seed, Noise: o.noise, MemoryLimit: memlimit.Current(),
		Progress: func(flips, clauses int) {
			bar.Status("lazy MaxWalkSAT: %d flips, %d ground clauses built", flips, clauses)
		}})
	bar.Done()
	if err != nil {
		return mlnFailed(err)
	}
	rep := lazyReport{Formulas: net.Formulas, Clauses: len(net.Clauses), Lazy: true,
		GroundClauses: res.ActiveClauses, InitialClauses: res.InitialClauses, HardClauses: res.HardClauses, Unknowns: res.ActiveAtoms,
		AllUnknowns: net.UnknownAtoms(), CrossProduct: res.CrossProduct,
		Method: mln.MethodWalkSAT, Cost: res.Cost, HardViolated: res.HardViolated, Flips: res.Flips, BestFlip: res.BestFlip}
	rep.Seconds.Load, rep.Seconds.Ground, rep.Seconds.Solve = load, res.Seconds.Ground, res.Seconds.Search
	lines, acc := o.lazyTrueLines(net, res.Atoms, res.Values, res.Args, queries)
	rep.TrueQuery = len(lines)
	if acc != nil {
		rep.Accuracy, rep.Queries = acc, len(queries)
	}
	if err := writeResult(o.result, stdout, lines); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mln: %s; lazy grounding: %d ground clauses built (%d hard) over %d unknown atoms, %d of them in %.3f s before the search (the clauses' variables range over %.3g substitutions)\n",
		formulaCounts(net), rep.GroundClauses, rep.HardClauses, rep.Unknowns, rep.InitialClauses, rep.Seconds.Ground, rep.CrossProduct)
	fmt.Fprintf(stderr, "MAP (maxwalksat, lazy): cost %.6g, %d hard clause(s) violated; %d flips, best after %d; %.3f s; no certified bound (the cutting planes of --method lp-round, the default, give one over lazily built clauses, and --method exact proves the optimum when its rounds end); %d query atoms true, every other one false\n",
		res.Cost, res.HardViolated, res.Flips, res.BestFlip, res.Seconds.Search, rep.TrueQuery)
	if rep.Accuracy != nil {
		fmt.Fprintf(stderr, "accuracy on %d query atoms with truth: %.4f\n", rep.Queries, *rep.Accuracy)
	}
	rep.Seconds.Total = time.Since(start).Seconds()
	if o.report != "" {
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	if res.HardViolated > 0 {
		return failed(fmt.Errorf("the MAP world violates %d hard clause(s); --hard-weight W treats them as soft, as Alchemy and Tuffy do", res.HardViolated))
	}
	return nil
}

// marginals runs MC-SAT or Gibbs and writes 'Pred(A, B) p' lines, as
// Alchemy's result files do, then says whether the chains have mixed.
func (o *mlnInferOptions) marginals(ctx context.Context, net *mln.Network, mo mln.MAPOptions, load float64, start time.Time, queries []mln.GroundAtom, stdout, stderr io.Writer) error {
	bar := o.bar
	so := mln.SampleOptions{Samples: o.samples, BurnIn: o.burnIn, Chains: o.chains, Seed: o.seed,
		Progress: func(done, total int) { bar.Status("%s: step %d of %d (%d chains)", o.method, done, total, o.chains) }}
	method := o.method
	if o.marginalMethod != "" {
		method = o.marginalMethod
	}
	res, err := net.Marginals(ctx, method, mo, so)
	bar.Done()
	var tl *mln.TooLargeError
	if errors.As(err, &tl) {
		return failed(err)
	}
	var me *ground.MemoryError
	if errors.As(err, &me) && o.method == mln.MethodMCSAT && o.marginalMethod != mln.MarginalExact {
		// The unknown atoms fit, their full grounding does not.
		fmt.Fprintf(stderr, "hinge mln infer: note: %v; grounding lazily instead (--lazy)\n", err)
		if net, _, err = o.mlnInputs.network(mln.Options{HardWeight: o.hardWeight, Lazy: true}); err != nil {
			return err
		}
		return o.lazyMarginals(ctx, net, load, start, stdout, stderr)
	}
	if err != nil {
		if isCancel(err) {
			return failed(err)
		}
		return badInput(err) // hard clauses the evidence contradicts, or a refusal of the method's
	}
	g := res.Ground
	lines := queryLines(g, net, res.Probs, probFormat(o.digits))
	d := res.Diagnostics
	ex := summarizeExact(res.Exact, res.Components)
	sampled := fmt.Sprintf("%d chains x %d samples after %d burn-in", d.Chains, d.SamplesPerChain, o.burnIn)
	if d.Chains == 0 {
		sampled = "nothing sampled"
	}
	fmt.Fprintf(stderr, "mln: %d unknown atoms, %d ground clauses (%d hard; %d once identical ones are merged), grounded in %.3f s; %s: %s in %.3f s\n",
		g.Problem.NumVars, g.Problem.NumPotentials()+g.Problem.NumConstraints(), g.Problem.NumConstraints(), res.Merged, res.Seconds.Ground,
		method, sampled, res.Seconds.Sample)
	atom := func(v int) string {
		if v < 0 {
			return "-"
		}
		return g.Vars[v].Pred.Name + "(" + strings.Join(g.Args(v), ", ") + ")"
	}
	if ex != nil {
		ex.print(stderr, g.Problem.NumVars)
	}
	for _, n := range net.ClosedNotes(g, res.Probs) {
		fmt.Fprintln(stderr, "hinge mln infer: note:", n)
	}
	if d.Chains > 0 {
		printConvergence(stderr, d, atom)
	}
	if !d.Mixed {
		advice := "take more samples (--samples, --burn-in)"
		if o.method == mln.MethodGibbs {
			advice += ", or use --method mcsat"
		}
		mixedWarning(stderr, d, atom, advice)
		if o.strict {
			return notTrusted("the chains have not mixed")
		}
	}
	if d.Stuck > 0 {
		fmt.Fprintf(stderr, "note: in %d of %d MC-SAT steps SampleSAT found no world satisfying the selected clauses, and the chain stayed where it was\n", d.Stuck, d.Steps)
	}
	if err := writeResult(o.result, stdout, lines); err != nil {
		return err
	}
	if o.report != "" {
		rep := map[string]any{"method": method, "unknown_atoms": g.Problem.NumVars, "ground_clauses": g.Problem.NumPotentials() + g.Problem.NumConstraints(),
			"merged_clauses": res.Merged, "samples": o.samples, "burn_in": o.burnIn, "mixed": d.Mixed,
			"convergence": map[string]any{"chains": d.Chains, "samples_per_chain": d.SamplesPerChain, "r_hat": d.RHat, "r_hat_atom": atom(d.RHatAtom),
				"spread": d.Spread, "spread_atom": atom(d.SpreadAtom), "mcse": d.MCSE, "mcse_atom": atom(d.MCSEAtom), "mixed": d.Mixed, "stuck_steps": d.Stuck},
			"seconds": map[string]float64{"load": load, "ground": res.Seconds.Ground, "sample": res.Seconds.Sample, "total": time.Since(start).Seconds()}}
		if ex != nil {
			rep["exact"] = ex
		}
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	return nil
}

// lazyMarginals estimates marginals by lazy MC-SAT
// (mln.Network.LazyMarginals) and writes 'Pred(A, B) p' lines for the
// query atoms the chains activated; every other one was false in every
// sample.
func (o *mlnInferOptions) lazyMarginals(ctx context.Context, net *mln.Network, load float64, start time.Time, stdout, stderr io.Writer) error {
	bar := o.bar
	so := mln.SampleOptions{Samples: o.samples, BurnIn: o.burnIn, Chains: o.chains, Seed: o.seed,
		Progress: func(done, total int) {
			bar.Status("lazy MC-SAT: step %d of %d (%d chains)", done, total, o.chains)
		}}
	// Every unknown atom active from the start when there are few
	// (mln.LazySampleOptions.MaxActivate), unless lazy grounding was
	// chosen because the full grounding would not fit: sampling every atom
	// would build most of it.
	activate := 0
	if !o.lazyAsked {
		activate = -1
	}
	res, err := net.LazyMarginals(ctx, mln.LazySampleOptions{SampleOptions: so, MemoryLimit: memlimit.Current(), MaxActivate: activate})
	bar.Done()
	if err != nil {
		return mlnFailed(err)
	}
	var lines []string
	atom := func(i int) string {
		if i < 0 {
			return "-"
		}
		return mln.AtomString(res.Atoms[i].Pred.Name, res.Args(net.Store, i))
	}
	for i, a := range res.Atoms {
		if net.Reported(a.Pred, res.Args(net.Store, i)) {
			lines = append(lines, fmt.Sprintf(probFormat(o.digits), atom(i), res.Probs[i]))
		}
	}
	sort.Strings(lines)
	d := res.Diagnostics
	all := net.UnknownAtoms()
	fmt.Fprintf(stderr, "mln: %s; lazy grounding: %d ground clauses built (%d hard; %d once identical ones are merged) over %d unknown atoms of %.3g, %d of them in %.3f s before sampling (the clauses' variables range over %.3g substitutions)\n",
		formulaCounts(net), res.ActiveClauses, res.HardClauses, res.Merged, len(res.Atoms), all, res.InitialClauses, res.Seconds.Ground, res.CrossProduct)
	activated := "every unknown atom active from the start, every query atom listed"
	if !res.Complete {
		activated = fmt.Sprintf("%d query atoms activated, every other one false in every sample (estimate 0, not listed)", len(lines))
	}
	fmt.Fprintf(stderr, "mcsat (lazy): %d chains x %d samples after %d burn-in in %.3f s; %s\n",
		d.Chains, d.SamplesPerChain, o.burnIn, res.Seconds.Sample, activated)
	printConvergence(stderr, d, atom)
	if !d.Mixed {
		mixedWarning(stderr, d, atom, "take more samples (--samples, --burn-in)")
	}
	if !res.Complete && res.NeverActivated > 0 {
		fmt.Fprintf(stderr, "warning: %.0f unknown atoms were never activated and were held false throughout: the marginals are those of the network conditioned on them being false, not MC-SAT's (every atom is activated from the start with --lazy on networks of at most 100,000 unknown atoms)\n", res.NeverActivated)
	}
	mixed := d.Mixed && (res.Complete || res.NeverActivated == 0)
	if o.strict && !mixed {
		why := "the chains have not mixed"
		if d.Mixed {
			why = fmt.Sprintf("%.0f unknown atoms never activated", res.NeverActivated)
		}
		return notTrusted(why)
	}
	if d.Stuck > 0 {
		fmt.Fprintf(stderr, "note: in %d of %d MC-SAT steps SampleSAT found no world satisfying the selected clauses, and the chain stayed where it was\n", d.Stuck, d.Steps)
	}
	if err := writeResult(o.result, stdout, lines); err != nil {
		return err
	}
	if o.report != "" {
		rep := map[string]any{"method": mln.MethodMCSAT, "lazy": true, "ground_clauses": res.ActiveClauses, "initial_ground_clauses": res.InitialClauses,
			"ground_hard_clauses": res.HardClauses, "merged_clauses": res.Merged, "unknown_atoms": len(res.Atoms), "all_unknown_atoms": all,
			"cross_product": res.CrossProduct, "query_atoms_listed": len(lines), "samples": o.samples, "burn_in": o.burnIn,
			"complete": res.Complete, "never_activated": res.NeverActivated, "mixed": mixed,
			"convergence": map[string]any{"chains": d.Chains, "samples_per_chain": d.SamplesPerChain, "r_hat": d.RHat, "r_hat_atom": atom(d.RHatAtom),
				"spread": d.Spread, "spread_atom": atom(d.SpreadAtom), "mcse": d.MCSE, "mcse_atom": atom(d.MCSEAtom), "mixed": d.Mixed, "stuck_steps": d.Stuck},
			"seconds": map[string]float64{"load": load, "ground": res.Seconds.Ground, "sample": res.Seconds.Sample, "total": time.Since(start).Seconds()}}
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	return nil
}

// trueAtoms keeps the lines 'Pred(A) 1' of a MAP result, without the value.
func trueAtoms(lines []string) []string {
	var out []string
	for _, l := range lines {
		if atom, ok := strings.CutSuffix(l, " 1"); ok {
			out = append(out, atom)
		}
	}
	return out
}

// writeResult writes the result lines to the file path (atomically), or
// to stdout when path is empty.
func writeResult(path string, stdout io.Writer, lines []string) error {
	if path != "" {
		return failedIf(atomicfile.Write(path, func(w io.Writer) error { return writeLines(w, lines) }))
	}
	return failedIf(writeLines(stdout, lines))
}

// writeLines writes each line followed by a newline.
func writeLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// optimalWord is what a MAP line says of a proven optimum; rounded: some
// formula weights were read as float64s that do not hold them, and the
// optimum is the one for the weights as read.
func optimalWord(ok, rounded bool) string {
	if ok {
		return ", proven optimal" + roundedWord(rounded)
	}
	return ""
}

// roundedWord qualifies a proven optimum when weights were rounded.
func roundedWord(rounded bool) string {
	if rounded {
		return " for the weights as read (rounded to float64: see the warnings)"
	}
	return ""
}

type mlnLearnOptions struct {
	input, output, report, method string
	training, query               []string
	prior                         float64
	priorSet                      bool // --prior-stddev given (0 is refused, not the default)
	maxIter                       int
	atomWeights                   bool
	force                         bool
	disc                          mln.DiscOptions
	text                          programText // the program's, read once
}

func newMLNLearnCmd() *cobra.Command {
	o := &mlnLearnOptions{}
	cmd := &cobra.Command{
		Use:   "learn -i PROG.mln -t TRAIN.db [-q PRED[,PRED]] [-o LEARNED.mln]",
		Short: "Learn formula weights: pseudo-log-likelihood or discriminative diagonal Newton (Alchemy's learnwts -g / -d)",
		Long: `Learn the weights of a Markov logic program's soft formulas from a training
world.

--method pll (default; Alchemy's learnwts -g) maximises the pseudo-log-
likelihood of the query predicates' atoms, or of every predicate's atoms
when -q is not given (as learnwts -g without -ne), by L-BFGS with a Gaussian
prior (--prior-stddev, default 100) centred on the program's weights. Each
predicate's atoms weigh one over its number of groundings, so every
predicate counts the same, as in Alchemy (--atom-weights: every atom 1).
It says whether L-BFGS converged; at its iteration limit (--max-iter) the
weights are not the optimum.

--method dn (Alchemy's learnwts -d) maximises the conditional log-likelihood
of the query atoms (-q is required) given the evidence by diagonal Newton
(Lowd and Domingos 2007): expected counts and their variances from MC-SAT
samples of persistent chains (--samples per iteration and chain, --chains,
--seed), --iterations steps, Gaussian prior with --prior-stddev (default 1
for dn). Slower than pll, usually better for prediction.

The training database lists the true atoms (and may list false ones with !);
an atom of a query predicate that it does not list is false, and every
other predicate is closed-world. The types' domains are the program's
constants and those of the whole training database, whichever predicates
are queried. A formula with +x learns one weight per constant of x, and is
written back, as Alchemy writes it, as one formula per constant. Hard
formulas and fixed weights (@w) are kept; a formula with no ground clause
in the training world keeps its weight. The program is written back with
the learned weights, comments and layout kept (-o, default
PROG-learned.mln; an existing file is replaced only with --force), and
the weights are printed, initial then learned, as hinge learn prints them.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.priorSet = cmd.Flags().Changed("prior-stddev")
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.input, "input", "i", "", "Markov logic program (.mln)")
	f.StringSliceVarP(&o.training, "train", "t", nil, "training database(s) (.db; repeatable or comma-separated)")
	f.StringSliceVarP(&o.query, "query", "q", nil, "query (non-evidence) predicate(s) whose atoms the pseudo-likelihood sums over (default: every predicate; Alchemy's -ne)")
	f.StringVarP(&o.output, "output", "o", "", "learned program (default: PROG-learned.mln)")
	f.StringVar(&o.report, "report", "", "write a JSON report to this file")
	f.StringVar(&o.method, "method", "pll", "pll (pseudo-log-likelihood) or dn (discriminative, diagonal Newton)")
	f.Float64Var(&o.prior, "prior-stddev", 0, "standard deviation of the Gaussian prior on each weight, centred on the program's weight (Alchemy's -priorStdDev; default 100 for pll, 1 for dn); < 0: none")
	f.IntVar(&o.maxIter, "max-iter", 1000, "L-BFGS iteration limit (pll)")
	f.BoolVar(&o.atomWeights, "atom-weights", false, "pll: weigh every atom 1 in the pseudo-log-likelihood instead of one over its predicate's number of groundings")
	f.IntVar(&o.disc.Iterations, "iterations", 100, "diagonal Newton iterations (dn)")
	f.IntVar(&o.disc.Samples, "samples", 50, "MC-SAT samples per iteration and chain (dn)")
	f.IntVar(&o.disc.Chains, "chains", 2, "MC-SAT chains run in parallel (dn); results depend on it, not on the cores")
	f.Uint64Var(&o.disc.Seed, "seed", 1, "seed of the MC-SAT chains (dn)")
	f.BoolVar(&o.force, "force", false, "overwrite the output file if it exists")
	return cmd
}

func (o *mlnLearnOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.input == "" || len(o.training) == 0 {
		return badInput(errors.New("give the program (-i) and the training database (-t)"))
	}
	if o.maxIter <= 0 {
		return badInput(fmt.Errorf("--max-iter %d: must be > 0", o.maxIter))
	}
	switch {
	case math.IsNaN(o.prior) || math.IsInf(o.prior, 0):
		return badInput(fmt.Errorf("--prior-stddev %v: want a number (> 0, or < 0 for no prior)", o.prior))
	case o.priorSet && o.prior == 0:
		return badInput(errors.New("--prior-stddev 0: a prior of standard deviation 0 would hold every weight at the program's; give one > 0, or < 0 for no prior (the default is 100 for pll, 1 for dn)"))
	}
	switch o.method {
	case "pll", "dn":
	default:
		return badInput(fmt.Errorf("--method %q: want pll or dn", clipPath(o.method)))
	}
	o.query = trimmed(o.query)
	if o.method == "dn" && len(o.query) == 0 {
		return badInput(errors.New("--method dn needs the query predicates (-q, Alchemy's -ne): it learns their conditional likelihood given the other predicates"))
	}
	if o.disc.Iterations <= 0 || o.disc.Samples <= 0 || o.disc.Chains <= 0 {
		return badInput(fmt.Errorf("--iterations %d, --samples %d and --chains %d must be > 0", o.disc.Iterations, o.disc.Samples, o.disc.Chains))
	}
	inputs := append(o.text.includes(o.input), o.training...)
	out, err := learnedOutput(o.output, o.input, ".mln", "-o", o.force, inputs...)
	if err != nil {
		return err
	}
	if err := checkOutputs(append([]string{o.input}, inputs...), output{flag: "--output", path: out}, output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole.
	stdout, stderr = routeMessages(ctx, stdout, stderr, false, out, o.report)
	src, err := o.text.read(o.input)
	if err != nil {
		return badInput(err)
	}
	prog, err := mln.ParseProgram(o.input, src)
	if err != nil {
		return badInput(err)
	}
	if err := checkProgram(o.input, prog); err != nil {
		return err
	}
	training, err := whileRunning(ctx, func() ([]mln.GroundAtom, error) { return readDBs(o.training, prog, nil) })
	if err != nil {
		return err
	}
	prior := o.prior
	if prior < 0 {
		prior = -1
	}
	var res *mln.LearnResult
	if o.method == "dn" {
		o.disc.PriorStdDev = prior
		rep := newProgress(stderr, false, "hinge mln learn")
		o.disc.Progress = func(it int, norm, lambda float64) {
			rep.Status("dn iteration %d/%d: gradient %.3g, damping %.3g", it, o.disc.Iterations, norm, lambda)
		}
		res, err = mln.LearnDiscriminative(ctx, prog, training, o.query, o.disc)
		rep.Done()
	} else {
		res, err = mln.LearnPLL(ctx, prog, training, o.query, mln.LearnOptions{PriorStdDev: prior, MaxIter: o.maxIter, AtomWeights: o.atomWeights})
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return failed(err)
		}
		return badInput(err)
	}
	text, err := mln.WithWeights(o.input, src, prog, res)
	if err != nil {
		return failed(err)
	}
	if err := writeLearned(out, o.force, func(w io.Writer) error { _, err := w.Write(text); return err }); err != nil {
		return failed(err)
	}
	fmt.Fprintf(stderr, "mln learn: %d atoms of %d predicate(s), %d ground clauses (grounded in %.3f s)\n",
		res.Atoms, len(res.Predicates), res.Clauses, res.Seconds.Ground)
	if res.HardViolated > 0 { // pll (dn refuses such a world)
		fmt.Fprintf(stderr, "warning: the training world violates %d ground hard clause(s), so the model gives it probability 0 (hinge mln infer refuses such evidence): pseudo-likelihood leaves them out of the conditionals of the atoms that would satisfy them; fix the data or make those formulas soft\n", res.HardViolated)
	}
	if o.method == "dn" {
		fmt.Fprintf(stderr, "mln learn (dn): %s; %.3f s\n", res.Status, res.Seconds.Learn)
	} else {
		conv := "converged"
		if !res.Converged {
			conv = "did not converge"
		}
		if len(res.Unbounded) > 0 {
			conv = "did not converge (no finite optimum)"
		}
		fmt.Fprintf(stderr, "mln learn (pll): L-BFGS %s after %d iterations (%s, largest gradient component %.3g), pseudo-log-likelihood %.6g; %.3f s\n",
			conv, res.Iter, res.Status, res.GradNorm, res.PLL, res.Seconds.Learn)
		for _, u := range res.Unbounded {
			var parts []string
			for k, t := range u.Formulas {
				dir := "grows"
				if u.Direction[k] < 0 {
					dir = "falls"
				}
				if len(u.Formulas) > 1 {
					dir += fmt.Sprintf(" (factor %.3g)", math.Abs(u.Direction[k]))
				}
				parts = append(parts, fmt.Sprintf("%q (learned %.6g) %s", t, res.Params[u.Params[k]].Weight, dir))
			}
			fmt.Fprintf(stderr, "warning: without a prior the pseudo-log-likelihood keeps rising as the weight of %s without bound: the training world never violates what that asks (every atom's conditional favours its training value more as the weight moves), so no finite weight is optimal and the one written is where L-BFGS stopped; drop -noPrior or give --prior-stddev to bound it\n",
				strings.Join(parts, " and "))
		}
		if res.UnboundedUnchecked {
			fmt.Fprintf(stderr, "warning: without a prior the pseudo-log-likelihood may keep rising as several weights move together; that was not checked (too many conditions): give --prior-stddev to be sure the optimum is finite\n")
		}
		if !res.Converged && len(res.Unbounded) == 0 {
			why := "it stopped at the iteration limit: raise --max-iter"
			if res.Iter < o.maxIter {
				why = "its line search made no more progress, so the objective is flat there to machine precision but the gradient is not below 1e-6"
			}
			fmt.Fprintf(stderr, "warning: L-BFGS did not converge (%s); the weights may be far from the optimum along directions the data barely constrain\n", why)
		}
	}
	printLearnedWeights(stdout, res)
	fmt.Fprintf(stdout, "wrote %s\n", out)
	if o.report != "" {
		if err := writeJSON(o.report, res); err != nil {
			return failed(err)
		}
	}
	return nil
}

// printLearnedWeights prints the learned weights in hinge learn's layout:
// a header, then initial and learned weight and the formula (one row per
// constant of a +x formula).
func printLearnedWeights(w io.Writer, res *mln.LearnResult) {
	fmt.Fprintf(w, "%12s %12s  %s\n", "initial", "learned", "formula")
	for _, p := range res.Params {
		note := ""
		if p.Clauses == 0 {
			note = "  (no groundings: unchanged)"
		}
		fmt.Fprintf(w, "%12.6g %12.6g  %s%s\n", p.Initial, p.Weight, p.Text, note)
	}
}
