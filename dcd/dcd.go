// Package dcd solves ground hinge-loss MRFs by proximal dual coordinate
// descent over potentials read in blocks, so that the potentials can stream
// from disk (package cache) and only per-variable state stays in memory.
//
// # The method
//
// MAP inference minimises, over y in [0,1]^n,
//
//	F(y) = sum_j w_j * max(a_j.y - c_j, 0)^p_j
//
// subject to hard constraints a_k.y <= c_k or a_k.y = c_k. Every term has a
// dual variable alpha: w*max(t,0) = max over alpha in [0,w] of alpha*t (linear
// hinge), w*max(t,0)^2 = max over alpha >= 0 of alpha*t - alpha^2/(4w)
// (squared hinge), and a constraint's multiplier is alpha >= 0 (<=) or free
// (=). With g = sum_j alpha_j*a_j (one number per variable),
//
//	D(alpha) = -sum_j alpha_j*c_j - sum_{squared j} alpha_j^2/(4w_j) + sum_i min(0, g_i)
//
// is a lower bound on F(y) at every feasible y (weak duality), and equal to
// the optimum at the optimal alpha (strong duality: the problem is convex with
// linear constraints). Each epoch makes one proximal-point step
//
//	y+ = argmin over y in [0,1]^n of F(y) + ||y - z||^2/(2*tau)        (z: the last epoch's y)
//
// approximately, by one sweep of dual coordinate ascent over the terms in
// block order (Hsieh et al. 2008 with the box kept in the primal, as PSL's
// DCD reasoner and Tandem inference sweep terms): the primal point of the
// current duals is y = clip(z - tau*g, 0, 1), and a term's dual moves by its
// partial derivative a_j.y - c_j (- alpha_j/(2w_j) when squared) over that
// derivative's Lipschitz constant tau*|a_j|^2 (+ 1/(2w_j)), clipped to its
// range, then g and y are updated at the term's variables. The proximal term
// makes every step an ascent step of a smooth dual; as z converges to a
// minimiser the duals converge to optimal duals, so D(alpha) closes on F(y).
//
// State: z, g and y are three float64 per variable; alpha is one float32 per
// term, kept in memory or in a file next to the cache and read and written
// block by block (Options.DualFile). Every Options.CheckEvery epochs a second
// pass over the blocks evaluates F(y), the constraint violations and D(alpha),
// recomputing g from the stored duals (which removes rounding drift); the
// solve stops when (F - D) <= GapTol*max(floor, |F|) (admm.GapFloor) and every constraint holds
// within ConstraintTol*max(1, ||a||), as admm's test; constraints with no
// variable that the constants violate are left out of the test and end the
// solve as Infeasible.
//
// # Cancellation
//
// A cancelled context stops the solve between two blocks of any pass (a
// sweep, a check, or the first pass that counts each variable's terms), so
// within one block's work (about 1 MB of a cache) however large the
// problem. Solve then returns at once, with the context's error and the
// result so far: Status Cancelled and the point reached, whose figures are
// those of the last check (the last of Trajectory, from an earlier epoch,
// or none): evaluating the point again would take another pass over every
// block.
package dcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
)

// Source is a ground problem read in blocks. Block b holds the potentials
// numbered PotStart(b) to PotStart(b+1)-1 and the constraints numbered
// ConStart(b) to ConStart(b+1)-1, with variables as global columns.
type Source interface {
	NumVars() int
	NumBlocks() int
	// PotStart and ConStart give the first potential and constraint of
	// block b; with b = NumBlocks() they give the totals.
	PotStart(b int) int64
	ConStart(b int) int64
	// Block returns block b, decoded into scratch (which it may reset and
	// reuse) or in memory it already holds. Block may be called from a
	// goroutine other than the caller's, one call at a time.
	Block(b int, scratch *hlmrf.Problem) (*hlmrf.Problem, error)
}

