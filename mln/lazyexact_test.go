package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
)

// withFunctional adds to a randomNetwork program a predicate with a
// functional argument (exactly one thing per person: hard clauses) and
// formulas over it, one of negative weight.
func withFunctional(rng *rand.Rand, prog string) string {
	var b strings.Builder
	b.WriteString(prog)
	b.WriteString("thing = {T1, T2}\nOwns(person, thing!)\n")
	w := []string{"-1", "0.5", "2"}
	fmt.Fprintf(&b, "%s Smokes(x) => Owns(x, T1)\n", w[rng.IntN(3)])
	fmt.Fprintf(&b, "%s Owns(x, T2) ^ Friends(x, y) => Owns(y, T2)\n", w[rng.IntN(3)])
	return b.String()
}

// TestExactMAPByEnumeration: on random networks with hard clauses,
// negative weights, existential quantifiers and functional arguments
// (randomNetwork, withFunctional), Network.MAP with MethodExact and
// Network.LazyExactMAP both find the optimum that enumerating every world
// of the full ground network finds, prove it, and their bounds hold; the
// lazy world costs in the full network what LazyExactMAP reports.
// Network.LazyRelaxedMAP's world breaks no hard clause and costs what it
// reports, its bound is at most the optimum, and it claims optimality only
// at the optimum.
func TestExactMAPByEnumeration(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	proven, relaxedOptimal := 0, 0
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 97))
		persons := 3
		if seed%2 == 1 {
			persons = 2 // the functional predicate adds atoms to enumerate
		}
		prog, evidence := randomNetwork(rng, persons)
		query := []string{"Smokes", "Cancer", "Likes"}
		if seed%2 == 1 {
			prog = withFunctional(rng, prog)
			query = append(query, "Owns")
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			_, _, full := network(t, prog, evidence, Options{Query: query})
			g, in, err := full.GroundClauses(ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			best, bestHard, _, _ := optimum(t, in)
			mo := DefaultMAPOptions()
			mo.Method = MethodExact
			mo.MaxSAT.ADMM.Threads = 1
			res, err := full.MAP(context.Background(), mo)
			if bestHard > 0 {
				if err == nil {
					t.Fatalf("the hard clauses cannot all hold, MAP says cost %v with %d violated", res.Cost, res.Report.HardViolated)
				}
			} else {
				if err != nil {
					t.Fatalf("%v\n%s", err, prog)
				}
				x := make([]bool, len(res.Values))
				for i, v := range res.Values {
					x[i] = v == 1
				}
				if c := signedCost(in, x); math.Abs(c-res.Cost) > 1e-9 || hardViolated(in, x) > 0 {
					t.Fatalf("the world costs %v (%d hard violated), MAP says %v", c, hardViolated(in, x), res.Cost)
				}
				if !res.Report.Optimal || math.Abs(res.Cost-best) > 1e-9 || res.LowerBound > best+1e-9 {
					t.Fatalf("exact MAP: cost %v bound %v optimal %v; optimum %v\n%s\n%s", res.Cost, res.LowerBound, res.Report.Optimal, best, prog, evidence)
				}
				proven++
			}

			// A lazy method's world in the full network: its cost and the
			// hard clauses it breaks.
			fullCost := func(lazyNet *Network, lr *LazyExactResult) (float64, int) {
				lx := cutWorldOf(lr, lazyNet, g)
				return signedCost(in, lx), hardViolated(in, lx)
			}
			_, _, relaxNet := network(t, prog, evidence, Options{Query: query, Lazy: true})
			rr, err := relaxNet.LazyRelaxedMAP(context.Background(), LazyExactOptions{Relaxation: &mo.MaxSAT})
			if bestHard > 0 {
				if err == nil {
					t.Fatalf("the hard clauses cannot all hold; LazyRelaxedMAP says %+v", rr)
				}
			} else {
				if err != nil {
					t.Fatalf("lazy relaxed: %v\n%s", err, prog)
				}
				if c, h := fullCost(relaxNet, rr); math.Abs(c-rr.Cost) > 1e-9 || h > 0 {
					t.Fatalf("the relaxed rounds' world costs %v (%d hard violated) in the full network, LazyRelaxedMAP says %v", c, h, rr.Cost)
				}
				if rr.Cost < best-1e-9 || rr.LowerBound > best+1e-6*(1+best) || rr.Optimal && math.Abs(rr.Cost-best) > 1e-9 {
					t.Fatalf("lazy relaxed MAP: cost %v bound %v optimal %v (%s) after %d rounds; optimum %v\n%s\n%s", rr.Cost, rr.LowerBound, rr.Optimal, rr.Status, rr.Rounds, best, prog, evidence)
				}
				if rr.Optimal {
					relaxedOptimal++
				}
			}

			_, _, lazyNet := network(t, prog, evidence, Options{Query: query, Lazy: true})
			lr, err := lazyNet.LazyExactMAP(context.Background(), LazyExactOptions{})
			if bestHard > 0 {
				var inf *InfeasibleError
				if err == nil || !errors.As(err, &inf) && !strings.Contains(err.Error(), "cannot all hold") {
					t.Fatalf("the hard clauses cannot all hold; lazy exact MAP says %v (err %v)", lr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("lazy: %v\n%s", err, prog)
			}
			if c, h := fullCost(lazyNet, lr); math.Abs(c-lr.Cost) > 1e-9 || h > 0 {
				t.Fatalf("the lazy world costs %v (%d hard violated) in the full network, LazyExactMAP says %v", c, h, lr.Cost)
			}
			if !lr.Optimal || math.Abs(lr.Cost-best) > 1e-9 || lr.LowerBound > best+1e-9 {
				t.Fatalf("lazy exact MAP: cost %v bound %v optimal %v after %d rounds; optimum %v\n%s\n%s", lr.Cost, lr.LowerBound, lr.Optimal, lr.Rounds, best, prog, evidence)
			}
			if lr.ActiveClauses > in.NumClauses() {
				t.Fatalf("%d ground clauses built, the full network has %d", lr.ActiveClauses, in.NumClauses())
			}
		})
	}
	t.Logf("%d of %d networks feasible and proven optimal; the relaxed rounds proved %d of them optimal", proven, n, relaxedOptimal)
	if proven < n/2 {
		t.Fatalf("only %d of %d networks feasible: the generator tests too little", proven, n)
	}
}

