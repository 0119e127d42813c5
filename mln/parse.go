package mln

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/srcpos"
)

// parser reads one statement's tokens with the Markov logic grammar.
type parser struct {
	lex.Parser
	depth int // nesting of the recursive rules being parsed
}

// MaxNesting bounds how deeply a formula may nest: the height of its syntax
// tree (connectives, negations and quantifiers, one level each) and the
// nesting of parentheses. The parser refuses deeper formulas and Build
// checks formulas built in Go, so that hostile input cannot exhaust the
// stack of the parser or of any walk over a formula.
const MaxNesting = 1000

// enter counts one level of recursion; a formula nested more deeply than
// MaxNesting is an error at the token reached.
func (ps *parser) enter() error {
	ps.depth++
	// The statement's own formula is the first level; a tree of height
	// MaxNesting takes one more.
	if ps.depth > MaxNesting+1 {
		return srcpos.Errorf(ps.Peek().Pos, "formula nested too deeply (more than %d levels of parentheses, negations, quantifiers or connectives)", MaxNesting)
	}
	return nil
}

func (ps *parser) leave() { ps.depth-- }

// CheckNesting reports an error, at the position of the node found too
// deep, when n's syntax tree is higher than MaxNesting; it walks the tree
// without recursion, so it is safe on any tree.
func CheckNesting(n Node) error {
	type item struct {
		n Node
		d int
	}
	stack := []item{{n, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.d > MaxNesting {
			return srcpos.Errorf(nodePos(it.n), "formula nested too deeply (more than %d levels of negations, quantifiers or connectives)", MaxNesting)
		}
		switch x := it.n.(type) {
		case *Not:
			stack = append(stack, item{x.X, it.d + 1})
		case *Binary:
			stack = append(stack, item{x.X, it.d + 1}, item{x.Y, it.d + 1})
		case *Quant:
			stack = append(stack, item{x.Body, it.d + 1})
		}
	}
	return nil
}

// nodePos is where a node starts.
func nodePos(n Node) srcpos.Position {
	switch x := n.(type) {
	case *Atom:
		return x.P
	case *Eq:
		return x.P
	case *Not:
		return x.P
	case *Binary:
		return x.P
	case *Quant:
		return x.P
	}
	return srcpos.Position{}
}

// puncts is the punctuation of Markov logic, longest first.
var puncts = []string{"<=>", "...", "=>", "!=", "(", ")", ",", "!", "^", "=", "{", "}", ".", "+", "*", "@"}

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

// IncludedFiles lists the files the program at path includes by #include
// lines, directly or through other included files (relative to the file
// that includes them), each once, so that a command can keep its outputs
// off them. A file that cannot be read or a malformed #include line is
// passed over: ReadProgram reports those.
func IncludedFiles(path string) []string {
	text, err := textfile.ReadFile(path)
	if err != nil {
		return nil
	}
	return IncludedFilesIn(path, text)
}

// IncludedFilesIn is IncludedFiles for a program whose text was read
// already: name is where it came from (#include is relative to its
// directory). A program on a pipe (/dev/stdin, a process substitution)
// gives its text to one read only: read it once, and give that text here
// and to ParseProgram.
func IncludedFilesIn(name string, text []byte) []string {
	var files []string
	seen := map[string]bool{}
	var walk func(name string, text []byte, depth int)
	walk = func(name string, text []byte, depth int) {
		if depth > maxIncludeDepth {
			return
		}
		lines, err := lex.Statements(name, text)
		if err != nil {
			return
		}
		for _, st := range lines {
			file, ok, err := included(name, st)
			if !ok || err != nil {
				continue
			}
			if !seen[file] {
				seen[file] = true
				files = append(files, file)
				if text, err := textfile.ReadFile(file); err == nil {
					walk(file, text, depth+1)
				}
			}
		}
	}
	walk(name, text, 0)
	return files
}

// included reports whether statement st of file name is an #include line
// and the file it names (relative to name's directory), or why it names
// none.
func included(name string, st lex.Statement) (file string, ok bool, err error) {
	rest, ok := strings.CutPrefix(st.Text, "#include")
	if !ok {
		return "", false, nil
	}
	file, err = strconv.Unquote(strings.TrimSpace(rest))
	if err != nil {
		return "", true, srcpos.Errorf(st.Pos, "#include wants a quoted file name, found %q", textfile.Clip(strings.TrimSpace(rest)))
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(name), file)
	}
	return file, true, nil
}

