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
//	f_i(x) = exp(s_i(x) - M_i),  s_i = sum_j w_ij v_j,  M_i = sum_j m(w_ij)
//
// where v_j is the child's value (x_v or 1 - x_v for a variable, f_j for a
// feature, 0 or 1 for an atom the evidence fixes) and m is the Norm of the
// network. The root is not normalised: P(x) = exp(s_0(x)) / Z_0, and only
// differences of s_0 are ever needed.
//
// Every grounding of a parfeature has the same children per term (a sum
// runs over whole domains), so M_i depends on the parfeature and the
// weights only, and two choices of m differ by a factor on each
// parfeature's values that its parents' weights absorb: they define the
// same family of distributions. What differs is what a given weight means
// and whether learning can follow the objective:
//
//   - NormMax, m(w) = max(w, 0): values in (0, 1], the best configuration
//     of the children worth 1, so a weight reads as "how much each child
//     counts". The pseudo-likelihood has a kink where an inner weight
//     crosses 0, and L-BFGS's line search fails there (on the inclusion
//     experiment of the paper's Figure 2, on every training world
//     measured, with the gradient's norm still 0.2-1.2).
//   - NormSoftplus, m(w) = log(1 + exp(w)): smooth, but a feature over n
//     children is scaled by prod (1 + exp(-|w|))^(-n): a soft quantifier
//     over 50 atoms of weight 2 by exp(-6.3), so a knowledge base's weights
//     no longer say what they did, and learning from them, with a prior
//     centred on them, lands elsewhere (a pseudo-log-likelihood of -328
//     against -301 on one of those worlds, AUC-PR 0.47 against 0.63 on
//     two).
//   - NormSmooth, the default, m(w) = w / (1 + exp(-10 w)): max smoothed
//     near 0. It equals max to 5e-5 for |w| >= 1, so knowledge-base weights
//     keep their meaning, and m(0) = 0, so theory revision's small added
//     weights move the distribution by O(eps) (Program.Revise); learning
//     converges (to a gradient of 4e-6 to 4e-5, the objective's rounding)
//     and reaches max's pseudo-likelihood or slightly more, with the best
//     AUC-PR and CLL of the three on those worlds. The price: a value may
//     exceed 1 by exp(0.028) per child, so a
//     feature with more than 25,000 children is refused (Net.Validate).
//
// bench/rrf's README has the measurements on Figure 2's experiments and on
// UW-CSE.
package rrf

import (
	"errors"
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/internal/logistic"
)

// Norm is a feature normalisation: M_i = sum_j n_ij m(w_ij) over the
// feature's children (n_ij copies of a child of weight w_ij), m one of
//
//	NormMax:       m(w) = max(w, 0)
//	NormSoftplus:  m(w) = log(1 + exp(w))
//	NormSmooth:    m(w) = w / (1 + exp(-w/t)),  t = SmoothTemperature
//
// Any choice gives the same family of distributions (see the package
// documentation); they differ in what a given weight means and in the
// smoothness of the learning objective.
type Norm uint8

const (
	// NormSmooth is a smooth version of max(w, 0): w times the logistic
	// function of w/t at temperature t = SmoothTemperature (0.1). It is 0
	// at w = 0, like max, and differs from max by |w| / (1 + exp(|w|/t)):
	// at most 0.028 (at |w| = 0.128), below 5e-5 for |w| >= 1. So a
	// feature's value may exceed 1, by at most exp(0.028) per child, and
	// the learning objective has no kink. The default.
	NormSmooth Norm = iota
	// NormMax is m(w) = max(w, 0), the sum of the positive weights: every
	// feature value lies in (0, 1], and 1 is reached by the children's best
	// configuration. The pseudo-likelihood has a kink where an inner
	// weight crosses 0, where L-BFGS's line search fails.
	NormMax
	// NormSoftplus is m(w) = log(1 + exp(w)), the feature's own partition
	// function when its children are independent coins: smooth, but below
	// max's values by a factor prod_j (1 + exp(-|w_ij|))^(-n_ij), which
	// grows with the number of children, so that a knowledge base's weights
	// mean something else.
	NormSoftplus
)

// SmoothTemperature is the temperature t of NormSmooth.
const SmoothTemperature = 0.1

