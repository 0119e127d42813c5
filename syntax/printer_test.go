package syntax

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/print")

// structure compares rules by structure: positions, source text, comments,
// model indexes and resolved predicates aside.
var structure = cmp.Options{
	cmpopts.IgnoreFields(model.Rule{}, "Pos", "Text", "Comment", "Index"),
	cmpopts.IgnoreFields(model.Atom{}, "Pos", "Pred"),
	cmpopts.IgnoreFields(model.Term{}, "Pos"),
	cmpopts.IgnoreFields(model.Comparison{}, "Pos"),
	cmpopts.IgnoreFields(model.Not{}, "Pos"),
	cmpopts.IgnoreFields(model.And{}, "Pos"),
	cmpopts.IgnoreFields(model.Or{}, "Pos"),
	cmpopts.IgnoreFields(model.Implies{}, "Pos"),
	cmpopts.IgnoreFields(model.Filter{}, "Pos"),
	cmpopts.IgnoreFields(model.Cardinality{}, "Pos"),
}

// diffRule returns "" when two rules have the same structure, else a diff.
// The S-expression rendering covers every structural field, so it decides
// (cmp.Diff on deep trees is slow); cmp only explains a difference.
func diffRule(a, b *model.Rule) string {
	if sexpr(a) == sexpr(b) {
		return ""
	}
	return sexpr(a) + "\n" + sexpr(b) + "\n" + cmp.Diff(a, b, structure)
}

// diffRules is diffRule over two lists.
func diffRules(a, b []*model.Rule) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rules, %d back", len(a), len(b))
	}
	for i := range a {
		if d := diffRule(a[i], b[i]); d != "" {
			return fmt.Sprintf("rule %d: %s", i, d)
		}
	}
	return ""
}

// checkRoundTrip checks that Format(r) parses back to r's structure, and
// that Print of all rules parses back to the same rules with the same
// comments.
func checkRoundTrip(t *testing.T, rules []*model.Rule) {
	t.Helper()
	for _, r := range rules {
		text := Format(r)
		back, err := ParseRule(text, srcpos.Position{})
		if err != nil {
			t.Errorf("Format(%q) = %q does not parse: %v", r.Text, text, err)
			continue
		}
		if d := diffRule(r, back); d != "" {
			t.Errorf("Format(%q) = %q parses differently (-orig +back):\n%s", r.Text, text, d)
		}
	}
	var buf bytes.Buffer
	if err := Print(&buf, rules); err != nil {
		t.Fatal(err)
	}
	back, err := ParseFile("printed.psl", buf.Bytes())
	if err != nil {
		t.Fatalf("printed file does not parse: %v\n%s", err, buf.String())
	}
	if d := diffRules(rules, back); d != "" {
		t.Fatalf("printed file parses differently (-orig +back):\n%s\n%s", d, buf.String())
	}
	for i := range rules {
		if rules[i].Comment != back[i].Comment {
			t.Errorf("rule %d: comment %q printed back as %q", i, rules[i].Comment, back[i].Comment)
		}
	}
}

// TestPrintGolden prints each testdata/print/*.psl and compares with its
// .golden file (go test -update rewrites them). The output must also be a
// fixed point: parsing and printing it again gives the same text.
func TestPrintGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/print/*.psl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			rules, err := ParseFile(in, src)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Print(&buf, rules); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".psl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("Print differs from %s:\n%s", golden, cmp.Diff(string(want), got))
			}
			again, err := ParseFile(golden, buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			var buf2 bytes.Buffer
			if err := Print(&buf2, again); err != nil {
				t.Fatal(err)
			}
			if buf2.String() != buf.String() {
				t.Errorf("printing is not a fixed point:\n%s", cmp.Diff(buf.String(), buf2.String()))
			}
			checkRoundTrip(t, rules)
		})
	}
}

// TestRoundTripTable runs the round-trip property over every rule of the
// parser tests.
func TestRoundTripTable(t *testing.T) {
	var rules []*model.Rule
	for _, src := range parseRuleSources() {
		r, err := ParseRule(src, srcpos.Position{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		rules = append(rules, r)
	}
	checkRoundTrip(t, rules)
}

func TestFormat(t *testing.T) {
	x, y := model.Var("X"), model.Var("Y")
	p := &model.Predicate{Name: "P", Arity: 2}
	q := &model.Predicate{Name: "Q", Arity: 1}
	tests := []struct {
		r    *model.Rule
		want string
	}{
		{&model.Rule{Weighted: true, Weight: 0.1, Logical: &model.Implies{Body: model.NewAtom(p, x, y), Head: model.NewAtom(q, y)}},
			"0.1: P(X, Y) -> Q(Y)"},
		// Weights use the fewest digits that read back exactly.
		{&model.Rule{Weighted: true, Weight: 1.0 / 3, Squared: true, Logical: &model.Not{X: model.NewAtom(q, x)}},
			"0.3333333333333333: !Q(X) ^2"},
		{&model.Rule{Weighted: true, Weight: 1e-20, Logical: model.NewAtom(q, x)}, "1e-20: Q(X)"},
		{&model.Rule{Weighted: true, Weight: math.Nextafter(1, 2), Logical: model.NewAtom(q, x)}, "1.0000000000000002: Q(X)"},
		{&model.Rule{Logical: &model.Or{Args: []model.Formula{
			&model.And{Args: []model.Formula{model.NewAtom(q, x), &model.Comparison{Op: model.CmpNonSym, Left: x, Right: model.Const("it's")}}},
			&model.Not{X: &model.Or{Args: []model.Formula{model.NewAtom(q, y), model.NewAtom(q, x)}}}}}},
			`(Q(X) & (X % 'it\'s')) | !(Q(Y) | Q(X)) .`},
		{&model.Rule{Arith: &model.Arithmetic{
			LHS: []model.Summand{{Atom: model.NewAtom(p, x, model.SumVar("Y"))}},
			RHS: []model.Summand{{Coef: &model.Cardinality{Var: "Y"}}, {Coef: &model.Number{Value: -1}}},
			Rel: model.LE}},
			"P(X, +Y) <= |Y| - 1 ."},
	}
	for _, tt := range tests {
		if got := Format(tt.r); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	// Weights read back exactly.
	for _, w := range []float64{0, 1, 0.1, 1.0 / 3, 2.5e300, 5e-324, math.Pi, 123456789.125} {
		r := &model.Rule{Weighted: true, Weight: w, Logical: model.NewAtom(q, x)}
		back, err := ParseRule(Format(r), srcpos.Position{})
		if err != nil || back.Weight != w {
			t.Errorf("weight %v: read back %v, %v", w, back, err)
		}
	}
}

func TestPrintComments(t *testing.T) {
	q := &model.Predicate{Name: "Q", Arity: 1}
	rules := []*model.Rule{
		{Weighted: true, Weight: 1, Logical: model.NewAtom(q, model.Var("X")), Comment: "# already a comment\n/* and a block */"},
		{Weighted: true, Weight: 2, Logical: model.NewAtom(q, model.Var("X")), Comment: "learned weight\n\nsecond paragraph"},
	}
	var buf bytes.Buffer
	if err := Print(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want := "# already a comment\n/* and a block */\n1: Q(X)\n\n# learned weight\n\n# second paragraph\n2: Q(X)\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
