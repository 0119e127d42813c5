package learn

import "math"

// scratch holds one worker's buffers for evaluating conditionals; sized for
// the line with the most pieces, allocated once.
type scratch struct {
	beta            []float64 // boundaries lo, bnd..., hi (K+1)
	fp, gp, fm, gm  []float64 // per boundary (K+1)
	lp, ap, lm, am  []float64 // per piece (K)
	first, last     []int32   // piece -> its first and last sub-piece
	u, ln, logI, pr []float64 // per sub-piece (<= 2K): start, length, log mass, probability
	e1L, e2L        []float64 // E[t-u], E[(t-u)^2] within the sub-piece
	e1R, e2R        []float64 // E[v-t], E[(v-t)^2]
	r0, r1, r2      []float64 // suffix sums about each sub-piece's start
	l0, l1, l2      []float64 // prefix sums about each sub-piece's end
}

func newScratch(maxPieces int) *scratch {
	k := maxPieces
	f := func(n int) []float64 { return make([]float64, n) }
	return &scratch{
		beta: f(k + 1), fp: f(k + 1), gp: f(k + 1), fm: f(k + 1), gm: f(k + 1),
		lp: f(k), ap: f(k), lm: f(k), am: f(k),
		first: make([]int32, k), last: make([]int32, k),
		u: f(2 * k), ln: f(2 * k), logI: f(2 * k), pr: f(2 * k),
		e1L: f(2 * k), e2L: f(2 * k), e1R: f(2 * k), e2R: f(2 * k),
		r0: f(2*k + 1), r1: f(2*k + 1), r2: f(2*k + 1),
		l0: f(2 * k), l1: f(2 * k), l2: f(2 * k),
	}
}

// evalLine returns the negative log conditional density of the truth along
// line l, log integral_lo^hi exp(-(f(t) - f(0))) dt, and, when grad is not
// nil, adds scale*(phi_j(0) - E[phi_j]) to grad[group of j] for every
// incidence j with a learned weight: the derivative of that value with
// respect to the group's weight.
func (ls *lines) evalLine(l int, w []float64, sc *scratch, grad []float64, scale float64) float64 {
	i0, i1 := int(ls.incStart[l]), int(ls.incStart[l+1])
	b0, b1 := int(ls.bndStart[l]), int(ls.bndStart[l+1])
	K := b1 - b0 + 1
	beta := sc.beta[:K+1]
	beta[0] = ls.lo[l]
	copy(beta[1:K], ls.bnd[b0:b1])
	beta[K] = ls.hi[l]

	// f at the truth (t = 0).
	f0 := 0.0
	for j := i0; j < i1; j++ {
		if ls.phi0[j] != 0 {
			f0 += ls.weight(j, w) * ls.phi0[j]
		}
	}
	ls.sweepUp(i0, i1, w, beta, sc)
	ls.sweepDown(i0, i1, w, beta, sc)
	S, maxLog := sc.subPieces(beta, f0)
	sum := 0.0
	for s := 0; s < S; s++ {
		sc.pr[s] = math.Exp(sc.logI[s] - maxLog)
		sum += sc.pr[s]
	}
	logZ := maxLog + math.Log(sum)
	if grad == nil {
		return logZ
	}
	for s := 0; s < S; s++ {
		sc.pr[s] /= sum
	}
	ls.addGradient(i0, i1, S, beta, sc, grad, scale)
	return logZ
}

// weight is the weight of incidence j: its group's in w, or its fixed one.
func (ls *lines) weight(j int, w []float64) float64 {
	if g := ls.grp[j]; g >= 0 {
		return w[g]
	}
	return ls.fixedW[j]
}

// sweepUp is the left-to-right sweep over the hinges with a > 0 (active for t >= bp):
// F+ at each boundary, G+ = sum over squared ones of w*a*(a*(t-bp)),
// and the slope L+ (linear) and curvature A+ (squared) of each piece.
// Every term added is nonnegative.
func (ls *lines) sweepUp(i0, i1 int, w, beta []float64, sc *scratch) {
	K := len(beta) - 1
	var F, G, L, A float64
	j := i0
	for k := 0; k <= K; k++ {
		if k > 0 {
			h := beta[k] - beta[k-1]
			F += h*L + 2*h*G + h*h*A
			G += h * A
		}
		for ; j < i1; j++ {
			a := ls.a[j]
			if a < 0 {
				continue
			}
			if int(ls.piece[j]) > k {
				break
			}
			wt := ls.weight(j, w)
			c := max(a*(beta[k]-ls.bp[j]), 0)
			if ls.pow[j] == 2 {
				F += wt * c * c
				G += wt * a * c
				A += wt * a * a
			} else {
				F += wt * c
				L += wt * a
			}
		}
		sc.fp[k], sc.gp[k] = F, G
		if k < K {
			sc.lp[k], sc.ap[k] = L, A
		}
	}
}

// sweepDown is the right-to-left sweep over the hinges with a < 0 (active for t <= bp).
// At boundary k the hinges whose last active piece is k-1 join; those
// with bp = beta[k] add 0 to F and G there, so F- and G- at a boundary
// are the same for the pieces on either side.
func (ls *lines) sweepDown(i0, i1 int, w, beta []float64, sc *scratch) {
	K := len(beta) - 1
	var F, G, L, A float64
	j := i1 - 1
	for k := K; k >= 0; k-- {
		if k < K {
			h := beta[k+1] - beta[k]
			F += h*L + 2*h*G + h*h*A
			G += h * A
			sc.lm[k], sc.am[k] = L, A
		}
		for ; k > 0 && j >= i0; j-- {
			a := ls.a[j]
			if a > 0 {
				continue
			}
			if int(ls.piece[j]) < k-1 {
				break
			}
			wt := ls.weight(j, w)
			c := max(-a*(ls.bp[j]-beta[k]), 0)
			if ls.pow[j] == 2 {
				F += wt * c * c
				G += wt * (-a) * c
				A += wt * a * a
			} else {
				F += wt * c
				L += wt * (-a)
			}
		}
		sc.fm[k], sc.gm[k] = F, G
	}
}