// smoothGap bounds max(w, 0) - m(w) for NormSmooth: the largest value of
// |w| / (1 + exp(|w|/t)), 0.2785 t (at |w| = 1.2785 t).
const smoothGap = 0.2785 * SmoothTemperature

// String names the normalisation as the command line does: smooth, max or
// softplus.
func (m Norm) String() string {
	switch m {
	case NormSmooth:
		return "smooth"
	case NormMax:
		return "max"
	case NormSoftplus:
		return "softplus"
	}
	return fmt.Sprintf("Norm(%d)", uint8(m))
}

// ParseNorm reads a normalisation's name: smooth, max or softplus.
func ParseNorm(s string) (Norm, error) {
	for _, m := range []Norm{NormSmooth, NormMax, NormSoftplus} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("normalisation %q: want smooth, max or softplus", s)
}

// norm is m(w) and dnorm its derivative.
func (m Norm) norm(w float64) float64 {
	switch m {
	case NormSmooth:
		return w * logistic.Sigmoid(w/SmoothTemperature)
	case NormSoftplus:
		return logistic.Softplus(w)
	}
	return max(w, 0)
}

func (m Norm) dnorm(w float64) float64 {
	switch m {
	case NormSmooth:
		z := w / SmoothTemperature
		sg := logistic.Sigmoid(z)
		return sg + z*sg*(1-sg)
	case NormSoftplus:
		return logistic.Sigmoid(w)
	}
	if w > 0 {
		return 1
	}
	return 0
}

// Child is one weighted child of a feature: a variable (Feature < 0), a
// feature (Var < 0), or, when both are negative, a constant: an atom the
// evidence fixes, worth 1 (0 when Neg). Weight indexes Net.Weights, so
// weights can be tied. Count is the number of identical children the entry
// stands for (0 means 1): the grounder merges identical groundings of a
// parfeature and the evidence atoms of equal value into one entry each.
type Child struct {
	Var     int32
	Feature int32
	Neg     bool // a variable child counts as 1 - x; a constant as 0
	Weight  int32
	Count   int64
}

// mult is the child's multiplicity as a float.
func (c *Child) mult() float64 {
	if c.Count <= 1 {
		return 1
	}
	return float64(c.Count)
}

// Net is a propositional RRF. Features[0] is the root; every feature's
// feature children have larger indexes than it (a topological order).
// Norm is the normalisation of every feature but the root.
type Net struct {
	NumVars  int
	Features [][]Child
	Weights  []float64
	Norm     Norm
}

// Validate checks indexes, the topological order, counts and finite
// weights.
func (n *Net) Validate() error {
	if len(n.Features) == 0 {
		return errors.New("rrf: no root feature")
	}
	if n.Norm > NormSoftplus {
		return fmt.Errorf("rrf: unknown normalisation %v", n.Norm)
	}
	for i, w := range n.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("rrf: weight %d is %v", i, w)
		}
	}
	for i, cs := range n.Features {
		if n.Norm == NormSmooth && i > 0 {
			// A value is at most exp(smoothGap * children): keep it finite.
			total := 0.0
			for k := range cs {
				total += cs[k].mult()
			}
			if total*smoothGap > 700 {
				return fmt.Errorf("rrf: feature %d has %.0f children: its value could overflow under the smooth normalisation (use max)", i, total)
			}
		}
		for k, c := range cs {
			switch {
			case c.Weight < 0 || int(c.Weight) >= len(n.Weights):
				return fmt.Errorf("rrf: feature %d child %d: weight index %d out of range", i, k, c.Weight)
			case c.Var >= 0 && c.Feature >= 0:
				return fmt.Errorf("rrf: feature %d child %d: a child is a variable or a feature, not both", i, k)
			case c.Var >= 0 && int(c.Var) >= n.NumVars:
				return fmt.Errorf("rrf: feature %d child %d: variable %d out of range", i, k, c.Var)
			case c.Feature >= 0 && (int(c.Feature) >= len(n.Features) || int(c.Feature) <= i):
				return fmt.Errorf("rrf: feature %d child %d: feature %d must come after its parent", i, k, c.Feature)
			case c.Count < 0:
				return fmt.Errorf("rrf: feature %d child %d: count %d is negative", i, k, c.Count)
			case c.Feature >= 0 && c.Neg:
				return fmt.Errorf("rrf: feature %d child %d: a feature child cannot be negated", i, k)
			}
		}
	}
	return nil
}

