package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// UnknownAtoms is the number of unknown atoms of the network: over its
// open predicates, the domain products less the atoms in the evidence. A
// network built with Options.Lazy does not hold them (Materialize adds
// them); this is what they would be.
func (net *Network) UnknownAtoms() float64 {
	n := 0.0
	for _, d := range net.prog.Preds {
		p := net.Model.Predicate(d.Name)
		if p == nil || p.Closed {
			continue
		}
		if !net.open[d.Name] { // a closed predicate with soft evidence
			for _, a := range net.soft {
				if a.Pred == d.Name {
					n++
				}
			}
			continue
		}
		size := 1.0
		for _, t := range d.Types {
			size *= float64(len(net.Domains[t]))
		}
		t := net.Store.Table(p)
		for row := range t.Len() {
			if t.Kind(row) == store.Observed {
				size--
			}
		}
		n += size
	}
	return n
}

// Materialize adds every unknown atom to the store of a network built with
// Options.Lazy, in the order Build adds them, so that it becomes the
// network Build makes without Lazy (call it before any LazyMAP). An open
// predicate with more than maxAtoms atoms (0: 50 million) is refused. A
// network built without Lazy is left as it is.
func (net *Network) Materialize(maxAtoms int) error {
	if !net.lazy {
		return nil
	}
	if maxAtoms <= 0 {
		maxAtoms = 50_000_000
	}
	for _, d := range net.prog.Preds {
		p := net.Model.Predicate(d.Name)
		if p == nil || p.Closed || !net.open[d.Name] {
			continue
		}
		size := 1.0
		var sizes []string
		doms := make([][]string, len(d.Types))
		for i, t := range d.Types {
			doms[i] = net.Domains[t]
			size *= float64(len(doms[i]))
			sizes = append(sizes, fmt.Sprintf("%s: %d", t, len(doms[i])))
		}
		if size > float64(maxAtoms) {
			return srcpos.Errorf(d.Pos, "open predicate %s has %.0f atoms (%s), more than the limit of %d", d.Name, size, strings.Join(sizes, ", "), maxAtoms)
		}
		// The domain product in Build's order; the evidence's atoms are in
		// the table already.
		t := net.Store.Table(p)
		args := make([]string, len(d.Types))
		ids := make([]int32, len(d.Types))
		var rec func(i int) error
		rec = func(i int) error {
			if i == len(args) {
				for k, a := range args {
					ids[k], _ = net.Store.Dict.Lookup(a)
				}
				if _, ok := t.Find(ids); ok {
					return nil
				}
				return net.Store.AddTarget(p, args)
			}
			for _, c := range doms[i] {
				args[i] = c
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return err
		}
	}
	if err := net.softTargets(); err != nil {
		return err
	}
	net.lazy = false
	return nil
}

// GroundingEstimate estimates, without grounding, the full grounding of a
// network built without Options.Lazy (or materialized): its ground clauses
// and the memory they take, by the grounder's planner and memory cost
// (ground.Grounder.EstimateRule).
func (net *Network) GroundingEstimate() (clauses, bytes float64, err error) {
	if net.lazy {
		return 0, 0, errors.New("mln: the network was built with Options.Lazy: Materialize it first")
	}
	g, err := ground.NewGrounder(net.Model, net.Store, ground.Options{MemoryLimit: -1})
	if err != nil {
		return 0, 0, err
	}
	for _, r := range net.Model.Rules {
		e, b, err := g.EstimateRule(r)
		if err != nil {
			return 0, 0, err
		}
		clauses += e.Emitted
		bytes += b
	}
	return clauses, bytes, nil
}

// LazyOptions configure lazy MAP inference (Network.LazyMAP).
type LazyOptions struct {
	// Flips is the number of MaxWalkSAT flips (1,000,000 when 0).
	Flips int
	// Noise is MaxWalkSAT's random-walk probability (0.5 when 0).
	Noise float64
	// Seed seeds every random choice.
	Seed uint64
	// NoLookahead turns off LazySAT's look-ahead: by default a greedy move
	// counts, for each false atom it considers making true, the ground
	// clauses not yet built that the flip would violate (a delta join from
	// the atom), as LazySAT computes an inactive atom's cost of flipping
	// from the knowledge base. Without it the walk learns of them only
	// after the flip, when they are built.
	NoLookahead bool
	// Progress, when set, is called now and then (every 65,536 flips) with
	// the flips made and the ground clauses built so far.
	Progress func(flips, clauses int)
	// MemoryLimit, when positive, is the memory in bytes the process may
	// use: lazy inference stops with an error when its active ground
	// clauses would take more. 0 means Go's soft memory limit when one is
	// set (hinge sets it from --memory-limit), negative none.
	MemoryLimit int64
}

// LazyResult is the world lazy MAP inference found and what it built to
// find it.
type LazyResult struct {
	// Atoms are the unknown atoms the search brought into play (rows of
	// the network's store), and Values their values (0 or 1) in the MAP
	// world. Every other unknown atom is false in it.
	Atoms  []ground.AtomRef
	Values []float64
	// Cost is the world's cost as Network.MAP counts it: the weight of the
	// ground clauses it violates (for a negative weight, of those it
	// satisfies), ground clauses decided by the evidence not counted.
	Cost float64
	// HardViolated is the number of hard ground clauses the world violates.
	HardViolated int
	// ActiveClauses is the number of ground clauses built (HardClauses of
	// them hard), ActiveAtoms the number of unknown atoms in them.
	ActiveClauses, HardClauses, ActiveAtoms int
	// InitialClauses of them were built before the walk: those the
	// all-false world can violate.
	InitialClauses int
	// Constant counts the ground clauses found decided by the evidence
	// alone (not built, not counted in the cost).
	Constant int
	// CrossProduct is the number of substitutions of every clause's
	// variables over their types' domains: what grounding by enumeration
	// would visit, against which ActiveClauses is the lazy grounding's size.
	CrossProduct float64
	// Flips counts MaxWalkSAT's flips, BestFlip the one after which the
	// world was current (0: the start, every unknown atom false).
	Flips, BestFlip int
	// Seconds: Ground is the time to build the clauses the evidence alone
	// makes violated (the initial active set), Search the walk with the
	// grounding it does as it goes.
	Seconds struct{ Ground, Search float64 }
}

// Args returns the arguments of atom i of the result.
func (r *LazyResult) Args(s *store.Store, i int) []string {
	a := r.Atoms[i]
	return s.Names(s.Table(a.Pred).Args(a.Row))
}

// LazyMAP finds a most probable world by MaxWalkSAT with lazy grounding
// (LazySAT: Singla and Domingos, "Memory-Efficient Inference in Relational
// Domains", AAAI 2006; Tuffy and MLN4KB ground the same way): every unknown
// atom starts false, and a ground clause is built only once it can be
// violated, that is once every atom it negates is true, by evidence or by
// the search. The ground clauses the evidence alone makes violable are
// found first, by the grounder's joins over the evidence; when the walk
// makes an atom true, the ground clauses that negate it and whose other
// negated atoms are true are found by delta joins from that atom
// (ground.ClauseJoin.From), never by enumerating a clause's groundings.
// A ground clause not built negates a false atom: it is satisfied, and
// stays so until that atom becomes true, when it is built. So the cost of
// every world the walk visits is its cost in the full ground network, and
// the memory taken grows with the clauses built, not with the groundings.
//
// A clause of negative weight w costs |w| while it is satisfied. One that
// negates no atom of an open predicate costs nothing while its positive
// literals are false: its ground clauses are built when one of them
// becomes true (delta joins from the clause's positive atoms). One that
// negates an atom of an open predicate is satisfied, and costs, in nearly
// every grounding of the all-false world, and the walk must see them all:
// it is grounded in full at the start, as Network.MAP grounds it.
//
// The walk starts from the world where every unknown atom is false. There
// is no certified bound: the LP relaxation needs the full ground network.
//
// The network's store changes: unknown atoms are added to it as they come
// into play, and its target atoms hold the values of the last world
// visited. A network built with Options.Lazy has no unknown atoms to start
// with; one built without works too (its unknown atoms all start false).
func (net *Network) LazyMAP(ctx context.Context, opt LazyOptions) (*LazyResult, error) {
	start := time.Now()
	if opt.Flips < 0 {
		return nil, fmt.Errorf("mln: flips %d must be >= 0", opt.Flips)
	}
	if opt.Flips == 0 {
		opt.Flips = 1_000_000
	}
	e, err := net.newLazy(opt, nil)
	if err != nil {
		return nil, err
	}
	res := &LazyResult{}
	for k := range e.cls {
		res.CrossProduct += e.crossProduct(k)
	}
	if err := e.initial(); err != nil {
		return nil, err
	}
	if err := e.propagateHard(); err != nil {
		return nil, err
	}
	res.Seconds.Ground = time.Since(start).Seconds()
	res.InitialClauses = e.w.NumClauses()
	start = time.Now()
	if !opt.NoLookahead {
		e.walker.SetLookahead(e.lookahead)
	}
	var failed error // the callback's own error
	if opt.Progress != nil {
		opt.Progress(0, e.w.NumClauses())
	}
	after := func(v int) error {
		failed = e.flipped(v)
		if n := e.walker.Flips(); opt.Progress != nil && n&0xffff == 0 {
			opt.Progress(n, e.w.NumClauses())
		}
		return failed
	}
	// A greedy descent first (a tenth of the flips at most), so that the
	// walk leaves its all-false start whenever one flip improves it.
	err = e.walker.Descend(ctx, max(1, opt.Flips/10), after)
	if err == nil && failed == nil {
		err = e.walker.Run(ctx, opt.Flips-e.walker.Flips(), after)
	}
	if failed != nil {
		return nil, failed
	}
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x, _, hard, at := e.walker.Best()
	res.Atoms = e.atoms
	res.Values = make([]float64, len(x))
	for v, b := range x {
		if b {
			res.Values[v] = 1
		}
	}
	// Summed directly over the clauses built (every clause not built
	// costs nothing in x), not from the walk's running sum.
	res.Cost = e.walker.SignedCost(x)
	res.HardViolated = hard
	res.ActiveClauses, res.HardClauses, res.ActiveAtoms = e.w.NumClauses(), e.hardBuilt, len(e.atoms)
	res.Constant = e.constant
	res.Flips, res.BestFlip = e.walker.Flips(), at
	res.Seconds.Search = time.Since(start).Seconds()
	return res, nil
}

// lazyClause is one clause of the network for lazy grounding.
type lazyClause struct {
	j      *ground.ClauseJoin
	rule   int     // its rule (net.Model.Rules, net.Clauses)
	weight float64 // signed; 0 for a hard clause
	hard   bool
	seen   tupleSet // substitutions already built (or found constant)
	// full says that it is soft with a negative weight and negates an atom
	// of an open predicate: its ground clauses are all built at the start
	// (groundInFull), since in the all-false world they nearly all cost.
	full bool
	// byHeads says that it is soft with a negative weight and negates no
	// atom of an open predicate: a ground clause costs once one of its
	// positive literals is true, and is built then (none at the start).
	byHeads bool
	// seedAtoms are the atoms from which delta joins start (e.seeds).
	seedAtoms []int32
}

// lazyEngine is the state of one lazy MAP search.
type lazyEngine struct {
	net   *Network
	s     *store.Store
	cls   []lazyClause
	seeds [][]seedRef // by predicate index: where its atoms are negated
	vars  [][]int32   // by predicate index: row -> walker variable, -1 when none
	atoms []ground.AtomRef
	// w receives the atoms and ground clauses built: the MAP search's
	// walker (walker), or lazy MC-SAT's network (lazyNet).
	w      lazySink
	walker *maxsat.LazyWalker

	pending   []int32 // groundings found by a join, to build: clause, vals, rows
	emitters  []func(vals, rows []int32) error
	lits      []maxsat.Lit
	look      *lazyClause // the clause lookahead's join is for
	lookAtom  int32       // the atom it starts from
	lookRow   int32       // the row it starts from
	lookEmit  func(vals, rows []int32) error
	lookHard  int32
	lookSoft  float64
	ids       []int32
	occ       []int32 // fullGrounding's atoms' arguments, atom i from occAt[i]
	occAt     []int
	hardBuilt int
	constant  int
	// hard keeps the hard ground clauses built while keepHard is set
	// (from the start until propagateHard is done).
	hard     []hardGround
	keepHard bool

	limit     int64 // memory limit in bytes, 0 for none
	sinceMem  int   // ground clauses built since the last memory check
	memSample []metrics.Sample
}

// lazySink is what lazy grounding builds into: variables (unknown atoms,
// false when added) and ground clauses over them.
type lazySink interface {
	AddVar(value bool) int
	AddClause(weight float64, hard bool, lits ...maxsat.Lit) error
	NumClauses() int
	Value(v int) bool
}

// seedRef names a binding atom of a clause.
type seedRef struct{ clause, atom int32 }

// newLazy compiles the network's clauses for delta joins and resets the
// store's target atoms to false. The ground clauses are built into sink,
// or, when it is nil, into a MaxWalkSAT walker (e.walker) for LazyMAP.
func (net *Network) newLazy(opt LazyOptions, sink lazySink) (*lazyEngine, error) {
	if err := net.CheckLazy(); err != nil {
		return nil, err
	}
	e := &lazyEngine{net: net, s: net.Store, w: sink,
		seeds:    make([][]seedRef, len(net.Model.Predicates)),
		vars:     make([][]int32, len(net.Model.Predicates)),
		limit:    opt.MemoryLimit,
		keepHard: true, // until propagateHard
	}
	if sink == nil {
		e.walker = maxsat.NewLazyWalker(maxsat.WalkOptions{Noise: opt.Noise, Seed: opt.Seed})
		e.w = e.walker
	}
	if e.limit == 0 {
		e.limit = memlimit.Current()
	}
	e.limit = max(e.limit, 0)
	e.lookEmit = e.lookEmitter
	e.memSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for _, p := range net.Model.Predicates {
		t := net.Store.Table(p)
		for row := range t.Len() {
			if t.Kind(row) == store.Target {
				t.SetValue(row, 0)
			}
		}
	}
	for _, r := range net.Model.Rules {
		if r.Index >= len(net.Clauses) {
			return nil, fmt.Errorf("mln: rule %d has no clause information", r.Index)
		}
		info := net.Clauses[r.Index]
		js, err := ground.ClauseJoins(net.Model, net.Store, r)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			k := int32(len(e.cls))
			c := lazyClause{j: j, rule: r.Index, weight: info.Weight, hard: !r.Weighted}
			if c.hard {
				c.weight = 0
			}
			c.seen.width = j.Query.Vars
			// Which atoms' becoming true may make a ground clause of it cost
			// (see LazyMAP): for a clause of positive weight or a hard one,
			// its negated atoms of open predicates; for one of negative
			// weight, its positive atoms of open predicates, unless it
			// negates one (then it is built in full at the start).
			negative := !c.hard && c.weight < 0
			var negOpen, posOpen []int32
			for i, qa := range j.Query.Atoms {
				switch {
				case qa.Binding && !qa.Neg:
					// A prior (a clause of one positive literal): its atom
					// must be in the store for the joins to see it, and its
					// one ground clause is built at the start.
					if err := e.addPriorAtom(r, qa); err != nil {
						return nil, err
					}
				case qa.Pred.Closed:
				case qa.Neg:
					negOpen = append(negOpen, int32(i))
				default:
					posOpen = append(posOpen, int32(i))
				}
			}
			seeds := negOpen
			switch {
			case negative && len(negOpen) > 0:
				c.full, seeds = true, nil
			case negative && len(j.Query.Atoms) > 1:
				c.byHeads, seeds = true, posOpen
			}
			for _, i := range seeds {
				p := j.Query.Atoms[i].Pred.Index
				e.seeds[p] = append(e.seeds[p], seedRef{k, i})
			}
			c.seedAtoms = seeds
			e.cls = append(e.cls, c)
			e.emitters = append(e.emitters, e.collector(k))
		}
	}
	return e, nil
}

