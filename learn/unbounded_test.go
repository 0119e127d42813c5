package learn

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// unboundedWorld builds rules over closed O, P and open T; atom i has
// O(ci) = o[i], P(ci) = p[i] and truth T(ci) = truth[i].
func unboundedWorld(t *testing.T, rules []string, o, p, truth []float64) (*model.Model, *store.Store, *ground.Result) {
	t.Helper()
	m := model.New()
	op, _ := m.AddPredicate("O", 1, true)
	pp, _ := m.AddPredicate("P", 1, true)
	tp, _ := m.AddPredicate("T", 1, false)
	for i, text := range rules {
		r, err := syntax.ParseRule(text, srcpos.Position{File: "u.psl", Line: i + 1, Col: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
	s := store.New(m)
	for i := range truth {
		x := []string{fmt.Sprintf("c%d", i)}
		if err := s.AddObservation(op, x, o[i]); err != nil {
			t.Fatal(err)
		}
		if err := s.AddObservation(pp, x, p[i]); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTarget(tp, x); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTruth(tp, x, truth[i]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := ground.Ground(m, s, ground.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m, s, g
}

// TestLearnUnboundedWeights: without L2 a pseudo-likelihood (or the
// likelihood the perceptron approximates) can keep decreasing as weights
// grow; learning said "converged" at whatever weight its gradient test
// stopped (503483 for the first case, 1/(2 tol)). Now it names the rules,
// says not converged, and bounded cases still converge. The directions
// reported are checked against the objective itself: it falls along them
// from the learned weights, and rises along every rule from a bounded
// answer.
func TestLearnUnboundedWeights(t *testing.T) {
	implies := "1.0: O(X) -> T(X) ^2"
	pair := []string{"1.0: O(X) -> T(X)", "1.0: P(X) -> !T(X)"}
	for _, tc := range []struct {
		name         string
		rules        []string
		o, p, truth  []float64
		method       Method
		l2           float64
		want         [][]int // rules of each unbounded direction
		wantWarnings string
	}{
		// The tester's reproducer: the truth never violates the rule.
		{"never violated mple", []string{implies}, []float64{1}, []float64{0}, []float64{1}, MPLE, 0, [][]int{{0}}, "grows without bound"},
		{"never violated ppll", []string{implies}, []float64{1}, []float64{0}, []float64{1}, PPLL, 0, [][]int{{0}}, "grows without bound"},
		{"never violated mle", []string{implies}, []float64{1}, []float64{0}, []float64{1}, MLE, 0, [][]int{{0}}, "the truth never violates it"},
		// Partly violated: a finite optimum.
		{"violated mple", []string{implies}, []float64{1, 1, 1}, []float64{0, 0, 0}, []float64{1, 0.3, 0.8}, MPLE, 0, nil, ""},
		{"violated ppll", []string{implies}, []float64{1, 1, 1}, []float64{0, 0, 0}, []float64{1, 0.3, 0.8}, PPLL, 0, nil, ""},
		{"violated mle", []string{implies}, []float64{1, 1, 1}, []float64{0, 0, 0}, []float64{1, 0.3, 0.8}, MLE, 0, nil, ""},
		// L2 bounds every weight.
		{"l2 mple", []string{implies}, []float64{1}, []float64{0}, []float64{1}, MPLE, 0.1, nil, ""},
		{"l2 mle", []string{implies}, []float64{1}, []float64{0}, []float64{1}, MLE, 0.1, nil, ""},
		// Each rule alone is violated, but O pulls T up and P down with
		// the same slope between 0.3 and 0.7: their sum is flat there, so
		// the truth 0.5 is the mode of its conditional when both weights
		// grow together. PPLL's conditionals are per rule: bounded.
		{"pair mple", pair, []float64{0.7}, []float64{0.7}, []float64{0.5}, MPLE, 0, [][]int{{0, 1}}, "grow together"},
		{"pair ppll", pair, []float64{0.7}, []float64{0.7}, []float64{0.5}, PPLL, 0, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s, g := unboundedWorld(t, tc.rules, tc.o, tc.p, tc.truth)
			opt := learnOpts(tc.method)
			opt.L2 = tc.l2
			opt.Iterations = 500
			res, err := Learn(context.Background(), g, s, m, opt)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]int
			for _, u := range res.Unbounded {
				got = append(got, u.Rules)
			}
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Fatalf("unbounded %v, want %v (weights %v, warnings %q)", got, tc.want, res.Weights, res.Warnings)
			}
			if res.Converged == (len(tc.want) > 0) {
				t.Errorf("converged %v with unbounded %v", res.Converged, got)
			}
			warn := strings.Join(res.Warnings, "\n")
			if tc.wantWarnings != "" && !strings.Contains(warn, tc.wantWarnings) {
				t.Errorf("warnings %q: want %q", warn, tc.wantWarnings)
			}
			if tc.wantWarnings == "" && strings.Contains(warn, "without bound") {
				t.Errorf("warnings %q", warn)
			}
			if tc.method == MLE {
				return
			}
			// The objective itself: along a reported direction it keeps
			// falling; from a bounded answer, raising any weight costs.
			obj, err := NewPseudoLikelihood(g.Problem, truthOf(t, g, s), res.Learned, PLOptions{Piecewise: tc.method == PPLL, L2: tc.l2, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			at := func(d []float64, step float64, rules []int) float64 {
				w := slices.Clone(res.Weights)
				for k, r := range rules {
					w[r] += step * d[k]
				}
				return obj.Value(w)
			}
			for _, u := range res.Unbounded {
				prev := at(u.Direction, 0, u.Rules)
				for _, step := range []float64{1, 10, 100, 1000} {
					f := at(u.Direction, step*res.Weights[u.Rules[0]], u.Rules)
					if !(f < prev) {
						t.Errorf("along %v x%v: objective %v, not below %v", u.Direction, step, f, prev)
					}
					prev = f
				}
			}
			if len(tc.want) == 0 {
				for r := range res.Weights {
					if f0, f := at(nil, 0, nil), at([]float64{1}, 10*(1+res.Weights[r]), []int{r}); !(f > f0) {
						t.Errorf("rule %d raised: objective %v, not above %v at the answer", r, f, f0)
					}
				}
			}
		})
	}
}

func truthOf(t *testing.T, g *ground.Result, s *store.Store) []float64 {
	t.Helper()
	y, _, err := Truth(g, s)
	if err != nil {
		t.Fatal(err)
	}
	return y
}
