package ground

import (
	"slices"

	"github.com/hinge-srl/hinge/store"
)

// stepMode is how a join step finds its candidate rows.
type stepMode uint8

const (
	modeScan   stepMode = iota // every row of the table
	modeLookup                 // the rows matching the bound positions (SubIndex)
	modeFind                   // every position bound: one hash lookup
	modeExists                 // arithmetic: all non-summation positions bound; continue once if some row matches
)

type posSlot struct{ pos, slot int32 }

// checks are the comparisons and non-binding atoms whose variables are all
// bound at some point of the join.
type checks struct {
	cmps     []int32 // indexes into joinPlan.cmps
	heads    []int32 // indexes into joinPlan.atoms
	prefetch []int32 // heads whose prefix group is looked up here (joinPlan.prefix)
}

// headPrefix lets a non-binding atom whose positions are bound over two
// levels fetch its (small) group of rows once at the earlier level and scan
// it at the later one, instead of one hash lookup per row of the later step.
type headPrefix struct {
	ix   *store.SubIndex
	key  []arg   // the positions bound at the earlier level, ascending
	rest []int32 // the other positions, compared while scanning
}

// maxScan bounds the groups that are scanned rather than hashed.
const maxScan = 32

// step joins one atom.
type step struct {
	atom  int32
	mode  stepMode
	ix    *store.SubIndex // modeLookup, modeExists with bound positions
	key   []arg           // bound positions (ascending; all positions for modeFind)
	bind  []posSlot       // positions that bind a new variable
	eq    [][2]int32      // positions that repeat a variable bound earlier in this atom
	after checks
}

// joinPlan is the compiled join of a clause's binding atoms (or of an
// arithmetic rule's atoms).
type joinPlan struct {
	g      *Grounder
	atoms  []patom
	cmps   []pcmp
	nslots int
	names  []string // the variables' names by slot (logical clauses)
	steps  []step
	pre    checks // checks with no variables, before the first step
	never  bool   // nothing can be grounded (a binding atom cannot match, a constant literal is true)
	// byValue: binding atoms skip every row (target or observed) whose
	// current value makes the literal true (delta joins), not only observed
	// ones.
	byValue bool

	prefix []*headPrefix // by atom, for heads that use one

	bud *budget // the rule's memory budget, nil without a limit

	// Candidate rows of the first step: first, or all rows when firstAll.
	first    []int32
	firstAll bool
}

// items is the number of candidate rows of the first step (1 when there is
// no step: the empty substitution).
func (p *joinPlan) items() int {
	switch {
	case p.never:
		return 0
	case len(p.steps) == 0:
		return 1
	case p.firstAll:
		return p.atoms[p.steps[0].atom].tab.Len()
	}
	return len(p.first)
}

// wild reports whether position i of a is outside the join (a summation
// variable).
func wild(a *patom, i int) bool { return a.args[i].kind == argSum }

// boundMask returns the positions of a that are constants or bound
// variables, and how many there are.
func boundMask(a *patom, bound []bool) (mask uint32, n int) {
	for i, x := range a.args {
		if x.kind == argConst || x.kind == argVar && bound[x.v] {
			mask |= 1 << i
			n++
		}
	}
	return
}

// joinMask is the mask of a's positions that take part in the join.
func joinMask(a *patom) uint32 {
	var m uint32
	for i := range a.args {
		if !wild(a, i) {
			m |= 1 << i
		}
	}
	return m
}

// constKey returns the constant arguments of a (as a SubIndex key).
func constKey(a *patom) (mask uint32, key []int32) {
	for i, x := range a.args {
		if x.kind == argConst {
			mask |= 1 << i
			key = append(key, x.v)
		}
	}
	return
}

// matchesConst returns the rows of a's table whose constant positions match
// (all rows when nil and all is true).
func matchesConst(a *patom) (rows []int32, all bool) {
	mask, key := constKey(a)
	if mask == 0 {
		return nil, true
	}
	if mask == joinMask(a) && !a.hasSum {
		if r, ok := a.tab.Find(key); ok {
			return []int32{int32(r)}, false
		}
		return []int32{}, false
	}
	return a.tab.Index(mask).Lookup(key), false
}

// planJoin orders the binding atoms greedily by selectivity and compiles the
// steps. Index building happens here, before any worker starts.
func (p *joinPlan) planJoin(binding []int) { p.planJoinFrom(binding, -1) }

