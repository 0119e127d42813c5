package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/lift"
)

// readCSV reads a results file as maps from column name to cell.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s: %d records, want a header and rows", path, len(recs))
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s: %q: %v", col, row[col], err)
	}
	return x
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 200 {
		t.Errorf("%s: %v is too small for a plot", path, b)
	}
}

// checkComparisonRow checks what must hold for every measured problem.
func checkComparisonRow(t *testing.T, row map[string]string) {
	t.Helper()
	for _, k := range []string{"variables", "potentials", "constraints"} {
		if num(t, row, "lifted_"+k) > num(t, row, k) {
			t.Errorf("lifting grew %s: %s -> %s", k, row[k], row["lifted_"+k])
		}
	}
	if d := num(t, row, "max_rel_objective_diff"); d > 1e-6 {
		t.Errorf("objective difference %g", d)
	}
	if row["iterations"] != row["lifted_iterations"] {
		t.Errorf("iterations %s unlifted, %s lifted: copy-weighted ADMM should retrace the unlifted run", row["iterations"], row["lifted_iterations"])
	}
	if o, l := num(t, row, "objective"), num(t, row, "lifted_objective"); relDiff(o, l) > 1e-6 {
		t.Errorf("objectives %g and %g", o, l)
	}
}

// TestQuick runs the program's quick mode (generated smokers graphs and a
// generated social network, no shared data) and checks its outputs.
func TestQuick(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-quick", "-out", out, "-threads", "2"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"## smokers", "## social", "| binary | 1000 |"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}

	smokers := readCSV(t, filepath.Join(out, "smokers.csv"))
	if len(smokers) != 6 {
		t.Fatalf("smokers.csv has %d rows, want 3 value ranges x 2 densities", len(smokers))
	}
	for _, r := range smokers {
		checkComparisonRow(t, r)
		// 60 people, half observed: 30 target variables.
		if r["variables"] != "30" {
			t.Errorf("%s %s: %s variables, want 30", r["values"], r["edges"], r["variables"])
		}
	}
	checkPNG(t, filepath.Join(out, "smokers.png"))

	social := readCSV(t, filepath.Join(out, "social.csv"))
	if len(social) != 3 {
		t.Fatalf("social.csv has %d rows, want 1x..3x", len(social))
	}
	one := social[0]
	for k, r := range social {
		checkComparisonRow(t, r)
		// The k-fold disjoint copy has k times the ground problem and lifts
		// to the same problem as 1x (each class is k copies of a 1x class).
		for _, col := range []string{"variables", "potentials", "constraints"} {
			if got, want := num(t, r, col), float64(k+1)*num(t, one, col); got != want {
				t.Errorf("%dx: %s = %g, want %g", k+1, col, got, want)
			}
			if r["lifted_"+col] != one["lifted_"+col] {
				t.Errorf("%dx: lifted %s = %s, 1x lifted = %s", k+1, col, r["lifted_"+col], one["lifted_"+col])
			}
		}
		if r["iterations"] != one["iterations"] {
			t.Errorf("%dx: %s iterations, 1x %s: disjoint copies should converge together", k+1, r["iterations"], one["iterations"])
		}
		if o, o1 := num(t, r, "objective"), num(t, one, "objective"); math.Abs(o-float64(k+1)*o1) > 1e-6*math.Abs(o) {
			t.Errorf("%dx: objective %g, want %d x %g", k+1, o, k+1, o1)
		}
	}
	checkPNG(t, filepath.Join(out, "social.png"))
	checkTarget(t, out, 1)
}

// checkTarget checks social-target.csv: runs rows whose total is lift plus
// lifted solve and whose ratio is total over the 1x time.
func checkTarget(t *testing.T, out string, runs int) {
	t.Helper()
	rows := readCSV(t, filepath.Join(out, "social-target.csv"))
	if len(rows) != runs {
		t.Fatalf("social-target.csv has %d rows, want %d", len(rows), runs)
	}
	for _, r := range rows {
		one, lift, solve, total, ratio := num(t, r, "hlmrf_1x_s"), num(t, r, "lift_3x_s"), num(t, r, "lifted_solve_3x_s"), num(t, r, "lhlmrf_total_3x_s"), num(t, r, "ratio")
		if one <= 0 || lift <= 0 || solve <= 0 || math.Abs(lift+solve-total) > 1e-9*total || math.Abs(total/one-ratio) > 1e-9*ratio {
			t.Errorf("inconsistent target row %v", r)
		}
	}
}

