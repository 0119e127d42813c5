package mln

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/srcpos"
)

// maxIncludeDepth bounds #include nesting (and so include cycles).
const maxIncludeDepth = 16

// ReadProgram reads the .mln file at path, following #include lines
// (relative to the including file).
func ReadProgram(path string) (*Program, error) {
	p := &Program{Types: map[string][]string{}, byName: map[string]*PredDecl{}}
	if err := p.readFile(path, 0, srcpos.Position{}); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseProgram parses the text of an .mln file; name is used in positions.
// #include is resolved relative to name's directory.
func ParseProgram(name string, text []byte) (*Program, error) {
	p := &Program{Types: map[string][]string{}, byName: map[string]*PredDecl{}}
	if err := p.parse(name, text, 0); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Program) readFile(path string, depth int, from srcpos.Position) error {
	if depth > maxIncludeDepth {
		return srcpos.Errorf(from, "#include nested more than %d deep (a cycle?)", maxIncludeDepth)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		if from.IsValid() {
			return srcpos.Errorf(from, "#include: %v", err)
		}
		return err
	}
	return p.parse(path, text, depth)
}

func (p *Program) parse(name string, text []byte, depth int) error {
	lines, err := statements(name, text)
	if err != nil {
		return err
	}
	for _, st := range lines {
		if rest, ok := strings.CutPrefix(st.text, "#include"); ok {
			file, err := strconv.Unquote(strings.TrimSpace(rest))
			if err != nil {
				return srcpos.Errorf(st.pos, "#include wants a quoted file name, found %q", clip(strings.TrimSpace(rest)))
			}
			if !filepath.IsAbs(file) {
				file = filepath.Join(filepath.Dir(name), file)
			}
			if err := p.readFile(file, depth+1, st.pos); err != nil {
				return err
			}
			continue
		}
		toks, err := lex(st.text, st.pos)
		if err != nil {
			return err
		}
		if err := p.statement(toks, st); err != nil {
			return err
		}
	}
	return nil
}

// statement is one line of a file, comments removed.
type statement struct {
	text string
	pos  srcpos.Position // of the line's first character
}

// statements splits text into non-empty lines without comments ('//' to the
// end of the line, '/* ... */' possibly over several lines; neither inside
// a double-quoted string).
func statements(name string, text []byte) ([]statement, error) {
	var out []statement
	var cur strings.Builder
	line, col := 1, 1
	var start, blockStart, strStart srcpos.Position
	started := false // a non-blank character of the statement is in cur
	inBlock, inString := false, false
	here := func() srcpos.Position { return srcpos.Position{File: name, Line: line, Col: col} }
	write := func(c byte) {
		if !started && c != ' ' && c != '\t' && c != '\r' {
			started, start = true, here()
		}
		if started {
			cur.WriteByte(c)
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == 0:
			return nil, srcpos.Errorf(here(), "NUL byte: not a text file")
		case inBlock:
			if c == '*' && i+1 < len(text) && text[i+1] == '/' {
				inBlock = false
				i++
				col++
				write(' ')
				write(' ')
			} else if c != '\n' {
				write(' ')
			}
		case inString:
			write(c)
			if c == '\\' && i+1 < len(text) && text[i+1] != '\n' {
				i++
				col++
				write(text[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString, strStart = true, here()
			write(c)
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			inBlock, blockStart = true, here()
			i++
			col++
			write(' ')
			write(' ')
		case c != '\n':
			write(c)
		}
		if c == '\n' {
			if inString {
				return nil, srcpos.Errorf(strStart, "string not closed before the end of the line")
			}
			if !inBlock {
				if s := strings.TrimRight(cur.String(), " \t\r"); s != "" {
					out = append(out, statement{text: s, pos: start})
				}
				cur.Reset()
				started = false
			}
			line, col = line+1, 1
			continue
		}
		col++
	}
	if inBlock {
		return nil, srcpos.Errorf(blockStart, "comment /* not closed")
	}
	if inString {
		return nil, srcpos.Errorf(strStart, "string not closed")
	}
	if s := strings.TrimRight(cur.String(), " \t\r"); s != "" {
		out = append(out, statement{text: s, pos: start})
	}
	return out, nil
}

// token kinds
const (
	tIdent = iota
	tNumber
	tString
	tPunct
	tEOF
)

type token struct {
	kind int
	text string // identifier, number text, unquoted string, or punctuation
	pos  srcpos.Position
}

// puncts lists the punctuation, longest first.
var puncts = []string{"<=>", "...", "=>", "!=", "(", ")", ",", "!", "^", "=", "{", "}", ".", "+", "*", "@"}

// lex splits one statement into tokens.
func lex(s string, pos srcpos.Position) ([]token, error) {
	var out []token
	at := func(i int) srcpos.Position { p := pos; p.Col += i; return p }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c >= '0' && c <= '9' || (c == '-' || c == '.') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && !strings.HasPrefix(s[j:], "...") ||
				s[j] == 'e' || s[j] == 'E' || (s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			// A digit run followed by letters is an identifier-like constant (4th, 1a).
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			out = append(out, token{tNumber, s[i:j], at(i)})
			i = j
		case isIdentByte(c):
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			out = append(out, token{tIdent, s[i:j], at(i)})
			i = j
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, srcpos.Errorf(at(i), "string not closed")
			}
			v, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return nil, srcpos.Errorf(at(i), "bad string %s: %v", clip(s[i:j+1]), err)
			}
			out = append(out, token{tString, v, at(i)})
			i = j + 1
		default:
			matched := false
			for _, p := range puncts {
				if strings.HasPrefix(s[i:], p) {
					out = append(out, token{tPunct, p, at(i)})
					i += len(p)
					matched = true
					break
				}
			}
			if !matched {
				return nil, srcpos.Errorf(at(i), "unexpected character %q", clip(s[i:i+1]))
			}
		}
	}
	return append(out, token{tEOF, "", at(len(s))}), nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '\'' || c >= 0x80
}

// clip shortens echoed input for messages.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// parser reads one statement's tokens.
type parser struct {
	toks []token
	i    int
}

func (ps *parser) peek() token { return ps.toks[ps.i] }
func (ps *parser) next() token {
	t := ps.toks[ps.i]
	if t.kind != tEOF {
		ps.i++
	}
	return t
}
func (ps *parser) isPunct(p string) bool { t := ps.peek(); return t.kind == tPunct && t.text == p }
func (ps *parser) accept(p string) bool {
	if ps.isPunct(p) {
		ps.i++
		return true
	}
	return false
}
func (ps *parser) expect(p, what string) (token, error) {
	t := ps.peek()
	if !ps.accept(p) {
		return t, srcpos.Errorf(t.pos, "expected %q %s, found %s", p, what, describe(t))
	}
	return t, nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the line"
	case tString:
		return quoteConstant(clip(t.text))
	}
	return fmt.Sprintf("%q", clip(t.text))
}

