package pathrule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randomGraph(seed uint64, n, rels, m int) *Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	var ts []Triple
	for range m {
		ts = append(ts, Triple{H: int32(r.IntN(n)), R: int32(r.IntN(rels)), T: int32(r.IntN(n))})
	}
	return NewGraph(ts, n, rels)
}

// bruteWalk enumerates every path x, a1, ..., y over all entities and
// keeps those whose entities are pairwise different.
func bruteWalk(g *Graph, x int32, steps []Step) []int32 {
	holds := func(st Step, a, b int32) bool {
		if st.Inverse {
			return g.Has(Triple{H: b, R: st.R, T: a})
		}
		return g.Has(Triple{H: a, R: st.R, T: b})
	}
	found := map[int32]bool{}
	var rec func(path []int32)
	rec = func(path []int32) {
		d := len(path) - 1
		if d == len(steps) {
			found[path[d]] = true
			return
		}
		for e := range int32(g.NumEntities) {
			if !slices.Contains(path, e) && holds(steps[d], path[d], e) {
				rec(append(slices.Clone(path), e))
			}
		}
	}
	rec([]int32{x})
	return slices.Sorted(func(yield func(int32) bool) {
		for y := range found {
			if !yield(y) {
				return
			}
		}
	})
}

// Walk against enumeration of paths, with self-loops and parallel edges
// in the graphs; CountPath's exact count against the walks.
func TestWalkMatchesBruteForce(t *testing.T) {
	for seed := range uint64(30) {
		g := randomGraph(seed, 8, 3, 30)
		heads := randomGraph(seed+100, 8, 2, 20)
		w := NewWalker(g)
		rng := rand.New(rand.NewPCG(seed, 2))
		for range 20 {
			var steps []Step
			for range 1 + rng.IntN(MaxWalk) {
				steps = append(steps, Step{R: int32(rng.IntN(3)), Inverse: rng.IntN(2) == 0})
			}
			head := int32(rng.IntN(3))
			support, body := 0, 0
			for x := range int32(8) {
				got := slices.Sorted(slices.Values(w.Walk(x, steps, nil)))
				want := bruteWalk(g, x, steps)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d, %v from %d: %v, brute force %v", seed, steps, x, got, want)
				}
				if len(g.Step(x, steps[0].R, steps[0].Inverse)) == 0 {
					continue
				}
				body += len(want)
				for _, y := range want {
					if g.Has(Triple{H: x, R: head, T: y}) {
						support++
					}
				}
			}
			c := w.CountPath(head, steps, CountOptions{PC: 5}, 0)
			if c.Support != support || c.Body != body || c.Sampled != 0 || c.Err != 0 || c.SupportErr != 0 || math.Abs(c.Conf-float64(support)/(float64(body)+5)) > 1e-15 {
				t.Fatalf("seed %d %v: count %+v, want support %d body %d", seed, steps, c, support, body)
			}
			// The head looked up in another graph over the same entities.
			support = 0
			for x := range int32(8) {
				if len(g.Step(x, steps[0].R, steps[0].Inverse)) == 0 {
					continue
				}
				for _, y := range bruteWalk(g, x, steps) {
					if heads.Has(Triple{H: x, R: 1, T: y}) {
						support++
					}
				}
			}
			if c := w.CountPath(1, steps, CountOptions{PC: 5, Heads: heads}, 0); c.Support != support || c.Body != body {
				t.Fatalf("seed %d %v, heads apart: count %+v, want support %d body %d", seed, steps, c, support, body)
			}
			// Reverse walks the same pairs backwards.
			for x := range int32(8) {
				for _, y := range w.Walk(x, steps, nil) {
					if !slices.Contains(w.Walk(y, Reverse(steps), nil), x) {
						t.Fatalf("%v: %d reaches %d, not back", steps, x, y)
					}
				}
			}
		}
	}
}