// Options control a solve.
type Options struct {
	// Tau is the proximal step (> 0): larger takes longer steps towards
	// the minimiser of F and makes each sweep's dual problem harder.
	Tau float64
	// MaxEpochs is the most sweeps over the potentials (> 0).
	MaxEpochs int
	// CheckEvery is how many epochs run between evaluations of the
	// objective, violations and lower bound (each one more pass).
	CheckEvery int
	// GapTol is the relative duality gap at which the solve stops.
	GapTol float64
	// ConstraintTol is the largest hard-constraint violation a converged
	// answer may have, times max(1, ||a||) for a constraint with
	// coefficients a (as admm.Options.ConstraintTol).
	ConstraintTol float64
	// Shuffle visits the blocks in a random order each epoch (Seed).
	Shuffle bool
	Seed    uint64
	// DualFile, when set, keeps the duals in this file (created, and
	// removed when the solve ends) instead of memory: 4 bytes a term.
	DualFile string
	// Progress, when set, is called after every check.
	Progress func(Check)
}

// DefaultOptions are the options hinge infer --streaming uses.
func DefaultOptions() Options {
	return Options{Tau: 3, MaxEpochs: 1000, CheckEvery: 5, GapTol: admm.DefaultGapTol, ConstraintTol: admm.DefaultConstraintTol}
}

// Validate reports the first option out of range.
func (o *Options) Validate() error {
	switch {
	case !(o.Tau > 0) || math.IsInf(o.Tau, 1):
		return fmt.Errorf("dcd: tau %v must be a finite number > 0", o.Tau)
	case o.MaxEpochs <= 0:
		return fmt.Errorf("dcd: max epochs %d must be > 0", o.MaxEpochs)
	case o.CheckEvery <= 0:
		return fmt.Errorf("dcd: check-every %d must be > 0", o.CheckEvery)
	case !(o.GapTol >= 0) || math.IsInf(o.GapTol, 1):
		return fmt.Errorf("dcd: gap tolerance %v must be a finite number >= 0", o.GapTol)
	case !(o.ConstraintTol >= 0) || math.IsInf(o.ConstraintTol, 1):
		return fmt.Errorf("dcd: constraint tolerance %v must be a finite number >= 0", o.ConstraintTol)
	}
	return nil
}

// Check is one evaluation of the current point.
type Check struct {
	Epoch        int
	Objective    float64 // F(y)
	LowerBound   float64 // D(alpha)
	MaxViolation float64 // largest hard-constraint violation at y
	Seconds      float64 // since the solve started
	// Floor is the smallest |objective| the gap is relative to
	// (admm.GapFloor of the potentials' weights; 0 reads as 1).
	Floor float64
}

// RelativeGap is admm.RelativeGap of the check.
func (c Check) RelativeGap() float64 { return admm.RelativeGap(c.Objective, c.LowerBound, c.Floor) }

// Result is the answer of a solve.
type Result struct {
	Values       []float64 // y, one per variable, in [0,1]
	Epochs       int
	Status       admm.Status // Converged, Infeasible, IterationLimit, Cancelled (returned with the context's error) or NumericalFailure
	Objective    float64
	LowerBound   float64
	GapFloor     float64 // the smallest |objective| the relative gap is taken against (Check.Floor)
	MaxViolation float64
	Violated     int     // constraints violated by more than ConstraintTol (scaled)
	Worst        int64   // the most violated constraint, -1 if none
	WorstGroup   int32   // the Group of the most violated constraint
	Trajectory   []Check // every check, in order
	Tau          float64 // the step at the end (Options.Tau as the solve adapted it)
}

// Solve minimises the problem src streams, starting from y = 0. A
// cancelled ctx ends it within a block, with ctx's error and the result so
// far (see Cancellation in the package doc).
func Solve(ctx context.Context, src Source, opt Options) (*Result, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	n := src.NumVars()
	nb := src.NumBlocks()
	terms := src.PotStart(nb) + src.ConStart(nb)
	var duals dualStore
	if opt.DualFile != "" {
		fd, err := newFileDuals(opt.DualFile, terms)
		if err != nil {
			return nil, err
		}
		defer fd.close()
		duals = fd
	} else {
		duals = &memDuals{a: make([]float32, terms)}
	}
	s := &solver{
		src: src, opt: opt, duals: duals,
		z: make([]float64, n), g: make([]float64, n), y: make([]float64, n),
		start: time.Now(), tauNow: opt.Tau,
	}
	s.order = make([]int, nb)
	for i := range s.order {
		s.order[i] = i
	}
	if err := s.scale(ctx); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return &Result{Status: admm.Cancelled, Values: s.y, Tau: s.tauNow, Worst: -1}, err
		}
		return nil, err
	}
	return s.run(ctx)
}