// TestTargetOnly runs the alternating target check alone.
func TestTargetOnly(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-quick", "-experiments", "social", "-social-target-only", "-runs", "2", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "median ratio") {
		t.Errorf("output lacks the target line:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "social.csv")); err == nil {
		t.Error("the sweep ran although -social-target-only was given")
	}
	checkTarget(t, out, 2)
}

// writeTinyCitations writes a LINQS-form citation network (the layout
// internal/citations reads) with two categories: two disjoint copies of the
// same small graph, so lifting has something to find.
func writeTinyCitations(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	var labels, links strings.Builder
	for copy := range 2 {
		base := 10 * copy
		for i := range 6 {
			fmt.Fprintf(&labels, "%d\t%d\n", base+i+1, i%2+1)
		}
		for _, e := range [][2]int{{1, 2}, {2, 3}, {3, 1}, {4, 5}, {5, 6}, {1, 4}, {6, 2}} {
			fmt.Fprintf(&links, "%d\t%d\n", base+e[0], base+e[1])
		}
	}
	files := map[string]string{
		"labels.txt":     "1\tA\n2\tB\n",
		name + ".labels": labels.String(),
		name + ".links":  links.String(),
	}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCitationsTiny runs the Cora path of the program on a tiny generated
// network (not the shared data).
func TestCitationsTiny(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	writeTinyCitations(t, data, "cora")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-quick", "-experiments", "cora", "-data", data, "-out", out, "-runs", "2"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	rows := readCSV(t, filepath.Join(out, "cora.csv"))
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	checkComparisonRow(t, rows[0])
	// 12 papers, half targets, 2 categories: 12 HasCat target atoms; one
	// functional constraint per target paper.
	if rows[0]["variables"] != "12" || rows[0]["constraints"] != "6" || rows[0]["runs"] != "2" {
		t.Errorf("row %v", rows[0])
	}
	if !strings.Contains(stdout.String(), "| paper |") {
		t.Errorf("no paper row:\n%s", stdout.String())
	}
	checkPNG(t, filepath.Join(out, "cora.png"))
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-experiments", "wikidata"},
		{"-runs", "0"},
		{"-smokers-edges", "10,x"},
		{"-smokers-people", "10", "-smokers-edges", "91"},
		{"-smokers-values", "binary,hex"},
		{"-rho", "0"},
		{"stray"},
	} {
		err := run(context.Background(), append(args, "-out", t.TempDir()), new(bytes.Buffer), new(bytes.Buffer))
		var bad *badInputError
		if !errors.As(err, &bad) {
			t.Errorf("%v: got %v, want a bad-input error", args, err)
		}
	}
}

func TestBadSocialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.txt")
	if err := os.WriteFile(path, []byte("1\tanon1\t0.5\n1\tfriendOf\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"-experiments", "social", "-social-file", path, "-out", t.TempDir()}, new(bytes.Buffer), new(bytes.Buffer))
	var bad *badInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), path+":2:3: unknown relation") {
		t.Errorf("got %v", err)
	}
}

func TestParseSocial(t *testing.T) {
	good := "0\tknowswell\t1\n1\tanon1\t-0.25\n\n0\tanon1\t0.5\n2\tidol\t0\n0\tknowswell\t1\n"
	net, err := parseSocial(strings.NewReader(good), "g.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0", "1", "2"}; !slices.Equal(net.People, want) {
		t.Errorf("people %v, want %v", net.People, want)
	}
	if net.Bias["0"] != "0.5" || net.Bias["1"] != "-0.25" || len(net.Bias) != 2 {
		t.Errorf("bias %v", net.Bias)
	}
	if len(net.Edges[0]) != 1 || len(net.Edges[5]) != 1 || net.Edges[5][0] != [2]string{"2", "0"} {
		t.Errorf("edges %v (the repeated knowswell edge counts once)", net.Edges)
	}

	for _, tc := range []struct{ in, want string }{
		{"0\tknows\n", "b.txt:1:1: want 3 tab-separated fields"},
		{"0\tknows\t1\n0\tanon1\t2\n", "b.txt:2:9: bias \"2\" is not a number in [-1, 1]"},
		{"0\tanon1\tNaN\n", "b.txt:1:9: bias"},
		{"0\tanon1\t0.1\n0\tanon1\t0.2\n", "b.txt:2:1: person \"0\" has a second anon1"},
		{"0\tlikes\t1\n", "b.txt:1:3: unknown relation \"likes\""},
		{"0\tknows\t\n", "b.txt:1:9: field 3 is empty"},
		{"a b\tknows\t1\n", "b.txt:1:1: field 1 is empty or contains a blank"},
		{"\n\n", "b.txt: no people"},
	} {
		_, err := parseSocial(strings.NewReader(tc.in), "b.txt")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q...", tc.in, err, tc.want)
		}
	}
}

