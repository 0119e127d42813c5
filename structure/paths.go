package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pathrule"
	"github.com/hinge-srl/hinge/store"
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

// Candidate is a generated clause: a path-constrained clause, its negation,
// or a target's negative prior.
type Candidate struct {
	// Target is the head predicate.
	Target *model.Predicate
	// Path is the body, from the head's first argument to its second; empty
	// for a prior.
	Path []Step
	// Negated: the head is negated (the clause's negation, or the prior).
	Negated bool
	// Support is the number of distinct true target atoms whose endpoints
	// the path connects in the observed data (0 for a prior).
	Support int
	// Groundings is the number of substitutions of the body over the atoms
	// that are targets or observed above 0: what grounding the clause
	// enumerates (0 for a prior, which has one grounding per target atom).
	Groundings float64
}

// IsPrior reports whether c is a target's negative prior !t(A, B).
func (c *Candidate) IsPrior() bool { return len(c.Path) == 0 }

// Text is the clause in the rule language, without weight:
// "p1(E1, E2) & p2(E3, E2) -> t(E1, E3)", or "!t(A, B)" for a prior.
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
			switch pos {
			case st.From:
				fmt.Fprintf(&b, "E%d", i+1)
			case st.To:
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
	fmt.Fprintf(&b, "%s(E1, E%d)", c.Target.Name, len(c.Path)+1)
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
	// Threads searching target atoms in parallel; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Threads int
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
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return nil
}

// GenResult is the outcome of Generate.
type GenResult struct {
	// Candidates: for each target predicate its negative prior, then the
	// kept path clauses by decreasing support (ties by clause text), each
	// clause followed by its negation.
	Candidates []Candidate
	// Paths is the number of distinct variablized paths found (before
	// MinSupport and MaxClauses); Supported of them reach MinSupport.
	Paths, Supported int
	// Edges is the number of observed atoms walked (value >= 0.5, arity
	// >= 2), Examples the number of true target atoms searched from.
	Edges, Examples int
	// Capped counts target atoms whose search hit MaxExpansions.
	Capped int
	// TooLarge counts supported paths skipped for MaxGroundings (only
	// paths considered before MaxClauses was reached are counted).
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
// backwards. A symmetric binary relation keeps one triple per pair and is
// walked forwards only: both directions read as the forward step.
type graph struct {
	pg    *pathrule.Graph
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

func newGraph(s *store.Store, exclude []*model.Predicate) *graph {
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
				continue // its reverse is there: one triple per pair
			}
			ts = append(ts, pathrule.Triple{H: a, R: int32(r), T: b})
		}
	}
	g.pg = pathrule.NewGraph(ts, s.Dict.Len(), len(g.rels))
	return g
}

// canon is the step key of walking edge key k: a symmetric relation's
// backward step reads as its forward step.
func (g *graph) canon(k int32) int32 {
	if k&1 == 1 && g.sym[k>>1] {
		return k - 1
	}
	return k
}

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

// sig is a variablized path: its steps and the target.
type sig struct {
	target int32
	n      uint8
	st     [MaxPathLength]int32
}

// searcher finds the paths from one target atom; one per worker.
type searcher struct {
	g        *graph
	maxLen   int
	cap      int
	headStep int32 // the step that is the head itself (t forwards), excluded as a length-1 path
	seen     map[sig]struct{}
	onPath   []bool
	cur      sig
	ends     []end // the last steps into b, by entity
	expanded int
	capped   bool
}

// end is a last step of a path: from X into the target's second constant.
type end struct{ x, step int32 }

// search records in s.seen every distinct path of length 1..maxLen from a
// to b through distinct constants.
func (s *searcher) search(a, b int32) {
	clear(s.seen)
	pg := s.g.pg
	s.ends = s.ends[:0]
	for i := range pg.Degree(b) {
		e := pg.EdgeAt(b, i)
		// b -> x by this edge: x -> b walks it the other way.
		back := pathrule.Step{R: e.R, Inverse: !e.Inverse}.Key()
		s.ends = append(s.ends, end{e.To, s.g.canon(back)})
	}
	slices.SortFunc(s.ends, func(p, q end) int { return cmp.Or(cmp.Compare(p.x, q.x), cmp.Compare(p.step, q.step)) })
	s.ends = slices.Compact(s.ends)
	s.expanded, s.capped = 0, false
	s.onPath[a], s.onPath[b] = true, true
	s.cur.n = 0
	s.walk(a)
	s.onPath[a], s.onPath[b] = false, false
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
		if s.onPath[y] {
			continue
		}
		if s.expanded >= s.cap {
			s.capped = true
			return
		}
		s.expanded++
		s.onPath[y] = true
		s.cur.st[d] = s.g.canon(pathrule.Step{R: e.R, Inverse: e.Inverse}.Key())
		s.cur.n = uint8(d + 1)
		s.walk(y)
		s.cur.n = uint8(d)
		s.onPath[y] = false
		if s.capped {
			return
		}
	}
}

