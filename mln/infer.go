package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
)

// MAP methods.
const (
	// MethodLPRound solves the LP relaxation and rounds it (derandomised,
	// at least 3/4 of the optimum), with a certified bound.
	MethodLPRound = "lp-round"
	// MethodLPWalkSAT is MethodLPRound followed by MaxWalkSAT from the
	// rounded assignment.
	MethodLPWalkSAT = "lp-walksat"
	// MethodWalkSAT is MaxWalkSAT from a random assignment (Alchemy's and
	// Tuffy's MAP), still reporting the relaxation's certified bound.
	MethodWalkSAT = "maxwalksat"
	// MethodExact solves the ground network exactly by core-guided MAX-SAT
	// (maxsat.Exact): the answer is proven optimal, or, at
	// MAPOptions.TimeLimit, the best world found with a certified lower
	// bound from the cores.
	MethodExact = "exact"
)

// MAPOptions configure MAP inference.
type MAPOptions struct {
	// Method is MethodLPRound (the default when empty), MethodLPWalkSAT,
	// MethodWalkSAT or MethodExact.
	Method string
	// TimeLimit, when positive, stops MethodExact after that long with the
	// best world found and the certified bound (not an error).
	TimeLimit time.Duration
	// ExactProgress, when set, is called by MethodExact each time its upper
	// or lower bound improves.
	ExactProgress func(maxsat.ExactProgress)
	// MaxSAT configures the relaxation, rounding and local search (start
	// from maxsat.DefaultOptions, or use DefaultMAPOptions); its
	// LocalSearch is the number of MaxWalkSAT flips (for MethodLPWalkSAT
	// and MethodWalkSAT; 1,000,000 when zero).
	MaxSAT maxsat.Options
	// Ground configures the grounder.
	Ground ground.Options
	// Fixed are literals over the ground network's variables (its unknown
	// atoms, numbered as in MAPResult.Ground) added as hard unit clauses:
	// the best world with those atoms held at those values (an
	// explanation solves again with one atom flipped). They take no part
	// in the cost or the Alchemy view's offset.
	Fixed []maxsat.Lit
}

// DefaultMAPOptions returns lp-round with maxsat's defaults.
func DefaultMAPOptions() MAPOptions {
	return MAPOptions{Method: MethodLPRound, MaxSAT: maxsat.DefaultOptions()}
}

// MAPResult is a MAP assignment of the unknown atoms and how good it is.
type MAPResult struct {
	Ground *ground.Result
	// Values holds 0 or 1 for every variable (unknown atom) of Ground.
	Values []float64
	// Report is the MAX-SAT pipeline's report (weights of satisfied soft
	// ground clauses, the certified upper bound, hard clauses violated).
	Report maxsat.Report
	// Cost is the weight of the soft ground clauses the assignment
	// violates, LowerBound a certified lower bound on the cost of any
	// assignment that satisfies the hard clauses. Ground clauses decided by
	// the evidence alone are not counted in either.
	Cost, LowerBound float64
	// Alchemy is the ground network as Alchemy 2 merges it: the same world
	// costs Cost-Alchemy.Offset there, and no world costs less than
	// LowerBound-Alchemy.Offset (see AlchemyView).
	Alchemy AlchemyView
	// Exact is the exact solver's result (MethodExact only): its status,
	// cores and SAT calls; its Cost and LowerBound are of the network
	// rewritten with nonnegative weights, which are the network's.
	Exact   *maxsat.ExactResult
	Seconds struct{ Ground, Solve float64 }

	tol float64 // how close two costs are to be one (maxsat.CostScale.Tol)
}

