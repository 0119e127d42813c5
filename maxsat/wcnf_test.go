package maxsat

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hinge-srl/hinge/srcpos"
)

func readFile(t *testing.T, name string) *Instance {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := Read(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestReadForms(t *testing.T) {
	want := &Instance{NumVars: 4}
	want.AddClause(3, false, 1, -2)
	want.AddClause(2.5, false, 2, 3, -4)
	want.AddClause(100, true, -1, -3)
	want.AddClause(10, false, 4)
	want.AddClause(0, false, -2)
	classic := readFile(t, "classic.wcnf")
	if d := cmp.Diff(want, classic); d != "" {
		t.Errorf("classic.wcnf (-want +got):\n%s", d)
	}
	eval := readFile(t, "eval2022.wcnf")
	want.Weight[2] = 1 // 2022 hard clauses carry no weight; Read records 1
	if d := cmp.Diff(want, eval); d != "" {
		t.Errorf("eval2022.wcnf (-want +got):\n%s", d)
	}
	cnf := readFile(t, "plain.cnf")
	if cnf.NumVars != 3 || cnf.NumClauses() != 4 || cnf.NumHard() != 0 || cnf.SoftWeight() != 4 {
		t.Errorf("plain.cnf: %d vars %d clauses %d hard weight %v", cnf.NumVars, cnf.NumClauses(), cnf.NumHard(), cnf.SoftWeight())
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"too few clauses", "p wcnf 2 3 10\n1 1 0\n1 2 0\n", "x:1:10: header declares 3 clauses but the file has 2"},
		{"too many clauses", "p wcnf 2 1 10\n1 1 0\n1 2 0\n", "x:3:1: header (line 1) declares 1 clauses but there are more"},
		{"literal out of range", "p wcnf 2 1 10\n1 1 -3 0\n", "x:2:5: literal -3 is out of range: the header (line 1) declares 2 variables"},
		{"missing 0 at end", "p wcnf 2 1 10\n1 1 2\n", "x:2:6: missing 0 at the end of the last clause (started at line 2)"},
		{"missing 0 in 2022 form", "1 1 2\n3 -1 0\n", "x:1:6: missing 0 at the end of the clause (one clause per line)"},
		{"negative weight", "p wcnf 2 1 10\n-1 1 0\n", "x:2:1: expected a clause weight (a finite nonnegative number), found \"-1\""},
		{"negative weight 2022", "1 1 0\n-0.5 2 0\n", "x:2:1: expected a clause weight or h (a finite nonnegative number), found \"-0.5\""},
		{"NaN weight", "NaN 1 0\n", "x:1:1: expected a clause weight or h (a finite nonnegative number), found \"NaN\""},
		{"infinite weight", "inf 1 0\n", "found \"inf\""},
		{"garbage literal", "p wcnf 2 1 10\n1 1 x2 0\n", "x:2:5: expected a literal (a nonzero integer) or 0, found \"x2\""},
		{"garbage weight", "w 1 0\n", "x:1:1: expected a clause weight or h"},
		{"h in classic form", "p wcnf 2 1 10\nh 1 0\n", "x:2:1: expected a clause weight (a finite nonnegative number), found \"h\""},
		{"bad header", "p maxsat 2 1\n", "x:1:1: bad header"},
		{"bad variable count", "p wcnf -2 1\n", "x:1:8: bad variable count \"-2\""},
		{"bad clause count", "p wcnf 2 x\n", "x:1:10: bad clause count \"x\""},
		{"bad top", "p wcnf 2 1 0\n1 1 0\n", "x:1:12: bad top weight \"0\""},
		{"extra header token", "p wcnf 2 1 10 7\n", "x:1:15: unexpected \"7\" after the header"},
		{"cnf with top", "p cnf 2 1 10\n", "x:1:11: unexpected \"10\" after the header"},
		{"second header", "p wcnf 2 1\np wcnf 2 1\n", "x:2:1: second \"p\" line (the header is on line 1)"},
		{"header after clause", "1 1 0\np wcnf 2 1\n", "x:2:1: \"p\" header after the first clause"},
		{"text after 0 in 2022 form", "1 1 0 2 0\n", "x:1:7: text after the clause's terminating 0"},
		{"huge literal", "1 99999999999 0\n", "x:1:3: literal 99999999999 is out of range"},
		{"most negative literal", "1 2 -9223372036854775808 0\n", "x:1:5: literal -9223372036854775808 is out of range"},
		{"most negative literal, classic", "p wcnf 2 1 10\n1 -9223372036854775808 0\n", "x:2:3: literal -9223372036854775808 is out of range: the header (line 1) declares 2 variables"},
		{"most positive literal", "1 9223372036854775807 0\n", "x:1:3: literal 9223372036854775807 is out of range"},
		{"short header", "p wcnf 2\n", "x:1:1: bad header"},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.text), "x")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var se *srcpos.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v is not a *srcpos.Error", c.name, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

func TestReadAccepts(t *testing.T) {
	cases := []struct {
		name, text  string
		vars, cls   int
		hard        int
		totalWeight float64
	}{
		{"empty file", "", 0, 0, 0, 0},
		{"comments only", "c hello\nc\n", 0, 0, 0, 0},
		{"wcnf without top", "p wcnf 3 2\n5 1 2 0\n1000 -3 0\n", 3, 2, 0, 1005},
		{"unused variables kept", "p wcnf 9 1 10\n1 1 0\n", 9, 1, 0, 1},
		{"empty clause", "p wcnf 1 1 10\n2 0\n", 1, 1, 0, 2},
		{"two clauses on a line (classic)", "p wcnf 2 2 10\n1 1 0 2 -2 0\n", 2, 2, 0, 3},
		{"CRLF and tabs", "p wcnf 2 1 10\r\n1\t1 -2 0\r\n", 2, 1, 0, 1},
		{"2022 hard and soft", "h 1 2 0\n0.25 -1 0\n", 2, 2, 1, 0.25},
		{"weight equal to top is hard", "p wcnf 1 2 4\n4 1 0\n3.5 -1 0\n", 1, 2, 1, 3.5},
		{"repeated literal merged", "1 1 1 0\n", 1, 1, 0, 1},
		// Below TOP by 1 where float64 cannot tell them apart: soft (an
		// outside tester's; they were read as hard, and the instance as
		// unsatisfiable).
		{"just below a top of 2^63-1", "p wcnf 1 2 9223372036854775807\n9223372036854775806 1 0\n9223372036854775806 -1 0\n", 1, 2, 0, 1 << 64},
		{"just below a top of 2^53+1", "p wcnf 1 3 9007199254740993\n9007199254740993 1 0\n9007199254740992 -1 0\n1 1 0\n", 1, 3, 1, 9007199254740992},
		{"equal to a top past 2^53", "p wcnf 1 1 9007199254740993\n9007199254740993.0 1 0\n", 1, 1, 1, 0},
	}
	for _, c := range cases {
		in, err := Read(strings.NewReader(c.text), "x")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if in.NumVars != c.vars || in.NumClauses() != c.cls || in.NumHard() != c.hard || in.SoftWeight() != c.totalWeight {
			t.Errorf("%s: got %d vars %d clauses %d hard weight %v", c.name, in.NumVars, in.NumClauses(), in.NumHard(), in.SoftWeight())
		}
		if err := in.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestWriteReadRoundTrip writes random instances in both forms and reads
// them back.
func TestWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 40; trial++ {
		in := randomInstance(rng, 1+rng.IntN(20), rng.IntN(30), 5, trial%2 == 0, 0.2)
		for _, f := range []Format{Format2022, FormatClassic} {
			var buf bytes.Buffer
			if err := Write(&buf, in, f); err != nil {
				t.Fatal(err)
			}
			back, err := Read(&buf, "roundtrip")
			if err != nil {
				t.Fatalf("trial %d format %d: %v\n%s", trial, f, err, buf.String())
			}
			if f == Format2022 {
				// The 2022 form implies the variable count and drops hard weights.
				back.NumVars = in.NumVars
				for c := range in.Hard {
					if in.Hard[c] {
						back.Weight[c] = in.Weight[c]
					}
				}
			} else {
				for c := range in.Hard {
					if in.Hard[c] {
						back.Weight[c] = in.Weight[c]
					}
				}
			}
			if d := cmp.Diff(in, back); d != "" {
				t.Fatalf("trial %d format %d (-want +got):\n%s", trial, f, d)
			}
		}
	}
}

// FuzzRead: any input gives an instance or a positioned error, never a
// panic; an instance read is valid and survives a write/read round trip.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"classic.wcnf", "eval2022.wcnf", "plain.cnf"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("p wcnf 2 1 10\n1 1 -3 0\n"))
	f.Add([]byte("h 1 2 0\n1.5e3 -1 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			var se *srcpos.Error
			if !errors.As(err, &se) {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("Read returned an invalid instance: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, in, FormatClassic); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&buf, "again")
		if err != nil {
			t.Fatalf("re-reading written instance: %v\n%s", err, buf.String())
		}
		if back.NumClauses() != in.NumClauses() || back.NumVars != in.NumVars || back.NumHard() != in.NumHard() {
			t.Fatalf("round trip changed the instance: %d/%d/%d vs %d/%d/%d", back.NumClauses(), back.NumVars, back.NumHard(), in.NumClauses(), in.NumVars, in.NumHard())
		}
	})
}

// TestReadWritten: a soft weight with more significant digits than a
// float64 holds keeps its text (Instance.Written), and only such a
// weight: 0.1 is its float64's shortest decimal, 100000000.123456789 and
// 9007199254740993 are not (they read as 100000000.12345679 and
// 9007199254740992). Write gives the text back. Read kept only the
// float64, so that 100000000.123456789 and 100000000.123456788 were one
// weight and --exact proved the wrong world optimal.
func TestReadWritten(t *testing.T) {
	for _, tc := range []struct {
		text    string
		written []WrittenWeight
	}{
		{"1 1 0\n0.1 -1 0\n2.5e3 1 0\n", nil},
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n",
			[]WrittenWeight{{0, "100000000.123456789"}, {1, "100000000.123456788"}}},
		{"1125899906842624.3 1 0\n1125899906842624.2 -1 0\n", []WrittenWeight{{0, "1125899906842624.3"}}},
		{"p wcnf 1 2 1000000000000000000\n9007199254740993 1 0\n9007199254740992 -1 0\n",
			[]WrittenWeight{{0, "9007199254740993"}}},
		{"h 1 0\n9007199254740993 1 0\n", []WrittenWeight{{1, "9007199254740993"}}},
		// Trailing zeros and an exponent: the same number as the float64's.
		{"1.000000000000000000000 1 0\n30000000000000004e-17 1 0\n", nil},
		// The float64 0.1 written in full is not its shortest decimal.
		{"0.1000000000000000055511151231257827021181583404541015625 1 0\n",
			[]WrittenWeight{{0, "0.1000000000000000055511151231257827021181583404541015625"}}},
		// A hard clause's weight (>= top) is not kept.
		{"p wcnf 1 2 9007199254740993\n9007199254740993 1 0\n1 -1 0\n", nil},
	} {
		in, err := Read(strings.NewReader(tc.text), "x")
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if d := cmp.Diff(tc.written, in.Written); d != "" {
			t.Errorf("%q: Written (-want +got):\n%s", tc.text, d)
		}
		if got := in.RoundedWeights(); got != len(tc.written) {
			t.Errorf("%q: RoundedWeights %d, want %d", tc.text, got, len(tc.written))
		}
		var buf bytes.Buffer
		if err := Write(&buf, in, Format2022); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&buf, "back")
		if err != nil {
			t.Fatalf("%q: written back: %v", tc.text, err)
		}
		if d := cmp.Diff(in.Written, back.Written); d != "" {
			t.Errorf("%q: Written after Write and Read (-first +second):\n%s", tc.text, d)
		}
	}
}

// TestCostText: the cost is the exact sum of the weights as written, in
// full: not 100000000.123 (12 significant digits) nor a float64 sum.
func TestCostText(t *testing.T) {
	for _, tc := range []struct {
		text string
		x    []bool
		want string
	}{
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", []bool{true}, "100000000.123456788"},
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", []bool{false}, "100000000.123456789"},
		{"1125899906842624.3 1 0\n1125899906842624.2 -1 0\n", []bool{false}, "1125899906842624.3"},
		{"9007199254740993 1 0\n9007199254740992 -1 0\n", []bool{false}, "9007199254740993"},
		{"0.1 1 0\n0.2 1 0\n0.3 1 0\n", []bool{false}, "0.6"},
		{"1e-3 1 0\n2.5e2 1 0\n7 1 0\n", []bool{false}, "257.001"},
		{"3 1 0\n4 -1 0\n", []bool{true}, "4"},
		{"3 1 0\n4 1 0\n", []bool{true}, "0"},
		{"9007199254740993 1 0\n9007199254740993 2 0\n", []bool{false, false}, "18014398509481986"},
		// Below float64's range (read as 0, kept as written): in exponent
		// form, exactly, not as a million zeros and the digits.
		{"1.0000000000000000001e-1000000 1 0\n", []bool{false}, "1.0000000000000000001e-1000000"},
		{"1.0000000000000000001e-1000000 1 0\n2.0000000000000000002e-1000000 1 0\n3 -1 0\n", []bool{false}, "3.0000000000000000003e-1000000"},
		// Exponents far apart: the float64 sum (the tiny weight is 0).
		{"1.0000000000000000001e-1000000 1 0\n7 1 0\n", []bool{false}, "7"},
		{"9.9999999999999999999e-1000000 1 0\n1.0000000000000000000000e-1000019 1 0\n", []bool{false}, "1e-999999"},
		{"1.0000000000000000001e-9999999 1 0\n", []bool{false}, "1.0000000000000000001e-9999999"},
		// An exponent beyond maxExp: not kept as written (its exponent was
		// cut short, 1e-1234567 printed for 1e-12345678), read as 0.
		{"1.0000000000000000001e-12345678 1 0\n", []bool{false}, "1.0000000000000000001e-12345678"},
		{"1.0000000000000000001e-123456789 1 0\n", []bool{false}, "0"},
		// In float64's range: plain, as before.
		{"4.9406564584124654417656879286822137e-324 1 0\n", []bool{false}, "0." + strings.Repeat("0", 323) + "49406564584124654417656879286822137"},
		{"1.00000000000000000000000000001e-331 1 0\n", []bool{false}, "0." + strings.Repeat("0", 330) + "100000000000000000000000000001"},
		{"1.00000000000000000000000000001e-332 1 0\n", []bool{false}, "1.00000000000000000000000000001e-332"},
	} {
		in, err := Read(strings.NewReader(tc.text), "x")
		if err != nil {
			t.Fatal(err)
		}
		if got := in.CostText(tc.x); got != tc.want {
			t.Errorf("%q at %v: cost %s, want %s", tc.text, tc.x, got, tc.want)
		}
	}
}
