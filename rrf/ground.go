package rrf

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// GroundOptions bound the grounding of a relational RRF.
type GroundOptions struct {
	// MaxFeatures bounds the ground features (0: 10 million).
	MaxFeatures int
	// MemoryLimit, when positive, bounds the bytes the ground network and
	// the state that evaluates it are estimated to take (about 100 bytes a
	// feature and 50 a child): a grounding that would pass it stops with an
	// error naming the parfeature.
	MemoryLimit int64
	// Context, when not nil, stops the grounding when it is cancelled.
	Context context.Context
}

// Ground instantiates the program over net's domains and atoms (mln.Build
// with the program's declarations and the evidence gives them), with at
// most maxFeatures ground features (0: 10 million); see GroundWith.
func (p *Program) Ground(net *mln.Network, maxFeatures int) (*Grounded, error) {
	return p.GroundWith(net, GroundOptions{MaxFeatures: maxFeatures})
}

// GroundWith instantiates the program over net's domains and atoms: every
// grounding of a parfeature becomes a feature, its weights tied to the
// parfeature's, and every unknown atom (a target of net's store) a leaf
// references becomes a variable. The result has the distribution of that
// full grounding (every conditional, the pseudo-likelihood and its
// gradient are equal), but not its size:
//
//   - an atom the evidence fixes (observed, or absent from the store: a
//     closed-world atom, false) is a constant child of its feature, and the
//     constants of one feature of equal weight and value are one child
//     with a count;
//   - a grounding whose value the evidence fixes (no unknown atom below it)
//     under the root adds a constant to log P(x) and is left out (the
//     reported LogScore differs from the full grounding's by that
//     constant); under another feature it stays, shared by every parent;
//   - identical groundings (the same children with the same weights) are
//     one feature, a child of its parent with a count: in a term
//     w * sum(y) C(..., y), the constants c of y's type that occur in no
//     unknown atom and no true evidence atom below C together with the
//     values bound so far all give the same grounding, which is built once,
//     for one of them, and counted for all. The others, those that do
//     occur, are found from the store's indexes (one lookup per atom of C
//     that mentions y, on the positions bound so far), so a sum costs the
//     atoms that matter, not the domain's product. Summation variables
//     whose atoms are unknown (dense) are bound first, so that sparse
//     evidence is looked up with the most positions bound.
//
// At finite weights a feature of a converted Markov logic clause that the
// evidence satisfies is not constant (its value depends on its other atoms,
// by a factor of about exp(-lambda)), so unlike the Markov logic grounder
// this one does not drop it; it merges the identical ones instead.
func (p *Program) GroundWith(net *mln.Network, opt GroundOptions) (*Grounded, error) {
	if opt.MaxFeatures <= 0 {
		opt.MaxFeatures = 10_000_000
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	g, err := newGrounder(p, net, opt)
	if err != nil {
		return nil, err
	}
	root := p.byName["root"]
	if _, err := g.feature(g.pf[root], nil, 0); err != nil {
		return nil, err
	}
	return g.finish()
}

// LimitError reports a grounding stopped by GroundOptions.MaxFeatures
// (MaxFeatures set) or MemoryLimit (Limit set), at the parfeature whose
// grounding passed it.
type LimitError struct {
	Pos         srcpos.Position
	Feature     string
	Features    int   // ground features made, the one that passed the limit included
	Children    int   // child entries so far
	Bytes       int64 // the memory estimate
	Limit       int64 // the memory limit
	MaxFeatures int
}

func (e *LimitError) Error() string {
	if e.MaxFeatures > 0 {
		return srcpos.Errorf(e.Pos, "parfeature %s: more than %d ground features", e.Feature, e.MaxFeatures).Error()
	}
	return srcpos.Errorf(e.Pos, "parfeature %s: the ground network (%d features, %d children so far: about %s) exceeds the memory limit of %s",
		e.Feature, e.Features, e.Children, memlimit.Format(e.Bytes), memlimit.Format(e.Limit)).Error()
}

// Bytes the memory estimate charges per ground feature and per child entry
// (the net, its topology and one state).
const (
	bytesPerFeature = 100
	bytesPerChild   = 50
)

// gAtom is an atom pattern of a term: a predicate's table and arguments,
// each a slot of the term (>= 0), a constant (argConst(id)), an unknown
// constant (argNone: the atom is absent) or, in a relevance pattern, a
// variable summed below the term (argFree).
type gAtom struct {
	tab  *store.Table
	pred string
	args []int32
	vary bool // the table has target rows
}

const (
	argNone = -1 << 30
	argFree = -1<<30 + 1
)

func argConst(id int32) int32 { return -1 - id }
func isConst(a int32) bool    { return a < 0 && a > argFree }
func constOf(a int32) int32   { return -1 - a }

// gTerm is a compiled term: its slots are the parfeature's parameters,
// then its summation variables in the order they are bound.
type gTerm struct {
	t      *Term
	weight int32
	neg    bool
	atom   *gAtom    // an atom child, or
	child  *gFeature // a parfeature child
	cargs  []int32   // the child's arguments (slots or constants)
	order  []int32   // summation slots in binding order
	dom    [][]int32 // per slot in order: the constants of its type
	rel    [][]*relPat
}

// relPat is an atom pattern that mentions a summation slot: its rows with
// the slots bound before it (and constants) looked up, the slot's values
// read at pos.
type relPat struct {
	a    *gAtom
	mask uint32
	key  []int32 // per indexed position: a slot or a constant
	pos  []int   // positions of the slot
	// fixed: the key holds constants only, so the constants found do not
	// depend on the binding; they are looked up once, into cache.
	fixed  bool
	cached bool
	cache  []int32
}

// gFeature is a compiled parfeature.
type gFeature struct {
	f     *ParFeature
	idx   int
	terms []*gTerm
	reach []*gAtom // atoms reachable below, in parameter space (argFree for summed variables)
	vary  bool     // some reachable atom has unknown rows
	memo  map[string]int32
}

type grounder struct {
	p    *Program
	net  *mln.Network
	opt  GroundOptions
	pf   map[*ParFeature]*gFeature
	root int // the root's index in p.Features

	varOf [][]int32 // per predicate table: row -> variable, -1 none
	gr    *Grounded

	// The ground features, children first: feature f's children are
	// arena[off[f]:off[f+1]] (feature ids in creation order).
	arena []Child
	off   []int64
	fixed []bool
	table []int32 // hash-consing: open addressing, feature id + 1
	seed  maphash.Seed
	hbuf  []byte

	// origin is, per ground feature, the parfeature that made it first
	// (for messages).
	origin []*ParFeature

	scratch [][]Child // per nesting level: a feature's children being built
	stamp   []uint32  // per constant id: last relevance pass it was seen in
	epoch   uint32
	relBuf  [][][]int32 // per nesting level and summation slot: relevant constants
	keyBuf  []int32
	argBuf  [][]int32 // per nesting level: the term's slots
	cargBuf [][]int32 // per nesting level: a child's arguments
	steps   int
}

func newGrounder(p *Program, net *mln.Network, opt GroundOptions) (*grounder, error) {
	g := &grounder{p: p, net: net, opt: opt, pf: map[*ParFeature]*gFeature{}, seed: maphash.MakeSeed(),
		gr: &Grounded{Evidence: &Evidence{}}, off: []int64{0}, varOf: make([][]int32, len(net.Model.Predicates))}
	for i, f := range p.Features {
		g.pf[f] = &gFeature{f: f, idx: i}
		if f.Name == "root" {
			g.root = i
		}
	}
	hasTarget := map[*store.Table]bool{}
	for _, mp := range net.Model.Predicates {
		tab := net.Store.Table(mp)
		for r := range tab.Len() {
			if tab.Kind(r) == store.Target {
				hasTarget[tab] = true
				break
			}
		}
	}
	atomOf := func(pred string, args []int32) *gAtom {
		tab := net.Store.Table(net.Model.Predicate(pred))
		return &gAtom{tab: tab, pred: pred, args: args, vary: hasTarget[tab]}
	}
	// Compile every term: slots, child arguments.
	refs := map[*ParFeature]int{}
	for _, f := range p.Features {
		gf := g.pf[f]
		for k := range f.Terms {
			t := &f.Terms[k]
			slot := map[string]int32{}
			for i, v := range f.Params {
				slot[v] = int32(i)
			}
			for i, v := range t.Sum {
				slot[v] = int32(len(f.Params) + i)
			}
			gt := &gTerm{t: t, weight: int32(t.W), neg: t.Neg}
			for _, a := range t.Args {
				if a.IsVar {
					gt.cargs = append(gt.cargs, slot[a.Name])
				} else if id, ok := net.Store.Dict.Lookup(a.Name); ok {
					gt.cargs = append(gt.cargs, argConst(id))
				} else {
					gt.cargs = append(gt.cargs, argNone)
				}
			}
			if t.Pred != "" {
				gt.atom = atomOf(t.Pred, gt.cargs)
			} else {
				gt.child = g.pf[p.byName[t.Feature]]
				refs[gt.child.f]++
				if f.Name != "root" || len(t.Sum) == 0 {
					refs[gt.child.f]++ // reached for every grounding of a parent: share
				}
				seen := map[int32]bool{}
				for _, a := range gt.cargs {
					if a < 0 || int(a) < len(f.Params) || seen[a] {
						refs[gt.child.f]++ // a constant, a parameter or a repeated variable: the same grounding recurs
					}
					seen[a] = true
				}
			}
			gf.terms = append(gf.terms, gt)
		}
	}
	for f, n := range refs {
		if n > 1 {
			g.pf[f].memo = map[string]int32{}
		}
	}
	// Reachable atoms, children first (the parfeature graph is acyclic).
	var reach func(gf *gFeature) []*gAtom
	done := map[*gFeature]bool{}
	reach = func(gf *gFeature) []*gAtom {
		if done[gf] {
			return gf.reach
		}
		done[gf] = true
		np := int32(len(gf.f.Params))
		seen := map[string]bool{}
		add := func(pred string, args []int32) {
			key := fmt.Sprint(pred, args)
			if !seen[key] {
				seen[key] = true
				a := atomOf(pred, args)
				gf.reach = append(gf.reach, a)
				gf.vary = gf.vary || a.vary
			}
		}
		// toParam maps a term slot to the parfeature's parameter space.
		toParam := func(a int32) int32 {
			if a >= np {
				return argFree
			}
			return a
		}
		for _, gt := range gf.terms {
			if gt.atom != nil {
				args := make([]int32, len(gt.cargs))
				for i, a := range gt.cargs {
					args[i] = toParam(a)
				}
				add(gt.atom.pred, args)
				continue
			}
			for _, ca := range reach(gt.child) {
				args := make([]int32, len(ca.args))
				for i, a := range ca.args {
					if a >= 0 {
						a = gt.cargs[a]
						if a >= 0 {
							a = toParam(a)
						}
					}
					args[i] = a
				}
				add(ca.pred, args)
			}
		}
		return gf.reach
	}
	for _, f := range p.Features {
		reach(g.pf[f])
	}
	// Plan every term's summation: binding order and relevance patterns.
	for _, f := range p.Features {
		gf := g.pf[f]
		for _, gt := range gf.terms {
			if err := g.plan(gf, gt); err != nil {
				return nil, err
			}
		}
	}
	g.stamp = make([]uint32, net.Store.Dict.Len())
	return g, nil
}

// patterns returns the atoms below a term in its slot space: the atom
// itself, or the child's reachable atoms with its parameters replaced by
// the term's arguments.
func (g *grounder) patterns(gt *gTerm) []*gAtom {
	if gt.atom != nil {
		return []*gAtom{gt.atom}
	}
	var out []*gAtom
	for _, ca := range gt.child.reach {
		args := make([]int32, len(ca.args))
		for i, a := range ca.args {
			if a >= 0 {
				a = gt.cargs[a]
			}
			args[i] = a
		}
		out = append(out, &gAtom{tab: ca.tab, pred: ca.pred, args: args, vary: ca.vary})
	}
	return out
}

// plan orders a term's summation variables, densest first (those that
// occur in unknown atoms, then by the expected share of their domain that
// the evidence's rows mention), and compiles each one's relevance
// patterns: the atoms below the term that mention it, looked up on the
// positions bound before it.
func (g *grounder) plan(gf *gFeature, gt *gTerm) error {
	np := int32(len(gf.f.Params))
	pats := g.patterns(gt)
	bound := map[int32]bool{}
	for i := range np {
		bound[i] = true
	}
	var todo []int32
	for i := range gt.t.Sum {
		todo = append(todo, np+int32(i))
	}
	domOf := func(s int32) []int32 {
		typ := gf.f.types[gt.t.Sum[s-np]]
		var ids []int32
		for _, c := range g.net.Domains[typ] {
			// mln.Build stores every constant of every domain.
			if id, ok := g.net.Store.Dict.Lookup(c); ok {
				ids = append(ids, id)
			}
		}
		return ids
	}
	for len(todo) > 0 {
		best, bestScore := -1, math.Inf(-1)
		for k, s := range todo {
			dom := float64(len(domOf(s)))
			est, dense := 0.0, false
			for _, a := range pats {
				if !slices.Contains(a.args, s) {
					continue
				}
				var mask uint32
				pos := -1
				for i, x := range a.args {
					switch {
					case x == s:
						pos = i
					case isConst(x) || x >= 0 && bound[x]:
						mask |= 1 << i
					}
				}
				dense = dense || a.vary
				if mask == 0 {
					est += float64(a.tab.Index(1 << pos).Groups())
				} else {
					est += a.tab.Index(mask).MeanGroup()
				}
			}
			score := min(est, dom) / max(dom, 1)
			if dense {
				score += 1
			}
			if score > bestScore {
				best, bestScore = k, score
			}
		}
		s := todo[best]
		todo = slices.Delete(todo, best, best+1)
		var rel []*relPat
		for _, a := range pats {
			rp := &relPat{a: a, fixed: true}
			for i, x := range a.args {
				switch {
				case x == s:
					rp.pos = append(rp.pos, i)
				case isConst(x) || x >= 0 && bound[x]:
					rp.mask |= 1 << i
					rp.key = append(rp.key, x)
					rp.fixed = rp.fixed && x < 0
				}
			}
			if len(rp.pos) > 0 && !slices.Contains(a.args, argNone) {
				rel = append(rel, rp)
			}
		}
		gt.order = append(gt.order, s)
		gt.dom = append(gt.dom, domOf(s))
		gt.rel = append(gt.rel, rel)
		bound[s] = true
	}
	return nil
}

// counted tallies the grounding's work: a cancelled context and the limits
// stop it.
func (g *grounder) counted() error {
	if g.steps++; g.steps%4096 == 0 {
		if err := g.opt.Context.Err(); err != nil {
			return err
		}
	}
	return nil
}

// feature grounds parfeature gf with its parameters bound to args (dict
// ids) and returns its feature id, or -1 when the grounding is a constant
// under the root (left out). level is the nesting depth.
func (g *grounder) feature(gf *gFeature, args []int32, level int) (int32, error) {
	var key string
	if gf.memo != nil {
		b := make([]byte, 4*len(args))
		for i, a := range args {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(a))
		}
		key = string(b)
		if id, ok := gf.memo[key]; ok {
			return id, nil
		}
	}
	for len(g.scratch) <= level {
		g.scratch = append(g.scratch, nil)
		g.argBuf = append(g.argBuf, nil)
		g.cargBuf = append(g.cargBuf, nil)
		g.relBuf = append(g.relBuf, nil)
	}
	g.scratch[level] = g.scratch[level][:0]
	for _, gt := range gf.terms {
		slots := append(g.argBuf[level][:0], args...)
		for range gt.t.Sum {
			slots = append(slots, -1)
		}
		g.argBuf[level] = slots
		if err := g.expand(gf, gt, slots, 0, 1, level); err != nil {
			return 0, err
		}
	}
	id, err := g.intern(gf, level)
	if err != nil {
		return 0, err
	}
	if gf.memo != nil {
		gf.memo[key] = id
	}
	return id, nil
}