// statement parses a type declaration, a predicate declaration or a formula.
func (p *Program) statement(toks []token, st statement) error {
	ps := &parser{toks: toks}
	// Type declaration: name = { ... }
	if len(toks) > 2 && toks[0].kind == tIdent && toks[1].kind == tPunct && toks[1].text == "=" && toks[2].kind == tPunct && toks[2].text == "{" {
		return p.typeDecl(ps)
	}
	if d, ok, err := p.predDecl(ps); ok || err != nil {
		if err != nil {
			return err
		}
		if old := p.byName[d.Name]; old != nil {
			return srcpos.Errorf(d.Pos, "predicate %s declared again (first at %s)", d.Name, old.Pos)
		}
		p.byName[d.Name] = d
		p.Preds = append(p.Preds, d)
		return nil
	}
	ps.i = 0
	f := &Formula{Pos: st.pos, Text: st.text}
	if ps.accept("@") {
		f.Fixed = true
		if t := ps.peek(); t.kind != tNumber || !isWeight(t.text) {
			return srcpos.Errorf(t.pos, "'@' must be followed by a weight (Tuffy's fixed weight), found %s", describe(t))
		}
	}
	if t := ps.peek(); t.kind == tNumber && isWeight(t.text) {
		w, err := strconv.ParseFloat(t.text, 64)
		if err != nil || w != w {
			return srcpos.Errorf(t.pos, "bad weight %q", clip(t.text))
		}
		if w > 1e300 || w < -1e300 {
			return srcpos.Errorf(t.pos, "weight %q is not finite", clip(t.text))
		}
		f.Weight = w
		ps.next()
	}
	n, err := ps.formula()
	if err != nil {
		return err
	}
	if ps.accept(".") {
		f.Hard = true
		if f.Fixed || ps.toks[0].kind == tNumber && isWeight(ps.toks[0].text) {
			return srcpos.Errorf(ps.toks[0].pos, "a hard formula (ending in '.') takes no weight")
		}
	}
	if t := ps.peek(); t.kind != tEOF {
		return srcpos.Errorf(t.pos, "unexpected %s after the formula", describe(t))
	}
	f.F = n
	if err := p.checkFormula(n); err != nil {
		return err
	}
	p.Formulas = append(p.Formulas, f)
	return nil
}

