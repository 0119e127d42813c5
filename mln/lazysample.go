package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/store"
)

// LazySampleOptions configure lazy MC-SAT (Network.LazyMarginals).
type LazySampleOptions struct {
	// SampleOptions as for MCSAT, but for Threads: the chains run one
	// after another, as they share the store whose atoms' values the
	// joins read.
	SampleOptions
	// MemoryLimit as LazyOptions.MemoryLimit.
	MemoryLimit int64
	// MaxActivate: when the network has at most this many unknown atoms
	// (0: 100,000; negative: none), every one of them is activated before
	// the first step, so that the chains sample every atom as MCSAT does
	// (see LazyMarginals); the ground clauses are still built lazily.
	MaxActivate int
}

// LazyMarginalResult is what lazy MC-SAT estimated and what it built.
type LazyMarginalResult struct {
	// Atoms are the unknown atoms the chains activated (rows of the
	// network's store), and Probs their estimated probabilities of being
	// true. Every other unknown atom was false in every sample: its
	// estimate is 0 (see LazyMarginals).
	Atoms []ground.AtomRef
	Probs []float64
	// Complete says that every unknown atom was activated (see
	// LazySampleOptions.MaxActivate), so that Atoms lists them all;
	// otherwise NeverActivated of them were held false throughout, and
	// the marginals are those of the network conditioned on that.
	Complete       bool
	NeverActivated float64
	// Diagnostics say whether the chains agree, over the activated atoms.
	Diagnostics Diagnostics
	// ActiveClauses is the number of ground clauses built (HardClauses of
	// them hard), InitialClauses of them before the first step; Merged
	// the number the sampler saw once identical ones were merged.
	ActiveClauses, HardClauses, InitialClauses, Merged int
	// Constant counts the ground clauses found decided by the evidence.
	Constant int
	// CrossProduct is the number of substitutions of every clause's
	// variables over their types' domains (as LazyResult.CrossProduct).
	CrossProduct float64
	// Seconds: Ground builds the initial clauses, Sample runs the chains
	// with the grounding they do as they go.
	Seconds struct{ Ground, Sample float64 }
}

// Args returns the arguments of atom i of the result.
func (r *LazyMarginalResult) Args(s *store.Store, i int) []string {
	a := r.Atoms[i]
	return s.Names(s.Table(a.Pred).Args(a.Row))
}

