package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/store"
)

// LazyExactOptions configure Network.LazyExactMAP and
// Network.LazyRelaxedMAP.
type LazyExactOptions struct {
	// TimeLimit, when positive, stops the search after that long with the
	// best world found, its cost in the whole network and a certified
	// lower bound.
	TimeLimit time.Duration
	// MemoryLimit is as in LazyOptions.
	MemoryLimit int64
	// Seed seeds the exact solver's large neighbourhood search
	// (maxsat.ExactOptions.Seed).
	Seed uint64
	// Relaxation configures the rounds that solve the LP relaxation
	// (maxsat.Solve, without local search); nil: maxsat.DefaultOptions.
	Relaxation *maxsat.Options
	// Progress, when set, is called after each round with the round, the
	// ground clauses built so far, and the round's world's cost over them
	// and lower bound.
	Progress func(round, clauses int, cost, bound float64)
	// Start, when set, are the true atoms (rows of the network's store,
	// targets) of a world to start from, such as LazyMAP's: every clause
	// it can make cost is built first, and it is a start of the exact
	// rounds and the answer at the time limit unless a round finds better
	// (or the all-false world is cheaper).
	Start []ground.AtomRef
}

// LazyExactResult is the world lazy MAP by cutting planes found and what
// it proved.
type LazyExactResult struct {
	// Atoms are the unknown atoms brought into play (rows of the network's
	// store) and Values their values (0 or 1); every other unknown atom is
	// false.
	Atoms  []ground.AtomRef
	Values []float64
	// Cost is the world's cost in the whole network (as Network.MAP
	// counts it), LowerBound a certified lower bound on the cost of every
	// world of the whole network that satisfies the hard clauses; Optimal
	// says they are proven equal.
	Cost, LowerBound float64
	Optimal          bool
	// Status is "optimal", "time limit", "relaxed" (LazyRelaxedMAP: the
	// rounds ended or stalled, the world's cost and the bound hold for the
	// whole network and the gap between them is the relaxation's), or "rounded":
	// the last exact round was optimal only for the weights rounded to
	// integers (maxsat.ExactResult).
	Status string
	// Rounds is the number of rounds, RelaxedRounds of them solves of the
	// LP relaxation and the others exact solves; ActiveClauses the ground
	// clauses built (HardClauses of them hard), InitialClauses of them
	// before the first round; ActiveAtoms the unknown atoms in them.
	Rounds, RelaxedRounds, ActiveClauses, HardClauses, InitialClauses, ActiveAtoms int
	// CrossProduct is as in LazyResult.
	CrossProduct float64
	// Cores and SATCalls add up the exact solver's over the rounds.
	Cores, SATCalls int
	// Stalled says the relaxed rounds stopped before they ended: three
	// rounds raised the bound by less than 0.1% and found no better world.
	// The world's cost and the bound hold for the whole network still.
	Stalled bool
	// HardViolated is the number of hard ground clauses the world breaks,
	// counted over the clauses built (the others hold in it): 0, as no
	// world that breaks one is answered.
	HardViolated int
	// StartCost is the cost of the world of LazyExactOptions.Start in the
	// whole network (0 without one).
	StartCost float64
	Seconds   struct{ Ground, Solve float64 }
}

// Args returns the arguments of atom i of the result.
func (r *LazyExactResult) Args(s *store.Store, i int) []string {
	a := r.Atoms[i]
	return s.Names(s.Table(a.Pred).Args(a.Row))
}

