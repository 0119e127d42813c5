package structure

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// edge is an observed atom walked from one argument to another.
type edge struct {
	from, to string
	step     Step
}

// bruteForce enumerates every simple path of observed atoms (value >= 0.5)
// from a to b for every true target atom by walking the atoms themselves,
// and returns the support of each clause text (positive head).
func bruteForce(s *store.Store, target *model.Predicate, maxLen int) map[string]int {
	edges := bruteEdges(s)
	support := map[string]int{}
	tt := s.Truth(target)
	for row := range tt.Len() {
		if tt.Value(row) < 0.5 {
			continue
		}
		args := s.Names(tt.Args(row))
		a, b := args[0], args[1]
		if a == b {
			continue // object identity: no path from a to itself
		}
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

// bruteBody counts the distinct pairs (x, y) that the steps connect
// through pairwise different constants, by enumerating the paths.
func bruteBody(edges []edge, steps []Step) int {
	pairs := map[[2]string]bool{}
	var dfs func(x string, path []string)
	dfs = func(x string, path []string) {
		d := len(path) - 1
		if d == len(steps) {
			pairs[[2]string{path[0], x}] = true
			return
		}
		for _, e := range edges {
			if e.from == x && e.step == steps[d] && !slices.Contains(path, e.to) {
				dfs(e.to, append(slices.Clone(path), e.to))
			}
		}
	}
	starts := map[string]bool{}
	for _, e := range edges {
		starts[e.from] = true
	}
	for x := range starts {
		dfs(x, []string{x})
	}
	return len(pairs)
}

// bruteConstants returns the support and body size of every rule with
// constants the true atoms of target give: t(a, b) with a step from a to
// d gives step(E1, d) -> t(E1, b), with a step from b to d step(E1, d) ->
// t(a, E1) (d neither a nor b). The body size is the number of x other
// than the head's constant with a step to d.
func bruteConstants(s *store.Store, target *model.Predicate) (support, body map[string]int) {
	edges := bruteEdges(s)
	support, body = map[string]int{}, map[string]int{}
	rules := map[string]Candidate{}
	tt := s.Truth(target)
	for row := range tt.Len() {
		args := s.Names(tt.Args(row))
		a, b := args[0], args[1]
		if tt.Value(row) < 0.5 || a == b {
			continue
		}
		found := map[string]bool{}
		for _, e := range edges {
			if e.to == a || e.to == b {
				continue
			}
			var c Candidate
			switch e.from {
			case a:
				c = Candidate{Target: target, Path: []Step{e.step}, C: b, D: e.to}
			case b:
				c = Candidate{Target: target, Path: []Step{e.step}, C: a, D: e.to, ConstFirst: true}
			default:
				continue
			}
			found[c.Text()] = true
			rules[c.Text()] = c
		}
		for k := range found {
			support[k]++
		}
	}
	for text, c := range rules {
		xs := map[string]bool{}
		for _, e := range edges {
			if e.step == c.Path[0] && e.to == c.D && e.from != c.C && e.from != c.D {
				xs[e.from] = true
			}
		}
		body[text] = len(xs)
	}
	return support, body
}

// bruteEdges lists the observed atoms (value >= 0.5) of arity >= 2 as
// edges between every ordered pair of their arguments (a symmetric binary
// predicate's step read forwards).
func bruteEdges(s *store.Store) []edge {
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
	return edges
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
				GenOptions{MaxLength: maxLen, MinSupport: -1, MaxClauses: -1, MaxGroundings: -1, Threads: 1 + int(seed%3), Constants: 1000})
			if errors.Is(err, ErrNoExamples) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(s, target, maxLen)
			wantConst, constBody := bruteConstants(s, target)
			edges := bruteEdges(s)
			got, gotConst := map[string]int{}, map[string]int{}
			for _, c := range res.Candidates {
				if c.IsPrior() || c.Negated {
					continue
				}
				if c.Sampled != 0 || c.SupportErr != 0 || c.ConfErr != 0 {
					t.Errorf("%s: a sampled count %+v of a small world", c.Text(), c)
				}
				// Body groundings and confidence: package pathrule's
				// count, against enumeration.
				body := bruteBody(edges, c.Path)
				if c.HasConstants() {
					gotConst[c.Text()] = c.Support
					body = constBody[c.Text()]
				} else {
					got[c.Text()] = c.Support
				}
				if c.Body != body || math.Abs(c.Conf-float64(c.Support)/(float64(body)+5)) > 1e-12 {
					t.Errorf("%s: body %d, confidence %g; brute force body %d", c.Text(), c.Body, c.Conf, body)
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
			if len(gotConst) != len(wantConst) || res.Constants != len(wantConst) {
				t.Errorf("%d rules with constants (%d found), brute force %d", len(gotConst), res.Constants, len(wantConst))
			}
			for k, v := range wantConst {
				if gotConst[k] != v {
					t.Errorf("%s: support %d, brute force %d", k, gotConst[k], v)
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
	if got := gc.count([]Step{{P, 0, 1}, {R, 0, 2}}, -1); got != 3 {
		t.Errorf("count %g, want 3", got)
	}
	// P alone: 2 rows above 0.
	if got := gc.count([]Step{{P, 1, 0}}, -1); got != 2 {
		t.Errorf("count %g, want 2", got)
	}
	// Ending at a constant: R(E1, Z1, 'd') has 3 rows, P('a', E1) 2, by
	// the product and by the index.
	for _, tc := range []struct {
		st   Step
		end  string
		want float64
	}{{Step{R, 0, 2}, "d", 3}, {Step{P, 1, 0}, "a", 2}, {Step{P, 0, 1}, "c", 1}, {Step{P, 0, 1}, "d", 0}} {
		id, _ := s.Dict.Lookup(tc.end)
		if got, idx := gc.count([]Step{tc.st}, id), gc.countTo(tc.st, id); got != tc.want || idx != tc.want {
			t.Errorf("%v into %s: count %g, index %g, want %g", tc.st, tc.end, got, idx, tc.want)
		}
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

// A target with more true atoms than GenOptions.Sample: the paths are
// found from a sample of them and their supports counted by pathrule from
// sampled starts. The exact support (every atom searched, every count
// exact) is within the stated 95% error for nearly every clause over many
// seeds; the best path of each run is the planted one; the result does not
// depend on the number of threads; rules with constants keep exact
// supports (counted from the constant's side).
func TestGenerateSampled(t *testing.T) {
	inside, total := 0, 0
	for seed := range uint64(5) {
		s := plantedSized(t, seed, 150, 0.03)
		T := []*model.Predicate{s.Model.Predicate("T")}
		opt := GenOptions{MaxLength: 2, MinSupport: 5, MaxClauses: 16, Constants: 10, Sample: 60, SampleErr: -1, Seed: seed, Threads: 1}
		res, err := Generate(context.Background(), s, T, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Threads = 3
		again, err := Generate(context.Background(), s, T, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(res.Candidates, again.Candidates, func(a, b Candidate) bool {
			return a.Text() == b.Text() && a.Support == b.Support && a.Body == b.Body && a.Conf == b.Conf && a.SupportErr == b.SupportErr
		}) {
			t.Fatalf("seed %d: 1 thread and 3 threads differ", seed)
		}
		exact, err := Generate(context.Background(), s, T, GenOptions{MaxLength: 2, MinSupport: 1, MaxClauses: -1, Sample: -1, MaxGroundings: -1})
		if err != nil {
			t.Fatal(err)
		}
		if res.SampledTargets != 1 || res.Examples != 60 || exact.SampledTargets != 0 || exact.Examples < 1000 {
			t.Fatalf("seed %d: %d sampled targets, %d atoms searched; exact run %d, %d", seed, res.SampledTargets, res.Examples, exact.SampledTargets, exact.Examples)
		}
		want := map[string]Candidate{}
		for _, c := range exact.Candidates {
			want[c.Text()] = c
		}
		if c := res.Candidates[1]; c.Text() != plantedClause {
			t.Errorf("seed %d: best path %s (support %d), want %s", seed, c.Text(), c.Support, plantedClause)
		}
		edges := bruteEdges(s)
		for _, c := range res.Candidates[1:] {
			if c.HasConstants() {
				support, body := constCount(s, edges, c)
				if c.Support != support || c.SupportErr != 0 || c.Body != body {
					t.Errorf("seed %d: %s: support %d, body %d; brute force %d, %d", seed, c.Text(), c.Support, c.Body, support, body)
				}
				continue
			}
			w, ok := want[c.Text()]
			switch {
			case !ok:
				t.Fatalf("seed %d: %s not found with every atom searched", seed, c.Text())
			case c.SupportErr <= 0 || c.Sampled == 0:
				t.Errorf("seed %d: %s: support %d without a stated error", seed, c.Text(), c.Support)
			default:
				total++
				if math.Abs(float64(c.Support-w.Support)) <= c.SupportErr+0.5 {
					inside++
				}
			}
		}
	}
	if total < 50 || float64(inside) < 0.9*float64(total) {
		t.Errorf("exact support within the stated error for %d of %d sampled supports", inside, total)
	}
	t.Logf("exact support within the stated error for %d of %d sampled supports", inside, total)
}

// constCount counts the support and body size of a rule with constants
// from the edges and the truth atoms.
func constCount(s *store.Store, edges []edge, c Candidate) (support, body int) {
	xs := map[string]bool{}
	for _, e := range edges {
		if e.step == c.Path[0] && e.to == c.D && e.from != c.C && e.from != c.D {
			xs[e.from] = true
		}
	}
	tt := s.Truth(c.Target)
	for x := range xs {
		args := []string{x, c.C}
		if c.ConstFirst {
			args = []string{c.C, x}
		}
		ids := make([]int32, 2)
		for i, a := range args {
			ids[i], _ = s.Dict.Lookup(a)
		}
		if row, ok := tt.Find(ids); ok && tt.Value(row) >= 0.5 {
			support++
		}
	}
	return support, len(xs)
}

// Paths longer than pathrule walks (MaxLength 4 to 6): generated with
// exact supports, no body count, no panic; on a sampled target their
// support is the sample's own estimate, with its interval.
func TestGenerateLongPaths(t *testing.T) {
	s := plantedSized(t, 1, 60, 0.04)
	T := []*model.Predicate{s.Model.Predicate("T")}
	exact, err := Generate(context.Background(), s, T, GenOptions{MaxLength: 4, MinSupport: 2, MaxClauses: -1, Sample: -1})
	if err != nil {
		t.Fatal(err)
	}
	sampled, err := Generate(context.Background(), s, T, GenOptions{MaxLength: 4, MinSupport: 2, MaxClauses: 40, Sample: 30})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	long := 0
	for _, c := range exact.Candidates {
		want[c.Text()] = c.Support
		if len(c.Path) == 4 {
			long++
			if c.Body != 0 || c.Conf != 0 || c.SupportErr != 0 {
				t.Errorf("%s: %+v", c.Text(), c)
			}
		}
	}
	if long == 0 || sampled.SampledTargets != 1 {
		t.Fatalf("%d paths of 4 steps, %d sampled targets", long, sampled.SampledTargets)
	}
	longSampled := 0
	for _, c := range sampled.Candidates[1:] {
		if len(c.Path) != 4 {
			continue
		}
		longSampled++
		if c.SupportErr <= 0 || math.Abs(float64(c.Support-want[c.Text()])) > 3*c.SupportErr {
			t.Errorf("%s: support %d +- %.1f, exact %d", c.Text(), c.Support, c.SupportErr, want[c.Text()])
		}
	}
	if longSampled == 0 {
		t.Errorf("no path of 4 steps kept from the sample")
	}
}
