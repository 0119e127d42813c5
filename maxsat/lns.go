package maxsat

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Large neighbourhood search (LNS) for weighted MAX-SAT: the world is
// improved a neighbourhood at a time. Each round frees a few hundred
// variables around a falsified soft clause (a breadth-first walk over the
// clauses they share, in random order), holds every other variable at
// its value in the best world, and solves what is left exactly, by Exact
// with the best world's values as its start and a short time limit: the
// clauses that a held variable already satisfies drop out, the others
// keep their free literals. The answer is never worse than the world it
// started from, and a better one replaces it at once. The size of the
// neighbourhood adapts: it grows while the sub-problems are proven
// optimal quickly and shrinks when one runs out of time (Shaw, "Using
// Constraint Programming and Local Search Methods to Solve Vehicle Routing
// Problems", CP 1998). Exact runs it beside the cores, in a second
// goroutine, as the upper-bound side of the search (exact.go).

// lnsSize and lnsSubLimit are a neighbourhood's first size (at most a
// quarter of the instance's variables) and the time limit of its exact
// solve. Measured on Tuffy's cse (4,681 variables, 161,932 clauses; from
// lp-walksat's world, 30 s): 200 variables reached a better world than
// 400; on an 80-atom max-cut network, 20 (a quarter) gave cost 68 in 1 s
// where the whole network as one neighbourhood gave no round in 1 s.
const (
	lnsSize     = 200
	lnsSubLimit = time.Second
)

// newLNS starts a search from world x (which satisfies the hard clauses);
// ix is the instance's index.
func newLNS(in *Instance, ix *index, x []bool, seed uint64) *lns {
	l := &lns{in: in, ix: ix, x: append([]bool(nil), x...), size: min(lnsSize, max(2, in.NumVars/4)),
		rng: rand.New(rand.NewPCG(seed, 0x6c6e73)), inN: make([]int32, in.NumVars), seen: make([]int32, in.NumClauses())}
	for v := range l.inN {
		l.inN[v] = -1
	}
	return l
}

// round solves one neighbourhood, with deadline (zero: none) as its last
// moment, and reports whether the neighbourhood's clauses cost less in
// the new world (however little: the caller compares the whole world's
// exact cost; a threshold of 1e-9 of the cost missed an improvement of 1
// beside a weight of 10^12). It reports done when no soft clause is
// falsified (the world is optimal) or the deadline has passed, and
// returns ctx's error once ctx is done.
func (l *lns) round(ctx context.Context, deadline time.Time) (improved, done bool, err error) {
	seed := l.falsified()
	lim := lnsSubLimit
	if !deadline.IsZero() {
		lim = min(lim, time.Until(deadline))
	}
	if seed < 0 || lim <= 0 {
		return false, true, nil
	}
	l.gen++
	vars := l.neighbourhood(seed, l.size)
	defer func() {
		for _, v := range vars {
			l.inN[v] = -1
		}
	}()
	sub, subX := l.subInstance(vars)
	r, err := Exact(ctx, sub, ExactOptions{TimeLimit: lim, Start: [][]bool{subX}, NoLNS: true})
	if err != nil {
		return false, false, err
	}
	if r.Optimal {
		l.size = min(l.in.NumVars, l.size+l.size/8+1)
	} else {
		l.size = max(20, l.size*3/4)
	}
	old := sub.FalsifiedWeight(subX)
	if r.X == nil || r.Cost > old {
		return false, false, nil // not reached: the start world is r's first
	}
	// An equal world moves the search sideways.
	for i, v := range vars {
		l.x[v] = r.X[i]
	}
	return r.Cost < old, false, nil
}

// lns is the state of one LNS run.
type lns struct {
	in *Instance
	ix *index
	// x is the current world; size the number of variables the next
	// neighbourhood frees.
	x    []bool
	size int
	rng  *rand.Rand
	// inN[v] is v's index in the current neighbourhood, -1 when held.
	inN []int32
	// seen[c] == gen marks clause c as visited in this round.
	seen []int32
	gen  int32
	fals []int32
}