// A sampled count's 95% interval holds the exact confidence for at least
// 90% of rules over many seeds of graphs with hubs; drawing every start
// is the exact count; the same stream gives the same estimate.
func TestCountPathSampled(t *testing.T) {
	inside, insideSupport, total := 0, 0, 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 3))
		const n = 500
		var ts []Triple
		for x := range int32(n) {
			ts = append(ts, Triple{H: x, R: 0, T: int32(n + r.IntN(3))}) // three hubs
			ts = append(ts, Triple{H: x, R: 1, T: int32(r.IntN(n))})
			if r.IntN(3) == 0 {
				ts = append(ts, Triple{H: x, R: 2, T: int32(r.IntN(n))})
			}
		}
		for _, t := range ts[:len(ts)] {
			if t.R == 1 && r.IntN(2) == 0 {
				ts = append(ts, Triple{H: t.T, R: 2, T: t.H})
			}
		}
		g := NewGraph(ts, n+3, 3)
		w := NewWalker(g)
		for range 10 {
			var body []Step
			for range 1 + r.IntN(MaxWalk) {
				body = append(body, Step{R: int32(r.IntN(3)), Inverse: r.IntN(2) == 0})
			}
			head := int32(1 + r.IntN(2))
			exact := w.CountPath(head, body, CountOptions{PC: 5}, 0)
			opt := CountOptions{PC: 5, Sample: 60, Seed: seed}
			s := w.CountPath(head, body, opt, 7)
			if again := w.CountPath(head, body, opt, 7); again != s {
				t.Fatalf("the same stream: %+v, then %+v", s, again)
			}
			starts := len(g.From(body[0].R, body[0].Inverse))
			if starts <= 60 {
				if s != exact {
					t.Fatalf("%d starts, 60 draws: %+v, exact %+v", starts, s, exact)
				}
				continue
			}
			total++
			if math.Abs(s.Conf-exact.Conf) <= s.Err {
				inside++
			}
			if s.SupportErr <= 0 {
				t.Fatalf("sampled count %+v without a support interval", s)
			}
			// The support's interval, before rounding.
			if math.Abs(float64(s.Support-exact.Support)) <= s.SupportErr+0.5 {
				insideSupport++
			}
			if all := w.CountPath(head, body, CountOptions{PC: 5, Sample: starts, Seed: seed}, 7); all != exact {
				t.Fatalf("every start drawn: %+v, exact %+v", all, exact)
			}
		}
	}
	if total < 150 || float64(inside) < 0.9*float64(total) {
		t.Errorf("exact confidence within the stated error for %d of %d sampled counts", inside, total)
	}
	if float64(insideSupport) < 0.9*float64(total) {
		t.Errorf("exact support within the stated error for %d of %d sampled counts", insideSupport, total)
	}
	t.Logf("exact confidence within the stated error for %d of %d sampled counts, support for %d", inside, total, insideSupport)
}

// CountConst against enumeration: head(X, c) <= body(X, d) over every X,
// with the head in the walked graph and in another one.
func TestCountConstMatchesBruteForce(t *testing.T) {
	for seed := range uint64(30) {
		g := randomGraph(seed, 8, 3, 30)
		heads := randomGraph(seed+200, 8, 3, 25)
		w := NewWalker(g)
		rng := rand.New(rand.NewPCG(seed, 4))
		for range 20 {
			var body []Step
			for range 1 + rng.IntN(MaxWalk) {
				body = append(body, Step{R: int32(rng.IntN(3)), Inverse: rng.IntN(2) == 0})
			}
			head, c, d := int32(rng.IntN(3)), int32(rng.IntN(8)), int32(rng.IntN(8))
			constTail := rng.IntN(2) == 0
			for _, hg := range []*Graph{nil, heads} {
				lookup := g
				if hg != nil {
					lookup = hg
				}
				support, n := 0, 0
				for x := range int32(8) {
					if x == c || !slices.Contains(bruteWalk(g, x, body), d) {
						continue
					}
					n++
					tr := Triple{H: x, R: head, T: c}
					if !constTail {
						tr = Triple{H: c, R: head, T: x}
					}
					if lookup.Has(tr) {
						support++
					}
				}
				got := w.CountConst(head, c, constTail, body, d, CountOptions{PC: 2, Heads: hg})
				if got.Support != support || got.Body != n || got.Sampled != 0 || math.Abs(got.Conf-float64(support)/(float64(n)+2)) > 1e-15 {
					t.Fatalf("seed %d: %d(X, %d) <= %v(X, %d) (const tail %v): %+v, want support %d body %d", seed, head, c, body, d, constTail, got, support, n)
				}
			}
		}
	}
}

