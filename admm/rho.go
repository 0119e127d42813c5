package admm

import (
	"fmt"
	"math"
)

// RhoPolicy says how the penalty rho adapts during a solve. Whatever the
// policy, a solve stops only on the same tests (residuals, constraints and
// the certified gap), so an answer's quality never depends on it; the
// policy changes only how many iterations that takes.
//
// A change of rho from rho to rho' keeps the unscaled duals alpha = rho*u:
// the scaled duals are multiplied by rho/rho' (Boyd et al. 2011, section
// 3.4.1). In the solver's state (kernels.go) a copy's s = z + u becomes
// z + (rho/rho')*(s - z), which the recorded slot of the check iteration
// still describes as zl' - step'*d with zl' = z + (rho/rho')*(zl - z) per
// variable and step' = (rho/rho')*step per term, and q = a.zl' + c -
// step'*(a.d) follows; the potentials' gains and caps are set for rho'.
type RhoPolicy int

const (
	// RhoFixed keeps Options.Rho throughout: PSL's behaviour.
	RhoFixed RhoPolicy = iota
	// RhoBalance is residual balancing (Boyd et al. 2011, section 3.4.1)
	// on the residuals relative to their tolerances: at a check where the
	// relative primal residual rp = primal/eps_pri and the relative dual
	// residual rd = dual/eps_dual differ by more than balanceRatio, rho is
	// multiplied by sqrt(rp/rd) (within [1/maxStep, maxStep]), the change
	// that balances them when the primal residual falls as 1/rho and the
	// dual one grows as rho (the rule OSQP uses).
	RhoBalance
	// RhoSpectral is the spectral penalty of Xu, Figueiredo and Goldstein
	// ("Adaptive ADMM with spectral penalty parameter selection", AISTATS
	// 2017), taken between consecutive checks: the curvatures of the
	// potentials' and the box's dual functions are estimated by
	// Barzilai-Borwein steps from how the local copies, the consensus and
	// the duals moved since the last check, and rho becomes their
	// geometric mean when both estimates are reliable (correlation above
	// spectralCorr), one of them when only it is, unchanged otherwise.
	RhoSpectral
	rhoPolicies = RhoSpectral
)

var rhoPolicyNames = [...]string{RhoFixed: "fixed", RhoBalance: "balance", RhoSpectral: "spectral"}

// String returns the policy's name as ParseRhoPolicy reads it.
func (p RhoPolicy) String() string {
	if p >= RhoFixed && p <= rhoPolicies {
		return rhoPolicyNames[p]
	}
	return fmt.Sprintf("RhoPolicy(%d)", int(p))
}

// ParseRhoPolicy reads a policy's name: fixed, balance or spectral.
func ParseRhoPolicy(s string) (RhoPolicy, error) {
	for p, name := range rhoPolicyNames {
		if s == name {
			return RhoPolicy(p), nil
		}
	}
	return 0, fmt.Errorf("unknown rho policy %q (want fixed, balance or spectral)", s)
}

const (
	// balanceRatio is how far apart the relative residuals must be for
	// RhoBalance to change rho. Of 1.2, 1.5, 2, 3, 5 and 10, 2 took the
	// fewest iterations over Cora, Citeseer and three random problems
	// (bench/convergence/README.md); 1.5 and below change rho so often
	// that a random linear problem no longer converged without maxChanges.
	// A float: as the integer 2, 1/balanceRatio was 0 and rho was never
	// lowered.
	balanceRatio = 2.0
	// maxStep bounds one change of rho (a factor either way).
	maxStep = 100
	// rhoRange bounds rho to [rho0/rhoRange, rho0*rhoRange], rho0 the first
	// penalty (Options.Rho times WeightScale).
	rhoRange = 1e6
	// maxChanges bounds the changes of rho in a solver's life: ADMM
	// converges from any state once the penalty stops changing, and
	// changing it at every check can keep it from converging.
	maxChanges = 16
	// spectralCorr is the correlation a spectral curvature estimate needs
	// to be used (Xu et al.'s epsilon_cor).
	spectralCorr = 0.2
)

