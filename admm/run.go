package admm

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
)

// run is one Solve in progress: t workers (worker 0 is the caller's
// goroutine) iterate in lock step, separated by a barrier after each phase.
type run struct {
	s   *Solver
	ctx context.Context
	t   int
	bar *barrier

	// In the local step worker w runs term chunks w, w+t, w+2t, ...: a
	// fixed assignment, since each worker adds into its own lane, and
	// interleaved, so that every worker gets its share of each kind of term
	// (potentials of each arity, constraints) whatever their relative cost.
	// The other phases hand out chunks through schedulers.
	qCons, qRes *scheduler
	g0          int // Solver.gen when the Solve began

	// Written by worker 0 between barriers, read by all after.
	stop, needBound bool
	// cancelAt is the iteration at whose consensus step every worker
	// stops because the context was cancelled (math.MaxInt64 until then).
	// Worker 0 sets it once, to the iteration it is in, before that
	// iteration's first barrier, so every worker reads the same verdict
	// after that iteration's second barrier, and a worker still in the
	// iteration before (it may read the new value early) does not stop.
	cancelAt atomic.Int64

	// Worker 0's bookkeeping.
	iter            int
	status          Status // why the solve stopped, set with stop
	primal, dual    float64
	epsPri, epsDual float64
	lowerBound      float64 // NaN until a bound phase computes it
	residualsOK     bool    // residual and constraint tests met at the last check
	obj, vb         float64 // objective and variables' bound share (over rho) at the last check
	err             error
}

// scheduler hands out the chunks of one phase. Each worker owns a
// contiguous range of chunks (balanced by work, so on an idle machine every
// worker keeps the same data in its cache from one iteration to the next)
// and claims them one by one through its own atomic cursor; a worker that
// runs out takes unclaimed chunks from the others' ranges, so a worker the
// operating system deschedules does not hold everyone up for its whole
// share. Which worker runs a chunk never changes the result: chunks write
// disjoint state and their partial sums go to per-chunk slots.
type scheduler struct {
	cur []cursor
}

type cursor struct {
	next   atomic.Int64
	lo, hi int64
	_      [40]byte // one cursor per cache line
}

// newScheduler gives worker w the chunks own[w]..own[w+1]-1.
func newScheduler(own []int) *scheduler {
	q := &scheduler{cur: make([]cursor, len(own)-1)}
	for w := range q.cur {
		q.cur[w].lo, q.cur[w].hi = int64(own[w]), int64(own[w+1])
	}
	q.reset()
	return q
}

// reset makes every chunk claimable again. Call it only while no worker is
// in the phase (right after the barrier that ends it).
func (q *scheduler) reset() {
	for w := range q.cur {
		q.cur[w].next.Store(q.cur[w].lo)
	}
}

// claim returns the next chunk for worker w, or -1 when the phase has none
// left.
func (q *scheduler) claim(w int) int {
	t := len(q.cur)
	for v := 0; v < t; v++ {
		o := w + v
		if o >= t {
			o -= t
		}
		c := &q.cur[o]
		if c.next.Load() >= c.hi {
			continue
		}
		if k := c.next.Add(1) - 1; k < c.hi {
			return int(k)
		}
	}
	return -1
}

// isCheck reports whether iteration it (of this Solve) checks the residuals.
func (r *run) isCheck(it int) bool {
	opt := &r.s.opt
	return it%opt.CheckEvery == 0 || it == opt.MaxIter
}

