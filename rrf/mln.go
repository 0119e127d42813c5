package rrf

import (
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/maxsat"
)

// FromClauses turns a ground Markov logic network (weighted clauses, as
// mln grounds them) into an RRF, as the paper describes: each clause c of
// k literals becomes a feature over the negations of its literals,
//
//	f_c = exp(lambda * (sum_i not(l_i) - k)),
//
// which is 1 when the clause is false and at most exp(-lambda) when it
// holds, a child of the root with weight -w_c (hard clauses: -hardWeight).
// The root's score is then the network's log weight up to a constant and an
// error of at most exp(-lambda) times the total weight, so the two
// distributions agree as lambda grows; lambda is one shared weight, and
// learning may move it and the clause weights. tie[c], when not nil, gives
// the weight index of clause c (clauses of one formula share a weight);
// weights then holds one entry per index, followed by lambda.
func FromClauses(in *maxsat.Instance, lambda, hardWeight float64, tie []int32, weights []float64) (*Net, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("rrf: lambda %v must be a positive finite number", lambda)
	}
	net := &Net{NumVars: in.NumVars, Features: make([][]Child, 1, 1+in.NumClauses())}
	if tie == nil {
		// One weight per clause.
		weights = make([]float64, 0, in.NumClauses()+1)
		tie = make([]int32, in.NumClauses())
		for c := range in.NumClauses() {
			w := in.Weight[c]
			if in.Hard[c] {
				w = hardWeight
			}
			tie[c] = int32(len(weights))
			weights = append(weights, -w)
		}
	} else if len(tie) != in.NumClauses() {
		return nil, fmt.Errorf("rrf: %d weight indexes for %d clauses", len(tie), in.NumClauses())
	}
	lam := int32(len(weights))
	net.Weights = append(append([]float64(nil), weights...), lambda)
	for c := range in.NumClauses() {
		if tie[c] < 0 || tie[c] >= lam {
			return nil, fmt.Errorf("rrf: clause %d: weight index %d out of range", c, tie[c])
		}
		f := int32(len(net.Features))
		lits := in.Clause(c)
		children := make([]Child, len(lits))
		for k, l := range lits {
			children[k] = Child{Var: int32(l.Var()), Feature: -1, Neg: !l.Neg(), Weight: lam}
		}
		net.Features = append(net.Features, children)
		net.Features[0] = append(net.Features[0], Child{Var: -1, Feature: f, Weight: tie[c]})
	}
	return net, net.Validate()
}
