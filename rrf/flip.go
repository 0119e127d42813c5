package rrf

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/hinge-srl/hinge/internal/unionfind"
	"github.com/hinge-srl/hinge/mln"
)

// BlockWeight and MaxBlock configure the blocks of Gibbs sampling (see
// gibbsPlan), as Markov logic's Gibbs does (mln.SampleOptions): the
// variables of a feature whose weight in the root is BlockWeight or more in
// absolute value are resampled jointly, when such features tie at most
// MaxBlock of them together.
const (
	BlockWeight = 4
	MaxBlock    = 12
)

// gibbsPlan is what a Gibbs step does besides resampling single
// variables: the groups it proposes to flip (flipGroups) and the blocks it
// resamples jointly from their exact conditional: the unknown variables
// that heavy features (|root weight| >= BlockWeight, the weights of
// features with the same children summed) tie together, in
// groups of 2 to MaxBlock (union-find over those features' variable
// children). Heavy features (a hard clause converted at hard weight 20,
// an exactly-one group of values) hold single variables still: a value
// of an exactly-one group once chosen was never left, so that four chains
// could agree on one choice and be called mixed 0.5 off.
// A plan is read only: chains run in parallel share it.
type gibbsPlan struct {
	groups  [][]int32
	blocks  [][]int32
	inBlock []bool
}

// newGibbsPlan returns the plan of net's Gibbs steps (no flip moves with
// noFlips).
func newGibbsPlan(net *Net, ev *Evidence, noFlips bool) *gibbsPlan {
	p := &gibbsPlan{inBlock: make([]bool, net.NumVars)}
	sets := unionfind.New(net.NumVars)
	if len(net.Features) > 0 {
		// The root weights of features with the same children add up
		// (identical clauses of several formulas, each under BlockWeight,
		// weigh their sum: 3.742 P(x) <=> !S(x) beside 7.525 P(x) <=>
		// !S(x) was not blocked, and its chains agreed 0.48 off).
		// Features are told apart by a hash of their children: two that
		// collide are only blocked as if one (any blocking leaves the
		// distribution unchanged).
		total := map[uint64]float64{}
		keyOf := func(f []Child) uint64 {
			h := uint64(14695981039346656037)
			mix := func(v uint64) {
				h ^= v
				h *= 1099511628211
			}
			for _, c := range f {
				mix(uint64(uint32(c.Var)))
				mix(uint64(uint32(c.Feature)))
				mix(uint64(uint32(c.Weight)))
				mix(uint64(c.Count))
				if c.Neg {
					mix(1)
				}
			}
			return h
		}
		keys := make([]uint64, len(net.Features[0]))
		for i, rc := range net.Features[0] {
			if rc.Feature > 0 {
				keys[i] = keyOf(net.Features[rc.Feature])
				total[keys[i]] += net.Weights[rc.Weight] * rc.mult()
			}
		}
		for i, rc := range net.Features[0] {
			if rc.Feature > 0 && math.Abs(total[keys[i]]) >= BlockWeight {
				joinVars(sets, net.Features[rc.Feature], ev)
			}
		}
	}
	for _, vs := range sets.Groups(func(v int) bool { return !ev.fixed(v) }) {
		if len(vs) >= 2 && len(vs) <= MaxBlock {
			p.blocks = append(p.blocks, vs)
			for _, v := range vs {
				p.inBlock[v] = true
			}
		}
	}
	if !noFlips {
		// Less the groups a block holds whole: it is resampled exactly.
		var taken unionfind.Distinct
		for _, b := range p.blocks {
			taken.Add(b)
		}
		p.groups = flipGroups(net, ev, &taken)
	}
	return p
}

// step is one Gibbs step of plan p: the blocks, a sweep over the other
// unknown variables (gibbsSweep), then the flip proposals (after the
// sweep, as Markov logic's Gibbs makes them).
func (s *State) step(ctx context.Context, ev *Evidence, p *gibbsPlan, rng *rand.Rand) error {
	for _, b := range p.blocks {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.sampleBlock(b, rng)
	}
	if err := s.gibbsSweep(ctx, ev, p.inBlock, rng); err != nil {
		return err
	}
	for _, g := range p.groups {
		s.flipGroup(g, rng)
	}
	return nil
}

// sampleBlock draws the variables of b jointly from their exact
// conditional given the others: every assignment's log score, walked in
// Gray-code order (one Set a step), then one drawn in proportion to exp of
// its score.
func (s *State) sampleBlock(b []int32, rng *rand.Rand) {
	n := 1 << len(b)
	if cap(s.blockScore) < n {
		s.blockScore = make([]float64, n)
	}
	score := s.blockScore[:n]
	start := 0
	for i, v := range b {
		if s.X[v] {
			start |= 1 << i
		}
	}
	// Assignment a sets b[i] to bit i of a; the walk visits start ^ g for
	// each Gray code g.
	best := math.Inf(-1)
	for k := range n {
		if k > 0 {
			i := bits.TrailingZeros(uint(k))
			s.Set(int(b[i]), !s.X[b[i]])
		}
		a := start ^ (k ^ k>>1)
		score[a] = s.LogScore()
		best = max(best, score[a])
	}
	total := 0.0
	for a := range score {
		score[a] = math.Exp(score[a] - best)
		total += score[a]
	}
	u := rng.Float64() * total
	pick := n - 1
	for a, w := range score {
		if u < w {
			pick = a
			break
		}
		u -= w
	}
	for i, v := range b {
		s.Set(int(v), pick>>i&1 == 1)
	}
}

// flipGroups returns the groups of unknown variables that Gibbs proposes to
// flip together (flipGroup), as Markov logic's Gibbs does (see package
// mln's MaxFlipGroup), each of 2 to mln.MaxFlipGroup variables: the
// connected components of the graph joining the variable children of
// every feature but the root that has two of opposite signs (a child's
// sign is its weight's, reversed when it counts as 1 - x), such as
// FromMLN's feature of an implication !a v b, the conjunction of a and !b;
// and, where they differ, the components joined by every such feature
// whatever its children's signs, which also hold atoms tied to disagree
// (P <=> !Q: flipping P's and Q's together keeps them apart). The sign of
// the feature's own weight is not looked at: the move is its own inverse
// and accepted by Metropolis, so any grouping leaves the distribution
// unchanged. A group taken already (a block) is left out. Single-variable moves cross between the two modes of
// variables tied both ways (all true, all false) only through
// configurations of very low probability, so that every chain could sit
// in one mode for the whole run and report R-hat 1.00.
func flipGroups(net *Net, ev *Evidence, taken *unionfind.Distinct) [][]int32 {
	mixed, all := unionfind.New(net.NumVars), unionfind.New(net.NumVars)
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
		if pos && neg {
			joinVars(mixed, f, ev)
		}
		joinVars(all, f, ev)
	}
	unknown := func(v int) bool { return !ev.fixed(v) }
	var groups [][]int32
	for _, vs := range append(mixed.Groups(unknown), all.Groups(unknown)...) {
		if len(vs) >= 2 && len(vs) <= mln.MaxFlipGroup && taken.Add(vs) {
			groups = append(groups, vs)
		}
	}
	return groups
}

// joinVars joins the sets of the unknown variable children of feature f.
func joinVars(sets *unionfind.Sets, f []Child, ev *Evidence) {
	first := int32(-1)
	for _, c := range f {
		if c.Var < 0 || ev.fixed(int(c.Var)) {
			continue
		}
		if first < 0 {
			first = c.Var
		} else {
			sets.Union(first, c.Var)
		}
	}
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
