package mln

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/maxsat/maxsattest"
)

// issueNetworks are the networks of issue 41 on which MC-SAT, Gibbs and
// lazy MC-SAT went wrong without saying so, with the exact values the
// issue quotes (computed outside the project). The first two have more
// atoms tied by hard clauses than Gibbs' 12-atom blocks; the third is
// symmetric under swapping B1 and B2, so every P and Q atom has
// probability 1/2, and its atoms are tied by hard and heavy clauses into
// one group of 16; the fourth is a complete graph of soft equivalences
// over 40 exchangeable people.
var issueNetworks = []struct {
	name, prog, evidence string
	query                []string
	want                 map[string]float64 // atom -> exact marginal
}{
	{"hard, 13 atoms", `t0 = {A1, A2, A3}
t1 = {B1, B2, B3}
P(t1)
Q(t0)
R(t0, t1)

(Q(x1) ^ R(x1, y1)) => R(x1, y2).
R(x2, y2) => !P(y2).
`, "Q(A2)\n!R(A3,B2)\n", []string{"P", "Q", "R"}, map[string]float64{"R(A2,B1)": 0.2732, "P(B2)": 0.2568}},
	{"hard and near-deterministic, 16 atoms", `t0 = {A1, A2}
t1 = {B1, B2, B3, B4}
t2 = {D1, D2, D3}
P(t0, t1)
Q(t2)
R(t2, t0)

Q(z2) v R(z1, x2).
13.6458 R(z1, x2) => P(x2, y1)
`, "P(A1,B2)\n", []string{"P", "Q", "R"}, map[string]float64{"R(D2,A2)": 0.1903}},
	{"symmetric functional, 16 atoms", `t1 = {A1, A2, A3, A4}
t2 = {B1, B2}
P(t1, t2!)
Q(t1, t2)
5.75 P(x, y) <=> Q(x, y)
5 Q(x, y) => Q(x2, y)
`, "", []string{"P", "Q"}, map[string]float64{"P(A1,B1)": 0.5, "P(A3,B2)": 0.5, "Q(A2,B1)": 0.5}},
	{"complete graph, 40 people", completeGraphProgram(40, 0.2, 0.1), "", []string{"S"},
		map[string]float64{"S(P1)": completeGraphMarginal(40, 0.2, 0.1), "S(P40)": completeGraphMarginal(40, 0.2, 0.1)}},
}

// completeGraphProgram is w S(x) <=> S(y) and h S(x) over n people.
func completeGraphProgram(n int, w, h float64) string {
	var people []string
	for i := 1; i <= n; i++ {
		people = append(people, "P"+itoa(i))
	}
	return "person = {" + strings.Join(people, ", ") + "}\nS(person)\n" +
		strconv.FormatFloat(w, 'g', -1, 64) + " S(x) <=> S(y)\n" + strconv.FormatFloat(h, 'g', -1, 64) + " S(x)\n"
}

// issueGround grounds an issue network and returns its instance, its
// ground result and the atom keys of its variables.
func issueGround(t *testing.T, prog, evidence string, query []string) (*Network, *ground.Result, *maxsat.Instance, map[string]int) {
	t.Helper()
	_, _, net := network(t, prog, evidence, Options{Query: query})
	g, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]int{}
	for v := range g.Vars {
		vars[key(g.Vars[v].Pred.Name, g.Args(v))] = v
	}
	return net, g, in, vars
}

