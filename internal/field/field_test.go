package field

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"plain", "", " lead", "trail ", "tab\there", "line\nbreak", "\"quoted\"", "back\\slash", "über 東京", "\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.Contains(s, "\x00") { // no constant holds these
			return
		}
		q := Quote(s)
		if strings.ContainsAny(q, "\t\n\r") {
			t.Fatalf("Quote(%q) = %q still holds a tab or line break", s, q)
		}
		if got, ok := Unquote(q); !ok || got != s {
			t.Fatalf("Unquote(Quote(%q)) = %q, %v", s, got, ok)
		}
	})
}

func TestVerbatim(t *testing.T) {
	for _, s := range []string{"Anna", "a b", "1.5", "Ünïcode", "x\"y"} {
		if Quote(s) != s {
			t.Errorf("Quote(%q) = %q, want it verbatim", s, Quote(s))
		}
	}
	if _, ok := Unquote(`"bad\q"`); ok {
		t.Error("a bad escape was accepted")
	}
}

// TestUnquoteRefuses: escapes that make a NUL character or bytes that are
// not UTF-8 are refused, as the text readers refuse the raw bytes.
func TestUnquoteRefuses(t *testing.T) {
	for _, f := range []string{`"a\x00b"`, `"\u0000"`, `"\000"`, `"caf\xe9"`, `"\xff"`} {
		if got, ok := Unquote(f); ok {
			t.Errorf("Unquote(%s) = %q, accepted", f, got)
		}
	}
	if got, ok := Unquote(`"caf\u00e9\t"`); !ok || got != "café\t" {
		t.Errorf("Unquote of a valid escape: %q, %v", got, ok)
	}
}
