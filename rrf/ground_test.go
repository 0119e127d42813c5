package rrf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

// randomProgram writes a random relational RRF over two small types: a
// DAG of 2-4 parfeatures with parameters, nested sums, constants, negated
// atoms and repeated variables, over two open predicates (P, Q: the
// unknowns) and two closed ones (R, S), and random evidence: true atoms of
// the closed predicates, and some atoms of the open ones given true or
// false.
func randomProgram(rng *rand.Rand) (text, evidence string) {
	consts := map[string][]string{"a": {"A1", "A2", "A3"}, "b": {"B1", "B2"}}
	preds := []struct {
		name  string
		types []string
	}{{"P", []string{"a"}}, {"Q", []string{"a", "b"}}, {"R", []string{"a", "a"}}, {"S", []string{"b"}}}
	var b strings.Builder
	b.WriteString("a = {A1, A2, A3}\nb = {B1, B2}\nP(a)\nQ(a, b)\n*R(a, a)\n*S(b)\n")
	nf := 2 + rng.IntN(3)
	params := make([][]string, nf+1) // types of each feature's parameters; 0 is root
	for i := 1; i <= nf; i++ {
		for range rng.IntN(3) {
			params[i] = append(params[i], []string{"a", "b"}[rng.IntN(2)])
		}
	}
	weight := func() string { return fmt.Sprintf("%.3f", rng.NormFloat64()*1.5) }
	for i := 0; i <= nf; i++ {
		name := "root"
		var vars []string   // in scope: parameters
		types := []string{} // their types
		if i > 0 {
			name = fmt.Sprintf("F%d", i)
			for k, typ := range params[i] {
				vars = append(vars, fmt.Sprintf("p%d", k))
				types = append(types, typ)
			}
			name += "(" + strings.Join(vars, ", ") + ")"
		}
		var terms []string
		nsum := 0 // summed variables are named apart across the terms (a name has one type per parfeature)
		for range 1 + rng.IntN(3) {
			var sum []string
			scope, scopeT := slices.Clone(vars), slices.Clone(types)
			// arg picks a term of type typ: a variable in scope, a new
			// summed one, or a constant.
			arg := func(typ string) string {
				var cands []string
				for k, v := range scope {
					if scopeT[k] == typ {
						cands = append(cands, v)
					}
				}
				switch r := rng.IntN(10); {
				case r == 0:
					return consts[typ][rng.IntN(len(consts[typ]))]
				case r < 5 && len(cands) > 0:
					return cands[rng.IntN(len(cands))]
				}
				v := fmt.Sprintf("s%d", nsum)
				nsum++
				sum = append(sum, v)
				scope, scopeT = append(scope, v), append(scopeT, typ)
				return v
			}
			var child string
			if j := i + 1 + rng.IntN(nf+1); i > 0 && j <= nf || i == 0 && rng.IntN(3) > 0 {
				if i == 0 {
					j = 1 + rng.IntN(nf)
				}
				var args []string
				for _, typ := range params[j] {
					args = append(args, arg(typ))
				}
				child = fmt.Sprintf("F%d(%s)", j, strings.Join(args, ", "))
			} else {
				pr := preds[rng.IntN(len(preds))]
				var args []string
				for _, typ := range pr.types {
					args = append(args, arg(typ))
				}
				neg := ""
				if rng.IntN(2) == 0 {
					neg = "!"
				}
				child = neg + pr.name + "(" + strings.Join(args, ", ") + ")"
			}
			s := ""
			if len(sum) > 0 {
				s = "sum(" + strings.Join(sum, ", ") + ") "
			}
			terms = append(terms, weight()+" * "+s+child)
		}
		b.WriteString(name + " = " + strings.Join(terms, " + ") + "\n")
	}
	var ev strings.Builder
	for _, x := range consts["a"] {
		for _, y := range consts["a"] {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&ev, "R(%s, %s)\n", x, y)
			}
		}
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&ev, "P(%s)\n", x)
		case 1:
			fmt.Fprintf(&ev, "!P(%s)\n", x)
		}
		for _, y := range consts["b"] {
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&ev, "Q(%s, %s)\n", x, y)
			}
		}
	}
	for _, y := range consts["b"] {
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&ev, "S(%s)\n", y)
		}
	}
	return strings.ReplaceAll(b.String(), "+ -", "- "), ev.String()
}

