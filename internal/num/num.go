// Package num parses the numbers of hinge's text formats from byte slices
// without allocating: the common forms (a decimal integer; a decimal
// fraction with at most 15 significant digits and a power of ten of at most
// 22) take a fast exact path, everything else goes to strconv, so results
// and accepted syntax are strconv's exactly, less Go's own forms (digits
// separated by underscores, hexadecimal floats; see Parse).
package num

import (
	"strconv"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloat is strconv.ParseFloat(string(b), 64) without the allocation
// for the common decimal forms. A decimal mantissa m < 10^15 (exact in a
// float64) times or divided by 10^e with e <= 22 (also exact) is one
// correctly rounded operation, so the fast path gives strconv's result
// (Clinger's fast path).
func ParseFloat(b []byte) (float64, error) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	sawDigit, sawDot := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if digits == 15 {
				return slow(b)
			}
			mant = mant*10 + uint64(c-'0')
			digits++
			if sawDot {
				exp--
			}
		case c == '.' && !sawDot:
			sawDot = true
		case c == 'e' || c == 'E':
			if !sawDigit {
				return slow(b)
			}
			e, ok := smallExp(b[i+1:])
			if !ok {
				return slow(b)
			}
			exp += e
			i = len(b)
		default:
			return slow(b)
		}
	}
	if !sawDigit {
		return slow(b)
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp >= 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	default:
		return slow(b)
	}
	if neg {
		f = -f
	}
	return f, nil
}

// smallExp reads an exponent of at most two digits with an optional sign.
func smallExp(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 2 {
		return 0, false
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	return e, true
}

func slow(b []byte) (float64, error) { return Parse(string(b)) }

// Parse is strconv.ParseFloat(s, 64) without the Go-only forms that no data
// format hinge reads (nor PSL, Alchemy or Tuffy) has: digits separated by
// underscores (1_0, read as 10) and hexadecimal floats (0x1p-1). Those are
// a syntax error, as any other malformed number is.
func Parse(s string) (float64, error) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '_', 'x', 'X', 'p', 'P':
			return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
		}
	}
	return strconv.ParseFloat(s, 64)
}

// Atoi is strconv.Atoi(string(b)) without the allocation for plain
// decimal digits (at most 18 of them).
func Atoi(b []byte) (int, error) {
	if len(b) == 0 || len(b) > 18 {
		return strconv.Atoi(string(b))
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return strconv.Atoi(string(b))
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// ParseInt is strconv.ParseInt(string(b), 10, 64) without the allocation
// for an optional sign and at most 18 decimal digits.
func ParseInt(b []byte) (int64, error) {
	d := b
	neg := false
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		neg = d[0] == '-'
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return strconv.ParseInt(string(b), 10, 64)
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return strconv.ParseInt(string(b), 10, 64)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}
