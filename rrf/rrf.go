// Package rrf implements recursive random fields (Lowd and Domingos,
// "Recursive Random Fields", IJCAI 2007): a distribution over boolean
// variables defined by a DAG of features, each the exponential of a
// weighted sum of its children (variables, possibly negated, and other
// features), with weights tied across the groundings of a parfeature.
//
// The package holds the relational model (parfeatures) read from a file
// and its grounding, the propositional (ground) network with cached
// feature sums, inference (Gibbs sampling, iterated conditional modes),
// weight learning by back-propagated pseudo-likelihood or likelihood (the
// expectation sampled by Gibbs chains), theory revision (a knowledge base
// with small-weight extra dependencies, Program.Revise), and the
// conversion of a Markov logic network, ground (FromClauses) or relational
// (FromMLN).
//
// # The file format
//
// A relational RRF file holds Markov logic declarations (types, predicates,
// '*' for closed-world ones; see package mln) and one parfeature per line:
//
//	feature = Name ["(" [var {"," var}] ")"] "=" term {("+" | "-") term}
//	term    = [number ["*"]] ["sum" "(" var {"," var} ")"] ["!"] child
//	child   = Pred "(" args ")" | Name "(" args ")"
//
// A child is an atom of a declared predicate (negated with '!') or another
// parfeature; sum(y, ...) sums the child over every constant of y's type
// (the paper's soft quantifiers: a large weight on an atom summed this way
// approximates "for some" or "for all", and other weights give m-of-n
// concepts). Every variable of a term is a parameter of the feature or
// summed in that term; types are inferred from the predicates' declarations
// through the parfeature references. The parfeature named root (no
// parameters) defines P(x) = exp(root(x)) / Z; the graph of parfeatures
// must be acyclic. Each term's weight is tied across all groundings of its
// parfeature. Comments are // and /* */. Example, examples/rrf/smokers.rrf:
//
//	*Friends(person, person)
//	Smokes(person)
//	Cancer(person)
//	root = -3 * sum(x) NotImplied(x) + 1.5 * sum(x) Social(x)
//	NotImplied(x) = 4 * Smokes(x) + 4 * !Cancer(x)
//	Social(x) = 2 * sum(y) Pair(x, y) + 2 * Smokes(x)
//	Pair(x, y) = 3 * Friends(x, y) + 3 * Smokes(y)
//
// # Normalisation
//
// The paper lets each feature's normalisation Z_i be chosen freely (it is
// absorbed in the parent's weights). hinge takes
//
//	f_i(x) = exp(s_i(x) - M_i),  s_i = sum_j w_ij v_j,  M_i = sum_j max(w_ij, 0)
//
// where v_j is the child's value: x_v or 1 - x_v for a variable, f_j for a
// feature. Every value then lies in (0, 1] (induction from the leaves), so a
// sum over thousands of children cannot overflow. The root is not
// normalised: P(x) = exp(s_0(x)) / Z_0, and only differences of s_0 are
// ever needed.
package rrf

import (
	"errors"
	"fmt"
	"math"
)

// Child is one weighted child of a feature: a variable (Feature < 0), or a
// feature (Var < 0). Weight indexes Net.Weights, so weights can be tied.
type Child struct {
	Var     int32
	Feature int32
	Neg     bool // a variable child counts as 1 - x
	Weight  int32
}

// Net is a propositional RRF. Features[0] is the root; every feature's
// feature children have larger indexes than it (a topological order).
type Net struct {
	NumVars  int
	Features [][]Child
	Weights  []float64
}

// Validate checks indexes, the topological order and finite weights.
func (n *Net) Validate() error {
	if len(n.Features) == 0 {
		return errors.New("rrf: no root feature")
	}
	for i, w := range n.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("rrf: weight %d is %v", i, w)
		}
	}
	for i, cs := range n.Features {
		for k, c := range cs {
			switch {
			case c.Weight < 0 || int(c.Weight) >= len(n.Weights):
				return fmt.Errorf("rrf: feature %d child %d: weight index %d out of range", i, k, c.Weight)
			case (c.Var < 0) == (c.Feature < 0):
				return fmt.Errorf("rrf: feature %d child %d: exactly one of variable and feature must be set", i, k)
			case c.Var >= 0 && int(c.Var) >= n.NumVars:
				return fmt.Errorf("rrf: feature %d child %d: variable %d out of range", i, k, c.Var)
			case c.Feature >= 0 && (int(c.Feature) >= len(n.Features) || int(c.Feature) <= i):
				return fmt.Errorf("rrf: feature %d child %d: feature %d must come after its parent", i, k, c.Feature)
			}
		}
	}
	return nil
}

