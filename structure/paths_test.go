package structure

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// atom is a test atom: predicate name, arguments, value.
type atom struct {
	pred string
	args []string
	v    float64
}

// world builds a model and store: preds maps name to arity (the target
// predicates open, the others closed); obs are observations, targets get
// truth values.
func world(t testing.TB, preds map[string]int, open []string, obs, targets []atom) *store.Store {
	t.Helper()
	m := model.New()
	names := make([]string, 0, len(preds))
	for n := range preds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := m.AddPredicate(n, preds[n], !slices.Contains(open, n)); err != nil {
			t.Fatal(err)
		}
	}
	s := store.New(m)
	for _, a := range obs {
		if err := s.AddObservation(m.Predicate(a.pred), a.args, a.v); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range targets {
		p := m.Predicate(a.pred)
		if err := s.AddTarget(p, a.args); err != nil {
			t.Fatal(err)
		}
		if err := s.AddTruth(p, a.args, a.v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func clauseTexts(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Text())
	}
	return out
}

// The paper's example 1: CITES(Paper1, Paper2), MENTIONS(Paper2, Gene),
// target MENTIONS(Paper1, Gene).
func TestGeneratePaperExample1(t *testing.T) {
	s := world(t, map[string]int{"Cites": 2, "Mentions": 2}, []string{"Mentions"},
		[]atom{{"Cites", []string{"Paper1", "Paper2"}, 1}, {"Mentions", []string{"Paper2", "Gene"}, 1}},
		[]atom{{"Mentions", []string{"Paper1", "Gene"}, 1}})
	res, err := Generate(context.Background(), s, []*model.Predicate{s.Model.Predicate("Mentions")}, GenOptions{MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"!Mentions(A, B)",
		"Cites(E1, E2) & Mentions(E2, E3) -> Mentions(E1, E3)",
		"Cites(E1, E2) & Mentions(E2, E3) -> !Mentions(E1, E3)",
	}
	if got := clauseTexts(res.Candidates); !slices.Equal(got, want) {
		t.Errorf("candidates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Candidates[1].Support != 1 || res.Paths != 1 || res.Examples != 1 {
		t.Errorf("support %d, paths %d, examples %d; want 1, 1, 1", res.Candidates[1].Support, res.Paths, res.Examples)
	}
	// 1 substitution of the body: Cites(Paper1, Paper2), Mentions(Paper2, Gene).
	if g := res.Candidates[1].Groundings; g != 1 {
		t.Errorf("groundings %g, want 1", g)
	}
}

// bruteForce enumerates every simple path of observed atoms (value >= 0.5)
// from a to b for every true target atom by walking the atoms themselves,
// and returns the support of each clause text (positive head).
func bruteForce(s *store.Store, target *model.Predicate, maxLen int) map[string]int {
	type edge struct {
		from, to string
		step     Step
	}
	m := s.Model
	sym := map[*model.Predicate]bool{}
	for _, p := range m.Predicates {
		if p.Arity == 2 {
			sym[p] = symmetric(s.Table(p))
		}
	}
	var edges []edge
	for _, p := range m.Predicates {
		t := s.Table(p)
		for row := range t.Len() {
			if t.Kind(row) != store.Observed || t.Value(row) < 0.5 {
				continue
			}
			args := s.Names(t.Args(row))
			for i := range p.Arity {
				for j := range p.Arity {
					if i == j {
						continue
					}
					st := Step{p, i, j}
					if sym[p] && i == 1 {
						st = Step{p, 0, 1}
					}
					edges = append(edges, edge{args[i], args[j], st})
				}
			}
		}
	}
	support := map[string]int{}
	tt := s.Truth(target)
	for row := range tt.Len() {
		if tt.Value(row) < 0.5 {
			continue
		}
		args := s.Names(tt.Args(row))
		a, b := args[0], args[1]
		found := map[string]bool{}
		var path []Step
		onPath := map[string]bool{a: true}
		var dfs func(x string)
		dfs = func(x string) {
			if len(path) == maxLen {
				return
			}
			for _, e := range edges {
				if e.from != x {
					continue
				}
				if e.to == b {
					if len(path) == 0 && e.step == (Step{target, 0, 1}) {
						continue
					}
					c := Candidate{Target: target, Path: append(slices.Clone(path), e.step)}
					found[c.Text()] = true
					continue
				}
				if onPath[e.to] {
					continue
				}
				onPath[e.to] = true
				path = append(path, e.step)
				dfs(e.to)
				path = path[:len(path)-1]
				onPath[e.to] = false
			}
		}
		dfs(a)
		for k := range found {
			support[k]++
		}
	}
	return support
}

func TestGenerateMatchesBruteForce(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			n := 4 + r.IntN(5)
			c := func() string { return fmt.Sprintf("c%d", r.IntN(n)) }
			preds := map[string]int{"P": 2, "Q": 2, "R": 3, "T": 2, "U": 1}
			var obs, tg []atom
			seen := map[string]bool{}
			add := func(list *[]atom, a atom) {
				k := a.pred + strings.Join(a.args, ",")
				if !seen[k] {
					seen[k] = true
					*list = append(*list, a)
				}
			}
			for range 3 + r.IntN(12) {
				add(&obs, atom{"P", []string{c(), c()}, float64(r.IntN(3)) / 2})
			}
			// Q symmetric in some worlds.
			for range 2 + r.IntN(6) {
				x, y := c(), c()
				add(&obs, atom{"Q", []string{x, y}, 1})
				if seed%2 == 0 {
					add(&obs, atom{"Q", []string{y, x}, 1})
				}
			}
			for range 2 + r.IntN(5) {
				add(&obs, atom{"R", []string{c(), c(), c()}, 1})
			}
			add(&obs, atom{"U", []string{c()}, 1})
			for range 2 + r.IntN(4) {
				add(&obs, atom{"T", []string{c(), c()}, 1})
			}
			for range 3 + r.IntN(8) {
				add(&tg, atom{"T", []string{c(), c()}, float64(r.IntN(2))})
			}
			s := world(t, preds, []string{"T"}, obs, tg)
			target := s.Model.Predicate("T")
			maxLen := 1 + int(seed%3)
			res, err := Generate(context.Background(), s, []*model.Predicate{target},
				GenOptions{MaxLength: maxLen, MinSupport: -1, MaxClauses: -1, MaxGroundings: -1, Threads: 1 + int(seed%3)})
			if errors.Is(err, ErrNoExamples) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(s, target, maxLen)
			got := map[string]int{}
			for _, c := range res.Candidates {
				if !c.IsPrior() && !c.Negated {
					got[c.Text()] = c.Support
				}
			}
			if len(got) != len(want) || res.Paths != len(want) {
				t.Errorf("%d clauses (%d paths), brute force %d", len(got), res.Paths, len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: support %d, brute force %d", k, got[k], v)
				}
			}
			// Every clause is followed by its negation.
			for i, c := range res.Candidates[1:] {
				if c.Negated != (i%2 == 1) {
					t.Fatalf("candidate %d (%s): negation out of order", i+1, c.Text())
				}
			}
		})
	}
}