// expand enumerates the summation slots of term gt from the k-th in its
// order on: the relevant constants one by one, the others as one class
// counted mult times; at the end it adds the child.
func (g *grounder) expand(gf *gFeature, gt *gTerm, slots []int32, k int, mult int64, level int) error {
	if k == len(gt.order) {
		return g.emit(gf, gt, slots, mult, level)
	}
	s := gt.order[k]
	rel := g.relevant(gt, k, slots, level)
	for _, c := range rel {
		slots[s] = c
		if err := g.expand(gf, gt, slots, k+1, mult, level); err != nil {
			return err
		}
	}
	if rest := int64(len(gt.dom[k]) - len(rel)); rest > 0 {
		// One constant of the type that is not relevant stands for all of
		// them (relevant() left them unstamped).
		g.epoch++
		e := g.epoch
		for _, c := range rel {
			g.stamp[c] = e
		}
		for _, c := range gt.dom[k] {
			if g.stamp[c] != e {
				slots[s] = c
				break
			}
		}
		if err := g.expand(gf, gt, slots, k+1, mult*rest, level); err != nil {
			return err
		}
	}
	slots[s] = -1
	return nil
}

// relevant returns the constants of the k-th summation slot that occur,
// with the slots bound before it, in an unknown atom or a true evidence
// atom below the term (each once, in the order found). The slice is valid
// until the next call at the same depth.
func (g *grounder) relevant(gt *gTerm, k int, slots []int32, level int) []int32 {
	bufs := g.relBuf[level]
	for len(bufs) <= k {
		bufs = append(bufs, nil)
	}
	g.relBuf[level] = bufs
	out := bufs[k][:0]
	g.epoch++
	e := g.epoch
	add := func(c int32) {
		if g.stamp[c] != e {
			g.stamp[c] = e
			out = append(out, c)
		}
	}
	for _, rp := range gt.rel[k] {
		if rp.fixed && rp.cached {
			for _, c := range rp.cache {
				add(c)
			}
			continue
		}
		tab := rp.a.tab
		var rows []int32
		all := rp.mask == 0
		if !all {
			key := g.keyBuf[:0]
			for _, x := range rp.key {
				if x >= 0 {
					key = append(key, slots[x])
				} else {
					key = append(key, constOf(x))
				}
			}
			g.keyBuf = key
			rows = tab.Index(rp.mask).Lookup(key)
		}
		n := len(rows)
		if all {
			n = tab.Len()
		}
		var found []int32
		for i := range n {
			r := i
			if !all {
				r = int(rows[i])
			}
			if tab.Kind(r) != store.Target && tab.Value(r) < 0.5 {
				continue // false evidence: as if absent
			}
			c := tab.Arg(r, rp.pos[0])
			same := true
			for _, p := range rp.pos[1:] {
				same = same && tab.Arg(r, p) == c
			}
			if !same {
				continue
			}
			if rp.fixed {
				found = append(found, c)
			}
			add(c)
		}
		if rp.fixed {
			rp.cache, rp.cached = found, true
		}
	}
	bufs[k] = out
	return out
}

