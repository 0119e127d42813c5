package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	gs "github.com/crillab/gophersat/maxsat"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/store"
)

// randomNetwork writes a random Markov logic program over persons
// (Tuffy's convention: Friends and Young closed, Smokes, Cancer and Likes
// open) and random evidence: formulas of one to three literals with
// comparisons, constants, existential quantifiers, hard formulas and
// negative weights (multiples of 0.5, so that gophersat can solve the
// network exactly after doubling them).
func randomNetwork(rng *rand.Rand, persons int) (prog, evidence string) {
	var b strings.Builder
	names := []string{"A", "B", "C", "D", "E", "F"}[:persons]
	fmt.Fprintf(&b, "person = {%s}\n*Friends(person, person)\n*Young(person)\nSmokes(person)\nCancer(person)\nLikes(person, person)\n", strings.Join(names, ", "))
	used := map[string]bool{} // variables in the formula's atoms
	atom := func() string {
		v := func() string {
			if rng.IntN(10) == 0 {
				return names[rng.IntN(len(names))]
			}
			x := []string{"x", "y"}[rng.IntN(2)]
			used[x] = true
			return x
		}
		switch rng.IntN(5) {
		case 0:
			return "Friends(" + v() + ", " + v() + ")"
		case 1:
			return "Young(" + v() + ")"
		case 2:
			return "Smokes(" + v() + ")"
		case 3:
			return "Cancer(" + v() + ")"
		}
		return "Likes(" + v() + ", " + v() + ")"
	}
	weights := []string{"-1.5", "-0.5", "0.5", "1", "1.5", "2.5", "4"}
	for range 2 + rng.IntN(5) {
		clear(used)
		var f string
		switch rng.IntN(7) {
		case 0:
			f = "EXIST y Likes(x, y)"
			if rng.IntN(2) == 0 {
				f = "Smokes(x) => EXIST y Likes(x, y) ^ Friends(x, y)"
			}
		case 1:
			f = atom() + " ^ " + atom() + " => " + atom()
		case 2:
			f = atom() + " => " + atom()
			if rng.IntN(2) == 0 && used["x"] && used["y"] {
				f += " v x = y"
			}
		default:
			var lits []string
			for range 1 + rng.IntN(3) {
				l := atom()
				if rng.IntN(2) == 0 {
					l = "!" + l
				}
				lits = append(lits, l)
			}
			if rng.IntN(5) == 0 && used["x"] && used["y"] {
				lits = append(lits, "x != y")
			}
			f = strings.Join(lits, " v ")
		}
		if rng.IntN(6) == 0 {
			fmt.Fprintf(&b, "%s.\n", f)
		} else {
			fmt.Fprintf(&b, "%s %s\n", weights[rng.IntN(len(weights))], f)
		}
	}
	var ev strings.Builder
	for _, x := range names {
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&ev, "Young(%s)\n", x)
		}
		for _, y := range names {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&ev, "Friends(%s, %s)\n", x, y)
			}
			if r := rng.IntN(10); r == 0 {
				fmt.Fprintf(&ev, "Likes(%s, %s)\n", x, y)
			} else if r == 1 {
				fmt.Fprintf(&ev, "!Likes(%s, %s)\n", x, y)
			}
		}
		for _, p := range []string{"Smokes", "Cancer"} {
			if r := rng.IntN(8); r == 0 {
				fmt.Fprintf(&ev, "%s(%s)\n", p, x)
			} else if r == 1 {
				fmt.Fprintf(&ev, "!%s(%s)\n", p, x)
			}
		}
	}
	return b.String(), ev.String()
}

// lazyAndFull builds the network of a program twice, lazily and fully,
// runs LazyMAP on the first and grounds the second.
func lazyAndFull(t *testing.T, prog, evidence string, opt LazyOptions) (*LazyResult, *Network, *ground.Result, *maxsat.Instance, error) {
	t.Helper()
	query := Options{Query: []string{"Smokes", "Cancer", "Likes"}}
	lazyOpt := query
	lazyOpt.Lazy = true
	// A hard clause without variables that the evidence falsifies is
	// refused when the network is built (TestGroundUnitHardClauses).
	if _, _, _, err := tryNetwork(t, prog, evidence, query); err != nil {
		return nil, nil, nil, nil, err
	}
	_, _, lazyNet := network(t, prog, evidence, lazyOpt)
	_, _, full := network(t, prog, evidence, query)
	g, in, err := full.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lazyNet.LazyMAP(context.Background(), opt)
	return res, lazyNet, g, in, err
}

