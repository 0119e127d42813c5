package syntax

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// sexpr renders a rule's structure as an S-expression, independently of the
// printer, so parser tests check structure rather than Format.
func sexpr(r *model.Rule) string {
	var b strings.Builder
	if r.Weighted {
		fmt.Fprintf(&b, "w=%v ", r.Weight)
	} else {
		b.WriteString("hard ")
	}
	if r.Squared {
		b.WriteString("sq ")
	}
	if r.Logical != nil {
		b.WriteString(fexpr(r.Logical))
	}
	if a := r.Arith; a != nil {
		b.WriteString(sideExpr(a.LHS) + " " + a.Rel.String() + " " + sideExpr(a.RHS))
		for _, f := range a.Filters {
			fmt.Fprintf(&b, " {%s: %s}", f.Var, fexpr(f.Expr))
		}
	}
	return b.String()
}

func fexpr(f model.Formula) string {
	join := func(op string, args []model.Formula) string {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = fexpr(a)
		}
		return "(" + op + " " + strings.Join(s, " ") + ")"
	}
	switch x := f.(type) {
	case *model.Atom:
		return atomExpr(x)
	case *model.Comparison:
		return "(" + x.Op.String() + " " + termExpr(x.Left) + " " + termExpr(x.Right) + ")"
	case *model.Not:
		return "(! " + fexpr(x.X) + ")"
	case *model.And:
		return join("&", x.Args)
	case *model.Or:
		return join("|", x.Args)
	case *model.Implies:
		op := "->"
		if x.Reversed {
			op = "<-"
		}
		return "(" + op + " " + fexpr(x.Body) + " " + fexpr(x.Head) + ")"
	}
	return fmt.Sprintf("?%T", f)
}

func termExpr(t model.Term) string {
	switch t.Kind {
	case model.Constant:
		return fmt.Sprintf("%q", t.Name)
	case model.SumVariable:
		return "+" + t.Name
	}
	return t.Name
}

func atomExpr(a *model.Atom) string {
	s := make([]string, len(a.Args))
	for i, t := range a.Args {
		s[i] = termExpr(t)
	}
	return a.PredName + "(" + strings.Join(s, ",") + ")"
}

func coefExpr(c model.Coefficient) string {
	switch x := c.(type) {
	case *model.Number:
		return fmt.Sprint(x.Value)
	case *model.Cardinality:
		return "|" + x.Var + "|"
	case *model.CoefFunc:
		name := "min"
		if x.Max {
			name = "max"
		}
		return "(" + name + " " + coefExpr(x.A) + " " + coefExpr(x.B) + ")"
	case *model.CoefBinary:
		return "(" + string(x.Op) + " " + coefExpr(x.A) + " " + coefExpr(x.B) + ")"
	}
	return fmt.Sprintf("?%T", c)
}

func sideExpr(side []model.Summand) string {
	s := make([]string, len(side))
	for i, x := range side {
		switch {
		case x.Atom == nil:
			s[i] = coefExpr(x.Coef)
		case x.Coef == nil:
			s[i] = atomExpr(x.Atom)
		default:
			s[i] = coefExpr(x.Coef) + "*" + atomExpr(x.Atom)
		}
	}
	return "[" + strings.Join(s, " ") + "]"
}

