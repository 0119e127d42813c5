package syntax

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// maxDepth bounds how deeply parentheses, negations and unary minus signs may
// nest, so that hostile input cannot exhaust the stack.
const maxDepth = 100

// ParseFile parses a .psl file: a sequence of rules. It returns the rules
// that parsed and, if any did not, an ErrorList (sorted by position) naming
// file:line:col and what was expected. The parser recovers after an error at
// the next line that starts a weighted rule ("w:") or follows a '.', so one
// call reports the errors of several rules. Atoms come out unresolved
// (PredName set, Pred nil): see ParseModel or model.Model.AddRule.
func ParseFile(filename string, src []byte) ([]*model.Rule, error) {
	rules, errs := parse(src, srcpos.Position{File: filename, Line: 1, Col: 1}, nil, false)
	return rules, errs.Err()
}

// ParseRule parses exactly one rule, such as a rule string of a PSL JSON
// config. at is where src starts (file, line and column of the character
// after the opening quote), so that errors point into the enclosing file;
// the zero Pos counts from line 1, column 1. Columns count bytes of src:
// for a string whose escapes moved its bytes, see ParseRuleAt.
func ParseRule(src string, at srcpos.Position) (*model.Rule, error) {
	return parseRule(src, at, nil)
}

// ParseRuleAt is ParseRule for a rule whose bytes are not where they are
// written, such as a JSON string with escape sequences (\", \u0051, \n):
// posAt(off) is the position in the enclosing file of src[off], and of the
// end of the string for off = len(src).
func ParseRuleAt(src string, posAt func(off int) srcpos.Position) (*model.Rule, error) {
	return parseRule(src, posAt(0), posAt)
}

func parseRule(src string, at srcpos.Position, posAt func(int) srcpos.Position) (*model.Rule, error) {
	rules, errs := parse([]byte(src), at, posAt, true)
	if len(errs) > 0 {
		return nil, errs
	}
	if len(rules) == 0 {
		pos := at
		if !pos.IsValid() {
			pos = srcpos.Position{File: at.File, Line: 1, Col: 1}
		}
		return nil, ErrorList{{Pos: pos, Msg: "expected a rule, found only blanks and comments"}}
	}
	return rules[0], nil
}

// ParseModel parses a .psl file and adds each rule to m (m.AddRule resolves
// the predicates, which must already be declared, and validates the rule).
// It collects every syntax and model error into one sorted ErrorList; on
// error, m holds the rules that were valid.
func ParseModel(filename string, src []byte, m *model.Model) error {
	rules, errs := parse(src, srcpos.Position{File: filename, Line: 1, Col: 1}, nil, false)
	for _, r := range rules {
		if err := m.AddRule(r); err != nil {
			var me *srcpos.Error
			if errors.As(err, &me) && me.Pos.IsValid() {
				errs = append(errs, me)
			} else {
				errs.Add(r.Pos, err.Error())
			}
		}
	}
	errs.Sort()
	return errs.Err()
}

func parse(src []byte, at srcpos.Position, posAt func(int) srcpos.Position, single bool) ([]*model.Rule, ErrorList) {
	var errs ErrorList
	toks, comments := lex(src, at, posAt, &errs)
	p := &parser{src: string(src), file: at.File, toks: toks, comments: comments, errs: &errs, single: single}
	rules := p.rules()
	errs.Sort()
	return rules, errs
}

// parser is a recursive-descent parser over a token slice. A failed parse
// panics with a bailout, caught per rule attempt (see rule).
type parser struct {
	src      string // the source, converted once; token texts are substrings
	file     string
	toks     []token
	comments []comment
	errs     *ErrorList
	single   bool // ParseRule: exactly one rule, then end of input
	i        int  // current token
	depth    int

	ruleStart int  // first token of the current rule's body (after the weight)
	weighted  bool // the current rule has a weight
}

// bailout is a parse failure at token idx.
type bailout struct {
	idx int
	msg string
}

