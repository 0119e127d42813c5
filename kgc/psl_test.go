package kgc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPredStems: every relation gets a PSL name distinct, case-insensitively,
// from every other's (PSL predicate names ignore case): a later relation
// whose name (or rel-id fallback) differs from an earlier one only in case
// takes the first suffix no relation has.
func TestPredStems(t *testing.T) {
	tests := []struct {
		relations, want []string
	}{
		{[]string{"likes", "knows"}, []string{"likes", "knows"}},
		{[]string{"likes", "LIKES"}, []string{"likes", "LIKES_2"}},
		{[]string{"likes", "LIKES", "Likes"}, []string{"likes", "LIKES_2", "Likes_3"}},
		{[]string{"likes", "LIKES", "likes_2"}, []string{"likes", "LIKES_3", "likes_2"}},
		{[]string{"rel1", "has part"}, []string{"rel1", "rel1_2"}},
		{[]string{"has part", "REL0"}, []string{"rel0", "REL0_2"}},
		{[]string{"a b", "c d"}, []string{"rel0", "rel1"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.relations, ","), func(t *testing.T) {
			v := NewVocab()
			for _, r := range tc.relations {
				v.Relation(r)
			}
			got := predStems(v, len(tc.relations))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("stems (-want +got):\n%s", diff)
			}
			seen := map[string]bool{}
			for _, s := range got {
				if seen[strings.ToLower(s)] {
					t.Errorf("%q twice, but for case", s)
				}
				seen[strings.ToLower(s)] = true
			}
		})
	}
}

// TestPSLCaseRelations: relations likes and LIKES are two PSL predicates
// each (they were merged into one: the re-scoring mixed them and --psl-out
// declared G_LIKES twice, one observations file overwriting the other), and
// the files say which predicates a renamed relation has.
func TestPSLCaseRelations(t *testing.T) {
	g := randomGraph(11, 12, 2, 80)
	res, err := Learn(context.Background(), g, LearnOptions{Time: time.Second, Seed: 3, MinSupport: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := NewVocab()
	for e := range 12 {
		v.Entity(fmt.Sprint("e", e))
	}
	v.Relation("likes")
	v.Relation("LIKES")
	p, err := NewRanker(g, res.Rules, PSL).NewPSL(context.Background(), v, PSLOptions{Candidates: 3, TrainQueries: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pr := range p.Model.Predicates {
		names = append(names, pr.Name)
	}
	if want := []string{"G_likes", "Q_likes", "G_LIKES_2", "Q_LIKES_2"}; !cmp.Equal(names, want) {
		t.Fatalf("predicates %v, want %v", names, want)
	}
	want := []string{`relation "LIKES" is G_LIKES_2 and Q_LIKES_2`}
	if got := p.Renamed(); !cmp.Equal(got, want) {
		t.Errorf("Renamed %q, want %q", got, want)
	}
	dir := t.TempDir()
	if err := p.WriteFiles(dir, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.psl", "kgc.data"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), "# "+want[0]+"\n") {
			t.Errorf("%s (%v) does not say %q:\n%s", f, err, want[0], b)
		}
	}
	for _, f := range []string{"G_likes_observations.txt", "G_LIKES_2_observations.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
