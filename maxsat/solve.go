package maxsat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
)

// Options configures Solve.
type Options struct {
	// ADMM configures the solver of the LP relaxation.
	ADMM admm.Options
	// Seed seeds local search (rounding itself is deterministic).
	Seed uint64
	// LocalSearch is the number of MaxWalkSAT flips run from the rounded
	// assignment; 0 runs none (unless hard clauses need repair).
	LocalSearch int
	// Noise is MaxWalkSAT's random-walk probability (0.5 when zero).
	Noise float64
	// RepairSteps is the least number of MaxWalkSAT flips spent when the
	// rounded assignment violates hard clauses.
	RepairSteps int
	// DualSweeps bounds the coordinate-ascent passes that improve the
	// certificate's multipliers.
	DualSweeps int
	// Lift solves the LP relaxation lifted: color refinement finds its
	// symmetric atoms and clauses, the smaller lifted LP is solved and
	// certified (same optimum, same guarantee; see lifted.go), and the
	// rounding uses one representative per class of symmetric atoms where
	// that keeps the 3/4 guarantee. Report.Lifted says what was found.
	Lift bool
	// AtomRounding, with Lift, rounds every atom on its own even where one
	// representative per class would do (for comparing the two).
	AtomRounding bool
}

// DefaultOptions returns the options of `hinge maxsat`: the ADMM defaults
// with a tighter relative tolerance (1e-4 instead of 1e-3), which the
// certified bound needs (see bench/maxsat), no local search, 100000 repair
// flips and 10 dual sweeps.
func DefaultOptions() Options {
	a := admm.DefaultOptions()
	a.EpsRel = 1e-4
	return Options{ADMM: a, RepairSteps: 100000, DualSweeps: 10}
}

// Report is what a user needs to trust a Solve result. Weights are of soft
// clauses; hard clauses count separately.
type Report struct {
	Variables   int `json:"variables"`
	Clauses     int `json:"clauses"`
	HardClauses int `json:"hard_clauses"`

	// WeightSatisfied is the weight of the soft clauses the assignment
	// satisfies, WeightTotal that of all soft clauses.
	WeightSatisfied float64 `json:"weight_satisfied"`
	WeightTotal     float64 `json:"weight_total"`
	// LPUpperBound is a certified upper bound on the best satisfied weight of
	// any assignment that satisfies the hard clauses: WeightTotal minus the
	// value of a dual-feasible point of the LP relaxation (floored when all
	// weights are integers). Below zero (by more than CostScale.Tol, the allowance
	// for rounding error) it proves the hard clauses unsatisfiable.
	LPUpperBound float64 `json:"lp_upper_bound"`
	// LPBoundKind is "dual": the bound comes from a dual-feasible point and
	// holds however far ADMM was from converging.
	LPBoundKind string `json:"lp_bound_kind"`
	// Certified is true when LPUpperBound is a proven bound (always, with
	// LPBoundKind "dual").
	Certified bool `json:"certified"`
	// LPBoundSource says which multipliers gave the bound: "admm-duals"
	// (ADMM's per-copy duals), "clause-duals" (ADMM's duals projected onto
	// one multiplier per clause and improved by coordinate ascent),
	// "slackness" (guessed from the relaxed solution by complementary
	// slackness, then improved) or "trivial" (all zero: the total weight).
	LPBoundSource string `json:"lp_bound_source"`
	// CertifiedRatio is WeightSatisfied / LPUpperBound: the assignment is
	// provably at least this fraction of optimal. It is 0 when hard clauses
	// are violated and 1 when the bound is 0 and met.
	CertifiedRatio float64 `json:"certified_ratio"`
	// LPPrimalValue is WeightTotal minus the relaxation's objective at the
	// ADMM solution: an estimate of the LP value, not a bound (it is at most
	// the LP value when LPPrimalResidual is 0). LPPrimalResidual is the
	// largest violation of a hard clause's relaxed constraint there.
	LPPrimalValue    float64 `json:"lp_primal_value"`
	LPPrimalResidual float64 `json:"lp_primal_residual"`
	// HardViolated counts the hard clauses the assignment violates.
	HardViolated int `json:"hard_violated"`
	// Optimal is true when the assignment is proven optimal (it satisfies
	// every hard clause and meets the certified bound), never while
	// RoundedWeights is not 0 unless the assignment falsifies nothing.
	Optimal bool `json:"optimal"`
	// RoundedWeights counts the soft weights that a float64 does not hold
	// as written (Instance.RoundedWeights): the relaxation, the bound and
	// the costs are float64 sums of the rounded weights, which may rank two
	// assignments wrongly (100000000.123456789 and 100000000.123456788 are
	// one float64), so no optimum is claimed. Exact decides on the
	// decimals as written.
	RoundedWeights int `json:"rounded_weights,omitempty"`
	// Infeasible is true when the hard clauses are proven unsatisfiable.
	Infeasible bool `json:"infeasible"`

	// Lifted describes the lifting (Options.Lift), nil without it.
	Lifted *LiftReport `json:"lifted,omitempty"`

	Rounding    RoundingReport    `json:"rounding"`
	LocalSearch LocalSearchReport `json:"local_search"`
	ADMM        ADMMReport        `json:"admm"`
	Seconds     Seconds           `json:"seconds"`
}