// parseRuleTests are rules and their structure; the round-trip and fuzz
// tests reuse the sources.
var parseRuleTests = []struct {
	src, want string
}{
	// Logical rules: weights, exponents, connectives in every spelling.
	{"1: A(X) -> B(X)", "w=1 (-> A(X) B(X))"},
	{"0.5: A(X) -> B(X) ^2", "w=0.5 sq (-> A(X) B(X))"},
	{"1e-3: A(X) >> B(X) ^1", "w=0.001 (-> A(X) B(X))"},
	{"2.5E+2: A(X) & B(X, Y) -> C(Y)", "w=250 (-> (& A(X) B(X,Y)) C(Y))"},
	{"1: A(X) && B(X) -> C(X) || D(X)", "w=1 (-> (& A(X) B(X)) (| C(X) D(X)))"},
	{"1: B(X) <- A(X)", "w=1 (<- A(X) B(X))"},
	{"1: B(X) | C(X) << A(X) & D(X)", "w=1 (<- (& A(X) D(X)) (| B(X) C(X)))"},
	{"A(X) -> B(X) .", "hard (-> A(X) B(X))"},
	{"A(X) -> B(X).", "hard (-> A(X) B(X))"},
	{"1: ~A(X)", "w=1 (! A(X))"},
	{"5: !Knows(P1, P2) ^2", "w=5 sq (! Knows(P1,P2))"},
	{"1: !!A(X)", "w=1 (! (! A(X)))"},
	{"0: A(X)", "w=0 A(X)"},
	// Nesting as written.
	{"1: A(X) & (B(X) | C(X)) -> D(X)", "w=1 (-> (& A(X) (| B(X) C(X))) D(X))"},
	{"1: (A(X) & B(X)) & C(X) -> D(X)", "w=1 (-> (& (& A(X) B(X)) C(X)) D(X))"},
	{"1: A(X) | B(X) & C(X)", "w=1 (| A(X) (& B(X) C(X)))"},
	{"1: !(A(X) & B(X))", "w=1 (! (& A(X) B(X)))"},
	{"1: (A(X) -> B(X)) -> C(X)", "w=1 (-> (-> A(X) B(X)) C(X))"},
	{"1: ((A(X)))", "w=1 A(X)"},
	// Comparisons, with and without parentheses.
	{"1: A(X, Y) & X != Y -> B(X)", "w=1 (-> (& A(X,Y) (!= X Y)) B(X))"},
	{"1: A(X, Y) & (X == Y) -> B(X)", "w=1 (-> (& A(X,Y) (== X Y)) B(X))"},
	{"1: A(X, Y) & (X - Y) -> B(X)", "w=1 (-> (& A(X,Y) (!= X Y)) B(X))"},
	{"1: A(X, Y) & X % Y -> B(X)", "w=1 (-> (& A(X,Y) (% X Y)) B(X))"},
	{"1: A(X, Y) & (X ^ Y) -> B(X) ^2", "w=1 sq (-> (& A(X,Y) (% X Y)) B(X))"},
	{"1: A(X) & (X != 'b') -> B(X)", `w=1 (-> (& A(X) (!= X "b")) B(X))`},
	{"1: A(X) & !(X == 'b') -> B(X)", `w=1 (-> (& A(X) (! (== X "b"))) B(X))`},
	{"1: (D2 - D3)>>I(D2, D3)", "w=1 (-> (!= D2 D3) I(D2,D3))"},
	// Constants and escapes; predicate names as written.
	{`1: HasCat(A, '1') -> hasCAT(A, "x y")`, `w=1 (-> HasCat(A,"1") hasCAT(A,"x y"))`},
	{`1: P('a\'b', "c\"d", '\\', '\t\n\r')`, `w=1 P("a'b","c\"d","\\","\t\n\r")`},
	{`1: P('', "")`, `w=1 P("","")`},
	{"1: $p_1(_x, $y)", "w=1 $p_1(_x,$y)"},
	// Comments and line breaks anywhere.
	{"1: A(X) # c\n  & B(X) // d\n -> /* e */ C(X)", "w=1 (-> (& A(X) B(X)) C(X))"},
	// Arithmetic rules.
	{"HasCat(A, +C) = 1 .", "hard [HasCat(A,+C)] = [1]"},
	{"Knows(P1, P2) = Knows(P2, P1) .", "hard [Knows(P1,P2)] = [Knows(P2,P1)]"},
	{"1: interacts(D1, D2) = interacts(D2, D1) ^2", "w=1 sq [interacts(D1,D2)] = [interacts(D2,D1)]"},
	{"1: A(X) - B(X) <= 0", "w=1 [A(X) -1*B(X)] <= [0]"},
	{"1: A(X) >= B(X) + 0.5", "w=1 [A(X)] >= [B(X) 0.5]"},
	{"2 * A(X) + 3 B(X) = 1 .", "hard [2*A(X) 3*B(X)] = [1]"},
	{"A(X) / 2 = 1 .", "hard [(/ 1 2)*A(X)] = [1]"},
	{"-A(X) = -1 .", "hard [-1*A(X)] = [-1]"},
	{"- 2 * A(X) = 1 - B(X) .", "hard [-2*A(X)] = [1 -1*B(X)]"},
	{"A(X) - (B(X) + C(X)) = 0 .", "hard [A(X) -1*B(X) -1*C(X)] = [0]"},
	{"A(X) - (B(X) - 2) = 0 .", "hard [A(X) -1*B(X) 2] = [0]"},
	{"2 * (A(X) + B(X)) = 1 .", "hard [2*A(X) 2*B(X)] = [1]"},
	{"(2 + 3) * A(X) = 1 .", "hard [(+ 2 3)*A(X)] = [1]"},
	{"(2 - 3) * A(X) = 1 .", "hard [(- 2 3)*A(X)] = [1]"},
	{"2 * 3 * A(X) = 1 .", "hard [(* 2 3)*A(X)] = [1]"},
	{"2 * A(X) * 3 = 1 .", "hard [(* 2 3)*A(X)] = [1]"},
	{"2 * A(X) / 4 = 1 .", "hard [(/ 2 4)*A(X)] = [1]"},
	{"1 = A(X) + 2 + 3 .", "hard [1] = [A(X) 2 3]"},
	{"A(X) = 2 + 3 .", "hard [A(X)] = [2 3]"},
	{"A(+X) <= |X| .", "hard [A(+X)] <= [|X|]"},
	{"|X| * A(+X) <= 1 .", "hard [|X|*A(+X)] <= [1]"},
	{"|X| A(+X) <= 1 .", "hard [|X|*A(+X)] <= [1]"},
	{"A(+X) / |X| <= 1 .", "hard [(/ 1 |X|)*A(+X)] <= [1]"},
	{"-|X| * A(+X) <= 1 .", "hard [(* -1 |X|)*A(+X)] <= [1]"},
	{"@Max[1, |X|] * A(+X) = 1 .", "hard [(max 1 |X|)*A(+X)] = [1]"},
	{"@Min(1, |X| - 1) * A(+X) = 1 .", "hard [(min 1 (- |X| 1))*A(+X)] = [1]"},
	{"(|X| - 1) * A(+X) = 1 .", "hard [(- |X| 1)*A(+X)] = [1]"},
	{"1: A(X, +Y) <= 1 ^2 {Y: B(X, Y)}", "w=1 sq [A(X,+Y)] <= [1] {Y: B(X,Y)}"},
	{"1: A(X, +Y) <= 1 {Y: B(X, Y) & !C(Y) | (Y == 'a')}",
		`w=1 [A(X,+Y)] <= [1] {Y: (| (& B(X,Y) (! C(Y))) (== Y "a"))}`},
	{"A(+X, +Y) = 1 . {X: B(X)} {Y: C(Y)}", "hard [A(+X,+Y)] = [1] {X: B(X)} {Y: C(Y)}"},
	{"A(X) + B(X) >= 1 .\n", "hard [A(X) B(X)] >= [1]"},
	{"1: (A(X) + B(X)) = 1", "w=1 [A(X) B(X)] = [1]"},
	{"1: A(X) = +1", "w=1 [A(X)] = [1]"},
}