// emit adds term gt's child at the current binding, mult times.
func (g *grounder) emit(gf *gFeature, gt *gTerm, slots []int32, mult int64, level int) error {
	if err := g.counted(); err != nil {
		return err
	}
	cargs := g.cargBuf[level][:0]
	for range gt.cargs {
		cargs = append(cargs, 0)
	}
	g.cargBuf[level] = cargs
	missing := false
	for i, a := range gt.cargs {
		switch {
		case a >= 0:
			cargs[i] = slots[a]
		case a == argNone:
			missing = true
		default:
			cargs[i] = constOf(a)
		}
	}
	if gt.atom != nil {
		c := Child{Var: -1, Feature: -1, Weight: gt.weight, Count: mult}
		val := false
		if !missing {
			tab := gt.atom.tab
			if r, ok := tab.Find(cargs); ok {
				if tab.Kind(r) == store.Target {
					c.Var = g.variable(gt.atom, r)
					c.Neg = gt.neg
				} else {
					val = tab.Value(r) >= 0.5
				}
			}
		}
		if c.Var < 0 {
			c.Neg = val == gt.neg // the constant's value is val XOR neg
		}
		g.scratch[level] = append(g.scratch[level], c)
		return nil
	}
	if !gt.child.vary && gf.idx == g.root {
		return nil // no unknown atom below: a constant under the root
	}
	id, err := g.feature(gt.child, cargs, level+1)
	if err != nil {
		return err
	}
	if id < 0 {
		return nil
	}
	g.scratch[level] = append(g.scratch[level], Child{Var: -1, Feature: id, Weight: gt.weight, Count: mult})
	return nil
}

