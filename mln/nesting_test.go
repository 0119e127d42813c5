package mln

import (
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// A formula nested more deeply than MaxNesting is refused with its
// position, by the parser (a 500 KB line of negations used to end in a Go
// stack overflow) and by Build for a formula made in Go, before any
// recursive walk reaches it.
func TestNestingLimit(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"500 KB of negations", "1 " + strings.Repeat("!", 500_000) + "P(A)\n", "n.mln:2:1003: formula nested too deeply (more than 1000 levels"},
		{"parentheses", "1 " + strings.Repeat("(", 600) + "P(A)" + strings.Repeat(")", 600) + "\n", "n.mln:2:"},
		{"a long disjunction", "1 P(A)" + strings.Repeat(" v P(A)", 1500) + "\n", "formula nested too deeply"},
		{"implications", "1 P(A)" + strings.Repeat(" => P(A)", 1500) + "\n", "formula nested too deeply"},
		{"quantifiers", "1 " + strings.Repeat("EXIST x ", 1500) + "P(x)\n", "formula nested too deeply"},
	} {
		_, err := ParseProgram("n.mln", []byte("P(t)\n"+tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Just within the limit parses.
	for _, text := range []string{"1 " + strings.Repeat("!", MaxNesting-1) + "P(A)\n", "1 P(A)" + strings.Repeat(" v P(A)", 900) + "\n"} {
		if _, err := ParseProgram("n.mln", []byte("P(t)\n"+text)); err != nil {
			t.Errorf("%.20q...: %v", text, err)
		}
	}
	// A program built in Go.
	p, err := ParseProgram("g.mln", []byte("P(t)\n1 P(A)\n"))
	if err != nil {
		t.Fatal(err)
	}
	var n Node = &Atom{Pred: "P", Args: []Term{{Name: "A"}}}
	for range 100_000 {
		n = &Not{X: n, P: srcpos.Position{File: "g.go", Line: 7, Col: 1}}
	}
	p.Formulas[0].F = n
	if _, err := Build(p, nil, Options{Query: []string{"P"}}); err == nil || !strings.Contains(err.Error(), "g.go:7:1: formula nested too deeply") {
		t.Errorf("Build: %v", err)
	}
	if err := CheckNesting(n); err == nil {
		t.Error("CheckNesting passed a tree of height 100001")
	}
}
