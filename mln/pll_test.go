package mln

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/hinge-srl/hinge/ground"
)

// parseLearning parses a program and a training database.
func parseLearning(t *testing.T, prog, db string) (*Program, []GroundAtom) {
	t.Helper()
	p, err := ParseProgram("l.mln", []byte(prog))
	if err != nil {
		t.Fatal(err)
	}
	atoms, err := ParseAtoms("l.db", []byte(db), p, false)
	if err != nil {
		t.Fatal(err)
	}
	return p, atoms
}

// The domains of learning come from the whole training world, whichever
// predicates are queried: a constant that only a query predicate's atom
// mentions is in its type's domain (it used to be missing, and the atoms
// counted depended on -q).
func TestLearnDomainsIndependentOfQuery(t *testing.T) {
	prog := "Smokes(person)\nFriends(person, person)\n1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n1 Smokes(x)\n"
	p, atoms := parseLearning(t, prog, "Friends(A, B)\nFriends(B, A)\nSmokes(C)\n")
	for _, tc := range []struct {
		query []string
		atoms int
		preds []string
	}{
		{[]string{"Smokes"}, 3, []string{"Smokes"}},
		{[]string{"Friends"}, 9, []string{"Friends"}},
		{[]string{"Smokes", "Friends"}, 12, []string{"Smokes", "Friends"}},
		{nil, 12, []string{"Smokes", "Friends"}}, // every predicate, as learnwts -g without -ne
	} {
		res, err := LearnPLL(context.Background(), p, atoms, tc.query, LearnOptions{})
		if err != nil {
			t.Fatalf("%v: %v", tc.query, err)
		}
		if res.Atoms != tc.atoms || !slices.Equal(res.Predicates, tc.preds) {
			t.Errorf("-q %v: %d atoms of %v, want %d of %v", tc.query, res.Atoms, res.Predicates, tc.atoms, tc.preds)
		}
	}
}

// Learning that cannot learn anything is an error, not a program of zero
// weights.
func TestLearnNothingToLearn(t *testing.T) {
	for _, tc := range []struct {
		prog, db string
		query    []string
		want     string
	}{
		// No constants of type t anywhere: no groundings at all.
		{"P(t)\nQ(t)\n1 P(x) => Q(x)\n", "", nil, "no ground clauses over the training world"},
		// Every grounding is fixed by the evidence (Q is not queried).
		{"P(t)\nQ(t)\n1 Q(x)\n", "Q(A)\nP(A)\n", []string{"P"}, "no ground clauses over the training world"},
		{"P(t)\n", "P(A)\n", nil, "the program has no formulas"},
		{"P(t)\nP(x).\n", "P(A)\n", nil, "no soft formula to learn"},
		{"P(t)\n@1 P(x)\n", "P(A)\n", nil, "every soft formula has a fixed weight"},
		{"P(t)\n1 P(x)\n", "P(A)\n", []string{"Q"}, "query predicate Q is not declared"},
	} {
		p, atoms := parseLearning(t, tc.prog, tc.db)
		_, err := LearnPLL(context.Background(), p, atoms, tc.query, LearnOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.prog, err, tc.want)
		}
	}
	p, atoms := parseLearning(t, "P(t)\nQ(t)\n1 P(x) => Q(x)\n", "P(A)\n")
	if _, err := LearnDiscriminative(context.Background(), p, atoms, nil, DiscOptions{}); err == nil || !strings.Contains(err.Error(), "needs the query predicates") {
		t.Errorf("dn without query predicates: %v", err)
	}
}