// falsified picks a falsified soft clause at random (-1: none).
func (l *lns) falsified() int {
	l.fals = l.fals[:0]
	in := l.in
	for c := range in.NumClauses() {
		if !in.Hard[c] && in.Weight[c] > 0 && !l.ix.taut[c] && !in.Satisfied(c, l.x) {
			l.fals = append(l.fals, int32(c))
		}
	}
	if len(l.fals) == 0 {
		return -1
	}
	return int(l.fals[l.rng.IntN(len(l.fals))])
}

// neighbourhood frees up to n variables by a breadth-first walk from
// clause seed's, visiting each variable's clauses in random order.
func (l *lns) neighbourhood(seed, n int) []int32 {
	var vars []int32
	add := func(v int) {
		if l.inN[v] < 0 && len(vars) < n {
			l.inN[v] = int32(len(vars))
			vars = append(vars, int32(v))
		}
	}
	for _, lit := range l.in.Clause(seed) {
		add(lit.Var())
	}
	var occ []int32
	for head := 0; head < len(vars) && len(vars) < n; head++ {
		v := vars[head]
		occ = append(occ[:0], l.ix.occ[l.ix.occStart[v]:l.ix.occStart[v+1]]...)
		l.rng.Shuffle(len(occ), func(i, j int) { occ[i], occ[j] = occ[j], occ[i] })
		for _, e := range occ {
			c := int(e >> 1)
			if l.seen[c] == l.gen {
				continue
			}
			l.seen[c] = l.gen
			for _, lit := range l.in.Clause(c) {
				add(lit.Var())
			}
			if len(vars) >= n {
				break
			}
		}
	}
	return vars
}

// subInstance is the instance over the neighbourhood's variables, the
// others held at their values: the clauses that touch the neighbourhood
// and that no held literal satisfies, with their free literals only. It
// returns it and the neighbourhood's values.
func (l *lns) subInstance(vars []int32) (*Instance, []bool) {
	in := l.in
	sub := &Instance{NumVars: len(vars)}
	l.gen++
	var lits []Lit
	for _, v := range vars {
		for _, e := range l.ix.occ[l.ix.occStart[v]:l.ix.occStart[v+1]] {
			c := int(e >> 1)
			if l.seen[c] == l.gen {
				continue
			}
			l.seen[c] = l.gen
			if !in.Hard[c] && in.Weight[c] == 0 {
				continue
			}
			lits = lits[:0]
			held := false
			for _, lit := range in.Clause(c) {
				u := lit.Var()
				if i := l.inN[u]; i >= 0 {
					if lit.Neg() {
						lits = append(lits, Not(int(i)))
					} else {
						lits = append(lits, Pos(int(i)))
					}
				} else if l.x[u] != lit.Neg() {
					held = true
					break
				}
			}
			if held {
				continue
			}
			// AddClause fails only for a zero literal or a bad weight,
			// which the validated instance has not.
			if err := sub.AddClause(in.Weight[c], in.Hard[c], lits...); err != nil {
				panic(err)
			}
		}
	}
	if len(sub.Start) == 0 {
		sub.Start = []int32{0}
	}
	subX := make([]bool, len(vars))
	for i, v := range vars {
		subX[i] = l.x[v]
	}
	return sub, subX
}

// lnsMinVars is the smallest instance (or component) Exact runs the large
// neighbourhood search on, and lnsDelay how long the cores run alone
// before it starts, so that the many small components the cores solve at
// once cost no search. Small is not always quick: an 80-atom max-cut
// network kept lp-round's world (cost 75) for 15 s of cores, where
// MaxWalkSAT finds 72 in 0.08 s.
var (
	lnsMinVars = 2
	lnsDelay   = 100 * time.Millisecond
)

// testSlowSAT, set by tests, delays each SAT call of the cores, so that
// the neighbourhood search meets the bound first; lnsStops counts the runs
// whose SAT calls the search stopped that way.
var (
	testSlowSAT time.Duration
	lnsStops    atomic.Int64
)

