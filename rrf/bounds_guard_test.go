package rrf

import (
	"math"
	"strings"
	"testing"
)

// finiteScore, the last check before a score is reported, turns the score
// of a state whose values overflowed (made here without the range check)
// into an error, and passes a finite one.
func TestFiniteScoreCheck(t *testing.T) {
	p, mnet := chainProgram(t, 300, NormMax)
	gr, err := p.Ground(mnet, 0)
	if err != nil {
		t.Fatal(err)
	}
	net := gr.Net
	if err := finiteScore(mustState(t, net).LogScore()); err != nil {
		t.Fatalf("max normalisation: %v", err)
	}
	net.Norm = NormSmooth
	s := mustState(t, net)
	if sc := s.LogScore(); !math.IsInf(sc, 1) {
		t.Fatalf("the smooth 300-level chain scores %v unchecked; the test needs an overflow", sc)
	}
	if err := finiteScore(s.LogScore()); err == nil || !strings.Contains(err.Error(), "log score is +Inf") {
		t.Fatalf("finiteScore(+Inf): %v", err)
	}
	if err := finiteScore(math.NaN()); err == nil {
		t.Fatal("finiteScore(NaN) passed")
	}
}

func mustState(t *testing.T, net *Net) *State {
	t.Helper()
	s, err := newState(net, newTopology(net), []bool{true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
