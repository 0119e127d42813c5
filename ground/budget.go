package ground

import (
	"errors"
	"fmt"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/model"
)

// Memory accounting. A ground potential or constraint costs its entries in
// the problem's arrays (25 bytes, and 12 per term), held up to three times
// while grounding (growing arrays, per-chunk fragments, the final append),
// and then the solver's state for it (local copies and duals per term).
// The figures below cover both with a margin; they convert the memory
// limit into a number of groundings per rule.
const (
	bytesPerGround = 100 // per ground potential or constraint
	bytesPerTerm   = 50  // per term (atom) in it
)

// groundCost is the conservative memory cost of one grounding with terms
// terms.
func groundCost(terms int) int64 { return outCost(1, terms) }

// outCost is the memory charged for pots potentials and constraints with
// terms terms in all.
func outCost(pots, terms int) int64 {
	return int64(pots)*bytesPerGround + int64(terms)*bytesPerTerm
}

// Estimate is the planner's expectation of how many groundings a rule has,
// assuming the atoms' arguments are independent.
type Estimate struct {
	// Groundings is the expected number of substitutions its joins
	// enumerate (before groundings satisfied or made constant by the
	// observations are dropped).
	Groundings float64
	// Emitted is the expected number of ground potentials and constraints
	// it keeps (at most Groundings): only a grounding with an unknown atom
	// is kept, so this sums, over the clause's atoms of predicates with
	// targets, the target atoms times the join's fan-out from them. Only
	// what is kept takes memory, so the memory limit is checked against
	// Emitted; a join that enumerates far more than it keeps costs time,
	// not memory. It is worked out (which may build indexes) only for a
	// logical rule whose Groundings would not fit in the memory limit;
	// otherwise it equals Groundings.
	Emitted float64
	// Cause says what multiplies up, for messages: "Aa and Bb share no
	// variable: a cross product of 20,000 x 20,000", or the factors of the
	// join.
	Cause string
	// CrossProduct says that Cause is a cross product: atoms that share no
	// variable, nearly always a mistake in the rule.
	CrossProduct bool
}

// crossProduct reports whether describe(fs) words a cross product.
func crossProduct(fs []factor) bool {
	n := 0
	for _, f := range fs {
		if f.scan {
			n++
		}
	}
	return n > 1
}

// maxEmittedAtoms bounds the clauses whose Emitted is worked out (the work
// is quadratic in the atoms); larger ones keep Emitted = Groundings.
const maxEmittedAtoms = 32

// emitted returns the expected number of kept groundings of the clause
// (see Estimate.Emitted), at most enumerated, and what multiplies up in the
// largest term; the cause is "" when the result is enumerated itself.
func (p *clausePlan) emitted(enumerated float64) (float64, string, bool) {
	if len(p.atoms) > maxEmittedAtoms {
		return enumerated, "", false
	}
	var binding []int
	for _, st := range p.steps {
		binding = append(binding, int(st.atom))
	}
	total, biggest, cause, cross := 0.0, -1.0, "", false
	bound := make([]bool, p.nslots)
	for si := range p.atoms {
		s := &p.atoms[si]
		unknown := p.g.unknown[s.tab.Pred.Index]
		if unknown == 0 {
			continue
		}
		n := float64(unknown)
		if rows, all := matchesConst(s); !all {
			n *= float64(len(rows)) / float64(max(s.tab.Len(), 1))
		}
		clear(bound)
		for _, x := range s.args {
			if x.kind == argVar {
				bound[x.v] = true
			}
		}
		fs := []factor{{s.tab.Pred.Name, n, true}}
		var rest []int
		for _, ai := range binding {
			if ai != si {
				rest = append(rest, ai)
			}
		}
		// Greedily the smallest fan-out next, as planJoin orders the join.
		for len(rest) > 0 && n > 0 {
			best, bestFan, bestScan := -1, 0.0, false
			for k, ai := range rest {
				a := &p.atoms[ai]
				mask, _ := boundMask(a, bound)
				if fan := fanOut(a, mask); best < 0 || fan < bestFan {
					best, bestFan, bestScan = k, fan, mask == 0
				}
			}
			a := &p.atoms[rest[best]]
			if bestFan != 1 {
				fs = append(fs, factor{a.tab.Pred.Name, bestFan, bestScan})
			}
			n *= bestFan
			for _, x := range a.args {
				if x.kind == argVar {
					bound[x.v] = true
				}
			}
			rest = append(rest[:best], rest[best+1:]...)
		}
		total += n
		if n > biggest {
			biggest, cause, cross = n, describe(fs, "unknown atoms of"), crossProduct(fs)
		}
	}
	if total >= enumerated {
		return enumerated, "", false
	}
	if cause == "" {
		cause = "no atom of it is a target"
	}
	return total, cause, cross
}

