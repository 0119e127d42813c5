package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hinge-srl/hinge/internal/field"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// Section says which part of a store a data source fills.
type Section uint8

const (
	// Observations are atoms with a fixed, known value.
	Observations Section = iota
	// Targets are the atoms to infer (the variables of the ground problem).
	Targets
	// Truth holds the true values of atoms, for evaluation and learning.
	Truth
)

// String returns the section's name as PSL's data files spell it.
func (s Section) String() string {
	switch s {
	case Observations:
		return "observations"
	case Targets:
		return "targets"
	case Truth:
		return "truth"
	}
	return fmt.Sprintf("Section(%d)", uint8(s))
}

// LoadTSV reads atoms of p into the given section of s from r, one atom per
// line with the arguments separated by tabs. name is used in error messages
// (usually the file's path).
//
// A line has p.Arity columns, or p.Arity+1 where the last column is a value
// in [0,1]. For observations and truth the value defaults to 1. For targets
// the optional value is the atom's initial value, recorded with
// Table.SetValue (default 0; when a target is listed twice with values, the
// last one wins). Line ends may be "\n" or "\r\n"; lines that are empty or
// hold only spaces and tabs are skipped, and so is a UTF-8 byte order mark
// at the start of the file. Spaces and tabs at both ends of a line are
// ignored, as PSL trims each line; inside the line arguments are taken
// verbatim (a blank next to a tab is part of the argument), except that an
// argument in double quotes is unquoted with Go's escapes (package
// internal/field: how hinge writes a constant holding a tab, a line break or
// blanks at its ends, so its outputs read back), and an empty argument is an
// error. Spaces around the value are ignored.
//
// Every error names name:line:col and what is wrong: the wrong number of
// columns, a value that is not a number or is outside [0,1], an atom that is
// both observed and a target, an atom observed twice (or given two truth
// values) with different values, or targets for a closed predicate. Atoms
// read before an error stay in the store.
//
// Apart from interning new constants, reading does not allocate per line.
func LoadTSV(s *Store, p *model.Predicate, what Section, r io.Reader, name string) error {
	if what > Truth {
		return fmt.Errorf("%s: unknown section %v", name, what)
	}
	if what == Targets && p.Closed {
		return fmt.Errorf("%s: targets given for %s, which is closed (fully observed); declare it open", name, p)
	}
	if p.Arity < 1 {
		return fmt.Errorf("%s: predicate %s has arity %d", name, p.Name, p.Arity)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	ids := make([]int32, p.Arity)
	for i := range ids {
		ids[i] = -1 // no previous line
	}
	var long []byte
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			var full *textfile.FullError
			if errors.As(err, &full) { // it names the file: give it the exact line
				full.Line = lineNo
				return full
			}
			var be *textfile.BinaryError
			var ee *textfile.EncodingError
			if errors.As(err, &be) || errors.As(err, &ee) { // they name the file, line and column
				return err
			}
			return fmt.Errorf("%s:%d: reading: %w", name, lineNo, err)
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if len(line) > 0 {
			if perr := s.loadLine(p, what, line, ids); perr != nil {
				perr.Pos.File, perr.Pos.Line = name, lineNo
				return perr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// colError is an error at column col of the line being read; LoadTSV
// fills in the file and line.
func colError(col int, msg string) *srcpos.Error {
	return &srcpos.Error{Pos: srcpos.Position{Col: col}, Msg: msg}
}

// loadLine parses one line (with its line end) and adds its atom.
func (s *Store) loadLine(p *model.Predicate, what Section, line []byte, ids []int32) *srcpos.Error {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	// Blanks at both ends of the line are not part of the atom, as PSL
	// reads it: PSL's own drug-interaction targets file has thousands of
	// lines ending in a space.
	lead := 0
	for lead < len(line) && (line[lead] == ' ' || line[lead] == '\t') {
		lead++
	}
	line = bytes.TrimRight(line[lead:], " \t")
	if len(line) == 0 {
		return nil
	}
	if err := s.loadFields(p, what, line, ids); err != nil {
		err.Pos.Col += lead // columns count from the start of the untrimmed line
		return err
	}
	return nil
}

// loadFields parses a trimmed, non-empty line and adds its atom.
func (s *Store) loadFields(p *model.Predicate, what Section, line []byte, ids []int32) *srcpos.Error {
	cols := bytes.Count(line, tab) + 1
	arity := p.Arity
	if cols != arity && cols != arity+1 {
		msg := fmt.Sprintf("expected %d or %d tab-separated columns for %s, found %d", arity, arity+1, p, cols)
		if cols == 1 && bytes.IndexByte(line, ' ') >= 0 {
			msg += " (columns must be separated by tabs, not spaces)"
		}
		return colError(1, msg)
	}
	v, hasValue := 1.0, false
	if cols == arity+1 {
		// The line is trimmed, so the value column is not blank (a
		// trailing tab, as PSL's drug-interaction targets have, is gone).
		i := bytes.LastIndexByte(line, '\t')
		var err *srcpos.Error
		if v, err = parseValue(line[i+1:], i+2); err != nil {
			return err
		}
		hasValue = true
		line = line[:i]
	}
	start := 0
	for k := 0; k < arity; k++ {
		end := len(line)
		if k < arity-1 {
			end = start + bytes.IndexByte(line[start:], '\t')
		}
		f := line[start:end]
		if len(f) == 0 {
			return colError(start+1, fmt.Sprintf("argument %d of %s is empty", k+1, p))
		}
		if f[0] == '"' {
			// A quoted constant, as hinge writes one that holds a tab, a
			// line break or blanks at its ends.
			u, ok := field.Unquote(string(f))
			if !ok {
				return colError(start+1, fmt.Sprintf("argument %d of %s: %s is not a valid quoted constant", k+1, p, clipBytes(f)))
			}
			f = []byte(u)
		}
		// Files are often grouped by their first arguments: reuse the
		// previous line's constant when it repeats.
		if prev := ids[k]; prev < 0 || string(f) != s.Dict.names[prev] {
			ids[k] = s.Dict.idBytes(f)
		}
		start = end + 1
	}
	if err := s.addIDs(p, what, ids, v, hasValue); err != nil {
		return colError(1, err.Error())
	}
	return nil
}

var (
	tab     = []byte{'\t'}
	utf8BOM = []byte{0xEF, 0xBB, 0xBF}
)

// clipBytes shortens echoed input for messages.
func clipBytes(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%q...", b[:77])
	}
	return fmt.Sprintf("%q", b)
}

// parseValue parses a truth value column starting at column col.
func parseValue(f []byte, col int) (float64, *srcpos.Error) {
	for len(f) > 0 && f[0] == ' ' {
		f = f[1:]
		col++
	}
	for len(f) > 0 && f[len(f)-1] == ' ' {
		f = f[:len(f)-1]
	}
	// Fast paths for the values most data files hold.
	switch string(f) {
	case "1", "1.0":
		return 1, nil
	case "0", "0.0":
		return 0, nil
	}
	v, err := num.ParseFloat(f)
	if err != nil {
		return 0, colError(col, fmt.Sprintf("value %q is not a number", f))
	}
	if err := CheckValue(v); err != nil {
		return 0, colError(col, err.Error())
	}
	return v, nil
}

// idBytes is Dict.ID for a byte slice: it allocates only when b is new.
func (d *Dict) idBytes(b []byte) int32 {
	if id, ok := d.ids[string(b)]; ok {
		return id
	}
	return d.ID(string(b))
}
