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
)

// MAPOptions configure MAP inference.
type MAPOptions struct {
	// Method is MethodLPRound (the default when empty), MethodLPWalkSAT or
	// MethodWalkSAT.
	Method string
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
	Seconds struct{ Ground, Solve float64 }
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
// heuristic for a starting world, not the network's cost.
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
	flips := mo.LocalSearch
	if flips == 0 {
		flips = 1_000_000
	}
	switch opt.Method {
	case "", MethodLPRound, MethodLPWalkSAT, MethodWalkSAT:
	default:
		return nil, fmt.Errorf("mln: unknown MAP method %q (want %s, %s or %s)", opt.Method, MethodLPRound, MethodLPWalkSAT, MethodWalkSAT)
	}
	if core := in.HardConflict(); core != nil {
		return nil, net.infeasible(g, in, core)
	}
	pos, err := positiveForm(in)
	if err != nil {
		return nil, err
	}
	signed := pos != in // negative-weight clauses: pos has auxiliary atoms
	// MaxWalkSAT takes signed weights: it walks the network itself, with
	// identical clauses merged as Alchemy walks it. Unmerged, an atom with
	// opposite unit clauses (UW-CSE: 4,442 of the ai fold's cost) keeps one
	// of them violated in every world, and most of the walk's picks land on
	// such a clause only to swap which of the two is violated.
	var walkOn *maxsat.Instance
	if opt.Method == MethodLPWalkSAT || opt.Method == MethodWalkSAT {
		walkOn = walkable(in) // merging costs a hash per ground clause: only when a walk follows
	}
	mo.LocalSearch = 0 // MaxWalkSAT runs below, on walkOn
	sol, err := maxsat.Solve(ctx, pos, mo)
	if err != nil {
		return nil, err
	}
	x := sol.X[:in.NumVars]
	rep := sol.Report
	if signed && opt.Method != MethodWalkSAT {
		// The auxiliary form's relaxation is loose and its rounding poor;
		// the surrogate (each negative clause as unit clauses of its
		// negated literals) rounds to a much better world of the network
		// (Tuffy cse: 3,017 against 9,676 as Alchemy counts). Keep the
		// better of the two worlds; the bound stays pos's.
		so := mo
		so.LocalSearch = 0
		sur, err := surrogate(in)
		if err != nil {
			return nil, err
		}
		ssol, err := maxsat.Solve(ctx, sur, so)
		if err != nil {
			return nil, err
		}
		if sat, hv := in.Eval(ssol.X); hv == 0 {
			if cur, chv := in.Eval(x); chv > 0 || sat > cur {
				x = ssol.X
			}
		}
	}
	var walkStart []bool // nil: a random start
	switch {
	case opt.Method == MethodWalkSAT:
		// The relaxation was solved only for its certified bound; the
		// answer is MaxWalkSAT's from a random start.
	case opt.Method == MethodLPWalkSAT:
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
		rep.Optimal = rep.HardViolated == 0 && rep.WeightSatisfied >= rep.LPUpperBound-1e-9*(1+rep.WeightTotal)
	}
	res.Values = make([]float64, len(x))
	for i, b := range x {
		if b {
			res.Values[i] = 1
		}
	}
	res.Report = rep
	res.Cost = rep.WeightTotal - rep.WeightSatisfied
	res.LowerBound = math.Max(0, rep.WeightTotal-rep.LPUpperBound)
	res.Alchemy = Alchemy(in)
	res.Seconds.Solve = time.Since(start).Seconds()
	return res, nil
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
	fmt.Fprintf(&b, "the hard clauses cannot all hold with this evidence: unit propagation derives a contradiction from these %d ground hard clauses (a clause's literals that the evidence decides false are left out, but one the evidence alone falsifies is written in full, with why):", len(e.Clauses))
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
	if core := in.HardConflict(); core != nil {
		return nil, net.infeasible(g, in, core)
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