// TestIssueNetworksExact: the default method (exact where affordable, here
// everywhere) gives the issue's exact values, at every seed; enumeration
// of the worlds (where there are few enough) agrees with them.
func TestIssueNetworksExact(t *testing.T) {
	for _, tc := range issueNetworks {
		net, _, in, vars := issueGround(t, tc.prog, tc.evidence, tc.query)
		var enum []float64
		if in.NumVars <= 16 {
			enum = exactMarginals(in)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			res, err := net.Marginals(context.Background(), "", DefaultMAPOptions(), SampleOptions{Samples: 1000, BurnIn: 100, Chains: 4, Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if res.ExactAtoms() != in.NumVars || res.Diagnostics.Chains != 0 {
				t.Errorf("%s: %d of %d atoms exact, %d chains", tc.name, res.ExactAtoms(), in.NumVars, res.Diagnostics.Chains)
			}
			for a, want := range tc.want {
				v, ok := vars[a]
				if !ok {
					t.Fatalf("%s: no atom %s", tc.name, a)
				}
				if math.Abs(res.Probs[v]-want) > 5e-5 {
					t.Errorf("%s, seed %d: %s = %.5f, the issue's exact value %.4f", tc.name, seed, a, res.Probs[v], want)
				}
			}
			if enum != nil {
				if worst, at := worstError(res.Probs, enum); worst > 1e-9 {
					t.Errorf("%s: atom %d has %.9f, enumeration %.9f", tc.name, at, res.Probs[at], enum[at])
				}
			}
		}
	}
}

// TestIssueNetworksSampled: MC-SAT alone (no exact inference) gets the
// issue's networks right within 0.02 at 2*10^4 samples (5,000 for the
// symmetric one), and the complete graph within 0.03 at 5,000, at seeds 1
// to 3, and says that it has mixed: SampleSAT
// samples the solutions of the 13 hard-tied atoms uniformly, and cluster
// moves cross between the symmetric modes.
func TestIssueNetworksSampled(t *testing.T) {
	for _, tc := range issueNetworks {
		_, _, in, vars := issueGround(t, tc.prog, tc.evidence, tc.query)
		tol, samples := 0.02, 20000
		if in.NumVars > 16 {
			tol = 0.03
		}
		if strings.Contains(tc.name, "symmetric") || in.NumVars > 16 {
			samples = 5000 // their cluster moves flip 8 to 40 atoms
		}
		for seed := uint64(1); seed <= 3; seed++ {
			s, err := MCSAT(context.Background(), in, SampleOptions{Samples: samples, BurnIn: 200, Chains: 4, Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			for a, want := range tc.want {
				if p := s.Probs[vars[a]]; math.Abs(p-want) > tol {
					t.Errorf("%s, seed %d: %s = %.4f, exact %.4f", tc.name, seed, a, p, want)
				}
			}
			if !s.Diagnostics.Mixed {
				t.Errorf("%s, seed %d: reported unmixed (R-hat %.3f, spread %.3f)", tc.name, seed, s.Diagnostics.RHat, s.Diagnostics.Spread)
			}
		}
	}
}

// TestUnmixedChainsFlagged: without cluster moves MC-SAT cannot cross
// between the modes of the symmetric functional network and of the
// complete graph (14 people, where a mode's atoms all agree); the chains,
// started apart, must then disagree enough for the diagnostics to say
// so wherever the estimates are off by more than 0.05.
func TestUnmixedChainsFlagged(t *testing.T) {
	nets := []struct{ prog, query string }{
		{issueNetworks[2].prog, "P,Q"},
		{completeGraphProgram(14, 1, 0.1), "S"},
	}
	for _, nt := range nets {
		_, _, in, _ := issueGround(t, nt.prog, "", strings.Split(nt.query, ","))
		exact := exactMarginals(in)
		for seed := uint64(1); seed <= 3; seed++ {
			s, err := MCSAT(context.Background(), in, SampleOptions{Samples: 4000, BurnIn: 100, Chains: 4, Seed: seed, NoClusterMoves: true})
			if err != nil {
				t.Fatal(err)
			}
			if worst, at := worstError(s.Probs, exact); worst > 0.05 && s.Diagnostics.Mixed {
				t.Errorf("seed %d: atom %d off by %.3f, yet reported mixed (R-hat %.3f, spread %.3f)", seed, at, worst, s.Diagnostics.RHat, s.Diagnostics.Spread)
			}
		}
	}
}

// TestSampleSATUniform: on hard-only networks of 13 to 16 atoms, all tied
// together (more than Gibbs' blocks), MC-SAT without the Gibbs sweep is
// SampleSAT alone, and its marginals must be those of the uniform
// distribution over the solutions, by enumeration: within 0.02 at 2*10^4
// samples.
func TestSampleSATUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 13))
	for i := range 6 {
		in := maxsattest.PlantedHard(rng, 13+i%4)
		if n := feasibleCount(in); n < 20 {
			t.Fatalf("network %d has %d solutions: too few to tell uniform sampling", i, n)
		}
		exact := exactMarginals(in)
		s, err := MCSAT(context.Background(), in, SampleOptions{Samples: 20000, BurnIn: 100, Chains: 4, Seed: uint64(i), NoGibbsMoves: true})
		if err != nil {
			t.Fatal(err)
		}
		if worst, at := worstError(s.Probs, exact); worst > 0.02 {
			t.Errorf("network %d (%d atoms, %d solutions): atom %d has %.4f, uniform over the solutions %.4f", i, in.NumVars, feasibleCount(in), at, s.Probs[at], exact[at])
		}
	}
}

// TestInferMarginalsHybrid: with limits that leave one component to the
// sampler, InferMarginals returns the exact marginals of the others, MC-SAT's
// of that one (against enumeration), and diagnostics that name atoms of
// the whole network.
func TestInferMarginalsHybrid(t *testing.T) {
	// A 3x4 grid of soft equivalences and a hard chain of 5 atoms after it.
	in := &maxsat.Instance{NumVars: 17}
	id := func(r, c int) int { return r*4 + c }
	rng := rand.New(rand.NewPCG(5, 8))
	for r := range 3 {
		for c := range 4 {
			_ = in.AddClause(0.2+rng.Float64(), false, maxsat.Pos(id(r, c)))
			if c+1 < 4 {
				_ = in.AddClause(1.5, false, maxsat.Not(id(r, c)), maxsat.Pos(id(r, c+1)))
			}
			if r+1 < 3 {
				_ = in.AddClause(1.5, false, maxsat.Pos(id(r, c)), maxsat.Not(id(r+1, c)))
			}
		}
	}
	for v := 12; v < 16; v++ {
		_ = in.AddClause(0, true, maxsat.Not(v), maxsat.Pos(v+1))
		_ = in.AddClause(0.7, false, maxsat.Not(v+1))
	}
	exact := exactMarginals(in)
	opt := SampleOptions{Samples: 20000, BurnIn: 100, Chains: 4, Seed: 3, Exact: ExactOptions{MaxClique: 3, MaxConfigs: 16, MaxEnumeration: 1, MaxModelCount: 1}}
	s, err := InferMarginals(context.Background(), in, MarginalAuto, opt)
	if err != nil {
		t.Fatal(err)
	}
	for v := range in.NumVars {
		if want := v >= 12; s.Exact[v] != want {
			t.Errorf("atom %d: exact %v, want %v", v, s.Exact[v], want)
		}
		tol := 0.02
		if s.Exact[v] {
			tol = 1e-9
		}
		if d := math.Abs(s.Probs[v] - exact[v]); d > tol {
			t.Errorf("atom %d (exact %v): %.5f, enumeration %.5f", v, s.Exact[v], s.Probs[v], exact[v])
		}
	}
	if d := s.Diagnostics; d.Chains != 4 || d.RHatAtom < 0 || d.RHatAtom >= 12 || d.MCSEAtom < 0 || d.MCSEAtom >= 12 || !d.Mixed {
		t.Errorf("diagnostics %+v: want 4 mixed chains over the grid's atoms 0-11", d)
	}
	// Nothing sampled: no atom is named (the standard error's was atom 0).
	chain := &maxsat.Instance{NumVars: 3}
	_ = chain.AddClause(0, true, maxsat.Not(0), maxsat.Pos(1))
	_ = chain.AddClause(0.7, false, maxsat.Not(1))
	if s, err := InferMarginals(context.Background(), chain, MarginalAuto, opt); err != nil {
		t.Fatal(err)
	} else if d := s.Diagnostics; d.RHatAtom != -1 || d.SpreadAtom != -1 || d.MCSEAtom != -1 {
		t.Errorf("all exact: diagnostics %+v name atoms", d)
	}
	if _, err := InferMarginals(context.Background(), in, MarginalExact, opt); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("exact with the grid too large: %v", err)
	}
}

