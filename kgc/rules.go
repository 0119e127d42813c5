package kgc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/pathrule"
)

// Kind is a kind of rule.
type Kind uint8

const (
	// Cyclic: r(X, Y) <- b1(X, A1), ..., bn(An-1, Y), a path of 1-3 atoms
	// from the head's first argument to its second.
	Cyclic Kind = iota
	// AcyclicConst: r(X, c) <- b(X, d): one body atom linking the head's
	// variable to a constant.
	AcyclicConst
	// AcyclicAny: r(X, c) <- b(X, Y): the head's variable has some b edge.
	AcyclicAny
	// Default: r(X, c), for every X.
	Default
)

// MaxPath is the longest body of a cyclic rule.
const MaxPath = 3

// Self in a rule's constant (Rule.C or Rule.D) stands for the rule's own
// variable: r(X, Self) is the self-loop r(X, X), and b(X, Self) in a body
// the self-loop b(X, X). AnyBURL learns such rules from the self-loops of
// the training graph and writes the constant as SelfToken
// (r(X,me_myself_i) <= s(A,X): r(X, X) when X has an incoming s edge);
// ReadRules reads it as Self and Format writes it back. A rule whose head is
// a self-loop predicts, for a query about e either way, e itself when its
// body holds for e. Learn does not learn such rules.
const Self int32 = -1

// SelfToken is AnyBURL's name for Self in rule files (its
// REWRITE_REFLEXIV_TOKEN): a rules file can name no entity so.
const SelfToken = "me_myself_i"

// Step is a body atom walked from one variable to the next: relation R
// forwards (from head to tail) or, when Inverse, backwards.
type Step = pathrule.Step

// Rule is a learned rule with its statistics.
//
// For Cyclic the head is r(X, Y) and Body leads from X to Y. For the other
// kinds the head has one constant C and one variable V: r(V, C) when
// ConstTail, else r(C, V); Body (one step) leads from V, to the constant D
// for AcyclicConst and to a free variable for AcyclicAny. C or D may be
// Self, the variable V itself.
type Rule struct {
	Kind      Kind
	Head      int32
	ConstTail bool
	C, D      int32
	Body      []Step
	// Support is the number of body groundings whose head is in the
	// graph, BodySize the number of body groundings (distinct (X, Y)
	// pairs, or distinct V), Conf = Support / (BodySize + pc).
	Support, BodySize int
	Conf              float64
	// Sampled is the number of body starts (values of X) a sampled count
	// looked at, 0 when the count is exact; Err is then the half-width of
	// the confidence's 95% interval (0 for an exact count).
	Sampled int
	Err     float64
	// Round is the learning round that found the rule (0: a default
	// rule, or read from a file): the rules of rounds 1..n are those a
	// run of n rounds learns.
	Round int

	rev []Step // Body walked backwards, set by NewRanker for head queries
}

// key identifies a rule regardless of its statistics.
type key struct {
	kind      Kind
	head      int32
	constTail bool
	c, d      int32
	n         uint8
	steps     [MaxPath]Step
}

func (r *Rule) key() key {
	k := key{kind: r.Kind, head: r.Head, constTail: r.ConstTail, c: r.C, d: r.D, n: uint8(len(r.Body))}
	copy(k.steps[:], r.Body)
	return k
}

func (k key) rule() Rule {
	return Rule{Kind: k.kind, Head: k.head, ConstTail: k.constTail, C: k.c, D: k.d, Body: append([]Step(nil), k.steps[:k.n]...)}
}

// Format writes the rule in AnyBURL's style with names from v:
// "r(X,Y) <= b(X,A), c(A,Y)".
func (r *Rule) Format(v *Vocab) string {
	var b strings.Builder
	atom := func(rel int32, x, y string) string { return fmt.Sprintf("%s(%s,%s)", v.Relations[rel], x, y) }
	ent := func(e int32) string {
		if e == Self {
			return SelfToken
		}
		return v.Entities[e]
	}
	switch r.Kind {
	case Cyclic:
		b.WriteString(atom(r.Head, "X", "Y"))
		b.WriteString(" <= ")
		for i, st := range r.Body {
			if i > 0 {
				b.WriteString(", ")
			}
			from, to := "X", "Y"
			if i > 0 {
				from = fmt.Sprintf("A%d", i)
			}
			if i < len(r.Body)-1 {
				to = fmt.Sprintf("A%d", i+1)
			}
			if st.Inverse {
				from, to = to, from
			}
			b.WriteString(atom(st.R, from, to))
		}
		return b.String()
	}
	if r.ConstTail {
		b.WriteString(atom(r.Head, "X", ent(r.C)))
	} else {
		b.WriteString(atom(r.Head, ent(r.C), "X"))
	}
	if r.Kind == Default {
		b.WriteString(" <=")
		return b.String()
	}
	b.WriteString(" <= ")
	other := "A"
	if r.Kind == AcyclicConst {
		other = ent(r.D)
	}
	st := r.Body[0]
	if st.Inverse {
		b.WriteString(atom(st.R, other, "X"))
	} else {
		b.WriteString(atom(st.R, "X", other))
	}
	return b.String()
}