// planJoinFrom is planJoin with atom first (one of binding) as the first
// step, or the planner's choice when first is -1.
func (p *joinPlan) planJoinFrom(binding []int, first int) {
	bound := make([]bool, p.nslots)
	remaining := append([]int(nil), binding...)
	for _, ai := range remaining {
		if p.atoms[ai].missing {
			p.never = true
			return
		}
	}
	for len(remaining) > 0 {
		best := -1
		if len(p.steps) == 0 && first >= 0 {
			best = slices.Index(remaining, first)
		} else if len(p.steps) == 0 {
			// The smallest relation after constant arguments.
			bestSize := 0
			for k, ai := range remaining {
				rows, all := matchesConst(&p.atoms[ai])
				size := len(rows)
				if all {
					size = p.atoms[ai].tab.Len()
				}
				if best < 0 || size < bestSize {
					best, bestSize = k, size
				}
			}
		} else {
			// The most bound positions, then the smallest expected fan-out
			// (fully bound atoms were joined right after the step that
			// bound them, below).
			bestN, bestFan := -1, 0.0
			for k, ai := range remaining {
				a := &p.atoms[ai]
				mask, n := boundMask(a, bound)
				if n < bestN {
					continue // cannot win: skip building its index
				}
				if fan := fanOut(a, mask); n > bestN || fan < bestFan {
					best, bestN, bestFan = k, n, fan
				}
			}
		}
		ai := remaining[best]
		remaining = append(remaining[:best], remaining[best+1:]...)
		p.addStep(ai, bound)
		// Atoms the new bindings make fully bound are single lookups with
		// no fan-out, and joining them binds nothing: join them now, in one
		// pass, so that planning is linear in a rule's atoms when the
		// variables are few (a rule of 80,000 conjuncts over one variable
		// planned in 32 s when each step rescanned them all).
		kept := remaining[:0]
		for _, ai := range remaining {
			if mask, _ := boundMask(&p.atoms[ai], bound); mask == joinMask(&p.atoms[ai]) {
				p.addStep(ai, bound)
			} else {
				kept = append(kept, ai)
			}
		}
		remaining = kept
	}
}

// fanOut is the expected number of rows of a matching one binding of the
// positions in mask: 1 when every position is bound (a lookup), the whole
// table when none is, else the mean group of the index on mask (which it
// builds).
func fanOut(a *patom, mask uint32) float64 {
	switch {
	case mask == joinMask(a):
		return 1
	case mask == 0:
		return float64(a.tab.Len())
	}
	return a.tab.Index(mask).MeanGroup()
}

// addStep compiles the join of atom ai given the variables bound so far, and
// marks the variables it binds.
func (p *joinPlan) addStep(ai int, bound []bool) {
	a := &p.atoms[ai]
	st := step{atom: int32(ai)}
	mask, _ := boundMask(a, bound)
	firstPos := map[int32]int32{}
	for i, x := range a.args {
		switch {
		case x.kind == argSum:
		case mask&(1<<i) != 0:
			st.key = append(st.key, x)
		default:
			if q, ok := firstPos[x.v]; ok {
				st.eq = append(st.eq, [2]int32{int32(i), q})
			} else {
				firstPos[x.v] = int32(i)
				st.bind = append(st.bind, posSlot{int32(i), x.v})
			}
		}
	}
	full := mask == joinMask(a)
	switch {
	case full && !a.hasSum:
		st.mode = modeFind
	case full:
		st.mode = modeExists
		if mask != 0 {
			st.ix = a.tab.Index(mask)
		}
	case mask == 0:
		st.mode = modeScan
	default:
		st.mode = modeLookup
		st.ix = a.tab.Index(mask)
	}
	if len(p.steps) == 0 {
		p.first, p.firstAll = matchesConst(a)
		if st.mode == modeExists && !p.firstAll && len(p.first) > 1 {
			p.first = p.first[:1] // existence: one candidate is enough
		}
		if st.mode == modeExists && p.firstAll {
			p.firstAll = false
			p.first = nil
			if a.tab.Len() > 0 {
				p.first = []int32{0}
			}
		}
	}
	for _, b := range st.bind {
		bound[b.slot] = true
	}
	p.steps = append(p.steps, st)
}

// levelOf returns after how many steps all the given slots are bound.
func levelOf(boundAt []int, slotsUsed []int32) int {
	l := 0
	for _, s := range slotsUsed {
		l = max(l, boundAt[s])
	}
	return l
}

// boundAt returns, for every slot, the number of steps after which it is
// bound (0 when no step binds it).
func (p *joinPlan) boundAt() []int {
	at := make([]int, p.nslots)
	for k, st := range p.steps {
		for _, b := range st.bind {
			at[b.slot] = k + 1
		}
	}
	return at
}

// checksAt returns the check list that runs after level steps.
func (p *joinPlan) checksAt(level int) *checks {
	if level == 0 {
		return &p.pre
	}
	return &p.steps[level-1].after
}