func TestBiasValues(t *testing.T) {
	for _, tc := range []struct{ x, r, d float64 }{
		{-0.75, 0.75, 0}, {0, 0, 0}, {0.3, 0, 0.3}, {-1, 1, 0}, {1, 0, 1},
	} {
		if r, d := biasValues(tc.x); r != tc.r || d != tc.d {
			t.Errorf("biasValues(%g) = %g, %g, want %g, %g", tc.x, r, d, tc.r, tc.d)
		}
	}
}

// TestSocialGroundCounts grounds the converted PSL form of a generated
// network and checks the counts against the rules worked out by hand: one
// bias potential per registered person with a nonzero bias (the other
// party's bias is 0, so that grounding is satisfied), two propagation
// potentials per distinct (relation, edge) with different ends, one
// constraint per person.
func TestSocialGroundCounts(t *testing.T) {
	var buf bytes.Buffer
	if err := genSocial(&buf, 40, 150, 7); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("3\tknows\t3\n") // a self-edge grounds to nothing
	net, err := parseSocial(&buf, "gen.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := net.writePSL(dir, false); err != nil {
		t.Fatal(err)
	}
	p, _, err := groundPSL(dir, "social", 1, false)
	if err != nil {
		t.Fatal(err)
	}

	wantPots := 0
	for _, x := range net.Bias {
		if v, _ := strconv.ParseFloat(x, 64); v != 0 {
			wantPots++
		}
	}
	for _, es := range net.Edges {
		for _, e := range es {
			if e[0] != e[1] {
				wantPots += 2
			}
		}
	}
	if p.NumVars != 2*len(net.People) || p.NumPotentials() != wantPots || p.NumConstraints() != len(net.People) {
		t.Errorf("ground %d variables, %d potentials, %d constraints; want %d, %d, %d",
			p.NumVars, p.NumPotentials(), p.NumConstraints(), 2*len(net.People), wantPots, len(net.People))
	}
	for i := range p.NumPotentials() {
		if p.Power[i] != 1 {
			t.Fatalf("potential %d has power %d, want linear", i, p.Power[i])
		}
	}
}