// worldOf maps the lazy result's world onto the full network's variables:
// an atom the lazy search never brought into play is false.
func worldOf(res *LazyResult, lazyNet *Network, g *ground.Result) []bool {
	return lazyWorld(res.Atoms, res.Values, res.Args, lazyNet, g)
}

// cutWorldOf is worldOf for a result of the cutting planes.
func cutWorldOf(res *LazyExactResult, lazyNet *Network, g *ground.Result) []bool {
	return lazyWorld(res.Atoms, res.Values, res.Args, lazyNet, g)
}

// lazyWorld is worldOf over a lazy result's atoms, values and their
// arguments.
func lazyWorld(atoms []ground.AtomRef, values []float64, args func(*store.Store, int) []string, lazyNet *Network, g *ground.Result) []bool {
	val := map[string]bool{}
	for i, a := range atoms {
		val[key(a.Pred.Name, args(lazyNet.Store, i))] = values[i] == 1
	}
	x := make([]bool, g.Problem.NumVars)
	for v, a := range g.Vars {
		x[v] = val[key(a.Pred.Name, g.Args(v))]
	}
	if len(val) > len(x) {
		panic("the lazy search has atoms the full network lacks")
	}
	return x
}

// hardViolated counts the hard clauses of in that x violates.
func hardViolated(in *maxsat.Instance, x []bool) int {
	_, hv := in.Eval(x)
	return hv
}

// TestLazyMatchesFullByEnumeration: on random networks of at most 16
// unknown atoms, lazy MAP's world costs in the full ground network exactly
// what LazyMAP reports, its cost is the optimum found by enumerating every
// world of the full network, and when the optimum is unique the worlds are
// the same.
func TestLazyMatchesFullByEnumeration(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 80
	}
	unique, feasible := 0, 0
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 31))
		prog, evidence := randomNetwork(rng, 3)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			res, lazyNet, g, in, err := lazyAndFull(t, prog, evidence, LazyOptions{Flips: 20000, Seed: seed})
			var inf *InfeasibleError
			if errors.As(err, &inf) && in == nil {
				return // refused when built: a hard ground unit clause the evidence falsifies
			}
			if errors.As(err, &inf) {
				if in.HardConflict() == nil {
					t.Fatalf("lazy: %v; the full network's hard clauses have no unit-propagation conflict", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, prog)
			}
			best, bestHard, count, arg := optimum(t, in)
			lx := worldOf(res, lazyNet, g)
			if c, h := signedCost(in, lx), hardViolated(in, lx); math.Abs(c-res.Cost) > 1e-9 || h != res.HardViolated {
				t.Fatalf("lazy world costs (%v, %d hard) in the full network, LazyMAP says (%v, %d)\n%s", c, h, res.Cost, res.HardViolated, prog)
			}
			if res.HardViolated != bestHard || math.Abs(res.Cost-best) > 1e-9 {
				t.Fatalf("lazy MAP (%v, %d hard violated), optimum (%v, %d)\n%s\n%s", res.Cost, res.HardViolated, best, bestHard, prog, evidence)
			}
			if bestHard == 0 {
				feasible++
			}
			if count == 1 {
				unique++
				for v := range lx {
					if lx[v] != arg[v] {
						t.Fatalf("unique optimum: the lazy world differs at %s", key(g.Vars[v].Pred.Name, g.Args(v)))
					}
				}
			}
			if res.ActiveClauses > in.NumClauses() {
				t.Fatalf("%d ground clauses built, the full network has %d", res.ActiveClauses, in.NumClauses())
			}
		})
	}
	t.Logf("%d networks with a unique optimum, %d feasible, of %d", unique, feasible, n)
	if unique < n/4 || feasible < n/2 {
		t.Fatalf("only %d networks with a unique optimum and %d feasible of %d: the generator tests too little", unique, feasible, n)
	}
}

