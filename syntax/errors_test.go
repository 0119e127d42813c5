package syntax

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// expectation is one "### @COL "regexp"" annotation of testdata/errors.psl.
type expectation struct {
	line, col int
	re        *regexp.Regexp
	used      bool
}

// annotation matches ### @COL "regexp"; the regexp is the raw text between
// the quotes (a '"' inside is written \").
var annotation = regexp.MustCompile(`###\s*(?:@(\d+)\s*)?"((?:[^"\\]|\\.)*)"`)

// TestErrors parses each chunk of testdata/errors.psl and checks that the
// errors are exactly the annotated ones, at the annotated line and column.
func TestErrors(t *testing.T) {
	const file = "testdata/errors.psl"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && lines[i] != "---" {
			continue
		}
		if start > 0 { // the header before the first "---" is not a test
			checkChunk(t, file, start, lines[start:i])
		}
		start = i + 1
	}
}

func checkChunk(t *testing.T, file string, start int, lines []string) {
	t.Helper()
	var want []*expectation
	for k, l := range lines {
		for _, m := range annotation.FindAllStringSubmatch(l, -1) {
			col := 0
			if m[1] != "" {
				col, _ = strconv.Atoi(m[1])
			}
			re, err := regexp.Compile(m[2])
			if err != nil {
				t.Fatalf("%s:%d: bad annotation %s: %v", file, start+k+1, m[2], err)
			}
			want = append(want, &expectation{line: start + k + 1, col: col, re: re})
		}
	}
	src := strings.Join(lines, "\n")
	at := srcpos.Position{File: file, Line: start + 1, Col: 1}
	var got ErrorList
	if strings.HasPrefix(src, "#!single") {
		if _, err := ParseRule(src, at); err != nil {
			got = err.(ErrorList)
		}
	} else {
		_, got = parse([]byte(src), at, nil, false)
	}
	if len(want) == 0 {
		t.Errorf("%s:%d: chunk has no expectations", file, start+1)
	}
	for _, e := range got {
		ok := false
		for _, w := range want {
			if !w.used && w.line == e.Pos.Line && (w.col == 0 || w.col == e.Pos.Col) && w.re.MatchString(e.Msg) {
				w.used, ok = true, true
				break
			}
		}
		if !ok {
			t.Errorf("unexpected error: %v", e)
		}
	}
	for _, w := range want {
		if !w.used {
			t.Errorf("%s:%d:%d: expected an error matching %q", file, w.line, w.col, w.re)
		}
	}
}

func TestNestingLimit(t *testing.T) {
	for _, src := range []string{
		"1: " + strings.Repeat("(", 1000) + "A(X)" + strings.Repeat(")", 1000),
		"1: " + strings.Repeat("!", 1000) + "A(X)",
		strings.Repeat("-", 1000) + "A(X) = 1 .",
		strings.Repeat("(", 1000) + "A(X)" + strings.Repeat(")", 1000) + " = 1 .",
	} {
		_, err := ParseRule(src, srcpos.Position{})
		if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("%.20s...: got %v, want a nesting error", src, err)
		}
	}
	// Just under the limit is fine.
	if _, err := ParseRule("1: "+strings.Repeat("!", maxDepth)+"A(X)", srcpos.Position{}); err != nil {
		t.Error(err)
	}
}