// addPriorAtom puts the atom of a one-literal positive clause into the
// store (as a false unknown) when it is an absent atom of an open
// predicate. Markov logic networks bind every variable by a negated atom,
// so such an atom has constant arguments.
func (e *lazyEngine) addPriorAtom(r *model.Rule, qa ground.QueryAtom) error {
	if qa.Pred.Closed {
		return nil // absent: false evidence
	}
	args := make([]string, len(qa.Args))
	for i, t := range qa.Args {
		if t.Var >= 0 || t.Const < 0 {
			return fmt.Errorf("mln: lazy grounding: clause %q has a variable bound by no negated atom", r.Text)
		}
		args[i] = e.s.Dict.Name(t.Const)
	}
	if _, ok := e.s.Table(qa.Pred).Find(e.argIDs(qa, nil)); ok {
		return nil
	}
	return e.s.AddTarget(qa.Pred, args)
}

// argIDs returns the dictionary ids of atom qa's arguments under the
// substitution vals (in a scratch slice).
func (e *lazyEngine) argIDs(qa ground.QueryAtom, vals []int32) []int32 {
	ids := e.ids[:0]
	for _, t := range qa.Args {
		if t.Var >= 0 {
			ids = append(ids, vals[t.Var])
		} else {
			ids = append(ids, t.Const)
		}
	}
	e.ids = ids
	return ids
}

