package learn

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hinge-srl/hinge/hlmrf"
)

// PLOptions configure a pseudo-likelihood objective.
type PLOptions struct {
	// Constraints says how hard constraints enter (default
	// ConstraintsPairwise).
	Constraints ConstraintMode
	// Piecewise selects the piecewise pseudo-likelihood (PPLL, Embar et
	// al., eq. (7)-(8)): every conditional is split by rule, f_i restricted to one
	// rule's potentials, so the objective separates into one term per rule.
	Piecewise bool
	// L2 adds L2/2 * sum of squared learned weights.
	L2 float64
	// Threads evaluating conditionals; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Threads int
	// Seed draws the pairing of variables in equality constraints with more
	// than 32 variables (smaller ones pair all with all; nothing else is
	// random).
	Seed uint64
}

// PseudoLikelihood is the negative log (composite) pseudo-likelihood of a
// ground problem at a fixed truth, as a function of the weights of its
// potential groups (rules), averaged over conditionals:
//
//	F(w) = 1/N sum_l [ log integral_lo^hi exp(-f_l(t)) dt + f_l(0) ] + L2/2 ||w||^2
//
// where l runs over the N one-dimensional conditionals (see the package
// documentation) and f_l is the weighted sum of the potentials that change
// along l. F is convex in w. It is built once over the problem's structure
// and the truth; Value and ValueGradient only read the weights, cost time
// linear in Stats().Incidences plus the number of breakpoints, and run in
// parallel over fixed chunks of conditionals whose partial sums are added in
// chunk order, so results are identical for every thread count.
//
// A PseudoLikelihood is not safe for concurrent use.
type PseudoLikelihood struct {
	ls        *lines
	stats     LineStats
	learnable []bool
	l2        float64
	threads   int
	chunks    []int32 // line boundaries of the chunks
	scr       []*scratch
	pval      []float64
	pgrad     []float64
}

// chunkIncidences is the target work per chunk.
const chunkIncidences = 4096

// NewPseudoLikelihood builds the objective over p with the truth vector
// (one value in [0,1] per variable). learnable has one entry per group
// (rule index): potentials of a learnable group take their weight from the
// vector passed to Value; all others keep p.Weight.
func NewPseudoLikelihood(p *hlmrf.Problem, truth []float64, learnable []bool, opt PLOptions) (*PseudoLikelihood, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if opt.L2 < 0 || math.IsNaN(opt.L2) || math.IsInf(opt.L2, 0) {
		return nil, fmt.Errorf("L2 %v: must be a finite number >= 0", opt.L2)
	}
	if opt.Constraints != ConstraintsPairwise && opt.Constraints != ConstraintsIgnore {
		return nil, fmt.Errorf("unknown constraint mode %d", opt.Constraints)
	}
	ls, stats, err := newLines(p, truth, learnable, opt.Constraints, opt.Piecewise, opt.Seed)
	if err != nil {
		return nil, err
	}
	o := &PseudoLikelihood{ls: ls, stats: stats, learnable: append([]bool(nil), learnable...), l2: opt.L2}
	o.threads = opt.Threads
	if o.threads <= 0 {
		o.threads = runtime.GOMAXPROCS(0)
	}
	o.chunks = []int32{0}
	work := 0
	for l := 0; l < ls.numLines(); l++ {
		work += int(ls.incStart[l+1]-ls.incStart[l]) + 8
		if work >= chunkIncidences {
			o.chunks = append(o.chunks, int32(l+1))
			work = 0
		}
	}
	if last := o.chunks[len(o.chunks)-1]; int(last) < ls.numLines() {
		o.chunks = append(o.chunks, int32(ls.numLines()))
	}
	nc := len(o.chunks) - 1
	o.threads = max(1, min(o.threads, nc))
	o.scr = make([]*scratch, o.threads)
	for i := range o.scr {
		o.scr[i] = newScratch(max(ls.maxPieces, 1))
	}
	o.pval = make([]float64, nc)
	o.pgrad = make([]float64, nc*len(learnable))
	return o, nil
}

// Stats describes the conditionals.
func (o *PseudoLikelihood) Stats() LineStats { return o.stats }

