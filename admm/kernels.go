package admm

import "unsafe"

// The hot loops. ADMM keeps, per local copy k of a term i, the local copy
// x_k and its scaled dual u_k; with z the consensus of the previous
// iteration the dual update u' = u + x - z gives u' = s - z for s = x + u,
// the point the local step pulls towards is v = z - u' = 2z - s, and every
// closed-form local step has the shape x' = v - step*d (d = a, or a/m with
// copy weights), so the new s' = x' + u' = z - step*d. The state of a term
// is therefore not one number per copy but two per term: the step it took
// and the consensus zl it read, s_k = zl_k - step*d_k. The solver stores
// only their combination the next local step needs,
//
//	q = a.zl + c - step*(a.d)
//
// since then t = a.v - c = 2*(a.z) - q. One iteration of a term reads its
// coefficients, its variables' consensus values and q; computes A = a.z,
// t = 2A - q and the step; stores q' = A + c - step*(a.d); and adds step*a_k
// to an accumulator of each of its variables. The consensus step is then
//
//	z_j' = clip(sum_k m_k*s'_k / M_j) = clip(z_j - acc_j / M_j)
//
// over variable j's copies k (m_k*d_k = a_k, M_j = sum of m_k: the number of
// copies without copy weights), with no per-copy state anywhere: 8 bytes of
// state per term instead of 16 per copy, and no gather of scattered copies
// in the consensus step. The closed forms:
//
//	linear hinge  w*max(a.x-c, 0):   step = clamp(t/|a|^2, 0, w/rho)
//	squared hinge w*max(a.x-c, 0)^2: step = max(t * 2w/(rho+2w|a|^2), 0)
//	a.x <= c (projection):           step = max(t/|a|^2, 0)
//	a.x  = c (projection):           step = t/|a|^2
//
// (|a|^2 is a.d with copy weights.) Linear hinge: if t <= 0, v is optimal;
// if moving the full subgradient step w/rho along -a keeps a.x >= c, i.e.
// t >= (w/rho)|a|^2, that is optimal; otherwise the optimum is the
// projection onto a.x = c. The squared hinge is the Sherman-Morrison
// solution of the rank-one system. Clamps are branch-free min/max, so
// whether a hinge is active costs no mispredicted branch.
//
// Each worker adds into its own accumulator (a lane); the consensus step
// sums the lanes in lane order, so results are the same on every run with
// the same number of threads, and differ between thread counts only in
// rounding.

// potParam is what the local step of one potential needs besides its cap:
// the constant c, the gain g of step = clamp(t*g, 0, cap), and n2 = a.d.
// Caps (w/rho for linear hinges, +Inf for squared ones) live in a separate
// array that only the linear kernels and the general loop read.
type potParam struct{ c, g, n2 float64 }

// conParam is the same for a hard constraint: step = max(t*g, lo) with
// lo = 0 for <= and -Inf for =.
type conParam struct{ c, g, lo, n2 float64 }

// localPotentials runs the local step of potentials lo..hi-1 with the
// general row loop (any arity), adding into acc. When rec is non-nil each
// potential's step is stored there too (rec[i]), for the residuals and duals
// of a check (see Solver.slots).
func localPotentials(prm []potParam, caps []float64, start []int32, coef []float64, vars []int32, q, z, acc, rec []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		a, vs := coef[start[i]:start[i+1]], vars[start[i]:start[i+1]]
		A := rowDot(a, vs, z)
		pp := &prm[i]
		st := max(min((A+A-q[i])*pp.g, caps[i]), 0)
		q[i] = A + pp.c - st*pp.n2
		rowAdd(acc, a, vs, st)
		if rec != nil {
			rec[i] = st
		}
	}
}

// localConstraints runs the projection step of constraints lo..hi-1
// (indexes into prm and q; start and the copy arrays are offset to the
// constraint part by the caller), adding into acc and, when rec is non-nil,
// storing the steps there.
func localConstraints(prm []conParam, start []int32, coef []float64, vars []int32, q, z, acc, rec []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		a, vs := coef[start[i]:start[i+1]], vars[start[i]:start[i+1]]
		A := rowDot(a, vs, z)
		pp := &prm[i]
		st := max((A+A-q[i])*pp.g, pp.lo)
		q[i] = A + pp.c - st*pp.n2
		rowAdd(acc, a, vs, st)
		if rec != nil {
			rec[i] = st
		}
	}
}

// rowDot returns a.z over a term's row (coefficients a, variables vs), summed
// in row order, as the fixed-arity kernels do.
func rowDot(a []float64, vs []int32, z []float64) float64 {
	vs = vs[:len(a)]
	A := 0.0
	for k, ak := range a {
		A += ak * z[vs[k]]
	}
	return A
}

// rowAdd adds st*a_k to acc at each variable of a term's row.
func rowAdd(acc, a []float64, vs []int32, st float64) {
	vs = vs[:len(a)]
	for k, ak := range a {
		acc[vs[k]] += st * ak
	}
}

// The fixed-arity kernels below run the local step of a run of potentials
// that all have the same number of variables (1, 2 or 3) and the same power,
// stored at a fixed stride: no row offsets to read, no inner loops, no
// per-potential slice bounds checks (the rows are viewed as arrays), and for
// squared hinges no cap (it is +Inf). They do the same arithmetic in the same
// order as localPotentials, so results do not depend on which kernel ran
// (TestKernelsAgree checks this bit for bit).

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

