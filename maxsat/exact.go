package maxsat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Exact MAX-SAT: OLL, core-guided, on a CDCL SAT solver with assumptions.
//
// The algorithm is OLL (Andres, Kaufmann, Matheis and Schaub, "Unsatisfiability-
// based optimization in clasp", ICLP 2012; Morgado, Dodaro and Marques-Silva,
// "Core-guided MaxSAT with soft cardinality constraints", CP 2014) in the form
// of RC2 (Ignatiev, Morgado and Marques-Silva, "RC2: an Efficient MaxSAT
// Solver", JSAT 2019): every soft clause gets an assumption literal that is
// true when the clause is satisfied (the clause's own literal for a unit
// clause, a fresh variable r with the hard clause C v !r otherwise); the SAT
// solver is called with the assumptions held true. An unsatisfiable call
// returns a core, a set of assumptions that cannot all hold: every world
// falsifies one of them, so the least residual weight w of the core is added
// to the lower bound and taken from each member, and a totalizer over the
// core's falsified literals gives a new soft literal "at most one of them is
// falsified" of weight w (a soft cardinality constraint, whose bound is raised
// when it is itself in a core). A satisfiable call gives a world and so an
// upper bound; when every assumption is held the world costs the lower bound
// and is optimal.
//
// Stratification (weight-aware): only assumptions of residual weight at
// least a threshold are held, heaviest first, so that the first cores are of
// heavy clauses; the threshold falls through the distinct weights when a call
// is satisfiable. The cores found under one threshold are relaxed together
// when the SAT solver next finds a world (weight-aware core extraction,
// Berg and Järvisalo, CP 2017), and only then does the threshold fall. An
// instance of several connected components is solved one component at a
// time, each with its own SAT solver, and the bounds added up (exactly: the
// integer weights are the whole instance's). Optionally
// (ExactOptions.Minimize, Exhaust) cores are
// trimmed (solved again under their own assumptions until they stop
// shrinking) and, when small, minimised by removing one assumption at a
// time, and a new cardinality constraint is exhausted (its bound raised
// while the SAT solver proves that more of its inputs must be falsified).
// A soft literal whose residual weight exceeds the gap between
// the bounds is hardened: no world that falsifies it can beat the best one.
//
// Beside the cores, in a second goroutine, a large neighbourhood search
// (lns.go) improves the best world: the two share it, each takes the
// other's when better, and a world of the search that meets the cores'
// lower bound ends the run as proven optimal.
//
// Weights are real numbers (float64); the algorithm needs integers. When
// every soft weight is a decimal with at most nine digits after the point
// and their exact total times 10^d is below 2^60, they are scaled by 10^d
// and the arithmetic is exact: the bounds are integers over 10^d, and
// "optimal" means the two integer bounds met. The decimals are the weights
// as written (Instance.Written, or each float64's shortest decimal), read
// digit by digit (decimal.go), never the float64s: 100000000.123456789 and
// 100000000.123456788 are one float64, and its tolerance took them for
// multiples of 10^-4.
// Otherwise they are scaled by a power of two and rounded (a positive
// weight to at least 1, so that no clause becomes free), and the rounding
// error E (the sum over clauses of |rounded - exact|) is taken from the lower
// bound, which stays certified; such a run proves optimality only within 2E
// (ExactResult.WeightError says E), and its Status is "rounded" unless the
// certified bound meets the world's cost.

// ExactOptions configure Exact.
type ExactOptions struct {
	// TimeLimit, when positive, stops the search after that long with the
	// best world found, the lower bound and the gap (ExactResult.Status
	// "time limit").
	TimeLimit time.Duration
	// Start are worlds whose costs give the first upper bound (a rounded
	// or local-search world); those that violate hard clauses, or are not
	// of the instance's length, are ignored.
	Start [][]bool
	// LowerBound is a lower bound on the cost known from elsewhere (the
	// LP relaxation's certified bound): ExactResult.LowerBound is the
	// better of it and the cores', and the run stops as soon as the best
	// world meets it.
	LowerBound float64
	// Progress, when set, is called each time the upper or lower bound
	// improves.
	Progress func(ExactProgress)
	// NoStratify holds every assumption from the first call (for
	// measuring what stratification brings).
	NoStratify bool
	// NoDelay relaxes each core as soon as it is found. By default the
	// cores found under one threshold are relaxed together when the SAT
	// solver next finds a world (weight-aware core extraction: Berg and
	// Järvisalo, "Weight-Aware Core Extraction in SAT-Based MaxSAT
	// Solving", CP 2017), so that the search for them is not slowed by the
	// cardinality constraints of the others.
	NoDelay bool
	// Exhaust and Minimize turn on core exhaustion and core trimming and
	// minimisation. Both are off by default, as in RC2: each costs SAT
	// calls, which on large ground networks cost as much as finding a core
	// (Tuffy cse: lower bound 16,802 after 40 s without them, 15,030 with
	// both; a 60-person transitivity model: proven optimal in 15.6 s
	// without, not within 120 s with), and on small weighted CSPs they
	// change little (SPOT5 414: 0.43 s against 0.46 s).
	Exhaust, Minimize bool
	// NoLNS turns off the large neighbourhood search (lns.go) that
	// improves the best world in a second goroutine while the cores raise
	// the lower bound (once the cores have run alone for lnsDelay). On
	// Tuffy's cse, 300 s from lp-round's world: cost 17,448.8 with it,
	// 17,562.5 without (the bound the same, 16,854-16,856), at twice the
	// CPU (it uses the second core). Seed seeds its choice of
	// neighbourhoods; the worlds it finds depend on the time each
	// neighbourhood's solve takes, so a run stopped by the time limit may
	// give another world on another run (a proven optimum's cost does not
	// change).
	NoLNS bool
	Seed  uint64
}