// LazyExactMAP finds a most probable world of the whole network, proven
// optimal, without grounding it in full: cutting-plane inference (Riedel,
// "Improving the Accuracy and Efficiency of MAP Inference for Markov
// Logic", UAI 2008; RockIt solves its rounds with an ILP solver, hinge
// with maxsat.Exact). The ground clauses start as LazyMAP's (those the
// all-false world can make cost); each round solves them exactly, then
// builds every ground clause that the round's world can make cost and that
// is not built yet: by delta joins from each atom the world made true that
// the previous round's world had false (as LazyMAP builds them after a
// flip). When none of them costs in the world, the world is optimal for
// the whole network: every ground clause not built is satisfied in it (it
// negates a false atom, or for a negative weight has no true literal), so
// its cost is its cost over the built clauses, which no world beats there,
// and every world costs at least as much in the whole network as over the
// built clauses (no ground clause costs less than nothing). The same
// argument makes each round's lower bound a bound for the whole network.
//
// The exact rounds follow LazyRelaxedMAP's, which build most of the
// clauses in seconds, start them from a good world and give them a bound
// (on the generated 10^4-entity knowledge base the first exact round
// started from a world of lazy MaxWalkSAT that cost 171,163; the relaxed
// rounds' world costs 7,232.6 with a bound of 6,912.6).
//
// The network's store changes as in LazyMAP. Hard clauses that cannot all
// hold are an error (InfeasibleError when grounding finds an empty one).
func (net *Network) LazyExactMAP(ctx context.Context, opt LazyExactOptions) (*LazyExactResult, error) {
	return net.cuttingPlanes(ctx, opt, true)
}

// LazyRelaxedMAP finds a world of the whole network and a certified bound
// on the cost of every world by cutting planes over its LP relaxation,
// without grounding it in full: each round solves the relaxation of the
// ground clauses built so far (by ADMM, as Network.MAP's lp-round does)
// and rounds it (derandomised Goemans-Williamson rounding), then builds the
// ground clauses the rounded world can make cost, as LazyExactMAP does,
// until none of them costs in it. The relaxation's bound over a part of
// the ground clauses bounds the whole network (no ground clause costs less
// than nothing), and the world's cost is its cost in the whole network.
// The rounds stop early when they stall (Stalled). The answer is the best
// world seen (LazyExactOptions.Start's and the all-false world's included)
// and proven optimal when its cost meets the bound. Where the relaxation
// is nearly integral that is close: on bench/mlnkb's generated knowledge
// bases, where lazy MaxWalkSAT stalls far above the optimum, the rounds
// end within 2-5% of the bound in four rounds. Where it is far from
// integral the rounded worlds can all cost more than the all-false world
// (an outside tester's Horn knowledge base): give a Start.
func (net *Network) LazyRelaxedMAP(ctx context.Context, opt LazyExactOptions) (*LazyExactResult, error) {
	return net.cuttingPlanes(ctx, opt, false)
}

