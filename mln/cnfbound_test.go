package mln

import (
	"fmt"
	"strings"
	"testing"
)

// nestedEquivalence is a program whose one formula nests depth
// equivalences, (Cancer(x) <=> (Smokes(x) <=> (Cancer(x) <=> ...))), on
// line 3 of e.mln.
func nestedEquivalence(depth int) string {
	var b strings.Builder
	b.WriteString("Smokes(person)\nCancer(person)\n1.0 ")
	for i := range depth {
		if i%2 == 0 {
			b.WriteString("(Cancer(x) <=> ")
		} else {
			b.WriteString("(Smokes(x) <=> ")
		}
	}
	b.WriteString("Smokes(x)" + strings.Repeat(")", depth) + "\n")
	return b.String()
}

// Nested equivalences of any depth within the nesting limit are refused by
// the clause cap, with the formula's position, after work that does not
// grow with the depth: their clauses double with each level, and expanding
// the shared operands into a tree before applying the cap took 2^depth
// nodes (depth 20: 0.7 s and 209 MB; 24: over 2 GB). The same formulas
// through the RRF conversion are checked in package rrf.
func TestNestedEquivalenceRefusedEarly(t *testing.T) {
	for _, depth := range []int{20, 40, 200} {
		prog, err := ParseProgram("e.mln", []byte(nestedEquivalence(depth)))
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		ev, err := ParseAtoms("d.db", []byte("Smokes(Anna)\n"), prog, false)
		if err != nil {
			t.Fatal(err)
		}
		var berr error
		allocs := testing.AllocsPerRun(1, func() {
			_, berr = Build(prog, ev, Options{Query: []string{"Cancer"}})
		})
		want := fmt.Sprintf("e.mln:3:1: rule expands to more than %d clauses", 256)
		if berr == nil || !strings.Contains(berr.Error(), want) {
			t.Fatalf("depth %d: error %v, want %q", depth, berr, want)
		}
		// Building the formula is linear in its size (a few allocations
		// per connective); the refusal itself a few thousand at most.
		if limit := 20_000 + 50*float64(depth); allocs > limit {
			t.Fatalf("depth %d: %.0f allocations before the refusal, want at most %.0f", depth, allocs, limit)
		}
	}
	// Four levels stay under the cap and are built.
	prog, err := ParseProgram("e.mln", []byte(nestedEquivalence(4)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(prog, nil, Options{Query: []string{"Cancer"}}); err != nil {
		t.Fatalf("depth 4: %v", err)
	}
}

// quantifierProgram nests EXIST over three variables of a type with n
// constants, on line 3 of q.mln.
func quantifierProgram(t *testing.T, n int) (*Program, []GroundAtom) {
	t.Helper()
	prog, err := ParseProgram("q.mln", []byte("P(t, t, t)\nQ(t)\n1 EXIST x EXIST y EXIST z P(x, y, z)\n"))
	if err != nil {
		t.Fatal(err)
	}
	var db strings.Builder
	for i := range n {
		fmt.Fprintf(&db, "Q(C%d)\n", i)
	}
	ev, err := ParseAtoms("q.db", []byte(db.String()), prog, false)
	if err != nil {
		t.Fatal(err)
	}
	return prog, ev
}

// Nested quantifiers multiply: the bound on the terms one quantifier
// expands to applies to the product of the quantifiers around it, so three
// nested EXISTs over 100 constants (a million terms, each quantifier under
// the bound on its own) are refused at the innermost quantifier before the
// formula is built (over 300 constants the expansion ran past a minute and
// 1.6 GB), while 20 constants (8,000 terms) are built.
func TestNestedQuantifiersBounded(t *testing.T) {
	prog, ev := quantifierProgram(t, 100)
	var err error
	allocs := testing.AllocsPerRun(1, func() { _, err = Build(prog, ev, Options{Query: []string{"Q"}}) })
	if err == nil || !strings.Contains(err.Error(), "q.mln:3:") || !strings.Contains(err.Error(), fmt.Sprintf("more than %d terms", maxExpansion)) {
		t.Fatalf("100 constants: %v, want the expansion bound", err)
	}
	if allocs > 200_000 {
		t.Fatalf("100 constants: %.0f allocations before the refusal, want at most 200000", allocs)
	}
	prog, ev = quantifierProgram(t, 20)
	net, err := Build(prog, ev, Options{Query: []string{"Q"}})
	if err != nil {
		t.Fatalf("20 constants: %v", err)
	}
	if len(net.Clauses) != 1 {
		t.Fatalf("20 constants: %d clauses, want 1", len(net.Clauses))
	}
}

// An existential over a conjunction doubles its clauses with every constant
// of its domain: 8 people stay under the cap, 9 are refused with the way
// out (name the conjunction by a predicate), which a formula without an
// existential does not get.
func TestExistentialExpansionHint(t *testing.T) {
	for n, refused := range map[int]bool{8: false, 9: true} {
		var people []string
		for i := range n {
			people = append(people, fmt.Sprintf("P%d", i))
		}
		prog, err := ParseProgram("x.mln", []byte("person = {"+strings.Join(people, ", ")+"}\nFriends(person, person)\nSmokes(person)\n2 Smokes(x) => EXIST y (Friends(x, y) ^ Smokes(y))\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Build(prog, nil, Options{Query: []string{"Smokes", "Friends"}})
		if refused != (err != nil) || refused && !strings.Contains(err.Error(), "x.mln:4:1: rule expands to more than 256 clauses; simplify it (an existential is expanded") {
			t.Errorf("%d people: %v", n, err)
		}
	}
	prog, err := ParseProgram("e.mln", []byte(nestedEquivalence(20)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(prog, nil, Options{Query: []string{"Cancer"}}); err == nil || strings.Contains(err.Error(), "existential") {
		t.Errorf("nested equivalences: %v, want the cap's refusal without the existential's hint", err)
	}
}
