package maxsat

import (
	"cmp"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// consensusBound returns a lower bound on the optimum of the HL-MRF p (all
// linear hinges and <= constraints) from per-copy multipliers alpha laid out
// like p.Var (potentials) and p.CVar (constraints), with the sign convention
// of admm.Solver.Duals: the Lagrangian of the consensus split x_k = z_var(k)
// is sum_i f_i(x_i) + sum_k alpha_k (x_k - z_var(k)). For any alpha,
//
//	min f  >=  sum_i min_{x in [0,1]^k} (f_i(x) + alpha_i.x)  +  sum_j min(0, -S_j)
//
// with S_j the sum of variable j's alphas. Each term's minimum is, by LP
// duality, max over mu in [0, w_i] (a hinge) or mu >= 0 (a constraint) of
// -mu*c_i + sum_k min(0, mu*a_ik + alpha_ik): a concave piecewise-linear
// function of one variable, maximised exactly from its sorted breakpoints.
// Unlike projecting alpha onto per-clause multipliers, this keeps whatever
// disagreement remains between a term's copies, so an ADMM run that stopped
// early still gives a bound close to its objective.
func consensusBound(p *hlmrf.Problem, pot, con []float64) float64 {
	S := make([]float64, p.NumVars)
	var total float64
	bps := make([]bp, 0, 16)
	for i := range p.Weight {
		a, b := p.Start[i], p.Start[i+1]
		total += termBound(p.Coef[a:b], pot[a:b], p.Const[i], p.Weight[i], &bps)
		for k := a; k < b; k++ {
			S[p.Var[k]] += pot[k]
		}
	}
	for j := range p.CKind {
		a, b := p.CStart[j], p.CStart[j+1]
		total += termBound(p.CCoef[a:b], con[a:b], p.CConst[j], math.Inf(1), &bps)
		for k := a; k < b; k++ {
			S[p.CVar[k]] += con[k]
		}
	}
	for _, s := range S {
		if s > 0 {
			total -= s
		}
	}
	return total
}

type bp struct{ at, drop float64 }

// termBound returns max over mu in [0, hi] of -mu*c + sum_k min(0, mu*a_k + alpha_k).
func termBound(a, alpha []float64, c, hi float64, scratch *[]bp) float64 {
	h := func(mu float64) float64 {
		s := -mu * c
		for k := range a {
			if v := mu*a[k] + alpha[k]; v < 0 {
				s += v
			}
		}
		return s
	}
	slope := -c
	bps := (*scratch)[:0]
	for k := range a {
		// Term k has slope a_k while mu*a_k + alpha_k < 0, else 0: its
		// breakpoint is -alpha_k/a_k and lowers the slope by |a_k|.
		at := -alpha[k] / a[k]
		if (a[k] > 0 && alpha[k] < 0) || (a[k] < 0 && alpha[k] <= 0) {
			slope += a[k]
		}
		if at > 0 {
			bps = append(bps, bp{at, math.Abs(a[k])})
		}
	}
	*scratch = bps
	if slope <= 0 {
		return h(0)
	}
	slices.SortFunc(bps, func(x, y bp) int { return cmp.Compare(x.at, y.at) }) // no NaN: at > 0
	for _, q := range bps {
		if q.at >= hi {
			break
		}
		slope -= q.drop
		if slope <= 0 {
			return h(q.at)
		}
	}
	if math.IsInf(hi, 1) {
		return math.Inf(1) // the term's constraint cannot hold on the box
	}
	return h(hi)
}

// lambdaFromDuals projects per-copy duals onto per-clause multipliers:
// lambda_c is the mean over the clause's copies of -alpha_k/a_k, which at an
// ADMM fixed point is theta*w for every copy (admm.Solver.Duals).
func lambdaFromDuals(in *Instance, rel *Relaxation, pot, con []float64) []float64 {
	lambda := make([]float64, in.NumClauses())
	p := rel.Problem
	set := func(c int32, coef, alpha []float64) {
		if len(coef) == 0 {
			return
		}
		var s float64
		for k := range coef {
			s -= alpha[k] / coef[k]
		}
		lambda[c] = s / float64(len(coef))
	}
	for i, c := range rel.PotClause {
		a, b := p.Start[i], p.Start[i+1]
		set(c, p.Coef[a:b], pot[a:b])
	}
	for j, c := range rel.ConClause {
		a, b := p.CStart[j], p.CStart[j+1]
		set(c, p.CCoef[a:b], con[a:b])
	}
	return lambda
}