// optimum enumerates the worlds of in over the atoms that occur in its
// clauses (the others can take any value in an optimal world; the lazy
// search leaves them false, and so does arg): the least number of violated
// hard clauses, the least cost with it, how many worlds have both, and one
// of them.
func optimum(t *testing.T, in *maxsat.Instance) (best float64, bestHard, count int, arg []bool) {
	var used []int
	seen := make([]bool, in.NumVars)
	for _, l := range in.Lits {
		if !seen[l.Var()] {
			seen[l.Var()] = true
			used = append(used, l.Var())
		}
	}
	if len(used) > 18 {
		t.Fatalf("%d unknown atoms in clauses: too many to enumerate", len(used))
	}
	best, bestHard = math.Inf(1), math.MaxInt
	x := make([]bool, in.NumVars)
	// Costs apart by less than tol are ties: a fixed 1e-9 took every world
	// for a tie where the weights are about 1e-10.
	tol := 1e-9 * min(1, in.WeightUnit())
	for mask := range 1 << len(used) {
		for k, v := range used {
			x[v] = mask>>k&1 == 1
		}
		c, h := signedCost(in, x), hardViolated(in, x)
		switch {
		case h < bestHard || h == bestHard && c < best-tol:
			best, bestHard, count, arg = c, h, 1, append([]bool(nil), x...)
		case h == bestHard && math.Abs(c-best) <= tol:
			count++
		}
	}
	return best, bestHard, count, arg
}

// exactCost solves in (signed weights, multiples of 0.5) exactly with
// gophersat: the least cost of a world that satisfies the hard clauses, ok
// false when none does.
func exactCost(t *testing.T, in *maxsat.Instance) (float64, bool) {
	pos, err := positiveForm(in)
	if err != nil {
		t.Fatal(err)
	}
	var constrs []gs.Constr
	lost := 0.0
	for c := range pos.NumClauses() {
		var lits []gs.Lit
		for _, l := range pos.Clause(c) {
			name := fmt.Sprint("x", l.Var())
			if l.Neg() {
				lits = append(lits, gs.Not(name))
			} else {
				lits = append(lits, gs.Var(name))
			}
		}
		w := pos.Weight[c]
		switch {
		case pos.Hard[c]:
			constrs = append(constrs, gs.HardClause(lits...))
		case len(lits) == 0:
			lost += w
		case w > 0:
			if scale*w != math.Trunc(scale*w) {
				t.Fatalf("weight %v is not a multiple of 1/%d", w, scale)
			}
			constrs = append(constrs, gs.WeightedClause(lits, int(scale*w)))
		}
	}
	if len(constrs) == 0 {
		return lost, true
	}
	_, cost := gs.New(constrs...).Solve()
	if cost < 0 {
		return 0, false
	}
	return lost + float64(cost)/scale, true
}

// scale turns the weights of the test networks (multiples of 0.5, split
// among a formula's clauses) into gophersat's integers.
const scale = 1 << 12

// TestLazyMatchesFullExactly: on random networks too big to enumerate (up
// to 35 unknown atoms), lazy MAP's cost is gophersat's exact optimum of the
// full ground network, and its world costs that there.
func TestLazyMatchesFullExactly(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	solved := 0
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 47))
		prog, evidence := randomNetwork(rng, 4+int(seed%2))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			res, lazyNet, g, in, err := lazyAndFull(t, prog, evidence, LazyOptions{Flips: 30000, Seed: seed})
			var inf *InfeasibleError
			if errors.As(err, &inf) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			opt, ok := exactCost(t, in)
			if !ok {
				if res.HardViolated == 0 {
					t.Fatal("gophersat: the hard clauses are unsatisfiable; the lazy world satisfies them")
				}
				return
			}
			lx := worldOf(res, lazyNet, g)
			if c, h := signedCost(in, lx), hardViolated(in, lx); math.Abs(c-res.Cost) > 1e-9 || h != res.HardViolated {
				t.Fatalf("lazy world costs (%v, %d hard) in the full network, LazyMAP says (%v, %d)", c, h, res.Cost, res.HardViolated)
			}
			if res.HardViolated != 0 || math.Abs(res.Cost-opt) > 1e-9 {
				t.Fatalf("lazy MAP (%v, %d hard violated), exact optimum %v\n%s\n%s", res.Cost, res.HardViolated, opt, prog, evidence)
			}
			solved++
		})
	}
	if solved < n/2 {
		t.Fatalf("only %d of %d networks compared", solved, n)
	}
}