// collector returns the emitter of clause k's joins: it queues each
// grounding (building it may add atoms to the store, which must not
// change during a join).
func (e *lazyEngine) collector(k int32) func(vals, rows []int32) error {
	return func(vals, rows []int32) error {
		e.pending = append(e.pending, k)
		e.pending = append(e.pending, vals...)
		e.pending = append(e.pending, rows...)
		return nil
	}
}

// initial builds the ground clauses the evidence alone makes violable (and
// every ground clause of the clauses grounded in full).
func (e *lazyEngine) initial() error {
	for k := range e.cls {
		var err error
		if e.cls[k].byHeads {
			continue
		}
		if e.cls[k].full {
			err = e.groundInFull(k)
		} else {
			err = e.cls[k].j.All(e.emitters[k])
		}
		if err != nil {
			return err
		}
		if err := e.build(); err != nil {
			return err
		}
	}
	return nil
}

// flipped follows the walk's flip of variable v: the store gets the atom's
// value, and an atom that became true completes the ground clauses that
// negate it and whose other negated atoms are true, found by delta joins
// and built.
func (e *lazyEngine) flipped(v int) error {
	a := e.atoms[v]
	t := e.s.Table(a.Pred)
	if !e.w.Value(v) {
		t.SetValue(a.Row, 0)
		return nil
	}
	t.SetValue(a.Row, 1)
	for _, sd := range e.seeds[a.Pred.Index] {
		if err := e.cls[sd.clause].j.From(int(sd.atom), int32(a.Row), e.emitters[sd.clause]); err != nil {
			return err
		}
	}
	return e.build()
}

