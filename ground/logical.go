package ground

import (
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
)

// clausePlan grounds one CNF clause of a logical rule.
type clausePlan struct {
	joinPlan
	template
}

// planClause compiles clause c of rule r (compileClause) and plans the
// join of its binding atoms and where each check runs.
func (g *Grounder) planClause(r *model.Rule, c model.Clause) *clausePlan {
	return g.planClauseFrom(r, c, -1, false)
}

// planClauseFrom is planClause with atom first (a binding atom) joined
// first, or the planner's choice when first is -1; byValue sets
// joinPlan.byValue.
//
// A first that is not a binding atom (a positive literal, for delta joins)
// is joined first all the same, by presence: its rows are not skipped for
// their values.
func (g *Grounder) planClauseFrom(r *model.Rule, c model.Clause, first int, byValue bool) *clausePlan {
	p, binding, heads := g.compileClause(r, c)
	p.byValue = byValue
	if first >= 0 && !slices.Contains(binding, first) {
		heads = slices.DeleteFunc(heads, func(h int) bool { return h == first })
		binding = append(binding, first)
		p.atoms[first].skipTrue = false
	}
	if p.never {
		return p
	}
	p.planJoinFrom(binding, first)
	if p.never {
		return p
	}
	at := p.boundAt()
	for i := range p.cmps {
		cm := &p.cmps[i]
		if cm.constant() {
			continue // always false (compileClause): contributes nothing
		}
		var used []int32
		for _, o := range []operand{cm.l, cm.r} {
			if o.slot >= 0 {
				used = append(used, o.slot)
			}
		}
		ck := p.checksAt(levelOf(at, used))
		ck.cmps = append(ck.cmps, int32(i))
	}
	for _, hi := range heads {
		var used []int32
		for _, x := range p.atoms[hi].args {
			if x.kind == argVar {
				used = append(used, x.v)
			}
		}
		level := levelOf(at, used)
		ck := p.checksAt(level)
		ck.heads = append(ck.heads, int32(hi))
		p.planPrefix(hi, level, at)
	}
	return p
}

// compileClause compiles clause c of rule r against the store: its atoms
// (binding atoms, those the clause negates or the single atom of a prior,
// listed in binding; the others in heads) and comparisons. A comparison of
// two constants that makes the clause true marks it never; one that is
// false is kept and contributes nothing. No join is planned and no index
// built: a Joiner does the join elsewhere.
func (g *Grounder) compileClause(r *model.Rule, c model.Clause) (p *clausePlan, binding, heads []int) {
	p = &clausePlan{template: templateOf(r)}
	p.g = g
	var sl slots
	for _, l := range c {
		if l.Atom == nil {
			p.cmps = append(p.cmps, g.compileCmp(l.Cmp, l.Neg, &sl))
			continue
		}
		a := g.compileAtom(l.Atom, &sl)
		a.neg = l.Neg
		if l.Neg || len(c) == 1 { // model.Clause.Bound
			a.skipTrue = true
			binding = append(binding, len(p.atoms))
		} else {
			heads = append(heads, len(p.atoms))
		}
		p.atoms = append(p.atoms, a)
	}
	p.nslots = len(sl.names)
	p.names = sl.names
	for i := range p.cmps {
		if cm := &p.cmps[i]; cm.constant() && cm.literalTrue(nil, g.s.Dict) {
			p.never = true
		}
	}
	return p, binding, heads
}

// planPrefix decides whether head hi, decidable after level steps, should
// fetch its group on the positions bound one step earlier: worth it when
// that group is small on average and the last step fans out.
func (p *clausePlan) planPrefix(hi, level int, at []int) {
	if level < 2 {
		return
	}
	a := &p.atoms[hi]
	var mask uint32
	pre := &headPrefix{}
	for i, x := range a.args {
		if x.kind == argConst || x.kind == argVar && at[x.v] <= level-1 {
			mask |= 1 << i
			pre.key = append(pre.key, x)
		} else {
			pre.rest = append(pre.rest, int32(i))
		}
	}
	if mask == 0 || len(pre.rest) == 0 {
		return
	}
	last := &p.steps[level-1]
	fan := 1.0
	switch last.mode {
	case modeScan:
		fan = float64(p.atoms[last.atom].tab.Len())
	case modeLookup:
		fan = last.ix.MeanGroup()
	}
	pre.ix = a.tab.Index(mask)
	if fan < 2 || pre.ix.MeanGroup() > maxScan/2 {
		return
	}
	if p.prefix == nil {
		p.prefix = make([]*headPrefix, len(p.atoms))
	}
	p.prefix[hi] = pre
	ck := p.checksAt(level - 1)
	ck.prefetch = append(ck.prefetch, int32(hi))
}

