package syntax

import (
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/model"
)

// parseNumber parses an unsigned numeric literal; overflow to ±Inf is an
// error (the lexer guarantees the syntax).
func parseNumber(text string) (float64, error) {
	v, err := num.Parse(text)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("number %s is out of range", text)
	}
	return v, nil
}

// An arithmetic side is parsed as an expression over numbers, |X|, @Max,
// @Min, atoms and + - * / with parentheses, and is linearised on the fly into
// a list of terms. A term is sign * coef * atom (atom nil: the constant
// sign * coef; coef nil: 1). Products and quotients of numbers stay symbolic
// (model.CoefBinary), because |X| is only known at grounding time.
//
// Negating a term folds into a numeric coefficient (-2 is the Number -2, -A
// has the Number -1) and otherwise flips neg; neg is folded into the
// coefficient as (-1) * c when the term becomes a model.Summand. Invariant:
// neg is set only when coef is neither nil nor a *model.Number. The printer
// relies on this normal form to write text that parses back to the same
// structure.
type term struct {
	neg  bool
	coef model.Coefficient
	atom *model.Atom
}

// linear is a sum of terms; it is pure when it has no atom.
type linear []term

func (e linear) pure() bool {
	for _, t := range e {
		if t.atom != nil {
			return false
		}
	}
	return true
}

// arithmetic parses lhs rel rhs.
func (p *parser) arithmetic() *model.Arithmetic {
	lhs := p.sum()
	var rel model.Relation
	switch t := p.tok(); t.kind {
	case tEq:
		rel = model.EQ
	case tLE:
		rel = model.LE
	case tGE:
		rel = model.GE
	default:
		p.fail("expected '+', '-', '=', '<=' or '>=', found %s", p.describe(t))
	}
	p.i++
	rhs := p.sum()
	return &model.Arithmetic{LHS: summands(lhs), RHS: summands(rhs), Rel: rel}
}

// sum := product (('+' | '-') product)*
func (p *parser) sum() linear {
	e := p.product()
	for k := p.tok().kind; k == tPlus || k == tMinus; k = p.tok().kind {
		p.i++
		u := p.product()
		if k == tMinus {
			u = negate(u)
		}
		e = append(e, u...)
	}
	return e
}

// product := unary (('*' | '/') unary | atom)*, where an atom directly after
// a coefficient on the same line ("2 A(X)") multiplies it.
func (p *parser) product() linear {
	e := p.unary()
	for {
		op := p.i
		switch t := p.tok(); {
		case t.kind == tStar:
			p.i++
			e = p.mul(e, p.unary(), op)
		case t.kind == tSlash:
			p.i++
			e = p.div(e, p.unary(), op)
		case t.kind == tIdent && p.at(1).kind == tLParen && e.pure() && p.pos(t).Line == p.pos(p.toks[p.i-1]).Line:
			e = p.mul(e, p.unary(), op)
		default:
			return e
		}
	}
}

// unary := ('-' | '+') unary | primary
func (p *parser) unary() linear {
	switch p.tok().kind {
	case tMinus:
		p.i++
		p.enter()
		e := negate(p.unary())
		p.leave()
		return e
	case tPlus:
		p.i++
		p.enter()
		e := p.unary()
		p.leave()
		return e
	}
	return p.primary()
}

// primary := NUMBER | '|' IDENT '|' | (@Max | @Min) ('[' | '(') sum ',' sum (']' | ')')
//
//	| '(' sum ')' | atom
func (p *parser) primary() linear {
	t := p.tok()
	switch t.kind {
	case tNumber:
		v, err := parseNumber(p.text(t))
		if err != nil {
			p.fail("%v", err)
		}
		p.i++
		return linear{{coef: &model.Number{Value: v}}}
	case tPipe:
		p.i++
		v := p.tok()
		if v.kind != tIdent {
			p.fail("expected a summation variable after '|' (the cardinality |X|), found %s", p.describe(v))
		}
		p.i++
		if p.tok().kind != tPipe {
			p.fail("expected '|' to close |%s, found %s", p.text(v), p.describe(p.tok()))
		}
		p.i++
		return linear{{coef: &model.Cardinality{Var: p.text(v), Pos: p.pos(t)}}}
	case tMax, tMin:
		return p.coefFunc()
	case tLParen:
		p.enter()
		p.i++
		e := p.sum()
		if p.tok().kind != tRParen {
			p.fail("expected ')' to close the '(' at %s, found %s", lineCol(p.pos(t)), p.describe(p.tok()))
		}
		p.i++
		p.leave()
		return e
	case tIdent:
		if p.at(1).kind == tLParen {
			return linear{{atom: p.atom(true)}}
		}
		p.failAt(p.i+1, "expected '(' after predicate name %s (term comparisons cannot appear in arithmetic rules), found %s", p.text(t), p.describe(p.at(1)))
	case tString:
		p.fail("a quoted constant is not a number: expected a number, an atom, |X|, @Max, @Min or '(', found %s", p.describe(t))
	}
	p.fail("expected a number, an atom, |X|, @Max, @Min or '(', found %s", p.describe(t))
	return nil
}

