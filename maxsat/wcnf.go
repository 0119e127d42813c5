package maxsat

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
)

// WCNF files come in two forms, told apart by whether a "p" line comes
// before the first clause.
//
// Classic (MaxSAT Evaluations up to 2021):
//
//	c comment
//	p wcnf NVARS NCLAUSES TOP   weighted partial: a clause whose weight is >= TOP is hard
//	p wcnf NVARS NCLAUSES       weighted: every clause is soft
//	p cnf NVARS NCLAUSES        unweighted: every clause is soft with weight 1
//	W l1 l2 ... 0               (cnf: l1 l2 ... 0) a clause may span lines
//
// A plain "p cnf" file is read as unweighted MAX-SAT (maximise the number of
// satisfied clauses), the convention of the MaxSAT Evaluations' unweighted
// category, rather than as a SAT problem: hinge's answer is an assignment
// with a guarantee, not a satisfiability proof. The header's counts are
// checked: more or fewer clauses than NCLAUSES, or a literal beyond NVARS, is
// an error.
//
// 2022 form (MaxSAT Evaluation 2022 on), with no "p" line:
//
//	c comment
//	h l1 l2 ... 0               a hard clause
//	W l1 l2 ... 0               a soft clause of weight W
//
// one clause per line; the number of variables is the largest one used.
//
// In both forms weights may be real numbers (decimal or exponent notation)
// but must be finite and nonnegative, literals are nonzero integers, every
// clause ends with 0, and a line whose first token starts with 'c' is a
// comment. Errors are *srcpos.Error values with file:line:col.

// maxVars bounds variable numbers: literals must fit in an int32, and a
// header may not make the solver allocate per-variable arrays of many
// gigabytes for variables that occur nowhere. The relaxation is an HL-MRF
// over the same variables, so the bound is the exchange format's.
const maxVars = hlmrf.MaxVars

// maxClauses bounds the clause count (the occurrence lists pack a clause
// index and a sign bit into an int32).
const maxClauses = 1<<30 - 1

// wtoken is a token of the current line: line[lo:hi], at 1-based column
// col. Offsets rather than a slice, so that filling the token list writes
// no pointers (a pointer per token cost a GC write barrier each).
type wtoken struct {
	lo, hi, col int
}

// in returns the token's bytes in line.
func (t wtoken) in(line []byte) []byte { return line[t.lo:t.hi] }

