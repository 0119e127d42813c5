// Command learning is the weight-learning experiment on Cora and Citeseer:
// for each data set it draws a learn split and an eval split (different
// seeds, half of the papers observed) with internal/citations, learns the
// rule weights on the learn split with the voted perceptron (MLE) and the
// exact pseudo-likelihood (MPLE, with hard constraints as pairwise
// conditionals and, for comparison, ignored; and PPLL), then infers on the
// eval split with the untrained weights and with each learned set, and
// reports categorical accuracy on the eval targets (observed papers
// excluded) beside the neighbour-majority baseline on the same split, and
// learning times (median of -runs runs, wall and CPU seconds).
//
//	go -C bench run ./learning [-datasets cora,citeseer] [-seed 1] [-learn-seed 2] [-runs 3] [-mle-steps 25]
//
// It prints a Markdown table (the one in README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/pipeline"
)

type config struct {
	name      string
	method    learn.Method
	cons      learn.ConstraintMode
	iters     int
	untrained bool
}

func main() {
	datasets := flag.String("datasets", "cora,citeseer", "comma-separated data sets")
	seed := flag.Uint64("seed", 1, "seed of the eval split")
	learnSeed := flag.Uint64("learn-seed", 2, "seed of the learn split")
	runs := flag.Int("runs", 3, "learning runs per method (the median time is reported)")
	mleSteps := flag.Int("mle-steps", 25, "perceptron steps")
	mpleIter := flag.Int("mple-iterations", 200, "largest number of MPLE/PPLL iterations")
	threads := flag.Int("threads", 0, "threads (0: all cores)")
	flag.Parse()
	if *seed == *learnSeed {
		fail(fmt.Errorf("-seed and -learn-seed must differ"))
	}
	root, err := shareddata.Dir()
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "hinge-learning-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)

	configs := []config{
		{name: "untrained (all 1.0, prior 0.001)", untrained: true},
		{name: "MLE (voted perceptron)", method: learn.MLE, iters: *mleSteps},
		{name: "MPLE, constraints pairwise", method: learn.MPLE, cons: learn.ConstraintsPairwise, iters: *mpleIter},
		{name: "MPLE, constraints ignored", method: learn.MPLE, cons: learn.ConstraintsIgnore, iters: *mpleIter},
		{name: "PPLL, constraints pairwise", method: learn.PPLL, cons: learn.ConstraintsPairwise, iters: *mpleIter},
	}
	fmt.Printf("| data set | weights | eval accuracy | baseline | learn wall s (median of %d) | learn CPU s | iterations |\n", *runs)
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range strings.Split(*datasets, ",") {
		ds, err := citations.Load(filepath.Join(root, name), name)
		if err != nil {
			fail(err)
		}
		dirs := map[string]uint64{"learn": *learnSeed, "eval": *seed}
		var evalSplit *citations.Split
		for part, sd := range dirs {
			sp, err := citations.NewSplit(ds, sd, 0.5)
			if err != nil {
				fail(err)
			}
			if part == "eval" {
				evalSplit = sp
			}
			if err := citations.WritePSL(sp, filepath.Join(tmp, name, part)); err != nil {
				fail(err)
			}
		}
		baseline, _, err := citations.NeighbourMajority(evalSplit)
		if err != nil {
			fail(err)
		}
		learnProg, learnG := load(filepath.Join(tmp, name, "learn"), name, *threads)
		evalProg, evalG := load(filepath.Join(tmp, name, "eval"), name, *threads)
		fmt.Fprintf(os.Stderr, "%s: learn split %d variables, %d potentials; eval split %d variables, %d potentials\n",
			name, learnG.Problem.NumVars, learnG.Problem.NumPotentials(), evalG.Problem.NumVars, evalG.Problem.NumPotentials())

		untrained := make([]float64, len(evalProg.Model.Rules))
		for r, rule := range evalProg.Model.Rules {
			untrained[r] = rule.Weight
		}
		for _, c := range configs {
			weights := untrained
			wall, cpu, iters := "", "", ""
			if !c.untrained {
				var walls, cpus []float64
				var res *learn.Result
				for range *runs {
					// Every run starts from the model's weights: Learn sets
					// them on the ground problem first.
					opt := learn.DefaultOptions()
					opt.Method, opt.Constraints, opt.Iterations = c.method, c.cons, c.iters
					opt.Threads, opt.ADMM.Threads = *threads, *threads
					c0 := measure.CPUSeconds()
					t0 := time.Now()
					res, err = learn.Learn(context.Background(), learnG, learnProg.Store, learnProg.Model, opt)
					walls = append(walls, time.Since(t0).Seconds())
					cpus = append(cpus, measure.CPUSeconds()-c0)
					if err != nil {
						fail(fmt.Errorf("%s %s: %w", name, c.name, err))
					}
				}
				weights = res.Weights
				wall = fmt.Sprintf("%.3f", measure.Median(walls))
				cpu = fmt.Sprintf("%.3f", measure.Median(cpus))
				iters = fmt.Sprint(res.Iterations)
				fmt.Fprintf(os.Stderr, "%s %s: weights %s\n", name, c.name, fmtWeights(weights))
			}
			acc := infer(evalProg, evalG, weights, *threads)
			fmt.Printf("| %s | %s | %.4f | %.4f | %s | %s | %s |\n", name, c.name, acc, baseline, wall, cpu, iters)
		}
	}
}

func load(dir, name string, threads int) (*pipeline.Program, *ground.Result) {
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(dir, name+".psl"), Data: filepath.Join(dir, name+".data")})
	if err != nil {
		fail(err)
	}
	g, err := prog.Ground(ground.Options{Threads: threads})
	if err != nil {
		fail(err)
	}
	return prog, g
}

// infer solves the eval split's MAP state with the given rule weights
// (PSL's ADMM defaults, cold start) and returns the categorical accuracy on
// its target papers.
func infer(prog *pipeline.Program, g *ground.Result, weights []float64, threads int) float64 {
	for i, grp := range g.Problem.Group {
		g.Problem.Weight[i] = weights[grp]
	}
	opt := admm.DefaultOptions()
	opt.Threads = threads
	res, err := admm.Solve(context.Background(), g.Problem, opt)
	if err != nil {
		fail(err)
	}
	evs, err := prog.Evaluate(g, res.Values, pipeline.EvalOptions{Evaluators: []string{"CategoricalEvaluator"}})
	if err != nil {
		fail(err)
	}
	if len(evs) != 1 {
		fail(fmt.Errorf("want one evaluation, got %d", len(evs)))
	}
	acc, ok := evs[0].Result.Get("ACCURACY")
	if !ok {
		fail(fmt.Errorf("no ACCURACY in %v", evs[0].Result))
	}
	return acc
}

func fmtWeights(w []float64) string {
	parts := make([]string, len(w))
	for i, x := range w {
		parts[i] = fmt.Sprintf("%.4g", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "learning:", err)
	os.Exit(1)
}
