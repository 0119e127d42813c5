package maxsat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// exactCase makes a random instance with every feature the exact solver
// must handle: hard clauses, repeated soft clauses, opposite unit clauses,
// empty and tautological clauses, zero weights, and weights that are
// integers, decimals (kind 1) or arbitrary reals (kind 2).
func exactCase(rng *rand.Rand, n, m int, pHard float64, kind int) *Instance {
	in := randomInstance(rng, n, m, 4, kind == 0, pHard)
	weight := func() float64 {
		switch kind {
		case 0:
			return float64(1 + rng.IntN(10))
		case 1:
			return float64(rng.IntN(100000)) / 1000 // three decimals
		}
		return 10 * rng.Float64()
	}
	if kind == 1 {
		for c := range in.Weight {
			in.Weight[c] = weight()
		}
	}
	extra := 1 + rng.IntN(4)
	for range extra {
		v := rng.IntN(n)
		must(in.AddClause(weight(), false, Pos(v)))
		must(in.AddClause(weight(), false, Not(v))) // opposite units
		c := rng.IntN(in.NumClauses())
		if !in.Hard[c] {
			must(in.AddClause(weight(), false, in.Clause(c)...)) // a repeat
		}
	}
	if rng.IntN(3) == 0 {
		must(in.AddClause(weight(), false)) // empty: always falsified
	}
	if rng.IntN(3) == 0 {
		v := rng.IntN(n)
		must(in.AddClause(weight(), rng.IntN(2) == 0, Pos(v), Not(v))) // tautology
	}
	if rng.IntN(4) == 0 {
		must(in.AddClause(0, false, Pos(rng.IntN(n))))
	}
	return in
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// checkExact compares an Exact result with the optimum cost (ok false:
// the hard clauses are unsatisfiable).
func checkExact(t *testing.T, name string, in *Instance, r *ExactResult, opt float64, ok bool) {
	t.Helper()
	tol := 1e-9 * (1 + in.SoftWeight())
	if !ok {
		if !r.Infeasible || r.X != nil {
			t.Fatalf("%s: hard clauses unsatisfiable, result %+v", name, r)
		}
		return
	}
	if r.Infeasible {
		t.Fatalf("%s: infeasible claimed, optimum %v", name, opt)
	}
	if r.LowerBound > opt+tol {
		t.Fatalf("%s: lower bound %v above the optimum %v", name, r.LowerBound, opt)
	}
	if r.X == nil {
		if r.Optimal {
			t.Fatalf("%s: optimal without a world", name)
		}
		return
	}
	if _, hv := in.Eval(r.X); hv > 0 {
		t.Fatalf("%s: the world violates %d hard clauses", name, hv)
	}
	if c := in.FalsifiedWeight(r.X); math.Abs(c-r.Cost) > tol {
		t.Fatalf("%s: cost %v, the world costs %v", name, r.Cost, c)
	}
	if r.Cost < opt-tol {
		t.Fatalf("%s: cost %v below the optimum %v", name, r.Cost, opt)
	}
	if r.Optimal && r.Cost > opt+2*r.WeightError+tol {
		t.Fatalf("%s: optimal claimed at %v, optimum %v (weight error %v)", name, r.Cost, opt, r.WeightError)
	}
	if r.Optimal && r.Cost-r.LowerBound > 2*r.WeightError+tol {
		t.Fatalf("%s: optimal with a gap: cost %v, bound %v", name, r.Cost, r.LowerBound)
	}
}

// TestExactAgainstBruteForce solves random instances with every feature
// (exactCase) under each combination of the solver's options and checks
// every answer against enumeration: the optimum found and proven, bounds
// that hold, infeasibility only when true.
func TestExactAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	variants := []ExactOptions{{}, {NoStratify: true}, {Exhaust: true, Minimize: true}, {NoStratify: true, Minimize: true}, {Exhaust: true}}
	trials := 300
	if testing.Short() {
		trials = 60
	}
	optimal := 0
	for trial := range trials {
		n := 2 + rng.IntN(13)
		pHard := []float64{0, 0.1, 0.3}[trial%3]
		in := exactCase(rng, n, n+rng.IntN(3*n), pHard, trial%3)
		best, _, ok := bruteForce(in)
		optCost := in.SoftWeight() - best
		for k, o := range variants {
			if trial%2 == 1 {
				// Start from a world, feasible or not.
				x := make([]bool, n)
				for i := range x {
					x[i] = rng.IntN(2) == 0
				}
				o.Start = [][]bool{x}
			}
			r, err := Exact(context.Background(), in, o)
			if err != nil {
				t.Fatalf("trial %d variant %d: %v", trial, k, err)
			}
			checkExact(t, "trial", in, r, optCost, ok)
			if ok && !r.Optimal {
				t.Fatalf("trial %d variant %d: not proven optimal without a time limit: %+v", trial, k, r)
			}
			if r.Optimal {
				optimal++
			}
		}
	}
	t.Logf("%d runs proven optimal", optimal)
}

