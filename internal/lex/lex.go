// Package lex splits the text of the logic languages hinge reads in the
// Alchemy style (Markov logic programs and evidence, recursive random
// fields) into line statements, without comments, and the statements into
// tokens, with positions.
package lex

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
)

// Statement is one line of a file, comments removed.
type Statement struct {
	Text string
	Pos  srcpos.Position // of the statement's first character
}

// Statements splits text into non-empty lines without comments ('//' to the
// end of the line, '/* ... */' possibly over several lines; neither inside
// a double-quoted string).
func Statements(name string, text []byte) ([]Statement, error) {
	var out []Statement
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
					out = append(out, Statement{Text: s, Pos: start})
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
		out = append(out, Statement{Text: s, Pos: start})
	}
	return out, nil
}

// Kind says what a token is.
type Kind int

// Token kinds.
const (
	Ident  Kind = iota // letters, digits, '_', '\'' and non-ASCII, not starting with a digit
	Number             // a number, or a digit run with letters after it (4th)
	String             // a double-quoted string (Text is unquoted)
	Punct              // one of the punctuation strings given to Lex
	EOF                // the end of the statement
)

// Token is one token of a statement.
type Token struct {
	Kind Kind
	Text string // identifier, number text, unquoted string, or punctuation
	Pos  srcpos.Position
}

// Lex splits one statement into tokens; puncts lists the punctuation,
// longest first (a longer one that starts like a shorter one must come
// before it).
func Lex(s string, pos srcpos.Position, puncts []string) ([]Token, error) {
	var out []Token
	at := func(i int) srcpos.Position { p := pos; p.Col += i; return p }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c >= '0' && c <= '9' || (c == '-' || c == '.') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' ||
			c == '-' && strings.HasPrefix(s[i+1:], ".") && i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9': // -.5
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && !strings.HasPrefix(s[j:], "...") ||
				s[j] == 'e' || s[j] == 'E' || (s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			// A digit run followed by letters is an identifier-like constant (4th, 1a).
			for j < len(s) && IsIdentByte(s[j]) {
				j++
			}
			out = append(out, Token{Number, s[i:j], at(i)})
			i = j
		case IsIdentByte(c):
			j := i + 1
			for j < len(s) && IsIdentByte(s[j]) {
				j++
			}
			out = append(out, Token{Ident, s[i:j], at(i)})
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
				return nil, srcpos.Errorf(at(i), "bad string %s: %v", textfile.Clip(s[i:j+1]), err)
			}
			if strings.Contains(v, "\x00") || !utf8.ValidString(v) {
				return nil, srcpos.Errorf(at(i), "bad string %s: its escapes make a NUL character or bytes that are not UTF-8, which no constant may hold", textfile.Clip(s[i:j+1]))
			}
			out = append(out, Token{String, v, at(i)})
			i = j + 1
		default:
			matched := false
			for _, p := range puncts {
				if strings.HasPrefix(s[i:], p) {
					out = append(out, Token{Punct, p, at(i)})
					i += len(p)
					matched = true
					break
				}
			}
			if !matched {
				return nil, srcpos.Errorf(at(i), "unexpected character %q", textfile.Clip(s[i:i+1]))
			}
		}
	}
	return append(out, Token{EOF, "", at(len(s))}), nil
}

// IsIdentByte reports whether c may be part of an identifier.
func IsIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '\'' || c >= 0x80
}

// Parser reads one statement's tokens (which end with an EOF token).
type Parser struct {
	Toks []Token
	I    int
}

// Peek returns the next token without consuming it.
func (ps *Parser) Peek() Token { return ps.Toks[ps.I] }

// Next consumes and returns the next token (EOF stays).
func (ps *Parser) Next() Token {
	t := ps.Toks[ps.I]
	if t.Kind != EOF {
		ps.I++
	}
	return t
}

// IsPunct reports whether the next token is the punctuation p.
func (ps *Parser) IsPunct(p string) bool { t := ps.Peek(); return t.Kind == Punct && t.Text == p }

// Accept consumes the punctuation p if it comes next.
func (ps *Parser) Accept(p string) bool {
	if ps.IsPunct(p) {
		ps.I++
		return true
	}
	return false
}

// Expect consumes the punctuation p or returns an error saying what it is
// for and what was found instead.
func (ps *Parser) Expect(p, what string) (Token, error) {
	t := ps.Peek()
	if !ps.Accept(p) {
		return t, srcpos.Errorf(t.Pos, "expected %q %s, found %s", p, what, Describe(t))
	}
	return t, nil
}

// Describe names a token for a message.
func Describe(t Token) string {
	switch t.Kind {
	case EOF:
		return "the end of the line"
	case String:
		return Quote(textfile.Clip(t.Text))
	}
	return fmt.Sprintf("%q", textfile.Clip(t.Text))
}

// Quote writes s as a double-quoted constant, escaping '"', '\\', newlines
// and tabs.
func Quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
