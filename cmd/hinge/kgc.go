package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/progress"
	"github.com/hinge-srl/hinge/kgc"
)

type kgcOptions struct {
	train, valid, test, facts  string
	predictions, rules, report string
	rulesIn                    string
	score                      string
	topK, noisyOrK             int
	learn                      kgc.LearnOptions
	psl                        kgc.PSLOptions
	pslOut                     string
	quiet                      bool
}

type kgcReport struct {
	Scoring      string      `json:"scoring"`
	Entities     int         `json:"entities"`
	Relations    int         `json:"relations"`
	GraphTriples int         `json:"graph_triples"`
	TestTriples  int         `json:"test_triples"`
	Rules        int         `json:"rules"`
	Candidates   int         `json:"candidate_rules"`
	Rounds       int         `json:"rounds"`
	Metrics      kgc.Metrics `json:"metrics"`
	Seconds      struct {
		Load, Learn, Rank, Total float64
	} `json:"seconds"`
	PeakMemoryMB float64 `json:"peak_rss_mb"`
}

func newKGCCmd() *cobra.Command {
	o := &kgcOptions{}
	cmd := &cobra.Command{
		Use:   "kgc --train T --valid V --test E [--facts F] [--time 10s] [--score noisy-or|maxplus|max|psl] --predictions P",
		Short: "Knowledge-graph completion with learned rules (cyclic, with constants, defaults), ranked and scored",
		Long: `Learn rules from a knowledge graph and rank the answers of every test triple
asked both ways, (h, r, ?) and (?, r, t).

Triples are head<TAB>relation<TAB>tail lines. The graph is --train (plus
--facts, background triples such as Family's facts.txt). Rules are learned
bottom-up from sampled paths for --time: cyclic path rules of 1 to
--max-length atoms, rules with a constant in the head (and in the body, or
not), and default rules r(X, c); each rule's support and confidence
(support / (body + --pc)) are counted exactly. A candidate's score combines
the confidences of the rules predicting it (--score noisy-or over the
candidate's --noisy-or-k best rules, the default; maxplus, max, or psl). With --score psl each
relation's --psl-rules best rules become a PSL model whose weights PPLL learns
from --psl-train sampled training triples; each query's --psl-candidates best
maxplus candidates are then re-scored by MAP inference (ADMM), and --psl-out
DIR writes that model, its data and the inferred values for hinge infer.

--predictions writes AnyBURL's format: per test triple "h r t", "Heads: " and
"Tails: " lines with the --top-k candidates and scores, best first. The
terminal and --report give filtered MRR and Hits@1/3/10 over head and tail
queries together (a tie with the true entity counts half; a true entity no
rule predicts is a miss). --rules writes the learned rules; --rules-in ranks
with a rules file instead of learning.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.train, "train", "", "training triples (the graph rules are learned from and applied to)")
	f.StringVar(&o.valid, "valid", "", "validation triples (only filter the rankings)")
	f.StringVar(&o.test, "test", "", "test triples to answer")
	f.StringVar(&o.facts, "facts", "", "background triples added to the graph")
	f.StringVar(&o.predictions, "predictions", "", "write the ranked candidates here (AnyBURL's format)")
	f.StringVar(&o.rules, "rules", "", "write the learned rules here (body size, support, confidence, rule; tab-separated)")
	f.StringVar(&o.rulesIn, "rules-in", "", "rank with the rules of this file (as --rules writes them) instead of learning")
	f.StringVar(&o.report, "report", "", "write a JSON report here")
	f.StringVar(&o.score, "score", "noisy-or", "combination of rule confidences: noisy-or (over each candidate's --noisy-or-k best rules), maxplus, max or psl")
	f.IntVar(&o.psl.Candidates, "psl-candidates", 20, "psl: best maxplus candidates per query re-scored by MAP inference")
	f.IntVar(&o.psl.RulesPerRelation, "psl-rules", 30, "psl: best rules per relation in the PSL model")
	f.IntVar(&o.psl.TrainQueries, "psl-train", 300, "psl: training triples sampled to learn the weights from")
	f.StringVar(&o.pslOut, "psl-out", "", "psl: write the model (model.psl), its inference data (kgc.data) and the inferred values (values.tsv) to this directory")
	f.IntVar(&o.topK, "top-k", 100, "candidates written per query")
	f.IntVar(&o.noisyOrK, "noisy-or-k", kgc.DefaultNoisyOrK, "noisy-or combines this many of a candidate's best rules")
	f.DurationVar(&o.learn.Time, "time", 10*time.Second, "learning budget")
	f.IntVar(&o.learn.MaxLength, "max-length", 3, "longest cyclic rule body (1-3)")
	f.IntVar(&o.learn.MinSupport, "min-support", 2, "drop rules with less support")
	f.Float64Var(&o.learn.MinConf, "min-conf", 0.0001, "drop rules with less confidence")
	f.Float64Var(&o.learn.PC, "pc", 5, "confidence smoothing: support / (body + pc)")
	f.Uint64Var(&o.learn.Seed, "seed", 1, "seed of the path sampling")
	f.IntVar(&o.learn.Threads, "threads", 0, "threads (0: all cores)")
	f.BoolVar(&o.quiet, "quiet", false, "no progress display even on a terminal")
	return cmd
}

func (o *kgcOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	start := time.Now()
	if o.train == "" || o.test == "" {
		return badInput(errors.New("give --train and --test (and --valid, --facts when there are such files)"))
	}
	scoring, err := kgc.ParseScoring(o.score)
	if err != nil {
		return badInput(fmt.Errorf("--score: %w", err))
	}
	switch {
	case o.learn.Time <= 0:
		return badInput(fmt.Errorf("--time %v: must be > 0", o.learn.Time))
	case o.learn.MaxLength < 1 || o.learn.MaxLength > kgc.MaxPath:
		return badInput(fmt.Errorf("--max-length %d: must be between 1 and %d", o.learn.MaxLength, kgc.MaxPath))
	case o.learn.MinSupport < 1:
		return badInput(fmt.Errorf("--min-support %d: must be >= 1", o.learn.MinSupport))
	case !(o.learn.PC >= 0):
		return badInput(fmt.Errorf("--pc %v: must be >= 0", o.learn.PC))
	case o.topK < 1:
		return badInput(fmt.Errorf("--top-k %d: must be >= 1", o.topK))
	case o.psl.Candidates < 1 || o.psl.RulesPerRelation < 1 || o.psl.TrainQueries < 1:
		return badInput(fmt.Errorf("--psl-candidates, --psl-rules and --psl-train must be >= 1"))
	case o.pslOut != "" && scoring != kgc.PSL:
		return badInput(errors.New("--psl-out needs --score psl"))
	case o.noisyOrK < 1:
		return badInput(fmt.Errorf("--noisy-or-k %d: must be >= 1", o.noisyOrK))
	}
	inputs := []string{o.train, o.valid, o.test, o.facts, o.rulesIn}
	if err := checkOutputs(inputs, output{flag: "--predictions", path: o.predictions}, output{flag: "--rules", path: o.rules},
		output{flag: "--report", path: o.report}); err != nil {
		return err
	}
	v := kgc.NewVocab()
	read := func(path string) ([]kgc.Triple, error) {
		if path == "" {
			return nil, nil
		}
		ts, err := kgc.ReadTriples(path, v)
		if err != nil {
			return nil, badInput(err)
		}
		return ts, nil
	}
	var rulesIn []kgc.Rule
	if o.rulesIn != "" {
		// Read before the graph is built, so the rules' names are in the
		// vocabulary it is sized for.
		f, err := os.Open(o.rulesIn)
		if err != nil {
			return badInput(err)
		}
		rulesIn, err = kgc.ReadRules(o.rulesIn, f, v)
		f.Close()
		if err != nil {
			return badInput(err)
		}
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
	test, err := read(o.test)
	if err != nil {
		return err
	}
	graphTriples := append(append([]kgc.Triple(nil), train...), facts...)
	if len(graphTriples) == 0 {
		return badInput(fmt.Errorf("%s: no triples: nothing to learn rules from", o.train))
	}
	g := kgc.NewGraph(graphTriples, len(v.Entities), len(v.Relations))
	known := map[kgc.Triple]bool{}
	for _, ts := range [][]kgc.Triple{train, facts, valid, test} {
		for _, t := range ts {
			known[t] = true
		}
	}
	loadSec := time.Since(start).Seconds()

	lr := &kgc.LearnResult{Rules: rulesIn}
	if o.rulesIn == "" {
		rep := progress.ForTerminal(stderr, o.quiet)
		rep.Status("learning rules for %v", o.learn.Time)
		lr, err = kgc.Learn(ctx, g, o.learn)
		rep.Done()
		if err != nil {
			return failed(err)
		}
		fmt.Fprintf(stdout, "graph: %d entities, %d relations, %d triples; learned %d rules (%d candidates counted, %d rounds, %.2f s)\n",
			len(v.Entities), len(v.Relations), len(g.Triples), len(lr.Rules), lr.Candidates, lr.Rounds, lr.Seconds)
	} else {
		fmt.Fprintf(stdout, "graph: %d entities, %d relations, %d triples; %d rules read from %s\n",
			len(v.Entities), len(v.Relations), len(g.Triples), len(lr.Rules), clipPath(o.rulesIn))
	}
	if o.rules != "" {
		if err := atomicfile.Write(o.rules, func(w io.Writer) error { return kgc.WriteRules(w, lr.Rules, v) }); err != nil {
			return failed(err)
		}
	}
	rankStart := time.Now()
	rk := kgc.NewRanker(g, lr.Rules, scoring)
	rk.NoisyOrK = o.noisyOrK
	evalOpt := kgc.EvalOptions{TopK: o.topK, Threads: o.learn.Threads, ADMM: admm.DefaultOptions()}
	if scoring == kgc.PSL {
		o.psl.Seed, o.psl.Threads = o.learn.Seed, o.learn.Threads
		if evalOpt.PSL, err = rk.NewPSL(ctx, v, o.psl); err != nil {
			return failed(err)
		}
		lr := evalOpt.PSL.Learn
		fmt.Fprintf(stdout, "psl: %d rules, weights learned by PPLL in %d iterations (%.2f s)\n", len(evalOpt.PSL.Model.Rules), lr.Iterations, lr.Seconds)
		if o.pslOut != "" {
			evalOpt.PSLDump = func(atoms []kgc.Triple, values []float64) error {
				if err := evalOpt.PSL.WriteFiles(o.pslOut, atoms); err != nil {
					return err
				}
				return atomicfile.Write(filepath.Join(o.pslOut, "values.tsv"), func(w io.Writer) error { return evalOpt.PSL.WriteValues(w, atoms, values) })
			}
		}
	}
	var m kgc.Metrics
	eval := func(w io.Writer) error {
		var err error
		m, err = rk.Evaluate(ctx, test, func(t kgc.Triple) bool { return known[t] }, v, w, evalOpt)
		return err
	}
	if o.predictions != "" {
		err = atomicfile.Write(o.predictions, eval)
	} else {
		err = eval(nil)
	}
	if err != nil {
		return failed(err)
	}
	rankSec := time.Since(rankStart).Seconds()
	fmt.Fprintf(stdout, "%s: %d queries: MRR %.4f, Hits@1 %.4f, Hits@3 %.4f, Hits@10 %.4f (ranking %.2f s)\n",
		scoring, m.Queries, m.MRR, m.Hits1, m.Hits3, m.Hits10, rankSec)
	if o.predictions != "" {
		fmt.Fprintf(stdout, "wrote %s\n", o.predictions)
	}
	if o.report != "" {
		r := kgcReport{Scoring: scoring.String(), Entities: len(v.Entities), Relations: len(v.Relations), GraphTriples: len(g.Triples),
			TestTriples: len(test), Rules: len(lr.Rules), Candidates: lr.Candidates, Rounds: lr.Rounds, Metrics: m, PeakMemoryMB: peakRSSMB()}
		r.Seconds.Load, r.Seconds.Learn, r.Seconds.Rank, r.Seconds.Total = loadSec, lr.Seconds, rankSec, time.Since(start).Seconds()
		if err := writeJSON(o.report, r); err != nil {
			return failed(err)
		}
	}
	return nil
}

// peakRSSMB reads the process's peak resident memory (VmHWM) in MB, 0
// when unknown. (In-process runs, as in tests, report the test binary's.)
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var kb float64
	for _, line := range strings.Split(string(b), "\n") {
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	return 0
}
