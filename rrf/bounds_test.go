package rrf

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

// chainProgram is a chain of n+1 parfeatures under the root,
// F_i(x) = F_{i+1}(x) + Smokes(x) and F_n(x) = Cancer(x), grounded over
// one person whose Smokes is observed true: one unknown atom,
// Cancer(Anna). F_i is on line i+4 of ch.rrf.
func chainProgram(t *testing.T, n int, norm Norm) (*Program, *mln.Network) {
	t.Helper()
	lines := []string{"Smokes(person)", "Cancer(person)", "root = 1 * sum(x) F0(x)"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("F%d(x) = 1 * F%d(x) + 1 * Smokes(x)", i, i+1))
	}
	lines = append(lines, fmt.Sprintf("F%d(x) = 1 * Cancer(x)", n))
	p, err := ParseProgram("ch.rrf", []byte(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	p.Norm = norm
	ev, err := mln.ParseAtoms("d.db", []byte("Smokes(Anna)\n"), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, ev, mln.Options{Query: []string{"Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	return p, net
}

// chainScore works out the chain's log score s_0 = F_0(Anna) with
// Cancer(Anna) set to cancer, by hand from the definitions: m(w) is
// w / (1 + exp(-10 w)) (smooth) or max(w, 0), F_n = exp(Cancer - m(1)),
// F_i = exp(F_{i+1} + 1 - 2 m(1)). It also returns the largest value any
// F_i takes (+Inf when one overflows).
func chainScore(n int, cancer bool, norm Norm) (score, largest float64) {
	m1 := 1.0
	if norm == NormSmooth {
		m1 = 1 / (1 + math.Exp(-10))
	}
	c := 0.0
	if cancer {
		c = 1
	}
	f := math.Exp(c - m1)
	largest = f
	for range n {
		f = math.Exp(f + 1 - 2*m1)
		largest = max(largest, f)
	}
	return f, largest
}

// A deep chain of parfeatures compounds the smooth normalisation's excess
// over 1 into values no float64 holds: 300 levels gave an ICM log score of
// +Inf and a marginal of 0.062 (0.000 at 500), exit 0. Grounding refuses
// such a network, naming the deepest parfeature whose value can overflow,
// exactly when the hand-computed values overflow; shallower chains give
// the hand-computed scores on both worlds (enumeration) and its marginal
// (Gibbs); under the max normalisation no value exceeds 1 and 500 levels
// are answered.
func TestDeepChainOverflow(t *testing.T) {
	for _, tc := range []struct {
		n    int
		norm Norm
	}{{1, NormSmooth}, {100, NormSmooth}, {200, NormSmooth}, {230, NormSmooth}, {300, NormSmooth}, {500, NormSmooth}, {500, NormMax}} {
		name := fmt.Sprintf("%d levels, %v", tc.n, tc.norm)
		p, mnet := chainProgram(t, tc.n, tc.norm)
		gr, err := p.Ground(mnet, 0)
		_, largest := chainScore(tc.n, true, tc.norm)
		if !(largest <= maxMagnitude) {
			if err == nil || !strings.Contains(err.Error(), "beyond the range of a float64") || !strings.Contains(err.Error(), "ch.rrf:") {
				t.Fatalf("%s: the values reach %v; error %v, want a refusal naming the parfeature", name, largest, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		net := gr.Net
		if net.NumVars != 1 {
			t.Fatalf("%s: %d unknown atoms, want 1", name, net.NumVars)
		}
		var s [2]float64
		for k, cancer := range []bool{false, true} {
			st, err := NewState(net, []bool{cancer})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := chainScore(tc.n, cancer, tc.norm)
			if got := st.LogScore(); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s, Cancer %v: log score %v, by hand %v", name, cancer, got, want)
			}
			s[k] = st.LogScore()
		}
		mode, score, err := ICM(context.Background(), net, gr.Evidence, ICMOptions{Restarts: 2, Seed: 1})
		if err != nil || score != max(s[0], s[1]) || mode[0] != (s[1] > s[0]) {
			t.Fatalf("%s: ICM mode %v score %v, %v; want the better of %v", name, mode, score, err, s)
		}
		p1 := 1 / (1 + math.Exp(s[0]-s[1]))
		const samples = 4000
		marg, err := Gibbs(context.Background(), net, gr.Evidence, nil, GibbsOptions{Samples: samples, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if tol := 5 * math.Sqrt(p1*(1-p1)/samples); math.Abs(marg[0]-p1) > max(tol, 1e-9) {
			t.Fatalf("%s: Gibbs marginal %.4f, by hand %.4f", name, marg[0], p1)
		}
	}
	// Where the refusal starts: the first chain whose hand-computed values
	// overflow, and at the parfeature where they do (F_i on line i+4).
	first := 0
	for n := 200; n < 300 && first == 0; n++ {
		if _, largest := chainScore(n, true, NormSmooth); !(largest <= maxMagnitude) {
			first = n
		}
	}
	for _, n := range []int{first - 1, first} {
		p, mnet := chainProgram(t, n, NormSmooth)
		_, err := p.Ground(mnet, 0)
		if (err != nil) != (n == first) {
			t.Fatalf("%d levels (the values overflow from %d): %v", n, first, err)
		}
		if err != nil && !strings.Contains(err.Error(), "ch.rrf:4:1: parfeature F0's value can reach") {
			t.Fatalf("%d levels: %v, want F0 on line 4 named", n, err)
		}
	}
	p, mnet := chainProgram(t, 300, NormSmooth)
	_, err := p.Ground(mnet, 0)
	if want := fmt.Sprintf("ch.rrf:%d:1: parfeature F%d's value can reach", 300-first+4, 300-first); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("300 levels: %v, want %q", err, want)
	}
}

// A propositional network (built without the grounder) whose values may
// overflow is refused by ICM and Gibbs before any sampling, naming the
// feature.
func TestInferenceRefusesOverflow(t *testing.T) {
	p, mnet := chainProgram(t, 300, NormMax)
	gr, err := p.Ground(mnet, 0)
	if err != nil {
		t.Fatal(err)
	}
	net := gr.Net
	net.Norm = NormSmooth
	if _, score, err := ICM(context.Background(), net, nil, ICMOptions{Restarts: 1}); err == nil || !strings.Contains(err.Error(), "beyond the range of a float64") {
		t.Fatalf("ICM: score %v, error %v; want a refusal", score, err)
	}
	if m, err := Gibbs(context.Background(), net, nil, nil, GibbsOptions{Samples: 10}); err == nil || !strings.Contains(err.Error(), "beyond the range of a float64") {
		t.Fatalf("Gibbs: marginals %v, error %v; want a refusal", m, err)
	}
	// With Cancer fixed false, the values stay within range (the chain's
	// bottom starts at exp(-m(1))), and both answer.
	ev := &Evidence{Fixed: []bool{true}, X: []bool{false}}
	if _, score, err := ICM(context.Background(), net, ev, ICMOptions{Restarts: 1}); err != nil || math.IsInf(score, 0) {
		t.Fatalf("ICM with Cancer false: score %v, %v", score, err)
	}
}

// BenchmarkCheckRange: the range check grounding, ICM and Gibbs run once,
// on UW-CSE ai as an RRF, to set beside a Gibbs sweep there
// (BenchmarkUWCSE/gibbs-sweep).
//
//	go test -run '^$' -bench 'CheckRange|UWCSE/gibbs' ./rrf
func BenchmarkCheckRange(b *testing.B) {
	gr := uwcseAI(b)
	for b.Loop() {
		if e := gr.Net.checkRange(gr.Evidence); e != nil {
			b.Fatal(e.describe("feature", gr.Net.Norm))
		}
	}
}