// The pseudo-likelihood's optimum in closed form: with the one formula
// Smokes(x) => Cancer(x) of weight w, a person with Cancer or without
// Smokes gives log(1/2) for the atom whose flip cannot change the clause,
// and n00 + n11 atoms are observed in the state where the clause holds and
// 2 n10 (both atoms of each person with Smokes and not Cancer) where it
// fails: PLL(w) = (n00 + n11) log sigma(w) + 2 n10 log sigma(-w) + const,
// maximal at w = log((n00 + n11) / (2 n10)). Both predicates have n atoms,
// so weighing each predicate by 1/n moves nothing.
func TestLearnPLLClosedForm(t *testing.T) {
	counts := map[string]int{"00": 7, "01": 5, "10": 3, "11": 9} // Smokes, Cancer
	var db strings.Builder
	i := 0
	for _, s := range []string{"00", "01", "10", "11"} {
		for range counts[s] {
			if s[0] == '1' {
				fmt.Fprintf(&db, "Smokes(P%d)\n", i)
			} else {
				fmt.Fprintf(&db, "!Smokes(P%d)\n", i)
			}
			if s[1] == '1' {
				fmt.Fprintf(&db, "Cancer(P%d)\n", i)
			}
			i++
		}
	}
	p, atoms := parseLearning(t, "Smokes(person)\nCancer(person)\nSmokes(x) => Cancer(x)\n", db.String())
	want := math.Log(float64(counts["00"]+counts["11"]) / float64(2*counts["10"]))
	for _, atomWeights := range []bool{false, true} {
		res, err := LearnPLL(context.Background(), p, atoms, nil, LearnOptions{PriorStdDev: -1, AtomWeights: atomWeights})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged || math.Abs(res.Weights[0]-want) > 1e-5 {
			t.Errorf("atom weights %v: learned %.7f (%s), closed form %.7f", atomWeights, res.Weights[0], res.Status, want)
		}
	}
}

