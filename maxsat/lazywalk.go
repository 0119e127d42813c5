package maxsat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// LazyWalker is MaxWalkSAT (as [WalkSAT]) over variables and clauses that
// may be added while it walks: lazy inference (LazySAT, Singla and Domingos,
// "Memory-Efficient Inference in Relational Domains", AAAI 2006) starts
// from the clauses the default world violates and, after each flip, adds
// the clauses the flip may have made costly. A callback given to Run is
// called after every flip and may call AddVar and AddClause.
//
// Moves are WalkSAT's: pick a costly clause uniformly at random (while hard
// clauses are violated, half the time one of them: among many soft clauses
// a few violated hard ones would otherwise wait long to be repaired); with
// probability Noise flip a random variable of it (a true one for a clause
// of negative weight), otherwise the one whose flip gains the most (ties
// broken at random). Unlike WalkSAT, gains compare hard clauses first and
// soft weight second (no finite weight stands for a hard clause, since the
// soft weights grow as clauses are added), which is what WalkSAT's hard
// weight approximates.
//
// Soft weights are signed: a clause of weight w < 0 costs |w| while it is
// satisfied. Costs are kept relative to that convention: SoftCost is the
// signed weight of the unsatisfied soft clauses, so a world's cost is
// SoftCost plus the absolute weights of the negative soft clauses.
//
// The walker remembers the best world it has been in (fewest violated hard
// clauses, then least SoftCost). A clause added later is costed in that
// world too, so Best always reports the best world's cost over every clause
// added so far, and a variable added later has, in that world, the value
// it was added with.
type LazyWalker struct {
	opt   WalkOptions
	noise float64
	rng   *rand.Rand

	x     []bool
	occ   [][]int32 // variable -> clause<<1 | negated
	mb    []lazyScore
	cl    []lazyClause
	lits  []Lit
	start []int32 // clause c has lits[start[c]:start[c+1]]
	unsat []int32 // costly soft clauses with literals
	hardU []int32 // violated hard clauses with literals

	soft float64 // the signed weight of unsatisfied soft clauses
	hard int     // unsatisfied hard clauses

	bestX         []bool
	bestSoft      float64
	bestHard      int
	trail         []int32 // flips since bestX was current
	overflow      bool    // trail dropped: copy x on the next improvement
	flips, bestAt int
	scratch       []Lit

	lookahead func(v int) (hard int32, soft float64)
}

// lazyScore is what flipping a variable would make (satisfy) and break, in
// hard clauses and in signed soft weight.
type lazyScore struct {
	hmake, hbreak int32
	smake, sbreak float64
}

type lazyClause struct {
	w        float64 // signed soft weight (0 for hard clauses)
	trueSum  int64   // sum of the variables of the true literals
	numTrue  int32
	unsatPos int32 // position in unsat (hardU for a hard clause), -1 when not there
	hard     bool
}

// costly reports whether the clause costs with its current true literals.
func (k *lazyClause) costly() bool { return (!k.hard && k.w < 0) != (k.numTrue == 0) }

// NewLazyWalker returns a walker with no variables and no clauses. Of opt,
// Noise (0.5 when not positive), Seed and Deadline apply; Steps is the
// argument of Run.
func NewLazyWalker(opt WalkOptions) *LazyWalker {
	noise := opt.Noise
	if noise <= 0 {
		noise = 0.5
	}
	return &LazyWalker{opt: opt, noise: noise, rng: rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))}
}

// SignedCost is the cost of world x over the clauses added as Markov logic
// counts it: a soft clause of positive weight costs its weight where
// violated, one of negative weight w costs |w| where satisfied (a
// tautology, left out by AddClause, costs nothing, as a grounding drops
// it). It is summed directly over the clauses, not kept
// as a running sum over the flips, whose rounding drifts beside large
// weights (14.8477 for a world of 14.855 beside 10^12, and costs below 0).
func (w *LazyWalker) SignedCost(x []bool) float64 {
	cost := 0.0
	for c := range w.cl {
		k := &w.cl[c]
		if k.hard || k.w == 0 {
			continue
		}
		sat := false
		for _, l := range w.lits[w.start[c]:w.start[c+1]] {
			if x[l.Var()] != l.Neg() {
				sat = true
				break
			}
		}
		if k.w > 0 && !sat {
			cost += k.w
		} else if k.w < 0 && sat {
			cost -= k.w
		}
	}
	return cost
}

