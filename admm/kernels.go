package admm

import "unsafe"

// The hot loops. State per local copy k (potential and constraint terms laid
// out contiguously, potentials first, in the order of p.Var then p.CVar) is a
// single number
//
//	s[k] = x[k] + u[k]
//
// the local copy plus its scaled dual (u = alpha/rho). With z the consensus
// of the previous iteration, the dual update u' = u + x - z gives u' = s - z,
// the point the local step pulls towards is v = z - u' = 2z - s, and after
// the local step x' = v - step*a the new s' = x' + u' = z - step*a. So one
// iteration of a term reads z and s, computes the scalar t = a.v - c, one
// scalar step, and writes s' = z - step*a; consensus averages s over the
// copies of each variable and clips to [0,1]. Every closed form here has the
// shape x' = v - step*a:
//
//	linear hinge  w*max(a.x-c, 0):   step = clamp(t/|a|^2, 0, w/rho)
//	squared hinge w*max(a.x-c, 0)^2: step = max(t * 2w/(rho+2w|a|^2), 0)
//	a.x <= c (projection):           step = max(t/|a|^2, 0)
//	a.x  = c (projection):           step = t/|a|^2
//
// with t = a.v - c. (Linear hinge: if t <= 0, v is optimal; if moving the full
// subgradient step w/rho along -a keeps a.x >= c, i.e. t >= (w/rho)|a|^2,
// that is optimal; otherwise the optimum is the projection onto a.x = c. The
// squared hinge is the Sherman-Morrison solution of the rank-one system.)
// Clamps are branch-free min/max, so whether a hinge is active costs no
// mispredicted branch.

// potParam is what the local step of one potential needs besides its cap:
// the constant c and the gain g of step = clamp(t*g, 0, cap). Caps (w/rho
// for linear hinges, +Inf for squared ones) live in a separate array that
// only the linear kernels and the general loop read, so the squared kernels
// stream 16 bytes per potential instead of 24.
type potParam struct{ c, g float64 }

// conParam is the same for a hard constraint: step = max(t*g, lo) with lo = 0
// for <= and -Inf for =.
type conParam struct{ c, g, lo float64 }

// localPotentials runs the local step of potentials lo..hi-1 with the
// general row loop (any arity). dir is the update direction per copy: the
// coefficients themselves, or with copy weights a_k/m_k (see Options.Copies).
// When aux is non-nil the new local copies x' are stored there too (for the
// primal residual at the coming check); that costs extra passes over the
// term's copies, branched on once per term, so the inner loops stay as lean
// without aux as a version that never records.
func localPotentials(prm []potParam, caps []float64, start []int32, coef, dir []float64, vars []int32, s, z, aux []float64, lo, hi int) {
	if lo >= hi {
		return
	}
	prm = prm[lo:hi]
	caps = caps[lo:hi]
	caps = caps[:len(prm)]
	start = start[lo : hi+1]
	b := int(start[0])
	for i := range prm {
		e := int(start[i+1])
		a := coef[b:e]
		d := dir[b:e]
		vs := vars[b:e]
		ss := s[b:e]
		d = d[:len(a)]
		vs = vs[:len(a)]
		ss = ss[:len(a)]
		var xs []float64
		if aux != nil {
			// v = 2z - s, before the loop below overwrites s.
			xs = aux[b:e]
			xs = xs[:len(a)]
			for k := range xs {
				zk := z[vs[k]]
				xs[k] = zk + zk - ss[k]
			}
		}
		pp := &prm[i]
		t := -pp.c
		for k, ak := range a {
			zk := z[vs[k]]
			t += ak * (zk + zk - ss[k])
			ss[k] = zk
		}
		st := max(min(t*pp.g, caps[i]), 0)
		for k, dk := range d {
			ss[k] -= st * dk
		}
		if xs != nil {
			for k, dk := range d {
				xs[k] -= st * dk
			}
		}
		b = e
	}
}