// worker runs its part of every phase until worker 0 decides to stop. All
// workers take the same branches (they depend only on the iteration count
// and on stop), so they meet at every barrier.
func (r *run) worker(w int) {
	s := r.s
	lanes := s.lanes[:r.t]
	acc := lanes[w]
	for it := 1; ; it++ {
		g := r.g0 + it
		check := r.isCheck(it)
		// A check and the iteration before it record their steps and the
		// consensus they read (Solver.slots).
		var rec *slot
		if check || r.isCheck(it+1) {
			rec = &s.slots[g&1]
		}
		for c := w; c < len(s.tpart); c += r.t {
			s.localChunk(c, acc, rec)
		}
		if w == 0 && r.ctx != nil && r.cancelAt.Load() == math.MaxInt64 && r.ctx.Err() != nil {
			r.cancelAt.Store(int64(it))
		}
		r.bar.wait()
		if w == 0 {
			s.gen = g
		}
		var zs []float64
		if rec != nil {
			zs = rec.z
		}
		for c := r.qCons.claim(w); c >= 0; c = r.qCons.claim(w) {
			d2, vb := consensus(lanes, s.inv, s.z, zs, s.varChunks[c], s.varChunks[c+1], check)
			if check {
				s.vpart[c].d2, s.vpart[c].vb = d2, vb
			}
		}
		r.bar.wait()
		if w == 0 {
			r.qCons.reset()
		}
		if int64(it) >= r.cancelAt.Load() {
			// Cancelled between checks: stop now, within one iteration
			// (a check may be thousands of iterations' work away).
			if w == 0 {
				r.iter, r.status, r.stop, r.err = it, Cancelled, true, r.ctx.Err()
			}
			return
		}
		if !check {
			continue
		}
		for c := r.qRes.claim(w); c >= 0; c = r.qRes.claim(w) {
			s.tpart[c] = s.residual(s.termChunks[c], s.termChunks[c+1])
		}
		r.bar.wait()
		if w == 0 {
			r.qRes.reset()
			r.decide(it)
		}
		r.bar.wait()
		if r.needBound {
			// The Lagrangian bound costs several iterations' worth
			// (BenchmarkTermBound), so it is computed only when the solver
			// may stop.
			for c := r.qRes.claim(w); c >= 0; c = r.qRes.claim(w) {
				s.tpart[c].lb = s.bound(&s.bscratch[c], s.termChunks[c], s.termChunks[c+1])
			}
			r.bar.wait()
			if w == 0 {
				r.qRes.reset()
				r.decideGap(it)
			}
			r.bar.wait()
		}
		if r.stop {
			return
		}
		if s.opt.RhoPolicy != RhoFixed {
			if w == 0 {
				s.adaptRho(r)
			}
			r.bar.wait()
		}
	}
}

// localChunk runs the local step of term chunk c, adding into acc: its
// potentials with the fixed-arity kernels (or, when the iteration records
// its steps in rec, the general loop), then its constraints.
func (s *Solver) localChunk(c int, acc []float64, rec *slot) {
	lo, hi := s.termChunks[c], s.termChunks[c+1]
	plo, phi := min(lo, s.m), min(hi, s.m)
	clo, chi := max(lo, s.m)-s.m, max(hi, s.m)-s.m
	cstart, cq := s.start[s.m:], s.q[s.m:]
	if rec != nil {
		localPotentials(s.prm, s.caps, s.start, s.coef, s.vars, s.q, s.z, acc, rec.st, plo, phi)
		localConstraints(s.cprm, cstart, s.coef, s.vars, cq, s.z, acc, rec.st[s.m:], clo, chi)
		return
	}
	s.localRuns(s.chunkRun[c], plo, phi, acc)
	localConstraints(s.cprm, cstart, s.coef, s.vars, cq, s.z, acc, nil, clo, chi)
}