// TestPLLMatchesDefinition checks the (weighted) pseudo-log-likelihood
// against its definition evaluated on the formulas (score, by grounding
// every formula over the domains), on a random world of a small relational
// program over every predicate: log P(x_a | rest) from the scores of the
// world and of the world with a flipped, each predicate's atoms weighted
// by one over its number of groundings. Then the learned weights are a
// stationary point of that definition (finite differences).
func TestPLLMatchesDefinition(t *testing.T) {
	prog := `person = {A, B, C}
food = {F1, F2}
Smokes(person)
Cancer(person)
Friends(person, person)
Likes(person, food)
0 Smokes(x) => Cancer(x)
0 Friends(x, y) ^ Smokes(x) => Smokes(y)
0 Likes(x, f) v !Smokes(x)
0 Friends(x, y)
0 !Cancer(x) v Likes(x, f) v Friends(x, x)
`
	persons, foods := []string{"A", "B", "C"}, []string{"F1", "F2"}
	dom := map[string][]string{"person": persons, "food": foods}
	rng := rand.New(rand.NewPCG(3, 4))
	w := world{}
	var db strings.Builder
	var names []string
	add := func(pred string, args ...string) {
		k := key(pred, args)
		names = append(names, k)
		if rng.IntN(2) == 0 {
			w[k] = true
			fmt.Fprintf(&db, "%s(%s)\n", pred, strings.Join(args, ", "))
		}
	}
	for _, a := range persons {
		add("Smokes", a)
		add("Cancer", a)
		for _, b := range persons {
			add("Friends", a, b)
		}
		for _, f := range foods {
			add("Likes", a, f)
		}
	}
	p, atoms := parseLearning(t, prog, db.String())
	groundings := map[string]float64{"Smokes": 3, "Cancer": 3, "Friends": 9, "Likes": 6}
	// pll evaluates the definition at weights ws.
	pll := func(ws []float64, atomWeights bool) float64 {
		for i, f := range p.Formulas {
			f.Weight = ws[i]
		}
		total := 0.0
		for _, k := range names {
			s1, _ := score(t, p, w, dom)
			w[k] = !w[k]
			s0, _ := score(t, p, w, dom)
			w[k] = !w[k]
			c := 1.0
			if !atomWeights {
				c = 1 / groundings[k[:strings.Index(k, "(")]]
			}
			total += c * (s1 - math.Log(math.Exp(s1)+math.Exp(s0)))
		}
		for _, f := range p.Formulas {
			f.Weight = 0
		}
		return total
	}
	for _, atomWeights := range []bool{false, true} {
		// The pseudo-likelihood from the kept ground clauses and from the
		// clauses streamed out of the grounder.
		l, _, err := prepareLearning(context.Background(), p, atoms, nil, ground.Options{}, false)
		if err != nil {
			t.Fatal(err)
		}
		ls, _, err := prepareLearning(context.Background(), p, atoms, nil, ground.Options{Threads: 3}, true)
		if err != nil {
			t.Fatal(err)
		}
		defer func(m int64) { maxDense = m }(maxDense)
		maxDense = 0 // a sparse builder
		lsp, _, err := prepareLearning(context.Background(), p, atoms, nil, ground.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		maxDense = 1 << 26
		scale := l.scale
		if atomWeights {
			scale, ls.pl.scale, lsp.pl.scale = nil, nil, nil
		}
		pls := map[string]*pseudoLikelihood{"kept": newPseudoLikelihood(l.in, l.param, l.share, l.x, scale, len(l.learned), 2),
			"streamed": ls.pl, "streamed, sparse": lsp.pl}
		for trial := range 3 {
			ws := make([]float64, len(p.Formulas))
			for i := range ws {
				ws[i] = rng.NormFloat64()
			}
			// The network drops the groundings the training world fixes
			// and atoms in no clause, which add a constant: compare
			// differences from the weights 0.
			want := pll(ws, atomWeights) - pll(make([]float64, len(ws)), atomWeights)
			for name, pl := range pls {
				got := pl.eval(ws, nil) - pl.eval(make([]float64, len(ws)), nil)
				if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
					t.Errorf("%s, atom weights %v, trial %d: pseudo-log-likelihood change %.12g, definition %.12g", name, atomWeights, trial, got, want)
				}
			}
		}
		res, err := LearnPLL(context.Background(), p, atoms, nil, LearnOptions{PriorStdDev: 10, AtomWeights: atomWeights})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Errorf("atom weights %v: L-BFGS %s", atomWeights, res.Status)
		}
		// The objective by definition, with the prior, is stationary there.
		obj := func(ws []float64) float64 {
			f := pll(ws, atomWeights)
			for _, v := range ws {
				f -= v * v / (2 * 100)
			}
			return f
		}
		for i := range res.Weights {
			h := 1e-5
			wp, wm := slices.Clone(res.Weights), slices.Clone(res.Weights)
			wp[i] += h
			wm[i] -= h
			if d := (obj(wp) - obj(wm)) / (2 * h); math.Abs(d) > 1e-4 {
				t.Errorf("atom weights %v: derivative %.3g in weight %d at the learned weights %.4f", atomWeights, d, i, res.Weights)
			}
		}
	}
}

// block is a small Markov logic network whose ground atoms split into
// independent blocks of the same shape, one per person, so that a
// training world can be sampled exactly (each block by enumeration of its
// states) and the pseudo-likelihood estimator's sampling distribution is
// known: its asymptotic covariance is H^-1 J H^-1 / n for the expected
// Hessian H and score covariance J of one block (the sandwich), computed
// by enumeration.
type block struct {
	prog  string
	atoms []string  // a block's atoms, written with %[1]s for the person
	scale []float64 // each atom's weight in the pseudo-likelihood (1/N_p, times n)
	// phi are the sufficient statistics of a block state (bit i: atom i):
	// one per learned weight, in the order of LearnResult.Params.
	phi    func(s int) []float64
	truth  []float64
	params []string // how the params are named in a failure
}

