package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

func newRRFCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rrf",
		Short: "Recursive random fields: inference on a Markov logic network converted to an RRF",
		Args:  rootArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRRFInferCmd())
	return cmd
}

type rrfInferOptions struct {
	mlnInputs
	result, method          string
	lambda, hardWeight      float64
	samples, burnIn, starts int
	seed                    uint64
}

func newRRFInferCmd() *cobra.Command {
	o := &rrfInferOptions{}
	cmd := &cobra.Command{
		Use:   "infer -i PROG.mln -e EVIDENCE.db -q PRED[,PRED] [--method icm|gibbs] | --folder DIR",
		Short: "ICM (MAP) or Gibbs marginals of a Markov logic network as a recursive random field",
		Long: `Read a Markov logic network as hinge mln infer does, convert it to a recursive
random field (Lowd and Domingos 2007: each ground clause a feature
exp(lambda * (sum of its negated literals - k)), 1 when the clause is false and
at most exp(-lambda) otherwise, weighted by minus the clause's weight in the
root; hard clauses weigh --hard-weight) and infer with the RRF's own
algorithms: ICM with random restarts (--method icm, a mode) or Gibbs sampling
started from the ICM mode (--method gibbs, marginals). Each variable change
updates only the cached sums of its ancestor features.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.mlnInputs.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.result, "result", "r", "", "write the query atoms' values to this file (default: standard output)")
	f.StringVar(&o.method, "method", "gibbs", "icm (a mode) or gibbs (marginals, from the ICM mode)")
	f.Float64Var(&o.lambda, "lambda", 10, "sharpness of each clause feature (the RRF tends to the Markov logic network as it grows)")
	f.Float64Var(&o.hardWeight, "hard-weight", 20, "root weight of the hard clauses' features")
	f.IntVar(&o.samples, "samples", 1000, "Gibbs sweeps kept")
	f.IntVar(&o.burnIn, "burn-in", 100, "Gibbs sweeps discarded first")
	f.IntVar(&o.starts, "restarts", 10, "ICM random restarts")
	f.Uint64Var(&o.seed, "seed", 1, "seed of every random choice")
	return cmd
}

func (o *rrfInferOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.method != "icm" && o.method != "gibbs" {
		return badInput(fmt.Errorf("--method %q: want icm or gibbs", o.method))
	}
	if o.samples <= 0 || o.burnIn < 0 || o.starts <= 0 {
		return badInput(errors.New("--samples and --restarts must be > 0, --burn-in >= 0"))
	}
	start := time.Now()
	net, queries, err := o.mlnInputs.network(mln.Options{})
	if err != nil {
		return err
	}
	g, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		return failed(err)
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
	rnet, err := rrf.FromClauses(in, o.lambda, o.hardWeight, tie, weights)
	if err != nil {
		return badInput(err)
	}
	groundSecs := time.Since(start).Seconds()
	t0 := time.Now()
	mode, score, err := rrf.ICM(ctx, rnet, nil, rrf.ICMOptions{Restarts: o.starts, Seed: o.seed})
	if err != nil {
		return failed(err)
	}
	values := make([]float64, len(mode))
	for v, b := range mode {
		if b {
			values[v] = 1
		}
	}
	format := "%s %g"
	if o.method == "gibbs" {
		values, err = rrf.Gibbs(ctx, rnet, nil, mode, rrf.GibbsOptions{Samples: o.samples, BurnIn: o.burnIn, Seed: o.seed})
		if err != nil {
			return failed(err)
		}
		format = "%s %.4f"
	}
	lines := queryLines(g, net, values, format)
	fmt.Fprintf(stderr, "rrf: %d unknown atoms, %d clause features (lambda %g), built in %.3f s; ICM mode log score %.6g (%d restarts); %s in %.3f s\n",
		rnet.NumVars, len(rnet.Features)-1, o.lambda, groundSecs, score, o.starts, o.method, time.Since(t0).Seconds())
	if acc, ok := queryAccuracy(queries, g, net, values); ok {
		fmt.Fprintf(stderr, "accuracy on %d query atoms with truth (values >= 0.5 count as true): %.4f\n", len(queries), acc)
	}
	if o.result != "" {
		return failedIf(atomicfile.Write(o.result, func(w io.Writer) error { return writeLines(w, lines) }))
	}
	return failedIf(writeLines(stdout, lines))
}

func failedIf(err error) error {
	if err != nil {
		return failed(err)
	}
	return nil
}
