package explain

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/kgc"
)

// kgcFixture learns rules from the example graph.
func kgcFixture(t *testing.T) (*kgc.Graph, *kgc.Vocab, []kgc.Rule, []kgc.Triple, []kgc.Triple) {
	t.Helper()
	v := kgc.NewVocab()
	read := func(name string) []kgc.Triple {
		ts, err := kgc.ReadTriples(context.Background(), "../examples/kgc/"+name, v)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	train, test := read("train.txt"), read("test.txt")
	g := kgc.NewGraph(train, len(v.Entities), len(v.Relations))
	lr, err := kgc.Learn(context.Background(), g, kgc.LearnOptions{Rounds: 2, Seed: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g, v, lr.Rules, train, test
}

// adjacency is the graph rebuilt from the triples (not pathrule's index):
// by entity, relation and direction, its neighbours.
type adjacency map[[3]int32][]int32

func newAdjacency(ts []kgc.Triple) adjacency {
	a := adjacency{}
	seen := map[kgc.Triple]bool{}
	for _, t := range ts {
		if seen[t] {
			continue
		}
		seen[t] = true
		a[[3]int32{t.H, t.R, 0}] = append(a[[3]int32{t.H, t.R, 0}], t.T)
		a[[3]int32{t.T, t.R, 1}] = append(a[[3]int32{t.T, t.R, 1}], t.H)
	}
	return a
}

func (a adjacency) step(e int32, st kgc.Step) []int32 {
	d := int32(0)
	if st.Inverse {
		d = 1
	}
	return a[[3]int32{e, st.R, d}]
}

// oracleGroundings counts the body groundings of rule that predict y for
// the query (e, r, ?) (tail) or (?, r, e), from the rule kinds' definitions
// (package kgc's documentation) over the adjacency.
func oracleGroundings(a adjacency, rule *kgc.Rule, e int32, tail bool, y int32) int {
	switch rule.Kind {
	case kgc.Cyclic:
		x, z := e, y
		if !tail {
			x, z = y, e
		}
		n := 0
		var walk func(i int, path []int32)
		walk = func(i int, path []int32) {
			if i == len(rule.Body) {
				if path[len(path)-1] == z {
					n++
				}
				return
			}
			for _, b := range a.step(path[len(path)-1], rule.Body[i]) {
				if !slices.Contains(path, b) {
					walk(i+1, append(path, b))
				}
			}
		}
		walk(0, []int32{x})
		return n
	case kgc.AcyclicConst:
		if tail == rule.ConstTail {
			if y != rule.C || e == rule.C || e == rule.D || !slices.Contains(a.step(e, rule.Body[0]), rule.D) {
				return 0
			}
			return 1
		}
		if e != rule.C || y == rule.C || y == rule.D || !slices.Contains(a.step(y, rule.Body[0]), rule.D) {
			return 0
		}
		return 1
	case kgc.AcyclicAny:
		if tail != rule.ConstTail || y != rule.C || e == rule.C {
			return 0
		}
		n := 0
		for _, b := range a.step(e, rule.Body[0]) {
			if b != e && b != rule.C {
				n++
			}
		}
		return n
	case kgc.Default:
		if tail != rule.ConstTail || y != rule.C || e == rule.C {
			return 0
		}
		return 1
	}
	panic("unknown rule kind")
}

// TestKGCScoreReproduced checks, for every candidate of both queries of
// the example's test triples under each scoring: the explanation's score,
// combined from the rules it lists, equals the ranker's score; the rules
// listed are exactly those whose body holds for the candidate by the
// oracle; each rule's groundings are as many as the oracle counts, and each
// listed one holds in the graph.
func TestKGCScoreReproduced(t *testing.T) {
	g, v, rules, train, test := kgcFixture(t)
	adj := newAdjacency(train)
	has := map[kgc.Triple]bool{}
	for _, tr := range train {
		has[tr] = true
	}
	// The oracle's answers, by query and candidate: the rules predicting
	// it and their groundings (scoring does not change them).
	type key struct {
		e, r, y int32
		tail    bool
	}
	oracle := map[key]map[string]int{}
	byHead := map[int32][]*kgc.Rule{}
	for k := range rules {
		byHead[rules[k].Head] = append(byHead[rules[k].Head], &rules[k])
	}
	oracleOf := func(e, r int32, tail bool, y int32) map[string]int {
		k := key{e, r, y, tail}
		if m, ok := oracle[k]; ok {
			return m
		}
		m := map[string]int{}
		for _, rule := range byHead[r] {
			if n := oracleGroundings(adj, rule, e, tail, y); n > 0 {
				m[fmt.Sprintf("%s %v", rule.Format(v), rule.Conf)] = n
			}
		}
		oracle[k] = m
		return m
	}
	checked := 0
	for _, sc := range []struct {
		s        kgc.Scoring
		k        int
		repeated bool
		conf     kgc.Confidence
	}{{kgc.MaxPlus, 0, false, kgc.PointConfidence}, {kgc.Max, 0, false, kgc.PointConfidence}, {kgc.NoisyOr, kgc.DefaultNoisyOrK, true, kgc.PointConfidence},
		{kgc.NoisyOr, 2, true, kgc.PointConfidence}, {kgc.NoisyOr, kgc.DefaultNoisyOrK, false, kgc.PointConfidence},
		{kgc.MaxPlus, 0, false, kgc.LowerConfidence}, {kgc.NoisyOr, kgc.DefaultNoisyOrK, true, kgc.LowerConfidence},
		{kgc.Learned, kgc.DefaultNoisyOrK, false, kgc.PointConfidence}, {kgc.Learned, 2, false, kgc.LowerConfidence}} {
		rk := kgc.NewRanker(g, rules, sc.s)
		rk.RepeatedSets = sc.repeated
		rk.SetConfidence(sc.conf) // the explanation combines the confidences ranked with
		if sc.k > 0 {
			rk.NoisyOrK = sc.k
		}
		if sc.s == kgc.Learned {
			// Weights fitted on the test triples (any will do), every
			// candidate re-weighed.
			if _, err := rk.FitWeights(context.Background(), test, g.Has, kgc.LearnedOptions{MaxValid: -1, TopK: g.NumEntities}); err != nil || !rk.Fitted() {
				t.Fatal(err)
			}
		}
		x := &KGC{Graph: g, Vocab: v, Ranker: rk, MaxGroundings: 1000}
		for _, tr := range test[:6] {
			for _, q := range []struct {
				e    int32
				tail bool
			}{{tr.H, true}, {tr.T, false}} {
				cands := rk.Rank(q.e, tr.R, q.tail, 0)
				ids := make([]int32, len(cands))
				for i, c := range cands {
					ids[i] = c.Entity
				}
				for i, qx := range x.ExplainQuery(q.e, tr.R, q.tail, ids) {
					y := cands[i].Entity
					if !qx.Predicted || qx.Score != cands[i].Score {
						t.Fatalf("%s %s %s: explanation scores %v, the ranker %v", sc.s, qx.Query, qx.Candidate, qx.Score, cands[i].Score)
					}
					if !slices.IsSortedFunc(qx.Confs, func(a, b float64) int { return int(b*1e9) - int(a*1e9) }) || qx.RuleCount != len(qx.Rules) {
						t.Fatalf("%s: confidences %v not decreasing, or rules cut", qx.Candidate, qx.Confs)
					}
					// Under learned each rule shows its weight (0 past
					// the first k), under the others none.
					for j, r := range qx.Rules {
						if (r.Weight != nil) != (sc.s == kgc.Learned) || (r.Weight != nil && j >= sc.k && *r.Weight != 0) {
							t.Fatalf("%s %s: rule %d %s weighs %v (k %d)", sc.s, qx.Candidate, j, r.Rule, r.Weight, sc.k)
						}
					}
					if (sc.s == kgc.NoisyOr || sc.s == kgc.Learned) && !sc.repeated {
						// The rules listed are those that count: a rule
						// repeating a more confident one's predictions
						// for the query is left out (the score above
						// checks the combination).
						continue
					}
					// The rules the oracle says predict y.
					want := oracleOf(q.e, tr.R, q.tail, y)
					if len(qx.Rules) != len(want) {
						t.Fatalf("%s %s: %d rules, the oracle has %d", qx.Query, qx.Candidate, len(qx.Rules), len(want))
					}
					for j, r := range qx.Rules {
						// The confidence ranked with is listed where it is
						// not the point one, and is what was combined.
						ranked := r.Conf
						if r.RankConf != nil {
							ranked = *r.RankConf
						}
						if (r.RankConf != nil) != (sc.conf == kgc.LowerConfidence) || ranked != qx.Confs[j] {
							t.Fatalf("%s %s: rule %s conf %v, ranked with %v, combined %v", qx.Query, qx.Candidate, r.Rule, r.Conf, r.RankConf, qx.Confs[j])
						}
						n, ok := want[fmt.Sprintf("%s %v", r.Rule, r.Conf)]
						if !ok {
							t.Fatalf("%s %s: rule %s does not predict it by the oracle", qx.Query, qx.Candidate, r.Rule)
						}
						if r.Found != min(n, groundingCount) || len(r.Groundings) != min(n, 1000) {
							t.Fatalf("%s: %d groundings found (%d listed), the oracle counts %d", r.Rule, r.Found, len(r.Groundings), n)
						}
						for _, gr := range r.Groundings {
							for _, atom := range gr {
								a, err := ParseAtom(atom)
								if err != nil {
									t.Fatal(err)
								}
								tri, err := FindTriple(v, a)
								if err != nil || !has[tri] {
									t.Fatalf("%s: grounding atom %s is not a triple of the graph (%v)", r.Rule, atom, err)
								}
							}
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d candidates checked", checked)
	}
}

// TestKGCExplainTriple checks the explanation of a triple both ways, the
// top-k cut of its rules and its text.
func TestKGCExplainTriple(t *testing.T) {
	g, v, rules, _, test := kgcFixture(t)
	rk := kgc.NewRanker(g, rules, kgc.NoisyOr)
	full := explainTriple(t, &KGC{Graph: g, Vocab: v, Ranker: rk}, test[0])
	cut := explainTriple(t, &KGC{Graph: g, Vocab: v, Ranker: rk, Top: 2}, test[0])
	if len(full.Queries) != 2 || !full.Queries[0].Tail || full.Queries[1].Tail || full.NoisyOrK != kgc.DefaultNoisyOrK {
		t.Fatalf("%+v", full)
	}
	for i, q := range cut.Queries {
		if !q.Predicted || len(q.Rules) != min(2, q.RuleCount) || q.Score != full.Queries[i].Score || !slices.Equal(q.Confs, full.Queries[i].Confs) {
			t.Fatalf("cut %+v\nfull %+v", q, full.Queries[i])
		}
	}
	var buf bytes.Buffer
	if err := cut.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "most confident shown") || !strings.Contains(buf.String(), full.Atom) {
		t.Fatalf("text:\n%s", buf.String())
	}
	// A triple no rule predicts.
	none := explainTriple(t, &KGC{Graph: g, Vocab: v, Ranker: rk}, kgc.Triple{H: test[0].H, R: test[0].R, T: test[0].H})
	if none.Queries[0].Predicted || none.Queries[0].Score != 0 || none.Queries[0].Rank != 0 {
		t.Fatalf("a triple of an entity with itself is predicted: %+v", none.Queries[0])
	}
}

func explainTriple(t *testing.T, k *KGC, tr kgc.Triple) *KGCExplanation {
	t.Helper()
	x, err := k.Explain(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// An explained triple's rank is the filtered rank Evaluate gives it (for
// every test triple, both ways, under each scoring an explanation
// serves), the candidates above it are those of Evaluate's list before
// it, and the text says both.
func TestKGCExplainRank(t *testing.T) {
	g, v, rules, train, test := kgcFixture(t)
	known := map[kgc.Triple]bool{}
	for _, ts := range [][]kgc.Triple{train, test} {
		for _, tr := range ts {
			known[tr] = true
		}
	}
	isKnown := func(tr kgc.Triple) bool { return known[tr] }
	checked := 0
	for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.MaxPlus, kgc.Max} {
		rk := kgc.NewRanker(g, rules, s)
		ev, err := rk.Evaluate(context.Background(), test, isKnown, kgc.EvalOptions{TopK: 1000, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		k := &KGC{Graph: g, Vocab: v, Ranker: rk, Known: isKnown, AboveShown: 1000}
		for i, tr := range test {
			x := explainTriple(t, k, tr)
			for j, a := range []kgc.Answer{ev.Tails[i], ev.Heads[i]} {
				q := x.Queries[j]
				if q.Rank != a.Rank {
					t.Fatalf("%s, %v %s: explained rank %g, Evaluate's %g", s, tr, q.Query, q.Rank, a.Rank)
				}
				if a.Rank == 0 {
					continue
				}
				checked++
				truth := tr.T
				if j == 1 {
					truth = tr.H
				}
				var above []string
				var at float64
				for _, c := range a.List {
					if c.Entity == truth {
						at = c.Score
						break
					}
					above = append(above, v.Entities[c.Entity])
				}
				got := make([]string, len(q.Above))
				for n, c := range q.Above {
					got[n] = c.Candidate
				}
				// Candidates tied with the answer (at the end of those listed
				// before it) are not above it: under max, ties are equal
				// scores; under the others, equal scores may still differ
				// in their next confidences, so only a prefix is checked.
				if s == kgc.Max {
					for len(above) > 0 && a.List[len(above)-1].Score == at {
						above = above[:len(above)-1]
					}
				}
				if q.AboveCount != len(q.Above) || len(got) > len(above) || !slices.Equal(got, above[:len(got)]) ||
					(s == kgc.Max && len(got) != len(above)) || q.Rank < 1+float64(q.AboveCount) {
					t.Fatalf("%s, %v %s: above %v (count %d, rank %g), Evaluate's list before it %v", s, tr, q.Query, got, q.AboveCount, q.Rank, above)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d ranked answers checked", checked)
	}
	rk := kgc.NewRanker(g, rules, kgc.NoisyOr)
	x := explainTriple(t, &KGC{Graph: g, Vocab: v, Ranker: rk, Known: isKnown, AboveShown: 2}, test[0])
	var buf bytes.Buffer
	if err := x.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, q := range x.Queries {
		if q.Rank == 0 {
			continue
		}
		want := rankText(q.Rank, q.Tied) + " (known answers left out)" + aboveText(q.Above, q.AboveCount)
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestRankText(t *testing.T) {
	for r, want := range map[float64]string{1: "ranked 1st", 2: "ranked 2nd", 3: "ranked 3rd", 4: "ranked 4th", 11: "ranked 11th",
		12: "ranked 12th", 13: "ranked 13th", 21: "ranked 21st", 102: "ranked 102nd", 111: "ranked 111th"} {
		if got := rankText(r, 0); got != want {
			t.Errorf("rankText(%g) = %q, want %q", r, got, want)
		}
	}
	if got := rankText(2.5, 1); got != "ranked 2.5, tied with 1 other" {
		t.Errorf("rankText(2.5, 1) = %q", got)
	}
	if got := rankText(2, 2); got != "ranked 2nd, tied with 2 others" {
		t.Errorf("rankText(2, 2) = %q", got)
	}
	if got := aboveText([]KGCCandidate{{"a", 0.9}, {"b", 0.85}}, 5); got != "; above it: a (0.9), b (0.85) and 3 more" {
		t.Errorf("aboveText: %q", got)
	}
}

// Under learned scoring an explained triple's score is the ranker's,
// inside the re-weighed first candidates (the weighted sum) and below
// them (the noisy-or); before the weights are fitted it is noisy-or's.
func TestKGCExplainLearnedScore(t *testing.T) {
	g, v, rules, _, test := kgcFixture(t)
	for _, fit := range []bool{false, true} {
		rk := kgc.NewRanker(g, rules, kgc.Learned)
		if fit {
			if _, err := rk.FitWeights(context.Background(), test, g.Has, kgc.LearnedOptions{MaxValid: -1, TopK: 2}); err != nil {
				t.Fatal(err)
			}
		}
		below := 0
		for _, tr := range test {
			x := explainTriple(t, &KGC{Graph: g, Vocab: v, Ranker: rk}, tr)
			for _, q := range x.Queries {
				e, y := tr.H, tr.T
				if !q.Tail {
					e, y = tr.T, tr.H
				}
				list := rk.Rank(e, tr.R, q.Tail, 0)
				j := slices.IndexFunc(list, func(c kgc.Candidate) bool { return c.Entity == y })
				if j < 0 {
					continue
				}
				if q.Score != list[j].Score {
					t.Fatalf("fitted %v, %s %s: explanation scores %v, the ranker %v (place %d)", fit, q.Query, q.Candidate, q.Score, list[j].Score, j+1)
				}
				if j >= 2 {
					below++
				}
			}
		}
		if fit && below == 0 {
			t.Fatal("no explained answer below the re-weighed candidates: the test shows nothing")
		}
	}
}
