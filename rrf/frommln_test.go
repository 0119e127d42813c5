package rrf

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

const smokersKB = `person = {A, B}
*Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
-0.5 Cancer(x)
0.8 Smokes(x) <=> Cancer(x)
`

// TestFromMLNText: the parfeatures of a converted knowledge base, and the
// written program reads back to the same ones.
func TestFromMLNText(t *testing.T) {
	kb, err := mln.ParseProgram("kb.mln", []byte(smokersKB))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromMLN(kb, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"root = -1.5 * sum(x) F1(x) - 1.1 * sum(x, y) F2(x, y) + 0.5 * sum(x) F3(x) - 0.4 * sum(x) F4_1(x) - 0.4 * sum(x) F4_2(x)",
		"F1(x) = 10 * Smokes(x) + 10 * !Cancer(x)",
		"F2(x, y) = 10 * Friends(x, y) + 10 * Smokes(x) + 10 * !Smokes(y)",
		"F3(x) = 10 * !Cancer(x)",
		"F4_1(x) = 10 * Smokes(x) + 10 * !Cancer(x)",
		"F4_2(x) = 10 * Cancer(x) + 10 * !Smokes(x)",
	}
	var got []string
	for _, f := range p.Features {
		got = append(got, p.String(f))
	}
	if !slices.Equal(got, want) {
		t.Errorf("converted:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	q, err := ParseProgram("kb.rrf", p.Text())
	if err != nil {
		t.Fatalf("%v\n%s", err, p.Text())
	}
	for k, f := range q.Features {
		if s := q.String(f); s != want[k] {
			t.Errorf("read back %s, want %s", s, want[k])
		}
	}
	if !slices.Equal(q.Decls.Types["person"], []string{"A", "B"}) || !q.Decls.Pred("Friends").Closed {
		t.Errorf("declarations not written back:\n%s", p.Text())
	}
}

// TestFromMLNDistribution: the converted knowledge base, grounded over two
// people with Friends(A, B) given, has the Markov logic distribution over
// the four unknown atoms (written out by hand below) to 1e-9 at lambda 30,
// under every normalisation (the default, NormSmooth, first).
func TestFromMLNDistribution(t *testing.T) {
	for _, norm := range []Norm{NormSmooth, NormMax, NormSoftplus} {
		t.Run(norm.String(), func(t *testing.T) { testFromMLNDistribution(t, norm) })
	}
}

func testFromMLNDistribution(t *testing.T, norm Norm) {
	kb, err := mln.ParseProgram("kb.mln", []byte(smokersKB))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromMLN(kb, 30, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Norm != NormSmooth {
		t.Fatalf("FromMLN's normalisation is %v, want the default %v", p.Norm, NormSmooth)
	}
	p.Norm = norm
	ev, err := mln.ParseAtoms("e.db", []byte("Friends(A, B)\n"), kb, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(kb, ev, mln.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	mlnScore := func(truth map[string]bool) float64 {
		people := []string{"A", "B"}
		s := 0.0
		for _, x := range people {
			sm, ca := truth["Smokes("+x+")"], truth["Cancer("+x+")"]
			s += 1.5*b(!sm || ca) - 0.5*b(ca) + 0.4*b(!sm || ca) + 0.4*b(sm || !ca)
			for _, y := range people {
				fr := x == "A" && y == "B"
				s += 1.1 * b(!fr || !sm || truth["Smokes("+y+")"])
			}
		}
		return s
	}
	var diffs []float64
	enumerate(slices.Clone(gr.Evidence.X), gr.Evidence, func(y []bool) {
		truth := map[string]bool{}
		for v, a := range gr.Atoms {
			truth[mln.AtomString(a.Pred, a.Args)] = y[v]
		}
		diffs = append(diffs, score(gr.Net, y)-mlnScore(truth))
	})
	if len(diffs) != 16 {
		t.Fatalf("%d worlds, want 16", len(diffs))
	}
	// log P differs by a constant (the normalisation) only.
	for _, d := range diffs {
		if math.Abs(d-diffs[0]) > 1e-9 {
			t.Fatalf("score differences from Markov logic vary: %v", diffs)
		}
	}
}

func TestFromMLNErrors(t *testing.T) {
	decl := "person = {A, B}\nP(person)\nQ(person, person)\n"
	for _, tc := range []struct{ text, want string }{
		{decl + "1 EXIST y Q(x, y)\n", "kb.mln:4:3: write a quantifier as a parfeature"},
		{decl + "1 Q(x, y) => x = y\n", "kb.mln:4:14: an equality literal"},
		{decl + "1 P(+x)\n", "kb.mln:4:6: +x: a per-constant weight"},
		{"person = {A}\nR(person, person!)\n1 R(x, y)\n", "kb.mln:2:1: R has a functional (!) argument"},
	} {
		kb, err := mln.ParseProgram("kb.mln", []byte(tc.text))
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if _, err := FromMLN(kb, 10, 20); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	kb, _ := mln.ParseProgram("kb.mln", []byte(smokersKB))
	if _, err := FromMLN(kb, 0, 20); err == nil {
		t.Error("lambda 0 accepted")
	}
}

// TestFromMLNVariableTypes: a variable name that two clauses use with
// different types (p a title in one, a person in the other, as in UW-CSE's
// rules) is renamed apart in the root, and the program reads back.
func TestFromMLNVariableTypes(t *testing.T) {
	kb, err := mln.ParseProgram("kb.mln", []byte("publication(title, person)\nprofessor(person)\n1 !publication(p, x) v professor(x)\n0.5 professor(p)\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromMLN(kb, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	text := p.String(p.Features[0])
	if want := "root = -1 * sum(p, x) F1(p, x) - 0.5 * sum(f2_p) F2(f2_p)"; text != want {
		t.Errorf("root %q, want %q", text, want)
	}
	if _, err := ParseProgram("back.rrf", []byte(p.Text())); err != nil {
		t.Errorf("the converted program does not read back: %v", err)
	}
}