// parentRef is an edge to a parent: the parent's index, the child's weight
// index, negation and multiplicity.
type parentRef struct {
	feature int32
	weight  int32
	neg     bool
	count   float64
}

// topology is the net's edges seen from the children, in CSR form: the
// parents of feature i are par[parOff[i]:parOff[i+1]], those of variable v
// vpar[varOff[v]:varOff[v+1]] (sorted by parent, so that a variable's
// entries under one parent are adjacent). It depends on the structure only,
// so the states of one net (the workers of the pseudo-likelihood, the
// chains of likelihood learning) share it.
type topology struct {
	parOff, varOff []int32
	par, vpar      []parentRef
	// shallow marks the variables whose every parent is the root or a child
	// of the root only (rootOnly): flipping one changes s_0 by a sum over
	// its parents, without the propagation queue (see State.flipGain).
	shallow  []bool
	rootOnly []bool
}

func newTopology(n *Net) *topology {
	nf := len(n.Features)
	t := &topology{parOff: make([]int32, nf+1), varOff: make([]int32, n.NumVars+1)}
	for _, cs := range n.Features {
		for _, c := range cs {
			switch {
			case c.Var >= 0:
				t.varOff[c.Var+1]++
			case c.Feature >= 0:
				t.parOff[c.Feature+1]++
			}
		}
	}
	for i := range nf {
		t.parOff[i+1] += t.parOff[i]
	}
	for v := range n.NumVars {
		t.varOff[v+1] += t.varOff[v]
	}
	t.par = make([]parentRef, t.parOff[nf])
	t.vpar = make([]parentRef, t.varOff[n.NumVars])
	pfill := append([]int32(nil), t.parOff[:nf]...)
	vfill := append([]int32(nil), t.varOff[:n.NumVars]...)
	// Features in index order: each child's parents come out sorted.
	for i, cs := range n.Features {
		for _, c := range cs {
			ref := parentRef{feature: int32(i), weight: c.Weight, neg: c.Neg, count: c.mult()}
			switch {
			case c.Var >= 0:
				t.vpar[vfill[c.Var]] = ref
				vfill[c.Var]++
			case c.Feature >= 0:
				t.par[pfill[c.Feature]] = ref
				pfill[c.Feature]++
			}
		}
	}
	t.rootOnly = make([]bool, nf)
	for i := 1; i < nf; i++ {
		ok := true
		for _, q := range t.parents(int32(i)) {
			ok = ok && q.feature == 0
		}
		t.rootOnly[i] = ok
	}
	t.shallow = make([]bool, n.NumVars)
	for v := range n.NumVars {
		ok := true
		for _, p := range t.varParents(v) {
			ok = ok && (p.feature == 0 || t.rootOnly[p.feature])
		}
		t.shallow[v] = ok
	}
	return t
}

func (t *topology) parents(i int32) []parentRef { return t.par[t.parOff[i]:t.parOff[i+1]] }

func (t *topology) varParents(v int) []parentRef { return t.vpar[t.varOff[v]:t.varOff[v+1]] }

// State is an assignment with every feature's cached sum s_i and value f_i;
// changing one variable updates only its ancestors.
type State struct {
	net   *Net
	tp    *topology
	X     []bool
	sum   []float64 // s_i
	norm  []float64 // M_i
	val   []float64 // f_i (the root's is unused)
	dirty []bool
	queue []int32 // dirty features, processed from the largest index down
	// At the weights of the last Recompute: exp(w_k) for each weight, and
	// for a feature whose parents are all the root, the sum of its root
	// edges' weights times their counts (flipGain's direct path).
	expW  []float64
	rootW []float64
	// coef, per entry k of the topology's variable-parent list (vpar), for
	// an entry that is its parent's only entry for the variable, of count 1,
	// under a parent whose parents are all the root: how much the root's
	// sum gains, per unit of the parent's value, when the variable goes from
	// false to true, with the leaf now 0 (coef[k][0]) or 1 (coef[k][1]);
	// NaN for an entry flipGain computes otherwise.
	coef [][2]float64
	// sweeps counts Gibbs sweeps, for the periodic refresh.
	sweeps int
	// While recording, every cached sum and value is saved in journal
	// before it changes, so that rollback restores them exactly (a trial
	// flip leaves no rounding behind).
	recording bool
	journal   []undo
	// blockScore is sampleBlock's scratch: the log score of each
	// assignment of a block.
	blockScore []float64
}

