package explain

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAtom(t *testing.T) {
	cases := []struct {
		in   string
		pred string
		args []string
		err  string // substring of the error, "" for none
	}{
		{in: "Cancer(Bob)", pred: "Cancer", args: []string{"Bob"}},
		{in: "  Cancer( Bob )  ", pred: "Cancer", args: []string{"Bob"}},
		{in: "Cancer('Bob')", pred: "Cancer", args: []string{"Bob"}},
		{in: `Friends("Anna", 'Bob')`, pred: "Friends", args: []string{"Anna", "Bob"}},
		{in: "_hypernym(00260881, 00262792)", pred: "_hypernym", args: []string{"00260881", "00262792"}},
		{in: "/film/film/genre(/m/027rn, /m/07s9rl0)", pred: "/film/film/genre", args: []string{"/m/027rn", "/m/07s9rl0"}},
		{in: `P('a, b', 'it\'s', "x\\y")`, pred: "P", args: []string{"a, b", "it's", `x\y`}},
		{in: "P('')", pred: "P", args: []string{""}},
		{in: "Raining()", pred: "Raining"},
		{in: "Raining", pred: "Raining"},
		{in: "Cancer(Bob", err: "column 11: missing ')'"},
		{in: "Cancer(Bob))", err: "column 12: text after the closing ')'"},
		{in: "Cancer(Bob,)", err: "column 12: empty argument"},
		{in: "Cancer(,Bob)", err: "column 8: empty argument"},
		{in: "(Bob)", err: "column 1: no predicate name"},
		{in: "", err: "empty"},
		{in: "Cancer('Bob)", err: "column 8: unterminated quoted constant"},
		{in: "Cancer('Bob' x)", err: "column 14: want ',' or ')'"},
		{in: "Cancer(B(ob))", err: "column 9: unexpected '('"},
		{in: "Can'cer(Bob)", err: "cannot hold"},
		{in: "Cancer(Bob)\x00", err: "a NUL byte"},
		{in: "Cancer(\xff)", err: "not UTF-8"},
		{in: "parentOf person00 person15", err: "column 9: a blank in a name without arguments: want Pred(a, b)"},
		{in: "is a(cat, animal)", pred: "is a", args: []string{"cat", "animal"}}, // a relation of triples may hold blanks
		{in: "  Raining  ", pred: "Raining"},
	}
	for _, c := range cases {
		a, err := ParseAtom(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseAtom(%q) = %v, %v; want an error with %q", c.in, a, err, c.err)
			}
		case err != nil:
			t.Errorf("ParseAtom(%q): %v", c.in, err)
		case a.Pred != c.pred || !slices.Equal(a.Args, c.args):
			t.Errorf("ParseAtom(%q) = %q %q, want %q %q", c.in, a.Pred, a.Args, c.pred, c.args)
		}
	}
}

// FuzzParseAtom: no input panics, and an atom read reads back the same
// from its String.
func FuzzParseAtom(f *testing.F) {
	for _, s := range []string{"Cancer(Bob)", `P('a, b', "c")`, "r(x,y)", "P()", "P", "P('it\\'s')", "(", "P(a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAtom(s)
		if err != nil {
			return
		}
		b, err := ParseAtom(a.String())
		if err != nil {
			t.Fatalf("%q -> %q: %v", s, a.String(), err)
		}
		if b.Pred != a.Pred || !slices.Equal(a.Args, b.Args) {
			t.Fatalf("%q -> %q -> %q %q, want %q %q", s, a.String(), b.Pred, b.Args, a.Pred, a.Args)
		}
	})
}

// TestAtomNamesReadBack: every way hinge writes an atom (PSL's quoted
// constants in explanations and reports, Markov logic's, Atom.String)
// reads back through ParseAtom, which --explain uses, as the same atom,
// whatever the constant holds: a backslash (which the header used to print
// bare, so that pasting it back changed the constant), quotes, a newline,
// a tab, blanks, commas, parentheses, or nothing.
func TestAtomNamesReadBack(t *testing.T) {
	consts := []string{"Bob", "a b", "it's", `back\slash`, `ends\`, "tab\there", "new\nline", `quote"d`, "", " lead", "trail ",
		"(paren)", "comma,", "ünïcödé", `\'`, `\n`, "x\\ny", "+plus", "lower"}
	for _, c := range consts {
		a := Atom{Pred: "P", Args: []string{c, "Anna"}}
		for _, w := range []struct{ how, text string }{{"psl", pslName(a)}, {"mln", mlnName(a)}, {"String", a.String()}} {
			got, err := ParseAtom(w.text)
			if err != nil || got.Pred != a.Pred || !slices.Equal(got.Args, a.Args) {
				t.Errorf("%s: %q written %s reads back as %q (%v)", w.how, c, w.text, got.Args, err)
			}
		}
	}
}
