package mln

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/logistic"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/srcpos"
)

// LearnOptions configure generative weight learning.
type LearnOptions struct {
	// PriorStdDev is the standard deviation of the zero-mean Gaussian prior
	// on every weight (Alchemy's -priorStdDev); 0 means 100 (Alchemy's
	// default for generative learning), a negative value no prior.
	PriorStdDev float64
	// MaxIter bounds L-BFGS iterations (0: 1000).
	MaxIter int
	// Threads computes the pseudo-likelihood in parallel (0: all cores).
	Threads int
	// Ground configures the grounder.
	Ground ground.Options
}

// LearnResult holds learned formula weights.
type LearnResult struct {
	// Weights has one weight per formula of the program (in order); a hard
	// formula has weight 0 and a fixed one (@w) its own, both with Learned
	// false.
	Weights []float64
	Learned []bool
	// PLL is the weighted pseudo-log-likelihood at the weights (without the
	// prior), Atoms the number of atoms it sums over.
	PLL       float64
	Atoms     int
	Clauses   int // ground clauses
	Iter      int
	Status    string
	Converged bool
	Seconds   struct{ Ground, Learn float64 }
}

// LearnPLL learns the weights of prog's soft formulas from a training
// world by maximising the pseudo-log-likelihood (Besag; Richardson and
// Domingos 2006): the sum over the atoms of the query predicates of log
// P(x_a | its Markov blanket), with a Gaussian prior, by L-BFGS. The
// training world is the evidence: for the query predicates an atom it does
// not list is false (closed world), as in Alchemy's generative learning.
// A formula's weight is shared by its clauses (each counts w/n, as in
// inference) and may be negative; +x formulas are not supported (their
// expansion would give each constant its own weight). Fixed weights (@w)
// are kept.
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
	l, res, err := prepareLearning(prog, training, query, opt.Ground)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	in, param, share, x, nw := l.in, l.param, l.share, l.x, len(l.learned)
	pl := newPseudoLikelihood(in, param, share, x, nw, opt.Threads)

	sigma2 := opt.PriorStdDev * opt.PriorStdDev
	problem := optimize.Problem{
		Func: func(w []float64) float64 {
			f := -pl.eval(w, nil)
			if opt.PriorStdDev > 0 {
				for _, wi := range w {
					f += wi * wi / (2 * sigma2)
				}
			}
			return f
		},
		Grad: func(grad, w []float64) {
			pl.eval(w, grad)
			for i := range grad {
				grad[i] = -grad[i]
				if opt.PriorStdDev > 0 {
					grad[i] += w[i] / sigma2
				}
			}
		},
	}
	settings := &optimize.Settings{MajorIterations: opt.MaxIter, GradientThreshold: 1e-6}
	w0 := make([]float64, nw)
	r, err := optimize.Minimize(problem, w0, settings, &optimize.LBFGS{})
	if err != nil && r == nil {
		return nil, fmt.Errorf("mln: L-BFGS: %w", err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res.Iter, res.Status = r.Stats.MajorIterations, r.Status.String()
	res.Converged = err == nil && (r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence)
	l.finish(res, r.X)
	res.PLL = pl.eval(r.X, nil)
	res.Seconds.Learn = time.Since(start).Seconds()
	return res, nil
}

// learning is a training world grounded for weight learning: the ground
// clauses, which learned weight each carries (param, -1 for none) and its
// share of it, and the training value of every query atom.
type learning struct {
	shape   *Program
	index   map[*Formula]int // shape formula -> place in the program
	learned []*Formula       // the learned weights' formulas
	in      *maxsat.Instance
	param   []int32
	share   []float64
	x       []bool
}

// prepareLearning grounds the training world: the query predicates are
// open (an atom the training data does not list is false), every other
// predicate is evidence.
func prepareLearning(prog *Program, training []GroundAtom, query []string, groundOpt ground.Options) (*learning, *LearnResult, error) {
	start := time.Now()
	isQuery := map[string]bool{}
	for _, q := range query {
		if prog.Pred(q) == nil {
			return nil, nil, fmt.Errorf("query predicate %s is not declared in the program", textfile.Clip(q))
		}
		isQuery[q] = true
	}
	shape, index, err := learningShape(prog, isQuery)
	if err != nil {
		return nil, nil, err
	}
	if len(shape.Formulas) == 0 {
		return nil, nil, errors.New("mln: no soft formula to learn")
	}
	var evidence []GroundAtom
	truth := map[string]bool{}
	for _, a := range training {
		if isQuery[a.Pred] {
			if a.Value != 0 && a.Value != 1 {
				return nil, nil, srcpos.Errorf(a.Pos, "training atoms of query predicates must be true or false, found %v", a.Value)
			}
			truth[AtomString(a.Pred, constants(a.Args))] = a.Value == 1
			continue
		}
		evidence = append(evidence, a)
	}
	net, err := Build(shape, evidence, Options{Query: query})
	if err != nil {
		return nil, nil, err
	}
	g, in, err := net.GroundClauses(groundOpt)
	if err != nil {
		return nil, nil, err
	}

	// Which learned weight each ground clause carries and its share (1/n
	// of its formula's weight), from the rule it was grounded from; a
	// clause of a fixed (@w) formula keeps its weight as a constant.
	var learned []*Formula
	slot := map[*Formula]int{}
	for _, f := range shape.Formulas {
		if !f.Fixed {
			slot[f] = len(learned)
			learned = append(learned, f)
		}
	}
	nw := len(learned)
	if nw == 0 {
		return nil, nil, errors.New("mln: every soft formula has a fixed weight (@w): nothing to learn")
	}
	param := make([]int32, in.NumClauses())
	share := make([]float64, in.NumClauses())
	for c := range in.NumClauses() {
		param[c] = -1
		if c >= g.Problem.NumPotentials() {
			continue // hard clauses come from functional arguments
		}
		info := net.Clauses[g.Problem.Group[c]]
		share[c] = info.Weight // learned: 1/n; fixed: the clause's weight
		if !info.Formula.Fixed {
			param[c] = int32(slot[info.Formula])
		}
	}
	x := make([]bool, in.NumVars)
	for v := range x {
		x[v] = truth[AtomString(g.Vars[v].Pred.Name, g.Args(v))]
	}
	res := &LearnResult{Weights: make([]float64, len(prog.Formulas)), Learned: make([]bool, len(prog.Formulas)), Clauses: in.NumClauses(), Atoms: in.NumVars}
	res.Seconds.Ground = time.Since(start).Seconds()
	return &learning{shape: shape, index: index, learned: learned, in: in, param: param, share: share, x: x}, res, nil
}

// finish records the learned weights (one per learned formula) and the
// fixed ones in res.
func (l *learning) finish(res *LearnResult, w []float64) {
	for i, f := range l.learned {
		k := l.index[f]
		res.Weights[k], res.Learned[k] = w[i], true
	}
	for _, f := range l.shape.Formulas {
		if f.Fixed {
			res.Weights[l.index[f]] = f.Weight
		}
	}
}

// learningShape copies prog for learning: every soft formula with weight 1
// (fixed ones keep theirs) gives the ground structure, the query
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
		if f.Hard {
			continue
		}
		plus := false
		walk(f.F, func(n Node) {
			if a, ok := n.(*Atom); ok {
				for _, t := range a.Args {
					plus = plus || t.Plus
				}
			}
		})
		if plus {
			return nil, nil, srcpos.Errorf(f.Pos, "weight learning does not support +x formulas yet")
		}
		g := *f
		if !f.Fixed {
			g.Weight = 1
		}
		index[&g] = i
		shape.Formulas = append(shape.Formulas, &g)
	}
	return shape, index, nil
}

