package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/logistic"
	"github.com/hinge-srl/hinge/internal/optimctx"
	"github.com/hinge-srl/hinge/internal/recession"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/srcpos"
)

// LearnOptions configure generative weight learning.
type LearnOptions struct {
	// PriorStdDev is the standard deviation of the Gaussian prior on every
	// weight (Alchemy's -priorStdDev), centred on the formula's weight in
	// the program (0 for a formula written without one), as in Alchemy;
	// 0 means 100 (Alchemy's default for generative learning), a negative
	// value no prior.
	PriorStdDev float64
	// MaxIter bounds L-BFGS iterations (0: 1000).
	MaxIter int
	// Threads computes the pseudo-likelihood in parallel (0: all cores).
	Threads int
	// AtomWeights sums log P(x_a | rest) over the atoms with weight 1 each.
	// By default every atom of a predicate p weighs 1/N_p, N_p the number
	// of groundings of p (the product of its argument types' domain sizes),
	// so that each predicate counts the same whatever its arity: Alchemy's
	// default (its -gNoEqualPredWt gives atom weights).
	AtomWeights bool
	// Ground configures the grounder.
	Ground ground.Options
}

// maxParams bounds the learned weights (a +x formula has one per constant).
const maxParams = 1_000_000

// LearnedWeight is one learned weight: a formula's, or for a formula with
// +variables, the weight of one combination of their constants.
type LearnedWeight struct {
	// Formula is the formula's index in the program.
	Formula int `json:"formula"`
	// Constants are the constants of the formula's +variables (in the
	// order PlusVars gives); nil for a formula without +variables.
	Constants []string `json:"constants,omitempty"`
	// Text is the formula as written without its weight, its +variables
	// replaced by Constants (Formula.Instance): what the learned program
	// holds for this weight.
	Text string `json:"formula_text"`
	// Initial is the formula's weight in the program, Weight the learned
	// one.
	Initial float64 `json:"initial"`
	Weight  float64 `json:"learned"`
	// Clauses counts its ground clauses in the training world; with none,
	// nothing is learned and Weight is Initial.
	Clauses int `json:"ground_clauses"`
}

// LearnResult holds learned formula weights.
type LearnResult struct {
	// Weights has one weight per formula of the program (in order); a hard
	// formula has weight 0 and a fixed one (@w) its own, both with Learned
	// false. A formula with no ground clause in the training world keeps
	// its weight, Learned false. A formula with +variables keeps its own
	// weight here, with Learned set: its learned weights, one per
	// combination of constants, are in Params.
	Weights []float64 `json:"weights"`
	Learned []bool    `json:"learned"`
	// Params lists every learned weight, in program order (the instances
	// of a +x formula in the order of the domains' constants).
	Params []LearnedWeight `json:"params"`
	// Predicates are those whose atoms the pseudo-likelihood sums over
	// (the query predicates; every predicate when none is given).
	Predicates []string `json:"predicates"`
	// PLL is the (weighted, see LearnOptions.AtomWeights) pseudo-log-
	// likelihood at the learned weights, without the prior; Atoms the
	// number of unknown atoms it sums over.
	PLL     float64 `json:"pseudo_log_likelihood"`
	Atoms   int     `json:"atoms"`
	Clauses int     `json:"ground_clauses"`
	// HardViolated counts the ground hard clauses the training world
	// violates (a world of probability 0 under the model): pseudo-
	// likelihood leaves them out of every conditional; discriminative
	// learning refuses such a world.
	HardViolated int `json:"hard_violated"`
	Iter         int `json:"iterations"`
	// Status says why the optimiser stopped; Converged is false when it
	// stopped at its iteration limit (or for a reason other than a small
	// gradient or no more progress), in which case the weights are not
	// the optimum.
	Status    string `json:"status"`
	Converged bool   `json:"converged"`
	// GradNorm is the largest component of the objective's gradient (the
	// negated pseudo-log-likelihood plus the prior) at the weights
	// returned.
	GradNorm float64 `json:"gradient_norm"`
	// Unbounded lists, without a prior, the directions in which the
	// pseudo-log-likelihood keeps rising as weights grow (or fall) without
	// bound: it has no maximum then, Converged is false, and the weights
	// are where L-BFGS stopped.
	Unbounded []UnboundedWeights `json:"unbounded,omitempty"`
	// UnboundedUnchecked is set when, without a prior, combinations of
	// weights were too many to check for such directions.
	UnboundedUnchecked bool `json:"unbounded_unchecked,omitempty"`
	Seconds            struct {
		Ground float64 `json:"ground"`
		Learn  float64 `json:"learn"`
	} `json:"seconds"`
}

