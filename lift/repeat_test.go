package lift

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"hinge/hlmrf"
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
	got := colorRepeated(newGraph(p), p, 1)
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

// pairCopySet is the copy set of a and b side by side, each taken as one
// candidate (whether connected or not), a the representative.
func pairCopySet(a, b *hlmrf.Problem) *copySet {
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
	return newCopySet(g, q, comp, shape, [][]int32{{0, 1}})
}

// hashed runs rounds of hashing on both candidates and returns the
// representative's tables, failing if its hashes are not distinct.
func hashed(t *testing.T, cs *copySet, rounds int) (tv, tf *hashIndex) {
	t.Helper()
	cs.initHashes(0)
	cs.initHashes(1)
	for range rounds {
		cs.round(0)
		cs.round(1)
	}
	hv, hf := cs.hv[cs.vOff[0]:cs.vOff[1]], cs.hf[cs.fOff[0]:cs.fOff[1]]
	tv, tf = newHashIndex(len(hv)), newHashIndex(len(hf))
	if tv.fill(hv) != len(hv) || tf.fill(hf) != len(hf) {
		t.Fatalf("hashes not distinct after %d rounds", rounds)
	}
	return tv, tf
}

// TestMatchVerifies feeds copySet.matchCopy maps that the hashes would give
// after a collision: the verification, not the hashes, must reject them.
func TestMatchVerifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	base, y0 := randomProblem(rng, rigidSpec)
	if col, _ := Refine(base); col.NumVar != base.NumVars || col.NumPot != base.NumPotentials() {
		t.Fatal("the base problem has symmetry; pick another seed")
	}
	perm, _ := planted(rng, base, y0, 1)
	cs := pairCopySet(base, perm)
	tv, tf := hashed(t, cs, 10)
	if vimg, _ := cs.matchCopy(1, 0, tv, tf); vimg == nil {
		t.Fatal("a relabelled copy was not matched")
	}
	img := make([]int32, cs.g.n+cs.g.m+cs.g.c)
	ok := make([]bool, 2)
	cs.matchGroup([]int32{0, 1}, serial, img, ok)
	if !ok[1] {
		t.Fatal("matchGroup did not match a relabelled copy")
	}

	// Two variables' hashes swapped: a wrong bijection.
	hv := cs.hv[cs.vOff[1]:cs.vOff[2]]
	hv[0], hv[1] = hv[1], hv[0]
	if vimg, _ := cs.matchCopy(1, 0, tv, tf); vimg != nil {
		t.Fatal("a swapped map was accepted")
	}
	hv[0], hv[1] = hv[1], hv[0]
	// One hash missing from the table.
	cs.hf[cs.fOff[1]]++
	if vimg, _ := cs.matchCopy(1, 0, tv, tf); vimg != nil {
		t.Fatal("a hash absent from the representative was accepted")
	}
	cs.hf[cs.fOff[1]]--

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
		near := pairCopySet(base, q)
		copy(near.hv, cs.hv)
		copy(near.hf, cs.hf)
		if vimg, _ := near.matchCopy(1, 0, tv, tf); vimg != nil {
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
		g := newGraph(p)
		comp, count := components(g)
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
