package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pathrule"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// MaxPathLength is the longest path GenOptions.MaxLength may ask for.
const MaxPathLength = 6

// Step is one atom of a relational path, walked from argument position
// From to argument position To of Pred. For a binary predicate (0, 1) is
// the atom read forwards and (1, 0) its inverse, written as the original
// predicate with its arguments swapped. A predicate of arity 3 or more is
// walked through any ordered pair of its positions; its other positions
// become fresh variables of the clause (see the package documentation).
type Step struct {
	Pred     *model.Predicate
	From, To int
}

// Candidate is a generated clause: a path-constrained clause, a rule with
// constants, the negation of either, or a target's negative prior.
type Candidate struct {
	// Target is the head predicate.
	Target *model.Predicate
	// Path is the body, from the head's first argument to its second; empty
	// for a prior. A rule with constants has one step, from the head's
	// variable to the constant D.
	Path []Step
	// C and D are the constants of a rule with constants (both empty for
	// the other candidates): its head is Target(E1, 'C'), or Target('C', E1)
	// when ConstFirst, and its body Path[0] from E1 to 'D'.
	C, D       string
	ConstFirst bool
	// Negated: the head is negated (the clause's negation, or the prior).
	Negated bool
	// Support is the number of distinct true target atoms whose endpoints
	// the path connects in the observed data (for a rule with constants,
	// the true atoms of its head whose variable the body links to D; 0 for
	// a prior): exact, or estimated when SupportErr > 0.
	Support int
	// Groundings is the number of substitutions of the body over the atoms
	// that are targets or observed above 0: what grounding the clause
	// enumerates (0 for a prior, which has one grounding per target atom).
	Groundings float64
	// Body is the number of body groundings under object identity: the
	// distinct (E1, Es+1) pairs the path connects through distinct
	// constants (for a rule with constants, the distinct values of E1 but
	// C), and Conf is Support / (Body + GenOptions.PC), both counted by
	// package pathrule (0 for a prior, and for a path longer than
	// pathrule.MaxWalk, which pathrule does not walk: a sampled target's
	// support of such a path is the share of the atoms drawn it was found
	// for, scaled, with that share's interval). When Sampled > 0 they are estimated
	// from that many sampled values of E1, and ConfErr is the half-width
	// of Conf's 95% interval.
	Body    int
	Conf    float64
	Sampled int
	ConfErr float64
	// SupportErr is the half-width of Support's 95% interval when Support
	// is an estimate (a target whose true atoms were sampled), else 0.
	SupportErr float64
}

// IsPrior reports whether c is a target's negative prior !t(A, B).
func (c *Candidate) IsPrior() bool { return len(c.Path) == 0 }

// HasConstants reports whether c is a rule with constants.
func (c *Candidate) HasConstants() bool { return c.C != "" }

