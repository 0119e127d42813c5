package mln

import (
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/maxsat"
)

// hardGround is a ground hard clause the lazy engine built: its literals
// and its rule.
type hardGround struct {
	lits []maxsat.Lit
	rule int
}

// propagateHard runs unit propagation over the hard ground clauses built so
// far, growing them as it goes: an atom that propagation makes true
// completes the ground clauses that negate it (as a walk's flip to true
// does, delta joins from the atom), which propagate in turn. Hard clauses
// the evidence contradicts are found so before any search, whatever the
// lazy method, and reported as an *InfeasibleError with the clauses that
// prove it; it returns nil when propagation ends without a contradiction.
// The store's values are left as they were (every unknown atom false); the
// clauses built stay built, as the walk would have built them. Hard
// clauses the all-false world satisfies but that hold an atom false (!P(x).)
// are built too, for every atom a built hard clause needs true.
func (e *lazyEngine) propagateHard() error {
	defer func() { e.hard, e.keepHard = nil, false }()
	val := map[int32]bool{}   // forced atoms
	reason := map[int32]int{} // the clause that forced each
	occ := map[int32][]int{}
	var queue []int
	indexed := 0
	var raised []int32 // atoms set to 1 in the store, to put back
	defer func() {
		for _, v := range raised {
			a := e.atoms[v]
			e.s.Table(a.Pred).SetValue(a.Row, 0)
		}
	}()
	probed := map[int32]bool{}
	scanned := 0 // hard clauses whose atoms were probed
	for {
		for ; indexed < len(e.hard); indexed++ {
			for _, l := range e.hard[indexed].lits {
				v := int32(l.Var())
				occ[v] = append(occ[v], indexed)
			}
			queue = append(queue, indexed)
		}
		if len(queue) == 0 {
			// An atom a built hard clause needs true may be held false by
			// hard clauses not built yet (they negate it, and the all-false
			// world satisfies them: !P(x).): build those, once per atom.
			upto := len(e.hard)
			for _, h := range e.hard[scanned:upto] {
				for _, l := range h.lits {
					if v := int32(l.Var()); !l.Neg() && !probed[v] {
						probed[v] = true
						if _, forced := val[v]; !forced {
							if err := e.hardFrom(v); err != nil {
								return err
							}
						}
					}
				}
			}
			scanned = upto
			if indexed == len(e.hard) {
				return nil
			}
			continue
		}
		c := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		free := maxsat.Lit(0)
		open, sat := 0, false
		for _, l := range e.hard[c].lits {
			b, ok := val[int32(l.Var())]
			switch {
			case !ok:
				open++
				free = l
			case b != l.Neg():
				sat = true
			}
		}
		switch {
		case sat || open > 1:
			continue
		case open == 0:
			return e.infeasibleProof(c, reason)
		}
		v := int32(free.Var())
		val[v], reason[v] = !free.Neg(), c
		queue = append(queue, occ[v]...)
		if free.Neg() {
			continue
		}
		// True: build the ground clauses that negate it.
		a := e.atoms[v]
		e.s.Table(a.Pred).SetValue(a.Row, 1)
		raised = append(raised, v)
		for _, sd := range e.seeds[a.Pred.Index] {
			if err := e.cls[sd.clause].j.From(int(sd.atom), int32(a.Row), e.emitters[sd.clause]); err != nil {
				return err
			}
		}
		if err := e.build(); err != nil {
			return err
		}
	}
}

// hardFrom builds the hard ground clauses that negate atom v and whose
// other negated atoms are true: those that would hold v false.
func (e *lazyEngine) hardFrom(v int32) error {
	a := e.atoms[v]
	t := e.s.Table(a.Pred)
	old := t.Value(a.Row)
	t.SetValue(a.Row, 1)
	defer t.SetValue(a.Row, old)
	for _, sd := range e.seeds[a.Pred.Index] {
		if !e.cls[sd.clause].hard {
			continue
		}
		if err := e.cls[sd.clause].j.From(int(sd.atom), int32(a.Row), e.emitters[sd.clause]); err != nil {
			e.pending = e.pending[:0]
			return err
		}
	}
	return e.build()
}

// infeasibleProof writes the conflict clause c and, recursively, the
// clauses that forced its atoms, as an InfeasibleError.
func (e *lazyEngine) infeasibleProof(c int, reason map[int32]int) *InfeasibleError {
	ie := &InfeasibleError{}
	seen := map[int]bool{c: true}
	for todo := []int{c}; len(todo) > 0; {
		k := todo[0]
		todo = todo[1:]
		var lits []string
		for _, l := range e.hard[k].lits {
			a := e.atoms[l.Var()]
			s := AtomString(a.Pred.Name, e.s.Names(e.s.Table(a.Pred).Args(a.Row)))
			if l.Neg() {
				s = "!" + s
			}
			lits = append(lits, s)
			if r, ok := reason[int32(l.Var())]; ok && !seen[r] {
				seen[r] = true
				todo = append(todo, r)
			}
		}
		ie.Clauses = append(ie.Clauses, strings.Join(lits, " v ")+"   from "+e.net.Model.Rules[e.hard[k].rule].Text)
	}
	slices.Reverse(ie.Clauses) // the premises first, the contradiction last
	return ie
}
