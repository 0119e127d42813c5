package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

var kindNames = map[tokenKind]string{
	tEOF: "EOF", tIllegal: "ILLEGAL", tIdent: "IDENT", tNumber: "NUM", tString: "STR",
	tLParen: "(", tRParen: ")", tLBrack: "[", tRBrack: "]", tLBrace: "{", tRBrace: "}",
	tComma: ",", tColon: ":", tPeriod: ".", tNot: "NOT", tAnd: "&", tAnd2: "&&", tPipe: "|",
	tOr2: "||", tImpl: "->", tRImpl: "<-", tEq: "=", tEqEq: "==", tNeq: "!=", tLE: "<=",
	tGE: ">=", tPlus: "+", tMinus: "-", tStar: "*", tSlash: "/", tPercent: "%", tCaret: "^",
	tMax: "MAX", tMin: "MIN",
}

// lexString renders the tokens of src as "KIND:text" (strings as their
// value), without the final EOF.
func lexString(src string) (string, ErrorList) {
	var errs ErrorList
	toks, _ := lex([]byte(src), srcpos.Position{}, nil, &errs)
	var out []string
	for _, t := range toks[:len(toks)-1] {
		text := src[t.off:t.end]
		if t.kind == tString {
			text = fmt.Sprintf("%q", t.val)
		}
		out = append(out, kindNames[t.kind]+":"+text)
	}
	return strings.Join(out, " "), errs
}

func TestLex(t *testing.T) {
	tests := []struct{ src, want string }{
		{"A(X)", "IDENT:A (:( IDENT:X ):)"},
		{"$a_1 _b", "IDENT:$a_1 IDENT:_b"},
		{"-> >> <- << <= >= == != = !", "->:-> ->:>> <-:<- <-:<< <=:<= >=:>= ==:== !=:!= =:= NOT:!"},
		{"& && &&& | || |||", "&:& &&:&& &&:&& &:& |:| ||:|| ||:|| |:|"},
		{"~!~", "NOT:~ NOT:! NOT:~"},
		{"A-B A->B", "IDENT:A -:- IDENT:B IDENT:A ->:-> IDENT:B"},
		{"X <-1", "IDENT:X <-:<- NUM:1"},
		{"1 0.5 1e-3 2.5E+2 7e 1.", "NUM:1 NUM:0.5 NUM:1e-3 NUM:2.5E+2 NUM:7 IDENT:e NUM:1 .:."},
		{"1.x", "NUM:1 .:. IDENT:x"},
		{"^2 ^ 1", "^:^ NUM:2 ^:^ NUM:1"},
		{"@Max @min @MAX[", "MAX:@Max MIN:@min MAX:@MAX [:["},
		{`'a' "b" 'it\'s' "q\"" '\\' '\t\n\r' ''`, `STR:"a" STR:"b" STR:"it's" STR:"q\"" STR:"\\" STR:"\t\n\r" STR:""`},
		{`'say "hi"' "it's"`, `STR:"say \"hi\"" STR:"it's"`},
		{"a # c\nb // c\nc /* x\ny */ d", "IDENT:a IDENT:b IDENT:c IDENT:d"},
		{"a/b a//b", "IDENT:a /:/ IDENT:b IDENT:a"},
		{"{X: A(X)}", "{:{ IDENT:X ::: IDENT:A (:( IDENT:X ):) }:}"},
		{"\xEF\xBB\xBFA", "IDENT:A"},
	}
	for _, tt := range tests {
		got, errs := lexString(tt.src)
		if len(errs) > 0 {
			t.Errorf("%q: %v", tt.src, errs)
		}
		if got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a /* b", "1:3: unterminated block comment: '/*' has no matching '*/'"},
		{"'abc", "1:1: unterminated quoted constant: missing closing ' before the end of the line"},
		{"x\n \"ab\ncd", "2:2: unterminated quoted constant: missing closing \" before the end of the line"},
		{`'a\`, "1:1: unterminated quoted constant: missing closing ' before the end of the line"},
		{`'\x'`, `1:2: unknown escape sequence '\x' in quoted constant (use \\, \', \", \t, \n or \r)`},
		{"a ? b", "1:3: unexpected character '?'"},
		{"é", "1:1: unexpected character 'é'"},
		{"\xff", "1:1: invalid UTF-8 byte 0xff"},
		{"a > b", "1:3: unexpected '>' (expected '>>' or '>=')"},
		{"@", "1:1: unknown coefficient function '@' (expected @Max or @Min)"},
		{"@Sum[", "1:1: unknown coefficient function '@Sum' (expected @Max or @Min)"},
	}
	for _, tt := range tests {
		_, errs := lexString(tt.src)
		if len(errs) != 1 || errs[0].Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.src, errs, tt.want)
		}
	}
}

func TestLexPositions(t *testing.T) {
	var errs ErrorList
	// Columns count bytes; a tab is one column.
	toks, comments := lex([]byte("a\n\tbb /* x\n */ 'é' c"), srcpos.Position{File: "f", Line: 10, Col: 5}, nil, &errs)
	var got []string
	for _, tok := range toks {
		got = append(got, fmt.Sprintf("%d:%d", tok.line, tok.col))
	}
	// a at the given start; bb on the next line; 'é' after the comment;
	// c two bytes further for é; EOF just after c.
	if want := "10:5 11:2 12:5 12:10 12:11"; strings.Join(got, " ") != want {
		t.Errorf("positions %s, want %s", strings.Join(got, " "), want)
	}
	if len(comments) != 1 || comments[0].line != 11 || comments[0].lastLine != 12 {
		t.Errorf("comments %+v", comments)
	}
}
