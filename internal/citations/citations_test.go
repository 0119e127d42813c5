package citations

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/shareddata"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func loadTiny(t testing.TB) *Dataset {
	t.Helper()
	ds, err := Load("testdata/tiny", "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestLoadTiny(t *testing.T) {
	ds := loadTiny(t)
	if got, want := ds.Papers, []string{"10", "1", "2", "3", "4", "5", "6", "7", "8", "9", "11"}; !slices.Equal(got, want) {
		t.Errorf("papers %v, want %v", got, want)
	}
	if got, want := ds.Categories, []string{"1", "2", "3"}; !slices.Equal(got, want) {
		t.Errorf("categories %v, want %v", got, want)
	}
	if got, want := ds.CategoryNames, []string{"Red", "Green", "Blue"}; !slices.Equal(got, want) {
		t.Errorf("category names %v, want %v", got, want)
	}
	// paper "5" (index 5) is Blue, paper "10" (index 0) Red
	if ds.Label[5] != 2 || ds.Label[0] != 0 {
		t.Errorf("labels %v", ds.Label)
	}
	if len(ds.Links) != 15 {
		t.Fatalf("%d links, want 15", len(ds.Links))
	}
	// first line "1\t2": papers at indexes 1 and 2
	if ds.Links[0] != (Link{1, 2}) {
		t.Errorf("first link %+v, want {1 2}", ds.Links[0])
	}
}

func TestLoadErrors(t *testing.T) {
	good := map[string]string{
		"labels.txt": "1\tRed\n2\tGreen\n",
		"x.labels":   "a\t1\nb\t2\n",
		"x.links":    "a\tb\n",
	}
	tests := []struct {
		name    string
		file    string // which file to replace
		content string
		wantErr string
	}{
		{"category line with one field", "labels.txt", "1\tRed\n2\n", "labels.txt:2:1: want 2 tab-separated fields"},
		{"duplicate category", "labels.txt", "1\tRed\n1\tGreen\n", `labels.txt:2:1: category "1" already defined`},
		{"quote in category", "labels.txt", "1'\tRed\n", `labels.txt:1:1: category id "1'" contains a quote`},
		{"no categories", "labels.txt", "\n\n", "labels.txt: no categories"},
		{"unknown category", "x.labels", "a\t1\nb\t7\n", `x.labels:2:3: unknown category "7" (labels.txt defines 1, 2)`},
		{"paper labelled twice", "x.labels", "a\t1\nb\t2\n\na\t2\n", `x.labels:4:1: paper "a" already labelled at line 1`},
		{"label line with three fields", "x.labels", "a\t1\t3\n", "x.labels:1:1: want 2 tab-separated fields (paper, category), got 3"},
		{"empty paper id", "x.labels", "\t1\n", "x.labels:1:1: empty paper id"},
		{"no papers", "x.labels", "", "x.labels: no papers"},
		{"unknown cited paper", "x.links", "a\tb\nb\tzz\n", `x.links:2:3: unknown paper "zz"`},
		{"unknown citing paper", "x.links", "zz\tb\n", `x.links:1:1: unknown paper "zz"`},
		{"repeated link", "x.links", "a\tb\nb\ta\na\tb\n", "x.links:3:1: link a -> b repeats line 1"},
		{"link line with one field", "x.links", "a b\n", "x.links:1:1: want 2 tab-separated fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for f, c := range good {
				if f == tc.file {
					c = tc.content
				}
				if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir, "x")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := Load(t.TempDir(), "x")
		if err == nil || !strings.Contains(err.Error(), "labels.txt") {
			t.Fatalf("error %v, want one naming labels.txt", err)
		}
	})
	t.Run("bad name", func(t *testing.T) {
		_, err := Load("testdata/tiny", "../tiny")
		if err == nil || !strings.Contains(err.Error(), "plain file prefix") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("CRLF and no final newline are fine", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "labels.txt"), []byte("1\tRed\r\n2\tGreen"), 0o644)
		os.WriteFile(filepath.Join(dir, "x.labels"), []byte("a\t1\r\nb\t2\r\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "x.links"), []byte("a\tb"), 0o644)
		ds, err := Load(dir, "x")
		if err != nil {
			t.Fatal(err)
		}
		if ds.CategoryNames[0] != "Red" || len(ds.Links) != 1 {
			t.Fatalf("%+v", ds)
		}
	})
}