// RoundingReport describes the rounding step.
type RoundingReport struct {
	Method        string  `json:"method"` // MethodGW or MethodPlain
	Weight        float64 `json:"weight"` // satisfied soft weight after rounding
	HardViolated  int     `json:"hard_violated"`
	ExpectedGW    float64 `json:"expected_gw"`
	ExpectedPlain float64 `json:"expected_plain"`
}

// LocalSearchReport describes the MaxWalkSAT step.
type LocalSearchReport struct {
	Steps  int     `json:"steps"` // flips allowed
	Flips  int     `json:"flips"` // flips made
	Weight float64 `json:"weight"`
}

// ADMMReport describes the relaxation solve.
type ADMMReport struct {
	Iterations     int         `json:"iterations"`
	Status         admm.Status `json:"status"`
	Converged      bool        `json:"converged"`
	PrimalResidual float64     `json:"primal_residual"`
	DualResidual   float64     `json:"dual_residual"`
}

// Seconds are wall-clock times of the stages; Load is filled by callers
// that read files.
type Seconds struct {
	Load        float64 `json:"load"`
	Relax       float64 `json:"relax"`
	Round       float64 `json:"round"`
	LocalSearch float64 `json:"local_search"`
	Total       float64 `json:"total"`
}

// Result is a Solve answer: an assignment, the relaxed solution it was
// rounded from, and the report.
type Result struct {
	X       []bool
	Relaxed []float64
	Report  Report
}

