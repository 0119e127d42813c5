package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/internal/citations"
)

// paperTable1 are the paper's Table 1 seconds (single-threaded C++/Java
// ADMM) and Figure 3 reductions, for the printed comparison.
var paperTable1 = map[string]struct {
	unlifted, solve, lift, total float64
	reduction                    string
}{
	"citeseer": {57.4, 19.8, 0.39, 20.19, "66%"},
	"cora":     {47.7, 17.5, 0.53, 18.03, "46%"},
}

// runCitations is Table 1 / Figure 3 for one data set: seeded 50/50 split,
// the PSL example model with unlearned weights, grounded by the pipeline,
// solved unlifted and lifted.
func runCitations(ctx context.Context, c *config, name string) error {
	if c.dataDir == "" {
		return fmt.Errorf("no shared data directory (set -data or $HINGE_DATA)")
	}
	dir := filepath.Join(c.dataDir, name)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("data set missing: %w", err)
	}
	ds, err := citations.Load(dir, name)
	if err != nil {
		return &badInputError{err}
	}
	split, err := citations.NewSplit(ds, c.citeSeed, 0.5)
	if err != nil {
		return &badInputError{err}
	}
	tmp, err := os.MkdirTemp("", "hinge-lifted-"+name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := citations.WritePSL(split, tmp); err != nil {
		return err
	}
	prob, groundT, err := groundPSL(tmp, name, c.threads, true)
	if err != nil {
		return err
	}
	c.logf("%s: %d papers, %d links, seed %d: %d variables, %d potentials, %d constraints (load+ground %.2f s)",
		name, len(ds.Papers), len(ds.Links), c.citeSeed, prob.NumVars, prob.NumPotentials(), prob.NumConstraints(), groundT.Wall)

	cmp, err := compare(ctx, prob, c.admm, c.runs, c.objTol)
	if err != nil {
		return err
	}

	header := append([]string{"dataset", "papers", "links", "split_seed", "load_ground_wall_s"}, compHeader...)
	row := append([]string{name, itoa(len(ds.Papers)), itoa(len(ds.Links)), fmt.Sprint(c.citeSeed), ff(groundT.Wall, 4)}, compRow(cmp)...)
	if err := writeCSV(filepath.Join(c.out, name+".csv"), header, [][]string{row}); err != nil {
		return err
	}

	fmt.Fprintf(c.stdout, "## %s (Table 1 / Figure 3): median of %d runs, seconds wall (CPU)\n\n", name, c.runs)
	th := []string{"", "variables", "potentials", "constraints", "HL-MRF solve", "LHL-MRF lifting", "LHL-MRF solving", "LHL-MRF total", "speed-up", "lifting % of HL-MRF", "iterations", "max rel. obj. diff"}
	rows := [][]string{{
		"hinge", sizeCell(cmp.Orig.Vars, cmp.Lifted.Vars), sizeCell(cmp.Orig.Pots, cmp.Lifted.Pots), sizeCell(cmp.Orig.Cons, cmp.Lifted.Cons),
		timeCell(cmp.Unlifted), timeCell(cmp.Lift), timeCell(cmp.LiftedSolve), timeCell(cmp.LiftedTotal),
		fmt.Sprintf("%.2fx (CPU %.2fx)", cmp.Speedup(), cmp.SpeedupCPU()), ff(cmp.LiftPct(), 2) + "%",
		fmt.Sprintf("%d / %d", cmp.Iter, cmp.LiftedIt), fe(cmp.MaxRelObjDiff),
	}}
	if p, ok := paperTable1[name]; ok {
		rows = append(rows, []string{"paper", "about -" + p.reduction, "about -" + p.reduction, "", ff(p.unlifted, 2), ff(p.lift, 2), ff(p.solve, 2), ff(p.total, 2),
			fmt.Sprintf("%.2fx", p.unlifted/p.total), ff(100*p.lift/p.unlifted, 2) + "%", "", ""})
	}
	printTable(c.stdout, th, rows)

	sizesPlot, err := barChart(name+": problem size (Figure 3)", "count", []string{"variables", "potentials", "constraints"}, []series{
		{Name: "HL-MRF", Y: []float64{float64(cmp.Orig.Vars), float64(cmp.Orig.Pots), float64(cmp.Orig.Cons)}},
		{Name: "LHL-MRF", Y: []float64{float64(cmp.Lifted.Vars), float64(cmp.Lifted.Pots), float64(cmp.Lifted.Cons)}},
	})
	if err != nil {
		return err
	}
	timesPlot, err := barChart(fmt.Sprintf("%s: wall seconds, median of %d (Table 1)", name, c.runs), "seconds", []string{"HL-MRF", "lifting", "LHL solving", "LHL total"}, []series{
		{Name: "wall", Y: []float64{cmp.Unlifted.Wall, cmp.Lift.Wall, cmp.LiftedSolve.Wall, cmp.LiftedTotal.Wall}},
		{Name: "CPU", Y: []float64{cmp.Unlifted.CPU, cmp.Lift.CPU, cmp.LiftedSolve.CPU, cmp.LiftedTotal.CPU}},
	})
	if err != nil {
		return err
	}
	return savePNG(filepath.Join(c.out, name+".png"), 5*vg.Inch, 3.5*vg.Inch, sizesPlot, timesPlot)
}