// TestLazyLookaheadIsExact: at points along the walk, for every atom in
// play, the change in the full network's cost that flipping it makes is
// the change in the built clauses' cost plus, for a false atom, what the
// look-ahead counts among the clauses not yet built (and nothing for a
// true atom): the greedy moves see each flip's full cost.
func TestLazyLookaheadIsExact(t *testing.T) {
	checked := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 53))
		prog, evidence := randomNetwork(rng, 3+int(seed%2))
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			query := Options{Query: []string{"Smokes", "Cancer", "Likes"}}
			_, _, full := network(t, prog, evidence, query)
			g, in, err := full.GroundClauses(ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			query.Lazy = true
			_, _, net := network(t, prog, evidence, query)
			e, err := net.newLazy(LazyOptions{Seed: seed}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var inf *InfeasibleError
			if err := e.initial(); errors.As(err, &inf) {
				return
			} else if err != nil {
				t.Fatal(err)
			}
			fullVar := map[string]int{}
			for v, a := range g.Vars {
				fullVar[key(a.Pred.Name, g.Args(v))] = v
			}
			world := func() []bool {
				x := make([]bool, in.NumVars)
				for v, a := range e.atoms {
					x[fullVar[key(a.Pred.Name, e.s.Names(e.s.Table(a.Pred).Args(a.Row)))]] = e.w.Value(v)
				}
				return x
			}
			check := func() {
				for v, a := range e.atoms {
					x := world()
					c0, h0 := signedCost(in, x), hardViolated(in, x)
					fv := fullVar[key(a.Pred.Name, e.s.Names(e.s.Table(a.Pred).Args(a.Row)))]
					x[fv] = !x[fv]
					c1, h1 := signedCost(in, x), hardViolated(in, x)
					eh, es := e.lookahead(v)
					s0, w0 := e.walker.Cost()
					e.walker.Flip(v)
					s1, w1 := e.walker.Cost()
					e.walker.Flip(v)
					if h1-h0 != w1-w0+int(eh) || math.Abs((c1-c0)-(s1-s0+es)) > 1e-9 {
						t.Fatalf("flipping %s (now %v): full network changes by (%v, %d hard), built clauses by (%v, %d), look-ahead (%v, %d)",
							key(a.Pred.Name, e.s.Names(e.s.Table(a.Pred).Args(a.Row))), e.w.Value(v), c1-c0, h1-h0, s1-s0, w1-w0, es, eh)
					}
					checked++
				}
			}
			check()
			step := 0
			err = e.walker.Run(context.Background(), 300, func(v int) error {
				if err := e.flipped(v); err != nil {
					return err
				}
				if step++; step%25 == 0 {
					check()
				}
				return nil
			})
			if err != nil && !errors.As(err, &inf) {
				t.Fatal(err)
			}
		})
	}
	if checked < 1000 {
		t.Fatalf("only %d flips checked", checked)
	}
}

