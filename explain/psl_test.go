package explain

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
)

// varNamed finds the variable of an atom written as hinge infer prints it.
func varNamed(t *testing.T, e *PSL, name string) int {
	t.Helper()
	a, err := ParseAtom(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := FindVar(e.Model, e.Store, e.Ground, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// termByGround finds the term whose ground rule is text.
func termByGround(t *testing.T, x *PSLExplanation, text string) PSLTerm {
	t.Helper()
	for _, term := range x.Terms {
		if term.Ground == text {
			return term
		}
	}
	var have []string
	for _, term := range x.Terms {
		have = append(have, term.Ground)
	}
	t.Fatalf("%s: no ground rule %q among\n%s", x.Atom, text, strings.Join(have, "\n"))
	return PSLTerm{}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestPSLSmokersHandWorked checks the explanations of the smokers example
// against its optimum worked by hand. The chain Anna -> Bob -> Dora -> Fay
// (Anna and Emil smoke, Gary does not) is held by squared hinges of weight
// 0.4 (friends), 0.5 (smoking causes cancer) and linear priors of weight
// 0.01. At the optimum every cancer atom of a smoker sits 0.01 below its
// smoking atom (2*0.5*(s - c) = 0.01), so each smoking atom loses 0.01 to
// its cancer rule and 0.01 to its prior, and the first-order conditions
//
//	Bob:  0.8(1 - b) - 0.8(b - d)              - 0.02 = 0
//	Dora: 0.8(b - d) - 0.8(d - f)              - 0.02 = 0
//	Fay:  0.8(d - f) + 0.8(1 - f) - 0.8(f - 0) - 0.02 = 0
//
// give b = 0.825, d = 0.675, f = 0.55 (solved below by Cramer's rule, not
// read off the solver).
func TestPSLSmokersHandWorked(t *testing.T) {
	e := solvedPSL(t, smokers[0], smokers[1])
	// -1.6b + 0.8d = -0.78; 0.8b - 1.6d + 0.8f = 0.02; 0.8d - 2.4f = -0.78.
	A := [3][3]float64{{-1.6, 0.8, 0}, {0.8, -1.6, 0.8}, {0, 0.8, -2.4}}
	rhs := [3]float64{-0.78, 0.02, -0.78}
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	var sol [3]float64
	for k := range 3 {
		m := A
		for i := range 3 {
			m[i][k] = rhs[i]
		}
		sol[k] = det(m) / det(A)
	}
	b, d, f := sol[0], sol[1], sol[2]
	if !near(b, 0.825, 1e-12) || !near(d, 0.675, 1e-12) || !near(f, 0.55, 1e-12) {
		t.Fatalf("hand-worked optimum %v, %v, %v", b, d, f)
	}
	const tol = 1e-6

	// Why is Cancer(Bob) what it is: one rule up, the prior down.
	x, err := e.Explain(varNamed(t, e, "Cancer(Bob)"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !near(x.Value, b-0.01, tol) || x.Count != 2 || x.At != "interior" {
		t.Fatalf("Cancer(Bob) = %v (want %v), %d terms, %s", x.Value, b-0.01, x.Count, x.At)
	}
	up := termByGround(t, x, "0.5: Smokes('Bob') -> Cancer('Bob') ^2")
	down := termByGround(t, x, "0.01: !Cancer('Bob')")
	if !near(up.Pull, 0.01, tol) || !near(down.Pull, -0.01, tol) || up.Role != "head" || up.Negated || !down.Negated ||
		up.Substitution != "X=Bob" || !near(up.Distance, 0.01, tol) || !near(down.Distance, b-0.01, tol) {
		t.Fatalf("Cancer(Bob) terms: %+v\n%+v", up, down)
	}
	if x.Terms[0].Ground != up.Ground && x.Terms[0].Ground != down.Ground {
		t.Fatalf("terms not sorted by pull: %+v", x.Terms)
	}

	// Smokes(Bob): pulled up by Anna, down by Dora, its cancer rule and
	// its prior.
	x, err = e.Explain(varNamed(t, e, "Smokes('Bob')"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"0.4: Friends('Anna', 'Bob') & Smokes('Anna') -> Smokes('Bob') ^2": 0.8 * (1 - b),
		"0.4: Friends('Bob', 'Dora') & Smokes('Bob') -> Smokes('Dora') ^2": -0.8 * (b - d),
		"0.5: Smokes('Bob') -> Cancer('Bob') ^2":                           -0.01,
		"0.01: !Smokes('Bob')":                                             -0.01,
		"0.4: Friends('Bob', 'Dora') & Smokes('Dora') -> Smokes('Bob') ^2": 0, // satisfied: d < b
	}
	if x.Count != len(want) {
		t.Fatalf("Smokes(Bob): %d terms, want %d", x.Count, len(want))
	}
	for text, pull := range want {
		if got := termByGround(t, x, text); !near(got.Pull, pull, tol) {
			t.Errorf("Smokes(Bob): %s pulls %v, want %v", text, got.Pull, pull)
		}
	}
	if !near(x.Up, 0.8*(1-b), tol) || !near(x.Up+x.Down, 0, 1e-9) || !near(x.Bound, 0, 1e-9) {
		t.Fatalf("Smokes(Bob): up %v down %v bound %v", x.Up, x.Down, x.Bound)
	}
	// Fay is pulled by three friends.
	x, err = e.Explain(varNamed(t, e, "Smokes(Fay)"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Terms) != 2 || x.Count != 6 || !near(x.Terms[0].Pull, -0.8*f, tol) || !near(x.Terms[1].Pull, 0.8*(1-f), tol) {
		t.Fatalf("Smokes(Fay) top 2: %+v (of %d)", x.Terms, x.Count)
	}
	if !near(x.Up+x.Down+x.Bound, 0, 1e-12) || !near(x.OmittedUp+x.OmittedDown+x.Terms[0].Pull+x.Terms[1].Pull+x.Bound, 0, 1e-9) {
		t.Fatalf("Smokes(Fay): omitted %v %v", x.OmittedUp, x.OmittedDown)
	}
}

// TestPSLBounds checks atoms held at 0 and 1 by their bounds and a pair
// held by a hard constraint, against the optimum worked out in
// testdata/bounds/bounds.psl.
func TestPSLBounds(t *testing.T) {
	e := solvedPSL(t, "testdata/bounds/bounds.psl", "testdata/bounds/bounds.data")
	const tol = 1e-6
	cases := []struct {
		atom                   string
		value, pull, bound     float64
		at, ground             string
		conPull                float64
		hasConstraint, hasGrad bool
	}{
		{atom: "A(k)", value: 0, pull: -1, bound: 1, at: "lower bound", ground: "1 * max(A('k') + 0.5, 0)", hasGrad: true},
		{atom: "B(k)", value: 1, pull: 2, bound: -2, at: "upper bound", ground: "2 * max(-B('k') + 1.5, 0)", hasGrad: true},
		{atom: "C(k)", value: 1.0 / 3, pull: 4.0 / 3, bound: 0, at: "interior", ground: "1 * max(-C('k') + 1, 0)^2", conPull: -4.0 / 3, hasConstraint: true, hasGrad: true},
		{atom: "D(k)", value: 2.0 / 3, pull: 4.0 / 3, bound: 0, at: "interior", ground: "2 * max(-D('k') + 1, 0)^2", conPull: -4.0 / 3, hasConstraint: true, hasGrad: true},
	}
	for _, c := range cases {
		x, err := e.Explain(varNamed(t, e, c.atom), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !near(x.Value, c.value, tol) || x.At != c.at || !near(x.Bound, c.bound, tol) {
			t.Errorf("%s = %v at %s, bound %v; want %v at %s, bound %v", c.atom, x.Value, x.At, x.Bound, c.value, c.at, c.bound)
		}
		p := termByGround(t, x, c.ground)
		if !near(p.Pull, c.pull, tol) || p.Gradient == nil || !near(*p.Gradient, c.pull, tol) {
			t.Errorf("%s: %s pulls %v (gradient %v), want %v", c.atom, c.ground, p.Pull, p.Gradient, c.pull)
		}
		if c.hasConstraint {
			h := termByGround(t, x, "C('k') + D('k') = 1")
			if !h.Hard || !near(h.Pull, c.conPull, tol) || h.Gradient != nil || !near(h.Distance, 0, tol) {
				t.Errorf("%s: constraint %+v, want pull %v", c.atom, h, c.conPull)
			}
		}
		var buf bytes.Buffer
		if err := x.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"lower bound": "held there by the bound y >= 0 (multiplier +1)", "upper bound": "held there by the bound y <= 1 (multiplier -2)",
			"interior": "where they balance (bound multiplier 0)"}[c.at]; !strings.Contains(buf.String(), want) {
			t.Errorf("%s: text lacks %q:\n%s", c.atom, want, buf.String())
		}
	}
}

// TestPSLPullsAreSubgradients checks every atom of the test models: each
// pull is minus the term's derivative where it has one, within the
// subgradient range of a linear hinge at its corner, the pulls and the
// bound's multiplier sum to zero, and the multiplier has the sign of the
// bound the atom sits on (zero inside). The duals come from the solver;
// the derivatives from the potentials at the answer, computed here.
func TestPSLPullsAreSubgradients(t *testing.T) {
	for _, files := range [][2]string{smokers, {"testdata/bounds/bounds.psl", "testdata/bounds/bounds.data"}} {
		e := solvedPSL(t, files[0], files[1])
		p := e.Ground.Problem
		all, err := e.ExplainAll(0)
		if err != nil {
			t.Fatal(err)
		}
		for v, x := range all {
			one, err := e.Explain(v, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Terms) != len(x.Terms) {
				t.Fatalf("%s: %d terms by one recovery, %d by all", x.Atom, len(one.Terms), len(x.Terms))
			}
			for k := range x.Terms {
				if one.Terms[k].Ground != x.Terms[k].Ground || one.Terms[k].Pull != x.Terms[k].Pull {
					t.Fatalf("%s: term %d differs: %+v / %+v", x.Atom, k, one.Terms[k], x.Terms[k])
				}
			}
			sum := x.Bound
			for _, term := range x.Terms {
				sum += term.Pull
				switch {
				case term.Hard:
				case term.Gradient != nil:
					if !near(term.Pull, *term.Gradient, 1e-6) {
						t.Errorf("%s: %s pulls %v, gradient %v", x.Atom, term.Ground, term.Pull, *term.Gradient)
					}
				default: // a linear hinge at its corner: -theta*w*coef, theta in [0, 1]
					lo, hi := min(0, -term.Weight*term.Coef), max(0, -term.Weight*term.Coef)
					if term.Pull < lo-1e-6 || term.Pull > hi+1e-6 {
						t.Errorf("%s: %s pulls %v outside [%v, %v]", x.Atom, term.Ground, term.Pull, lo, hi)
					}
				}
			}
			if !near(sum, 0, 1e-9) {
				t.Errorf("%s: pulls and bound sum to %v", x.Atom, sum)
			}
			switch x.At {
			case "interior":
				if !near(x.Bound, 0, 1e-6) {
					t.Errorf("%s inside (0,1) has bound multiplier %v", x.Atom, x.Bound)
				}
			case "lower bound":
				if x.Bound < -1e-6 {
					t.Errorf("%s at 0 has bound multiplier %v < 0", x.Atom, x.Bound)
				}
			case "upper bound":
				if x.Bound > 1e-6 {
					t.Errorf("%s at 1 has bound multiplier %v > 0", x.Atom, x.Bound)
				}
			}
		}
		// Every term of the problem is some atom's, once per variable.
		n := 0
		for _, x := range all {
			n += x.Count
		}
		if n != len(p.Var)+len(p.CVar) {
			t.Fatalf("%d terms over all atoms, %d local copies", n, len(p.Var)+len(p.CVar))
		}
	}
}

// TestPSLNeedsDuals: without duals only the satisfaction file is written.
func TestPSLNeedsDuals(t *testing.T) {
	e := solvedPSL(t, smokers[0], smokers[1])
	bare, err := NewPSL(e.Model, e.Store, e.Ground, e.Values, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Explain(0, 0); err == nil || !strings.Contains(err.Error(), "duals") {
		t.Fatalf("explained without duals: %v", err)
	}
	if _, err := NewPSL(e.Model, e.Store, e.Ground, e.Values, e.PotentialDuals[1:], e.ConstraintDuals); err == nil {
		t.Fatal("duals of another problem accepted")
	}
	var buf bytes.Buffer
	if err := bare.WriteSatisfaction(&buf); err != nil {
		t.Fatal(err)
	}
}

// TestSatisfactionFile checks the satisfaction file of each test model
// line by line against the ground problem: one line per potential and
// constraint, the distance recomputed from the ground rule's own atoms,
// and the penalties summing to the objective.
func TestSatisfactionFile(t *testing.T) {
	for _, files := range [][2]string{smokers, {"testdata/bounds/bounds.psl", "testdata/bounds/bounds.data"}} {
		e := solvedPSL(t, files[0], files[1])
		p := e.Ground.Problem
		var buf bytes.Buffer
		if err := e.WriteSatisfaction(&buf); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if lines[0] != SatisfactionHeader {
			t.Fatalf("header %q", lines[0])
		}
		lines = lines[1:]
		if len(lines) != p.NumPotentials()+p.NumConstraints() {
			t.Fatalf("%d lines for %d potentials and %d constraints", len(lines), p.NumPotentials(), p.NumConstraints())
		}
		total := 0.0
		seen := map[string]int{}
		for _, line := range lines {
			cols := strings.Split(line, "\t")
			if len(cols) != 8 {
				t.Fatalf("%d columns: %q", len(cols), line)
			}
			seen[cols[7]]++
			if cols[2] == "hard" {
				continue
			}
			pen := parseFloat(t, cols[6])
			total += pen
			d := parseFloat(t, cols[4])
			w := parseFloat(t, cols[2])
			pw := parseFloat(t, cols[3])
			if !near(pen, w*math.Pow(d, pw), 1e-12) {
				t.Errorf("penalty %v of %q is not w*d^p", pen, line)
			}
			if cols[5] != "-" && !near(parseFloat(t, cols[5]), 1-d, 1e-12) {
				t.Errorf("satisfaction of %q is not 1 - distance", line)
			}
		}
		if obj := p.Objective(e.Values); !near(total, obj, 1e-9*(1+obj)) {
			t.Fatalf("penalties sum to %v, objective %v", total, obj)
		}
		// Each ground rule once, with the distance its explanation gives.
		byText := map[string][]string{}
		for _, line := range lines {
			cols := strings.Split(line, "\t")
			byText[cols[7]] = cols
		}
		all, err := e.ExplainAll(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range all {
			for _, term := range x.Terms {
				cols, ok := byText[term.Ground]
				if !ok {
					t.Fatalf("%s: ground rule %q not in the file", x.Atom, term.Ground)
				}
				if !near(parseFloat(t, cols[4]), term.Distance, 1e-12) {
					t.Errorf("%q: distance %s in the file, %v in the explanation", term.Ground, cols[4], term.Distance)
				}
			}
		}
		if files == smokers {
			for text, cnt := range seen {
				if cnt != 1 {
					t.Errorf("ground rule %q written %d times", text, cnt)
				}
			}
		}
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return x
}

// TestPSLBackAtBounds: an atom at a bound, where every pull is 0, is
// explained by what its ground rules would do if it left the bound, and
// those figures are the one-sided derivatives of the penalties: each
// rate and quadratic coefficient is checked against the penalty
// recomputed with the atom moved by d (finite differences), and a hard
// constraint said to forbid the move is violated by it.
func TestPSLBackAtBounds(t *testing.T) {
	for _, files := range [][2]string{smokers, mix, {"testdata/bounds/bounds.psl", "testdata/bounds/bounds.data"}} {
		e := solvedPSL(t, files[0], files[1])
		all, err := e.ExplainAll(0)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Ground.Problem
		np := p.NumPotentials()
		atBound := 0
		for v, x := range all {
			if x.At == "interior" {
				for _, term := range x.Terms {
					if term.Back != nil || term.Blocks || term.BackQuadratic != 0 {
						t.Errorf("%s inside (0, 1) has a back figure: %+v", x.Atom, term)
					}
				}
				continue
			}
			atBound++
			dir := 1.0
			if x.At == "upper bound" {
				dir = -1
			}
			for _, term := range x.Terms {
				if term.Back == nil {
					t.Fatalf("%s at a bound: %s has no back figure", x.Atom, term.Ground)
				}
				moved := func(d float64) []float64 {
					y := slices.Clone(e.Values)
					y[v] += dir * d
					return y
				}
				if term.Hard {
					j := int(term.term) - np
					viol := func(y []float64) float64 {
						vars, coefs := p.CTerms(j)
						in := -p.CConst[j]
						for k, u := range vars {
							in += coefs[k] * y[u]
						}
						if p.CKind[j] == hlmrf.Equal {
							return math.Abs(in)
						}
						return max(in, 0)
					}
					if grows := viol(moved(1e-3)) > viol(e.Values)+1e-6; grows != term.Blocks {
						t.Errorf("%s: %s blocks %v, but the move changes its violation %v -> %v", x.Atom, term.Ground, term.Blocks, viol(e.Values), viol(moved(1e-3)))
					}
					continue
				}
				inner := func(y []float64) float64 {
					vars, coefs := p.Terms(int(term.term))
					in := -p.Const[term.term]
					for k, u := range vars {
						in += coefs[k] * y[u]
					}
					return in
				}
				pen := func(y []float64) float64 {
					d := max(inner(y), 0)
					if p.Power[term.term] == 2 {
						return p.Weight[term.term] * d * d
					}
					return p.Weight[term.term] * d
				}
				// f(d) = f(0) + back*d + quad*d^2 for a move d that does
				// not cross the hinge's corner; near the corner (within
				// KinkTol, where the figures take the term to be on it),
				// up to what its distance from the corner accounts for.
				in, a := inner(e.Values), math.Abs(term.Coef)
				d, tol := 1e-3, term.Weight*(math.Abs(in)+in*in+2*math.Abs(in)*a*1e-3)
				if math.Abs(in) > KinkTol {
					d, tol = min(1e-3, math.Abs(in)/(2*max(a, 1e-12))), 0
				}
				want := pen(e.Values) + *term.Back*d + term.BackQuadratic*d*d
				if got := pen(moved(d)); math.Abs(got-want) > 1e-9*max(1, math.Abs(got))+tol {
					t.Errorf("%s: %s moved by %g: penalty %v, the back figures give %v", x.Atom, term.Ground, d, got, want)
				}
			}
		}
		if atBound == 0 {
			t.Errorf("%s: no atom at a bound to check", files[0])
		}
	}
}