// TestExactAgainstGophersat solves medium random instances with integer
// weights (too large for enumeration), with and without the neighbourhood
// search, and compares the optimum with gophersat's.
func TestExactAgainstGophersat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	trials := 16
	if testing.Short() {
		trials = 4
	}
	defer func(minVars int, delay time.Duration) { lnsMinVars, lnsDelay = minVars, delay }(lnsMinVars, lnsDelay)
	lnsDelay = 0
	for trial := range trials {
		n := 30 + rng.IntN(25)
		in := exactCase(rng, n, 3*n, []float64{0, 0.05}[trial%2], 0)
		best, ok := exactOptimum(in)
		// Each instance with the cores alone and with the neighbourhood
		// search beside them from the start.
		for _, minVars := range []int{math.MaxInt, 1} {
			lnsMinVars = minVars
			r, err := Exact(context.Background(), in, ExactOptions{Exhaust: trial%2 == 0, Minimize: trial%2 == 0, Seed: uint64(trial)})
			if err != nil {
				t.Fatal(err)
			}
			checkExact(t, "gophersat", in, r, in.SoftWeight()-best, ok)
			if ok && (!r.Optimal || r.Cost != in.SoftWeight()-best) {
				t.Fatalf("trial %d (search from %d variables): cost %v (optimal %v), gophersat's optimum %v", trial, minVars, r.Cost, r.Optimal, in.SoftWeight()-best)
			}
		}
	}
}

// TestExactScale checks the weights' scaling: decimals are exact, other
// reals carry a rounding error that is taken from the bound.
func TestExactScale(t *testing.T) {
	for _, tc := range []struct {
		w     []float64
		scale float64
		exact bool
	}{
		{[]float64{1, 2, 3}, 1, true},
		{[]float64{0.5, 1.25}, 100, true},
		{[]float64{0.0732856, 2.38127}, 1e7, true},
		{[]float64{1.0 / 3, 2}, 0, false},
		{[]float64{0.1 / 3, 7}, 0, false},
		{[]float64{0.5000001, 0.5}, 1e7, true},
		{[]float64{0.10000004, 0.10000001}, 1e8, true},
		{[]float64{0.1 + 0.2, 123456.789}, 1000, true},
	} {
		in := &Instance{}
		for i, w := range tc.w {
			must(in.AddClause(w, false, Pos(i)))
		}
		s := &oll{in: in}
		s.scaleWeights()
		if tc.exact != (s.werr == 0) || tc.exact && s.scale != tc.scale {
			t.Errorf("weights %v: scale %v error %v, want exact %v scale %v", tc.w, s.scale, s.werr, tc.exact, tc.scale)
		}
		for c, w := range tc.w {
			if math.Abs(float64(s.w[c])/s.scale-w) > 1e-9 {
				t.Errorf("weights %v: %d/%v for %v", tc.w, s.w[c], s.scale, w)
			}
		}
	}
}

// TestExactNearDecimals: weights that differ from a coarser decimal by
// less than 1e-6 of a unit at that scale (0.5000001 against 0.5) are
// solved at their own scale: the optimum and the bound are right. The
// exact solver took 0.5000001 for 0.5 and proved the wrong world optimal,
// its bound above the optimum.
func TestExactNearDecimals(t *testing.T) {
	for _, w := range [][2]float64{{0.5000001, 0.5}, {0.10000004, 0.10000001}, {1.0000001, 1}} {
		in := &Instance{}
		must(in.AddClause(w[0], false, Pos(0)))
		must(in.AddClause(w[1], false, Not(0)))
		r, err := Exact(context.Background(), in, ExactOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, fmt.Sprint(w), in, r, min(w[0], w[1]), true)
		if !r.Optimal || r.Cost != min(w[0], w[1]) {
			t.Errorf("weights %v: cost %v (optimal %v), want %v", w, r.Cost, r.Optimal, min(w[0], w[1]))
		}
	}
}

// TestExactTimeLimit stops a run at once: the answer is a certified
// bound and the best world found, not a claim of optimality.
func TestExactTimeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := randomInstance(rng, 300, 1400, 3, true, 0)
	r, err := Exact(context.Background(), in, ExactOptions{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Optimal || r.Status != "time limit" {
		t.Fatalf("status %q optimal %v after a nanosecond", r.Status, r.Optimal)
	}
	if r.LowerBound < 0 || r.Gap() < 0 || r.Gap() > 1 {
		t.Fatalf("bound %v gap %v", r.LowerBound, r.Gap())
	}
}

// TestExactCancelled returns the context's error, and no result, once the
// context is done.
func TestExactCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	in := randomInstance(rng, 300, 1400, 3, true, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Exact(ctx, in, ExactOptions{})
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Fatalf("got %v, %v; want context.Canceled and no result", r, err)
	}
}