// isWeight reports whether a number token is a weight (a real number) rather
// than an identifier-like constant such as 4th.
func isWeight(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func (p *Program) typeDecl(ps *parser) error {
	name := ps.next()
	ps.next() // =
	ps.next() // {
	if _, ok := p.Types[name.text]; ok {
		return srcpos.Errorf(name.pos, "type %s declared again", name.text)
	}
	var consts []string
	for !ps.isPunct("}") {
		t := ps.next()
		switch {
		case t.kind == tPunct && t.text == "...":
			// 1, ..., 10: an integer range between the previous and next constants.
			if len(consts) == 0 {
				return srcpos.Errorf(t.pos, "'...' needs a first integer before it")
			}
			lo, err1 := strconv.Atoi(consts[len(consts)-1])
			if !ps.accept(",") {
				return srcpos.Errorf(ps.peek().pos, "expected ',' after '...'")
			}
			hiTok := ps.next()
			hi, err2 := strconv.Atoi(hiTok.text)
			if err1 != nil || err2 != nil || hi < lo {
				return srcpos.Errorf(t.pos, "'...' ranges over integers: {1, ..., 10}")
			}
			if hi-lo > 1<<24 {
				return srcpos.Errorf(t.pos, "range of %d integers is too large", hi-lo)
			}
			for v := lo + 1; v <= hi; v++ {
				consts = append(consts, strconv.Itoa(v))
			}
		case t.kind == tIdent || t.kind == tNumber || t.kind == tString:
			consts = append(consts, t.text)
		default:
			return srcpos.Errorf(t.pos, "expected a constant in the type's list, found %s", describe(t))
		}
		if !ps.accept(",") && !ps.isPunct("}") {
			t := ps.peek()
			return srcpos.Errorf(t.pos, "expected ',' or '}', found %s", describe(t))
		}
	}
	ps.next()
	if t := ps.peek(); t.kind != tEOF {
		return srcpos.Errorf(t.pos, "unexpected %s after the type declaration", describe(t))
	}
	p.Types[name.text] = consts
	p.TypeOrder = append(p.TypeOrder, name.text)
	return nil
}

// predDecl recognises [*]Name(type[!], ...) of an undeclared predicate. ok
// is false (and the tokens are not consumed) when the statement is not one.
func (p *Program) predDecl(ps *parser) (*PredDecl, bool, error) {
	toks := ps.toks
	i := 0
	closed := false
	if toks[0].kind == tPunct && toks[0].text == "*" {
		closed = true
		i++
	}
	if i+1 >= len(toks) || toks[i].kind != tIdent || toks[i+1].kind != tPunct || toks[i+1].text != "(" {
		if closed {
			return nil, true, srcpos.Errorf(toks[0].pos, "'*' must be followed by a predicate declaration Name(type, ...)")
		}
		return nil, false, nil
	}
	name := toks[i]
	if p.byName[name.text] != nil && !closed {
		return nil, false, nil // a formula over a declared predicate
	}
	d := &PredDecl{Name: name.text, Closed: closed, Pos: name.pos}
	j := i + 2
	for {
		t := toks[j]
		if t.kind != tIdent || t.text == "v" {
			if closed {
				return nil, true, srcpos.Errorf(t.pos, "predicate declaration: expected a type name, found %s", describe(t))
			}
			return nil, false, nil
		}
		d.Types = append(d.Types, t.text)
		j++
		u := toks[j].kind == tPunct && toks[j].text == "!"
		if u {
			j++
		}
		d.Unique = append(d.Unique, u)
		if toks[j].kind == tPunct && toks[j].text == "," {
			j++
			continue
		}
		if toks[j].kind == tPunct && toks[j].text == ")" && toks[j+1].kind == tEOF {
			if p.byName[name.text] != nil {
				return nil, true, srcpos.Errorf(name.pos, "predicate %s declared again (first at %s)", name.text, p.byName[name.text].Pos)
			}
			return d, true, nil
		}
		if closed {
			return nil, true, srcpos.Errorf(toks[j].pos, "predicate declaration: expected ',' or ')' ending the line, found %s", describe(toks[j]))
		}
		return nil, false, nil
	}
}

// formula = quant | equiv
func (ps *parser) formula() (Node, error) {
	if t := ps.peek(); t.kind == tIdent && (t.text == "EXIST" || t.text == "FORALL" || t.text == "EXISTS") {
		return ps.quant()
	}
	x, err := ps.implies()
	if err != nil {
		return nil, err
	}
	if t := ps.peek(); ps.accept("<=>") {
		y, err := ps.formula()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: "<=>", X: x, Y: y, P: t.pos}, nil
	}
	return x, nil
}