// LearnPLL learns the weights of prog's soft formulas from a training
// world by maximising the pseudo-log-likelihood (Besag; Richardson and
// Domingos 2006): the sum over the atoms of the query predicates of log
// P(x_a | its Markov blanket), each predicate's atoms weighted by one over
// its number of groundings unless opt.AtomWeights, with a Gaussian prior,
// by L-BFGS. With no query predicate every predicate is one, as in
// Alchemy's learnwts -g without -ne. The training world is the evidence:
// an atom of a query predicate that it does not list is false (closed
// world), and the atoms of the other predicates are given; the domains
// are the program's constants and those of the whole training world,
// whichever predicates are queried. A formula's weight is shared by its
// clauses (each counts w/n, as in inference) and may be negative; a +x
// formula learns one weight per constant (per combination of constants
// for several +variables), as Alchemy does. Fixed weights (@w) are kept.
// A training world in which no formula has a ground clause is an error.
func LearnPLL(ctx context.Context, prog *Program, training []GroundAtom, query []string, opt LearnOptions) (*LearnResult, error) {
	if opt.PriorStdDev == 0 {
		opt.PriorStdDev = 100
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 1000
	}
	if opt.Threads <= 0 {
		opt.Threads = runtime.GOMAXPROCS(0)
	}
	l, res, err := prepareLearning(ctx, prog, training, query, opt.Ground, true)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	pl := l.pl
	pl.threads = opt.Threads
	if opt.AtomWeights {
		pl.scale = nil
	}

	sigma2 := opt.PriorStdDev * opt.PriorStdDev
	mean := l.priorMeans()
	nw := len(l.learned)
	// objective is the negated pseudo-log-likelihood plus the prior, and
	// its gradient, at w.
	objective := func(w, grad []float64) float64 {
		f := -pl.eval(w, grad)
		for i := range w {
			grad[i] = -grad[i]
			if opt.PriorStdDev > 0 {
				// In units of the deviation, so that a wide prior keeps a
				// huge weight's term finite.
				z := (w[i] - mean[i]) / opt.PriorStdDev
				f += z * z / 2
				grad[i] += z / opt.PriorStdDev
			}
		}
		return f
	}
	// Jacobi preconditioning: L-BFGS runs on u = w / d, d_i one over the
	// square root of the objective's curvature in weight i at the start.
	// Weighing each predicate's atoms by one over its number of groundings
	// makes these curvatures differ by orders of magnitude (a predicate of
	// 9 groundings against one of 10^5), which slows L-BFGS down by as much.
	w0 := make([]float64, nw)
	if f0 := objective(w0, make([]float64, nw)); math.IsNaN(f0) || math.IsInf(f0, 0) {
		// L-BFGS would fail at once and leave every weight at 0.
		big := 0.0
		for _, m := range mean {
			big = max(big, math.Abs(m))
		}
		return nil, fmt.Errorf("mln: the objective is %v at the starting weights (all 0), so L-BFGS cannot start: the prior centred on the program's weights (the largest %g, standard deviation %g) overflows; write smaller weights, widen the prior's standard deviation or drop the prior", f0, big, opt.PriorStdDev)
	}
	d := pl.curvature(w0)
	for i := range d {
		if opt.PriorStdDev > 0 {
			d[i] += 1 / sigma2
		}
		d[i] = 1 / math.Sqrt(d[i])
		if math.IsInf(d[i], 0) || d[i] == 0 {
			d[i] = 1 // a weight nothing depends on
		}
	}
	// Func and Grad share one evaluation.
	last, lastF, lastG := make([]float64, nw), 0.0, make([]float64, nw)
	evaluated := false
	at := func(u []float64) {
		w := make([]float64, nw)
		for i := range u {
			w[i] = u[i] * d[i]
		}
		if evaluated && slices.Equal(w, last) {
			return
		}
		copy(last, w)
		lastF = objective(w, lastG)
		evaluated = true
	}
	problem := optimize.Problem{
		Func: func(u []float64) float64 {
			at(u)
			return lastF
		},
		Grad: func(grad, u []float64) {
			at(u)
			for i := range grad {
				grad[i] = lastG[i] * d[i]
			}
		},
	}
	settings := &optimize.Settings{MajorIterations: opt.MaxIter, GradientThreshold: 1e-6,
		Converger: optimctx.Converger{Ctx: ctx, Converger: &optimize.FunctionConverge{Absolute: 1e-10, Iterations: 100}}}
	r, err := optimize.Minimize(problem, w0, settings, &optimize.LBFGS{})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err != nil && r == nil {
		return nil, fmt.Errorf("mln: L-BFGS: %w", err)
	}
	res.Iter, res.Status = r.Stats.MajorIterations, r.Status.String()
	res.Converged = err == nil && (r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence)
	if err != nil {
		res.Status += ": " + err.Error()
	}
	for i := range r.X {
		r.X[i] *= d[i]
		if math.IsNaN(r.X[i]) || math.IsInf(r.X[i], 0) {
			return nil, errors.New("mln: L-BFGS diverged (a weight is not a number); try a prior (--prior-stddev)")
		}
	}
	grad := make([]float64, nw)
	objective(r.X, grad)
	res.GradNorm = floats.Norm(grad, math.Inf(1))
	l.finish(res, r.X)
	if opt.PriorStdDev < 0 {
		var decided bool
		res.Unbounded, decided = pl.unbounded(res.Params)
		res.UnboundedUnchecked = !decided
		if len(res.Unbounded) > 0 {
			res.Converged = false
		}
	}
	res.PLL = pl.eval(r.X, nil)
	res.Seconds.Learn = time.Since(start).Seconds()
	return res, nil
}