// NumVars is the number of variables added.
func (w *LazyWalker) NumVars() int { return len(w.x) }

// NumClauses is the number of clauses added (tautologies are not kept).
func (w *LazyWalker) NumClauses() int { return len(w.cl) }

// Value is variable v's value in the current world.
func (w *LazyWalker) Value(v int) bool { return w.x[v] }

// Cost is the current world's SoftCost (see LazyWalker) and number of
// violated hard clauses.
func (w *LazyWalker) Cost() (soft float64, hard int) { return w.soft, w.hard }

// Flips is the number of flips made so far, over every Run.
func (w *LazyWalker) Flips() int { return w.flips }

// Best returns the best world so far (a copy), its SoftCost and violated
// hard clauses, and the flip after which it was current (0: before any).
// The cost is summed afresh over the clauses (the running sums drift by
// rounding).
func (w *LazyWalker) Best() (x []bool, soft float64, hard int, at int) {
	x = append([]bool(nil), w.bestX...)
	for c := range w.cl {
		k := &w.cl[c]
		sat := false
		for _, l := range w.lits[w.start[c]:w.start[c+1]] {
			if x[l.Var()] != l.Neg() {
				sat = true
				break
			}
		}
		switch {
		case sat:
		case k.hard:
			hard++
		default:
			soft += k.w
		}
	}
	return x, soft, hard, w.bestAt
}

// AddVar adds a variable with the given value (in the current world and in
// the best one) and returns its index.
func (w *LazyWalker) AddVar(value bool) int {
	w.x = append(w.x, value)
	w.bestX = append(w.bestX, value)
	w.occ = append(w.occ, nil)
	w.mb = append(w.mb, lazyScore{})
	return len(w.x) - 1
}

// AddClause adds a clause over existing variables: soft with a signed
// weight, or hard. Repeated literals are merged; a clause with a literal
// and its negation is always satisfied and is not kept. It is costed in
// the current world and in the best one.
func (w *LazyWalker) AddClause(weight float64, hard bool, lits ...Lit) error {
	if !hard && (math.IsNaN(weight) || math.IsInf(weight, 0)) {
		return fmt.Errorf("maxsat: clause weight %v is not finite", weight)
	}
	ls := w.scratch[:0]
	for _, l := range lits {
		if l == 0 || l.Var() >= len(w.x) {
			return fmt.Errorf("maxsat: literal %d is not one of the walker's %d variables", l, len(w.x))
		}
		dup := false
		for _, m := range ls {
			if m == l {
				dup = true
			} else if m == -l {
				w.scratch = ls
				return nil // a tautology
			}
		}
		if !dup {
			ls = append(ls, l)
		}
	}
	w.scratch = ls
	if len(w.start) == 0 {
		w.start = append(w.start, 0)
	}
	c := int32(len(w.cl))
	k := lazyClause{w: weight, hard: hard, unsatPos: -1}
	if hard {
		k.w = 0
	}
	bestTrue := false
	for _, l := range ls {
		v := l.Var()
		w.lits = append(w.lits, l)
		e := c << 1
		if l.Neg() {
			e |= 1
		}
		w.occ[v] = append(w.occ[v], e)
		if w.x[v] != l.Neg() {
			k.numTrue++
			k.trueSum += int64(v)
		}
		bestTrue = bestTrue || w.bestX[v] != l.Neg()
	}
	w.start = append(w.start, int32(len(w.lits)))
	w.cl = append(w.cl, k)
	kk := &w.cl[c]
	switch kk.numTrue {
	case 0:
		w.addCost(kk, 1)
		for _, l := range ls {
			w.score(l.Var(), kk, 1, 0)
		}
	case 1:
		w.score(int(kk.trueSum), kk, 0, 1)
	}
	if len(ls) > 0 && kk.costly() {
		w.addUnsat(c)
	}
	if !bestTrue {
		if hard {
			w.bestHard++
		} else {
			w.bestSoft += weight
		}
	}
	return nil
}

// score adds make and break (+1 or -1 times the clause's weight) to v.
func (w *LazyWalker) score(v int, k *lazyClause, mk, brk int) {
	s := &w.mb[v]
	if k.hard {
		s.hmake += int32(mk)
		s.hbreak += int32(brk)
	} else {
		s.smake += float64(mk) * k.w
		s.sbreak += float64(brk) * k.w
	}
}

