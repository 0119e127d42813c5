package mln

import (
	"math"
	"slices"

	"github.com/hinge-srl/hinge/internal/unionfind"
	"github.com/hinge-srl/hinge/maxsat"
)

// MaxFlipGroup is the largest group of atoms whose values Gibbs sampling
// proposes to flip together (see flipGroups).
const MaxFlipGroup = 64

// flipGroup is a group of atoms that Gibbs proposes to flip together: its
// atoms and the clauses they occur in.
type flipGroup struct {
	vars, clauses []int32
}

// flipGroups returns the groups of atoms that Gibbs proposes to flip at
// once (flipMove), each of 2 to MaxFlipGroup atoms and none that a block of
// sw samples whole already: the connected components of the soft clauses
// with a positive and a negative literal (mixedSigns: implications, that
// tie their atoms to agree), and the units of the implications of the hard
// and positive-weight binary clauses (clusterUnits), finer where a
// component joins several units or a unit to atoms that would not flip
// with it. Such a move crosses between the two modes of atoms tied both
// ways, such as `2.5 Q(y) => Q(x)` beside `-0.4 Q(x)` (all true, all
// false), which single-atom moves make only through worlds of very low
// probability, so that every chain could sit in one mode for the whole run
// and report R-hat 1.00. A larger group is left out: flipping it whole is
// rarely accepted, and costs as much as a sweep.
func flipGroups(in *maxsat.Instance, ix *clauseIndex, sw *sweep) []flipGroup {
	sets := unionfind.New(in.NumVars)
	for c := range in.NumClauses() {
		if lits := in.Clause(c); !in.Hard[c] && mixedSigns(lits) {
			for _, l := range lits[1:] {
				sets.Union(int32(lits[0].Var()), int32(l.Var()))
			}
		}
	}
	var groups []flipGroup
	var taken unionfind.Distinct // the blocks, sampled from their exact conditional, and the groups
	for _, b := range sw.blocks {
		taken.Add(b.vars)
	}
	add := func(vs []int32) {
		if len(vs) < 2 || len(vs) > MaxFlipGroup || !taken.Add(vs) {
			return
		}
		var cs []int32
		for _, v := range vs {
			cs = append(cs, ix.occ[v]...)
		}
		slices.Sort(cs)
		groups = append(groups, flipGroup{vars: vs, clauses: slices.Compact(cs)})
	}
	for _, vs := range sets.Groups(nil) {
		add(vs)
	}
	var cu clusterUnits
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		if len(lits) != 2 || lits[0].Var() == lits[1].Var() || !in.Hard[c] && in.Weight[c] <= 0 {
			continue
		}
		cu.implication(litNode(lits[0]), litNode(lits[1]))
	}
	all := make([]int32, in.NumVars)
	for v := range all {
		all[v] = int32(v)
	}
	if cu.units(all) {
		for u := range cu.numUnits() {
			vs := slices.Clone(cu.unit(u))
			slices.Sort(vs)
			add(vs)
		}
	}
	return groups
}

// litNode is literal l's node in an implication graph over every atom (see
// clusterUnits): 2v for v true, 2v+1 for v false.
func litNode(l maxsat.Lit) int32 {
	i := 2 * int32(l.Var())
	if l.Neg() {
		i++
	}
	return i
}

// flipMove proposes to flip every atom of g and accepts by Metropolis:
// with probability min(1, P(x')/P(x)), x' the flipped world, a world that
// violates more hard clauses than x having probability 0 next to it. The
// proposal is its own inverse, so the move leaves the distribution
// unchanged.
func (w *chainState) flipMove(g *flipGroup) {
	before, hardBefore := w.groupWeight(g)
	for _, v := range g.vars {
		w.set(int(v), !w.x[v])
	}
	after, hardAfter := w.groupWeight(g)
	accept := hardAfter < hardBefore ||
		hardAfter == hardBefore && (after >= before || w.rng.Float64() < math.Exp(after-before))
	if !accept {
		for _, v := range g.vars {
			w.set(int(v), !w.x[v])
		}
	}
}

// groupWeight is the weight of the soft clauses of g that x satisfies and
// the number of its hard clauses that x violates.
func (w *chainState) groupWeight(g *flipGroup) (float64, int) {
	var sum float64
	hard := 0
	for _, c := range g.clauses {
		sat := w.ntrue[c] > 0
		switch {
		case w.in.Hard[c]:
			if !sat {
				hard++
			}
		case sat:
			sum += w.in.Weight[c]
		}
	}
	return sum, hard
}

// mixedSigns reports whether lits has a positive and a negative literal (an
// implication, such as !a v b: one that ties its atoms to agree).
func mixedSigns(lits []maxsat.Lit) bool {
	pos, neg := false, false
	for _, l := range lits {
		if l.Neg() {
			neg = true
		} else {
			pos = true
		}
	}
	return pos && neg
}
