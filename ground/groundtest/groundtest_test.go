package groundtest

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/pipeline"
)

func TestTransitivity(t *testing.T) {
	m, s, err := Transitivity(50, 7, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	knows := m.Predicate("Knows")
	tab := s.Table(knows)
	if tab.Len() != 50*7 || len(m.Rules) != 1 || !m.Rules[0].Squared {
		t.Fatalf("%d atoms, %d rules", tab.Len(), len(m.Rules))
	}
	obs, tgt, _ := s.Counts()
	if obs == 0 || tgt == 0 || obs+tgt != 350 {
		t.Fatalf("%d observed, %d targets", obs, tgt)
	}
	out := map[int32]int{}
	for r := range tab.Len() {
		a := tab.Args(r)
		if a[0] == a[1] {
			t.Fatalf("self link at row %d", r)
		}
		out[a[0]]++
	}
	for id, n := range out {
		if n != 7 {
			t.Fatalf("%s has %d links, want 7", s.Dict.Name(id), n)
		}
	}
	// Same seed, same data; another seed, other data.
	_, s2, _ := Transitivity(50, 7, 0.3, 5)
	_, s3, _ := Transitivity(50, 7, 0.3, 6)
	same, differ := true, false
	for r := range tab.Len() {
		a, b, c := s.Names(tab.Args(r)), s2.Names(s2.Table(knows).Args(r)), s3.Names(s3.Table(knows).Args(r))
		same = same && slices.Equal(a, b) && tab.Kind(r) == s2.Table(knows).Kind(r)
		differ = differ || !slices.Equal(a, c)
	}
	if !same || !differ {
		t.Fatalf("deterministic in seed: same %v, differs across seeds %v", same, differ)
	}
	for _, bad := range [][2]int{{1, 1}, {10, 0}, {10, 10}} {
		if _, _, err := Transitivity(bad[0], bad[1], 0.5, 1); err == nil {
			t.Errorf("n=%d degree=%d accepted", bad[0], bad[1])
		}
	}
}

// TestWritePSL: the files read back (by the pipeline's loader) as the
// same atoms.
func TestWritePSL(t *testing.T) {
	m, s, err := Transitivity(40, 5, 0.4, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WritePSL(dir, m, s); err != nil {
		t.Fatal(err)
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(dir, "transitivity.psl"), Data: filepath.Join(dir, "transitivity.data")})
	if err != nil {
		t.Fatal(err)
	}
	o1, t1, _ := s.Counts()
	o2, t2, _ := prog.Store.Counts()
	if o1 != o2 || t1 != t2 || len(prog.Model.Rules) != 1 || prog.Model.Rules[0].Text != m.Rules[0].Text {
		t.Fatalf("read back %d observed, %d targets, rules %v; wrote %d, %d", o2, t2, prog.Model.Rules, o1, t1)
	}
}
