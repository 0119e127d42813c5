package admm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/abandon"
)

// Chunks are the unit of work division and of the per-chunk partial sums of
// the residuals. Their size depends only on the problem, never on the thread
// count, so that the residuals are summed in the same order whatever the
// number of threads (the local step's accumulators are the one place where
// Threads changes the grouping of sums, see kernels.go): about 1/64 of
// the total work (local copies plus two per term or variable), so small
// problems still split evenly across cores, but at least minChunkUnits (a
// few microseconds of work, so claiming a chunk costs little) and at most
// maxChunkUnits.
const (
	minChunkUnits = 1 << 10
	maxChunkUnits = 1 << 14
)

// Solver is consensus ADMM for one problem structure. Weights are read from
// the problem at every Solve; everything else is fixed at New (the solver
// keeps its own copy of the structure). A Solver is not safe for concurrent
// use: one Solve at a time.
type Solver struct {
	p   *hlmrf.Problem
	opt Options

	n, m, nc int // variables, potentials, constraints
	copies   int

	// The internal order (layout.go). Everything below is in it: variables
	// numbered varNew[j], potential ii is the caller's pot[ii], constraint
	// jj the caller's con[jj].
	layout

	// Terms: potentials 0..m-1 then constraints; copy k of term i is
	// start[i] <= k < start[i+1].
	start []int32
	coef  []float64
	dir   []float64 // update direction per copy: coef, or coef/m with copy weights
	vars  []int32
	power []uint8 // per potential
	cprm  []conParam
	ceq   []bool    // constraint is an equality
	ctol  []float64 // violation tolerance per constraint
	// ctolUser is ctol in the caller's constraint order.
	ctolUser []float64
	prm      []potParam // per potential: fixed at New, except a squared hinge's g (set by each Solve)
	caps     []float64  // per potential: w/rho (linear) or +Inf (squared)
	w        []float64  // weights of the current Solve

	// Runs of consecutive potentials with the same arity, for the fixed-stride
	// kernels.
	runs []arityRun

	// Copy weights (Options.Copies), nil when every weight is the same
	// number uniform (1 without Options.Copies): per copy, and the total
	// weight (which replaces the number of copies in the tolerances).
	cw   []float64
	wsum float64
	// gapFloor is the smallest |objective| the gap test is relative to:
	// 1, or less for a problem whose weights sum to less than
	// 1/gapFloorShare (prepare).
	gapFloor float64
	// uniform is the common copy weight when cw is nil. Weights that are all
	// equal to m run as plain ADMM on weights w/m (the local step of a term
	// penalised by rho*m is that of weight w/m penalised by rho, and every
	// consensus mean is unweighted), with m scaling only the residuals,
	// tolerances, duals and bound: the fast path for a lifted problem whose
	// classes all have the same size (k disjoint copies of a problem).
	uniform float64
	// inv[j] is 1/M_j, M_j the number of copies of variable j (the sum of
	// their weights with copy weights); 0 for a variable without copies.
	inv []float64

	// State (kernels.go): the consensus z, and per term (potentials, then
	// constraints) q = a.zl + c - step*(a.d), where zl is the consensus and
	// step the step of the term's last local step. That is all the
	// iteration itself needs. The residuals and duals of a check need the
	// local copies and duals, s_k = zl_k - step*d_k, of the check iteration
	// and the one before: those two iterations record their steps and the
	// consensus they read in slots[g&1], g the iteration's number counted
	// over all Solves (gen counts them), so the slot of the last iteration
	// always describes the state a Solve stopped in.
	z []float64
	q []float64
	// rho is the current penalty: Options.Rho at New (with an adaptive
	// policy, times the weights' scale from the first Solve: rho0), then as
	// the policy adapts it (rho.go); it carries over from one Solve to the
	// next.
	rho   float64
	rho0  float64
	adapt rhoState
	slots [2]slot
	gen   int
	ran   bool
	// lanes are the per-worker accumulators of the local step (kernels.go),
	// allocated at the first Solve with that many threads and all zero
	// between iterations.
	lanes [][]float64

	// Work division.
	termChunks []int // chunk c covers terms termChunks[c]..termChunks[c+1]-1
	varChunks  []int
	chunkRun   []int // per term chunk: the first run that ends after its first term
	tpart      []termPartial
	vpart      []varPartial
	bscratch   []boundScratch // per term chunk, for the Lagrangian bound
}