// variable returns the variable of row r of a's table, making one.
func (g *grounder) variable(a *gAtom, r int) int32 {
	pi := a.tab.Pred.Index
	vs := g.varOf[pi]
	if vs == nil {
		vs = make([]int32, a.tab.Len())
		for i := range vs {
			vs[i] = -1
		}
		g.varOf[pi] = vs
	}
	if vs[r] < 0 {
		vs[r] = int32(len(g.gr.Atoms))
		g.gr.Atoms = append(g.gr.Atoms, GroundAtom{Pred: a.pred, Args: g.net.Store.Names(a.tab.Args(r))})
	}
	return vs[r]
}

// childLess orders children for hash-consing: variables, features, then
// constants, each by id, weight and sign.
func childLess(a, b Child) int {
	ka, kb := childKind(a), childKind(b)
	switch {
	case ka != kb:
		return ka - kb
	case a.Var != b.Var:
		return int(a.Var) - int(b.Var)
	case a.Feature != b.Feature:
		return int(a.Feature) - int(b.Feature)
	case a.Weight != b.Weight:
		return int(a.Weight) - int(b.Weight)
	case a.Neg != b.Neg:
		if a.Neg {
			return 1
		}
		return -1
	}
	return 0
}

func childKind(c Child) int {
	switch {
	case c.Var >= 0:
		return 0
	case c.Feature >= 0:
		return 1
	}
	return 2
}

