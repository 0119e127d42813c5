package mln

import (
	"context"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/lift"
	"github.com/hinge-srl/hinge/maxsat"
)

// Lifted counting over exchangeable atoms. A class of atoms is fully
// exchangeable when every permutation of the class (the other atoms held)
// maps the network's weighted clauses onto themselves; then a world's
// weight depends on the class only through the number of its atoms that
// are true. With the atoms split into such classes (an atom alone is a
// class of one), the partition function is a sum over count vectors
// (k_1..k_r), each world with counts k weighing C(n_1,k_1)...C(n_r,k_r)
// times the weight of one of them, and an atom of class i is true with
// probability E[k_i]/n_i. A complete graph of soft equivalences over n
// exchangeable atoms thus costs n+1 terms instead of 2^n worlds (lifted
// inference by counting, as first-order variable elimination counts
// exchangeable groundings: de Salvo Braz, Amir and Roth 2005; Milch et al.
// 2008).
//
// Candidates come from color refinement (package lift): exchangeable atoms
// always share a color, but atoms sharing a color need not be exchangeable
// (a ring and a pair of triangles look alike to it), so every class is
// checked. The transpositions (c_0 c_i) generate the symmetric group of a
// class {c_0, ..., c_{n-1}}, so a class is fully exchangeable when each of
// them maps every clause of c_0 and c_i to a clause of the network with the
// same weight.

// countExchangeable computes the marginals of a connected network by lifted
// counting when its atoms fall into classes of exchangeable atoms whose
// count vectors number at most maxConfigs; nil marginals otherwise. It
// returns the classes of two or more atoms and the count vectors.
func countExchangeable(ctx context.Context, in *maxsat.Instance, maxConfigs float64) ([]float64, int, float64, error) {
	if classBound(in) > maxConfigs {
		return nil, 0, 0, nil
	}
	col, err := lift.Refine(colorProblem(in))
	if err != nil {
		return nil, 0, 0, err
	}
	groups := make([][]int32, col.NumVar)
	for v, c := range col.Var {
		groups[c] = append(groups[c], int32(v))
	}
	// Even one class per color needs prod(size+1) count vectors, and
	// splitting a class only adds to that.
	configs := 1.0
	for _, g := range groups {
		configs *= float64(len(g) + 1)
	}
	if configs > maxConfigs {
		return nil, 0, 0, nil
	}
	sym := newSymmetryCheck(in)
	var classes [][]int32
	configs = 1
	for _, g := range groups {
		for len(g) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, 0, err
			}
			c0 := g[0]
			class, left := []int32{c0}, g[:0:0]
			for _, u := range g[1:] {
				if sym.transposition(c0, u) {
					class = append(class, u)
				} else {
					left = append(left, u)
				}
			}
			classes = append(classes, class)
			configs *= float64(len(class) + 1)
			// The atoms still to split add a factor of at least
			// len(left)+1.
			if configs*float64(len(left)+1) > maxConfigs {
				return nil, 0, 0, nil
			}
			g = left
		}
	}
	probs, err := countClasses(ctx, in, classes)
	if err != nil || probs == nil {
		return nil, 0, 0, err
	}
	big := 0
	for _, c := range classes {
		if len(c) > 1 {
			big++
		}
	}
	return probs, big, configs, nil
}

