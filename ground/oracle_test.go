package ground

// An independent brute-force grounder: it enumerates every substitution of a
// rule's variables over the whole constant domain, evaluates each literal or
// atom from the store (missing = 0) and applies the semantics of the package
// documentation literally, with atoms named by text rather than by column.
// It shares no code with the grounder beyond the store, model.Clauses,
// model.Clause.Bound and model.EvalCoef.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// kind of a canonical ground item.
const (
	kPot = iota
	kLessEq
	kEqual
)

type oterm struct {
	atom string
	coef float64
}

// opot is a ground potential or constraint with atoms named by text.
type opot struct {
	kind   int
	weight float64
	c      float64
	power  uint8
	group  int32
	terms  []oterm // sorted by atom
}

func (p opot) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d g%d w%.6g p%d c%.6g", p.kind, p.group, r9(p.weight), p.power, r9(p.c))
	for _, t := range p.terms {
		fmt.Fprintf(&b, " %s:%.6g", t.atom, r9(t.coef))
	}
	return b.String()
}

// r9 rounds to 1e-9 (and -0 to 0) so that sort keys agree where equal does.
func r9(v float64) float64 { return math.Round(v*1e9)/1e9 + 0 }

func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)+math.Abs(b)) }

func (p opot) equal(q opot) bool {
	if p.kind != q.kind || p.group != q.group || p.power != q.power || !close9(p.weight, q.weight) || !close9(p.c, q.c) || len(p.terms) != len(q.terms) {
		return false
	}
	for i := range p.terms {
		if p.terms[i].atom != q.terms[i].atom || !close9(p.terms[i].coef, q.terms[i].coef) {
			return false
		}
	}
	return true
}

func sortPots(ps []opot) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].key() < ps[j].key() })
}

// canonical converts a ground problem to named items; names[v] is variable
// v's atom text.
func canonical(p *hlmrf.Problem, names []string) []opot {
	var out []opot
	for i := range p.Weight {
		vs, cs := p.Terms(i)
		out = append(out, opot{kind: kPot, weight: p.Weight[i], c: p.Const[i], power: p.Power[i], group: p.Group[i], terms: namedTerms(vs, cs, names)})
	}
	for j := range p.CKind {
		vs, cs := p.CTerms(j)
		k := kLessEq
		if p.CKind[j] == hlmrf.Equal {
			k = kEqual
		}
		out = append(out, opot{kind: k, c: p.CConst[j], group: p.CGroup[j], terms: namedTerms(vs, cs, names)})
	}
	sortPots(out)
	return out
}

func namedTerms(vs []int32, cs []float64, names []string) []oterm {
	var ts []oterm
	for k, v := range vs {
		ts = append(ts, oterm{names[v], cs[k]})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].atom < ts[j].atom })
	return ts
}

// varNames names the result's variables as Pred(a,b).
func varNames(g *Grounder) []string {
	var out []string
	for _, row := range g.AtomNames() {
		out = append(out, row[0]+"("+strings.Join(row[1:], ",")+")")
	}
	return out
}

// oracle grounds m over s by brute force. It returns the items, the number
// of constant-violated constraints per rule, and whether some rule hit a
// non-finite coefficient (which the grounder must report as an error).
type oracle struct {
	s      *store.Store
	domain []string
}

func newOracle(s *store.Store) *oracle {
	o := &oracle{s: s}
	for i := 0; i < s.Dict.Len(); i++ {
		o.domain = append(o.domain, s.Dict.Name(int32(i)))
	}
	return o
}

// atomState looks an atom up by names: present, target, value.
func (o *oracle) atomState(p *model.Predicate, args []string) (present, target bool, v float64) {
	ids := make([]int32, len(args))
	for i, a := range args {
		id, ok := o.s.Dict.Lookup(a)
		if !ok {
			return false, false, 0
		}
		ids[i] = id
	}
	t := o.s.Table(p)
	row, ok := t.Find(ids)
	if !ok {
		return false, false, 0
	}
	if t.Kind(row) == store.Target {
		return true, true, 0
	}
	return true, false, t.Value(row)
}

func atomText(p *model.Predicate, args []string) string {
	return p.Name + "(" + strings.Join(args, ",") + ")"
}

func groundArgs(a *model.Atom, sub map[string]string) []string {
	out := make([]string, len(a.Args))
	for i, t := range a.Args {
		if t.Kind == model.Constant {
			out[i] = t.Name
		} else {
			out[i] = sub[t.Name]
		}
	}
	return out
}

