package syntax_test

import (
	"fmt"
	"os"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/syntax"
)

func ExampleParseRule() {
	// A rule string from a JSON config, starting at line 4, column 10.
	r, err := syntax.ParseRule("20: Lived(P1, L) & Lived(P2, L) & (P1 != P2) -> Knows(P1, P2) ^2",
		srcpos.Position{File: "acquaintances.json", Line: 4, Col: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Weight, r.Squared, r.Pos)
	for _, a := range r.Atoms() {
		fmt.Println(a.PredName, a.Pos)
	}

	_, err = syntax.ParseRule("1: Lived(P1, 3) -> Knows(P1, P1)", srcpos.Position{File: "acquaintances.json", Line: 5, Col: 10})
	fmt.Println(err)
	// Output:
	// 20 true acquaintances.json:4:10
	// Lived acquaintances.json:4:14
	// Lived acquaintances.json:4:29
	// Knows acquaintances.json:4:58
	// acquaintances.json:5:23: constant 3 must be quoted: '3'
}

func ExampleParseFile() {
	src := `
# Smokers.
0.5: Smokes(X) -> Cancer(X) ^2
0.4: Friends(A1, A2) & Smokes(A1) -> Smokes(A2) ^2
Cancer(X) + Healthy(X) = 1 .
`
	rules, err := syntax.ParseFile("smokers.psl", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rules {
		fmt.Printf("%s  (%v, comment %q)\n", r.Text, r.Pos, r.Comment)
	}
	// Output:
	// 0.5: Smokes(X) -> Cancer(X) ^2  (smokers.psl:3:1, comment "# Smokers.")
	// 0.4: Friends(A1, A2) & Smokes(A1) -> Smokes(A2) ^2  (smokers.psl:4:1, comment "")
	// Cancer(X) + Healthy(X) = 1 .  (smokers.psl:5:1, comment "")
}

func ExampleParseModel() {
	m := model.New()
	m.AddPredicate("Friends", 2, true)
	m.AddPredicate("Smokes", 1, false)
	src := `0.4: Friends(A1, A2) & Smokes(A1) -> Smokes(A2) ^2
0.1: Friends(A1, A2) -> Smokes(A3)
0.1: Smokes(A1) & Cancer(A1) -> Smokes(A1)
`
	err := syntax.ParseModel("smokers.psl", []byte(src), m)
	fmt.Println(len(m.Rules), "valid rule")
	fmt.Println(err)
	// Output:
	// 1 valid rule
	// smokers.psl:2:32: variable A3 is not bound: it must appear in a positive atom of the rule's body (an atom the rule's clause negates)
	// smokers.psl:3:19: unknown predicate Cancer (declare it in the data file)
}

func ExampleFormat() {
	r, _ := syntax.ParseRule("1.50: HasCat(A, C)&&Link(A,B) & (A - B) >> HasCat(B,C)", srcpos.Position{})
	learned := []float64{0.1, 0.2}
	r.Weight = learned[0] + learned[1] // written with the digits that read back exactly
	fmt.Println(syntax.Format(r))

	a, _ := syntax.ParseRule("2 A(X) - (B(X) + C(X)) / 2 <= |Y| * D(+Y) .", srcpos.Position{})
	fmt.Println(syntax.Format(a))
	// Output:
	// 0.30000000000000004: HasCat(A, C) & Link(A, B) & (A != B) -> HasCat(B, C)
	// 2 * A(X) - B(X) / 2 - C(X) / 2 <= |Y| * D(+Y) .
}

func ExamplePrint() {
	rules, _ := syntax.ParseFile("m.psl", []byte(`
// Priors.
0.01 : ~Smokes(X)   # trailing comments are not kept
0.01:!Cancer(X)
HasCat(A, +C) = 1.
`))
	rules[0].Weight = 0.25
	syntax.Print(os.Stdout, rules)
	// Output:
	// // Priors.
	// 0.25: !Smokes(X)
	// 0.01: !Cancer(X)
	// HasCat(A, +C) = 1 .
}