// rhoState is what the adaptive policies keep between checks.
type rhoState struct {
	// Spectral: the state at the last check, to difference against (see
	// spectral); ok when it is set.
	ok        bool
	rho       float64   // the penalty of that check's iteration
	zl, zp, z []float64 // per variable: consensus read by the check's local step, by the one before, and after it
	st, stp   []float64 // per term: the check's steps and the ones before
	changes   int       // rho changes so far (at most maxChanges)
}

// WeightScale is the factor an adaptive policy's first penalty is
// Options.Rho times: when every positive weight is on one side of 1, the
// power of ten nearest the weight nearest 1 (the smallest when all are
// above 1, the largest when all are below), 10^k with k = round(log10 w),
// when |k| >= weightScaleFrom; else 1. Scaling every weight by a factor
// leaves the minimisers as they are and asks ADMM for rho scaled by that
// factor; residual balancing alone, starting at 1 and held to rhoRange
// either way, left weights near 1e-8 or 1e10 at the iteration limit (a
// 20-variable problem: 25,000 iterations, gap 0.055 and 0.33; with rho at
// the weights' scale, 500 and 200, as at weight 1). The weight nearest 1,
// not a typical one: where the optimum's cost lies in the smallest
// weights (a MAX-SAT relaxation with weights 1 to 3 beside 1e12 to 1e17,
// optimum 2.5) a rho and a dual tolerance at the median's 1e12 left the
// objective at 25,638 for 25,000 iterations; weights on both sides of 1,
// and weights within about 10^-2.5 to 10^2.5, keep rho as given, so the
// usual models solve exactly as before.
func WeightScale(weights []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, w := range weights {
		if w > 0 && !math.IsInf(w, 1) {
			lo, hi = min(lo, w), max(hi, w)
		}
	}
	var near float64
	switch {
	case hi == 0:
		return 1
	case lo > 1:
		near = lo
	case hi < 1:
		near = hi
	default:
		return 1
	}
	k := math.Round(math.Log10(near))
	if math.Abs(k) < weightScaleFrom {
		return 1
	}
	return math.Pow(10, k)
}

// weightScaleFrom is the smallest |exponent| WeightScale scales by.
const weightScaleFrom = 3

// adaptRho runs at a check that did not stop the solve (worker 0, the
// others waiting) and changes rho as the policy says.
func (s *Solver) adaptRho(r *run) {
	var next float64
	switch s.opt.RhoPolicy {
	case RhoBalance:
		next = s.balance(r)
	case RhoSpectral:
		next = s.spectral()
	default:
		return
	}
	if !(next > 0) || math.IsInf(next, 0) {
		return
	}
	if s.adapt.changes >= maxChanges {
		return
	}
	next = min(max(next, s.rho/maxStep, s.rho0/rhoRange), s.rho*maxStep, s.rho0*rhoRange)
	if next != s.rho {
		s.setRho(next)
	}
}

// balance returns RhoBalance's next rho.
func (s *Solver) balance(r *run) float64 {
	if r.epsPri <= 0 || r.epsDual <= 0 {
		return s.rho
	}
	// A residual of exactly 0 beside one above its tolerance is the widest
	// imbalance, not none: with rho far below the weights every copy can
	// be pushed out of the box the same way, the consensus stays clipped
	// (dual residual 0) while the copies disagree, and rho had to move
	// (weights near 1e7 at rho 1: primal residual 3.95 for 25,000
	// iterations, the objective 5.45 times the optimum).
	switch {
	case r.dual <= 0 && r.primal > r.epsPri:
		return s.rho * maxStep
	case r.primal <= 0 && r.dual > r.epsDual:
		return s.rho / maxStep
	case r.primal <= 0 || r.dual <= 0:
		return s.rho
	}
	ratio := (r.primal / r.epsPri) / (r.dual / r.epsDual)
	if ratio < balanceRatio && ratio > 1/balanceRatio {
		return s.rho
	}
	return s.rho * math.Sqrt(ratio)
}