// friendsProgram is n people, Friends random with probability p (seed),
// 1 Smokes(x) ^ Friends(x, y) => Smokes(y) and 0.3 Smokes(x): two modes,
// everyone smoking (the more probable by far) or no one, which single
// flips cannot cross.
func friendsProgram(n int, p float64, seed uint64) (prog, evidence string) {
	rng := rand.New(rand.NewPCG(seed, 3))
	var people []string
	for i := 1; i <= n; i++ {
		people = append(people, "P"+itoa(i))
	}
	prog = "person = {" + strings.Join(people, ", ") + "}\n*Friends(person, person)\nSmokes(person)\n1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n0.3 Smokes(x)\n"
	var ev strings.Builder
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			if i != j && rng.Float64() < p {
				ev.WriteString("Friends(P" + itoa(i) + ", P" + itoa(j) + ")\n")
			}
		}
	}
	return prog, ev.String()
}

// TestClusterMovesFriends: on groups of 16 to 24 friends, MC-SAT's cluster
// moves (a cycle of selected implications flips as one) get every atom
// within 0.02 of the junction tree's exact marginal, and the chains agree;
// with single flips only, the chains that start among non-smokers stay
// there, and the diagnostics must say so wherever the error exceeds 0.05.
func TestClusterMovesFriends(t *testing.T) {
	for _, n := range []int{16, 20, 24} {
		prog, ev := friendsProgram(n, 0.3, 1)
		_, _, in, _ := issueGround(t, prog, ev, []string{"Smokes"})
		ex, err := ExactMarginals(context.Background(), in, ExactOptions{MaxClique: 24, MaxEntries: 1 << 26}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, single := range []bool{false, true} {
			s, err := MCSAT(context.Background(), in, SampleOptions{Samples: 4000, BurnIn: 100, Chains: 4, Seed: 1, NoClusterMoves: single})
			if err != nil {
				t.Fatal(err)
			}
			worst, at := worstError(s.Probs, ex.Probs)
			switch {
			case !single && (worst > 0.02 || !s.Diagnostics.Mixed):
				t.Errorf("%d friends: atom %d has %.4f, exact %.4f; mixed %v", n, at, s.Probs[at], ex.Probs[at], s.Diagnostics.Mixed)
			case single && worst > 0.05 && s.Diagnostics.Mixed:
				t.Errorf("%d friends, single flips: off by %.3f, yet reported mixed", n, worst)
			}
		}
	}
}

// TestTarjan compares the strongly connected components of random directed
// graphs with mutual reachability.
func TestTarjan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	var st sccState
	for trial := range 200 {
		m := 1 + rng.IntN(12)
		var edges [][2]int32
		for range rng.IntN(3 * m) {
			edges = append(edges, [2]int32{int32(rng.IntN(m)), int32(rng.IntN(m))})
		}
		start := make([]int32, m+1)
		for _, e := range edges {
			start[e[0]+1]++
		}
		for i := range m {
			start[i+1] += start[i]
		}
		adj := make([]int32, len(edges))
		fill := slices.Clone(start[:m])
		for _, e := range edges {
			adj[fill[e[0]]] = e[1]
			fill[e[0]]++
		}
		comp := tarjan(m, start, adj, &st)
		reach := make([][]bool, m) // Floyd-Warshall closure
		for u := range m {
			reach[u] = make([]bool, m)
			reach[u][u] = true
		}
		for _, e := range edges {
			reach[e[0]][e[1]] = true
		}
		for k := range m {
			for u := range m {
				for v := range m {
					reach[u][v] = reach[u][v] || reach[u][k] && reach[k][v]
				}
			}
		}
		for u := range m {
			for v := range m {
				if same := reach[u][v] && reach[v][u]; same != (comp[u] == comp[v]) {
					t.Fatalf("trial %d: nodes %d and %d: mutually reachable %v, same component %v", trial, u, v, same, comp[u] == comp[v])
				}
			}
		}
	}
}