// TestExactComponents: an instance made of independent parts is solved
// part by part, and its optimum and bound are the sums of the parts'.
func TestExactComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 40 {
		var parts []*Instance
		in := &Instance{Start: []int32{0}}
		want := 0.0
		for range 2 + rng.IntN(3) {
			p := exactCase(rng, 2+rng.IntN(6), 3+rng.IntN(10), 0.1, trial%3)
			best, _, ok := bruteForce(p)
			if !ok {
				continue
			}
			want += p.SoftWeight() - best
			off := in.NumVars
			for c := range p.NumClauses() {
				lits := make([]Lit, 0, 4)
				for _, l := range p.Clause(c) {
					m := Lit(int(l.Var()) + off + 1)
					if l.Neg() {
						m = -m
					}
					lits = append(lits, m)
				}
				must(in.AddClause(p.Weight[c], p.Hard[c], lits...))
			}
			in.NumVars = off + p.NumVars
			parts = append(parts, p)
		}
		if len(components(in)) < len(parts) {
			t.Fatalf("trial %d: %d components for %d independent parts", trial, len(components(in)), len(parts))
		}
		r, err := Exact(context.Background(), in, ExactOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, "components", in, r, want, true)
		if !r.Optimal {
			t.Fatalf("trial %d: not proven optimal: %+v", trial, r)
		}
	}
}