// The fixed-arity kernels below run the local step of a run of potentials
// that all have the same number of variables (1, 2 or 3) and the same power,
// stored at a fixed stride: no row offsets to read, no inner loops, no
// per-potential slice bounds checks (the rows are viewed as arrays), and for
// squared hinges no cap (it is +Inf). They do the same arithmetic in the same
// order as localPotentials, so results do not depend on which kernel ran
// (TestKernelsAgree checks this bit for bit). Every kernel reads the
// coefficients a for t and moves the copies along d: d is a itself (the same
// memory) unless copy weights are set (Options.Copies), when it is a/m.
// Measured on 10^4 3-variable squared hinges, passing d = a costs nothing
// visible against kernels without d (medians 25.6 vs 26.2 ns/pot-iter, ten
// alternating runs each, noise larger than the difference).

// rows views x, whose length is a multiple of K, as consecutive K-arrays. A
// [K]T has the memory layout of K consecutive Ts, so this is the same memory
// with a type that lets the compiler drop per-element bounds checks.
func rows[T float64 | int32, A [1]T | [2]T | [3]T](x []T) []A {
	var a A
	k := len(a)
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(x))), len(x)/k)
}

func local3Sq(prm []potParam, a, d, s [][3]float64, v [][3]int32, z []float64) {
	a, d, s, v = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, di, si, vi, pp := &a[i], &d[i], &s[i], &v[i], &prm[i]
		z0, z1, z2 := z[vi[0]], z[vi[1]], z[vi[2]]
		t := -pp.c
		t += ai[0] * (z0 + z0 - si[0])
		t += ai[1] * (z1 + z1 - si[1])
		t += ai[2] * (z2 + z2 - si[2])
		st := max(t*pp.g, 0)
		si[0] = z0 - st*di[0]
		si[1] = z1 - st*di[1]
		si[2] = z2 - st*di[2]
	}
}

func local3Lin(prm []potParam, caps []float64, a, d, s [][3]float64, v [][3]int32, z []float64) {
	a, d, s, v, caps = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)], caps[:len(prm)]
	for i := range prm {
		ai, di, si, vi, pp := &a[i], &d[i], &s[i], &v[i], &prm[i]
		z0, z1, z2 := z[vi[0]], z[vi[1]], z[vi[2]]
		t := -pp.c
		t += ai[0] * (z0 + z0 - si[0])
		t += ai[1] * (z1 + z1 - si[1])
		t += ai[2] * (z2 + z2 - si[2])
		st := max(min(t*pp.g, caps[i]), 0)
		si[0] = z0 - st*di[0]
		si[1] = z1 - st*di[1]
		si[2] = z2 - st*di[2]
	}
}

func local2Sq(prm []potParam, a, d, s [][2]float64, v [][2]int32, z []float64) {
	a, d, s, v = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, di, si, vi, pp := &a[i], &d[i], &s[i], &v[i], &prm[i]
		z0, z1 := z[vi[0]], z[vi[1]]
		t := -pp.c
		t += ai[0] * (z0 + z0 - si[0])
		t += ai[1] * (z1 + z1 - si[1])
		st := max(t*pp.g, 0)
		si[0] = z0 - st*di[0]
		si[1] = z1 - st*di[1]
	}
}

func local2Lin(prm []potParam, caps []float64, a, d, s [][2]float64, v [][2]int32, z []float64) {
	a, d, s, v, caps = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)], caps[:len(prm)]
	for i := range prm {
		ai, di, si, vi, pp := &a[i], &d[i], &s[i], &v[i], &prm[i]
		z0, z1 := z[vi[0]], z[vi[1]]
		t := -pp.c
		t += ai[0] * (z0 + z0 - si[0])
		t += ai[1] * (z1 + z1 - si[1])
		st := max(min(t*pp.g, caps[i]), 0)
		si[0] = z0 - st*di[0]
		si[1] = z1 - st*di[1]
	}
}

func local1Sq(prm []potParam, a, d, s []float64, v []int32, z []float64) {
	a, d, s, v = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)]
	for i := range prm {
		pp := &prm[i]
		z0 := z[v[i]]
		t := -pp.c
		t += a[i] * (z0 + z0 - s[i])
		st := max(t*pp.g, 0)
		s[i] = z0 - st*d[i]
	}
}

