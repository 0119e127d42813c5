package mln

import (
	"strings"
	"testing"
)

// TestHiddenNotes: a predicate a formula uses with no evidence atom, not
// queried nor opened, is named in a program without '*' (hinge closes it,
// Alchemy 2 leaves it open: Q 0.5 against 0.77); not when it is queried,
// opened, given evidence, or when the program follows Tuffy's convention.
func TestHiddenNotes(t *testing.T) {
	const alchemy = "P(t)\nH(t)\nQ(t)\n1.5 P(x) => H(x)\n2 H(x) => Q(x)\n"
	ev := []GroundAtom{{Pred: "P", Args: []Term{{Name: "A"}}, Value: 1}}
	for _, tc := range []struct {
		prog string
		ev   []GroundAtom
		opt  Options
		want string
	}{
		{alchemy, ev, Options{Query: []string{"Q"}}, "H: no evidence atom"},
		{alchemy, ev, Options{Query: []string{"Q"}, Open: []string{"H"}}, ""},
		{alchemy, ev, Options{Query: []string{"Q", "H"}}, ""},
		{alchemy, append(ev, GroundAtom{Pred: "H", Args: []Term{{Name: "A"}}, Value: 0}), Options{Query: []string{"Q"}}, ""},
		{"*P(t)\nH(t)\nQ(t)\n1.5 P(x) => H(x)\n2 H(x) => Q(x)\n", ev, Options{Query: []string{"Q"}}, ""},
	} {
		prog, err := ParseProgram("h.mln", []byte(tc.prog))
		if err != nil {
			t.Fatal(err)
		}
		net, err := Build(prog, tc.ev, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(net.HiddenNotes(), "\n")
		if (tc.want == "") != (notes == "") || !strings.Contains(notes, tc.want) {
			t.Errorf("%q %+v: notes %q, want %q", tc.prog, tc.opt, notes, tc.want)
		}
	}
}