func (p *clausePlan) newWorker() worker {
	w := newJoinWorker(&p.joinPlan)
	w.emit = w.emitClause
	w.cp = p
	return w
}

// joinWorker runs a join plan depth first over a range of first-step
// candidates; at each complete substitution it calls emit.
type joinWorker struct {
	p      *joinPlan
	cp     *clausePlan
	val    []int32   // slot values
	row    []int32   // per atom: the matched row, -1 when absent
	keys   [][]int32 // per step: lookup key scratch
	hkeys  [][]int32 // per atom: Find key scratch for checks
	hgroup [][]int32 // per atom: the prefetched group of a head (see headPrefix)
	vars   []int32
	coefs  []float64
	out    *hlmrf.Problem
	sink   *countingSink // with a Joiner and a sink: out is handed over every sinkFlush terms
	viol   int
	emit   func()

	err    error   // set by an emitter that failed (delta joins); stops the join
	tuples []int32 // collected substitutions (arithmetic binding)
	nkeep  int     // slots kept per collected substitution
	found  int     // substitutions collected

	m     meter  // spends p.bud
	steps uint32 // join steps taken, for a look at Options.Context every cancelEvery
}

// size is what the worker has emitted, for its meter: ground potentials and
// constraints and their terms, or collected substitutions.
func (w *joinWorker) size() (int, int) {
	if w.out == nil {
		return w.found, w.found * w.nkeep
	}
	return outSize(w.out)
}

func newJoinWorker(p *joinPlan) *joinWorker {
	w := &joinWorker{p: p, val: make([]int32, p.nslots), row: make([]int32, len(p.atoms))}
	w.keys = make([][]int32, len(p.steps))
	for k, st := range p.steps {
		w.keys[k] = make([]int32, len(st.key))
	}
	w.hkeys = make([][]int32, len(p.atoms))
	w.hgroup = make([][]int32, len(p.atoms))
	for i, a := range p.atoms {
		w.hkeys[i] = make([]int32, len(a.args))
	}
	return w
}

func (w *joinWorker) violated() int { return w.viol }

func (w *joinWorker) ground(lo, hi int, out *hlmrf.Problem) error {
	w.out = out
	err := w.m.guard(w.p.bud, w.size, func() error { return w.join(lo, hi) })
	if err == nil && w.err != nil {
		err = w.err // cancelled (see try)
	}
	return err
}

// join runs the join over first-step candidates [lo, hi).
func (w *joinWorker) join(lo, hi int) error {
	p := w.p
	if !w.check(&p.pre) {
		return nil
	}
	if len(p.steps) == 0 {
		if lo < hi {
			w.emit()
		}
		return nil
	}
	if p.firstAll {
		for r := lo; r < hi; r++ {
			w.try(0, int32(r))
		}
		return nil
	}
	for _, r := range p.first[lo:hi] {
		w.try(0, r)
	}
	return nil
}

// descend joins step level and everything after it.
func (w *joinWorker) descend(level int) {
	p := w.p
	if level == len(p.steps) {
		w.emit()
		return
	}
	st := &p.steps[level]
	a := &p.atoms[st.atom]
	switch st.mode {
	case modeFind:
		if r, ok := a.tab.Find(fillKey(w.keys[level], st.key, w.val)); ok {
			w.try(level, int32(r))
		}
	case modeLookup:
		for _, r := range st.ix.Lookup(fillKey(w.keys[level], st.key, w.val)) {
			w.try(level, r)
		}
	case modeScan:
		for r, n := int32(0), int32(a.tab.Len()); r < n; r++ {
			w.try(level, r)
		}
	case modeExists:
		if st.ix == nil && a.tab.Len() == 0 || st.ix != nil && len(st.ix.Lookup(fillKey(w.keys[level], st.key, w.val))) == 0 {
			return
		}
		w.row[st.atom] = -1
		if w.check(&st.after) {
			w.descend(level + 1)
		}
	}
}

