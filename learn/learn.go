package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/recession"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// Method is a weight-learning method.
type Method int

const (
	// MLE is maximum likelihood by the voted (structured) perceptron: the
	// expectation in the gradient is replaced by the MAP state.
	MLE Method = iota
	// MPLE is maximum pseudo-likelihood, with exact one-dimensional integrals.
	MPLE
	// PPLL is maximum piecewise pseudo-likelihood (Embar et al.): MPLE with each
	// conditional restricted to one rule at a time.
	PPLL
)

// String returns "mle", "mple" or "ppll".
func (m Method) String() string {
	switch m {
	case MLE:
		return "mle"
	case MPLE:
		return "mple"
	case PPLL:
		return "ppll"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod reads a method name, case-insensitively: mle (also PSL's
// VotedPerceptron and MaxLikelihoodMPE), mple (also MaxPseudoLikelihood),
// ppll (also PiecewisePseudoLikelihood and pslpython's
// MaxPiecewisePseudoLikelihood).
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mle", "votedperceptron", "maxlikelihoodmpe", "perceptron":
		return MLE, nil
	case "mple", "maxpseudolikelihood", "pseudolikelihood", "pl":
		return MPLE, nil
	case "ppll", "piecewisepseudolikelihood", "maxpiecewisepseudolikelihood":
		return PPLL, nil
	}
	return 0, fmt.Errorf("unknown learning method %q (want mle, mple or ppll; PSL's VotedPerceptron, MaxLikelihoodMPE, MaxPseudoLikelihood and MaxPiecewisePseudoLikelihood are accepted)", s)
}

// Options configure Learn. Start from DefaultOptions.
type Options struct {
	Method Method
	// Iterations: for MLE the number of perceptron steps; for MPLE and PPLL
	// the largest number of projected-gradient iterations.
	Iterations int
	// StepSize is the perceptron's step (MLE only): each step adds
	// StepSize * (Phi_r(MAP) - Phi_r(truth)) / n_r to w_r, n_r the number of
	// ground potentials of rule r.
	StepSize float64
	// L2 is the weight of the regulariser L2/2 * ||w||^2 (see the package
	// documentation for the scale it applies to).
	L2 float64
	// Tol stops early: MLE when no weight moves by more than
	// Tol*max(1, largest weight) in a step; MPLE/PPLL when the projected
	// gradient's largest entry is at most Tol.
	Tol float64
	// Seed: see PLOptions.Seed. The perceptron has no random choices.
	Seed uint64
	// Threads for the pseudo-likelihood; 0 means GOMAXPROCS. ADMM has its
	// own ADMM.Threads.
	Threads int
	// Constraints says how hard constraints enter MPLE and PPLL.
	Constraints ConstraintMode
	// ADMM configures the MAP inference of the perceptron.
	ADMM admm.Options
	// Progress, if set, is called after every iteration.
	Progress func(Step)
}

// DefaultOptions returns MLE with 25 steps of size 1 (PSL 2.3's voted
// perceptron defaults), no regularisation, Tol 1e-6, and PSL's ADMM defaults
// except ConstraintTol (DefaultMAPConstraintTol), with no gap test (GapTol 0); with Method MPLE or PPLL,
// Iterations 25 means at most 25 projected-gradient iterations, so callers
// switching method usually raise it (the CLI uses 200).
func DefaultOptions() Options {
	a := admm.DefaultOptions()
	a.ConstraintTol = DefaultMAPConstraintTol
	// PSL's residual test alone (no gap test) for the warm-started MAP
	// solves of every step: the gap test makes learning slower and barely
	// moves the learned weights (bench/learning/README.md).
	a.GapTol = 0
	return Options{Method: MLE, Iterations: 25, StepSize: 1, Tol: 1e-6, ADMM: a}
}

// DefaultMAPConstraintTol is the hard-constraint tolerance of the
// perceptron's MAP solves. The perceptron needs Phi_r(MAP), not a MAP state
// feasible to admm.DefaultConstraintTol (1e-4), and the tighter tolerance
// mostly keeps ADMM running while the learned weights barely change
// (bench/learning/README.md has the figures).
const DefaultMAPConstraintTol = 1e-2

// Step is one iteration of learning.
type Step struct {
	Iteration int
	// Objective: for MLE the energy gap E_w(truth) - E_w(MAP) (>= 0 up to
	// the MAP's tolerance; 0 when the truth is a MAP state) plus the
	// regulariser; for MPLE/PPLL the objective F(w) of PseudoLikelihood.
	Objective float64
	// GradNorm is the Euclidean norm of the (projected, for MPLE/PPLL)
	// gradient over the learned weights.
	GradNorm float64
	// Weights are the weights after the step, one per rule (for MLE the
	// running average, which is what Learn returns).
	Weights []float64
	// ADMMIterations is the MAP solve's iteration count (MLE).
	ADMMIterations int
	// Seconds since learning started.
	Seconds float64
}

// TruthStats describes the truth vector learning used.
type TruthStats struct {
	Targets   int `json:"targets"`    // variables of the ground problem
	WithTruth int `json:"with_truth"` // targets with a truth value
	Missing   int `json:"missing"`    // targets without one: taken as 0 (PSL's closed truth database)
	Nonzero   int `json:"nonzero"`    // targets whose truth value is > 0
}

// Result is the outcome of Learn.
type Result struct {
	Method Method
	// Weights are the learned weights, one per rule in model order; a rule
	// that was not learned (hard, or without groundings) keeps its weight.
	Weights []float64
	// Initial are the rules' weights before learning.
	Initial []float64
	// Learned tells which rules had their weight learned.
	Learned []bool
	// NoGroundings lists weighted rules without ground potentials: their
	// weight is left unchanged.
	NoGroundings []int
	// Objective is the final objective (see Step.Objective); for MLE the
	// energy gap at the returned (averaged) weights is not recomputed, so it
	// is the last step's.
	Objective  float64
	Iterations int
	Converged  bool
	History    []Step
	Truth      TruthStats
	// Lines describes the pseudo-likelihood's conditionals (MPLE, PPLL).
	Lines *LineStats
	// TruthBreaks lists the hard rules whose ground constraints the truth
	// values break: under the model the training world has probability 0.
	TruthBreaks []TruthBreak
	// Unbounded lists the directions in which the objective keeps
	// decreasing as learned weights grow without bound (MPLE and PPLL
	// without L2; for MLE, rules the truth never violates): there is no
	// finite optimum, so Converged is false and the weights returned are
	// where the optimiser stopped.
	Unbounded []Unbounded
	// Warnings are things a user should know (rules without groundings,
	// targets without truth, an all-zero truth).
	Warnings []string
	Seconds  float64

	zeroAt int // MLE: the first step after which every learned weight was 0
}

// TruthBreak is a hard rule whose ground constraints the truth values
// break (by more than truthBreakTol).
type TruthBreak struct {
	Rule        int `json:"rule"`        // index in the model
	Constraints int `json:"constraints"` // ground constraints broken
	// Missing counts the atoms of those constraints that have no truth
	// value and are taken as 0, each once.
	Missing int `json:"missing"`
	// Example is the first broken constraint with its value at the truth,
	// e.g. "Label('c', 'x') + Label('c', 'y') = 1 is 0".
	Example string `json:"example"`
}

// truthBreakTol is how far a hard constraint may be off at the truth
// values without counting as broken (values written with a few digits).
const truthBreakTol = 1e-6

// truthBreaks finds the ground hard constraints of g that the truth values
// break, by rule; missing marks the variables without a truth value.
func truthBreaks(g *ground.Result, truth []float64, missing []bool) []TruthBreak {
	p := g.Problem
	byRule := map[int32]int{} // rule -> index in out
	var out []TruthBreak
	var counted []map[int32]bool // per entry of out, the missing variables counted
	for c := range p.NumConstraints() {
		vars, _ := p.CTerms(c)
		if len(vars) == 0 {
			// Broken by the observations alone (grounding keeps such a
			// constraint without terms): no truth value is involved.
			continue
		}
		d := p.CArg(c, truth)
		if !brokenAt(p.CKind[c], d) {
			continue
		}
		r := p.CGroup[c]
		i, ok := byRule[r]
		if !ok {
			i = len(out)
			byRule[r] = i
			out = append(out, TruthBreak{Rule: int(r), Example: constraintString(g, c, d)})
			counted = append(counted, map[int32]bool{})
		}
		out[i].Constraints++
		for _, v := range vars {
			if missing[v] && !counted[i][v] {
				counted[i][v] = true
				out[i].Missing++
			}
		}
	}
	return out
}

// constraintString writes ground constraint c of g with its atoms, and the
// value d + const its left side has at the truth: "A + B = 1 is 0".
func constraintString(g *ground.Result, c int, d float64) string {
	text := g.Problem.ConstraintText(c, func(v int32) string { return store.AtomString(g.Vars[v].Pred, g.Args(int(v))) })
	return textfile.Clip(text + " is " + strconv.FormatFloat(d+g.Problem.CConst[c], 'g', -1, 64))
}

// brokenAt reports whether a constraint of kind whose left side less its
// constant is d at the truth breaks by more than truthBreakTol.
func brokenAt(kind hlmrf.ConstraintKind, d float64) bool {
	if kind == hlmrf.Equal {
		return math.Abs(d) > truthBreakTol
	}
	return d > truthBreakTol
}

// ErrNoTruth is returned (wrapped) when no target atom has a truth value.
var ErrNoTruth = errors.New("no truth values")

// ErrNothingToLearn is returned (wrapped) when no learned weight could
// change anything: no weighted rule has ground potentials, or every
// pseudo-likelihood conditional is fixed by the hard constraints.
var ErrNothingToLearn = errors.New("nothing to learn")

// Truth returns the truth value of every variable of g (the store's target
// atoms), 0 where the store has none (PSL's closed truth database), and
// counts. It fails when no target has a truth value.
func Truth(g *ground.Result, s *store.Store) ([]float64, TruthStats, error) {
	y, _, st, err := truthValues(g, s)
	return y, st, err
}

// truthValues is Truth, also marking the variables without a truth value.
func truthValues(g *ground.Result, s *store.Store) ([]float64, []bool, TruthStats, error) {
	y := make([]float64, len(g.Vars))
	missing := make([]bool, len(g.Vars))
	st := TruthStats{Targets: len(g.Vars)}
	if len(g.Vars) == 0 {
		return nil, nil, st, fmt.Errorf("%w: the ground problem has no target atoms", ErrNothingToLearn)
	}
	for v, ref := range g.Vars {
		if !s.HasTruth(ref.Pred) {
			st.Missing++
			missing[v] = true
			continue
		}
		args := s.Table(ref.Pred).Args(ref.Row)
		tt := s.Truth(ref.Pred)
		if row, ok := tt.Find(args); ok {
			y[v] = tt.Value(row)
			st.WithTruth++
			if y[v] > 0 {
				st.Nonzero++
			}
		} else {
			st.Missing++
			missing[v] = true
		}
	}
	if st.WithTruth == 0 {
		return nil, nil, st, fmt.Errorf("%w: none of the %d target atoms has a truth value; weight learning needs truth data (a truth: section in the .data file, or \"truth\" in the JSON config's split)", ErrNoTruth, st.Targets)
	}
	return y, missing, st, nil
}

// Learn learns the weights of m's weighted rules from the truth values in s,
// over the ground problem g (grounded once from m and s; g.Problem's
// potentials carry Group = rule index). The weights of g.Problem are updated
// in place, to the learned ones when Learn returns, so inference can follow
// on the same ground problem; m is not modified (see Result.Weights).
func Learn(ctx context.Context, g *ground.Result, s *store.Store, m *model.Model, opt Options) (*Result, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	p := g.Problem
	R := len(m.Rules)
	count := make([]int, R)
	for i, grp := range p.Group {
		if grp < 0 || int(grp) >= R {
			return nil, fmt.Errorf("ground potential %d belongs to rule %d, but the model has %d rules", i, grp, R)
		}
		count[grp]++
	}
	truth, missing, ts, err := truthValues(g, s)
	if err != nil {
		return nil, err
	}
	res := &Result{Method: opt.Method, Truth: ts, Weights: make([]float64, R), Initial: make([]float64, R), Learned: make([]bool, R)}
	for r, rule := range m.Rules {
		res.Initial[r] = rule.Weight
		res.Weights[r] = rule.Weight
		if !rule.Weighted {
			continue
		}
		if count[r] == 0 {
			res.NoGroundings = append(res.NoGroundings, r)
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: rule has no ground potentials; its weight %g is left unchanged", rulePos(rule), rule.Weight))
			continue
		}
		res.Learned[r] = true
	}
	if ts.Missing > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d target atoms have no truth value and are taken as 0", ts.Missing, ts.Targets))
	}
	if ts.Nonzero == 0 {
		res.Warnings = append(res.Warnings, "every truth value is 0: the learned weights can only favour rules satisfied by all-false targets")
	}
	res.TruthBreaks = truthBreaks(g, truth, missing)
	for _, b := range res.TruthBreaks {
		res.Warnings = append(res.Warnings, truthBreakWarning(m, b, opt.Method))
	}
	if !slices.Contains(res.Learned, true) {
		return nil, fmt.Errorf("%w: no weighted rule has ground potentials", ErrNothingToLearn)
	}
	// Weights of the ground problem follow the rules' weights.
	setWeights(p, res.Weights, res.Learned)
	switch opt.Method {
	case MLE:
		err = perceptron(ctx, g, truth, res, opt, count, start)
		for _, u := range res.Unbounded {
			res.Warnings = append(res.Warnings, unboundedWarning(m, u, opt.Method, res.Weights))
		}
	default:
		err = pseudoLikelihood(ctx, g, m, truth, res, opt, start)
	}
	for r, w := range res.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, fmt.Errorf("learning produced weight %v for rule %d (a bug: please report)", w, r)
		}
	}
	if err == nil {
		res.Warnings = append(res.Warnings, degenerate(res)...)
	}
	setWeights(p, res.Weights, res.Learned)
	res.Seconds = time.Since(start).Seconds()
	return res, err
}