// addCost adds sign times the clause's cost when unsatisfied.
func (w *LazyWalker) addCost(k *lazyClause, sign int) {
	if k.hard {
		w.hard += sign
	} else {
		w.soft += float64(sign) * k.w
	}
}

func (w *LazyWalker) addUnsat(c int32) {
	list := &w.unsat
	if w.cl[c].hard {
		list = &w.hardU
	}
	w.cl[c].unsatPos = int32(len(*list))
	*list = append(*list, c)
}

func (w *LazyWalker) removeUnsat(c int32) {
	list := &w.unsat
	if w.cl[c].hard {
		list = &w.hardU
	}
	p := w.cl[c].unsatPos
	last := (*list)[len(*list)-1]
	(*list)[p] = last
	w.cl[last].unsatPos = p
	*list = (*list)[:len(*list)-1]
	w.cl[c].unsatPos = -1
}

// Flip flips variable v and updates the counts (Run's moves call it; so
// may a caller placing the walk in a world of its choice before Run).
func (w *LazyWalker) Flip(v int) {
	w.x[v] = !w.x[v]
	val := w.x[v]
	for _, e := range w.occ[v] {
		c := e >> 1
		neg := e&1 == 1
		k := &w.cl[c]
		lits := w.lits[w.start[c]:w.start[c+1]]
		if val != neg { // the literal became true
			k.numTrue++
			k.trueSum += int64(v)
			switch k.numTrue {
			case 1:
				w.addCost(k, -1)
				for _, l := range lits {
					w.score(l.Var(), k, -1, 0)
				}
				w.score(v, k, 0, 1)
			case 2:
				w.score(int(k.trueSum)-v, k, 0, -1)
			}
		} else {
			k.numTrue--
			k.trueSum -= int64(v)
			switch k.numTrue {
			case 0:
				w.addCost(k, 1)
				for _, l := range lits {
					w.score(l.Var(), k, 1, 0)
				}
				w.score(v, k, 0, -1)
			case 1:
				w.score(int(k.trueSum), k, 0, 1)
			}
		}
		if costly := k.costly(); costly && k.unsatPos < 0 {
			w.addUnsat(c)
		} else if !costly && k.unsatPos >= 0 {
			w.removeUnsat(c)
		}
	}
	w.flips++
	if !w.overflow {
		if len(w.trail) >= len(w.x) && len(w.trail) >= 1024 {
			w.overflow, w.trail = true, w.trail[:0]
		} else {
			w.trail = append(w.trail, int32(v))
		}
	}
}

// better reports whether the current world beats the best one.
func (w *LazyWalker) better() bool {
	return w.hard < w.bestHard || w.hard == w.bestHard && w.soft < w.bestSoft-1e-12*(1+math.Abs(w.bestSoft))
}

// keep makes the current world the best one.
func (w *LazyWalker) keep() {
	if w.overflow {
		copy(w.bestX, w.x)
	} else {
		for _, u := range w.trail {
			w.bestX[u] = !w.bestX[u]
		}
	}
	w.trail, w.overflow = w.trail[:0], false
	w.bestSoft, w.bestHard, w.bestAt = w.soft, w.hard, w.flips
}

// SetLookahead gives the walk what flipping a variable would break beyond
// the clauses added so far: f(v) returns the hard clauses and the signed
// soft weight that flipping v would make unsatisfied among clauses not yet
// added (LazySAT computes this "from the knowledge base" for atoms whose
// clauses are not all active). Greedy moves subtract it from v's gain. f
// must not add variables or clauses.
func (w *LazyWalker) SetLookahead(f func(v int) (hard int32, soft float64)) { w.lookahead = f }

// gain is what flipping v would gain: in hard clauses, and in signed soft
// weight (less the lookahead's clauses not yet added).
func (w *LazyWalker) gain(v int) (hard int32, soft float64) {
	s := &w.mb[v]
	hard, soft = s.hmake-s.hbreak, s.smake-s.sbreak
	if w.lookahead != nil {
		eh, es := w.lookahead(v)
		hard, soft = hard-eh, soft-es
	}
	return hard, soft
}