// Generate finds the path-constrained clauses (Embar et al., definitions 1-3)
// of each target predicate in the store's data: for every true target atom
// t(a, b) (truth value >= 0.5) every path of observed atoms (value >= 0.5)
// of length 1..MaxLength from a to b through distinct constants, each atom
// walked in either direction. Each distinct sequence of steps is variablized
// into p1(E1, E2) & ... & ps(Es, Es+1) -> t(E1, Es+1); its support is the
// number of target atoms it connects. Paths with support >= MinSupport are
// kept, best supported first, up to MaxClauses clauses per target; each gives the
// clause and its negation. Every target predicate also gets the negative
// prior !t(A, B). Target predicates must be binary.
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
	g := newGraph(s, opt.Exclude)
	res := &GenResult{Edges: len(g.pg.Triples)}
	type example struct {
		target int
		a, b   int32
	}
	var examples []example
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
				examples = append(examples, example{ti, tt.Arg(row, 0), tt.Arg(row, 1)})
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("target %s: %w (its truth atoms are all below 0.5, or it has none): nothing to learn paths from", t, ErrNoExamples)
		}
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
		capped int
	}
	tallies := make([]tally, opt.Threads)
	par.For((len(examples)+chunk-1)/chunk, opt.Threads, func(w, c int) {
		if ctx.Err() != nil {
			return
		}
		tl := &tallies[w]
		if tl.sr == nil {
			tl.sr = &searcher{g: g, maxLen: opt.MaxLength, cap: opt.MaxExpansions, seen: map[sig]struct{}{}, onPath: make([]bool, nodes)}
			tl.counts = map[sig]int{}
		}
		for _, ex := range examples[c*chunk : min((c+1)*chunk, len(examples))] {
			tl.sr.headStep = g.headStep(targets[ex.target])
			tl.sr.search(ex.a, ex.b)
			if tl.sr.capped {
				tl.capped++
			}
			for k := range tl.sr.seen {
				k.target = int32(ex.target)
				tl.counts[k]++
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts := map[sig]int{}
	capped := 0
	for _, tl := range tallies {
		for k, c := range tl.counts {
			counts[k] += c
		}
		capped += tl.capped
	}
	res.Capped = capped
	res.Paths = len(counts)

	var kept []Candidate
	for k, c := range counts {
		if c < opt.MinSupport {
			continue
		}
		path := make([]Step, k.n)
		for i := range path {
			path[i] = g.steps[k.st[i]]
		}
		kept = append(kept, Candidate{Target: targets[k.target], Path: path, Support: c})
	}
	res.Supported = len(kept)
	texts := make([]string, len(kept))
	order := make([]int, len(kept))
	for i := range kept {
		texts[i], order[i] = kept[i].Text(), i
	}
	slices.SortFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(kept[y].Support, kept[x].Support), cmp.Compare(texts[x], texts[y]))
	})
	for _, t := range targets {
		res.Candidates = append(res.Candidates, Candidate{Target: t, Negated: true})
	}
	gc := newGroundCounter(s)
	perTarget := map[*model.Predicate]int{}
	for _, i := range order {
		c := kept[i]
		if opt.MaxClauses >= 0 && perTarget[c.Target]+2 > opt.MaxClauses {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.Groundings = gc.count(c.Path)
		if opt.MaxGroundings >= 0 && c.Groundings > opt.MaxGroundings {
			res.TooLarge++
			continue
		}
		neg := c
		neg.Negated = true
		res.Candidates = append(res.Candidates, c, neg)
		perTarget[c.Target] += 2
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// groundCounter counts the substitutions of a path clause's body over the
// rows a grounder enumerates: targets and atoms observed above 0.
type groundCounter struct {
	s    *store.Store
	v, w []float64
}

func newGroundCounter(s *store.Store) *groundCounter {
	n := s.Dict.Len()
	return &groundCounter{s: s, v: make([]float64, n), w: make([]float64, n)}
}

// count returns 1^T A_1 ... A_s 1 for the path's steps, A_i counting the
// rows of p_i that link two constants in the step's direction (a row of a
// predicate of arity 3 or more counts once per value of its other
// arguments, as the clause's fresh variables do).
func (gc *groundCounter) count(path []Step) float64 {
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
	sum := 0.0
	for _, x := range gc.v {
		sum += x
	}
	return sum
}