// GroundClauses grounds the network and reads the ground problem as
// weighted clauses (variable i of the instance is variable i of g). Clause
// c < g.Problem.NumPotentials() was grounded from rule g.Problem.Group[c] of
// net.Model (net.Clauses says which formula that is); the hard clauses
// follow, from rules g.Problem.CGroup. A soft clause of a negative-weight
// formula has its negative weight w: it costs |w| when satisfied. The
// samplers take such weights; maxsat.Solve does not (see positiveForm).
func (net *Network) GroundClauses(opt ground.Options) (*ground.Result, *maxsat.Instance, error) {
	if net.lazy {
		return nil, nil, errors.New("mln: the network was built with Options.Lazy: its store has no unknown atoms to ground (Materialize adds them; LazyMAP grounds lazily)")
	}
	g, err := ground.Ground(net.Model, net.Store, opt)
	if err != nil {
		return nil, nil, err
	}
	in, err := maxsat.FromProblem(g.Problem)
	if err != nil {
		return nil, nil, fmt.Errorf("mln: the ground network is not a set of clauses: %w", err)
	}
	for c := range g.Problem.NumPotentials() {
		if net.Clauses[g.Problem.Group[c]].Weight < 0 {
			in.Weight[c] = -in.Weight[c]
		}
	}
	return g, in, nil
}