// reversed is the body walked backwards: r.rev when NewRanker has set it.
func (r *Rule) reversed() []Step {
	if r.rev != nil {
		return r.rev
	}
	return pathrule.Reverse(r.Body)
}

// headHolds reports whether the rule's head holds in g for the variable
// value v (acyclic and default rules).
func (r *Rule) headHolds(g *Graph, v int32) bool {
	if r.C == Self {
		return g.Has(Triple{H: v, R: r.Head, T: v})
	}
	if r.ConstTail {
		return g.Has(Triple{H: v, R: r.Head, T: r.C})
	}
	return g.Has(Triple{H: r.C, R: r.Head, T: v})
}

// CountOptions say how Count counts a cyclic rule's body groundings
// (pathrule.CountOptions; Seed is mixed with the rule itself, so a rule's
// count does not depend on which worker counts it or when).
type CountOptions = pathrule.CountOptions

// Count computes the rule's support and body size (exactly, or estimated
// from sampled starts for a cyclic rule, see pathrule.Walker.CountPath)
// and its confidence with the smoothing opt.PC, walking with w.
func (r *Rule) Count(g *Graph, opt CountOptions, w *pathrule.Walker) {
	r.Support, r.BodySize, r.Sampled, r.Err = 0, 0, 0, 0
	if r.Kind != Cyclic && (r.C == Self || r.D == Self) {
		// A self-loop in the head or the body: the few such rules are
		// counted over their body set.
		vs := r.bodySet(g, w)
		r.BodySize = len(vs)
		for _, v := range vs {
			if r.headHolds(g, v) {
				r.Support++
			}
		}
		r.Conf = float64(r.Support) / (float64(r.BodySize) + opt.PC)
		return
	}
	switch r.Kind {
	case Cyclic:
		c := w.CountPath(r.Head, r.Body, opt, r.hash())
		r.Support, r.BodySize, r.Conf, r.Sampled, r.Err = c.Support, c.Body, c.Conf, c.Sampled, c.Err
		return
	case AcyclicConst:
		c := w.CountConst(r.Head, r.C, r.ConstTail, r.Body, r.D, opt)
		r.Support, r.BodySize, r.Conf = c.Support, c.Body, c.Conf
		return
	case AcyclicAny:
		// The body holds (bodyHolds) for the entities but the constant with
		// an edge of the step to some entity other than themselves and the
		// constant (object identity, as AnyBURL applies the rule): those
		// with an edge to another than themselves, from the step's indexes,
		// less the constant and those whose every such edge ends at the
		// constant (they have an edge to it).
		st := r.Body[0]
		from, self := g.From(st.R, st.Inverse), g.SelfOnly(st.R, st.Inverse)
		r.BodySize = len(from) - len(self)
		_, in := slices.BinarySearch(from, r.C)
		if _, only := slices.BinarySearch(self, r.C); in && !only {
			r.BodySize--
		}
		for _, v := range g.Step(r.C, st.R, !st.Inverse) {
			if v != r.C && !r.bodyHolds(g, v) {
				r.BodySize--
			}
		}
		// Support from the constant's side: the v linked to it by the head.
		for _, v := range g.Step(r.C, r.Head, r.ConstTail) {
			if v != r.C && r.bodyHolds(g, v) {
				r.Support++
			}
		}
	case Default:
		// The variable ranges over the entities seen in its position of
		// the head relation, but the constant: the body is those
		// entities, the support those linked to the constant (counted
		// from the constant's side, so a default rule costs O(1), not a
		// pass over the relation).
		vars, withC := g.From(r.Head, false), g.Step(r.C, r.Head, true)
		if !r.ConstTail {
			vars, withC = g.From(r.Head, true), g.Step(r.C, r.Head, false)
		}
		r.BodySize, r.Support = len(vars), len(withC)
		if _, ok := slices.BinarySearch(vars, r.C); ok {
			r.BodySize--
		}
		if _, self := slices.BinarySearch(withC, r.C); self {
			r.Support--
		}
	}
	r.Conf = float64(r.Support) / (float64(r.BodySize) + opt.PC)
}

