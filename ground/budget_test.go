package ground_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// budgetCase builds a model from rules over predicates declared as
// name/arity/closed, and fills the store with fill.
type budgetCase struct {
	name    string
	preds   []string // "A/1/closed", "R/2/open"
	rules   string
	fill    func(t *testing.T, m *model.Model, s *store.Store)
	limit   int64
	counted bool   // refused while grounding (not by the estimate)
	cause   string // substring of the message; "" when grounding succeeds
	pots    int    // potentials grounded when it succeeds
}

func obs(t *testing.T, s *store.Store, p *model.Predicate, args ...string) {
	t.Helper()
	if err := s.AddObservation(p, args, 1); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryLimit(t *testing.T) {
	const n = 10000
	vars := make([]string, 50)
	for i := range vars {
		vars[i] = fmt.Sprintf("A(X%d)", i)
	}
	cases := []budgetCase{
		{
			// Every A is a target: each of the 10^8 groundings has an
			// unknown atom and would be kept.
			name:  "cross product of 10^4 x 10^4",
			preds: []string{"A/1/open", "B/1/closed", "C/2/open"},
			rules: "1: A(X) & B(Y) -> C(X, Y)\n",
			fill: func(t *testing.T, m *model.Model, s *store.Store) {
				for i := range n {
					if err := s.AddTarget(m.Predicate("A"), []string{fmt.Sprint("a", i)}); err != nil {
						t.Fatal(err)
					}
					obs(t, s, m.Predicate("B"), fmt.Sprint("b", i))
				}
			},
			limit: 256 << 20,
			cause: "A and B share no variable: a cross product of 10,000 x 10,000",
		},
		{
			// All of A and B observed and one target: the join enumerates
			// 9*10^6 substitutions (more than the limit holds) but keeps
			// one potential, so it is not refused.
			name:  "observed cross product with one target",
			preds: []string{"A/1/closed", "B/1/closed", "C/2/open"},
			rules: "1: A(X) & B(Y) -> C(X, Y)\n",
			fill: func(t *testing.T, m *model.Model, s *store.Store) {
				for i := range 3000 {
					obs(t, s, m.Predicate("A"), fmt.Sprint("a", i))
					obs(t, s, m.Predicate("B"), fmt.Sprint("b", i))
				}
				if err := s.AddTarget(m.Predicate("C"), []string{"a1", "b2"}); err != nil {
					t.Fatal(err)
				}
			},
			limit: 64 << 20,
			pots:  1,
		},
		{
			name:  "50-variable rule",
			preds: []string{"A/1/closed", "C/1/open"},
			rules: "1: " + strings.Join(vars, " & ") + " -> C(X0)\n",
			fill: func(t *testing.T, m *model.Model, s *store.Store) {
				for i := range 10 {
					obs(t, s, m.Predicate("A"), fmt.Sprint("a", i))
				}
			},
			limit: 256 << 20,
			cause: "A, A, A, A, A and 45 more atoms share no variable",
		},
		{
			// A hub: the mean group of R by its first argument is 1.5, but
			// every spoke reaches all 2,000 spokes through the hub, so the
			// estimate passes and the running count stops the rule.
			name:  "skewed join caught while grounding",
			preds: []string{"R/2/open"},
			rules: "1: R(X, Y) & R(Y, Z) -> R(X, Z)\n",
			fill: func(t *testing.T, m *model.Model, s *store.Store) {
				r := m.Predicate("R")
				for i := range 2000 {
					for _, args := range [][]string{{"h", fmt.Sprint("n", i)}, {fmt.Sprint("n", i), "h"}, {fmt.Sprint("p", i), fmt.Sprint("q", i)}} {
						if err := s.AddTarget(r, args); err != nil {
							t.Fatal(err)
						}
					}
				}
			},
			limit:   64 << 20,
			counted: true,
		},
		{
			name:  "small join fits",
			preds: []string{"A/1/closed", "B/1/closed", "C/2/open"},
			rules: "1: A(X) & B(Y) -> C(X, Y)\n",
			fill: func(t *testing.T, m *model.Model, s *store.Store) {
				for i := range 100 {
					obs(t, s, m.Predicate("A"), fmt.Sprint("a", i))
					obs(t, s, m.Predicate("B"), fmt.Sprint("b", i))
					if err := s.AddTarget(m.Predicate("C"), []string{fmt.Sprint("a", i), fmt.Sprint("b", i)}); err != nil {
						t.Fatal(err)
					}
				}
			},
			limit: 64 << 20,
			pots:  100,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := model.New()
			for _, d := range c.preds {
				parts := strings.Split(d, "/")
				if _, err := m.AddPredicate(parts[0], int(parts[1][0]-'0'), parts[2] == "closed"); err != nil {
					t.Fatal(err)
				}
			}
			if err := syntax.ParseModel("model.psl", []byte(c.rules), m); err != nil {
				t.Fatal(err)
			}
			s := store.New(m)
			c.fill(t, m, s)
			var estimates []ground.Estimate
			res, err := ground.Ground(m, s, ground.Options{MemoryLimit: c.limit, Threads: 2,
				Estimate: func(_ *model.Rule, e ground.Estimate) { estimates = append(estimates, e) }})
			if len(estimates) != 1 {
				t.Fatalf("%d estimates, want 1", len(estimates))
			}
			if c.cause == "" && !c.counted {
				if err != nil {
					t.Fatalf("grounding failed: %v", err)
				}
				if res.Problem.NumPotentials() != c.pots { // one per target: the rest have no variable
					t.Errorf("%d potentials, want %d", res.Problem.NumPotentials(), c.pots)
				}
				if e := estimates[0]; e.Emitted > e.Groundings || e.Groundings > 1e6 && e.Emitted > 10*float64(c.pots) {
					t.Errorf("estimate kept %g of %g enumerated, grounded %d", e.Emitted, e.Groundings, c.pots)
				}
				return
			}
			var me *ground.MemoryError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a *MemoryError", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "model.psl:1:1: rule ") || !strings.Contains(msg, "exceed the memory limit of") {
				t.Errorf("message %q does not name the rule and the limit", msg)
			}
			if me.Counted != c.counted || !strings.Contains(msg, c.cause) {
				t.Errorf("counted %v, message %q; want counted %v and %q", me.Counted, msg, c.counted, c.cause)
			}
			if cross := strings.Contains(c.cause, "share no variable"); me.CrossProduct != cross {
				t.Errorf("CrossProduct %v, want %v", me.CrossProduct, cross)
			}
		})
	}
}

// TestEstimateNoLimit: without a limit nothing is refused and the estimate
// of a plain join is close to what it grounds.
func TestEstimateNoLimit(t *testing.T) {
	m := model.New()
	a, _ := m.AddPredicate("A", 1, true)
	c, _ := m.AddPredicate("C", 2, false)
	if err := syntax.ParseModel("m.psl", []byte("1: A(X) & A(Y) -> C(X, Y)\n"), m); err != nil {
		t.Fatal(err)
	}
	s := store.New(m)
	for i := range 30 {
		obs(t, s, a, fmt.Sprint(i))
		for j := range 30 {
			if err := s.AddTarget(c, []string{fmt.Sprint(i), fmt.Sprint(j)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var est ground.Estimate
	res, err := ground.Ground(m, s, ground.Options{Estimate: func(_ *model.Rule, e ground.Estimate) { est = e }})
	if err != nil {
		t.Fatal(err)
	}
	if est.Groundings != 900 || res.Problem.NumPotentials() != 900 {
		t.Errorf("estimate %v, grounded %d; want 900", est.Groundings, res.Problem.NumPotentials())
	}
}