// ExactProgress is the state of an Exact run when a bound improves.
type ExactProgress struct {
	// Cost is the best world's cost (the weight of the soft clauses it
	// falsifies), meaningful when Found; LowerBound a certified lower bound
	// on the cost of any world that satisfies the hard clauses.
	Cost, LowerBound float64
	Found            bool
	Cores, SATCalls  int
	Seconds          float64
}

// ExactResult is what Exact found and proved.
type ExactResult struct {
	// X is the best world found (nil when none satisfies the hard clauses:
	// they are unsatisfiable, or the time ran out first).
	X []bool
	// Cost is X's cost, the weight of the soft clauses it falsifies (summed
	// directly from the instance's weights); LowerBound is a certified
	// lower bound on the cost of every world that satisfies the hard
	// clauses. Optimal says the two are proven equal (within the rounding
	// of float64 sums).
	Cost, LowerBound float64
	// Status is "optimal", "infeasible" (the hard clauses are proven
	// unsatisfiable), "time limit", or "rounded": the search finished on
	// weights rounded to integers (WeightError E > 0) and X is optimal for
	// those, within 2E of the optimum, but the certified bound does not
	// meet its cost (a weight of 2 beside one of 1.9e18 rounds to 0).
	Status     string
	Optimal    bool
	Infeasible bool
	// Scale is the factor by which the weights were turned into integers;
	// WeightError the rounding error E taken from the lower bound (0 when
	// the weights are decimals and the arithmetic exact).
	Scale, WeightError float64
	// Cores is the number of unsatisfiable cores found, SATCalls the SAT
	// solver's calls; Hardened the soft literals hardened by the bounds.
	Cores, SATCalls, Hardened int
	// Neighbourhoods is the number of neighbourhoods the large
	// neighbourhood search solved, Improvements those that gave a better
	// world than the best so far.
	Neighbourhoods, Improvements int
	Seconds                      float64
}

// Gap returns (Cost - LowerBound) / Cost, the fraction of X's cost that is
// not proven necessary (0 when optimal; 1 when nothing was found).
func (r *ExactResult) Gap() float64 {
	if r.X == nil {
		return 1
	}
	if r.Cost <= 0 || r.Optimal {
		return 0
	}
	return max(0, (r.Cost-r.LowerBound)/r.Cost)
}