// slot records one iteration's local step for the residuals and duals of a
// check (Solver.slots).
type slot struct {
	z  []float64 // consensus read by the iteration's local step
	st []float64 // each term's step
}

// termPartial holds one term chunk's contribution to a residual check.
type termPartial struct {
	r2, xx, zz, aa, obj float64
	lb                  float64 // the terms' share of the Lagrangian bound
	maxViol             float64
	worst               int // constraint with the largest violation, -1 if none
	violated            int
	_                   [64]byte
}

type varPartial struct {
	d2 float64
	vb float64 // the variables' share of the Lagrangian bound, divided by rho
	_  [48]byte
}

// New prepares a solver for p. It validates the options and the problem
// (hlmrf.Problem.Validate) and lays out its terms in the locality order of
// layout.go. Memory, allocated here once: 12 bytes per local copy
// (coefficient and variable; 28 with copy weights), about 65 per potential,
// 73 per constraint and 36 per variable, on top of the problem itself, and 8
// per variable and thread at the first Solve (the accumulators; while New
// runs, the layout's search needs another 4 bytes per copy and per
// variable).
func New(p *hlmrf.Problem, opt Options) (*Solver, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("admm: nil problem")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &Solver{p: p, opt: opt, n: p.NumVars, m: p.NumPotentials(), nc: p.NumConstraints(), rho: opt.Rho, rho0: opt.Rho}
	s.copies = len(p.Var) + len(p.CVar)
	if s.copies > math.MaxInt32 {
		return nil, fmt.Errorf("admm: %d local copies exceed the int32 index range", s.copies)
	}
	if opt.Copies != nil {
		if len(opt.Copies) != s.copies {
			return nil, fmt.Errorf("admm: Options.Copies has %d weights, want %d (one per potential term, then one per constraint term)", len(opt.Copies), s.copies)
		}
		for k, m := range opt.Copies {
			if !(m > 0) || math.IsInf(m, 1) {
				return nil, fmt.Errorf("admm: Options.Copies[%d] = %v is not a finite positive number", k, m)
			}
		}
	}

	if opt.ConstraintNorms != nil {
		if len(opt.ConstraintNorms) != s.nc {
			return nil, fmt.Errorf("admm: Options.ConstraintNorms has %d norms, want %d (one per constraint)", len(opt.ConstraintNorms), s.nc)
		}
		for j, a := range opt.ConstraintNorms {
			if !(a >= 0) || math.IsInf(a, 1) {
				return nil, fmt.Errorf("admm: Options.ConstraintNorms[%d] = %v is not a finite number >= 0", j, a)
			}
		}
	}

	s.placeTerms()
	s.termParams()

	// Each variable's number of copies, or total copy weight, M_j, as
	// 1/M_j. (Equal copy weights run unweighted: see uniform.)
	s.inv = make([]float64, s.n)
	for k, v := range s.vars {
		if s.cw != nil {
			s.inv[v] += s.cw[k]
		} else {
			s.inv[v]++
		}
	}
	for j, m := range s.inv {
		s.inv[j] = recip(m)
	}

	// A cold start: z = 0 and every local copy at it.
	terms := s.m + s.nc
	s.z = make([]float64, s.n)
	s.q = make([]float64, terms)
	for h := range s.slots {
		s.slots[h] = slot{z: make([]float64, s.n), st: make([]float64, terms)}
	}
	s.startAtZ()

	s.makeChunks()
	return s, nil
}

// NewContext is New returning ctx's error as soon as ctx is done
// (abandon.Run): New's layout of a problem of millions of terms takes
// seconds and looks at no context (Ctrl-C took 2 to 4 s there). The
// abandoned New finishes unseen, allocating what New allocates (for a
// problem of millions of terms, hundreds of megabytes): meant for a
// program that ends once cancelled, as the CLI does.
func NewContext(ctx context.Context, p *hlmrf.Problem, opt Options) (*Solver, error) {
	return abandon.Run(ctx, func() (*Solver, error) { return New(p, opt) })
}