// classBound is a lower bound on the count vectors of any split of in's
// atoms into exchangeable classes, from one round of color refinement:
// atoms are grouped by the multiset of their clauses' weights, hardness,
// lengths and their own signs in them (a sum of hashes), which
// exchangeable atoms share, and every split into classes refines these
// groups, which only adds count vectors. It spares the full refinement of
// networks whose atoms all differ.
func classBound(in *maxsat.Instance) float64 {
	sig := make([]uint64, in.NumVars)
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		h := math.Float64bits(in.Weight[c])*0x9e3779b97f4a7c15 + uint64(len(lits))
		if in.Hard[c] {
			h ^= 0xbf58476d1ce4e5b9
		}
		for _, l := range lits {
			k := h
			if l.Neg() {
				k ^= 0x94d049bb133111eb
			}
			sig[l.Var()] += mix64(k)
		}
	}
	size := map[uint64]int{}
	for _, g := range sig {
		size[g]++
	}
	bound := 1.0
	for _, n := range size {
		bound *= float64(n + 1)
	}
	return bound
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// colorProblem is in as an HL-MRF for color refinement: a soft clause is a
// potential of weight |w| (power 1 for w > 0, 2 for w < 0, so that the two
// signs get different colors), a hard clause a constraint; the literals are
// coefficients -1 (positive) and +1 (negated) and the constant is the
// number of negated literals less one, as in the MAX-SAT relaxation.
func colorProblem(in *maxsat.Instance) *hlmrf.Problem {
	p := &hlmrf.Problem{NumVars: in.NumVars, Start: []int32{0}, CStart: []int32{0}}
	for c := range in.NumClauses() {
		nneg := 0
		vars, coefs := &p.Var, &p.Coef
		if in.Hard[c] {
			vars, coefs = &p.CVar, &p.CCoef
		}
		for _, l := range in.Clause(c) {
			*vars = append(*vars, int32(l.Var()))
			if l.Neg() {
				*coefs = append(*coefs, 1)
				nneg++
			} else {
				*coefs = append(*coefs, -1)
			}
		}
		if in.Hard[c] {
			p.CKind = append(p.CKind, hlmrf.LessEq)
			p.CConst = append(p.CConst, float64(nneg-1))
			p.CGroup = append(p.CGroup, -1)
			p.CStart = append(p.CStart, int32(len(p.CVar)))
			continue
		}
		w, power := in.Weight[c], uint8(1)
		if w < 0 {
			w, power = -w, 2
		}
		p.Weight = append(p.Weight, w)
		p.Const = append(p.Const, float64(nneg-1))
		p.Power = append(p.Power, power)
		p.Group = append(p.Group, -1)
		p.Start = append(p.Start, int32(len(p.Var)))
	}
	return p
}

// symmetryCheck tells whether a permutation of atoms maps a network's
// clauses onto themselves.
type symmetryCheck struct {
	in    *maxsat.Instance
	occ   [][]int32          // atom -> its clauses
	index map[uint64][]int32 // hash of sorted literals -> clauses
	lits  []maxsat.Lit
}

func newSymmetryCheck(in *maxsat.Instance) *symmetryCheck {
	s := &symmetryCheck{in: in, occ: make([][]int32, in.NumVars), index: make(map[uint64][]int32, in.NumClauses())}
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		for _, l := range lits {
			s.occ[l.Var()] = append(s.occ[l.Var()], int32(c))
		}
		s.lits = append(s.lits[:0], lits...)
		slices.Sort(s.lits)
		h := hashLits(s.lits)
		s.index[h] = append(s.index[h], int32(c))
	}
	return s
}

func hashLits(lits []maxsat.Lit) uint64 {
	h := uint64(14695981039346656037)
	for _, l := range lits {
		h = (h ^ uint64(uint32(l))) * 1099511628211
	}
	return h
}

// transposition says whether swapping atoms a and b maps every clause to a
// clause of the same weight (and hardness).
func (s *symmetryCheck) transposition(a, b int32) bool {
	swap := func(v int) int {
		switch int32(v) {
		case a:
			return int(b)
		case b:
			return int(a)
		}
		return v
	}
	for _, occ := range [2][]int32{s.occ[a], s.occ[b]} {
		for _, c := range occ {
			s.lits = s.lits[:0]
			for _, l := range s.in.Clause(int(c)) {
				if l.Neg() {
					s.lits = append(s.lits, maxsat.Not(swap(l.Var())))
				} else {
					s.lits = append(s.lits, maxsat.Pos(swap(l.Var())))
				}
			}
			slices.Sort(s.lits)
			if !s.has(s.lits, s.in.Weight[c], s.in.Hard[c]) {
				return false
			}
		}
	}
	return true
}