// TestMCSATRandomHardNetworks: on random networks of 13 to 16 atoms with
// hard clauses tying them together, near-deterministic and negative
// weights, and (every other one) interchangeable pairs of atoms, MC-SAT
// (Gibbs blocks of at most 4 atoms, so that SampleSAT does the work) is
// within 0.03 of enumeration, or says that its chains have not mixed.
func TestMCSATRandomHardNetworks(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	checked, flagged := 0, 0
	for i := 0; checked < 16; i++ {
		in := randomHardNetwork(rng, 13+rng.IntN(4), i%2 == 1)
		if !feasible(in) {
			continue
		}
		checked++
		exact := exactMarginals(in)
		s, err := MCSAT(context.Background(), in, SampleOptions{Samples: 6000, BurnIn: 100, Chains: 4, Seed: uint64(i), MaxBlock: 4})
		if err != nil {
			t.Fatalf("network %d: %v", i, err)
		}
		worst, at := worstError(s.Probs, exact)
		switch {
		case !s.Diagnostics.Mixed:
			flagged++
		case worst > 0.03:
			t.Errorf("network %d (%d atoms): atom %d has %.4f, exact %.4f, yet reported mixed (R-hat %.3f, spread %.3f)",
				i, in.NumVars, at, s.Probs[at], exact[at], s.Diagnostics.RHat, s.Diagnostics.Spread)
		}
	}
	if flagged > checked/4 {
		t.Errorf("%d of %d networks reported unmixed", flagged, checked)
	}
}

// TestIssueNetworksLazy: lazy MC-SAT lists every atom of the two networks
// tied by hard clauses (every atom active from the start) and agrees with
// the exact values within 0.03 at 2*10^4 samples.
func TestIssueNetworksLazy(t *testing.T) {
	for _, tc := range issueNetworks[:2] {
		_, _, in, _ := issueGround(t, tc.prog, tc.evidence, tc.query)
		got, res := lazyMarginalsByKey(t, tc.prog, tc.evidence, tc.query, LazySampleOptions{SampleOptions: SampleOptions{Samples: 20000, BurnIn: 200, Chains: 4, Seed: 1}})
		if len(got) != in.NumVars || !res.Complete {
			t.Errorf("%s: %d of %d atoms listed, complete %v", tc.name, len(got), in.NumVars, res.Complete)
		}
		for a, want := range tc.want {
			if p, ok := got[a]; !ok || math.Abs(p-want) > 0.03 {
				t.Errorf("%s: %s lazy %.4f (listed %v), exact %.4f", tc.name, a, p, ok, want)
			}
		}
	}
}