func (ps *parser) quant() (Node, error) {
	t := ps.next()
	q := &Quant{Exist: t.text != "FORALL", P: t.pos}
	for {
		v := ps.next()
		if v.kind != tIdent || !isVariable(v.text) {
			return nil, srcpos.Errorf(v.pos, "%s: expected a variable (lower-case), found %s", t.text, describe(v))
		}
		q.Vars = append(q.Vars, v.text)
		if !ps.accept(",") {
			break
		}
	}
	body, err := ps.formula()
	if err != nil {
		return nil, err
	}
	q.Body = body
	return q, nil
}

func (ps *parser) implies() (Node, error) {
	x, err := ps.or()
	if err != nil {
		return nil, err
	}
	if t := ps.peek(); ps.accept("=>") {
		y, err := ps.formulaNoEquiv()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: "=>", X: x, Y: y, P: t.pos}, nil
	}
	return x, nil
}

// formulaNoEquiv is the right side of =>: a quantifier or another
// implication (right associative), not a <=> (which binds more loosely).
func (ps *parser) formulaNoEquiv() (Node, error) {
	if t := ps.peek(); t.kind == tIdent && (t.text == "EXIST" || t.text == "FORALL" || t.text == "EXISTS") {
		return ps.quant()
	}
	return ps.implies()
}

func (ps *parser) or() (Node, error) {
	x, err := ps.and()
	if err != nil {
		return nil, err
	}
	for {
		t := ps.peek()
		if t.kind != tIdent || t.text != "v" {
			return x, nil
		}
		ps.next()
		y, err := ps.and()
		if err != nil {
			return nil, err
		}
		x = &Binary{Op: "v", X: x, Y: y, P: t.pos}
	}
}

func (ps *parser) and() (Node, error) {
	x, err := ps.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := ps.peek()
		if !ps.accept("^") {
			return x, nil
		}
		y, err := ps.unary()
		if err != nil {
			return nil, err
		}
		x = &Binary{Op: "^", X: x, Y: y, P: t.pos}
	}
}