// groundBoth grounds a program both ways over the evidence.
func groundBoth(t *testing.T, p *Program, evidence string) (folded, full *Grounded) {
	t.Helper()
	ev, err := mln.ParseAtoms("e.db", []byte(evidence), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, ev, mln.Options{Query: []string{"P", "Q"}})
	if err != nil {
		t.Fatal(err)
	}
	if full, err = groundFull(p, net, 0); err != nil {
		t.Fatal(err)
	}
	if folded, err = p.Ground(net, 0); err != nil {
		t.Fatal(err)
	}
	return folded, full
}

// TestFoldingChangesNoConditional: on random programs and evidence, the
// folded grounding (evidence atoms as constants, evidence-fixed features
// left out of the root or shared, identical groundings merged and counted)
// and the full grounding (every grounding a feature, every atom a
// variable) have the same unknown atoms, log scores that differ by one
// constant on every world (enumerated), hence the same conditionals and
// marginals, and equal pseudo-log-likelihoods and gradients; Gibbs on the
// folded network finds the exact marginals. Both normalisations.
func TestFoldingChangesNoConditional(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 37))
	smaller, gibbsChecked := 0, 0
	for trial := range 120 {
		// Programs whose parameters reach no atom (their types cannot be
		// inferred) are refused by the reader: draw again.
		text, evidence := randomProgram(rng)
		p, err := ParseProgram("r.rrf", []byte(text))
		for err != nil && strings.Contains(err.Error(), "cannot be inferred") {
			text, evidence = randomProgram(rng)
			p, err = ParseProgram("r.rrf", []byte(text))
		}
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, text)
		}
		p.Norm = []Norm{NormMax, NormSoftplus, NormSmooth}[trial%3]
		folded, full := groundBoth(t, p, evidence)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("trial %d (%v): %s\n%s\nevidence:\n%s", trial, p.Norm, fmt.Sprintf(format, args...), text, evidence)
		}
		if len(folded.Net.Features) > len(full.Net.Features) {
			fail("folded %d features, full %d", len(folded.Net.Features), len(full.Net.Features))
		}
		if len(folded.Net.Features) < len(full.Net.Features) {
			smaller++
		}
		// The folded variables are the full grounding's unfixed ones.
		fullVar := map[string]int{}
		for v, a := range full.Atoms {
			if !full.Evidence.Fixed[v] {
				fullVar[mln.AtomString(a.Pred, a.Args)] = v
			}
		}
		to := make([]int, folded.Net.NumVars) // folded variable -> full variable
		for v, a := range folded.Atoms {
			k, ok := fullVar[mln.AtomString(a.Pred, a.Args)]
			if !ok || folded.Evidence.Fixed[v] {
				fail("variable %v is not an unknown of the full grounding", a)
			}
			to[v] = k
		}
		if len(to) != len(fullVar) {
			fail("%d variables, the full grounding has %d unknowns", len(to), len(fullVar))
		}
		if len(to) > 12 {
			continue
		}
		world := func(y []bool) []bool {
			x := slices.Clone(full.Evidence.X)
			for v, k := range to {
				x[k] = y[v]
			}
			return x
		}
		// Log scores differ by one constant; conditionals are equal.
		fs, err := NewState(folded.Net, make([]bool, folded.Net.NumVars))
		if err != nil {
			t.Fatal(err)
		}
		gs, err := NewState(full.Net, full.Evidence.X)
		if err != nil {
			t.Fatal(err)
		}
		offset := math.NaN()
		enumerate(make([]bool, len(to)), nil, func(y []bool) {
			for v, b := range y {
				fs.Set(v, b)
			}
			x := world(y)
			for k, b := range x {
				gs.Set(k, b)
			}
			d := fs.LogScore() - gs.LogScore()
			if math.IsNaN(offset) {
				offset = d
			}
			if math.Abs(d-offset) > 1e-9*max(1, math.Abs(gs.LogScore())) {
				fail("log score folded - full %.12g, on the first world %.12g", d, offset)
			}
			for v, k := range to {
				if a, b := fs.flipGain(v), gs.flipGain(k); math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
					fail("flip gain of %v: folded %.12g, full %.12g", folded.Atoms[v], a, b)
				}
			}
		})
		// Pseudo-log-likelihood and gradient at random worlds.
		for range 3 {
			y := make([]bool, len(to))
			for v := range y {
				y[v] = rng.IntN(2) == 0
			}
			g1, g2 := make([]float64, len(p.Weights)), make([]float64, len(p.Weights))
			a, err := PseudoLogLikelihood(folded.Net, y, folded.Evidence, g1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := PseudoLogLikelihood(full.Net, world(y), full.Evidence, g2)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
				fail("pseudo-log-likelihood folded %.12g, full %.12g", a, b)
			}
			for i := range g1 {
				if math.Abs(g1[i]-g2[i]) > 1e-8*max(1, math.Abs(g2[i])) {
					fail("gradient %d: folded %.12g, full %.12g", i, g1[i], g2[i])
				}
			}
		}
		// Gibbs on the folded network against its exact marginals (those of
		// the full one, by the constant offset above).
		if gibbsChecked < 6 && len(to) >= 3 {
			gibbsChecked++
			exactP, _ := exact(folded.Net)
			got, err := Gibbs(context.Background(), folded.Net, folded.Evidence, nil, GibbsOptions{Samples: 20000, BurnIn: 500, Seed: uint64(trial)})
			if err != nil {
				t.Fatal(err)
			}
			for v := range got {
				if math.Abs(got[v]-exactP[v]) > 0.03 {
					fail("Gibbs marginal of %v %.3f, exact %.3f", folded.Atoms[v], got[v], exactP[v])
				}
			}
		}
	}
	if smaller < 40 || gibbsChecked < 6 {
		t.Errorf("only %d of 120 programs folded to fewer features, %d Gibbs checks: the test exercises too little", smaller, gibbsChecked)
	}
}