// intern finishes the feature whose children are in scratch[level]: sorts
// and merges them and returns the id of an identical feature made before,
// or of a new one; -1 for a constant (no unknown atom below) under the
// root. The root itself is made by finish.
func (g *grounder) intern(gf *gFeature, level int) (int32, error) {
	cs := g.scratch[level]
	slices.SortFunc(cs, childLess)
	out := cs[:0]
	fixed := true
	for _, c := range cs {
		if c.Count == 0 {
			c.Count = 1
		}
		if n := len(out); n > 0 && childLess(out[n-1], c) == 0 {
			out[n-1].Count += c.Count
			continue
		}
		out = append(out, c)
		if c.Var >= 0 || c.Feature >= 0 && !g.fixed[c.Feature] {
			fixed = false
		}
	}
	for i := range out {
		if out[i].Count == 1 {
			out[i].Count = 0
		}
	}
	g.scratch[level] = out
	if gf.idx == g.root {
		return -2, nil
	}
	h := g.hash(out)
	mask := uint64(len(g.table) - 1)
	if len(g.table) > 0 {
		for i := h & mask; ; i = (i + 1) & mask {
			id := g.table[i] - 1
			if id < 0 {
				break
			}
			if slices.Equal(g.arena[g.off[id]:g.off[id+1]], out) {
				return id, nil
			}
		}
	}
	n := len(g.off) - 1
	if n >= g.opt.MaxFeatures {
		return 0, &LimitError{Pos: gf.f.Pos, Feature: gf.f.Name, Features: n + 1, MaxFeatures: g.opt.MaxFeatures}
	}
	if lim := g.opt.MemoryLimit; lim > 0 {
		if est := int64(n+1)*bytesPerFeature + int64(len(g.arena)+len(out))*bytesPerChild; est > lim {
			return 0, &LimitError{Pos: gf.f.Pos, Feature: gf.f.Name, Features: n + 1, Children: len(g.arena) + len(out), Bytes: est, Limit: lim}
		}
	}
	id := int32(n)
	g.arena = append(g.arena, out...)
	g.off = append(g.off, int64(len(g.arena)))
	g.fixed = append(g.fixed, fixed)
	g.origin = append(g.origin, gf.f)
	if 2*(n+1) > len(g.table) {
		g.rehash(max(1024, 2*len(g.table)))
	} else {
		g.insert(id, h)
	}
	return id, nil
}