// expandFrom builds the ground clauses that atom v's being true makes
// violable and that are not built yet (as flipped does when v becomes
// true), with v's value in the store as it is before and after.
func (e *lazyEngine) expandFrom(v int) error {
	a := e.atoms[v]
	t := e.s.Table(a.Pred)
	old := t.Value(a.Row)
	t.SetValue(a.Row, 1)
	for _, sd := range e.seeds[a.Pred.Index] {
		if err := e.cls[sd.clause].j.From(int(sd.atom), int32(a.Row), e.emitters[sd.clause]); err != nil {
			t.SetValue(a.Row, old)
			e.pending = e.pending[:0]
			return err
		}
	}
	t.SetValue(a.Row, old)
	return e.build()
}

// lookahead returns what making false atom v true would violate among the
// ground clauses not yet built: those that negate it, whose other negated
// atoms are true and whose other literals are false. A true atom's flip
// violates none that is not built (see LazyMAP).
func (e *lazyEngine) lookahead(v int) (hard int32, soft float64) {
	if e.w.Value(v) {
		return 0, 0
	}
	a := e.atoms[v]
	t := e.s.Table(a.Pred)
	e.lookHard, e.lookSoft = 0, 0
	t.SetValue(a.Row, 1) // as if flipped, for the joins
	for _, sd := range e.seeds[a.Pred.Index] {
		c := &e.cls[sd.clause]
		e.look, e.lookAtom, e.lookRow = c, sd.atom, int32(a.Row)
		if err := c.j.From(int(sd.atom), int32(a.Row), e.lookEmit); err != nil {
			break // cannot happen: the emitter returns nil, the seed is valid
		}
	}
	t.SetValue(a.Row, 0)
	return e.lookHard, e.lookSoft
}