// TestExactWrittenWeights: weights with more significant digits than a
// float64 holds are solved as written. Each pair is a tie as float64s
// (or nearly), and the answer is the world that falsifies the lighter
// clause as written, proven optimal by integer arithmetic on the decimals
// (scale 10^digits), its cost written in full. Exact scaled the float64s:
// 100000000.123456789 by 10^4 (within its relative tolerance of an
// integer), 1125899906842624.3 and 9007199254740993 by 1, and proved the
// wrong world optimal.
func TestExactWrittenWeights(t *testing.T) {
	for _, tc := range []struct {
		text  string
		x     bool
		cost  string
		scale float64
	}{
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", true, "100000000.123456788", 1e9},
		{"100000000.123456788 1 0\n100000000.123456789 -1 0\n", false, "100000000.123456788", 1e9},
		{"1125899906842624.3 1 0\n1125899906842624.2 -1 0\n", true, "1125899906842624.2", 10},
		{"1125899906842624.2 1 0\n1125899906842624.3 -1 0\n", false, "1125899906842624.2", 10},
		{"p wcnf 1 2 1000000000000000000\n9007199254740993 1 0\n9007199254740992 -1 0\n", true, "9007199254740992", 1},
		{"9007199254740992 1 0\n9007199254740993 -1 0\n", false, "9007199254740992", 1},
		// Round-trip weights with many digits: 123456789012.1234 is no
		// multiple of 0.1, which the relative tolerance took it for.
		{"123456789012.1234 1 0\n123456789012.1235 -1 0\n", false, "123456789012.1234", 1e4},
		{"123456789012.1235 1 0\n123456789012.1234 -1 0\n", true, "123456789012.1234", 1e4},
	} {
		in, err := Read(strings.NewReader(tc.text), "x")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Exact(context.Background(), in, ExactOptions{NoLNS: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal || r.X[0] != tc.x || in.CostText(r.X) != tc.cost || r.Scale != tc.scale || r.WeightError != 0 {
			t.Errorf("%q: x %v cost %s optimal %v scale %v error %v; want x %v cost %s, optimal, scale %v",
				tc.text, r.X, in.CostText(r.X), r.Optimal, r.Scale, r.WeightError, tc.x, tc.cost, tc.scale)
		}
	}
}

// TestExactWrittenBruteForce solves random instances of 1 to 8 variables
// whose weights are decimals of 15 to 18 significant digits, many of them
// near-ties (a last digit apart), and checks against a brute force in
// exact rational arithmetic on the weights as written: within the --exact
// promise (at most nine digits after the point, the exact total times
// 10^digits below 2^60) the answer is proven optimal and is an optimum;
// beyond it, an answer called optimal is one.
func TestExactWrittenBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	decimalText := func() string {
		sig := 15 + rng.IntN(4)
		frac := rng.IntN(10)
		if frac >= sig {
			frac = sig - 1
		}
		var b strings.Builder
		b.WriteByte(byte('1' + rng.IntN(9)))
		for range sig - 1 {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		s := b.String()
		if frac > 0 {
			s = s[:sig-frac] + "." + s[sig-frac:]
		}
		return s
	}
	nearTie := func(s string) string {
		b := []byte(s)
		last := len(b) - 1
		switch {
		case b[last] == '9':
			b[last] = '8'
		default:
			b[last]++
		}
		return string(b)
	}
	inPromise, proven := 0, 0
	for trial := range 300 {
		n := 1 + rng.IntN(8)
		m := 1 + rng.IntN(14)
		var text strings.Builder
		var weights []string
		var pool []string
		for range m {
			var w string
			switch {
			case len(pool) > 0 && rng.IntN(2) == 0:
				w = nearTie(pool[rng.IntN(len(pool))])
			case len(pool) > 0 && rng.IntN(4) == 0:
				w = pool[rng.IntN(len(pool))]
			default:
				w = decimalText()
			}
			pool = append(pool, w)
			hard := rng.IntN(10) == 0
			if hard {
				text.WriteString("h")
			} else {
				text.WriteString(w)
			}
			weights = append(weights, w)
			for range 1 + rng.IntN(3) {
				v := 1 + rng.IntN(n)
				if rng.IntN(2) == 0 {
					v = -v
				}
				fmt.Fprintf(&text, " %d", v)
			}
			text.WriteString(" 0\n")
		}
		in, err := Read(strings.NewReader(text.String()), "x")
		if err != nil {
			t.Fatal(err)
		}
		// Brute force on the weights as written, in rationals.
		rat := make([]*big.Rat, m)
		total, digits := new(big.Rat), 0
		for c, w := range weights {
			rat[c], _ = new(big.Rat).SetString(w)
			if !in.Hard[c] {
				total.Add(total, rat[c])
				if i := strings.IndexByte(w, '.'); i >= 0 {
					digits = max(digits, len(w)-i-1)
				}
			}
		}
		var best *big.Rat
		x := make([]bool, in.NumVars)
		for mask := range 1 << in.NumVars {
			for v := range x {
				x[v] = mask>>v&1 == 1
			}
			cost, ok := new(big.Rat), true
			for c := range m {
				if !in.Satisfied(c, x) {
					if in.Hard[c] {
						ok = false
						break
					}
					cost.Add(cost, rat[c])
				}
			}
			if ok && (best == nil || cost.Cmp(best) < 0) {
				best = cost
			}
		}
		scaled := new(big.Rat).Mul(total, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)))
		promise := scaled.Cmp(new(big.Rat).SetInt64(1<<60)) < 0
		r, err := Exact(context.Background(), in, ExactOptions{NoLNS: true})
		if err != nil {
			t.Fatal(err)
		}
		if best == nil {
			if !r.Infeasible {
				t.Errorf("trial %d: infeasible, got %s\n%s", trial, r.Status, text.String())
			}
			continue
		}
		if r.X == nil {
			t.Fatalf("trial %d: no world (%s)\n%s", trial, r.Status, text.String())
		}
		got, ok := new(big.Rat).SetString(in.CostText(r.X))
		if !ok {
			t.Fatalf("trial %d: cost text %q", trial, in.CostText(r.X))
		}
		if promise {
			inPromise++
			if !r.Optimal || r.WeightError != 0 {
				t.Errorf("trial %d: within the promise (total x 10^%d = %s) but %s, weight error %v\n%s",
					trial, digits, scaled.FloatString(0), r.Status, r.WeightError, text.String())
			}
		}
		if r.Optimal {
			proven++
			if got.Cmp(best) != 0 {
				t.Errorf("trial %d: called optimal at cost %s, the optimum is %s\n%s", trial, in.CostText(r.X), best.FloatString(digits), text.String())
			}
		}
	}
	if inPromise < 50 || proven < 50 {
		t.Errorf("only %d trials within the promise and %d proven: the generator misses its purpose", inPromise, proven)
	}
	t.Logf("%d trials within the promise, %d proven optimal", inPromise, proven)
}

// TestExactTimeLimitWithoutHardClauses: stopped at once, Exact on an
// instance with no hard clause still answers a world (every assignment is
// one) at its cost; hinge maxsat said "no assignment satisfies the hard
// clauses".
func TestExactTimeLimitWithoutHardClauses(t *testing.T) {
	in := &Instance{NumVars: 2, Start: []int32{0}}
	if err := in.AddClause(3, false, Pos(0)); err != nil {
		t.Fatal(err)
	}
	if err := in.AddClause(2, false, -Pos(0), Pos(1)); err != nil {
		t.Fatal(err)
	}
	r, err := Exact(context.Background(), in, ExactOptions{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.X == nil || r.Cost != in.FalsifiedWeight(r.X) || r.Infeasible {
		t.Fatalf("%+v", r)
	}
}
