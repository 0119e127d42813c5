package ground

import (
	"errors"

	"github.com/hinge-srl/hinge/model"
)

// EstimateRule returns, without grounding it, the planner's estimate of a
// logical rule's groundings (as Options.Estimate reports it before a rule is
// grounded, with Emitted always worked out) and the memory its ground
// potentials and constraints would take by the grounder's conservative cost
// (the cost Options.MemoryLimit is checked with). Planning builds the
// indexes the joins need, as grounding would. Arithmetic rules are not
// estimated (an error).
func (g *Grounder) EstimateRule(r *model.Rule) (Estimate, float64, error) {
	if err := g.checkRule(r); err != nil {
		return Estimate{}, 0, err
	}
	if r.Logical == nil {
		return Estimate{}, 0, ruleError(r, errors.New("only logical rules are estimated"))
	}
	clauses, err := model.Clauses(r.Logical)
	if err != nil {
		return Estimate{}, 0, ruleError(r, err)
	}
	var est Estimate
	var bytes, biggest float64
	for _, c := range clauses {
		cp := g.planClause(r, c)
		if cp.never {
			continue
		}
		e := cp.estimate()
		if kept, cause, cross := cp.emitted(e.Groundings); cause != "" {
			e.Emitted, e.Cause, e.CrossProduct = kept, cause, cross
		}
		est.Groundings += e.Groundings
		est.Emitted += e.Emitted
		bytes += e.Emitted * float64(groundCost(len(cp.atoms)))
		if e.Emitted > biggest || est.Cause == "" {
			biggest, est.Cause, est.CrossProduct = e.Emitted, e.Cause, e.CrossProduct
		}
	}
	return est, bytes, nil
}