// lookEmitter counts a grounding found by lookahead's joins when it is not
// built and would cost: for a clause of positive weight (or hard) when no
// other positive literal is true; for one of negative weight (the flipped
// atom is a positive literal of it), always, as a ground clause not built
// has no true positive literal.
func (e *lazyEngine) lookEmitter(vals, rows []int32) error {
	c := e.look
	for _, i := range c.seedAtoms {
		if i == e.lookAtom {
			break
		}
		if rows[i] == e.lookRow && c.j.Query.Atoms[i].Pred == c.j.Query.Atoms[e.lookAtom].Pred {
			return nil // found from an earlier atom of the clause already
		}
	}
	if c.seen.contains(vals) {
		return nil
	}
	for i, qa := range c.j.Query.Atoms {
		if r := rows[i]; !c.byHeads && !qa.Neg && r >= 0 && e.s.Table(qa.Pred).Value(int(r)) != 0 {
			return nil // a true positive literal (the flipped atom, or another)
		}
	}
	if c.hard {
		e.lookHard++
	} else {
		e.lookSoft += math.Abs(c.weight) // violated, or for a negative weight satisfied
	}
	return nil
}

// build turns the queued groundings into ground clauses of the walk,
// skipping those built before.
func (e *lazyEngine) build() error {
	q := e.pending
	for len(q) > 0 {
		k := q[0]
		c := &e.cls[k]
		nv, na := c.j.Query.Vars, len(c.j.Query.Atoms)
		vals, rows := q[1:1+nv], q[1+nv:1+nv+na]
		q = q[1+nv+na:]
		if !c.seen.add(vals) {
			continue
		}
		if err := e.buildOne(c, vals, rows); err != nil {
			return err
		}
	}
	e.pending = e.pending[:0]
	return nil
}

