package lift

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hinge-srl/hinge/hlmrf"
)

// rigidSpec draws problems whose coarsest stable coloring is (almost always)
// discrete: many distinct leaf constants and mixed coefficients, so that
// copies of one are matched by colorRepeated.
var rigidSpec = genSpec{vars: 30, pots: 60, cons: 4, maxTerms: 3, coefs: trickyCoefs,
	weights: []float64{1, 2, 3}, consts: []float64{0, 0.5, 1}, leafConsts: distinctConsts(40),
	squared: 0.5, equalities: 0.5}

func distinctConsts(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i+1) / 64
	}
	return out
}

// checkRepeated compares colorRepeated (every component size a candidate)
// with plain refinement, which must give the identical coloring. It
// reports whether colorRepeated found copies.
func checkRepeated(t *testing.T, what string, p *hlmrf.Problem) bool {
	t.Helper()
	want := refine(newGraph(p), p)
	cd := findCandidates(p, repeatParams{minNodes: 1, large: 1})
	if cd == nil {
		return false
	}
	got := colorRepeated(newGraph(p), p, cd)
	if got == nil {
		return false
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s: matching copies gave another coloring (-refine +colorRepeated):\n%s", what, diff)
	}
	if err := checkStable(p, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return true
}

// TestRepeatedComponents checks the repeated-components path against
// plain refinement on the random families (planted copies with and without
// symmetry of their own), on rigid copies, and on rigid copies beside a
// near copy (one coefficient, one constant or one weight changed) and an
// unrelated component, which must not be taken for copies.
func TestRepeatedComponents(t *testing.T) {
	for _, tc := range refineCases {
		for seed := range 20 {
			rng := rand.New(rand.NewPCG(uint64(seed), 21))
			p, _ := tc.problem(rng)
			checkRepeated(t, fmt.Sprintf("%s seed %d", tc.name, seed), p)
		}
	}
	changes := []struct {
		name   string
		change func(q *hlmrf.Problem)
	}{
		{"coefficient", func(q *hlmrf.Problem) { q.Coef[len(q.Coef)/2] += 0.25 }},
		{"constant", func(q *hlmrf.Problem) { q.Const[len(q.Const)/2] += 0.25 }},
		{"weight", func(q *hlmrf.Problem) { q.Weight[len(q.Weight)/2] *= 2 }},
		{"constraint", func(q *hlmrf.Problem) { q.CConst[0] += 0.25 }},
	}
	matched := 0
	for seed := range 30 {
		rng := rand.New(rand.NewPCG(uint64(seed), 22))
		base, y0 := randomProblem(rng, rigidSpec)
		p, _ := planted(rng, base, y0, 2+seed%3)
		if checkRepeated(t, fmt.Sprintf("rigid seed %d", seed), p) {
			matched++
		}
		for _, ch := range changes {
			near := base.Clone()
			ch.change(near)
			other, _ := randomProblem(rng, rigidSpec)
			q := p.Clone()
			q.Append(near, true)
			q.Append(other, true)
			q, _ = planted(rng, q, make([]float64, q.NumVars), 1) // shuffle
			checkRepeated(t, fmt.Sprintf("rigid seed %d, near copy (%s)", seed, ch.name), q)
		}
	}
	if matched < 25 {
		t.Fatalf("copies were matched in only %d of 30 rigid problems", matched)
	}
}

// pair is a and b side by side, each taken as one candidate component
// (whether connected or not), compacted: a the representative, settled
// (its hashes distinct), and b.
func pair(t *testing.T, a, b *hlmrf.Problem) (rep, c *compact, index *hashIndex) {
	t.Helper()
	q := a.Clone()
	q.Append(b, true)
	g := newGraph(q)
	comp := make([]int32, g.n+g.m+g.c)
	shape := make([]compShape, 2)
	for v := 0; v < g.n; v++ {
		if v >= a.NumVars {
			comp[v] = 1
		}
		shape[comp[v]].vars++
	}
	for f := 0; f < g.m+g.c; f++ {
		if (f < g.m && f >= a.NumPotentials()) || f-g.m >= a.NumConstraints() {
			comp[g.n+f] = 1
		}
		s := &shape[comp[g.n+f]]
		s.facs++
		s.edges += g.fStart[f+1] - g.fStart[f]
	}
	mt := newMatcher(q, &candidates{comp: comp, shape: shape, groups: [][]int32{{0, 1}}})
	rep, c = mt.compact(0), mt.compact(1)
	rounds, index := rep.settle()
	if index == nil {
		t.Fatal("the representative's hashes are not distinct")
	}
	c.hash(rounds)
	return rep, c, index
}

// TestMatchVerifies feeds verify maps that the hashes would give after a
// collision: the verification, not the hashes, must reject them.
func TestMatchVerifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	base, y0 := randomProblem(rng, rigidSpec)
	if col, _ := Refine(base); col.NumVar != base.NumVars || col.NumPot != base.NumPotentials() {
		t.Fatal("the base problem has symmetry; pick another seed")
	}
	perm, _ := planted(rng, base, y0, 1)
	rep, c, index := pair(t, base, perm)
	if verify(c, rep, index) == nil {
		t.Fatal("a relabelled copy was not matched")
	}

	// Two variables' hashes swapped: a wrong bijection.
	c.h[0], c.h[1] = c.h[1], c.h[0]
	if verify(c, rep, index) != nil {
		t.Fatal("a swapped map was accepted")
	}
	c.h[0], c.h[1] = c.h[1], c.h[0]
	// A variable's hash swapped with a factor's: a map across kinds.
	c.h[0], c.h[c.nv] = c.h[c.nv], c.h[0]
	if verify(c, rep, index) != nil {
		t.Fatal("a map of a variable onto a factor was accepted")
	}
	c.h[0], c.h[c.nv] = c.h[c.nv], c.h[0]
	// One hash missing from the index.
	c.h[c.nv]++
	if verify(c, rep, index) != nil {
		t.Fatal("a hash absent from the representative was accepted")
	}
	c.h[c.nv]--

	// A coefficient, a constant, a weight or a constraint's constant
	// changed, with the hashes of the true copy: the map is right but the
	// problem is not a copy.
	for i, change := range []func(q *hlmrf.Problem){
		func(q *hlmrf.Problem) { q.Coef[0] += 0.5 },
		func(q *hlmrf.Problem) { q.Const[0] += 0.5 },
		func(q *hlmrf.Problem) { q.Weight[0] *= 3 },
		func(q *hlmrf.Problem) { q.CConst[0] += 0.5 },
	} {
		q := perm.Clone()
		change(q)
		_, near, _ := pair(t, base, q)
		copy(near.h, c.h)
		if verify(near, rep, index) != nil {
			t.Fatalf("change %d: a changed problem was accepted as a copy", i)
		}
	}
}

