// Package model holds validated predicates and rules: what a PSL model says,
// independent of how it was written down. The syntax package builds these
// values from text; a Go user can build them by hand with the constructors
// here. Nothing in this package reads files or knows about data.
//
// A model has predicates (name, arity, open or closed) and rules. A rule is
// either logical (a formula over atoms and term comparisons, turned into
// clauses for grounding) or arithmetic (a linear relation between sums of
// atoms). Either kind is weighted (a soft potential, optionally squared) or
// hard (a constraint).
package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/hinge-srl/hinge/srcpos"
)

// Predicate is a relation symbol. Names are matched case-insensitively.
type Predicate struct {
	Name   string // as declared
	Arity  int
	Closed bool // every atom is observed; a missing atom is 0
	Index  int  // position in Model.Predicates
}

// String returns Name/Arity.
func (p *Predicate) String() string { return fmt.Sprintf("%s/%d", p.Name, p.Arity) }

// Model is a set of predicates and the rules over them.
type Model struct {
	Predicates []*Predicate
	Rules      []*Rule
	byName     map[string]*Predicate
}

// New returns an empty model.
func New() *Model { return &Model{byName: make(map[string]*Predicate)} }

// AddPredicate declares a predicate. Declaring the same name (in any case)
// again with the same arity returns the existing predicate, updating
// Closed; a different arity is an error.
func (m *Model) AddPredicate(name string, arity int, closed bool) (*Predicate, error) {
	if !IsIdentifier(name) {
		return nil, fmt.Errorf("predicate name %q is not an identifier (letters, digits, '_' or '$', not starting with a digit)", name)
	}
	if arity < 1 {
		return nil, fmt.Errorf("predicate %s: arity %d must be at least 1", name, arity)
	}
	key := strings.ToLower(name)
	if p, ok := m.byName[key]; ok {
		if p.Arity != arity {
			return nil, fmt.Errorf("predicate %s declared with arity %d and %d", name, p.Arity, arity)
		}
		p.Closed = closed
		return p, nil
	}
	p := &Predicate{Name: name, Arity: arity, Closed: closed, Index: len(m.Predicates)}
	m.Predicates = append(m.Predicates, p)
	m.byName[key] = p
	return p, nil
}

// Predicate finds a predicate by name, ignoring case; nil if there is none.
func (m *Model) Predicate(name string) *Predicate { return m.byName[strings.ToLower(name)] }

// IsIdentifier reports whether s is a PSL identifier: a letter, '_' or '$'
// followed by letters, digits, '_' or '$'.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// AddRule resolves the rule's predicates against the model, validates it
// (see Validate) and appends it. On error the model is unchanged.
func (m *Model) AddRule(r *Rule) error {
	if err := m.Resolve(r); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	r.Index = len(m.Rules)
	m.Rules = append(m.Rules, r)
	return nil
}