// buildOne builds the ground clause of clause c under vals (rows as the
// join found them) and adds it to the walk.
func (e *lazyEngine) buildOne(c *lazyClause, vals, rows []int32) error {
	lits := e.lits[:0]
	for i, qa := range c.j.Query.Atoms {
		t := e.s.Table(qa.Pred)
		row := int(rows[i])
		if row < 0 {
			if qa.Pred.Closed {
				continue // false evidence: a false literal
			}
			ids := e.argIDs(qa, vals)
			for _, id := range ids {
				if id < 0 {
					return fmt.Errorf("mln: lazy grounding: clause %q names a constant the domains lack", e.net.Model.Rules[c.rule].Text)
				}
			}
			var ok bool
			if row, ok = t.Find(ids); !ok { // an atom an earlier grounding of this batch did not add
				if err := e.s.AddTarget(qa.Pred, e.s.Names(ids)); err != nil {
					return err
				}
				row = t.Len() - 1
			}
		}
		if t.Kind(row) == store.Observed {
			x := t.Value(row)
			if qa.Neg {
				x = 1 - x
			}
			switch x {
			case 0:
				continue // a false literal
			case 1:
				return fmt.Errorf("mln: lazy grounding: a join returned a ground clause of %q that the evidence satisfies", e.net.Model.Rules[c.rule].Text)
			}
			return fmt.Errorf("mln: lazy grounding takes evidence of truth 0 or 1; %s has %v", store.AtomString(qa.Pred, e.s.Names(t.Args(row))), t.Value(row))
		}
		v := e.varOf(qa.Pred, row)
		l := maxsat.Pos(v)
		if qa.Neg {
			l = maxsat.Not(v)
		}
		lits = append(lits, l)
	}
	e.lits = lits
	if len(lits) == 0 {
		e.constant++
		if c.hard {
			closed := map[string]string{}
			text := e.net.decided(c.j.Query, c.j.Names, vals, rows, closed)
			return &InfeasibleError{Clauses: []string{text + "   from " + e.net.Model.Rules[c.rule].Text}, Closed: closedList(closed)}
		}
		return nil
	}
	for a, l := range lits {
		for _, m := range lits[a+1:] {
			if m == -l {
				return nil // a tautology: the full grounding drops it too
			}
		}
	}
	if err := e.w.AddClause(c.weight, c.hard, lits...); err != nil {
		return err
	}
	if c.hard {
		e.hardBuilt++
		if e.keepHard {
			e.hard = append(e.hard, hardGround{lits: slices.Clone(lits), rule: c.rule})
		}
	}
	if e.sinceMem++; e.sinceMem >= 1<<16 && e.limit > 0 {
		e.sinceMem = 0
		return e.checkMemory()
	}
	return nil
}

// varOf returns the walker variable of row of p's table (a target),
// adding one (false) for a row seen for the first time.
func (e *lazyEngine) varOf(p *model.Predicate, row int) int {
	vs := e.vars[p.Index]
	for len(vs) <= row {
		vs = append(vs, -1)
	}
	e.vars[p.Index] = vs
	if vs[row] < 0 {
		vs[row] = int32(e.w.AddVar(false))
		e.atoms = append(e.atoms, ground.AtomRef{Pred: p, Row: row})
	}
	return int(vs[row])
}