// truthBreakWarning says that the truth breaks hard rule b.Rule, what
// that means and what to do.
func truthBreakWarning(m *model.Model, b TruthBreak, method Method) string {
	rule := m.Rules[b.Rule]
	msg := fmt.Sprintf("the truth values break %d ground constraint(s) of the hard rule %s %s (e.g. %s), so the model gives the training world probability 0",
		b.Constraints, rulePos(rule), ruleText(rule), b.Example)
	if b.Missing > 0 {
		msg += fmt.Sprintf("; %d of their atoms have no truth value and are taken as 0: give them truth values, or leave them out of the targets", b.Missing)
	}
	if method == MLE {
		msg += "; the perceptron compares MAP states, which keep the constraint, with a truth that does not"
	} else {
		msg += "; pseudo-likelihood drops the conditionals of their atoms that the broken constraint leaves no room (counted as fixed by constraints)"
	}
	return msg + "; fix the data or make the rule soft"
}

// zeroWeight is the largest weight counted as 0 (projected gradient steps
// can end a rounding error above it).
const zeroWeight = 1e-12

// degenerate says when a learning run's answer is not a fit, though it
// converged: every learned weight 0 (the objective is best with no rule at
// all), or the perceptron's iterate driven to 0, where the energy gap is 0
// whatever the truth (the averaged weights it returns then mostly reflect
// the initial ones).
func degenerate(res *Result) []string {
	zero := true
	for r, l := range res.Learned {
		if l && res.Weights[r] > zeroWeight {
			zero = false
		}
	}
	var out []string
	if zero {
		out = append(out, fmt.Sprintf("every learned weight is 0: %s found the training truth best explained by no rule at all (objective %.6g), so the written model gives the rules no say; the rules may not fit this data as written, or the truth be too small or contradict the hard constraints", res.Method, res.Objective))
	}
	if res.Method == MLE && res.zeroAt > 0 && !zero {
		out = append(out, fmt.Sprintf("the perceptron's weights all reached 0 at step %d, where every state has energy 0: the energy gap of 0 and \"converged\" mean no fit, and the weights written are the average of every step, those zeros included (try a smaller --step-size or more --iterations, or another --method)", res.zeroAt))
	}
	return out
}