// Resolve binds every atom of r to the model's predicate of that name and
// checks arities.
func (m *Model) Resolve(r *Rule) error {
	var err error
	r.eachAtom(func(a *Atom) {
		if err != nil {
			return
		}
		p := m.Predicate(a.PredName)
		if p == nil {
			err = srcpos.Errorf(a.Pos, "unknown predicate %s (declare it in the data file)", a.PredName)
			return
		}
		if len(a.Args) != p.Arity {
			err = srcpos.Errorf(a.Pos, "predicate %s takes %d argument%s, found %d", p.Name, p.Arity, plural(p.Arity), len(a.Args))
			return
		}
		a.Pred = p
	})
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Rule is a weighted or hard, logical or arithmetic rule. Exactly one of
// Logical and Arith is set.
type Rule struct {
	Weight   float64 // for weighted rules: finite and >= 0
	Weighted bool    // false: a hard constraint
	Squared  bool    // ^2: squared hinge
	Logical  Formula
	Arith    *Arithmetic
	Pos      srcpos.Position
	Text     string // the rule as written, for messages and reports (may be empty)
	Comment  string // comment lines written just before the rule, kept by the printer
	Index    int    // position in Model.Rules, set by AddRule
}

// eachAtom calls f on every atom of the rule (including filter atoms).
func (r *Rule) eachAtom(f func(*Atom)) {
	if r.Logical != nil {
		walkAtoms(r.Logical, f)
	}
	if r.Arith != nil {
		for _, s := range r.Arith.LHS {
			if s.Atom != nil {
				f(s.Atom)
			}
		}
		for _, s := range r.Arith.RHS {
			if s.Atom != nil {
				f(s.Atom)
			}
		}
		for _, fl := range r.Arith.Filters {
			walkAtoms(fl.Expr, f)
		}
	}
}

// Atoms returns every atom of the rule, in order of appearance.
func (r *Rule) Atoms() []*Atom {
	var out []*Atom
	r.eachAtom(func(a *Atom) { out = append(out, a) })
	return out
}

// walkLeaves calls fn on every atom and comparison of a formula, in order of
// appearance; walkAtoms and walkTerms are built on it.
func walkLeaves(f Formula, fn func(Formula)) {
	switch x := f.(type) {
	case *Atom, *Comparison:
		fn(x)
	case *Not:
		walkLeaves(x.X, fn)
	case *And:
		for _, a := range x.Args {
			walkLeaves(a, fn)
		}
	case *Or:
		for _, a := range x.Args {
			walkLeaves(a, fn)
		}
	case *Implies:
		walkLeaves(x.Body, fn)
		walkLeaves(x.Head, fn)
	}
}

// walkAtoms calls fn on every atom of a formula.
func walkAtoms(f Formula, fn func(*Atom)) {
	walkLeaves(f, func(l Formula) {
		if a, ok := l.(*Atom); ok {
			fn(a)
		}
	})
}

// Validate checks a resolved rule: a finite nonnegative weight, every atom
// resolved, and every variable bound (see Clause.Bound and
// Arithmetic.Validate). It returns an *srcpos.Error with the offending position.
func (r *Rule) Validate() error {
	if r.Weighted && (r.Weight < 0 || math.IsNaN(r.Weight) || math.IsInf(r.Weight, 0)) {
		return srcpos.Errorf(r.Pos, "weight %v must be a finite number >= 0", r.Weight)
	}
	if !r.Weighted && r.Squared {
		return srcpos.Errorf(r.Pos, "a hard rule (ending in '.') cannot be squared")
	}
	if (r.Logical == nil) == (r.Arith == nil) {
		return srcpos.Errorf(r.Pos, "a rule must be either logical or arithmetic")
	}
	var err error
	r.eachAtom(func(a *Atom) {
		if err == nil && a.Pred == nil {
			err = srcpos.Errorf(a.Pos, "atom %s is not resolved to a predicate", a.PredName)
		}
	})
	if err != nil {
		return err
	}
	if r.Logical != nil {
		clauses, err := Clauses(r.Logical)
		if err != nil {
			return srcpos.Errorf(r.Pos, "%v", err)
		}
		for _, c := range clauses {
			if err := c.checkBound(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := r.Arith.validate(); err != nil {
		if _, ok := err.(*srcpos.Error); !ok {
			err = srcpos.Errorf(r.Pos, "%v", err)
		}
		return err
	}
	return nil
}

// Term is a variable, a constant, or (in arithmetic rules) a summation
// variable written +X.
type Term struct {
	Kind TermKind
	Name string // variable name or constant value (unquoted)
	Pos  srcpos.Position
}

// TermKind says what a Term is.
type TermKind uint8

const (
	// Variable is a rule variable (an identifier).
	Variable TermKind = iota
	// Constant is a quoted constant.
	Constant
	// SumVariable is a summation variable +X in an arithmetic rule.
	SumVariable
)

// Var returns a variable term.
func Var(name string) Term { return Term{Kind: Variable, Name: name} }

// Const returns a constant term.
func Const(value string) Term { return Term{Kind: Constant, Name: value} }

// SumVar returns a summation variable term (+name).
func SumVar(name string) Term { return Term{Kind: SumVariable, Name: name} }

// IsVar reports whether t is a variable or a summation variable.
func (t Term) IsVar() bool { return t.Kind != Constant }

// Formula is a logical formula: *Atom, *Comparison, *Not, *And, *Or or
// *Implies.
type Formula interface {
	formula()
	// Position returns where the formula starts in the source.
	Position() srcpos.Position
}

// Atom is a predicate applied to terms.
type Atom struct {
	PredName string     // as written
	Pred     *Predicate // set by Model.Resolve
	Args     []Term
	Pos      srcpos.Position
}

// NewAtom returns an atom of p (already resolved).
func NewAtom(p *Predicate, args ...Term) *Atom {
	return &Atom{PredName: p.Name, Pred: p, Args: args}
}

// CmpOp is a term comparison operator.
type CmpOp uint8

const (
	// CmpEq is A == B.
	CmpEq CmpOp = iota
	// CmpNeq is A != B (also written A - B).
	CmpNeq
	// CmpNonSym is A % B (also A ^ B): true when A sorts before B, which
	// keeps one of each symmetric pair of groundings.
	CmpNonSym
)

// String returns the operator as PSL writes it.
func (o CmpOp) String() string {
	switch o {
	case CmpEq:
		return "=="
	case CmpNeq:
		return "!="
	}
	return "%"
}

// Comparison compares two terms; it is true or false once both are bound.
type Comparison struct {
	Op          CmpOp
	Left, Right Term
	Pos         srcpos.Position
}

// Not is negation.
type Not struct {
	X   Formula
	Pos srcpos.Position
}

// And is conjunction.
type And struct {
	Args []Formula
	Pos  srcpos.Position
}

// Or is disjunction.
type Or struct {
	Args []Formula
	Pos  srcpos.Position
}

// Implies is Body -> Head (a reversed arrow Head <- Body is stored the same
// way with Reversed set, so the printer can write it back as it was).
type Implies struct {
	Body, Head Formula
	Reversed   bool
	Pos        srcpos.Position
}

func (*Atom) formula()       {}
func (*Comparison) formula() {}
func (*Not) formula()        {}
func (*And) formula()        {}
func (*Or) formula()         {}
func (*Implies) formula()    {}

// Position implements Formula.
func (a *Atom) Position() srcpos.Position { return a.Pos }

// Position implements Formula.
func (c *Comparison) Position() srcpos.Position { return c.Pos }

// Position implements Formula.
func (n *Not) Position() srcpos.Position { return n.Pos }

// Position implements Formula.
func (a *And) Position() srcpos.Position { return a.Pos }

// Position implements Formula.
func (o *Or) Position() srcpos.Position { return o.Pos }

// Position implements Formula.
func (i *Implies) Position() srcpos.Position { return i.Pos }

// Literal is an atom or a comparison, possibly negated: one disjunct of a
// clause. Exactly one of Atom and Cmp is set.
type Literal struct {
	Atom *Atom
	Cmp  *Comparison
	Neg  bool
}

// Clause is a disjunction of literals. Its ground potential in Lukasiewicz
// logic is w * max(0, 1 - sum of literal truth values)^p.
type Clause []Literal

// MaxClauses bounds how many clauses one rule may expand to in CNF.
const MaxClauses = 256

// Clauses converts a logical formula to conjunctive normal form: a list of
// clauses, each grounded as its own potential with the rule's weight (for
// the usual PSL rule, body conjunction -> head disjunction, there is exactly
// one). Clauses with complementary literals (always true) are dropped.
//
// A formula may share subformulas (a Markov logic equivalence l <=> r is
// the conjunction of l -> r and r -> l over the same l and r). Negations
// are pushed down during the conversion rather than by first copying the
// formula into a tree, and the MaxClauses bound applies to every
// subformula as its clauses are produced, so a formula is refused after
// work bounded by its size: nested equivalences, whose expanded tree
// doubles with each level, are refused in microseconds at any depth.
func Clauses(f Formula) ([]Clause, error) {
	cs, err := CNF(f)
	if err != nil {
		return nil, err
	}
	out := make([]Clause, 0, len(cs))
	for _, c := range cs {
		if !Tautology(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// CNF is Clauses without dropping the tautologies: every clause of the
// plain distribution of f's negation normal form, in order. Markov logic
// divides a formula's weight by this count (Alchemy counts the clauses of
// its conjunctive normal form before any is found always true).
func CNF(f Formula) ([]Clause, error) {
	b := cnfBuilder{shared: sharedSubformulas(f)}
	return b.cnf(f, false)
}

// errTooManyClauses is the error of a formula beyond MaxClauses.
func errTooManyClauses() error {
	return fmt.Errorf("rule expands to more than %d clauses; simplify it", MaxClauses)
}

// cnfBuilder converts one formula. The clauses of a shared subformula are
// worked out once per polarity (memo); results are never modified once
// returned, so they may be shared.
type cnfBuilder struct {
	shared map[Formula]bool
	memo   map[cnfKey][]Clause
}

type cnfKey struct {
	f   Formula
	neg bool
}

// compound reports whether f has subformulas worth remembering the clauses
// of: a connective, or a negation of one.
func compound(f Formula) bool {
	switch x := f.(type) {
	case *And, *Or, *Implies:
		return true
	case *Not:
		return compound(x.X)
	}
	return false
}

// sharedSubformulas returns the compound subformulas of f reached from
// more than one parent (nil when there are none, as in any formula read
// from PSL text). Each subformula is visited once.
func sharedSubformulas(f Formula) map[Formula]bool {
	var parents map[Formula]int
	var shared map[Formula]bool
	stack := []Formula{f}
	visit := func(c Formula) {
		if !compound(c) {
			return
		}
		if parents == nil {
			parents = map[Formula]int{}
		}
		parents[c]++
		switch parents[c] {
		case 1:
			stack = append(stack, c)
		case 2:
			if shared == nil {
				shared = map[Formula]bool{}
			}
			shared[c] = true
		}
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case *Not:
			visit(x.X)
		case *And:
			for _, a := range x.Args {
				visit(a)
			}
		case *Or:
			for _, a := range x.Args {
				visit(a)
			}
		case *Implies:
			visit(x.Body)
			visit(x.Head)
		}
	}
	return shared
}

// cnf returns the clauses of f, or of !f when neg is set: those of f's
// negation normal form, in the same order, with at most MaxClauses at
// every step.
func (b *cnfBuilder) cnf(f Formula, neg bool) ([]Clause, error) {
	if !b.shared[f] {
		return b.convert(f, neg)
	}
	k := cnfKey{f, neg}
	if cs, ok := b.memo[k]; ok {
		return cs, nil
	}
	cs, err := b.convert(f, neg)
	if err != nil {
		return nil, err
	}
	if b.memo == nil {
		b.memo = map[cnfKey][]Clause{}
	}
	b.memo[k] = cs
	return cs, nil
}

func (b *cnfBuilder) convert(f Formula, neg bool) ([]Clause, error) {
	switch x := f.(type) {
	case *Atom:
		return []Clause{{Literal{Atom: x, Neg: neg}}}, nil
	case *Comparison:
		return []Clause{{Literal{Cmp: x, Neg: neg}}}, nil
	case *Not:
		return b.cnf(x.X, !neg)
	case *And:
		// By De Morgan, !(a & b) is !a | !b.
		if neg {
			return b.disjunction(len(x.Args), func(i int) (Formula, bool) { return x.Args[i], true })
		}
		return b.conjunction(len(x.Args), func(i int) (Formula, bool) { return x.Args[i], false })
	case *Or:
		if neg {
			return b.conjunction(len(x.Args), func(i int) (Formula, bool) { return x.Args[i], true })
		}
		return b.disjunction(len(x.Args), func(i int) (Formula, bool) { return x.Args[i], false })
	case *Implies:
		// B -> H  ==  !B | H ;  !(B -> H) == B & !H
		if neg {
			return b.conjunction(2, func(i int) (Formula, bool) {
				if i == 0 {
					return x.Body, false
				}
				return x.Head, true
			})
		}
		return b.disjunction(2, func(i int) (Formula, bool) {
			if i == 0 {
				return x.Body, true
			}
			return x.Head, false
		})
	}
	panic(fmt.Sprintf("model: unknown formula %T", f))
}

// conjunction returns the clauses of the conjunction of n operands (the
// i-th is arg(i), negated when its flag is set): all their clauses.
func (b *cnfBuilder) conjunction(n int, arg func(int) (Formula, bool)) ([]Clause, error) {
	var out []Clause
	for i := range n {
		cs, err := b.cnf(arg(i))
		if err != nil {
			return nil, err
		}
		if len(out)+len(cs) > MaxClauses {
			return nil, errTooManyClauses()
		}
		out = append(out, cs...)
	}
	return out, nil
}

// disjunction returns the clauses of the disjunction of n operands: every
// clause made of one clause of each operand.
func (b *cnfBuilder) disjunction(n int, arg func(int) (Formula, bool)) ([]Clause, error) {
	acc := []Clause{{}}
	for i := range n {
		cs, err := b.cnf(arg(i))
		if err != nil {
			return nil, err
		}
		if len(acc)*len(cs) > MaxClauses {
			return nil, errTooManyClauses()
		}
		if len(cs) == 1 {
			// The usual case (a literal): extend every clause in place
			// rather than copying it, which made a disjunction of k
			// literals cost O(k^2). Each clause of acc owns its array.
			for i := range acc {
				acc[i] = append(acc[i], cs[0]...)
			}
			continue
		}
		next := make([]Clause, 0, len(acc)*len(cs))
		for _, c1 := range acc {
			for _, c2 := range cs {
				c := make(Clause, 0, len(c1)+len(c2))
				c = append(append(c, c1...), c2...)
				next = append(next, c)
			}
		}
		acc = next
	}
	return acc, nil
}

// sameLiteralTarget reports whether two literals refer to the same atom or
// comparison syntactically.
func sameLiteralTarget(a, b Literal) bool {
	if (a.Atom == nil) != (b.Atom == nil) {
		return false
	}
	if a.Atom != nil {
		if !strings.EqualFold(a.Atom.PredName, b.Atom.PredName) || len(a.Atom.Args) != len(b.Atom.Args) {
			return false
		}
		for i := range a.Atom.Args {
			if a.Atom.Args[i].Kind != b.Atom.Args[i].Kind || a.Atom.Args[i].Name != b.Atom.Args[i].Name {
				return false
			}
		}
		return true
	}
	return a.Cmp.Op == b.Cmp.Op && a.Cmp.Left.Kind == b.Cmp.Left.Kind && a.Cmp.Left.Name == b.Cmp.Left.Name &&
		a.Cmp.Right.Kind == b.Cmp.Right.Kind && a.Cmp.Right.Name == b.Cmp.Right.Name
}

// Tautology reports whether the clause holds a literal and its negation.
// Literals are keyed by what they refer to, so a clause of k literals costs
// O(k), not the O(k^2) of comparing every pair.
func Tautology(c Clause) bool {
	if len(c) < 16 {
		for i := range c {
			for j := i + 1; j < len(c); j++ {
				if c[i].Neg != c[j].Neg && sameLiteralTarget(c[i], c[j]) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(c)) // target -> negated
	for _, l := range c {
		k := TargetKey(l)
		if neg, ok := seen[k]; ok && neg != l.Neg {
			return true
		}
		seen[k] = l.Neg
	}
	return false
}

// TargetKey names what a literal refers to, without its sign: its atom
// (the predicate's name without case, as everywhere in Markov logic, and
// its arguments) or its comparison. Two literals have one key exactly when
// they refer to the same atom or comparison.
func TargetKey(l Literal) string {
	var b strings.Builder
	term := func(t Term) {
		b.WriteByte(byte('0' + t.Kind))
		b.WriteString(t.Name)
		b.WriteByte(0)
	}
	if l.Atom != nil {
		b.WriteString("a")
		b.WriteString(strings.ToLower(l.Atom.PredName))
		b.WriteByte(0)
		for _, t := range l.Atom.Args {
			term(t)
		}
	} else {
		b.WriteString("c")
		b.WriteByte(byte('0' + l.Cmp.Op))
		term(l.Cmp.Left)
		term(l.Cmp.Right)
	}
	return b.String()
}

// Bound returns the variables of the clause that grounding enumerates: those
// of the atoms the clause negates (the rule's positive body atoms), whose
// groundings are the atoms present in the data. A clause made of a single
// positive atom (a prior such as "w: Friends(A, B)") binds its own variables.
func (c Clause) Bound() map[string]bool {
	b := make(map[string]bool)
	for _, l := range c {
		if l.Atom != nil && (l.Neg || len(c) == 1) {
			for _, t := range l.Atom.Args {
				if t.Kind == Variable {
					b[t.Name] = true
				}
			}
		}
	}
	return b
}

// checkBound reports the first variable of the clause that no binding atom
// binds.
func (c Clause) checkBound() error {
	b := c.Bound()
	for _, l := range c {
		var terms []Term
		var pos srcpos.Position
		if l.Atom != nil {
			terms, pos = l.Atom.Args, l.Atom.Pos
			for _, t := range terms {
				if t.Kind == SumVariable {
					return srcpos.Errorf(t.Pos, "summation variable +%s is only allowed in arithmetic rules", t.Name)
				}
			}
		} else {
			terms, pos = []Term{l.Cmp.Left, l.Cmp.Right}, l.Cmp.Pos
		}
		for _, t := range terms {
			if t.Kind == Variable && !b[t.Name] {
				at := t.Pos
				if !at.IsValid() {
					at = pos
				}
				return srcpos.Errorf(at, "variable %s is not bound: it must appear in a positive atom of the rule's body (an atom the rule's clause negates)", t.Name)
			}
		}
	}
	return nil
}