// Read parses a WCNF file in either form (see the comment above). name is
// used in error messages, usually the file name.
func Read(r io.Reader, name string) (*Instance, error) {
	in := &Instance{Start: []int32{0}}
	sc := textfile.NewScanner(r, name)
	var (
		line       int
		classic    bool // a p line was seen
		cnf        bool // p cnf: no weights
		hasTop     bool
		top        float64
		topText    string
		declVars   int
		declClause int
		headerLine int
		countCol   int
		seenClause bool

		// The clause being read (classic clauses may span lines).
		open      bool
		wtext     string // the weight as written, when its float64 does not hold it
		openLine  int
		openCol   int
		weight    float64
		hard      bool
		lits      []Lit
		lastLine  int
		lastCol   int
		toks      []wtoken
		lineIsP   bool
		endOfLine int
	)
	errAt := func(l, c int, format string, a ...any) error {
		return srcpos.Errorf(srcpos.Position{File: name, Line: l, Col: c}, format, a...)
	}
	finish := func() error {
		if in.NumClauses() >= maxClauses {
			return errAt(openLine, openCol, "too many clauses (at most %d)", maxClauses)
		}
		if classic && in.NumClauses() >= declClause {
			return errAt(openLine, openCol, "header (line %d) declares %d clauses but there are more", headerLine, declClause)
		}
		if err := in.AddClause(weight, hard, lits...); err != nil {
			return errAt(openLine, openCol, "%v", err)
		}
		if wtext != "" && !hard {
			in.Written = append(in.Written, WrittenWeight{Clause: int32(in.NumClauses() - 1), Text: wtext})
		}
		open = false
		lits = lits[:0]
		return nil
	}
	for sc.Scan() {
		line++
		text := sc.Bytes()
		toks = splitTokens(text, toks[:0])
		endOfLine = len(text) + 1
		if len(toks) == 0 {
			continue
		}
		if toks[0].in(text)[0] == 'c' {
			continue
		}
		lineIsP = string(toks[0].in(text)) == "p"
		if lineIsP {
			if classic {
				return nil, errAt(line, 1, "second \"p\" line (the header is on line %d)", headerLine)
			}
			if seenClause || open {
				return nil, errAt(line, 1, "\"p\" header after the first clause")
			}
			if len(toks) < 4 || (string(toks[1].in(text)) != "wcnf" && string(toks[1].in(text)) != "cnf") {
				return nil, errAt(line, 1, "bad header %q (want \"p wcnf NVARS NCLAUSES [TOP]\" or \"p cnf NVARS NCLAUSES\")", text)
			}
			classic = true
			headerLine = line
			cnf = string(toks[1].in(text)) == "cnf"
			n, err := strconv.Atoi(string(toks[2].in(text)))
			if err != nil || n < 0 || n > maxVars {
				return nil, errAt(line, toks[2].col, "bad variable count %q (want 0 to %d)", toks[2].in(text), maxVars)
			}
			m, err := strconv.Atoi(string(toks[3].in(text)))
			if err != nil || m < 0 || m > maxClauses {
				return nil, errAt(line, toks[3].col, "bad clause count %q", toks[3].in(text))
			}
			declVars, declClause, countCol = n, m, toks[3].col
			extra := 4
			if len(toks) > 4 && !cnf {
				t, err := num.Parse(string(toks[4].in(text)))
				if err != nil || math.IsNaN(t) || t <= 0 {
					return nil, errAt(line, toks[4].col, "bad top weight %q (want a positive number)", toks[4].in(text))
				}
				top, topText, hasTop, extra = t, string(toks[4].in(text)), true, 5
			}
			if len(toks) > extra {
				return nil, errAt(line, toks[extra].col, "unexpected %q after the header", toks[extra].in(text))
			}
			in.NumVars = n
			continue
		}
		for k, t := range toks {
			if !open {
				// The start of a clause: its weight or h.
				open, openLine, openCol = true, line, t.col
				seenClause = true
				hard = false
				weight = 1
				wtext = ""
				switch {
				case !classic && string(t.in(text)) == "h":
					hard = true
					continue
				case classic && cnf:
					// no weight token: fall through to the literal
				default:
					w, err := num.ParseFloat(t.in(text))
					if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
						what := "a clause weight"
						if !classic {
							what = "a clause weight or h"
						}
						return nil, errAt(line, t.col, "expected %s (a finite nonnegative number), found %q", what, t.in(text))
					}
					weight = w
					if needsText(t.in(text), w) {
						wtext = string(t.in(text))
					}
					if hasTop && (w > top || w == top && atLeast(t.in(text), topText)) {
						hard = true
					}
					continue
				}
			}
			v, err := num.ParseInt(t.in(text))
			if err != nil {
				return nil, errAt(line, t.col, "expected a literal (a nonzero integer) or 0, found %q", t.in(text))
			}
			if v == 0 {
				if err := finish(); err != nil {
					return nil, err
				}
				if !classic && k != len(toks)-1 {
					return nil, errAt(line, toks[k+1].col, "text after the clause's terminating 0 (one clause per line)")
				}
				continue
			}
			// Compared on both sides, not through |v|: -v overflows for
			// the most negative int64.
			if classic && (v > int64(declVars) || v < -int64(declVars)) {
				return nil, errAt(line, t.col, "literal %d is out of range: the header (line %d) declares %d variables", v, headerLine, declVars)
			}
			if v > maxVars || v < -maxVars {
				return nil, errAt(line, t.col, "literal %d is out of range (at most %d variables)", v, maxVars)
			}
			lits = append(lits, Lit(v))
		}
		lastLine, lastCol = line, endOfLine
		if open && !classic {
			return nil, errAt(line, endOfLine, "missing 0 at the end of the clause (one clause per line)")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, textfile.ScanError(err, name, line)
	}
	if open {
		return nil, errAt(lastLine, lastCol, "missing 0 at the end of the last clause (started at line %d)", openLine)
	}
	if classic && in.NumClauses() != declClause {
		return nil, errAt(headerLine, countCol, "header declares %d clauses but the file has %d", declClause, in.NumClauses())
	}
	return in, nil
}

