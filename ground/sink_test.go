package ground

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hinge-srl/hinge/cache"
	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// collect is a Sink that appends every piece, checking that pieces are
// handed over one at a time and not kept.
type collect struct {
	p      *hlmrf.Problem
	pieces int
	fail   int // fail on this piece (1-based), 0 never
}

func (c *collect) Add(piece *hlmrf.Problem) error {
	c.pieces++
	if c.pieces == c.fail {
		return errors.New("disk full")
	}
	c.p.Append(piece, false)
	return nil
}

// groundBoth grounds m over s in memory and into a sink, and checks that
// the sink got exactly the in-memory problem, in order, with the same
// statistics.
func groundBoth(t *testing.T, m *model.Model, s *store.Store, threads int) (*Result, int) {
	t.Helper()
	want, err := Ground(m, s, Options{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	c := &collect{p: &hlmrf.Problem{NumVars: want.Problem.NumVars, Start: []int32{0}, CStart: []int32{0}}}
	got, err := Ground(m, s, Options{Threads: threads, Sink: c})
	if err != nil {
		t.Fatal(err)
	}
	if got.Problem.NumPotentials() != 0 || got.Problem.NumConstraints() != 0 {
		t.Errorf("the result's problem holds %d potentials with a sink", got.Problem.NumPotentials())
	}
	if !reflect.DeepEqual(c.p, want.Problem) {
		t.Fatalf("the sink got %d potentials and %d constraints, in memory %d and %d, or they differ",
			c.p.NumPotentials(), c.p.NumConstraints(), want.Problem.NumPotentials(), want.Problem.NumConstraints())
	}
	for i := range want.Rules {
		a, b := want.Rules[i], got.Rules[i]
		if a.Potentials != b.Potentials || a.Constraints != b.Constraints || a.ConstantViolated != b.ConstantViolated {
			t.Errorf("rule %d: stats %+v in memory, %+v with a sink", i, a, b)
		}
	}
	return want, c.pieces
}

func TestSinkRandomWorlds(t *testing.T) {
	for seed := range uint64(80) {
		m, s, err := randomWorld(seed, 1+int(seed%4))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			for _, threads := range []int{1, 3} {
				groundBoth(t, m, s, threads)
			}
		})
	}
}

// TestSinkLarge: a problem of several pieces (chunks of a transitivity
// rule, an arithmetic rule, a hard rule) passes to a cache file and reads
// back as the in-memory problem.
func TestSinkLarge(t *testing.T) {
	m, s, err := groundtest.Transitivity(150, 12, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	knows := m.Predicate("Knows")
	for _, r := range []*model.Rule{
		arith(1, true, []model.Summand{sa(nil, at(knows, "A", "+B"))}, model.LE, []model.Summand{sc(2)}),
		hard(imp(and(at(knows, "A", "B"), cmp(model.CmpNonSym, "A", "B")), at(knows, "B", "A"))),
	} {
		if err := m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
	want, pieces := groundBoth(t, m, s, 2)
	if pieces < 3 || want.Problem.NumPotentials() < 10000 {
		t.Fatalf("%d pieces, %d potentials: too small to test the ordering", pieces, want.Problem.NumPotentials())
	}
	path := filepath.Join(t.TempDir(), "g.cache")
	if _, err := cache.Write(path, want.Problem.NumVars, func(w *cache.Writer) error {
		_, err := Ground(m, s, Options{Threads: 2, Sink: w})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	r, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Problem) {
		t.Fatal("the cache file does not read back as the in-memory problem")
	}
}

// TestSinkError: the sink's error stops grounding and names the rule.
func TestSinkError(t *testing.T) {
	m, s, err := groundtest.Transitivity(60, 8, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		_, err = Ground(m, s, Options{Threads: threads, Sink: &collect{p: &hlmrf.Problem{}, fail: 2}})
		var se *SinkError
		if !errors.As(err, &se) || se.Error() != "disk full" {
			t.Fatalf("threads %d: got %v, want the sink's error", threads, err)
		}
		t.Log(err)
	}
}

// discard is a Sink that only counts.
type discard struct{ pots int }

func (d *discard) Add(p *hlmrf.Problem) error { d.pots += p.NumPotentials(); return nil }

// TestSinkMemoryLimit: a rule whose groundings do not fit the memory limit
// is refused in memory and grounds into a sink under the same limit, which
// then bounds only what is held before the sink takes it.
func TestSinkMemoryLimit(t *testing.T) {
	m, s, err := groundtest.Transitivity(4000, 20, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 48 << 20
	_, err = Ground(m, s, Options{Threads: 2, MemoryLimit: limit})
	var me *MemoryError
	if !errors.As(err, &me) || me.Counted || me.CrossProduct {
		t.Fatalf("in memory: got %v, want a refusal by the estimate", err)
	}
	d := &discard{}
	res, err := Ground(m, s, Options{Threads: 2, MemoryLimit: limit, Sink: d})
	if err != nil {
		t.Fatal(err)
	}
	if d.pots != res.Rules[0].Potentials || d.pots < 1_000_000 {
		t.Fatalf("the sink got %d potentials, the stats say %d", d.pots, res.Rules[0].Potentials)
	}
	t.Logf("%d potentials through the sink under a %d MiB limit (estimate: %.3g)", d.pots, limit>>20, me.Groundings)
}