// cuttingPlanes is LazyRelaxedMAP, and with exact LazyExactMAP: the
// relaxed rounds, then the exact ones.
func (net *Network) cuttingPlanes(ctx context.Context, opt LazyExactOptions, exact bool) (*LazyExactResult, error) {
	start := time.Now()
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = start.Add(opt.TimeLimit)
	}
	sink := &clauseSink{in: &maxsat.Instance{Start: []int32{0}}}
	e, err := net.newLazy(LazyOptions{MemoryLimit: opt.MemoryLimit}, sink)
	if err != nil {
		return nil, err
	}
	res := &LazyExactResult{}
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
	res.InitialClauses = sink.in.NumClauses()
	t0 := time.Now()
	var prev []bool // the last round's world
	var best []bool // the best world of a round, by its cost in the whole network
	bestCost := 0.0
	// The all-false world, where lazy grounding starts: every clause it
	// can make cost is built, so its cost over them is its cost in the
	// whole network. It is the answer at a time limit until a round finds
	// better (an exact round's world, stopped early, cost 3 times as
	// much), and a start of the exact rounds.
	x0 := make([]bool, sink.in.NumVars)
	if _, hv := sink.in.Eval(x0); hv == 0 {
		best, bestCost = x0, networkCost(sink.in, x0)
	}
	if len(opt.Start) > 0 {
		vs := make([]int, len(opt.Start))
		for i, a := range opt.Start {
			vs[i] = e.varOf(a.Pred, a.Row)
		}
		xs := make([]bool, sink.in.NumVars)
		for _, v := range vs {
			xs[v] = true
		}
		if err := e.expandWorld(sink, nil, xs); err != nil {
			return nil, err
		}
		// Every clause xs can make cost is built now (atoms new to play
		// are false in it); the store holds xs, so the next expansion
		// rises from it.
		xs = append(xs, make([]bool, sink.in.NumVars-len(xs))...)
		res.StartCost = networkCost(sink.in, xs)
		if _, hv := sink.in.Eval(xs); hv == 0 && (best == nil || res.StartCost < bestCost) {
			// A copy: prev is overwritten by each round's world, and
			// sharing it made a later, costlier world the answer at a time
			// limit under the start's cost (40.1 reported as 18).
			best, bestCost = slices.Clone(xs), res.StartCost
		}
		prev = xs
	}
	// take builds the ground clauses that world x can make cost and that
	// are not built yet (atoms new to play are false in x), makes x the
	// store's world (prev), and keeps it as the best world if it satisfies
	// the hard clauses built with it and costs less. It returns x over
	// every atom built, its cost in the whole network and the hard clauses
	// it breaks: a round's world satisfied those built before the round,
	// but the atoms it made true can break hard clauses built only now (on
	// the generated 10^4-entity knowledge base an exact round's world of
	// cost 6,611.1, answered at the time limit, broke 426 hard exclusions;
	// the LP relaxation's certified bound of 6,912.6 exposed it).
	take := func(x []bool) ([]bool, float64, int, error) {
		if err := e.expandWorld(sink, prev, x); err != nil {
			return nil, 0, 0, err
		}
		in := sink.in
		x = append(x, make([]bool, in.NumVars-len(x))...)
		prev = append(prev[:0], x...)
		cost := networkCost(in, x)
		_, hv := in.Eval(x)
		if hv == 0 && (best == nil || cost < bestCost) {
			best, bestCost = append(best[:0], x...), cost
		}
		return x, cost, hv, nil
	}
	// repair turns a round's world x that breaks hard clauses built with
	// it into one that holds them (repairHard, then take, a few times
	// over). An exact round stopped by the time limit on the 10^4-entity
	// knowledge base had found a world of 6,930.6 that broke four hard
	// clauses built only after it, and the answer was the relaxed rounds'
	// 7,232.6.
	repair := func(x []bool) error {
		y := slices.Clone(x)
		for range 4 {
			if !repairHard(sink.in, y, 8) {
				return nil
			}
			var hv int
			var err error
			if y, _, hv, err = take(y); err != nil || hv == 0 {
				return err
			}
		}
		return nil
	}
	// expand takes round world x and reports whether one of the clauses
	// built with it costs in it (the rounds go on), repairing it when it
	// breaks hard clauses.
	expand := func(x []bool) (newCost bool, err error) {
		before := sink.in.NumClauses()
		x, cost, hv, err := take(x)
		if err != nil {
			return false, err
		}
		in := sink.in
		if opt.Progress != nil {
			opt.Progress(res.Rounds, in.NumClauses(), cost, res.LowerBound)
		}
		for c := before; c < in.NumClauses(); c++ {
			if costs(in, c, x) {
				newCost = true
				break
			}
		}
		if hv > 0 {
			return newCost, repair(x)
		}
		return newCost, nil
	}
	infeasible := errors.New("mln: the hard clauses cannot all hold with this evidence (proven over the ground clauses built lazily; --hard-weight W makes them soft, as Alchemy and Tuffy treat them)")
	noWorld := func() error {
		return fmt.Errorf("mln: lazy MAP by cutting planes found no world that satisfies the hard clauses within the time limit of %v", opt.TimeLimit)
	}
	// The rounds of the relaxation: its LP solved by ADMM and rounded.
	mo := maxsat.DefaultOptions()
	if opt.Relaxation != nil {
		mo = *opt.Relaxation
	}
	timedOut, settled := false, false
	var bounds []float64 // after each relaxed round
	lastBetter := 0      // the last relaxed round that found a better world
	for !settled {
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			timedOut = true
			break
		}
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if !deadline.IsZero() {
			rctx, cancel = context.WithDeadline(ctx, deadline)
		}
		x, rep, _, err := relaxAndRound(rctx, sink.in, mo, true)
		cancel()
		if err != nil && ctx.Err() == nil && rctx.Err() != nil {
			timedOut = true
			break
		}
		if err != nil {
			return nil, err
		}
		if rep.Infeasible {
			return nil, infeasible
		}
		res.Rounds++
		res.RelaxedRounds++
		// The relaxation's bound over a part of the ground clauses bounds
		// the whole network (no ground clause costs less than nothing).
		// Less the rounding error of the difference (SumError).
		res.LowerBound = max(res.LowerBound, rep.WeightTotal-rep.LPUpperBound-maxsat.NewCostScale(sink.in).SumError())
		had, was := best != nil, bestCost
		newCost, err := expand(x)
		if err != nil {
			return nil, err
		}
		if best != nil && (!had || bestCost < was) {
			lastBetter = res.RelaxedRounds
		}
		bounds = append(bounds, res.LowerBound)
		settled = !newCost
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Stalled: three rounds that raised the bound by less than 0.1%
		// and found no better world. Where the relaxation is far from
		// integral its rounded worlds can cost more than the all-false
		// world round after round (an outside tester's Horn knowledge base
		// of 300 entities: 27 rounds in 110 s, the bound still within 0.1%
		// of its value at round 10).
		if k := len(bounds); !settled && k >= 4 && bounds[k-1]-bounds[k-4] <= 1e-3*math.Abs(bounds[k-1]) && lastBetter <= k-3 {
			res.Stalled = true
			break
		}
	}
	// stop ends the search with the best world under status, or as
	// optimal when its cost meets the bound (every clause the best world
	// can make cost is built, so its cost is its cost in the whole
	// network), at a time limit too.
	stop := func(status string) bool {
		res.Status, res.Cost = status, bestCost
		if maxsat.NewCostScale(sink.in).Proven(bestCost, res.LowerBound) {
			res.Status, res.Optimal, res.LowerBound = "optimal", true, bestCost
		}
		return res.Optimal
	}
	proven := false
	switch {
	case timedOut && best == nil:
		return nil, noWorld()
	case best == nil && !exact:
		// Every clause the last rounded world can make cost is built, and
		// it breaks a hard clause that rounding and repair left.
		return nil, errors.New("mln: the rounded LP relaxation's world breaks hard clauses and no other world found satisfies them; exact MAP (LazyExactMAP, hinge's --method exact) decides whether any does")
	case timedOut:
		stop("time limit")
	case best != nil:
		proven = stop("relaxed")
	}
	for exact && !timedOut && !proven {
		res.Rounds++
		in := sink.in
		pos, aux, err := exactForm(in)
		if err != nil {
			return nil, err
		}
		xo := maxsat.ExactOptions{Seed: opt.Seed, LowerBound: res.LowerBound}
		if !deadline.IsZero() {
			xo.TimeLimit = max(time.Nanosecond, time.Until(deadline))
		}
		// From the best world and the last round's (feasible for the
		// clauses built before it, and near what this round solves).
		for _, from := range [][]bool{best, prev} {
			if from != nil {
				x0 := append(from[:len(from):len(from)], make([]bool, in.NumVars-len(from))...)
				xo.Start = append(xo.Start, extendWorld(in, x0, aux))
			}
		}
		xr, err := maxsat.Exact(ctx, pos, xo)
		if err != nil {
			return nil, err
		}
		res.Cores += xr.Cores
		res.SATCalls += xr.SATCalls
		// A round's bound holds for the whole network, and so does the
		// best of them.
		res.LowerBound = max(res.LowerBound, xr.LowerBound)
		if xr.Infeasible {
			return nil, infeasible
		}
		if xr.X == nil && best != nil {
			stop("time limit")
			break
		}
		if xr.X == nil {
			return nil, noWorld()
		}
		newCost, err := expand(xr.X[:in.NumVars])
		if err != nil {
			return nil, err
		}
		if !newCost && xr.Optimal {
			res.Status, res.Optimal = "optimal", true
			res.Cost, res.LowerBound = bestCost, bestCost
			break
		}
		if !newCost && xr.Status == "rounded" {
			// Every clause it can make cost is built, but the round is
			// optimal only for weights rounded to integers.
			stop("rounded")
			break
		}
		if !xr.Optimal && xr.Status != "rounded" {
			if best == nil {
				return nil, noWorld()
			}
			stop("time limit")
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	prev = best
	res.Atoms = e.atoms
	res.Values = make([]float64, len(e.atoms))
	for v, b := range prev {
		if b {
			res.Values[v] = 1
		}
	}
	res.ActiveClauses, res.HardClauses, res.ActiveAtoms = sink.in.NumClauses(), e.hardBuilt, len(e.atoms)
	_, res.HardViolated = sink.in.Eval(append(prev[:len(prev):len(prev)], make([]bool, sink.in.NumVars-len(prev))...))
	res.Seconds.Solve = time.Since(t0).Seconds()
	return res, nil
}

// costs reports whether clause c of a ground network (signed weights)
// costs in world x: a hard or positive clause violated, a negative one
// satisfied.
func costs(in *maxsat.Instance, c int, x []bool) bool {
	w := in.Weight[c]
	if !in.Hard[c] && w == 0 {
		return false
	}
	return in.Satisfied(c, x) == (!in.Hard[c] && w < 0)
}

// expandWorld puts world x into the store and builds the ground clauses
// that negate an atom x makes true and prev (the world of the last
// expansion; nil: every atom false) had false, and whose other negated
// atoms are true in x (for a clause of negative weight, those with that
// atom positive): every ground clause x can make cost that is not built
// yet (see LazyExactMAP).
func (e *lazyEngine) expandWorld(sink *clauseSink, prev, x []bool) error {
	var rising []int
	for v, b := range x {
		was := v < len(prev) && prev[v]
		a := e.atoms[v]
		if b {
			e.s.Table(a.Pred).SetValue(a.Row, 1)
			if !was {
				rising = append(rising, v)
			}
		} else {
			e.s.Table(a.Pred).SetValue(a.Row, 0)
		}
	}
	copy(sink.x, x)
	for _, v := range rising {
		a := e.atoms[v]
		for _, sd := range e.seeds[a.Pred.Index] {
			if err := e.cls[sd.clause].j.From(int(sd.atom), int32(a.Row), e.emitters[sd.clause]); err != nil {
				e.pending = e.pending[:0]
				return err
			}
		}
	}
	return e.build()
}

// clauseSink collects lazily built atoms and ground clauses into an
// instance with signed weights (as Network.GroundClauses makes), with a
// world over its atoms (lazySink).
type clauseSink struct {
	in *maxsat.Instance
	x  []bool
}

func (s *clauseSink) AddVar(value bool) int {
	s.in.NumVars++
	s.x = append(s.x, value)
	return s.in.NumVars - 1
}

func (s *clauseSink) AddClause(weight float64, hard bool, lits ...maxsat.Lit) error {
	neg := !hard && weight < 0
	if neg {
		weight = -weight
	}
	if err := s.in.AddClause(weight, hard, lits...); err != nil {
		return err
	}
	if neg {
		s.in.Weight[len(s.in.Weight)-1] = -weight
	}
	return nil
}

func (s *clauseSink) NumClauses() int { return s.in.NumClauses() }

func (s *clauseSink) Value(v int) bool { return s.x[v] }