func local1Lin(prm []potParam, caps []float64, a, d, s []float64, v []int32, z []float64) {
	a, d, s, v, caps = a[:len(prm)], d[:len(prm)], s[:len(prm)], v[:len(prm)], caps[:len(prm)]
	for i := range prm {
		pp := &prm[i]
		z0 := z[v[i]]
		t := -pp.c
		t += a[i] * (z0 + z0 - s[i])
		st := max(min(t*pp.g, caps[i]), 0)
		s[i] = z0 - st*d[i]
	}
}

// localConstraints runs the projection step of constraints lo..hi-1 (indexes
// into cprm; start and the copy arrays are offset to the constraint part by
// the caller). When aux is non-nil the new local copies are stored there.
func localConstraints(prm []conParam, start []int32, coef, dir []float64, vars []int32, s, z, aux []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		b, e := int(start[i]), int(start[i+1])
		a := coef[b:e]
		d := dir[b:e]
		vs := vars[b:e]
		ss := s[b:e]
		d = d[:len(a)]
		vs = vs[:len(a)]
		ss = ss[:len(a)]
		pp := &prm[i]
		t := -pp.c
		for k, ak := range a {
			zk := z[vs[k]]
			t += ak * (zk + zk - ss[k])
		}
		st := max(t*pp.g, pp.lo)
		if aux != nil {
			xs := aux[b:e]
			xs = xs[:len(a)]
			for k, dk := range d {
				zk := z[vs[k]]
				xs[k] = zk + zk - ss[k] - st*dk
				ss[k] = zk - st*dk
			}
			continue
		}
		for k, dk := range d {
			ss[k] = z[vs[k]] - st*dk
		}
	}
}

// consensus sets z[j] for variables lo..hi-1 to the mean of s over the
// variable's copies, clipped to [0,1]. Variables without copies keep their
// value. The sum runs over the copies in a fixed order (tcopy), so the result
// does not depend on how variables are split across workers. With check it
// also returns sum_j deg_j*(z_j - zprev_j)^2 (the square of the dual residual
// divided by rho^2) and the variables' share of the Lagrangian bound divided
// by rho, sum_j min(0, -A_j/rho) with A_j the sum of variable j's duals
// (rho*(sum - deg*z_j): nonzero only where clipping moved z_j), else 0, 0.
func consensus(tstart, tcopy []int32, s, z []float64, lo, hi int, check bool) (d2, vb float64) {
	if lo >= hi {
		return 0, 0
	}
	tstart = tstart[lo : hi+1]
	zz := z[lo:hi]
	b := int(tstart[0])
	for j := range zz {
		e := int(tstart[j+1])
		if e == b {
			continue
		}
		sum := 0.0
		for _, c := range tcopy[b:e] {
			sum += s[c]
		}
		deg := float64(e - b)
		nz := min(max(sum/deg, 0), 1)
		if check {
			d := nz - zz[j]
			d2 += deg * d * d
			vb += min(0, deg*nz-sum)
		}
		zz[j] = nz
		b = e
	}
	return d2, vb
}

// consensusWeighted is consensus with copy weights (Options.Copies): z[j] is
// the weighted mean sum_k m_k*s_k / sum_k m_k, clipped to [0,1]. tw holds the
// copies' weights in tcopy order and tinv each variable's 1/sum_k m_k. With
// check it returns sum_j M_j*(z_j - zprev_j)^2 with M_j = sum_k m_k, and the
// bound share as consensus does.
func consensusWeighted(tstart, tcopy []int32, tw, tinv, s, z []float64, lo, hi int, check bool) (d2, vb float64) {
	if lo >= hi {
		return 0, 0
	}
	tstart = tstart[lo : hi+1]
	zz := z[lo:hi]
	b := int(tstart[0])
	for j := range zz {
		e := int(tstart[j+1])
		if e == b {
			continue
		}
		sum := 0.0
		for q, c := range tcopy[b:e] {
			sum += tw[b+q] * s[c]
		}
		inv := tinv[lo+j]
		nz := min(max(sum*inv, 0), 1)
		if check {
			d := nz - zz[j]
			d2 += d * d / inv
			vb += min(0, nz/inv-sum)
		}
		zz[j] = nz
		b = e
	}
	return d2, vb
}