// A hub crossed by many paths costs its degree once: the walk through a
// hub of 1,000 members looks at each edge once per step.
func TestWalkThroughHub(t *testing.T) {
	var ts []Triple
	const n = 1000
	for x := range int32(n) {
		ts = append(ts, Triple{H: x, R: 0, T: n}, Triple{H: x, R: 1, T: (x + 1) % n})
	}
	g := NewGraph(ts, n+1, 2)
	w := NewWalker(g)
	// member(X, A1), member(A2, A1), friend(A2, Y): 999 * 1 paths a start.
	ys := w.Walk(0, []Step{{R: 0}, {R: 0, Inverse: true}, {R: 1}}, nil)
	if len(ys) != n-2 { // the friends of 1..999 but 0 itself: 2..999
		t.Fatalf("%d entities reached", len(ys))
	}
	if w.Work() > 3*n+10 {
		t.Errorf("%d edges looked at for %d-member hub", w.Work(), n)
	}
}

func ExampleWalker_CountPath() {
	// knows(X, Y) <= friend(Y, X): a graph where 3 of 4 friendships are
	// known the other way.
	ts := []Triple{
		{H: 0, R: 0, T: 1}, {H: 1, R: 1, T: 0},
		{H: 1, R: 0, T: 2}, {H: 2, R: 1, T: 1},
		{H: 2, R: 0, T: 3}, {H: 3, R: 1, T: 2},
		{H: 3, R: 0, T: 0},
	}
	g := NewGraph(ts, 4, 2)
	w := NewWalker(g)
	c := w.CountPath(1, []Step{{R: 0, Inverse: true}}, CountOptions{PC: 0}, 0)
	fmt.Printf("support %d of %d body groundings, confidence %.2f\n", c.Support, c.Body, c.Conf)
	// Output: support 3 of 4 body groundings, confidence 0.75
}

// Loops, From and SelfOnly against a scan of every entity and relation.
func TestGraphIndexesMatchScan(t *testing.T) {
	for seed := range uint64(20) {
		g := randomGraph(seed, 6, 3, 25)
		for r := range int32(3) {
			var loops []int32
			for x := range int32(6) {
				if g.Has(Triple{H: x, R: r, T: x}) {
					loops = append(loops, x)
				}
			}
			if got := g.Loops(r); !slices.Equal(got, loops) {
				t.Fatalf("seed %d relation %d: Loops %v, want %v", seed, r, got, loops)
			}
			for _, inv := range []bool{false, true} {
				var from, self []int32
				for x := range int32(6) {
					ys := g.Step(x, r, inv)
					if len(ys) == 0 {
						continue
					}
					from = append(from, x)
					if !slices.ContainsFunc(ys, func(y int32) bool { return y != x }) {
						self = append(self, x)
					}
				}
				if !slices.Equal(g.From(r, inv), from) || !slices.Equal(g.SelfOnly(r, inv), self) {
					t.Fatalf("seed %d relation %d inverse %v: From %v SelfOnly %v, want %v %v", seed, r, inv, g.From(r, inv), g.SelfOnly(r, inv), from, self)
				}
			}
		}
	}
}