// Value returns F(w).
func (o *PseudoLikelihood) Value(w []float64) float64 {
	return o.eval(w, nil)
}

// ValueGradient returns F(w) and stores its gradient in grad (one entry per
// group; 0 for groups that are not learnable).
func (o *PseudoLikelihood) ValueGradient(w, grad []float64) float64 {
	if len(grad) != len(o.learnable) {
		panic(fmt.Sprintf("learn: gradient has %d entries for %d groups", len(grad), len(o.learnable)))
	}
	return o.eval(w, grad)
}

func (o *PseudoLikelihood) eval(w, grad []float64) float64 {
	G := len(o.learnable)
	if len(w) != G {
		panic(fmt.Sprintf("learn: weight vector has %d entries for %d groups", len(w), G))
	}
	nc := len(o.chunks) - 1
	n := o.ls.numLines()
	scale := 0.0
	if n > 0 {
		scale = 1 / float64(n)
	}
	withGrad := grad != nil
	var next atomic.Int64
	work := func(sc *scratch) {
		for {
			c := int(next.Add(1) - 1)
			if c >= nc {
				return
			}
			var g []float64
			if withGrad {
				g = o.pgrad[c*G : (c+1)*G]
				clear(g)
			}
			v := 0.0
			for l := int(o.chunks[c]); l < int(o.chunks[c+1]); l++ {
				v += o.ls.evalLine(l, w, sc, g, scale)
			}
			o.pval[c] = v
		}
	}
	if o.threads == 1 {
		work(o.scr[0])
	} else {
		var wg sync.WaitGroup
		for t := 0; t < o.threads; t++ {
			wg.Add(1)
			go func(sc *scratch) { defer wg.Done(); work(sc) }(o.scr[t])
		}
		wg.Wait()
	}
	val := 0.0
	for c := 0; c < nc; c++ {
		val += o.pval[c]
	}
	val *= scale
	if withGrad {
		clear(grad)
		for c := 0; c < nc; c++ {
			for g, x := range o.pgrad[c*G : (c+1)*G] {
				grad[g] += x
			}
		}
	}
	for g := range G {
		if !o.learnable[g] {
			if withGrad {
				grad[g] = 0
			}
			continue
		}
		val += o.l2 / 2 * w[g] * w[g]
		if withGrad {
			grad[g] += o.l2 * w[g]
		}
	}
	return val
}

// Minimum is the outcome of PseudoLikelihood.Minimize.
type Minimum struct {
	// Weights is the minimiser, one entry per group (groups that are not
	// learnable keep their entry of w0).
	Weights []float64
	// Objective is F at Weights.
	Objective  float64
	Iterations int
	Converged  bool
	// ProjectedGradient is the largest entry of the projected gradient at
	// Weights.
	ProjectedGradient float64
}

// Minimize minimises F over w >= 0 for the learnable groups, starting from
// w0 (one entry per group), by the projected gradient method Learn uses for
// MPLE and PPLL: at most maxIter iterations, stopping when the projected
// gradient's largest entry is at most tol.
func (o *PseudoLikelihood) Minimize(ctx context.Context, w0 []float64, maxIter int, tol float64) (Minimum, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(w0) != len(o.learnable) {
		return Minimum{}, fmt.Errorf("learn: %d start weights for %d groups", len(w0), len(o.learnable))
	}
	out, err := projectedGradient(ctx, o.ValueGradient, w0, o.learnable, maxIter, tol, nil)
	return Minimum{Weights: out.x, Objective: out.f, Iterations: out.iters, Converged: out.converged, ProjectedGradient: out.pgNorm}, err
}

// LogLikelihood returns the log (composite) pseudo-likelihood of the truth
// at w: the sum over the conditionals of the log conditional density of the
// truth, without the average and without the regulariser. Unlike F it can
// be compared between problems over the same variables with different
// potentials (a conditional with no potential contributes 0 to it).
func (o *PseudoLikelihood) LogLikelihood(w []float64) float64 {
	f := o.eval(w, nil)
	for g, ok := range o.learnable {
		if ok {
			f -= o.l2 / 2 * w[g] * w[g]
		}
	}
	return -f * float64(o.ls.numLines())
}
