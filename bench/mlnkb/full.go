package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

// versusFull grounds small knowledge bases in full and compares MaxWalkSAT
// over the full ground network with lazy MAP: the same network, flips,
// noise and seed.
func (c *config) versusFull(ctx context.Context) error {
	rows := [][]string{{"entities", "facts", "engine", "ground_clauses", "unknown_atoms", "cost", "hard_violated", "best_flip", "flips", "ground_s", "search_s"}}
	for _, n := range []int{500, 1000} {
		dir := filepath.Join(c.work, fmt.Sprintf("full%d", n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		k, err := generateKB(dir, n, c.seed)
		if err != nil {
			return err
		}
		prog, err := mln.ReadProgram(k.prog)
		if err != nil {
			return err
		}
		ev, err := mln.ReadAtoms(k.evidence, prog, false)
		if err != nil {
			return err
		}
		flips := c.flipsPerEntity * n
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
		fmt.Fprintf(c.stderr, "mlnkb: %d entities in full ...\n", n)
		full, err := mln.Build(prog, ev, mln.Options{Query: k.query})
		if err != nil {
			return err
		}
		t0 := time.Now()
		_, in, err := full.GroundClauses(ground.Options{})
		if err != nil {
			return err
		}
		groundS := time.Since(t0).Seconds()
		t0 = time.Now()
		wr, err := maxsat.WalkSAT(ctx, in, make([]bool, in.NumVars), maxsat.WalkOptions{Steps: flips, Noise: c.noise, Seed: c.seed})
		if err != nil {
			return err
		}
		searchS := time.Since(t0).Seconds()
		rows = append(rows, []string{strconv.Itoa(n), strconv.Itoa(k.facts), "full (maxsat.WalkSAT)", strconv.Itoa(in.NumClauses()), strconv.Itoa(in.NumVars),
			f(cost(in, wr.X)), strconv.Itoa(wr.HardViolated), strconv.Itoa(wr.BestFlip), strconv.Itoa(wr.Flips), f(groundS), f(searchS)})
		full, in = nil, nil
		fmt.Fprintf(c.stderr, "mlnkb: %d entities lazily ...\n", n)
		lazy, err := mln.Build(prog, ev, mln.Options{Query: k.query, Lazy: true})
		if err != nil {
			return err
		}
		res, err := lazy.LazyMAP(ctx, mln.LazyOptions{Flips: flips, Noise: c.noise, Seed: c.seed})
		if err != nil {
			return err
		}
		rows = append(rows, []string{strconv.Itoa(n), strconv.Itoa(k.facts), "lazy (mln.LazyMAP)", strconv.Itoa(res.ActiveClauses), strconv.Itoa(res.ActiveAtoms),
			f(res.Cost), strconv.Itoa(res.HardViolated), strconv.Itoa(res.BestFlip), strconv.Itoa(res.Flips), f(res.Seconds.Ground), f(res.Seconds.Search)})
	}
	results.Markdown(c.stdout, rows)
	return results.WriteCSV(filepath.Join(c.out, "versus-full.csv"), rows)
}

// cost is a world's cost in a ground network as mln counts it: the weight
// of the soft clauses it violates, |w| for each clause of negative weight w
// it satisfies.
func cost(in *maxsat.Instance, x []bool) float64 {
	total := 0.0
	for c := range in.NumClauses() {
		if in.Hard[c] {
			continue
		}
		sat := in.Satisfied(c, x)
		if w := in.Weight[c]; w > 0 && !sat {
			total += w
		} else if w < 0 && sat {
			total -= w
		}
	}
	return total
}
