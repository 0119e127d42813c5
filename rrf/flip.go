package rrf

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hinge-srl/hinge/mln"
)

// flipGroups returns the groups of unknown variables that Gibbs proposes to
// flip together (flipGroup), as Markov logic's Gibbs does (see package
// mln's MaxFlipGroup): the connected components, of 2 to
// mln.MaxFlipGroup variables, of the graph joining the variable children
// of every feature but the root that has two of opposite signs (a child's
// sign is its weight's, reversed when it counts as 1 - x): the features
// that tie their variables to agree, as a clause !a v b (FromMLN's
// conjunction of a and !b) does. Single-variable moves cross between the
// two modes of variables tied both ways (all true, all false) only through
// configurations of very low probability, so that every chain could sit in
// one mode for the whole run and report R-hat 1.00.
func flipGroups(net *Net, ev *Evidence) [][]int32 {
	parent := make([]int32, net.NumVars)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for i, f := range net.Features {
		if i == 0 {
			continue
		}
		pos, neg := false, false
		for _, c := range f {
			if c.Var < 0 || ev.fixed(int(c.Var)) {
				continue
			}
			if (net.Weights[c.Weight] < 0) != c.Neg {
				neg = true
			} else {
				pos = true
			}
		}
		if !pos || !neg {
			continue
		}
		r := int32(-1)
		for _, c := range f {
			if c.Var < 0 || ev.fixed(int(c.Var)) {
				continue
			}
			if r < 0 {
				r = find(c.Var)
			} else if s := find(c.Var); s != r {
				parent[s] = r
			}
		}
	}
	members := map[int32][]int32{}
	var roots []int32
	for v := range parent {
		if ev.fixed(v) {
			continue
		}
		r := find(int32(v))
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], int32(v))
	}
	var groups [][]int32
	for _, r := range roots {
		if vs := members[r]; len(vs) >= 2 && len(vs) <= mln.MaxFlipGroup {
			groups = append(groups, slices.Clone(vs))
		}
	}
	return groups
}

// flipGroup proposes to flip every variable of g and accepts by Metropolis,
// with probability min(1, P(x')/P(x)) for the flipped configuration x'. The
// proposal is its own inverse, so the move leaves the distribution
// unchanged; a rejected one restores the cached sums exactly.
func (s *State) flipGroup(g []int32, rng *rand.Rand) {
	before := s.LogScore()
	s.recording = true
	s.journal = s.journal[:0]
	for _, v := range g {
		s.Set(int(v), !s.X[v])
	}
	s.recording = false
	if d := s.LogScore() - before; d >= 0 || rng.Float64() < math.Exp(d) {
		s.journal = s.journal[:0]
		return
	}
	s.restore()
	for _, v := range g {
		s.X[v] = !s.X[v]
	}
}
