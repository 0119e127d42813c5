package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
)

// lazySamplerCases are Markov logic networks of at most 16 unknown atoms
// with hard clauses (an equivalence, a symmetry, a functional constraint),
// near-deterministic soft clauses (|w| 10-20), negative weights and
// opposite unit clauses on one atom. Every open predicate has a unit
// clause, so that every atom is activated (see LazyMarginals).
var lazySamplerCases = []struct {
	name, prog, evidence string
	query                []string
}{
	{"equivalence", `person = {A, B, C}
P(person)
Q(person)
0.5 P(x)
-1 Q(x)
P(x) <=> Q(x).
`, "", []string{"P", "Q"}},
	{"near-deterministic equivalence", `person = {A, B, C}
P(person)
Q(person)
0.5 P(x)
-1 Q(x)
15 P(x) => Q(x)
15 Q(x) => P(x)
`, "", []string{"P", "Q"}},
	{"symmetry", `person = {A, B, C}
Friends(person, person)
Smokes(person)
*Knows(person, person)
Friends(x, y) => Friends(y, x).
0.2 Friends(x, y)
-0.8 Friends(x, y) ^ Friends(y, x)
0.5 Smokes(x)
2 Friends(x, y) ^ Smokes(x) => Smokes(y)
1.5 Knows(x, y) => Friends(x, y)
`, "Knows(A, B)\nKnows(B, C)\n", []string{"Friends", "Smokes"}},
	{"functional", `person = {A, B}
pos = {Chief, Clerk, Temp}
HasPos(person, pos!)
Rich(person)
1 HasPos(x, Chief)
-0.5 HasPos(x, Temp)
12 HasPos(x, Chief) => Rich(x)
-1 Rich(x)
0.7 HasPos(A, Clerk) v HasPos(B, Clerk)
`, "", []string{"HasPos", "Rich"}},
	{"opposite units", `person = {A, B}
Adv(person)
S(person)
T(person)
22 Adv(x)
12 !Adv(x)
0.5 !Adv(x) v S(x)
18 T(x)
18.5 !T(x)
-9 S(x)
10 S(x)
1 !S(x) v !T(x)
`, "", []string{"Adv", "S", "T"}},
	{"near-deterministic chain", `step = {1, 2, 3, 4, 5, 6}
*Next(step, step)
On(step)
20 On(x) ^ Next(x, y) => On(y)
10 On(y) ^ Next(x, y) => On(x)
0.3 On(1)
-0.8 On(x)
`, "Next(1, 2)\nNext(2, 3)\nNext(3, 4)\nNext(4, 5)\nNext(5, 6)\n", []string{"On"}},
}