// TestMaterialize: a network built lazily and then materialized grounds to
// the same clauses over the same variables as one built in full, and
// UnknownAtoms counts them beforehand; a lazy network refuses to ground in
// full.
func TestMaterialize(t *testing.T) {
	for seed := range uint64(20) {
		prog, evidence := randomNetwork(rand.New(rand.NewPCG(seed, 61)), 3+int(seed%3))
		query := Options{Query: []string{"Smokes", "Cancer", "Likes"}}
		_, _, full := network(t, prog, evidence, query)
		query.Lazy = true
		_, _, lazy := network(t, prog, evidence, query)
		if _, _, err := lazy.GroundClauses(ground.Options{}); err == nil {
			t.Fatal("a lazy network grounded in full without an error")
		}
		if _, _, err := lazy.GroundingEstimate(); err == nil {
			t.Fatal("a lazy network's full grounding estimated without an error")
		}
		want := lazy.UnknownAtoms()
		if err := lazy.Materialize(0); err != nil {
			t.Fatal(err)
		}
		g1, in1, err := full.GroundClauses(ground.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g2, in2, err := lazy.GroundClauses(ground.Options{})
		if err != nil {
			t.Fatal(err)
		}
		clauses, bytes, err := lazy.GroundingEstimate()
		if err != nil {
			t.Fatal(err)
		}
		if n := float64(in1.NumClauses()); clauses < n || bytes < 100*clauses {
			// The planner's estimate counts substitutions the evidence
			// then drops; it is never below what is grounded here (joins
			// of a few atoms, no correlated arguments to mislead it).
			t.Fatalf("seed %d: estimate of %v ground clauses (%v bytes), %v grounded", seed, clauses, bytes, n)
		}
		if float64(g1.Problem.NumVars) != want || g2.Problem.NumVars != g1.Problem.NumVars {
			t.Fatalf("seed %d: UnknownAtoms %v, full network %d, materialized %d", seed, want, g1.Problem.NumVars, g2.Problem.NumVars)
		}
		for v := range g1.Vars {
			if a, b := key(g1.Vars[v].Pred.Name, g1.Args(v)), key(g2.Vars[v].Pred.Name, g2.Args(v)); a != b {
				t.Fatalf("seed %d: variable %d is %s in full, %s materialized", seed, v, a, b)
			}
		}
		if fmt.Sprint(in1) != fmt.Sprint(in2) {
			t.Fatalf("seed %d: the ground clauses differ", seed)
		}
	}
}

// TestLazyDefaultViolated: the ground clauses that cost in the world where
// every unknown atom is false are built before the walk starts (clauses of
// only positive literals of open predicates, existentials, ground priors,
// functional arguments, hard ones, negative weights both ways), so that
// world's cost over the built clauses is its cost in the full network; and
// the MAP world is the enumerated optimum.
func TestLazyDefaultViolated(t *testing.T) {
	for _, tc := range []struct{ name, prog, evidence string }{
		{"positive literals only", "1 Smokes(x) v Cancer(x)\n", ""},
		{"existential", "2 EXIST y Likes(x, y)\n", "!Likes(A, B)\n"},
		{"ground prior and hard ground atom", "1 Smokes(A)\nCancer(B).\n-0.5 Cancer(C)\n", ""},
		{"closed body", "1.5 !Friends(x, y) v Likes(x, y)\n0.5 !Smokes(x) v Cancer(x)\n", "Friends(A, B)\nFriends(C, C)\n"},
		{"hard with a closed negated atom", "Smokes(x) v !Young(x).\n1 !Smokes(x) v !Cancer(x)\n", "Young(A)\nYoung(C)\n"},
		{"negative weight, negated open atom", "-1 !Smokes(x)\n-0.5 !Likes(x, y) v Smokes(y)\n", "Likes(A, B)\n"},
		{"negative weight, positive open atom", "-1 Likes(x, y)\n-2 !Friends(x, y) v Smokes(x) v Cancer(y)\n3 !Young(x) v Smokes(x)\n", "Friends(A, B)\nYoung(A)\n"},
		{"functional argument", "HasPos(person, pos!)\n1 HasPos(x, Chief) => Smokes(x)\n-1 Smokes(x)\n", "pos = {Chief, Clerk}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := "person = {A, B, C}\n*Friends(person, person)\n*Young(person)\nSmokes(person)\nCancer(person)\nLikes(person, person)\n" + tc.prog
			evidence := tc.evidence
			if strings.HasPrefix(evidence, "pos = ") { // a type declaration belongs to the program
				prog = evidence + prog
				evidence = ""
			}
			query := Options{Query: []string{"Smokes", "Cancer", "Likes"}}
			if strings.Contains(prog, "HasPos") {
				query.Query = append(query.Query, "HasPos")
			}
			_, _, full := network(t, prog, evidence, query)
			g, in, err := full.GroundClauses(ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			query.Lazy = true
			_, _, net := network(t, prog, evidence, query)
			e, err := net.newLazy(LazyOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.initial(); err != nil {
				t.Fatal(err)
			}
			x0 := make([]bool, in.NumVars)
			_, hard := e.walker.Cost()
			soft := e.walker.SignedCost(make([]bool, e.walker.NumVars()))
			if c, h := signedCost(in, x0), hardViolated(in, x0); math.Abs(c-soft) > 1e-9 || h != hard {
				t.Fatalf("all-false world: full network cost (%v, %d hard), built clauses (%v, %d) from %d of %d ground clauses", c, h, soft, hard, e.w.NumClauses(), in.NumClauses())
			}
			// The MAP world against enumeration.
			_, _, net2 := network(t, prog, evidence, query)
			res, err := net2.LazyMAP(context.Background(), LazyOptions{Flips: 20000})
			if err != nil {
				t.Fatal(err)
			}
			best, bestHard, _, _ := optimum(t, in)
			lx := worldOf(res, net2, g)
			if c, h := signedCost(in, lx), hardViolated(in, lx); math.Abs(c-res.Cost) > 1e-9 || h != res.HardViolated {
				t.Fatalf("lazy world costs (%v, %d) in the full network, LazyMAP says (%v, %d)", c, h, res.Cost, res.HardViolated)
			}
			if res.HardViolated != bestHard || math.Abs(res.Cost-best) > 1e-9 {
				t.Fatalf("lazy MAP (%v, %d hard), optimum (%v, %d)", res.Cost, res.HardViolated, best, bestHard)
			}
		})
	}
}

// TestLazyInfeasibleByPropagation: hard clauses that the evidence
// contradicts only through a chain of them (Smokes(A) and friends force
// Smokes(B), then Smokes(C), which !Cancer(C) forbids) are found by unit
// propagation before any search by every lazy method, with the proof the
// full grounding gives; lazy MAP used to walk 10^6 flips and end with a
// world that violates them. On random networks, every infeasibility the
// lazy search reports is one the full grounding's propagation finds too
// (TestLazyMatchesFullByEnumeration), and most of those it finds.
func TestLazyInfeasibleByPropagation(t *testing.T) {
	const prog = "Friends(person, person)\nSmokes(person)\nCancer(person)\nFriends(x, y) ^ Smokes(x) => Smokes(y).\nSmokes(y) => Cancer(y).\n1 Cancer(x)\n"
	const ev = "Friends(A, B)\nFriends(B, C)\nSmokes(A)\n!Cancer(C)\n"
	want := []string{"Smokes(B)   from", "!Smokes(B) v Smokes(C)   from", "!Smokes(C)   from"}
	q := Options{Query: []string{"Smokes", "Cancer"}, Lazy: true}
	for name, run := range map[string]func(*Network) error{
		"map":   func(n *Network) error { _, err := n.LazyMAP(context.Background(), LazyOptions{Seed: 1}); return err },
		"exact": func(n *Network) error { _, err := n.LazyExactMAP(context.Background(), LazyExactOptions{}); return err },
		"marginals": func(n *Network) error {
			_, err := n.LazyMarginals(context.Background(), LazySampleOptions{SampleOptions: DefaultSampleOptions()})
			return err
		},
	} {
		_, _, net := network(t, prog, ev, q)
		err := run(net)
		var ie *InfeasibleError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: error %v, want an *InfeasibleError", name, err)
		}
		for i, w := range want {
			if i >= len(ie.Clauses) || !strings.HasPrefix(ie.Clauses[i], w) {
				t.Errorf("%s: proof %q, want clauses starting %q", name, ie.Clauses, want)
				break
			}
		}
	}
	found, infeasible := 0, 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 77))
		p, e := randomNetwork(rng, 3)
		_, _, _, in, err := lazyAndFull(t, p, e, LazyOptions{Flips: 1, Seed: seed})
		if in.HardConflict() == nil {
			continue
		}
		infeasible++
		var ie *InfeasibleError
		if errors.As(err, &ie) {
			found++
		}
	}
	t.Logf("lazy propagation found %d of the %d random networks whose full grounding propagation proves infeasible", found, infeasible)
	if infeasible > 0 && found*2 < infeasible {
		t.Errorf("lazy propagation found only %d of %d infeasible networks", found, infeasible)
	}
}