// oracleLess is the % order: integers numerically and first, text
// lexicographically (store.Dict.Less for constants the dictionary has).
func (o *oracle) less(a, b string) bool {
	ia, okA := o.s.Dict.Lookup(a)
	ib, okB := o.s.Dict.Lookup(b)
	if okA && okB {
		return o.s.Dict.Less(ia, ib)
	}
	x, ea := strconv.ParseInt(a, 10, 64)
	y, eb := strconv.ParseInt(b, 10, 64)
	if ea == nil && eb == nil {
		return x < y
	}
	if (ea == nil) != (eb == nil) {
		return ea == nil
	}
	return a < b
}

func (o *oracle) cmpHolds(c *model.Comparison, sub map[string]string) bool {
	val := func(t model.Term) string {
		if t.Kind == model.Constant {
			return t.Name
		}
		return sub[t.Name]
	}
	l, r := val(c.Left), val(c.Right)
	switch c.Op {
	case model.CmpEq:
		return l == r
	case model.CmpNeq:
		return l != r
	}
	return o.less(l, r)
}

// assignments calls f with every assignment of vars over the domain.
func (o *oracle) assignments(vars []string, sub map[string]string, f func()) {
	o.assignmentsPruned(vars, sub, nil, f)
}

// assignmentsPruned is assignments that skips every extension of a partial
// assignment for which cut returns true (so that real data sets stay
// tractable; cut only looks at atoms whose variables are all assigned).
func (o *oracle) assignmentsPruned(vars []string, sub map[string]string, cut func() bool, f func()) {
	if len(vars) == 0 {
		f()
		return
	}
	for _, c := range o.domain {
		sub[vars[0]] = c
		if cut != nil && cut() {
			continue
		}
		o.assignmentsPruned(vars[1:], sub, cut, f)
	}
	delete(sub, vars[0])
}

type oracleResult struct {
	items    []opot
	violated []int // per rule
	badCoef  bool
}

func (o *oracle) ground(m *model.Model) oracleResult {
	var res oracleResult
	for _, r := range m.Rules {
		n := len(res.items)
		var viol int
		if r.Logical != nil {
			viol = o.groundLogical(r, &res.items)
		} else {
			var bad bool
			viol, bad = o.groundArith(r, &res.items)
			res.badCoef = res.badCoef || bad
		}
		_ = n
		res.violated = append(res.violated, viol)
	}
	sortPots(res.items)
	return res
}

// emit applies the dropping rules to E = sum terms + k with relation
// "E <= 0" (a hinge max(E, 0) when weighted) and appends the item.
func emitLE(r *model.Rule, terms map[string]float64, k float64, out *[]opot) (violated bool) {
	var ts []oterm
	maxE := k
	for a, c := range terms {
		if c != 0 {
			ts = append(ts, oterm{a, c})
			if c > 0 {
				maxE += c
			}
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].atom < ts[j].atom })
	if maxE <= 1e-9 {
		return false // satisfied whatever the targets
	}
	if r.Weighted {
		if len(ts) == 0 {
			return false
		}
		pw := uint8(1)
		if r.Squared {
			pw = 2
		}
		*out = append(*out, opot{kind: kPot, weight: r.Weight, c: -k, power: pw, group: int32(r.Index), terms: ts})
		return false
	}
	*out = append(*out, opot{kind: kLessEq, c: -k, group: int32(r.Index), terms: ts})
	return len(ts) == 0
}

func (o *oracle) groundLogical(r *model.Rule, out *[]opot) int {
	clauses, err := model.Clauses(r.Logical)
	if err != nil {
		panic(err)
	}
	viol := 0
	for _, c := range clauses {
		var vars []string
		for v := range c.Bound() {
			vars = append(vars, v)
		}
		sort.Strings(vars)
		sub := map[string]string{}
		// A binding atom that is absent rules out every extension.
		cut := func() bool {
			for _, l := range c {
				if l.Atom == nil || !(l.Neg || len(c) == 1) {
					continue
				}
				args := make([]string, len(l.Atom.Args))
				for i, t := range l.Atom.Args {
					if t.Kind == model.Constant {
						args[i] = t.Name
						continue
					}
					v, ok := sub[t.Name]
					if !ok {
						args = nil
						break
					}
					args[i] = v
				}
				if args != nil {
					if present, _, _ := o.atomState(l.Atom.Pred, args); !present {
						return true
					}
				}
			}
			return false
		}
		o.assignmentsPruned(vars, sub, cut, func() {
			for _, l := range c {
				if l.Atom != nil && (l.Neg || len(c) == 1) {
					if present, _, _ := o.atomState(l.Atom.Pred, groundArgs(l.Atom, sub)); !present {
						return
					}
				}
			}
			// 1 - sum of literal truth values = k + sum terms.
			k := 1.0
			terms := map[string]float64{}
			for _, l := range c {
				if l.Cmp != nil {
					t := 0.0
					if o.cmpHolds(l.Cmp, sub) {
						t = 1
					}
					if l.Neg {
						t = 1 - t
					}
					k -= t
					continue
				}
				args := groundArgs(l.Atom, sub)
				_, target, v := o.atomState(l.Atom.Pred, args)
				if target {
					name := atomText(l.Atom.Pred, args)
					if l.Neg {
						k--
						terms[name]++
					} else {
						terms[name]--
					}
					continue
				}
				if l.Neg {
					k -= 1 - v
				} else {
					k -= v
				}
			}
			if emitLE(r, terms, k, out) {
				viol++
			}
		})
	}
	return viol
}