func parseRuleSources() []string {
	out := make([]string, len(parseRuleTests))
	for i, tt := range parseRuleTests {
		out[i] = tt.src
	}
	return out
}

func TestParseRule(t *testing.T) {
	for _, tt := range parseRuleTests {
		t.Run(tt.src, func(t *testing.T) {
			r, err := ParseRule(tt.src, srcpos.Position{})
			if err != nil {
				t.Fatal(err)
			}
			if got := sexpr(r); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseFileBoundaries(t *testing.T) {
	// Rules may span lines; boundaries come from the grammar.
	src := `
1: A(X)
C(X) + D(X) = 1 .
1: A(X) = 2
B(X) = 1 .
0.5: A(X) & B(X)
  -> C(X) ^2
A(X) -> B(X) . A(X) -> C(X) .
2: !A(X)
(B(X) & C(X)) -> D(X) .
1: P(X) 2: Q(X)
1: A(X, Y) = B(X, Y) {Y: C(Y)}
!A(X) .
1: A(X) | B(X)
|X| * C(+X) = 1 .
`
	want := []string{
		"w=1 A(X)",
		"hard [C(X) D(X)] = [1]",
		"w=1 [A(X)] = [2]",
		"hard [B(X)] = [1]",
		"w=0.5 sq (-> (& A(X) B(X)) C(X))",
		"hard (-> A(X) B(X))",
		"hard (-> A(X) C(X))",
		"w=2 (! A(X))",
		"hard (-> (& B(X) C(X)) D(X))",
		"w=1 P(X)",
		"w=2 Q(X)",
		"w=1 [A(X,Y)] = [B(X,Y)] {Y: C(Y)}",
		"hard (! A(X))",
		"w=1 (| A(X) B(X))",
		"hard [|X|*C(+X)] = [1]",
	}
	rules, err := ParseFile("b.psl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		got = append(got, sexpr(r))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPositions(t *testing.T) {
	src := "# header\n1: Friends(A, B) &\n   (A != 'x') -> Knows(A, B)\n|X| * P(+X) = 1 . {X: Q(X)}\n"
	rules, err := ParseFile("p.psl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := rules[0]
	imp := r.Logical.(*model.Implies)
	and := imp.Body.(*model.And)
	friends := and.Args[0].(*model.Atom)
	cmp := and.Args[1].(*model.Comparison)
	head := imp.Head.(*model.Atom)
	a2 := rules[1].Arith
	checks := []struct {
		what string
		got  srcpos.Position
		want string
	}{
		{"rule", r.Pos, "p.psl:2:1"},
		{"implies", imp.Pos, "p.psl:2:4"},
		{"and", and.Pos, "p.psl:2:4"},
		{"atom", friends.Pos, "p.psl:2:4"},
		{"term B", friends.Args[1].Pos, "p.psl:2:15"},
		{"comparison", cmp.Pos, "p.psl:3:5"},
		{"constant", cmp.Right.Pos, "p.psl:3:10"},
		{"head", head.Pos, "p.psl:3:18"},
		{"arith rule", rules[1].Pos, "p.psl:4:1"},
		{"cardinality", a2.LHS[0].Coef.(*model.Cardinality).Pos, "p.psl:4:1"},
		{"sum var", a2.LHS[0].Atom.Args[0].Pos, "p.psl:4:9"},
		{"filter", a2.Filters[0].Pos, "p.psl:4:19"},
	}
	for _, c := range checks {
		if c.got.String() != c.want {
			t.Errorf("%s at %s, want %s", c.what, c.got, c.want)
		}
	}
	if r.Text != "1: Friends(A, B) & (A != 'x') -> Knows(A, B)" {
		t.Errorf("Text = %q", r.Text)
	}
	if r.Comment != "# header" {
		t.Errorf("Comment = %q", r.Comment)
	}
	if rules[1].Text != "|X| * P(+X) = 1 . {X: Q(X)}" {
		t.Errorf("Text = %q", rules[1].Text)
	}
}

func TestParseRulePosition(t *testing.T) {
	// A rule string starting at cfg.json:7:10: columns on its first line are
	// shifted, later lines count from 1.
	at := srcpos.Position{File: "cfg.json", Line: 7, Col: 10}
	r, err := ParseRule("1: A(X) ->\nB(X)", at)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Pos.String(); got != "cfg.json:7:10" {
		t.Errorf("rule at %s", got)
	}
	if got := r.Logical.(*model.Implies).Head.Position().String(); got != "cfg.json:8:1" {
		t.Errorf("head at %s", got)
	}
	_, err = ParseRule("1: A(X) -> B(X) &", at)
	if err == nil || err.Error() != "cfg.json:7:27: expected an atom, a comparison, '!' or '(', found end of input" {
		t.Errorf("got error %v", err)
	}
	var me *srcpos.Error
	if !errors.As(err, &me) || me.Pos.Line != 7 {
		t.Errorf("errors.As: %v", me)
	}
}

func TestComments(t *testing.T) {
	src := `// file header

# about R1
# more
1: A(X) -> B(X) # trailing: dropped
/* block
   comment */ 2: B(X) -> C(X)
3: C(X) -> D(X) /* inside */ ^2
# one /* two */
A(X) -> D(X) .
# after the last rule: dropped
`
	rules, err := ParseFile("c.psl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"// file header\n\n# about R1\n# more",
		"/* block\n   comment */",
		"",
		"# one /* two */",
	}
	for i, r := range rules {
		if r.Comment != want[i] {
			t.Errorf("rule %d: Comment = %q, want %q", i, r.Comment, want[i])
		}
	}
	if rules[2].Text != "3: C(X) -> D(X) ^2" {
		t.Errorf("Text = %q", rules[2].Text)
	}
}

func TestErrorListFormat(t *testing.T) {
	var src strings.Builder
	for i := 0; i < 13; i++ {
		src.WriteString("1: A(1)\n")
	}
	_, err := ParseFile("m.psl", []byte(src.String()))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 13 {
		t.Fatalf("got %v", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxReported+1 || lines[0] != "m.psl:1:6: constant 1 must be quoted: '1'" || lines[MaxReported] != "and 3 more errors" {
		t.Errorf("got\n%s", err)
	}
}

func TestParseModel(t *testing.T) {
	m := model.New()
	for _, p := range []struct {
		name   string
		arity  int
		closed bool
	}{{"Lived", 2, true}, {"Knows", 2, false}, {"Cat", 2, false}, {"Link", 2, true}} {
		if _, err := m.AddPredicate(p.name, p.arity, p.closed); err != nil {
			t.Fatal(err)
		}
	}
	src := `20: Lived(P1, L) & Lived(P2, L) & (P1 != P2) -> Knows(P1, P2) ^2
5: knows(P1, P2) & Unknown(P2) -> Knows(P1, P2)
5: Knows(P1) -> Knows(P1, P1)
5: Lived(P1, L) -> Knows(P1, P2)
Cat(A, +C) = 1 .
1: Cat(A, +C) <= 1 {C: Knows(A, C)}
1: Cat(A, 1)
`
	err := ParseModel("m.psl", []byte(src), m)
	want := []string{
		"m.psl:2:20: unknown predicate Unknown (declare it in the data file)",
		"m.psl:3:4: predicate Knows takes 2 arguments, found 1",
		"m.psl:4:30: variable P2 is not bound",
		"m.psl:6:24: filter atom Knows must be of a closed (observed) predicate",
		"m.psl:7:11: constant 1 must be quoted: '1'",
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != len(want) {
		t.Fatalf("got %v", err)
	}
	for i, w := range want {
		if !strings.HasPrefix(list[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, list[i].Error(), w)
		}
	}
	if len(m.Rules) != 2 || m.Rules[0].Logical == nil || m.Rules[1].Arith == nil {
		t.Errorf("model has %d rules, want the 2 valid ones", len(m.Rules))
	}
	if m.Rules[0].Atoms()[0].Pred == nil {
		t.Error("atoms not resolved")
	}
}
