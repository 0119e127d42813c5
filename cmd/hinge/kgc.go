package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/kgc"
	"github.com/hinge-srl/hinge/srcpos"
)

type kgcOptions struct {
	train, valid, test, facts  string
	predictions, rules, report string
	rulesIn                    string
	score                      string
	topK, noisyOrK             int
	learn                      kgc.LearnOptions
	psl                        kgc.PSLOptions
	cluster                    kgc.ClusterOptions
	pslOut                     string
	quiet, exhaustive          bool
	timeSet                    bool
	scoringSet                 []string // the scoringFlags given
	chooseValidSet             bool
	explain                    explainFlags
	confidence                 string
	chooseRounds               bool
	chooseValid                int
	learnedValid               int
}

// scoringFlags are the flags that only some scorings use: given under
// another, they are refused rather than ignored (checkScoringFlags).
var scoringFlags = map[string][]kgc.Scoring{
	"cluster-starts": {kgc.Clustered}, "cluster-valid": {kgc.Clustered},
	"learned-valid":  {kgc.Learned},
	"psl-candidates": {kgc.PSL}, "psl-rules": {kgc.PSL}, "psl-train": {kgc.PSL}, "psl-out": {kgc.PSL},
	"noisy-or-k": {kgc.NoisyOr, kgc.Learned, kgc.Clustered},
}

// checkScoringFlags refuses the scoringFlags given that the run's scoring
// does not use, and --choose-valid where no rounds are chosen. auto says
// the scoring is --score auto's choice; noValid that there are no
// validation triples (no --valid, or one that holds none).
func (o *kgcOptions) checkScoringFlags(scoring kgc.Scoring, auto, noValid bool) error {
	for _, name := range o.scoringSet {
		uses := scoringFlags[name]
		if slices.Contains(uses, scoring) {
			continue
		}
		var names []string
		for _, s := range uses {
			names = append(names, s.String())
		}
		chose := ""
		if auto {
			chose = " (--score auto: learned with validation triples, noisy-or without)"
		}
		need := ""
		if (uses[0] == kgc.Learned || uses[0] == kgc.Clustered) && noValid {
			need = " and --valid with triples"
		}
		return badInput(fmt.Errorf("--%s applies to --score %s only; this run scores with %s%s: give --score %s%s to use it",
			name, strings.Join(names, ", "), scoring, chose, names[0], need))
	}
	if why := o.noRoundsChosen(noValid); o.chooseValidSet && why != "" {
		return badInput(fmt.Errorf("--choose-valid: no rounds are chosen here (%s); it applies with --valid, --choose-rounds (the default) and rules learned in more than one round", why))
	}
	return nil
}

// noRoundsChosen says why the run will choose no rounds on the validation
// triples ("": it will, if learning does more than one round).
func (o *kgcOptions) noRoundsChosen(noValid bool) string {
	switch {
	case o.rulesIn != "":
		return "rules read with --rules-in carry no rounds"
	case noValid:
		return "no validation triples"
	case !o.chooseRounds:
		return "--choose-rounds=false"
	case o.learn.Rounds == 1 && !o.timeSet:
		return "--rounds 1 learns one round"
	}
	return ""
}

type kgcReport struct {
	Scoring      string `json:"scoring"`
	Confidence   string `json:"confidence"` // point or lower
	Entities     int    `json:"entities"`
	Relations    int    `json:"relations"`
	GraphTriples int    `json:"graph_triples"`
	TestTriples  int    `json:"test_triples"`
	Rules        int    `json:"rules"`
	Candidates   int    `json:"candidate_rules"`
	Seed         uint64 `json:"seed"`
	Rounds       int    `json:"rounds"`
	// KeptRounds is the number of rounds whose rules were kept (Rules):
	// Rounds, unless the rounds were chosen on --valid.
	KeptRounds   int     `json:"kept_rounds"`
	Stopped      string  `json:"stopped,omitempty"`
	SampledRules int     `json:"sampled_rules"`
	MaxConfErr   float64 `json:"max_confidence_error"`
	// The sampled confidences' 95% intervals: half-widths at the median
	// and 90th percentile, and the widest of a rule with confidence at
	// least kgc.MattersConf (clipped to [0, 1]; absent when none).
	SampledErr struct {
		Median float64         `json:"median"`
		P90    float64         `json:"p90"`
		Widest *widestInterval `json:"widest,omitempty"`
	} `json:"sampled_confidence_error"`
	TopK    int         `json:"top_k"`
	Metrics kgc.Metrics `json:"metrics"`
	Seconds struct {
		Load    float64 `json:"load"`
		Learn   float64 `json:"learn"`
		Choose  float64 `json:"choose"`
		Cluster float64 `json:"cluster"`
		Fit     float64 `json:"fit"`
		Rank    float64 `json:"rank"`
		Total   float64 `json:"total"`
	} `json:"seconds"`
	// Per query (of 2 per test triple): ranking time in seconds.
	QuerySeconds struct {
		Median float64 `json:"median"`
		P90    float64 `json:"p90"`
		Max    float64 `json:"max"`
	} `json:"query_seconds"`
	// Per query: the rules that could fire and those applied before its
	// list settled (medians), and the share of the former applied.
	QueryRules struct {
		Firing  int     `json:"firing"`
		Applied int     `json:"applied"`
		Share   float64 `json:"share"`
	} `json:"query_rules"`
	RoundLog []kgc.RoundStat `json:"round_log,omitempty"`
	// The rounds whose rules were kept, chosen on the validation triples
	// (absent when not chosen).
	ChosenRounds *kgc.RoundsChoice `json:"chosen_rounds,omitempty"`
	// Clustered scoring: the thresholds chosen on the validation triples.
	Cluster *kgc.ClusterReport `json:"cluster,omitempty"`
	// Learned scoring: the weights fitted on the validation triples.
	Learned      *kgc.LearnedReport `json:"learned,omitempty"`
	PeakMemoryMB float64            `json:"peak_rss_mb"`
}

