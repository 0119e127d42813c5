package rrf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/mln"
)

const smokersRRF = `// Smokers and friends as a recursive random field.
person = {Anna, Bob, Carl}
*Friends(person, person)
Smokes(person)
Cancer(person)

root = -2 * sum(x) NotImplied(x) + 1.5 * sum(x) Social(x) - 0.3 * sum(x) Smokes(x)
NotImplied(x) = 4 * Smokes(x) + 4 * !Cancer(x)
Social(x) = 0.8 * sum(y) Pair(x, y) - 1 * !Smokes(x)
Pair(x, y) = 2 * Friends(x, y) + 2 * Smokes(y)
`

// world evaluates the program's root sum s_0 at an assignment of the
// ground atoms, straight from the definition (recursively, summing over the
// domains), independently of the grounder.
func rootScore(p *Program, domains map[string][]string, truth func(pred string, args []string) bool) float64 {
	var feature func(f *ParFeature, bind map[string]string) (sum, norm float64)
	feature = func(f *ParFeature, bind map[string]string) (float64, float64) {
		sum, norm := 0.0, 0.0
		for _, t := range f.Terms {
			w := p.Weights[t.W]
			var rec func(i int)
			rec = func(i int) {
				if i < len(t.Sum) {
					v := t.Sum[i]
					for _, c := range domains[f.types[v]] {
						bind[v] = c
						rec(i + 1)
					}
					delete(bind, v)
					return
				}
				args := make([]string, len(t.Args))
				for k, a := range t.Args {
					args[k] = a.Name
					if a.IsVar {
						args[k] = bind[a.Name]
					}
				}
				var v float64
				if t.Pred != "" {
					if truth(t.Pred, args) != t.Neg {
						v = 1
					}
				} else {
					g := p.byName[t.Feature]
					child := map[string]string{}
					for k, param := range g.Params {
						child[param] = args[k]
					}
					s, m := feature(g, child)
					v = math.Exp(s - m)
				}
				sum += w * v
				norm += normOf(p.Norm, w)
			}
			rec(0)
		}
		return sum, norm
	}
	s, _ := feature(p.byName["root"], map[string]string{})
	return s
}

