package syntax

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// Format returns the PSL text of one rule (without its comment): weights
// with the fewest digits that read back exactly, '!' for negation, '&',
// '|', '->' (or '<-' for a reversed implication), comparisons in
// parentheses as PSL writes them, "^2" for squared rules, " ." ending hard
// rules. For a rule the parser produced, ParseRule(Format(r)) gives the same
// structure back (positions, Text and Comment aside). Format does not
// validate: a rule that is neither logical nor arithmetic, or that has a
// negative or non-finite weight or coefficient, gives text that does not
// parse.
func Format(r *model.Rule) string {
	var b strings.Builder
	if r.Weighted {
		b.WriteString(formatNumber(r.Weight))
		b.WriteString(": ")
	}
	switch {
	case r.Logical != nil:
		writeFormula(&b, r.Logical, ctxTop)
	case r.Arith != nil:
		writeSide(&b, r.Arith.LHS)
		b.WriteByte(' ')
		b.WriteString(r.Arith.Rel.String())
		b.WriteByte(' ')
		writeSide(&b, r.Arith.RHS)
	}
	if r.Weighted && r.Squared {
		b.WriteString(" ^2")
	}
	if !r.Weighted {
		b.WriteString(" .")
	}
	if r.Arith != nil {
		for _, f := range r.Arith.Filters {
			b.WriteString(" {")
			b.WriteString(f.Var)
			b.WriteString(": ")
			writeFormula(&b, f.Expr, ctxTop)
			b.WriteByte('}')
		}
	}
	return b.String()
}