// MemoryError reports a rule whose groundings would not fit in the memory
// limit (Options.MemoryLimit): either the planner's estimate before
// grounding, or the count reached while grounding.
type MemoryError struct {
	Rule       *model.Rule
	Groundings float64 // the estimate, or the count reached when Counted
	Counted    bool    // grounding had started and reached Groundings
	Cause      string  // what multiplies up (may be empty when Counted)
	// CrossProduct says that Cause is a cross product (Estimate.CrossProduct).
	CrossProduct bool
	Limit        int64 // the memory limit in bytes
}

func (e *MemoryError) Error() string {
	var b strings.Builder
	if e.Counted {
		fmt.Fprintf(&b, "more than %s groundings", formatCount(e.Groundings))
	} else {
		fmt.Fprintf(&b, "about %s groundings", formatCount(e.Groundings))
	}
	if e.Cause != "" {
		fmt.Fprintf(&b, " (%s)", e.Cause)
	}
	fmt.Fprintf(&b, " exceed the memory limit of %s", memlimit.Format(e.Limit))
	return b.String()
}

// formatCount writes a count as 4.0e+08 when large, plainly when small.
func formatCount(n float64) string {
	if n < 1e6 {
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	return strconv.FormatFloat(n, 'e', 1, 64)
}

// thousands writes n with comma separators: 20,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// budget is the memory one rule's grounding may use; workers add what they
// emit and stop once it is spent.
type budget struct {
	max   int64 // bytes
	used  atomic.Int64
	count atomic.Int64 // groundings emitted
}

// errOverBudget is a worker's error when the budget is spent; groundInto
// turns it into a *MemoryError.
var errOverBudget = errors.New("ground: memory budget spent")

// overBudget is the panic value a worker raises deep in its join when the
// budget is spent; ground recovers it (never seen outside the package).
type overBudget struct{}

// newBudget returns the budget of a rule grounded now under limit (nil when
// there is no limit): the limit less the heap already live.
func newBudget(limit int64) *budget {
	if limit <= 0 {
		return nil
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	var live int64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(s[0].Value.Uint64())
	}
	return &budget{max: max(limit-live, 0)}
}

// spend adds bytes to the budget's use and reports whether it is spent.
func (b *budget) spend(bytes int64) bool { return b.used.Add(bytes) > b.max }

// meter counts what a worker emits into its output and spends it from the
// budget every checkEvery emissions.
type meter struct {
	b         *budget
	calls     int
	pots, trs int // output sizes at the last flush
}

// checkEvery is how many emissions pass between budget checks.
const checkEvery = 4096

// start marks the output's current size (a worker's output may hold earlier
// potentials).
func (m *meter) start(pots, terms int) { m.pots, m.trs = pots, terms }

// flush spends what was emitted since the last flush and panics with
// overBudget when the budget is spent.
func (m *meter) flush(pots, terms int) {
	cost := outCost(pots-m.pots, terms-m.trs)
	m.b.count.Add(int64(pots - m.pots))
	m.pots, m.trs = pots, terms
	if m.b.spend(cost) {
		panic(overBudget{})
	}
}

// tick counts one emission and flushes every checkEvery of them.
func (m *meter) tick(pots, terms int) {
	m.calls++
	if m.calls%checkEvery == 0 {
		m.flush(pots, terms)
	}
}

// outSize is the size of a problem for a meter: groundings and terms.
func outSize(p *hlmrf.Problem) (int, int) {
	if p == nil {
		return 0, 0
	}
	return len(p.Weight) + len(p.CKind), len(p.Var) + len(p.CVar)
}

// guard runs f, which emits into out, under the meter (when there is a
// budget): it spends what f emitted and turns an overBudget panic into
// errOverBudget.
func (m *meter) guard(b *budget, size func() (int, int), f func() error) (err error) {
	if b == nil {
		return f()
	}
	*m = meter{b: b}
	m.start(size())
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(overBudget); !ok {
				panic(r)
			}
			err = errOverBudget
		}
	}()
	if err := f(); err != nil {
		return err
	}
	m.flush(size())
	return nil
}

