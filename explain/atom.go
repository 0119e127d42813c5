package explain

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Atom names a ground atom: a predicate (or, for knowledge-graph
// completion, a relation) and its constants.
type Atom struct {
	Pred string
	Args []string
}

// String writes the atom as Pred(a, b), quoting a constant (with single
// quotes, doubling none: a quote inside is escaped with a backslash) only
// when it would not read back as itself.
func (a Atom) String() string {
	var b strings.Builder
	b.WriteString(a.Pred)
	b.WriteByte('(')
	for i, s := range a.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIfNeeded(s))
	}
	b.WriteByte(')')
	return b.String()
}

// quoteIfNeeded returns s as it is when ParseAtom reads it back unchanged
// as an argument, else single-quoted with \ escapes.
func quoteIfNeeded(s string) string {
	plain := s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, ",()'\"\\\n\t")
	if plain {
		return s
	}
	return quote(s)
}

// quote writes s single-quoted as ParseAtom reads it: a quote or a
// backslash escaped with a backslash, a newline and a tab as \n and \t.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// AtomError is a malformed atom: Col is the 1-based column (in bytes) of
// the problem in Text.
type AtomError struct {
	Text string
	Col  int
	Msg  string
}

// Error says what is wrong and where.
func (e *AtomError) Error() string {
	return fmt.Sprintf("atom %q, column %d: %s", clip(e.Text), e.Col, e.Msg)
}

// clip shortens s for a message.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// ParseAtom reads an atom written as Pred(a, b, ...): a name, then its
// arguments in parentheses separated by commas. An argument is a constant
// as it is (blanks around it ignored), or quoted with ' or " (inside, \n
// is a newline, \t a tab, and a backslash escapes any other character), as
// hinge writes atoms of PSL
// ('Bob'), Markov logic (Bob, "a string") and knowledge graphs
// (_hypernym(00260881, 00262792)). An atom without arguments is Pred() or
// Pred.
func ParseAtom(s string) (Atom, error) {
	fail := func(col int, format string, args ...any) (Atom, error) {
		return Atom{}, &AtomError{Text: s, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	if !utf8.ValidString(s) {
		return fail(1, "not UTF-8 text")
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fail(i+1, "a NUL byte")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		name := strings.TrimSpace(s)
		if name == "" {
			return fail(1, "empty: want Pred(a, b)")
		}
		if strings.ContainsAny(name, "),'\"") {
			return fail(strings.IndexAny(s, "),'\"")+1, "want Pred(a, b)")
		}
		// Blanks in a bare name: arguments written without parentheses
		// (a relation of knowledge-graph triples may hold blanks, but is
		// then followed by its arguments in parentheses).
		if i := strings.IndexAny(name, " \t"); i >= 0 {
			return fail(strings.Index(s, name)+i+1, "a blank in a name without arguments: want Pred(a, b)")
		}
		return Atom{Pred: name}, nil
	}
	name := strings.TrimSpace(s[:open])
	if name == "" {
		return fail(open+1, "no predicate name before '('")
	}
	if i := strings.IndexAny(name, "),'\""); i >= 0 {
		return fail(strings.Index(s, name)+i+1, "a predicate name cannot hold %q", name[i])
	}
	a := Atom{Pred: name}
	i := open + 1
	// skip blanks
	blank := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	blank()
	if i < len(s) && s[i] == ')' {
		i++
		blank()
		if i != len(s) {
			return fail(i+1, "text after the closing ')'")
		}
		return a, nil
	}
	for {
		blank()
		if i >= len(s) {
			return fail(i+1, "missing ')'")
		}
		var arg string
		switch q := s[i]; q {
		case '\'', '"':
			start := i
			i++
			var b strings.Builder
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					_, size := utf8.DecodeRuneInString(s[i+1:])
					switch e := s[i+1 : i+1+size]; e {
					case "n":
						b.WriteByte('\n')
					case "t":
						b.WriteByte('\t')
					default:
						b.WriteString(e)
					}
					i += 1 + size
					continue
				}
				if c == q {
					closed = true
					i++
					break
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return fail(start+1, "unterminated quoted constant")
			}
			arg = b.String()
			blank()
		default:
			start := i
			for i < len(s) && s[i] != ',' && s[i] != ')' {
				if s[i] == '(' || s[i] == '\'' || s[i] == '"' {
					return fail(i+1, "unexpected %q in a constant (quote the constant)", s[i])
				}
				i++
			}
			arg = strings.TrimSpace(s[start:i])
			if arg == "" {
				return fail(start+1, "empty argument")
			}
		}
		a.Args = append(a.Args, arg)
		if i >= len(s) {
			return fail(i+1, "missing ')'")
		}
		switch s[i] {
		case ',':
			i++
		case ')':
			i++
			blank()
			if i != len(s) {
				return fail(i+1, "text after the closing ')'")
			}
			return a, nil
		default:
			return fail(i+1, "want ',' or ')' after an argument")
		}
	}
}