// undo is a feature's cached sum and value before a change.
type undo struct {
	i        int32
	sum, val float64
}

// save journals feature i's sum and value when recording.
func (s *State) save(i int32) {
	if s.recording {
		s.journal = append(s.journal, undo{i, s.sum[i], s.val[i]})
	}
}

// try sets variable v to b, journaled: rollback undoes it exactly.
func (s *State) try(v int, b bool) {
	s.recording = true
	s.journal = s.journal[:0]
	s.Set(v, b)
	s.recording = false
}

// rollback restores the sums and values try changed and sets X[v] back to
// old.
func (s *State) rollback(v int, old bool) {
	s.restore()
	s.X[v] = old
}

// restore sets back the sums and values the journal saved, last first, and
// empties it.
func (s *State) restore() {
	for k := len(s.journal) - 1; k >= 0; k-- {
		u := s.journal[k]
		s.sum[u.i], s.val[u.i] = u.sum, u.val
	}
	s.journal = s.journal[:0]
}

// NewState evaluates net at x (copied).
func NewState(net *Net, x []bool) (*State, error) {
	if err := net.Validate(); err != nil {
		return nil, err
	}
	return newState(net, newTopology(net), x)
}

// newState is NewState for a validated net and its topology.
func newState(net *Net, tp *topology, x []bool) (*State, error) {
	if len(x) != net.NumVars {
		return nil, fmt.Errorf("rrf: %d values for %d variables", len(x), net.NumVars)
	}
	nf := len(net.Features)
	s := &State{net: net, tp: tp, X: append([]bool(nil), x...), sum: make([]float64, nf), norm: make([]float64, nf), val: make([]float64, nf),
		dirty: make([]bool, nf), expW: make([]float64, len(net.Weights)), rootW: make([]float64, nf), coef: make([][2]float64, len(tp.vpar))}
	s.Recompute()
	return s, nil
}

// Recompute evaluates every feature from scratch (after the weights change).
func (s *State) Recompute() {
	n := s.net
	for i := len(n.Features) - 1; i >= 0; i-- {
		m := 0.0
		for k := range n.Features[i] {
			c := &n.Features[i][k]
			m += c.mult() * n.Norm.norm(n.Weights[c.Weight])
		}
		s.norm[i] = m
	}
	for k, w := range n.Weights {
		s.expW[k] = math.Exp(w)
	}
	for i := range s.rootW {
		if !s.tp.rootOnly[i] {
			continue
		}
		r := 0.0
		for _, q := range s.tp.parents(int32(i)) {
			r += n.Weights[q.weight] * q.count
		}
		s.rootW[i] = r
	}
	tp := s.tp
	for v := range n.NumVars {
		refs := tp.varParents(v)
		base := tp.varOff[v]
		for k := range refs {
			r := &refs[k]
			c := &s.coef[int(base)+k]
			c[0], c[1] = math.NaN(), math.NaN()
			single := (k == 0 || refs[k-1].feature != r.feature) && (k+1 == len(refs) || refs[k+1].feature != r.feature)
			e := s.expW[r.weight]
			if !tp.shallow[v] || r.feature == 0 || !single || r.count != 1 || !(e > 1e-250 && e < 1e250) {
				continue
			}
			// The leaf is 1 when X[v] != neg: with the leaf at 0 now, the
			// value goes from val to val*e as the leaf turns 1; at 1, from
			// val/e to val. A negated leaf turns 1 as v goes false.
			sign := s.rootW[r.feature]
			if r.neg {
				sign = -sign
			}
			c[0], c[1] = sign*(e-1), sign*(1-1/e)
		}
	}
	s.refresh()
}

// refresh recomputes every feature's sum and value from its children at
// the current weights (the normalisations unchanged), dropping the
// rounding that incremental updates accumulate.
func (s *State) refresh() {
	n := s.net
	for i := len(n.Features) - 1; i >= 0; i-- {
		sum := 0.0
		for k := range n.Features[i] {
			c := &n.Features[i][k]
			sum += n.Weights[c.Weight] * c.mult() * s.childValue(c)
		}
		s.sum[i] = sum
		s.val[i] = math.Exp(sum - s.norm[i])
	}
}