// lazyMarginalsByKey runs LazyMarginals on a lazily built network and
// returns the estimates by atom key.
func lazyMarginalsByKey(t *testing.T, prog, evidence string, query []string, opt LazySampleOptions) (map[string]float64, *LazyMarginalResult) {
	t.Helper()
	_, _, net := network(t, prog, evidence, Options{Query: query, Lazy: true})
	res, err := net.LazyMarginals(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for i, a := range res.Atoms {
		got[key(a.Pred.Name, res.Args(net.Store, i))] = res.Probs[i]
	}
	return got, res
}

// TestLazyMCSATAgainstEnumeration: lazy MC-SAT's marginals are within 0.02
// of the exact ones (every world of the full ground network enumerated)
// and of full MC-SAT's, at 10^4 samples for several seeds, on networks
// with hard clauses, near-deterministic clauses, negative weights and
// opposite unit clauses; the chains say they have mixed, and every atom of
// the full network was activated.
func TestLazyMCSATAgainstEnumeration(t *testing.T) {
	for _, tc := range lazySamplerCases {
		t.Run(tc.name, func(t *testing.T) {
			query := tc.query
			_, _, full := network(t, tc.prog, tc.evidence, Options{Query: query})
			g, in, err := full.GroundClauses(ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if in.NumVars > 16 || in.NumVars < 4 {
				t.Fatalf("%d unknown atoms (query %v)", in.NumVars, query)
			}
			exact := exactMarginals(in)
			fullMC, err := MCSAT(context.Background(), in, SampleOptions{Samples: 10000, BurnIn: 100, Chains: 4, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= 3; seed++ {
				got, res := lazyMarginalsByKey(t, tc.prog, tc.evidence, query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 10000, BurnIn: 100, Chains: 4, Seed: seed}})
				if len(got) != in.NumVars {
					t.Fatalf("seed %d: %d atoms activated, the full network has %d", seed, len(got), in.NumVars)
				}
				for v := range g.Vars {
					k := key(g.Vars[v].Pred.Name, g.Args(v))
					p, ok := got[k]
					if !ok {
						t.Fatalf("seed %d: %s never activated", seed, k)
					}
					if d := math.Abs(p - exact[v]); d > 0.02 {
						t.Errorf("seed %d: %s lazy %.4f, exact %.4f", seed, k, p, exact[v])
					}
					if d := math.Abs(p - fullMC.Probs[v]); d > 0.02 {
						t.Errorf("seed %d: %s lazy %.4f, full MC-SAT %.4f (exact %.4f)", seed, k, p, fullMC.Probs[v], exact[v])
					}
				}
				if !res.Diagnostics.Mixed {
					t.Errorf("seed %d: chains reported unmixed (R-hat %.3f)", seed, res.Diagnostics.RHat)
				}
				if res.Merged > res.ActiveClauses || res.ActiveClauses > in.NumClauses() {
					t.Errorf("seed %d: %d ground clauses built (%d merged), the full network has %d", seed, res.ActiveClauses, res.Merged, in.NumClauses())
				}
			}
		})
	}
}

// TestLazyMCSATActivatesMidRun: Cancer has no unit clause and appears only
// as the conclusion of Smokes(x) => Cancer(x); its atoms are in no ground
// clause built at the start (the all-false world satisfies every ground
// clause that mentions them) and, when atoms are not all activated at the
// start (MaxActivate -1), are activated when a chain first makes
// Smokes(x) true. Their marginals, and the others', then match the exact
// ones.
func TestLazyMCSATActivatesMidRun(t *testing.T) {
	prog := `person = {A, B, C}
Smokes(person)
Cancer(person)
*Friends(person, person)
0.5 Smokes(x)
1.5 Smokes(x) => Cancer(x)
3 Friends(x, y) ^ Cancer(x) => Smokes(y)
`
	evidence := "Friends(A, B)\nFriends(B, C)\n"
	query := []string{"Smokes", "Cancer"}
	_, _, full := network(t, prog, evidence, Options{Query: query})
	g, in, err := full.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exact := exactMarginals(in)

	// Before the chains: only Smokes is active.
	_, _, net := network(t, prog, evidence, Options{Query: query, Lazy: true})
	ch := &lazyChain{index: map[uint64][]int32{}, start: []int32{0}}
	e, err := net.newLazy(LazyOptions{}, ch)
	if err != nil {
		t.Fatal(err)
	}
	ch.e = e
	if err := e.initial(); err != nil {
		t.Fatal(err)
	}
	for _, a := range e.atoms {
		if a.Pred.Name != "Smokes" {
			t.Fatalf("%s active before the chains run", a.Pred.Name)
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		got, res := lazyMarginalsByKey(t, prog, evidence, query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 10000, BurnIn: 100, Chains: 4, Seed: seed}, MaxActivate: -1})
		if res.ActiveClauses <= res.InitialClauses {
			t.Fatalf("seed %d: %d ground clauses built, %d before the chains", seed, res.ActiveClauses, res.InitialClauses)
		}
		for v := range g.Vars {
			k := key(g.Vars[v].Pred.Name, g.Args(v))
			p, ok := got[k]
			if !ok {
				t.Fatalf("seed %d: %s never activated", seed, k)
			}
			if d := math.Abs(p - exact[v]); d > 0.02 {
				t.Errorf("seed %d: %s lazy %.4f, exact %.4f", seed, k, p, exact[v])
			}
		}
	}
}

// TestLazyMCSATNeverActivated: an atom that no built clause reaches is
// never moved: the chains sample the network conditioned on it being false
// and it is left out of the result (its estimate is 0). Here Cancer(x) is
// in Smokes(x) => Cancer(x) only, and Smokes has no unit clause and no
// evidence: nothing activates either, while the full network gives each
// atom a probability near one half.

// By default lazy MC-SAT activates every unknown atom of a small network
// before its first step (LazySampleOptions.MaxActivate), so that it
// samples every atom as MC-SAT does. Without that, an atom that no built
// clause reaches is never moved: the chains sample the network
// conditioned on it being false, and it is left out of the result. Here
// Cancer(x) is in Smokes(x) => Cancer(x) only, and Smokes has no unit
// clause and no evidence: nothing activates either, while the full
// network gives each atom a probability near one half; and in the
// network of the issue, 1 !Cancer(x) alone, Cancer(x) has probability
// 1/(1+e) = 0.2689, which lazy MC-SAT left out.
func TestLazyMCSATNeverActivated(t *testing.T) {
	for _, tc := range []struct {
		prog  string
		query []string
		held  int // atoms never activated when not every atom is
	}{
		{"person = {A, B}\nSmokes(person)\nCancer(person)\nLikes(person)\n1.5 Smokes(x) => Cancer(x)\n0.4 Likes(x)\n", []string{"Smokes", "Cancer", "Likes"}, 4},
		{"person = {A, B, C}\nCancer(person)\n1 !Cancer(x)\n", []string{"Cancer"}, 3},
	} {
		_, _, full := network(t, tc.prog, "", Options{Query: tc.query})
		g, in, err := full.GroundClauses(ground.Options{})
		if err != nil {
			t.Fatal(err)
		}
		exact := exactMarginals(in)
		opt := LazySampleOptions{SampleOptions: SampleOptions{Samples: 4000, BurnIn: 50, Chains: 2, Seed: 1}}
		got, res := lazyMarginalsByKey(t, tc.prog, "", tc.query, opt)
		if !res.Complete || res.NeverActivated != 0 || len(res.Atoms) != in.NumVars {
			t.Fatalf("complete %v, %v never activated, %d of %d atoms listed", res.Complete, res.NeverActivated, len(res.Atoms), in.NumVars)
		}
		for v := range g.Vars {
			k := key(g.Vars[v].Pred.Name, g.Args(v))
			if math.Abs(got[k]-exact[v]) > 0.02 {
				t.Errorf("%s: lazy %.4f, exact %.4f", k, got[k], exact[v])
			}
		}
		opt.MaxActivate = -1
		_, res = lazyMarginalsByKey(t, tc.prog, "", tc.query, opt)
		if res.Complete || res.NeverActivated != float64(tc.held) || len(res.Atoms) != in.NumVars-tc.held {
			t.Errorf("activated lazily: complete %v, %v never activated, %d listed; want %d held false", res.Complete, res.NeverActivated, len(res.Atoms), tc.held)
		}
	}
}

// TestLazyMCSATOptionsAndCancel: a cancelled run returns the
// cancellation; runs are reproducible from the seed; bad options are
// refused.
func TestLazyMCSATOptionsAndCancel(t *testing.T) {
	tc := lazySamplerCases[2]
	query := tc.query
	_, _, net := network(t, tc.prog, tc.evidence, Options{Query: query, Lazy: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := net.LazyMarginals(ctx, LazySampleOptions{SampleOptions: DefaultSampleOptions()}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	// Cancelled during the run, from the progress callback.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, _, net = network(t, tc.prog, tc.evidence, Options{Query: query, Lazy: true})
	opt := LazySampleOptions{SampleOptions: SampleOptions{Samples: 1_000_000, Chains: 1, Seed: 1, Progress: func(done, total int) {
		if done > 0 {
			cancel()
		}
	}}}
	if _, err := net.LazyMarginals(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("run cancelled midway: %v", err)
	}
	a, _ := lazyMarginalsByKey(t, tc.prog, tc.evidence, query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 300, Chains: 3, Seed: 7}})
	b, _ := lazyMarginalsByKey(t, tc.prog, tc.evidence, query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 300, Chains: 3, Seed: 7}})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("same seed, different marginals:\n%v\n%v", a, b)
	}
	if _, err := net.LazyMarginals(context.Background(), LazySampleOptions{SampleOptions: SampleOptions{Samples: 2, Chains: 3}}); err == nil {
		t.Fatal("2 samples over 3 chains accepted")
	}
}

