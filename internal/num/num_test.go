package num

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// same reports whether ParseFloat agrees with strconv on s: the same bits
// (or both NaN) and both failing or neither, except that the Go-only
// forms (underscores, hexadecimal floats) fail.
func same(t *testing.T, s string) {
	t.Helper()
	got, gerr := ParseFloat([]byte(s))
	want, werr := strconv.ParseFloat(s, 64)
	if strings.ContainsAny(s, "_xXpP") {
		want, werr = 0, strconv.ErrSyntax
	}
	if (gerr == nil) != (werr == nil) || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("ParseFloat(%q) = %v, %v; strconv %v, %v", s, got, gerr, want, werr)
	}
	g64, g64err := ParseInt([]byte(s))
	w64, w64err := strconv.ParseInt(s, 10, 64)
	if g64 != w64 || (g64err == nil) != (w64err == nil) {
		t.Fatalf("ParseInt(%q) = %v, %v; strconv %v, %v", s, g64, g64err, w64, w64err)
	}
	gi, gierr := Atoi([]byte(s))
	wi, wierr := strconv.Atoi(s)
	if gi != wi || (gierr == nil) != (wierr == nil) {
		t.Fatalf("Atoi(%q) = %v, %v; strconv %v, %v", s, gi, gierr, wi, wierr)
	}
}

func TestAgainstStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "1", "0.3741", "1e22", "1e23", "123456789012345", "1234567890123456",
		"12345678901234567890", "0.1", ".5", "5.", "-.5e-3", "1e-22", "1e-23", "9007199254740993", "1e", "e5", "",
		"-", "+", ".", "1.2.3", "1e+5", "1E5", "NaN", "Inf", "-inf", "0x1p-2", "1_000", "00012", "0.000000000000000000001",
		"3.4028234663852886e38", "4.9e-324", "1e400", "-9223372036854775808", "9223372036854775808", "+12", "-", "--1", "123e-30", "999999999999999e7", "99999999999999e8", "1e99", "5e-1", "٣"} {
		same(t, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(rng.Float64()*math.Pow(10, float64(rng.IntN(40)-20)), 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(rng.NormFloat64(), 'f', rng.IntN(18), 64)
		case 2:
			s = strconv.FormatFloat(rng.ExpFloat64()*1e6, 'e', rng.IntN(17), 64)
		default:
			s = strconv.Itoa(rng.IntN(1<<40) - 1<<39)
		}
		same(t, s)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.3741", "1e22", "-.5e-3", "123456789012345", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { same(t, s) })
}

func BenchmarkParseFloat(b *testing.B) {
	in := [][]byte{[]byte("0.3741"), []byte("1"), []byte("12.5"), []byte("0.0001")}
	for b.Loop() {
		for _, s := range in {
			if _, err := ParseFloat(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestParseRejectsGoForms: underscores between digits and hexadecimal
// floats, which strconv takes as Go syntax, are syntax errors in data
// files ("0_1" was read as 1, "1_0" as 10, "0x1p-1" as 0.5), through Parse
// and ParseFloat's slow path alike; everything else is strconv's.
func TestParseRejectsGoForms(t *testing.T) {
	for _, s := range []string{"1_0", "0_1", "0x1p-1", "0X10", "1e1_0", "0x1.8p1"} {
		if v, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v, want a syntax error", s, v)
		}
		if v, err := ParseFloat([]byte(s)); err == nil {
			t.Errorf("ParseFloat(%q) = %v, want a syntax error", s, v)
		}
	}
	for _, s := range []string{"1", "-0.5", "1e300", "2.5E-3", "+7", "Inf", "NaN", "12345678901234567890.5"} {
		want, werr := strconv.ParseFloat(s, 64)
		got, err := Parse(s)
		if (err == nil) != (werr == nil) || err == nil && got != want && !(got != got && want != want) {
			t.Errorf("Parse(%q) = %v, %v; strconv: %v, %v", s, got, err, want, werr)
		}
	}
}