// splitTokens splits s at blanks, keeping 1-based byte columns.
func splitTokens(s []byte, out []wtoken) []wtoken {
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '\f' && s[j] != '\v' {
			j++
		}
		if j > i {
			out = append(out, wtoken{i, j, i + 1})
		}
		i = j
	}
	return out
}

// Format selects the WCNF form that Write produces.
type Format int

const (
	// Format2022 is the MaxSAT Evaluation 2022 form: "h ... 0" for hard
	// clauses, "W ... 0" for soft ones, no header.
	Format2022 Format = iota
	// FormatClassic is "p wcnf NVARS NCLAUSES TOP" with TOP one more than
	// the ceiling of the total soft weight, hard clauses written with TOP.
	FormatClassic
)

// Write writes in as WCNF in the given form. Weights are written with the
// fewest digits that read back exactly, or as they were read
// (Instance.Written) where a float64 does not hold them. A leading comment line records the
// variable count in the 2022 form, whose files otherwise imply it.
func Write(w io.Writer, in *Instance, f Format) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var topBuf []byte
	if f == FormatClassic {
		// top must exceed every soft weight (a weight >= top reads as hard).
		// Beyond 2^53, +1 is lost to rounding: step to the next float up.
		top := math.Ceil(in.SoftWeight()) + 1
		for c, w := range in.Weight {
			if !in.Hard[c] && w >= top {
				top = math.Nextafter(w, math.Inf(1))
			}
		}
		if top <= in.SoftWeight() {
			top = math.Nextafter(in.SoftWeight(), math.Inf(1))
		}
		topBuf = strconv.AppendFloat(nil, top, 'f', -1, 64)
		fmt.Fprintf(bw, "p wcnf %d %d %s\n", in.NumVars, in.NumClauses(), topBuf)
	} else {
		fmt.Fprintf(bw, "c variables: %d, clauses: %d\n", in.NumVars, in.NumClauses())
	}
	buf := make([]byte, 0, 256)
	k := 0
	var t string
	for c := range in.Weight {
		buf = buf[:0]
		switch {
		case in.Hard[c] && f == FormatClassic:
			buf = append(buf, topBuf...)
		case in.Hard[c]:
			buf = append(buf, 'h')
		default:
			if t, k = in.written(c, k); t != "" {
				buf = append(buf, t...) // as read: more digits than the float64
			} else {
				buf = strconv.AppendFloat(buf, in.Weight[c], 'g', -1, 64)
			}
		}
		for _, l := range in.Clause(c) {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(l), 10)
		}
		buf = append(buf, " 0\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// atLeast says whether the number written w is at least the one written
// top, exactly: two weights that round to the same float64 (2^63-2 and a
// TOP of 2^63-1, both 2^63 as float64) are told apart, so that a soft
// clause just below TOP is not read as hard.
func atLeast(w []byte, top string) bool {
	a, okA := new(big.Rat).SetString(string(w))
	b, okB := new(big.Rat).SetString(top)
	if !okA || !okB {
		return true // equal as float64, and no exact reading to say otherwise
	}
	return a.Cmp(b) >= 0
}