// placeTerms lays the terms out internally: potentials then constraints;
// copy k of internal term i is start[i] <= k < start[i+1], and internal
// copy start[i]+q is copy q of the caller's term.
func (s *Solver) placeTerms() {
	p, opt := s.p, &s.opt
	np := len(p.Var)
	s.layout = newLayout(p)
	s.start = make([]int32, s.m+s.nc+1)
	s.coef = make([]float64, s.copies)
	s.vars = make([]int32, s.copies)
	s.dir = s.coef
	s.uniform = 1
	weighted := len(opt.Copies) > 0 && !allEqual(opt.Copies)
	if len(opt.Copies) > 0 && !weighted {
		s.uniform = opt.Copies[0]
	}
	s.wsum = s.uniform * float64(s.copies)
	if weighted {
		s.cw = make([]float64, s.copies)
		s.dir = make([]float64, s.copies)
		s.wsum = 0
	}
	s.power = make([]uint8, s.m)
	s.prm = make([]potParam, s.m)
	at := 0
	place := func(vars []int32, coefs []float64, orig int) {
		for q, v := range vars {
			k := at + q
			s.vars[k] = s.varNew[v]
			s.coef[k] = coefs[q]
			if s.cw != nil {
				m := opt.Copies[orig+q]
				s.cw[k] = m
				s.dir[k] = coefs[q] / m
				s.wsum += m
			}
		}
		at += len(vars)
	}
	for ii, i := range s.pot {
		vars, coefs := p.Terms(int(i))
		place(vars, coefs, int(p.Start[i]))
		s.start[ii+1] = int32(at)
		s.power[ii] = p.Power[i]
		s.prm[ii].c = p.Const[i]
	}
	for jj, j := range s.con {
		vars, coefs := p.CTerms(int(j))
		place(vars, coefs, np+int(p.CStart[j]))
		s.start[s.m+jj+1] = int32(at)
	}
}

// termParams sets the terms' fixed parameters: the potentials' runs of
// equal arity and power and their gains, and the constraints' parameters
// and tolerances.
func (s *Solver) termParams() {
	p := s.p
	s.runs = arityRuns(s.start[:s.m+1], s.power)
	for i := range s.prm {
		pp := &s.prm[i]
		pp.n2 = dot(s.coef[s.start[i]:s.start[i+1]], s.dir[s.start[i]:s.start[i+1]])
		if s.power[i] != 2 {
			pp.g = recip(pp.n2) // a linear hinge's gain does not depend on its weight
		}
	}
	s.caps = make([]float64, s.m)
	s.w = make([]float64, s.m)
	s.cprm = make([]conParam, s.nc)
	s.ceq = make([]bool, s.nc)
	s.ctolUser = constraintTols(p, s.opt.ConstraintTol, s.opt.ConstraintNorms)
	s.ctol = make([]float64, s.nc)
	for jj, j := range s.con {
		i := s.m + jj
		n2 := dot(s.coef[s.start[i]:s.start[i+1]], s.dir[s.start[i]:s.start[i+1]])
		lo := 0.0
		if p.CKind[j] == hlmrf.Equal {
			lo = math.Inf(-1)
			s.ceq[jj] = true
		}
		s.cprm[jj] = conParam{c: p.CConst[j], g: recip(n2), lo: lo, n2: n2}
		s.ctol[jj] = s.ctolUser[j]
	}
}

// makeChunks splits terms and variables into the chunks the workers share
// out, and finds each term chunk's first run.
func (s *Solver) makeChunks() {
	terms := s.m + s.nc
	s.termChunks = chunks(terms, s.copies+2*terms, func(i int) int { return int(s.start[i+1]-s.start[i]) + 2 })
	s.varChunks = chunks(s.n, 2*s.n, func(int) int { return 2 })
	s.tpart = make([]termPartial, len(s.termChunks)-1)
	s.chunkRun = make([]int, len(s.tpart))
	for c := range s.chunkRun {
		r := 0
		if c > 0 {
			r = s.chunkRun[c-1]
		}
		for r < len(s.runs) && s.runs[r].hi <= s.termChunks[c] {
			r++
		}
		s.chunkRun[c] = r
	}
	s.vpart = make([]varPartial, len(s.varChunks)-1)
	s.bscratch = make([]boundScratch, len(s.tpart))
}

