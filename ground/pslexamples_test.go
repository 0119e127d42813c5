package ground

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/config"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// loadPSLExample reads a PSL 3 JSON config of psl-examples: predicates,
// data and rules (parsed with the syntax package). It skips the test when
// the data is absent.
func loadPSLExample(t *testing.T, name string) (*model.Model, *store.Store) {
	t.Helper()
	path := shareddata.Require(t, "psl-examples", "models", name)
	cfg, err := config.Read(path, "infer")
	if err != nil {
		t.Fatal(err)
	}
	m := model.New()
	if err := cfg.Declare(m); err != nil {
		t.Fatal(err)
	}
	s := store.New(m)
	if err := cfg.Load(s); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%s: data files absent: %v", name, err)
		}
		t.Fatal(err)
	}
	for _, src := range cfg.Rules {
		r, err := syntax.ParseRule(src.Text, src.Pos)
		if err != nil {
			t.Fatal(err)
		}
		r.Text = src.Text
		if err := m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
	return m, s
}

// TestPSLExamplesAgainstBruteForce grounds the small psl-examples models
// (simple acquaintances: transitivity, comparisons, a hard symmetric
// arithmetic rule and a negative prior; smokers) and compares every
// potential and constraint with the brute-force grounder.
func TestPSLExamplesAgainstBruteForce(t *testing.T) {
	for _, name := range []string{"simple-acquaintances.json", "smokers.json"} {
		t.Run(name, func(t *testing.T) {
			m, s := loadPSLExample(t, name)
			start := time.Now()
			res := compareWithOracle(t, m, s, 1, 2)
			total := 0
			for _, st := range res.Rules {
				total += st.Potentials + st.Constraints
				t.Logf("%6d potentials %5d constraints  %s", st.Potentials, st.Constraints, st.Rule.Text)
			}
			if total == 0 {
				t.Fatal("nothing grounded")
			}
			t.Logf("%d variables, checked in %v", res.Problem.NumVars, time.Since(start))
		})
	}
}

// TestCiteseer grounds the psl-examples Citeseer model (rules from
// citeseer.json) over the LINQS Citeseer links with the labels of
// even-numbered papers observed (1 for the label, 0 for the other
// categories) and the categories of odd-numbered papers as targets. It
// checks the result across thread counts and two closed forms: the hard
// rule HasCat(A, +C) = 1 gives one equality constraint per unlabelled paper
// (the labelled papers' sums are 1 already), and the prior one potential per
// target.
func TestCiteseer(t *testing.T) {
	if testing.Short() {
		t.Skip("real-data grounding; skipped in -short")
	}
	dir := shareddata.Require(t, "citeseer")
	links, err1 := os.ReadFile(filepath.Join(dir, "citeseer.links"))
	labels, err2 := os.ReadFile(filepath.Join(dir, "citeseer.labels"))
	if err1 != nil || err2 != nil {
		t.Skipf("citeseer data absent: %v %v", err1, err2)
	}
	// The rules of psl-examples models/citeseer.json (its data files are
	// not in the shared data, so the config itself cannot be loaded).
	rules := []string{
		"1.0: HasCat(A, C) & Link(A, B) & (A != B) >> HasCat(B, C) ^2",
		"1.0: HasCat(A, C) & Link(B, A) & (A != B) >> HasCat(B, C) ^2",
		"1.0: HasCat(A, '1') & Link(A, B) >> HasCat(B, '1') ^2",
		"1.0: HasCat(A, '2') & Link(A, B) >> HasCat(B, '2') ^2",
		"1.0: HasCat(A, '3') & Link(A, B) >> HasCat(B, '3') ^2",
		"1.0: HasCat(A, '4') & Link(A, B) >> HasCat(B, '4') ^2",
		"1.0: HasCat(A, '5') & Link(A, B) >> HasCat(B, '5') ^2",
		"1.0: HasCat(A, '6') & Link(A, B) >> HasCat(B, '6') ^2",
		"1.0: HasCat(A, '7') & Link(A, B) >> HasCat(B, '7') ^2",
		"HasCat(A, +C) = 1 .",
		"0.001: !HasCat(A, N) ^2",
	}
	m := model.New()
	if _, err := m.AddPredicate("Link", 2, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddPredicate("HasCat", 2, false); err != nil {
		t.Fatal(err)
	}
	for _, text := range rules {
		r, err := syntax.ParseRule(text, srcpos.Position{})
		if err != nil {
			t.Fatal(err)
		}
		r.Text = text
		if err := m.AddRule(r); err != nil {
			t.Fatal(err)
		}
	}
	s := store.New(m)
	link, hasCat := m.Predicate("Link"), m.Predicate("HasCat")
	if err := store.LoadTSV(s, link, store.Observations, bytes.NewReader(links), "citeseer.links"); err != nil {
		t.Fatal(err)
	}
	unlabelled, targets := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(labels)), "\n") {
		f := strings.Fields(line)
		id, _ := strconv.Atoi(f[0])
		if id%2 == 1 {
			unlabelled++
		}
		for c := 1; c <= 6; c++ {
			args := []string{f[0], strconv.Itoa(c)}
			var err error
			switch {
			case id%2 == 1:
				err = s.AddTarget(hasCat, args)
				targets++
			case strconv.Itoa(c) == f[1]:
				err = s.AddObservation(hasCat, args, 1)
			default:
				err = s.AddObservation(hasCat, args, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var first *Result
	for _, threads := range []int{1, 2, 3} {
		start := time.Now()
		res, err := Ground(m, s, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("threads=%d: %d variables, %d potentials, %d constraints in %v", threads, res.Problem.NumVars,
			res.Problem.NumPotentials(), res.Problem.NumConstraints(), time.Since(start))
		if err := res.Problem.Validate(); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !problemsEqual(first.Problem, res.Problem) {
			t.Fatalf("threads=%d: problem differs from threads=1", threads)
		}
	}
	for _, st := range first.Rules {
		t.Logf("%7d potentials %5d constraints  %s", st.Potentials, st.Constraints, st.Rule.Text)
	}
	sum, prior := first.Rules[len(first.Rules)-2], first.Rules[len(first.Rules)-1]
	if sum.Constraints != unlabelled || sum.ConstantViolated != 0 {
		t.Errorf("HasCat(A, +C) = 1: %d constraints (%d violated), want %d", sum.Constraints, sum.ConstantViolated, unlabelled)
	}
	if prior.Potentials != targets || first.Problem.NumVars != targets {
		t.Errorf("prior: %d potentials, %d variables, want %d", prior.Potentials, first.Problem.NumVars, targets)
	}
}