func (p *Program) readFile(path string, depth int, from srcpos.Position) error {
	if depth > maxIncludeDepth {
		return srcpos.Errorf(from, "#include nested more than %d deep (a cycle?)", maxIncludeDepth)
	}
	text, err := textfile.ReadFile(path)
	if err != nil {
		if from.IsValid() {
			return srcpos.Errorf(from, "#include: %v", err)
		}
		return err
	}
	return p.parse(path, text, depth)
}

func (p *Program) parse(name string, text []byte, depth int) error {
	lines, err := lex.Statements(name, text)
	if err != nil {
		return err
	}
	for _, st := range lines {
		if file, ok, err := included(name, st); ok {
			if err != nil {
				return err
			}
			if err := p.readFile(file, depth+1, st.Pos); err != nil {
				return err
			}
			continue
		}
		toks, err := lex.Lex(st.Text, st.Pos, puncts)
		if err != nil {
			return err
		}
		if err := p.statement(toks, st); err != nil {
			return err
		}
	}
	return nil
}

// statement parses a type declaration, a predicate declaration or a formula.
func (p *Program) statement(toks []lex.Token, st lex.Statement) error {
	ps := &parser{Parser: lex.Parser{Toks: toks}}
	// Type declaration: name = { ... }
	if len(toks) > 2 && toks[0].Kind == lex.Ident && toks[1].Kind == lex.Punct && toks[1].Text == "=" && toks[2].Kind == lex.Punct && toks[2].Text == "{" {
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
	ps.I = 0
	f := &Formula{Pos: st.Pos, Text: st.Text}
	if ps.Accept("@") {
		f.Fixed = true
		if t := ps.Peek(); t.Kind != lex.Number || !isWeight(t.Text) {
			return srcpos.Errorf(t.Pos, "'@' must be followed by a weight (Tuffy's fixed weight), found %s", lex.Describe(t))
		}
	}
	if t := ps.Peek(); t.Kind == lex.Number && isWeight(t.Text) {
		w, err := num.Parse(t.Text)
		if err != nil || w != w {
			return srcpos.Errorf(t.Pos, "bad weight %q", textfile.Clip(t.Text))
		}
		switch {
		case math.IsInf(w, 0):
			return srcpos.Errorf(t.Pos, "weight %q is not finite", textfile.Clip(t.Text))
		case w > 1e300 || w < -1e300:
			return srcpos.Errorf(t.Pos, "weight %q is too large: at most 1e300 in absolute value (write a hard formula, ending in '.', for a constraint)", textfile.Clip(t.Text))
		}
		f.Weight = w
		if maxsat.Rounded(t.Text, w) {
			p.RoundedWeights = append(p.RoundedWeights, RoundedWeight{Pos: t.Pos, Text: t.Text, Value: w})
		}
		ps.Next()
	}
	n, err := ps.formula()
	if err != nil {
		return err
	}
	if ps.Accept(".") {
		f.Hard = true
		if f.Fixed || ps.Toks[0].Kind == lex.Number && isWeight(ps.Toks[0].Text) {
			return srcpos.Errorf(ps.Toks[0].Pos, "a hard formula (ending in '.') takes no weight")
		}
	}
	if t := ps.Peek(); t.Kind != lex.EOF {
		return srcpos.Errorf(t.Pos, "unexpected %s after the formula", lex.Describe(t))
	}
	f.F = n
	if err := CheckNesting(n); err != nil {
		return err
	}
	if err := p.checkFormula(n); err != nil {
		return err
	}
	p.Formulas = append(p.Formulas, f)
	return nil
}

// isWeight reports whether a number token is a weight (a real number) rather
// than an identifier-like constant such as 4th.
func isWeight(s string) bool {
	_, err := num.Parse(s)
	return err == nil
}

func (p *Program) typeDecl(ps *parser) error {
	name := ps.Next()
	ps.Next() // =
	ps.Next() // {
	if _, ok := p.Types[name.Text]; ok {
		return srcpos.Errorf(name.Pos, "type %s declared again", name.Text)
	}
	var consts []string
	for !ps.IsPunct("}") {
		t := ps.Next()
		switch {
		case t.Kind == lex.Punct && t.Text == "...":
			// 1, ..., 10: an integer range between the previous and next constants.
			if len(consts) == 0 {
				return srcpos.Errorf(t.Pos, "'...' needs a first integer before it")
			}
			lo, err1 := strconv.Atoi(consts[len(consts)-1])
			if !ps.Accept(",") {
				return srcpos.Errorf(ps.Peek().Pos, "expected ',' after '...'")
			}
			hiTok := ps.Next()
			hi, err2 := strconv.Atoi(hiTok.Text)
			if err1 != nil || err2 != nil || hi < lo {
				return srcpos.Errorf(t.Pos, "'...' ranges over integers: {1, ..., 10}")
			}
			if hi-lo > 1<<24 {
				return srcpos.Errorf(t.Pos, "range of %d integers is too large", hi-lo)
			}
			for v := lo + 1; v <= hi; v++ {
				consts = append(consts, strconv.Itoa(v))
			}
		case t.Kind == lex.Ident || t.Kind == lex.Number || t.Kind == lex.String:
			consts = append(consts, t.Text)
		default:
			return srcpos.Errorf(t.Pos, "expected a constant in the type's list, found %s", lex.Describe(t))
		}
		if !ps.Accept(",") && !ps.IsPunct("}") {
			t := ps.Peek()
			return srcpos.Errorf(t.Pos, "expected ',' or '}', found %s", lex.Describe(t))
		}
	}
	ps.Next()
	if t := ps.Peek(); t.Kind != lex.EOF {
		return srcpos.Errorf(t.Pos, "unexpected %s after the type declaration", lex.Describe(t))
	}
	p.Types[name.Text] = consts
	p.TypeOrder = append(p.TypeOrder, name.Text)
	return nil
}

// predDecl recognises [*]Name(type[!], ...) of an undeclared predicate. ok
// is false (and the tokens are not consumed) when the statement is not one.
func (p *Program) predDecl(ps *parser) (*PredDecl, bool, error) {
	toks := ps.Toks
	i := 0
	closed := false
	if toks[0].Kind == lex.Punct && toks[0].Text == "*" {
		closed = true
		i++
	}
	if i+1 >= len(toks) || toks[i].Kind != lex.Ident || toks[i+1].Kind != lex.Punct || toks[i+1].Text != "(" {
		if closed {
			return nil, true, srcpos.Errorf(toks[0].Pos, "'*' must be followed by a predicate declaration Name(type, ...)")
		}
		return nil, false, nil
	}
	name := toks[i]
	if p.byName[name.Text] != nil && !closed {
		return nil, false, nil // a formula over a declared predicate
	}
	d := &PredDecl{Name: name.Text, Closed: closed, Pos: name.Pos}
	j := i + 2
	for {
		t := toks[j]
		// A type name starts like a variable; Pred(Anna, Bob) is a ground
		// atom (of an evidence file given as the program, say), which
		// checkFormula then reports.
		if t.Kind != lex.Ident || t.Text == "v" || t.Text[0] >= 'A' && t.Text[0] <= 'Z' {
			if closed {
				return nil, true, srcpos.Errorf(t.Pos, "predicate declaration: expected a type name (lower-case), found %s", lex.Describe(t))
			}
			return nil, false, nil
		}
		d.Types = append(d.Types, t.Text)
		j++
		u := toks[j].Kind == lex.Punct && toks[j].Text == "!"
		if u {
			j++
		}
		d.Unique = append(d.Unique, u)
		if toks[j].Kind == lex.Punct && toks[j].Text == "," {
			j++
			continue
		}
		if toks[j].Kind == lex.Punct && toks[j].Text == ")" && toks[j+1].Kind == lex.EOF {
			if p.byName[name.Text] != nil {
				return nil, true, srcpos.Errorf(name.Pos, "predicate %s declared again (first at %s)", name.Text, p.byName[name.Text].Pos)
			}
			return d, true, nil
		}
		if closed {
			return nil, true, srcpos.Errorf(toks[j].Pos, "predicate declaration: expected ',' or ')' ending the line, found %s", lex.Describe(toks[j]))
		}
		return nil, false, nil
	}
}

// formula = quant | equiv
func (ps *parser) formula() (Node, error) {
	if err := ps.enter(); err != nil {
		return nil, err
	}
	defer ps.leave()
	if t := ps.Peek(); t.Kind == lex.Ident && (t.Text == "EXIST" || t.Text == "FORALL" || t.Text == "EXISTS") {
		return ps.quant()
	}
	x, err := ps.implies()
	if err != nil {
		return nil, err
	}
	if t := ps.Peek(); ps.Accept("<=>") {
		y, err := ps.formula()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: "<=>", X: x, Y: y, P: t.Pos}, nil
	}
	return x, nil
}

