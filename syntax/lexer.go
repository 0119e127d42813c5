package syntax

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hinge-srl/hinge/srcpos"
)

// tokenKind is the lexical class of a token.
type tokenKind uint8

const (
	tEOF     tokenKind = iota
	tIllegal           // a lexical error, already reported by the lexer
	tIdent             // Foo
	tNumber            // 12, 0.5, 1e-3 (never signed)
	tString            // 'x' or "x"; token.val holds the unescaped value
	tLParen            // (
	tRParen            // )
	tLBrack            // [
	tRBrack            // ]
	tLBrace            // {
	tRBrace            // }
	tComma             // ,
	tColon             // :
	tPeriod            // .
	tNot               // ~ or !
	tAnd               // &
	tAnd2              // &&
	tPipe              // | (disjunction, or cardinality |X|)
	tOr2               // ||
	tImpl              // -> or >>
	tRImpl             // <- or <<
	tEq                // =
	tEqEq              // ==
	tNeq               // !=
	tLE                // <=
	tGE                // >=
	tPlus              // +
	tMinus             // -
	tStar              // *
	tSlash             // /
	tPercent           // %
	tCaret             // ^
	tMax               // @Max
	tMin               // @Min
)

// token is one lexical token. off and end are byte offsets into the source.
type token struct {
	kind      tokenKind
	off, end  int
	line, col int32  // absolute, as in srcpos.Position
	val       string // tString: the unescaped constant
}

// comment is a comment in the source, kept for Rule.Comment.
type comment struct {
	off, end       int
	line, lastLine int // first and last line (absolute, as in srcpos.Position)
	text           string
}

// lexer splits a source into tokens and comments. Errors go to errs; a
// malformed token becomes a tIllegal token so the parser stops there without
// reporting the same problem again.
type lexer struct {
	src       []byte
	file      string
	baseLine  int // line number of the first source line
	baseCol   int // column of the first byte of the first line
	off       int
	line      int // 0-based line index within src
	lineStart int // offset of the current line's first byte
	toks      []token
	comments  []comment
	errs      *ErrorList
	// posAt, when set, gives the position of each offset instead (a rule
	// whose bytes are not where they are written: see ParseRuleAt).
	posAt func(off int) srcpos.Position
}

// lex tokenises src. at is the position of src[0] (zero means line 1,
// column 1); posAt, when not nil, overrides it for every offset. The token
// list always ends with tEOF.
func lex(src []byte, at srcpos.Position, posAt func(int) srcpos.Position, errs *ErrorList) ([]token, []comment) {
	lx := &lexer{src: src, file: at.File, baseLine: at.Line, baseCol: at.Col, errs: errs, posAt: posAt}
	lx.toks = make([]token, 0, len(src)/2+8) // about one token per 2 bytes in typical models
	if lx.baseLine < 1 {
		lx.baseLine, lx.baseCol = 1, 1
	}
	if lx.baseCol < 1 {
		lx.baseCol = 1
	}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		lx.off = 3 // UTF-8 byte order mark
		lx.lineStart = 3
	}
	lx.run()
	return lx.toks, lx.comments
}

// pos returns the position of offset off, which must be on the current line.
func (lx *lexer) pos(off int) srcpos.Position {
	if lx.posAt != nil {
		return lx.posAt(off)
	}
	col := off - lx.lineStart + 1
	if lx.line == 0 {
		col += lx.baseCol - 1
	}
	return srcpos.Position{File: lx.file, Line: lx.baseLine + lx.line, Col: col}
}

func (lx *lexer) errorf(pos srcpos.Position, format string, args ...any) {
	lx.errs.Add(pos, fmt.Sprintf(format, args...))
}

func (lx *lexer) newline(at int) {
	lx.line++
	lx.lineStart = at + 1
}

func (lx *lexer) emit(kind tokenKind, start int, pos srcpos.Position) {
	lx.toks = append(lx.toks, token{kind: kind, off: start, end: lx.off, line: int32(pos.Line), col: int32(pos.Col)})
}