type solver struct {
	src     Source
	opt     Options
	duals   dualStore
	tau     []float64 // per-variable proximal step: Options.Tau / degree
	z       []float64 // proximal centre
	g       []float64 // sum of alpha_j * a_j
	y       []float64 // clip(z - tau*g)
	start   time.Time
	order   []int
	rng     uint64
	tauNow  float64 // the current Options.Tau, as adapt changed it
	changes int     // how often adapt changed it
	stale   bool    // tau changed since y was computed from it
}

func (s *solver) run(ctx context.Context) (*Result, error) {
	res := &Result{Worst: -1}
	s.rng = s.opt.Seed*0x9e3779b97f4a7c15 + 1
	// cancelled ends the solve as Cancelled with the point reached and the
	// figures of the last check (see the package doc).
	cancelled := func(err error) (*Result, error) {
		res.Status = admm.Cancelled
		res.Values, res.Tau = s.y, s.tauNow
		return res, err
	}
	for epoch := 1; ; epoch++ {
		if err := ctx.Err(); err != nil {
			return cancelled(err)
		}
		if s.opt.Shuffle {
			s.shuffle()
		}
		if err := s.sweep(ctx); err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				// Stopped mid-sweep: the duals swept so far are stored
				// and g matches them.
				return cancelled(err)
			}
			return nil, err
		}
		s.recentre()
		res.Epochs = epoch
		last := epoch == s.opt.MaxEpochs
		if epoch%s.opt.CheckEvery != 0 && !last {
			continue
		}
		c, ev, err := s.check(ctx, epoch)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return cancelled(err) // g is left as the sweeps made it
			}
			return nil, err
		}
		res.record(c, ev)
		if s.opt.Progress != nil {
			s.opt.Progress(c)
		}
		switch {
		case math.IsNaN(c.Objective) || math.IsInf(c.Objective, 0) || math.IsNaN(c.LowerBound):
			res.Status = admm.NumericalFailure
		case c.RelativeGap() <= s.opt.GapTol && ev.violated == ev.empty:
			// Constraints with no variable that constants violate hold
			// or not whatever the values are (as in admm: Infeasible).
			res.Status = admm.Converged
			if ev.empty > 0 {
				res.Status = admm.Infeasible
			}
		case last:
			res.Status = admm.IterationLimit
		}
		if res.Status != 0 {
			break
		}
		s.adapt(c)
	}
	res.Values = s.y
	res.Tau = s.tauNow
	return res, nil
}

// record appends a check to the trajectory and makes its figures the
// result's.
func (res *Result) record(c Check, ev evaluation) {
	res.Trajectory = append(res.Trajectory, c)
	res.Objective, res.LowerBound, res.MaxViolation, res.GapFloor = c.Objective, c.LowerBound, c.MaxViolation, c.Floor
	res.Violated, res.Worst, res.WorstGroup = ev.violated, ev.worst, ev.group
}

// recentre ends a proximal step: the centre moves to the point reached and
// the point becomes that of the current duals for the new centre.
func (s *solver) recentre() {
	copy(s.z, s.y)
	s.points()
}

// points sets every variable's y to clip(z - tau*g, 0, 1), the primal point
// of the current duals.
func (s *solver) points() {
	for i, zi := range s.z {
		s.y[i] = min(1, max(0, zi-s.tau[i]*s.g[i]))
	}
}

// scale sets each variable's proximal step to Options.Tau over the number
// of terms it occurs in (one pass over the blocks), so that a variable
// shared by many terms moves as much per sweep as one in few.
func (s *solver) scale(ctx context.Context) error {
	deg := make([]float64, len(s.y))
	err := s.blocks(ctx, false, func(_ int, p *hlmrf.Problem, _, _ []float32) {
		if len(p.Weight) > 0 {
			for _, v := range p.Var[p.Start[0]:p.Start[len(p.Weight)]] {
				deg[v]++
			}
		}
		if len(p.CKind) > 0 {
			for _, v := range p.CVar[p.CStart[0]:p.CStart[len(p.CKind)]] {
				deg[v]++
			}
		}
	})
	for i, d := range deg {
		deg[i] = s.opt.Tau / max(1, d)
	}
	s.tau = deg
	return err
}

// maxTauChanges bounds how often adapt changes the step in one solve, so
// that it cannot oscillate for ever.
const maxTauChanges = 16

