package lift

import (
	"fmt"
	"math/big"
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
	return newCopySet(g, q, &candidates{comp: comp, shape: shape, groups: [][]int32{{0, 1}}, large: []bool{false}})
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
	img := make([]int32, len(cs.vars)+len(cs.facs)) // both candidates together are the whole problem
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

// TestWeightMod61 checks that the sum hash's weights are additive: the
// images of coefficients sum to the image of their exact sum.
func TestWeightMod61(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 25))
	pool := append(append([]float64{}, trickyCoefs...), 1e-300, 3e300, -7.5, 0.0625, 1e-20)
	for range 200 {
		xs := make([]float64, 1+rng.IntN(6))
		var sb scaleBuilder
		for i := range xs {
			xs[i] = pool[rng.IntN(len(pool))]
			sb.add(xs[i])
		}
		sc := sb.scale(len(xs))
		var got uint64
		exact := new(big.Rat)
		for _, x := range xs {
			got = addmod61(got, weightMod61(x, sc.lsb))
			exact.Add(exact, new(big.Rat).SetFloat64(x))
		}
		// exact / 2^lsb is an integer; reduce it mod 2^61-1.
		units := new(big.Rat).Set(exact)
		if sc.lsb < 0 {
			units.Mul(units, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(-sc.lsb))))
		} else {
			units.Quo(units, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(sc.lsb))))
		}
		if !units.IsInt() {
			t.Fatalf("%v: sum is not a multiple of 2^%d", xs, sc.lsb)
		}
		want := new(big.Int).Mod(units.Num(), big.NewInt(mersenne61)).Uint64()
		if got != want {
			t.Fatalf("%v: hash weight of the sum %d, want %d", xs, got, want)
		}
	}
}

// TestProvedAlone checks that every proof is sound (a component proved
// alone has every node alone in its class of refine's coloring of the whole
// problem), and that it proves the components of rigid problems.
func TestProvedAlone(t *testing.T) {
	proofs := 0
	for _, tc := range append(refineCases, refineCase{"rigid", rigidSpec, 1}, refineCase{"rigid-planted2", rigidSpec, 2}) {
		for seed := range 20 {
			rng := rand.New(rand.NewPCG(uint64(seed), 26))
			p, _ := tc.problem(rng)
			g := newGraph(p)
			comp, ncomp := components(p)
			want := refine(g, p)
			size := map[[2]int32]int{} // (kind, color) -> members
			colorOf := func(x int) [2]int32 {
				switch {
				case x < g.n:
					return [2]int32{0, want.Var[x]}
				case x < g.n+g.m:
					return [2]int32{1, want.Pot[x-g.n]}
				}
				return [2]int32{2, want.Con[x-g.n-g.m]}
			}
			for x := range comp {
				size[colorOf(x)]++
			}
			for c := range int32(ncomp) {
				rep, _ := restProblem(p, func(x int) bool { return comp[x] != c })
				rest, _ := restProblem(p, func(x int) bool { return comp[x] == c })
				if !provedAlone(flatOf(rep), flatOf(rest), g.scale.lsb) {
					continue
				}
				proofs++
				for x, cx := range comp {
					if cx == c && size[colorOf(x)] != 1 {
						t.Fatalf("%s seed %d: node %d proved alone, but its class has %d members", tc.name, seed, x, size[colorOf(x)])
					}
				}
			}
		}
	}
	if proofs < 40 {
		t.Fatalf("only %d components proved", proofs)
	}
}

// TestProvedAloneSumsNotMultisets is the case a multiset hash gets wrong:
// factor f1 has two terms of coefficient 1 on y0, factor f2 one term of
// coefficient 2 on y1. Refinement compares sums, so y0 and y1 (and f1 and
// f2) share a class, and nothing may be proved alone.
func TestProvedAloneSumsNotMultisets(t *testing.T) {
	p := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	p.AddVars(2)
	p.Weight = append(p.Weight, 1, 1)
	p.Const = append(p.Const, 0, 0)
	p.Power = append(p.Power, 1, 1)
	p.Group = append(p.Group, 0, 0)
	p.Var = append(p.Var, 0, 0, 1)
	p.Coef = append(p.Coef, 1, 1, 2)
	p.Start = append(p.Start, 2, 3)
	col, err := Refine(p)
	if err != nil {
		t.Fatal(err)
	}
	if col.NumVar != 1 || col.NumPot != 1 {
		t.Fatalf("refinement split the symmetric nodes: %+v", col)
	}
	g := newGraph(p)
	empty := &hlmrf.Problem{Start: []int32{0}, CStart: []int32{0}}
	if provedAlone(flatOf(p), flatOf(empty), g.scale.lsb) {
		t.Fatal("nodes of a two-member class were proved alone")
	}
}

// TestRepeatedDefault runs the default path (color) on copies of a large
// rigid component, where it must be taken, matched in parallel and proved
// discrete, and on a problem whose copies are small, where it must not.
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
	if !cd.proved {
		t.Error("the representative was not proved discrete")
	}
	if g.packed {
		t.Error("the graph was packed for refinement although the copies were matched")
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