// Print writes rules as a .psl file, one rule per line, each preceded by its
// Comment (after a blank line, except for the first rule). A Comment that is
// not made only of comments has each of its lines written as a '#' comment.
// A weighted arithmetic rule without an exponent or filter that is followed
// by a rule starting with '-' gets an explicit "^1", which keeps the two
// rules apart when the file is read back.
func Print(w io.Writer, rules []*model.Rule) error {
	texts := make([]string, len(rules))
	for i, r := range rules {
		texts[i] = Format(r)
	}
	for i := 0; i+1 < len(rules); i++ {
		r := rules[i]
		if r.Weighted && !r.Squared && r.Arith != nil && len(r.Arith.Filters) == 0 {
			if strings.HasPrefix(texts[i+1], "-") {
				texts[i] += " ^1"
			}
		}
	}
	bw := bufio.NewWriter(w)
	for i, r := range rules {
		if r.Comment != "" {
			if i > 0 {
				bw.WriteByte('\n')
			}
			writeComment(bw, r.Comment)
		}
		bw.WriteString(texts[i])
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func writeComment(w *bufio.Writer, c string) {
	if onlyComments(c) {
		w.WriteString(c)
		w.WriteByte('\n')
		return
	}
	for _, line := range strings.Split(c, "\n") {
		if strings.TrimSpace(line) != "" {
			w.WriteString("# ")
			w.WriteString(line)
		}
		w.WriteByte('\n')
	}
}

// onlyComments reports whether s lexes to comments and whitespace only.
func onlyComments(s string) bool {
	var errs ErrorList
	toks, _ := lex([]byte(s), srcpos.Position{}, nil, &errs)
	return len(errs) == 0 && len(toks) == 1
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Formula contexts, for deciding parentheses.
const (
	ctxTop  = iota // the whole rule, or inside parentheses
	ctxImpl        // a side of an implication
	ctxOr          // an operand of '|'
	ctxAnd         // an operand of '&'
	ctxNot         // the operand of '!'
)

func writeFormula(b *strings.Builder, f model.Formula, ctx int) {
	switch x := f.(type) {
	case *model.Atom:
		writeAtom(b, x)
	case *model.Comparison:
		b.WriteByte('(')
		writeTerm(b, x.Left)
		b.WriteByte(' ')
		b.WriteString(x.Op.String())
		b.WriteByte(' ')
		writeTerm(b, x.Right)
		b.WriteByte(')')
	case *model.Not:
		b.WriteByte('!')
		writeFormula(b, x.X, ctxNot)
	case *model.And:
		writeJunction(b, x.Args, " & ", ctx >= ctxOr, ctxAnd)
	case *model.Or:
		writeJunction(b, x.Args, " | ", ctx >= ctxOr, ctxOr)
	case *model.Implies:
		if ctx != ctxTop {
			b.WriteByte('(')
		}
		if x.Reversed {
			writeFormula(b, x.Head, ctxImpl)
			b.WriteString(" <- ")
			writeFormula(b, x.Body, ctxImpl)
		} else {
			writeFormula(b, x.Body, ctxImpl)
			b.WriteString(" -> ")
			writeFormula(b, x.Head, ctxImpl)
		}
		if ctx != ctxTop {
			b.WriteByte(')')
		}
	}
}

func writeJunction(b *strings.Builder, args []model.Formula, sep string, paren bool, ctx int) {
	if paren {
		b.WriteByte('(')
	}
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		writeFormula(b, a, ctx)
	}
	if paren {
		b.WriteByte(')')
	}
}

func writeAtom(b *strings.Builder, a *model.Atom) {
	b.WriteString(a.PredName)
	b.WriteByte('(')
	for i, t := range a.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeTerm(b, t)
	}
	b.WriteByte(')')
}

func writeTerm(b *strings.Builder, t model.Term) {
	switch t.Kind {
	case model.Constant:
		b.WriteString(Quote(t.Name))
	case model.SumVariable:
		b.WriteByte('+')
		b.WriteString(t.Name)
	default:
		b.WriteString(t.Name)
	}
}

// Quote returns s as a single-quoted PSL constant, escaping \, ', tab,
// newline and carriage return.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// writeSide writes a sum of summands. It inverts the parser's normal form
// (see term in arith.go): a summand whose coefficient is a negative number
// or (-1) * c is written with '-'.
func writeSide(b *strings.Builder, side []model.Summand) {
	if len(side) == 0 {
		b.WriteByte('0')
		return
	}
	for i, s := range side {
		neg, mag := splitSign(s.Coef, s.Atom != nil)
		if neg && s.Atom != nil && isNumber(mag, 1) {
			mag = nil
		}
		switch {
		case i > 0 && neg:
			b.WriteString(" - ")
		case i > 0:
			b.WriteString(" + ")
		case neg:
			writeNegated(b, mag, s.Atom)
			continue
		}
		writeSummand(b, mag, s.Atom)
	}
}

// splitSign splits a summand's coefficient into a sign and a magnitude: a
// negative number, or (-1) * c with c not a number. For a constant (no atom)
// c must not be a sum either: "- (a + b)" would read back as two summands.
func splitSign(c model.Coefficient, hasAtom bool) (bool, model.Coefficient) {
	switch x := c.(type) {
	case *model.Number:
		if x.Value < 0 {
			return true, &model.Number{Value: -x.Value}
		}
	case *model.CoefBinary:
		_, num := x.B.(*model.Number)
		if x.Op == '*' && isNumber(x.A, -1) && !num && (hasAtom || coefPrec(x.B) > precAdd) {
			return true, x.B
		}
	}
	return false, c
}

func isNumber(c model.Coefficient, v float64) bool {
	n, ok := c.(*model.Number)
	return ok && n.Value == v
}

// writeSummand writes mag * atom (or the constant mag when atom is nil).
func writeSummand(b *strings.Builder, mag model.Coefficient, atom *model.Atom) {
	if atom == nil {
		writeCoef(b, mag, precMul)
		return
	}
	if mag == nil {
		writeAtom(b, atom)
		return
	}
	if q, ok := mag.(*model.CoefBinary); ok && q.Op == '/' && isNumber(q.A, 1) {
		writeAtom(b, atom)
		b.WriteString(" / ")
		writeCoef(b, q.B, precMul+1)
		return
	}
	writeCoef(b, mag, precMul)
	b.WriteString(" * ")
	writeAtom(b, atom)
}

// writeNegated writes -(mag * atom) at the start of a side.
func writeNegated(b *strings.Builder, mag model.Coefficient, atom *model.Atom) {
	switch mag.(type) {
	case nil:
		b.WriteByte('-')
		writeAtom(b, atom)
		return
	case *model.Number, *model.Cardinality, *model.CoefFunc:
		b.WriteByte('-')
		writeCoef(b, mag, precAtom)
	default:
		b.WriteString("-1 * ")
		writeCoef(b, mag, precMul+1)
	}
	if atom != nil {
		b.WriteString(" * ")
		writeAtom(b, atom)
	}
}

// Coefficient precedences.
const (
	precAdd  = 1
	precMul  = 2
	precAtom = 3
)

func coefPrec(c model.Coefficient) int {
	if x, ok := c.(*model.CoefBinary); ok {
		if x.Op == '+' || x.Op == '-' {
			return precAdd
		}
		return precMul
	}
	return precAtom
}

// writeCoef writes c, in parentheses when its precedence is below min.
func writeCoef(b *strings.Builder, c model.Coefficient, min int) {
	switch x := c.(type) {
	case nil:
		b.WriteByte('1')
	case *model.Number:
		b.WriteString(formatNumber(x.Value))
	case *model.Cardinality:
		b.WriteByte('|')
		b.WriteString(x.Var)
		b.WriteByte('|')
	case *model.CoefFunc:
		if x.Max {
			b.WriteString("@Max[")
		} else {
			b.WriteString("@Min[")
		}
		writeCoef(b, x.A, 0)
		b.WriteString(", ")
		writeCoef(b, x.B, 0)
		b.WriteByte(']')
	case *model.CoefBinary:
		p := coefPrec(x)
		if p < min {
			b.WriteByte('(')
		}
		writeCoef(b, x.A, p)
		b.WriteByte(' ')
		b.WriteByte(x.Op)
		b.WriteByte(' ')
		writeCoef(b, x.B, p+1)
		if p < min {
			b.WriteByte(')')
		}
	}
}
