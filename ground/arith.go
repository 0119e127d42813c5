package ground

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// psummand is a compiled summand: sign*coef times an atom (atom >= 0) or a
// constant (atom < 0).
type psummand struct {
	coef    model.Coefficient
	atom    int
	sign    float64 // +1 on the left-hand side, -1 on the right
	hasCard bool
	fixed   float64 // the coefficient when it has no |X|
}

// expander finds the rows a summation atom expands to, given the bound
// plain variables.
type expander struct {
	all  bool            // no bound position: every row
	ix   *store.SubIndex // rows matching the bound positions
	key  []arg           // bound positions, ascending
	sum  []posSlot       // summation positions
	eq   [][2]int32      // summation positions repeating an earlier one
	vars []int32         // distinct summation slots of the atom
}

// fop is a filter formula operator.
type fop uint8

const (
	fAtom fop = iota
	fCmp
	fNot
	fAnd
	fOr
	fImplies
)

// fnode is a compiled filter formula.
type fnode struct {
	op   fop
	atom patom
	cmp  pcmp
	kids []*fnode
}

// arithPlan grounds an arithmetic rule.
type arithPlan struct {
	template
	g        *Grounder
	rel      model.Relation
	atoms    []patom
	summands []psummand
	nplain   int
	sumNames []string // summation variables; variable k has slot nplain+k
	filters  []*fnode // by summation variable, nil when unfiltered
	exp      []expander
	needCard bool
	names    []string // slot names, for messages

	subs  []int32 // substitutions of the plain variables, nplain each
	nsubs int

	bud *budget // the rule's memory budget, nil without a limit
}

// planArith compiles r and runs its binding join. It returns nil when the
// rule has no grounding.
func (g *Grounder) planArith(r *model.Rule, bud *budget) (*arithPlan, error) {
	ar := r.Arith
	p := &arithPlan{template: templateOf(r), g: g, rel: ar.Rel}
	// Plain variables take slots 0..nplain-1, summation variables after.
	var sl slots
	for _, side := range [][]model.Summand{ar.LHS, ar.RHS} {
		for _, s := range side {
			if s.Atom == nil {
				continue
			}
			for _, t := range s.Atom.Args {
				if t.Kind == model.Variable {
					sl.get(t.Name)
				}
			}
		}
	}
	p.nplain = len(sl.names)
	p.sumNames = ar.SumVariables()
	for _, v := range p.sumNames {
		sl.get(v)
	}
	for si, side := range [][]model.Summand{ar.LHS, ar.RHS} {
		sign := 1.0
		if si == 1 {
			sign = -1
		}
		for _, s := range side {
			ps := psummand{coef: s.Coef, atom: -1, sign: sign, hasCard: model.HasCardinality(s.Coef)}
			if ps.hasCard {
				p.needCard = true
			} else {
				ps.fixed = model.EvalCoef(s.Coef, nil)
			}
			if s.Atom != nil {
				ps.atom = len(p.atoms)
				p.atoms = append(p.atoms, g.compileAtom(s.Atom, &sl))
			}
			p.summands = append(p.summands, ps)
		}
	}
	p.filters = make([]*fnode, len(p.sumNames))
	for _, f := range ar.Filters {
		k := slices.Index(p.sumNames, f.Var)
		if k < 0 {
			return nil, fmt.Errorf("filter {%s: ...} names no summation variable", f.Var)
		}
		n, err := g.compileFilter(f.Expr, &sl)
		if err != nil {
			return nil, err
		}
		p.filters[k] = n
	}
	p.names = sl.names

	// The binding join over every atom (summation positions free): in
	// memory, or by the Joiner.
	if g.joiner != nil {
		if err := p.joinVars(r); err != nil {
			return nil, err
		}
	} else {
		jp := &joinPlan{g: g, atoms: p.atoms, nslots: len(sl.names)}
		all := make([]int, len(p.atoms))
		for i := range all {
			all[i] = i
		}
		jp.planJoin(all)
		if jp.never {
			return nil, nil
		}
		est := jp.estimate()
		if err := g.checkEstimate(r, est, est.Groundings*float64(groundCost(len(p.atoms))), bud); err != nil {
			return nil, err
		}
		jp.bud = bud
		w := newJoinWorker(jp)
		w.nkeep = p.nplain
		w.emit = w.collect
		if err := w.ground(0, jp.items(), nil); err != nil {
			return nil, err
		}
		p.bud = bud
		p.subs, p.nsubs = w.tuples, w.found
	}
	if slices.ContainsFunc(p.atoms, func(a patom) bool { return a.hasSum }) {
		p.dedupe()
	}
	if p.nsubs == 0 {
		return nil, nil
	}

	p.exp = make([]expander, len(p.atoms))
	for i := range p.atoms {
		a := &p.atoms[i]
		if !a.hasSum {
			continue
		}
		e := &p.exp[i]
		var mask uint32
		first := map[int32]int32{}
		for pos, x := range a.args {
			if x.kind != argSum {
				mask |= 1 << pos
				e.key = append(e.key, x)
				continue
			}
			if q, ok := first[x.v]; ok {
				e.eq = append(e.eq, [2]int32{int32(pos), q})
				continue
			}
			first[x.v] = int32(pos)
			e.sum = append(e.sum, posSlot{int32(pos), x.v})
			e.vars = append(e.vars, x.v)
		}
		if mask == 0 {
			e.all = true
		} else {
			e.ix = a.tab.Index(mask)
		}
	}
	return p, nil
}

