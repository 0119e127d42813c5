package syntax

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hinge-srl/hinge/srcpos"
)

// MaxReported is how many errors ErrorList.Error prints before summarising
// the rest as "and N more errors".
const MaxReported = 10

// ErrorList is a list of errors at source positions, as returned by
// ParseFile, ParseRule and ParseModel. Each element is a *srcpos.Error, so
// errors.As(err, &e) with e a *srcpos.Error finds the first one.
type ErrorList []*srcpos.Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos srcpos.Position, msg string) {
	*l = append(*l, &srcpos.Error{Pos: pos, Msg: msg})
}

// Len implements sort.Interface.
func (l ErrorList) Len() int { return len(l) }

// Swap implements sort.Interface.
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }

// Less implements sort.Interface: by file, line, column, then message.
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i].Pos, l[j].Pos
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return l[i].Msg < l[j].Msg
}

// Sort sorts the list by position and drops exact duplicates (same position
// and message).
func (l *ErrorList) Sort() {
	sort.Stable(*l)
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 && e.Pos == out[len(out)-1].Pos && e.Msg == out[len(out)-1].Msg {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Error prints one error per line, at most MaxReported of them, followed by
// "and N more errors" when there are more.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i == MaxReported {
			n := len(l) - MaxReported
			fmt.Fprintf(&b, "\nand %d more error%s", n, plural(n))
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors of the list, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