func (g *grounder) hash(cs []Child) uint64 {
	b := g.hbuf[:0]
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Var))
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Feature))
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Weight))
		b = binary.LittleEndian.AppendUint64(b, uint64(c.Count))
		if c.Neg {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	g.hbuf = b
	return maphash.Bytes(g.seed, b)
}

func (g *grounder) insert(id int32, h uint64) {
	mask := uint64(len(g.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if g.table[i] == 0 {
			g.table[i] = id + 1
			return
		}
	}
}

func (g *grounder) rehash(size int) {
	g.table = make([]int32, size)
	for id := range int32(len(g.off) - 1) {
		g.insert(id, g.hash(g.arena[g.off[id]:g.off[id+1]]))
	}
}

// finish makes the root from scratch[0] (its constant children and
// constant features left out), keeps the features reachable from it and
// numbers them parents first, as Net requires.
func (g *grounder) finish() (*Grounded, error) {
	var root []Child
	for _, c := range g.scratch[0] {
		if c.Var >= 0 || c.Feature >= 0 && !g.fixed[c.Feature] {
			root = append(root, c)
		}
	}
	nf := int32(len(g.off) - 1)
	reach := make([]bool, nf)
	var stack []int32
	for _, c := range root {
		if c.Feature >= 0 && !reach[c.Feature] {
			reach[c.Feature] = true
			stack = append(stack, c.Feature)
		}
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range g.arena[g.off[f]:g.off[f+1]] {
			if c.Feature >= 0 && !reach[c.Feature] {
				reach[c.Feature] = true
				stack = append(stack, c.Feature)
			}
		}
	}
	// Children were made before their parents: the reverse of the creation
	// order puts parents first. The root is 0.
	newID := make([]int32, nf)
	kept := int32(0)
	for f := nf - 1; f >= 0; f-- {
		newID[f] = -1
		if reach[f] {
			kept++
			newID[f] = kept
		}
	}
	// Every unknown atom is a variable, the ones no parfeature reaches too
	// (uniform, independent of the rest): they were left out, so rrf infer
	// did not list them and the pseudo-log-likelihood missed their log 1/2.
	for _, mp := range g.net.Model.Predicates {
		tab := g.net.Store.Table(mp)
		for r := range tab.Len() {
			if tab.Kind(r) == store.Target {
				g.variable(&gAtom{tab: tab, pred: mp.Name}, r)
			}
		}
	}
	n := &Net{NumVars: len(g.gr.Atoms), Features: make([][]Child, kept+1), Weights: slices.Clone(g.p.Weights), Norm: g.p.Norm}
	remap := func(cs []Child) {
		for i := range cs {
			if cs[i].Feature >= 0 {
				cs[i].Feature = newID[cs[i].Feature]
			}
		}
	}
	remap(root)
	n.Features[0] = root
	// Copy the kept features into one array of their own (the arena's
	// unreachable ones are dropped with it).
	size := 0
	for f := range nf {
		if reach[f] {
			size += int(g.off[f+1] - g.off[f])
		}
	}
	all := make([]Child, 0, size)
	origin := make([]*ParFeature, kept+1)
	origin[0] = g.p.Features[g.root]
	for f := nf - 1; f >= 0; f-- {
		if !reach[f] {
			continue
		}
		start := len(all)
		all = append(all, g.arena[g.off[f]:g.off[f+1]]...)
		cs := all[start:len(all):len(all)]
		remap(cs)
		n.Features[newID[f]] = cs
		origin[newID[f]] = g.origin[f]
	}
	g.arena, g.table = nil, nil
	gr := g.gr
	gr.Net = n
	gr.Evidence = &Evidence{Fixed: make([]bool, n.NumVars), X: make([]bool, n.NumVars)}
	gr.Target = make([]bool, n.NumVars)
	for v := range gr.Target {
		gr.Target[v] = true
	}
	if err := n.Validate(); err != nil {
		return gr, err
	}
	// Refuse a network whose values may overflow before any inference.
	if e := n.checkRange(gr.Evidence); e != nil {
		pf := origin[e.feature]
		return gr, srcpos.Errorf(pf.Pos, "%s", e.describe("parfeature "+pf.Name, n.Norm))
	}
	return gr, nil
}