// copyWeight is the weight of internal copy k (Options.Copies).
func (s *Solver) copyWeight(k int) float64 {
	if s.cw != nil {
		return s.cw[k]
	}
	return s.uniform
}

// startAtZ puts every local copy at the consensus z with zero duals: s = z,
// a zero step from z, so q = a.z + c, recorded as the slot of the
// iteration before the next.
func (s *Solver) startAtZ() {
	last := &s.slots[s.gen&1]
	copy(last.z, s.z)
	clear(last.st)
	for i := range s.q {
		b, e := s.start[i], s.start[i+1]
		s.q[i] = rowDot(s.coef[b:e], s.vars[b:e], s.z) + s.termConst(i)
	}
}

// termConst is the constant c of internal term i (a potential's, or for
// i >= m constraint i-m's).
func (s *Solver) termConst(i int) float64 {
	if i < s.m {
		return s.prm[i].c
	}
	return s.cprm[i-s.m].c
}

// dual is the unscaled dual alpha = rho*m*(s - z) of internal copy k of term
// i (see Duals) in the state the last iteration left, what Duals returns and
// the bound phase uses.
func (s *Solver) dual(i, k int) float64 {
	last := &s.slots[s.gen&1]
	v := s.vars[k]
	return s.rho * s.copyWeight(k) * (last.z[v] - last.st[i]*s.dir[k] - s.z[v])
}

// recip returns 1/x, or 0 when x is not positive (a term whose coefficients
// are all 0, a variable without copies).
func recip(x float64) float64 {
	if x > 0 {
		return 1 / x
	}
	return 0
}

// allEqual reports whether every copy weight is the same (plain ADMM with
// scaled weights: the solver then skips the weighted consensus).
func allEqual(w []float64) bool {
	for _, m := range w {
		if m != w[0] {
			return false
		}
	}
	return true
}

// arityRun is a run of potentials lo..hi-1 that all have arity variables
// (1, 2 or 3) and the same power (squared or not), handled by the
// fixed-arity kernels; arity 0 marks a stretch for the general loop.
type arityRun struct {
	lo, hi, arity int
	squared       bool
}

// minRun is the shortest run given a fixed-arity kernel; shorter ones join
// the general loop, whose per-potential cost is higher but which needs no
// switch between kernels.
const minRun = 16

// arityRuns splits potentials with row offsets start and powers power into
// runs.
func arityRuns(start []int32, power []uint8) []arityRun {
	m := len(start) - 1
	var runs []arityRun
	add := func(r arityRun) {
		if r.arity > 3 || r.hi-r.lo < minRun {
			r.arity, r.squared = 0, false
		}
		if n := len(runs); n > 0 && runs[n-1].arity == 0 && r.arity == 0 {
			runs[n-1].hi = r.hi
			return
		}
		runs = append(runs, r)
	}
	for i := 0; i < m; {
		k := start[i+1] - start[i]
		j := i + 1
		for j < m && start[j+1]-start[j] == k && power[j] == power[i] {
			j++
		}
		add(arityRun{lo: i, hi: j, arity: int(k), squared: power[i] == 2})
		i = j
	}
	return runs
}

// dot returns a.b.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	d := 0.0
	for k, x := range a {
		d += x * b[k]
	}
	return d
}

// chunks splits 0..n-1, whose work adds up to total, into contiguous
// ranges of about equal work and returns the boundaries (first 0, last n).
func chunks(n, total int, work func(int) int) []int {
	size := min(max(total/64, minChunkUnits), maxChunkUnits)
	b := []int{0}
	acc := 0
	for i := 0; i < n; i++ {
		acc += work(i)
		if acc >= size {
			b = append(b, i+1)
			acc = 0
		}
	}
	if b[len(b)-1] != n {
		b = append(b, n)
	}
	return b
}

