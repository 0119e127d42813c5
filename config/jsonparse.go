package config

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hinge-srl/hinge/srcpos"
)

// This file is a small JSON reader that keeps the position of every value,
// so that configuration errors can name file:line:col. It accepts strict
// JSON (RFC 8259) plus what PSL's own reader (Jackson, with the features PSL
// 3 enables) accepts in its configs:
//
//   - comments: '#' and '//' to the end of the line, '/* ... */';
//   - strings in single quotes;
//   - a trailing comma before ']' or '}';
//   - numbers with a leading '+' or leading zeros.
//
// A leading UTF-8 byte order mark is skipped. Columns count bytes from 1.
// A string holding a NUL character (\u0000), half a surrogate pair or
// bytes that are not UTF-8 is an error: no name or value hinge reads can
// hold one (PostgreSQL's text cannot either).
// Duplicate object keys are an error (Jackson silently keeps the last one).
//
// The .data reader uses yaml.v3's Node for its positions; JSON does not,
// because yaml.v3 reads some of PSL's JSON wrongly and without an error (a
// '//' or '/* */' comment after a value becomes part of it: "1 // c" is the
// string "1 // c"; text after the closing brace is ignored; duplicate keys
// pass; 1e400 is a string) and rejects the valid JSON escape \/.

// utf8BOM is the UTF-8 byte order mark, skipped at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// jsonValue is a parsed JSON value with its position.
type jsonValue struct {
	Kind jsonKind
	Pos  srcpos.Position // of the value's first character (the quote of a string)
	Text string          // string contents (unescaped); number as written; "true"/"false"/"null"
	// Cols, for a string whose escapes moved its bytes, is the column of
	// the character each byte of Text comes from (for an escape, its
	// backslash), and last the column of the closing quote; nil when
	// Text's byte k is at column Pos.Col+1+k.
	Cols  []int32
	Items []*jsonValue
	Keys  []jsonMember
}