func local3Sq(prm []potParam, q []float64, a [][3]float64, v [][3]int32, z, acc []float64) {
	q, a, v = q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, vi, pp := &a[i], &v[i], &prm[i]
		A := ai[0] * z[vi[0]]
		A += ai[1] * z[vi[1]]
		A += ai[2] * z[vi[2]]
		st := max((A+A-q[i])*pp.g, 0)
		q[i] = A + pp.c - st*pp.n2
		acc[vi[0]] += st * ai[0]
		acc[vi[1]] += st * ai[1]
		acc[vi[2]] += st * ai[2]
	}
}

func local3Lin(prm []potParam, caps, q []float64, a [][3]float64, v [][3]int32, z, acc []float64) {
	caps, q, a, v = caps[:len(prm)], q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, vi, pp := &a[i], &v[i], &prm[i]
		A := ai[0] * z[vi[0]]
		A += ai[1] * z[vi[1]]
		A += ai[2] * z[vi[2]]
		st := max(min((A+A-q[i])*pp.g, caps[i]), 0)
		q[i] = A + pp.c - st*pp.n2
		acc[vi[0]] += st * ai[0]
		acc[vi[1]] += st * ai[1]
		acc[vi[2]] += st * ai[2]
	}
}

func local2Sq(prm []potParam, q []float64, a [][2]float64, v [][2]int32, z, acc []float64) {
	q, a, v = q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, vi, pp := &a[i], &v[i], &prm[i]
		A := ai[0] * z[vi[0]]
		A += ai[1] * z[vi[1]]
		st := max((A+A-q[i])*pp.g, 0)
		q[i] = A + pp.c - st*pp.n2
		acc[vi[0]] += st * ai[0]
		acc[vi[1]] += st * ai[1]
	}
}

func local2Lin(prm []potParam, caps, q []float64, a [][2]float64, v [][2]int32, z, acc []float64) {
	caps, q, a, v = caps[:len(prm)], q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		ai, vi, pp := &a[i], &v[i], &prm[i]
		A := ai[0] * z[vi[0]]
		A += ai[1] * z[vi[1]]
		st := max(min((A+A-q[i])*pp.g, caps[i]), 0)
		q[i] = A + pp.c - st*pp.n2
		acc[vi[0]] += st * ai[0]
		acc[vi[1]] += st * ai[1]
	}
}

func local1Sq(prm []potParam, q, a []float64, v []int32, z, acc []float64) {
	q, a, v = q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		pp := &prm[i]
		A := a[i] * z[v[i]]
		st := max((A+A-q[i])*pp.g, 0)
		q[i] = A + pp.c - st*pp.n2
		acc[v[i]] += st * a[i]
	}
}

func local1Lin(prm []potParam, caps, q, a []float64, v []int32, z, acc []float64) {
	caps, q, a, v = caps[:len(prm)], q[:len(prm)], a[:len(prm)], v[:len(prm)]
	for i := range prm {
		pp := &prm[i]
		A := a[i] * z[v[i]]
		st := max(min((A+A-q[i])*pp.g, caps[i]), 0)
		q[i] = A + pp.c - st*pp.n2
		acc[v[i]] += st * a[i]
	}
}

// consensus sets z[j] for variables lo..hi-1 to z[j] - acc_j*inv[j] clipped
// to [0,1], with acc_j the sum of the lanes' accumulators in lane order, and
// clears the accumulators for the next iteration. inv[j] is 1/M_j (0 for a
// variable without copies, which keeps its value). When zs is non-nil the
// old values are saved there first. With check it also returns
// sum_j M_j*(z_j - zprev_j)^2 (the square of the dual residual divided by
// rho^2) and the variables' share of the Lagrangian bound divided by rho,
// sum_j min(0, -A_j/rho) with A_j the sum of variable j's duals
// (rho*(sum_k m_k*s_k - M_j*z_j) = -rho*(M_j*(z_j - zprev_j) + acc_j):
// nonzero only where clipping moved z_j), else 0, 0.
func consensus(lanes [][]float64, inv, z, zs []float64, lo, hi int, check bool) (d2, vb float64) {
	if lo >= hi {
		return 0, 0
	}
	zz := z[lo:hi]
	iv := inv[lo:hi]
	iv = iv[:len(zz)]
	if zs != nil {
		copy(zs[lo:hi], zz)
	}
	acc := lanes[0][lo:hi]
	acc = acc[:len(zz)]
	for _, l := range lanes[1:] {
		l = l[lo:hi]
		l = l[:len(zz)]
		for j, x := range l {
			acc[j] += x
			l[j] = 0
		}
	}
	if !check {
		for j, zj := range zz {
			zz[j] = min(max(zj-acc[j]*iv[j], 0), 1)
			acc[j] = 0
		}
		return 0, 0
	}
	for j, zj := range zz {
		sum := acc[j]
		acc[j] = 0
		if iv[j] == 0 {
			continue
		}
		nz := min(max(zj-sum*iv[j], 0), 1)
		d := nz - zj
		m := 1 / iv[j]
		d2 += m * d * d
		vb += min(0, m*d+sum)
		zz[j] = nz
	}
	return d2, vb
}
