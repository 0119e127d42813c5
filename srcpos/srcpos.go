// Package srcpos is the one position in a source file and the one error at
// such a position that every reader in hinge reports (rule files, data and
// JSON configs, TSV atoms, WCNF and the HL-MRF exchange format), as
// go/token.Position serves the whole Go toolchain.
package srcpos

import "fmt"

// Position is a place in a source file: 1-based line and byte column. The
// zero Position means "unknown".
type Position struct {
	File      string
	Line, Col int
}

// String formats the position as file:line:col, omitting what is unknown.
func (p Position) String() string {
	switch {
	case p.Line == 0 && p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether the position is known.
func (p Position) IsValid() bool { return p.Line > 0 }

// Error is an error at a source position.
type Error struct {
	Pos Position
	Msg string
}

// Error formats the error as file:line:col: message.
func (e *Error) Error() string {
	if s := e.Pos.String(); s != "" {
		return s + ": " + e.Msg
	}
	return e.Msg
}

// Errorf returns an *Error at pos.
func Errorf(pos Position, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