// jsonMember is one key of an object.
type jsonMember struct {
	Key   string
	Pos   srcpos.Position
	Value *jsonValue
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 200

type jsonParser struct {
	src       []byte
	file      string
	off       int
	line, col int
	depth     int
	cols      []int32 // the last string's Cols (see jsonValue.Cols)
}

// parseJSON parses src (named file in positions) into a value tree.
func parseJSON(file string, src []byte) (*jsonValue, error) {
	p := &jsonParser{src: src, file: file, line: 1, col: 1}
	if bytes.HasPrefix(src, utf8BOM) {
		p.off = len(utf8BOM)
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if p.off >= len(p.src) {
		return nil, srcpos.Errorf(p.pos(), "empty JSON document")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if p.off < len(p.src) {
		return nil, srcpos.Errorf(p.pos(), "unexpected %s after the end of the JSON document", p.describe())
	}
	return v, nil
}

func (p *jsonParser) pos() srcpos.Position {
	return srcpos.Position{File: p.file, Line: p.line, Col: p.col}
}

// advance moves past n bytes, keeping line and column.
func (p *jsonParser) advance(n int) {
	for i := 0; i < n && p.off < len(p.src); i++ {
		if p.src[p.off] == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
		p.off++
	}
}

// describe names the character at the current offset for messages.
func (p *jsonParser) describe() string {
	if p.off >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	return fmt.Sprintf("%q", r)
}

// skipSpace skips whitespace and comments.
func (p *jsonParser) skipSpace() error {
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.advance(1)
		case c == '#' || c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.advance(1)
			}
		case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '*':
			start := p.pos()
			p.advance(2)
			for {
				if p.off+1 >= len(p.src) {
					return srcpos.Errorf(start, "unterminated /* comment")
				}
				if p.src[p.off] == '*' && p.src[p.off+1] == '/' {
					p.advance(2)
					break
				}
				p.advance(1)
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *jsonParser) value() (*jsonValue, error) {
	if p.off >= len(p.src) {
		return nil, srcpos.Errorf(p.pos(), "unexpected end of input, expected a value")
	}
	pos := p.pos()
	switch c := p.src[p.off]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jsonValue{Kind: jsonString, Pos: pos, Text: s, Cols: p.cols}, nil
	case c == '-' || c == '+' || c >= '0' && c <= '9':
		return p.number()
	case c >= 'a' && c <= 'z':
		start := p.off
		for p.off < len(p.src) && (p.src[p.off] >= 'a' && p.src[p.off] <= 'z' || p.src[p.off] >= 'A' && p.src[p.off] <= 'Z') {
			p.advance(1)
		}
		word := string(p.src[start:p.off])
		switch word {
		case "true", "false":
			return &jsonValue{Kind: jsonBool, Pos: pos, Text: word}, nil
		case "null":
			return &jsonValue{Kind: jsonNull, Pos: pos, Text: word}, nil
		}
		return nil, srcpos.Errorf(pos, "unexpected word %q, expected a value (strings must be quoted)", word)
	}
	return nil, srcpos.Errorf(pos, "unexpected %s, expected a value", p.describe())
}

func (p *jsonParser) enter(pos srcpos.Position) error {
	p.depth++
	if p.depth > maxJSONDepth {
		return srcpos.Errorf(pos, "values nested more than %d deep", maxJSONDepth)
	}
	return nil
}

func (p *jsonParser) object() (*jsonValue, error) {
	v := &jsonValue{Kind: jsonObject, Pos: p.pos()}
	seen := make(map[string]srcpos.Position)
	err := p.elements(v.Pos, '}', "unterminated object: missing '}'", func() (string, error) {
		if c := p.src[p.off]; c != '"' && c != '\'' {
			return "", srcpos.Errorf(p.pos(), "unexpected %s, expected a quoted key or '}'", p.describe())
		}
		kpos := p.pos()
		key, err := p.str()
		if err != nil {
			return "", err
		}
		if first, dup := seen[key]; dup {
			return "", srcpos.Errorf(kpos, "duplicate key %q (first at %d:%d)", key, first.Line, first.Col)
		}
		seen[key] = kpos
		if err := p.skipSpace(); err != nil {
			return "", err
		}
		if p.off >= len(p.src) || p.src[p.off] != ':' {
			return "", srcpos.Errorf(p.pos(), "unexpected %s, expected ':' after key %q", p.describe(), key)
		}
		p.advance(1)
		if err := p.skipSpace(); err != nil {
			return "", err
		}
		val, err := p.value()
		if err != nil {
			return "", err
		}
		v.Keys = append(v.Keys, jsonMember{Key: key, Pos: kpos, Value: val})
		return key, nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (p *jsonParser) array() (*jsonValue, error) {
	v := &jsonValue{Kind: jsonArray, Pos: p.pos()}
	err := p.elements(v.Pos, ']', "unterminated array: missing ']'", func() (string, error) {
		item, err := p.value()
		if err != nil {
			return "", err
		}
		v.Items = append(v.Items, item)
		return "", nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// elements parses the body of an object (closer '}') or array (closer ']')
// whose opening character is the current one, at open: elements separated
// by ',' up to closer, with an optional trailing comma. elem parses one
// element at the current character and returns its key (objects only), for
// the message when neither ',' nor closer follows it. unterminated is the
// message when the input ends first.
func (p *jsonParser) elements(open srcpos.Position, closer byte, unterminated string, elem func() (key string, err error)) error {
	if err := p.enter(open); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	p.advance(1) // '{' or '['
	for {
		if err := p.skipSpace(); err != nil {
			return err
		}
		if p.off >= len(p.src) {
			return srcpos.Errorf(open, "%s", unterminated)
		}
		if p.src[p.off] == closer {
			p.advance(1)
			return nil
		}
		key, err := elem()
		if err != nil {
			return err
		}
		if err := p.skipSpace(); err != nil {
			return err
		}
		if p.off >= len(p.src) {
			return srcpos.Errorf(open, "%s", unterminated)
		}
		switch p.src[p.off] {
		case ',':
			p.advance(1)
		case closer:
			p.advance(1)
			return nil
		default:
			where := "in array"
			if closer == '}' {
				where = fmt.Sprintf("after the value of %q", key)
			}
			return srcpos.Errorf(p.pos(), "unexpected %s, expected ',' or '%c' %s", p.describe(), closer, where)
		}
	}
}

// str reads a string in double or single quotes.
func (p *jsonParser) str() (string, error) {
	start := p.pos()
	q := p.src[p.off]
	p.advance(1)
	p.cols = nil
	// Fast path: no escapes.
	for i := p.off; i < len(p.src); i++ {
		c := p.src[i]
		if c == q {
			if !utf8.Valid(p.src[p.off:i]) {
				break // the slow path says where
			}
			s := string(p.src[p.off:i])
			p.advance(i + 1 - p.off)
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var buf []byte
	var cols []int32 // per byte of buf, the column it comes from
	escaped := false
	from := int32(p.col) // the column of the character read last
	for {
		if p.off >= len(p.src) {
			return "", srcpos.Errorf(start, "unterminated string")
		}
		for len(cols) < len(buf) {
			cols = append(cols, from)
		}
		from = int32(p.col)
		c := p.src[p.off]
		switch {
		case c == q:
			if escaped {
				p.cols = append(cols, int32(p.col))
			}
			p.advance(1)
			return string(buf), nil
		case c == '\n':
			return "", srcpos.Errorf(start, "unterminated string (a string cannot span lines)")
		case c < 0x20:
			return "", srcpos.Errorf(p.pos(), "control character %q in string (write it as an escape)", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.src[p.off:])
			if r == utf8.RuneError && size <= 1 {
				return "", srcpos.Errorf(p.pos(), "invalid UTF-8 (byte 0x%02X) in string: hinge reads text as UTF-8", c)
			}
			buf = append(buf, p.src[p.off:p.off+size]...)
			p.advance(size)
			continue
		case c != '\\':
			buf = append(buf, c)
			p.advance(1)
			continue
		}
		epos := p.pos()
		escaped = true
		if p.off+1 >= len(p.src) {
			return "", srcpos.Errorf(start, "unterminated string")
		}
		e := p.src[p.off+1]
		switch e {
		case '"', '\'', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4(p.off + 2)
			if !ok {
				return "", srcpos.Errorf(epos, "invalid \\u escape: want 4 hex digits")
			}
			n := 6
			if r == 0 {
				return "", srcpos.Errorf(epos, "\\u0000 (a NUL character) in string: no name or value hinge reads may hold one")
			}
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if p.off+7 < len(p.src) && p.src[p.off+6] == '\\' && p.src[p.off+7] == 'u' {
					r2, ok2 = p.hex4(p.off + 8)
				}
				d := utf16.DecodeRune(r, r2)
				if !ok2 || d == utf8.RuneError {
					return "", srcpos.Errorf(epos, "\\u%04X is half of a UTF-16 surrogate pair, without its other half: not a character", r)
				}
				r, n = d, 12
			}
			buf = utf8.AppendRune(buf, r)
			p.advance(n)
			continue
		default:
			return "", srcpos.Errorf(epos, "invalid escape \\%c in string", e)
		}
		p.advance(2)
	}
}

func (p *jsonParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.src) {
		return 0, false
	}
	var r rune
	for _, c := range p.src[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads [+-]digits[.digits][(e|E)[+-]digits].
func (p *jsonParser) number() (*jsonValue, error) {
	pos := p.pos()
	start := p.off
	i := p.off
	if c := p.src[i]; c == '-' || c == '+' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	bad := func() (*jsonValue, error) {
		end := i
		for end < len(p.src) && end-start < 40 && isNumberByte(p.src[end]) {
			end++
		}
		return nil, srcpos.Errorf(pos, "invalid number %q", p.src[start:end])
	}
	if digits() == 0 {
		return bad()
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(p.src) && isNumberByte(p.src[i]) {
		i++
		return bad()
	}
	text := string(p.src[start:i])
	p.advance(i - start)
	return &jsonValue{Kind: jsonNumber, Pos: pos, Text: text}, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// scalarText converts a string, number or boolean to the text PSL would use:
// strings as they are, booleans as "true"/"false", integers in canonical
// form (a leading '+' and leading zeros dropped: 01 -> "1") and other
// numbers as written without a leading '+'.
func (v *jsonValue) scalarText() (string, bool) {
	switch v.Kind {
	case jsonString, jsonBool:
		return v.Text, true
	case jsonNumber:
		t := v.Text
		if t[0] == '+' {
			t = t[1:]
		}
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return strconv.FormatInt(n, 10), true
		}
		return t, true
	}
	return "", false
}
