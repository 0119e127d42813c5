package learn

import (
	"context"
	"math"
)

// spgResult is the outcome of projectedGradient.
type spgResult struct {
	x         []float64
	f         float64
	iters     int
	pgNorm    float64 // ||P(x - g) - x||_inf at x
	converged bool
}

// projectedGradient minimises f over {x : x_i >= 0 for free i, x_i fixed
// otherwise} by the spectral projected gradient method (Birgin, Martinez and
// Raydan, SIAM J. Optim. 2000, algorithm SPG2): steps along the projected
// Barzilai-Borwein direction with a nonmonotone Armijo line search over the
// last 10 values. Projection onto w >= 0 reaches exact zeros, which
// structure learning reads as "rule not selected". It stops when the
// projected gradient's largest entry is at most tol, after maxIter
// iterations, or when the line search cannot decrease f any more.
//
// fg returns f(x) and writes the gradient. onIter, if set, is called after
// every iteration with the accepted point x, f(x) and the gradient g there.
func projectedGradient(ctx context.Context, fg func(x, g []float64) float64, x0 []float64, free []bool,
	maxIter int, tol float64, onIter func(it int, f float64, x, g []float64)) (spgResult, error) {
	const (
		memory    = 10
		gamma     = 1e-4
		lambdaMin = 1e-10
		lambdaMax = 1e10
	)
	n := len(x0)
	x := make([]float64, n)
	for i := range x {
		x[i] = x0[i]
		if free[i] {
			x[i] = max(x[i], 0)
		}
	}
	g := make([]float64, n)
	f := fg(x, g)
	var res spgResult
	pgNorm := func(x, g []float64) float64 {
		m := 0.0
		for i := range x {
			if free[i] {
				m = max(m, math.Abs(max(x[i]-g[i], 0)-x[i]))
			}
		}
		return m
	}
	pg := pgNorm(x, g)
	lambda := 1.0
	if pg > 0 {
		lambda = min(lambdaMax, max(lambdaMin, 1/pg))
	}
	hist := []float64{f}
	d := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	for it := 1; ; it++ {
		if pg <= tol {
			res.converged = true
			break
		}
		if it > maxIter {
			break
		}
		if err := ctx.Err(); err != nil {
			res.x, res.f, res.pgNorm = x, f, pg
			return res, err
		}
		gd := 0.0
		for i := range x {
			d[i] = 0
			if free[i] {
				d[i] = max(x[i]-lambda*g[i], 0) - x[i]
				gd += g[i] * d[i]
			}
		}
		fmax := f
		for _, h := range hist {
			fmax = max(fmax, h)
		}
		alpha := 1.0
		var fn float64
		ok := false
		for range 60 {
			for i := range x {
				xn[i] = x[i] + alpha*d[i]
				if free[i] {
					xn[i] = max(xn[i], 0)
				}
			}
			fn = fg(xn, gn)
			if fn <= fmax+gamma*alpha*gd {
				ok = true
				break
			}
			// Safeguarded quadratic interpolation.
			den := 2 * (fn - f - alpha*gd)
			at := alpha / 2
			if den > 0 && !math.IsNaN(den) && !math.IsInf(den, 0) {
				at = -alpha * alpha * gd / den
			}
			alpha = min(max(at, 0.1*alpha), 0.5*alpha)
		}
		if !ok {
			// No decrease along the projected direction: at the optimum to
			// rounding.
			res.converged = true
			break
		}
		sy, ss := 0.0, 0.0
		for i := range x {
			s := xn[i] - x[i]
			ss += s * s
			sy += s * (gn[i] - g[i])
		}
		if sy <= 0 {
			lambda = lambdaMax
		} else {
			lambda = min(lambdaMax, max(lambdaMin, ss/sy))
		}
		x, xn = xn, x
		g, gn = gn, g
		f = fn
		hist = append(hist, f)
		if len(hist) > memory {
			hist = hist[1:]
		}
		pg = pgNorm(x, g)
		res.iters = it
		if onIter != nil {
			onIter(it, f, x, g)
		}
		if ss == 0 {
			res.converged = true
			break
		}
	}
	res.x, res.f, res.pgNorm = x, f, pg
	return res, nil
}
