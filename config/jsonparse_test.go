package config

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// toAny converts a parsed value to what encoding/json produces with
// UseNumber, for comparison.
func toAny(v *jsonValue) any {
	switch v.Kind {
	case jsonNull:
		return nil
	case jsonBool:
		return v.Text == "true"
	case jsonNumber:
		return json.Number(v.Text)
	case jsonString:
		return v.Text
	case jsonArray:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = toAny(it)
		}
		return out
	}
	out := make(map[string]any, len(v.Keys))
	for _, m := range v.Keys {
		out[m.Key] = toAny(m.Value)
	}
	return out
}

func TestParseJSONValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{"a": [1, -2.5e3, "x\ty\u00e9\ud83d\ude00", true, false, null], "b": {}}`,
			map[string]any{"a": []any{json.Number("1"), json.Number("-2.5e3"), "x\tyé😀", true, false, nil}, "b": map[string]any{}}},
		// PSL's extensions: comments, single quotes, trailing commas, '+' and leading zeros.
		{"# comment\n{ // another\n 'a': ['it', \"q'\", 'say \\'hi\\'',], /* block\n comment */ \"n\": [+1, 007, 0.50],}\n# end",
			map[string]any{"a": []any{"it", "q'", "say 'hi'"}, "n": []any{json.Number("+1"), json.Number("007"), json.Number("0.50")}}},
		{`[]`, []any{}},
		{"\ufeff{\"a\": 'b'}", map[string]any{"a": "b"}},
	}
	for _, tt := range tests {
		v, err := parseJSON("t.json", []byte(tt.in))
		if err != nil {
			if tt.want == nil {
				continue
			}
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, toAny(v)); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestParseJSONPositions(t *testing.T) {
	src := "{\n  # rules\n  \"rules\": [\n    \"1: A(X) -> B(X)\",\n\t'2: B(X)'\n  ],\n  \"n\": 12\n}"
	v, err := parseJSON("p.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rules := v.Keys[0]
	if rules.Pos.Line != 3 || rules.Pos.Col != 3 {
		t.Errorf("key rules at %v, want 3:3", rules.Pos)
	}
	if p := rules.Value.Items[0].Pos; p.Line != 4 || p.Col != 5 {
		t.Errorf("first rule at %v, want 4:5", p)
	}
	if p := rules.Value.Items[1].Pos; p.Line != 5 || p.Col != 2 {
		t.Errorf("second rule at %v, want 5:2", p)
	}
	if p := v.Keys[1].Value.Pos; p.String() != "p.json:7:8" {
		t.Errorf("number at %v, want p.json:7:8", p)
	}
}

func TestParseJSONErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "e.json:1:1: empty JSON document"},
		{"  # only a comment\n", "e.json:2:1: empty JSON document"},
		{"{\"a\": 1,\n \"b\" 2}", `e.json:2:6: unexpected '2', expected ':' after key "b"`},
		{"{\"a\": 1 \"b\": 2}", `e.json:1:9: unexpected '"', expected ',' or '}' after the value of "a"`},
		{"[1, 2", "e.json:1:1: unterminated array: missing ']'"},
		{"{\"a\": [1,\n2}", "e.json:2:2: unexpected '}', expected ',' or ']' in array"},
		{"{\"a\": \"x", "e.json:1:7: unterminated string"},
		{"{\"a\": \"x\ny\"}", "e.json:1:7: unterminated string (a string cannot span lines)"},
		{"[\"a\\qb\"]", `e.json:1:4: invalid escape \q in string`},
		{"[\"\\u12G4\"]", `e.json:1:3: invalid \u escape: want 4 hex digits`},
		{"[1.]", `e.json:1:2: invalid number "1."`},
		{"[1.5.2]", `e.json:1:2: invalid number "1.5.2"`},
		{"[-]", `e.json:1:2: invalid number "-"`},
		{"[1e]", `e.json:1:2: invalid number "1e"`},
		{"[12abc]", `e.json:1:2: invalid number "12abc"`},
		{"[.5]", `e.json:1:2: unexpected '.', expected a value`},
		{"[True]", `e.json:1:2: unexpected 'T', expected a value`},
		{"[nul]", `e.json:1:2: unexpected word "nul", expected a value (strings must be quoted)`},
		{"{a: 1}", `e.json:1:2: unexpected 'a', expected a quoted key or '}'`},
		{"{\"a\": 1, \"a\": 2}", `e.json:1:10: duplicate key "a" (first at 1:2)`},
		{"[1] [2]", "e.json:1:5: unexpected '[' after the end of the JSON document"},
		{"[1, /* open", "e.json:1:5: unterminated /* comment"},
		{"[\"a\x01\"]", `e.json:1:4: control character '\x01' in string (write it as an escape)`},
		{`["a\u0000b"]`, `e.json:1:4: \u0000 (a NUL character) in string`},
		{`"lone \ud800 surrogate"`, `e.json:1:7: \uD800 is half of a UTF-16 surrogate pair, without its other half`},
		{`"\ude00\ud83d"`, `e.json:1:2: \uDE00 is half of a UTF-16 surrogate pair`},
		{"[\"caf\xe9\"]", `e.json:1:6: invalid UTF-8 (byte 0xE9) in string`},
		{"[\"caf\xe9\\n\"]", `e.json:1:6: invalid UTF-8 (byte 0xE9) in string`},
		{strings.Repeat("[", 300), "values nested more than 200 deep"},
	}
	for _, tt := range tests {
		_, err := parseJSON("e.json", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseJSON: any input gives a value or a positioned error, never a
// panic; on strict JSON (valid UTF-8, no duplicate keys) the result equals
// encoding/json's.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, -2.5e3, "x\ty\u00e9", true, false, null], "b": {}}`,
		"# c\n{'a': [1,], /* x */ \"b\": +2}",
		`"\ud83d\ude00\ud800x"`,
		`[[[[]]]]`,
		`{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON("f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("error without position: %v", err)
			}
		}
		if !json.Valid(data) || !utf8.Valid(data) {
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "duplicate key") || strings.Contains(err.Error(), "nested more than") ||
				strings.Contains(err.Error(), "NUL character") || strings.Contains(err.Error(), "surrogate pair") {
				return
			}
			t.Fatalf("valid JSON rejected: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, toAny(v)); diff != "" {
			t.Fatalf("differs from encoding/json (-want +got)\n%s", diff)
		}
	})
}