// split assigns contiguous runs of chunks to t workers, balancing work
// (bounds[c+1]-bounds[c] weighted by cost) and returns t+1 chunk indexes.
func split(bounds []int, t int, cost func(lo, hi int) int) []int {
	nch := len(bounds) - 1
	total := 0
	cum := make([]int, nch+1)
	for c := 0; c < nch; c++ {
		total += cost(bounds[c], bounds[c+1])
		cum[c+1] = total
	}
	out := make([]int, t+1)
	c := 0
	for w := 1; w < t; w++ {
		target := total * w / t
		for c < nch && cum[c] < target {
			c++
		}
		out[w] = c
	}
	out[t] = nch
	for w := 1; w <= t; w++ {
		out[w] = max(out[w], out[w-1])
	}
	return out
}

// Result is the outcome of a Solve.
type Result struct {
	Values         []float64 // consensus values, one per variable, in [0,1]
	Iterations     int       // iterations run by this Solve call
	Status         Status    // why the solve stopped
	Objective      float64   // p.Objective(Values)
	PrimalResidual float64   // at the last check
	DualResidual   float64   // at the last check
	PrimalTol      float64   // eps_pri at the last check
	DualTol        float64   // eps_dual at the last check
	MaxViolation   float64   // largest hard-constraint violation at Values
	LowerBound     float64   // Lagrangian lower bound on the optimum at the end (see LowerBound); NaN when Options.GapTol is 0
	GapFloor       float64   // the smallest |objective| the relative gap is taken against (GapFloor of the weights)
	Violated       int       // constraints violated by more than their tolerance (Options.ConstraintTol)
	Worst          int       // index of the most violated constraint, -1 if none is violated
	Rho            float64   // the penalty at the end (Options.Rho unless the policy scaled or adapted it)
}

// Converged reports whether the solve stopped because it converged.
func (r *Result) Converged() bool { return r.Status == Converged }

// Solve is New followed by Solve(ctx, nil): a cold start from all zeros.
func Solve(ctx context.Context, p *hlmrf.Problem, opt Options) (*Result, error) {
	s, err := New(p, opt)
	if err != nil {
		return nil, err
	}
	return s.Solve(ctx, nil)
}

// Solve runs ADMM until the residuals meet their tolerances with every hard
// constraint satisfied within tolerance, or for Options.MaxIter iterations.
//
// With init != nil (one value in [0,1] per variable) the consensus and every
// local copy start from init and the duals from zero. With init == nil a
// solver that has run before continues from where its last Solve stopped
// (local copies, duals and consensus), which after a small change of
// p.Weight converges in far fewer iterations than a cold start; a solver
// that has never run starts from zero. Variables that occur in no potential
// or constraint keep their starting value.
//
// Weights are read from p.Weight at each call (they must still be finite and
// nonnegative, one per potential). When ctx is cancelled, Solve stops within
// an iteration (after its consensus step) and returns the result so far
// (Status Cancelled; the residuals are those of the last check) together
// with ctx's error. A numerical breakdown (a non-finite residual,
// which can only come from coefficients so large that products overflow)
// returns the result so far (Status NumericalFailure) and an error.
func (s *Solver) Solve(ctx context.Context, init []float64) (*Result, error) {
	if err := s.prepare(init); err != nil {
		return nil, err
	}
	if s.copies == 0 || s.opt.MaxIter == 0 {
		st := IterationLimit
		if s.copies == 0 {
			st = Converged
		}
		return s.finish(0, st, 0, 0, 0, 0, math.NaN()), nil
	}
	threads := s.opt.Threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(s.tpart)))
	tterm := split(s.termChunks, threads, func(lo, hi int) int { return int(s.start[hi]-s.start[lo]) + 2*(hi-lo) })
	tvar := split(s.varChunks, threads, func(lo, hi int) int { return hi - lo })
	for len(s.lanes) < threads {
		s.lanes = append(s.lanes, make([]float64, s.n))
	}
	r := &run{
		s:          s,
		ctx:        ctx,
		t:          threads,
		bar:        newBarrier(threads),
		qCons:      newScheduler(tvar),
		qRes:       newScheduler(tterm),
		g0:         s.gen,
		lowerBound: math.NaN(),
	}
	r.cancelAt.Store(math.MaxInt64)
	var wg sync.WaitGroup
	for w := 1; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(w)
		}()
	}
	r.worker(0)
	wg.Wait()
	return s.finish(r.iter, r.status, r.primal, r.dual, r.epsPri, r.epsDual, r.lowerBound), r.err
}