// State is an assignment with every feature's cached sum s_i and value f_i;
// changing one variable updates only its ancestors.
type State struct {
	net     *Net
	X       []bool
	sum     []float64 // s_i
	norm    []float64 // M_i
	val     []float64 // f_i (the root's is unused)
	parents [][]parentRef
	varPar  [][]parentRef // variable -> features it is a child of
	dirty   []bool
	queue   []int32 // dirty features, processed from the largest index down
}

// parentRef is an edge to a parent: the parent's index and the child's
// weight index and negation.
type parentRef struct {
	feature int32
	weight  int32
	neg     bool
}

// NewState evaluates net at x (copied).
func NewState(net *Net, x []bool) (*State, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if len(x) != net.NumVars {
		return nil, fmt.Errorf("rrf: %d values for %d variables", len(x), net.NumVars)
	}
	nf := len(net.Features)
	s := &State{net: net, X: append([]bool(nil), x...), sum: make([]float64, nf), norm: make([]float64, nf), val: make([]float64, nf),
		parents: make([][]parentRef, nf), varPar: make([][]parentRef, net.NumVars), dirty: make([]bool, nf)}
	for i, cs := range net.Features {
		for _, c := range cs {
			ref := parentRef{feature: int32(i), weight: c.Weight, neg: c.Neg}
			if c.Var >= 0 {
				s.varPar[c.Var] = append(s.varPar[c.Var], ref)
			} else {
				s.parents[c.Feature] = append(s.parents[c.Feature], ref)
			}
		}
	}
	s.Recompute()
	return s, nil
}

// Recompute evaluates every feature from scratch (after the weights change).
func (s *State) Recompute() {
	n := s.net
	for i := len(n.Features) - 1; i >= 0; i-- {
		sum, m := 0.0, 0.0
		for _, c := range n.Features[i] {
			w := n.Weights[c.Weight]
			m += max(w, 0)
			if c.Var >= 0 {
				sum += w * s.leaf(c.Var, c.Neg)
			} else {
				sum += w * s.val[c.Feature]
			}
		}
		s.sum[i], s.norm[i] = sum, m
		s.val[i] = math.Exp(sum - m)
	}
}

func (s *State) leaf(v int32, neg bool) float64 {
	if s.X[v] != neg {
		return 1
	}
	return 0
}

// LogScore is s_0: log P(x) up to the constant log Z_0.
func (s *State) LogScore() float64 { return s.sum[0] }

// Value returns feature i's value f_i = exp(s_i - M_i).
func (s *State) Value(i int) float64 { return s.val[i] }

// Set changes variable v and updates the cached sums of its ancestors.
func (s *State) Set(v int, b bool) {
	if s.X[v] == b {
		return
	}
	s.X[v] = b
	for _, p := range s.varPar[v] {
		d := 1.0
		if b == p.neg { // the leaf went from 1 to 0
			d = -1
		}
		s.sum[p.feature] += s.net.Weights[p.weight] * d
		s.mark(p.feature)
	}
	s.propagate()
}

// mark queues feature i for recomputation. The queue is a binary max-heap
// of feature indexes, so a change with many ancestors costs
// O(ancestors * log ancestors), not their square.
func (s *State) mark(i int32) {
	if s.dirty[i] {
		return
	}
	s.dirty[i] = true
	q := append(s.queue, i)
	for k := len(q) - 1; k > 0; {
		p := (k - 1) / 2
		if q[p] >= q[k] {
			break
		}
		q[p], q[k] = q[k], q[p]
		k = p
	}
	s.queue = q
}

// pop removes and returns the largest queued index.
func (s *State) pop() int32 {
	q := s.queue
	top := q[0]
	q[0] = q[len(q)-1]
	q = q[:len(q)-1]
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q[c+1] > q[c] {
			c++
		}
		if q[k] >= q[c] {
			break
		}
		q[k], q[c] = q[c], q[k]
		k = c
	}
	s.queue = q
	return top
}

// propagate recomputes dirty features' values, children before parents:
// a parent has a smaller index than its children, so the largest dirty
// index is always safe to process.
func (s *State) propagate() {
	for len(s.queue) > 0 {
		i := s.pop()
		s.dirty[i] = false
		nv := math.Exp(s.sum[i] - s.norm[i])
		if d := nv - s.val[i]; d != 0 {
			s.val[i] = nv
			for _, p := range s.parents[i] {
				s.sum[p.feature] += s.net.Weights[p.weight] * d
				s.mark(p.feature)
			}
		}
	}
}

// flipGain returns s_0 with v true minus s_0 with v false, leaving the
// state as it was.
func (s *State) flipGain(v int) float64 {
	old := s.X[v]
	s.Set(v, true)
	a := s.sum[0]
	s.Set(v, false)
	b := s.sum[0]
	s.Set(v, old)
	return a - b
}