func newKGCCmd() *cobra.Command {
	o := &kgcOptions{}
	cmd := &cobra.Command{
		Use:   "kgc --train T --valid V --test E [--facts F] [--time 10s | --rounds N] [--score auto|learned|noisy-or|maxplus|max|psl|clustered] --predictions P",
		Short: "Knowledge-graph completion with learned rules (cyclic, with constants, defaults), ranked and scored",
		Long: `Learn rules from a knowledge graph and rank the answers of every test triple
asked both ways, (h, r, ?) and (?, r, t).

Triples are head<TAB>relation<TAB>tail lines. The graph is --train (plus
--facts, background triples such as Family's facts.txt). Rules are learned
bottom-up from sampled paths in rounds: cyclic path rules of 1 to
--max-length atoms, rules with a constant in the head (and in the body, or
not), and default rules r(X, c). A rule's confidence is support / (body +
--pc): counted exactly for rules with constants and for cyclic rules with at
most --sample body starts, else estimated from --sample starts drawn at
random (fewer once the 95% interval is narrower than --sample-err), with its
error stated. --rounds N does a fixed amount of work, the same rules on any
machine; --time stops after the rounds that fit (the round running then is
dropped) and the output says how many were done, so --rounds reproduces the
run. Learning also ends its rounds before the rules outgrow 60% of
--memory-limit, leaving room to rank them. With --valid, the rules kept are
those of all n rounds done or of the first n/2, n/4, ... (rounded up) down
to 1, whichever rank --choose-valid validation triples best
(--choose-rounds=false keeps every round's): later rounds find rarer rules,
whose confidences on a small dense graph are more often high by chance, so
a longer budget keeps a shorter one's rules when the validation split says
they rank better; --rules writes the rules kept. A candidate's score
combines the confidences of the rules predicting it (--score noisy-or over the
candidate's --noisy-or-k best rules, the default without --valid, a rule
that predicts for the query exactly the candidates of a more confident rule
counting once; learned, the default with --valid; maxplus, max, clustered,
or psl). --score clustered is the non-redundant
noisy-or of Ott, Meilicke and Stuckenschmidt ("SAFRAN: An interpretable,
rule-based link prediction method outperforming embedding models"): rules
of a relation whose predictions overlap (Jaccard index of the triples they
predict for the validation queries and for --cluster-starts random heads
and tails of the relation) are joined into clusters; a cluster counts once,
with its largest confidence, and the score is the noisy-or over the
candidate's --noisy-or-k best clusters. The Jaccard threshold of each
relation, query direction and kind of rule (cyclic, with a body constant,
other) is chosen to maximise the MRR of --cluster-valid of the --valid
triples (filtered by the graph and the validation triples only; the test
triples play no part). --score learned re-ranks each query's noisy-or list:
a candidate's score is the sum over its --noisy-or-k best rules of
-log(1 - confidence) times a weight of the rule's class (cyclic of 1, 2 or 3
atoms, acyclic with a body constant or a free variable, default) and place
among them (noisy-or: every weight 1), the weights fitted on --learned-valid
of the --valid triples (filtered as for clustered) to make their true
answers likely under a softmax of the scores. With --score psl
each relation's --psl-rules best rules become a PSL model whose weights PPLL
learns from --psl-train sampled training triples; each query's
--psl-candidates best maxplus candidates are then re-scored by MAP inference
(ADMM), and --psl-out DIR writes that model, its data and the inferred values
for hinge infer.

Each query's list holds its --top-k best candidates (and those tied with the
k-th), known answers (train, facts, valid and test triples) other than the
query's own left out; a query stops applying rules once its list can no
longer change. --predictions writes the lists in AnyBURL's format: per test
triple "h r t", "Heads: " and "Tails: " lines of candidates and scores, best
first, the scores written so that sorting by them gives hinge's order (a
tie-break folded in as the smallest steps below the score) and equal scores
are ties. The terminal and --report give filtered MRR and Hits@1/3/10 over
head and tail queries together: the true answer's rank in its list counts
half of the candidates tied with it; a true answer not in its list is a
miss. Any evaluator reading the file gets the same figures. The predictions
are written while ranking, to a file put in place only when the run
succeeds, so that ranking holds no list but with --html. --rules writes the
learned rules (body groundings, support, confidence, rule); --rules-in ranks
with a rules file instead of learning (AnyBURL's too: its me_myself_i is
the rule's own variable, r(X,me_myself_i) the self-loop r(X,X), and lines
starting with # are comments). A cancelled run (Ctrl-C, SIGTERM) writes
nothing.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.timeSet = cmd.Flags().Changed("time")
			for _, name := range slices.Sorted(maps.Keys(scoringFlags)) {
				if cmd.Flags().Changed(name) {
					o.scoringSet = append(o.scoringSet, name)
				}
			}
			o.chooseValidSet = cmd.Flags().Changed("choose-valid")
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.train, "train", "", "training triples (the graph rules are learned from and applied to)")
	f.StringVar(&o.valid, "valid", "", "validation triples (filter the rankings; choose the learning rounds kept, see --choose-rounds; fit learned scoring's weights, the default with them, and clustered's thresholds)")
	f.StringVar(&o.test, "test", "", "test triples to answer")
	f.StringVar(&o.facts, "facts", "", "background triples added to the graph")
	f.StringVar(&o.predictions, "predictions", "", "write the ranked candidates here (AnyBURL's format; written while ranking to a temporary .NAME.tmp* file beside it, put in place when the run succeeds)")
	f.StringVar(&o.rules, "rules", "", "write the rules learned and kept here (body groundings, support, confidence, rule; tab-separated)")
	f.StringVar(&o.rulesIn, "rules-in", "", "rank with the rules of this file (as --rules writes them, or AnyBURL's) instead of learning")
	f.StringVar(&o.report, "report", "", "write a JSON report here")
	f.StringVar(&o.score, "score", "auto", "combination of rule confidences: learned (noisy-or weighted by rule class and place, weights fitted on --valid), noisy-or (over each candidate's --noisy-or-k best rules), maxplus, max, psl, clustered (noisy-or over clusters of redundant rules, thresholds chosen on --valid); auto: learned with --valid (unless it holds no triple), noisy-or without")
	f.IntVar(&o.cluster.Starts, "cluster-starts", 10, "clustered: random heads (and as many tails) of each relation from which the rules' predictions are sketched, beside the validation queries', to compare rules")
	f.IntVar(&o.cluster.MaxValid, "cluster-valid", 3000, "clustered: validation triples the thresholds are chosen on, a seeded sample when there are more (0: all)")
	f.IntVar(&o.learnedValid, "learned-valid", 5000, "learned: validation triples the weights are fitted on, a seeded sample when there are more (0: all)")
	f.IntVar(&o.psl.Candidates, "psl-candidates", 20, "psl: best maxplus candidates per query re-scored by MAP inference")
	f.IntVar(&o.psl.RulesPerRelation, "psl-rules", 30, "psl: best rules per relation in the PSL model")
	f.IntVar(&o.psl.TrainQueries, "psl-train", 300, "psl: training triples sampled to learn the weights from")
	f.StringVar(&o.pslOut, "psl-out", "", "psl: write the model (model.psl), its inference data (kgc.data) and the inferred values (values.tsv) to this directory, as one set (a directory holding files hinge did not write is refused)")
	f.IntVar(&o.topK, "top-k", 100, "candidates written per query")
	f.IntVar(&o.noisyOrK, "noisy-or-k", kgc.DefaultNoisyOrK, "noisy-or, learned, clustered: noisy-or combines this many of a candidate's best rules")
	f.StringVar(&o.confidence, "confidence", "point", "rule confidence ranked with: point (support / (body + pc)) or lower (the lower end of its 95% Wilson interval, less a sampled count's error: thin evidence ranks lower)")
	f.DurationVar(&o.learn.Time, "time", 10*time.Second, "learning budget (the rounds that fit in it; see --rounds)")
	f.BoolVar(&o.chooseRounds, "choose-rounds", true, "with --valid: keep the rules of all n learning rounds or of the first n/2, n/4, ... down to 1, whichever rank the validation triples best")
	f.IntVar(&o.chooseValid, "choose-valid", 1000, "validation triples --choose-rounds ranks, a seeded sample when there are more (0: all)")
	f.IntVar(&o.learn.Rounds, "rounds", 0, "learn for this many sampling rounds (the same rules on any machine, unless learning's memory stop ends them first: the output says so); without --time, no time limit")
	f.IntVar(&o.learn.SamplesPerRound, "round-paths", 20000, "most paths sampled per round (the first samples 1,000, each next one twice as many)")
	f.IntVar(&o.learn.Sample, "sample", 1000, "body starts drawn to estimate a cyclic rule's confidence (0: count every start, exactly)")
	f.Float64Var(&o.learn.SampleErr, "sample-err", 0.01, "stop drawing starts once the confidence's 95% interval is this narrow (0: draw --sample)")
	f.BoolVar(&o.exhaustive, "exhaustive", false, "apply every rule to every query (the same lists, slower; for checking)")
	f.IntVar(&o.learn.MaxLength, "max-length", 3, "longest cyclic rule body (1-3)")
	f.IntVar(&o.learn.MinSupport, "min-support", 2, "drop rules with less support")
	f.Float64Var(&o.learn.MinConf, "min-conf", 0.0001, "drop rules with less confidence")
	f.Float64Var(&o.learn.PC, "pc", 5, "confidence smoothing: support / (body + pc); 0: none, support / body")
	f.Uint64Var(&o.learn.Seed, "seed", 1, "seed of the path sampling")
	f.IntVar(&o.learn.Threads, "threads", 0, "threads (0: all cores)")
	f.BoolVar(&o.quiet, "quiet", false, "no progress: none on a terminal, and no line every few seconds elsewhere")
	o.explain.add(cmd, "kgc")
	return cmd
}

func (o *kgcOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	start := time.Now()
	switch {
	case o.train == "" || (o.test == "" && len(o.explain.atoms) == 0):
		return badInput(errors.New("give --train and --test (and --valid, --facts when there are such files); --test may be left out to --explain triples only"))
	case o.test == "":
		// Explaining triples only: nothing is ranked but their queries.
		for _, out := range []struct{ flag, path string }{{"--predictions", o.predictions}, {"--html", o.explain.html}, {"--report", o.report}} {
			if out.path != "" {
				return badInput(fmt.Errorf("%s needs --test: without it, only the --explain triples' queries are ranked", out.flag))
			}
		}
	}
	// auto: learned when there are validation triples to fit on (a
	// --valid file without any falls back to noisy-or once read).
	auto := o.score == "auto"
	if auto {
		o.score = "noisy-or"
		if o.valid != "" {
			o.score = "learned"
		}
	}
	scoring, err := kgc.ParseScoring(o.score)
	if err != nil {
		return badInput(fmt.Errorf("--score: %w, or auto", err))
	}
	confidence, err := kgc.ParseConfidence(o.confidence)
	if err != nil {
		return badInput(fmt.Errorf("--confidence: %w", err))
	}
	if err := o.checkScoringFlags(scoring, auto, o.valid == ""); err != nil {
		return err
	}
	if err := o.explain.checkKGC(scoring); err != nil {
		return err
	}
	if scoring == kgc.Clustered {
		switch {
		case o.explain.explains():
			return badInput(fmt.Errorf("%s: not with --score clustered: explanations recombine scores from rule confidences (noisy-or, maxplus, max, learned)", o.explain.flagNames()))
		case o.valid == "":
			return badInput(errors.New("--score clustered chooses its clustering thresholds on the validation triples: give --valid"))
		case o.cluster.Starts < 0:
			return badInput(fmt.Errorf("--cluster-starts %d: must be >= 0", o.cluster.Starts))
		case o.cluster.MaxValid < 0:
			return badInput(fmt.Errorf("--cluster-valid %d: must be >= 0", o.cluster.MaxValid))
		}
		o.cluster.Starts, o.cluster.MaxValid = flagZero(o.cluster.Starts), flagZero(o.cluster.MaxValid) // none, all
	}
	if scoring == kgc.Learned {
		switch {
		case o.valid == "":
			return badInput(errors.New("--score learned fits its weights on the validation triples: give --valid"))
		case o.learnedValid < 0:
			return badInput(fmt.Errorf("--learned-valid %d: must be >= 0", o.learnedValid))
		}
	}
	switch {
	case o.learn.Time <= 0 && (o.timeSet || o.learn.Rounds == 0):
		return badInput(fmt.Errorf("--time %v: must be > 0", o.learn.Time))
	case o.learn.Rounds < 0:
		return badInput(fmt.Errorf("--rounds %d: must be >= 0", o.learn.Rounds))
	case o.learn.SamplesPerRound < 1:
		return badInput(fmt.Errorf("--round-paths %d: must be >= 1", o.learn.SamplesPerRound))
	case o.learn.Sample < 0:
		return badInput(fmt.Errorf("--sample %d: must be >= 0", o.learn.Sample))
	case !(o.learn.SampleErr >= 0 && o.learn.SampleErr <= 1):
		return badInput(fmt.Errorf("--sample-err %v: must be between 0 and 1", o.learn.SampleErr))
	case o.learn.MaxLength < 1 || o.learn.MaxLength > kgc.MaxPath:
		return badInput(fmt.Errorf("--max-length %d: must be between 1 and %d", o.learn.MaxLength, kgc.MaxPath))
	case o.learn.MinSupport < 1:
		return badInput(fmt.Errorf("--min-support %d: must be >= 1", o.learn.MinSupport))
	case !(o.learn.PC >= 0) || math.IsInf(o.learn.PC, 1):
		return badInput(fmt.Errorf("--pc %v: must be a number >= 0", o.learn.PC))
	case !(o.learn.MinConf >= 0 && o.learn.MinConf <= 1):
		return badInput(fmt.Errorf("--min-conf %v: must be between 0 and 1 (a confidence)", o.learn.MinConf))
	case o.learn.Threads < 0:
		return badInput(fmt.Errorf("--threads %d: must be >= 0 (0: all cores)", o.learn.Threads))
	case o.topK < 1:
		return badInput(fmt.Errorf("--top-k %d: must be >= 1", o.topK))
	case o.psl.Candidates < 1 || o.psl.RulesPerRelation < 1 || o.psl.TrainQueries < 1:
		return badInput(fmt.Errorf("--psl-candidates, --psl-rules and --psl-train must be >= 1"))
	case o.noisyOrK < 1:
		return badInput(fmt.Errorf("--noisy-or-k %d: must be >= 1", o.noisyOrK))
	case o.chooseValid < 0:
		return badInput(fmt.Errorf("--choose-valid %d: must be >= 0", o.chooseValid))
	}
	if o.learn.Rounds > 0 && !o.timeSet {
		o.learn.Time = 0 // the rounds are the budget
	}
	// no smoothing, exact, never
	o.learn.PC, o.learn.Sample, o.learn.SampleErr = flagZero(o.learn.PC), flagZero(o.learn.Sample), flagZero(o.learn.SampleErr)
	inputs := []string{o.train, o.valid, o.test, o.facts, o.rulesIn}
	if err := checkOutputs(inputs, append([]output{{flag: "--predictions", path: o.predictions}, {flag: "--rules", path: o.rules},
		{flag: "--report", path: o.report}, {flag: "--psl-out", path: o.pslOut, dir: true}}, o.explain.outputs()...)...); err != nil {
		return err
	}
	// The outputs written to standard output or error stay whole.
	stdout, stderr = routeMessages(ctx, stdout, stderr, false, o.predictions, o.rules, o.report, o.explain.json, o.explain.html)
	unlock, err := lockOutputDir("--psl-out", o.pslOut)
	if err != nil {
		return err
	}
	defer unlock()
	prog := newKGCProgress(stderr, o.quiet)
	defer prog.stop()
	// A cancelled run says so in the words of every other command
	// (main's cancelMessage), whatever step it stopped.
	cancelled := func(err error) error {
		if ctx.Err() != nil {
			return failed(ctx.Err())
		}
		return failed(err)
	}
	v := kgc.NewVocab()
	read := func(path string) ([]kgc.Triple, error) {
		if path == "" {
			return nil, nil
		}
		prog.set("reading %s", clipPath(path))
		ts, err := kgc.ReadTriples(ctx, path, v)
		if err != nil {
			if ctx.Err() != nil {
				return nil, cancelled(err)
			}
			return nil, badInput(err)
		}
		return ts, nil
	}
	train, err := read(o.train)
	if err != nil {
		return err
	}
	facts, err := read(o.facts)
	if err != nil {
		return err
	}
	valid, err := read(o.valid)
	if err != nil {
		return err
	}
	if o.valid != "" && len(valid) == 0 {
		// Nothing to choose rounds or fit on: auto scores with noisy-or,
		// and the flags of what validation triples drive are checked again.
		if auto {
			scoring = kgc.NoisyOr
		}
		if err := o.checkScoringFlags(scoring, auto, true); err != nil {
			return err
		}
	}
	test, err := read(o.test)
	if err != nil {
		return err
	}
	var rulesIn []kgc.Rule
	if o.rulesIn != "" {
		// Read after the triples, so that their entities keep the ids a
		// learning run gives them (ties are listed in id order: the
		// predictions then equal the run's that wrote the rules), and
		// before the graph is built, so that the rules' names are in the
		// vocabulary it is sized for.
		f, err := textfile.Open(o.rulesIn)
		if err != nil {
			return badInput(err)
		}
		rulesIn, err = kgc.ReadRulesWithin(o.rulesIn, f, v, memlimit.Current())
		f.Close()
		var at *srcpos.Error
		switch {
		case errors.Is(err, kgc.ErrRulesOutgrowMemory) && errors.As(err, &at):
			return badInput(fmt.Errorf("%w: raise --%s, or rank fewer rules (the most confident: sort the file by its third column)", at, memoryLimitFlag))
		case err != nil:
			return badInput(err)
		}
		if len(rulesIn) == 0 {
			return badInput(fmt.Errorf("%s: no rules in it (only blank or # comment lines): nothing to rank with", o.rulesIn))
		}
	}
	explained, err := o.explain.findKGC(v)
	if err != nil {
		return err
	}
	graphTriples := append(append([]kgc.Triple(nil), train...), facts...)
	if len(graphTriples) == 0 {
		return badInput(fmt.Errorf("%s: no triples: nothing to learn rules from", o.train))
	}
	names := kgc.NamesOf(graphTriples)
	var uses []string // what the validation triples drive
	if o.noRoundsChosen(len(valid) == 0) == "" {
		uses = append(uses, "the rounds are chosen")
	}
	if scoring == kgc.Learned || scoring == kgc.Clustered {
		uses = append(uses, "the scoring is fitted")
	}
	o.warnInputs(stderr, v, names, [][]kgc.Triple{train, facts, valid, test}, rulesIn, strings.Join(uses, " or "))
	g := kgc.NewGraph(graphTriples, len(v.Entities), len(v.Relations))
	// The graph's own entities and relations (the vocabulary also holds
	// those only the other files name).
	nEnt, nRel := names.Count()
	// Validation queries (choosing the rounds, clustering) are filtered
	// by what is known without the test triples.
	kv := tripleSet(train, facts, valid)
	knownValid := func(t kgc.Triple) bool { return kv[t] }
	known := maps.Clone(kv)
	for _, t := range test {
		known[t] = true
	}
	loadSec := time.Since(start).Seconds()

	lr := &kgc.LearnResult{Rules: rulesIn}
	var intervals kgc.Intervals  // of the learned rules' sampled confidences
	var chosen *kgc.RoundsChoice // the rounds kept
	if o.rulesIn == "" {
		learnStart := time.Now()
		budget := fmt.Sprintf("%v", o.learn.Time)
		if o.learn.Rounds > 0 {
			budget = fmt.Sprintf("%d rounds", o.learn.Rounds)
		}
		prog.set("learning rules (%s): round 1", budget)
		o.learn.Progress = func(st kgc.RoundStat) {
			prog.set("learning rules (%s): %d rounds done, %d rules, %.0f s", budget, st.Round, st.Rules, time.Since(learnStart).Seconds())
		}
		o.learn.MemoryLimit = memlimit.Current()
		lr, err = kgc.Learn(ctx, g, o.learn)
		if err != nil {
			return cancelled(err)
		}
		prog.clear()
		stopped := map[string]string{"time": "the time budget passed, the round running then dropped", "rounds": "the rounds asked for were done",
			"saturated": "a round found no new rule", "memory": "another round would have outgrown learning's share (60%) of --" + memoryLimitFlag}[lr.Stopped]
		fmt.Fprintf(stdout, "graph: %s; learned %s (%s counted in %s; stopped: %s; %.2f s)\n",
			graphSize(nEnt, nRel, len(g.Triples)), plural(len(lr.Rules), "rule", ""), plural(lr.Candidates, "candidate", ""), plural(lr.Rounds, "round", ""), stopped, lr.Seconds)
		if o.chooseRounds && len(valid) > 0 && lr.Rounds > 1 {
			if chosen, err = o.keepRounds(ctx, g, lr, valid, knownValid, scoring, confidence, prog); err != nil {
				return cancelled(err)
			}
			fmt.Fprintln(stdout, chosenLine(chosen, len(lr.Rules), kgc.RoundsScoring(scoring)))
		}
		if lr.Sampled > 0 {
			intervals = kgc.IntervalsOf(lr.Rules)
			fmt.Fprintln(stdout, intervalsLine(intervals, lr.Rules, v))
		}
	} else {
		fmt.Fprintf(stdout, "graph: %s; %s read from %s\n",
			graphSize(nEnt, nRel, len(g.Triples)), plural(len(lr.Rules), "rule", ""), clipPath(o.rulesIn))
	}
	rankStart := time.Now()
	rk := kgc.NewRanker(g, lr.Rules, scoring)
	rk.NoisyOrK = o.noisyOrK
	rk.SetConfidence(confidence)
	evalOpt := kgc.EvalOptions{TopK: o.topK, Exhaustive: o.exhaustive, Threads: o.learn.Threads, ADMM: admm.DefaultOptions(),
		Progress: func(done, total int) {
			prog.set("ranking: %d of %d queries, %.0f s", done, total, time.Since(rankStart).Seconds())
		}}
	var pslAtoms []kgc.Triple
	var pslValues []float64
	if scoring == kgc.PSL {
		o.psl.Seed, o.psl.Threads = o.learn.Seed, o.learn.Threads
		prog.set("psl: learning the weights")
		if evalOpt.PSL, err = rk.NewPSL(ctx, v, o.psl); err != nil {
			return cancelled(err)
		}
		prog.clear()
		lr := evalOpt.PSL.Learn
		fmt.Fprintf(stdout, "psl: %d rules, weights learned by PPLL in %d iterations (%.2f s)\n", len(evalOpt.PSL.Model.Rules), lr.Iterations, lr.Seconds)
		for _, line := range evalOpt.PSL.Renamed() {
			fmt.Fprintf(stdout, "psl: %s (a PSL predicate name is an identifier, and names that differ only in case are one)\n", line)
		}
		if o.pslOut != "" {
			evalOpt.PSLDump = func(atoms []kgc.Triple, values []float64) error {
				pslAtoms, pslValues = atoms, values
				return nil
			}
		}
	}
	var clusterRep *kgc.ClusterReport
	var clusterSec float64
	if scoring == kgc.Clustered {
		clusterStart := time.Now()
		prog.set("clustered: comparing rules and choosing thresholds on %d validation triples", upTo(len(valid), o.cluster.MaxValid))
		o.cluster.Seed, o.cluster.Threads, o.cluster.TopK = o.learn.Seed, o.learn.Threads, o.topK
		clusterRep, err = rk.Cluster(ctx, valid, knownValid, o.cluster)
		if err != nil {
			return cancelled(err)
		}
		clusterSec = time.Since(clusterStart).Seconds()
		prog.clear()
		fmt.Fprintf(stdout, "clustered: %d rules share a cluster with a more confident rule (over both directions); thresholds chosen on %d validation queries: validation MRR %.4f (%.4f with every rule its own cluster, as the search scores both: a candidate's most confident rules only, so below plain noisy-or's); %.2f s\n",
			clusterRep.Merged, clusterRep.ValidQueries, clusterRep.ValidMRR, clusterRep.ValidMRRUnclustered, clusterSec)
	}
	var learnedRep *kgc.LearnedReport
	var fitSec float64
	if scoring == kgc.Learned {
		fitStart := time.Now()
		prog.set("learned: fitting the weights on %d validation triples", upTo(len(valid), o.learnedValid))
		learnedRep, err = rk.FitWeights(ctx, valid, knownValid, kgc.LearnedOptions{Seed: o.learn.Seed, MaxValid: flagZero(o.learnedValid), TopK: o.topK, Threads: o.learn.Threads})
		if err != nil {
			return cancelled(err)
		}
		fitSec = time.Since(fitStart).Seconds()
		prog.clear()
		if learnedRep.Fitted == 0 {
			fmt.Fprintf(stdout, "learned: no weights fitted: none of the %d validation queries (2 per triple in the graph's entities and relations) has its true answer and another candidate in its list; every weight stays 1 (noisy-or's order; the scores are -log(1 - noisy-or))\n", learnedRep.ValidQueries)
		} else {
			fmt.Fprintf(stdout, "learned: weights of %d rule classes x %d places fitted on %d validation queries (2 per triple; %d with the true answer and another candidate in their list), %d iterations: validation MRR %.4f in sample (noisy-or %.4f); %.2f s\n",
				len(kgc.RuleClasses), max(o.noisyOrK, 1), learnedRep.ValidQueries, learnedRep.Fitted, learnedRep.Iterations, learnedRep.ValidMRR, learnedRep.ValidMRRNoisyOr, fitSec)
		}
	}
	isKnown := func(t kgc.Triple) bool { return known[t] }
	defer o.explain.discard() // a report rendered but not put in place
	writeRules := func() error {
		if o.rules == "" {
			return nil
		}
		return failedIf(atomicfile.Write(o.rules, func(w io.Writer) error { return kgc.WriteRules(w, lr.Rules, v) }))
	}
	if o.test == "" {
		// Only the --explain triples: their two queries each are ranked
		// (every rule applied, known answers left out), no test set.
		prog.stop()
		if err := o.explain.prepareKGC(ctx, g, v, rk, isKnown, explained, nil, nil, o.topK); err != nil {
			return err
		}
		if err := writeRules(); err != nil {
			return err
		}
		return o.explain.finish(stdout)
	}
	// The predictions are written as the queries are ranked, to a file
	// put in place only once the run succeeded, so that the lists need
	// not all be held (--html needs them).
	var predFile *atomicfile.File
	var predWriter *kgc.PredictionWriter
	if o.predictions != "" && o.explain.html == "" {
		if predFile, err = atomicfile.Create(o.predictions); err != nil {
			return failed(err)
		}
		defer predFile.Abort()
		predWriter = kgc.NewPredictionWriter(predFile, v)
		evalOpt.Answers = func(i int, heads, tails kgc.Answer) error { return predWriter.Write(test[i], heads, tails) }
	}
	prog.set("ranking: 0 of %d queries", 2*len(test))
	ev, err := rk.Evaluate(ctx, test, isKnown, evalOpt)
	if err != nil {
		if ctx.Err() == nil && predFile != nil {
			err = fmt.Errorf("writing %s: %w", o.predictions, err)
		}
		return cancelled(err)
	}
	rankSec := time.Since(rankStart).Seconds() - clusterSec - fitSec // clustering and fitting have their own lines
	prog.stop()
	// Explanations before any output: a run cancelled meanwhile writes
	// nothing.
	if err := o.explain.prepareKGC(ctx, g, v, rk, isKnown, explained, test, ev, o.topK); err != nil {
		return err
	}
	// Every output is written only now, after the work succeeded.
	if err := writeRules(); err != nil {
		return err
	}
	switch {
	case predWriter != nil:
		if err := predWriter.Flush(); err != nil {
			return failed(fmt.Errorf("writing %s: %w", o.predictions, err))
		}
		if err := predFile.Commit(); err != nil {
			return failed(err)
		}
	case o.predictions != "":
		if err := atomicfile.Write(o.predictions, func(w io.Writer) error { return ev.WritePredictions(w, test, v) }); err != nil {
			return failed(err)
		}
	}
	if o.pslOut != "" {
		// One set, as infer --output writes it: a user's file in the
		// directory refuses the run (checked above, before any work) and
		// is never overwritten.
		err := atomicfile.WriteDir(o.pslOut, func(tmp string) error {
			if err := evalOpt.PSL.WriteFiles(tmp, pslAtoms); err != nil {
				return err
			}
			return atomicfile.Write(filepath.Join(tmp, "values.tsv"), func(w io.Writer) error { return evalOpt.PSL.WriteValues(w, pslAtoms, pslValues) })
		})
		if err != nil {
			return failed(err)
		}
	}
	if err := o.explain.finish(stdout); err != nil {
		return err
	}
	m := ev.Metrics
	med, p90, maxq := ev.QueryTimes()
	fmt.Fprintf(stdout, "%s: %d test queries: MRR %.4f, Hits@1 %.4f, Hits@3 %.4f, Hits@10 %.4f (top %d; ranking %.2f s, per query median %.3g ms, 90%% %.3g ms, max %.3g ms)\n",
		scoring, m.Queries, m.MRR, m.Hits1, m.Hits3, m.Hits10, o.topK, rankSec, 1000*med, 1000*p90, 1000*maxq)
	if o.report != "" {
		r := kgcReport{Scoring: scoring.String(), Confidence: confidence.String(), Entities: nEnt, Relations: nRel, GraphTriples: len(g.Triples),
			TestTriples: len(test), Rules: len(lr.Rules), Candidates: lr.Candidates, Seed: o.learn.Seed, Rounds: lr.Rounds, KeptRounds: lr.Kept, Stopped: lr.Stopped,
			SampledRules: lr.Sampled, MaxConfErr: lr.MaxErr, TopK: o.topK, Metrics: m, RoundLog: lr.Log, PeakMemoryMB: measure.PeakRSSMB(), Cluster: clusterRep, Learned: learnedRep,
			ChosenRounds: chosen}
		r.Seconds.Load, r.Seconds.Learn, r.Seconds.Cluster, r.Seconds.Fit, r.Seconds.Rank, r.Seconds.Total = loadSec, lr.Seconds, clusterSec, fitSec, rankSec, time.Since(start).Seconds()
		if chosen != nil {
			r.Seconds.Choose = chosen.Seconds
		}
		r.QuerySeconds.Median, r.QuerySeconds.P90, r.QuerySeconds.Max = med, p90, maxq
		if iv := intervals; iv.Sampled > 0 {
			r.SampledErr.Median, r.SampledErr.P90 = iv.MedianErr, iv.P90Err
			if iv.Widest >= 0 {
				r.SampledErr.Widest = &widestInterval{Rule: lr.Rules[iv.Widest].Format(v), Conf: lr.Rules[iv.Widest].Conf, Low: iv.Lo, High: iv.Hi}
			}
		}
		r.QueryRules.Firing, r.QueryRules.Applied, r.QueryRules.Share = ev.RulesApplied()
		if err := writeJSON(o.report, r); err != nil {
			return failed(err)
		}
	}
	var wrote []string
	for _, p := range []string{o.predictions, o.rules, o.pslOut, o.explain.json, o.explain.html, o.report} {
		if p != "" {
			wrote = append(wrote, p)
		}
	}
	if len(wrote) > 0 {
		fmt.Fprintf(stdout, "wrote %s\n", strings.Join(wrote, ", "))
	}
	return nil
}

// warnInputs warns, on stderr, of input that is read but is likely not
// what the user meant: a header line read as a triple, rules (--rules-in)
// and validation and test triples whose relations or entities the graph
// never names, and no --valid (validation triples then count as wrong
// answers in the filtered ranking), naming a validation file beside the
// training file when there is one. validUse says what the validation
// triples drive ("the rounds are chosen", ...; empty: nothing).
func (o *kgcOptions) warnInputs(stderr io.Writer, v *kgc.Vocab, graph kgc.GraphNames, files [][]kgc.Triple, rules []kgc.Rule, validUse string) {
	text := func(t kgc.Triple) string {
		return fmt.Sprintf("%q", v.Entities[t.H]+" "+v.Relations[t.R]+" "+v.Entities[t.T])
	}
	for i, path := range []string{o.train, o.facts, o.valid, o.test} {
		if ts := files[i]; len(ts) > 0 && kgc.HeaderLike(ts[0], files...) {
			fmt.Fprintf(stderr, "hinge kgc: warning: %s: the first triple, %s, looks like a header line: its relation and entities appear in no other triple; it is read as a triple (remove the line if it is a header)\n",
				clipPath(path), text(ts[0]))
		}
	}
	if o.rules != "" || o.rulesIn != "" {
		var named []string
		for _, e := range v.Entities {
			if kgc.ReadsAsVariable(e) {
				named = append(named, e)
			}
		}
		if len(named) > 0 {
			fmt.Fprintf(stderr, "hinge kgc: warning: %d entities are named as a rules file names variables (%s; one capital letter, A1, A2, ..., or AnyBURL's %s, a rule's own variable): in a rules file (--rules, --rules-in) those names are variables, so a rule with one of these entities as a constant cannot be written (--rules leaves it out) or given (--rules-in reads it as another rule)\n",
				len(named), strings.Join(named[:min(len(named), 5)], ", "), kgc.SelfToken)
		}
	}
	if o.rulesIn != "" && o.confidence == "lower" {
		fmt.Fprintf(stderr, "hinge kgc: warning: --confidence lower with --rules-in: a rules file holds no sampling error, so the lower confidences of rules whose counts were sampled are those of exact counts (the run that learned them ranked them lower)\n")
	}
	if n, first := graph.RulesOff(rules); n > 0 {
		fmt.Fprintf(stderr, "hinge kgc: warning: %s: %d of %d rules name a relation the graph never names, first %s; they can never fire (rules of another data set?)\n",
			clipPath(o.rulesIn), n, len(rules), rules[first].Format(v))
	}
	validSo := ""
	if validUse != "" {
		validSo = "; such triples tell nothing when " + validUse
	}
	for _, f := range []struct {
		path, what, so string
		ts             []kgc.Triple
	}{
		{o.valid, "validation", validSo, files[2]},
		{o.test, "test", "", files[3]},
	} {
		u := graph.Unseen(f.ts)
		if u.Entity > 0 {
			fmt.Fprintf(stderr, "hinge kgc: warning: %s: %d of %d %s triples name an entity that no triple of the graph (--train, --facts) names, first %s; rules learned from the graph can neither start from such an entity nor predict it%s\n",
				clipPath(f.path), u.Entity, len(f.ts), f.what, text(f.ts[u.FirstEntity]), f.so)
		}
		if u.Relation > 0 {
			fmt.Fprintf(stderr, "hinge kgc: warning: %s: %d of %d %s triples have a relation the graph never names, first %s; no rule is learned for it%s\n",
				clipPath(f.path), u.Relation, len(f.ts), f.what, text(f.ts[u.FirstRelation]), f.so)
		}
	}
	if o.valid == "" {
		hint := ""
		for _, name := range []string{"valid.txt", "valid", "valid.tsv", "dev.txt", "validation.txt"} {
			p := filepath.Join(filepath.Dir(o.train), name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				hint = fmt.Sprintf("; %s is beside the training file: give --valid %s", clipPath(p), clipPath(p))
				break
			}
		}
		fmt.Fprintf(stderr, "hinge kgc: note: no --valid: the filtered ranking leaves out the known answers of --train, --facts and --test only, so a data set's validation triples count as wrong answers and lower the MRR%s\n", hint)
	}
}

// plural is n and the noun, the plural form (noun + "s" when empty)
// unless n is 1.
func plural(n int, noun, nouns string) string {
	if n == 1 {
		return "1 " + noun
	}
	if nouns == "" {
		nouns = noun + "s"
	}
	return fmt.Sprintf("%d %s", n, nouns)
}

// graphSize says a graph's size in the kgc output's words.
func graphSize(entities, relations, triples int) string {
	return plural(entities, "entity", "entities") + ", " + plural(relations, "relation", "") + ", " + plural(triples, "triple", "")
}

// widestInterval is the report's widest sampled confidence interval that
// matters (kgc.Intervals).
type widestInterval struct {
	Rule string  `json:"rule"`
	Conf float64 `json:"conf"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// intervalsLine says how exact the sampled confidences are: their
// intervals' half-widths at the median and the 90th percentile, and the
// widest interval of a rule confident enough to place a candidate (a
// wide one of a rule below kgc.MattersConf says little).
func intervalsLine(iv kgc.Intervals, rules []kgc.Rule, v *kgc.Vocab) string {
	line := fmt.Sprintf("confidences: %d rules estimated from sampled starts (the others counted exactly); 95%% intervals +-%.2g at the median, +-%.2g at the 90th percentile",
		iv.Sampled, iv.MedianErr, iv.P90Err)
	if iv.Widest < 0 {
		return line + fmt.Sprintf("; none of a rule with confidence >= %g", kgc.MattersConf)
	}
	r := &rules[iv.Widest]
	return line + fmt.Sprintf("; widest with confidence >= %g: %.3f in [%.3f, %.3f] for %s (--sample draws more starts, 0 counts exactly)",
		kgc.MattersConf, r.Conf, iv.Lo, iv.Hi, r.Format(v))
}

// kgcProgress shows what a kgc run is doing: on a terminal a status line
// redrawn a few times a second, elsewhere (a log, a pipe) one line every
// kgcProgressEvery, with the time since the run began.
type kgcProgress struct {
	mu      sync.Mutex
	status  string
	term    *progress.Reporter
	w       io.Writer
	begin   time.Time
	done    chan struct{}
	stopped bool
}

// kgcProgressEvery is how often a kgc run not on a terminal prints its
// status.
var kgcProgressEvery = 5 * time.Second

func newKGCProgress(stderr io.Writer, quiet bool) *kgcProgress {
	p := &kgcProgress{begin: time.Now(), done: make(chan struct{})}
	if quiet {
		p.stopped = true
		return p
	}
	p.term = progress.ForTerminal(stderr, false)
	every := kgcProgressEvery
	if p.term != nil {
		every = 200 * time.Millisecond
	} else {
		p.w = stderr
	}
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-tick.C:
				p.show()
			}
		}
	}()
	return p
}