// Text is the clause in the rule language, without weight:
// "p1(E1, E2) & p2(E3, E2) -> t(E1, E3)", "p(E1, 'd') -> t(E1, 'c')" for
// a rule with constants, or "!t(A, B)" for a prior.
func (c *Candidate) Text() string {
	if c.IsPrior() {
		return "!" + c.Target.Name + "(A, B)"
	}
	var b strings.Builder
	fresh := 0
	for i, st := range c.Path {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString(st.Pred.Name)
		b.WriteByte('(')
		for pos := range st.Pred.Arity {
			if pos > 0 {
				b.WriteString(", ")
			}
			switch {
			case pos == st.From:
				fmt.Fprintf(&b, "E%d", i+1)
			case pos == st.To && c.HasConstants():
				b.WriteString(syntax.Quote(c.D))
			case pos == st.To:
				fmt.Fprintf(&b, "E%d", i+2)
			default:
				fresh++
				fmt.Fprintf(&b, "Z%d", fresh)
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(" -> ")
	if c.Negated {
		b.WriteByte('!')
	}
	switch {
	case !c.HasConstants():
		fmt.Fprintf(&b, "%s(E1, E%d)", c.Target.Name, len(c.Path)+1)
	case c.ConstFirst:
		fmt.Fprintf(&b, "%s(%s, E1)", c.Target.Name, syntax.Quote(c.C))
	default:
		fmt.Fprintf(&b, "%s(E1, %s)", c.Target.Name, syntax.Quote(c.C))
	}
	return b.String()
}

// GenOptions configure Generate. Zero values take the defaults.
type GenOptions struct {
	// MaxLength is the longest path (the BFS depth s; default 3, at most
	// MaxPathLength).
	MaxLength int
	// MinSupport drops paths connecting fewer true target atoms (default
	// 10; a negative value keeps every path).
	MinSupport int
	// MaxClauses keeps the clauses of the best-supported paths, at most
	// this many clauses per target predicate (a path gives two: the clause
	// and its negation); default 50, negative for all. Priors are not
	// counted.
	MaxClauses int
	// MaxExpansions caps the search from one target atom: after this many
	// path extensions it stops (deterministically, in the order of the
	// adjacency lists) and the atom is counted in GenResult.Capped. Default
	// 10^6.
	MaxExpansions int
	// MaxGroundings skips paths whose body has more substitutions than this
	// over the atoms that are targets or observed above 0 (computed exactly
	// by sparse products of the relations' adjacency matrices before any
	// grounding): such a clause would take more memory to ground than it is
	// likely worth. Default 2,000,000; negative for no limit.
	MaxGroundings float64
	// Exclude lists predicates whose atoms are not walked (for example a
	// blocking predicate true for every pair, which connects everything and
	// says nothing).
	Exclude []*model.Predicate
	// Constants, when > 0, also generates rules with constants, p(E1, 'd')
	// -> t(E1, 'c') and p(E1, 'd') -> t('c', E1) (one body atom, either
	// direction), from the neighbours of the true target atoms searched:
	// those with support >= MinSupport, the best supported first, up to
	// this many clauses per target (each rule and its negation), besides
	// MaxClauses. 0: none.
	Constants int
	// ConstMinSupport replaces MinSupport for rules with constants (0:
	// MinSupport): such a rule speaks of one constant, so its support is
	// that constant's share of the target, often below what a path needs.
	ConstMinSupport int
	// Sample bounds the counting on large data, as package kgc does. A
	// target with more true atoms than Sample is searched from Sample of
	// them, drawn with Seed, and the support of the paths (and rules with
	// constants) found is counted over all its true atoms by package
	// pathrule, the best first until no path left could enter the kept
	// ones (at 95%); each kept clause's body groundings and confidence are
	// counted by pathrule too, from at most Sample sampled values of E1
	// when its first step has more. 0: 1,000; negative: every atom
	// searched and every count exact.
	Sample int
	// SampleErr stops drawing values of E1 for a count once the
	// confidence's 95% interval is that narrow (0: 0.01; negative: draw
	// Sample). Work bounds the edges one sampled count looks at (0:
	// 2,000,000; negative: no bound).
	SampleErr float64
	Work      int64
	// PC smooths confidences: support / (body + PC) (0: 5, as package
	// kgc).
	PC float64
	// Seed seeds the draws.
	Seed uint64
	// Threads searching target atoms in parallel; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Threads int
	// Progress, if set, is called with the number of true target atoms
	// searched so far and to search (calls are serialised).
	Progress func(done, total int)
}

func (o *GenOptions) defaults() error {
	if o.MaxLength == 0 {
		o.MaxLength = 3
	}
	if o.MaxLength < 1 || o.MaxLength > MaxPathLength {
		return fmt.Errorf("path length %d: must be between 1 and %d", o.MaxLength, MaxPathLength)
	}
	if o.MinSupport == 0 {
		o.MinSupport = 10
	}
	if o.MaxClauses == 0 {
		o.MaxClauses = 50
	}
	if o.MaxGroundings == 0 {
		o.MaxGroundings = 2_000_000
	}
	if o.MaxExpansions == 0 {
		o.MaxExpansions = 1_000_000
	}
	if o.MaxExpansions < 0 {
		return fmt.Errorf("expansion cap %d: must be > 0", o.MaxExpansions)
	}
	if o.Constants < 0 {
		return fmt.Errorf("constants %d: must be >= 0", o.Constants)
	}
	if o.ConstMinSupport == 0 {
		o.ConstMinSupport = o.MinSupport
	}
	if o.PC < 0 { // SetDefaults would read it as no smoothing
		return fmt.Errorf("pc %v: must be a finite number > 0", o.PC)
	}
	pathrule.SetDefaults(&o.PC, &o.Sample, &o.SampleErr, &o.Work)
	if math.IsNaN(o.SampleErr) || math.IsInf(o.SampleErr, 0) {
		return fmt.Errorf("sample error %v: must be a number", o.SampleErr)
	}
	if !(o.PC > 0) || math.IsInf(o.PC, 0) {
		return fmt.Errorf("pc %v: must be a finite number > 0", o.PC)
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return nil
}

// GenResult is the outcome of Generate.
type GenResult struct {
	// Candidates: for each target predicate its negative prior, then the
	// kept path clauses by decreasing support (ties by clause text), each
	// clause followed by its negation, then the kept rules with constants
	// in the same way.
	Candidates []Candidate
	// Paths is the number of distinct variablized paths found (before
	// MinSupport and MaxClauses); Supported of them reach MinSupport (for
	// a sampled target, among those counted).
	Paths, Supported int
	// Constants is the number of distinct rules with constants found,
	// ConstSupported of them reaching ConstMinSupport
	// (GenOptions.Constants > 0).
	Constants, ConstSupported int
	// Edges is the number of observed atoms walked (value >= 0.5, arity
	// >= 2), Examples the number of true target atoms searched from.
	Edges, Examples int
	// SampledTargets is the number of targets whose true atoms were
	// sampled (more than GenOptions.Sample); Counted the paths and rules
	// with constants of those targets whose support was counted over all
	// their true atoms. SampledCounts is the number of kept clauses whose
	// confidence was estimated from sampled values of E1, MaxErr the
	// widest half-width of a kept clause's 95% interval of support (in
	// true atoms).
	SampledTargets, Counted, SampledCounts int
	MaxErr                                 float64
	// Capped counts target atoms whose search hit MaxExpansions.
	Capped int
	// TooLarge counts supported paths (and rules with constants) skipped
	// for MaxGroundings (only those considered before MaxClauses, or
	// Constants, was reached are counted).
	TooLarge int
	// Seconds is the time Generate took.
	Seconds float64
}

// ErrNoExamples is returned (wrapped) when a target predicate has no true
// truth atom to generate paths from.
var ErrNoExamples = errors.New("no true target atoms")

// graph is the observed data as a pathrule.Graph over constants: every
// unordered pair of argument positions (i < j) of a predicate of arity >= 2
// is a relation, an observed atom (value >= 0.5) its triple (arg_i, arg_j),
// so that a step from position i to j walks it forwards and from j to i
// backwards. A symmetric binary relation is walked forwards only, and both
// directions read as the forward step: the graph holds each of its pairs
// both ways. heads holds the true atoms (truth >= 0.5) of the targets, the
// target's index its relation: the heads pathrule counts against.
type graph struct {
	pg    *pathrule.Graph
	heads *pathrule.Graph
	edges int               // observed atoms walked, a symmetric pair once
	rels  []relPair         // by relation
	relOf map[relPair]int32 // (pred, i, j), i < j
	sym   []bool            // by relation: symmetric binary, walked forwards only
	steps map[int32]Step    // by step key: the Step it walks
	keyOf map[Step]int32    // the step key of a Step (canonical)
}

// relPair is a predicate's pair of argument positions, I < J.
type relPair struct {
	pred *model.Predicate
	i, j int
}

func newGraph(s *store.Store, exclude, targets []*model.Predicate) *graph {
	g := &graph{relOf: map[relPair]int32{}, steps: map[int32]Step{}, keyOf: map[Step]int32{}}
	for _, p := range s.Model.Predicates {
		if p.Arity < 2 || slices.Contains(exclude, p) {
			continue
		}
		sym := p.Arity == 2 && symmetric(s.Table(p))
		for i := range p.Arity {
			for j := i + 1; j < p.Arity; j++ {
				rp := relPair{p, i, j}
				r := int32(len(g.rels))
				g.relOf[rp] = r
				g.rels = append(g.rels, rp)
				g.sym = append(g.sym, sym)
				fwd, inv := pathrule.Step{R: r}.Key(), pathrule.Step{R: r, Inverse: true}.Key()
				g.steps[fwd], g.keyOf[Step{p, i, j}] = Step{p, i, j}, fwd
				if sym {
					g.keyOf[Step{p, j, i}] = fwd
				} else {
					g.steps[inv], g.keyOf[Step{p, j, i}] = Step{p, j, i}, inv
				}
			}
		}
	}
	var ts []pathrule.Triple
	for r, rp := range g.rels {
		t := s.Table(rp.pred)
		for row := range t.Len() {
			if t.Kind(row) != store.Observed || t.Value(row) < 0.5 {
				continue
			}
			a, b := t.Arg(row, rp.i), t.Arg(row, rp.j)
			if g.sym[r] && a > b {
				continue // its reverse is there: counted once, added both ways below
			}
			g.edges++
			ts = append(ts, pathrule.Triple{H: a, R: int32(r), T: b})
			if g.sym[r] && a != b {
				ts = append(ts, pathrule.Triple{H: b, R: int32(r), T: a})
			}
		}
	}
	n := s.Dict.Len()
	g.pg = pathrule.NewGraph(ts, n, len(g.rels))
	var hs []pathrule.Triple
	for ti, t := range targets {
		tt := s.Truth(t)
		for row := range tt.Len() {
			if tt.Value(row) >= 0.5 {
				hs = append(hs, pathrule.Triple{H: tt.Arg(row, 0), R: int32(ti), T: tt.Arg(row, 1)})
			}
		}
	}
	g.heads = pathrule.NewGraph(hs, n, len(targets))
	return g
}

// walked reports whether the search follows edge key k: a symmetric
// relation's backward edges double its forward ones and are skipped.
func (g *graph) walked(k int32) bool { return k&1 == 0 || !g.sym[k>>1] }

// symmetric reports whether a binary relation reads the same both ways in
// what grounding uses: every observed atom above 0 has its reverse observed
// above 0, and every target its reverse as a target (values aside).
func symmetric(t *store.Table) bool {
	n := 0
	for row := range t.Len() {
		k := t.Kind(row)
		if k == store.Observed && t.Value(row) <= 0 {
			continue
		}
		a, b := t.Arg(row, 0), t.Arg(row, 1)
		r, ok := t.Find([]int32{b, a})
		if !ok || t.Kind(r) != k || (k == store.Observed && t.Value(r) <= 0) {
			return false
		}
		if a != b {
			n++
		}
	}
	return n > 0
}

// headStep is the step key that walks target t forwards (the head itself
// as a path), or -1 when t is not walked (excluded).
func (g *graph) headStep(t *model.Predicate) int32 {
	if k, ok := g.keyOf[Step{t, 0, 1}]; ok {
		return k
	}
	return -1
}

// body is the path of sig as pathrule steps.
func (k sig) body() []pathrule.Step {
	out := make([]pathrule.Step, k.n)
	for i := range out {
		out[i] = pathrule.StepOf(k.st[i])
	}
	return out
}

// sig is a variablized path: its steps and the target.
type sig struct {
	target int32
	n      uint8
	st     [MaxPathLength]int32
}

// hash mixes sig into a seed stream (a count's draws depend on the path,
// not on the worker counting it).
func (k sig) hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	mix(uint64(uint32(k.target)))
	for _, st := range k.st[:k.n] {
		mix(uint64(uint32(st)) + 1)
	}
	return h
}

// compare orders sigs by target, length and steps.
func (k sig) compare(o sig) int {
	return cmp.Or(cmp.Compare(k.target, o.target), cmp.Compare(k.n, o.n), slices.Compare(k.st[:], o.st[:]))
}

// constKey is a rule with constants: target(X, c) <= step(X, d), or
// target(c, X) when first.
type constKey struct {
	target int32
	first  bool
	c, d   int32
	step   int32
}

func (k constKey) compare(o constKey) int {
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	return cmp.Or(cmp.Compare(k.target, o.target), cmp.Compare(b(k.first), b(o.first)), cmp.Compare(k.c, o.c), cmp.Compare(k.d, o.d), cmp.Compare(k.step, o.step))
}

// searcher finds the paths from one target atom; one per worker.
type searcher struct {
	g        *graph
	maxLen   int
	cap      int
	consts   bool  // also collect rules with constants
	target   int32 // the target searched for
	headStep int32 // the step that is the head itself (t forwards), excluded as a length-1 path
	seen     map[sig]struct{}
	cseen    []constKey
	onPath   []bool
	cur      sig
	ends     []end // the last steps into b, by entity
	expanded int
	capped   bool
}

// end is a last step of a path: from X into the target's second constant.
type end struct{ x, step int32 }

// search records in s.seen every distinct path of length 1..maxLen from a
// to b through distinct constants, and in s.cseen (with consts) the rules
// with constants t(a, b) instantiates: a step from a to some d other than
// a and b gives t(X, b) <= step(X, d), a step from b to such a d t(a, X)
// <= step(X, d).
func (s *searcher) search(a, b int32) {
	clear(s.seen)
	pg := s.g.pg
	s.ends = s.ends[:0]
	for i := range pg.Degree(b) {
		e := pg.EdgeAt(b, i)
		// b -> x by this edge: x -> b walks it the other way.
		back := pathrule.Step{R: e.R, Inverse: !e.Inverse}.Key()
		if s.g.walked(back) {
			s.ends = append(s.ends, end{e.To, back})
		}
	}
	slices.SortFunc(s.ends, func(p, q end) int { return cmp.Or(cmp.Compare(p.x, q.x), cmp.Compare(p.step, q.step)) })
	s.ends = slices.Compact(s.ends)
	s.expanded, s.capped = 0, false
	s.onPath[a], s.onPath[b] = true, true
	s.cur.n = 0
	s.walk(a)
	s.onPath[a], s.onPath[b] = false, false
	s.cseen = s.cseen[:0]
	if s.consts {
		for _, side := range [2]struct {
			v, c  int32
			first bool
		}{{a, b, false}, {b, a, true}} {
			for i := range pg.Degree(side.v) {
				e := pg.EdgeAt(side.v, i)
				k := pathrule.Step{R: e.R, Inverse: e.Inverse}.Key()
				if e.To == a || e.To == b || !s.g.walked(k) {
					continue
				}
				s.cseen = append(s.cseen, constKey{target: s.target, first: side.first, c: side.c, d: e.To, step: k})
			}
		}
	}
}

func (s *searcher) walk(x int32) {
	d := int(s.cur.n)
	// Paths ending here: x -> b.
	i, _ := slices.BinarySearchFunc(s.ends, x, func(e end, x int32) int { return cmp.Compare(e.x, x) })
	for ; i < len(s.ends) && s.ends[i].x == x; i++ {
		st := s.ends[i].step
		if d == 0 && st == s.headStep {
			continue
		}
		k := s.cur // the key: steps beyond the path's length are zero
		k.st[d] = st
		k.n = uint8(d + 1)
		clear(k.st[d+1:])
		s.seen[k] = struct{}{}
	}
	if d+1 >= s.maxLen {
		return
	}
	pg := s.g.pg
	for j := range pg.Degree(x) {
		e := pg.EdgeAt(x, j)
		y := e.To
		k := pathrule.Step{R: e.R, Inverse: e.Inverse}.Key()
		if s.onPath[y] || !s.g.walked(k) {
			continue
		}
		if s.expanded >= s.cap {
			s.capped = true
			return
		}
		s.expanded++
		s.onPath[y] = true
		s.cur.st[d] = k
		s.cur.n = uint8(d + 1)
		s.walk(y)
		s.cur.n = uint8(d)
		s.onPath[y] = false
		if s.capped {
			return
		}
	}
}

// upperSupport is a 95% upper bound of the support of a clause found for
// k of m true atoms drawn from n: the normal bound of the proportion with
// the finite-population correction, plus the rule of three's 3/m.
func upperSupport(k, m, n int) float64 {
	p, fm := float64(k)/float64(m), float64(m)
	return float64(n) * (p + 1.96*math.Sqrt(p*(1-p)*(1-fm/float64(n))/fm) + 3/fm)
}

// sampleSupport estimates the support of a clause found for k of m true
// atoms drawn from n as n k / m, with the normal 95% interval of the
// proportion (finite-population corrected), at least the rule of three's
// 3n/m when k is 0 or m.
func sampleSupport(k, m, n int) pathrule.Count {
	p, fm, fn := float64(k)/float64(m), float64(m), float64(n)
	err := 1.96 * fn * math.Sqrt(p*(1-p)*(1-fm/fn)/fm)
	if k == 0 || k == m {
		err = max(err, 3*fn/fm)
	}
	return pathrule.Count{Support: int(math.Round(fn * p)), SupportErr: err}
}

// countBatch is the number of paths of a sampled target counted between
// two checks of whether the rest could still enter the kept ones.
const countBatch = 32

// counted is a clause counted over all true atoms of its target.
type counted struct {
	c     pathrule.Count
	exact bool // support from the search of every true atom
}

// Generate finds the path-constrained clauses (Embar et al., definitions 1-3)
// of each target predicate in the store's data: for every true target atom
// t(a, b) (truth value >= 0.5, a != b) every path of observed atoms (value
// >= 0.5) of length 1..MaxLength from a to b through distinct constants,
// each atom walked in either direction. Each distinct sequence of steps is
// variablized into p1(E1, E2) & ... & ps(Es, Es+1) -> t(E1, Es+1); its
// support is the number of target atoms it connects. Paths with support >=
// MinSupport are kept, best supported first, up to MaxClauses clauses per
// target; each gives the clause and its negation. With Constants, rules
// with constants are kept the same way. Every target predicate also gets
// the negative prior !t(A, B). Target predicates must be binary.
//
// Supports are exact from the search of every true atom, or for a target
// with more true atoms than Sample estimated by package pathrule after
// searching a sample of them (see GenOptions.Sample); the kept clauses'
// body groundings and confidences are pathrule's counts.
func Generate(ctx context.Context, s *store.Store, targets []*model.Predicate, opt GenOptions) (*GenResult, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, errors.New("no target predicates")
	}
	type example struct {
		target int
		a, b   int32
	}
	pop := make([][]example, len(targets)) // the true atoms searchable, by target
	for ti, t := range targets {
		if t.Arity != 2 {
			return nil, fmt.Errorf("target %s: structure learning generates clauses for binary target predicates only", t)
		}
		if slices.Index(targets, t) != ti {
			return nil, fmt.Errorf("target %s is given twice", t)
		}
		n := 0
		tt := s.Truth(t)
		for row := range tt.Len() {
			if tt.Value(row) >= 0.5 {
				n++
				// t(a, a) has no path under object identity.
				if a, b := tt.Arg(row, 0), tt.Arg(row, 1); a != b {
					pop[ti] = append(pop[ti], example{ti, a, b})
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("target %s: %w (its truth atoms are all below 0.5, or it has none): nothing to learn paths from", t, ErrNoExamples)
		}
	}
	g := newGraph(s, opt.Exclude, targets)
	res := &GenResult{Edges: g.edges}
	sampled := make([]bool, len(targets))
	drawn := make([]int, len(targets))
	var examples []example
	for ti, exs := range pop {
		if opt.Sample > 0 && len(exs) > opt.Sample {
			// A partial Fisher-Yates shuffle: opt.Sample atoms drawn
			// without replacement, the same for every number of threads.
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(ti)))
			exs = slices.Clone(exs)
			for i := range opt.Sample {
				j := i + rng.IntN(len(exs)-i)
				exs[i], exs[j] = exs[j], exs[i]
			}
			exs = exs[:opt.Sample]
			sampled[ti] = true
			res.SampledTargets++
		}
		drawn[ti] = len(exs)
		examples = append(examples, exs...)
	}
	res.Examples = len(examples)

	// Workers take examples in fixed chunks and count each distinct path
	// once per example into their own tallies; counts are sums, so the
	// result does not depend on the number of workers or the schedule.
	const chunk = 64
	nodes := s.Dict.Len()
	type tally struct {
		sr     *searcher
		counts map[sig]int
		consts map[constKey]int
		capped int
	}
	tallies := make([]tally, opt.Threads)
	var (
		mu   sync.Mutex
		done int
	)
	par.For((len(examples)+chunk-1)/chunk, opt.Threads, func(w, c int) {
		if ctx.Err() != nil {
			return
		}
		tl := &tallies[w]
		if tl.sr == nil {
			tl.sr = &searcher{g: g, maxLen: opt.MaxLength, cap: opt.MaxExpansions, consts: opt.Constants > 0, seen: map[sig]struct{}{}, onPath: make([]bool, nodes)}
			tl.counts, tl.consts = map[sig]int{}, map[constKey]int{}
		}
		exs := examples[c*chunk : min((c+1)*chunk, len(examples))]
		for _, ex := range exs {
			tl.sr.target = int32(ex.target)
			tl.sr.headStep = g.headStep(targets[ex.target])
			tl.sr.search(ex.a, ex.b)
			if tl.sr.capped {
				tl.capped++
			}
			for k := range tl.sr.seen {
				k.target = int32(ex.target)
				tl.counts[k]++
			}
			for _, k := range tl.sr.cseen {
				tl.consts[k]++
			}
		}
		if opt.Progress != nil {
			mu.Lock()
			done += len(exs)
			opt.Progress(done, len(examples))
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts := map[sig]int{}
	cCounts := map[constKey]int{}
	for _, tl := range tallies {
		for k, c := range tl.counts {
			counts[k] += c
		}
		for k, c := range tl.consts {
			cCounts[k] += c
		}
		res.Capped += tl.capped
	}
	res.Paths, res.Constants = len(counts), len(cCounts)

	// Counting with package pathrule, one walker per worker.
	walkers := make([]*pathrule.Walker, opt.Threads)
	walker := func(w int) *pathrule.Walker {
		if walkers[w] == nil {
			walkers[w] = pathrule.NewWalker(g.pg)
		}
		return walkers[w]
	}
	co := pathrule.CountOptions{PC: opt.PC, Sample: opt.Sample, Err: opt.SampleErr, Work: opt.Work, Seed: opt.Seed, Heads: g.heads}
	countPath := func(w int, k sig) pathrule.Count { return walker(w).CountPath(k.target, k.body(), co, k.hash()) }
	countConst := func(w int, k constKey) pathrule.Count {
		return walker(w).CountConst(k.target, k.c, !k.first, []pathrule.Step{pathrule.StepOf(k.step)}, k.d, co)
	}

	// Supports: exact from the search where every true atom was searched;
	// for a sampled target, counted over all its true atoms by pathrule,
	// the clauses found most often in the sample first, until none left
	// could enter the kept ones.
	nTrue := make([]int, len(targets))
	for ti := range pop {
		nTrue[ti] = len(pop[ti])
	}
	pathCounts, err := supports(ctx, counts, sampled, drawn, nTrue, opt, opt.MaxClauses, func(k sig) int { return int(k.target) }, sig.compare,
		func(k sig) bool { return int(k.n) <= pathrule.MaxWalk }, countPath)
	if err != nil {
		return nil, err
	}
	constCounts := map[constKey]*counted{}
	if opt.Constants > 0 {
		copt := opt
		copt.MinSupport = opt.ConstMinSupport
		if constCounts, err = supports(ctx, cCounts, sampled, drawn, nTrue, copt, opt.Constants, func(k constKey) int { return int(k.target) }, constKey.compare,
			func(constKey) bool { return true }, countConst); err != nil {
			return nil, err
		}
	}
	for _, c := range pathCounts {
		if !c.exact {
			res.Counted++
		}
	}
	for _, c := range constCounts {
		if !c.exact {
			res.Counted++
		}
	}

	gc := newGroundCounter(s)
	for _, t := range targets {
		res.Candidates = append(res.Candidates, Candidate{Target: t, Negated: true})
	}
	// Paths, then rules with constants: the supported ones by decreasing
	// support (ties by text), up to the cap of each target.
	type keptPath struct {
		c   Candidate
		k   sig
		cnt *counted
	}
	var kept []keptPath
	for k, cnt := range pathCounts {
		if cnt.c.Support < opt.MinSupport {
			continue
		}
		path := make([]Step, k.n)
		for i := range path {
			path[i] = g.steps[k.st[i]]
		}
		kept = append(kept, keptPath{Candidate{Target: targets[k.target], Path: path, Support: cnt.c.Support}, k, cnt})
	}
	res.Supported = len(kept)
	sortCands(kept, func(p *keptPath) *Candidate { return &p.c })
	perTarget := map[*model.Predicate]int{}
	var selected []keptPath
	for _, kp := range kept {
		c := kp.c
		if opt.MaxClauses >= 0 && perTarget[c.Target]+2 > opt.MaxClauses {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.Groundings = gc.count(c.Path, -1)
		if opt.MaxGroundings >= 0 && c.Groundings > opt.MaxGroundings {
			res.TooLarge++
			continue
		}
		kp.c = c
		selected = append(selected, kp)
		perTarget[c.Target] += 2
	}
	// Body groundings and confidence of the kept paths (the sampled
	// targets' counts are done; pathrule walks at most MaxWalk steps).
	par.For(len(selected), opt.Threads, func(w, i int) {
		if kp := &selected[i]; kp.cnt.exact && int(kp.k.n) <= pathrule.MaxWalk && ctx.Err() == nil {
			exact := kp.cnt.c.Support
			kp.cnt.c = countPath(w, kp.k)
			kp.cnt.c.Support, kp.cnt.c.SupportErr = exact, 0
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, kp := range selected {
		c := kp.c
		setCount(&c, kp.cnt.c, res)
		neg := c
		neg.Negated = true
		res.Candidates = append(res.Candidates, c, neg)
	}

	type keptConst struct {
		c   Candidate
		k   constKey
		cnt *counted
	}
	var kc []keptConst
	for k, cnt := range constCounts {
		if cnt.c.Support < opt.ConstMinSupport {
			continue
		}
		st := g.steps[k.step]
		kc = append(kc, keptConst{Candidate{Target: targets[k.target], Path: []Step{st}, C: s.Dict.Name(k.c), D: s.Dict.Name(k.d),
			ConstFirst: k.first, Support: cnt.c.Support}, k, cnt})
	}
	res.ConstSupported = len(kc)
	sortCands(kc, func(p *keptConst) *Candidate { return &p.c })
	perTarget = map[*model.Predicate]int{}
	for _, x := range kc {
		c := x.c
		if perTarget[c.Target]+2 > opt.Constants {
			continue
		}
		c.Groundings = gc.countTo(c.Path[0], x.k.d)
		if opt.MaxGroundings >= 0 && c.Groundings > opt.MaxGroundings {
			res.TooLarge++
			continue
		}
		cnt := x.cnt.c
		if x.cnt.exact {
			cnt = countConst(0, x.k)
		}
		setCount(&c, cnt, res)
		neg := c
		neg.Negated = true
		res.Candidates = append(res.Candidates, c, neg)
		perTarget[c.Target] += 2
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// setCount puts pathrule's count on c and notes a sampled one in res.
func setCount(c *Candidate, cnt pathrule.Count, res *GenResult) {
	c.Body, c.Conf, c.Sampled, c.ConfErr, c.SupportErr = cnt.Body, cnt.Conf, cnt.Sampled, cnt.Err, cnt.SupportErr
	if cnt.Sampled > 0 {
		res.SampledCounts++
	}
	res.MaxErr = max(res.MaxErr, c.SupportErr)
}

// sortCands sorts by decreasing support, ties by clause text.
func sortCands[T any](xs []T, cand func(*T) *Candidate) {
	texts := make([]string, len(xs))
	order := make([]int, len(xs))
	for i := range xs {
		texts[i], order[i] = cand(&xs[i]).Text(), i
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(cand(&xs[j]).Support, cand(&xs[i]).Support), cmp.Compare(texts[i], texts[j]))
	})
	sorted := make([]T, len(xs))
	for i, o := range order {
		sorted[i] = xs[o]
	}
	copy(xs, sorted)
}

// supports gives the support of the clauses found: for a target whose
// every true atom was searched, the number of atoms each was found for
// (exact: it equals pathrule's exact count); for a sampled target, count's,
// over all its true atoms, for the clauses in decreasing order of the
// atoms drawn they were found for, in batches, until the next one's 95%
// upper bound (upperSupport) is below MinSupport or below the counted
// support of capacity clauses (capacity < 0: no such bound). A clause
// count cannot count (a path longer than pathrule.MaxWalk) gets the
// sample's own estimate, sampleSupport.
func supports[K comparable](ctx context.Context, found map[K]int, sampled []bool, drawn, nTrue []int, opt GenOptions, capacity int,
	targetOf func(K) int, compare func(K, K) int, countable func(K) bool, count func(w int, k K) pathrule.Count) (map[K]*counted, error) {
	out := make(map[K]*counted, len(found))
	byTarget := make([][]K, len(sampled))
	for k, n := range found {
		t := targetOf(k)
		if !sampled[t] {
			out[k] = &counted{c: pathrule.Count{Support: n}, exact: true}
			continue
		}
		byTarget[t] = append(byTarget[t], k)
	}
	for t, ks := range byTarget {
		slices.SortFunc(ks, func(a, b K) int { return cmp.Or(cmp.Compare(found[b], found[a]), compare(a, b)) })
		var supp []int // the supports counted, decreasing
		for i := 0; i < len(ks); {
			ub := upperSupport(found[ks[i]], drawn[t], nTrue[t])
			if ub < float64(opt.MinSupport) {
				break
			}
			if capacity >= 0 {
				above, _ := slices.BinarySearchFunc(supp, ub, func(s int, ub float64) int { return cmp.Compare(ub, float64(s)) })
				if above >= capacity {
					break
				}
			}
			batch := ks[i:min(i+countBatch, len(ks))]
			cs := make([]pathrule.Count, len(batch))
			par.For(len(batch), opt.Threads, func(w, j int) {
				switch {
				case ctx.Err() != nil:
				case countable(batch[j]):
					cs[j] = count(w, batch[j])
				default:
					cs[j] = sampleSupport(found[batch[j]], drawn[t], nTrue[t])
				}
			})
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for j, k := range batch {
				out[k] = &counted{c: cs[j]}
				at, _ := slices.BinarySearchFunc(supp, cs[j].Support, func(s, v int) int { return cmp.Compare(v, s) })
				supp = slices.Insert(supp, at, cs[j].Support)
			}
			i += len(batch)
		}
	}
	return out, nil
}

// groundCounter counts the substitutions of a path clause's body over the
// rows a grounder enumerates: targets and atoms observed above 0.
type groundCounter struct {
	s    *store.Store
	v, w []float64
	// into[step][d]: the rows of the step's predicate whose To argument
	// is d (made on first use).
	into map[Step]map[int32]float64
}

// countTo is count([]Step{st}, d) by an index: the rows of st.Pred with d
// in position st.To.
func (gc *groundCounter) countTo(st Step, d int32) float64 {
	if gc.into == nil {
		gc.into = map[Step]map[int32]float64{}
	}
	m, ok := gc.into[st]
	if !ok {
		m = map[int32]float64{}
		t := gc.s.Table(st.Pred)
		for row := range t.Len() {
			if t.Kind(row) == store.Observed && t.Value(row) <= 0 {
				continue
			}
			m[t.Arg(row, st.To)]++
		}
		gc.into[st] = m
	}
	return m[d]
}

func newGroundCounter(s *store.Store) *groundCounter {
	n := s.Dict.Len()
	return &groundCounter{s: s, v: make([]float64, n), w: make([]float64, n)}
}

// count returns 1^T A_1 ... A_s 1 for the path's steps, A_i counting the
// rows of p_i that link two constants in the step's direction (a row of a
// predicate of arity 3 or more counts once per value of its other
// arguments, as the clause's fresh variables do); with end >= 0 only the
// substitutions whose last variable is the constant end (a rule with
// constants): (1^T A_1 ... A_s)_end.
func (gc *groundCounter) count(path []Step, end int32) float64 {
	for i := range gc.v {
		gc.v[i] = 1
	}
	for _, st := range path {
		clear(gc.w)
		t := gc.s.Table(st.Pred)
		for row := range t.Len() {
			if t.Kind(row) == store.Observed && t.Value(row) <= 0 {
				continue
			}
			gc.w[t.Arg(row, st.To)] += gc.v[t.Arg(row, st.From)]
		}
		gc.v, gc.w = gc.w, gc.v
	}
	if end >= 0 {
		return gc.v[end]
	}
	sum := 0.0
	for _, x := range gc.v {
		sum += x
	}
	return sum
}
