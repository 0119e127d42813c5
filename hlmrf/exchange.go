package hlmrf

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/field"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
)

// The exchange format is the text format of the lifted HL-MRF paper's
// experiments (github.com/linqs/srinivasan-aaai19), one potential per line:
//
//	w 0:c j:x_j k:x_k ... #^d
//
// meaning w * max(sum_j x_j*y_j - c, 0)^d with 1-based variable columns j.
// Tokens are separated by blanks; "#^d" may also be written "# ^d"; a line
// without "^d" is a linear hinge (d = 1). hinge extends it, backwards
// compatibly (every file of the original form reads the same), with:
//
//	# comment                   a line whose first non-blank character is '#'
//	# variables: N              the number of variable columns, so that columns
//	                            that appear in no potential are kept
//	<= 0:c j:x_j ...            hard constraint  sum_j x_j*y_j <= c
//	= 0:c j:x_j ...             hard constraint  sum_j x_j*y_j  = c
//	>= 0:c j:x_j ...            hard constraint  sum_j x_j*y_j >= c (read only;
//	                            stored and written as -sum <= -c)
//
// The 0:c term may be omitted (c = 0). Potentials read from a file have
// Group -1. The companion FILE.atoms lists one line per variable column,
// PRED<TAB>arg1<TAB>..., and is written by WriteAtoms.

// MaxVars is the largest number of variables Read accepts: a file may not
// make a solver allocate per-variable arrays of many gigabytes for columns
// that occur nowhere (2^28 variables need 2 GiB per float64 array).
const MaxVars = 1<<28 - 1

// Read parses a problem in the exchange format. name is used in error
// messages (usually the file name); errors in the text are *srcpos.Error.
func Read(r io.Reader, name string) (*Problem, error) {
	p := &Problem{Start: []int32{0}, CStart: []int32{0}}
	sc := textfile.NewScanner(r, name)
	declared, declLine := -1, 0
	maxLine, maxCol := 0, 0 // where the largest column was first used
	var vars []int32
	var coefs []float64
	line := 0
	for sc.Scan() {
		line++
		// A byte scanner over the line, with no allocation per line; the
		// rare forms (comments, odd powers, errors) take the string paths.
		text := sc.Bytes()
		body, comment, hasComment := bytes.Cut(text, []byte{'#'})
		i := skipBlanks(body, 0)
		if i == len(body) {
			// A comment-only line; it may declare the variable count.
			if n, ok, err := parseVarsDecl(string(comment)); err != nil {
				return nil, synErr(name, line, bytes.IndexByte(text, '#')+2, err.Error())
			} else if ok {
				if declared >= 0 && n != declared {
					// Two counts: which one the writer meant is unknown.
					return nil, synErr(name, line, bytes.IndexByte(text, '#')+2,
						fmt.Sprintf("'# variables: %d' contradicts '# variables: %d' on line %d", n, declared, declLine))
				}
				declared, declLine = n, line
			}
			continue
		}
		headCol := i + 1
		i = tokenEnd(body, i)
		head := body[headCol-1 : i]
		vars, coefs = vars[:0], coefs[:0]
		c := 0.0
		for {
			if i = skipBlanks(body, i); i == len(body) {
				break
			}
			tcol := i + 1
			i = tokenEnd(body, i)
			t := body[tcol-1 : i]
			colon := bytes.IndexByte(t, ':')
			if colon < 0 {
				return nil, synErr(name, line, tcol, fmt.Sprintf("expected column:value, found %q", t))
			}
			col, err := num.Atoi(t[:colon])
			if err != nil || col < 0 {
				return nil, synErr(name, line, tcol, fmt.Sprintf("bad column %q (want 0 for the constant or a 1-based variable column)", t[:colon]))
			}
			val, err := num.ParseFloat(t[colon+1:])
			if err != nil || math.IsNaN(val) || math.IsInf(val, 0) {
				return nil, synErr(name, line, tcol+colon+1, fmt.Sprintf("bad value %q (want a finite number)", t[colon+1:]))
			}
			if col == 0 {
				c += val // repeated columns are summed, the constant's too
				continue
			}
			if col > MaxVars {
				return nil, synErr(name, line, tcol, fmt.Sprintf("column %d is too large (at most %d variables)", col, MaxVars))
			}
			if declared >= 0 && col > declared {
				return nil, synErr(name, line, tcol, outOfRange(col, declared, declLine))
			}
			if val == 0 {
				continue
			}
			vars = append(vars, int32(col-1))
			coefs = append(coefs, val)
			if col > p.NumVars {
				p.NumVars, maxLine, maxCol = col, line, tcol
			}
		}
		switch string(head) { // no allocation: the conversion is only compared
		case "<=", "=", ">=":
			if hasComment && skipBlanks(comment, 0) != len(comment) {
				return nil, synErr(name, line, bytes.IndexByte(text, '#')+1, "a constraint line takes no '#^d' power")
			}
			kind := LessEq
			if head[0] == '=' {
				kind = Equal
			} else if head[0] == '>' {
				for k := range coefs {
					coefs[k] = -coefs[k]
				}
				c = -c
			}
			p.AddConstraint(kind, c, -1, vars, coefs)
		default:
			w, err := num.ParseFloat(head)
			if err != nil || w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, synErr(name, line, headCol, fmt.Sprintf("expected a finite nonnegative weight or one of <=, =, >=, found %q", head))
			}
			power := uint8(1)
			if hasComment {
				p, col, ok := parsePower(comment)
				if !ok {
					return nil, synErr(name, line, bytes.IndexByte(text, '#')+1+col,
						fmt.Sprintf("expected ^1 or ^2 after '#', found %q", bytes.TrimSpace(comment)))
				}
				power = p
			}
			p.AddPotential(w, c, power, -1, vars, coefs)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, textfile.ScanError(err, name, line)
	}
	if declared >= 0 {
		if declared < p.NumVars {
			// Declared after the column's first use.
			return nil, synErr(name, maxLine, maxCol, outOfRange(p.NumVars, declared, declLine))
		}
		p.NumVars = declared
	}
	return p, nil
}