// setWeights gives every ground potential of a learned rule r the weight
// w[r].
func setWeights(p *hlmrf.Problem, w []float64, learned []bool) {
	for i, grp := range p.Group {
		if learned[grp] {
			p.Weight[i] = w[grp]
		}
	}
}

// ruleText is r as written (formatted when it was built in code),
// clipped for a message.
func ruleText(r *model.Rule) string {
	if r.Text != "" {
		return textfile.Clip(r.Text)
	}
	return textfile.Clip(syntax.Format(r))
}

// rulePos is where r was written, or its index.
func rulePos(r *model.Rule) string {
	if r.Pos.IsValid() {
		return r.Pos.String()
	}
	return fmt.Sprintf("rule %d", r.Index)
}

// Validate reports the first option that is out of range.
func (o *Options) Validate() error {
	switch {
	case o.Method != MLE && o.Method != MPLE && o.Method != PPLL:
		return fmt.Errorf("unknown method %d", o.Method)
	case o.Iterations < 1:
		return fmt.Errorf("iterations %d: must be >= 1", o.Iterations)
	case o.Method == MLE && !(o.StepSize > 0 && !math.IsInf(o.StepSize, 0)):
		return fmt.Errorf("step size %v: must be a finite number > 0", o.StepSize)
	case !(o.L2 >= 0) || math.IsInf(o.L2, 0):
		return fmt.Errorf("L2 %v: must be a finite number >= 0", o.L2)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("tolerance %v: must be a finite number >= 0", o.Tol)
	case o.Threads < 0:
		return fmt.Errorf("threads %d: must be >= 0", o.Threads)
	}
	if o.Method == MLE {
		if err := o.ADMM.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// pseudoLikelihood runs MPLE or PPLL.
func pseudoLikelihood(ctx context.Context, g *ground.Result, m *model.Model, truth []float64, res *Result, opt Options, start time.Time) error {
	obj, err := NewPseudoLikelihood(g.Problem, truth, res.Learned, PLOptions{
		Constraints: opt.Constraints, Piecewise: opt.Method == PPLL, L2: opt.L2, Threads: opt.Threads, Seed: opt.Seed,
	})
	if err != nil {
		return err
	}
	st := obj.Stats()
	res.Lines = &st
	if st.Lines == 0 {
		return fmt.Errorf("%w: no conditional of the pseudo-likelihood depends on a learned weight (every target is fixed by the hard constraints, or no potential changes with a target)", ErrNothingToLearn)
	}
	if st.TruthViolations > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the truth violates hard constraints in %d conditionals; their intervals were widened to include the truth", st.TruthViolations))
	}
	out, err := projectedGradient(ctx, obj.ValueGradient, res.Weights, res.Learned, opt.Iterations, opt.Tol,
		func(it int, f float64, x, g []float64) {
			stp := Step{Iteration: it, Objective: f, GradNorm: projectedNorm(x, g, res.Learned),
				Weights: append([]float64(nil), x...), Seconds: time.Since(start).Seconds()}
			res.History = append(res.History, stp)
			if opt.Progress != nil {
				opt.Progress(stp)
			}
		})
	copy(res.Weights, out.x)
	res.Objective, res.Iterations, res.Converged = out.f, out.iters, out.converged
	if err != nil {
		return err
	}
	// Without a regulariser F may have no minimiser: it keeps decreasing
	// as some weights grow, and the optimiser stops wherever its gradient
	// has become small. Such a run has not converged to anything.
	unb, checked := obj.Unbounded()
	res.Unbounded = unb
	if len(unb) > 0 {
		res.Converged = false
		for _, u := range unb {
			res.Warnings = append(res.Warnings, unboundedWarning(m, u, opt.Method, res.Weights))
		}
	}
	if !out.converged && len(unb) == 0 { // else the unbounded warnings say why
		msg := fmt.Sprintf("not converged after %d iterations (largest projected gradient entry %.3g > tolerance %g)", out.iters, out.pgNorm, opt.Tol)
		res.Warnings = append(res.Warnings, msg)
	}
	if !checked {
		res.Warnings = append(res.Warnings, fmt.Sprintf("without L2 regularisation the objective may keep decreasing as several rules' weights grow together; that was not checked (more than %d conditions to check): add --l2 to be sure the optimum is finite", recession.MaxLP))
	}
	return nil
}

// projectedNorm is the Euclidean norm of the projected gradient
// P(x - g) - x over the free entries.
func projectedNorm(x, g []float64, free []bool) float64 {
	s := 0.0
	for i := range x {
		if free[i] {
			d := max(x[i]-g[i], 0) - x[i]
			s += d * d
		}
	}
	return math.Sqrt(s)
}

// perceptron runs the voted perceptron (MLE).
func perceptron(ctx context.Context, g *ground.Result, truth []float64, res *Result, opt Options, count []int, start time.Time) error {
	p := g.Problem
	R := len(res.Weights)
	phiTruth := incompatibilities(p, truth, R)
	solver, err := admm.NewContext(ctx, p, opt.ADMM)
	if err != nil {
		return err
	}
	w := append([]float64(nil), res.Weights...)
	sum := make([]float64, R)
	grad := make([]float64, R)
	steps := 0
	for it := 1; it <= opt.Iterations; it++ {
		setWeights(p, w, res.Learned)
		map_, err := solver.Solve(ctx, nil)
		if err != nil {
			if steps > 0 {
				average(res.Weights, res.Learned, sum, steps)
			}
			return fmt.Errorf("MAP inference at step %d: %w", it, err)
		}
		phiMap := incompatibilities(p, map_.Values, R)
		gap, reg, norm, move, wmax := 0.0, 0.0, 0.0, 0.0, 1.0
		for r := range R {
			if !res.Learned[r] {
				continue
			}
			gap += w[r] * (phiTruth[r] - phiMap[r])
			reg += opt.L2 / 2 * w[r] * w[r]
			grad[r] = (phiMap[r]-phiTruth[r])/float64(count[r]) - opt.L2*w[r]
			norm += grad[r] * grad[r]
			nw := max(0, w[r]+opt.StepSize*grad[r])
			move = max(move, math.Abs(nw-w[r]))
			w[r] = nw
			wmax = max(wmax, nw)
			sum[r] += nw
		}
		steps++
		if res.zeroAt == 0 && allZero(w, res.Learned) {
			res.zeroAt = it
		}
		avg := slices.Clone(res.Weights)
		average(avg, res.Learned, sum, steps)
		stp := Step{Iteration: it, Objective: gap + reg, GradNorm: math.Sqrt(norm), Weights: avg,
			ADMMIterations: map_.Iterations, Seconds: time.Since(start).Seconds()}
		res.History = append(res.History, stp)
		res.Objective = stp.Objective
		res.Iterations = it
		if opt.Progress != nil {
			opt.Progress(stp)
		}
		if move <= opt.Tol*wmax {
			res.Converged = true
			break
		}
	}
	average(res.Weights, res.Learned, sum, steps)
	if opt.L2 == 0 {
		// The likelihood the perceptron approximates has no maximum along
		// a rule the truth never violates: its term is -w_r * 0 - log Z(w),
		// and log Z falls as w_r grows. The perceptron stops once the MAP
		// state also satisfies the rule, at a weight that says nothing.
		for r, l := range res.Learned {
			if l && phiTruth[r] <= atTruth*float64(count[r]) {
				res.Unbounded = append(res.Unbounded, Unbounded{Rules: []int{r}, Direction: []float64{1}})
			}
		}
		if len(res.Unbounded) > 0 {
			res.Converged = false
		}
	}
	return nil
}

// allZero reports whether every learned entry of w is 0.
func allZero(w []float64, learned []bool) bool {
	for r, x := range w {
		if learned[r] && x != 0 {
			return false
		}
	}
	return true
}

// average sets the learned entries of w to the running averages sum/steps.
func average(w []float64, learned []bool, sum []float64, steps int) {
	for r := range w {
		if learned[r] {
			w[r] = sum[r] / float64(steps)
		}
	}
}

// incompatibilities returns Phi_r(y), the summed incompatibility of each
// group's potentials at y; every group is in 0..groups-1 (Learn checks).
func incompatibilities(p *hlmrf.Problem, y []float64, groups int) []float64 {
	phi := make([]float64, groups)
	for i, grp := range p.Group {
		phi[grp] += p.Incompatibility(i, y)
	}
	return phi
}
