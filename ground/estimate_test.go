package ground

import (
	"math"
	"testing"

	"github.com/hinge-srl/hinge/model"
)

// TestEstimateRule: the estimate of a rule without grounding it is the one
// Options.Estimate reports when the rule is grounded, and it is refused for
// an arithmetic rule.
func TestEstimateRule(t *testing.T) {
	checked := 0
	for seed := range uint64(60) {
		m, s, err := randomWorld(seed, 3)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGrounder(m, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		reported := map[int]Estimate{}
		// Grounding under a limit no rule fits reports each rule's estimate
		// (Emitted worked out) and refuses it.
		for _, r := range m.Rules {
			if r.Logical == nil {
				if _, _, err := g.EstimateRule(r); err == nil {
					t.Fatal("an arithmetic rule was estimated")
				}
				continue
			}
			tight, err := NewGrounder(m, s, Options{MemoryLimit: 1, Estimate: func(r *model.Rule, e Estimate) { reported[r.Index] = e }})
			if err != nil {
				t.Fatal(err)
			}
			_, _, _ = tight.GroundRule(r)
			e, bytes, err := g.EstimateRule(r)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := reported[r.Index]
			if !ok {
				continue // nothing to ground: no estimate reported
			}
			if math.Abs(e.Groundings-want.Groundings) > 1e-9 || math.Abs(e.Emitted-want.Emitted) > 1e-9 || e.Cause != want.Cause || bytes < e.Emitted*100 {
				t.Fatalf("seed %d rule %d: estimate %+v (%v bytes), grounding reported %+v", seed, r.Index, e, bytes, want)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d rules compared", checked)
	}
}