// Solve relaxes, certifies, rounds and optionally improves: see the package
// documentation. It returns an error only for invalid input or options, or
// when ctx is cancelled: every stage (building the relaxation, solving it,
// the certificate, the rounding, local search) looks at ctx every few
// thousand clauses or atoms and returns its error, and no result, once it
// is done.
func Solve(ctx context.Context, in *Instance, opt Options) (*Result, error) {
	if err := in.validate(ctx); err != nil {
		return nil, err
	}
	if err := opt.ADMM.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	ix, err := buildIndexCtx(ctx, in)
	if err != nil {
		return nil, err
	}
	rep := Report{
		Variables: in.NumVars, Clauses: in.NumClauses(), HardClauses: in.NumHard(),
		WeightTotal: in.SoftWeight(), LPBoundKind: "dual", Certified: true,
	}
	W := rep.WeightTotal

	// Relax.
	rel, err := toProblem(ctx, in, ix)
	if err != nil {
		return nil, err
	}
	p := rel.Problem
	var lr *liftedRelax
	if opt.Lift {
		t0 := time.Now()
		var err error
		lr, rep.Lifted, err = liftRelaxation(ctx, rel)
		if err != nil {
			return nil, err
		}
		rep.Lifted.Seconds.Lift = time.Since(t0).Seconds()
	}
	y := make([]float64, in.NumVars)
	for i := range y {
		y[i] = 0.5
	}
	var pot, con []float64
	rep.ADMM.Status, rep.ADMM.Converged = admm.Converged, true // nothing to relax unless there are terms
	emptySoft, emptyHard := emptyClauses(in)
	hw := hardWeight(in)
	constant := emptySoft + float64(len(emptyHard))*hw // what the clauses outside the relaxation add to a dual value
	var g float64
	var source string
	if lr != nil {
		t0 := time.Now()
		res, err := lr.solve(ctx, opt.ADMM)
		if err != nil {
			return nil, err
		}
		if res != nil {
			rep.ADMM = ADMMReport{res.Iterations, res.Status, res.Converged(), res.PrimalResidual, res.DualResidual}
		}
		copy(y, lr.l.Expand(lr.y))
		t1 := time.Now()
		rep.Lifted.Seconds.Solve = t1.Sub(t0).Seconds()
		rw, hres := lr.primal(in, emptySoft)
		rep.LPPrimalValue, rep.LPPrimalResidual = rw, math.Max(hres, 0)
		if g, source, err = lr.certify(ctx, constant, opt.DualSweeps); err != nil {
			return nil, err
		}
		rep.Lifted.Seconds.Certify = time.Since(t1).Seconds()
	} else {
		if p.NumPotentials()+p.NumConstraints() > 0 {
			s, err := admm.NewContext(ctx, p, opt.ADMM)
			if err != nil {
				return nil, err
			}
			res, err := s.Solve(ctx, nil)
			if err != nil {
				return nil, err
			}
			// Variables in no clause keep ADMM's start value 0; any value will do.
			copy(y, res.Values)
			pot, con = s.Duals()
			rep.ADMM = ADMMReport{res.Iterations, res.Status, res.Converged(), res.PrimalResidual, res.DualResidual}
		}
		rw, hres, err := relaxedWeight(ctx, in, y)
		if err != nil {
			return nil, err
		}
		rep.LPPrimalValue, rep.LPPrimalResidual = rw, math.Max(hres, 0)
		// Certify: the best of several dual-feasible points.
		if g, source, err = certify(ctx, in, ix, rel, y, pot, con, opt.DualSweeps); err != nil {
			return nil, err
		}
	}
	cs := NewCostScale(in)
	ub := W - g
	if in.IntegerWeights() {
		ub = math.Floor(ub + cs.Tol(g)) // the bound's rounding error allowed
	}
	rep.LPUpperBound, rep.LPBoundSource = ub, source
	tRelax := time.Now()
	rep.Seconds.Relax = tRelax.Sub(start).Seconds()

	// Round.
	var r *rounded
	if lr != nil {
		if opt.AtomRounding {
			rep.Lifted.RoundingNote = "atoms rounded one by one as asked (Options.AtomRounding)"
		} else {
			cr, _, ci, why, err := lr.roundClasses(ctx, in, ix, hw)
			switch {
			case err != nil:
				return nil, err
			case cr == nil:
				rep.Lifted.RoundingNote = why
			case cr.HardViolated > 0:
				rep.Lifted.RoundingNote = fmt.Sprintf("the world rounded on the classes violates %d hard clause(s); rounded atom by atom instead", cr.HardViolated)
			default:
				r = cr
				rep.Lifted.Rounding, rep.Lifted.ClassClauses = RoundClasses, ci.NumClauses()
			}
		}
	}
	if r == nil {
		if r, err = round(ctx, in, ix, y); err != nil {
			return nil, err
		}
	}
	rep.Rounding = RoundingReport{r.Method, r.Satisfied, r.HardViolated, r.ExpectedGW, r.ExpectedPlain}
	x, sat, hv := r.X, r.Satisfied, r.HardViolated
	tRound := time.Now()
	rep.Seconds.Round = tRound.Sub(tRelax).Seconds()

	// Local search, or repair of violated hard clauses.
	steps := opt.LocalSearch
	if hv > 0 && steps < opt.RepairSteps {
		steps = opt.RepairSteps
	}
	// Nothing to gain when the rounding is proven optimal, and nothing to
	// repair when the hard clauses are proven unsatisfiable.
	if steps > 0 && !(hv == 0 && cs.Proven(in.FalsifiedWeight(x), W-ub)) && ub >= -cs.Tol(W-sat) {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x5851f42d4c957f2d))
		wr := walk(ctx, in, ix, append([]bool(nil), x...), WalkOptions{Steps: steps, Noise: opt.Noise}, rng)
		x, sat, hv = wr.X, wr.Satisfied, wr.HardViolated
		rep.LocalSearch = LocalSearchReport{Steps: steps, Flips: wr.Flips, Weight: sat}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	rep.Seconds.LocalSearch = time.Since(tRound).Seconds()

	rep.WeightSatisfied, rep.HardViolated = sat, hv
	tol := cs.Tol(W - sat) // rounding error allowed in the bound's arithmetic
	rep.Infeasible = ub < -tol
	rep.RoundedWeights = in.RoundedWeights()
	rep.Optimal = hv == 0 && cs.Proven(in.FalsifiedWeight(x), W-ub) &&
		(rep.RoundedWeights == 0 || in.CostText(x) == "0")
	switch {
	case hv > 0:
		rep.CertifiedRatio = 0
	case ub <= tol:
		rep.CertifiedRatio = 1
	default:
		rep.CertifiedRatio = math.Min(1, sat/ub)
	}
	rep.Seconds.Total = time.Since(start).Seconds()
	return &Result{X: x, Relaxed: y, Report: rep}, nil
}