// subPieces splits each piece into sub-pieces anchored at their
// lowest-energy end and records each one's log-integral and moments
// relative to f0 (f at the truth); it returns their number and the largest
// log-integral.
func (sc *scratch) subPieces(beta []float64, f0 float64) (S int, maxLog float64) {
	K := len(beta) - 1
	maxLog = math.Inf(-1)
	add := func(u, ln, fAnchor, alpha, A float64, fromLeft bool) {
		logI0, m1, m2 := pieceMoments(max(alpha, 0), A, ln)
		lg := -(fAnchor - f0) + logI0
		sc.u[S], sc.ln[S], sc.logI[S] = u, ln, lg
		far1 := ln - m1
		far2 := max(ln*ln-2*ln*m1+m2, 0)
		if fromLeft {
			sc.e1L[S], sc.e2L[S], sc.e1R[S], sc.e2R[S] = m1, m2, far1, far2
		} else {
			sc.e1R[S], sc.e2R[S], sc.e1L[S], sc.e2L[S] = m1, m2, far1, far2
		}
		maxLog = max(maxLog, lg)
		S++
	}
	for k := 0; k < K; k++ {
		h := beta[k+1] - beta[k]
		A := sc.ap[k] + sc.am[k]
		sigL := sc.lp[k] + 2*sc.gp[k] - sc.lm[k] - 2*sc.gm[k]
		sigR := sc.lp[k] + 2*sc.gp[k+1] - sc.lm[k] - 2*sc.gm[k+1]
		fL := sc.fp[k] + sc.fm[k]
		fR := sc.fp[k+1] + sc.fm[k+1]
		sc.first[k] = int32(S)
		switch {
		case sigL >= 0:
			add(beta[k], h, fL, sigL, A, true)
		case sigR <= 0:
			add(beta[k], h, fR, -sigR, A, false)
		default:
			sv := -sigL / (2 * A)
			var fv float64
			if sv <= h/2 {
				fv = fL - sigL*sigL/(4*A)
			} else {
				fv = fR - sigR*sigR/(4*A)
			}
			fv = max(fv, 0)
			vx := beta[k] + sv
			if vx > beta[k] && vx < beta[k+1] {
				add(beta[k], vx-beta[k], fv, 0, A, false)
				add(vx, beta[k+1]-vx, fv, 0, A, true)
			} else if fL <= fR {
				add(beta[k], h, fL, 0, A, true)
			} else {
				add(beta[k], h, fR, 0, A, false)
			}
		}
		sc.last[k] = int32(S - 1)
	}
	return S, maxLog
}

// addGradient adds scale * (phi at the truth - E[phi]) to grad for every
// learnable incidence of the line, from the sub-pieces' probabilities sc.pr.
func (ls *lines) addGradient(i0, i1, S int, beta []float64, sc *scratch, grad []float64, scale float64) {
	K := len(beta) - 1
	// Suffix sums of P*E[(t - u_s)^m] over sub-pieces s.. and prefix sums of
	// P*E[(v_s - t)^m] over ..s: all terms nonnegative.
	sc.r0[S], sc.r1[S], sc.r2[S] = 0, 0, 0
	for s := S - 1; s >= 0; s-- {
		h := sc.ln[s]
		R0, R1, R2 := sc.r0[s+1], sc.r1[s+1], sc.r2[s+1]
		P := sc.pr[s]
		sc.r0[s] = P + R0
		sc.r1[s] = P*sc.e1L[s] + R1 + h*R0
		sc.r2[s] = P*sc.e2L[s] + R2 + 2*h*R1 + h*h*R0
	}
	var L0, L1, L2 float64
	for s := 0; s < S; s++ {
		h := sc.ln[s]
		P := sc.pr[s]
		L0, L1, L2 = P+L0, P*sc.e1R[s]+L1+h*L0, P*sc.e2R[s]+L2+2*h*L1+h*h*L0
		sc.l0[s], sc.l1[s], sc.l2[s] = L0, L1, L2
	}
	for j := i0; j < i1; j++ {
		g := ls.grp[j]
		if g < 0 {
			continue
		}
		a := ls.a[j]
		pc := int(ls.piece[j])
		var e float64
		if a > 0 {
			if pc < K {
				s := sc.first[pc]
				d := beta[pc] - ls.bp[j]
				if ls.pow[j] == 2 {
					e = a * a * (sc.r2[s] + 2*d*sc.r1[s] + d*d*sc.r0[s])
				} else {
					e = a * (sc.r1[s] + d*sc.r0[s])
				}
			}
		} else if pc >= 0 {
			s := sc.last[pc]
			d := ls.bp[j] - beta[pc+1]
			if ls.pow[j] == 2 {
				e = a * a * (sc.l2[s] + 2*d*sc.l1[s] + d*d*sc.l0[s])
			} else {
				e = -a * (sc.l1[s] + d*sc.l0[s])
			}
		}
		grad[g] += scale * (ls.phi0[j] - e)
	}
}