// kgcPhaseHook, when set (by tests), sees every status a kgc run sets.
var kgcPhaseHook func(status string)

func (p *kgcProgress) set(format string, args ...any) {
	p.mu.Lock()
	p.status = fmt.Sprintf(format, args...)
	status := p.status
	p.mu.Unlock()
	if kgcPhaseHook != nil {
		kgcPhaseHook(status)
	}
}

func (p *kgcProgress) show() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.status == "" {
		return
	}
	if p.term != nil {
		p.term.Status("%s", p.status)
		return
	}
	fmt.Fprintf(p.w, "kgc: %s (%.0f s since start)\n", p.status, time.Since(p.begin).Seconds())
}

// clear takes the status line off a terminal before the run prints a
// line of its own; the next set shows a status again.
func (p *kgcProgress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = ""
	if !p.stopped {
		p.term.Done()
	}
}

// stop ends the display, clearing a terminal's status line; it may be
// called more than once.
func (p *kgcProgress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.done)
	p.term.Done()
}

// flagZero is a flag's 0 as the kgc package reads it: the package reads 0
// as its default and a negative value as none, all or never, which is what
// the flag's 0 means.
func flagZero[T int | float64](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// upTo is how many of n triples a sample of a flag's size max takes (0:
// all).
func upTo(n, max int) int {
	if max > 0 {
		return min(n, max)
	}
	return n
}

// tripleSet is the set of the triples of sets.
func tripleSet(sets ...[]kgc.Triple) map[kgc.Triple]bool {
	m := map[kgc.Triple]bool{}
	for _, ts := range sets {
		for _, t := range ts {
			m[t] = true
		}
	}
	return m
}

// keepRounds chooses on the validation triples the rounds whose rules lr
// keeps (kgc.ChooseRounds), ranked as the run ranks (clustered as
// noisy-or, psl as maxplus), filtered by known.
func (o *kgcOptions) keepRounds(ctx context.Context, g *kgc.Graph, lr *kgc.LearnResult, valid []kgc.Triple, known func(kgc.Triple) bool,
	scoring kgc.Scoring, confidence kgc.Confidence, prog *kgcProgress) (*kgc.RoundsChoice, error) {
	ch, err := kgc.ChooseRounds(ctx, g, lr.Rules, lr.Rounds, valid, known, kgc.RoundsOptions{
		Scoring: scoring, NoisyOrK: o.noisyOrK, Confidence: confidence, MaxValid: flagZero(o.chooseValid), TopK: min(o.topK, kgc.DefaultRoundsTopK),
		Threads: o.learn.Threads, Seed: o.learn.Seed,
		Progress: func(c int) {
			prog.set("choosing the rounds kept: ranking the validation triples with the rules of %d of %d rounds", c, lr.Rounds)
		}})
	if err != nil {
		return nil, err
	}
	prog.clear()
	lr.KeepRounds(ch.Rounds)
	return ch, nil
}

// chosenLine says which rounds' rules were kept and why: the validation
// MRR of the rules kept and of all, ranked with scoring s, and the
// standard error of their paired difference, on the sample and, when a
// choice of fewer rounds was checked on a larger one, on that.
func chosenLine(ch *kgc.RoundsChoice, rules int, s kgc.Scoring) string {
	var cps []string
	mrr := map[int]float64{}
	se := map[int]float64{}
	for _, t := range ch.Tried {
		cps = append(cps, strconv.Itoa(t.Rounds))
		mrr[t.Rounds], se[t.Rounds] = t.ValidMRR, t.SE
	}
	tried := fmt.Sprintf("checkpoints %s; %.2f s, not part of --time", strings.Join(cps, ", "), ch.Seconds)
	cf := ch.Confirm
	switch {
	case cf != nil && ch.Rounds == ch.Of:
		return fmt.Sprintf("rounds: the rules of all %d rounds kept: the first %d ranked %d sampled validation queries better (%s, top %d: %.4f against %.4f) but not %d (%.4f against %.4f, +-%.4f) (%s)",
			ch.Of, cf.Rounds, ch.ValidQueries, s, ch.TopK, mrr[cf.Rounds], mrr[ch.Of], cf.ValidQueries, cf.ValidMRR, cf.AllMRR, cf.SE, tried)
	case ch.Rounds == ch.Of:
		return fmt.Sprintf("rounds: the rules of all %d rounds kept: validation MRR (%s, top %d) %.4f, the best of the checkpoints (%d validation queries, %s)", ch.Of, s, ch.TopK, mrr[ch.Of], ch.ValidQueries, tried)
	case cf != nil:
		return fmt.Sprintf("rounds: the rules of the first %d of %d rounds kept (%d rules; --choose-rounds=false keeps all): validation MRR (%s, top %d) %.4f against %.4f with all on %d queries, +-%.4f, and %.4f against %.4f on %d, +-%.4f (%s)",
			ch.Rounds, ch.Of, rules, s, ch.TopK, mrr[ch.Rounds], mrr[ch.Of], ch.ValidQueries, se[ch.Rounds], cf.ValidMRR, cf.AllMRR, cf.ValidQueries, cf.SE, tried)
	}
	return fmt.Sprintf("rounds: the rules of the first %d of %d rounds kept (%d rules; --choose-rounds=false keeps all): validation MRR (%s, top %d) %.4f against %.4f with all, +-%.4f (%d validation queries, %s)",
		ch.Rounds, ch.Of, rules, s, ch.TopK, mrr[ch.Rounds], mrr[ch.Of], se[ch.Rounds], ch.ValidQueries, tried)
}