// lukasiewicz evaluates a filter formula.
func (o *oracle) lukasiewicz(f model.Formula, sub map[string]string) float64 {
	switch x := f.(type) {
	case *model.Atom:
		_, _, v := o.atomState(x.Pred, groundArgs(x, sub))
		return v
	case *model.Comparison:
		if o.cmpHolds(x, sub) {
			return 1
		}
		return 0
	case *model.Not:
		return 1 - o.lukasiewicz(x.X, sub)
	case *model.And:
		s := 0.0
		for _, a := range x.Args {
			s += o.lukasiewicz(a, sub)
		}
		return math.Max(0, s-float64(len(x.Args)-1))
	case *model.Or:
		s := 0.0
		for _, a := range x.Args {
			s += o.lukasiewicz(a, sub)
		}
		return math.Min(1, s)
	case *model.Implies:
		return math.Min(1, 1-o.lukasiewicz(x.Body, sub)+o.lukasiewicz(x.Head, sub))
	}
	panic(fmt.Sprintf("filter %T", f))
}

func (o *oracle) groundArith(r *model.Rule, out *[]opot) (viol int, bad bool) {
	ar := r.Arith
	plainSet := map[string]bool{}
	type sm struct {
		s    model.Summand
		sign float64
	}
	var summands []sm
	for si, side := range [][]model.Summand{ar.LHS, ar.RHS} {
		for _, s := range side {
			summands = append(summands, sm{s, 1 - 2*float64(si)})
			if s.Atom != nil {
				for _, t := range s.Atom.Args {
					if t.Kind == model.Variable {
						plainSet[t.Name] = true
					}
				}
			}
		}
	}
	var plain []string
	for v := range plainSet {
		plain = append(plain, v)
	}
	sort.Strings(plain)
	filters := map[string]model.Formula{}
	for _, f := range ar.Filters {
		filters[f.Var] = f.Expr
	}
	sub := map[string]string{}
	o.assignments(plain, sub, func() {
		// The join: every plain atom present; every summation atom has a
		// present row agreeing on its non-summation positions.
		for _, x := range summands {
			a := x.s.Atom
			if a == nil {
				continue
			}
			if !o.exists(a, sub) {
				return
			}
		}
		// Expansion of each summation atom, and |X|.
		values := map[string]map[string]bool{}
		expanded := make([][]string, len(summands)) // atom texts (summation atoms)
		for i, x := range summands {
			a := x.s.Atom
			if a == nil || !hasSumVar(a) {
				continue
			}
			var sv []string
			for _, t := range a.Args {
				if t.Kind == model.SumVariable && !slices.Contains(sv, t.Name) {
					sv = append(sv, t.Name)
				}
			}
			inner := map[string]string{}
			for k, v := range sub {
				inner[k] = v
			}
			o.assignments(sv, inner, func() {
				args := groundArgs(a, inner)
				if present, _, _ := o.atomState(a.Pred, args); !present {
					return
				}
				for _, v := range sv {
					if f, ok := filters[v]; ok && o.lukasiewicz(f, inner) <= 1e-9 {
						return
					}
				}
				expanded[i] = append(expanded[i], atomText(a.Pred, args))
				for _, v := range sv {
					if values[v] == nil {
						values[v] = map[string]bool{}
					}
					values[v][inner[v]] = true
				}
			})
		}
		card := func(v string) int { return len(values[v]) }
		k := 0.0
		terms := map[string]float64{}
		add := func(name string, c float64) {
			p, args := parseAtomText(r, name)
			_, target, v := o.atomState(p, args)
			if target {
				terms[name] += c
			} else {
				k += c * v
			}
		}
		for i, x := range summands {
			c := x.sign * model.EvalCoef(x.s.Coef, card)
			finite := !math.IsNaN(c) && !math.IsInf(c, 0)
			switch {
			case x.s.Atom == nil:
				if !finite {
					bad = true
					return
				}
				k += c
			case !hasSumVar(x.s.Atom):
				if !finite {
					bad = true
					return
				}
				add(atomText(x.s.Atom.Pred, groundArgs(x.s.Atom, sub)), c)
			default:
				if len(expanded[i]) > 0 && !finite {
					bad = true
					return
				}
				for _, name := range expanded[i] {
					add(name, c)
				}
			}
		}
		neg := map[string]float64{}
		for a, c := range terms {
			neg[a] = -c
		}
		switch {
		case ar.Rel == model.LE:
			if emitLE(r, terms, k, out) {
				viol++
			}
		case ar.Rel == model.GE:
			if emitLE(r, neg, -k, out) {
				viol++
			}
		case r.Weighted:
			emitLE(r, terms, k, out)
			emitLE(r, neg, -k, out)
		default:
			var ts []oterm
			for a, c := range terms {
				if c != 0 {
					ts = append(ts, oterm{a, c})
				}
			}
			sort.Slice(ts, func(i, j int) bool { return ts[i].atom < ts[j].atom })
			if len(ts) == 0 && math.Abs(k) <= 1e-9 {
				return
			}
			if len(ts) == 0 {
				viol++
			}
			*out = append(*out, opot{kind: kEqual, c: -k, group: int32(r.Index), terms: ts})
		}
	})
	return viol, bad
}

