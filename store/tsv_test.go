package store

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/field"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/model"
)

// atomSet is a store section flattened for comparison: "a|b" -> value, with
// kind.
type atomRec struct {
	value float64
	kind  Kind
}

func tableAtoms(s *Store, t *Table) map[string]atomRec {
	out := make(map[string]atomRec, t.Len())
	for row := 0; row < t.Len(); row++ {
		out[strings.Join(s.Names(t.Args(row)), "|")] = atomRec{t.Value(row), t.Kind(row)}
	}
	return out
}

func TestLoadTSV(t *testing.T) {
	tests := []struct {
		name    string
		arity   int
		closed  bool
		section Section
		pre     func(s *Store, p *model.Predicate) error // state before loading
		in      string
		want    map[string]atomRec // expected table (truth table for Truth)
		err     string             // expected error substring
	}{
		{name: "default value", arity: 2, section: Observations, in: "a\tb\nc\td\n",
			want: map[string]atomRec{"a|b": {1, Observed}, "c|d": {1, Observed}}},
		{name: "values, CRLF, blank lines, no final newline", arity: 2, section: Observations,
			in:   "a\tb\t0.5\r\n\r\n   \n\t\nc\td\t 0 \nx\ty\t1e-1",
			want: map[string]atomRec{"a|b": {0.5, Observed}, "c|d": {0, Observed}, "x|y": {0.1, Observed}}},
		{name: "byte order mark", arity: 2, section: Observations, in: "\ufeffa\tb\n\ufeffc\td\n",
			want: map[string]atomRec{"a|b": {1, Observed}, "\ufeffc|d": {1, Observed}}},
		{name: "arity 1", arity: 1, section: Observations, in: "a\nb\t0.25\n",
			want: map[string]atomRec{"a": {1, Observed}, "b": {0.25, Observed}}},
		{name: "spaces inside arguments kept", arity: 2, section: Observations, in: "Santa Cruz\t b\n",
			want: map[string]atomRec{"Santa Cruz| b": {1, Observed}}},
		{name: "repeat with same value", arity: 2, section: Observations, in: "a\tb\t1\na\tb\n",
			want: map[string]atomRec{"a|b": {1, Observed}}},
		{name: "targets with initial value", arity: 2, section: Targets, in: "a\tb\nc\td\t0.3\na\tb\t0.7\n",
			want: map[string]atomRec{"a|b": {0.7, Target}, "c|d": {0.3, Target}}},
		{name: "truth", arity: 2, section: Truth, in: "a\tb\t0\nc\td\n",
			want: map[string]atomRec{"a|b": {0, Observed}, "c|d": {1, Observed}}},
		{name: "too many columns", arity: 2, section: Observations, in: "a\tb\n\na\tb\tc\td\n",
			err: "data.tsv:3:1: expected 2 or 3 tab-separated columns for Link/2, found 4"},
		{name: "too few columns", arity: 3, section: Observations, in: "a\tb\n",
			err: "data.tsv:1:1: expected 3 or 4 tab-separated columns for Link/3, found 2"},
		{name: "spaces instead of tabs", arity: 2, section: Observations, in: "a b 1\n",
			err: "data.tsv:1:1: expected 2 or 3 tab-separated columns for Link/2, found 1 (columns must be separated by tabs, not spaces)"},
		{name: "not a number", arity: 2, section: Observations, in: "a\tb\t1\nab\tc\tyes\n",
			err: `data.tsv:2:6: value "yes" is not a number`},
		{name: "trailing tab on an observation", arity: 2, section: Observations, in: "a\tb\t\n",
			want: map[string]atomRec{"a|b": {1, Observed}}},
		{name: "blanks at the ends of lines are trimmed, as PSL does", arity: 2, section: Observations, in: "a\tb \nc\td\t0.5 \t\r\n \te\tf\n",
			want: map[string]atomRec{"a|b": {1, Observed}, "c|d": {0.5, Observed}, "e|f": {1, Observed}}},
		{name: "a blank next to a tab inside the line stays", arity: 2, section: Observations, in: "a \tb\n",
			want: map[string]atomRec{"a |b": {1, Observed}}},
		{name: "targets with a trailing tab", arity: 2, section: Targets, in: "a\tb\t\nc\td\t 0.5\r\ne\tf\t \n",
			want: map[string]atomRec{"a|b": {0, Target}, "c|d": {0.5, Target}, "e|f": {0, Target}}},
		{name: "above 1", arity: 2, section: Observations, in: "a\tb\t1.5\n",
			err: "data.tsv:1:5: truth value 1.5 is outside [0,1]"},
		{name: "negative", arity: 2, section: Truth, in: "a\tb\t-0.1\n",
			err: "data.tsv:1:5: truth value -0.1 is outside [0,1]"},
		{name: "NaN", arity: 2, section: Observations, in: "a\tb\tNaN\n",
			err: "data.tsv:1:5: truth value NaN is outside [0,1]"},
		{name: "target value out of range", arity: 2, section: Targets, in: "a\tb\t2\n",
			err: "data.tsv:1:5: truth value 2 is outside [0,1]"},
		{name: "leading tab trimmed", arity: 2, section: Observations, in: "a\tb\n\tb\n",
			err: "data.tsv:2:2: expected 2 or 3 tab-separated columns for Link/2, found 1"},
		{name: "empty second argument", arity: 3, section: Observations, in: "a\t\tc\n",
			err: "data.tsv:1:3: argument 2 of Link/3 is empty"},
		{name: "observed twice differently", arity: 2, section: Observations, in: "a\tb\t1\na\tb\t0.5\n",
			err: "data.tsv:2:1: Link('a', 'b') is observed twice, with values 1 and 0.5"},
		{name: "truth twice differently", arity: 2, section: Truth, in: "a\tb\t1\na\tb\t0\n",
			err: "data.tsv:2:1: Link('a', 'b') has two truth values, 1 and 0"},
		{name: "observed then target", arity: 2, section: Targets,
			pre: func(s *Store, p *model.Predicate) error { return s.AddObservation(p, []string{"a", "b"}, 1) },
			in:  "c\td\na\tb\n",
			err: "data.tsv:2:1: Link('a', 'b') is listed both as an observation and as a target"},
		{name: "target then observed", arity: 2, section: Observations,
			pre: func(s *Store, p *model.Predicate) error { return s.AddTarget(p, []string{"a", "b"}) },
			in:  "a\tb\t0.5\n",
			err: "data.tsv:1:1: Link('a', 'b') is listed both as an observation and as a target"},
		{name: "targets of closed", arity: 2, closed: true, section: Targets, in: "a\tb\n",
			err: "data.tsv: targets given for Link/2, which is closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := model.New()
			p, err := m.AddPredicate("Link", tt.arity, tt.closed)
			if err != nil {
				t.Fatal(err)
			}
			s := New(m)
			if tt.pre != nil {
				if err := tt.pre(s, p); err != nil {
					t.Fatal(err)
				}
			}
			err = LoadTSV(s, p, tt.section, strings.NewReader(tt.in), "data.tsv")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tab := s.Table(p)
			if tt.section == Truth {
				tab = s.Truth(p)
			}
			if got := tableAtoms(s, tab); !maps.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLoadTSVLongLine checks lines longer than the reader's buffer.
func TestLoadTSVLongLine(t *testing.T) {
	m := model.New()
	p, _ := m.AddPredicate("R", 2, true)
	s := New(m)
	long := strings.Repeat("x", 200_000)
	in := "a\t" + long + "\t0.5\r\nb\tc\n" + long + "\t" + long
	if err := LoadTSV(s, p, Observations, strings.NewReader(in), "long.tsv"); err != nil {
		t.Fatal(err)
	}
	want := map[string]atomRec{"a|" + long: {0.5, Observed}, "b|c": {1, Observed}, long + "|" + long: {1, Observed}}
	if got := tableAtoms(s, s.Table(p)); !maps.Equal(got, want) {
		t.Fatalf("got %d atoms, want %d", len(got), len(want))
	}
}

// TestAddIDsMatchesCore runs random sequences of adds through the core
// API (AddObservation, AddTarget, AddTruth) and through the id-based path
// the loaders use, and checks that both give the same tables and the same
// errors.
func TestAddIDsMatchesCore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		m := model.New()
		open, _ := m.AddPredicate("Open", 2, false)
		closed, _ := m.AddPredicate("Closed", 2, true)
		core, fast := New(m), New(m)
		ids := make([]int32, 2)
		for op := 0; op < 300; op++ {
			p := open
			if r.IntN(4) == 0 {
				p = closed
			}
			args := []string{strconv.Itoa(r.IntN(5)), strconv.Itoa(r.IntN(5))}
			v := float64(r.IntN(3)) / 2
			hasValue := r.IntN(2) == 0
			sec := Section(r.IntN(3))
			var e1 error
			switch sec {
			case Observations:
				e1 = core.AddObservation(p, args, v)
			case Targets:
				e1 = core.AddTarget(p, args)
				if e1 == nil && hasValue {
					row, _ := core.Table(p).Find([]int32{core.Dict.ID(args[0]), core.Dict.ID(args[1])})
					core.Table(p).SetValue(row, v)
				}
			case Truth:
				e1 = core.AddTruth(p, args, v)
			}
			for i, a := range args {
				ids[i] = fast.Dict.idBytes([]byte(a))
			}
			e2 := fast.addIDs(p, sec, ids, v, hasValue)
			if fmt.Sprint(e1) != fmt.Sprint(e2) {
				t.Fatalf("trial %d op %d %v %v: core error %v, id path error %v", trial, op, sec, args, e1, e2)
			}
		}
		for _, p := range m.Predicates {
			if a, b := tableAtoms(core, core.Table(p)), tableAtoms(fast, fast.Table(p)); !maps.Equal(a, b) {
				t.Fatalf("trial %d: %s tables differ:\ncore %v\nfast %v", trial, p, a, b)
			}
			if a, b := tableAtoms(core, core.Truth(p)), tableAtoms(fast, fast.Truth(p)); !maps.Equal(a, b) {
				t.Fatalf("trial %d: %s truth differs:\ncore %v\nfast %v", trial, p, a, b)
			}
		}
	}
}

// genTSV writes n lines of a 2-column-plus-value file over about n/10
// constants per column, with a fixed seed.
func genTSV(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	seen := make(map[[2]int]bool, n)
	for len(seen) < n {
		k := [2]int{r.IntN(n/10 + 1), r.IntN(n/10 + 1)}
		if seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(&b, "%d\t%d\t%.4f\n", k[0], k[1], r.Float64())
	}
	return b.Bytes()
}

// TestLoadTSVAllocations checks that, once the constants are interned,
// loading allocates only for growing the tables: doubling the number of
// lines adds a few allocations, not one per line.
func TestLoadTSVAllocations(t *testing.T) {
	data := genTSV(40_000)
	half := data[:bytes.IndexByte(data[len(data)/2:], '\n')+len(data)/2+1]
	m := model.New()
	p, _ := m.AddPredicate("R", 2, true)
	warm := New(m)
	if err := LoadTSV(warm, p, Observations, bytes.NewReader(data), "gen"); err != nil {
		t.Fatal(err)
	}
	allocs := func(in []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			s := &Store{Model: m, Dict: warm.Dict} // constants already interned
			if err := LoadTSV(s, p, Observations, bytes.NewReader(in), "gen"); err != nil {
				t.Fatal(err)
			}
		})
	}
	a1, a2 := allocs(half), allocs(data)
	lines := float64(bytes.Count(data, []byte{'\n'}) - bytes.Count(half, []byte{'\n'}))
	if extra := a2 - a1; extra > 100 {
		t.Fatalf("%v more allocations for %v more lines (%v for the half file): loading allocates per line", extra, lines, a1)
	}
}