// rewriteNegative returns a copy of in in which every soft clause of
// negative weight is replaced by what add adds for it to out; the other
// clauses are copied as they are.
func rewriteNegative(in *maxsat.Instance, add func(out *maxsat.Instance, w float64, lits []maxsat.Lit) error) (*maxsat.Instance, error) {
	out := &maxsat.Instance{NumVars: in.NumVars, Start: []int32{0}}
	for c := range in.NumClauses() {
		w, hard, lits := in.Weight[c], in.Hard[c], in.Clause(c)
		var err error
		if hard || w >= 0 {
			err = out.AddClause(w, hard, lits...)
		} else {
			err = add(out, w, lits)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// surrogate returns in with each soft clause of negative weight w over k
// literals replaced by k unit clauses of its negated literals, of weight
// |w|/k each: nonnegative weights, and a world that satisfies none of the
// clause's literals costs nothing there, as in the network. It is a
// heuristic for a starting world, not the network's cost, except where every
// negative clause is a unit clause: there it costs what the network costs
// in every world (relaxAndRound).
func surrogate(in *maxsat.Instance) (*maxsat.Instance, error) {
	return rewriteNegative(in, func(out *maxsat.Instance, w float64, lits []maxsat.Lit) error {
		for _, l := range lits {
			if err := out.AddClause(-w/float64(len(lits)), false, -l); err != nil {
				return err
			}
		}
		return nil
	})
}

// positiveForm returns in itself when no clause has a negative weight, and
// otherwise an instance with the same most probable worlds and costs whose
// weights are all nonnegative: a clause of weight w < 0 over literals l_i
// (it costs |w| when satisfied) becomes an auxiliary variable z with the
// unit clause z of weight |w| and the hard clauses !z v !l_i. When the
// clause is violated z can be true at no cost; when it is satisfied z must
// be false and costs |w|. The auxiliary variables follow in's, so the first
// in.NumVars values of a solution are the answer.
func positiveForm(in *maxsat.Instance) (*maxsat.Instance, error) {
	if !slices.ContainsFunc(in.Weight, func(w float64) bool { return w < 0 }) {
		return in, nil
	}
	return rewriteNegative(in, func(out *maxsat.Instance, w float64, lits []maxsat.Lit) error {
		z := out.NumVars
		out.NumVars++
		if err := out.AddClause(-w, false, maxsat.Pos(z)); err != nil {
			return err
		}
		for _, l := range lits {
			if err := out.AddClause(0, true, maxsat.Not(z), -l); err != nil {
				return err
			}
		}
		return nil
	})
}

// MAP grounds the network and finds a most probable assignment of its
// unknown atoms by the chosen MAX-SAT method.
func (net *Network) MAP(ctx context.Context, opt MAPOptions) (*MAPResult, error) {
	start := time.Now()
	g, in, err := net.GroundClauses(opt.Ground)
	if err != nil {
		return nil, err
	}
	res := &MAPResult{Ground: g}
	res.Seconds.Ground = time.Since(start).Seconds()
	start = time.Now()
	for _, l := range opt.Fixed {
		if l == 0 || l.Var() >= in.NumVars {
			return nil, fmt.Errorf("mln: MAPOptions.Fixed: literal %d names none of the %d unknown atoms", l, in.NumVars)
		}
		if err := in.AddClause(0, true, l); err != nil {
			return nil, err
		}
	}
	mo := opt.MaxSAT
	cs := maxsat.NewCostScale(in)
	flips := mo.LocalSearch
	if flips == 0 {
		flips = 1_000_000
	}
	switch opt.Method {
	case "", MethodLPRound, MethodLPWalkSAT, MethodWalkSAT, MethodExact:
	default:
		return nil, fmt.Errorf("mln: unknown MAP method %q (want %s, %s, %s or %s)", opt.Method, MethodLPRound, MethodLPWalkSAT, MethodWalkSAT, MethodExact)
	}
	if err := net.CheckHard(g, in); err != nil {
		return nil, err
	}
	method := opt.Method
	if method == MethodExact {
		// The relaxation's world and bound start the exact search.
		method = MethodLPRound
	}
	x, rep, signed, err := relaxAndRound(ctx, in, mo, method != MethodWalkSAT)
	if err != nil {
		return nil, err
	}
	// MaxWalkSAT takes signed weights: it walks the network itself, with
	// identical clauses merged as Alchemy walks it. Unmerged, an atom with
	// opposite unit clauses (UW-CSE: 4,442 of the ai fold's cost) keeps one
	// of them violated in every world, and most of the walk's picks land on
	// such a clause only to swap which of the two is violated.
	var walkOn *maxsat.Instance
	if method == MethodLPWalkSAT || method == MethodWalkSAT {
		walkOn = walkable(in) // merging costs a hash per ground clause: only when a walk follows
	}
	var walkStart []bool // nil: a random start
	switch {
	case method == MethodWalkSAT:
		// The relaxation was solved only for its certified bound; the
		// answer is MaxWalkSAT's from a random start.
	case method == MethodLPWalkSAT:
		walkStart = x
	default:
		walkOn = nil
	}
	if walkOn != nil {
		wr, err := maxsat.WalkSAT(ctx, walkOn, walkStart, maxsat.WalkOptions{Steps: flips, Noise: mo.Noise, Seed: mo.Seed})
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err // the walk stopped early with its best world: not the answer asked for
		}
		x = wr.X
		sat, _ := in.Eval(x)
		rep.LocalSearch = maxsat.LocalSearchReport{Steps: flips, Flips: wr.Flips, Weight: sat}
	}
	if walkOn != nil || signed {
		// The report's weights are pos's: a world's weight there is pos's
		// total less its cost in the network (its auxiliary atoms at
		// their best).
		sat, hv := in.Eval(x)
		cost := -sat
		for c, w := range in.Weight {
			if !in.Hard[c] && w > 0 {
				cost += w
			}
		}
		rep.WeightSatisfied, rep.HardViolated = rep.WeightTotal-cost, hv
		rep.CertifiedRatio = 0
		if rep.HardViolated == 0 && rep.LPUpperBound > 0 {
			rep.CertifiedRatio = math.Min(1, rep.WeightSatisfied/rep.LPUpperBound)
		}
		rep.Optimal = rep.HardViolated == 0 && cs.Proven(cost, rep.WeightTotal-rep.LPUpperBound)
	}
	res.Values = make([]float64, len(x))
	for i, b := range x {
		if b {
			res.Values[i] = 1
		}
	}
	res.Cost = networkCost(in, x) // summed directly: exact to the cost's own scale, not the total's
	res.LowerBound = math.Max(0, rep.WeightTotal-rep.LPUpperBound-cs.SumError())
	// Alchemy's count of a world's cost, hinge's less the offset, is never
	// negative: no world costs less than the offset. The relaxation can
	// miss that bound where clauses cost in every world between them (a
	// clause beside its own twin of negative weight: 2.21 S(y) v !S(z) and
	// -1.84 !S(z) v S(x), where the exact search stopped at its time limit
	// 2% short on 10 atoms).
	res.Alchemy = Alchemy(in)
	if off := res.Alchemy.Offset; off > res.LowerBound {
		res.LowerBound = off
		rep.LPUpperBound = rep.WeightTotal - off
		rep.Optimal = rep.HardViolated == 0 && cs.Proven(res.Cost, off)
		if rep.LPUpperBound > 0 && rep.HardViolated == 0 {
			rep.CertifiedRatio = math.Min(1, rep.WeightSatisfied/rep.LPUpperBound)
		}
	}
	res.Report = rep
	if opt.Method == MethodExact && !rep.Optimal {
		if opt.TimeLimit > 0 {
			// The relaxation's time counts.
			opt.TimeLimit = max(time.Nanosecond, opt.TimeLimit-time.Since(start))
		}
		if err := res.exact(ctx, in, x, opt); err != nil {
			return nil, err
		}
	}
	res.tol = cs.Tol(res.Cost)
	// The cost is a direct sum of the weights of the clauses that cost:
	// 0 or at least the smallest weight, never rounded to 0 (beside two
	// weights of 10^12, whose rounding error is about 0.002, a cost of
	// 0.001 was printed as 0); only the bound is snapped.
	_, res.LowerBound = snapCosts(res.Cost, res.LowerBound, res.tol)
	if res.Report.Optimal && res.Report.HardViolated == 0 {
		// Proven (by the relaxation or the exact search): the same number,
		// where a bound snapped to 0 beside a cost of 0.001 read as a gap.
		res.LowerBound = res.Cost
	}
	res.Seconds.Solve = time.Since(start).Seconds()
	return res, nil
}

// relaxAndRound solves the LP relaxation of the ground clauses in (signed
// weights, as positiveForm makes them positive) by maxsat.Solve, without
// local search, and rounds it. rep is the report of the relaxation solved
// (the positive form's, or the surrogate's where that is exact): its
// certified bound is the network's; signed says in has negative weights.
// With surrogateToo and negative weights the surrogate's relaxation is
// rounded as well and the better world that satisfies the hard clauses
// kept: the auxiliary form's relaxation is loose and its rounding poor,
// and the surrogate (each negative clause as unit clauses of its negated
// literals) rounds to a much better world of the network (Tuffy cse:
// 3,017 against 9,676 as Alchemy counts).
//
// Where every clause of negative weight is a unit clause, the surrogate is
// exact (-0.8 u2(x) costs 0.8 where u2(x) holds, as the unit clause !u2(x)
// of weight 0.8 does), so it is the one relaxation solved: the same bound,
// no auxiliary atoms, and half the time (one of the two solves).
func relaxAndRound(ctx context.Context, in *maxsat.Instance, mo maxsat.Options, surrogateToo bool) (x []bool, rep maxsat.Report, signed bool, err error) {
	var pos *maxsat.Instance
	if negativeUnitsOnly(in) {
		pos, err = surrogate(in)
		surrogateToo = false
	} else {
		pos, err = positiveForm(in)
	}
	if err != nil {
		return nil, rep, false, err
	}
	signed = pos != in // negative-weight clauses
	mo.LocalSearch = 0
	sol, err := maxsat.Solve(ctx, pos, mo)
	if err != nil {
		return nil, rep, signed, err
	}
	x, rep = sol.X[:in.NumVars], sol.Report
	if !signed || !surrogateToo {
		return x, rep, signed, nil
	}
	sur, err := surrogate(in)
	if err != nil {
		return nil, rep, signed, err
	}
	ssol, err := maxsat.Solve(ctx, sur, mo)
	if err != nil {
		return nil, rep, signed, err
	}
	if sat, hv := in.Eval(ssol.X); hv == 0 {
		if cur, chv := in.Eval(x); chv > 0 || sat > cur {
			x = ssol.X
		}
	}
	return x, rep, signed, nil
}

// negativeUnitsOnly reports whether in has a soft clause of negative
// weight and every such clause is a unit clause.
func negativeUnitsOnly(in *maxsat.Instance) bool {
	some := false
	for c, w := range in.Weight {
		if in.Hard[c] || w >= 0 {
			continue
		}
		if len(in.Clause(c)) != 1 {
			return false
		}
		some = true
	}
	return some
}

// exactForm is positiveForm for the exact solver: a unit clause l of
// negative weight w becomes the unit clause !l of weight |w| (the same cost
// in every world, and no auxiliary atom), so that opposite unit clauses meet
// and the solver takes the lesser of their weights as a constant; an empty
// one costs nothing and is left out. aux[k] is the clause of in whose
// auxiliary atom is variable in.NumVars+k.
func exactForm(in *maxsat.Instance) (pos *maxsat.Instance, aux []int32, err error) {
	pos = &maxsat.Instance{NumVars: in.NumVars, Start: []int32{0}}
	for c := range in.NumClauses() {
		w, hard, lits := in.Weight[c], in.Hard[c], in.Clause(c)
		switch {
		case hard || w >= 0:
			err = pos.AddClause(w, hard, lits...)
		case len(lits) == 0:
		case len(lits) == 1:
			err = pos.AddClause(-w, false, -lits[0])
		default:
			aux = append(aux, int32(c))
			z := pos.NumVars
			pos.NumVars++
			err = pos.AddClause(-w, false, maxsat.Pos(z))
			for _, l := range lits {
				if err == nil {
					err = pos.AddClause(0, true, maxsat.Not(z), -l)
				}
			}
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return pos, aux, nil
}

// extendWorld gives a world of in the values of exactForm's auxiliary
// atoms that cost least: true when their clause is violated.
func extendWorld(in *maxsat.Instance, x []bool, aux []int32) []bool {
	out := append(x[:in.NumVars:in.NumVars], make([]bool, len(aux))...)
	for k, c := range aux {
		out[in.NumVars+k] = !in.Satisfied(int(c), x)
	}
	return out
}

// exact solves the network's ground clauses in by maxsat.Exact (on
// exactForm(in)), from the world x0 of the relaxation whose result res
// holds, and fills the result in in's terms: the better world, and the
// better of the relaxation's bound and the cores'.
func (res *MAPResult) exact(ctx context.Context, in *maxsat.Instance, x0 []bool, opt MAPOptions) error {
	pos, aux, err := exactForm(in)
	if err != nil {
		return err
	}
	var start [][]bool
	if x0 != nil {
		start = [][]bool{extendWorld(in, x0, aux)}
	}
	xr, err := maxsat.Exact(ctx, pos, maxsat.ExactOptions{TimeLimit: opt.TimeLimit, Progress: opt.ExactProgress, Start: start, LowerBound: res.LowerBound,
		Seed: opt.MaxSAT.Seed})
	if err != nil {
		return err
	}
	res.Exact = xr
	if xr.Infeasible {
		return errors.New("mln: the hard clauses cannot all hold with this evidence (proven by the exact MAX-SAT solver; --hard-weight W makes them soft, as Alchemy and Tuffy treat them)")
	}
	if xr.X == nil {
		return fmt.Errorf("mln: the exact solver found no world that satisfies the hard clauses within the time limit of %v", opt.TimeLimit)
	}
	x := xr.X[:in.NumVars]
	cost := networkCost(in, x)
	lb := xr.LowerBound
	if xr.Optimal && xr.WeightError == 0 {
		lb = cost // the solver's integer bounds met; the float sums may differ in the last bits
	}
	total := pos.SoftWeight()
	rep := maxsat.Report{Variables: pos.NumVars, Clauses: pos.NumClauses(), HardClauses: pos.NumHard(),
		WeightTotal: total, WeightSatisfied: total - cost, LPUpperBound: total - lb,
		LPBoundKind: "cores", LPBoundSource: "exact", Certified: true, Optimal: xr.Optimal, CertifiedRatio: 1}
	if total-lb > 0 {
		rep.CertifiedRatio = min(1, (total-cost)/(total-lb))
	}
	rep.Seconds.Total = xr.Seconds
	res.Values = make([]float64, len(x))
	for i, b := range x {
		if b {
			res.Values[i] = 1
		}
	}
	res.Report, res.Cost, res.LowerBound = rep, cost, lb
	return nil
}

// snapCosts rounds a cost and a lower bound on it to tol: within tol of
// 0 they are 0, and a bound within tol above the cost is the cost.
func snapCosts(cost, bound, tol float64) (float64, float64) {
	if math.Abs(cost) <= tol {
		cost = 0
	}
	if math.Abs(bound) <= tol {
		bound = 0
	}
	if bound > cost && bound-cost <= tol {
		bound = cost
	}
	return cost, bound
}

// AlchemyCosts are the world's cost and the lower bound as Alchemy counts
// them (Cost and LowerBound less Alchemy.Offset, the bound at least 0),
// rounded as Cost and LowerBound are.
func (r *MAPResult) AlchemyCosts() (cost, bound float64) {
	return snapCosts(r.Cost-r.Alchemy.Offset, max(0, r.LowerBound-r.Alchemy.Offset), r.tol)
}

// networkCost is the cost of world x in a ground network whose soft clauses
// may have negative weights (GroundClauses): the weight of the violated
// clauses of positive weight plus |w| for each satisfied clause of
// negative weight w. Hard clauses are not counted.
func networkCost(in *maxsat.Instance, x []bool) float64 {
	var cost float64
	for c, w := range in.Weight {
		if in.Hard[c] || w == 0 {
			continue
		}
		if sat := in.Satisfied(c, x); w > 0 && !sat {
			cost += w
		} else if w < 0 && sat {
			cost -= w
		}
	}
	return cost
}

// InfeasibleError says that the hard clauses cannot all hold with the
// evidence, and shows it: unit propagation derives a contradiction from the
// ground hard clauses in Clauses.
type InfeasibleError struct {
	// Clauses are the ground hard clauses of the proof, each written as its
	// ground literals that the evidence leaves open, then its formula; a
	// clause the evidence alone falsifies is written in full, with its
	// substitution and why each literal is false.
	Clauses []string
	// Closed says, for each closed-world predicate whose missing atoms
	// falsify a literal of the proof, why it is closed and how to open it.
	Closed []string
}

// Error lists the first dozen clauses of the proof and the way out
// (--hard-weight).
func (e *InfeasibleError) Error() string {
	const show = 12
	var b strings.Builder
	clauses := fmt.Sprintf("these %d ground hard clauses", len(e.Clauses))
	if len(e.Clauses) == 1 {
		clauses = "this ground hard clause"
	}
	fmt.Fprintf(&b, "the hard clauses cannot all hold with this evidence: unit propagation derives a contradiction from %s (a clause's literals that the evidence decides false are left out, but one the evidence alone falsifies is written in full, with why):", clauses)
	for i, c := range e.Clauses {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Clauses)-show)
			break
		}
		b.WriteString("\n  " + c)
	}
	for _, c := range e.Closed {
		b.WriteString("\n" + c)
	}
	b.WriteString("\n(--hard-weight W makes hard clauses soft with weight W, as Alchemy and Tuffy treat them)")
	return b.String()
}

// closedList sorts the reasons of closed[pred].
func closedList(closed map[string]string) []string {
	var out []string
	for _, c := range closed {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// CheckHard returns an *InfeasibleError when unit propagation proves that
// no world satisfies the hard clauses of in (g and in from GroundClauses)
// with the evidence, as MAP and marginal inference refuse it; nil
// otherwise. A caller that makes the hard clauses soft (an RRF's
// features) calls it to refuse such evidence too.
func (net *Network) CheckHard(g *ground.Result, in *maxsat.Instance) error {
	if core := in.HardConflict(); core != nil {
		return net.infeasible(g, in, core)
	}
	return nil
}

// infeasible describes the ground hard clauses core of in as an
// InfeasibleError.
func (net *Network) infeasible(g *ground.Result, in *maxsat.Instance, core []int) *InfeasibleError {
	e := &InfeasibleError{}
	closed := map[string]string{}
	soft := g.Problem.NumPotentials()
	for _, c := range core {
		lits := []string{}
		for _, l := range in.Clause(c) {
			a := g.Vars[l.Var()].Pred.Name + "(" + strings.Join(g.Args(l.Var()), ", ") + ")"
			if l.Neg() {
				a = "!" + a
			}
			lits = append(lits, a)
		}
		text := "(empty)"
		if len(lits) > 0 {
			text = strings.Join(lits, " v ")
		}
		switch j := c - soft; {
		case j >= len(g.Problem.CGroup):
			text += "   (an atom held by MAPOptions.Fixed)"
		case j >= 0:
			rule := net.Model.Rules[g.Problem.CGroup[j]]
			if len(lits) == 0 {
				// The evidence alone falsifies it: say which grounding
				// and why each literal is false.
				if full, ok := net.emptyGrounding(rule, closed); ok {
					text = full
				}
			}
			text += "   from " + rule.Text
		}
		e.Clauses = append(e.Clauses, text)
	}
	e.Closed = closedList(closed)
	return e
}

// Marginal methods.
const (
	// MethodMCSAT is MC-SAT (Alchemy's default).
	MethodMCSAT = "mcsat"
	// MethodGibbs is Gibbs sampling, with atoms tied by hard or heavy
	// clauses sampled jointly in small blocks.
	MethodGibbs = "gibbs"
)

// MarginalResult holds the probability that each unknown atom is true:
// exact where Exact says so, else estimated by sampling.
type MarginalResult struct {
	Ground *ground.Result
	Probs  []float64 // per variable of Ground
	// Exact says which variables' marginals are exact (nil when the
	// network was sampled in full), and Components how exact inference
	// split the network (see ExactMarginals).
	Exact      []bool
	Components []Component
	// Diagnostics say whether the chains agree (see Diagnostics), over
	// the sampled atoms.
	Diagnostics Diagnostics
	// Merged is the number of ground clauses once identical ones are
	// merged (AlchemyView.Clauses).
	Merged  int
	Seconds struct{ Ground, Sample float64 }
}

// ExactAtoms counts the atoms whose marginals are exact.
func (r *MarginalResult) ExactAtoms() int { return countTrue(r.Exact) }

// Marginals grounds the network and computes every unknown atom's
// marginal probability by the method (see InferMarginals): exactly where
// affordable and by MC-SAT elsewhere (MarginalAuto or ""), exactly or not
// at all (MarginalExact), or by MC-SAT or Gibbs sampling alone; mapOpt
// supplies the grounding options. Hard clauses that unit propagation
// proves contradictory are reported as an InfeasibleError.
func (net *Network) Marginals(ctx context.Context, method string, mapOpt MAPOptions, so SampleOptions) (*MarginalResult, error) {
	start := time.Now()
	g, in, err := net.GroundClauses(mapOpt.Ground)
	if err != nil {
		return nil, err
	}
	res := &MarginalResult{Ground: g}
	res.Seconds.Ground = time.Since(start).Seconds()
	start = time.Now()
	if err := net.CheckHard(g, in); err != nil {
		return nil, err
	}
	s, err := InferMarginals(ctx, in, method, so)
	if err != nil {
		return nil, err
	}
	res.Probs, res.Diagnostics, res.Merged = s.Probs, s.Diagnostics, s.Merged
	res.Exact, res.Components = s.Exact, s.Components
	res.Seconds.Sample = time.Since(start).Seconds()
	return res, nil
}