// dedupe keeps the first occurrence of every substitution.
func (p *arithPlan) dedupe() {
	n := p.nplain
	if n == 0 {
		p.nsubs = min(p.nsubs, 1)
		return
	}
	seen := make(map[string]struct{}, p.nsubs)
	buf := make([]byte, 4*n)
	out := p.subs[:0]
	for i := 0; i < p.nsubs; i++ {
		t := p.subs[i*n : (i+1)*n]
		for k, v := range t {
			buf[4*k], buf[4*k+1], buf[4*k+2], buf[4*k+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		if _, ok := seen[string(buf)]; ok {
			continue
		}
		seen[string(buf)] = struct{}{}
		out = append(out, t...)
	}
	p.subs = out
	p.nsubs = len(out) / n
}

// compileFilter compiles a filter formula; its atoms are looked up with Find.
func (g *Grounder) compileFilter(f model.Formula, sl *slots) (*fnode, error) {
	switch x := f.(type) {
	case *model.Atom:
		return &fnode{op: fAtom, atom: g.compileAtom(x, sl)}, nil
	case *model.Comparison:
		return &fnode{op: fCmp, cmp: g.compileCmp(x, false, sl)}, nil
	case *model.Not:
		k, err := g.compileFilter(x.X, sl)
		if err != nil {
			return nil, err
		}
		return &fnode{op: fNot, kids: []*fnode{k}}, nil
	case *model.And, *model.Or:
		var args []model.Formula
		op := fAnd
		if a, ok := x.(*model.And); ok {
			args = a.Args
		} else {
			args, op = x.(*model.Or).Args, fOr
		}
		n := &fnode{op: op}
		for _, a := range args {
			k, err := g.compileFilter(a, sl)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		}
		return n, nil
	case *model.Implies:
		b, err := g.compileFilter(x.Body, sl)
		if err != nil {
			return nil, err
		}
		h, err := g.compileFilter(x.Head, sl)
		if err != nil {
			return nil, err
		}
		return &fnode{op: fImplies, kids: []*fnode{b, h}}, nil
	}
	return nil, fmt.Errorf("filter: unsupported formula %T", f)
}

func (p *arithPlan) items() int { return p.nsubs }

func (p *arithPlan) newWorker() worker {
	w := &arithWorker{p: p, val: make([]int32, len(p.names))}
	w.keys = make([][]int32, len(p.atoms))
	w.incl = make([][]int32, len(p.atoms))
	for i, a := range p.atoms {
		w.keys[i] = make([]int32, len(a.args))
	}
	w.seen = make([][]int32, len(p.sumNames))
	w.card = make([]int, len(p.sumNames))
	w.cardFn = func(v string) int {
		if k := slices.Index(p.sumNames, v); k >= 0 {
			return w.card[k]
		}
		return 0
	}
	return w
}

// arithWorker expands an arithmetic rule's substitutions.
type arithWorker struct {
	p      *arithPlan
	val    []int32
	keys   [][]int32 // per atom
	incl   [][]int32 // per summation atom: expanded rows
	seen   [][]int32 // per summation variable: values seen (for |X|)
	card   []int
	cardFn func(string) int
	vars   []int32
	coefs  []float64
	ncoefs []float64
	pos    []int32 // dense merge scratch, allocated on first long row
	fkey   []int32 // filter atom key scratch
	viol   int
	m      meter // spends p.bud
}

func (w *arithWorker) violated() int { return w.viol }

func (w *arithWorker) ground(lo, hi int, out *hlmrf.Problem) error {
	p := w.p
	return w.m.guard(p.bud, func() (int, int) { return outSize(out) }, func() error {
		for i := lo; i < hi; i++ {
			if (i-lo)%arithCancelEvery == arithCancelEvery-1 {
				if err := p.g.cancelled(); err != nil {
					return err
				}
			}
			copy(w.val, p.subs[i*p.nplain:(i+1)*p.nplain])
			if err := w.groundOne(out); err != nil {
				return err
			}
			if p.bud != nil {
				w.m.tick(outSize(out))
			}
		}
		return nil
	})
}

// groundOne expands the summations of the current substitution and emits
// its potentials or constraint.
func (w *arithWorker) groundOne(out *hlmrf.Problem) error {
	p := w.p
	for k := range w.seen {
		w.seen[k] = w.seen[k][:0]
	}
	for i := range p.atoms {
		if p.atoms[i].hasSum {
			w.expand(i)
		}
	}
	if p.needCard {
		for k, s := range w.seen {
			slices.Sort(s)
			w.card[k] = len(slices.Compact(s))
		}
	}
	b := 0.0
	vars, coefs := w.vars[:0], w.coefs[:0]
	for si := range p.summands {
		s := &p.summands[si]
		c := s.fixed
		if s.hasCard {
			c = model.EvalCoef(s.coef, w.cardFn)
		}
		c *= s.sign
		if s.atom < 0 {
			if err := w.finite(c, si); err != nil {
				return err
			}
			b += c
			continue
		}
		a := &p.atoms[s.atom]
		var rows []int32
		if a.hasSum {
			rows = w.incl[s.atom]
		} else if r, ok := a.tab.Find(fillKey(w.keys[s.atom], a.args, w.val)); ok {
			rows = append(w.incl[s.atom][:0], int32(r))
			w.incl[s.atom] = rows
		}
		if len(rows) == 0 {
			continue
		}
		if err := w.finite(c, si); err != nil {
			return err
		}
		for _, r := range rows {
			if v := a.varOf[r]; v >= 0 {
				vars = append(vars, v)
				coefs = append(coefs, c)
			} else {
				b += c * a.tab.Value(int(r))
			}
		}
	}
	if len(vars) > 16 {
		if w.pos == nil {
			w.pos = make([]int32, p.g.NumVars())
			for i := range w.pos {
				w.pos[i] = -1
			}
		}
		vars, coefs = mergeDense(vars, coefs, w.pos)
	} else {
		vars, coefs = mergeSmall(vars, coefs)
	}
	w.vars, w.coefs = vars, coefs
	// The rule is E (rel) 0 with E = sum coefs*y + b.
	switch {
	case !p.hard && p.rel == model.LE:
		p.addHinge(out, vars, coefs, -b)
	case !p.hard && p.rel == model.GE:
		p.addHinge(out, vars, w.negated(coefs), b)
	case !p.hard:
		p.addHinge(out, vars, coefs, -b)
		p.addHinge(out, vars, w.negated(coefs), b)
	case p.rel == model.LE:
		if p.addLessEq(out, vars, coefs, -b) {
			w.viol++
		}
	case p.rel == model.GE:
		if p.addLessEq(out, vars, w.negated(coefs), b) {
			w.viol++
		}
	default:
		if p.addEqual(out, vars, coefs, -b) {
			w.viol++
		}
	}
	return nil
}

// negated returns -coefs in the worker's scratch (the terms of -E, over the
// same variables).
func (w *arithWorker) negated(coefs []float64) []float64 {
	nc := w.ncoefs[:0]
	for _, c := range coefs {
		nc = append(nc, -c)
	}
	w.ncoefs = nc
	return nc
}

// expand collects the rows summation atom i expands to.
func (w *arithWorker) expand(i int) {
	p := w.p
	a := &p.atoms[i]
	e := &p.exp[i]
	rows := w.incl[i][:0]
	var cand []int32
	n := a.tab.Len()
	if !e.all {
		cand = e.ix.Lookup(fillKey(w.keys[i][:len(e.key)], e.key, w.val))
		n = len(cand)
	}
next:
	for k := 0; k < n; k++ {
		r := int32(k)
		if !e.all {
			r = cand[k]
		}
		args := a.tab.Args(int(r))
		for _, q := range e.eq {
			if args[q[0]] != args[q[1]] {
				continue next
			}
		}
		for _, s := range e.sum {
			w.val[s.slot] = args[s.pos]
		}
		for _, s := range e.sum {
			if f := p.filters[int(s.slot)-p.nplain]; f != nil && w.eval(f) <= eps {
				continue next
			}
		}
		rows = append(rows, r)
		if p.needCard {
			for _, s := range e.sum {
				k := int(s.slot) - p.nplain
				w.seen[k] = append(w.seen[k], args[s.pos])
			}
		}
	}
	w.incl[i] = rows
}

// eval returns the Lukasiewicz truth value of a filter formula.
func (w *arithWorker) eval(n *fnode) float64 {
	switch n.op {
	case fAtom:
		a := &n.atom
		if a.missing {
			return 0
		}
		if cap(w.fkey) < len(a.args) {
			w.fkey = make([]int32, len(a.args))
		}
		if r, ok := a.tab.Find(fillKey(w.fkey[:len(a.args)], a.args, w.val)); ok {
			return a.tab.Value(r)
		}
		return 0
	case fCmp:
		if n.cmp.holds(w.val, w.p.g.s.Dict) {
			return 1
		}
		return 0
	case fNot:
		return 1 - w.eval(n.kids[0])
	case fAnd:
		s := 0.0
		for _, k := range n.kids {
			s += w.eval(k)
		}
		return math.Max(0, s-float64(len(n.kids)-1))
	case fOr:
		s := 0.0
		for _, k := range n.kids {
			s += w.eval(k)
		}
		return math.Min(1, s)
	}
	b, h := w.eval(n.kids[0]), w.eval(n.kids[1])
	return math.Min(1, 1-b+h)
}

// finite returns an error when coefficient c of summand si is not a finite
// number.
func (w *arithWorker) finite(c float64, si int) error {
	if !math.IsNaN(c) && !math.IsInf(c, 0) {
		return nil
	}
	p := w.p
	var sub []string
	for k := 0; k < p.nplain; k++ {
		sub = append(sub, fmt.Sprintf("%s='%s'", p.names[k], p.g.s.Dict.Name(w.val[k])))
	}
	for k, v := range p.sumNames {
		sub = append(sub, fmt.Sprintf("|%s|=%d", v, w.card[k]))
	}
	return fmt.Errorf("the coefficient of summand %d evaluates to %v in the grounding %s", si+1, c, strings.Join(sub, ", "))
}
