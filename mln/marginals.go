package mln

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/maxsat"
)

// Marginal methods besides the samplers (MethodMCSAT, MethodGibbs).
const (
	// MarginalAuto is the default: every component of the network that
	// exact inference can afford is solved exactly (ExactMarginals), and
	// MC-SAT samples the rest.
	MarginalAuto = "auto"
	// MarginalExact solves every component exactly and refuses, with a
	// *TooLargeError that gives the estimated cost, a component too large.
	MarginalExact = "exact"
)

// InferMarginals computes the marginal probability of every variable of in
// (signed weights, as MCSAT takes them) by the method: MarginalAuto (or
// ""), MarginalExact, MethodMCSAT or MethodGibbs (the samplers alone, over
// the whole network). With MarginalAuto, the Diagnostics are those of the
// sampled atoms only (their RHatAtom and SpreadAtom are variables of in),
// and a network solved exactly in full has Diagnostics with no chains,
// Mixed true.
func InferMarginals(ctx context.Context, in *maxsat.Instance, method string, opt SampleOptions) (*Samples, error) {
	switch method {
	case MethodMCSAT:
		return MCSAT(ctx, in, opt)
	case MethodGibbs:
		return Gibbs(ctx, in, opt)
	case "", MarginalAuto, MarginalExact:
	default:
		return nil, fmt.Errorf("mln: unknown marginal method %q (want %s, %s, %s or %s)", method, MarginalAuto, MarginalExact, MethodMCSAT, MethodGibbs)
	}
	ex, err := ExactMarginals(ctx, in, opt.Exact, method == MarginalExact)
	if err != nil {
		return nil, err
	}
	res := &Samples{Probs: ex.Probs, Exact: ex.Exact, Components: ex.Components, Merged: ex.Merged,
		Diagnostics: Diagnostics{RHat: 1, RHatAtom: -1, SpreadAtom: -1, MCSEAtom: -1, Mixed: true}}
	if ex.Rest == nil {
		return res, nil
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	s, err := mcsat(ctx, mergedAlready(ex.Rest), opt)
	if err != nil {
		return nil, err
	}
	for i, v := range ex.RestVars {
		res.Probs[v] = s.Probs[i]
	}
	d := s.Diagnostics
	if d.RHatAtom >= 0 {
		d.RHatAtom = int(ex.RestVars[d.RHatAtom])
	}
	if d.SpreadAtom >= 0 {
		d.SpreadAtom = int(ex.RestVars[d.SpreadAtom])
	}
	if d.MCSEAtom >= 0 {
		d.MCSEAtom = int(ex.RestVars[d.MCSEAtom])
	}
	res.Diagnostics = d
	return res, nil
}
