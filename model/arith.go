package model

import (
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/srcpos"
)

// Relation is the comparison of an arithmetic rule.
type Relation uint8

const (
	// LE is lhs <= rhs.
	LE Relation = iota
	// GE is lhs >= rhs.
	GE
	// EQ is lhs = rhs.
	EQ
)

// String returns "<=", ">=" or "=".
func (r Relation) String() string {
	switch r {
	case LE:
		return "<="
	case GE:
		return ">="
	}
	return "="
}

// Arithmetic is an arithmetic rule: sum(LHS) Rel sum(RHS), with optional
// filter clauses restricting summation variables. A weighted rule's ground
// potential is w*max(lhs-rhs, 0)^p for <=, w*max(rhs-lhs, 0)^p for >=, and
// both for =; a hard rule is a linear constraint.
type Arithmetic struct {
	LHS, RHS []Summand
	Rel      Relation
	Filters  []Filter
}

// Summand is Coef * Atom, or the constant Coef when Atom is nil. A nil Coef
// means 1.
type Summand struct {
	Coef Coefficient
	Atom *Atom
}

// Filter restricts the values of a summation variable to those for which
// Expr (over observed atoms) is true: {Var: Expr}.
type Filter struct {
	Var  string
	Expr Formula
	Pos  srcpos.Position
}

// Coefficient is a numeric expression in an arithmetic rule: *Number,
// *Cardinality, *CoefFunc or *CoefBinary.
type Coefficient interface {
	coefficient()
}

// Number is a numeric literal.
type Number struct{ Value float64 }

// Cardinality is |X|: the number of groundings of the summation variable X in
// the ground rule.
type Cardinality struct {
	Var string
	Pos srcpos.Position
}

// CoefFunc is @Max[a, b] or @Min[a, b].
type CoefFunc struct {
	Max  bool // true for @Max, false for @Min
	A, B Coefficient
}

// CoefBinary is A op B with op one of + - * /.
type CoefBinary struct {
	Op   byte
	A, B Coefficient
}

func (*Number) coefficient()      {}
func (*Cardinality) coefficient() {}
func (*CoefFunc) coefficient()    {}
func (*CoefBinary) coefficient()  {}

// EvalCoef evaluates a coefficient; card gives |X| for summation variable X.
// A nil coefficient is 1.
func EvalCoef(c Coefficient, card func(v string) int) float64 {
	switch x := c.(type) {
	case nil:
		return 1
	case *Number:
		return x.Value
	case *Cardinality:
		return float64(card(x.Var))
	case *CoefFunc:
		a, b := EvalCoef(x.A, card), EvalCoef(x.B, card)
		if x.Max {
			return math.Max(a, b)
		}
		return math.Min(a, b)
	case *CoefBinary:
		a, b := EvalCoef(x.A, card), EvalCoef(x.B, card)
		switch x.Op {
		case '+':
			return a + b
		case '-':
			return a - b
		case '*':
			return a * b
		case '/':
			return a / b
		}
	}
	panic(fmt.Sprintf("model: unknown coefficient %T", c))
}

// HasCardinality reports whether the coefficient refers to some |X|.
func HasCardinality(c Coefficient) bool {
	found := false
	coefCards(c, func(*Cardinality) { found = true })
	return found
}

// coefCards calls f on every |X| of the coefficient.
func coefCards(c Coefficient, f func(*Cardinality)) {
	switch x := c.(type) {
	case *Cardinality:
		f(x)
	case *CoefFunc:
		coefCards(x.A, f)
		coefCards(x.B, f)
	case *CoefBinary:
		coefCards(x.A, f)
		coefCards(x.B, f)
	}
}

// SumVariables returns the summation variables of the rule in order of first
// appearance.
func (a *Arithmetic) SumVariables() []string {
	var out []string
	seen := map[string]bool{}
	for _, side := range [][]Summand{a.LHS, a.RHS} {
		for _, s := range side {
			if s.Atom == nil {
				continue
			}
			for _, t := range s.Atom.Args {
				if t.Kind == SumVariable && !seen[t.Name] {
					seen[t.Name] = true
					out = append(out, t.Name)
				}
			}
		}
	}
	return out
}

// validate checks the variable structure of an arithmetic rule:
// a summation variable is used only with '+' and only in one atom... of any
// number of atoms, |X| and filters name summation variables, filter atoms
// are closed and use only the filter's variable and the rule's bound
// variables, and the rule has at least one atom.
func (a *Arithmetic) validate() error {
	sumVars := map[string]bool{}
	plainVars := map[string]bool{}
	atoms := 0
	sides := [][]Summand{a.LHS, a.RHS}
	for _, side := range sides {
		for _, s := range side {
			if s.Atom == nil {
				continue
			}
			atoms++
			for _, t := range s.Atom.Args {
				switch t.Kind {
				case SumVariable:
					sumVars[t.Name] = true
				case Variable:
					plainVars[t.Name] = true
				}
			}
		}
	}
	for _, side := range sides {
		for _, s := range side {
			var err error
			coefCards(s.Coef, func(c *Cardinality) {
				if err == nil && !sumVars[c.Var] {
					err = srcpos.Errorf(c.Pos, "|%s| must name a summation variable of the rule (+%s)", c.Var, c.Var)
				}
			})
			if err != nil {
				return err
			}
		}
	}
	if atoms == 0 {
		return fmt.Errorf("arithmetic rule has no atoms")
	}
	for v := range sumVars {
		if plainVars[v] {
			return fmt.Errorf("variable %s is used both as a summation variable (+%s) and as a plain variable", v, v)
		}
	}
	seenFilter := map[string]bool{}
	for _, f := range a.Filters {
		if !sumVars[f.Var] {
			return srcpos.Errorf(f.Pos, "filter {%s: ...} must name a summation variable of the rule", f.Var)
		}
		if seenFilter[f.Var] {
			return srcpos.Errorf(f.Pos, "two filters for summation variable %s; combine them with &", f.Var)
		}
		seenFilter[f.Var] = true
		var err error
		walkTerms(f.Expr, func(t Term, at srcpos.Position) {
			if err != nil || t.Kind != Variable {
				return
			}
			if t.Name != f.Var && !plainVars[t.Name] {
				err = srcpos.Errorf(at, "variable %s in filter {%s: ...} is neither the filter variable nor bound by the rule", t.Name, f.Var)
			}
		})
		if err != nil {
			return err
		}
		walkAtoms(f.Expr, func(at *Atom) {
			if err == nil && at.Pred != nil && !at.Pred.Closed {
				err = srcpos.Errorf(at.Pos, "filter atom %s must be of a closed (observed) predicate", at.Pred.Name)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// walkTerms calls f on every term of a formula with the position of the
// enclosing atom or comparison.
func walkTerms(f Formula, fn func(Term, srcpos.Position)) {
	walkLeaves(f, func(l Formula) {
		switch x := l.(type) {
		case *Atom:
			for _, t := range x.Args {
				fn(t, x.Pos)
			}
		case *Comparison:
			fn(x.Left, x.Pos)
			fn(x.Right, x.Pos)
		}
	})
}
