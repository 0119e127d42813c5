package kgc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/pathrule"
)

func randomGraph(seed uint64, n, rels, m int) *Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	var ts []Triple
	for range m {
		ts = append(ts, Triple{H: int32(r.IntN(n)), R: int32(r.IntN(rels)), T: int32(r.IntN(n))})
	}
	return NewGraph(ts, n, rels)
}

// bruteCount enumerates the body groundings of a rule over all entities
// with object identity (all entities of a grounding distinct).
func bruteCount(g *Graph, r *Rule) (support, body int) {
	n := int32(g.NumEntities)
	holds := func(st Step, a, b int32) bool {
		if st.Inverse {
			return g.Has(Triple{H: b, R: st.R, T: a})
		}
		return g.Has(Triple{H: a, R: st.R, T: b})
	}
	distinct := func(es ...int32) bool {
		for i := range es {
			for j := range i {
				if es[i] == es[j] {
					return false
				}
			}
		}
		return true
	}
	switch r.Kind {
	case Cyclic:
		for x := range n {
			for y := range n {
				// Is there an OI path x -> y?
				found := false
				var rec func(depth int, path []int32)
				rec = func(depth int, path []int32) {
					if found {
						return
					}
					last := path[len(path)-1]
					if depth == len(r.Body)-1 {
						if holds(r.Body[depth], last, y) && distinct(append(path, y)...) {
							found = true
						}
						return
					}
					for a := range n {
						if holds(r.Body[depth], last, a) && distinct(append(path, a)...) {
							rec(depth+1, append(append([]int32(nil), path...), a))
						}
					}
				}
				rec(0, []int32{x})
				if found {
					body++
					if g.Has(Triple{H: x, R: r.Head, T: y}) {
						support++
					}
				}
			}
		}
		return
	}
	for v := range n {
		if v == r.C {
			continue
		}
		ok := false
		switch r.Kind {
		case AcyclicConst:
			if r.D == Self {
				ok = holds(r.Body[0], v, v)
			} else {
				ok = v != r.D && holds(r.Body[0], v, r.D)
			}
		case AcyclicAny:
			for a := range n {
				ok = ok || (a != v && (r.C == Self || a != r.C) && holds(r.Body[0], v, a))
			}
		case Default:
			for a := range n {
				if r.ConstTail {
					ok = ok || g.Has(Triple{H: v, R: r.Head, T: a})
				} else {
					ok = ok || g.Has(Triple{H: a, R: r.Head, T: v})
				}
			}
		}
		if !ok {
			continue
		}
		body++
		c := r.C
		if c == Self {
			c = v
		}
		if (r.ConstTail && g.Has(Triple{H: v, R: r.Head, T: c})) || (!r.ConstTail && g.Has(Triple{H: c, R: r.Head, T: v})) {
			support++
		}
	}
	return
}

// randomRule draws a rule over n entities and rels relations, of every
// kind, with Self in its head or body constant one time in three.
func randomRule(rng *rand.Rand, n, rels int) Rule {
	r := Rule{Kind: Kind(rng.IntN(4)), Head: int32(rng.IntN(rels)), ConstTail: rng.IntN(2) == 0,
		C: int32(rng.IntN(n)), D: int32(rng.IntN(n))}
	if r.Kind != Cyclic && rng.IntN(3) == 0 {
		r.C = Self
	}
	if r.Kind == AcyclicConst && rng.IntN(3) == 0 {
		r.D = Self
	}
	L := 1
	if r.Kind == Cyclic {
		L = 1 + rng.IntN(MaxPath)
	}
	if r.Kind != Default {
		for range L {
			r.Body = append(r.Body, Step{R: int32(rng.IntN(rels)), Inverse: rng.IntN(2) == 0})
		}
	}
	return r
}

func TestCountMatchesBruteForce(t *testing.T) {
	for seed := range uint64(20) {
		g := randomGraph(seed, 7, 3, 25)
		rng := rand.New(rand.NewPCG(seed, 2))
		sc := pathrule.NewWalker(g)
		for range 40 {
			r := randomRule(rng, 7, 3)
			r.Count(g, CountOptions{PC: 5}, sc)
			s, b := bruteCount(g, &r)
			if r.Support != s || r.BodySize != b {
				t.Fatalf("seed %d %+v: support %d body %d, brute force %d %d", seed, r, r.Support, r.BodySize, s, b)
			}
			if want := float64(s) / (float64(b) + 5); math.Abs(r.Conf-want) > 1e-12 {
				t.Fatalf("confidence %g, want %g", r.Conf, want)
			}
			// predict agrees with the groundings: for a cyclic rule the
			// tails predicted from x are the y of its body groundings.
			if r.Kind == Cyclic {
				n := 0
				for x := range int32(7) {
					n += len(r.predict(g, x, true, sc, nil))
				}
				if n != b {
					t.Fatalf("%+v: %d predictions, %d body groundings", r, n, b)
				}
			}
		}
	}
}

