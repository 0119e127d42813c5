// Package groundtest generates synthetic models and stores for grounding
// tests and benchmarks.
package groundtest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hinge-srl/hinge/internal/atomicfile"
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

// WritePSL writes a model and store made by Transitivity as PSL files in
// dir (created if needed): transitivity.psl, transitivity.data,
// knows_obs.txt and knows_targets.txt, so that hinge can be run on them.
// Each file is written atomically.
func WritePSL(dir string, m *model.Model, s *store.Store) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]func(w io.Writer) error{
		"transitivity.psl": func(w io.Writer) error { _, err := fmt.Fprintln(w, m.Rules[0].Text); return err },
		"transitivity.data": func(w io.Writer) error {
			_, err := fmt.Fprint(w, "predicates:\n  Knows/2: open\nobservations:\n  Knows: knows_obs.txt\ntargets:\n  Knows: knows_targets.txt\n")
			return err
		},
	}
	t := s.Table(m.Predicate("Knows"))
	for _, kind := range []store.Kind{store.Observed, store.Target} {
		name := "knows_obs.txt"
		if kind == store.Target {
			name = "knows_targets.txt"
		}
		files[name] = func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<16)
			for r := range t.Len() {
				if t.Kind(r) != kind {
					continue
				}
				args := s.Names(t.Args(r))
				if kind == store.Observed {
					fmt.Fprintf(bw, "%s\t%s\t%v\n", args[0], args[1], t.Value(r))
				} else {
					fmt.Fprintf(bw, "%s\t%s\n", args[0], args[1])
				}
			}
			return bw.Flush()
		}
	}
	for name, write := range files {
		if err := atomicfile.Write(filepath.Join(dir, name), write); err != nil {
			return err
		}
	}
	return nil
}
