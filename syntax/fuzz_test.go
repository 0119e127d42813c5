package syntax

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// addSeeds adds every testdata .psl file, every error-test chunk and every
// parser-table rule to the fuzz corpus.
func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/print/*.psl")
	files = append(files, "testdata/errors.psl")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, chunk := range bytes.Split(data, []byte("\n---\n")) {
			f.Add(chunk)
		}
	}
	for _, src := range parseRuleSources() {
		f.Add([]byte(src))
	}
}

// checkErrors checks that an error is a non-empty ErrorList with a position
// on every entry.
func checkErrors(t *testing.T, err error) {
	t.Helper()
	list, ok := err.(ErrorList)
	if !ok || len(list) == 0 {
		t.Fatalf("error %T %v is not a non-empty ErrorList", err, err)
	}
	for _, e := range list {
		if !e.Pos.IsValid() || e.Msg == "" {
			t.Fatalf("error without position or message: %#v", e)
		}
	}
}

// FuzzParseFile: no input panics; errors carry positions; every rule that
// parses formats to text that parses back to the same structure, and the
// printed file parses back to the same rules and comments.
func FuzzParseFile(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := ParseFile("fuzz.psl", data)
		if err != nil {
			checkErrors(t, err)
		}
		checkRoundTrip(t, rules)
	})
}

// FuzzParseRule: ParseRule never panics, reports positions at or after
// where the string starts, and accepted rules round-trip through Format.
func FuzzParseRule(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		at := srcpos.Position{File: "cfg.json", Line: 3, Col: 12}
		r, err := ParseRule(string(data), at)
		if err != nil {
			checkErrors(t, err)
			for _, e := range err.(ErrorList) {
				if e.Pos.File != at.File || e.Pos.Line < at.Line || e.Pos.Line == at.Line && e.Pos.Col < at.Col {
					t.Fatalf("error %v before the rule's start %v", e, at)
				}
			}
			return
		}
		back, err := ParseRule(Format(r), srcpos.Position{})
		if err != nil {
			t.Fatalf("%q formats as %q: %v", data, Format(r), err)
		}
		if d := diffRule(r, back); d != "" {
			t.Fatalf("%q formats as %q, which parses differently:\n%s", data, Format(r), d)
		}
	})
}
