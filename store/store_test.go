package store

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
)

func newTestStore(t *testing.T) (*Store, *model.Predicate, *model.Predicate) {
	t.Helper()
	m := model.New()
	link, err := m.AddPredicate("Link", 2, true)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := m.AddPredicate("HasCat", 2, false)
	if err != nil {
		t.Fatal(err)
	}
	return New(m), link, cat
}

func TestAddErrors(t *testing.T) {
	s, link, cat := newTestStore(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddObservation(cat, []string{"p1", "1"}, 1))
	must(s.AddObservation(cat, []string{"p1", "1"}, 1)) // same value again is fine
	must(s.AddTarget(cat, []string{"p2", "1"}))
	must(s.AddTarget(cat, []string{"p2", "1"}))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"obs then target", s.AddTarget(cat, []string{"p1", "1"}), "HasCat('p1', '1') is listed both as an observation and as a target"},
		{"target then obs", s.AddObservation(cat, []string{"p2", "1"}, 0.5), "listed both as an observation and as a target"},
		{"conflicting obs", s.AddObservation(cat, []string{"p1", "1"}, 0.5), "observed twice, with values 1 and 0.5"},
		{"value range", s.AddObservation(link, []string{"a", "b"}, 1.5), "truth value 1.5 is outside [0,1]"},
		{"truth range", s.AddTruth(cat, []string{"a", "b"}, -0.1), "outside [0,1]"},
		{"arity", s.AddObservation(link, []string{"a"}, 1), "Link takes 2 arguments, found 1"},
		{"closed target", s.AddTarget(link, []string{"a", "b"}), "is closed"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, tt.err, tt.want)
		}
	}
	obs, tgt, _ := s.Counts()
	if obs != 1 || tgt != 1 {
		t.Fatalf("counts %d observed %d targets after rejected adds", obs, tgt)
	}
}

// TestIndexesAgainstScan checks full and partial indexes against a linear scan.
func TestIndexesAgainstScan(t *testing.T) {
	m := model.New()
	p, _ := m.AddPredicate("R", 3, true)
	s := New(m)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		args := []string{strconv.Itoa(r.IntN(20)), strconv.Itoa(r.IntN(15)), strconv.Itoa(r.IntN(10))}
		if err := s.AddObservation(p, args, 1); err != nil {
			t.Fatal(err)
		}
	}
	tab := s.Table(p)
	for mask := uint32(0); mask < 8; mask++ {
		ix := tab.Index(mask)
		pos := ix.Positions()
		for trial := 0; trial < 200; trial++ {
			row := r.IntN(tab.Len())
			key := make([]int32, len(pos))
			for k, q := range pos {
				key[k] = tab.Arg(row, q)
			}
			if trial%5 == 0 && len(key) > 0 { // sometimes a key that may be absent
				key[0] = s.Dict.ID("absent" + strconv.Itoa(trial))
			}
			var want []int32
			for rr := 0; rr < tab.Len(); rr++ {
				ok := true
				for k, q := range pos {
					if tab.Arg(rr, q) != key[k] {
						ok = false
					}
				}
				if ok {
					want = append(want, int32(rr))
				}
			}
			got := slices.Clone(ix.Lookup(key))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("mask %b key %v: got %v want %v", mask, key, got, want)
			}
		}
	}
	for row := 0; row < tab.Len(); row++ {
		if got, ok := tab.Find(tab.Args(row)); !ok || got != row {
			t.Fatalf("Find(row %d) = %d, %v", row, got, ok)
		}
	}
	if _, ok := tab.Find([]int32{s.Dict.ID("nope"), 0, 0}); ok {
		t.Fatal("found an absent atom")
	}
}

func TestDictLess(t *testing.T) {
	d := NewDict()
	a, b, c, x := d.ID("2"), d.ID("10"), d.ID("-3"), d.ID("abc")
	if !d.Less(a, b) || d.Less(b, a) || !d.Less(c, a) || !d.Less(b, x) || d.Less(x, a) {
		t.Fatal("numeric constants must sort numerically and before text")
	}
}