// Exact solves the instance to optimality, or until opt.TimeLimit, by OLL on
// a CDCL SAT solver (see the comment at the top of exact.go). It returns an
// error for an invalid instance and, with no result, when ctx is done
// (within about a tenth of a second); the time limit is not an error.
func Exact(ctx context.Context, in *Instance, opt ExactOptions) (*ExactResult, error) {
	if err := in.validate(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	whole := &oll{in: in, cs: NewCostScale(in), inexact: in.RoundedWeights() > 0}
	whole.scaleWeights()
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = start.Add(opt.TimeLimit)
	}
	comps := components(in)
	var res *ExactResult
	var err error
	if len(comps) <= 1 {
		s := &oll{in: in, opt: opt, start: start, sat: newSATSolver(), ctx: ctx, satCtx: ctx, deadline: deadline,
			w: whole.w, scale: whole.scale, werr: whole.werr, inexact: whole.inexact}
		res, err = s.run()
	} else {
		res, err = exactComponents(ctx, in, whole, comps, opt, start, deadline)
	}
	if err != nil {
		return nil, err
	}
	if res.X == nil && !res.Infeasible && in.NumHard() == 0 {
		// Stopped before any world: with no hard clause every assignment
		// is one (a 1 ns limit answered "no assignment satisfies the hard
		// clauses" for a file that has none).
		res.X = make([]bool, in.NumVars)
		res.Cost = in.FalsifiedWeight(res.X)
	}
	if res.Optimal && whole.werr > 0 && !(whole.inexact && in.CostText(res.X) == "0") &&
		(whole.inexact || !whole.cs.Proven(res.Cost, res.LowerBound)) {
		// Optimal for the rounded weights only: within 2E of the optimum.
		// With weights that a float64 does not hold as written, the
		// float64 costs prove nothing either (but a cost of 0 is
		// optimal whatever the weights).
		res.Status, res.Optimal = "rounded", false
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// component is a set of variables that share no clause with the others,
// and the clauses over them.
type component struct {
	vars, clauses []int
}

// components splits the instance into connected components (variables
// linked by sharing a clause), smallest first; clauses with no literal
// are in none.
func components(in *Instance) []component {
	parent := make([]int, in.NumVars)
	for v := range parent {
		parent[v] = v
	}
	find := func(v int) int {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		for _, l := range lits[min(1, len(lits)):] {
			if a, b := find(lits[0].Var()), find(l.Var()); a != b {
				parent[a] = b
			}
		}
	}
	index := make(map[int]int)
	var comps []component
	of := func(v int) *component {
		r := find(v)
		k, ok := index[r]
		if !ok {
			k = len(comps)
			index[r] = k
			comps = append(comps, component{})
		}
		return &comps[k]
	}
	for c := range in.NumClauses() {
		if lits := in.Clause(c); len(lits) > 0 {
			k := of(lits[0].Var())
			k.clauses = append(k.clauses, c)
		}
	}
	for v := range in.NumVars {
		if k, ok := index[find(v)]; ok {
			comps[k].vars = append(comps[k].vars, v)
		}
	}
	slices.SortStableFunc(comps, func(a, b component) int { return len(a.clauses) - len(b.clauses) })
	return comps
}

// exactComponents solves each connected component on its own (smallest
// first, each with its own SAT solver, under the one deadline) and adds up
// their bounds: the integer weights are the whole instance's (whole), so
// the sums are exact. A component stopped by the time limit gives its
// bound and its best world so far (from the start worlds or its SAT
// calls); the result has a world when every component has one.
func exactComponents(ctx context.Context, in *Instance, whole *oll, comps []component, opt ExactOptions, start, deadline time.Time) (*ExactResult, error) {
	var lb, ub int64
	for c := range in.NumClauses() {
		if in.Start[c] == in.Start[c+1] {
			if in.Hard[c] {
				return &ExactResult{Status: "infeasible", Infeasible: true, Scale: whole.scale, WeightError: whole.werr}, nil
			}
			lb += whole.w[c] // falsified in every world
			ub += whole.w[c]
		}
	}
	x := make([]bool, in.NumVars)
	found, optimal := true, true
	res := &ExactResult{Scale: whole.scale, WeightError: whole.werr}
	newID := make([]int32, in.NumVars)
	for _, k := range comps {
		sub := &Instance{NumVars: len(k.vars), Start: make([]int32, 1, len(k.clauses)+1)}
		for i, v := range k.vars {
			newID[v] = int32(i)
		}
		w := make([]int64, 0, len(k.clauses))
		for _, c := range k.clauses {
			for _, l := range in.Clause(c) {
				m := Lit(newID[l.Var()] + 1)
				if l.Neg() {
					m = -m
				}
				sub.Lits = append(sub.Lits, m)
			}
			sub.Start = append(sub.Start, int32(len(sub.Lits)))
			sub.Weight = append(sub.Weight, in.Weight[c])
			sub.Hard = append(sub.Hard, in.Hard[c])
			w = append(w, whole.w[c])
		}
		so := opt
		so.LowerBound, so.Start = 0, nil
		for _, x0 := range opt.Start {
			if len(x0) == in.NumVars {
				y := make([]bool, len(k.vars))
				for i, v := range k.vars {
					y[i] = x0[v]
				}
				so.Start = append(so.Start, y)
			}
		}
		if opt.Progress != nil {
			done, cores := float64(lb)/whole.scale, res.Cores
			so.Progress = func(p ExactProgress) {
				opt.Progress(ExactProgress{LowerBound: max(0, done+p.LowerBound-whole.werr), Cores: cores + p.Cores,
					SATCalls: p.SATCalls, Seconds: time.Since(start).Seconds()})
			}
		}
		s := &oll{in: sub, opt: so, start: start, sat: newSATSolver(), ctx: ctx, satCtx: ctx, deadline: deadline,
			w: w, scale: whole.scale, inexact: whole.inexact}
		r, err := s.run()
		if err != nil {
			return nil, err
		}
		res.Cores += r.Cores
		res.SATCalls += r.SATCalls
		res.Hardened += r.Hardened
		res.Neighbourhoods += r.Neighbourhoods
		res.Improvements += r.Improvements
		if r.Infeasible {
			return &ExactResult{Status: "infeasible", Infeasible: true, Scale: whole.scale, WeightError: whole.werr,
				Cores: res.Cores, SATCalls: res.SATCalls}, nil
		}
		lb += s.lb
		optimal = optimal && r.Optimal
		if s.found {
			ub += s.ub
			for i, v := range k.vars {
				x[v] = s.best[i]
			}
		} else {
			found = false
		}
	}
	res.Status = "time limit"
	res.LowerBound = max(0, float64(lb)/whole.scale-whole.werr, opt.LowerBound)
	if found {
		res.X = x
		res.Cost = in.FalsifiedWeight(x)
		if optimal || !whole.inexact && whole.cs.Proven(res.Cost, opt.LowerBound) {
			res.Status, res.Optimal = "optimal", true
			if whole.werr == 0 || res.LowerBound > res.Cost {
				res.LowerBound = res.Cost
			}
		}
	}
	return res, nil
}

// scaleWeights sets s.w, the soft weights as integers, s.scale and s.werr
// (see the comment at the top of exact.go).
func (s *oll) scaleWeights() {
	in := s.in
	total := 0.0
	for c, w := range in.Weight {
		if !in.Hard[c] {
			total += w
		}
	}
	if w, scale, ok := in.decimalScale(); ok {
		s.w, s.scale = w, scale
		return
	}
	// Not decimals: a power of two that keeps the integer total below
	// 2^50, and the rounding error taken from the lower bound.
	s.scale = math.Exp2(math.Floor(math.Log2(float64(1<<50) / max(1, total))))
	s.w = make([]int64, in.NumClauses())
	k := 0
	var t string
	for c, w := range in.Weight {
		if in.Hard[c] {
			continue
		}
		r := math.Round(w * s.scale)
		if r == 0 && w > 0 {
			// A weight rounded to 0 would leave its clause free to be
			// falsified: 1 keeps the search caring about it (a weight of 2
			// beside 1.9e18 rounded to 0 and the search falsified it where
			// nothing had to); the error counts as any other.
			r = 1
		}
		s.w[c] = int64(r)
		s.werr += math.Abs(r/s.scale - w)
		if t, k = in.written(c, k); t != "" || w != math.Trunc(w) {
			// The weight as written (a decimal, of more digits than w
			// holds when it is in Written) is within half a unit in the
			// last place of w.
			s.werr += math.Nextafter(w, math.Inf(1)) - w
		}
	}
	s.werr *= 1 + 1e-9 // the sum's own rounding
}

// oll is the state of one Exact run.
type oll struct {
	in  *Instance
	opt ExactOptions
	ctx context.Context
	// satCtx is ctx for the SAT calls, cancelled as well when the large
	// neighbourhood search finds a world that meets the lower bound.
	satCtx context.Context
	// pf is shared with the large neighbourhood search (nil: none);
	// pfVer the version of its world last seen.
	pf    *portfolio
	pfVer uint64
	start time.Time
	// deadline is when the time limit ends (zero: none).
	deadline time.Time
	sat      satSolver
	nv       int // variables of the SAT solver

	w     []int64 // soft weights as integers (0 for hard clauses)
	scale float64
	werr  float64
	total float64   // the soft weight (in.SoftWeight), summed once
	cs    CostScale // how in's costs compare, computed once
	// inexact says that some weights as written are not held by their
	// float64 (Instance.RoundedWeights): the float64 costs and the bound
	// given in the options (an LP's, on the float64 weights) prove
	// nothing; only the integer bounds on the decimals as written do.
	inexact bool

	softs []soft
	at    map[Lit]int32 // assumption literal -> index in softs

	lb, ub   int64 // the bounds, integers (over scale)
	best     []bool
	bestCost float64 // best's cost from the instance's weights
	found    bool

	cores, calls, hardened int
	lastLB, lastUB         int64 // the bounds last reported to Progress
	core                   []Lit
	pending                []pendingCore // cores reduced, not yet relaxed
}

// soft is an assumption literal with its residual weight; for the output
// of a totalizer t, lit is !t.out[k-1] ("fewer than k of t's inputs are
// true").
type soft struct {
	lit Lit
	w   int64
	tot *totalizer
	k   int
}

func (s *oll) newVar() int {
	s.nv++
	return s.nv - 1
}

// run builds the SAT problem and runs OLL.
func (s *oll) run() (*ExactResult, error) {
	in := s.in
	s.total = in.SoftWeight()
	s.cs = NewCostScale(in)
	s.nv = in.NumVars
	s.at = make(map[Lit]int32)
	// Hard clauses as they are; soft clauses merged by their literals (the
	// weights of identical clauses add up), unit ones by their literal.
	unit := make(map[Lit]int64)
	var unitOrder []Lit
	multi := make(map[string]int32) // sorted literals -> index in multiW
	var multiW []int64
	var multiC []int32 // a clause of each merged group
	var key []byte
	var ls []Lit
	mark := make([]int32, in.NumVars) // tautology test: clause+1, signed
	for c := range in.NumClauses() {
		if err := s.ctx.Err(); err != nil && c&0xfff == 0 {
			return nil, err
		}
		lits := in.Clause(c)
		taut := false
		for _, l := range lits {
			m := int32(c + 1)
			if l.Neg() {
				m = -m
			}
			if mark[l.Var()] == -m {
				taut = true
			}
			mark[l.Var()] = m
		}
		switch {
		case taut:
		case in.Hard[c]:
			s.sat.addClause(lits...)
		case s.w[c] == 0:
		case len(lits) == 0:
			s.lb += s.w[c] // falsified in every world
		case len(lits) == 1:
			if _, ok := unit[lits[0]]; !ok {
				unitOrder = append(unitOrder, lits[0])
			}
			unit[lits[0]] += s.w[c]
		default:
			ls = append(ls[:0], lits...)
			slices.Sort(ls)
			key = key[:0]
			for _, l := range ls {
				key = fmt.Appendf(key, "%d ", l)
			}
			g, ok := multi[string(key)]
			if !ok {
				g = int32(len(multiW))
				multi[string(key)] = g
				multiW = append(multiW, 0)
				multiC = append(multiC, int32(c))
			}
			multiW[g] += s.w[c]
		}
	}
	// Opposite unit clauses l (weight P) and !l (weight N): one of them is
	// falsified in every world, so min(P, N) goes to the lower bound and
	// the difference stays on the heavier one.
	for _, l := range unitOrder {
		p, n := unit[l], unit[-l]
		if p == 0 {
			continue // merged into its opposite already
		}
		if n > 0 {
			m := min(p, n)
			s.lb += m
			p, n = p-m, n-m
			unit[-l] = n
		}
		unit[l] = p
		if p > 0 {
			s.addSoft(l, p, nil, 0)
		}
	}
	for g, w := range multiW {
		r := s.newVar()
		lits := append(ls[:0], in.Clause(int(multiC[g]))...)
		s.sat.addClause(append(lits, Not(r))...)
		s.addSoft(Pos(r), w, nil, 0)
	}
	s.ub = math.MaxInt64
	for _, x := range s.opt.Start {
		if len(x) == in.NumVars {
			s.offer(x)
		}
	}
	if !s.opt.NoLNS && in.NumVars >= lnsMinVars {
		s.startLNS()
		defer s.stopLNS()
	}
	s.report()
	return s.search()
}

// addSoft adds an assumption literal of weight w, or adds w to its weight
// when it is one already (a bound of a totalizer raised by a second core).
func (s *oll) addSoft(l Lit, w int64, t *totalizer, k int) {
	if i, ok := s.at[l]; ok {
		s.softs[i].w += w
		return
	}
	s.at[l] = int32(len(s.softs))
	s.softs = append(s.softs, soft{lit: l, w: w, tot: t, k: k})
}

// offer takes world x as the best when it satisfies the hard clauses and
// costs less than the best so far.
func (s *oll) offer(x []bool) {
	cost, ok := s.cost(x)
	if ok && (cost < s.ub || !s.found) {
		s.ub, s.found = cost, true
		s.best = append(s.best[:0], x...)
		s.bestCost = s.in.FalsifiedWeight(x)
		if s.pf != nil {
			s.pfVer = s.pf.put(x, cost, s.pfVer)
		}
	}
}

// cost is world x's cost in integer weights, and whether x satisfies the
// hard clauses. The large neighbourhood search calls it too: it reads
// only what run does not change.
func (s *oll) cost(x []bool) (int64, bool) {
	in := s.in
	var cost int64
	for c := range in.NumClauses() {
		if in.Satisfied(c, x) {
			continue
		}
		if in.Hard[c] {
			return 0, false
		}
		cost += s.w[c]
	}
	return cost, true
}

// pull takes the large neighbourhood search's world when it is better.
func (s *oll) pull() {
	if s.pf == nil {
		return
	}
	x, cost, ver := s.pf.newer(s.pfVer)
	if x == nil {
		return
	}
	s.pfVer = ver
	if cost < s.ub || !s.found {
		s.ub, s.found = cost, true
		s.best = x
		s.bestCost = s.in.FalsifiedWeight(x)
	}
}

// report calls Progress when a bound moved.
func (s *oll) report() {
	if s.pf != nil {
		s.pf.lb.Store(s.lb)
	}
	if s.opt.Progress == nil || (s.lb == s.lastLB && s.ub == s.lastUB) {
		return
	}
	s.lastLB, s.lastUB = s.lb, s.ub
	p := ExactProgress{LowerBound: s.lowerBound(), Found: s.found, Cores: s.cores, SATCalls: s.calls,
		Seconds: time.Since(s.start).Seconds()}
	if s.found {
		p.Cost = s.bestCost
	}
	s.opt.Progress(p)
}

func (s *oll) lowerBound() float64 { return max(0, float64(s.lb)/s.scale-s.werr, s.opt.LowerBound) }

// metOutside reports whether the best world meets the lower bound given
// in the options.
func (s *oll) metOutside() bool { return s.found && s.meetsGiven(s.bestCost) }

// meetsGiven reports whether a world of that cost meets the lower bound
// given in the options (CostScale.Proven), never when the weights are not
// held exactly. The neighbourhood search judges
// its shared world by it too.
func (s *oll) meetsGiven(cost float64) bool {
	return s.opt.LowerBound > 0 && !s.inexact && s.cs.Proven(cost, s.opt.LowerBound)
}

// solve calls the SAT solver under the assumptions. A call stopped
// because the large neighbourhood search met the lower bound returns
// satUnknown, as at the deadline; result then finds the bounds equal.
func (s *oll) solve(assume []Lit) (satResult, error) {
	s.calls++
	if testSlowSAT > 0 { // tests: let the neighbourhood search go first
		select {
		case <-s.satCtx.Done():
		case <-time.After(testSlowSAT):
		}
	}
	r, err := s.sat.solve(s.satCtx, s.deadline, assume)
	if err != nil && s.ctx.Err() == nil {
		return satUnknown, nil
	}
	return r, err
}

// model is the SAT solver's world over the instance's variables.
func (s *oll) model() []bool {
	x := make([]bool, s.in.NumVars)
	for v := range x {
		x[v] = s.sat.value(v)
	}
	return x
}

// result packages the state as an ExactResult.
func (s *oll) result(status string) *ExactResult {
	if status == "time limit" {
		s.stopLNS()
		if s.found && (s.lb >= s.ub || s.metOutside()) {
			status = "optimal" // the search's world met the lower bound
		}
	}
	r := &ExactResult{Status: status, Scale: s.scale, WeightError: s.werr,
		Cores: s.cores, SATCalls: s.calls, Hardened: s.hardened, LowerBound: s.lowerBound()}
	if s.pf != nil {
		r.Neighbourhoods, r.Improvements = int(s.pf.rounds.Load()), int(s.pf.improved.Load())
	}
	switch status {
	case "optimal":
		r.Optimal = true
	case "infeasible":
		r.Infeasible = true
	}
	if s.found {
		r.X = s.best
		if r.X == nil {
			r.X = []bool{} // found, over no variables
		}
		r.Cost = s.bestCost
		if r.Optimal && (s.werr == 0 || r.LowerBound > r.Cost) {
			r.LowerBound = r.Cost // the bounds met: the same number
		}
	}
	return r
}

// search is OLL's main loop.
func (s *oll) search() (*ExactResult, error) {
	threshold := int64(1)
	if !s.opt.NoStratify {
		threshold = s.nextThreshold(math.MaxInt64)
	}
	var assume []Lit
	for {
		s.pull()
		s.report()
		if s.found && s.lb >= s.ub || s.metOutside() {
			return s.result("optimal"), nil
		}
		s.harden()
		assume = assume[:0]
		all := true
		for i := range s.softs {
			if sf := &s.softs[i]; sf.w > 0 {
				if sf.w >= threshold {
					assume = append(assume, sf.lit)
				} else {
					all = false
				}
			}
		}
		r, err := s.solve(assume)
		if err != nil {
			return nil, err
		}
		switch r {
		case satUnknown:
			return s.result("time limit"), nil
		case satTrue:
			s.offer(s.model())
			if len(s.pending) > 0 {
				// The cores found at this threshold are relaxed now, and
				// the threshold stays: their cardinality constraints are
				// new soft literals.
				for _, pc := range s.pending {
					if err := s.relax(pc.idx, pc.wmin); err != nil {
						return nil, err
					}
				}
				s.pending = s.pending[:0]
				s.report()
				continue
			}
			if all {
				// Every soft literal holds: the world costs the lower bound.
				if !s.found || s.ub != s.lb {
					return nil, fmt.Errorf("maxsat: internal error: the exact solver's final world costs %d/%g, its lower bound is %d/%g", s.ub, s.scale, s.lb, s.scale)
				}
				s.report()
				return s.result("optimal"), nil
			}
			s.report()
			threshold = s.nextThreshold(threshold)
		case satFalse:
			core := s.sat.failed(s.core[:0])
			if len(core) == 0 {
				if s.found {
					return nil, errors.New("maxsat: internal error: the hard clauses became unsatisfiable with a world that satisfies them")
				}
				return s.result("infeasible"), nil
			}
			core, err = s.shrink(core)
			if err != nil {
				return nil, err
			}
			if core == nil {
				return s.result("time limit"), nil
			}
			s.core = core
			idx, wmin, err := s.reduce(core)
			if err != nil {
				return nil, err
			}
			if s.opt.NoDelay {
				if err := s.relax(idx, wmin); err != nil {
					return nil, err
				}
			} else {
				s.pending = append(s.pending, pendingCore{idx, wmin})
			}
			s.report()
		}
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		if !s.deadline.IsZero() && time.Now().After(s.deadline) {
			return s.result("time limit"), nil
		}
	}
}

// nextThreshold returns the stratification threshold after t: the largest
// residual weight below t, lowered further while that brings in few
// assumptions (fewer than a tenth of those held), so that a long tail of
// distinct weights is taken in a few steps. It returns 1 (hold every
// assumption) when none is below t.
func (s *oll) nextThreshold(t int64) int64 {
	var ws []int64
	held := 0
	for i := range s.softs {
		w := s.softs[i].w
		switch {
		case w <= 0:
		case w >= t:
			held++
		default:
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return 1
	}
	slices.Sort(ws)
	slices.Reverse(ws)
	next := ws[0]
	i := 0
	for {
		for i < len(ws) && ws[i] >= next {
			i++
		}
		if i == len(ws) {
			return 1
		}
		if i-0 >= max(1, held/10) {
			return next
		}
		next = ws[i]
	}
}

// shrink trims a core (solving again under its own assumptions until it
// stops shrinking) and, when it has at most 16 literals, minimises it by
// dropping one literal at a time while the rest stays unsatisfiable. It
// returns nil when the time limit passed.
func (s *oll) shrink(core []Lit) ([]Lit, error) {
	core = uniqueLits(core)
	if !s.opt.Minimize {
		return core, nil
	}
	for range 3 {
		if len(core) <= 1 {
			return core, nil
		}
		r, err := s.solve(core)
		if err != nil || r == satUnknown {
			return nil, err
		}
		if r != satFalse {
			return nil, errors.New("maxsat: internal error: a core became satisfiable")
		}
		next := uniqueLits(s.sat.failed(nil))
		if len(next) >= len(core) {
			break
		}
		core = next
	}
	if len(core) > 16 {
		return core, nil
	}
	for i := 0; i < len(core) && len(core) > 1; {
		rest := append(slices.Clone(core[:i]), core[i+1:]...)
		r, err := s.solve(rest)
		if err != nil || r == satUnknown {
			return nil, err
		}
		if r == satTrue {
			i++
			continue
		}
		core = uniqueLits(s.sat.failed(nil))
		if len(core) == 0 {
			return nil, errors.New("maxsat: internal error: an empty core during minimisation")
		}
	}
	return core, nil
}

// uniqueLits sorts and removes repeated literals.
func uniqueLits(core []Lit) []Lit {
	slices.Sort(core)
	return slices.Compact(core)
}

// pendingCore is a core taken into the lower bound and not yet relaxed
// (its soft literals, their least weight then).
type pendingCore struct {
	idx  []int32
	wmin int64
}

// reduce takes a core into the lower bound: its least residual weight is
// added to the bound and taken from each of its soft literals (those left
// with none are no longer held). It returns the soft literals' indexes and
// that weight, for relax.
func (s *oll) reduce(core []Lit) ([]int32, int64, error) {
	s.cores++
	idx := make([]int32, 0, len(core))
	wmin := int64(math.MaxInt64)
	for _, l := range core {
		i, ok := s.at[l]
		if !ok || s.softs[i].w <= 0 {
			return nil, 0, fmt.Errorf("maxsat: internal error: core literal %d is no soft literal", l)
		}
		idx = append(idx, i)
		wmin = min(wmin, s.softs[i].w)
	}
	s.lb += wmin
	for _, i := range idx {
		s.softs[i].w -= wmin
	}
	if len(idx) == 1 {
		// Its one literal is false in every world: hard at once.
		s.sat.addClause(-s.softs[idx[0]].lit)
	}
	return idx, wmin, nil
}

// relax adds a reduced core's soft cardinality constraint: a totalizer
// over its falsified literals whose "fewer than 2" output is a new soft
// literal of weight wmin, and for each member that is itself such an
// output "fewer than k", the next one, "fewer than k+1".
func (s *oll) relax(idx []int32, wmin int64) error {
	inputs := make([]Lit, 0, len(idx))
	for _, i := range idx {
		sf := &s.softs[i]
		inputs = append(inputs, -sf.lit)
		if sf.tot != nil && sf.k < sf.tot.size {
			// "Fewer than k" is falsified: the bound goes up by one, with
			// the core's weight.
			t, k := sf.tot, sf.k+1
			s.extend(t, k)
			s.addSoft(-t.out[k-1], wmin, t, k)
		}
	}
	if len(idx) == 1 {
		return nil // made hard by reduce
	}
	t := s.totalizer(inputs)
	k := 2
	s.extend(t, k)
	s.sat.addClause(t.out[0]) // at least one is falsified (the core says so)
	if s.opt.Exhaust {
		// Exhaust: raise the bound while the SAT solver proves that more
		// of the inputs must be falsified.
		for k <= t.size {
			r, err := s.solve([]Lit{-t.out[k-1]})
			if err != nil {
				return err
			}
			if r != satFalse {
				if r == satTrue {
					s.offer(s.model())
				}
				break
			}
			s.sat.addClause(t.out[k-1])
			s.lb += wmin
			k++
			if k <= t.size {
				s.extend(t, k)
			}
		}
	}
	if k <= t.size {
		s.addSoft(-t.out[k-1], wmin, t, k)
	}
	return nil
}

// harden makes hard every soft literal whose residual weight exceeds the
// gap between the bounds: a world that falsifies it costs at least the
// lower bound plus its weight, more than the best world found.
func (s *oll) harden() {
	if !s.found {
		return
	}
	gap := s.ub - s.lb
	for i := range s.softs {
		sf := &s.softs[i]
		if sf.w > gap {
			s.sat.addClause(sf.lit)
			sf.w = 0
			s.hardened++
		}
	}
}

// totalizer counts how many of its inputs are true (Bailleux and Boufkhad,
// "Efficient CNF encoding of Boolean cardinality constraints", CP 2003),
// built as far as needed: out[j-1] is implied by "at least j inputs true"
// for j up to the bound it was extended to (the direction a soft literal
// !out[j-1] needs), and extended on demand (as RC2's iterative totalizer).
type totalizer struct {
	left, right *totalizer
	size        int
	out         []Lit
	// lcap and rcap are the children's outputs the clauses cover.
	lcap, rcap int
}

// totalizer builds a balanced tree over the inputs with no outputs beyond
// the leaves.
func (s *oll) totalizer(inputs []Lit) *totalizer {
	if len(inputs) == 1 {
		return &totalizer{size: 1, out: []Lit{inputs[0]}}
	}
	h := len(inputs) / 2
	return &totalizer{left: s.totalizer(inputs[:h]), right: s.totalizer(inputs[h:]), size: len(inputs)}
}

// extend adds t's outputs up to min(k, size) and the clauses that imply
// them.
func (s *oll) extend(t *totalizer, k int) {
	if t.left == nil {
		return
	}
	c := min(k, t.size)
	if c <= len(t.out) {
		return
	}
	s.extend(t.left, c)
	s.extend(t.right, c)
	oc, ol, or := len(t.out), t.lcap, t.rcap
	for len(t.out) < c {
		t.out = append(t.out, Pos(s.newVar()))
	}
	nl, nr := len(t.left.out), len(t.right.out)
	var cl []Lit
	for i := 0; i <= nl; i++ {
		for j := 0; j <= nr; j++ {
			sum := i + j
			if sum == 0 || sum > c || (i <= ol && j <= or && sum <= oc) {
				continue
			}
			cl = cl[:0]
			if i > 0 {
				cl = append(cl, -t.left.out[i-1])
			}
			if j > 0 {
				cl = append(cl, -t.right.out[j-1])
			}
			s.sat.addClause(append(cl, t.out[sum-1])...)
		}
	}
	t.lcap, t.rcap = nl, nr
}
