package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/measure"
)

// socialRelations are the network's relations and their rule weights
// (ADMMSpeedTest.groovy of stephenbach/admm-speed-test, as recorded in
// shared/data/SOURCES.md), in the order the rules are written.
var socialRelations = []struct {
	Name   string
	Weight float64
}{
	{"knowswell", 0.3}, {"knows", 0.1}, {"boss", 0.05}, {"mentor", 0.1}, {"olderRelative", 0.7}, {"idol", 0.8},
}

// socialNet is the parsed social-affiliation network.
type socialNet struct {
	// People in order of first appearance.
	People []string
	// Bias is each registered person's bias text and value (anon1 lines).
	Bias map[string]string
	// Edges[r] are relation r's (from, to) pairs in file order.
	Edges [][][2]string
}

// parseSocial reads `<person>\t<relation>\t<person-or-value>` lines: anon1
// lines give the person's registration bias (a real in [-1, 1]), the six
// relations give directed edges. Errors name name:line:col.
func parseSocial(r io.Reader, name string) (*socialNet, error) {
	relIdx := map[string]int{}
	for i, rel := range socialRelations {
		relIdx[rel.Name] = i
	}
	net := &socialNet{Bias: map[string]string{}, Edges: make([][][2]string, len(socialRelations))}
	seen := map[string]bool{}
	edgeSeen := make([]map[[2]string]bool, len(socialRelations))
	for i := range edgeSeen {
		edgeSeen[i] = map[[2]string]bool{}
	}
	person := func(p string) {
		if !seen[p] {
			seen[p] = true
			net.People = append(net.People, p)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "\t")
		col := func(i int) int { // 1-based column of field i
			c := 1
			for _, g := range f[:i] {
				c += len(g) + 1
			}
			return c
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d:1: want 3 tab-separated fields (person, relation, person or value), got %d", name, line, len(f))
		}
		for i, g := range f {
			if g == "" || strings.ContainsAny(g, " \"'") {
				return nil, fmt.Errorf("%s:%d:%d: field %d is empty or contains a blank or quote: %q", name, line, col(i), i+1, g)
			}
		}
		if f[1] == "anon1" {
			x, err := strconv.ParseFloat(f[2], 64)
			if err != nil || math.IsNaN(x) || x < -1 || x > 1 {
				return nil, fmt.Errorf("%s:%d:%d: bias %q is not a number in [-1, 1]", name, line, col(2), f[2])
			}
			if _, dup := net.Bias[f[0]]; dup {
				return nil, fmt.Errorf("%s:%d:1: person %q has a second anon1 (bias) line", name, line, f[0])
			}
			net.Bias[f[0]] = f[2]
			person(f[0])
			continue
		}
		r, ok := relIdx[f[1]]
		if !ok {
			return nil, fmt.Errorf("%s:%d:%d: unknown relation %q (want anon1 or one of knowswell, knows, boss, mentor, olderRelative, idol)", name, line, col(1), f[1])
		}
		e := [2]string{f[0], f[2]}
		if edgeSeen[r][e] {
			continue // a repeated edge is the same closed atom
		}
		edgeSeen[r][e] = true
		net.Edges[r] = append(net.Edges[r], e)
		person(f[0])
		person(f[2])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(net.People) == 0 {
		return nil, fmt.Errorf("%s: no people", name)
	}
	return net, nil
}

// genSocial writes a random network in the socialNet format: people
// 0..people-1 each with an anon1 bias uniform in [-1, 1], and edges
// directed pairs (a != b) with a relation drawn uniformly from the six.
func genSocial(w io.Writer, people, edges int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x50c1a1))
	bw := bufio.NewWriter(w)
	for e := 0; e < edges; e++ {
		a := rng.IntN(people)
		b := rng.IntN(people - 1)
		if b >= a {
			b++
		}
		fmt.Fprintf(bw, "%d\t%s\t%d\n", a, socialRelations[rng.IntN(len(socialRelations))].Name, b)
	}
	for p := range people {
		fmt.Fprintf(bw, "%d\tanon1\t%s\n", p, fg(2*rng.Float64()-1))
	}
	return bw.Flush()
}

// biasValues is bias(X, 'R') = |x| for x < 0 else 0 and bias(X, 'D') = x
// for x > 0 else 0.
func biasValues(x float64) (r, d float64) {
	if x < 0 {
		return -x, 0
	}
	return 0, x
}