func (ps *parser) unary() (Node, error) {
	t := ps.peek()
	switch {
	case ps.accept("!"):
		x, err := ps.unary()
		if err != nil {
			return nil, err
		}
		return &Not{X: x, P: t.pos}, nil
	case ps.accept("("):
		x, err := ps.formula()
		if err != nil {
			return nil, err
		}
		if _, err := ps.expect(")", "closing the parenthesis"); err != nil {
			return nil, err
		}
		return x, nil
	case t.kind == tIdent && (t.text == "EXIST" || t.text == "FORALL" || t.text == "EXISTS"):
		return ps.quant()
	case t.kind == tIdent && t.text != "v" && ps.toks[ps.i+1].kind == tPunct && ps.toks[ps.i+1].text == "(":
		return ps.atom()
	}
	if t.kind == tEOF || t.kind == tPunct && t.text != "+" {
		return nil, srcpos.Errorf(t.pos, "expected an atom Pred(...), '!', '(' or a comparison, found %s", describe(t))
	}
	// term = term, term != term
	l, err := ps.term()
	if err != nil {
		return nil, err
	}
	op := ps.peek()
	if !ps.accept("=") && !ps.accept("!=") {
		return nil, srcpos.Errorf(op.pos, "expected an atom Pred(...), '!', '(' or a comparison, found %s", describe(t))
	}
	r, err := ps.term()
	if err != nil {
		return nil, err
	}
	return &Eq{L: l, R: r, Neg: op.text == "!=", P: t.pos}, nil
}

func (ps *parser) atom() (Node, error) {
	name := ps.next()
	ps.next() // (
	a := &Atom{Pred: name.text, P: name.pos}
	for {
		tm, err := ps.term()
		if err != nil {
			return nil, err
		}
		a.Args = append(a.Args, tm)
		if ps.accept(",") {
			continue
		}
		if _, err := ps.expect(")", "or ',' in the atom's arguments"); err != nil {
			return nil, err
		}
		return a, nil
	}
}

func (ps *parser) term() (Term, error) {
	t := ps.next()
	plus := false
	if t.kind == tPunct && t.text == "+" {
		plus = true
		t = ps.next()
		if t.kind != tIdent || !isVariable(t.text) {
			return Term{}, srcpos.Errorf(t.pos, "'+' must be followed by a variable, found %s", describe(t))
		}
	}
	switch t.kind {
	case tIdent:
		if t.text == "v" {
			return Term{}, srcpos.Errorf(t.pos, "'v' is the disjunction and cannot be a variable")
		}
		return Term{Name: t.text, IsVar: isVariable(t.text), Plus: plus, Pos: t.pos}, nil
	case tNumber, tString:
		return Term{Name: t.text, Pos: t.pos}, nil
	}
	return Term{}, srcpos.Errorf(t.pos, "expected a variable or a constant, found %s", describe(t))
}

// isVariable reports whether an identifier is a variable: it starts with a
// lower-case letter.
func isVariable(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }

// checkFormula checks that every atom names a declared predicate with the
// right number of arguments.
func (p *Program) checkFormula(n Node) error {
	var err error
	walk(n, func(x Node) {
		a, ok := x.(*Atom)
		if !ok || err != nil {
			return
		}
		d := p.byName[a.Pred]
		switch {
		case d == nil:
			err = srcpos.Errorf(a.P, "unknown predicate %s (declare it first, e.g. %s(type, ...))", a.Pred, a.Pred)
		case len(d.Types) != len(a.Args):
			err = srcpos.Errorf(a.P, "predicate %s takes %d argument(s), found %d", a.Pred, len(d.Types), len(a.Args))
		}
	})
	return err
}

// walk calls f on n and every node below it.
func walk(n Node, f func(Node)) {
	f(n)
	switch x := n.(type) {
	case *Not:
		walk(x.X, f)
	case *Binary:
		walk(x.X, f)
		walk(x.Y, f)
	case *Quant:
		walk(x.Body, f)
	}
}