// LazyMarginals estimates marginal probabilities by MC-SAT with lazy
// grounding (lazy MC-SAT: Poon, Domingos and Sumner, "A General Method for
// Reducing the Complexity of Relational Inference and its Application to
// MCMC", AAAI 2008), building ground clauses as LazyMAP does: every unknown
// atom starts false, and a ground clause is built only once it can be
// violated, found by delta joins from the atom whose becoming true makes it
// so. The chains keep the invariant that every ground clause not built is
// satisfied in their current world (for a clause of negative weight: its
// negation is), so MC-SAT's selection, which takes each clause satisfied in
// the previous world with probability 1 - exp(-|w|), is decided as in
// MCSAT for the clauses built when a step begins, and for a clause built
// during the step (when SampleSAT's or the Gibbs sweep's move makes an atom
// true and so makes it violable) by a coin flipped then with that same
// probability: it was satisfied in the previous world, since it was not
// built. A selected clause of negative weight, or a selected unit clause,
// holds its atoms at their previous values for the step; a move that it
// forbids is undone. Identical ground clauses are merged as they are built,
// as MCSAT merges them (a clause merged into one built before takes its
// own coin for the rest of the step, and counts in the merged weight from
// the next step on).
//
// SampleSAT starts from the chain's world, as in MCSAT, and gives a fresh
// random value to the active atoms (those in a ground clause built so far,
// or activated at the start) that no selected clause holds; the other
// unknown atoms stay false, their default. Full MC-SAT gives every such
// atom a random value, so a network whose unknown atoms are not all
// active is sampled conditioned on the atoms the chains never activate
// being false. LazyMarginals therefore activates every unknown atom before
// the first step when there are at most opt.MaxActivate of them (100,000
// by default): the chains then sample every atom as MCSAT does, and only
// the ground clauses are built lazily, once a world makes them violable
// (LazyMarginalResult.Complete). A larger network is sampled conditioned
// as above: its marginals are exact (as MCSAT's are) only where every atom
// that can be true with non-negligible probability is active, which holds
// when every open predicate has a unit clause of positive weight (one of
// negative weight, such as a learned prior of a sparse predicate, is built
// only once its atom is true, and activates nothing) or evidence that
// makes its atoms' clauses violable; an atom that no clause, evidence or
// true atom ever reaches is not in Atoms, and its estimate, its value in
// every sample, is 0 (LazyMarginalResult.NeverActivated counts them). An
// atom activated during a run counts as 0 (its value) in the samples before
// its activation, and by its Rao-Blackwellised conditional probability
// after: both estimate the same marginal.
//
// Each step is followed by a Gibbs sweep over the active atoms, blocked as
// in Gibbs (atoms tied by the hard and heavy clauses built so far are
// resampled jointly), in which a false atom's or a block's conditional
// counts the ground clauses its becoming true would make violable (built
// first); the estimates are the sweep's conditional probabilities,
// averaged over the samples. opt.NoGibbsMoves leaves the sweep out. The
// first chain starts from a world of lazy MaxWalkSAT (LazyMAP), the others
// from the world where every unknown atom is false; a chain's first step
// samples the worlds that satisfy the hard clauses. SampleSAT's moves flip
// the groups of atoms that the step's selected binary clauses tie together
// at once, as MCSAT's do (see clusters).
//
// The network's store changes as in LazyMAP: unknown atoms are added to it
// as they are activated, and its target atoms hold the last chain's final
// world.
func (net *Network) LazyMarginals(ctx context.Context, opt LazySampleOptions) (*LazyMarginalResult, error) {
	start := time.Now()
	so := opt.SampleOptions
	if err := so.check(); err != nil {
		return nil, err
	}
	ch := &lazyChain{opt: so, ctx: ctx, index: map[uint64][]int32{}, start: []int32{0}}
	unknown := net.UnknownAtoms()
	maxActivate := opt.MaxActivate
	if maxActivate == 0 {
		maxActivate = 100_000
	}
	complete := maxActivate > 0 && unknown <= float64(maxActivate)
	if complete {
		if err := net.Materialize(maxActivate); err != nil {
			return nil, err
		}
	}
	// Chain 0 starts from a lazy MaxWalkSAT world (10 flips per unknown
	// atom, between 1,000 and 100,000), as MCSAT's chain 0 does (see
	// overdispersedStart), the others from the all-false world: chains
	// that cannot leave the modes they start in then disagree, and the
	// diagnostics see it, where from one start they agreed on the wrong
	// mode. The search leaves its world in the store: back to false.
	walkStart := time.Now()
	walk, err := net.LazyMAP(ctx, LazyOptions{Flips: int(min(max(10*unknown, 1000), 100_000)), Seed: so.Seed, MemoryLimit: opt.MemoryLimit})
	if err != nil {
		return nil, err
	}
	walkTime := time.Since(walkStart) // the chains' time, not the grounding's
	var startTrue []ground.AtomRef
	for i, a := range walk.Atoms {
		if walk.Values[i] == 1 {
			startTrue = append(startTrue, a)
		}
		net.Store.Table(a.Pred).SetValue(a.Row, 0)
	}
	e, err := net.newLazy(LazyOptions{MemoryLimit: opt.MemoryLimit}, ch)
	if err != nil {
		return nil, err
	}
	ch.e = e
	res := &LazyMarginalResult{}
	for k := range e.cls {
		res.CrossProduct += e.crossProduct(k)
	}
	if err := e.initial(); err != nil {
		return nil, err
	}
	if err := e.propagateHard(); err != nil {
		return nil, err
	}
	if complete {
		// Every unknown atom active from the start, false like the others.
		for _, p := range net.Model.Predicates {
			if p.Closed {
				continue
			}
			t := net.Store.Table(p)
			for row := range t.Len() {
				if t.Kind(row) == store.Target {
					e.varOf(p, row)
				}
			}
		}
	}
	ch.parts = ch.parts[:0]
	res.InitialClauses = ch.built
	res.Seconds.Ground = (time.Since(start) - walkTime).Seconds()
	start = time.Now().Add(-walkTime)

	chains := so.Chains
	per := make([]int, chains)
	total := 0
	for k := range per {
		per[k] = so.Samples / chains
		if k < so.Samples%chains {
			per[k]++
		}
		total += so.BurnIn + per[k]
	}
	sums := make([][2][]float64, chains)
	squares := make([][2][]float64, chains)
	batches := make([][][]float64, chains) // per chain, the batches' sums (batchMCSE)
	stuck := make([]int, chains)
	done, last := 0, time.Now()
	for k := range chains {
		ch.reset(rand.New(rand.NewPCG(so.Seed, 0x9e3779b97f4a7c15*uint64(k+1))))
		if k == 0 {
			for _, a := range startTrue {
				if err := ch.move(e.varOf(a.Pred, a.Row), true, false); err != nil {
					return nil, err
				}
			}
		}
		// A start that satisfies the hard clauses is a state of the chain
		// (as MCSAT's start is): its first step selects soft clauses too.
		// Sampling the hard clauses alone first threw the MaxWalkSAT start
		// away (a near-uniform draw among the worlds they allow, T(A) 0 for
		// an exact 1 at half the seeds) and led every chain into the mode
		// holding most of those worlds (S(A) 1.0000 for 0.0174, mixed).
		ch.hardOK = ch.hardSatisfied()
		for it := 0; it < so.BurnIn+per[k]; it++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := ch.step(); err != nil {
				return nil, err
			}
			if done++; so.Progress != nil && time.Since(last) > 200*time.Millisecond {
				so.Progress(done, total)
				last = time.Now()
			}
			kept := it - so.BurnIn
			if kept < 0 {
				continue
			}
			half := 0
			if kept >= per[k]/2 {
				half = 1
			}
			n := len(ch.x)
			sums[k][half] = grow(sums[k][half], n)
			squares[k][half] = grow(squares[k][half], n)
			add(sums[k][half], squares[k][half], ch.cond)
			if batches[k] == nil {
				batches[k] = make([][]float64, MCSEBatches)
			}
			b := BatchOf(kept, per[k])
			batches[k][b] = grow(batches[k][b], n)
			addTo(batches[k][b], ch.cond)
		}
		stuck[k] = ch.stuckSteps
	}
	if so.Progress != nil {
		so.Progress(done, total)
	}
	n := len(ch.x)
	for k := range sums {
		for h := range 2 {
			sums[k][h] = grow(sums[k][h], n)
			squares[k][h] = grow(squares[k][h], n)
		}
	}
	s := summarize(n, per, sums, squares, batches, stuck, total)
	res.Atoms, res.Probs, res.Diagnostics = e.atoms, s.Probs, s.Diagnostics
	res.Complete, res.NeverActivated = complete, max(0, unknown-float64(len(e.atoms)))
	res.ActiveClauses, res.HardClauses, res.Merged, res.Constant = ch.built, e.hardBuilt, len(ch.weight), e.constant
	res.Seconds.Sample = time.Since(start).Seconds()
	return res, nil
}