// portfolio is what the cores (the oll) and the large neighbourhood search
// share: the best world either found, with its cost in integer weights and
// a version that grows with each new one, and the cores' lower bound.
type portfolio struct {
	mu   sync.Mutex
	x    []bool
	cost int64
	ver  uint64
	lb   atomic.Int64
	// rounds and improved count the search's neighbourhoods and those
	// that gave a better world than the best.
	rounds, improved atomic.Int64
	// cancel stops the search, stopSAT the SAT calls of the cores; done
	// is closed when the search's goroutine has returned.
	cancel, stopSAT context.CancelFunc
	done            chan struct{}
	stopped         bool
}

// put records world x (copied) of cost as the best when it is better, and
// returns the version of the best world then: seen, when the caller's
// version of it is seen and x is not better (the caller has not yet
// pulled a better world).
func (p *portfolio) put(x []bool, cost int64, seen uint64) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.x != nil && cost >= p.cost {
		return seen
	}
	p.x, p.cost = append(p.x[:0:0], x...), cost
	p.ver++
	return p.ver
}

// newer returns a copy of the best world, its cost and version when its
// version is after seen, else nil.
func (p *portfolio) newer(seen uint64) ([]bool, int64, uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ver <= seen || p.x == nil {
		return nil, 0, seen
	}
	return append([]bool(nil), p.x...), p.cost, p.ver
}

// startLNS starts the large neighbourhood search beside the cores.
func (s *oll) startLNS() {
	lctx, cancel := context.WithCancel(s.ctx)
	satCtx, stopSAT := context.WithCancel(s.ctx)
	s.satCtx = satCtx
	s.pf = &portfolio{cancel: cancel, stopSAT: stopSAT, done: make(chan struct{})}
	s.pf.lb.Store(s.lb)
	if s.found {
		s.pfVer = s.pf.put(s.best, s.ub, s.pfVer)
	}
	go s.searchNeighbourhoods(lctx)
}

// stopLNS stops the large neighbourhood search, waits for it, and takes
// its world when better.
func (s *oll) stopLNS() {
	if s.pf == nil || s.pf.stopped {
		return
	}
	s.pf.cancel()
	<-s.pf.done
	s.pf.stopped = true
	s.pf.stopSAT()
	s.pull()
}

// searchNeighbourhoods is the large neighbourhood search's goroutine: it
// starts from the best world once there is one, takes a better one the
// cores find, offers each improvement, and stops the cores' SAT calls when
// its world meets their lower bound (or the one given) or costs nothing.
func (s *oll) searchNeighbourhoods(ctx context.Context) {
	pf := s.pf
	defer close(pf.done)
	select { // the cores alone first: most small components are solved by then
	case <-ctx.Done():
		return
	case <-time.After(lnsDelay):
	}
	ix, err := buildIndexCtx(ctx, s.in)
	if err != nil {
		return
	}
	var l *lns
	var seen uint64
	// cost and costF are the integer and float costs of the last world
	// shared (taken from pf or put there): pf's best is at most that.
	var cost int64
	var costF float64
	for ctx.Err() == nil && (s.deadline.IsZero() || time.Now().Before(s.deadline)) {
		if x, c, ver := pf.newer(seen); x != nil {
			seen = ver
			if l == nil {
				l, cost, costF = newLNS(s.in, ix, x, s.opt.Seed), c, s.in.FalsifiedWeight(x)
			} else if c < cost {
				copy(l.x, x)
				cost, costF = c, s.in.FalsifiedWeight(x)
			}
		}
		if l == nil {
			select { // no world yet: the cores' first satisfiable call gives one
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		improved, done, err := l.round(ctx, s.deadline)
		if err != nil {
			return
		}
		if !done {
			pf.rounds.Add(1)
		}
		if improved {
			// The exact integer cost decides (the float one only says
			// that the neighbourhood's clauses cost less).
			if c, ok := s.cost(l.x); ok && c < cost {
				cost, costF = c, s.in.FalsifiedWeight(l.x)
				seen = pf.put(l.x, c, seen)
				pf.improved.Add(1)
			}
		}
		// Judged on the shared world, as the cores judge it (search,
		// metOutside), so that they end the run as optimal once their
		// SAT calls stop.
		met := cost <= pf.lb.Load() || s.meetsGiven(costF)
		if met {
			lnsStops.Add(1)
			pf.stopSAT()
		}
		if met || done {
			return
		}
	}
}