// decide reduces the chunk partials (in chunk order, so the sums do not
// depend on the thread count), applies the stopping rule and reports
// progress. Only worker 0 calls it, while the others wait at the barrier.
func (r *run) decide(it int) {
	s := r.s
	opt := &s.opt
	var t termPartial
	t.worst = -1
	for _, c := range s.tpart {
		t.r2 += c.r2
		t.xx += c.xx
		t.zz += c.zz
		t.aa += c.aa
		t.obj += c.obj
		t.violated += c.violated
		if c.maxViol > t.maxViol {
			t.maxViol, t.worst = c.maxViol, c.worst
		}
	}
	d2, vb := 0.0, 0.0
	for _, c := range s.vpart {
		d2 += c.d2
		vb += c.vb
	}
	if s.cw == nil {
		d2, vb = d2*s.uniform, vb*s.uniform // plain consensus counts each copy once
	}
	rho := s.rho
	primal := math.Sqrt(t.r2)
	dual := rho * math.Sqrt(d2)
	sq := math.Sqrt(s.wsum)
	epsPri := sq*opt.EpsAbs + opt.EpsRel*math.Sqrt(max(t.xx, t.zz))
	// The duals are in the weights' units: the absolute part of their
	// tolerance is scaled as rho0 was (WeightScale), which makes the test
	// the one of the problem with its weights scaled to about 1.
	epsDual := sq*opt.EpsAbs*(s.rho0/opt.Rho) + opt.EpsRel*rho*math.Sqrt(t.aa)
	r.iter, r.primal, r.dual, r.epsPri, r.epsDual = it, primal, dual, epsPri, epsDual
	r.obj, r.vb = t.obj, vb
	if math.IsNaN(primal+dual+epsPri+epsDual+t.obj) || math.IsInf(primal+dual+t.obj, 0) {
		r.err = errors.New("admm: numerical breakdown (non-finite residual or objective): coefficients, constants or weights are too large in magnitude")
		r.status = NumericalFailure
		r.stop = true
		return
	}
	if opt.Progress != nil {
		opt.Progress(Progress{
			Iteration:      it,
			Objective:      t.obj,
			PrimalResidual: primal,
			DualResidual:   dual,
			PrimalTol:      epsPri,
			DualTol:        epsDual,
			MaxViolation:   t.maxViol,
			Rho:            rho,
		})
	}
	r.residualsOK = primal <= epsPri && dual <= epsDual && t.violated == 0
	// With a gap test, the bound decides it when the other tests pass, and
	// is reported at the last iteration (decideGap then stops or not).
	r.needBound = opt.GapTol > 0 && (r.residualsOK || it >= opt.MaxIter)
	if !r.needBound {
		r.stopRule(it, opt.GapTol == 0 && r.residualsOK)
	}
}

// decideGap completes decide once the bound phase has run: the gap test
// (objective - bound <= GapTol*max(floor, |objective|), the floor 1 or a
// share of the weights' sum when that is smaller; the bound is +Inf when
// the duals prove the constraints infeasible, and then the constraint test
// has failed anyway) and the stopping rule.
func (r *run) decideGap(it int) {
	s := r.s
	opt := &s.opt
	lb := s.rho * r.vb
	for _, c := range s.tpart {
		lb += c.lb
	}
	r.lowerBound = lb
	r.stopRule(it, r.residualsOK && RelativeGap(r.obj, lb, s.gapFloor) <= opt.GapTol)
}

// stopRule ends the solve once it has converged, at the iteration limit, or
// when the context is cancelled, and records why.
func (r *run) stopRule(it int, converged bool) {
	switch {
	case converged:
		r.status, r.stop = Converged, true
	case it >= r.s.opt.MaxIter:
		r.status, r.stop = IterationLimit, true
	case r.ctx != nil && r.ctx.Err() != nil:
		r.status, r.stop = Cancelled, true
		r.err = r.ctx.Err()
	}
}