// param is one learned weight: a formula of the learning shape and, for a
// +x formula, the constants of one instance.
type param struct {
	f      *Formula
	consts []string
}

// learning is a training world grounded for weight learning: the ground
// clauses, which learned weight each carries (param, -1 for none) and its
// share of it, the training value of every unknown atom and its weight in
// the pseudo-likelihood (1/N_p for an atom of predicate p).
type learning struct {
	prog    *Program
	shape   *Program
	index   map[*Formula]int // shape formula -> place in the program
	learned []param          // the learned weights
	clauses []int            // ground clauses of each learned weight
	in      *maxsat.Instance // the ground clauses, unless streamed
	param   []int32
	share   []float64
	pl      *pseudoLikelihood // streamed: the pseudo-likelihood
	x       []bool
	scale   []float64
}

// prepareLearning grounds the training world (cancelled with ctx unless
// groundOpt has a Context of its own): the query predicates (every
// predicate when there are none) are open (an atom the training data does
// not list is false), every other predicate is evidence. streamed builds
// the pseudo-likelihood (learning.pl) from the ground clauses as they are
// grounded, without keeping them; otherwise the ground clauses are kept
// (learning.in, with param and share).
func prepareLearning(ctx context.Context, prog *Program, training []GroundAtom, query []string, groundOpt ground.Options, streamed bool) (*learning, *LearnResult, error) {
	start := time.Now()
	if groundOpt.Context == nil {
		groundOpt.Context = ctx
	}
	if len(prog.Formulas) == 0 {
		return nil, nil, errors.New("mln: the program has no formulas: nothing to learn")
	}
	if !slices.ContainsFunc(prog.Formulas, func(f *Formula) bool { return !f.Hard }) {
		return nil, nil, errors.New("mln: no soft formula to learn (every formula is hard)")
	}
	tw, err := buildTraining(prog, training, query)
	if err != nil {
		return nil, nil, err
	}
	shape, index, net, preds, truth := tw.shape, tw.index, tw.net, tw.preds, tw.truth

	// The learned weights: one per soft formula that is not fixed, one per
	// combination of constants for a +x formula (in the order Build
	// expands it).
	var learned []param
	slot := map[*Formula]map[string]int{}
	for _, f := range shape.Formulas {
		if f.Fixed || f.Hard {
			continue
		}
		slot[f] = map[string]int{}
		plus := PlusVars(f)
		if len(plus) == 0 {
			slot[f][""] = len(learned)
			learned = append(learned, param{f: f})
			continue
		}
		vt, err := varTypes(shape, f.F)
		if err != nil {
			return nil, nil, err
		}
		consts := make([]string, len(plus))
		var rec func(i int) error
		rec = func(i int) error {
			if i == len(plus) {
				if len(learned) >= maxParams {
					return srcpos.Errorf(f.Pos, "more than %d weights to learn (the +variables' constants)", maxParams)
				}
				slot[f][strings.Join(consts, "\x00")] = len(learned)
				learned = append(learned, param{f: f, consts: append([]string(nil), consts...)})
				return nil
			}
			for _, c := range net.Domains[vt[plus[i]]] {
				consts[i] = c
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return nil, nil, err
		}
	}
	if len(learned) == 0 {
		return nil, nil, errors.New("mln: every soft formula has a fixed weight (@w): nothing to learn")
	}

	// The unknown atoms (the grounder numbers the store's targets, before
	// and whatever it grounds), their training values and their weights
	// in the pseudo-likelihood.
	gr, err := ground.NewGrounder(net.Model, net.Store, groundOpt)
	if err != nil {
		return nil, nil, err
	}
	vars := gr.Vars()
	x := make([]bool, len(vars))
	scale := make([]float64, len(vars))
	for v, ref := range vars {
		x[v] = truth[AtomString(ref.Pred.Name, gr.Args(v))]
		n := 1.0
		for _, t := range prog.Pred(ref.Pred.Name).Types {
			n *= float64(len(net.Domains[t]))
		}
		scale[v] = 1 / n
	}
	// paramOf says which learned weight a ground clause of rule r carries
	// (-1: none) and its share (1/n of its formula's weight, -1/n for the
	// gathered clause of the formula's unit clauses, see FormulaClauses;
	// for a fixed (@w) formula the clause's weight, a constant).
	clauses := make([]int, len(learned))
	paramOf := func(r int32) (int32, float64) {
		info := net.Clauses[r]
		if info.Formula.Hard {
			return -1, 0 // grounded as a hard clause (Build's hard weight is 0), not a potential
		}
		if info.Formula.Fixed {
			return -1, info.Weight
		}
		s := slot[info.Formula][strings.Join(info.Plus, "\x00")]
		clauses[s]++
		return int32(s), info.Weight
	}
	l := &learning{prog: prog, shape: shape, index: index, learned: learned, clauses: clauses, x: x, scale: scale}
	var numClauses, hardViolated int
	if streamed {
		// The ground clauses pass through the pseudo-likelihood's builder
		// as the grounder makes them, and are not kept.
		b := newPLBuilder(x, len(learned))
		sink := &pllSink{b: b, paramOf: paramOf}
		opt := groundOpt
		opt.Sink = sink
		g, err := ground.Ground(net.Model, net.Store, opt)
		if err != nil {
			return nil, nil, err
		}
		if len(g.Vars) != len(vars) {
			return nil, nil, fmt.Errorf("mln: internal error: the grounder numbered %d atoms, then %d", len(vars), len(g.Vars))
		}
		numClauses, hardViolated = sink.clauses, b.hardViolated
		l.pl = b.finish(scale)
	} else {
		g, in, err := net.GroundClauses(groundOpt)
		if err != nil {
			return nil, nil, err
		}
		if in.NumVars != len(vars) {
			return nil, nil, fmt.Errorf("mln: internal error: the grounder numbered %d atoms, then %d", len(vars), in.NumVars)
		}
		l.in, l.param, l.share = in, make([]int32, in.NumClauses()), make([]float64, in.NumClauses())
		for c := range in.NumClauses() {
			l.param[c] = -1
			if c < g.Problem.NumPotentials() { // the others are hard clauses: hard formulas, functional arguments
				l.param[c], l.share[c] = paramOf(g.Problem.Group[c])
			}
		}
		numClauses = in.NumClauses()
		_, hardViolated = in.Eval(x)
	}
	if numClauses == 0 {
		return nil, nil, fmt.Errorf("mln: the formulas have no ground clauses over the training world (%d unknown atoms of %s): nothing to learn; check that the training database holds the constants and atoms the formulas need",
			len(vars), strings.Join(preds, ", "))
	}
	if slicesAllZero(clauses) {
		return nil, nil, fmt.Errorf("mln: no ground clause over the training world carries a weight to learn (%d ground clauses, all hard or fixed)", numClauses)
	}
	res := &LearnResult{Weights: make([]float64, len(prog.Formulas)), Learned: make([]bool, len(prog.Formulas)),
		Predicates: preds, Clauses: numClauses, Atoms: len(vars), HardViolated: hardViolated}
	res.Seconds.Ground = time.Since(start).Seconds()
	return l, res, nil
}

// trainingNet is a training world bound to a program as learning reads
// it: shape and index from learningShape, the network over the evidence
// (the training atoms of the other predicates), the query predicates and
// the query atoms' training values by AtomString.
type trainingNet struct {
	shape *Program
	index map[*Formula]int
	net   *Network
	preds []string
	truth map[string]bool
}

// buildTraining binds the training world to prog: the query predicates
// (every predicate when there are none) are open, an atom of theirs that
// training does not list is false, and every other predicate is evidence.
func buildTraining(prog *Program, training []GroundAtom, query []string) (*trainingNet, error) {
	isQuery := map[string]bool{}
	var preds []string
	for _, q := range query {
		if prog.Pred(q) == nil {
			return nil, prog.undeclared("query predicate", q)
		}
		if !isQuery[q] {
			isQuery[q] = true
			preds = append(preds, q)
		}
	}
	if len(preds) == 0 {
		for _, d := range prog.Preds {
			isQuery[d.Name] = true
			preds = append(preds, d.Name)
		}
	}
	shape, index, err := learningShape(prog, isQuery)
	if err != nil {
		return nil, err
	}
	var evidence []GroundAtom
	truth := map[string]bool{}
	for _, a := range training {
		if a.Value != 0 && a.Value != 1 {
			return nil, srcpos.Errorf(a.Pos, "training atoms must be true or false (soft evidence is for inference), found %v", a.Value)
		}
		if isQuery[a.Pred] {
			truth[AtomString(a.Pred, constants(a.Args))] = a.Value == 1
			continue
		}
		evidence = append(evidence, a)
	}
	net, err := Build(shape, evidence, Options{Query: preds, DomainAtoms: training})
	if err != nil {
		return nil, err
	}
	return &trainingNet{shape: shape, index: index, net: net, preds: preds, truth: truth}, nil
}

// HardViolated counts the ground clauses of prog's hard formulas that a
// training world violates, the world read as LearnPLL reads it (the
// query predicates, every predicate when there are none, open and false
// where training does not list them). The model gives such a world
// probability 0; a learner that makes hard formulas soft (an RRF's
// features) calls it to say so, as LearnPLL reports it in
// LearnResult.HardViolated.
func HardViolated(ctx context.Context, prog *Program, training []GroundAtom, query []string, groundOpt ground.Options) (int, error) {
	hard := *prog
	hard.Formulas = slices.DeleteFunc(slices.Clone(prog.Formulas), func(f *Formula) bool { return !f.Hard })
	if len(hard.Formulas) == 0 {
		return 0, nil
	}
	if groundOpt.Context == nil {
		groundOpt.Context = ctx
	}
	tw, err := buildTraining(&hard, training, query)
	if err != nil {
		return 0, err
	}
	g, in, err := tw.net.GroundClauses(groundOpt)
	if err != nil {
		return 0, err
	}
	x := make([]bool, in.NumVars)
	for v, ref := range g.Vars {
		x[v] = tw.truth[AtomString(ref.Pred.Name, g.Args(v))]
	}
	_, n := in.Eval(x)
	return n, nil
}

// pllSink passes the pieces of a grounding to a pseudo-likelihood builder.
type pllSink struct {
	mu      sync.Mutex
	b       *plBuilder
	paramOf func(rule int32) (int32, float64)
	clauses int
}

// Add takes one piece of the grounding: its potentials are soft clauses,
// its constraints hard ones.
func (s *pllSink) Add(piece *hlmrf.Problem) error {
	in, err := maxsat.FromProblem(piece)
	if err != nil {
		return fmt.Errorf("mln: the ground network is not a set of clauses: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range in.NumClauses() {
		if c < piece.NumPotentials() {
			p, share := s.paramOf(piece.Group[c])
			s.b.add(in.Clause(c), false, p, share)
		} else {
			s.b.add(in.Clause(c), true, -1, 0)
		}
	}
	s.clauses += in.NumClauses()
	return nil
}

// priorMeans are the prior's means: each learned weight's formula's weight
// in the program.
func (l *learning) priorMeans() []float64 {
	m := make([]float64, len(l.learned))
	for i, p := range l.learned {
		m[i] = l.prog.Formulas[l.index[p.f]].Weight
	}
	return m
}

func slicesAllZero(s []int) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

// finish records the learned weights (one per learned param) and the
// fixed ones in res.
func (l *learning) finish(res *LearnResult, w []float64) {
	for i := range l.prog.Formulas {
		res.Weights[i] = l.prog.Formulas[i].Weight
		if l.prog.Formulas[i].Hard {
			res.Weights[i] = 0
		}
	}
	for i, p := range l.learned {
		k := l.index[p.f]
		f := l.prog.Formulas[k]
		lw := LearnedWeight{Formula: k, Constants: p.consts, Text: f.Instance(p.consts), Initial: f.Weight, Weight: f.Weight, Clauses: l.clauses[i]}
		if lw.Clauses > 0 {
			lw.Weight = w[i]
			res.Learned[k] = true
			if p.consts == nil {
				res.Weights[k] = w[i]
			}
		}
		res.Params = append(res.Params, lw)
	}
}

// learningShape copies prog for learning: every soft formula with weight 1
// (fixed ones keep theirs) gives the ground structure, with the hard
// formulas, which decide the conditionals they take part in (an atom whose
// flip would break a hard clause the training world satisfies has
// conditional probability 1: its term drops out of the pseudo-likelihood;
// they were left out, and a weight learned beside !P(x). was pulled by
// P's conditionals as if P could be true), the query
// predicates are open and every other predicate closed (the training world
// is complete). index maps each copied formula to its place in prog.
func learningShape(prog *Program, isQuery map[string]bool) (*Program, map[*Formula]int, error) {
	index := map[*Formula]int{}
	shape := &Program{Types: prog.Types, TypeOrder: prog.TypeOrder, byName: map[string]*PredDecl{}}
	for _, d := range prog.Preds {
		c := *d
		c.Closed = !isQuery[d.Name]
		shape.Preds = append(shape.Preds, &c)
		shape.byName[c.Name] = &c
	}
	for i, f := range prog.Formulas {
		g := *f
		if !f.Fixed && !f.Hard {
			g.Weight = 1
		}
		index[&g] = i
		shape.Formulas = append(shape.Formulas, &g)
	}
	return shape, index, nil
}

// pseudoLikelihood evaluates sum_v scale_v log P(x_v | x_-v) and its
// gradient for tied clause weights w[param[c]]*share[c]. Flipping atom v
// changes its energy difference s_v = sum_p a_vp w_p + b_v, linear in the
// weights: only clauses with at most one true literal in the training world
// take part (a clause with two true literals on different atoms holds
// whichever atom flips), and each atom keeps one coefficient per weight
// (a) and a constant for the fixed weights (b), so an evaluation costs one
// pass over those coefficients.
type pseudoLikelihood struct {
	start   []int32 // CSR over atoms: coefficients start[v] to start[v+1]
	param   []int32
	coef    []float64
	bias    []float64
	scale   []float64 // weight of each atom's term; nil: 1
	fixed   []bool    // flipping v violates a hard clause: P(x_v | rest) = 1
	nw      int
	threads int
}

// newPseudoLikelihood indexes in for the pseudo-likelihood of world x:
// clause c carries learned weight param[c] (-1: none, then share[c] is a
// fixed weight, or nothing for a hard clause) times share[c]. scale weighs
// each atom's term (nil: every atom 1).
func newPseudoLikelihood(in *maxsat.Instance, param []int32, share []float64, x []bool, scale []float64, nw, threads int) *pseudoLikelihood {
	b := newPLBuilder(x, nw)
	for c := range in.NumClauses() {
		b.add(in.Clause(c), in.Hard[c], param[c], share[c])
	}
	pl := b.finish(scale)
	pl.threads = max(1, threads)
	return pl
}

// plBuilder gathers the pseudo-likelihood's coefficients clause by clause:
// for every atom and learned weight the sum of d * share over the clauses
// that carry the weight and whose satisfaction flipping the atom changes
// (d = +1 when the clause holds only with the atom's training value, -1
// when only with the flipped value), densely when atoms x weights is small
// enough and in a map otherwise.
type plBuilder struct {
	x     []bool
	nw    int
	dense []float64 // atom*nw + weight
	// sparse replaces dense for big problems: key atom*nw + weight.
	sparse map[int64]float64
	bias   []float64
	fixed  []bool
	vars   []int32
	// hardViolated counts the hard clauses the training world violates:
	// they take no part in the conditionals (the world has probability 0
	// under the model).
	hardViolated int
}

// maxDense bounds the atoms x weights of a dense builder (512 MB); a
// variable so that tests can take the sparse path.
var maxDense int64 = 1 << 26

func newPLBuilder(x []bool, nw int) *plBuilder {
	b := &plBuilder{x: x, nw: nw, bias: make([]float64, len(x)), fixed: make([]bool, len(x))}
	if int64(len(x))*int64(nw) <= maxDense {
		b.dense = make([]float64, len(x)*nw)
	} else {
		b.sparse = map[int64]float64{}
	}
	return b
}

// clauseHolds reports whether a clause is satisfied by x.
func clauseHolds(lits []maxsat.Lit, x []bool) bool {
	for _, l := range lits {
		if x[l.Var()] != l.Neg() {
			return true
		}
	}
	return false
}

// add takes one ground clause: hard, or carrying learned weight p (-1:
// none, then share is a fixed weight) times share.
func (b *plBuilder) add(lits []maxsat.Lit, hard bool, p int32, share float64) {
	x := b.x
	// The atoms of the clause's true literals; a clause with true literals
	// on two atoms holds whichever atom flips.
	trueVar := int32(-1)
	for _, l := range lits {
		if x[l.Var()] != l.Neg() {
			if trueVar >= 0 && trueVar != int32(l.Var()) {
				return
			}
			trueVar = int32(l.Var())
		}
	}
	if hard && trueVar < 0 {
		b.hardViolated++
	}
	b.vars = b.vars[:0]
	if trueVar >= 0 {
		b.vars = append(b.vars, trueVar)
	} else {
		for _, l := range lits {
			b.vars = append(b.vars, int32(l.Var()))
		}
	}
	now := clauseHolds(lits, x)
	for k, v := range b.vars {
		if slices.Contains(b.vars[:k], v) {
			continue
		}
		x[v] = !x[v]
		flipped := clauseHolds(lits, x)
		x[v] = !x[v]
		d := 0.0
		switch {
		case now && !flipped:
			d = 1
		case !now && flipped:
			d = -1
		}
		switch {
		case d == 0:
		case hard:
			if d > 0 {
				b.fixed[v] = true
			}
		case p >= 0:
			if b.dense != nil {
				b.dense[int(v)*b.nw+int(p)] += d * share
			} else {
				b.sparse[int64(v)*int64(b.nw)+int64(p)] += d * share
			}
		default:
			b.bias[v] += d * share // a fixed weight
		}
	}
}

// finish returns the pseudo-likelihood (one thread; scale as for
// newPseudoLikelihood) and lets the builder go.
func (b *plBuilder) finish(scale []float64) *pseudoLikelihood {
	n := len(b.x)
	pl := &pseudoLikelihood{start: make([]int32, n+1), bias: b.bias, scale: scale, fixed: b.fixed, nw: b.nw, threads: 1}
	if b.dense != nil {
		for v := range n {
			pl.start[v] = int32(len(pl.param))
			for p, c := range b.dense[v*b.nw : (v+1)*b.nw] {
				if c != 0 {
					pl.param = append(pl.param, int32(p))
					pl.coef = append(pl.coef, c)
				}
			}
		}
	} else {
		keys := make([]int64, 0, len(b.sparse))
		for k, c := range b.sparse {
			if c != 0 {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		k := 0
		for v := range n {
			pl.start[v] = int32(len(pl.param))
			for ; k < len(keys) && keys[k]/int64(b.nw) == int64(v); k++ {
				pl.param = append(pl.param, int32(keys[k]%int64(b.nw)))
				pl.coef = append(pl.coef, b.sparse[keys[k]])
			}
		}
	}
	pl.start[n] = int32(len(pl.param))
	*b = plBuilder{}
	return pl
}

// curvature returns the diagonal of the negated pseudo-log-likelihood's
// Hessian at w: sum_v scale_v p_v (1 - p_v) a_vi^2.
func (pl *pseudoLikelihood) curvature(w []float64) []float64 {
	h := make([]float64, pl.nw)
	for v := range pl.bias {
		if pl.fixed[v] {
			continue
		}
		s := pl.bias[v]
		a, b := pl.start[v], pl.start[v+1]
		for k := a; k < b; k++ {
			s += pl.coef[k] * w[pl.param[k]]
		}
		sc := 1.0
		if pl.scale != nil {
			sc = pl.scale[v]
		}
		p := logistic.Sigmoid(s)
		for k := a; k < b; k++ {
			h[pl.param[k]] += sc * p * (1 - p) * pl.coef[k] * pl.coef[k]
		}
	}
	return h
}

// eval returns the pseudo-log-likelihood at w and, if grad is not nil,
// stores its gradient there.
func (pl *pseudoLikelihood) eval(w []float64, grad []float64) float64 {
	n := len(pl.bias)
	chunk := (n + pl.threads - 1) / pl.threads
	sums := make([]float64, pl.threads)
	grads := make([][]float64, pl.threads)
	var wg sync.WaitGroup
	for t := range pl.threads {
		lo, hi := t*chunk, min(n, (t+1)*chunk)
		if lo >= hi {
			continue
		}
		if grad != nil {
			grads[t] = make([]float64, pl.nw)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := grads[t]
			for v := lo; v < hi; v++ {
				if pl.fixed[v] {
					continue
				}
				// s = (energy with x_v as observed) - (energy with x_v
				// flipped): log P(x_v | rest) = -log(1 + exp(-s)).
				s := pl.bias[v]
				a, b := pl.start[v], pl.start[v+1]
				for k := a; k < b; k++ {
					s += pl.coef[k] * w[pl.param[k]]
				}
				sc := 1.0
				if pl.scale != nil {
					sc = pl.scale[v]
				}
				sums[t] -= sc * logistic.Softplus(-s)
				if g != nil {
					// d/dw log sigma(s) = (1 - sigma(s)) ds/dw.
					q := sc * (1 - logistic.Sigmoid(s))
					for k := a; k < b; k++ {
						g[pl.param[k]] += q * pl.coef[k]
					}
				}
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for _, s := range sums {
		total += s
	}
	if grad != nil {
		clear(grad)
		for _, g := range grads {
			for i, x := range g {
				grad[i] += x
			}
		}
	}
	return total
}

// Instance returns the formula as written, without its weight (or '@' and
// weight), with its +variables replaced by constants when constants is
// not nil (one per variable of PlusVars, in that order): the text of one
// of the formulas a +x formula stands for, as Alchemy writes them.
func (f *Formula) Instance(constants []string) string {
	toks, err := lex.Lex(f.Text, srcpos.Position{Line: 1, Col: 1}, puncts)
	if err != nil || len(toks) == 0 {
		return f.Text
	}
	i := 0
	if toks[i].Kind == lex.Punct && toks[i].Text == "@" {
		i++
	}
	if toks[i].Kind == lex.Number && isWeight(toks[i].Text) && toks[i+1].Kind != lex.EOF {
		i++
	}
	from := toks[i].Pos.Col - 1
	if constants == nil {
		return f.Text[from:]
	}
	sub := map[string]string{}
	for k, v := range PlusVars(f) {
		if k < len(constants) {
			sub[v] = Term{Name: constants[k]}.String()
		}
	}
	// Every occurrence of a +variable takes its constant, +x and the plain
	// x alike, as Build grounds the instance (0.5 P(+x) => Q(x) is
	// P(A) => Q(A) for A; writing P(A) => Q(x) made a formula over every
	// x), but where a quantifier binds the name again (EXIST x ... up to the
	// end of the parentheses it stands in): that x is another variable. A
	// predicate name (an identifier before '(') is left alone.
	type binding struct {
		name  string
		depth int
	}
	var bound []binding
	isBound := func(name string) bool {
		for _, b := range bound {
			if b.name == name {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	at, depth := from, 0
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Kind == lex.Punct && t.Text == "(":
			depth++
			continue
		case t.Kind == lex.Punct && t.Text == ")":
			depth--
			for len(bound) > 0 && bound[len(bound)-1].depth > depth {
				bound = bound[:len(bound)-1]
			}
			continue
		case t.Kind == lex.Ident && (t.Text == "EXIST" || t.Text == "FORALL"):
			// The variables it binds, up to the end of its parentheses.
			for i+1 < len(toks) && toks[i+1].Kind == lex.Ident {
				i++
				bound = append(bound, binding{toks[i].Text, depth})
				if i+1 < len(toks) && toks[i+1].Kind == lex.Punct && toks[i+1].Text == "," {
					i++
				}
			}
			continue
		}
		v, plus := t, false
		if t.Kind == lex.Punct && t.Text == "+" && i+1 < len(toks) && toks[i+1].Kind == lex.Ident {
			v, plus = toks[i+1], true
		}
		if v.Kind != lex.Ident {
			continue
		}
		next := i + 1
		if plus {
			next++
		}
		c, ok := sub[v.Text]
		if !ok || isBound(v.Text) || next < len(toks) && toks[next].Kind == lex.Punct && toks[next].Text == "(" {
			continue
		}
		b.WriteString(f.Text[at : t.Pos.Col-1])
		b.WriteString(c)
		at = v.Pos.Col - 1 + len(v.Text)
		if plus {
			i++
		}
	}
	b.WriteString(f.Text[at:])
	return b.String()
}

// WithWeights returns the program file text src (read from path) with the
// learned weights of res (from LearnPLL or LearnDiscriminative on prog)
// for the formulas defined in that file; comments, declarations and layout
// are kept. A formula that had no weight gets one in front. A formula with
// +variables is replaced, as Alchemy writes it, by one formula per
// combination of constants, each with its learned weight, after a comment
// that keeps the formula as written. Formulas from #include files are not
// in src and are left to their files.
func WithWeights(path string, src []byte, prog *Program, res *LearnResult) ([]byte, error) {
	if len(res.Weights) != len(prog.Formulas) || len(res.Learned) != len(prog.Formulas) {
		return nil, fmt.Errorf("mln: %d learned weights for a program of %d formulas", len(res.Weights), len(prog.Formulas))
	}
	instances := map[int][]LearnedWeight{}
	for _, p := range res.Params {
		if p.Constants != nil {
			instances[p.Formula] = append(instances[p.Formula], p)
		}
	}
	lines := strings.SplitAfter(string(src), "\n")
	for i, f := range prog.Formulas {
		if !res.Learned[i] || f.Pos.File != path {
			continue
		}
		if f.Pos.Line < 1 || f.Pos.Line > len(lines) {
			return nil, fmt.Errorf("%s: formula at line %d is outside the file", path, f.Pos.Line)
		}
		line := lines[f.Pos.Line-1]
		at := 0 // byte offset of the statement: Pos.Col counts bytes from 1
		if f.Pos.Col > 0 && f.Pos.Col-1 <= len(line) {
			at = f.Pos.Col - 1
		}
		if ps := instances[i]; ps != nil {
			body := strings.TrimRight(line, "\r\n")
			end := at + len(f.Text)
			if end > len(body) {
				return nil, srcpos.Errorf(f.Pos, "a formula with +variables that spans lines (a block comment inside it) cannot be written back with its per-constant weights")
			}
			eol := line[len(body):]
			if eol == "" {
				eol = "\n"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s// %s: one weight per constant of %s, learned%s", line[:at], f.Instance(nil), strings.Join(plusTerms(f), ", "), eol)
			for k, p := range ps {
				fmt.Fprintf(&b, "%s  %s", strconv.FormatFloat(p.Weight, 'g', -1, 64), f.Instance(p.Constants))
				if k < len(ps)-1 {
					b.WriteString(eol)
				}
			}
			b.WriteString(line[end:])
			lines[f.Pos.Line-1] = b.String()
			continue
		}
		rest := line[at:]
		w := strconv.FormatFloat(res.Weights[i], 'g', -1, 64) // reads back as the same float64
		// The first token, read with comments removed, is the weight if any.
		var first lex.Token
		if sts, err := lex.Statements(path, []byte(rest)); err == nil && len(sts) > 0 {
			if toks, err := lex.Lex(sts[0].Text, f.Pos, puncts); err == nil {
				first = toks[0]
			}
		}
		if first.Kind == lex.Number && isWeight(first.Text) && strings.HasPrefix(rest, first.Text) {
			rest = w + rest[len(first.Text):]
		} else {
			rest = w + " " + rest
		}
		lines[f.Pos.Line-1] = line[:at] + rest
	}
	return []byte(strings.Join(lines, "")), nil
}

// plusTerms writes a formula's +variables as +x.
func plusTerms(f *Formula) []string {
	vs := PlusVars(f)
	for k, v := range vs {
		vs[k] = "+" + v
	}
	return vs
}

// UnboundedWeights is a direction in which the pseudo-log-likelihood
// rises without bound: the learned weights (indices into
// LearnResult.Params, with their formulas' text) move together, each by
// its factor in Direction (largest 1 in absolute value; a negative factor
// means the weight falls).
type UnboundedWeights struct {
	Params    []int     `json:"params"`
	Formulas  []string  `json:"formulas"`
	Direction []float64 `json:"direction"`
}

// unbounded returns the directions along which the pseudo-log-likelihood
// rises without bound. Along d, atom v's term log sigma(s_v) changes with
// s_v by a_v.d: it never falls when every a_v.d >= 0, and rises towards 0
// when some a_v.d > 0, so the pseudo-log-likelihood has no maximum
// exactly when such a d exists (the training world is separated, as in
// logistic regression). One direction per weight that gives it alone (a
// clause the training world never violates), then one combination of the
// others, if any; params describes the weights. decided is false when the
// combinations were too many to check.
func (pl *pseudoLikelihood) unbounded(params []LearnedWeight) (out []UnboundedWeights, decided bool) {
	free := make([]bool, pl.nw)
	for i := range free {
		free[i] = true
	}
	c := recession.New(pl.nw, free)
	for v := range pl.bias {
		if pl.fixed[v] {
			continue
		}
		a, b := pl.start[v], pl.start[v+1]
		if a == b {
			continue
		}
		sc := 1.0
		if pl.scale != nil {
			sc = pl.scale[v]
		}
		for k := a; k < b; k++ {
			c.AddGain(int(pl.param[k]), sc*pl.coef[k])
		}
		c.Add(pl.param[a:b], pl.coef[a:b])
	}
	res := c.Solve(recession.MaxLP)

	for i, s := range res.Alone {
		if s != 0 {
			out = append(out, UnboundedWeights{Params: []int{i}, Formulas: []string{params[i].Text}, Direction: []float64{float64(s)}})
		}
	}
	if res.Direction != nil {
		var u UnboundedWeights
		for i, d := range res.Direction {
			if d != 0 {
				u.Params, u.Formulas, u.Direction = append(u.Params, i), append(u.Formulas, params[i].Text), append(u.Direction, d)
			}
		}
		out = append(out, u)
	}
	return out, res.Decided
}