func (ps *parser) quant() (Node, error) {
	t := ps.Next()
	q := &Quant{Exist: t.Text != "FORALL", P: t.Pos}
	for {
		v := ps.Next()
		if v.Kind != lex.Ident || !isVariable(v.Text) {
			return nil, srcpos.Errorf(v.Pos, "%s: expected a variable (lower-case), found %s", t.Text, lex.Describe(v))
		}
		q.Vars = append(q.Vars, v.Text)
		if !ps.Accept(",") {
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

// implies reads or {"=>" (or | quant)}, left associative as in Alchemy's
// grammar (A => B => C is (A => B) => C: hinge read A => (B => C), another
// formula); a quantifier after => extends as far right as possible.
func (ps *parser) implies() (Node, error) {
	x, err := ps.or()
	if err != nil {
		return nil, err
	}
	for {
		t := ps.Peek()
		if !ps.Accept("=>") {
			return x, nil
		}
		var y Node
		if q := ps.Peek(); q.Kind == lex.Ident && (q.Text == "EXIST" || q.Text == "FORALL" || q.Text == "EXISTS") {
			y, err = ps.quant() // as far right as possible
		} else {
			y, err = ps.or()
		}
		if err != nil {
			return nil, err
		}
		x = &Binary{Op: "=>", X: x, Y: y, P: t.Pos}
	}
}

func (ps *parser) or() (Node, error) {
	x, err := ps.and()
	if err != nil {
		return nil, err
	}
	for {
		t := ps.Peek()
		if t.Kind != lex.Ident || t.Text != "v" {
			return x, nil
		}
		ps.Next()
		y, err := ps.and()
		if err != nil {
			return nil, err
		}
		x = &Binary{Op: "v", X: x, Y: y, P: t.Pos}
	}
}

func (ps *parser) and() (Node, error) {
	x, err := ps.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := ps.Peek()
		if !ps.Accept("^") {
			return x, nil
		}
		y, err := ps.unary()
		if err != nil {
			return nil, err
		}
		x = &Binary{Op: "^", X: x, Y: y, P: t.Pos}
	}
}

func (ps *parser) unary() (Node, error) {
	if err := ps.enter(); err != nil {
		return nil, err
	}
	defer ps.leave()
	t := ps.Peek()
	switch {
	case ps.Accept("!"):
		x, err := ps.unary()
		if err != nil {
			return nil, err
		}
		return &Not{X: x, P: t.Pos}, nil
	case ps.Accept("("):
		x, err := ps.formula()
		if err != nil {
			return nil, err
		}
		if _, err := ps.Expect(")", "closing the parenthesis"); err != nil {
			return nil, err
		}
		return x, nil
	case t.Kind == lex.Ident && (t.Text == "EXIST" || t.Text == "FORALL" || t.Text == "EXISTS"):
		return ps.quant()
	case t.Kind == lex.Ident && t.Text != "v" && ps.Toks[ps.I+1].Kind == lex.Punct && ps.Toks[ps.I+1].Text == "(":
		return ps.atom()
	}
	if t.Kind == lex.EOF || t.Kind == lex.Punct && t.Text != "+" {
		return nil, srcpos.Errorf(t.Pos, "expected an atom Pred(...), '!', '(' or a comparison, found %s", lex.Describe(t))
	}
	// term = term, term != term
	l, err := ps.term()
	if err != nil {
		return nil, err
	}
	op := ps.Peek()
	if !ps.Accept("=") && !ps.Accept("!=") {
		return nil, srcpos.Errorf(op.Pos, "expected an atom Pred(...), '!', '(' or a comparison, found %s", lex.Describe(t))
	}
	r, err := ps.term()
	if err != nil {
		return nil, err
	}
	return &Eq{L: l, R: r, Neg: op.Text == "!=", P: t.Pos}, nil
}

func (ps *parser) atom() (Node, error) {
	name := ps.Next()
	ps.Next() // (
	a := &Atom{Pred: name.Text, P: name.Pos}
	for {
		tm, err := ps.term()
		if err != nil {
			return nil, err
		}
		a.Args = append(a.Args, tm)
		if ps.Accept(",") {
			continue
		}
		if _, err := ps.Expect(")", "or ',' in the atom's arguments"); err != nil {
			return nil, err
		}
		return a, nil
	}
}

func (ps *parser) term() (Term, error) {
	t := ps.Next()
	plus := false
	if t.Kind == lex.Punct && t.Text == "+" {
		plus = true
		t = ps.Next()
		if t.Kind != lex.Ident || !isVariable(t.Text) {
			return Term{}, srcpos.Errorf(t.Pos, "'+' must be followed by a variable, found %s", lex.Describe(t))
		}
	}
	switch t.Kind {
	case lex.Ident:
		if t.Text == "v" {
			return Term{}, srcpos.Errorf(t.Pos, "'v' is the disjunction and cannot be a variable")
		}
		return Term{Name: t.Text, IsVar: isVariable(t.Text), Plus: plus, Pos: t.Pos}, nil
	case lex.Number, lex.String:
		return Term{Name: t.Text, Pos: t.Pos}, nil
	}
	return Term{}, srcpos.Errorf(t.Pos, "expected a variable or a constant, found %s", lex.Describe(t))
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
		case d == nil && groundAtom(a):
			err = srcpos.Errorf(a.P, "unknown predicate %s: %s is a ground atom, which belongs in an evidence file (.db); a program declares %s(type, ...) first", a.Pred, a, a.Pred)
		case d == nil:
			err = srcpos.Errorf(a.P, "unknown predicate %s (declare it first, e.g. %s(type, ...))", a.Pred, a.Pred)
		case len(d.Types) != len(a.Args):
			err = srcpos.Errorf(a.P, "predicate %s takes %d argument(s), found %d", a.Pred, len(d.Types), len(a.Args))
		}
	})
	return err
}

// groundAtom reports whether every argument of a is a constant.
func groundAtom(a *Atom) bool {
	for _, t := range a.Args {
		if t.IsVar || t.Plus {
			return false
		}
	}
	return true
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