// setRho changes the penalty to rho, keeping the unscaled duals (see
// RhoPolicy): it rescales the check iteration's slot and q, and sets the
// gains for rho.
func (s *Solver) setRho(rho float64) {
	k := s.rho / rho
	cur := &s.slots[s.gen&1]
	for v, z := range s.z {
		cur.z[v] = z + k*(cur.z[v]-z)
	}
	for i := range cur.st {
		cur.st[i] *= k
	}
	for i := range s.q {
		b, e := s.start[i], s.start[i+1]
		n2 := 0.0
		if i < s.m {
			n2 = s.prm[i].n2
		} else {
			n2 = s.cprm[i-s.m].n2
		}
		s.q[i] = rowDot(s.coef[b:e], s.vars[b:e], cur.z) + s.termConst(i) - cur.st[i]*n2
	}
	s.rho = rho
	s.setGains()
	s.adapt.changes++
}

// spectral returns RhoSpectral's next rho. Consensus ADMM is Xu et al.'s
// problem H(x) + G(z) with A = I, B = -E (E copies each variable to its
// copies): x the local copies, H the potentials and constraints, G the box
// [0,1]^n. At a check the state gives, per copy k of term i with variable
// v (kernels.go: s = zl - step*d, the copy x = 2*zl - s_prev - step*d):
//
//	lambda-hat_k = rho*step_i*a_k          (in the subdifferential of H at x)
//	lambda_k     = rho*m_k*(z_v - s_k)     (-alpha: its sum is in the box's normal cone)
//
// and between two checks the Barzilai-Borwein steps of H's side (Delta-H =
// Delta x against Delta lambda-hat) and of G's side (Delta-G = -Delta z_v
// against Delta lambda) estimate the inverse curvatures alpha and beta;
// rho = sqrt(alpha*beta) balances them. Inner products count each copy of
// weight m as m copies (a copy's dual is the sum of its m originals'), so a
// lifted problem adapts as the original would.
func (s *Solver) spectral() float64 {
	st := &s.adapt
	cur, prev := &s.slots[s.gen&1], &s.slots[(s.gen-1)&1]
	next := s.rho
	if st.ok {
		var hh, hl, ll, gg, gl, mm float64 // <dH,dH>, <dH,dlh>, <dlh,dlh>, <dG,dG>, <dG,dl>, <dl,dl>
		for i := 0; i < s.m+s.nc; i++ {
			b, e := int(s.start[i]), int(s.start[i+1])
			for k := b; k < e; k++ {
				v, d, a, m := s.vars[k], s.dir[k], s.coef[k], s.copyWeight(k)
				x := 2*cur.z[v] - (prev.z[v] - prev.st[i]*d) - cur.st[i]*d
				x0 := 2*st.zl[v] - (st.zp[v] - st.stp[i]*d) - st.st[i]*d
				dh := x - x0
				dlh := s.rho*cur.st[i]*a - st.rho*st.st[i]*a
				dg := -(s.z[v] - st.z[v])
				dl := s.rho*m*(s.z[v]-cur.z[v]+cur.st[i]*d) - st.rho*m*(st.z[v]-st.zl[v]+st.st[i]*d)
				hh += m * dh * dh
				hl += dh * dlh
				ll += dlh * dlh / m
				gg += m * dg * dg
				gl += dg * dl
				mm += dl * dl / m
			}
		}
		alpha, aok := bbStep(hh, hl, ll)
		beta, bok := bbStep(gg, gl, mm)
		switch {
		case aok && bok:
			next = math.Sqrt(alpha * beta)
		case aok:
			next = alpha
		case bok:
			next = beta
		}
	}
	st.ok, st.rho = true, s.rho
	st.zl = append(st.zl[:0], cur.z...)
	st.zp = append(st.zp[:0], prev.z...)
	st.z = append(st.z[:0], s.z...)
	st.st = append(st.st[:0], cur.st...)
	st.stp = append(st.stp[:0], prev.st...)
	return next
}

// bbStep returns the hybrid Barzilai-Borwein step of Xu et al. from the
// inner products of the gradient change g and the point change l (gg =
// <g,g>, gl = <g,l>, ll = <l,l>), and whether it is reliable: positive
// curvature and correlation gl/sqrt(gg*ll) above spectralCorr.
func bbStep(gg, gl, ll float64) (float64, bool) {
	if !(gl > 0) || !(gg > 0) || !(ll > 0) || gl/math.Sqrt(gg*ll) <= spectralCorr {
		return 0, false
	}
	sd := ll / gl // steepest descent
	mg := gl / gg // minimum gradient
	if 2*mg > sd {
		return mg, true
	}
	return sd - mg/2, true
}