// BenchmarkLoadTSV loads a generated file of 10^6 atoms (2 arguments and a
// value, 10^5 constants per column) into a fresh store.
func BenchmarkLoadTSV(b *testing.B) {
	const n = 1_000_000
	data := genTSV(n)
	m := model.New()
	p, _ := m.AddPredicate("R", 2, true)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := measure.CPUSeconds()
	for b.Loop() {
		s := New(m)
		if err := LoadTSV(s, p, Observations, bytes.NewReader(data), "gen"); err != nil {
			b.Fatal(err)
		}
		if s.Table(p).Len() != n {
			b.Fatalf("loaded %d atoms, want %d", s.Table(p).Len(), n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "atoms/s")
	if cpu := measure.CPUSeconds() - cpu0; cpu > 0 {
		// CPU time includes the garbage collector's work on other threads.
		b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(n)*float64(b.N)/cpu, "atoms/cpu-s")
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// refLoadTSV is a deliberately naive reading of the TSV rules (strings.Split
// on whole lines, no buffering, maps instead of tables), used as an oracle
// for LoadTSV on a fresh store.
func refLoadTSV(in string, arity int, sec Section) (map[string]atomRec, bool) {
	out := make(map[string]atomRec)
	in = strings.TrimPrefix(in, "\ufeff")
	for _, line := range strings.Split(in, "\n") {
		line = strings.Trim(strings.TrimSuffix(line, "\r"), " \t") // PSL trims each line
		if line == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != arity && len(cols) != arity+1 {
			return nil, false
		}
		v, has := 1.0, false
		if sec == Targets {
			v = 0
		}
		if len(cols) == arity+1 && sec == Targets && strings.Trim(cols[arity], " ") == "" {
			cols = cols[:arity] // an empty initial value is no value
		}
		if len(cols) == arity+1 {
			x, err := strconv.ParseFloat(strings.Trim(cols[arity], " "), 64)
			if err != nil || CheckValue(x) != nil {
				return nil, false
			}
			v, has = x, true
		}
		if slices.Contains(cols[:arity], "") {
			return nil, false
		}
		for k, c := range cols[:arity] {
			u, ok := field.Unquote(c)
			if !ok && c[0] == '"' {
				return nil, false
			}
			cols[k] = u
		}
		key := strings.Join(cols[:arity], "|")
		kind := Observed
		if sec == Targets {
			kind = Target
		}
		if old, ok := out[key]; ok {
			switch {
			case sec == Targets && has:
				out[key] = atomRec{v, kind}
			case sec != Targets && old.value != v:
				return nil, false
			}
			continue
		}
		out[key] = atomRec{v, kind}
	}
	return out, true
}

// FuzzLoadTSV: arbitrary input gives an error or a store, never a panic,
// and agrees with the naive reference reader.
func FuzzLoadTSV(f *testing.F) {
	f.Add([]byte("a\tb\t0.5\r\nc\td\n\n"), uint8(2), uint8(0))
	f.Add([]byte("a\tb\nA\tb\t0.25\na\tb\t1\n"), uint8(2), uint8(1))
	f.Add([]byte("x\t1e-3\n\ty\n"), uint8(1), uint8(2))
	f.Add([]byte("a\tb\tc\td\n"), uint8(3), uint8(0))
	f.Add([]byte(" a\tb \t\n\t c\td\t0.5\t \r\n"), uint8(2), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, arity, sec uint8) {
		ar := int(arity%4) + 1
		section := Section(sec % 3)
		m := model.New()
		p, _ := m.AddPredicate("P", ar, false)
		s := New(m)
		err := LoadTSV(s, p, section, bytes.NewReader(data), "fuzz.tsv")
		want, ok := refLoadTSV(string(data), ar, section)
		if (err == nil) != ok {
			t.Fatalf("LoadTSV error %v, reference ok=%v", err, ok)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.tsv:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		tab := s.Table(p)
		if section == Truth {
			tab = s.Truth(p)
		}
		if got := tableAtoms(s, tab); !maps.Equal(got, want) {
			t.Fatalf("got %v, reference %v", got, want)
		}
	})
}

// TestQuotedConstantsRoundTrip: constants holding tabs, line breaks,
// quotes, backslashes and blanks at their ends, written as hinge writes
// them (field.Quote, tab-separated, a value last), load back unchanged.
func TestQuotedConstantsRoundTrip(t *testing.T) {
	consts := []string{"plain", "tab\there", "line\nbreak", "\"quoted\"", "back\\slash", " lead", "trail ", "", "über 東京", "cr\r", "a\"b"}
	var b strings.Builder
	for i, c := range consts {
		fmt.Fprintf(&b, "%s\t%s\t0.5\n", field.Quote(c), field.Quote(consts[(i+1)%len(consts)]))
	}
	m := model.New()
	p, _ := m.AddPredicate("P", 2, false)
	s := New(m)
	if err := LoadTSV(s, p, Observations, strings.NewReader(b.String()), "q.tsv"); err != nil {
		t.Fatal(err)
	}
	got := tableAtoms(s, s.Table(p))
	for i, c := range consts {
		if _, ok := got[c+"|"+consts[(i+1)%len(consts)]]; !ok {
			t.Errorf("constant %q did not read back; table %v", c, got)
		}
	}
	if err := LoadTSV(s, p, Observations, strings.NewReader("\"bad\\q\"\tx\n"), "q.tsv"); err == nil || !strings.Contains(err.Error(), "q.tsv:1:1: argument 1 of P/2") {
		t.Errorf("bad quoted constant: %v", err)
	}
}