func TestGroundMatchesDefinition(t *testing.T) {
	p, err := ParseProgram("s.rrf", []byte(smokersRRF))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := mln.ParseAtoms("e.db", []byte("Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n"), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, ev, mln.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The full grounding has 3 NotImplied + 3 Social + 9 Pair groundings
	// and the root. Folded: 3 NotImplied (each has Cancer(x) unknown);
	// Pair(x, y) with Friends(x, y) false is one feature per y (for y = Anna
	// a constant, Smokes(Anna) being given, kept because Social is not the
	// root), Pair(Anna, Bob) and Pair(Bob, Carl) one each: 5; 3 Social; the
	// root.
	if len(gr.Net.Features) != 12 {
		t.Errorf("%d ground features, want 12", len(gr.Net.Features))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	offset := math.NaN() // the constants the grounder leaves out of s_0
	for trial := range 50 {
		x := make([]bool, gr.Net.NumVars)
		truth := map[string]bool{}
		for v, a := range gr.Atoms {
			x[v] = gr.Evidence.X[v]
			if !gr.Evidence.Fixed[v] {
				x[v] = rng.IntN(2) == 0
			}
			truth[a.Pred+"("+strings.Join(a.Args, ",")+")"] = x[v]
		}
		evidence := map[string]bool{"Friends(Anna,Bob)": true, "Friends(Bob,Carl)": true, "Smokes(Anna)": true}
		s, err := NewState(gr.Net, x)
		if err != nil {
			t.Fatal(err)
		}
		want := rootScore(p, net.Domains, func(pred string, args []string) bool {
			k := pred + "(" + strings.Join(args, ",") + ")"
			if b, ok := truth[k]; ok {
				return b
			}
			return evidence[k]
		})
		if trial == 0 {
			offset = s.LogScore() - want
		}
		if got := s.LogScore(); math.Abs(got-want-offset) > 1e-9 {
			t.Fatalf("trial %d: ground score %.12g, definition %.12g plus the constant %.12g", trial, got, want, offset)
		}
	}
	// The variables are the unknown atoms: Smokes(Anna) and the Friends
	// atoms are given (folded in as constants).
	var names []string
	for v, a := range gr.Atoms {
		names = append(names, mln.AtomString(a.Pred, a.Args))
		if gr.Evidence.Fixed[v] || !gr.Target[v] {
			t.Errorf("%v: fixed %v, target %v", a, gr.Evidence.Fixed[v], gr.Target[v])
		}
	}
	slices.Sort(names)
	if want := []string{"Cancer(Anna)", "Cancer(Bob)", "Cancer(Carl)", "Smokes(Bob)", "Smokes(Carl)"}; !slices.Equal(names, want) {
		t.Errorf("variables %v, want %v", names, want)
	}
}

func TestParseProgramErrors(t *testing.T) {
	decl := "P(t)\nQ(t, t)\n"
	for _, tc := range []struct{ text, want string }{
		{decl + "F(x) = 1 * P(x)\n", "no parfeature named root"},
		{decl + "root(x) = 1 * P(x)\n", "s.rrf:3:1: root takes no parameters"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * G(x)\nG(y) = 1 * F(y)\n", "refers to itself"},
		{decl + "root = 1 * sum(x) R(x)\n", "s.rrf:3:8: R is neither a declared predicate nor a parfeature"},
		{decl + "root = 1 * sum(x) P(x, x)\n", "s.rrf:3:8: predicate P takes 1 argument(s), found 2"},
		{decl + "root = 1 * P(x)\n", "s.rrf:3:14: variable x is neither a parameter of root nor summed"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * sum(y) G(y)\nG(z) = 2\n", "expected an atom"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 2 * Q(x, y)\n", "variable y is neither"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * P(x) 2 * P(x)\n", "s.rrf:4:17: expected '+' or '-'"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * P(x)\nF(y) = 1 * P(y)\n", "s.rrf:5:1: parfeature F defined again"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * P(x)\n1 P(x) v P(x)\n", "s.rrf:5:1: a Markov logic formula in an RRF file"},
		{decl + "root = 1 * sum(x) !F(x)\nF(x) = 1 * P(x)\n", "'!' applies to atoms"},
		{decl + "root = 1 * sum(x) F(x)\nF(x) = 1 * sum(y) Q(x, y) + 1 * sum(y) H(y)\nH(a) = 1 * P(a)\n", ""},
	} {
		_, err := ParseProgram("s.rrf", []byte(tc.text))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParseProgram(f *testing.F) {
	f.Add([]byte(smokersRRF))
	f.Add([]byte("P(t)\nroot = -1 * sum(x, y) F(x, y)\nF(a, b) = 2 * !P(a) - 3 * P(b)\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		p, err := ParseProgram("f.rrf", text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.rrf") && !strings.HasPrefix(err.Error(), "rrf:") && !strings.Contains(err.Error(), "#include") {
				t.Errorf("error without position: %v", err)
			}
			return
		}
		if p.byName["root"] == nil {
			t.Error("accepted without a root")
		}
	})
}

// TestLearnRelationalRoundTrip learns from a small world and checks that
// the rewritten file reads back to the same weights.
func TestLearnRelationalRoundTrip(t *testing.T) {
	p, err := ParseProgram("s.rrf", []byte(smokersRRF))
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.ParseAtoms("t.db", []byte("Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\nSmokes(Bob)\nCancer(Anna)\n"), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	before := append([]float64(nil), p.Weights...)
	if _, err := p.LearnRelational(t.Context(), train, []string{"Smokes", "Cancer"}, LearnOptions{L2: 0.1}); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(before, p.Weights) {
		t.Error("learning changed no weight")
	}
	text := p.WithWeights([]byte(smokersRRF))
	q, err := ParseProgram("s.rrf", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for i := range p.Weights {
		if math.Abs(q.Weights[i]-p.Weights[i]) > 1e-5*max(1, math.Abs(p.Weights[i])) {
			t.Errorf("weight %d: learned %v, read back %v", i, p.Weights[i], q.Weights[i])
		}
	}
}

// TestSoftExistentialGroundsLinearly: "x has a smoking friend" as an RRF
// parfeature grounds to one feature per person with one child per possible
// friend (n + n^2 features in all, the unfolded grounding), while Markov
// logic's CNF of the same existential (a disjunction of n conjunctions)
// needs 2^n clauses per person, which hinge's Markov logic reader refuses
// beyond 256. With evidence folded in (no Friends atom is true), Pair(x, y)
// is the same feature for every x and HasSmokingFriend(x) for every x:
// n + 2 features, the last counted n times in the root.
func TestSoftExistentialGroundsLinearly(t *testing.T) {
	for _, n := range []int{10, 200} {
		var consts []string
		for i := range n {
			consts = append(consts, fmt.Sprintf("P%d", i))
		}
		decl := "person = {" + strings.Join(consts, ", ") + "}\n*Friends(person, person)\nSmokes(person)\n"
		p, err := ParseProgram("e.rrf", []byte(decl+"root = 1 * sum(x) HasSmokingFriend(x)\nHasSmokingFriend(x) = 5 * sum(y) Pair(x, y)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(y)\n"))
		if err != nil {
			t.Fatal(err)
		}
		net, err := mln.Build(p.Decls, nil, mln.Options{Query: []string{"Smokes"}})
		if err != nil {
			t.Fatal(err)
		}
		full, err := groundFull(p, net, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(full.Net.Features), 1+n+n*n; got != want {
			t.Errorf("%d people: %d unfolded ground features, want %d", n, got, want)
		}
		gr, err := p.Ground(net, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(gr.Net.Features), n+2; got != want || gr.Net.Features[0][0].Count != int64(n) {
			t.Errorf("%d people: %d ground features, want %d (root %+v)", n, got, want, gr.Net.Features[0])
		}
		if n == 10 {
			m, err := mln.ParseProgram("e.mln", []byte(decl+"1 EXIST y Friends(x, y) ^ Smokes(y)\n"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mln.Build(m, nil, mln.Options{Query: []string{"Smokes"}}); err == nil || !strings.Contains(err.Error(), "more than 256 clauses") {
				t.Errorf("Markov logic CNF of the existential over %d people: error %v, want the clause limit", n, err)
			}
		}
	}
}

// Parfeatures that refer to one another more than MaxDepth deep are
// refused when read (a long chain used to recurse without bound through
// the reader, the grounder and the feature numbering), and a Markov logic
// formula nested too deeply is refused by FromMLN.
func TestParfeatureDepthLimit(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("Smokes(person)\nroot = 1 * sum(x) F1(x)\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "F%d(x) = 1 * F%d(x)\n", i, i+1)
		}
		fmt.Fprintf(&b, "F%d(x) = 1 * Smokes(x)\n", n)
		return b.String()
	}
	if _, err := ParseProgram("c.rrf", []byte(chain(MaxDepth-1))); err != nil {
		t.Errorf("a chain of %d: %v", MaxDepth, err)
	}
	_, err := ParseProgram("c.rrf", []byte(chain(20_000)))
	if err == nil || !strings.Contains(err.Error(), "parfeatures nested too deeply") || !strings.HasPrefix(err.Error(), "c.rrf:") {
		t.Errorf("a chain of 20,000: %v", err)
	}
	// A diamond whose longest path (root, D1, D2, G1 ... G998: 1001
	// levels) is too deep although the depth-first walk first reaches the
	// G chain by the short path (root, G1 ...: 999 levels).
	var b strings.Builder
	b.WriteString("Smokes(person)\nroot = 1 * sum(x) G1(x) + 1 * sum(x) D1(x)\nD1(x) = 1 * D2(x)\nD2(x) = 1 * G1(x)\n")
	for i := 1; i < MaxDepth-2; i++ {
		fmt.Fprintf(&b, "G%d(x) = 1 * G%d(x)\n", i, i+1)
	}
	fmt.Fprintf(&b, "G%d(x) = 1 * Smokes(x)\n", MaxDepth-2)
	if _, err := ParseProgram("d.rrf", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "d.rrf:4:1: parfeatures nested too deeply") {
		t.Errorf("a deep diamond: %v", err)
	}
	kb, err := mln.ParseProgram("k.mln", []byte("P(t)\n1 P(A)\n"))
	if err != nil {
		t.Fatal(err)
	}
	var n mln.Node = &mln.Atom{Pred: "P", Args: []mln.Term{{Name: "A"}}}
	for range 5000 {
		n = &mln.Not{X: n}
	}
	kb.Formulas[0].F = n
	if _, err := FromMLN(kb, 10, 20); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("FromMLN: %v", err)
	}
}

// TestGroundUnreachedTargets: every unknown atom is a variable, those no
// parfeature reaches too: they are uniform and independent of the rest, so
// Gibbs gives them 0.5, and the pseudo-log-likelihood counts log 1/2 for
// each. They were left out: rrf infer did not list them, and learning
// reported -0.2014 for the exact -0.2014 + 3 log 1/2 = -2.2809.
func TestGroundUnreachedTargets(t *testing.T) {
	p, err := ParseProgram("u.rrf", []byte("t = {A, B}\nP(t)\nQ(t)\nroot = 1.5 * P(A)\n"))
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p.Decls, nil, mln.Options{Query: []string{"P", "Q"}})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := p.Ground(net, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range gr.Atoms {
		names = append(names, a.Pred+"("+strings.Join(a.Args, ",")+")")
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"P(A)", "P(B)", "Q(A)", "Q(B)"}) {
		t.Fatalf("variables %v, want every unknown atom", names)
	}
	probs, err := Gibbs(context.Background(), gr.Net, gr.Evidence, nil, GibbsOptions{Samples: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for v, a := range gr.Atoms {
		want := 0.5
		if a.Pred == "P" && a.Args[0] == "A" {
			want = 1 / (1 + math.Exp(-1.5))
		}
		if math.Abs(probs[v]-want) > 0.02 {
			t.Errorf("%s(%s): %.4f, exact %.4f", a.Pred, strings.Join(a.Args, ","), probs[v], want)
		}
	}
	training, err := mln.ParseAtoms("t.db", []byte("P(A)\n"), p.Decls, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.LearnRelational(context.Background(), training, []string{"P", "Q"}, LearnOptions{L2: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	// At the file's weight (held there by the pull): log sigma(1.5) for
	// P(A), log 1/2 for each of the other three.
	if want := -math.Log1p(math.Exp(-1.5)) + 3*math.Log(0.5); math.Abs(res.PLL-want) > 1e-6 {
		t.Errorf("pseudo-log-likelihood %.6f, want %.6f", res.PLL, want)
	}
}

// TestLearnRelationalNothingToLearn: training data without a constant of
// the query predicates' types leave no atom whose probability depends on
// the weights: an error, not a "converged" run that wrote the file's
// weights back as learned.
func TestLearnRelationalNothingToLearn(t *testing.T) {
	p, err := ParseProgram("e.rrf", []byte("Smokes(person)\nCancer(person)\nroot = 1.5 * sum(x) Smokes(x) + 1 * sum(x) Cancer(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.LearnRelational(context.Background(), nil, []string{"Smokes"}, LearnOptions{}); err == nil || !strings.Contains(err.Error(), "nothing to learn") {
		t.Errorf("empty training data: %v", err)
	}
}