// TestGroundUnitHardClauses: a hard clause of one positive literal without
// variables is checked against the evidence when the network is built. The
// grounder grounds such a clause over its atom's rows, so an atom of a
// closed predicate absent from the evidence gave no ground clause, and
// every method answered as if the clause were not there. Refused: the atom
// absent from a closed predicate ('*' or by Alchemy's default), or false
// in the evidence; kept: true in the evidence, of an open predicate, a
// negative literal, and every clause once --hard-weight makes it soft.
func TestGroundUnitHardClauses(t *testing.T) {
	const functional = "t = {Ann, Bob}\nh = {Chess, Golf}\nLikes(t, h!)\nPa(t)\n1 Likes(x, Chess) => Pa(x)\n"
	for _, tc := range []struct {
		name, prog, ev string
		opt            Options
		refused        string
	}{
		{"closed by '*', absent", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\n3 Pa(Ann)\nQb(Ann).\n", "Pa(Bob)\n", Options{Query: []string{"Pa"}}, "Qb(Ann) is false, absent from the evidence"},
		{"closed by default, absent", "t = {Ann, Bob}\nPa(t)\nQb(t)\n3 Pa(Ann)\nQb(Ann).\n", "Pa(Bob)\n", Options{Query: []string{"Pa"}}, "Qb(Ann) is false, absent from the evidence"},
		{"false in the evidence", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\nQb(Ann).\n", "!Qb(Ann)\n", Options{Query: []string{"Pa"}}, "Qb(Ann) is false in the evidence"},
		{"from a conjunction", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\nQb(Ann) ^ Pa(x).\n", "", Options{Query: []string{"Pa"}}, "Qb(Ann) is false, absent from the evidence"},
		{"true in the evidence", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\nQb(Ann).\n", "Qb(Ann)\n", Options{Query: []string{"Pa"}}, ""},
		{"open", "t = {Ann, Bob}\nPa(t)\nQb(t)\nQb(Ann).\n", "", Options{Query: []string{"Pa", "Qb"}}, ""},
		{"a negative literal", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\n!Qb(Ann).\n", "", Options{Query: []string{"Pa"}}, ""},
		{"made soft", "t = {Ann, Bob}\nPa(t)\n*Qb(t)\nQb(Ann).\n", "", Options{Query: []string{"Pa"}, HardWeight: 5}, ""},
		// A functional argument of a closed predicate holds in the evidence
		// as the clauses it stands for would: it was not checked (exit 0),
		// while the same predicate opened was refused.
		{"closed functional argument, two values", functional, "Likes(Ann, Chess)\nLikes(Ann, Golf)\nLikes(Bob, Golf)\n", Options{Query: []string{"Pa"}}, "Likes(Ann, Golf) is true in the evidence"},
		{"closed functional argument, none", functional, "Likes(Ann, Chess)\n", Options{Query: []string{"Pa"}}, "Likes(Bob, Chess) is false, absent from the evidence"},
		{"closed functional argument, one each", functional, "Likes(Ann, Chess)\nLikes(Bob, Golf)\n", Options{Query: []string{"Pa"}}, ""},
		{"open functional argument, two values", functional, "Likes(Ann, Chess)\nLikes(Ann, Golf)\nLikes(Bob, Golf)\n", Options{Query: []string{"Pa"}, Open: []string{"Likes"}}, "Likes(Ann, Golf) is true in the evidence"},
	} {
		_, _, net, err := tryNetwork(t, tc.prog, tc.ev, tc.opt)
		if err == nil { // the clauses with variables are refused after grounding, as MAP and Marginals do
			g, in, gerr := net.GroundClauses(ground.Options{})
			if err = gerr; err == nil {
				if core := in.HardConflict(); core != nil {
					err = net.infeasible(g, in, core)
				}
			}
		}
		var inf *InfeasibleError
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.refused != "" && (!errors.As(err, &inf) || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: %v; want an InfeasibleError saying %q", tc.name, err, tc.refused)
		}
	}
}

// TestLazyNegativeClauseWithoutVariables: a clause of negative weight
// without variables that negates an unknown atom costs in the all-false
// world, so lazy grounding builds it at the start, as it does the same
// clause with variables. It was never built (the join that grounds it
// looked for its positive atoms, absent until they come into play), and
// lazy MAP, exact or not, reported the all-false world at cost 0 ("proven
// optimal") where it costs |w|. Lazy MAP must find the full network's
// optimum, 0 here.
func TestLazyNegativeClauseWithoutVariables(t *testing.T) {
	for _, prog := range []string{
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-1 !Rc(Ann, Bob) v Pa(Ann)\n",
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-2 Pa(Ann) => Pa(Bob)\n",
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-1.5 !Pa(Ann) v !Pa(Bob) v Rc(Ann, Ann)\n1 Pa(x)\n",
		// A comparison of constants that holds satisfies every grounding:
		// the clause is not one (it was built as -5 !Pa(Ann)).
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-5 !Pa(Ann) v Ann != Bob\n1 !Pa(Ann)\n",
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-5 !Pa(Ann) v Pa(Bob) v Ann = Ann\n",
		// Beside hard clauses without variables, and a near-deterministic
		// weight.
		"t = {Ann, Bob}\nPa(t)\nRc(t, t)\n-1 !Rc(Ann, Bob) v Pa(Ann)\nPa(Ann) v Rc(Bob, Bob).\n!Rc(Bob, Bob) v Pa(Bob).\n-12 !Pa(Bob) v Rc(Ann, Ann)\n",
	} {
		opt := Options{Query: []string{"Pa", "Rc"}}
		_, _, full := network(t, prog, "", opt)
		fr, err := full.MAP(context.Background(), MAPOptions{Method: MethodExact, MaxSAT: maxsat.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		opt.Lazy = true
		_, _, lazy := network(t, prog, "", opt)
		lr, err := lazy.LazyMAP(context.Background(), LazyOptions{Flips: 10000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, _, lazy2 := network(t, prog, "", opt)
		xr, err := lazy2.LazyExactMAP(context.Background(), LazyExactOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lr.Cost-fr.Cost) > 1e-9 || math.Abs(xr.Cost-fr.Cost) > 1e-9 || !xr.Optimal {
			t.Errorf("%s: lazy MAP cost %v, lazy exact %v (optimal %v); the full network's optimum %v", prog, lr.Cost, xr.Cost, xr.Optimal, fr.Cost)
		}
		// The worlds cost in the full network what the lazy searches say.
		g, in, err := full.GroundClauses(ground.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c := signedCost(in, worldOf(lr, lazy, g)); math.Abs(c-lr.Cost) > 1e-9 {
			t.Errorf("%s: the lazy MAP world costs %v in the full network, LazyMAP says %v", prog, c, lr.Cost)
		}
		xl := &LazyResult{Atoms: xr.Atoms, Values: xr.Values}
		if c := signedCost(in, worldOf(xl, lazy2, g)); math.Abs(c-xr.Cost) > 1e-9 {
			t.Errorf("%s: the lazy exact world costs %v in the full network, LazyExactMAP says %v", prog, c, xr.Cost)
		}
	}
}

// TestMAPCostBesideHugeWeight: a weight of 10^12 in the network does not
// make the other costs round away. Every world of the four parity clauses
// violates one, so the optimum is 1; each method reported cost 0 (the cost
// snapped to 0 within 1e-9 of the total weight, 1000 here), and claimed
// optimality on that tolerance.
func TestMAPCostBesideHugeWeight(t *testing.T) {
	prog := "t = {Ann, Bob}\nPa(t)\nSd(t)\n1000000000000 Sd(Ann)\n1 Pa(Ann) v Pa(Bob)\n1 !Pa(Ann) v !Pa(Bob)\n1 Pa(Ann) v !Pa(Bob)\n1 !Pa(Ann) v Pa(Bob)\n"
	for _, m := range []string{MethodLPRound, MethodLPWalkSAT, MethodWalkSAT, MethodExact} {
		_, _, net := network(t, prog, "", Options{Query: []string{"Pa", "Sd"}})
		r, err := net.MAP(context.Background(), MAPOptions{Method: m, MaxSAT: maxsat.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if r.Cost != 1 || r.Report.Optimal && r.LowerBound != 1 || r.LowerBound > 1 {
			t.Errorf("%s: cost %v, bound %v, optimal %v; want cost 1 (and bound 1 if optimal)", m, r.Cost, r.LowerBound, r.Report.Optimal)
		}
		if m == MethodExact && !r.Report.Optimal {
			t.Errorf("exact: not proven optimal: cost %v, bound %v", r.Cost, r.LowerBound)
		}
	}
}