// socialModel is the PSL model: the registration rule (weight 0.5), one
// propagation rule per relation, and the partial-functional hard rule.
func socialModel(squared bool) string {
	pow := ""
	if squared {
		pow = " ^2"
	}
	var b strings.Builder
	b.WriteString("// Social-affiliation voting model (ADMMSpeedTest of stephenbach/admm-speed-test).\n")
	b.WriteString("0.5: registeredAs(A, X) & party(P, Y) & bias(X, Y) >> votes(A, P)" + pow + "\n")
	for _, r := range socialRelations {
		fmt.Fprintf(&b, "%s: votes(A, P) & %s(B, A) >> votes(B, P)%s\n", fg(r.Weight), r.Name, pow)
	}
	b.WriteString("// PartialFunctional: at most one party per person.\n")
	b.WriteString("votes(A, +P) <= 1 .\n")
	return b.String()
}

// writePSL writes the network in PSL form into dir: social.psl,
// social.data and one TSV per predicate. Parties are '0' (Republican, 'R')
// and '1' (Democratic, 'D'); votes(person, party) is a target for every
// person and party.
func (net *socialNet) writePSL(dir string, squared bool) error {
	var data strings.Builder
	data.WriteString("predicates:\n  registeredAs/2: closed\n  party/2: closed\n  bias/2: closed\n")
	for _, r := range socialRelations {
		fmt.Fprintf(&data, "  %s/2: closed\n", r.Name)
	}
	data.WriteString("  votes/2: open\nobservations:\n  registeredAs: registeredAs_obs.txt\n  party: party_obs.txt\n  bias: bias_obs.txt\n")
	for _, r := range socialRelations {
		fmt.Fprintf(&data, "  %s: %s_obs.txt\n", r.Name, r.Name)
	}
	data.WriteString("targets:\n  votes: votes_targets.txt\n")

	registered := slices.Sorted(maps.Keys(net.Bias))
	files := map[string]func(w *bufio.Writer){
		"social.psl":  func(w *bufio.Writer) { w.WriteString(socialModel(squared)) },
		"social.data": func(w *bufio.Writer) { w.WriteString(data.String()) },
		"registeredAs_obs.txt": func(w *bufio.Writer) {
			for _, p := range registered {
				fmt.Fprintf(w, "%s\t%s\n", p, net.Bias[p])
			}
		},
		"party_obs.txt": func(w *bufio.Writer) { w.WriteString("0\tR\n1\tD\n") },
		"bias_obs.txt": func(w *bufio.Writer) {
			done := map[string]bool{} // people may share a bias text
			for _, p := range registered {
				x := net.Bias[p]
				if done[x] {
					continue
				}
				done[x] = true
				v, _ := strconv.ParseFloat(x, 64) // checked by parseSocial
				r, d := biasValues(v)
				fmt.Fprintf(w, "%s\tR\t%s\n%s\tD\t%s\n", x, fg(r), x, fg(d))
			}
		},
		"votes_targets.txt": func(w *bufio.Writer) {
			for _, p := range net.People {
				fmt.Fprintf(w, "%s\t0\n%s\t1\n", p, p)
			}
		},
	}
	for i, r := range socialRelations {
		files[r.Name+"_obs.txt"] = func(w *bufio.Writer) {
			for _, e := range net.Edges[i] {
				fmt.Fprintf(w, "%s\t%s\n", e[0], e[1])
			}
		}
	}
	return writeFiles(dir, files)
}

// permutation is a seeded relabelling of a problem: variable v becomes
// Var[v], potential i is written at position Pot[i], constraint j at
// Con[j].
type permutation struct{ Var, Pot, Con []int32 }