func hasSumVar(a *model.Atom) bool {
	for _, t := range a.Args {
		if t.Kind == model.SumVariable {
			return true
		}
	}
	return false
}

// exists reports whether some present atom of a's predicate agrees with a on
// its constant and plain-variable positions (summation positions free).
func (o *oracle) exists(a *model.Atom, sub map[string]string) bool {
	args := groundArgs(a, sub)
	var free []int
	for i, t := range a.Args {
		if t.Kind == model.SumVariable {
			free = append(free, i)
		}
	}
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(free) {
			present, _, _ := o.atomState(a.Pred, args)
			return present
		}
		for _, c := range o.domain {
			args[free[k]] = c
			if rec(k + 1) {
				return true
			}
		}
		return false
	}
	return rec(0)
}

// parseAtomText inverts atomText for the predicates of r.
func parseAtomText(r *model.Rule, s string) (*model.Predicate, []string) {
	i := strings.IndexByte(s, '(')
	name := s[:i]
	for _, a := range r.Atoms() {
		if a.Pred.Name == name {
			return a.Pred, strings.Split(s[i+1:len(s)-1], ",")
		}
	}
	panic("unknown predicate " + name)
}

// compareWithOracle grounds m over s with the grounder (at the given thread
// counts) and the oracle and fails on any difference.
func compareWithOracle(t *testing.T, m *model.Model, s *store.Store, threads ...int) *Result {
	t.Helper()
	want := newOracle(s).ground(m)
	var first *Result
	for _, th := range threads {
		res, err := Ground(m, s, Options{Threads: th})
		if want.badCoef {
			if err == nil {
				t.Fatalf("threads=%d: want a non-finite coefficient error, got none", th)
			}
			if !strings.Contains(err.Error(), "evaluates to") {
				t.Fatalf("threads=%d: unexpected error %v", th, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("threads=%d: %v", th, err)
		}
		if err := res.Problem.Validate(); err != nil {
			t.Fatalf("threads=%d: invalid problem: %v", th, err)
		}
		got := canonical(res.Problem, varNames(res.Grounder))
		if d := diffPots(got, want.items); d != "" {
			t.Fatalf("threads=%d: grounder and brute force differ:\n%s", th, d)
		}
		for i, st := range res.Rules {
			if st.ConstantViolated != want.violated[i] {
				t.Fatalf("threads=%d: rule %d: %d constant-violated constraints, brute force %d", th, i, st.ConstantViolated, want.violated[i])
			}
		}
		if first == nil {
			first = res
		} else if !problemsEqual(first.Problem, res.Problem) {
			t.Fatalf("threads=%d: problem differs from threads=%d", th, threads[0])
		}
	}
	return first
}

func diffPots(got, want []opot) string {
	var b strings.Builder
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case i < len(got) && j < len(want) && got[i].equal(want[j]):
			i++
			j++
		case j == len(want) || i < len(got) && got[i].key() < want[j].key():
			fmt.Fprintf(&b, "  extra:   %s\n", got[i].key())
			i++
		default:
			fmt.Fprintf(&b, "  missing: %s\n", want[j].key())
			j++
		}
	}
	return b.String()
}

func problemsEqual(a, b *hlmrf.Problem) bool {
	return a.NumVars == b.NumVars &&
		slices.Equal(a.Weight, b.Weight) && slices.Equal(a.Const, b.Const) && slices.Equal(a.Power, b.Power) &&
		slices.Equal(a.Group, b.Group) && slices.Equal(a.Start, b.Start) && slices.Equal(a.Var, b.Var) &&
		slices.Equal(a.Coef, b.Coef) && slices.Equal(a.CKind, b.CKind) && slices.Equal(a.CConst, b.CConst) &&
		slices.Equal(a.CGroup, b.CGroup) && slices.Equal(a.CStart, b.CStart) && slices.Equal(a.CVar, b.CVar) &&
		slices.Equal(a.CCoef, b.CCoef)
}