func (lx *lexer) peek(k int) byte {
	if lx.off+k < len(lx.src) {
		return lx.src[lx.off+k]
	}
	return 0
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (lx *lexer) run() {
	src := lx.src
	for lx.off < len(src) {
		c := src[lx.off]
		start := lx.off
		pos := lx.pos(start)
		switch {
		case c == '\n':
			lx.newline(lx.off)
			lx.off++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.off++
		case c == '#' || c == '/' && lx.peek(1) == '/':
			lx.lineComment(start, pos)
		case c == '/' && lx.peek(1) == '*':
			lx.blockComment(start, pos)
		case isLetter(c):
			for lx.off < len(src) && (isLetter(src[lx.off]) || isDigit(src[lx.off])) {
				lx.off++
			}
			lx.emit(tIdent, start, pos)
		case isDigit(c):
			lx.number()
			lx.emit(tNumber, start, pos)
		case c == '\'' || c == '"':
			lx.quoted(start, pos)
		case c == '@':
			lx.coefFunction(start, pos)
		default:
			kind, n := lx.punct(c, pos)
			lx.off += n
			lx.emit(kind, start, pos)
		}
	}
	lx.toks = append(lx.toks, lx.eof())
}

// lineComment scans a '#' or '//' comment to the end of the line.
func (lx *lexer) lineComment(start int, pos srcpos.Position) {
	src := lx.src
	for lx.off < len(src) && src[lx.off] != '\n' {
		lx.off++
	}
	text := strings.TrimRight(string(src[start:lx.off]), " \t\r\f\v")
	lx.comments = append(lx.comments, comment{off: start, end: lx.off, line: pos.Line, lastLine: pos.Line, text: text})
}

// blockComment scans a '/* ... */' comment, which may span lines.
func (lx *lexer) blockComment(start int, pos srcpos.Position) {
	src := lx.src
	lx.off += 2
	closed := false
	for lx.off < len(src) {
		if src[lx.off] == '*' && lx.peek(1) == '/' {
			lx.off += 2
			closed = true
			break
		}
		if src[lx.off] == '\n' {
			lx.newline(lx.off)
		}
		lx.off++
	}
	if !closed {
		lx.errorf(pos, "unterminated block comment: '/*' has no matching '*/'")
		lx.emit(tIllegal, start, pos)
		return
	}
	endLine := lx.baseLine + lx.line
	lx.comments = append(lx.comments, comment{off: start, end: lx.off, line: pos.Line, lastLine: endLine, text: string(src[start:lx.off])})
}

// coefFunction scans a coefficient function, '@Max' or '@Min'.
func (lx *lexer) coefFunction(start int, pos srcpos.Position) {
	src := lx.src
	lx.off++
	for lx.off < len(src) && (isLetter(src[lx.off]) || isDigit(src[lx.off])) {
		lx.off++
	}
	switch name := string(src[start+1 : lx.off]); strings.ToLower(name) {
	case "max":
		lx.emit(tMax, start, pos)
	case "min":
		lx.emit(tMin, start, pos)
	default:
		if lx.off == start+1 && lx.off < len(src) {
			_, w := utf8.DecodeRune(src[lx.off:])
			lx.off += w
		}
		lx.errorf(pos, "unknown coefficient function '%s' (expected @Max or @Min)", src[start:lx.off])
		lx.emit(tIllegal, start, pos)
	}
}

// punct returns the punctuation token at pos (the longest match) and its
// length in bytes; an unexpected byte is reported and gives tIllegal.
func (lx *lexer) punct(c byte, pos srcpos.Position) (kind tokenKind, n int) {
	src := lx.src
	kind, n = tIllegal, 1
	two := func(next byte, k2, k1 tokenKind) {
		if lx.peek(1) == next {
			kind, n = k2, 2
		} else {
			kind = k1
		}
	}
	switch c {
	case '(':
		kind = tLParen
	case ')':
		kind = tRParen
	case '[':
		kind = tLBrack
	case ']':
		kind = tRBrack
	case '{':
		kind = tLBrace
	case '}':
		kind = tRBrace
	case ',':
		kind = tComma
	case ':':
		kind = tColon
	case '.':
		kind = tPeriod
	case '~':
		kind = tNot
	case '!':
		two('=', tNeq, tNot)
	case '&':
		two('&', tAnd2, tAnd)
	case '|':
		two('|', tOr2, tPipe)
	case '-':
		two('>', tImpl, tMinus)
	case '=':
		two('=', tEqEq, tEq)
	case '+':
		kind = tPlus
	case '*':
		kind = tStar
	case '/':
		kind = tSlash
	case '%':
		kind = tPercent
	case '^':
		kind = tCaret
	case '>':
		switch lx.peek(1) {
		case '>':
			kind, n = tImpl, 2
		case '=':
			kind, n = tGE, 2
		default:
			lx.errorf(pos, "unexpected '>' (expected '>>' or '>=')")
		}
	case '<':
		switch lx.peek(1) {
		case '<', '-':
			kind, n = tRImpl, 2
		case '=':
			kind, n = tLE, 2
		default:
			lx.errorf(pos, "unexpected '<' (expected '<<', '<-' or '<=')")
		}
	default:
		r, w := utf8.DecodeRune(src[lx.off:])
		n = w
		if r == utf8.RuneError && w <= 1 {
			lx.errorf(pos, "invalid UTF-8 byte 0x%02x", c)
		} else {
			lx.errorf(pos, "unexpected character %q", r)
		}
	}
	return kind, n
}

// eof is the end-of-input token. End-of-input errors point just after the
// last token, not past any trailing comments and blank lines.
func (lx *lexer) eof() token {
	src := lx.src
	eof := token{kind: tEOF, off: len(src), end: len(src)}
	if n := len(lx.toks); n > 0 && lx.toks[n-1].kind != tIllegal {
		last := lx.toks[n-1]
		eof.line, eof.col = last.line, last.col+int32(last.end-last.off)
	} else {
		pos := lx.pos(len(src))
		eof.line, eof.col = int32(pos.Line), int32(pos.Col)
	}
	return eof
}

// number scans DIGIT+ ('.' DIGIT+)? ([eE] [+-]? DIGIT+)?. A '.' not followed
// by a digit is left alone: it ends a hard rule ("X = 1.").
func (lx *lexer) number() {
	src := lx.src
	for lx.off < len(src) && isDigit(src[lx.off]) {
		lx.off++
	}
	if lx.peek(0) == '.' && isDigit(lx.peek(1)) {
		lx.off++
		for lx.off < len(src) && isDigit(src[lx.off]) {
			lx.off++
		}
	}
	if c := lx.peek(0); c == 'e' || c == 'E' {
		k := 1
		if s := lx.peek(1); s == '+' || s == '-' {
			k = 2
		}
		if isDigit(lx.peek(k)) {
			lx.off += k
			for lx.off < len(src) && isDigit(src[lx.off]) {
				lx.off++
			}
		}
	}
}

// quoted scans a quoted constant with C-style escapes.
func (lx *lexer) quoted(start int, pos srcpos.Position) {
	src := lx.src
	q := src[start]
	lx.off++
	var b strings.Builder
	bad := false
	for {
		if lx.off >= len(src) || src[lx.off] == '\n' {
			lx.errorf(pos, "unterminated quoted constant: missing closing %c before the end of the line", q)
			lx.emit(tIllegal, start, pos)
			return
		}
		c := src[lx.off]
		if c == q {
			lx.off++
			break
		}
		if c != '\\' {
			b.WriteByte(c)
			lx.off++
			continue
		}
		escPos := lx.pos(lx.off)
		if lx.off+1 >= len(src) || src[lx.off+1] == '\n' {
			lx.off++ // reported as unterminated on the next iteration
			continue
		}
		switch e := src[lx.off+1]; e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			r, w := utf8.DecodeRune(src[lx.off+1:])
			lx.errorf(escPos, "unknown escape sequence '\\%c' in quoted constant (use \\\\, \\', \\\", \\t, \\n or \\r)", r)
			bad = true
			lx.off += 1 + w
			continue
		}
		lx.off += 2
	}
	if bad {
		lx.emit(tIllegal, start, pos)
		return
	}
	lx.toks = append(lx.toks, token{kind: tString, off: start, end: lx.off, line: int32(pos.Line), col: int32(pos.Col), val: b.String()})
}