// sample writes a training database of n independent blocks drawn from
// the block's distribution under weights truth, and returns it with the
// blocks' states.
func (b *block) sample(rng *rand.Rand, n int) (string, []int) {
	k := len(b.atoms)
	probs := make([]float64, 1<<k)
	z := 0.0
	for s := range probs {
		e := 0.0
		for i, f := range b.phi(s) {
			e += b.truth[i] * f
		}
		probs[s] = math.Exp(e)
		z += probs[s]
	}
	var db strings.Builder
	states := make([]int, n)
	for i := range n {
		u, s := rng.Float64()*z, 0
		for s < len(probs)-1 && u > probs[s] {
			u -= probs[s]
			s++
		}
		states[i] = s
		for a, atom := range b.atoms {
			// False atoms are written too, so that every person is in the
			// domain.
			if s>>a&1 == 0 {
				db.WriteByte('!')
			}
			fmt.Fprintf(&db, atom+"\n", fmt.Sprintf("P%d", i))
		}
	}
	return db.String(), states
}

// sd is the asymptotic standard deviation of each weight's estimate from n
// blocks.
func (b *block) sd(n int) []float64 {
	k, m := len(b.atoms), len(b.truth)
	probs := make([]float64, 1<<k)
	z := 0.0
	for s := range probs {
		e := 0.0
		for i, f := range b.phi(s) {
			e += b.truth[i] * f
		}
		probs[s] = math.Exp(e)
		z += probs[s]
	}
	H, J := mat.NewSymDense(m, nil), mat.NewSymDense(m, nil)
	for s, p := range probs {
		p /= z
		phi := b.phi(s)
		grad := make([]float64, m)
		for a := range b.atoms {
			flip := b.phi(s ^ 1<<a)
			d := make([]float64, m)
			e := 0.0
			for i := range d {
				d[i] = phi[i] - flip[i]
				e += b.truth[i] * d[i]
			}
			sig := 1 / (1 + math.Exp(-e))
			for i := range d {
				grad[i] += b.scale[a] * (1 - sig) * d[i]
				for j := i; j < m; j++ {
					H.SetSym(i, j, H.At(i, j)+p*b.scale[a]*sig*(1-sig)*d[i]*d[j])
				}
			}
		}
		for i := range grad {
			for j := i; j < m; j++ {
				J.SetSym(i, j, J.At(i, j)+p*grad[i]*grad[j])
			}
		}
	}
	var hi mat.Dense
	if err := hi.Inverse(H); err != nil {
		panic(err)
	}
	var cov mat.Dense
	cov.Product(&hi, J, &hi)
	out := make([]float64, m)
	for i := range out {
		out[i] = math.Sqrt(cov.At(i, i) / float64(n))
	}
	return out
}

// bit is 1 when atom a is true in block state s.
func bit(s, a int) float64 { return float64(s >> a & 1) }

