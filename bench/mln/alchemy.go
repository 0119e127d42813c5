package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/mln"
)

// alchemy runs lp-round MAP on the two programs whose Alchemy 2 MAP figures
// were measured on this kind of machine (UW-CSE's ai fold and Tuffy's cse
// sample) and gives the answer's cost
// three ways: as hinge grounds the network, as Alchemy counts the same
// network (mln.AlchemyView: identical ground clauses merged, opposite unit
// clauses cancelled), and under Alchemy's model, where a clause of negative
// weight is kept as written and costs |w| when satisfied instead of being
// rewritten into unit clauses.
func (c *config) alchemy(ctx context.Context) error {
	rows := [][]string{{"program", "unknowns", "ground clauses", "cost", "certified lower bound", "Alchemy's ground clauses", "cost, Alchemy's count", "lower bound, Alchemy's count", "cost, Alchemy's model", "seconds"}}
	for _, s := range []struct{ name, dir string }{
		{"UW-CSE ai", filepath.Join(c.data, "uw-cse", "ai")},
		{"Tuffy cse", filepath.Join(c.data, "tuffy", "cse")},
	} {
		fmt.Fprintf(c.stderr, "  alchemy %s ...\n", s.name)
		// build reads and binds the program, with flip every negative
		// formula weight made positive; it returns the formulas flipped.
		build := func(flip bool) (*mln.Network, map[*mln.Formula]bool, error) {
			prog, ev, opt, err := readAlchemyInput(s.dir)
			if err != nil {
				return nil, nil, err
			}
			flipped := map[*mln.Formula]bool{}
			for _, f := range prog.Formulas {
				if flip && f.Weight < 0 {
					f.Weight, flipped[f] = -f.Weight, true
				}
			}
			net, err := mln.Build(prog, ev, opt)
			return net, flipped, err
		}
		net, _, err := build(false)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := net.MAP(ctx, mln.DefaultMAPOptions())
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		model, err := alchemyModelCost(res, build)
		if err != nil {
			return err
		}
		p := res.Ground.Problem
		rows = append(rows, []string{s.name, fmt.Sprint(p.NumVars), fmt.Sprint(p.NumPotentials() + p.NumConstraints()),
			g6(res.Cost), g6(res.LowerBound), fmt.Sprint(res.Alchemy.Clauses), g6(res.Cost - res.Alchemy.Offset),
			g6(max(0, res.LowerBound-res.Alchemy.Offset)), g6(model), f3(secs)})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("alchemy", rows)
}

// readAlchemyInput reads an ExpressGNN folder (query advisedBy) or a Tuffy
// sample (prog.mln, evidence.db, query.db).
func readAlchemyInput(dir string) (*mln.Program, []mln.GroundAtom, mln.Options, error) {
	if filepath.Base(filepath.Dir(dir)) == "uw-cse" {
		fo, err := mln.ReadFolder(dir)
		if err != nil {
			return nil, nil, mln.Options{}, err
		}
		return fo.Program, fo.Evidence, mln.Options{Query: []string{"advisedBy"}}, nil
	}
	prog, err := mln.ReadProgram(filepath.Join(dir, "prog.mln"))
	if err != nil {
		return nil, nil, mln.Options{}, err
	}
	ev, err := mln.ReadAtoms(filepath.Join(dir, "evidence.db"), prog, false)
	if err != nil {
		return nil, nil, mln.Options{}, err
	}
	qs, err := mln.ReadAtoms(filepath.Join(dir, "query.db"), prog, true)
	return prog, ev, mln.Options{QueryAtoms: qs}, err
}

// alchemyModelCost is the cost of res's world under Alchemy's model and
// count: the program is grounded again with every negative formula weight
// made positive (so its clauses are grounded as written, with the ground
// clauses the evidence decides dropped, as Alchemy drops them), those ground
// clauses get their negative weight back, and the world pays |w| for each of
// them it satisfies.
func alchemyModelCost(res *mln.MAPResult, build func(flip bool) (*mln.Network, map[*mln.Formula]bool, error)) (float64, error) {
	atom := func(g *ground.Result, v int) string {
		return g.Vars[v].Pred.Name + "(" + strings.Join(g.Args(v), ",") + ")"
	}
	value := map[string]bool{}
	for v, x := range res.Values {
		value[atom(res.Ground, v)] = x == 1
	}
	net, flipped, err := build(true)
	if err != nil {
		return 0, err
	}
	g, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		return 0, err
	}
	x := make([]bool, in.NumVars)
	for v := range x {
		b, ok := value[atom(g, v)]
		if !ok {
			return 0, fmt.Errorf("atom %s is unknown in one grounding and not the other", atom(g, v))
		}
		x[v] = b
	}
	cost := 0.0
	for c, r := range g.Problem.Group { // the soft clauses; the hard ones follow
		if flipped[net.Clauses[r].Formula] {
			in.Weight[c] = -in.Weight[c]
		}
		if in.Satisfied(c, x) == (in.Weight[c] < 0) {
			cost += math.Abs(in.Weight[c])
		}
	}
	return cost - mln.Alchemy(in).Offset, nil
}
