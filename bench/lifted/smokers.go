package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot/vg"
)

// smokersGraph is one synthetic smokers instance (Srinivasan et al., AAAI 2019,
// section 4, "Experiments on Synthetic Data").
type smokersGraph struct {
	People int
	// Edges are distinct ordered pairs (a, b), a != b: Friend(a, b).
	Edges [][2]int32
	// Value is Friend(a, b)'s observed value for each edge.
	Value []float64
	// Label is every person's label (1 smokes, 0 not); Observed says whose
	// label is evidence (the others are targets).
	Label    []bool
	Observed []bool
}

// valueLevels is how many distinct friendship values a range has beyond
// 0: binary 1 ({1}), decimal1 10 ({0.0, 0.1, ..., 1.0}), decimal4 10000.
var valueLevels = map[string]int{"binary": 1, "decimal1": 10, "decimal4": 10000}

// genSmokers draws a graph: edges distinct ordered pairs chosen uniformly
// (a partial Fisher-Yates over all n(n-1) pairs), friendship values uniform
// over the range's levels ({1} for binary, {0, 1/L, ..., 1} otherwise),
// a fair-coin label per person and exactly round(n/2) people observed,
// chosen uniformly. Edges and values come from the seed's first stream,
// labels and the observed set from a second one, so the people are the same
// for every density and value range of one seed.
func genSmokers(people, edges int, values string, seed uint64) (*smokersGraph, error) {
	levels, ok := valueLevels[values]
	if !ok {
		return nil, fmt.Errorf("unknown value range %q", values)
	}
	pairs := people * (people - 1)
	if edges < 1 || edges > pairs {
		return nil, fmt.Errorf("%d edges is not in [1, %d]", edges, pairs)
	}
	g := &smokersGraph{People: people, Edges: make([][2]int32, edges), Value: make([]float64, edges)}

	rng := rand.New(rand.NewPCG(seed, 0x5eed_ed9e))
	// Partial Fisher-Yates over pair indexes; pair k is (k / (n-1), k % (n-1))
	// with the second index skipping the first.
	idx := make([]int32, pairs)
	for i := range idx {
		idx[i] = int32(i)
	}
	for i := range edges {
		j := i + rng.IntN(pairs-i)
		idx[i], idx[j] = idx[j], idx[i]
		a := int(idx[i]) / (people - 1)
		b := int(idx[i]) % (people - 1)
		if b >= a {
			b++
		}
		g.Edges[i] = [2]int32{int32(a), int32(b)}
	}
	for i := range edges {
		if levels == 1 {
			g.Value[i] = 1
		} else {
			g.Value[i] = float64(rng.IntN(levels+1)) / float64(levels)
		}
	}

	lrng := rand.New(rand.NewPCG(seed, 0x1abe1))
	g.Label = make([]bool, people)
	for i := range g.Label {
		g.Label[i] = lrng.IntN(2) == 1
	}
	perm := lrng.Perm(people)
	g.Observed = make([]bool, people)
	for _, p := range perm[:(people+1)/2] {
		g.Observed[p] = true
	}
	return g, nil
}

// smokersModel is the paper's two rules (weight 1.0 each).
func smokersModel(squared bool) string {
	pow := ""
	if squared {
		pow = " ^2"
	}
	return "// The smokers model of Srinivasan et al., Lifted Hinge-Loss Markov Random Fields (AAAI 2019), section 4.\n" +
		"1.0: Friend(A, B) & Smokes(A) >> Smokes(B)" + pow + "\n" +
		"1.0: Friend(A, B) & !Smokes(A) >> !Smokes(B)" + pow + "\n"
}

const smokersData = `predicates:
  Friend/2: closed
  Smokes/1: open
observations:
  Friend: friend_obs.txt
  Smokes: smokes_obs.txt
targets:
  Smokes: smokes_targets.txt
`

