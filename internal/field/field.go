// Package field writes and reads one tab-separated field the way hinge's
// TSV outputs and loaders agree on: a constant that the format could not
// carry verbatim (a tab, a line break, a blank at either end, an empty
// string, or a leading double quote) is written double-quoted with Go
// escapes (\t, \n, \", \\, \u...), and a field that starts and ends with a
// double quote is read back through the same unquoting. Every other field
// is verbatim, so ordinary PSL data reads as before.
package field

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quote returns s as a field.
func Quote(s string) string {
	if s == "" || s[0] == '"' || strings.ContainsAny(s, "\t\n\r") ||
		s[0] == ' ' || s[len(s)-1] == ' ' {
		return strconv.Quote(s)
	}
	return s
}

// Unquote returns the constant a field holds; ok is false for a field that
// starts and ends with a double quote but is not a valid quoted string, or
// whose escapes make a NUL character or bytes that are not UTF-8 (\x00,
// \xff), which no constant hinge reads may hold.
func Unquote(f string) (s string, ok bool) {
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
		u, err := strconv.Unquote(f)
		return u, err == nil && utf8.ValidString(u) && !strings.Contains(u, "\x00")
	}
	return f, true
}