// maxTauGrowth bounds how far adapt may raise tau: with a long step, one
// sweep leaves the dual of the proximal step far from solved, and the
// iteration stalls (bench: 8x and 16x cost small random problems 40% and 70% more epochs than 4x, 16x stalled on one).
const maxTauGrowth = 4

// adapt balances the two ways a check can fail to converge. A longer step
// (larger tau) moves the primal point further towards the minimiser of F
// each epoch, which closes the duality gap faster, but leaves the dual sweep
// less converged, which shows as constraint violation; a shorter one does
// the reverse. When the gap is more than 4 times further from its tolerance
// than the violation is from its own (or the other way), tau doubles (or
// halves).
func (s *solver) adapt(c Check) {
	if s.changes >= maxTauChanges {
		return
	}
	gr := c.RelativeGap() / max(s.opt.GapTol, 1e-12)
	vr := c.MaxViolation / max(s.opt.ConstraintTol, 1e-12)
	f := 1.0
	switch {
	case gr > 1 && gr > 4*vr && s.tauNow < maxTauGrowth*s.opt.Tau:
		f = 2
	case vr > 1 && vr > 4*gr:
		f = 0.5
	default:
		return
	}
	s.changes++
	for i := range s.tau {
		s.tau[i] *= f
	}
	s.tauNow *= f
	s.stale = true // y = clip(z - tau*g) at the next sweep; until then y is the point checked
}

// shuffle permutes the block order (Fisher-Yates, splitmix64).
func (s *solver) shuffle() {
	for i := len(s.order) - 1; i > 0; i-- {
		s.rng += 0x9e3779b97f4a7c15
		x := s.rng
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		x ^= x >> 31
		j := int(x % uint64(i+1))
		s.order[i], s.order[j] = s.order[j], s.order[i]
	}
}

// sweep is one pass of dual coordinate ascent over every term. It stops
// between blocks when ctx is cancelled, returning ctx.Err().
func (s *solver) sweep(ctx context.Context) error {
	if s.stale {
		s.points()
		s.stale = false
	}
	tau, z, g, y := s.tau, s.z, s.g, s.y
	step := func(vs []int32, cs []float64, c float64, a float64, lo, hi, q float64) float64 {
		// q: 1/(2w) for a squared hinge, else 0.
		dot, l := 0.0, q
		for k, v := range vs {
			dot += cs[k] * y[v]
			l += tau[v] * cs[k] * cs[k]
		}
		var na float64
		switch {
		case l > 0:
			na = min(hi, max(lo, a+(dot-c-q*a)/l))
		case math.IsInf(hi, 1):
			// A constraint with no variable: it holds or not whatever the
			// duals; the check reports it.
			return a
		case -c > 0:
			// No variable: the dual maximises alpha*(-c) over its range,
			// so that the bound counts the constant hinge.
			na = hi
		default:
			na = lo
		}
		na = stored(na, lo, hi)
		if d := na - a; d != 0 {
			for k, v := range vs {
				g[v] += cs[k] * d
				y[v] = min(1, max(0, z[v]-tau[v]*g[v]))
			}
		}
		return na
	}
	return s.blocks(ctx, true, func(b int, p *hlmrf.Problem, pa, ca []float32) {
		for j := range p.Weight {
			vs, cs := p.Terms(j)
			lo, hi, q := admm.DualRange(p.Weight[j], p.Power[j])
			pa[j] = float32(step(vs, cs, p.Const[j], float64(pa[j]), lo, hi, 2*q))
		}
		for j := range p.CKind {
			vs, cs := p.CTerms(j)
			lo, hi := 0.0, math.Inf(1)
			if p.CKind[j] == hlmrf.Equal {
				lo = math.Inf(-1)
			}
			ca[j] = float32(step(vs, cs, p.CConst[j], float64(ca[j]), lo, hi, 0))
		}
	})
}