// has says whether the network has a clause with the sorted literals lits,
// the weight w (to a relative 1e-9) and hardness hard.
func (s *symmetryCheck) has(lits []maxsat.Lit, w float64, hard bool) bool {
	for _, d := range s.index[hashLits(lits)] {
		other := s.in.Clause(int(d))
		if len(other) != len(lits) {
			continue
		}
		sorted := slices.IsSorted(other)
		same := true
		if sorted {
			same = slices.Equal(other, lits)
		} else {
			o := slices.Clone(other)
			slices.Sort(o)
			same = slices.Equal(o, lits)
		}
		if !same {
			continue
		}
		if s.in.Hard[d] != hard {
			return false
		}
		return hard || math.Abs(s.in.Weight[d]-w) <= 1e-9*(1+math.Abs(w))
	}
	return false
}

// countClasses sums over the count vectors of classes (every atom of in in
// exactly one class, each class fully exchangeable) in reflected
// mixed-radix Gray-code order (Knuth, TAOCP 7.2.1.1, Algorithm H), so that
// each vector differs from the last by one atom: the world with the first
// k_i atoms of each class i true is kept up to date one flip at a time
// (each clause's count of true literals, the satisfied soft weight, the
// violated hard clauses). It returns nil when no world satisfies the hard
// clauses.
func countClasses(ctx context.Context, in *maxsat.Instance, classes [][]int32) ([]float64, error) {
	r := len(classes)
	occ := make([][]int32, in.NumVars)
	for c := range in.NumClauses() {
		for _, l := range in.Clause(c) {
			occ[l.Var()] = append(occ[l.Var()], int32(c))
		}
	}
	x := make([]bool, in.NumVars)
	ntrue, sat, hardViolated := allFalse(in)
	flip := func(v int32) {
		x[v] = !x[v]
		for _, c := range occ[v] {
			was := ntrue[c]
			for _, l := range in.Clause(int(c)) {
				if int32(l.Var()) == v {
					if x[v] != l.Neg() {
						ntrue[c]++
					} else {
						ntrue[c]--
					}
				}
			}
			now := ntrue[c]
			if (was > 0) == (now > 0) {
				continue
			}
			switch {
			case in.Hard[c] && now > 0:
				hardViolated--
			case in.Hard[c]:
				hardViolated++
			case now > 0:
				sat += in.Weight[c]
			default:
				sat -= in.Weight[c]
			}
		}
	}
	// logBinom[i][k] = log C(n_i, k).
	logBinom := make([][]float64, r)
	for i, cl := range classes {
		n := len(cl)
		logBinom[i] = make([]float64, n+1)
		for k := range n + 1 {
			a, _ := math.Lgamma(float64(n + 1))
			b, _ := math.Lgamma(float64(k + 1))
			c, _ := math.Lgamma(float64(n - k + 1))
			logBinom[i][k] = a - b - c
		}
	}
	k := make([]int, r)
	dir := make([]int, r)
	for i := range dir {
		dir[i] = 1
	}
	// Streaming sums relative to the largest log-weight seen, top.
	top, z := math.Inf(-1), 0.0
	ek := make([]float64, r) // sum of weight * k_i
	lb := 0.0                // sum of logBinom[i][k_i]
	for step := 0; ; step++ {
		if step&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if hardViolated == 0 {
			lw := sat + lb
			if lw > top {
				f := math.Exp(top - lw)
				z *= f
				for i := range ek {
					ek[i] *= f
				}
				top = lw
			}
			w := math.Exp(lw - top)
			z += w
			for i, ki := range k {
				if ki > 0 {
					ek[i] += w * float64(ki)
				}
			}
		}
		j := 0
		for j < r && (k[j]+dir[j] < 0 || k[j]+dir[j] > len(classes[j])) {
			j++
		}
		if j == r {
			break
		}
		for i := range j {
			dir[i] = -dir[i]
		}
		lb -= logBinom[j][k[j]]
		if dir[j] > 0 {
			flip(classes[j][k[j]])
		} else {
			flip(classes[j][k[j]-1])
		}
		k[j] += dir[j]
		lb += logBinom[j][k[j]]
	}
	if z == 0 {
		return nil, errNoWorld
	}
	probs := make([]float64, in.NumVars)
	for i, cl := range classes {
		p := ek[i] / (z * float64(len(cl)))
		for _, v := range cl {
			probs[v] = p
		}
	}
	return probs, nil
}
