package ground

import (
	"sync"
	"testing"

	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
)

// TestTransitivityAcrossThreads grounds a generated transitivity model with
// extra arithmetic rules, big enough to split into many chunks, and checks it
// against the brute-force oracle and across thread counts.
func TestTransitivityAcrossThreads(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 25
	}
	m, s, err := groundtest.Transitivity(n, 6, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	knows := m.Predicate("Knows")
	for _, r := range []*model.Rule{
		arith(1, true, []model.Summand{sa(nil, at(knows, "A", "+B"))}, model.LE, []model.Summand{sc(2)}),
		arith(-1, false, []model.Summand{sa(bin('/', num(1), card("B")), at(knows, "A", "+B"))}, model.GE, []model.Summand{sc(0.3)}),
		weighted(1, false, imp(and(at(knows, "A", "B"), cmp(model.CmpNonSym, "A", "B")), at(knows, "B", "A"))),
	} {
		if err := m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
	res := compareWithOracle(t, m, s, 1, 2, 3, 8)
	if res.Rules[0].Potentials < 20*n {
		t.Fatalf("only %d transitivity potentials", res.Rules[0].Potentials)
	}
}

// TestNoAllocationPerPotential checks that grounding allocates per chunk and
// per index, never per potential.
func TestNoAllocationPerPotential(t *testing.T) {
	m, s, err := groundtest.Transitivity(400, 10, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	pots := 0
	for _, threads := range []int{1, 2} {
		allocs := testing.AllocsPerRun(2, func() {
			res, err := Ground(m, s, Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			pots = res.Problem.NumPotentials()
		})
		if pots < 20000 || allocs > float64(pots)/10 {
			t.Fatalf("threads=%d: %.0f allocations for %d potentials", threads, allocs, pots)
		}
	}
}

// TestConcurrentGroundRule grounds candidate rules from several goroutines
// on one Grounder (as structure learning may) and checks each against a
// sequential grounding.
func TestConcurrentGroundRule(t *testing.T) {
	m, s, err := groundtest.Transitivity(60, 5, 0.5, 9)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGrounder(m, s, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	knows := m.Predicate("Knows")
	cands := []*model.Rule{
		weighted(1, false, imp(at(knows, "A", "B"), at(knows, "B", "A"))),
		weighted(1, true, imp(and(at(knows, "A", "B"), at(knows, "A", "C"), cmp(model.CmpNeq, "B", "C")), at(knows, "B", "C"))),
		weighted(1, false, imp(and(at(knows, "A", "B"), at(knows, "C", "B"), cmp(model.CmpNonSym, "A", "C")), at(knows, "A", "C"))),
		arith(1, false, []model.Summand{sa(nil, at(knows, "A", "+B"))}, model.LE, []model.Summand{sc(3)}),
	}
	for _, r := range cands {
		if err := m.Resolve(r); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]*hlmrf.Problem, len(cands))
	for i, r := range cands {
		if want[i], _, err = g.GroundRule(r); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]*hlmrf.Problem, len(cands))
	errs := make([]error, len(cands))
	var wg sync.WaitGroup
	for i, r := range cands {
		wg.Go(func() { got[i], _, errs[i] = g.GroundRule(r) })
	}
	wg.Wait()
	for i := range cands {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !problemsEqual(got[i], want[i]) || want[i].NumPotentials() == 0 {
			t.Fatalf("candidate %d: concurrent grounding differs (or is empty: %d potentials)", i, want[i].NumPotentials())
		}
	}
}