// prepare checks weights and init and sets the parameters and start state.
func (s *Solver) prepare(init []float64) error {
	p := s.p
	if len(p.Weight) != s.m {
		return fmt.Errorf("admm: the problem has %d weights, want %d (one per potential; structure is fixed at New)", len(p.Weight), s.m)
	}
	for i, w := range p.Weight {
		if !(w >= 0) || math.IsInf(w, 1) {
			return fmt.Errorf("admm: potential %d: weight %v is not a finite nonnegative number", i, w)
		}
	}
	wsum := 0.0
	for i, orig := range s.pot {
		s.w[i] = p.Weight[orig]
		wsum += p.Weight[orig]
	}
	s.gapFloor = GapFloor(wsum)
	if !s.ran && s.opt.RhoPolicy != RhoFixed {
		s.rho0 = s.opt.Rho * s.weightScale()
		s.rho = s.rho0
	}
	s.setGains()
	if init != nil {
		if len(init) != s.n {
			return fmt.Errorf("admm: init has %d values, want %d (one per variable)", len(init), s.n)
		}
		for j, y := range init {
			if !(y >= 0 && y <= 1) {
				return fmt.Errorf("admm: init[%d] = %v is outside [0,1]", j, y)
			}
		}
		for j, y := range init {
			s.z[s.varNew[j]] = y
		}
		s.startAtZ()
		s.adapt.ok = false // the spectral policy's last check is not this state's past
	}
	// A cold start is the zero state New allocated; a continuation keeps the
	// state of the last Solve.
	s.ran = true
	return nil
}

// weightScale is WeightScale of the potentials' weights per original
// potential (a lifted potential's weight over its copies' weight, the
// weight of each member of its class).
func (s *Solver) weightScale() float64 {
	w := make([]float64, 0, len(s.w))
	for i, wi := range s.w {
		if s.start[i] < s.start[i+1] {
			wi /= s.copyWeight(int(s.start[i]))
		}
		w = append(w, wi)
	}
	return WeightScale(w)
}

// setGains sets the potentials' parameters that depend on their weights
// and the penalty: a squared hinge's gain, a linear hinge's cap.
func (s *Solver) setGains() {
	for i, w := range s.w {
		w /= s.uniform // the local step's weight (see Solver.uniform)
		if s.power[i] == 2 {
			pp := &s.prm[i]
			pp.g = 2 * w / (s.rho + 2*w*pp.n2)
			s.caps[i] = math.Inf(1)
		} else {
			s.caps[i] = w / s.rho
		}
	}
}

// finish builds the Result at the current consensus point. With a gap test
// (GapTol > 0), a NaN lowerBound (no bound phase ran: no iterations, or a
// cancelled solve) is computed here from the current duals.
func (s *Solver) finish(iter int, status Status, primal, dual, epsPri, epsDual, lowerBound float64) *Result {
	if math.IsNaN(lowerBound) && s.opt.GapTol > 0 {
		pd, cd := s.Duals()
		lowerBound = LowerBound(s.p, pd, cd)
	}
	vals := make([]float64, s.n)
	for j, v := range s.varNew {
		vals[j] = s.z[v]
	}
	res := &Result{
		Values:         vals,
		Iterations:     iter,
		Status:         status,
		Objective:      s.p.Objective(vals),
		PrimalResidual: primal,
		DualResidual:   dual,
		PrimalTol:      epsPri,
		DualTol:        epsDual,
		LowerBound:     lowerBound,
		GapFloor:       s.gapFloor,
		Worst:          -1,
		Rho:            s.rho,
	}
	res.MaxViolation, res.Violated, res.Worst = checkConstraints(s.p, vals, s.ctolUser)
	switch {
	case status == Converged && res.Violated > 0:
		// Only without terms (the run's own test is this one): a violated
		// constraint over no variables.
		res.Status = Infeasible
	case status == IterationLimit && math.IsInf(res.LowerBound, 1):
		res.Status = Infeasible
	}
	return res
}

