package rrf

import (
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

// FromMLN refuses nested equivalences by the clause cap, with the
// formula's position, after work that does not grow with the nesting depth
// (the conversion to CNF used to expand their shared operands into a tree
// first: 2^depth nodes).
func TestFromMLNNestedEquivalenceRefusedEarly(t *testing.T) {
	for _, depth := range []int{20, 40, 200} {
		text := "Smokes(person)\nCancer(person)\n1.0 " + strings.Repeat("(Cancer(x) <=> ", depth) + "Smokes(x)" + strings.Repeat(")", depth) + "\n"
		kb, err := mln.ParseProgram("kb.mln", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var ferr error
		allocs := testing.AllocsPerRun(1, func() { _, ferr = FromMLN(kb, 10, 20) })
		if ferr == nil || !strings.Contains(ferr.Error(), "kb.mln:3:1: rule expands to more than 256 clauses") {
			t.Fatalf("depth %d: error %v, want the clause cap at kb.mln:3:1", depth, ferr)
		}
		if limit := 20_000 + 50*float64(depth); allocs > limit {
			t.Fatalf("depth %d: %.0f allocations before the refusal, want at most %.0f", depth, allocs, limit)
		}
	}
}