// newPermutation draws uniform permutations (Fisher-Yates over PCG) of a
// problem's variables, potentials and constraints.
func newPermutation(p *hlmrf.Problem, seed uint64) *permutation {
	rng := rand.New(rand.NewPCG(seed, 0x5f1ff1e))
	perm := func(n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	return &permutation{Var: perm(p.NumVars), Pot: perm(p.NumPotentials()), Con: perm(p.NumConstraints())}
}

// apply returns p relabelled: q's variable Var[v] is p's v, q's potential
// Pot[i] is p's potential i over the renamed variables (terms in the same
// order), and likewise for constraints. Weights, constants, powers, kinds
// and groups travel with their potential or constraint.
func (pm *permutation) apply(p *hlmrf.Problem) *hlmrf.Problem {
	invPot := make([]int32, len(pm.Pot))
	for i, to := range pm.Pot {
		invPot[to] = int32(i)
	}
	invCon := make([]int32, len(pm.Con))
	for j, to := range pm.Con {
		invCon[to] = int32(j)
	}
	q := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	q.AddVars(p.NumVars)
	var vars []int32
	for _, i := range invPot {
		vs, cs := p.Terms(int(i))
		vars = vars[:0]
		for _, v := range vs {
			vars = append(vars, pm.Var[v])
		}
		q.AddPotential(p.Weight[i], p.Const[i], p.Power[i], p.Group[i], vars, cs)
	}
	for _, j := range invCon {
		vs, cs := p.CTerms(int(j))
		vars = vars[:0]
		for _, v := range vs {
			vars = append(vars, pm.Var[v])
		}
		q.AddConstraint(p.CKind[j], p.CConst[j], p.CGroup[j], vars, cs)
	}
	return q
}

// socialCopies is the k-fold problem of the sweep, the target check and
// -social-export: base duplicated k times, shuffled with seed socialSeed+k.
func (c *config) socialCopies(base *hlmrf.Problem, k int) *hlmrf.Problem {
	return duplicate(base, k, c.socialSeed+uint64(k))
}

// duplicate returns k disjoint copies of p (hlmrf.Problem.Append with
// shifted variables), shuffled by a permutation drawn from seed.
func duplicate(p *hlmrf.Problem, k int, seed uint64) *hlmrf.Problem {
	d := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	for range k {
		d.Append(p, true)
	}
	return newPermutation(d, seed).apply(d)
}

// runSocial is Figure 5: ground the social-affiliation model once, then
// for k = 1..K solve the k-fold duplicated, shuffled problem unlifted and
// lifted.
func runSocial(ctx context.Context, c *config) error {
	tmp, err := os.MkdirTemp("", "hinge-lifted-social-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := c.socialFile
	if file == "" {
		if !c.quick {
			return fmt.Errorf("no social-affiliation file (set -social-file, -data or $HINGE_DATA)")
		}
		// A small network of the same form, so the quick run needs no data.
		file = filepath.Join(tmp, "socialNet-generated.txt")
		err := atomicfile.Write(file, func(w io.Writer) error { return genSocial(w, 300, 600, c.socialSeed) })
		if err != nil {
			return err
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	net, err := parseSocial(f, file)
	f.Close()
	if err != nil {
		return &badInputError{err}
	}
	if err := net.writePSL(tmp, c.socialSquared); err != nil {
		return err
	}
	base, gt, err := groundPSL(tmp, "social", c.threads, false)
	if err != nil {
		return err
	}
	nEdges := 0
	for _, e := range net.Edges {
		nEdges += len(e)
	}
	c.logf("social: %d people, %d edges: %d variables, %d potentials, %d constraints (load+ground %.2f s)",
		len(net.People), nEdges, base.NumVars, base.NumPotentials(), base.NumConstraints(), gt.Wall)

	if c.socialExport != "" {
		k := c.socialMaxK
		p := c.socialCopies(base, k)
		if err := atomicfile.Write(c.socialExport, func(w io.Writer) error { return hlmrf.Write(w, p) }); err != nil {
			return err
		}
		c.logf("social: wrote the %dx problem (%d variables, %d potentials, %d constraints) to %s", k, p.NumVars, p.NumPotentials(), p.NumConstraints(), c.socialExport)
		return nil
	}
	if c.targetOnly {
		return socialTarget(ctx, c, base)
	}
	header := append([]string{"k", "seed", "squared"}, compHeader...)
	var csvRows, table [][]string
	var ks, tu, tls, tl, tt []float64
	var first *comparison
	for k := 1; k <= c.socialMaxK; k++ {
		p := c.socialCopies(base, k)
		cmp, err := compare(ctx, p, c.admm, c.runs, c.objTol)
		if err != nil {
			return fmt.Errorf("%dx: %w", k, err)
		}
		if first == nil {
			first = cmp
		}
		c.logf("  %dx: %d -> %d variables, %d -> %d potentials; HL-MRF %.3f s, lift %.3f s, LHL-MRF solve %.3f s, total %.3f s",
			k, cmp.Orig.Vars, cmp.Lifted.Vars, cmp.Orig.Pots, cmp.Lifted.Pots, cmp.Unlifted.Wall, cmp.Lift.Wall, cmp.LiftedSolve.Wall, cmp.LiftedTotal.Wall)
		csvRows = append(csvRows, append([]string{itoa(k), fmt.Sprint(c.socialSeed + uint64(k)), strconv.FormatBool(c.socialSquared)}, compRow(cmp)...))
		table = append(table, []string{fmt.Sprintf("%dx", k), sizeCell(cmp.Orig.Vars, cmp.Lifted.Vars), sizeCell(cmp.Orig.Pots, cmp.Lifted.Pots), sizeCell(cmp.Orig.Cons, cmp.Lifted.Cons),
			timeCell(cmp.Unlifted), timeCell(cmp.Lift), timeCell(cmp.LiftedSolve), timeCell(cmp.LiftedTotal),
			fmt.Sprintf("%.2f", cmp.LiftedTotal.Wall/first.Unlifted.Wall), fmt.Sprintf("%d / %d", cmp.Iter, cmp.LiftedIt), fe(cmp.MaxRelObjDiff)})
		ks = append(ks, float64(k))
		tu, tls, tl, tt = append(tu, cmp.Unlifted.Wall), append(tls, cmp.LiftedSolve.Wall), append(tl, cmp.Lift.Wall), append(tt, cmp.LiftedTotal.Wall)
	}
	if err := writeCSV(filepath.Join(c.out, "social.csv"), header, csvRows); err != nil {
		return err
	}
	hinges := "linear"
	if c.socialSquared {
		hinges = "squared"
	}
	fmt.Fprintf(c.stdout, "## social (Figure 5): %d people, %d edges, %s hinges, shuffle seeds %d+k; seconds wall (CPU), medians of %d\n\n",
		len(net.People), nEdges, hinges, c.socialSeed, c.runs)
	fmt.Fprintf(c.stdout, "1x reduction by lifting: variables %.2f%%, potentials %.2f%%, constraints %.2f%% (paper: < 1%% symmetry)\n\n",
		first.VarReduction(), first.PotReduction(), first.ConReduction())
	printTable(c.stdout, []string{"k", "variables", "potentials", "constraints", "HL-MRF", "lifting", "LHL-MRF solving", "LHL-MRF total", "total / 1x HL-MRF", "iterations", "max rel. obj. diff"}, table)

	if c.socialMaxK > 1 {
		if err := socialTarget(ctx, c, base); err != nil {
			return err
		}
	}

	pl, err := lineChart(fmt.Sprintf("social affiliation, duplicated and shuffled (median of %d)", c.runs), "k (k-fold duplicated problem)", "wall seconds", []series{
		{Name: "HL-MRF", X: ks, Y: tu},
		{Name: "LHL-MRF (solving)", X: ks, Y: tls},
		{Name: "LHL-MRF (lifting)", X: ks, Y: tl},
		{Name: "LHL-MRF (total)", X: ks, Y: tt, Dashed: true},
	})
	if err != nil {
		return err
	}
	return savePNG(filepath.Join(c.out, "social.png"), 6*vg.Inch, 4*vg.Inch, pl)
}

// socialTarget measures the ratio of the K-fold LHL-MRF total time
// (lifting and solving) to the 1x HL-MRF time, with the two solves
// alternated run by run:
// this machine's speed drifts by tens of percent over the minutes the sweep
// takes, so a ratio of times taken minutes apart can be off by that much.
// It prints the median of the per-pair ratios and writes
// social-target.csv.
func socialTarget(ctx context.Context, c *config, base *hlmrf.Problem) error {
	k := c.socialMaxK
	p1, pk := c.socialCopies(base, 1), c.socialCopies(base, k)
	var ratios, t1s, tks []float64
	var rows [][]string
	for r := range c.runs {
		runtime.GC()
		sw := startWatch()
		if _, err := admm.Solve(ctx, p1, c.admm); err != nil {
			return fmt.Errorf("target, 1x: %w", err)
		}
		t1 := sw.elapsed()
		runtime.GC()
		lr, err := liftedRun(ctx, pk, c.admm)
		if err != nil {
			return fmt.Errorf("target, %dx: %w", k, err)
		}
		tl, tk := lr.lift, lr.lift.add(lr.solve)
		ratios, t1s, tks = append(ratios, tk.Wall/t1.Wall), append(t1s, t1.Wall), append(tks, tk.Wall)
		rows = append(rows, []string{itoa(r + 1), fg(t1.Wall), fg(tl.Wall), fg(tk.Wall - tl.Wall), fg(tk.Wall), fg(tk.Wall / t1.Wall)})
		c.logf("  target run %d: 1x HL-MRF %.3f s, %dx lift %.3f s + solve %.3f s = %.3f s, ratio %.2f", r+1, t1.Wall, k, tl.Wall, tk.Wall-tl.Wall, tk.Wall, tk.Wall/t1.Wall)
	}
	if err := writeCSV(filepath.Join(c.out, "social-target.csv"),
		[]string{"run", "hlmrf_1x_s", fmt.Sprintf("lift_%dx_s", k), fmt.Sprintf("lifted_solve_%dx_s", k), fmt.Sprintf("lhlmrf_total_%dx_s", k), "ratio"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "Target (%dx LHL-MRF total within 1.5x of the 1x HL-MRF time), measured alternately, %d pairs: "+
		"median ratio %.2f (1x HL-MRF median %.3f s, %dx LHL-MRF total median %.3f s).\n\n",
		k, c.runs, measure.Median(ratios), measure.Median(t1s), k, measure.Median(tks))
	return nil
}