// TestFoldingMergesSatisfiedClauses: UW-CSE's shape at small size. A
// converted clause with one unknown atom and a sparse evidence atom over a
// third variable, !advisedBy(s, p) v !publication(t, s) v publication(t, p),
// grounds to at most a handful of features per (s, p), not one per title:
// the titles of neither person all give one feature, counted.
func TestFoldingMergesSatisfiedClauses(t *testing.T) {
	var b strings.Builder
	b.WriteString("advisedBy(person, person)\npublication(title, person)\n1 !advisedBy(s, p) v !publication(t, s) v publication(t, p)\n")
	kb, err := mln.ParseProgram("uw.mln", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromMLN(kb, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	var ev strings.Builder
	for i := range 200 {
		fmt.Fprintf(&ev, "publication(T%d, P%d)\n", i, i%20) // 200 titles, 20 people, one author each
	}
	evid, err := mln.ParseAtoms("e.db", []byte(ev.String()), kb, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(kb, evid, mln.Options{Query: []string{"advisedBy"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Per (s, p) with s != p: titles of s (publication(t, s) true and
	// publication(t, p) false: the clause's body holds), titles of p, and
	// titles of neither: 3 features; s = p: titles of s (both true) and the
	// others: 2. 380 + 20 pairs and the root; the full grounding has
	// 400 * 200.
	if got, want := len(gr.Net.Features), 1+3*380+2*20; got != want {
		t.Errorf("%d ground features, want %d", got, want)
	}
	total := int64(0)
	for _, c := range gr.Net.Features[0] {
		total += max(c.Count, 1)
	}
	if total != 400*200 {
		t.Errorf("the root's children stand for %d groundings, want %d", total, 400*200)
	}
}

// TestGroundLimits: the feature bound, the memory limit (both naming the
// parfeature's position) and cancellation stop the grounding.
func TestGroundLimits(t *testing.T) {
	p, err := ParseProgram("s.rrf", []byte(smokersRRF))
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, nil, mln.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.GroundWith(net, GroundOptions{MaxFeatures: 3}); err == nil || !strings.Contains(err.Error(), "s.rrf:") || !strings.Contains(err.Error(), "more than 3 ground features") {
		t.Errorf("feature bound: %v", err)
	}
	_, err = p.GroundWith(net, GroundOptions{MemoryLimit: 1000})
	if le := (*LimitError)(nil); !errors.As(err, &le) || le.Limit != 1000 || !strings.Contains(err.Error(), "s.rrf:") || !strings.Contains(err.Error(), "exceeds the memory limit of 1000 B") {
		t.Errorf("memory limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A domain big enough for the grounder to look at its context.
	var cs []string
	for i := range 100 {
		cs = append(cs, fmt.Sprintf("C%d", i))
	}
	big, err := ParseProgram("s.rrf", []byte(strings.Replace(smokersRRF, "{Anna, Bob, Carl}", "{"+strings.Join(cs, ", ")+"}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	net, err = mln.Build(big.Decls, nil, mln.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.GroundWith(net, GroundOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
