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