// TestLearnRecoversGeneratingWeights draws training worlds exactly from
// known networks with unary and binary predicates, learns over every
// predicate (no query predicates, as learnwts -g) without a prior, and
// checks each weight within 4 asymptotic standard deviations of the
// generating one (the sandwich covariance of the pseudo-likelihood
// estimator, computed by enumeration: a correct learner fails with
// probability below 1e-4 per weight, and a wrong objective, weighting or
// tying of weights moves the estimate by many of them at this size). The
// second network has per-constant weights (Owns(x, +p)): one is recovered
// per pet.
func TestLearnRecoversGeneratingWeights(t *testing.T) {
	const n = 3000
	pets := []string{"P1", "P2", "P3"}
	// A block: Happy(x), Walks(x), Owns(x, P1..P3); Owns has 3n atoms,
	// the others n, so its atoms weigh 1/3 as much in the pseudo-likelihood.
	atoms := []string{"Happy(%[1]s)", "Walks(%[1]s)", "Owns(%[1]s, P1)", "Owns(%[1]s, P2)", "Owns(%[1]s, P3)"}
	decls := "pet = {P1, P2, P3}\nHappy(person)\nWalks(person)\nOwns(person, pet)\n"
	for _, tc := range []struct {
		name string
		b    block
	}{
		{"shared", block{
			prog:  decls + "0 Owns(x, p) => Happy(x)\n0 Happy(x) => Walks(x)\n0 Owns(x, p)\n0 Walks(x)\n",
			atoms: atoms, scale: []float64{1, 1, 1.0 / 3, 1.0 / 3, 1.0 / 3},
			phi: func(s int) []float64 {
				owns, happy, walks := 0.0, bit(s, 0), bit(s, 1)
				implied := 0.0
				for p := range 3 {
					owns += bit(s, 2+p)
					implied += 1 - bit(s, 2+p)*(1-happy)
				}
				return []float64{implied, 1 - happy*(1-walks), owns, walks}
			},
			truth:  []float64{0.7, 1.1, -1.0, -0.4},
			params: []string{"Owns => Happy", "Happy => Walks", "Owns", "Walks"},
		}},
		{"per pet", block{
			prog:  decls + "0 Owns(x, +p) => Happy(x)\n0 Happy(x) => Walks(x)\n0 Owns(x, p)\n",
			atoms: atoms, scale: []float64{1, 1, 1.0 / 3, 1.0 / 3, 1.0 / 3},
			phi: func(s int) []float64 {
				happy, walks := bit(s, 0), bit(s, 1)
				out := make([]float64, 0, 5)
				owns := 0.0
				for p := range 3 {
					out = append(out, 1-bit(s, 2+p)*(1-happy))
					owns += bit(s, 2+p)
				}
				return append(out, 1-happy*(1-walks), owns)
			},
			truth:  []float64{1.5, -0.6, 0.3, 1.1, -0.5},
			params: []string{"Owns(x, P1) => Happy", "Owns(x, P2) => Happy", "Owns(x, P3) => Happy", "Happy => Walks", "Owns"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := tc.b.sample(rand.New(rand.NewPCG(17, 29)), n)
			p, train := parseLearning(t, tc.b.prog, db)
			res, err := LearnPLL(context.Background(), p, train, nil, LearnOptions{PriorStdDev: -1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged || res.Atoms != 5*n || len(res.Params) != len(tc.b.truth) {
				t.Fatalf("converged %v (%s), %d atoms, %d params", res.Converged, res.Status, res.Atoms, len(res.Params))
			}
			sd := tc.b.sd(n)
			for i, want := range tc.b.truth {
				got := res.Params[i]
				if i < 3 && tc.name == "per pet" && !slices.Equal(got.Constants, pets[i:i+1]) {
					t.Errorf("param %d: constants %v, want %v", i, got.Constants, pets[i:i+1])
				}
				if math.Abs(got.Weight-want) > 4*sd[i] {
					t.Errorf("%s: learned %.4f, generating %.4f (4 sd = %.4f)", tc.b.params[i], got.Weight, want, 4*sd[i])
				}
			}
			t.Logf("learned %v; sd %.3f", res.Params, sd)
		})
	}
}

// A +x formula is written back as Alchemy writes it: one formula per
// constant with its weight, after a comment keeping the formula; the file
// reads back and its formulas carry the learned weights.
func TestWithWeightsPerConstant(t *testing.T) {
	src := "// pets\npet = {Cat, \"Big dog\"}\nHappy(person)\nOwns(person, pet)\n  1.5 Owns(x, +p) => Happy(x)  // per pet\n0.2 Happy(x)\n"
	p, err := ParseProgram("w.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := &LearnResult{Weights: []float64{1.5, 0.7}, Learned: []bool{true, true}, Params: []LearnedWeight{
		{Formula: 0, Constants: []string{"Cat"}, Initial: 1.5, Weight: -0.25, Clauses: 3},
		{Formula: 0, Constants: []string{"Big dog"}, Initial: 1.5, Weight: 2, Clauses: 3},
		{Formula: 1, Initial: 0.2, Weight: 0.7, Clauses: 3},
	}}
	out, err := WithWeights("w.mln", []byte(src), p, res)
	if err != nil {
		t.Fatal(err)
	}
	want := "// pets\npet = {Cat, \"Big dog\"}\nHappy(person)\nOwns(person, pet)\n" +
		"  // Owns(x, +p) => Happy(x): one weight per constant of +p, learned\n" +
		"-0.25  Owns(x, Cat) => Happy(x)\n" +
		"2  Owns(x, \"Big dog\") => Happy(x)  // per pet\n" +
		"0.7 Happy(x)\n"
	if string(out) != want {
		t.Fatalf("written:\n%s\nwant:\n%s", out, want)
	}
	q, err := ParseProgram("w.mln", out)
	if err != nil {
		t.Fatal(err)
	}
	var ws []float64
	for _, f := range q.Formulas {
		ws = append(ws, f.Weight)
	}
	if !slices.Equal(ws, []float64{-0.25, 2, 0.7}) {
		t.Errorf("weights read back %v", ws)
	}
	if got := p.Formulas[0].Instance([]string{"Big dog"}); got != `Owns(x, "Big dog") => Happy(x)` {
		t.Errorf("Instance: %s", got)
	}
}

// TestLearnPLLMatchesAlchemy compares LearnPLL with the weights Alchemy 2's
// learnwts -g learned on the same program and training database
// (examples/mln/smokers.db; its clause formulas written as clauses, so that
// Alchemy's per-clause weights are the formulas'), run as
//
//	learnwts -g -i s.mln -o a.mln -t smokers.db -noAddUnitClauses [OPTION]
//
// Alchemy stops L-BFGS-B when the pseudo-log-likelihood changes by less
// than a fraction 1e-5, hinge when the gradient is below 1e-6: the weights
// agree to 3e-3 (at most), and the tolerance is 5e-3. The same objective
// (each predicate's atoms weighted by 1/N_p, the prior centred on the
// file's weights, every predicate without -ne) and the same domains give
// the same weights; a different one moves them by tenths.
func TestLearnPLLMatchesAlchemy(t *testing.T) {
	const prog = `Smokes(person)
Cancer(person)
Friends(person, person)

1.5 !Smokes(x) v Cancer(x)
1.1 !Friends(x, y) v !Smokes(x) v Smokes(y)
0.5 !Cancer(x)
`
	db, err := os.ReadFile("../examples/mln/smokers.db")
	if err != nil {
		t.Fatal(err)
	}
	p, atoms := parseLearning(t, prog, string(db))
	for _, tc := range []struct {
		option string // Alchemy's
		query  []string
		opt    LearnOptions
		want   []float64 // Alchemy's weights
	}{
		{"", nil, LearnOptions{}, []float64{1.70608, -1.189, 1.85841}},
		{"-ne Smokes,Cancer", []string{"Smokes", "Cancer"}, LearnOptions{}, []float64{2.00661, -1.49825, 1.96449}},
		{"-gNoEqualPredWt true", nil, LearnOptions{AtomWeights: true}, []float64{1.24887, -0.690906, 1.70865}},
		{"-priorStdDev 1", nil, LearnOptions{PriorStdDev: 1}, []float64{1.30449, 0.570263, 0.69576}},
	} {
		res, err := LearnPLL(context.Background(), p, atoms, tc.query, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tc.want {
			if math.Abs(res.Weights[i]-w) > 5e-3 {
				t.Errorf("learnwts -g %s: formula %d learned %.5f, Alchemy %.5f", tc.option, i, res.Weights[i], w)
			}
		}
	}
}

// TestLearnDiscriminativeRecoversGeneratingWeights learns the weights of
// the formulas over Happy and Walks by diagonal Newton, conditioned on Owns
// (the evidence), from a world drawn exactly from a known network (the
// blocks of TestLearnRecoversGeneratingWeights). The conditional
// log-likelihood factorises over the persons, so its exact maximiser is
// found by Newton's method on each block's enumerated conditional
// distribution: diagonal Newton, whose expectations come from MC-SAT, must
// come within 0.05 of it (its Monte Carlo error across seeds is about
// 0.015), and the exact maximiser within 4 standard deviations of the
// generating weights (the inverse conditional Fisher information over n).
// Owns(x, p) alone has no ground clause once Owns is evidence: its weight
// stays.
func TestLearnDiscriminativeRecoversGeneratingWeights(t *testing.T) {
	const n = 300
	b := block{
		prog:  "pet = {P1, P2, P3}\nHappy(person)\nWalks(person)\nOwns(person, pet)\n0 Owns(x, p) => Happy(x)\n0 Happy(x) => Walks(x)\n0.25 Owns(x, p)\n0 Walks(x)\n",
		atoms: []string{"Happy(%[1]s)", "Walks(%[1]s)", "Owns(%[1]s, P1)", "Owns(%[1]s, P2)", "Owns(%[1]s, P3)"},
		phi: func(s int) []float64 {
			owns, happy, walks := 0.0, bit(s, 0), bit(s, 1)
			implied := 0.0
			for p := range 3 {
				owns += bit(s, 2+p)
				implied += 1 - bit(s, 2+p)*(1-happy)
			}
			return []float64{implied, 1 - happy*(1-walks), owns, walks}
		},
		truth: []float64{0.7, 1.1, -1.0, -0.4},
	}
	db, states := b.sample(rand.New(rand.NewPCG(5, 8)), n)
	p, train := parseLearning(t, b.prog, db)
	res, err := LearnDiscriminative(context.Background(), p, train, []string{"Happy", "Walks"}, DiscOptions{Iterations: 30, Seed: 2, PriorStdDev: -1})
	if err != nil {
		t.Fatal(err)
	}
	learned := []int{0, 1, 3} // the formulas over Happy or Walks
	// cond returns, for a block with Owns state o (bits 2-4) and weights w,
	// the mean and covariance of the learned formulas' statistics over its
	// four Happy/Walks states.
	cond := func(o int, w []float64) ([]float64, [][]float64) {
		var probs []float64
		var phis [][]float64
		z := 0.0
		for hw := range 4 {
			phi := b.phi(o | hw)
			e := 0.0
			for k, i := range learned {
				e += w[k] * phi[i]
			}
			probs = append(probs, math.Exp(e))
			phis = append(phis, phi)
			z += math.Exp(e)
		}
		mean := make([]float64, 3)
		cov := [][]float64{make([]float64, 3), make([]float64, 3), make([]float64, 3)}
		for s, phi := range phis {
			for k, i := range learned {
				mean[k] += probs[s] / z * phi[i]
			}
		}
		for s, phi := range phis {
			for k, i := range learned {
				for m, j := range learned {
					cov[k][m] += probs[s] / z * (phi[i] - mean[k]) * (phi[j] - mean[m])
				}
			}
		}
		return mean, cov
	}
	solve := func(a [][]float64, g []float64) []float64 {
		var m mat.Dense
		if err := m.Inverse(mat.NewDense(3, 3, append(append(slices.Clone(a[0]), a[1]...), a[2]...))); err != nil {
			t.Fatal(err)
		}
		var d mat.VecDense
		d.MulVec(&m, mat.NewVecDense(3, g))
		return d.RawVector().Data
	}
	// The exact maximiser, by Newton's method.
	w := make([]float64, 3)
	for range 50 {
		g := make([]float64, 3)
		h := [][]float64{make([]float64, 3), make([]float64, 3), make([]float64, 3)}
		for _, s := range states {
			mean, cov := cond(s&^3, w)
			phi := b.phi(s)
			for k, i := range learned {
				g[k] += phi[i] - mean[k]
				for m := range 3 {
					h[k][m] += cov[k][m]
				}
			}
		}
		d := solve(h, g)
		for k := range w {
			w[k] += d[k]
		}
	}
	// The conditional Fisher information of one block: the expected
	// covariance over the Owns states, each with its probability under
	// the generating weights.
	truth := []float64{b.truth[0], b.truth[1], b.truth[3]}
	info := [][]float64{make([]float64, 3), make([]float64, 3), make([]float64, 3)}
	pOwns := make([]float64, 32)
	zAll := 0.0
	for s := range 32 {
		e := 0.0
		for i, f := range b.phi(s) {
			e += b.truth[i] * f
		}
		pOwns[s&^3] += math.Exp(e)
		zAll += math.Exp(e)
	}
	for o := 0; o < 32; o += 4 {
		_, cov := cond(o, truth)
		for k := range 3 {
			for m := range 3 {
				info[k][m] += pOwns[o] / zAll * cov[k][m]
			}
		}
	}
	for k, i := range learned {
		e := make([]float64, 3)
		e[k] = 1
		sd := math.Sqrt(solve(info, e)[k] / n)
		if got := res.Weights[i]; math.Abs(got-w[k]) > 0.05 {
			t.Errorf("formula %d: diagonal Newton %.4f, exact conditional maximiser %.4f", i, got, w[k])
		}
		if math.Abs(w[k]-truth[k]) > 4*sd {
			t.Errorf("formula %d: exact conditional maximiser %.4f, generating weight %.4f (4 sd = %.4f)", i, w[k], truth[k], 4*sd)
		}
	}
	if res.Learned[2] || res.Weights[2] != 0.25 {
		t.Errorf("Owns(x, p): learned %v, weight %v; it has no ground clause and keeps 0.25", res.Learned[2], res.Weights[2])
	}
	t.Logf("diagonal Newton %.4f (%s), exact %.4f, generating %.4f", res.Weights, res.Status, w, truth)
}

// TestInstanceSubstitutesEveryOccurrence: a +x formula's instance for a
// constant names the constant wherever x occurs, as Build grounds it: the
// written P(A) => Q(x) was a formula over every x (three groundings where
// the learned weight had one). Predicate names and other variables stay.
func TestInstanceSubstitutesEveryOccurrence(t *testing.T) {
	p, err := ParseProgram("i.mln", []byte("t = {A, B}\nP(t)\nQ(t, t)\nx(t)\n"+
		"0.5 P(+x) => Q(x, x)\n"+
		"1 P(+x) ^ Q(x, +y) => x(y)\n"+
		"2 P(+x) => EXIST y Q(x, y)\n"+
		"3 P(+x) => EXIST x Q(x, x)\n"+
		"4 (EXIST x, y Q(x, y)) => P(+x) v Q(x, x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f      int
		consts []string
		want   string
	}{
		{0, []string{"A"}, "P(A) => Q(A, A)"},
		{1, []string{"B", "A"}, "P(B) ^ Q(B, A) => x(A)"},
		{2, []string{"A"}, "P(A) => EXIST y Q(A, y)"},
		// A quantifier that binds the name again makes another variable,
		// up to the end of its parentheses (it was written EXIST A Q(A, A),
		// which does not parse).
		{3, []string{"A"}, "P(A) => EXIST x Q(x, x)"},
		{4, []string{"B"}, "(EXIST x, y Q(x, y)) => P(B) v Q(B, B)"},
	} {
		got := p.Formulas[tc.f].Instance(tc.consts)
		if got != tc.want {
			t.Errorf("formula %d with %v: %q, want %q", tc.f, tc.consts, got, tc.want)
		}
		if _, err := ParseProgram("w.mln", []byte("t = {A, B}\nP(t)\nQ(t, t)\nx(t)\n1 "+got+"\n")); err != nil {
			t.Errorf("formula %d written as %q does not read back: %v", tc.f, got, err)
		}
	}
}
