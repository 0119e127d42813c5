package maxsat

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/num"
)

// Weights as written. A WCNF weight such as 100000000.123456789 has more
// significant digits than a float64 holds: it is read as
// 100000000.12345679, the float64 nearest to it, and so is
// 100000000.123456788, so that two clauses whose weights differ by 10^-9
// become a tie. Read keeps the text of such weights (Instance.Written, only
// for the weights whose float64's shortest decimal is not the number
// written, so nothing for the usual file); Exact scales the weights to
// integers from the decimals as written, and the claims of optimality that
// rest on float64 sums are withheld while any weight is not held exactly
// (Instance.RoundedWeights).

// WrittenWeight is the weight of soft clause Clause as written in the file
// it was read from, where its float64 in Instance.Weight does not hold it
// (see Instance.Written).
type WrittenWeight struct {
	Clause int32
	Text   string
}

// decimal is a nonnegative number digits * 10^exp: digits are the
// significant digits without leading or trailing zeros ("" for zero).
type decimal struct {
	digits string
	exp    int
}

// maxExp bounds the exponents parseDecimal reads (far beyond float64's
// range either way): a number written with a larger one is not kept as
// written, and reads as its float64, 0 or infinite (refused as a weight).
const maxExp = 1 << 24

// parseDecimal reads a number as num.Parse accepts it (digits, an optional
// point, an optional exponent; a sign only on zero for weights) exactly.
// ok is false for text that is not such a decimal (inf, nan), is
// negative and nonzero, or has an exponent beyond maxExp.
func parseDecimal(text string) (d decimal, ok bool) {
	s := text
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		es := s[i+1:]
		eneg := false
		if es != "" && (es[0] == '+' || es[0] == '-') {
			eneg = es[0] == '-'
			es = es[1:]
		}
		if es == "" {
			return d, false
		}
		for _, c := range []byte(es) {
			if c < '0' || c > '9' {
				return d, false
			}
			if exp = exp*10 + int(c-'0'); exp > maxExp {
				return d, false // its exponent would be cut short
			}
		}
		if eneg {
			exp = -exp
		}
	}
	var b strings.Builder
	seenDot, seenDigit := false, false
	for _, c := range []byte(mant) {
		switch {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9':
			seenDigit = true
			if seenDot {
				exp--
			}
			if c == '0' && b.Len() == 0 {
				continue
			}
			b.WriteByte(c)
		default:
			return d, false
		}
	}
	if !seenDigit {
		return d, false
	}
	digits := b.String()
	n := len(digits)
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	exp += len(digits) - n
	digits = digits[:n]
	if digits == "" {
		return decimal{}, true
	}
	if neg {
		return d, false
	}
	return decimal{digits, exp}, true
}

// floatDecimal is the shortest decimal that reads back as w (w >= 0).
func floatDecimal(w float64, buf []byte) (decimal, []byte) {
	if w == 0 {
		return decimal{}, buf
	}
	buf = strconv.AppendFloat(buf[:0], w, 'e', -1, 64)
	d, _ := parseDecimal(string(buf))
	return d, buf
}

// Rounded says whether the weight written text, read as w, is a number
// that w's shortest decimal is not: more significant digits than a float64
// holds (0.1 is its float's shortest decimal, 100000000.123456789 is not).
// The Markov logic parser warns of such weights; the WCNF reader keeps
// their text (Instance.Written).
func Rounded(text string, w float64) bool {
	if t, ok := strings.CutPrefix(text, "-"); ok {
		text, w = t, -w // needsText reads unsigned decimals, as WCNF weights are
	}
	return needsText([]byte(text), w)
}