// certify returns the best lower bound g on the LP optimum over the
// dual-feasible points it tries, and which one gave it. Its passes look at
// ctx every few thousand literals; once ctx is done it returns its error.
func certify(ctx context.Context, in *Instance, ix *index, rel *relaxation, y, pot, con []float64, sweeps int) (float64, string, error) {
	hw := hardWeight(in)
	constant, emptyHard := emptyClauses(in)
	best, source := 0.0, "trivial"
	try := func(g float64, s string) {
		if !math.IsNaN(g) && !math.IsInf(g, 0) && g > best {
			best, source = g, s
		}
	}
	withEmpty := func(lambda []float64) []float64 {
		for _, c := range emptyHard {
			lambda[c] = hw
		}
		return lambda
	}
	if pot != nil {
		// The Lagrangian bound of the per-copy duals keeps whatever
		// disagreement remains between a term's copies (unlike projecting
		// them onto per-clause multipliers, below), so an ADMM run that
		// stopped early still gives a bound close to its objective.
		g := admm.LowerBound(rel.Problem, pot, con) + constant
		if len(emptyHard) > 0 {
			g += float64(len(emptyHard)) * hw
		}
		try(g, "admm-duals")
		if err := tryDual(ctx, in, ix, sweeps, withEmpty(lambdaFromDuals(in, rel, pot, con)), "clause-duals", try); err != nil {
			return 0, "", err
		}
	}
	lambda, err := lambdaFromPrimal(ctx, in, y, 1e-3)
	if err != nil {
		return 0, "", err
	}
	if err := tryDual(ctx, in, ix, sweeps, withEmpty(lambda), "slackness", try); err != nil {
		return 0, "", err
	}
	return best, source, nil
}

// tryDual improves the multipliers lambda by coordinate ascent and offers
// the value of the result to try as source.
func tryDual(ctx context.Context, in *Instance, ix *index, sweeps int, lambda []float64, source string, try func(float64, string)) error {
	d, err := newDual(ctx, in, ix, lambda)
	if err != nil {
		return err
	}
	if err := d.ascend(ctx, sweeps, 1e-9); err != nil {
		return err
	}
	g, err := d.value(ctx)
	if err != nil {
		return err
	}
	try(g, source)
	return nil
}

// emptyClauses returns the weight of the empty soft clauses and the empty
// hard clauses, which the relaxation leaves out: empty soft clauses are
// always unsatisfied (they add their weight to the LP optimum); an empty
// hard clause makes the LP infeasible, and any multiplier, here
// hardWeight, is dual-feasible and proves it.
func emptyClauses(in *Instance) (soft float64, hard []int) {
	hard = make([]int, 0)
	for c := range in.Weight {
		if in.Start[c] == in.Start[c+1] {
			if in.Hard[c] {
				hard = append(hard, c)
			} else {
				soft += in.Weight[c]
			}
		}
	}
	return soft, hard
}

// SolveProblem solves a clause-shaped HL-MRF as MAX-SAT: it is FromProblem
// followed by Solve, so p's variables are the assignment's variables and a
// potential or constraint that is not a clause is an error naming it. This
// is discrete MAP inference for PSL models whose rules are all clauses.
func SolveProblem(ctx context.Context, p *hlmrf.Problem, opt Options) (*Result, error) {
	in, err := fromProblem(ctx, p)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("maxsat: %w", err)
		}
		return nil, err
	}
	res, err := Solve(ctx, in, opt)
	if err != nil {
		return nil, fmt.Errorf("maxsat: %w", err)
	}
	return res, nil
}

// lambdaFromDuals projects per-copy duals onto per-clause multipliers:
// lambda_c is the mean over the clause's copies of -alpha_k/a_k, which at an
// ADMM fixed point is theta*w for every copy (admm.Solver.Duals).
func lambdaFromDuals(in *Instance, rel *relaxation, pot, con []float64) []float64 {
	lambda := make([]float64, in.NumClauses())
	p := rel.Problem
	set := func(c int32, coef, alpha []float64) {
		if len(coef) == 0 {
			return
		}
		var s float64
		for k := range coef {
			s -= alpha[k] / coef[k]
		}
		lambda[c] = s / float64(len(coef))
	}
	for i, c := range rel.PotClause {
		a, b := p.Start[i], p.Start[i+1]
		set(c, p.Coef[a:b], pot[a:b])
	}
	for j, c := range rel.ConClause {
		a, b := p.CStart[j], p.CStart[j+1]
		set(c, p.CCoef[a:b], con[a:b])
	}
	return lambda
}