// stored rounds a dual in [lo, hi] to the float32 it is stored as, staying
// in [lo, hi], so that g is the sum of the stored duals.
func stored(a, lo, hi float64) float64 {
	f := float32(a)
	for float64(f) > hi {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	for float64(f) < lo {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return float64(f)
}

type evaluation struct {
	violated int // constraints violated beyond their tolerance
	empty    int // of which with no variable (violated by constants)
	worst    int64
	group    int32
}

// check evaluates F(y), the violations at y (admm.Check's test) and
// D(alpha) in one pass, replacing g by A^T alpha recomputed from the stored
// duals. It stops between blocks when ctx is cancelled, returning
// ctx.Err().
func (s *solver) check(ctx context.Context, epoch int) (Check, evaluation, error) {
	y := s.y
	g := make([]float64, len(y))
	obj, dual, wsum := 0.0, 0.0, 0.0
	maxViol := 0.0
	ev := evaluation{worst: -1}
	// addDuals adds a term's dual times its coefficients to g.
	addDuals := func(vs []int32, cs []float64, a float64) {
		for k, v := range vs {
			g[v] += cs[k] * a
		}
	}
	err := s.blocks(ctx, false, func(b int, p *hlmrf.Problem, pa, ca []float32) {
		for j := range p.Weight {
			obj += p.Weight[j] * p.Incompatibility(j, y) // term by term: the same sum for any blocks
			wsum += p.Weight[j]
			vs, cs := p.Terms(j)
			a := float64(pa[j])
			addDuals(vs, cs, a)
			_, _, q := admm.DualRange(p.Weight[j], p.Power[j])
			dual -= a*p.Const[j] + q*a*a
		}
		for j := range p.CKind {
			vs, cs := p.CTerms(j)
			a := float64(ca[j])
			addDuals(vs, cs, a)
			dual -= a * p.CConst[j]
			if len(vs) == 0 && p.ConstraintViolation(j, y) > s.opt.ConstraintTol {
				ev.empty++
			}
		}
		mv, violated, worst := admm.Check(p, y, s.opt.ConstraintTol)
		ev.violated += violated
		if mv > maxViol {
			maxViol, ev.worst, ev.group = mv, s.src.ConStart(b)+int64(worst), p.CGroup[worst]
		}
	})
	if err != nil {
		return Check{}, ev, err
	}
	for _, gi := range g {
		dual += min(0, gi)
	}
	// g without the rounding drift of its updates; y stays the point
	// evaluated (it differs from clip(z - tau*g) by that drift only, and
	// the next recentring recomputes it).
	s.g = g
	return Check{Epoch: epoch, Objective: obj, LowerBound: dual, MaxViolation: maxViol, Seconds: time.Since(s.start).Seconds(),
		Floor: admm.GapFloor(wsum)}, ev, nil
}

// blocks calls f on every block in s.order with its duals, decoding the
// next block on another goroutine while f works on the current one. With
// write (a sweep), the duals f changed are stored back. A cancelled context
// stops it between blocks with ctx.Err().
func (s *solver) blocks(ctx context.Context, write bool, f func(b int, p *hlmrf.Problem, pa, ca []float32)) error {
	nb := s.src.NumBlocks()
	if nb == 0 {
		return nil
	}
	type decoded struct {
		b   int
		p   *hlmrf.Problem
		err error
	}
	scratch := make(chan *hlmrf.Problem, 2)
	scratch <- &hlmrf.Problem{}
	scratch <- &hlmrf.Problem{}
	out := make(chan decoded, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(out)
		for _, b := range s.order {
			var sc *hlmrf.Problem
			select {
			case sc = <-scratch:
			case <-stop:
				return
			}
			p, err := s.src.Block(b, sc)
			select {
			case out <- decoded{b, p, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var pa, ca []float32
	for d := range out {
		if d.err != nil {
			return d.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b, p := d.b, d.p
		np := s.src.PotStart(b+1) - s.src.PotStart(b)
		nc := s.src.ConStart(b+1) - s.src.ConStart(b)
		if int64(p.NumPotentials()) != np || int64(p.NumConstraints()) != nc {
			return fmt.Errorf("dcd: block %d has %d potentials and %d constraints, want %d and %d", b, p.NumPotentials(), p.NumConstraints(), np, nc)
		}
		var err error
		if pa, ca, err = s.duals.load(s.src.PotStart(b), np, s.src.PotStart(nb)+s.src.ConStart(b), nc, pa, ca); err != nil {
			return err
		}
		f(b, p, pa, ca)
		if write {
			if err := s.duals.store(s.src.PotStart(b), pa, s.src.PotStart(nb)+s.src.ConStart(b), ca); err != nil {
				return err
			}
		}
		// p may be the source's own memory (not a scratch): hand back a
		// fresh scratch then.
		select {
		case scratch <- p:
		default:
		}
	}
	return nil
}

var errClosed = errors.New("dcd: dual store closed")