// writePSL writes the instance in PSL form into dir: smokers.psl,
// smokers.data, friend_obs.txt (a, b, value; values with the range's
// decimals), smokes_obs.txt and smokes_targets.txt. People are named p0,
// p1, ...
func (g *smokersGraph) writePSL(dir string, squared bool, decimals int) error {
	files := map[string]func(w *bufio.Writer){
		"smokers.psl":  func(w *bufio.Writer) { w.WriteString(smokersModel(squared)) },
		"smokers.data": func(w *bufio.Writer) { w.WriteString(smokersData) },
		"friend_obs.txt": func(w *bufio.Writer) {
			for i, e := range g.Edges {
				fmt.Fprintf(w, "p%d\tp%d\t%s\n", e[0], e[1], strconv.FormatFloat(g.Value[i], 'f', decimals, 64))
			}
		},
		"smokes_obs.txt": func(w *bufio.Writer) {
			for p, obs := range g.Observed {
				if obs {
					v := 0
					if g.Label[p] {
						v = 1
					}
					fmt.Fprintf(w, "p%d\t%d\n", p, v)
				}
			}
		},
		"smokes_targets.txt": func(w *bufio.Writer) {
			for p, obs := range g.Observed {
				if !obs {
					fmt.Fprintf(w, "p%d\n", p)
				}
			}
		},
	}
	return writeFiles(dir, files)
}

// decimalsOf is how many decimals a value range's friendship values are
// written with.
var decimalsOf = map[string]int{"binary": 0, "decimal1": 1, "decimal4": 4}

// smokersRow is one measured instance.
type smokersRow struct {
	values string
	edges  int
	ground timing
	cmp    *comparison
}