// outOfRange says that column col is beyond the declared variable count.
func outOfRange(col, declared, declLine int) string {
	return fmt.Sprintf("column %d is out of range: '# variables: %d' (line %d) declares %d variable columns", col, declared, declLine, declared)
}

// parseVarsDecl recognises the comment "variables: N".
func parseVarsDecl(comment string) (int, bool, error) {
	s := strings.TrimSpace(comment)
	rest, ok := strings.CutPrefix(s, "variables:")
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || n < 0 || n > MaxVars {
		return 0, false, fmt.Errorf("bad variable count %q (want 0 to %d)", strings.TrimSpace(rest), MaxVars)
	}
	return n, true, nil
}

// skipBlanks returns the index of the first byte at or after i that is not
// a blank (space, tab, carriage return).
func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// tokenEnd returns the index of the first blank at or after i.
func tokenEnd(b []byte, i int) int {
	for i < len(b) && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	return i
}

// parsePower reads a potential line's comment (after '#'): blank (power 1),
// or "^1" or "^2" between blanks. When it is neither, ok is false and col
// is the 1-based column (in the comment) of its first token.
func parsePower(comment []byte) (power uint8, col int, ok bool) {
	i := skipBlanks(comment, 0)
	if i == len(comment) {
		return 1, 0, true
	}
	j := tokenEnd(comment, i)
	tok := comment[i:j]
	if skipBlanks(comment, j) != len(comment) || len(tok) != 2 || tok[0] != '^' || (tok[1] != '1' && tok[1] != '2') {
		return 0, i + 1, false
	}
	return tok[1] - '0', 0, true
}

// Write writes p in the exchange format, starting with a "# variables: N"
// line. Numbers are written with the fewest digits that read back exactly.
func Write(w io.Writer, p *Problem) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "# variables: %d\n", p.NumVars)
	buf := make([]byte, 0, 256)
	for i := range p.Weight {
		buf = buf[:0]
		buf = strconv.AppendFloat(buf, p.Weight[i], 'g', -1, 64)
		vars, coefs := p.Terms(i)
		buf = appendTerms(buf, p.Const[i], vars, coefs)
		buf = append(buf, " #^"...)
		buf = strconv.AppendInt(buf, int64(p.Power[i]), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	for j := range p.CKind {
		buf = buf[:0]
		buf = append(buf, p.CKind[j].String()...)
		vars, coefs := p.CTerms(j)
		buf = appendTerms(buf, p.CConst[j], vars, coefs)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendTerms(buf []byte, c float64, vars []int32, coefs []float64) []byte {
	buf = append(buf, " 0:"...)
	buf = strconv.AppendFloat(buf, c, 'g', -1, 64)
	for k, v := range vars {
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v)+1, 10)
		buf = append(buf, ':')
		buf = strconv.AppendFloat(buf, coefs[k], 'g', -1, 64)
	}
	return buf
}

// WriteAtoms writes a FILE.atoms listing, one tab-separated line per atom;
// a constant holding a tab, a line break or blanks at its ends is quoted
// (internal/field), as the TSV loader reads it.
func WriteAtoms(w io.Writer, atoms [][]string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, a := range atoms {
		for i, s := range a {
			if i > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(field.Quote(s))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// synErr is a syntax error at line and byte column col of file name.
func synErr(name string, line, col int, msg string) error {
	return &srcpos.Error{Pos: srcpos.Position{File: name, Line: line, Col: col}, Msg: msg}
}