// TestLazyMCSATRandomNetworks: on random networks (existentials,
// comparisons, constants, hard clauses, negative weights; see
// randomNetwork), lazy MC-SAT's marginals are the full network's, computed
// by enumeration, when every atom is activated (the default for small
// networks), and otherwise those of the full network conditioned on the
// atoms it never activated being false: within 0.04 at 8,000 samples. Every ground clause built
// during a step must have been satisfied in the world before it (the
// invariant the lazy selection rests on; LazyMarginals fails otherwise).
func TestLazyMCSATRandomNetworks(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	checked, partial := 0, 0
	for seed := range uint64(n) {
		prog, evidence := randomNetwork(rand.New(rand.NewPCG(seed, 71)), 3)
		query := []string{"Smokes", "Cancer", "Likes"}
		_, _, full := network(t, prog, evidence, Options{Query: query})
		g, in, err := full.GroundClauses(ground.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if in.NumVars > 16 || in.HardConflict() != nil {
			continue
		}
		// Every atom activated (the default for a network this small):
		// the full network's marginals.
		_, _, net := network(t, prog, evidence, Options{Query: query, Lazy: true})
		opt := LazySampleOptions{SampleOptions: SampleOptions{Samples: 8000, BurnIn: 200, Chains: 2, Seed: seed}}
		res, err := net.LazyMarginals(context.Background(), opt)
		var inf *InfeasibleError
		if errors.As(err, &inf) {
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%s\n%s", seed, err, prog, evidence)
		}
		exact := exactMarginals(in)
		for i, a := range res.Atoms {
			k := key(a.Pred.Name, res.Args(net.Store, i))
			for v := range g.Vars {
				if key(g.Vars[v].Pred.Name, g.Args(v)) == k && math.Abs(res.Probs[i]-exact[v]) > 0.04 {
					t.Errorf("seed %d, every atom active: %s lazy %.4f, exact %.4f\n%s\n%s", seed, k, res.Probs[i], exact[v], prog, evidence)
				}
			}
		}
		if len(res.Atoms) != in.NumVars {
			t.Errorf("seed %d: %d of %d atoms listed with every atom active", seed, len(res.Atoms), in.NumVars)
		}
		// Atoms activated only as clauses reach them.
		_, _, net = network(t, prog, evidence, Options{Query: query, Lazy: true})
		opt.MaxActivate = -1
		res, err = net.LazyMarginals(context.Background(), opt)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s\n%s", seed, err, prog, evidence)
		}
		got := map[string]float64{}
		for i, a := range res.Atoms {
			got[key(a.Pred.Name, res.Args(net.Store, i))] = res.Probs[i]
		}
		// The full network with the never-activated atoms clamped false.
		clamped := *in
		clamped.Lits, clamped.Start = append([]maxsat.Lit(nil), in.Lits...), append([]int32(nil), in.Start...)
		clamped.Weight, clamped.Hard = append([]float64(nil), in.Weight...), append([]bool(nil), in.Hard...)
		for v := range g.Vars {
			if _, ok := got[key(g.Vars[v].Pred.Name, g.Args(v))]; !ok {
				if err := clamped.AddClause(0, true, -maxsat.Lit(v+1)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, hv := clamped.Eval(make([]bool, in.NumVars)); hv > 0 && feasibleCount(&clamped) == 0 {
			t.Fatalf("seed %d: no world satisfies the hard clauses with the never-activated atoms false", seed)
		}
		exact = exactMarginals(&clamped)
		for v := range g.Vars {
			k := key(g.Vars[v].Pred.Name, g.Args(v))
			if d := math.Abs(got[k] - exact[v]); d > 0.04 {
				t.Errorf("seed %d: %s lazy %.4f, exact given the never-activated atoms false %.4f (%d of %d atoms activated)\n%s\n%s", seed, k, got[k], exact[v], len(got), in.NumVars, prog, evidence)
			}
		}
		checked++
		if len(got) < in.NumVars { // some atoms never activated
			partial++
		}
	}
	if partial == 0 {
		t.Fatal("every network had every atom activated: the conditioning was not checked")
	}
	if checked < n/2 {
		t.Fatalf("only %d of %d networks checked", checked, n)
	}
}

// feasibleCount counts the worlds that satisfy in's hard clauses.
func feasibleCount(in *maxsat.Instance) int {
	x := make([]bool, in.NumVars)
	count := 0
	for mask := 0; mask < 1<<in.NumVars; mask++ {
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		if _, hv := in.Eval(x); hv == 0 {
			count++
		}
	}
	return count
}

// TestLazyMCSATClusters: atoms tied by more hard or near-deterministic
// implications than a Gibbs block holds (14 atoms, blocks of 12) cross
// between their modes only by cluster moves. Lazy MC-SAT had none: on a
// complete graph of hard equivalences with a positive prior it answered
// 0.0000 for the exact 1.0000 with R-hat 0.996 (every chain in the
// all-false mode, where no equivalence is violable and so none was built
// to move by). Each case is compared with the exact marginals (every world
// enumerated), or, where the chains disagree, must say so (not mixed).
func TestLazyMCSATClusters(t *testing.T) {
	var persons []string
	for i := range 14 {
		persons = append(persons, fmt.Sprintf("P%d", i))
	}
	// 14 atoms of S and 3 of T, so that every world can be enumerated.
	head := "person = {" + strings.Join(persons, ", ") + "}\nthing = {A, B, C}\nS(person)\nT(thing)\n*Friends(person, person)\n"
	var chain strings.Builder
	for i := range 13 {
		fmt.Fprintf(&chain, "Friends(P%d, P%d)\n", i, i+1)
	}
	for _, tc := range []struct {
		name, prog, evidence string
		mustMix              bool
	}{
		{"complete hard equivalences", "1 S(x)\n-0.2 T(t)\nS(x) <=> S(y).\n", "", true},
		{"complete, negative prior", "-0.4 S(x)\n0.3 T(t)\nS(x) <=> S(y).\nS(P3) => T(A).\n", "", true},
		{"hard chain of friends", "0.3 S(x)\n0.5 T(t)\nFriends(x, y) => (S(x) <=> S(y)).\n2 S(P0) => T(B)\n", chain.String(), true},
		{"near-deterministic implications", "0.4 S(x)\n-0.1 T(t)\n9 Friends(x, y) ^ S(x) => S(y)\n9 Friends(x, y) ^ S(y) => S(x)\n1 T(C) <=> S(P5)\n", chain.String(), true},
		{"two modes, both heavy", "-0.3 S(x)\n0.5 S(x) ^ S(y)\nS(x) <=> S(y).\n0.2 T(t)\n", "", false},
		// The all-false world's slice pins every S false (each -1 prior
		// is selected with probability 0.63): chains that all start there
		// stay, and agreed on 0 for the exact 1.
		{"heavy mode away from the all-false start", "-1 S(x)\n0.5 S(x) ^ S(y)\nS(x) <=> S(y).\n0.2 T(t)\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := head + tc.prog
			query := []string{"S", "T"}
			_, _, full := network(t, prog, tc.evidence, Options{Query: query})
			g, in, err := full.GroundClauses(ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			exact := exactMarginals(in)
			got, res := lazyMarginalsByKey(t, prog, tc.evidence, query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 4000, BurnIn: 100, Chains: 4, Seed: 3}})
			worst, at := 0.0, ""
			for v := range g.Vars {
				k := key(g.Vars[v].Pred.Name, g.Args(v))
				if d := math.Abs(got[k] - exact[v]); d > worst {
					worst, at = d, fmt.Sprintf("%s lazy %.4f, exact %.4f", k, got[k], exact[v])
				}
			}
			t.Logf("largest error %.4f (%s), R-hat %.3f, mixed %v", worst, at, res.Diagnostics.RHat, res.Diagnostics.Mixed)
			if worst > 0.03 && res.Diagnostics.Mixed {
				t.Errorf("%s, and the chains say they mixed (R-hat %.3f)", at, res.Diagnostics.RHat)
			}
			if tc.mustMix && worst > 0.03 {
				t.Errorf("%s", at)
			}
		})
	}
}

// TestLazyMCSATStarts: a chain's start that satisfies the hard clauses is
// a state of the chain, as in MCSAT. Every lazy chain's first step used to
// keep the hard clauses alone, a near-uniform draw among the worlds they
// allow, which threw the first chain's MaxWalkSAT start away (the outside
// tester's r4: after one step T(A) was true at 14 of 30 seeds, where the
// start has it true and full MC-SAT kept it at 30 of 30) and led every
// chain into the mode holding most of those worlds (r3: S(A) 1.0000 for an
// exact 0.0174, said mixed). Now the first chain keeps its start, and r3's
// chains say they disagree or are right.
func TestLazyMCSATStarts(t *testing.T) {
	r4 := "person = {A, B, C, D, E, F, G, H, I}\nS(person)\nT(person)\n11.65 !S(x) v !T(x)\n-0.97 T(x)\n0.65 T(x) ^ T(y)\nT(x) v T(y) v !T(z).\n"
	for seed := uint64(1); seed <= 10; seed++ {
		got, _ := lazyMarginalsByKey(t, r4, "", []string{"S", "T"}, LazySampleOptions{SampleOptions: SampleOptions{Samples: 1, BurnIn: 0, Chains: 1, Seed: seed}})
		if got[key("T", []string{"A"})] < 0.5 {
			t.Errorf("r4, seed %d: T(A) %.4f after the first step from the MaxWalkSAT world, where it is true", seed, got[key("T", []string{"A"})])
		}
	}
	r3 := "person = {A, B, C}\ncol = {Red, Green, Blue}\nS(person)\nT(person)\nU(person)\nH(person, col!)\nS(x) <=> S(y).\nT(x) <=> T(y).\n9.2 S(x) <=> !T(x)\nS(x) v U(x).\nH(x, Blue) => !U(x).\n0.78 S(x) ^ S(y)\n"
	query := []string{"S", "T", "U", "H"}
	_, _, full := network(t, r3, "T(C)\n", Options{Query: query})
	g, in, err := full.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exact := exactMarginals(in)
	for seed := uint64(1); seed <= 3; seed++ {
		got, res := lazyMarginalsByKey(t, r3, "T(C)\n", query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 1000, BurnIn: 100, Chains: 4, Seed: seed}})
		for v := range g.Vars {
			k := key(g.Vars[v].Pred.Name, g.Args(v))
			if d := math.Abs(got[k] - exact[v]); d > 0.05 && res.Diagnostics.Mixed {
				t.Errorf("r3, seed %d: %s lazy %.4f, exact %.4f, and the chains say they mixed", seed, k, got[k], exact[v])
			}
		}
	}
}