// try continues the join with row r for step level.
func (w *joinWorker) try(level int, r int32) {
	if w.err != nil {
		return // an emitter failed (delta joins), or cancelled: stop
	}
	p := w.p
	if w.steps++; w.steps%cancelEvery == 0 {
		if w.err = p.g.cancelled(); w.err != nil {
			return
		}
	}
	st := &p.steps[level]
	a := &p.atoms[st.atom]
	args := a.tab.Args(int(r))
	for _, e := range st.eq {
		if args[e[0]] != args[e[1]] {
			return
		}
	}
	if a.skipTrue && (p.byValue || a.observed(r)) {
		v := a.tab.Value(int(r))
		if a.neg && v == 0 || !a.neg && v == 1 {
			return // the literal is true: the ground clause is satisfied
		}
	}
	for _, b := range st.bind {
		w.val[b.slot] = args[b.pos]
	}
	w.row[st.atom] = r
	if !w.check(&st.after) {
		return
	}
	w.descend(level + 1)
}

// check runs the comparisons and non-binding atoms that became decidable; it
// returns false when one of them makes the ground clause satisfied.
func (w *joinWorker) check(c *checks) bool {
	p := w.p
	for _, ci := range c.cmps {
		if p.cmps[ci].literalTrue(w.val, p.g.s.Dict) {
			return false
		}
	}
	for _, hi := range c.prefetch {
		pre := p.prefix[hi]
		w.hgroup[hi] = pre.ix.Lookup(fillKey(w.hkeys[hi][:len(pre.key)], pre.key, w.val))
	}
	for _, hi := range c.heads {
		a := &p.atoms[hi]
		if a.missing {
			w.row[hi] = -1
			continue
		}
		var r int
		var ok bool
		if p.prefix != nil && p.prefix[hi] != nil && len(w.hgroup[hi]) <= maxScan {
			r, ok = w.scan(a, p.prefix[hi].rest, w.hgroup[hi])
		} else {
			r, ok = a.tab.Find(fillKey(w.hkeys[hi], a.args, w.val))
		}
		if !ok {
			w.row[hi] = -1
			continue
		}
		// Non-binding atoms are positive literals: observed 1 satisfies.
		if a.observed(int32(r)) && a.tab.Value(r) == 1 {
			return false
		}
		w.row[hi] = int32(r)
	}
	return true
}

// scan finds the row of group whose rest positions hold a's current
// arguments (the other positions match by construction of the group).
func (w *joinWorker) scan(a *patom, rest []int32, group []int32) (int, bool) {
next:
	for _, r := range group {
		args := a.tab.Args(int(r))
		for _, i := range rest {
			x := a.args[i]
			v := x.v
			if x.kind != argConst {
				v = w.val[v]
			}
			if args[i] != v {
				continue next
			}
		}
		return int(r), true
	}
	return 0, false
}

// emitClause appends the ground clause of the current substitution.
func (w *joinWorker) emitClause() {
	p := w.cp
	k := 1.0 // 1 - sum of the literals' constant parts
	vars, coefs := w.vars[:0], w.coefs[:0]
	for i := range p.atoms {
		a := &p.atoms[i]
		r := w.row[i]
		if r < 0 {
			continue // absent positive literal: 0
		}
		if v := a.varOf[r]; v >= 0 {
			vars = append(vars, v)
			if a.neg {
				k--
				coefs = append(coefs, 1)
			} else {
				coefs = append(coefs, -1)
			}
			continue
		}
		x := a.tab.Value(int(r))
		if a.neg {
			k -= 1 - x
		} else {
			k -= x
		}
	}
	vars, coefs = mergeSmall(vars, coefs)
	w.vars, w.coefs = vars, coefs
	if p.hard {
		if p.addLessEq(w.out, vars, coefs, -k) {
			w.viol++
		}
	} else {
		p.addHinge(w.out, vars, coefs, -k)
	}
	if w.m.b != nil {
		w.m.tick(w.size())
	}
}

// collect records the current substitution (arithmetic binding join).
func (w *joinWorker) collect() {
	w.tuples = append(w.tuples, w.val[:w.nkeep]...)
	w.found++
	if w.m.b != nil {
		w.m.tick(w.size())
	}
}
