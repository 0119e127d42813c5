// Package groundtest generates synthetic models and stores for grounding
// tests and benchmarks.
package groundtest

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// Transitivity builds the model
//
//	1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2
//
// over n people p0..p{n-1}, as in PSL's grounding scaling test: every person
// links to degree distinct other people chosen at random; each link is
// observed true (value 1) with probability observed and is otherwise a
// target. Pairs outside the link structure are absent (value 0). The number
// of ground potentials grows like n * degree^2 * (1 - observed^2) (a
// two-step path whose links are both observed has no target unless its
// closing link is one). Generation is deterministic in seed.
func Transitivity(n, degree int, observed float64, seed uint64) (*model.Model, *store.Store, error) {
	if n < 2 || degree < 1 || degree >= n {
		return nil, nil, fmt.Errorf("groundtest: need n >= 2 and 1 <= degree < n, got n=%d degree=%d", n, degree)
	}
	m := model.New()
	knows, err := m.AddPredicate("Knows", 2, false)
	if err != nil {
		return nil, nil, err
	}
	a, b, c := model.Var("A"), model.Var("B"), model.Var("C")
	rule := &model.Rule{
		Weight: 1, Weighted: true, Squared: true,
		Text: "1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2",
		Logical: &model.Implies{
			Body: &model.And{Args: []model.Formula{model.NewAtom(knows, a, b), model.NewAtom(knows, b, c)}},
			Head: model.NewAtom(knows, a, c),
		},
	}
	if err := m.AddRule(rule); err != nil {
		return nil, nil, err
	}
	s := store.New(m)
	rng := rand.New(rand.NewPCG(seed, 0x6b6e6f7773))
	names := make([]string, n)
	for i := range names {
		names[i] = "p" + strconv.Itoa(i)
	}
	chosen := make(map[int]bool, degree)
	for i := 0; i < n; i++ {
		clear(chosen)
		for len(chosen) < degree {
			j := rng.IntN(n - 1)
			if j >= i {
				j++ // skip self
			}
			if chosen[j] {
				continue
			}
			chosen[j] = true
			args := []string{names[i], names[j]}
			if rng.Float64() < observed {
				err = s.AddObservation(knows, args, 1)
			} else {
				err = s.AddTarget(knows, args)
			}
			if err != nil {
				return nil, nil, err
			}
		}
	}
	return m, s, nil
}