// runSmokers is Figure 4: for each value range and density, generate,
// write PSL files, ground through the pipeline, solve unlifted and lifted.
func runSmokers(ctx context.Context, c *config) error {
	var rows []smokersRow
	for _, values := range c.smokersValues {
		for _, edges := range c.smokersEdges {
			r, err := smokersInstance(ctx, c, values, edges)
			if err != nil {
				return fmt.Errorf("%s, %d edges: %w", values, edges, err)
			}
			rows = append(rows, *r)
		}
	}

	header := append([]string{"values", "people", "edges", "seed", "squared", "load_ground_wall_s", "variable_ratio", "potential_ratio"}, compHeader...)
	var csvRows, table [][]string
	for _, r := range rows {
		vr := ratio(r.cmp.Orig.Vars, r.cmp.Lifted.Vars)
		pr := ratio(r.cmp.Orig.Pots, r.cmp.Lifted.Pots)
		csvRows = append(csvRows, append([]string{r.values, itoa(c.smokersPeople), itoa(r.edges), fmt.Sprint(c.smokersSeed),
			strconv.FormatBool(c.smokersSquared), ff(r.ground.Wall, 4), ff(vr, 4), ff(pr, 4)}, compRow(r.cmp)...))
		table = append(table, []string{r.values, itoa(r.edges), sizeCell(r.cmp.Orig.Vars, r.cmp.Lifted.Vars), sizeCell(r.cmp.Orig.Pots, r.cmp.Lifted.Pots),
			ff(vr, 2), ff(pr, 2), timeCell(r.cmp.Unlifted), timeCell(r.cmp.Lift), timeCell(r.cmp.LiftedSolve), timeCell(r.cmp.LiftedTotal),
			fmt.Sprintf("%.2fx", r.cmp.Speedup()), fmt.Sprintf("%d / %d", r.cmp.Iter, r.cmp.LiftedIt), fe(r.cmp.MaxRelObjDiff)})
	}
	if err := writeCSV(filepath.Join(c.out, "smokers.csv"), header, csvRows); err != nil {
		return err
	}
	hinges := "linear"
	if c.smokersSquared {
		hinges = "squared"
	}
	fmt.Fprintf(c.stdout, "## smokers (Figure 4): %d people, %s hinges, seed %d; seconds wall (CPU), medians of %d\n\n", c.smokersPeople, hinges, c.smokersSeed, c.runs)
	printTable(c.stdout, []string{"values", "edges", "variables", "potentials", "var ratio", "pot ratio", "HL-MRF", "lifting", "LHL-MRF solving", "LHL-MRF total", "speed-up", "iterations", "max rel. obj. diff"}, table)

	// Figure 4a: sizes by density (binary); 4b: ratios by density per
	// range; 4c: solve times by density (binary).
	var sizeS, ratioS, timeS []series
	for _, values := range c.smokersValues {
		var x, v, lv, p, lp, vr, pr, tu, tl, tt []float64
		for _, r := range rows {
			if r.values != values {
				continue
			}
			x = append(x, float64(r.edges)/1000)
			v, lv = append(v, float64(r.cmp.Orig.Vars)), append(lv, float64(r.cmp.Lifted.Vars))
			p, lp = append(p, float64(r.cmp.Orig.Pots)), append(lp, float64(r.cmp.Lifted.Pots))
			vr = append(vr, ratio(r.cmp.Orig.Vars, r.cmp.Lifted.Vars))
			pr = append(pr, ratio(r.cmp.Orig.Pots, r.cmp.Lifted.Pots))
			tu, tl, tt = append(tu, r.cmp.Unlifted.Wall), append(tl, r.cmp.LiftedSolve.Wall), append(tt, r.cmp.LiftedTotal.Wall)
		}
		ratioS = append(ratioS, series{Name: values + " potentials", X: x, Y: pr}, series{Name: values + " variables", X: x, Y: vr, Dashed: true})
		if values == "binary" {
			sizeS = []series{
				{Name: "HL-MRF potentials", X: x, Y: p}, {Name: "LHL-MRF potentials", X: x, Y: lp},
				{Name: "HL-MRF variables", X: x, Y: v, Dashed: true}, {Name: "LHL-MRF variables", X: x, Y: lv, Dashed: true},
			}
			timeS = []series{{Name: "HL-MRF", X: x, Y: tu}, {Name: "LHL-MRF solving", X: x, Y: tl}, {Name: "LHL-MRF total", X: x, Y: tt, Dashed: true}}
		}
	}
	xl := "friendship edges (thousands)"
	pa, err := lineChart("(a) size, binary values", xl, "count", sizeS)
	if err != nil {
		return err
	}
	pb, err := lineChart("(b) before/after lifting ratio", xl, "ratio (before / after)", ratioS)
	if err != nil {
		return err
	}
	pc, err := lineChart(fmt.Sprintf("(c) solve time, binary (median of %d)", c.runs), xl, "wall seconds", timeS)
	if err != nil {
		return err
	}
	return savePNG(filepath.Join(c.out, "smokers.png"), 4.5*vg.Inch, 3.5*vg.Inch, pa, pb, pc)
}

// ratio is before/after (0 when after is 0).
func ratio(before, after int) float64 {
	if after == 0 {
		return 0
	}
	return float64(before) / float64(after)
}

// smokersInstance generates, grounds and measures one instance.
func smokersInstance(ctx context.Context, c *config, values string, edges int) (*smokersRow, error) {
	g, err := genSmokers(c.smokersPeople, edges, values, c.smokersSeed)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "hinge-lifted-smokers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := g.writePSL(tmp, c.smokersSquared, decimalsOf[values]); err != nil {
		return nil, err
	}
	p, gt, err := groundPSL(tmp, "smokers", c.threads, false)
	if err != nil {
		return nil, err
	}
	c.logf("smokers %s %d edges: %d variables, %d potentials (load+ground %.2f s)", values, edges, p.NumVars, p.NumPotentials(), gt.Wall)
	cmp, err := compare(ctx, p, c.admm, c.runs, c.objTol)
	if err != nil {
		return nil, err
	}
	c.logf("  lifted %d variables, %d potentials; HL-MRF %.3f s, lift %.3f s, LHL-MRF solve %.3f s (%d iterations)",
		cmp.Lifted.Vars, cmp.Lifted.Pots, cmp.Unlifted.Wall, cmp.Lift.Wall, cmp.LiftedSolve.Wall, cmp.Iter)
	return &smokersRow{values: values, edges: edges, ground: gt, cmp: cmp}, nil
}