func errorsIsNoExamples(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrNoExamples.Error())
}

// The ground count of a clause body against a hand count, with a ternary
// step whose other argument is a fresh variable.
func TestGroundCounter(t *testing.T) {
	s := world(t, map[string]int{"P": 2, "R": 3, "T": 2}, []string{"T"},
		[]atom{
			{"P", []string{"a", "b"}, 1}, {"P", []string{"a", "c"}, 0.3}, {"P", []string{"b", "c"}, 0},
			{"R", []string{"b", "x", "d"}, 1}, {"R", []string{"b", "y", "d"}, 1}, {"R", []string{"c", "x", "d"}, 1},
		},
		[]atom{{"T", []string{"a", "d"}, 1}})
	P, R := s.Model.Predicate("P"), s.Model.Predicate("R")
	gc := newGroundCounter(s)
	// P(E1, E2) & R(E2, Z1, E3): a-b-d twice (x, y), a-c-d once; P(b, c) = 0 is not a row.
	if got := gc.count([]Step{{P, 0, 1}, {R, 0, 2}}); got != 3 {
		t.Errorf("count %g, want 3", got)
	}
	// P alone: 2 rows above 0.
	if got := gc.count([]Step{{P, 1, 0}}); got != 2 {
		t.Errorf("count %g, want 2", got)
	}
}

func TestGenerateErrors(t *testing.T) {
	s := world(t, map[string]int{"P": 2, "T": 2, "V": 3}, []string{"T", "V"},
		[]atom{{"P", []string{"a", "b"}, 1}},
		[]atom{{"T", []string{"a", "b"}, 0}, {"V", []string{"a", "b", "c"}, 1}})
	m := s.Model
	for _, tc := range []struct {
		targets []*model.Predicate
		opt     GenOptions
		want    string
	}{
		{[]*model.Predicate{m.Predicate("T")}, GenOptions{}, "no true target atoms"},
		{[]*model.Predicate{m.Predicate("V")}, GenOptions{}, "binary target predicates only"},
		{nil, GenOptions{}, "no target predicates"},
		{[]*model.Predicate{m.Predicate("T")}, GenOptions{MaxLength: 9}, "between 1 and 6"},
	} {
		_, err := Generate(context.Background(), s, tc.targets, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.targets, err, tc.want)
		}
	}
}

func TestMaxClausesAndSupport(t *testing.T) {
	s := planted(t, 4)
	T := []*model.Predicate{s.Model.Predicate("T")}
	all, err := Generate(context.Background(), s, T, GenOptions{MaxLength: 2, MinSupport: 1, MaxClauses: -1})
	if err != nil {
		t.Fatal(err)
	}
	some, err := Generate(context.Background(), s, T, GenOptions{MaxLength: 2, MinSupport: 3, MaxClauses: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(some.Candidates) != 7 {
		t.Fatalf("%d candidates, want the prior and 6 clauses", len(some.Candidates))
	}
	// The kept clauses are the best supported of all, in order.
	for i, c := range some.Candidates[1:] {
		if c.Support < 3 || c.Text() != all.Candidates[1+i].Text() {
			t.Errorf("clause %d: %s (support %d), want %s", i, c.Text(), c.Support, all.Candidates[1+i].Text())
		}
	}
}