// hash mixes the rule's identity into a seed stream.
func (r *Rule) hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	mix(uint64(r.Kind))
	mix(uint64(uint32(r.Head)))
	if r.ConstTail {
		mix(1)
	}
	mix(uint64(uint32(r.C)))
	mix(uint64(uint32(r.D)))
	for _, st := range r.Body {
		mix(uint64(st.Key()) + 1)
	}
	return h
}

// predict returns the candidates the rule gives for a query: the tails of
// (e, Head, ?) when tail is true, else the heads of (?, Head, e), never e
// itself (object identity) but for a rule whose head is a self-loop (C is
// Self), which gives e alone, whichever side is asked, when its body holds
// for e. An acyclic rule with a constant in its body answers both ways:
// r(X, c) <= b(X, d) gives c for (x, r, ?) when b(x, d) holds, and every
// such x for (?, r, c). The result may alias buf.
func (r *Rule) predict(g *Graph, e int32, tail bool, w *pathrule.Walker, buf []int32) []int32 {
	switch {
	case r.Kind == Cyclic:
		if tail {
			return w.Walk(e, r.Body, buf)
		}
		return w.Walk(e, r.reversed(), buf)
	case r.C == Self:
		if r.bodyHolds(g, e) {
			return append(buf[:0], e)
		}
		return buf[:0]
	case r.ConstTail != tail:
		// The query gives the head's constant and asks for its variable:
		// r(X, c) <= b(X, d) answers (?, r, c) with every X that reaches
		// d. (The other kinds would answer with nearly every entity.)
		if r.Kind != AcyclicConst || e != r.C {
			return buf[:0]
		}
		var out []int32
		if r.D == Self {
			out = append(buf[:0], g.Loops(r.Body[0].R)...)
		} else {
			out = w.Walk(r.D, r.reversed(), buf)
		}
		return slices.DeleteFunc(out, func(v int32) bool { return v == r.C })
	case e != r.C && r.bodyHolds(g, e):
		return append(buf[:0], r.C)
	}
	return buf[:0]
}

// bodyHolds reports whether the body of a rule with a constant holds for
// the variable value v (always for a default rule).
func (r *Rule) bodyHolds(g *Graph, v int32) bool {
	switch r.Kind {
	case AcyclicConst:
		st := r.Body[0]
		if r.D == Self {
			return g.Has(Triple{H: v, R: st.R, T: v})
		}
		_, ok := slices.BinarySearch(g.Step(v, st.R, st.Inverse), r.D)
		return ok && v != r.D
	case AcyclicAny:
		return hasOther(g.Step(v, r.Body[0].R, r.Body[0].Inverse), v, r.C)
	}
	return true
}

// bodySet returns the sorted variable values for which the body of a rule
// with a constant holds, but the head's constant (object identity): for a
// default rule, the entities seen in the variable's position of the head.
func (r *Rule) bodySet(g *Graph, w *pathrule.Walker) []int32 {
	var vs []int32
	switch r.Kind {
	case Default:
		vs = slices.Clone(g.From(r.Head, !r.ConstTail))
	case AcyclicAny:
		st := r.Body[0]
		self := g.SelfOnly(st.R, st.Inverse)
		vs = slices.DeleteFunc(slices.Clone(g.From(st.R, st.Inverse)), func(v int32) bool {
			_, only := slices.BinarySearch(self, v)
			return only
		})
	case AcyclicConst:
		if r.D == Self {
			vs = slices.Clone(g.Loops(r.Body[0].R))
		} else {
			vs = slices.Sorted(slices.Values(w.Walk(r.D, r.reversed(), nil)))
		}
	}
	if r.C != Self {
		vs = slices.DeleteFunc(vs, func(v int32) bool { return v == r.C })
	}
	return vs
}

// hasOther reports whether ts holds an entity other than v and c (a
// rule's constant; Self stands for no constant).
func hasOther(ts []int32, v, c int32) bool {
	for _, t := range ts {
		if t != v && t != c {
			return true
		}
	}
	return false
}