// grow extends s with zeros to length n.
func grow(s []float64, n int) []float64 {
	if len(s) < n {
		s = append(s, make([]float64, n-len(s))...)
	}
	return s
}

// lazyOcc is an occurrence of an atom in a ground clause: the clause, and
// whether the atom occurs in it positively or negated.
type lazyOcc struct {
	c        int32
	pos, neg bool
}

// lazyPart is a ground clause as built (before merging): the merged
// clause it went into, its own weight (a soft unit clause !a counted as a
// of the opposite weight), and whether it is hard.
type lazyPart struct {
	c    int32
	w    float64
	hard bool
}

// lazyChain is lazy MC-SAT's ground network (the sink lazy grounding
// builds into, identical clauses merged) and the state of the chain that
// runs over it.
type lazyChain struct {
	e   *lazyEngine
	opt SampleOptions
	ctx context.Context
	rng *rand.Rand

	// The merged ground clauses: clause k has literals
	// lits[start[k]:start[k+1]], the summed weight weight[k] (ignored when
	// hard[k]); index finds a clause by the hash of its literals.
	lits   []maxsat.Lit
	start  []int32
	weight []float64
	hard   []bool
	index  map[uint64][]int32
	occ    [][]lazyOcc // atom -> its clauses
	built  int         // ground clauses built, before merging
	// parts are the ground clauses built and not yet seen by the step.
	parts []lazyPart

	// The world: x, each clause's true literals in it, and the last
	// conditional probabilities of the Gibbs sweep (the estimates). The
	// store's target atoms hold x.
	x      []bool
	prev   []bool // the world before the step
	ntrue  []int32
	cond   []float64
	hardOK bool // x satisfies the hard clauses
	moves  int  // changes of x, to tell whether a look-ahead is current

	// The step: clauses selected (sel[k] == stamp), atoms held at their
	// previous value (fixed[v] == stamp), the atoms SampleSAT walks, and
	// the selected clauses x violates.
	inStep     bool
	stamp      uint32
	sel        []uint32
	selList    []int32 // the clauses selected, in order
	fixed      []uint32
	walking    []uint32
	walk       []int32
	unsat      []int32
	pos        []int32 // clause -> index in unsat, or -1
	cands      []int32
	conflict   bool     // two selected clauses hold an atom at different values
	err        error    // of a delta join made by pin
	queue      []int32  // atoms pinned and not yet propagated
	psat       []uint32 // clause -> stamp when satisfied by a pinned atom
	stuckSteps int
	scratch    []maxsat.Lit

	// Gibbs blocks: union-find over the atoms that hard clauses, or soft
	// ones of at least two literals and weight opt.BlockWeight or more in
	// absolute value, tie together (as Gibbs groups them); members[r]
	// lists root r's atoms (nil: r alone).
	parent, size []int32
	members      [][]int32
	swept        []uint32 // atom -> sweep when resampled
	sweepNo      uint32
	bclauses     []int32  // scratch: a block's clauses
	bcnt         []int32  // scratch: their true literals
	bseen        []uint32 // clause -> block stamp
	bidx         []int32  // clause -> index in bclauses
	bocc         [][]blockOcc
	bstamp       uint32
	score        []float64 // scratch: each block assignment's log-weight

	// The step's clusters (see clusters): walk atom v is at walkAt[v];
	// the units cover the first clusterWalk atoms of the walk, those it
	// had when they were built.
	clusterUnits
	walkAt      []int32
	clusterWalk int

	// world is the Zobrist hash of the world (the XOR of zobrist[v] over
	// the true atoms); expandedAt[v] the hashes of the last two worlds in
	// which atom v was expanded (see expandedIn).
	world      uint64
	zobrist    []uint64
	expandedAt [][2]uint64
}