func TestGenSmokers(t *testing.T) {
	for _, values := range []string{"binary", "decimal1", "decimal4"} {
		g, err := genSmokers(30, 500, values, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[[2]int32]bool{}
		for i, e := range g.Edges {
			if e[0] == e[1] || e[0] < 0 || e[1] >= 30 || seen[e] {
				t.Fatalf("%s: edge %d %v is a self-loop, out of range or repeated", values, i, e)
			}
			seen[e] = true
			v := g.Value[i]
			if lv := float64(valueLevels[values]); v < 0 || v > 1 || math.Abs(v*lv-math.Round(v*lv)) > 1e-9 {
				t.Fatalf("%s: value %g is not on the range's grid", values, v)
			}
		}
		if n := countTrue(g.Observed); n != 15 {
			t.Errorf("%s: %d observed, want 15", values, n)
		}
		again, _ := genSmokers(30, 500, values, 3)
		if !slices.Equal(again.Edges, g.Edges) || !slices.Equal(again.Value, g.Value) || !slices.Equal(again.Observed, g.Observed) {
			t.Errorf("%s: same seed, different graph", values)
		}
		other, _ := genSmokers(30, 500, values, 4)
		if slices.Equal(other.Edges, g.Edges) {
			t.Errorf("%s: seeds 3 and 4 gave the same edges", values)
		}
	}
	// All pairs: the partial shuffle must reach every ordered pair.
	g, err := genSmokers(5, 20, "binary", 1)
	if err != nil || len(g.Edges) != 20 {
		t.Fatalf("all 20 pairs of 5 people: %v", err)
	}
	if _, err := genSmokers(5, 21, "binary", 1); err == nil {
		t.Error("21 edges among 5 people: no error")
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// smokersPotentialsOracle counts the ground potentials of the two smokers
// rules by cases (worked out from the Lukasiewicz distances
// v + s_a - 1 - s_b and v - s_a + s_b - 1): rule 1 needs a not observed 0
// and b not observed 1, with at least one target; rule 2 needs a not
// observed 1 and b not observed 0, with at least one target; an edge of
// value 0 grounds nothing.
func smokersPotentialsOracle(g *smokersGraph) int {
	state := func(p int32) int { // 0, 1 observed; 2 target
		if !g.Observed[p] {
			return 2
		}
		if g.Label[p] {
			return 1
		}
		return 0
	}
	n := 0
	for i, e := range g.Edges {
		if g.Value[i] == 0 {
			continue
		}
		a, b := state(e[0]), state(e[1])
		if a == 2 || b == 2 {
			if a != 0 && b != 1 {
				n++
			}
			if a != 1 && b != 0 {
				n++
			}
		}
	}
	return n
}

func TestSmokersGroundCounts(t *testing.T) {
	for _, values := range []string{"binary", "decimal1", "decimal4"} {
		g, err := genSmokers(40, 600, values, 5)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := g.writePSL(dir, true, decimalsOf[values]); err != nil {
			t.Fatal(err)
		}
		p, _, err := groundPSL(dir, "smokers", 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if p.NumVars != 20 || p.NumPotentials() != smokersPotentialsOracle(g) {
			t.Errorf("%s: %d variables, %d potentials; want 20, %d", values, p.NumVars, p.NumPotentials(), smokersPotentialsOracle(g))
		}
	}
}

// randomProblem builds a small problem with mixed potentials and
// constraints.
func randomProblem(seed uint64, nv, np, nc int) *hlmrf.Problem {
	rng := rand.New(rand.NewPCG(seed, 9))
	p := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	p.AddVars(nv)
	terms := func() ([]int32, []float64) {
		k := 1 + rng.IntN(3)
		var vs []int32
		var cs []float64
		for range k {
			vs = append(vs, int32(rng.IntN(nv)))
			cs = append(cs, float64(rng.IntN(5)-2)+0.5)
		}
		return vs, cs
	}
	for i := range np {
		vs, cs := terms()
		p.AddPotential(rng.Float64()*2, rng.Float64()-0.5, uint8(1+rng.IntN(2)), int32(i%3), vs, cs)
	}
	for j := range nc {
		vs, cs := terms()
		p.AddConstraint(hlmrfKind(rng.IntN(2)), rng.Float64(), int32(j%2), vs, cs)
	}
	return p
}

func hlmrfKind(i int) hlmrf.ConstraintKind {
	if i == 0 {
		return hlmrf.LessEq
	}
	return hlmrf.Equal
}

// mapValues maps a solution of the permuted problem back to p's variables.
func (pm *permutation) mapValues(y []float64) []float64 {
	out := make([]float64, len(pm.Var))
	for v, to := range pm.Var {
		out[v] = y[to]
	}
	return out
}

// TestPermutation checks the shuffle against the definition: the permuted
// problem at the permuted point has the same objective, the same multiset
// of potential values and the same constraint violations.
func TestPermutation(t *testing.T) {
	p := randomProblem(1, 15, 40, 8)
	pm := newPermutation(p, 11)
	for _, perm := range [][]int32{pm.Var, pm.Pot, pm.Con} {
		s := slices.Clone(perm)
		slices.Sort(s)
		for i, v := range s {
			if int(v) != i {
				t.Fatalf("not a permutation: %v", perm)
			}
		}
	}
	if slices.Equal(pm.Pot, newPermutation(p, 12).Pot) {
		t.Error("seeds 11 and 12 gave the same potential order")
	}
	q := pm.apply(p)
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if sizesOf(q) != sizesOf(p) {
		t.Fatalf("sizes %v, want %v", sizesOf(q), sizesOf(p))
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for range 20 {
		y := make([]float64, q.NumVars) // a point of q
		for i := range y {
			y[i] = rng.Float64()
		}
		x := pm.mapValues(y) // the same point in p's numbering
		if a, b := p.Objective(x), q.Objective(y); math.Abs(a-b) > 1e-12*max(1, math.Abs(a)) {
			t.Fatalf("objective %g, permuted %g", a, b)
		}
		for i := range p.NumPotentials() {
			qi := int(pm.Pot[i])
			if p.Incompatibility(i, x) != q.Incompatibility(qi, y) || p.Weight[i] != q.Weight[qi] || p.Group[i] != q.Group[qi] {
				t.Fatalf("potential %d -> %d differs", i, qi)
			}
		}
		for j := range p.NumConstraints() {
			qj := int(pm.Con[j])
			if p.ConstraintViolation(j, x) != q.ConstraintViolation(qj, y) || p.CKind[j] != q.CKind[qj] {
				t.Fatalf("constraint %d -> %d differs", j, qj)
			}
		}
	}
}

// TestDuplicate: k shuffled copies have k times everything, and at a point
// that repeats one point of p on every copy the objective is k times p's.
func TestDuplicate(t *testing.T) {
	p := randomProblem(3, 10, 25, 5)
	d := duplicate(p, 3, 5)
	if want := (sizes{30, 75, 15}); sizesOf(d) != want {
		t.Fatalf("sizes %v, want %v", sizesOf(d), want)
	}
	// Rebuild the permutation duplicate drew to place the copies' values.
	u := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	for range 3 {
		u.Append(p, true)
	}
	pm := newPermutation(u, 5)
	x := make([]float64, p.NumVars)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range x {
		x[i] = rng.Float64()
	}
	y := make([]float64, d.NumVars)
	for v := range u.NumVars {
		y[pm.Var[v]] = x[v%p.NumVars]
	}
	if a, b := 3*p.Objective(x), d.Objective(y); math.Abs(a-b) > 1e-12*max(1, a) {
		t.Errorf("objective %g, want 3 x %g", b, a/3)
	}
}

func TestParseInts(t *testing.T) {
	got, err := parseInts("10k, 50000,1K")
	if err != nil || !slices.Equal(got, []int{10000, 50000, 1000}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "-5", "1.5k", "k"} {
		if _, err := parseInts(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParseSocial: any input gives a network or an error that names the
// file and a position, never a panic.
func FuzzParseSocial(f *testing.F) {
	f.Add("0\tknowswell\t1\n1\tanon1\t-0.25\n")
	f.Add("0\tanon1\t2\n")
	f.Add("\t\t\n")
	f.Add("0\tidol\t0\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		net, err := parseSocial(strings.NewReader(in), "f.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for p, x := range net.Bias {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil || v < -1 || v > 1 {
				t.Fatalf("bias of %q: %q", p, x)
			}
		}
		if len(net.People) == 0 {
			t.Fatal("no people and no error")
		}
	})
}

// TestSocialExport writes the 1x and 2x problems and reads them back: the
// 2x problem has twice the 1x sizes and lifts to the same sizes.
func TestSocialExport(t *testing.T) {
	dir := t.TempDir()
	var probs [2]*hlmrf.Problem
	var lifted [2]*lift.Lifted
	for i := range probs {
		file := filepath.Join(dir, fmt.Sprintf("social%d.hlmrf", i+1))
		var stdout, stderr bytes.Buffer
		args := []string{"-quick", "-experiments", "social", "-social-max-k", fmt.Sprint(i + 1), "-social-export", file, "-out", dir}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		probs[i], err = hlmrf.Read(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if lifted[i], err = lift.Lift(probs[i]); err != nil {
			t.Fatal(err)
		}
	}
	one, two := probs[0], probs[1]
	if two.NumVars != 2*one.NumVars || two.NumPotentials() != 2*one.NumPotentials() || two.NumConstraints() != 2*one.NumConstraints() {
		t.Errorf("2x problem %d/%d/%d, 1x %d/%d/%d: want twice", two.NumVars, two.NumPotentials(), two.NumConstraints(), one.NumVars, one.NumPotentials(), one.NumConstraints())
	}
	if a, b := lifted[0].Problem, lifted[1].Problem; a.NumVars != b.NumVars || a.NumPotentials() != b.NumPotentials() {
		t.Errorf("lifted 1x %d/%d, lifted 2x %d/%d: want equal", a.NumVars, a.NumPotentials(), b.NumVars, b.NumPotentials())
	}
}