// TestExactFormCost: exactForm's instance, with the auxiliary atoms at
// their best (extendWorld), costs what the network costs in every world.
func TestExactFormCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		in := &maxsat.Instance{NumVars: 5, Start: []int32{0}}
		for range 12 {
			k := 1 + rng.IntN(3)
			var lits []maxsat.Lit
			for _, v := range rng.Perm(5)[:k] {
				l := maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					l = -l
				}
				lits = append(lits, l)
			}
			if err := in.AddClause(1+float64(rng.IntN(4)), false, lits...); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(2) == 0 {
				in.Weight[len(in.Weight)-1] *= -1
			}
		}
		pos, aux, err := exactForm(in)
		if err != nil {
			t.Fatal(err)
		}
		for mask := range 1 << 5 {
			x := make([]bool, 5)
			for v := range x {
				x[v] = mask>>v&1 == 1
			}
			y := extendWorld(in, x, aux)
			if _, hv := pos.Eval(y); hv > 0 || math.Abs(pos.FalsifiedWeight(y)-signedCost(in, x)) > 1e-9 {
				t.Fatalf("world %v: exactForm costs %v (%d hard violated), the network %v", x, pos.FalsifiedWeight(y), hv, signedCost(in, x))
			}
		}
	}
}

// TestLazyExactTimeLimitKeepsStart: stopped by its time limit, lazy exact
// MAP answers a world no costlier than the all-false world it starts from,
// nor than a start world given (LazyMAP's, whose cost it recomputes)
// (an outside tester's transitivity model answered 1057.6 where that
// world costs 318: the first round's world, stopped early, was kept), and
// the cost it reports is the world's cost in the full network.
func TestLazyExactTimeLimitKeepsStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var ev strings.Builder
	const n = 10
	for range 3 * n {
		fmt.Fprintf(&ev, "Knows(P%d, P%d)\n", rng.IntN(n), rng.IntN(n))
	}
	var decl strings.Builder
	decl.WriteString("person = {")
	for i := range n {
		if i > 0 {
			decl.WriteString(", ")
		}
		fmt.Fprintf(&decl, "P%d", i)
	}
	decl.WriteString("}\n")
	prog := decl.String() + `*Knows(person, person)
Friends(person, person)
Smokes(person)
1.0 !Knows(x, y) v Friends(x, y)
0.8 !Friends(x, y) v !Friends(y, z) v Friends(x, z)
1.2 !Friends(x, y) v !Smokes(x) v Smokes(y)
-0.3 Friends(x, y)
0.5 Smokes(x)
!Friends(x, x).
`
	query := []string{"Friends", "Smokes"}
	g, in := fullGround(t, prog, ev.String(), query)
	allFalse := signedCost(in, make([]bool, in.NumVars))
	for _, tc := range []struct {
		limit time.Duration
		walk  bool // start from LazyMAP's world
	}{{time.Nanosecond, false}, {20 * time.Millisecond, false}, {time.Nanosecond, true}, {20 * time.Millisecond, true}} {
		limit := tc.limit
		_, _, lazyNet := network(t, prog, ev.String(), Options{Query: query, Lazy: true})
		opt := LazyExactOptions{TimeLimit: limit}
		walkCost := math.Inf(1)
		if tc.walk {
			wr, err := lazyNet.LazyMAP(context.Background(), LazyOptions{Flips: 20000, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range wr.Values {
				if v == 1 {
					opt.Start = append(opt.Start, wr.Atoms[i])
				}
			}
			walkCost = wr.Cost
		}
		lr, err := lazyNet.LazyExactMAP(context.Background(), opt)
		if err != nil {
			t.Fatalf("limit %v: %v", limit, err)
		}
		if tc.walk && (lr.Cost > walkCost+1e-9 || math.Abs(lr.StartCost-walkCost) > 1e-9) {
			t.Errorf("limit %v: cost %v from a start world of cost %v (LazyMAP says %v)", limit, lr.Cost, lr.StartCost, walkCost)
		}
		x := cutWorldOf(lr, lazyNet, g)
		if c := signedCost(in, x); math.Abs(c-lr.Cost) > 1e-9 || hardViolated(in, x) > 0 {
			t.Errorf("limit %v: the world costs %v in the full network, LazyExactMAP says %v", limit, c, lr.Cost)
		}
		if lr.Cost > allFalse+1e-9 || lr.LowerBound > lr.Cost+1e-9 {
			t.Errorf("limit %v: cost %v (bound %v, %s) where the all-false world costs %v", limit, lr.Cost, lr.LowerBound, lr.Status, allFalse)
		}
		t.Logf("limit %v, start %v: cost %v, bound %v, %s, %d rounds; all false %v", limit, walkCost, lr.Cost, lr.LowerBound, lr.Status, lr.Rounds, allFalse)
	}
}

// TestLazyExactTimeLimitKeepsHardClauses: a round's world can break hard
// clauses that only its own true atoms make buildable. Stopped by the time
// limit after such a round, lazy exact MAP answers a world that satisfies
// every hard clause of the full network (it answered the round's world,
// cheapest in the soft clauses: on the generated 10^4-entity knowledge
// base, a world of cost 6,611.1 that broke 426 hard exclusions, which the
// LP relaxation's bound of 6,912.6 exposed). The Progress callback waits
// out the time limit after the first round, whose world makes A and B true
// where the hard clause !A v !B is not built yet.
func TestLazyExactTimeLimitKeepsHardClauses(t *testing.T) {
	prog := `ent = {E1, E2, E3}
*Ev(ent)
A(ent)
B(ent)
2 !Ev(x) v A(x)
1 !Ev(x) v B(x)
!A(x) v !B(x).
`
	evidence := "Ev(E1)\nEv(E2)\nEv(E3)\n"
	query := []string{"A", "B"}
	g, in := fullGround(t, prog, evidence, query)
	_, _, lazyNet := network(t, prog, evidence, Options{Query: query, Lazy: true})
	const limit = 200 * time.Millisecond
	begin := time.Now()
	rounds := 0
	lr, err := lazyNet.LazyExactMAP(context.Background(), LazyExactOptions{TimeLimit: limit,
		Progress: func(round, clauses int, cost, bound float64) {
			rounds++
			if round == 1 {
				time.Sleep(time.Until(begin.Add(limit + 10*time.Millisecond)))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if lr.Status != "time limit" || rounds != 1 {
		t.Fatalf("status %q after %d rounds: the test needs the time limit to stop the second round", lr.Status, rounds)
	}
	x := cutWorldOf(lr, lazyNet, g)
	if hv := hardViolated(in, x); hv > 0 {
		t.Fatalf("the answer breaks %d hard clauses of the full network (cost %v reported)", hv, lr.Cost)
	}
	if c := signedCost(in, x); math.Abs(c-lr.Cost) > 1e-9 || lr.LowerBound > lr.Cost+1e-9 {
		t.Errorf("the world costs %v in the full network, LazyExactMAP says %v (bound %v)", c, lr.Cost, lr.LowerBound)
	}
	// The round's world, repaired (repairHard: B(x) made false, the cheaper
	// flip), is the optimum; without the repair the answer was the
	// all-false world, of cost 9.
	if best, _, _, _ := optimum(t, in); math.Abs(lr.Cost-best) > 1e-9 {
		t.Errorf("cost %v, the optimum is %v", lr.Cost, best)
	}
}

// TestRepairHard: on random clause sets with hard clauses that some world
// satisfies, repairHard from a random world ends with every hard clause
// satisfied in most cases, and whenever it says so they are; it never
// flips an atom where no hard clause is violated.
func TestRepairHard(t *testing.T) {
	repaired, feasible := 0, 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 4 + rng.IntN(8)
		in := &maxsat.Instance{NumVars: n, Start: []int32{0}}
		// A hidden world that satisfies every hard clause.
		hidden := make([]bool, n)
		for v := range hidden {
			hidden[v] = rng.IntN(2) == 1
		}
		for range 3 * n {
			k := 1 + rng.IntN(3)
			var lits []maxsat.Lit
			for _, v := range rng.Perm(n)[:k] {
				l := maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					l = -l
				}
				lits = append(lits, l)
			}
			hard := rng.IntN(3) == 0
			if hard {
				held := false
				for _, l := range lits {
					held = held || hidden[l.Var()] != l.Neg()
				}
				if !held {
					lits[0] = -lits[0] // now hidden satisfies it
				}
			}
			w := float64(1 + rng.IntN(4))
			if rng.IntN(4) == 0 {
				w = -w
			}
			if err := in.AddClause(math.Abs(w), hard, lits...); err != nil {
				t.Fatal(err)
			}
			if hard {
				in.Weight[len(in.Weight)-1] = 0
			} else {
				in.Weight[len(in.Weight)-1] = w // signed, as the network's
			}
		}
		x := make([]bool, n)
		for v := range x {
			x[v] = rng.IntN(2) == 1
		}
		x0 := slices.Clone(x)
		_, hv0 := in.Eval(x)
		ok := repairHard(in, x, 8)
		_, hv := in.Eval(x)
		if ok != (hv == 0) {
			t.Fatalf("seed %d: repairHard says %v with %d hard clauses violated", seed, ok, hv)
		}
		if hv0 == 0 && !slices.Equal(x, x0) {
			t.Fatalf("seed %d: a world that held every hard clause was changed", seed)
		}
		if hv0 > 0 {
			feasible++
			if ok {
				repaired++
			}
		}
	}
	t.Logf("%d of %d worlds that broke hard clauses repaired", repaired, feasible)
	if repaired < feasible*3/4 {
		t.Fatalf("only %d of %d worlds repaired", repaired, feasible)
	}
}

// TestLazyCuttingPlanesProvenAtTimeLimit: stopped by the time limit with a
// world whose cost meets the bound, both methods say optimal (they said
// "time limit"). The first round makes A true, which builds the hard
// clause !A v B; the round's world breaks it, the repair makes B true at
// no cost, and the relaxation's bound is 0: the world of cost 0 is proven.
func TestLazyCuttingPlanesProvenAtTimeLimit(t *testing.T) {
	prog := `ent = {E1, E2}
*Ev(ent)
A(ent)
B(ent)
2 !Ev(x) v A(x)
!A(x) v B(x).
`
	evidence := "Ev(E1)\nEv(E2)\n"
	for _, exact := range []bool{false, true} {
		_, _, lazyNet := network(t, prog, evidence, Options{Query: []string{"A", "B"}, Lazy: true})
		const limit = 200 * time.Millisecond
		begin := time.Now()
		opt := LazyExactOptions{TimeLimit: limit, Progress: func(round, clauses int, cost, bound float64) {
			if round == 1 {
				time.Sleep(time.Until(begin.Add(limit + 10*time.Millisecond)))
			}
		}}
		solve := lazyNet.LazyRelaxedMAP
		if exact {
			solve = lazyNet.LazyExactMAP
		}
		lr, err := solve(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if lr.Rounds != 1 || lr.Cost != 0 || lr.LowerBound != 0 || !lr.Optimal || lr.Status != "optimal" || lr.HardViolated != 0 {
			t.Errorf("exact %v: %d rounds, cost %v, bound %v, optimal %v, status %q, %d hard violated", exact, lr.Rounds, lr.Cost, lr.LowerBound, lr.Optimal, lr.Status, lr.HardViolated)
		}
	}
}

// TestMAPBoundsBesideExtremeWeights: an outside tester's programs whose
// negative weights are tiny beside the positive ones (or the only soft
// weights, and tiny). Every MAP method, lazy or not, reports its world's
// true cost, a bound at most the optimum (found by enumeration) and
// "optimal" only at the optimum. The cost scale's unit ignored negative
// weights: a world of 2.3 was called optimal beside one of 1.5, a cost of
// 0.956 was printed as 0, and a bound of 0.666016 beside a 10^12 weight
// exceeded the optimum 0.666.
func TestMAPBoundsBesideExtremeWeights(t *testing.T) {
	for _, tc := range []struct {
		name, prog, evidence string
		query                []string
	}{
		{"1e9 beside -0.5 and -0.3", `t0 = {A, B, C, D, F}
*E(t0, t0)
Q(t0)
1000000000  !E(x, y) v !Q(x) v !Q(y)
-0.5  !Q(x)
-0.3  !Q(A)
`, "E(A, B)\nE(B, C)\nE(C, D)\nE(D, F)\nE(F, A)\n", []string{"Q"}},
		{"only a tiny negative weight", `t0 = {A, B, C}
*E(t0, t0)
R(t0)
T(t0, t0)
-2.406e-10  E(x, y) ^ R(x) => R(y)
R(x) ^ R(y) => x = y.
!R(x) v EXIST e T(x, e).
`, "E(A, B)\nE(B, C)\nE(C, A)\n!T(A, A)\n!T(A, B)\n!T(A, C)\n!T(B, A)\n!T(B, B)\n!T(B, C)\n!T(C, A)\n!T(C, C)\n", []string{"R", "T"}},
		{"-0.956 beside 1e12", `t0 = {A, B}
*E(t0, t0)
R(t0)
S(t0)
-0.956  !R(x) v S(x)
1000000000000.5  !E(x, y) v !R(x) v !R(y)
`, "E(B, A)\n", []string{"R", "S"}},
		{"-0.333 beside -1e12", `t0 = {A, B, C, D}
*E(t0, t0)
Q(t0)
R(t0)
S(t0)
-0.333  E(x, y) ^ R(x) => R(y)
-1000000000000.0  Q(x) v !S(y)
`, "E(A, B)\nE(B, C)\nE(C, D)\nE(D, A)\n", []string{"Q", "R", "S"}},
		// A second tester: a cost of 0.001 printed as 0 (snapped to the
		// sums' rounding error), and lazy MaxWalkSAT's running sum beside
		// -10^12 reporting 0.0999268 for 0.1.
		{"0.001 beside two 1e12", `t = {A}
R(t)
S(t)
0.001 R(x) v S(x)
1000000000000 !R(x)
1000000000000 !S(x)
`, "", []string{"R", "S"}},
		{"0.1 and -0.3 beside -1e12", `t = {A}
Q(t)
R(t)
-1000000000000 !Q(x)
0.1 !Q(x) v R(x)
-0.3 R(x)
`, "", []string{"Q", "R"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			query := tc.query
			g, in := fullGround(t, tc.prog, tc.evidence, query)
			best, _, _, _ := optimum(t, in)
			check := func(method string, x []bool, cost, bound float64, optimal bool) {
				t.Helper()
				if c := signedCost(in, x); math.Abs(c-cost) > 1e-12*(1+c) || hardViolated(in, x) > 0 {
					t.Errorf("%s: reports cost %v for a world of cost %v (%d hard violated)", method, cost, c, hardViolated(in, x))
				}
				if bound > best+1e-12*(1+best) || optimal && math.Abs(cost-best) > 1e-12*(1+best) {
					t.Errorf("%s: cost %v, bound %v, optimal %v; the optimum is %v", method, cost, bound, optimal, best)
				}
			}
			for _, m := range []string{MethodLPRound, MethodExact} {
				_, _, net := network(t, tc.prog, tc.evidence, Options{Query: query})
				mo := DefaultMAPOptions()
				mo.Method = m
				res, err := net.MAP(context.Background(), mo)
				if err != nil {
					t.Fatal(err)
				}
				x := make([]bool, len(res.Values))
				for i, v := range res.Values {
					x[i] = v == 1
				}
				check(m, x, res.Cost, res.LowerBound, res.Report.Optimal)
			}
			for _, exact := range []bool{false, true} {
				_, _, lazyNet := network(t, tc.prog, tc.evidence, Options{Query: query, Lazy: true})
				solve, name := lazyNet.LazyRelaxedMAP, "lazy lp-round"
				if exact {
					solve, name = lazyNet.LazyExactMAP, "lazy exact"
				}
				lr, err := solve(context.Background(), LazyExactOptions{})
				if err != nil {
					t.Fatal(err)
				}
				check(name, cutWorldOf(lr, lazyNet, g), lr.Cost, lr.LowerBound, lr.Optimal)
			}
			_, _, walkNet := network(t, tc.prog, tc.evidence, Options{Query: query, Lazy: true})
			wr, err := walkNet.LazyMAP(context.Background(), LazyOptions{Flips: 100000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			check("lazy maxwalksat", worldOf(wr, walkNet, g), wr.Cost, 0, false)
		})
	}
}

// TestLazyRelaxedStalls: on an outside tester's Horn knowledge base, whose
// relaxation is far from integral, the rounded worlds cost more than the
// all-false world round after round; the relaxed rounds stop once three
// of them raise the bound by less than 0.1% and find no better world, and
// the answer (the better of the start world and the rounds') costs in the
// full network what is reported, with the bound below it.
func TestLazyRelaxedStalls(t *testing.T) {
	prog := `ent = {` + entities(40) + `}
*r0(ent, ent)
*r1(ent, ent)
*r2(ent, ent)
*c0(ent)
o0(ent, ent)
o1(ent, ent)
u0(ent)
u1(ent)
u2(ent)
1.5 r0(x, y) ^ r1(y, z) => o0(x, z)
1 r1(x, y) ^ r2(y, z) => o1(x, z)
0.5 o0(x, y) ^ r0(y, z) => o1(x, z)
2 o1(x, y) => o0(y, x)
1 o0(x, y) => u0(x)
1 o1(x, y) => u1(y)
!u0(x) v !u1(x).
-0.8 u2(x)
1 c0(x) ^ u0(x) => u2(x)
0.7 !o0(x, y) v !o1(x, y)
`
	rng := rand.New(rand.NewPCG(1, 40))
	var ev strings.Builder
	for range 120 {
		fmt.Fprintf(&ev, "r%d(E%d, E%d)\n", rng.IntN(3), rng.IntN(40), rng.IntN(40))
	}
	for range 13 {
		fmt.Fprintf(&ev, "c0(E%d)\n", rng.IntN(40))
	}
	query := []string{"o0", "o1", "u0", "u1", "u2"}
	_, _, lazyNet := network(t, prog, ev.String(), Options{Query: query, Lazy: true})
	lr, err := lazyNet.LazyRelaxedMAP(context.Background(), LazyExactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !lr.Stalled || lr.Status != "relaxed" || lr.RelaxedRounds > 20 {
		t.Fatalf("stalled %v, status %q after %d rounds", lr.Stalled, lr.Status, lr.RelaxedRounds)
	}
	g, in := fullGround(t, prog, ev.String(), query)
	x := cutWorldOf(lr, lazyNet, g)
	if c := signedCost(in, x); math.Abs(c-lr.Cost) > 1e-9 || hardViolated(in, x) > 0 || lr.LowerBound > lr.Cost {
		t.Errorf("the world costs %v (%d hard violated) in the full network; reported %v, bound %v", c, hardViolated(in, x), lr.Cost, lr.LowerBound)
	}
	t.Logf("%d rounds, cost %v, bound %v, %d clauses built of %d", lr.RelaxedRounds, lr.Cost, lr.LowerBound, lr.ActiveClauses, in.NumClauses())
}

// entities lists E0, ..., E(n-1) for a type declaration.
func entities(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("E%d", i)
	}
	return strings.Join(names, ", ")
}

// TestLazyCuttingPlanesDegenerate: both cutting-plane methods on the edge
// cases: no evidence at all, evidence that decides every clause (no
// unknown atom left in one), a program whose only clause is hard, and hard
// clauses the evidence breaks (an error, never a world). Each answer costs
// in the full network what it reports, breaks no hard clause, and its
// bound is at most the optimum found by enumeration.
func TestLazyCuttingPlanesDegenerate(t *testing.T) {
	for _, tc := range []struct {
		name, prog, evidence string
		query                []string
		infeasible           bool
	}{
		{"no evidence", "t = {A, B}\nP(t)\nQ(t)\n1.5 P(x) => Q(x)\n-0.5 Q(x)\n", "", []string{"P", "Q"}, false},
		{"evidence decides everything", "t = {A, B}\n*E(t)\nP(t)\n2 E(x) => P(x)\n", "E(A)\nE(B)\nP(A)\n!P(B)\n", []string{"P"}, false},
		{"only a hard clause", "t = {A, B}\nP(t)\nQ(t)\nP(x) v Q(x).\n", "", []string{"P", "Q"}, false},
		{"evidence breaks a hard clause", "t = {A}\n*E(t)\nP(t)\nE(x) => P(x).\n", "E(A)\n!P(A)\n", []string{"P"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g *ground.Result
			var in *maxsat.Instance
			best := 0.0
			if !tc.infeasible {
				g, in = fullGround(t, tc.prog, tc.evidence, tc.query)
				best, _, _, _ = optimum(t, in)
			}
			for _, exact := range []bool{false, true} {
				_, _, lazyNet, err := tryNetwork(t, tc.prog, tc.evidence, Options{Query: tc.query, Lazy: true})
				if err != nil {
					if tc.infeasible {
						continue // refused when the network is built
					}
					t.Fatal(err)
				}
				solve := lazyNet.LazyRelaxedMAP
				if exact {
					solve = lazyNet.LazyExactMAP
				}
				lr, err := solve(context.Background(), LazyExactOptions{})
				if tc.infeasible {
					if err == nil {
						t.Fatalf("exact %v: hard clauses the evidence breaks, answered %+v", exact, lr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("exact %v: %v", exact, err)
				}
				x := cutWorldOf(lr, lazyNet, g)
				if c := signedCost(in, x); math.Abs(c-lr.Cost) > 1e-9 || hardViolated(in, x) > 0 || lr.LowerBound > best+1e-9 || lr.Cost < best-1e-9 {
					t.Errorf("exact %v: cost %v (the world's %v, %d hard violated), bound %v; the optimum is %v", exact, lr.Cost, c, hardViolated(in, x), lr.LowerBound, best)
				}
			}
		})
	}
}