// ShortestText is v's shortest decimal, without an exponent for the
// magnitudes weights usually have: what a rounded weight is read as.
func ShortestText(v float64) string {
	if a := math.Abs(v); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// needsText is Rounded on the bytes of a WCNF line. Up to 15 significant
// digits every decimal is its float64's shortest decimal, so only longer
// texts are looked at.
func needsText(text []byte, w float64) bool {
	digits := 0
	for _, c := range text {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits <= 15 && len(text) < 24 {
		return false
	}
	d, ok := parseDecimal(string(text))
	if !ok {
		return false
	}
	f, _ := floatDecimal(w, nil)
	return d != f
}

// written returns clause c's Written text when there is one that still
// reads as its weight. k is a hint, where to look first in in.Written
// (which is in clause order); it returns the hint for clause c+1.
func (in *Instance) written(c, k int) (string, int) {
	ws := in.Written
	if len(ws) == 0 {
		return "", 0
	}
	if k >= len(ws) || int(ws[k].Clause) != c {
		if k < len(ws) && int(ws[k].Clause) > c && (k == 0 || int(ws[k-1].Clause) < c) {
			return "", k // not there: the hint stays
		}
		k = sort.Search(len(ws), func(i int) bool { return int(ws[i].Clause) >= c })
		if k >= len(ws) || int(ws[k].Clause) != c {
			return "", k
		}
	}
	t := ws[k].Text
	if in.Hard[c] {
		return "", k + 1
	}
	if w, err := num.Parse(t); err != nil || w != in.Weight[c] {
		return "", k + 1 // stale: the weight was changed after reading
	}
	return t, k + 1
}

// weightDecimal is soft clause c's weight as written: its Written text, or
// else its float64's shortest decimal.
func (in *Instance) weightDecimal(c, k int, buf []byte) (decimal, int, []byte) {
	t, k := in.written(c, k)
	if t != "" {
		if d, ok := parseDecimal(t); ok {
			return d, k, buf
		}
	}
	d, buf := floatDecimal(in.Weight[c], buf)
	return d, k, buf
}

// RoundedWeights returns the number of soft clauses whose weight as
// written (Written) a float64 does not hold: while it is not 0, costs
// summed in float64 may rank two assignments wrongly, and only Exact's
// integer arithmetic on the decimals as written proves an optimum.
func (in *Instance) RoundedWeights() int {
	n, k := 0, 0
	for _, w := range in.Written {
		c := int(w.Clause)
		if c < 0 || c >= in.NumClauses() {
			continue
		}
		var t string
		if t, k = in.written(c, k); t != "" {
			n++
		}
	}
	return n
}

// CostText returns the cost of x (the weight of the soft clauses it
// falsifies) in full: the exact sum of the weights as written (Written, or
// each float64's shortest decimal), so that 0.1 + 0.2 is 0.3 and
// 100000000.123456788 is not written as 100000000.123. A cost below
// float64's range (weights kept as written that a float64 reads as 0) is
// written in exponent form, exactly (formatScaled). Exponents more than a
// few thousand apart fall back to the float64 sum's shortest decimal.
func (in *Instance) CostText(x []bool) string {
	var terms []decimal
	var buf []byte
	k := 0
	var isum uint64
	allInt := true
	for c := range in.NumClauses() {
		if in.Hard[c] || in.Satisfied(c, x) {
			continue
		}
		var d decimal
		d, k, buf = in.weightDecimal(c, k, buf)
		if d.digits == "" {
			continue
		}
		terms = append(terms, d)
		if w := in.Weight[c]; allInt && d.exp >= 0 && w < 1<<53 && w == math.Trunc(w) && isum+uint64(w) < 1<<63 {
			isum += uint64(w)
		} else {
			allInt = false
		}
	}
	if allInt {
		return strconv.FormatUint(isum, 10)
	}
	lo, hi := math.MaxInt, math.MinInt
	for _, d := range terms {
		lo = min(lo, d.exp)
		hi = max(hi, d.exp+len(d.digits))
	}
	if hi-lo > 4000 {
		return strconv.FormatFloat(in.FalsifiedWeight(x), 'g', -1, 64)
	}
	sum, m := new(big.Int), new(big.Int)
	ten := big.NewInt(10)
	p := new(big.Int)
	for _, d := range terms {
		m.SetString(d.digits, 10)
		p.Exp(ten, big.NewInt(int64(d.exp-lo)), nil)
		sum.Add(sum, m.Mul(m, p))
	}
	return formatScaled(sum, lo)
}

// maxPointZeros bounds the zeros a cost in plain decimal notation may
// hold only to place the point (0.000...01, 1000...0): more than any
// number in float64's range needs (4.9e-324 to 1.8e308), so that the cost
// of weights a float64 can hold in magnitude is printed plainly. A weight
// kept as written below that range (1.0000000000000000001e-1000000, read
// as 0) made a cost of a million digits, nearly all zeros, from a line of
// 40 bytes; such a cost is printed in exponent form, exactly all the same.
const maxPointZeros = 330

// formatScaled writes v * 10^e (v >= 0) in plain decimal notation, without
// trailing zeros after the point; in exponent form (1.25e-1000) when the
// plain form would need more than maxPointZeros zeros to place the point.
func formatScaled(v *big.Int, e int) string {
	s := v.String()
	if v.Sign() == 0 {
		return "0"
	}
	if zeros := max(e, -e-len(s)); zeros > maxPointZeros {
		t := strings.TrimRight(s, "0")
		e += len(s) - len(t)
		mant := t[:1]
		if len(t) > 1 {
			mant += "." + t[1:]
		}
		return mant + "e" + fmt.Sprintf("%+d", e+len(t)-1)
	}
	if e >= 0 {
		return s + strings.Repeat("0", e)
	}
	f := -e
	if len(s) <= f {
		s = strings.Repeat("0", f-len(s)+1) + s
	}
	ip, fp := s[:len(s)-f], strings.TrimRight(s[len(s)-f:], "0")
	if fp == "" {
		return ip
	}
	return ip + "." + fp
}

// decimalScale turns the soft weights as written into integers over
// 10^digits when every one is a decimal of at most nine digits after the
// point and their exact total times 10^digits is below 2^60; ok is false
// otherwise. It works on the digits, never on the float64s.
func (in *Instance) decimalScale() (w []int64, scale float64, ok bool) {
	const maxTotal = 1 << 60
	type dec struct {
		m   uint64
		exp int32
	}
	ds := make([]dec, in.NumClauses())
	var buf []byte
	k, D := 0, 0
	for c, wt := range in.Weight {
		if in.Hard[c] {
			continue
		}
		if wt == math.Trunc(wt) && wt < 1<<53 {
			if t, _ := in.written(c, k); t == "" {
				ds[c] = dec{uint64(wt), 0}
				continue
			}
		}
		var d decimal
		d, k, buf = in.weightDecimal(c, k, buf)
		if d.digits == "" {
			continue
		}
		// More than 19 significant digits: at least 10^19 > 2^60 once
		// scaled.
		if len(d.digits) > 19 || d.exp < -9 || d.exp > 19 {
			return nil, 0, false
		}
		m, err := strconv.ParseUint(d.digits, 10, 64)
		if err != nil {
			return nil, 0, false
		}
		ds[c] = dec{m, int32(d.exp)}
		D = max(D, -d.exp)
	}
	w = make([]int64, in.NumClauses())
	var total uint64
	for c, d := range ds {
		if in.Hard[c] || d.m == 0 {
			continue
		}
		v := d.m
		for range int(d.exp) + D {
			if v > maxTotal/10 {
				return nil, 0, false
			}
			v *= 10
		}
		if total += v; v >= maxTotal || total >= maxTotal {
			return nil, 0, false
		}
		w[c] = int64(v)
	}
	return w, math.Pow10(D), true
}