// TestComponents checks the component labels against a breadth-first search.
func TestComponents(t *testing.T) {
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 24))
		spec := rigidSpec
		spec.vars, spec.pots, spec.maxTerms = 60, 30, 2 // sparse: many components
		p, _ := randomProblem(rng, spec)
		if seed%2 == 0 { // factors without terms are components of their own
			p.AddPotential(1, 0.5, 1, 0, nil, nil)
			p.AddConstraint(hlmrf.LessEq, 1, 0, nil, nil)
		}
		g := newGraph(p)
		comp, count := components(p)
		// Breadth-first search over the factor rows.
		nf := g.m + g.c
		adj := make([][]int32, g.n+nf)
		for f := 0; f < nf; f++ {
			for _, v := range g.fVar[g.fStart[f]:g.fStart[f+1]] {
				adj[g.n+f] = append(adj[g.n+f], v)
				adj[v] = append(adj[v], int32(g.n+f))
			}
		}
		want := make([]int32, len(adj))
		for i := range want {
			want[i] = -1
		}
		next := int32(0)
		for s := range adj {
			if want[s] >= 0 {
				continue
			}
			want[s] = next
			queue := []int32{int32(s)}
			for len(queue) > 0 {
				x := queue[0]
				queue = queue[1:]
				for _, y := range adj[x] {
					if want[y] < 0 {
						want[y] = next
						queue = append(queue, y)
					}
				}
			}
			next++
		}
		if count != int(next) {
			t.Fatalf("seed %d: %d components, want %d", seed, count, next)
		}
		if diff := cmp.Diff(want, comp); diff != "" {
			t.Fatalf("seed %d: labels (-bfs +components):\n%s", seed, diff)
		}
	}
}

// TestRepeatedDefault runs the default path (color) on copies of a large
// rigid component, where it must be taken and match every copy, and on a
// problem whose copies are small, where it must not.
func TestRepeatedDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 27))
	spec := rigidSpec
	spec.vars, spec.pots, spec.cons = 400, 900, 40
	spec.leafConsts = distinctConsts(400)
	base, y0 := randomProblem(rng, spec)
	p, _ := planted(rng, base, y0, 4)
	cd := findCandidates(p, defaultRepeat)
	if cd == nil {
		t.Fatal("four copies of a large component were not taken as candidates")
	}
	want := refine(newGraph(p), p)
	g := newGraph(p)
	col := colorRepeated(g, p, cd)
	if diff := cmp.Diff(want, col); diff != "" {
		t.Fatalf("colorRepeated differs from refine (-refine +colorRepeated):\n%s", diff)
	}
	if g.packed {
		t.Error("the graph was packed for refinement although the copies were matched")
	}
	if len(cd.groups) != 1 {
		t.Fatalf("%d groups, want 1", len(cd.groups))
	}
	mt := newMatcher(p, cd)
	rep := mt.compact(cd.groups[0][0])
	rounds, index := rep.settle()
	for _, m := range cd.groups[0][1:] {
		c := mt.compact(m)
		if c.hash(rounds); index == nil || verify(c, rep, index) == nil {
			t.Errorf("copy %d was not matched", m)
		}
	}
	if _, col := color(p); cmp.Diff(want, col) != "" {
		t.Error("color differs from refine")
	}

	small, y1 := randomProblem(rng, rigidSpec)
	q, _ := planted(rng, small, y1, 4)
	if findCandidates(q, defaultRepeat) != nil {
		t.Fatal("copies of a small component were taken as candidates")
	}
}

// TestWeightUnpacked checks that graph.weight gives the same exact weights
// before pack (converting on the fly, as lifting a matched problem does) as
// after, for one-word and multi-word scales.
func TestWeightUnpacked(t *testing.T) {
	for _, coefs := range [][]float64{simpleCoefs, trickyCoefs, {1e200, -1e200, 1e-200, 3, 0.1}} {
		rng := rand.New(rand.NewPCG(3, 29))
		spec := genSpec{vars: 6, pots: 12, cons: 3, maxTerms: 3, coefs: coefs, weights: []float64{1}, consts: []float64{0}, equalities: 0.5}
		p, _ := randomProblem(rng, spec)
		g := newGraph(p)
		w := g.scale.words
		var before [][]uint64
		for e := range int32(len(g.fVar)) {
			before = append(before, slices.Clone(g.weight(e, make([]uint64, w))))
		}
		g.pack()
		for e := range int32(len(g.fVar)) {
			if got := g.weight(e, make([]uint64, w)); !slices.Equal(got, before[e]) {
				t.Fatalf("%v: edge %d: unpacked weight %v, packed %v", coefs, e, before[e], got)
			}
		}
	}
}