// coefFunc parses @Max[a, b] or @Min[a, b] (brackets or parentheses).
func (p *parser) coefFunc() linear {
	fn := p.tok()
	name := "@Max"
	if fn.kind == tMin {
		name = "@Min"
	}
	p.i++
	var closer tokenKind
	switch p.tok().kind {
	case tLBrack:
		closer = tRBrack
	case tLParen:
		closer = tRParen
	default:
		p.fail("expected '[' or '(' after %s, found %s", name, p.describe(p.tok()))
	}
	p.i++
	p.enter()
	a := p.coefArg(name)
	if p.tok().kind != tComma {
		p.fail("expected ',' between the two arguments of %s, found %s", name, p.describe(p.tok()))
	}
	p.i++
	b := p.coefArg(name)
	if p.tok().kind != closer {
		c := "]"
		if closer == tRParen {
			c = ")"
		}
		p.fail("expected '%s' to close %s, found %s", c, name, p.describe(p.tok()))
	}
	p.i++
	p.leave()
	return linear{{coef: &model.CoefFunc{Max: fn.kind == tMax, A: a, B: b}}}
}

func (p *parser) coefArg(name string) model.Coefficient {
	start := p.i
	e := p.sum()
	if !e.pure() {
		p.failAt(start, "the arguments of %s must be numbers, not atoms", name)
	}
	return combine(e)
}

// negate returns -e.
func negate(e linear) linear {
	out := make(linear, len(e))
	for i, t := range e {
		switch c := t.coef.(type) {
		case nil:
			t.coef = &model.Number{Value: -1}
		case *model.Number:
			t.coef = &model.Number{Value: -c.Value}
		default:
			t.neg = !t.neg
		}
		out[i] = t
	}
	return out
}

// factor returns a pure expression as one signed coefficient: a single term
// as it is, a sum of several combined.
func factor(e linear) (bool, model.Coefficient) {
	if len(e) == 1 {
		return e[0].neg, e[0].coef
	}
	return false, combine(e)
}

// combine folds a pure sum into one coefficient, left to right: a negated
// term or a negative number is subtracted, anything else added.
func combine(e linear) model.Coefficient {
	acc := applySign(e[0])
	for _, t := range e[1:] {
		n, isNum := t.coef.(*model.Number)
		switch {
		case t.neg:
			acc = &model.CoefBinary{Op: '-', A: acc, B: t.coef}
		case isNum && n.Value < 0:
			acc = &model.CoefBinary{Op: '-', A: acc, B: &model.Number{Value: -n.Value}}
		default:
			acc = &model.CoefBinary{Op: '+', A: acc, B: t.coef}
		}
	}
	return acc
}

// applySign folds a term's sign into its coefficient.
func applySign(t term) model.Coefficient {
	if !t.neg {
		return t.coef
	}
	switch c := t.coef.(type) {
	case nil:
		return &model.Number{Value: -1}
	case *model.Number:
		return &model.Number{Value: -c.Value}
	}
	return &model.CoefBinary{Op: '*', A: &model.Number{Value: -1}, B: t.coef}
}

// mul returns a * b; one side must be pure (rules are linear).
func (p *parser) mul(a, b linear, op int) linear {
	switch {
	case a.pure() && b.pure():
		na, ca := factor(a)
		nb, cb := factor(b)
		return linear{{neg: na != nb, coef: &model.CoefBinary{Op: '*', A: ca, B: cb}}}
	case a.pure():
		na, ca := factor(a)
		return scale(b, na, ca, true)
	case b.pure():
		nb, cb := factor(b)
		return scale(a, nb, cb, false)
	}
	p.failAt(op, "the product of two expressions that both contain atoms is not linear")
	return nil
}

// scale multiplies every term of e by the signed coefficient (neg, c),
// written on the left of each term's coefficient when left is set (as in
// "c * e") and on the right otherwise ("e * c"), so the product keeps the
// source's order.
func scale(e linear, neg bool, c model.Coefficient, left bool) linear {
	out := make(linear, len(e))
	for i, t := range e {
		k := cloneCoef(c, i)
		switch {
		case t.coef == nil:
		case left:
			k = &model.CoefBinary{Op: '*', A: k, B: t.coef}
		default:
			k = &model.CoefBinary{Op: '*', A: t.coef, B: k}
		}
		out[i] = term{neg: neg != t.neg, coef: k, atom: t.atom}
	}
	return out
}

// div returns a / b; b must be pure.
func (p *parser) div(a, b linear, op int) linear {
	if !b.pure() {
		p.failAt(op, "cannot divide by an expression that contains atoms (rules must be linear)")
	}
	nb, cb := factor(b)
	if a.pure() {
		na, ca := factor(a)
		return linear{{neg: na != nb, coef: &model.CoefBinary{Op: '/', A: ca, B: cb}}}
	}
	out := make(linear, len(a))
	for i, t := range a {
		num := t.coef
		if num == nil {
			num = &model.Number{Value: 1}
		}
		out[i] = term{neg: t.neg != nb, coef: &model.CoefBinary{Op: '/', A: num, B: cloneCoef(cb, i)}, atom: t.atom}
	}
	return out
}

// cloneCoef returns c for the first use (i == 0) and a deep copy after, so
// that no two summands share coefficient nodes.
func cloneCoef(c model.Coefficient, i int) model.Coefficient {
	if i == 0 {
		return c
	}
	switch x := c.(type) {
	case *model.Number:
		y := *x
		return &y
	case *model.Cardinality:
		y := *x
		return &y
	case *model.CoefFunc:
		return &model.CoefFunc{Max: x.Max, A: cloneCoef(x.A, 1), B: cloneCoef(x.B, 1)}
	case *model.CoefBinary:
		return &model.CoefBinary{Op: x.Op, A: cloneCoef(x.A, 1), B: cloneCoef(x.B, 1)}
	}
	return c
}

// summands converts a parsed side to model summands.
func summands(e linear) []model.Summand {
	out := make([]model.Summand, len(e))
	for i, t := range e {
		out[i] = model.Summand{Coef: applySign(t), Atom: t.atom}
	}
	return out
}