// checkMemory refuses to go on when the heap is close to the limit.
func (e *lazyEngine) checkMemory() error {
	metrics.Read(e.memSample)
	used := int64(e.memSample[0].Value.Uint64())
	if used < e.limit*8/10 {
		return nil
	}
	runtime.GC()
	metrics.Read(e.memSample)
	if used = int64(e.memSample[0].Value.Uint64()); used < e.limit*8/10 {
		return nil
	}
	return fmt.Errorf("mln: lazy grounding: %d ground clauses over %d atoms take %s, close to the memory limit of %s",
		e.w.NumClauses(), len(e.atoms), memlimit.Format(used), memlimit.Format(e.limit))
}

// varTypes gives the type of each variable of clause k: the argument type
// of an atom it occurs in.
func (e *lazyEngine) varTypes(k int) []string {
	q := e.cls[k].j.Query
	types := make([]string, q.Vars)
	for _, qa := range q.Atoms {
		var decl []string
		if d := e.net.prog.Pred(qa.Pred.Name); d != nil {
			decl = d.Types
		}
		for i, t := range qa.Args {
			if t.Var < 0 || types[t.Var] != "" {
				continue
			}
			if decl != nil {
				types[t.Var] = decl[i]
			} else if len(qa.Pred.Name) > len(domainPred("")) {
				types[t.Var] = qa.Pred.Name[len(domainPred("")):]
			}
		}
	}
	return types
}

// crossProduct is the number of substitutions of clause k's variables
// over their types' domains.
func (e *lazyEngine) crossProduct(k int) float64 {
	n := 1.0
	for _, t := range e.varTypes(k) {
		n *= float64(len(e.net.Domains[t]))
	}
	return n
}

// groundInFull queues every ground clause of clause k that the full
// ground network has (those Network.MAP grounds: not satisfied or decided
// by the evidence, not tautologies). A soft clause of negative weight w
// that negates an atom of an open predicate costs |w| in the all-false
// world for nearly every substitution: the walk must see them all, as the
// full grounding does. Its negated atoms of open predicates are replaced
// by the domains of their variables, that clause is joined over the store,
// and each of its substitutions is checked against the evidence
// (fullGrounding).
func (e *lazyEngine) groundInFull(k int) error {
	c := &e.cls[k]
	q := c.j.Query
	r := e.net.Model.Rules[c.rule]
	clauses, err := model.Clauses(r.Logical)
	if err != nil || len(clauses) != 1 {
		return fmt.Errorf("mln: lazy grounding: rule %q is not one clause", r.Text)
	}
	types := e.varTypes(k)
	var lits []model.Formula
	atom := 0
	for _, l := range clauses[0] {
		var f model.Formula
		switch {
		case l.Atom == nil:
			f = l.Cmp
		case l.Neg && !q.Atoms[atom].Pred.Closed:
			for i, t := range l.Atom.Args {
				if t.Kind != model.Variable {
					continue
				}
				dp := e.net.Model.Predicate(domainPred(types[q.Atoms[atom].Args[i].Var]))
				if dp == nil {
					return fmt.Errorf("mln: lazy grounding: variable %s of %q has no type", t.Name, r.Text)
				}
				lits = append(lits, &model.Not{X: model.NewAtom(dp, model.Var(t.Name))})
			}
		default:
			f = l.Atom
		}
		if l.Atom != nil {
			atom++
		}
		if f == nil {
			continue
		}
		if l.Neg {
			f = &model.Not{X: f}
		}
		lits = append(lits, f)
	}
	js, err := ground.ClauseJoins(e.net.Model, e.s, &model.Rule{Weight: 1, Weighted: true, Logical: &model.Or{Args: lits}, Text: r.Text})
	if err != nil {
		return err
	}
	cj := js[0]
	// The original clause's variables in the replacing clause's numbering.
	from := make([]int, len(c.j.Names))
	for i, name := range c.j.Names {
		if from[i] = slices.Index(cj.Names, name); from[i] < 0 {
			return fmt.Errorf("mln: lazy grounding: variable %s of %q is lost", name, r.Text)
		}
	}
	orig := make([]int32, len(from))
	visit := func(vals, _ []int32) error {
		for i, f := range from {
			orig[i] = vals[f]
		}
		if !e.fullGrounding(c, orig) {
			return nil
		}
		e.pending = append(e.pending, int32(k))
		e.pending = append(e.pending, orig...)
		for _, qa := range q.Atoms {
			row, ok := e.s.Table(qa.Pred).Find(e.argIDs(qa, orig))
			if !ok {
				row = -1
			}
			e.pending = append(e.pending, int32(row))
		}
		return nil
	}
	if len(from) == 0 {
		// A clause without variables has its one grounding whatever the
		// store holds (unless a comparison of its constants holds); the
		// join above, its negated atoms left out, would look for its
		// other atoms, absent until they come into play.
		if cj.Never() {
			return nil
		}
		return visit(nil, nil)
	}
	return cj.All(visit)
}

