package kgc

import (
	"fmt"
	"slices"
	"strings"
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

// Step is a body atom walked from one variable to the next: relation R
// forwards (from head to tail) or, when Inverse, backwards.
type Step struct {
	R       int32
	Inverse bool
}

// Rule is a learned rule with its statistics.
//
// For Cyclic the head is r(X, Y) and Body leads from X to Y. For the other
// kinds the head has one constant C and one variable V: r(V, C) when
// ConstTail, else r(C, V); Body (one step) leads from V, to the constant D
// for AcyclicConst and to a free variable for AcyclicAny.
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
	ent := func(e int32) string { return v.Entities[e] }
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

// walk returns the distinct entities y reached from x through steps
// along paths whose entities are all different (x, the intermediate
// entities and y: AnyBURL's object identity), using mark (all false on
// entry and on return) to deduplicate; the result is appended to out[:0].
func (g *Graph) walk(x int32, steps []Step, mark []bool, out []int32) []int32 {
	out = out[:0]
	var path [MaxPath + 1]int32
	path[0] = x
	var rec func(depth int)
	rec = func(depth int) {
		st := steps[depth]
	next:
		for _, t := range g.Step(path[depth], st.R, st.Inverse) {
			for _, p := range path[:depth+1] {
				if p == t {
					continue next
				}
			}
			if depth == len(steps)-1 {
				if !mark[t] {
					mark[t] = true
					out = append(out, t)
				}
				continue
			}
			path[depth+1] = t
			rec(depth + 1)
		}
	}
	rec(0)
	for _, t := range out {
		mark[t] = false
	}
	return out
}

// reverse is steps walked backwards, from the end to the start.
func reverse(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		out[len(steps)-1-i] = Step{st.R, !st.Inverse}
	}
	return out
}

// reversed is the body walked backwards: r.rev when NewRanker has set it.
func (r *Rule) reversed() []Step {
	if r.rev != nil {
		return r.rev
	}
	return reverse(r.Body)
}

// headHolds reports whether the rule's head holds in g for the variable
// value v (acyclic and default rules).
func (r *Rule) headHolds(g *Graph, v int32) bool {
	if r.ConstTail {
		return g.Has(Triple{v, r.Head, r.C})
	}
	return g.Has(Triple{r.C, r.Head, v})
}

// Count computes the rule's support and body size exactly over g (mark: a
// scratch slice of g.NumEntities falses) and its confidence with the
// smoothing pc.
func (r *Rule) Count(g *Graph, pc float64, mark []bool) {
	r.Support, r.BodySize = 0, 0
	switch r.Kind {
	case Cyclic:
		first := r.Body[0]
		// Every X with an edge of the first step.
		var xs map[int32][]int32
		if first.Inverse {
			xs = g.in[first.R]
		} else {
			xs = g.out[first.R]
		}
		var ys []int32
		for x := range xs {
			ys = g.walk(x, r.Body, mark, ys)
			r.BodySize += len(ys)
			for _, y := range ys {
				if g.Has(Triple{x, r.Head, y}) {
					r.Support++
				}
			}
		}
	case AcyclicConst:
		for _, v := range g.walk(r.D, reverse(r.Body), mark, nil) {
			if v == r.C {
				continue // object identity: the variable is not the head's constant
			}
			r.BodySize++
			if r.headHolds(g, v) {
				r.Support++
			}
		}
	case AcyclicAny:
		st := r.Body[0]
		m := g.out[st.R]
		if st.Inverse {
			m = g.in[st.R]
		}
		for v, ts := range m {
			if v == r.C || !hasOther(ts, v) {
				continue
			}
			r.BodySize++
			if r.headHolds(g, v) {
				r.Support++
			}
		}
	case Default:
		// The variable ranges over the entities seen in its position of
		// the head relation, but the constant: the body is those
		// entities, the support those linked to the constant (counted
		// from the constant's side, so a default rule costs O(1), not a
		// pass over the relation).
		vars, withC := g.out[r.Head], g.in[r.Head][r.C]
		if !r.ConstTail {
			vars, withC = g.in[r.Head], g.out[r.Head][r.C]
		}
		r.BodySize, r.Support = len(vars), len(withC)
		if _, ok := vars[r.C]; ok {
			r.BodySize--
		}
		if _, self := slices.BinarySearch(withC, r.C); self {
			r.Support--
		}
	}
	r.Conf = float64(r.Support) / (float64(r.BodySize) + pc)
}

// hasOther reports whether ts holds an entity other than v.
func hasOther(ts []int32, v int32) bool {
	for _, t := range ts {
		if t != v {
			return true
		}
	}
	return false
}

// predict returns the candidates the rule gives for a query: the tails of
// (e, Head, ?) when tail is true, else the heads of (?, Head, e), never e
// itself (object identity). An acyclic rule with a constant in its body
// answers both ways: r(X, c) <= b(X, d) gives c for (x, r, ?) when b(x, d)
// holds, and every such x for (?, r, c). The result may alias buf.
func (r *Rule) predict(g *Graph, e int32, tail bool, mark []bool, buf []int32) []int32 {
	switch r.Kind {
	case Cyclic:
		if tail {
			return g.walk(e, r.Body, mark, buf)
		}
		return g.walk(e, r.reversed(), mark, buf)
	}
	if r.ConstTail != tail {
		// The query gives the head's constant and asks for its variable:
		// r(X, c) <= b(X, d) answers (?, r, c) with every X that reaches
		// d. (The other kinds would answer with nearly every entity.)
		if r.Kind != AcyclicConst || e != r.C {
			return nil
		}
		out := g.walk(r.D, r.reversed(), mark, buf)
		return slices.DeleteFunc(out, func(v int32) bool { return v == r.C })
	}
	if e == r.C {
		return nil
	}
	switch r.Kind {
	case AcyclicConst:
		if e == r.D {
			return nil
		}
		for _, t := range g.Step(e, r.Body[0].R, r.Body[0].Inverse) {
			if t == r.D {
				return append(buf[:0], r.C)
			}
		}
		return nil
	case AcyclicAny:
		if hasOther(g.Step(e, r.Body[0].R, r.Body[0].Inverse), e) {
			return append(buf[:0], r.C)
		}
		return nil
	}
	return append(buf[:0], r.C)
}