// zobristKey is atom v's key in the world's hash: a fixed pseudo-random
// 64-bit value (splitmix64 of v), so that runs are reproducible.
func zobristKey(v int) uint64 {
	z := uint64(v+1) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// AddVar adds an atom, false (lazySink).
func (c *lazyChain) AddVar(value bool) int {
	if value {
		panic("mln: lazy MC-SAT adds its atoms false")
	}
	c.x = append(c.x, false)
	c.prev = append(c.prev, false)
	c.occ = append(c.occ, nil)
	c.cond = append(c.cond, 0)
	c.fixed = append(c.fixed, 0)
	c.walking = append(c.walking, 0)
	c.parent = append(c.parent, int32(len(c.parent)))
	c.size = append(c.size, 1)
	c.members = append(c.members, nil)
	c.swept = append(c.swept, 0)
	c.zobrist = append(c.zobrist, zobristKey(len(c.zobrist)))
	c.expandedAt = append(c.expandedAt, [2]uint64{})
	return len(c.x) - 1
}

// find returns the root of atom v's block.
func (c *lazyChain) find(v int32) int32 {
	for c.parent[v] != v {
		c.parent[v] = c.parent[c.parent[v]]
		v = c.parent[v]
	}
	return v
}

// tie puts the atoms of merged clause k in one block.
func (c *lazyChain) tie(k int32) {
	lits := c.clause(k)
	r := c.find(int32(lits[0].Var()))
	for _, l := range lits[1:] {
		s := c.find(int32(l.Var()))
		if s == r {
			continue
		}
		if c.size[s] > c.size[r] {
			r, s = s, r
		}
		if c.size[r] <= int32(c.opt.MaxBlock) { // members are kept for small blocks only
			if c.members[r] == nil {
				c.members[r] = []int32{r}
			}
			if c.members[s] == nil {
				c.members[r] = append(c.members[r], s)
			} else {
				c.members[r] = append(c.members[r], c.members[s]...)
			}
		}
		if c.size[r]+c.size[s] > int32(c.opt.MaxBlock) {
			c.members[r] = nil
		}
		c.members[s] = nil
		c.parent[s] = r
		c.size[r] += c.size[s]
	}
}

// NumClauses is the number of merged ground clauses (lazySink).
func (c *lazyChain) NumClauses() int { return len(c.weight) }

// Value is atom v's value in the current world (lazySink).
func (c *lazyChain) Value(v int) bool { return c.x[v] }

// clause returns merged clause k's literals.
func (c *lazyChain) clause(k int32) []maxsat.Lit { return c.lits[c.start[k]:c.start[k+1]] }

// AddClause adds a ground clause, merging it into an identical one built
// before (lazySink): a soft unit clause !a of weight w is a of weight -w,
// weights are summed, and a clause is hard when any of its parts is.
func (c *lazyChain) AddClause(weight float64, hard bool, lits ...maxsat.Lit) error {
	if !hard && (math.IsNaN(weight) || math.IsInf(weight, 0)) {
		return fmt.Errorf("mln: lazy MC-SAT: clause weight %v is not finite", weight)
	}
	ls := append(c.scratch[:0], lits...)
	if !hard && len(ls) == 1 && ls[0].Neg() {
		ls[0], weight = maxsat.Pos(ls[0].Var()), -weight
	}
	slices.Sort(ls)
	ls = slices.Compact(ls)
	c.scratch = ls
	h := uint64(14695981039346656037)
	for _, l := range ls {
		h = (h ^ uint64(uint32(l))) * 1099511628211
	}
	k := int32(-1)
	for _, cand := range c.index[h] {
		if slices.Equal(c.clause(cand), ls) {
			k = cand
			break
		}
	}
	if k < 0 {
		k = int32(len(c.weight))
		c.index[h] = append(c.index[h], k)
		c.lits = append(c.lits, ls...)
		c.start = append(c.start, int32(len(c.lits)))
		c.weight = append(c.weight, 0)
		c.hard = append(c.hard, false)
		c.sel = append(c.sel, 0)
		c.psat = append(c.psat, 0)
		c.pos = append(c.pos, -1)
		n := int32(0)
		for _, l := range ls {
			v := l.Var()
			if c.x[v] != l.Neg() {
				n++
			}
			c.occ[v] = append(c.occ[v], lazyOcc{c: k, pos: !l.Neg(), neg: l.Neg()})
		}
		c.ntrue = append(c.ntrue, n)
	}
	c.built++
	if hard {
		c.hard[k] = true
	} else {
		c.weight[k] += weight
	}
	if len(ls) > 1 && (c.hard[k] || math.Abs(c.weight[k]) >= c.opt.BlockWeight) {
		c.tie(k)
	}
	c.parts = append(c.parts, lazyPart{c: k, w: weight, hard: hard})
	return nil
}

// hardSatisfied reports whether the world satisfies every hard clause: the
// built ones by their counts, and every clause not built holds in it.
func (c *lazyChain) hardSatisfied() bool {
	for k, h := range c.hard {
		if h && c.ntrue[k] == 0 {
			return false
		}
	}
	return true
}

// reset starts a chain: every atom false, the given random source.
func (c *lazyChain) reset(rng *rand.Rand) {
	c.rng = rng
	for v, b := range c.x {
		if b {
			c.setX(v, false)
		}
	}
	c.hardOK = false
	c.stuckSteps = 0
}

// setX gives atom v the value val in the world and the store, and keeps
// the clause counts and the step's violated selected clauses.
func (c *lazyChain) setX(v int, val bool) {
	if c.x[v] == val {
		return
	}
	for _, o := range c.occ[v] {
		was := c.ntrue[o.c]
		var d int32
		if o.pos {
			d++
		}
		if o.neg {
			d--
		}
		if !val {
			d = -d
		}
		n := was + d
		c.ntrue[o.c] = n
		if c.inStep && c.sel[o.c] == c.stamp {
			switch {
			case was == 0 && n > 0:
				c.removeUnsat(o.c)
			case was > 0 && n == 0:
				c.addUnsat(o.c)
			}
		}
	}
	c.x[v] = val
	c.world ^= c.zobrist[v]
	c.moves++
	a := c.e.atoms[v]
	x := 0.0
	if val {
		x = 1
	}
	c.e.s.Table(a.Pred).SetValue(a.Row, x)
}

func (c *lazyChain) addUnsat(k int32) {
	c.pos[k] = int32(len(c.unsat))
	c.unsat = append(c.unsat, k)
}

func (c *lazyChain) removeUnsat(k int32) {
	i := c.pos[k]
	last := c.unsat[len(c.unsat)-1]
	c.unsat[i] = last
	c.pos[last] = i
	c.unsat = c.unsat[:len(c.unsat)-1]
	c.pos[k] = -1
}

// move gives atom v the value val; when it becomes true, the ground
// clauses that makes violable are built first unless expanded says that
// they were, with the world as it is (see lookAhead). The step decides
// the new clauses' selection (settle).
func (c *lazyChain) move(v int, val bool, expanded bool) error {
	if c.x[v] == val {
		return nil
	}
	c.setX(v, val)
	if val && !expanded && !c.expandedIn(v) {
		if err := c.e.expandFrom(v); err != nil {
			return err
		}
		c.expandedAt[v] = [2]uint64{c.world, c.expandedAt[v][0]}
	}
	return c.settle()
}

// expandedIn reports whether atom v, now true, was expanded (expandFrom)
// in this very world before (one of the last two worlds it was expanded
// in, told by their Zobrist hashes): every clause its being true makes
// violable here was built then. Cluster moves go back and forth between
// the same worlds, and made a delta join per atom each time, mostly
// finding clauses built already (8 atoms of long hard clauses: 0.5 s of
// sampling became 8-10 s).
func (c *lazyChain) expandedIn(v int) bool {
	at := c.expandedAt[v]
	return c.world != 0 && (at[0] == c.world || at[1] == c.world)
}

// lookAhead builds the ground clauses that false atom v's becoming true
// would make violable, and settles their selection; it returns the count
// of moves after it, for move's expanded (valid while it is unchanged).
func (c *lazyChain) lookAhead(v int) (int, error) {
	if err := c.e.expandFrom(v); err != nil {
		return 0, err
	}
	if err := c.settle(); err != nil {
		return 0, err
	}
	return c.moves, nil
}

// settle decides, during a step, the selection of the ground clauses built
// since the last call (see LazyMarginals); outside a step it drops them.
func (c *lazyChain) settle() error {
	if c.err != nil {
		return c.err
	}
	for i := 0; i < len(c.parts); i++ {
		if !c.inStep {
			break
		}
		p := c.parts[i]
		lits := c.clause(p.c)
		satPrev := false
		for _, l := range lits {
			if c.prev[l.Var()] != l.Neg() {
				satPrev = true
				break
			}
		}
		// Not built before the step: satisfied in the previous world (a
		// clause of negative weight: violated there).
		if satPrev != (p.hard || p.w > 0) && (p.hard || p.w != 0) {
			return fmt.Errorf("mln: lazy MC-SAT: a ground clause built during a step was not satisfied in the world before it (weight %v, %d literals)", p.w, len(lits))
		}
		switch {
		case p.hard:
		case !c.hardOK || p.w == 0:
			continue
		case c.rng.Float64() >= -math.Expm1(-math.Abs(p.w)):
			continue
		case p.w < 0:
			for _, l := range lits {
				c.pin(l.Var(), c.prev[l.Var()])
			}
			continue
		}
		c.selectClause(p.c)
	}
	c.parts = c.parts[:0]
	if c.inStep {
		c.propagate()
		if len(c.parts) > 0 || c.err != nil { // atoms the propagation made true
			return c.settle()
		}
	}
	return c.err
}

// propagate runs unit propagation over the selected clauses from the atoms
// pinned since the last call: a selected clause whose other atoms are
// pinned and false pins its last atom to make it true (in a world that
// satisfies the hard clauses, to its previous value, which satisfies it).
func (c *lazyChain) propagate() {
	for len(c.queue) > 0 {
		v := c.queue[len(c.queue)-1]
		c.queue = c.queue[:len(c.queue)-1]
		for _, o := range c.occ[v] {
			k := o.c
			if c.sel[k] != c.stamp || c.psat[k] == c.stamp {
				continue
			}
			open, openLit := 0, maxsat.Lit(0)
			for _, l := range c.clause(k) {
				u := l.Var()
				switch {
				case c.fixed[u] != c.stamp:
					open, openLit = open+1, l
				case c.x[u] != l.Neg():
					c.psat[k] = c.stamp
				}
			}
			if c.psat[k] == c.stamp {
				continue
			}
			switch open {
			case 0:
				c.conflict = true
			case 1:
				c.pin(openLit.Var(), !openLit.Neg())
			}
		}
	}
}

// pin holds atom v at val for the step.
func (c *lazyChain) pin(v int, val bool) {
	if c.fixed[v] == c.stamp {
		if c.x[v] != val {
			c.conflict = true
		}
		return
	}
	c.fixed[v] = c.stamp
	c.queue = append(c.queue, int32(v))
	if c.x[v] != val {
		// Only before the chain's world satisfies the hard clauses: the
		// others hold an atom at its previous value, which x has unless
		// the move being made changed it (then it is undone). Made true,
		// its clauses are built by the next expansion of the step.
		c.setX(v, val)
		if val && c.err == nil {
			c.err = c.e.expandFrom(v) // returned by settle
		}
	}
}

// selectClause makes merged clause k one of the step's constraints.
func (c *lazyChain) selectClause(k int32) {
	if c.sel[k] == c.stamp {
		return
	}
	// Selected and in the violated list first: pinning a unit clause's
	// atom may change x, and setX keeps the list of selected clauses.
	c.sel[k] = c.stamp
	c.selList = append(c.selList, k)
	if c.ntrue[k] == 0 {
		c.addUnsat(k)
	} else {
		c.pos[k] = -1
	}
	lits := c.clause(k)
	if len(lits) == 1 {
		c.pin(lits[0].Var(), !lits[0].Neg())
	}
	for _, l := range lits {
		if v := l.Var(); c.fixed[v] != c.stamp && c.walking[v] != c.stamp {
			c.walking[v] = c.stamp
			c.walk = append(c.walk, int32(v))
		}
	}
}

// step makes one MC-SAT step and a Gibbs sweep.
func (c *lazyChain) step() error {
	c.stamp++
	if c.stamp == 0 {
		clear(c.sel)
		clear(c.psat)
		clear(c.fixed)
		clear(c.walking)
		c.stamp = 1
	}
	copy(c.prev, c.x)
	c.inStep = true
	ok, err := c.sampleSAT()
	c.inStep = false
	c.parts = c.parts[:0]
	if err != nil {
		return err
	}
	if !ok {
		if !c.hardOK {
			return fmt.Errorf("mln: lazy MC-SAT found no world that satisfies the hard clauses in %d flips (they may be unsatisfiable)", c.maxFlips())
		}
		// Back to the previous world: a world visited before, where every
		// ground clause not built is satisfied.
		for v := range c.x {
			if err := c.move(v, c.prev[v], false); err != nil {
				return err
			}
		}
		c.stuckSteps++
	}
	c.hardOK = true
	if c.opt.NoGibbsMoves {
		for v, b := range c.x {
			c.cond[v] = float64(b2i(b))
		}
		return nil
	}
	return c.sweep()
}

func (c *lazyChain) maxFlips() int {
	if c.opt.MaxFlips > 0 {
		return c.opt.MaxFlips
	}
	return max(100_000, 100*len(c.x))
}

// sampleSAT replaces x by a near-uniform sample of the worlds that satisfy
// the step's selected clauses (SampleSAT, as in MCSAT), or returns false
// when it finds none within the flip budget.
func (c *lazyChain) sampleSAT() (bool, error) {
	c.walk, c.unsat, c.conflict, c.queue, c.selList = c.walk[:0], c.unsat[:0], false, c.queue[:0], c.selList[:0]
	m := int32(len(c.weight))
	for k := range m {
		if k&0xffff == 0xffff {
			if err := c.ctx.Err(); err != nil {
				return false, err
			}
		}
		w := c.weight[k]
		switch {
		case c.hard[k]:
		case !c.hardOK || w == 0:
			continue
		case (w > 0) != (c.ntrue[k] > 0) || c.rng.Float64() >= -math.Expm1(-math.Abs(w)):
			continue
		case w < 0:
			for _, l := range c.clause(k) {
				c.pin(l.Var(), c.x[l.Var()])
			}
			continue
		}
		c.selectClause(k)
	}
	if err := c.settle(); err != nil {
		return false, err
	}
	// A fresh random value for each atom active when the step began that
	// the selection leaves free and no selected clause holds (the walk's
	// atoms keep theirs, as in MCSAT); atoms activated during the step
	// start false. A clause first built during the step, when one of these
	// values makes it violable, takes its selection coin then; selected and
	// violated, it is repaired by the WalkSAT moves below, where MCSAT
	// would have kept its atoms: that is where a lazy step can differ from
	// a step of MCSAT over the same clauses.
	for v := range len(c.prev) {
		if v&1023 == 1023 {
			if err := c.ctx.Err(); err != nil {
				return false, err
			}
		}
		if c.fixed[v] != c.stamp && c.walking[v] != c.stamp {
			if err := c.move(v, c.rng.IntN(2) == 1, false); err != nil {
				return false, err
			}
		}
	}
	temp := satTemperature(c.opt, len(c.walk))
	budget := c.maxFlips()
	for f := 0; len(c.unsat) > 0; f++ {
		if f >= budget || c.conflict {
			return false, nil
		}
		if f&1023 == 1023 {
			if err := c.ctx.Err(); err != nil {
				return false, err
			}
		}
		if c.rng.Float64() >= c.opt.SAProb {
			k := c.unsat[c.rng.IntN(len(c.unsat))]
			v := c.fixVar(k, c.rng.IntN(2) == 1)
			if v < 0 {
				return false, nil
			}
			if err := c.move(v, !c.x[v], false); err != nil {
				return false, err
			}
			continue
		}
		if _, err := c.anneal(temp); err != nil {
			return false, err
		}
	}
	if c.conflict {
		return false, nil
	}
	// The world at the m-th visit to a solution of the annealing moves'
	// chain, as MCSAT's uniformMoves, with its cluster moves.
	visits := sampleSATVisits(c.opt, len(c.walk), c.rng)
	units := !c.opt.NoClusterMoves && c.clusters()
	for f := 0; visits > 0; f++ {
		if f >= budget || c.conflict {
			return false, nil // the step goes back to the previous world
		}
		if f&1023 == 1023 {
			if err := c.ctx.Err(); err != nil {
				return false, err
			}
		}
		// A quarter of the moves are cluster moves (MCSAT's are all): each
		// accepted one may make a delta join per atom it makes true (see
		// expandedIn), and a few a step are enough to cross between the
		// modes (8 atoms of long hard clauses: 1.2 s with every move a
		// cluster move, 0.65 s so, 0.5 s without). A mixture of moves that
		// each leave the annealing distribution unchanged leaves it
		// unchanged.
		var err error
		if units && c.rng.IntN(4) == 0 {
			err = c.annealUnit(temp)
		} else {
			_, err = c.anneal(temp)
		}
		if err != nil {
			return false, err
		}
		if len(c.unsat) == 0 {
			visits--
		}
	}
	return !c.conflict, nil
}

// anneal makes one simulated-annealing move at temperature temp among the
// walk's atoms and returns the atom it flipped, or -1. A false atom's
// ground clauses that its becoming true would make violable are built and
// their selection settled first, so that the move's change in violated
// selected clauses counts them.
func (c *lazyChain) anneal(temp float64) (int, error) {
	if len(c.walk) == 0 {
		return -1, nil
	}
	return c.annealAtom(int(c.walk[c.rng.IntN(len(c.walk))]), temp)
}

// annealAtom makes anneal's move on atom v.
func (c *lazyChain) annealAtom(v int, temp float64) (int, error) {
	if c.fixed[v] == c.stamp {
		return -1, nil
	}
	// The clauses not built can only add to the move's violations, so a
	// move rejected without them is rejected with them: the look-ahead
	// (a join) is made for the moves that pass without it.
	u := c.rng.Float64()
	accept := func(d int) bool { return d <= 0 || (temp > 0 && u < math.Exp(-float64(d)/temp)) }
	expanded := false
	if !c.x[v] {
		if !accept(c.delta(v)) {
			return -1, nil
		}
		at, err := c.lookAhead(v)
		if err != nil {
			return -1, err
		}
		if c.fixed[v] == c.stamp {
			return -1, nil
		}
		expanded = at == c.moves
	}
	if accept(c.delta(v)) {
		if err := c.move(v, !c.x[v], expanded); err != nil {
			return -1, err
		}
		return v, nil
	}
	return -1, nil
}

// clusters groups the step's walk atoms into units as MCSAT's steps do
// (see clusterUnits), by the implications of the selected clauses built so
// far that have two literals the step does not hold and no true one it
// holds. Every selected clause holds in every solution of the step, those
// not built yet too, so every solution keeps each unit's literals equal,
// and the moves over units are uniform on the solutions as MCSAT's are.
// The units cover the walk as it is now; atoms that join it later move
// alone (see annealUnit). It returns false when every unit is one atom.
func (c *lazyChain) clusters() bool {
	c.clusterWalk = len(c.walk)
	if len(c.walkAt) < len(c.x) {
		c.walkAt = slices.Grow(c.walkAt[:0], len(c.x))[:len(c.x)]
	}
	for i, v := range c.walk {
		c.walkAt[v] = int32(i)
	}
	node := func(l maxsat.Lit) int32 {
		i := 2 * c.walkAt[l.Var()]
		if l.Neg() {
			i++
		}
		return i
	}
	c.edges = c.edges[:0]
	for _, k := range c.selList {
		var two [2]maxsat.Lit
		n, held := 0, false
		for _, l := range c.clause(k) {
			u := l.Var()
			if c.fixed[u] == c.stamp {
				if c.x[u] != l.Neg() {
					held = true
					break
				}
				continue
			}
			if n == 2 {
				n = 3
				break
			}
			two[n] = l
			n++
		}
		if held || n != 2 || two[0].Var() == two[1].Var() {
			continue
		}
		c.implication(node(two[0]), node(two[1]))
	}
	return c.units(c.walk[:c.clusterWalk])
}

// annealUnit makes one annealing move over the step's clusters (see
// clusters), as MCSAT's annealUnit: a random unit (or an atom that joined
// the walk after the units were made), all its atoms flipped, kept with
// probability min(1, exp(-delta/temp)), delta the change in violated
// selected clauses, the clauses that the flips make violable built as
// each atom moves.
func (c *lazyChain) annealUnit(temp float64) error {
	nu := c.numUnits()
	r := c.rng.IntN(nu + len(c.walk) - c.clusterWalk)
	if r >= nu {
		_, err := c.annealAtom(int(c.walk[c.clusterWalk+r-nu]), temp)
		return err
	}
	atoms := c.unit(r)
	if len(atoms) == 1 {
		_, err := c.annealAtom(int(atoms[0]), temp)
		return err
	}
	for _, v := range atoms {
		if c.fixed[v] == c.stamp {
			return nil // held since the units were made
		}
	}
	u := c.rng.Float64()
	accept := func(d int) bool { return d <= 0 || (temp > 0 && u < math.Exp(-float64(d)/temp)) }
	before := len(c.unsat)
	// The clauses not built can only add to the move's violations, so a
	// move rejected over the clauses built is rejected: tried first
	// without building any (a delta join for every atom made true made
	// unit moves 15-30 times slower on small networks of long clauses).
	for _, v := range atoms {
		c.setX(int(v), !c.x[v])
	}
	d := len(c.unsat) - before
	for _, v := range atoms {
		c.setX(int(v), !c.x[v])
	}
	if !accept(d) {
		return nil
	}
	moved := 0
	for _, v := range atoms {
		// A clause built by an earlier atom's move may hold this one for
		// the step: then the move is given up and undone.
		if c.fixed[v] == c.stamp {
			break
		}
		if err := c.move(int(v), !c.x[v], false); err != nil {
			return err
		}
		moved++
	}
	if moved == len(atoms) && accept(len(c.unsat)-before) {
		return nil
	}
	// Back to the world before the move, where every clause its true atoms
	// can make violable was built: no expansion.
	for i := moved - 1; i >= 0; i-- {
		v := int(atoms[i])
		if c.fixed[v] != c.stamp {
			if err := c.move(v, !c.x[v], true); err != nil {
				return err
			}
		}
	}
	return nil
}

// delta is the change in the number of violated selected clauses if v
// were flipped.
func (c *lazyChain) delta(v int) int {
	d := 0
	for _, o := range c.occ[v] {
		if c.sel[o.c] != c.stamp {
			continue
		}
		n := c.ntrue[o.c]
		g := int32(b2i(o.pos) - b2i(o.neg))
		if c.x[v] {
			g = -g
		}
		switch m := n + g; {
		case n == 0 && m > 0:
			d--
		case n > 0 && m == 0:
			d++
		}
	}
	return d
}

// fixVar picks an atom of violated selected clause k that the step does
// not hold: one whose flip leaves the fewest selected clauses violated
// when greedy (ties at random), else a random one; -1 when there is none.
func (c *lazyChain) fixVar(k int32, greedy bool) int {
	cands := c.cands[:0]
	for _, l := range c.clause(k) {
		if u := l.Var(); c.fixed[u] != c.stamp {
			cands = append(cands, int32(u))
		}
	}
	c.cands = cands
	if len(cands) == 0 {
		return -1
	}
	if !greedy {
		return int(cands[c.rng.IntN(len(cands))])
	}
	v, best, ties := int(cands[0]), math.MaxInt, 0
	for _, u := range cands {
		switch d := c.delta(int(u)); {
		case d < best:
			best, v, ties = d, int(u), 1
		case d == best:
			ties++
			if c.rng.IntN(ties) == 0 {
				v = int(u)
			}
		}
	}
	return v
}

// sweep resamples every block (see Gibbs) from its exact conditional and
// every other active atom from its conditional given the others (see
// chainState.resample); the atoms activated during the sweep are
// resampled too. The ground clauses that a block's or a false atom's
// becoming true would make violable are built first, so the conditionals
// count every ground clause.
func (c *lazyChain) sweep() error {
	c.sweepNo++
	if c.sweepNo == 0 {
		clear(c.swept)
		c.sweepNo = 1
	}
	for v := 0; v < len(c.x); v++ {
		if v&1023 == 1023 {
			if err := c.ctx.Err(); err != nil {
				return err
			}
		}
		if c.swept[v] == c.sweepNo {
			continue
		}
		if r := c.find(int32(v)); c.size[r] > 1 && c.size[r] <= int32(c.opt.MaxBlock) {
			if err := c.sampleBlock(c.members[r]); err != nil {
				return err
			}
			continue
		}
		c.swept[v] = c.sweepNo
		if err := c.resample(v); err != nil {
			return err
		}
	}
	return nil
}

// resample draws atom v from its conditional given the others.
func (c *lazyChain) resample(v int) error {
	at := -1
	if !c.x[v] {
		var err error
		if at, err = c.lookAhead(v); err != nil {
			return err
		}
	}
	var w0, w1 float64
	hard0, hard1 := false, false
	for _, o := range c.occ[v] {
		rest := c.ntrue[o.c]
		if c.x[v] {
			rest -= int32(b2i(o.pos))
		} else {
			rest -= int32(b2i(o.neg))
		}
		sat0, sat1 := rest+int32(b2i(o.neg)) > 0, rest+int32(b2i(o.pos)) > 0
		if c.hard[o.c] {
			hard0, hard1 = hard0 || !sat0, hard1 || !sat1
			continue
		}
		if sat0 {
			w0 += c.weight[o.c]
		}
		if sat1 {
			w1 += c.weight[o.c]
		}
	}
	var p float64
	switch {
	case hard0 && hard1:
		return errors.New("mln: lazy MC-SAT: the hard clauses on an atom cannot both hold")
	case hard0:
		p = 1
	case hard1:
		p = 0
	default:
		p = 1 / (1 + math.Exp(w0-w1))
	}
	c.cond[v] = p
	return c.move(v, c.rng.Float64() < p, at == c.moves)
}

// sampleBlock resamples the atoms vs jointly from their exact conditional
// given the other atoms (every assignment enumerated in Gray-code order).
func (c *lazyChain) sampleBlock(vs []int32) error {
	// Every clause that one of the block's atoms' becoming true makes
	// violable, with all of them true (a superset of what any assignment
	// needs).
	for _, v := range vs {
		c.swept[v] = c.sweepNo
		a := c.e.atoms[v]
		c.e.s.Table(a.Pred).SetValue(a.Row, 1)
	}
	for _, v := range vs {
		if err := c.e.expandFrom(int(v)); err != nil {
			return err
		}
	}
	for _, v := range vs {
		a := c.e.atoms[v]
		c.e.s.Table(a.Pred).SetValue(a.Row, float64(b2i(c.x[v])))
	}
	if err := c.settle(); err != nil {
		return err
	}
	if r := c.find(vs[0]); len(c.members[r]) != len(vs) {
		// The clauses built tied more atoms to the block: again with them,
		// or atom by atom when it has become too large.
		if c.members[r] != nil {
			return c.sampleBlock(c.members[r])
		}
		for _, v := range vs {
			if err := c.resample(int(v)); err != nil {
				return err
			}
		}
		return nil
	}
	c.bstamp++
	if c.bstamp == 0 {
		clear(c.bseen)
		c.bstamp = 1
	}
	for len(c.bseen) < len(c.weight) {
		c.bseen = append(c.bseen, 0)
		c.bidx = append(c.bidx, 0)
	}
	// The block's clauses, each with its true literals outside the block
	// plus its negated literals on the block (true when all are false),
	// and each atom's literals in them.
	c.bclauses, c.bcnt = c.bclauses[:0], c.bcnt[:0]
	for len(c.bocc) < len(vs) {
		c.bocc = append(c.bocc, nil)
	}
	for i, v := range vs {
		c.bocc[i] = c.bocc[i][:0]
		for _, o := range c.occ[v] {
			if c.bseen[o.c] != c.bstamp {
				c.bseen[o.c] = c.bstamp
				c.bidx[o.c] = int32(len(c.bclauses))
				c.bclauses = append(c.bclauses, o.c)
				c.bcnt = append(c.bcnt, c.ntrue[o.c])
			}
			j := c.bidx[o.c]
			if c.x[v] {
				c.bcnt[j] -= int32(b2i(o.pos))
			} else {
				c.bcnt[j] -= int32(b2i(o.neg))
			}
			c.bcnt[j] += int32(b2i(o.neg))
			c.bocc[i] = append(c.bocc[i], blockOcc{clause: j, neg: o.neg})
		}
	}
	states := 1 << len(vs)
	if cap(c.score) < states {
		c.score = make([]float64, states)
	}
	score := c.score[:states]
	pick, ok := drawBlock(score, c.bclauses, c.bcnt, c.hard, c.weight, c.bocc[:len(vs)], vs, c.cond, c.rng)
	if !ok {
		return fmt.Errorf("mln: lazy MC-SAT: no assignment of %d atoms tied by hard clauses satisfies them", len(vs))
	}
	for i, v := range vs {
		if err := c.move(int(v), pick>>i&1 == 1, false); err != nil {
			return err
		}
	}
	return nil
}