// fullGrounding reports whether the full ground network has the ground
// clause of c under the substitution vals (which the counting join found:
// its closed negated atoms are true evidence, no comparison holds): none
// of its literals is made true by the evidence, it has an unknown atom,
// and no atom occurs both negated and not.
func (e *lazyEngine) fullGrounding(c *lazyClause, vals []int32) bool {
	q := c.j.Query
	unknown := false
	e.occ, e.occAt = e.occ[:0], e.occAt[:0]
	for i, qa := range q.Atoms {
		ids := e.argIDs(qa, vals)
		t := e.s.Table(qa.Pred)
		row, ok := t.Find(ids)
		switch {
		case ok && t.Kind(row) == store.Observed:
			x := t.Value(row)
			if qa.Neg && x == 0 || !qa.Neg && x == 1 {
				return false // the evidence satisfies it
			}
		case !ok && qa.Pred.Closed:
			if qa.Binding {
				return false // an absent binding atom: no grounding
			}
		default:
			unknown = true // a target, or an absent atom of an open predicate
		}
		e.occAt = append(e.occAt, len(e.occ))
		e.occ = append(e.occ, ids...)
		mine := e.occ[e.occAt[i]:]
		for h, b := range q.Atoms[:i] {
			if b.Pred == qa.Pred && b.Neg != qa.Neg && slices.Equal(e.occ[e.occAt[h]:e.occAt[h]+len(mine)], mine) {
				return false // a tautology
			}
		}
	}
	return unknown
}

// tupleSet is a set of int32 tuples of one width (a clause's
// substitutions), stored flat.
type tupleSet struct {
	width int
	n     int
	data  []int32 // tuple i is data[i*width:(i+1)*width]
	slots []int32 // open addressing: tuple+1, 0 empty
	empty bool    // width 0: the empty tuple was added
}

// contains reports whether t is in the set.
func (s *tupleSet) contains(t []int32) bool {
	if s.width == 0 {
		return s.empty
	}
	if s.n == 0 {
		return false
	}
	m := uint64(len(s.slots) - 1)
	for i := hashInts(t) & m; ; i = (i + 1) & m {
		k := s.slots[i]
		if k == 0 {
			return false
		}
		if slices.Equal(s.data[int(k-1)*s.width:int(k)*s.width], t) {
			return true
		}
	}
}

// add adds t and reports whether it was new.
func (s *tupleSet) add(t []int32) bool {
	if s.width == 0 {
		was := s.empty
		s.empty = true
		return !was
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	m := uint64(len(s.slots) - 1)
	for i := hashInts(t) & m; ; i = (i + 1) & m {
		k := s.slots[i]
		if k == 0 {
			s.slots[i] = int32(s.n + 1)
			s.data = append(s.data, t...)
			s.n++
			return true
		}
		if slices.Equal(s.data[int(k-1)*s.width:int(k)*s.width], t) {
			return false
		}
	}
}

func (s *tupleSet) grow() {
	size := max(16, 2*len(s.slots))
	s.slots = make([]int32, size)
	m := uint64(size - 1)
	for k := range s.n {
		i := hashInts(s.data[k*s.width:(k+1)*s.width]) & m
		for s.slots[i] != 0 {
			i = (i + 1) & m
		}
		s.slots[i] = int32(k + 1)
	}
}

// hashInts hashes a tuple (splitmix64 steps).
func hashInts(t []int32) uint64 {
	h := uint64(len(t)) * 0x9E3779B97F4A7C15
	for _, v := range t {
		h ^= uint64(uint32(v))
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	h ^= h >> 30
	h *= 0x94D049BB133111EB
	return h ^ h>>27
}