// childValue is the value of one child (one copy of it) in the state.
func (s *State) childValue(c *Child) float64 {
	switch {
	case c.Var >= 0:
		return s.leaf(c.Var, c.Neg)
	case c.Feature >= 0:
		return s.val[c.Feature]
	case c.Neg:
		return 0
	}
	return 1
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
	refs := s.tp.varParents(v)
	if s.tp.shallow[v] {
		s.setShallow(refs, b)
		return
	}
	for _, p := range refs {
		d := p.count
		if b == p.neg { // the leaf went from 1 to 0
			d = -d
		}
		s.save(p.feature)
		s.sum[p.feature] += s.net.Weights[p.weight] * d
		s.mark(p.feature)
	}
	s.propagate()
}

// setShallow is Set for a variable whose parents are the root or children
// of the root only: each parent's value is updated and its change passed to
// the root directly.
func (s *State) setShallow(refs []parentRef, b bool) {
	w := s.net.Weights
	for k := 0; k < len(refs); {
		f := refs[k].feature
		s.save(f)
		for ; k < len(refs) && refs[k].feature == f; k++ {
			d := refs[k].count
			if b == refs[k].neg {
				d = -d
			}
			s.sum[f] += w[refs[k].weight] * d
		}
		if f == 0 {
			continue
		}
		nv := math.Exp(s.sum[f] - s.norm[f])
		dv := nv - s.val[f]
		s.val[f] = nv
		s.save(0)
		for _, q := range s.tp.parents(f) {
			s.sum[0] += w[q.weight] * q.count * dv
		}
	}
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
			s.save(i)
			s.val[i] = nv
			for _, p := range s.tp.parents(i) {
				s.save(p.feature)
				s.sum[p.feature] += s.net.Weights[p.weight] * p.count * d
				s.mark(p.feature)
			}
		}
	}
}

// flipGain returns s_0 with v true minus s_0 with v false, leaving the
// state as it was. For a shallow variable it is a sum over v's parents of
// the change of each parent's value (nothing is written): a parent with v
// as one child of count 1 changes by val * (exp(+-w) - 1), a coefficient
// of the weights cached by Recompute (State.coef) times the parent's value;
// otherwise v is set both ways and back.
func (s *State) flipGain(v int) float64 {
	if !s.tp.shallow[v] {
		old := s.X[v]
		s.try(v, !old)
		d := s.sum[0]
		s.rollback(v, old)
		d -= s.sum[0] // s_0 flipped minus s_0 now
		if old {
			return -d
		}
		return d
	}
	w := s.net.Weights
	refs := s.tp.varParents(v)
	coef := s.coef[s.tp.varOff[v]:s.tp.varOff[v+1]]
	cur := s.X[v]
	gain := 0.0
	for k := 0; k < len(refs); {
		f := refs[k].feature
		if c := &coef[k]; c[0] == c[0] { // not NaN: see State.coef
			if val := s.val[f]; val > 1e-250 {
				if cur != refs[k].neg { // the leaf is 1 now
					gain += val * c[1]
				} else {
					gain += val * c[0]
				}
				k++
				continue
			}
		}
		// The parent's sum with v true (dt) and false (df), relative to now.
		dt, df := 0.0, 0.0
		for ; k < len(refs) && refs[k].feature == f; k++ {
			d := w[refs[k].weight] * refs[k].count
			// The leaf is 1 when X[v] != neg.
			lt, lf := !refs[k].neg, refs[k].neg
			now := cur != refs[k].neg
			if lt != now {
				if lt {
					dt += d
				} else {
					dt -= d
				}
			}
			if lf != now {
				if lf {
					df += d
				} else {
					df -= d
				}
			}
		}
		if f == 0 {
			gain += dt - df
			continue
		}
		ft := math.Exp(s.sum[f] + dt - s.norm[f])
		ff := math.Exp(s.sum[f] + df - s.norm[f])
		for _, q := range s.tp.parents(f) {
			gain += w[q.weight] * q.count * (ft - ff)
		}
	}
	return gain
}