// Descend is a greedy descent: it scores every variable of a costly clause
// by what flipping it gains (hard clauses first, then soft weight, with the
// lookahead), then goes through them best first, flipping each that still
// gains, and repeats while a pass flips any, making at most steps flips
// (calling after as Run does). Run from a start where some single flip
// improves the world, the walk cannot stay there: MaxWalkSAT's random
// choice of a costly clause among many (most of them, in a knowledge base,
// of clauses no flip repairs cheaply) may never pick the one that pays.
// Cancellation stops it early and is not an error.
func (w *LazyWalker) Descend(ctx context.Context, steps int, after func(v int) error) error {
	if w.better() {
		w.keep()
	}
	seen := make(map[int]bool)
	type cand struct {
		v    int
		h    int32
		soft float64
	}
	var cands []cand
	for done := 0; done < steps; {
		clear(seen)
		cands = cands[:0]
		for _, list := range [][]int32{w.hardU, w.unsat} {
			for k, c := range list {
				if k&1023 == 1023 && ctx.Err() != nil {
					return nil
				}
				for _, l := range w.lits[w.start[c]:w.start[c+1]] {
					v := l.Var()
					if seen[v] {
						continue
					}
					seen[v] = true
					if h, g := w.gain(v); h > 0 || h == 0 && g > 1e-12 {
						cands = append(cands, cand{v, h, g})
					}
				}
			}
		}
		slices.SortFunc(cands, func(a, b cand) int {
			switch {
			case a.h != b.h:
				return int(b.h - a.h)
			case a.soft > b.soft:
				return -1
			case a.soft < b.soft:
				return 1
			}
			return a.v - b.v
		})
		flipped := 0
		for _, c := range cands {
			if done >= steps || ctx.Err() != nil {
				break
			}
			if h, g := w.gain(c.v); !(h > 0 || h == 0 && g > 1e-12) {
				continue
			}
			w.Flip(c.v)
			done++
			flipped++
			if after != nil {
				if err := after(c.v); err != nil {
					return fmt.Errorf("%w: %w", ErrWalkCallback, err)
				}
			}
			if w.better() {
				w.keep()
			}
		}
		if flipped == 0 {
			break
		}
	}
	return nil
}

// ErrWalkCallback wraps an error returned by Run's callback.
var ErrWalkCallback = errors.New("maxsat: the walk's callback failed")

// Run makes at most steps moves (fewer when no clause costs, ctx is
// cancelled or the deadline passes), calling after each flip, when not
// nil, after(v) with the flipped variable; after may add variables and
// clauses. An error from after stops the walk and is returned wrapped in
// ErrWalkCallback; cancellation is not an error (the best world so far
// stands).
func (w *LazyWalker) Run(ctx context.Context, steps int, after func(v int) error) error {
	if w.better() {
		w.keep()
	}
	var cand []Lit
	for i := 0; i < steps && len(w.unsat)+len(w.hardU) > 0; i++ {
		if i&1023 == 0 && i > 0 {
			if ctx.Err() != nil || (!w.opt.Deadline.IsZero() && time.Now().After(w.opt.Deadline)) {
				break
			}
		}
		var c int32
		if len(w.hardU) > 0 && (len(w.unsat) == 0 || w.rng.IntN(2) == 0) {
			c = w.hardU[w.rng.IntN(len(w.hardU))]
		} else {
			c = w.unsat[w.rng.IntN(len(w.unsat))]
		}
		lits := w.lits[w.start[c]:w.start[c+1]]
		if k := &w.cl[c]; !k.hard && k.w < 0 { // a satisfied negative clause: flip a true literal
			cand = cand[:0]
			for _, l := range lits {
				if w.x[l.Var()] != l.Neg() {
					cand = append(cand, l)
				}
			}
			lits = cand
		}
		var v int
		if w.rng.Float64() < w.noise {
			v = lits[w.rng.IntN(len(lits))].Var()
		} else {
			var bh int32
			var bs float64
			ties := 0
			for _, l := range lits {
				u := l.Var()
				s := &w.mb[u]
				gh, gs := s.hmake-s.hbreak, s.smake-s.sbreak
				if w.lookahead != nil {
					eh, es := w.lookahead(u)
					gh, gs = gh-eh, gs-es
				}
				switch {
				case ties == 0 || gh > bh || gh == bh && gs > bs:
					bh, bs, v, ties = gh, gs, u, 1
				case gh == bh && gs == bs:
					ties++
					if w.rng.IntN(ties) == 0 {
						v = u
					}
				}
			}
		}
		w.Flip(v)
		if after != nil {
			if err := after(v); err != nil {
				return fmt.Errorf("%w: %w", ErrWalkCallback, err)
			}
		}
		if w.better() {
			w.keep()
		}
	}
	return nil
}