func TestRankOf(t *testing.T) {
	c := func(e int32, confs ...float64) Candidate { return Candidate{Entity: e, Score: confs[0], confs: confs} }
	cands := []Candidate{c(1, 0.9), c(2, 0.8, 0.5), c(3, 0.8, 0.5), c(4, 0.8, 0.5), c(5, 0.8), c(6, 0.1)}
	none := func(int32) bool { return false }
	for _, tc := range []struct {
		s     Scoring
		truth int32
		known func(int32) bool
		want  float64
	}{
		{MaxPlus, 1, none, 1},
		{MaxPlus, 3, none, 1 + 1 + 2.0/2}, // 1 better, 2 tied
		{MaxPlus, 5, none, 5},             // shorter vector loses
		{Max, 5, none, 1 + 1 + 3.0/2},     // max ties with 2, 3, 4
		{MaxPlus, 3, func(e int32) bool { return e == 1 || e == 2 }, 1 + 1.0/2},
		{MaxPlus, 9, none, 0}, // not predicted: a miss
	} {
		if got := rankOf(tc.s, cands, tc.truth, tc.known); got != tc.want {
			t.Errorf("%s truth %d: rank %g, want %g", tc.s, tc.truth, got, tc.want)
		}
	}
}

// A planted graph: likes(X, Y) <= friend(X, A), likes(A, Y) mostly holds,
// and every member of club c0 plays chess: plays(X, chess) <= member(X, c0).
func TestPlantedRules(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	const n = 60
	for x := range n {
		fmt.Fprintf(&b, "p%d\tfriend\tp%d\n", x, (x+1)%n)
		fmt.Fprintf(&b, "p%d\tlikes\tthing%d\n", x, x/6)
		if x%3 == 0 {
			fmt.Fprintf(&b, "p%d\tmember\tc0\n", x)
			fmt.Fprintf(&b, "p%d\tplays\tchess\n", x)
		} else {
			fmt.Fprintf(&b, "p%d\tmember\tc%d\n", x, 1+r.IntN(3))
		}
	}
	v := NewVocab()
	ts, err := ParseTriples(context.Background(), "planted", strings.NewReader(b.String()), v)
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(ts, len(v.Entities), len(v.Relations))
	res, err := Learn(context.Background(), g, LearnOptions{Time: 2 * time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"plays(X,chess) <= member(X,c0)": false}
	for _, rule := range res.Rules[:min(len(res.Rules), 40)] {
		if _, ok := want[rule.Format(v)]; ok && rule.Conf > 0.5 {
			want[rule.Format(v)] = true
		}
	}
	for k, found := range want {
		if !found {
			t.Errorf("rule %s not among the top 40 with confidence > 0.5", k)
		}
	}
}

func TestParseTriplesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\tb\n", "t.txt:1:1: want head<TAB>relation<TAB>tail, found 2"},
		{"a\tb\tc\n\na\t\tc\n", "t.txt:3:3: field 2 is empty"},
	} {
		_, err := ParseTriples(context.Background(), "t.txt", strings.NewReader(tc.in), NewVocab())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseTriples: any input gives triples or an error naming a line,
// never a panic; every triple's ids are in the vocabulary.
func FuzzParseTriples(f *testing.F) {
	f.Add("a\tr\tb\n")
	f.Add("a\tr\tb\r\n\n c \t r2\t d \n")
	f.Add("a\tb\n")
	f.Fuzz(func(t *testing.T, in string) {
		v := NewVocab()
		ts, err := ParseTriples(context.Background(), "f.txt", strings.NewReader(in), v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, tr := range ts {
			if int(tr.H) >= len(v.Entities) || int(tr.T) >= len(v.Entities) || int(tr.R) >= len(v.Relations) {
				t.Fatalf("triple %+v out of the vocabulary", tr)
			}
		}
	})
}

// Rules written and read back are the same rules with the same
// statistics, so ranking with them gives the same answers.
func TestRulesFileRoundTrip(t *testing.T) {
	g := randomGraph(5, 12, 3, 60)
	v := NewVocab()
	for e := range 12 {
		v.Entity(fmt.Sprint("e", e))
	}
	for r := range 3 {
		v.Relation(fmt.Sprint("r", r))
	}
	res, err := Learn(context.Background(), g, LearnOptions{Time: time.Second, Seed: 2, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]bool{}
	for _, r := range res.Rules {
		kinds[r.Kind] = true
	}
	if len(kinds) != 4 {
		t.Fatalf("rule kinds %v: want all four in the sample", kinds)
	}
	var b strings.Builder
	if err := WriteRules(&b, res.Rules, v); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRules("r.txt", strings.NewReader(b.String()), v)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(res.Rules) {
		t.Fatalf("%d rules back, %d written", len(back), len(res.Rules))
	}
	if len(v.Entities) != 12 {
		t.Errorf("reading the rules added entities: %q", v.Entities[12:])
	}
	for i := range back {
		w, g := res.Rules[i], back[i]
		if w.key() != g.key() || w.Support != g.Support || w.BodySize != g.BodySize || math.Abs(w.Conf-g.Conf) > 1e-5*w.Conf {
			t.Fatalf("rule %d: %+v read back as %+v", i, w, g)
		}
	}
	// AnyBURL's files name the path's variables A, B, C and the head's
	// variable Y when the constant comes first.
	anyburl := "10\t4\t0.4\tr0(X,Y) <= r1(A,X), r2(A,B), r0(Y,B)\n5\t2\t0.4\tr1(e3,Y) <= r2(Y,A)\n"
	ab, err := ReadRules("anyburl.txt", strings.NewReader(anyburl), v)
	if err != nil || len(ab) != 2 || ab[0].Kind != Cyclic || ab[1].Kind != AcyclicAny || ab[1].ConstTail ||
		ab[0].Format(v) != "r0(X,Y) <= r1(A1,X), r2(A1,A2), r0(Y,A2)" {
		t.Errorf("AnyBURL's rules: %+v, %v", ab, err)
	}
	// AnyBURL's reserved words: # starts a comment line, me_myself_i is
	// the rule's own variable (Self) in a head or a body, one rule of each
	// kind it can stand in.
	reserved := []struct {
		line      string
		kind      Kind
		c, d      int32
		constTail bool
	}{
		{"7\t7\t1.0\tr0(X,me_myself_i) <= r0(me_myself_i,X)", AcyclicConst, Self, Self, true},
		{"7\t7\t1.0\tr0(me_myself_i,Y) <= r0(Y,me_myself_i)", AcyclicConst, Self, Self, false},
		{"5\t2\t0.4\tr1(X,me_myself_i) <= r2(X,e1)", AcyclicConst, Self, 1, true},
		{"5\t2\t0.4\tr1(X,e2) <= r2(X,me_myself_i)", AcyclicConst, 2, Self, true},
		{"3\t2\t0.6666\tr1(X,me_myself_i) <= r2(A,X)", AcyclicAny, Self, 0, true},
		{"29722\t7\t0.00023\tr0(me_myself_i,Y) <=", Default, Self, 0, false},
	}
	var file strings.Builder
	file.WriteString("# AnyBURL rules\n")
	for _, tc := range reserved {
		file.WriteString(tc.line + " \n")
	}
	rs, err := ReadRules("reserved.txt", strings.NewReader(file.String()), v)
	if err != nil || len(rs) != len(reserved) {
		t.Fatalf("%d rules, %v", len(rs), err)
	}
	for i, tc := range reserved {
		r := rs[i]
		rule := tc.line[strings.LastIndex(tc.line, "\t")+1:]
		if !tc.constTail { // hinge names the head's variable X in either place
			rule = strings.ReplaceAll(rule, "Y", "X")
		}
		if r.Kind != tc.kind || r.C != tc.c || (tc.kind == AcyclicConst && r.D != tc.d) || r.ConstTail != tc.constTail || r.Format(v) != rule {
			t.Errorf("%q read as %+v, written back %q", tc.line, r, r.Format(v))
		}
	}
	if slices.Contains(v.Entities, SelfToken) {
		t.Errorf("%s read as an entity", SelfToken)
	}
	if bom, err := ReadRules("bom.txt", strings.NewReader("\uFEFF"+anyburl), v); err != nil || len(bom) != 2 {
		t.Errorf("a byte-order mark: %v, %v", bom, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"3\t2\t0.5\tr0(X,Y) <= r1(X,A1), r2(A2,Y)\n", "r.txt:1:9: rule \"r0(X,Y) <= r1(X,A1), r2(A2,Y)\": r2(A2,Y) does not continue the path from A1"},
		{"3\t2\t1.5\tr0(X,Y) <= r1(X,Y)\n", "r.txt:1:1: bad statistics"},
		{"3\t2\t0.5\tr0(X,e1) <= r1(X,A), r2(A,e2)\n", "an acyclic rule has one body atom"},
		{"3\t2\n", "want body size, support, confidence and rule"},
		// Bodies that repeat a variable were read as paths through new
		// variables, other rules (b(X,X) as b(X, another entity)).
		{"3\t2\t0.5\tr0(X,e1) <= r1(X,X)\n", "r1(X,X) is a self-loop: write r1(X,me_myself_i)"},
		{"3\t2\t0.5\tr0(e1,Y) <= r1(Y,Y)\n", "r1(Y,Y) is a self-loop: write r1(Y,me_myself_i)"},
		{"3\t2\t0.5\tr0(X,Y) <= r1(X,A), r2(A,A), r1(A,Y)\n", "r2(A,A) leads back to A"},
		{"3\t2\t0.5\tr0(X,Y) <= r1(X,A), r2(A,X), r1(X,Y)\n", "r2(A,X) leads back to X"},
		{"3\t2\t0.5\tr0(X,Y) <= r1(X,e1), r2(e1,Y)\n", "leads back to e1 or to an entity"},
	} {
		if _, err := ReadRules("r.txt", strings.NewReader(tc.in), v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestRulesWithVariableNamedEntities: an entity named as a rules file
// names variables (A, O, A1) or me_myself_i cannot be a constant of a
// written rule: WriteRules leaves such rules out (the file held
// group(X,gA) <= blood(X,A) twice, once for the entity A, once for the
// variable, and read back both as the variable), and what it writes reads
// back as written.
func TestRulesWithVariableNamedEntities(t *testing.T) {
	v := NewVocab()
	group, blood := v.Relation("group"), v.Relation("blood")
	a, ga, p1, o := v.Entity("A"), v.Entity("gA"), v.Entity("p1"), v.Entity("O")
	rules := []Rule{
		{Kind: AcyclicConst, Head: group, ConstTail: true, C: ga, D: a, Body: []Step{{R: blood}}, Conf: 0.5},
		{Kind: AcyclicAny, Head: group, ConstTail: true, C: ga, Body: []Step{{R: blood}}, Conf: 0.3},
		{Kind: Default, Head: blood, ConstTail: true, C: o, Conf: 0.2},
		{Kind: AcyclicConst, Head: group, ConstTail: true, C: ga, D: p1, Body: []Step{{R: blood, Inverse: true}}, Conf: 0.1},
		{Kind: Cyclic, Head: group, Body: []Step{{R: blood}}, Conf: 0.05},
	}
	var b strings.Builder
	if err := WriteRules(&b, rules, v); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRules("r.txt", strings.NewReader(b.String()), v)
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{rules[1], rules[3], rules[4]}
	if len(back) != len(want) {
		t.Fatalf("read back %d rules, want %d (the writable ones):\n%s", len(back), len(want), b.String())
	}
	for i := range want {
		if back[i].key() != want[i].key() {
			t.Errorf("rule %d: %q read back as %q", i, want[i].Format(v), back[i].Format(v))
		}
	}
	for name, want := range map[string]bool{"A": true, "O": true, "A12": true, SelfToken: true, "gA": false, "AB": false, "B1": false, "a": false} {
		if ReadsAsVariable(name) != want {
			t.Errorf("ReadsAsVariable(%q) = %v", name, !want)
		}
	}
}

// Rank's order against a brute-force scorer: every rule's predictions
// collected per candidate, its confidences sorted and combined from
// scratch.
func TestRankMatchesBruteForce(t *testing.T) {
	g := randomGraph(5, 12, 3, 70)
	res, err := Learn(context.Background(), g, LearnOptions{Time: time.Second, Seed: 2, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	sc := pathrule.NewWalker(g)
	for _, tc := range []struct {
		s        Scoring
		k        int
		repeated bool
		conf     Confidence
	}{{MaxPlus, 0, false, PointConfidence}, {Max, 0, false, PointConfidence}, {NoisyOr, 1, false, PointConfidence}, {NoisyOr, 2, false, PointConfidence},
		{NoisyOr, 100, false, PointConfidence}, {NoisyOr, 2, true, PointConfidence}, {NoisyOr, 100, true, PointConfidence},
		{MaxPlus, 0, false, LowerConfidence}, {NoisyOr, 2, false, LowerConfidence}} {
		rk := NewRanker(g, res.Rules, tc.s)
		rk.RepeatedSets = tc.repeated
		rk.SetConfidence(tc.conf)
		if tc.k > 0 {
			rk.NoisyOrK = tc.k
		}
		for e := range int32(g.NumEntities) {
			for r := range int32(g.NumRelations) {
				for _, tail := range []bool{true, false} {
					// Noisy-or counts a query's prediction set once, with
					// its largest confidence (unless RepeatedSets).
					confs := map[int32][]float64{}
					best := map[string]float64{}
					var sets [][]int32
					for i := range res.Rules {
						rule := &res.Rules[i]
						if rule.Head != r {
							continue
						}
						conf := rule.RankingConf(tc.conf)
						ys := slices.Sorted(slices.Values(rule.predict(g, e, tail, sc, nil)))
						key := fmt.Sprint(ys)
						if tc.s == NoisyOr && !tc.repeated && len(ys) > 0 {
							if c, seen := best[key]; seen {
								best[key] = max(c, conf)
								continue
							}
							best[key] = conf
							sets = append(sets, ys)
							continue
						}
						for _, c := range ys {
							confs[c] = append(confs[c], conf)
						}
					}
					for _, ys := range sets {
						for _, c := range ys {
							confs[c] = append(confs[c], best[fmt.Sprint(ys)])
						}
					}
					want := func(c int32) []float64 {
						v := slices.Clone(confs[c])
						slices.SortFunc(v, func(a, b float64) int { return cmp.Compare(b, a) })
						switch tc.s {
						case Max:
							return v[:1]
						case NoisyOr:
							p := 1.0
							for _, x := range v[:min(len(v), tc.k)] {
								p *= 1 - x
							}
							return append([]float64{1 - p}, v...)
						}
						return v
					}
					got := rk.Rank(e, r, tail, 0)
					if len(got) != len(confs) {
						t.Fatalf("%s, %s (%d,%d,%v): %d candidates, brute force %d", tc.s, tc.conf, e, r, tail, len(got), len(confs))
					}
					for i := 1; i < len(got); i++ {
						a, b := want(got[i-1].Entity), want(got[i].Entity)
						if lexDesc(a, b) > 0 || (lexDesc(a, b) == 0 && got[i-1].Entity > got[i].Entity) {
							t.Fatalf("%s, %s (%d,%d,%v): %d %v ranked before %d %v", tc.s, tc.conf, e, r, tail, got[i-1].Entity, a, got[i].Entity, b)
						}
					}
				}
			}
		}
	}
}

// lexDesc orders decreasing vectors lexicographically, the larger first
// (a longer vector beats its prefix).
func lexDesc(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(b[i], a[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(b), len(a))
}

// r(X, c) <= b(X, d) answers (x, r, ?) with c when b(x, d) holds and
// (?, r, c) with every such x, against enumeration over all entities.
func TestPredictAcyclicConstBothWays(t *testing.T) {
	for seed := range uint64(10) {
		g := randomGraph(seed, 8, 2, 30)
		rng := rand.New(rand.NewPCG(seed, 9))
		sc := pathrule.NewWalker(g)
		for range 20 {
			r := Rule{Kind: AcyclicConst, Head: int32(rng.IntN(2)), ConstTail: rng.IntN(2) == 0, C: int32(rng.IntN(8)), D: int32(rng.IntN(8)),
				Body: []Step{{R: int32(rng.IntN(2)), Inverse: rng.IntN(2) == 0}}}
			body := func(x int32) bool {
				st := r.Body[0]
				if st.Inverse {
					return g.Has(Triple{H: r.D, R: st.R, T: x})
				}
				return g.Has(Triple{H: x, R: st.R, T: r.D})
			}
			for e := range int32(8) {
				for _, tail := range []bool{true, false} {
					var want []int32
					switch {
					case tail == r.ConstTail && e != r.C && e != r.D && body(e):
						want = []int32{r.C}
					case tail != r.ConstTail && e == r.C:
						for x := range int32(8) {
							if x != r.C && x != r.D && body(x) {
								want = append(want, x)
							}
						}
					}
					got := slices.Sorted(slices.Values(r.predict(g, e, tail, sc, nil)))
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d %+v, e %d tail %v: predicted %v, want %v", seed, r, e, tail, got, want)
					}
				}
			}
		}
	}
}

// A rule with Self in its head, r(X, X) <= body(X), answers a query about
// e either way with e itself when its body holds for e; one with Self in
// its body, r(X, c) <= b(X, X), answers (x, r, ?) with c when b(x, x)
// holds and (?, r, c) with every such x: both against enumeration of the
// rule's ground heads over all entities.
func TestPredictSelfLoops(t *testing.T) {
	for seed := range uint64(20) {
		g := randomGraph(seed, 6, 2, 30)
		rng := rand.New(rand.NewPCG(seed, 11))
		sc := pathrule.NewWalker(g)
		for n := 0; n < 30; {
			r := randomRule(rng, 6, 2)
			if r.Kind == Cyclic || (r.C != Self && r.D != Self) {
				continue
			}
			n++
			body := func(v int32) bool {
				switch r.Kind {
				case AcyclicConst:
					d := r.D
					if d == Self {
						d = v
					} else if v == d {
						return false
					}
					st := r.Body[0]
					return (!st.Inverse && g.Has(Triple{H: v, R: st.R, T: d})) || (st.Inverse && g.Has(Triple{H: d, R: st.R, T: v}))
				case AcyclicAny:
					return slices.ContainsFunc(g.Step(v, r.Body[0].R, r.Body[0].Inverse), func(a int32) bool { return a != v && a != r.C })
				}
				return true
			}
			for e := range int32(6) {
				for _, tail := range []bool{true, false} {
					var want []int32
					switch {
					case r.C == Self:
						if body(e) {
							want = []int32{e}
						}
					case tail == r.ConstTail:
						if e != r.C && body(e) {
							want = []int32{r.C}
						}
					case e == r.C && r.Kind == AcyclicConst:
						for x := range int32(6) {
							if x != r.C && body(x) {
								want = append(want, x)
							}
						}
					}
					got := slices.Sorted(slices.Values(r.predict(g, e, tail, sc, nil)))
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d %+v, e %d tail %v: predicted %v, want %v", seed, r, e, tail, got, want)
					}
				}
			}
		}
	}
}

// The reproducer: AnyBURL writes r(X,me_myself_i) for the
// self-loop r(X, X); read so, the rule ranks e4 first for both queries of
// the test triple e4 r e4, and no entity me_myself_i is made up.
func TestAnyBURLSelfLoopReproducer(t *testing.T) {
	v := NewVocab()
	read := func(text string) []Triple {
		ts, err := ParseTriples(context.Background(), "t.txt", strings.NewReader(text), v)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	train := read("p1\ts\te1\np2\ts\te2\np3\ts\te3\np4\ts\te4\ne1\tr\te1\ne2\tr\te2\ne1\tt\te2\n")
	valid := read("e3\tr\te3\n")
	test := read("e4\tr\te4\n")
	rules, err := ReadRules("rules.txt", strings.NewReader("3\t2\t0.6666\tr(X,me_myself_i) <= s(A,X)\n"), v)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(v.Entities, SelfToken) {
		t.Fatalf("entities %q: %s read as an entity", v.Entities, SelfToken)
	}
	if r := rules[0]; r.Kind != AcyclicAny || r.C != Self || !r.ConstTail || r.Format(v) != "r(X,me_myself_i) <= s(A,X)" {
		t.Fatalf("read %+v, written back %q", r, r.Format(v))
	}
	g := NewGraph(train, len(v.Entities), len(v.Relations))
	known := map[Triple]bool{}
	for _, ts := range [][]Triple{train, valid, test} {
		for _, t := range ts {
			known[t] = true
		}
	}
	for _, s := range []Scoring{MaxPlus, Max, NoisyOr} {
		ev, err := NewRanker(g, rules, s).Evaluate(context.Background(), test, func(t Triple) bool { return known[t] }, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e4 := v.Entity("e4")
		for _, a := range []Answer{ev.Heads[0], ev.Tails[0]} {
			if len(a.List) != 1 || a.List[0].Entity != e4 || a.Rank != 1 {
				t.Errorf("%s: list %+v rank %g, want e4 alone, first", s, a.List, a.Rank)
			}
		}
		if ev.Metrics.MRR != 1 {
			t.Errorf("%s: MRR %g, want 1", s, ev.Metrics.MRR)
		}
	}
}

// PSL scoring's metrics against a direct computation: every query's full
// maxplus ranking without the other known answers, its first n candidates
// re-scored with the values PSL inferred (maxplus breaking exact ties) and
// ranked above the rest; the true answer counts when fewer than top-k
// candidates rank above it (it is then in the list), else it is a miss.
func TestEvaluatePSLMatchesDirect(t *testing.T) {
	g := randomGraph(7, 15, 2, 90)
	res, err := Learn(context.Background(), g, LearnOptions{Time: time.Second, Seed: 3, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := NewVocab()
	for e := range 15 {
		v.Entity(fmt.Sprint("e", e))
	}
	for r := range 2 {
		v.Relation(fmt.Sprint("r", r))
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var test []Triple
	for range 25 {
		test = append(test, Triple{H: int32(rng.IntN(15)), R: int32(rng.IntN(2)), T: int32(rng.IntN(15))})
	}
	known := func(tr Triple) bool { return g.Has(tr) || slices.Contains(test, tr) }
	const topK = 2
	for _, n := range []int{1, 3, 100} {
		rk := NewRanker(g, res.Rules, PSL)
		p, err := rk.NewPSL(context.Background(), v, PSLOptions{Candidates: n, TrainQueries: 30, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		value := map[Triple]float64{}
		ev, err := rk.Evaluate(context.Background(), test, known, EvalOptions{PSL: p, ADMM: admm.DefaultOptions(), TopK: topK,
			PSLDump: func(atoms []Triple, values []float64) error {
				for i, a := range atoms {
					value[a] = values[i]
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		got := ev.Metrics
		mp := NewRanker(g, res.Rules, MaxPlus)
		var want Metrics
		for _, tr := range test {
			for _, tail := range []bool{true, false} {
				e, truth := tr.H, tr.T
				atom := func(c int32) Triple { return Triple{H: tr.H, R: tr.R, T: c} }
				if !tail {
					e, truth = tr.T, tr.H
					atom = func(c int32) Triple { return Triple{H: c, R: tr.R, T: tr.T} }
				}
				cands := slices.DeleteFunc(mp.Rank(e, tr.R, tail, 0), func(c Candidate) bool { return c.Entity != truth && known(atom(c.Entity)) })
				// order(a, b) < 0: a ranks above b; 0: a tie.
				pos := func(c Candidate) int {
					return slices.IndexFunc(cands, func(x Candidate) bool { return x.Entity == c.Entity })
				}
				order := func(a, b Candidate) int {
					ia, ib := pos(a), pos(b)
					if (ia < n) != (ib < n) {
						return cmp.Compare(ia, ib)
					}
					if ia < n {
						if c := cmp.Compare(value[atom(b.Entity)], value[atom(a.Entity)]); c != 0 {
							return c
						}
					}
					return compare(MaxPlus, &a, &b)
				}
				ti := slices.IndexFunc(cands, func(c Candidate) bool { return c.Entity == truth })
				if ti < 0 {
					want.add(0)
					continue
				}
				better, tied := 0, 0
				for _, c := range cands {
					if c.Entity == truth {
						continue
					}
					switch order(c, cands[ti]) {
					case -1:
						better++
					case 0:
						tied++
					}
				}
				if better >= topK {
					want.add(0)
					continue
				}
				want.add(1 + float64(better) + float64(tied)/2)
			}
		}
		want.finish()
		if math.Abs(got.MRR-want.MRR) > 1e-12 || got.Hits1 != want.Hits1 || got.Hits3 != want.Hits3 || got.Hits10 != want.Hits10 {
			t.Errorf("n %d: Evaluate %+v, direct %+v", n, got, want)
		}
	}
}

// The ranking that stops once a query's list is settled gives the same
// list (candidates, order, scores) as applying every rule, for every
// scoring and k, on generated graphs and on Kinship's validation queries.
func TestEarlyStopSameTopK(t *testing.T) {
	check := func(t *testing.T, g *Graph, rules []Rule, queries []Triple, ks []int) {
		for _, s := range []Scoring{MaxPlus, Max, NoisyOr, Clustered} {
			for i, k := range ks {
				rk := NewRanker(g, rules, s)
				if i%2 == 1 {
					rk.SetConfidence(LowerConfidence) // the early stop with the order it gives
				}
				if s == Clustered {
					// Thresholds chosen on graph triples: any clustering
					// will do, as long as some rules share one.
					rep, err := rk.Cluster(context.Background(), g.Triples[:min(60, len(g.Triples))], g.Has, ClusterOptions{Thresholds: []float64{0.5, 0.2, 0.05}})
					if err != nil {
						t.Fatal(err)
					}
					if rep.Merged == 0 {
						t.Fatalf("k %d: no rule shares a cluster: the early stop is not tested with clusters", k)
					}
				}
				qs := rk.newQueryScratch()
				for _, q := range queries {
					for _, tail := range []bool{true, false} {
						e := q.H
						if !tail {
							e = q.T
						}
						skip := func(y int32) bool { return y%7 == 3 }
						all, _, _ := rk.rank(context.Background(), s, e, q.R, tail, 0, skip, qs)
						want := cut(s, all, k)
						got, _, _ := rk.rank(context.Background(), s, e, q.R, tail, k, skip, qs)
						if len(got) != len(want) {
							t.Fatalf("%s k %d query %v %v: %d candidates, exhaustive %d", s, k, q, tail, len(got), len(want))
						}
						for i := range got {
							if got[i].Entity != want[i].Entity || got[i].Score != want[i].Score {
								t.Fatalf("%s k %d query %v %v: #%d %d %g, exhaustive %d %g", s, k, q, tail, i, got[i].Entity, got[i].Score, want[i].Entity, want[i].Score)
							}
						}
					}
				}
			}
		}
	}
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("random ", seed), func(t *testing.T) {
			g := randomGraph(seed, 25, 3, 200)
			res, err := Learn(context.Background(), g, LearnOptions{Rounds: 2, SamplesPerRound: 1000, Seed: seed, MinSupport: 1})
			if err != nil {
				t.Fatal(err)
			}
			var qs []Triple
			for e := range int32(25) {
				for r := range int32(3) {
					qs = append(qs, Triple{H: e, R: r, T: e})
				}
			}
			// Self-loop rules too, which answer a query with its own
			// entity.
			rules := slices.Clone(res.Rules)
			rng := rand.New(rand.NewPCG(seed, 17))
			for len(rules) < len(res.Rules)+15 {
				if r := randomRule(rng, 25, 3); r.Kind != Cyclic {
					r.C, r.Conf = Self, rng.Float64()/2
					rules = append(rules, r)
				}
			}
			check(t, g, rules, qs, []int{1, 3, 10, 100}) // 100: more than the entities
		})
	}
	t.Run("kinship", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short")
		}
		dir := shareddata.Require(t, "kinship")
		v := NewVocab()
		train, err := ReadTriples(context.Background(), filepath.Join(dir, "train.txt"), v)
		if err != nil {
			t.Fatal(err)
		}
		valid, err := ReadTriples(context.Background(), filepath.Join(dir, "valid.txt"), v)
		if err != nil {
			t.Fatal(err)
		}
		g := NewGraph(train, len(v.Entities), len(v.Relations))
		res, err := Learn(context.Background(), g, LearnOptions{Rounds: 1, SamplesPerRound: 4000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		check(t, g, res.Rules, valid[:40], []int{10})
	})
}

// FuzzReadRules: any input gives rules or an error naming the file, never
// a panic; every rule read is one the ranker can apply.
func FuzzReadRules(f *testing.F) {
	f.Add("3\t2\t0.5\tr0(X,Y) <= r1(X,A1), r2(A1,Y)\n")
	f.Add("10\t4\t0.4\tr0(X,Y) <= r1(A,X), r2(A,B), r0(Y,B)\n5\t2\t0.4\tr1(e3,Y) <= r2(Y,A)\n")
	f.Add("5\t2\t0.4\tr1(X,e3) <=\n1\t1\t1\tr1(X,e3) <= r2(X,e4)\n")
	f.Add("# c\n3\t2\t0.6\tr(X,me_myself_i) <= s(A,X)\n7\t7\t1\tr(me_myself_i,Y) <= r(Y,me_myself_i)\n1\t1\t1\tr(X,e1) <= s(X,me_myself_i)\n")
	f.Fuzz(func(t *testing.T, in string) {
		v := NewVocab()
		rules, err := ReadRules("r.txt", strings.NewReader(in), v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.txt") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		g := NewGraph(nil, len(v.Entities), len(v.Relations))
		rk := NewRanker(g, rules, MaxPlus)
		for e := range int32(len(v.Entities)) {
			for r := range int32(len(v.Relations)) {
				rk.Rank(e, r, true, 3)
				rk.Rank(e, r, false, 3)
			}
		}
	})
}

// A rules file is refused, naming the line, once its rules pass 60% of
// the memory limit; without a limit, or within it, every rule is read.
func TestReadRulesWithin(t *testing.T) {
	var b strings.Builder
	const n = 40_000
	for i := range n {
		fmt.Fprintf(&b, "%d\t1\t0.25\tr0(X,Y) <= r1(X,Y)\n", 3+i%5)
	}
	for _, limit := range []int64{0, 1 << 40} {
		rules, err := ReadRulesWithin("big.rules", strings.NewReader(b.String()), NewVocab(), limit)
		if err != nil || len(rules) != n {
			t.Errorf("limit %d: %d rules, %v", limit, len(rules), err)
		}
	}
	_, err := ReadRulesWithin("big.rules", strings.NewReader(b.String()), NewVocab(), 1)
	if !errors.Is(err, ErrRulesOutgrowMemory) || !strings.Contains(err.Error(), fmt.Sprintf("big.rules:%d:1: the %d rules read so far", readCheckEvery+1, readCheckEvery)) {
		t.Errorf("limit 1 byte: %v", err)
	}
	// Comment and blank lines count as lines, not as rules: with one
	// after every rule, the check after 16,384 rules falls on line 32,768.
	var c strings.Builder
	for i := range n {
		fmt.Fprintf(&c, "%d\t1\t0.25\tr0(X,Y) <= r1(X,Y)\n", 3+i%5)
		if i%2 == 0 {
			c.WriteString("# a comment\n")
		} else {
			c.WriteString("\n")
		}
	}
	_, err = ReadRulesWithin("commented.rules", strings.NewReader(c.String()), NewVocab(), 1)
	if !errors.Is(err, ErrRulesOutgrowMemory) || !strings.Contains(err.Error(), fmt.Sprintf("commented.rules:%d:1: the %d rules read so far", 2*readCheckEvery, readCheckEvery)) {
		t.Errorf("limit 1 byte, a comment or blank line after every rule: %v", err)
	}
}
