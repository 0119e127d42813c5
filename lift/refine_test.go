package lift

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

// TestExample1Coloring checks paper 000, Example 3: the variables split into
// {y1}, {y2, y4}, {y3} and the potentials into {phi2}, {phi1, phi3}, {phi4}.
// Colors are numbered by first occurrence, so the partition fixes the numbers.
func TestExample1Coloring(t *testing.T) {
	p := admmtest.ReadProblem(t, "../hlmrf/testdata/example1.hlmrf")
	col, err := Refine(p)
	if err != nil {
		t.Fatal(err)
	}
	want := &Coloring{
		Var: []int32{0, 1, 2, 1}, Pot: []int32{0, 1, 0, 2}, Con: []int32{},
		NumVar: 3, NumPot: 3,
	}
	if diff := cmp.Diff(want, col); diff != "" {
		t.Fatalf("coloring (-want +got):\n%s", diff)
	}
	if err := checkStable(p, col); err != nil {
		t.Fatal(err)
	}
}

// refineCase is a random problem family: problems drawn from spec, as
// copies planted copies (see planted) when copies > 1.
type refineCase struct {
	name   string
	spec   genSpec
	copies int
}

// problem draws a problem of the family and a point that satisfies its hard
// constraints.
func (tc refineCase) problem(rng *rand.Rand) (*hlmrf.Problem, []float64) {
	p, y0 := randomProblem(rng, tc.spec)
	if tc.copies > 1 {
		p, y0 = planted(rng, p, y0, tc.copies)
	}
	return p, y0
}

// refineCases are random problem families for the property tests: small
// enough for the brute-force oracles, with and without planted symmetry.
var refineCases = []refineCase{
	{"linear-pm1", genSpec{vars: 6, pots: 8, maxTerms: 3, coefs: simpleCoefs, weights: []float64{1, 2}, consts: []float64{0, 1}}, 1},
	{"mixed-tricky", genSpec{vars: 7, pots: 10, cons: 3, maxTerms: 4, coefs: trickyCoefs, weights: []float64{0.1, 0.3}, consts: []float64{0, 0.1, -0.2}, squared: 0.5, equalities: 0.5}, 1},
	{"planted3-pm1", genSpec{vars: 5, pots: 6, cons: 2, maxTerms: 3, coefs: simpleCoefs, weights: []float64{1}, consts: []float64{0, 1}, squared: 0.5, equalities: 0.5}, 3},
	{"planted4-tricky", genSpec{vars: 5, pots: 7, cons: 2, maxTerms: 4, coefs: trickyCoefs, weights: []float64{0.1, 0.2}, consts: []float64{0.3, 1}, squared: 0.5, equalities: 0.5}, 4},
	{"dense-uniform", genSpec{vars: 8, pots: 30, cons: 4, maxTerms: 2, coefs: []float64{1}, weights: []float64{1}, consts: []float64{0}, squared: 0.5, equalities: 0.5}, 2},
	// Many one-term potentials (priors) whose labels (constants) only they
	// have, and some shared labels.
	{"leafy-planted3", genSpec{vars: 6, pots: 16, cons: 3, maxTerms: 2, coefs: []float64{1, -1, 2, 0.5}, weights: []float64{1, 2}, consts: []float64{0, 1}, leafConsts: []float64{0.25, 0.75, 1}, squared: 0.5, equalities: 0.3}, 3},
	{"leafy-tricky", genSpec{vars: 5, pots: 14, cons: 2, maxTerms: 2, coefs: trickyCoefs, weights: []float64{1}, consts: []float64{0}, leafConsts: []float64{0.5, -0.5}, squared: 0.5, equalities: 0.5}, 1},
}

// TestRefineMatchesNaive compares Refine with the textbook round-by-round
// refinement over exact rationals, and checks stability independently.
func TestRefineMatchesNaive(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for _, tc := range refineCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), 1))
				p, _ := tc.problem(rng)
				col, err := Refine(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkStable(p, col); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if diff := cmp.Diff(naiveRefine(p), col); diff != "" {
					t.Fatalf("seed %d: not the coarsest stable coloring (-naive +Refine):\n%s", seed, diff)
				}
			}
		})
	}
}