func TestSplitDeterministic(t *testing.T) {
	ds := loadTiny(t)
	a, err := NewSplit(ds, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSplit(ds, 1, 0.5)
	if !slices.Equal(a.Observed, b.Observed) {
		t.Fatal("same seed, different splits")
	}
	obs, tgt := a.ObservedPapers(), a.TargetPapers()
	if len(obs) != 6 || len(tgt) != 5 { // round(5.5) = 6
		t.Fatalf("%d observed, %d targets; want 6 and 5", len(obs), len(tgt))
	}
	all := append(slices.Clone(obs), tgt...)
	slices.Sort(all)
	for i, p := range all {
		if p != i {
			t.Fatalf("observed+targets %v is not a partition of 0..10", all)
		}
	}
	// ordered by numeric paper id
	for _, list := range [][]int{obs, tgt} {
		for i := 1; i < len(list); i++ {
			if eval.CompareArg(ds.Papers[list[i-1]], ds.Papers[list[i]]) >= 0 {
				t.Fatalf("not in id order: %v", list)
			}
		}
	}
	// Different seeds give different splits (checked over several seeds:
	// C(11,6) = 462 splits, so a few coincidences are possible but not all).
	differ := 0
	for seed := uint64(2); seed < 12; seed++ {
		c, _ := NewSplit(ds, seed, 0.5)
		if !slices.Equal(a.Observed, c.Observed) {
			differ++
		}
	}
	if differ < 8 {
		t.Fatalf("only %d of 10 other seeds changed the split", differ)
	}
}

// TestSplitUniform checks that each paper is observed about as often as
// the fraction says, over many seeds (a biased shuffle would show).
func TestSplitUniform(t *testing.T) {
	ds := loadTiny(t)
	counts := make([]int, len(ds.Papers))
	const trials = 4000
	for seed := range uint64(trials) {
		s, err := NewSplit(ds, seed, 0.3) // round(3.3) = 3 observed
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range s.Observed {
			if o {
				counts[i]++
			}
		}
	}
	want := float64(trials) * 3 / 11
	for i, c := range counts {
		// binomial sd = sqrt(4000 * 3/11 * 8/11) ~ 28; allow 5 sd
		if d := float64(c) - want; d > 140 || d < -140 {
			t.Errorf("paper %s observed %d times, want about %.0f", ds.Papers[i], c, want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	ds := loadTiny(t)
	for _, f := range []float64{0, 1, -0.5, 1.5, 0.01, 0.99} {
		if _, err := NewSplit(ds, 1, f); err == nil {
			t.Errorf("fraction %v: want an error", f)
		}
	}
}

func TestWritePSLGolden(t *testing.T) {
	s, err := NewSplit(loadTiny(t), 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "new", "dir")
	if err := WritePSL(s, out); err != nil {
		t.Fatal(err)
	}
	names := []string{LinkObsFile, HasCatObsFile, HasCatTargetFile, HasCatTruthFile, "tiny.psl", "tiny.data"}
	ents, _ := os.ReadDir(out)
	if len(ents) != len(names) {
		t.Errorf("wrote %d files, want %d: %v", len(ents), len(names), ents)
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "golden", name)
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", name, golden, got)
		}
	}
}

// TestWritePSLContents checks the written files against the split directly
// (independently of the golden files).
func TestWritePSLContents(t *testing.T) {
	ds := loadTiny(t)
	s, err := NewSplit(ds, 5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := WritePSL(s, out); err != nil {
		t.Fatal(err)
	}
	read := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		for line := range strings.Lines(string(b)) {
			rows = append(rows, strings.Split(strings.TrimSuffix(line, "\n"), "\t"))
		}
		return rows
	}
	label := map[string]string{}
	for i, p := range ds.Papers {
		label[p] = ds.Categories[ds.Label[i]]
	}
	observed := map[string]bool{}
	for i, p := range ds.Papers {
		observed[p] = s.Observed[i]
	}

	links := read(LinkObsFile)
	if len(links) != len(ds.Links) {
		t.Errorf("%d links written, want %d", len(links), len(ds.Links))
	}
	for _, r := range links {
		if len(r) != 3 || r[2] != "1" {
			t.Errorf("link row %q", r)
		}
	}
	checkRows := func(name string, wantObserved, withValue bool) {
		rows := read(name)
		seen := map[string]int{}
		for _, r := range rows {
			if observed[r[0]] != wantObserved {
				t.Errorf("%s: paper %s has observed=%v", name, r[0], observed[r[0]])
			}
			seen[r[0]]++
			if withValue {
				want := "0"
				if label[r[0]] == r[1] {
					want = "1"
				}
				if len(r) != 3 || r[2] != want {
					t.Errorf("%s: row %q, want value %s", name, r, want)
				}
			} else if len(r) != 2 {
				t.Errorf("%s: row %q, want 2 fields", name, r)
			}
		}
		n := 0
		for _, o := range s.Observed {
			if o == wantObserved {
				n++
			}
		}
		if len(seen) != n {
			t.Errorf("%s: %d papers, want %d", name, len(seen), n)
		}
		for p, c := range seen {
			if c != len(ds.Categories) {
				t.Errorf("%s: paper %s has %d rows, want %d", name, p, c, len(ds.Categories))
			}
		}
		// sorted by numeric paper id
		for i := 1; i < len(rows); i++ {
			if eval.CompareArg(rows[i-1][0], rows[i][0]) > 0 {
				t.Errorf("%s: %s before %s", name, rows[i-1][0], rows[i][0])
			}
		}
	}
	checkRows(HasCatObsFile, true, true)
	checkRows(HasCatTargetFile, false, false)
	checkRows(HasCatTruthFile, false, true)

	// The .data file is YAML whose paths resolve to the written files.
	b, err := os.ReadFile(filepath.Join(out, "tiny.data"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Predicates   map[string]string `yaml:"predicates"`
		Observations map[string]string `yaml:"observations"`
		Targets      map[string]string `yaml:"targets"`
		Truth        map[string]string `yaml:"truth"`
	}
	if err := yaml.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	if data.Predicates["Link/2"] != "closed" || data.Predicates["HasCat/2"] != "open" || len(data.Predicates) != 2 {
		t.Errorf("predicates %v", data.Predicates)
	}
	for _, m := range []map[string]string{data.Observations, data.Targets, data.Truth} {
		for _, f := range m {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf(".data names %s: %v", f, err)
			}
		}
	}
	if len(data.Observations) != 2 || data.Targets["HasCat"] != HasCatTargetFile || data.Truth["HasCat"] != HasCatTruthFile {
		t.Errorf(".data %+v", data)
	}

	// One per-category rule per category.
	psl, _ := os.ReadFile(filepath.Join(out, "tiny.psl"))
	if n := strings.Count(string(psl), "& Link(A, B) >> HasCat(B, '"); n != len(ds.Categories) {
		t.Errorf("%d per-category rules, want %d", n, len(ds.Categories))
	}
}

func TestWritePSLBadSplit(t *testing.T) {
	ds := loadTiny(t)
	for _, s := range []*Split{
		nil,
		{Dataset: ds, Observed: make([]bool, 3)},
		{Dataset: ds, Observed: make([]bool, len(ds.Papers))}, // no observed paper
	} {
		if err := WritePSL(s, t.TempDir()); err == nil {
			t.Errorf("split %+v: want an error", s)
		}
		if _, _, err := NeighbourMajority(s); err == nil {
			t.Errorf("split %+v: want an error from the baseline", s)
		}
	}
}

// TestNeighbourMajorityByHand uses a fixed split of the tiny network whose
// predictions were worked out by hand (see testdata/tiny).
func TestNeighbourMajorityByHand(t *testing.T) {
	ds := loadTiny(t)
	s := &Split{Dataset: ds, ObservedFraction: 6.0 / 11, Observed: make([]bool, len(ds.Papers))}
	for i, p := range ds.Papers {
		switch p {
		case "1", "2", "3", "4", "5", "11":
			s.Observed[i] = true
		}
	}
	// Observed categories: 1: {1,2}, 2: {3,4,11}, 3: {5} -> fallback 2.
	//  6: neighbours 2(1) 7(t) 3(2) 4(2)  -> 2 by majority (2 votes); truth 1: wrong
	//  7: neighbours 4(2, linked both ways: one vote) 5(3) 6(t) -> tie 2/3 -> 2; truth 2
	//  8: neighbours 5(3) 10(t) 9(t)      -> 3 by majority; truth 3
	//  9: neighbours 8(t)                 -> fallback 2; truth 2
	// 10: neighbours 8(t) 1(1) 3(2)       -> tie 1/2 -> 2 (3 observed vs 2); truth 1: wrong
	want := []struct {
		paper, cat string
		votes      int
		rule       Rule
	}{
		{"6", "2", 2, Majority},
		{"7", "2", 1, Tie},
		{"8", "3", 1, Majority},
		{"9", "2", 0, Fallback},
		{"10", "2", 1, Tie},
	}
	acc, preds, err := NeighbourMajority(s)
	if err != nil {
		t.Fatal(err)
	}
	if acc != 3.0/5 {
		t.Errorf("accuracy %v, want 0.6", acc)
	}
	if len(preds) != len(want) {
		t.Fatalf("%d predictions, want %d", len(preds), len(want))
	}
	for i, w := range want {
		p := preds[i]
		got := fmt.Sprintf("%s %s %d %v", ds.Papers[p.Paper], ds.Categories[p.Category], p.Votes, p.Rule)
		if exp := fmt.Sprintf("%s %s %d %v", w.paper, w.cat, w.votes, w.rule); got != exp {
			t.Errorf("prediction %d: %s, want %s", i, got, exp)
		}
	}
	checkAgainstEvaluator(t, s, acc, preds)
}

// checkAgainstEvaluator recomputes the baseline accuracy with the eval
// package's CategoricalEvaluator on HasCat atoms of the target papers.
func checkAgainstEvaluator(t *testing.T, s *Split, acc float64, preds []Prediction) {
	t.Helper()
	ds := s.Dataset
	var atoms []eval.Atom
	for _, p := range preds {
		for c, cat := range ds.Categories {
			a := eval.Atom{Args: []string{ds.Papers[p.Paper], cat}}
			if c == p.Category {
				a.Pred = 1
			}
			if c == ds.Label[p.Paper] {
				a.Truth = 1
			}
			atoms = append(atoms, a)
		}
	}
	e, err := eval.New("CategoricalEvaluator", map[string]string{"categoricalevaluator.categoryindexes": "1"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Evaluate(atoms)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.RepresentativeValue(); got != acc {
		t.Errorf("CategoricalEvaluator accuracy %v, baseline says %v", got, acc)
	}
}

// realData loads a shared data set or skips the test with the reason.
func realData(t testing.TB, name string) *Dataset {
	t.Helper()
	ds, err := Load(shareddata.Require(t, name), name)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestRealData(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		papers, cats, links      int
		minAccuracy, maxAccuracy float64
	}{
		// counts from shared/data/SOURCES.md (and the lifted HL-MRF paper)
		{"cora", 2708, 7, 5429, 0.5, 0.95},
		{"citeseer", 3312, 6, 4591, 0.4, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := realData(t, tc.name)
			if len(ds.Papers) != tc.papers || len(ds.Categories) != tc.cats || len(ds.Links) != tc.links {
				t.Fatalf("%d papers, %d categories, %d links; want %d, %d, %d",
					len(ds.Papers), len(ds.Categories), len(ds.Links), tc.papers, tc.cats, tc.links)
			}
			for seed := uint64(1); seed <= 3; seed++ {
				s, err := NewSplit(ds, seed, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				acc, preds, err := NeighbourMajority(s)
				if err != nil {
					t.Fatal(err)
				}
				rules := map[Rule]int{}
				for _, p := range preds {
					rules[p.Rule]++
				}
				t.Logf("%s seed %d: %d targets, neighbour-majority accuracy %.4f (majority %d, tie %d, fallback %d)",
					tc.name, seed, len(preds), acc, rules[Majority], rules[Tie], rules[Fallback])
				if acc < tc.minAccuracy || acc > tc.maxAccuracy {
					t.Errorf("accuracy %.4f outside the sane range [%v, %v]", acc, tc.minAccuracy, tc.maxAccuracy)
				}
				checkAgainstEvaluator(t, s, acc, preds)
				if seed == 1 {
					out := t.TempDir()
					if err := WritePSL(s, out); err != nil {
						t.Fatal(err)
					}
					for name, want := range map[string]int{
						LinkObsFile:      tc.links,
						HasCatObsFile:    len(s.ObservedPapers()) * tc.cats,
						HasCatTargetFile: len(preds) * tc.cats,
						HasCatTruthFile:  len(preds) * tc.cats,
					} {
						b, _ := os.ReadFile(filepath.Join(out, name))
						if n := bytes.Count(b, []byte("\n")); n != want {
							t.Errorf("%s: %d lines, want %d", name, n, want)
						}
					}
				}
			}
		})
	}
}

// FuzzLoad: any file contents load or give an error, never a panic; a
// loaded data set is consistent.
func FuzzLoad(f *testing.F) {
	f.Add("1\tRed\n2\tGreen\n", "a\t1\nb\t2\n", "a\tb\n")
	f.Add("1\tRed", "a\t1\r\n", "a\ta\n")
	f.Add("1\n", "a\t1\t2\n", "\n\n")
	f.Fuzz(func(t *testing.T, cats, labels, links string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "labels.txt"), []byte(cats), 0o644)
		os.WriteFile(filepath.Join(dir, "f.labels"), []byte(labels), 0o644)
		os.WriteFile(filepath.Join(dir, "f.links"), []byte(links), 0o644)
		ds, err := Load(dir, "f")
		if err != nil {
			return
		}
		if len(ds.Papers) == 0 || len(ds.Categories) == 0 || len(ds.Label) != len(ds.Papers) {
			t.Fatalf("inconsistent data set %+v", ds)
		}
		for _, c := range ds.Label {
			if c < 0 || c >= len(ds.Categories) {
				t.Fatalf("label %d out of range", c)
			}
		}
		for _, l := range ds.Links {
			if l.From < 0 || l.From >= len(ds.Papers) || l.To < 0 || l.To >= len(ds.Papers) {
				t.Fatalf("link %+v out of range", l)
			}
		}
		if s, err := NewSplit(ds, 1, 0.5); err == nil {
			if _, _, err := NeighbourMajority(s); err != nil {
				t.Fatal(err)
			}
			if err := WritePSL(s, filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func BenchmarkNeighbourMajorityCora(b *testing.B) {
	ds := realData(b, "cora")
	s, err := NewSplit(ds, 1, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := NeighbourMajority(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadSplitWriteCora(b *testing.B) {
	dir := shareddata.Require(b, "cora")
	out := b.TempDir()
	for b.Loop() {
		ds, err := Load(dir, "cora")
		if err != nil {
			b.Skipf("skipping: %v", err)
		}
		s, err := NewSplit(ds, 1, 0.5)
		if err != nil {
			b.Fatal(err)
		}
		if err := WritePSL(s, out); err != nil {
			b.Fatal(err)
		}
	}
}