// checkConstraints evaluates every hard constraint of p at y: the largest
// violation, how many exceed their tolerance ctol[j], and the worst one (-1
// when none is violated).
func checkConstraints(p *hlmrf.Problem, y, ctol []float64) (maxViol float64, violated, worst int) {
	worst = -1
	for j := range p.CKind {
		d := p.ConstraintViolation(j, y)
		if d > ctol[j] {
			violated++
		}
		if d > maxViol {
			maxViol, worst = d, j
		}
	}
	return maxViol, violated, worst
}

// Check evaluates the hard constraints of p at y with the solver's stopping
// tolerance (Options.ConstraintTol scaled by max(1, ||a_j||)): the largest
// violation, how many constraints exceed their tolerance, and the worst one
// (-1 when none is violated). A caller that maps a solution to another
// problem (lifting) uses it to report on the problem the user gave.
func Check(p *hlmrf.Problem, y []float64, constraintTol float64) (maxViol float64, violated, worst int) {
	return checkConstraints(p, y, constraintTols(p, constraintTol, nil))
}

// constraintTols returns each constraint's violation tolerance.
func constraintTols(p *hlmrf.Problem, tol float64, norms []float64) []float64 {
	out := make([]float64, p.NumConstraints())
	for j := range out {
		var norm float64
		if norms != nil {
			norm = norms[j]
		} else {
			norm = p.ConstraintNorm(j)
		}
		out[j] = tol * max(1, norm)
	}
	return out
}

// Duals returns the unscaled dual variables alpha of the state the last
// Solve stopped in, one per local copy: potential[k] belongs to the copy of
// variable p.Var[k] in its potential, constraint[k] to p.CVar[k]. Before the
// first Solve both are nil.
//
// Sign convention: the augmented Lagrangian is
//
//	sum_i f_i(x_i) + sum_k alpha_k*(x_k - z_var(k)) + rho/2 * sum_k (x_k - z_var(k))^2
//
// with f_i the potential w_i*max(a_i.x_i - c_i, 0)^d_i or the indicator of a
// hard constraint, and alpha = rho*(u + x - z) is the dual after the update
// that follows the last consensus step (Boyd et al.'s u^{k+1}). At a solution,
// -alpha_i (the copies of term i) is a subgradient of f_i at x_i = z: for a
// linear hinge alpha_i = -theta*w_i*a_i with theta in [0,1] (0 when the hinge
// is inactive, 1 when strictly active); for a squared hinge
// alpha_i = -2*w_i*max(a_i.z - c_i, 0)*a_i; for a <= constraint
// alpha_i = -lambda*a_i with lambda >= 0; for an = constraint lambda has
// either sign. For every variable the sum of its alphas lies in the normal
// cone of [0,1] at z_j (<= 0 at 0, >= 0 at 1, = 0 inside) exactly, not only
// in the limit, because the consensus step is exact. Hence for any y in
// [0,1]^n that satisfies the hard constraints, f(y) >= sum_i min_{x in [0,1]^{n_i}} (f_i(x) + alpha_i.x)
// + sum_j min_{y_j in [0,1]} (-y_j * sum of var j's alphas), a certified lower
// bound that approaches the optimum as the duals converge (LowerBound).
//
// With copy weights (Options.Copies) the dual of a copy of weight m is
// rho*m*u: the sum of the duals of the m original copies it stands for, so
// the same statements hold for the weighted problem.
func (s *Solver) Duals() (potential, constraint []float64) {
	if !s.ran {
		return nil, nil
	}
	p := s.p
	np := len(p.Var)
	all := make([]float64, s.copies)
	put := func(i int, orig int) {
		for k := int(s.start[i]); k < int(s.start[i+1]); k++ {
			all[orig+k-int(s.start[i])] = s.dual(i, k)
		}
	}
	for ii, i := range s.pot {
		put(ii, int(p.Start[i]))
	}
	for jj, j := range s.con {
		put(s.m+jj, np+int(p.CStart[j]))
	}
	return all[:np:np], all[np:]
}