// TestWideSums runs refinement with coefficients whose exact sums need many
// 64-bit words (exponents from -200 to 200 decimal), against the oracle.
func TestWideSums(t *testing.T) {
	spec := genSpec{vars: 6, pots: 9, cons: 2, maxTerms: 3,
		coefs:   []float64{1e200, -1e200, 1e-200, 3, -3, 0.1},
		weights: []float64{1}, consts: []float64{0, 1}, squared: 0.5, equalities: 0.5}
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 8))
		p, y0 := randomProblem(rng, spec)
		p, _ = planted(rng, p, y0, 3)
		g := newGraph(p)
		if g.scale.words < 20 {
			t.Fatalf("only %d words: the test does not exercise wide sums", g.scale.words)
		}
		col, err := Refine(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(naiveRefine(p), col); diff != "" {
			t.Fatalf("seed %d (-naive +Refine):\n%s", seed, diff)
		}
		if _, err := Lift(p); err != nil && !strings.Contains(err.Error(), "overflows") {
			t.Fatal(err)
		}
	}
}

// TestLeaves checks one-term factors (priors, bounds) against the oracle and
// the expected colorings: they are classed by their coefficient, not by
// sums per label alone, and may share a class with longer factors.
func TestLeaves(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		numVar  int
		numPot  int
		varCols []int32
	}{{
		// y1, y2 have the same leaves (two of label (1, 0.5), one each
		// coefficient): symmetric; y3 has one leaf fewer.
		name:   "counts per coefficient",
		text:   "1 0:0.5 1:1\n1 0:0.5 1:1\n1 0:0.5 1:2\n1 0:0.5 2:1\n1 0:0.5 2:2\n1 0:0.5 2:1\n1 0:0.5 3:1\n1 0:0.5 3:2\n",
		numVar: 2, numPot: 4, varCols: []int32{0, 0, 1},
	}, {
		// Same sums per label (1+1 = 2), different coefficients: a sum
		// criterion on the label alone would merge y1 and y2, but their
		// leaves fall into different classes (coefficient 1 vs 2).
		name:   "sum per label is not enough",
		text:   "1 0:0 1:1\n1 0:0 1:1\n1 0:0 2:2\n",
		numVar: 2, numPot: 2, varCols: []int32{0, 1},
	}, {
		// A leaf shares its class with longer factors: f = 2 y1, g = g' =
		// 0.5 y1 + 1.5 y2, all of one label. Every factor sums to 2 into
		// {y1, y2} and both variables to 3 into the factors, so the coarsest
		// coloring has one class each; folding the leaf would split them.
		name:   "leaf in a class with longer factors",
		text:   "1 0:0 1:2\n1 0:0 1:0.5 2:1.5\n1 0:0 1:0.5 2:1.5\n",
		numVar: 1, numPot: 1, varCols: []int32{0, 0},
	}, {
		// Bounds y <= 0.5 are leaf constraints; y1 and y2 have one each.
		name:   "leaf constraints",
		text:   "<= 0:0.5 1:1\n<= 0:0.5 2:1\n1 0:0 1:1 2:1 3:1\n",
		numVar: 2, numPot: 1, varCols: []int32{0, 0, 1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseProblem(t, tc.text)
			col, err := Refine(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(naiveRefine(p), col); diff != "" {
				t.Fatalf("(-naive +Refine):\n%s", diff)
			}
			if col.NumVar != tc.numVar || col.NumPot != tc.numPot || !cmp.Equal(col.Var, tc.varCols) {
				t.Errorf("got %+v", col)
			}
			if err := checkLiftedOnce(p); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkLiftedOnce checks that Lift's objective matches at a few points.
func checkLiftedOnce(p *hlmrf.Problem) error {
	l, err := Lift(p)
	if err != nil {
		return err
	}
	for _, v := range []float64{0, 0.3, 1} {
		z := make([]float64, l.Problem.NumVars)
		for k := range z {
			z[k] = v * float64(k+1) / float64(len(z))
		}
		if got, want := l.Objective(z), p.Objective(l.Expand(z)); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			return fmt.Errorf("lifted objective %v, original %v", got, want)
		}
	}
	return nil
}

// TestExactSums pins down the choice of exact sums over float64 sums and over
// multisets of edge weights.
func TestExactSums(t *testing.T) {
	for _, tc := range []struct {
		name             string
		text             string
		numVar, numPot   int
		varColor, potCol []int32
	}{{
		// Circulant rows of 0.1, 0.2, -0.1: every row and column sums to
		// exactly 0.2, but in float64 0.1+0.2-0.1 = 0.20000000000000004 while
		// 0.2-0.1+0.1 = 0.2. Summing in float64 would split the classes.
		name:     "order-dependent float sums",
		text:     "1 0:0 1:0.1 2:0.2 3:-0.1\n1 0:0 1:0.2 2:-0.1 3:0.1\n1 0:0 1:-0.1 2:0.1 3:0.2\n",
		numVar:   1,
		numPot:   1,
		varColor: []int32{0, 0, 0},
		potCol:   []int32{0, 0, 0},
	}, {
		// Rows {0.2,0.1}, {0.1,0.1,0.1}, {0.1,0.2}: different multisets,
		// equal exact sums (0.2 = 2*0.1 exactly) in every row and column. The
		// multiset criterion would split; the coarsest equitable partition
		// does not.
		name:     "equal sums, different multisets",
		text:     "1 0:0 1:0.2 2:0.1\n1 0:0 1:0.1 2:0.1 3:0.1\n1 0:0 2:0.1 3:0.2\n",
		numVar:   1,
		numPot:   1,
		varColor: []int32{0, 0, 0},
		potCol:   []int32{0, 0, 0},
	}, {
		// 1 + 2^-60 == 1 in float64 but not exactly: the potentials differ.
		name:     "sums equal only after rounding",
		text:     "1 0:0 1:1 2:8.673617379884035e-19\n1 0:0 3:1\n",
		numVar:   3,
		numPot:   2,
		varColor: []int32{0, 1, 2},
		potCol:   []int32{0, 1},
	}, {
		// y1 - y2 and y2 - y1: both variables have sum exactly 0 into the
		// potential class, the same as having no edge at all.
		name:     "cancelling to zero",
		text:     "1 0:0 1:1 2:-1\n1 0:0 1:-1 2:1\n# variables: 3\n",
		numVar:   1,
		numPot:   1,
		varColor: []int32{0, 0, 0},
		potCol:   []int32{0, 0},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseProblem(t, tc.text)
			col, err := Refine(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkStable(p, col); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(naiveRefine(p), col); diff != "" {
				t.Fatalf("(-naive +Refine):\n%s", diff)
			}
			if col.NumVar != tc.numVar || col.NumPot != tc.numPot || !cmp.Equal(col.Var, tc.varColor) || !cmp.Equal(col.Pot, tc.potCol) {
				t.Fatalf("got %+v", col)
			}
		})
	}
}

// TestInitialColors checks that potentials and constraints only share a color
// with nodes of the same label, and never with each other, even when they
// look alike.
func TestInitialColors(t *testing.T) {
	p := parseProblem(t, strings.Join([]string{
		"1 0:0 1:1",     // potential
		"1 0:0 2:1",     // same label: same color
		"2 0:0 3:1",     // other weight
		"1 0:0 4:1 #^2", // other power
		"1 0:-0 5:1",    // -0 is 0: same label as the first
		"<= 0:0 6:1",    // constraint with the same constant
		"= 0:0 7:1",     // other kind
		"<= 0:0 8:1",
	}, "\n"))
	col, err := Refine(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 0, 1, 2, 0}; !cmp.Equal(col.Pot, want) {
		t.Errorf("potential colors %v, want %v", col.Pot, want)
	}
	if want := []int32{0, 1, 0}; !cmp.Equal(col.Con, want) {
		t.Errorf("constraint colors %v, want %v", col.Con, want)
	}
	// Variables: those under equal labels are symmetric: {1,2,5}, {3}, {4}, {6,8}, {7}.
	if want := []int32{0, 0, 1, 2, 0, 3, 4, 3}; !cmp.Equal(col.Var, want) {
		t.Errorf("variable colors %v, want %v", col.Var, want)
	}
}

// TestRefineRejectsMalformed checks that inconsistent arrays give errors,
// not panics.
func TestRefineRejectsMalformed(t *testing.T) {
	good := func() *hlmrf.Problem {
		p := &hlmrf.Problem{}
		p.AddVars(2)
		p.AddPotential(1, 0, 1, -1, []int32{0, 1}, []float64{1, -1})
		p.AddConstraint(hlmrf.LessEq, 1, -1, []int32{0}, []float64{1})
		return p
	}
	for _, tc := range []struct {
		name   string
		break_ func(p *hlmrf.Problem)
		want   string
	}{
		{"nil", nil, "nil problem"},
		{"weight length", func(p *hlmrf.Problem) { p.Weight = append(p.Weight, 1) }, "different lengths"},
		{"start", func(p *hlmrf.Problem) { p.Start[1] = 5 }, "offsets"},
		{"var range", func(p *hlmrf.Problem) { p.Var[1] = 7 }, "out of range"},
		{"negative var", func(p *hlmrf.Problem) { p.CVar[0] = -1 }, "out of range"},
		{"NaN weight", func(p *hlmrf.Problem) { p.Weight[0] = math.NaN() }, "weight"},
		{"negative weight", func(p *hlmrf.Problem) { p.Weight[0] = -1 }, "weight"},
		{"Inf const", func(p *hlmrf.Problem) { p.Const[0] = math.Inf(1) }, "constant"},
		{"power", func(p *hlmrf.Problem) { p.Power[0] = 3 }, "power"},
		{"NaN coef", func(p *hlmrf.Problem) { p.CCoef[0] = math.NaN() }, "coefficient"},
		{"kind", func(p *hlmrf.Problem) { p.CKind[0] = 9 }, "kind"},
		{"cstart", func(p *hlmrf.Problem) { p.CStart = nil }, "offsets"},
		{"negative vars", func(p *hlmrf.Problem) { p.NumVars = -1 }, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *hlmrf.Problem
			if tc.break_ != nil {
				p = good()
				tc.break_(p)
			}
			if _, err := Refine(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Refine: error %v, want one containing %q", err, tc.want)
			}
			if _, err := Lift(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Lift: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestEmptyProblems covers problems without variables, potentials or
// constraints.
func TestEmptyProblems(t *testing.T) {
	for _, p := range []*hlmrf.Problem{
		{},
		{NumVars: 3},
		parseProblem(t, "2 0:-1\n"), // a constant potential
	} {
		l, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Problem.Validate(); err != nil {
			t.Fatal(err)
		}
		y := make([]float64, l.Problem.NumVars)
		if got, want := l.Objective(y), p.Objective(l.Expand(y)); got != want {
			t.Errorf("objective %v, want %v", got, want)
		}
	}
}

// checkInvariants verifies the refiner's bookkeeping: elems and pos are
// inverse, every class is a contiguous range whose members carry its id,
// no sum is left over, and the singleton bits match class sizes.
func checkInvariants(r *refiner) error {
	for x := range r.node {
		if p := r.node[x].pos; p < 0 || int(p) >= len(r.elems) || r.elems[p] != int32(x) {
			return fmt.Errorf("node %d: pos %d does not point back to it", x, p)
		}
		if r.node[x].acc != 0 {
			return fmt.Errorf("node %d: sum %d left over", x, r.node[x].acc)
		}
	}
	for _, w := range r.wide {
		if w != 0 {
			return fmt.Errorf("a wide sum is left over")
		}
	}
	seen := 0
	for c := int32(0); c < r.nclass; c++ {
		cs := r.class[c]
		if cs.end < cs.first {
			return fmt.Errorf("class %d: range [%d,%d)", c, cs.first, cs.end)
		}
		seen += int(cs.end - cs.first)
		for _, x := range r.elems[cs.first:cs.end] {
			if r.node[x].cls != c {
				return fmt.Errorf("node %d in the range of class %d has class %d", x, c, r.node[x].cls)
			}
			single := r.single[x>>6]&(1<<(x&63)) != 0
			if single && cs.end-cs.first != 1 {
				return fmt.Errorf("node %d marked alone in class %d of size %d", x, c, cs.end-cs.first)
			}
		}
	}
	if seen != len(r.elems) {
		return fmt.Errorf("class ranges cover %d of %d nodes", seen, len(r.elems))
	}
	return nil
}

// TestRefinerInvariants runs refinement step by step on the random families
// and checks the bookkeeping after every phase and splitter.
func TestRefinerInvariants(t *testing.T) {
	for _, tc := range refineCases {
		for seed := range 10 {
			rng := rand.New(rand.NewPCG(uint64(seed), 9))
			p, _ := tc.problem(rng)
			r := newRefiner(newGraph(p))
			fail := func(phase string, err error) {
				t.Fatalf("%s seed %d after %s: %v", tc.name, seed, phase, err)
			}
			r.initial(p)
			if err := checkInvariants(r); err != nil {
				fail("initial", err)
			}
			r.start()
			if err := checkInvariants(r); err != nil {
				fail("start", err)
			}
			for len(r.queue) > 0 {
				s := r.queue[len(r.queue)-1]
				r.queue = r.queue[:len(r.queue)-1]
				r.split(s)
				if err := checkInvariants(r); err != nil {
					fail(fmt.Sprintf("splitter %d", s), err)
				}
			}
		}
	}
}