// residual computes a term chunk's share of a check at the state after the
// consensus step: per copy the local value x, the consensus z and
// alpha/rho = s - z, from the slots of the check iteration (cur: the
// consensus its local step read and its steps) and of the one before
// (prev), and the potentials' objective and the constraints' violations at
// z. The local step of the check moved s_prev = zprev - step_prev*d to
// x = 2*zcur - s_prev - step*d and left s = zcur - step*d.
func (s *Solver) residual(lo, hi int) termPartial {
	out := termPartial{worst: -1}
	cur, prev := &s.slots[s.gen&1], &s.slots[(s.gen-1)&1]
	for i := lo; i < hi; i++ {
		b, e := int(s.start[i]), int(s.start[i+1])
		a := s.coef[b:e]
		d := s.dir[b:e]
		vs := s.vars[b:e]
		d, vs = d[:len(a)], vs[:len(a)]
		st, stp := cur.st[i], prev.st[i]
		dot := 0.0
		for k, ak := range a {
			v := vs[k]
			zk := s.z[v]
			zc := cur.z[v]
			xk := zc + zc - (prev.z[v] - stp*d[k]) - st*d[k]
			dx := xk - zk
			u := zc - st*d[k] - zk
			m := s.copyWeight(b + k)
			out.r2 += m * dx * dx
			out.xx += m * xk * xk
			out.zz += m * zk * zk
			out.aa += m * u * u
			dot += ak * zk
		}
		if i < s.m {
			if h := dot - s.prm[i].c; h > 0 {
				if s.power[i] == 2 {
					h *= h
				}
				out.obj += s.w[i] * h
			}
			continue
		}
		j := i - s.m
		v := dot - s.cprm[j].c
		if s.ceq[j] {
			v = math.Abs(v)
		} else {
			v = max(v, 0)
		}
		if v > s.ctol[j] {
			out.violated++
		}
		if v > out.maxViol {
			out.maxViol, out.worst = v, j
		}
	}
	return out
}

// bound returns terms lo..hi-1's share of the Lagrangian bound (bound.go)
// at the duals (Solver.dual) of the state after the consensus step.
func (s *Solver) bound(sc *boundScratch, lo, hi int) float64 {
	lb := 0.0
	for i := lo; i < hi; i++ {
		b, e := int(s.start[i]), int(s.start[i+1])
		a := s.coef[b:e]
		alpha := sc.alpha(len(a))
		for k := range alpha {
			alpha[k] = s.dual(i, b+k)
		}
		var r lambdaRange
		if i < s.m {
			r = potentialRange(s.w[i], s.power[i])
		} else {
			r = constraintRange(s.ceq[i-s.m])
		}
		lb += sc.termBound(a, alpha, s.termConst(i), r)
	}
	return lb
}

// localRuns runs the local step of potentials lo..hi-1, starting at run
// index r (the first run that ends after lo), with the fixed-arity kernels
// where runs allow, adding into acc.
func (s *Solver) localRuns(r, lo, hi int, acc []float64) {
	for ; r < len(s.runs) && s.runs[r].lo < hi; r++ {
		run := &s.runs[r]
		a, b := max(run.lo, lo), min(run.hi, hi)
		c0, c1 := int(s.start[a]), int(s.start[b])
		prm, caps, q, coef, vars := s.prm[a:b], s.caps[a:b], s.q[a:b], s.coef[c0:c1], s.vars[c0:c1]
		switch {
		case run.arity == 3 && run.squared:
			local3Sq(prm, q, rows[float64, [3]float64](coef), rows[int32, [3]int32](vars), s.z, acc)
		case run.arity == 3:
			local3Lin(prm, caps, q, rows[float64, [3]float64](coef), rows[int32, [3]int32](vars), s.z, acc)
		case run.arity == 2 && run.squared:
			local2Sq(prm, q, rows[float64, [2]float64](coef), rows[int32, [2]int32](vars), s.z, acc)
		case run.arity == 2:
			local2Lin(prm, caps, q, rows[float64, [2]float64](coef), rows[int32, [2]int32](vars), s.z, acc)
		case run.arity == 1 && run.squared:
			local1Sq(prm, q, coef, vars, s.z, acc)
		case run.arity == 1:
			local1Lin(prm, caps, q, coef, vars, s.z, acc)
		default:
			localPotentials(s.prm, s.caps, s.start, s.coef, s.vars, s.q, s.z, acc, nil, a, b)
		}
	}
}
