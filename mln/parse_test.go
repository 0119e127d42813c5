package mln

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProgram(t *testing.T) {
	text := `// smokers, Alchemy style
person = {Anna, Bob}
num = {1, ..., 4}
*Friends(person, person)
Smokes(person)
Cancer(person)
HasAge(person, num!)
/* a block
   comment */ 1.5  Smokes(x) => Cancer(x)   // trailing comment
-0.5 Friends(x, y) ^ !Smokes(y)
Friends(x, y) <=> Friends(y, x).
@0.8 Smokes(+x)
1 EXIST y Friends(x, y) v x = "Carl Jr"
2.5e-1 FORALL x !Cancer(x) v Smokes(x)
Cancer(x)
-.5 Smokes(x)
.5 Cancer(x)
`
	p, err := ParseProgram("s.mln", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Types["num"], ","); got != "1,2,3,4" {
		t.Errorf("num = %s", got)
	}
	if len(p.Preds) != 4 || !p.Preds[0].Closed || p.Preds[1].Closed || !p.Preds[3].Unique[1] {
		t.Errorf("declarations %v", p.Preds)
	}
	want := []struct {
		w    float64
		hard bool
		line int
	}{{1.5, false, 9}, {-0.5, false, 10}, {0, true, 11}, {0.8, false, 12}, {1, false, 13}, {0.25, false, 14}, {0, false, 15}, {-0.5, false, 16}, {0.5, false, 17}}
	if len(p.Formulas) != len(want) {
		t.Fatalf("%d formulas, want %d", len(p.Formulas), len(want))
	}
	for i, w := range want {
		f := p.Formulas[i]
		if f.Weight != w.w || f.Hard != w.hard || f.Pos.Line != w.line {
			t.Errorf("formula %d: weight %v hard %v line %d, want %+v", i, f.Weight, f.Hard, f.Pos.Line, w)
		}
	}
	// Precedence: ^ binds tighter than v, v tighter than =>, => tighter than <=>.
	q, err := ParseProgram("p.mln", []byte("A(t)\nB(t)\nC(t)\nD(t)\n1 A(x) ^ B(x) v C(x) => D(x) <=> A(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := show(q.Formulas[0].F); got != "(((A(x) ^ B(x)) v C(x)) => D(x)) <=> A(x)" {
		t.Errorf("precedence: %s", got)
	}
	// => is left associative, as in Alchemy's grammar (%left): hinge read
	// A => (B => C), another formula. A quantifier after => takes the rest.
	for _, tc := range []struct{ formula, want string }{
		{"A(x) => B(x) => C(x)", "(A(x) => B(x)) => C(x)"},
		{"A(x) => B(x) v C(x) => D(x) <=> A(x)", "((A(x) => (B(x) v C(x))) => D(x)) <=> A(x)"},
		{"A(x) => EXIST y B(y) => C(x) <=> D(x)", "A(x) => EXIST y (B(y) => C(x)) <=> D(x)"},
	} {
		q, err := ParseProgram("p.mln", []byte("A(t)\nB(t)\nC(t)\nD(t)\n1 "+tc.formula+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := show(q.Formulas[0].F); got != tc.want {
			t.Errorf("%s: read as %s, want %s", tc.formula, got, tc.want)
		}
	}
}

// show writes a node fully parenthesised.
func show(n Node) string {
	switch x := n.(type) {
	case *Atom:
		return x.String()
	case *Eq:
		op := " = "
		if x.Neg {
			op = " != "
		}
		return x.L.String() + op + x.R.String()
	case *Not:
		return "!" + show(x.X)
	case *Binary:
		l, r := show(x.X), show(x.Y)
		if _, ok := x.X.(*Binary); ok {
			l = "(" + l + ")"
		}
		if _, ok := x.Y.(*Binary); ok {
			r = "(" + r + ")"
		}
		return l + " " + x.Op + " " + r
	case *Quant:
		k := "FORALL"
		if x.Exist {
			k = "EXIST"
		}
		return k + " " + strings.Join(x.Vars, ",") + " " + show(x.Body)
	}
	return "?"
}

func TestParseErrors(t *testing.T) {
	decl := "P(t)\nQ(t, t)\n"
	for _, tc := range []struct{ text, want string }{
		{decl + "1 P(x) ^\n", "e.mln:3:9: expected an atom"},
		{decl + "1 R(x)\n", "e.mln:3:3: unknown predicate R"},
		{decl + "1 Q(x)\n", "e.mln:3:3: predicate Q takes 2 argument(s), found 1"},
		{decl + "1 P(x) v (Q(x, y)\n", `e.mln:3:18: expected ")" closing the parenthesis`},
		{decl + "2 P(x).\n", "e.mln:3:1: a hard formula (ending in '.') takes no weight"},
		{decl + "1 P(x) P(y)\n", `e.mln:3:8: unexpected "P" after the formula`},
		{decl + "1 EXIST X P(X)\n", "e.mln:3:9: EXIST: expected a variable"},
		{decl + "1 P(+A)\n", "e.mln:3:6: '+' must be followed by a variable"},
		{decl + "@ P(x)\n", "e.mln:3:3: '@' must be followed by a weight"},
		{decl + "P(t)\n", ""}, // a formula over a declared predicate (weight to learn)
		{decl + "*P(t)\n", "e.mln:3:2: predicate P declared again"},
		{decl + "1 P(x) &\n", `e.mln:3:8: unexpected character "&"`},
		{decl + "/* open\n", "e.mln:3:1: comment /* not closed"},
		{decl + `1 P("abc)` + "\n", "e.mln:3:5: string not closed"},
		{"t = {1, ..., }\n", "e.mln:1:9: '...' ranges over integers"},
		{"t = {A B}\n", `e.mln:1:8: expected ',' or '}', found "B"`},
		{"#include nofile\n", "e.mln:1:1: #include wants a quoted file name"},
		{"#include \"/nonexistent/x.mln\"\n", "e.mln:1:1: #include: open /nonexistent/x.mln"},
		{"P(t)\x00\n", "NUL byte"},
	} {
		_, err := ParseProgram("e.mln", []byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: unexpected error %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestParseAtoms(t *testing.T) {
	p, err := ParseProgram("p.mln", []byte("Friends(person, person)\nSmokes(person)\n"))
	if err != nil {
		t.Fatal(err)
	}
	atoms, err := ParseAtoms("e.db", []byte("Friends(Anna, Bob)\n!Smokes(Bob)\n0.75 Smokes(\"Carl, Jr.\")\n// c\n\nSmokes(12)\n"), p, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(atoms) != 4 || atoms[1].Value != 0 || atoms[2].Value != 0.75 || atoms[2].Args[0].Name != "Carl, Jr." || atoms[3].Args[0].Name != "12" {
		t.Errorf("%+v", atoms)
	}
	for _, tc := range []struct{ text, want string }{
		{"Smokes(x)\n", "e.db:1:8: x is a variable"},
		{"1.5 Smokes(A)\n", "e.db:1:1: truth value \"1.5\" must be a number in [0,1]"},
		{"Smokes(A) B\n", "e.db:1:11: unexpected \"B\" after the atom"},
		{"Drinks(A)\n", "e.db:1:1: unknown predicate Drinks"},
		{"Smokes A\n", "e.db:1:1: expected a ground atom"},
	} {
		_, err := ParseAtoms("e.db", []byte(tc.text), p, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParseAtoms("q.db", []byte("Smokes(x)\n"), p, true); err != nil {
		t.Errorf("query with a variable: %v", err)
	}
}

func FuzzParseProgram(f *testing.F) {
	f.Add([]byte("person = {A, B}\n*F(person, person)\nS(person)\n1.5 S(x) => F(x, y) ^ !S(y)\nS(x) <=> EXIST y F(x,y).\n"))
	f.Add([]byte("P(t!)\n/* c */ -2 P(+x) v x = \"q\\\"\"\n#include \"x\"\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		p, err := ParseProgram("f.mln", text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.mln") && !strings.Contains(err.Error(), "#include") {
				t.Errorf("error without position: %v", err)
			}
			return
		}
		_, _ = ParseAtoms("f.db", text, p, true)
	})
}

// TestIncludedFilesIn: the files a program's text includes, directly or
// through included files, each once, relative to the including file; the
// same as IncludedFiles gives for the program read from its file.
func TestIncludedFilesIn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("decls.mln", "Smokes(person)\n#include \"sub/more.mln\"\n")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("sub/more.mln", "Cancer(person)\n#include \"../decls.mln\"\n")
	tests := []struct {
		name, text string
		want       []string
	}{
		{"none", "Smokes(person)\n1 Smokes(x)\n", nil},
		{"nested and a cycle", "#include \"decls.mln\"\n1 Smokes(x)\n", []string{filepath.Join(dir, "decls.mln"), filepath.Join(dir, "sub", "more.mln")}},
		{"missing file and bad line passed over", "#include \"gone.mln\"\n#include decls.mln\n", []string{filepath.Join(dir, "gone.mln")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(dir, "prog.mln")
			got := IncludedFilesIn(name, []byte(tc.text))
			if !slices.Equal(got, tc.want) {
				t.Errorf("IncludedFilesIn: %q, want %q", got, tc.want)
			}
			if fromFile := IncludedFiles(write("prog.mln", tc.text)); !slices.Equal(fromFile, got) {
				t.Errorf("IncludedFiles %q, IncludedFilesIn %q", fromFile, got)
			}
		})
	}
}

// TestParseRoundedWeights: a weight whose text a float64 does not hold
// (not the shortest decimal of the float64 it reads as, compared exactly)
// is recorded with its position and the value it is read as, for the
// warning; 0.1, exponents and 15 significant digits are held. Such
// weights were read silently, and exact MAP called the world of the
// rounded weights "proven optimal".
func TestParseRoundedWeights(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"P(a)\n0.1 P(x)\n-2.5e3 !P(x)\n123456789012345 P(x)\n", nil},
		{"P(a)\n100000000.123456788 P(x)\n100000000.123456789 !P(x)\n", []string{
			"x.mln:2:1: weight 100000000.123456788 has more significant digits than a float64 holds; it is read as 100000000.12345679",
			"x.mln:3:1: weight 100000000.123456789 has more significant digits than a float64 holds; it is read as 100000000.12345679"}},
		{"P(a)\n  -9007199254740993 P(x)\n9007199254740992 P(x)\n", []string{
			"x.mln:2:3: weight -9007199254740993 has more significant digits than a float64 holds; it is read as -9007199254740992"}},
		// The shortest decimal written with zeros: held.
		{"P(a)\n0.30000000000000004000 P(x)\n", nil},
		{"P(a)\n@1125899906842624.3 P(x)\n", []string{
			"x.mln:2:2: weight 1125899906842624.3 has more significant digits than a float64 holds; it is read as 1125899906842624.2"}},
	} {
		p, err := ParseProgram("x.mln", []byte(tc.text))
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		var got []string
		for _, w := range p.RoundedWeights {
			got = append(got, w.String())
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.text, d)
		}
	}
}