func (p *parser) tok() token { return p.toks[p.i] }

// text returns a token's source text.
func (p *parser) text(t token) string { return p.src[t.off:t.end] }

// pos returns a token's position.
func (p *parser) pos(t token) srcpos.Position {
	return srcpos.Position{File: p.file, Line: int(t.line), Col: int(t.col)}
}

// describe renders a token for "found ..." in error messages.
func (p *parser) describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "quoted constant " + p.text(t)
	}
	return "'" + p.text(t) + "'"
}

// at returns the token k ahead of the current one (EOF past the end).
func (p *parser) at(k int) token {
	if j := p.i + k; j < len(p.toks) {
		return p.toks[j]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) failAt(idx int, format string, args ...any) {
	panic(bailout{idx: idx, msg: fmt.Sprintf(format, args...)})
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.i, format, args...) }

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("expression nested too deeply (more than %d levels)", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// catch runs f and returns its bailout, if any.
func (p *parser) catch(f func()) (b *bailout) {
	defer func() {
		if e := recover(); e != nil {
			x, ok := e.(bailout)
			if !ok {
				panic(e)
			}
			b = &x
		}
	}()
	f()
	return nil
}

// lineCol formats a position as line:col for "the '(' at 3:7" messages.
func lineCol(pos srcpos.Position) string { return fmt.Sprintf("%d:%d", pos.Line, pos.Col) }

// rules parses rules until the end of input, reporting errors and
// recovering after each failed rule.
func (p *parser) rules() []*model.Rule {
	var out []*model.Rule
	prevEnd := -1 // index of the last token of the previous rule
	for p.tok().kind != tEOF {
		start := p.i
		r, end, fails := p.rule()
		if len(fails) > 0 {
			furthest := start
			for _, b := range fails {
				if t := p.toks[b.idx]; t.kind != tIllegal {
					p.errs.Add(p.pos(t), b.msg)
				}
				furthest = max(furthest, b.idx)
			}
			if end < 0 {
				end = p.recover(start, furthest)
			}
		} else {
			r.Comment = p.commentBefore(prevEnd, start)
			r.Text = p.ruleText(start, end)
			out = append(out, r)
		}
		p.i = end
		prevEnd = end - 1
		if p.single {
			break
		}
	}
	return out
}

// recover returns where to resume after a rule that starts at token start
// failed at token errIdx: the next "NUMBER :" (a weighted rule), or the first
// token on a new line after a '.', at or after the failure.
func (p *parser) recover(start, errIdx int) int {
	j := max(errIdx, start+1)
	for ; j < len(p.toks)-1; j++ {
		t := p.toks[j]
		if t.kind == tNumber && p.toks[j+1].kind == tColon {
			return j
		}
		if prev := p.toks[j-1]; prev.kind == tPeriod && j-1 >= errIdx && p.pos(t).Line > p.pos(prev).Line {
			return j
		}
	}
	return len(p.toks) - 1
}

// rule parses one rule starting at the current token. On success it returns
// the rule and the index just past it. On failure it returns the failures
// and end -1, or end >= 0 when only the weight was bad (the body parsed, so
// no recovery is needed).
//
// Logical or arithmetic? A rule is predicted arithmetic when a relation
// ('=', '<=', '>=') appears outside parentheses before anything that only a
// logical rule contains ('&', '&&', '||', '!', '~', '->', '>>', '<-', '<<',
// '==', '!=', '%') and before the rule's end ('.', '^', or "NUMBER :"
// starting the next rule). The prediction is tried first; if it fails the other kind is tried
// (bounded backtracking: two attempts per rule). If both fail, the
// predicted attempt's error is reported when the prediction rested on a
// relation or a logical-only token, and otherwise the error of the attempt
// that got further.
func (p *parser) rule() (*model.Rule, int, []bailout) {
	r := &model.Rule{Pos: p.pos(p.tok())}
	var fails []bailout
	if b := p.weight(r); b != nil {
		fails = append(fails, *b)
	}
	body := p.i
	p.ruleStart, p.weighted = body, r.Weighted
	arith, sure := p.predictArith(body)
	var best *bailout
	for k, isArith := range []bool{arith, !arith} {
		var f model.Formula
		var a *model.Arithmetic
		var squared bool
		b := p.catch(func() {
			p.i, p.depth = body, 0
			f, a, squared = p.ruleBody(r.Weighted, isArith)
		})
		if b == nil {
			if len(fails) > 0 {
				return nil, p.i, fails
			}
			r.Logical, r.Arith, r.Squared = f, a, squared
			return r, p.i, nil
		}
		if k == 0 || !sure && b.idx > best.idx {
			best = b
		}
	}
	return nil, -1, append(fails, *best)
}

// weight parses an optional "NUMBER :" prefix. Bad weights (negative, NaN,
// infinite, not a number) are reported but skipped, so the body is still
// checked.
func (p *parser) weight(r *model.Rule) *bailout {
	t := p.tok()
	k := 0 // tokens before the one expected to be ':'
	sign := ""
	if t.kind == tMinus || t.kind == tPlus {
		sign, k = p.text(t), 1
	}
	w := p.at(k)
	if p.at(k+1).kind != tColon || (w.kind != tNumber && w.kind != tIdent) {
		return nil
	}
	idx := p.i
	p.i += k + 2
	r.Weighted = true
	text := sign + p.text(w)
	if w.kind == tIdent {
		switch strings.ToLower(p.text(w)) {
		case "nan", "inf", "infinity":
			return &bailout{idx, fmt.Sprintf("weight %s is not a finite number", text)}
		}
		return &bailout{idx, fmt.Sprintf("expected a weight (a number >= 0) before ':', found %s", p.describe(w))}
	}
	v, err := parseNumber(p.text(w))
	if err != nil {
		return &bailout{idx, fmt.Sprintf("weight %s is not a finite number", text)}
	}
	if sign == "-" && v != 0 {
		return &bailout{idx, fmt.Sprintf("weight %s must be >= 0", text)}
	}
	r.Weight = v
	return nil
}

// predictArith reports whether the rule body starting at token i looks like
// an arithmetic rule (see rule), and whether that is sure: a relation or a
// logical-only token was seen, rather than the end of the rule.
func (p *parser) predictArith(i int) (arith, sure bool) {
	depth := 0
	for j := i; ; j++ {
		switch t := p.toks[j]; t.kind {
		case tImpl, tRImpl, tAnd, tAnd2, tOr2, tNot, tNeq, tEqEq, tPercent:
			return false, true
		case tEOF, tIllegal, tPeriod, tCaret:
			return false, false
		case tLParen, tLBrack, tLBrace:
			depth++
		case tRParen, tRBrack, tRBrace:
			depth--
			if depth < 0 {
				return false, false
			}
		case tEq, tLE, tGE:
			if depth == 0 {
				return true, true
			}
		case tNumber:
			if j > i && p.toks[j+1].kind == tColon {
				return false, false
			}
		}
	}
}

// ruleBody parses what follows the weight: a logical or arithmetic rule with
// its exponent, '.', and filters, and checks what comes next.
func (p *parser) ruleBody(weighted, arith bool) (f model.Formula, a *model.Arithmetic, squared bool) {
	if arith {
		a = p.arithmetic()
	} else {
		f = p.formula(true)
	}
	if weighted {
		hasExp := p.tok().kind == tCaret
		squared = p.exponent()
		if arith {
			a.Filters = p.filters()
		}
		p.endWeighted(arith, hasExp || (a != nil && len(a.Filters) > 0))
		return
	}
	switch t := p.tok(); {
	case t.kind == tCaret:
		p.fail("a rule without a weight is a hard constraint and cannot have an exponent: add a weight ('w: ...') or remove the '^'")
	case t.kind != tPeriod && arith:
		p.fail("expected '+', '-' or '.' to end the rule (a rule without a weight ends with '.'), found %s", p.describe(t))
	case t.kind != tPeriod:
		p.fail("expected '&', '|', '->' or '.' to end the rule (a rule without a weight ends with '.'), found %s", p.describe(t))
	}
	p.i++
	if arith {
		a.Filters = p.filters()
	}
	if t := p.tok(); t.kind != tEOF && (p.single || !isRuleStart(t.kind)) {
		switch {
		case arith && p.single:
			p.fail("expected a filter '{' or the end of the rule, found %s", p.describe(t))
		case arith:
			p.fail("expected a filter '{' or the start of the next rule, found %s", p.describe(t))
		case p.single:
			p.fail("expected the end of the rule after '.', found %s", p.describe(t))
		}
		p.fail("expected the start of the next rule after '.', found %s", p.describe(t))
	}
	return
}

// endWeighted checks the token after a weighted rule: the end of input, or
// (in a file) the start of another rule.
func (p *parser) endWeighted(arith, closed bool) {
	t := p.tok()
	if t.kind == tEOF || !p.single && isRuleStart(t.kind) {
		return
	}
	switch {
	case t.kind == tPeriod:
		p.fail("a weighted rule does not end with '.': remove the '.' (for a hard constraint) or the weight")
	case closed && arith:
		p.fail("expected a filter '{' or the end of the rule, found %s", p.describe(t))
	case closed:
		p.fail("expected the end of the rule after the exponent, found %s", p.describe(t))
	case arith:
		p.fail("expected '+', '-', an exponent (^1 or ^2), a filter '{' or the end of the rule, found %s", p.describe(t))
	}
	p.fail("expected '&', '|', '->', an exponent (^1 or ^2) or the end of the rule, found %s", p.describe(t))
}

// isRuleStart reports whether a token can begin a rule.
func isRuleStart(k tokenKind) bool {
	switch k {
	case tNumber, tIdent, tString, tLParen, tNot, tMinus, tPlus, tPipe, tMax, tMin:
		return true
	}
	return false
}

// exponent parses an optional ^1 or ^2 and reports whether it was ^2.
func (p *parser) exponent() bool {
	if p.tok().kind != tCaret {
		return false
	}
	p.i++
	if t := p.tok(); t.kind == tNumber && (p.text(t) == "1" || p.text(t) == "2") {
		p.i++
		return p.text(t) == "2"
	}
	p.fail("expected 1 or 2 after '^' (^1 linear, ^2 squared), found %s", p.describe(p.tok()))
	return false
}

// filters parses zero or more {X: expression} clauses.
func (p *parser) filters() []model.Filter {
	var fs []model.Filter
	for p.tok().kind == tLBrace {
		open := p.tok()
		p.i++
		v := p.tok()
		if v.kind != tIdent {
			p.fail("expected a variable after '{' (a filter is {X: expression}), found %s", p.describe(v))
		}
		p.i++
		if p.tok().kind != tColon {
			p.fail("expected ':' after filter variable %s, found %s", p.text(v), p.describe(p.tok()))
		}
		p.i++
		f := p.formula(false)
		if p.tok().kind != tRBrace {
			p.fail("expected '&', '|' or '}' to close the filter at %s, found %s", lineCol(p.pos(open)), p.describe(p.tok()))
		}
		p.i++
		fs = append(fs, model.Filter{Var: p.text(v), Expr: f, Pos: p.pos(open)})
	}
	return fs
}

// formula parses a logical formula. Precedence, loosest first: implication
// (-> >> <- <<, not chainable), disjunction (| ||), conjunction (& &&),
// negation (~ !). Parentheses group; they make no node of their own, so
// "(A & B) & C" is an And inside an And, as written. In filters
// (allowImpl false) implications are not allowed.
func (p *parser) formula(allowImpl bool) model.Formula {
	start := p.pos(p.tok())
	left := p.disjunction(allowImpl)
	t := p.tok()
	if t.kind != tImpl && t.kind != tRImpl {
		return left
	}
	if !allowImpl {
		p.fail("an implication is not allowed in a filter expression")
	}
	p.i++
	right := p.disjunction(allowImpl)
	if k := p.tok().kind; k == tImpl || k == tRImpl {
		p.fail("implications cannot be chained: add parentheses, as in (A -> B) -> C")
	}
	if t.kind == tImpl {
		return &model.Implies{Body: left, Head: right, Pos: start}
	}
	return &model.Implies{Body: right, Head: left, Reversed: true, Pos: start}
}

func (p *parser) disjunction(allowImpl bool) model.Formula {
	first := p.conjunction(allowImpl)
	if !p.atOr() {
		return first
	}
	args := []model.Formula{first}
	for p.atOr() {
		p.i++
		args = append(args, p.conjunction(allowImpl))
	}
	return &model.Or{Args: args, Pos: first.Position()}
}

// atOr reports whether the current token is a disjunction. "| X |" is not:
// it can only be a cardinality starting the next (arithmetic) rule.
func (p *parser) atOr() bool {
	switch p.tok().kind {
	case tOr2:
		return true
	case tPipe:
		return p.at(1).kind != tIdent || p.at(2).kind != tPipe
	}
	return false
}

func (p *parser) conjunction(allowImpl bool) model.Formula {
	first := p.negation(allowImpl)
	if k := p.tok().kind; k != tAnd && k != tAnd2 {
		return first
	}
	args := []model.Formula{first}
	for k := p.tok().kind; k == tAnd || k == tAnd2; k = p.tok().kind {
		p.i++
		args = append(args, p.negation(allowImpl))
	}
	return &model.And{Args: args, Pos: first.Position()}
}

func (p *parser) negation(allowImpl bool) model.Formula {
	t := p.tok()
	if t.kind != tNot {
		return p.literal(allowImpl)
	}
	p.i++
	p.enter()
	x := p.negation(allowImpl)
	p.leave()
	return &model.Not{X: x, Pos: p.pos(t)}
}

func isCmpOp(k tokenKind) bool {
	switch k {
	case tEqEq, tNeq, tMinus, tPercent, tCaret:
		return true
	}
	return false
}

// literal parses an atom, a term comparison, or a parenthesised formula.
func (p *parser) literal(allowImpl bool) model.Formula {
	t := p.tok()
	switch t.kind {
	case tLParen:
		p.enter()
		p.i++
		f := p.formula(allowImpl)
		if p.tok().kind != tRParen {
			p.fail("expected ')' to close the '(' at %s, found %s", lineCol(p.pos(t)), p.describe(p.tok()))
		}
		p.i++
		p.leave()
		return f
	case tIdent:
		if p.at(1).kind == tLParen {
			return p.atom(false)
		}
		if isCmpOp(p.at(1).kind) {
			return p.comparison()
		}
		p.failAt(p.i+1, "expected '(' after predicate name %s, or a comparison operator (==, !=, -, %%, ^) after variable %s, found %s", p.text(t), p.text(t), p.describe(p.at(1)))
	case tString:
		if isCmpOp(p.at(1).kind) {
			return p.comparison()
		}
		p.failAt(p.i+1, "expected a comparison operator (==, !=, -, %%, ^) after %s, found %s", p.text(t), p.describe(p.at(1)))
	case tNumber:
		switch n := p.at(1); {
		case n.kind == tColon: // "NUMBER :" starts the next rule
		case p.i == p.ruleStart && !p.weighted && !isCmpOp(n.kind):
			p.failAt(p.i+1, "expected ':' after the weight %s, found %s", p.text(t), p.describe(n))
		default:
			p.fail("constant %s must be quoted: '%s'", p.text(t), p.text(t))
		}
	}
	p.fail("expected an atom, a comparison, '!' or '(', found %s", p.describe(t))
	return nil
}

// comparison parses term op term with op one of == != - % ^.
func (p *parser) comparison() model.Formula {
	left := p.term(false)
	var op model.CmpOp
	switch p.tok().kind {
	case tEqEq:
		op = model.CmpEq
	case tNeq, tMinus:
		op = model.CmpNeq
	default:
		op = model.CmpNonSym
	}
	p.i++
	right := p.term(false)
	return &model.Comparison{Op: op, Left: left, Right: right, Pos: left.Pos}
}

// atom parses Pred(t1, ..., tn); allowSum admits summation variables +X.
func (p *parser) atom(allowSum bool) *model.Atom {
	name := p.tok()
	p.i += 2
	a := &model.Atom{PredName: p.text(name), Pos: p.pos(name)}
	if p.tok().kind == tRParen {
		p.fail("expected an argument after '(', found ')': predicate %s needs at least one argument", p.text(name))
	}
	for {
		a.Args = append(a.Args, p.term(allowSum))
		switch p.tok().kind {
		case tComma:
			p.i++
			continue
		case tRParen:
			p.i++
			return a
		}
		p.fail("expected ')' or ',' after argument, found %s", p.describe(p.tok()))
	}
}

// term parses a variable, a quoted constant, or (allowSum) +X.
func (p *parser) term(allowSum bool) model.Term {
	t := p.tok()
	switch t.kind {
	case tIdent:
		p.i++
		return model.Term{Kind: model.Variable, Name: p.text(t), Pos: p.pos(t)}
	case tString:
		p.i++
		return model.Term{Kind: model.Constant, Name: t.val, Pos: p.pos(t)}
	case tPlus:
		n := p.at(1)
		if n.kind != tIdent {
			p.failAt(p.i+1, "expected a variable name after '+', found %s", p.describe(n))
		}
		if !allowSum {
			p.fail("summation variable +%s is only allowed in the atoms of arithmetic rules", p.text(n))
		}
		p.i += 2
		return model.Term{Kind: model.SumVariable, Name: p.text(n), Pos: p.pos(t)}
	case tNumber:
		if p.at(1).kind != tColon {
			p.fail("constant %s must be quoted: '%s'", p.text(t), p.text(t))
		}
	case tMinus:
		if n := p.at(1); n.kind == tNumber {
			p.fail("constant -%s must be quoted: '-%s'", p.text(n), p.text(n))
		}
	}
	if allowSum {
		p.fail("expected a variable, a quoted constant or a summation variable +X, found %s", p.describe(t))
	}
	p.fail("expected a variable or a quoted constant, found %s", p.describe(t))
	return model.Term{}
}

// ruleText renders tokens [start, end) with comments removed and each run of
// whitespace or comments between tokens written as one space.
func (p *parser) ruleText(start, end int) string {
	var b strings.Builder
	for i := start; i < end; i++ {
		if i > start && p.toks[i].off > p.toks[i-1].end {
			b.WriteByte(' ')
		}
		b.WriteString(p.text(p.toks[i]))
	}
	return b.String()
}

// commentBefore returns the comments between the previous rule (ending at
// token prevEnd, -1 for none) and the rule starting at token start, one per
// line, with a blank line where the source has one or more. A comment on the
// same line as the previous rule's end belongs to that rule and is not kept.
func (p *parser) commentBefore(prevEnd, start int) string {
	lo, prevLine := 0, -1
	if prevEnd >= 0 {
		lo, prevLine = p.toks[prevEnd].end, p.pos(p.toks[prevEnd]).Line
	}
	hi := p.toks[start].off
	i := sort.Search(len(p.comments), func(i int) bool { return p.comments[i].off >= lo })
	var b strings.Builder
	last := -1 // last line of the previous kept comment
	for ; i < len(p.comments) && p.comments[i].end <= hi; i++ {
		c := p.comments[i]
		if c.line == prevLine {
			continue
		}
		switch {
		case last < 0:
		case c.line == last:
			b.WriteByte(' ')
		case c.line > last+1:
			b.WriteString("\n\n")
		default:
			b.WriteByte('\n')
		}
		b.WriteString(c.text)
		last = c.lastLine
	}
	return b.String()
}
