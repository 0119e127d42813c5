package kgc

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	// Sampled is the number of body starts (values of X) a sampled count
	// looked at, 0 when the count is exact; Err is then the half-width of
	// the confidence's 95% interval (0 for an exact count).
	Sampled int
	Err     float64

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

// scratch is one worker's working memory over the graph's entities, all
// zero between uses.
type scratch struct {
	mark    []bool  // output deduplication
	cnt     []uint8 // depth 3: distinct predecessors of a middle entity, saturating at 2
	first   []int32 // depth 3: its first predecessor
	touched []int32 // depth 3: middle entities with cnt > 0
	work    int64   // edges looked at, for budgets
}

func newScratch(n int) *scratch {
	return &scratch{mark: make([]bool, n), cnt: make([]uint8, n), first: make([]int32, n)}
}

// walk returns the distinct entities y reached from x through steps (1 to
// MaxPath of them) along paths whose entities are all different (x, the
// intermediate entities and y: AnyBURL's object identity); the result is
// appended to out[:0]. It works on sets of entities, not on paths: the
// cost is the sum of the degrees of the distinct entities reached before
// the last step, however many paths lead through a hub. For three steps,
// x -> a1 -> a2 -> y, a middle entity a2 keeps the number of its distinct
// predecessors a1 (saturating at 2) and the first: y is reached when some
// a1 differs from y, that is when a2 has two predecessors or its one
// predecessor is not y.
func (g *Graph) walk(x int32, steps []Step, sc *scratch, out []int32) []int32 {
	out = out[:0]
	add := func(y int32) {
		if !sc.mark[y] {
			sc.mark[y] = true
			out = append(out, y)
		}
	}
	s0 := g.Step(x, steps[0].R, steps[0].Inverse)
	sc.work += int64(len(s0))
	switch len(steps) {
	case 1:
		for _, y := range s0 {
			if y != x {
				add(y)
			}
		}
	case 2:
		for _, a := range s0 {
			if a == x {
				continue
			}
			s1 := g.Step(a, steps[1].R, steps[1].Inverse)
			sc.work += int64(len(s1))
			for _, y := range s1 {
				if y != x && y != a {
					add(y)
				}
			}
		}
	case 3:
		for _, a1 := range s0 {
			if a1 == x {
				continue
			}
			s1 := g.Step(a1, steps[1].R, steps[1].Inverse)
			sc.work += int64(len(s1))
			for _, a2 := range s1 {
				if a2 == x || a2 == a1 {
					continue
				}
				switch sc.cnt[a2] {
				case 0:
					sc.cnt[a2], sc.first[a2] = 1, a1
					sc.touched = append(sc.touched, a2)
				case 1:
					sc.cnt[a2] = 2 // a1 differs from the first: each a1 comes once
				}
			}
		}
		for _, a2 := range sc.touched {
			s2 := g.Step(a2, steps[2].R, steps[2].Inverse)
			sc.work += int64(len(s2))
			for _, y := range s2 {
				if y != x && y != a2 && (sc.cnt[a2] == 2 || sc.first[a2] != y) {
					add(y)
				}
			}
			sc.cnt[a2] = 0
		}
		sc.touched = sc.touched[:0]
	default:
		panic(fmt.Sprintf("kgc: a path of %d steps", len(steps)))
	}
	for _, y := range out {
		sc.mark[y] = false
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

// CountOptions say how Count counts a cyclic rule's body groundings.
type CountOptions struct {
	// PC smooths the confidence: support / (body size + PC).
	PC float64
	// Sample is the most body starts (values of X) a cyclic rule's count
	// looks at, drawn at random without replacement; 0 counts every start
	// (exact). A rule with no more starts than Sample is counted exactly.
	Sample int
	// Err stops the sampling early, after at least minDraws starts, once
	// the confidence's 95% interval has a half-width of at most Err (0:
	// never early).
	Err float64
	// Work stops the sampling once this many edges have been looked at
	// (a rule through hubs), with at least one start drawn (0: no bound).
	Work int64
	// Seed seeds the draws, with the rule itself: a rule's count does not
	// depend on which worker counts it or when.
	Seed uint64
}

// minDraws is the fewest starts drawn before CountOptions.Err may stop a
// sampled count.
const minDraws = 100

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Count computes the rule's support and body size (exactly, or estimated
// from sampled starts for a cyclic rule, see CountOptions) and its
// confidence with the smoothing opt.PC. sc is a worker's scratch memory.
//
// A sampled count draws values x of X uniformly without replacement from
// the N entities where the body's first step can start, and walks each
// exactly: h_x of its y are supported, y_x are body groundings. With m
// draws the support and body size are estimated as N/m sum h and N/m sum y
// (unbiased), the confidence as their smoothed ratio c, and its standard
// error by the delta method, sqrt(N^2 (1 - m/N) s^2 / m) / (body + PC), s^2
// the sample variance of h - c y; Err is 1.96 times it, at least the
// rule-of-three bound 3N/m / (body + PC) when no draw (or every draw) was
// supported.
func (r *Rule) Count(g *Graph, opt CountOptions, sc *scratch) {
	r.Support, r.BodySize, r.Sampled, r.Err = 0, 0, 0, 0
	switch r.Kind {
	case Cyclic:
		r.countCyclic(g, opt, sc)
		return
	case AcyclicConst:
		for _, v := range g.walk(r.D, reverse(r.Body), sc, nil) {
			if v == r.C {
				continue // object identity: the variable is not the head's constant
			}
			r.BodySize++
			if r.headHolds(g, v) {
				r.Support++
			}
		}
	case AcyclicAny:
		// The body holds for the entities with an edge of the step to
		// some other entity, but the constant.
		st := r.Body[0]
		from, self := g.From(st.R, st.Inverse), g.selfOnly[edgeKey(st.R, st.Inverse)]
		body := func(v int32) bool {
			_, in := slices.BinarySearch(from, v)
			_, only := slices.BinarySearch(self, v)
			return in && !only
		}
		r.BodySize = len(from) - len(self)
		if body(r.C) {
			r.BodySize--
		}
		// Support from the constant's side: the v linked to it by the head.
		for _, v := range g.Step(r.C, r.Head, r.ConstTail) {
			if v != r.C && body(v) {
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

func (r *Rule) countCyclic(g *Graph, opt CountOptions, sc *scratch) {
	starts := g.From(r.Body[0].R, r.Body[0].Inverse)
	n := len(starts)
	exact := opt.Sample <= 0 || n <= opt.Sample
	var rng *rand.Rand
	var swapped map[int]int
	if !exact {
		rng = rand.New(rand.NewPCG(opt.Seed, r.hash()))
		swapped = map[int]int{}
	}
	var sh, sy, shh, shy, syy float64
	var ys []int32
	m := 0
	sc.work = 0
	for m < n {
		// The m-th draw: a partial Fisher-Yates shuffle of the starts'
		// indices, its swaps kept in a map.
		i := m
		if !exact {
			j := m + rng.IntN(n-m)
			vi, ok := swapped[j]
			if !ok {
				vi = j
			}
			vm, ok := swapped[m]
			if !ok {
				vm = m
			}
			swapped[j] = vm
			i = vi
		}
		x := starts[i]
		ys = g.walk(x, r.Body, sc, ys)
		h := 0
		for _, y := range ys {
			if g.Has(Triple{x, r.Head, y}) {
				h++
			}
		}
		m++
		fh, fy := float64(h), float64(len(ys))
		sh, sy, shh, shy, syy = sh+fh, sy+fy, shh+fh*fh, shy+fh*fy, syy+fy*fy
		if exact {
			continue
		}
		if m >= opt.Sample || (opt.Work > 0 && sc.work >= opt.Work) {
			break
		}
		if opt.Err > 0 && m >= minDraws && m%16 == 0 {
			if _, err := ratioError(sh, sy, shh, shy, syy, m, n, opt.PC); err <= opt.Err {
				break
			}
		}
	}
	if m == n {
		r.Support, r.BodySize = int(sh), int(sy)
		r.Conf = sh / (sy + opt.PC)
		return
	}
	r.Sampled = m
	scale := float64(n) / float64(m)
	r.Support, r.BodySize = int(math.Round(sh*scale)), int(math.Round(sy*scale))
	r.Conf, r.Err = ratioError(sh, sy, shh, shy, syy, m, n, opt.PC)
}

// ratioError estimates the confidence from m of n starts (sums of h, y,
// h^2, h y and y^2) and the half-width of its 95% interval.
func ratioError(sh, sy, shh, shy, syy float64, m, n int, pc float64) (conf, err float64) {
	scale := float64(n) / float64(m)
	den := sy*scale + pc
	if den == 0 {
		return 0, 0
	}
	conf = sh * scale / den
	if m >= n {
		return conf, 0
	}
	fm := float64(m)
	// Sample variance of d = h - conf*y.
	sd := sh - conf*sy
	sdd := shh - 2*conf*shy + conf*conf*syy
	v := 0.0
	if m > 1 {
		v = max(0, (sdd-sd*sd/fm)/(fm-1))
	}
	fpc := 1 - fm/float64(n)
	err = z95 * math.Sqrt(float64(n)*float64(n)*fpc*v/fm) / den
	if sh == 0 || sh == sy {
		err = max(err, 3*scale/den)
	}
	return conf, err
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
		mix(uint64(edgeKey(st.R, st.Inverse)) + 1)
	}
	return h
}

// predict returns the candidates the rule gives for a query: the tails of
// (e, Head, ?) when tail is true, else the heads of (?, Head, e), never e
// itself (object identity). An acyclic rule with a constant in its body
// answers both ways: r(X, c) <= b(X, d) gives c for (x, r, ?) when b(x, d)
// holds, and every such x for (?, r, c). The result may alias buf.
func (r *Rule) predict(g *Graph, e int32, tail bool, sc *scratch, buf []int32) []int32 {
	switch r.Kind {
	case Cyclic:
		if tail {
			return g.walk(e, r.Body, sc, buf)
		}
		return g.walk(e, r.reversed(), sc, buf)
	}
	if r.ConstTail != tail {
		// The query gives the head's constant and asks for its variable:
		// r(X, c) <= b(X, d) answers (?, r, c) with every X that reaches
		// d. (The other kinds would answer with nearly every entity.)
		if r.Kind != AcyclicConst || e != r.C {
			return buf[:0]
		}
		out := g.walk(r.D, r.reversed(), sc, buf)
		return slices.DeleteFunc(out, func(v int32) bool { return v == r.C })
	}
	if e == r.C {
		return buf[:0]
	}
	switch r.Kind {
	case AcyclicConst:
		if e == r.D {
			return buf[:0]
		}
		if _, ok := slices.BinarySearch(g.Step(e, r.Body[0].R, r.Body[0].Inverse), r.D); ok {
			return append(buf[:0], r.C)
		}
		return buf[:0]
	case AcyclicAny:
		if hasOther(g.Step(e, r.Body[0].R, r.Body[0].Inverse), e) {
			return append(buf[:0], r.C)
		}
		return buf[:0]
	}
	return append(buf[:0], r.C)
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