// pseudoLikelihood evaluates sum_v log P(x_v | x_-v) and its gradient for
// tied clause weights w[param[c]]*share[c].
type pseudoLikelihood struct {
	in      *maxsat.Instance
	ix      *clauseIndex
	param   []int32
	share   []float64
	x       []bool
	nw      int
	threads int
	// diffs[v][k] says how flipping v changes the satisfaction of v's k-th
	// clause: +1 when the clause holds only with v's training value, -1
	// when it holds only with the flipped value, 0 when neither changes it.
	diffs [][]int8
	// fixed[v] is set when flipping v would violate a hard clause: then
	// P(x_v | rest) = 1 and v adds nothing.
	fixed []bool
}

func newPseudoLikelihood(in *maxsat.Instance, param []int32, share []float64, x []bool, nw, threads int) *pseudoLikelihood {
	pl := &pseudoLikelihood{in: in, ix: newClauseIndex(in), param: param, share: share, x: x, nw: nw, threads: threads}
	pl.diffs = make([][]int8, in.NumVars)
	pl.fixed = make([]bool, in.NumVars)
	y := append([]bool(nil), x...)
	for v := range y {
		d := make([]int8, len(pl.ix.occ[v]))
		for k, c32 := range pl.ix.occ[v] {
			c := int(c32)
			now := in.Satisfied(c, y)
			y[v] = !y[v]
			flipped := in.Satisfied(c, y)
			y[v] = !y[v]
			switch {
			case now && !flipped:
				d[k] = 1
				pl.fixed[v] = pl.fixed[v] || in.Hard[c]
			case !now && flipped:
				d[k] = -1
			}
		}
		pl.diffs[v] = d
	}
	return pl
}

// eval returns the pseudo-log-likelihood at w and, if grad is not nil,
// stores its gradient there.
func (pl *pseudoLikelihood) eval(w []float64, grad []float64) float64 {
	n := pl.in.NumVars
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
				s := 0.0
				for k, c := range pl.ix.occ[v] {
					if d := pl.diffs[v][k]; d != 0 {
						if p := pl.param[c]; p >= 0 {
							s += float64(d) * w[p] * pl.share[c]
						} else if !pl.in.Hard[c] {
							s += float64(d) * pl.share[c] // a fixed weight
						}
					}
				}
				sums[t] -= logistic.Softplus(-s)
				if g != nil {
					// d/dw log sigma(s) = (1 - sigma(s)) ds/dw.
					q := 1 - logistic.Sigmoid(s)
					for k, c := range pl.ix.occ[v] {
						if d := pl.diffs[v][k]; d != 0 {
							if p := pl.param[c]; p >= 0 {
								g[p] += q * float64(d) * pl.share[c]
							}
						}
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

// WithWeights returns the program file text src (read from path) with the
// weights of the formulas defined in that file replaced by weights (one per
// formula of prog, for those with learned set); comments, declarations and
// layout are kept. A formula that had no weight gets one in front. Formulas
// from #include files are not in src and are left to their files.
func WithWeights(path string, src []byte, prog *Program, weights []float64, learned []bool) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	for i, f := range prog.Formulas {
		if !learned[i] || f.Pos.File != path {
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
		rest := line[at:]
		w := strconv.FormatFloat(weights[i], 'g', 6, 64)
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