// estimate returns the expected number of substitutions of the join and
// what multiplies up: the first step's candidate rows times, for each later
// step, its expected fan-out (a full table for an atom that shares no bound
// variable, the mean group of the index it looks up, 1 for a lookup of a
// fully bound atom).
func (p *joinPlan) estimate() Estimate {
	if p.never {
		return Estimate{}
	}
	if len(p.steps) == 0 {
		return Estimate{Groundings: 1, Emitted: 1}
	}
	n := float64(p.items())
	name := func(s *step) string { return p.atoms[s.atom].tab.Pred.Name }
	fs := []factor{{name(&p.steps[0]), n, true}}
	for k := 1; k < len(p.steps); k++ {
		st := &p.steps[k]
		f := 1.0
		switch st.mode {
		case modeScan:
			f = float64(p.atoms[st.atom].tab.Len())
		case modeLookup:
			f = st.ix.MeanGroup()
		}
		n *= f
		if st.mode == modeScan || st.mode == modeLookup {
			fs = append(fs, factor{name(st), f, st.mode == modeScan})
		}
	}
	return Estimate{Groundings: n, Emitted: n, Cause: describe(fs, "rows of"), CrossProduct: crossProduct(fs)}
}

// factor is one atom's part in an estimate: the rows of the first atom, or
// a later atom's fan-out (its whole table when scan: it shares no variable
// with the atoms before it).
type factor struct {
	name string
	n    float64
	scan bool
}

// describe says what multiplies up in an estimate: the cross product of
// the scanned atoms, then the fan-out of the joined ones. first words the
// first atom's count when it is not part of a cross product ("rows of").
func describe(fs []factor, first string) string {
	var cross, join []factor
	for _, f := range fs {
		if f.scan {
			cross = append(cross, f)
		} else {
			join = append(join, f)
		}
	}
	var cause strings.Builder
	if len(cross) > 1 {
		names := make([]string, len(cross))
		sizes := make([]string, len(cross))
		for i, f := range cross {
			names[i], sizes[i] = f.name, thousands(int(f.n))
		}
		fmt.Fprintf(&cause, "%s share no variable: a cross product of %s", listNames(names), listFactors(sizes))
		if len(join) > 0 {
			cause.WriteString(", then ")
		}
	} else {
		fmt.Fprintf(&cause, "%s %s %s", thousands(int(cross[0].n)), first, cross[0].name)
		if len(join) > 0 {
			cause.WriteString(" x ")
		}
	}
	parts := make([]string, len(join))
	for i, f := range join {
		parts[i] = fmt.Sprintf("%s %s per match", strconv.FormatFloat(f.n, 'g', 3, 64), f.name)
	}
	cause.WriteString(listFactors(parts))
	return cause.String()
}

// listNames joins names as "A and B" or "A, B and C" (at most 6, then
// "and N more").
func listNames(names []string) string {
	if len(names) > 6 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more atoms", len(names)-5)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// listFactors joins factors with " x " (at most 6, then "x ... (N factors)").
func listFactors(fs []string) string {
	if len(fs) > 6 {
		return strings.Join(fs[:5], " x ") + fmt.Sprintf(" x ... (%d factors)", len(fs))
	}
	return strings.Join(fs, " x ")
}
