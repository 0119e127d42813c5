package maxsat

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// WalkOptions configures WalkSAT.
type WalkOptions struct {
	// Steps is the maximum number of flips.
	Steps int
	// Noise is the probability of a random-walk move: flip a random variable
	// of the chosen unsatisfied clause instead of its best one. 0.5 when
	// zero or negative; use a tiny positive value for a pure greedy walk.
	Noise float64
	// Seed seeds the random choices (and the random start when there is no
	// given one).
	Seed uint64
	// Deadline, when not zero, stops the walk at that time (checked every
	// 1024 flips), so that runs can be compared at equal time.
	Deadline time.Time
}

// WalkResult is the best assignment a WalkSAT run visited.
type WalkResult struct {
	X            []bool
	Satisfied    float64 // weight of the satisfied soft clauses under X
	HardViolated int     // hard clauses X violates
	Flips        int     // flips made
	BestFlip     int     // the flip after which X was current (0: the start)
}

// WalkSAT runs MaxWalkSAT (Kautz, Selman and Jiang 1997) from start, or from
// a uniformly random assignment when start is nil: repeatedly pick an
// unsatisfied clause uniformly at random (while hard clauses are violated,
// one of them every other pick on average); with probability Noise flip a
// random variable of it, otherwise the variable whose flip gains the most
// weight (make - break, ties broken at random). Hard clauses weigh more than
// all soft clauses together. A soft clause may have a negative weight w, as
// in Markov logic: it then costs |w| while satisfied, counts as "unsatisfied"
// (to be picked) while it has a true literal, and a move flips one of its
// true literals (Alchemy's MaxWalkSAT does the same); Satisfied is then the
// signed sum, so the cost of a world is the positive weights less it. Make and break weights are kept incrementally,
// so a flip costs time proportional to the clauses it changes. It returns the
// best assignment seen (fewest violated hard clauses, then most satisfied
// weight). ctx cancellation stops the walk early with the best so far.
func WalkSAT(ctx context.Context, in *Instance, start []bool, opt WalkOptions) (*WalkResult, error) {
	if start != nil && len(start) != in.NumVars {
		return nil, fmt.Errorf("maxsat: start assignment has %d values for %d variables", len(start), in.NumVars)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	x := make([]bool, in.NumVars)
	if start != nil {
		copy(x, start)
	} else {
		for i := range x {
			x[i] = rng.IntN(2) == 1
		}
	}
	return walk(ctx, in, buildIndex(in), x, opt, rng), nil
}

// walker holds the incremental state of a MaxWalkSAT run. Per-clause and
// per-variable state is packed into structs so that a flip touches one
// cache line per clause and per variable.
type walker struct {
	in       *Instance
	ix       *index
	x        []bool
	cl       []wclause
	mb       []makeBreak
	unsat    []int32 // clauses that cost: nonempty unsatisfied ones, and negative-weight ones with a true literal
	hardU    []int32 // the hard clauses among them
	softCost float64 // the signed weight of unsatisfied soft clauses: the cost less a constant (drifts by rounding)
	hardCost int     // unsatisfied hard clauses
}

type wclause struct {
	w        float64 // objective weight (hard clauses: more than all soft ones)
	trueSum  int64   // sum of the variables of the true literals: the critical variable when numTrue == 1
	numTrue  int32
	unsatPos int32 // position in unsat, -1 when satisfied
	hardPos  int32 // position in hardU (hard clauses in unsat)
	hard     bool
}

// makeBreak holds the weight a flip of the variable would satisfy (make)
// and falsify (break).
type makeBreak struct{ make, brk float64 }

// costly reports whether clause k costs with numTrue true literals: a
// clause of positive weight (or hard) when none is true, one of negative
// weight when some is.
func (k *wclause) costly() bool { return (k.w < 0) != (k.numTrue == 0) }

// addUnsat puts clause c on the list of clauses that cost.
func (w *walker) addUnsat(c int32) {
	w.cl[c].unsatPos = int32(len(w.unsat))
	w.unsat = append(w.unsat, c)
	if w.cl[c].hard {
		w.cl[c].hardPos = int32(len(w.hardU))
		w.hardU = append(w.hardU, c)
	}
}

func newWalker(in *Instance, ix *index, x []bool) *walker {
	m := in.NumClauses()
	hw := 1.0 // more than all soft clauses together, whatever their signs
	for c, wt := range in.Weight {
		if !in.Hard[c] {
			hw += math.Abs(wt)
		}
	}
	w := &walker{in: in, ix: ix, x: x, cl: make([]wclause, m), mb: make([]makeBreak, in.NumVars)}
	for c := 0; c < m; c++ {
		k := &w.cl[c]
		k.unsatPos, k.hard, k.w = -1, in.Hard[c], in.Weight[c]
		if k.hard {
			k.w = hw
		}
		if ix.taut[c] {
			continue
		}
		lits := in.Clause(c)
		for _, l := range lits {
			if x[l.Var()] != l.Neg() {
				k.numTrue++
				k.trueSum += int64(l.Var())
			}
		}
		// With a signed weight the make and break bookkeeping is the same
		// for both signs: a negative weight's "make" is a cost.
		switch k.numTrue {
		case 0:
			w.addCost(k)
			for _, l := range lits {
				w.mb[l.Var()].make += k.w
			}
		case 1:
			w.mb[k.trueSum].brk += k.w
		}
		if len(lits) > 0 && k.costly() {
			w.addUnsat(int32(c))
		}
	}
	return w
}

func (w *walker) addCost(k *wclause) {
	if k.hard {
		w.hardCost++
	} else {
		w.softCost += k.w
	}
}

func (w *walker) subCost(k *wclause) {
	if k.hard {
		w.hardCost--
	} else {
		w.softCost -= k.w
	}
}

// flip flips variable v and updates counts, make/break and the unsat list.
func (w *walker) flip(v int) {
	w.x[v] = !w.x[v]
	val := w.x[v]
	start := w.in.Start
	for _, e := range w.ix.occ[w.ix.occStart[v]:w.ix.occStart[v+1]] {
		c := e >> 1
		neg := e&1 == 1
		k := &w.cl[c]
		if val != neg { // the literal became true
			nt := k.numTrue
			k.numTrue++
			k.trueSum += int64(v)
			switch nt {
			case 0:
				w.subCost(k)
				if k.w < 0 {
					w.addUnsat(c)
				} else {
					w.removeUnsat(c)
				}
				for _, l := range w.in.Lits[start[c]:start[c+1]] {
					w.mb[l.Var()].make -= k.w
				}
				w.mb[v].brk += k.w
			case 1:
				w.mb[k.trueSum-int64(v)].brk -= k.w
			}
		} else {
			k.numTrue--
			k.trueSum -= int64(v)
			switch k.numTrue {
			case 0:
				w.addCost(k)
				if k.w < 0 {
					w.removeUnsat(c)
				} else {
					w.addUnsat(c)
				}
				for _, l := range w.in.Lits[start[c]:start[c+1]] {
					w.mb[l.Var()].make += k.w
				}
				w.mb[v].brk -= k.w
			case 1:
				w.mb[k.trueSum].brk += k.w
			}
		}
	}
}

func (w *walker) removeUnsat(c int32) {
	p := w.cl[c].unsatPos
	last := w.unsat[len(w.unsat)-1]
	w.unsat[p] = last
	w.cl[last].unsatPos = p
	w.unsat = w.unsat[:len(w.unsat)-1]
	w.cl[c].unsatPos = -1
	if w.cl[c].hard {
		p := w.cl[c].hardPos
		last := w.hardU[len(w.hardU)-1]
		w.hardU[p] = last
		w.cl[last].hardPos = p
		w.hardU = w.hardU[:len(w.hardU)-1]
	}
}

// walk runs MaxWalkSAT from x (modified in place to the best assignment).
func walk(ctx context.Context, in *Instance, ix *index, x []bool, opt WalkOptions, rng *rand.Rand) *WalkResult {
	noise := opt.Noise
	if noise <= 0 {
		noise = 0.5
	}
	w := newWalker(in, ix, x)
	bestSoft, bestHard := w.softCost, w.hardCost
	// bestX is the best assignment so far; trail lists the flips made since
	// it was current, so that an improvement usually costs O(len(trail))
	// rather than a copy of every variable. A trail longer than the
	// assignment is dropped and the next improvement copies instead.
	bestX := append([]bool(nil), x...)
	trail := make([]int32, 0, 1024)
	overflow := false
	res := &WalkResult{}
	flips := 0
	var cand []Lit // a negative clause's true literals
	for flips < opt.Steps && len(w.unsat) > 0 {
		if flips&1023 == 0 && flips > 0 {
			if ctx.Err() != nil || (!opt.Deadline.IsZero() && time.Now().After(opt.Deadline)) {
				break
			}
		}
		// While hard clauses are violated, half the picks go to one of
		// them: picked uniformly among thousands of soft ones, a few
		// violated hard clauses waited so long to be repaired that the
		// best feasible world stayed near the start.
		var c int32
		if len(w.hardU) > 0 && rng.IntN(2) == 0 {
			c = w.hardU[rng.IntN(len(w.hardU))]
		} else {
			c = w.unsat[rng.IntN(len(w.unsat))]
		}
		lits := in.Clause(int(c))
		if w.cl[c].w < 0 { // a satisfied negative clause: flip a true literal
			cand = cand[:0]
			for _, l := range lits {
				if x[l.Var()] != l.Neg() {
					cand = append(cand, l)
				}
			}
			lits = cand
		}
		var v int
		if rng.Float64() < noise {
			v = lits[rng.IntN(len(lits))].Var()
		} else {
			best, ties := 0.0, 0
			for _, l := range lits {
				u := l.Var()
				g := w.mb[u].make - w.mb[u].brk
				switch {
				case ties == 0 || g > best:
					best, v, ties = g, u, 1
				case g == best:
					ties++
					if rng.IntN(ties) == 0 {
						v = u
					}
				}
			}
		}
		w.flip(v)
		flips++
		if !overflow {
			if len(trail) >= len(x) && len(trail) >= 1024 {
				overflow, trail = true, trail[:0]
			} else {
				trail = append(trail, int32(v))
			}
		}
		if w.hardCost < bestHard || (w.hardCost == bestHard && w.softCost < bestSoft-1e-12*(1+bestSoft)) {
			bestSoft, bestHard = w.softCost, w.hardCost
			if overflow {
				copy(bestX, x)
			} else {
				for _, u := range trail {
					bestX[u] = !bestX[u]
				}
			}
			trail, overflow = trail[:0], false
			res.BestFlip = flips
		}
	}
	copy(x, bestX)
	res.X = x
	res.Flips = flips
	res.Satisfied, res.HardViolated = in.Eval(x)
	return res
}
