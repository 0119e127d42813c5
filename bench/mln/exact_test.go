package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExactMarginalsClosedForm checks the enumeration against marginals
// worked out by hand: the hard equivalence P(x) <=> Q(x) leaves per
// constant the worlds P=Q=1 (weight e^(0.5-1)) and P=Q=0 (weight 1); the
// conflicting near-deterministic network is independent per person, with
// the eight worlds' scores summed by a function written out here.
func TestExactMarginalsClosedForm(t *testing.T) {
	nets := map[string]*smallNet{}
	for _, n := range smallNets(0) {
		nets[n.name] = n
	}
	eq, _, err := nets["equivalence"].exactMarginals()
	if err != nil {
		t.Fatal(err)
	}
	want := math.Exp(-0.5) / (1 + math.Exp(-0.5))
	for _, k := range []string{"P(A)", "Q(B)", "P(C)"} {
		if math.Abs(eq[k]-want) > 1e-12 {
			t.Errorf("equivalence: P(%s) = %.6f, want %.6f", k, eq[k], want)
		}
	}
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	var z, smokes, asthma float64
	for w := range 8 {
		s, c, a := w&1 == 1, w&2 == 2, w&4 == 4
		score := 15*b(!s || c) - 12*b(c) + 10*b(!a || !s) - 2.5*b(a || s) + 0.7*b(a) + 11*b(s)
		p := math.Exp(score)
		z += p
		smokes += p * b(s)
		asthma += p * b(a)
	}
	nd, _, err := nets["near-deterministic-conflict"].exactMarginals()
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"Smokes(A)": smokes / z, "Smokes(D)": smokes / z, "Asthma(C)": asthma / z} {
		if math.Abs(nd[k]-want) > 1e-12 {
			t.Errorf("near-deterministic-conflict: P(%s) = %.6f, want %.6f", k, nd[k], want)
		}
	}
}

// TestExactMarginalsRefusals: too many atoms, and hard clauses without a
// model, are errors rather than marginals.
func TestExactMarginalsRefusals(t *testing.T) {
	big := &smallNet{name: "big", types: [][2]string{{"t", "A, B, C, D, E"}},
		preds: []smallPred{{"R", []string{"t", "t"}}}, query: []string{"R"}}
	if _, _, err := big.exactMarginals(); err == nil || !strings.Contains(err.Error(), "25 unknown atoms") {
		t.Errorf("25 atoms: err = %v", err)
	}
	unsat := &smallNet{name: "unsat", types: [][2]string{{"t", "A"}},
		preds: []smallPred{{"P", []string{"t"}}}, query: []string{"P"},
		clauses: []smallClause{hard(lit("P", "x")), hard(lit("!P", "x"))}}
	if _, _, err := unsat.exactMarginals(); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("contradictory hard clauses: err = %v", err)
	}
}

// TestHingeGroundingMatchesDefinition enumerates every network of the
// experiment twice, from the clauses as written and from hinge's ground
// clauses of the .mln/.db files, and wants the same marginals.
func TestHingeGroundingMatchesDefinition(t *testing.T) {
	dir := t.TempDir()
	for _, n := range smallNets(3) {
		ex, _, err := n.exactMarginals()
		if err != nil {
			t.Fatal(err)
		}
		mlnPath, dbPath := filepath.Join(dir, n.name+".mln"), filepath.Join(dir, n.name+".db")
		if err := os.WriteFile(mlnPath, []byte(n.mlnText()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dbPath, []byte(n.dbText()), 0o644); err != nil {
			t.Fatal(err)
		}
		hx, err := hingeExactMarginals(mlnPath, dbPath, n.query)
		if err != nil {
			t.Fatalf("%s: %v", n.name, err)
		}
		if d, k := largestDiff(ex, hx); d > 1e-9 {
			t.Errorf("%s: marginals differ at %s by %g\n%s", n.name, k, d, n.mlnText())
		}
	}
}

func TestRandomSmallNetReproducible(t *testing.T) {
	a, b := randomSmallNet(7), randomSmallNet(7)
	if a.mlnText() != b.mlnText() || a.dbText() != b.dbText() {
		t.Error("randomSmallNet(7) differs between two calls")
	}
	if randomSmallNet(7).mlnText() == randomSmallNet(8).mlnText() {
		t.Error("seeds 7 and 8 give the same network")
	}
}

func TestReadMarginals(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("advisedBy(Person1, Person2) 0.25\n\nP(A) 4.9995e-05\n"), 0o644)
	m, err := readMarginals(good)
	if err != nil {
		t.Fatal(err)
	}
	if m["advisedBy(Person1,Person2)"] != 0.25 || m["P(A)"] != 4.9995e-05 || len(m) != 2 {
		t.Errorf("got %v", m)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("P(A) 0.5\nP(B) half\n"), 0o644)
	if _, err := readMarginals(bad); err == nil || !strings.Contains(err.Error(), "bad:2") {
		t.Errorf("bad probability: err = %v, want one naming bad:2", err)
	}
}

func TestExactSummary(t *testing.T) {
	rows := [][]string{
		{"network", "unknown atoms", "ground clauses", "engine", "samples", "seed", "largest error", "mean error", "seconds"},
		{"n", "4", "5", "e", "100", "1", "0.0100", "0.0020", "1.0"},
		{"n", "4", "5", "e", "100", "2", "0.0300", "0.0040", "3.0"},
		{"n", "4", "5", "f", "100", "1", "0.5000", "0.1000", "2.0"},
	}
	got := exactSummary(rows)
	want := [][]string{
		rows[0][:0], // header checked by length only
		{"n", "4", "5", "e", "100", "2", "0.0300", "0.0030", "2.00"},
		{"n", "4", "5", "f", "100", "1", "0.5000", "0.1000", "2.00"},
	}
	if len(got) != 3 || len(got[0]) != 9 {
		t.Fatalf("got %v", got)
	}
	for i := 1; i < 3; i++ {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestMedianSpread(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %g", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median = %g", m)
	}
	if s := spread([]float64{3, 1, 2}, "%.0f"); s != "2 (1-3)" {
		t.Errorf("spread = %q", s)
	}
}

func TestAlchemyDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{{"7.38 secs", 7.38}, {"1 mins, 7.38 secs", 67.38}, {"2 hrs, 1 mins, 0.5 secs", 7260.5}, {"0 secs", 0}} {
		got, err := alchemyDuration(c.in)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("alchemyDuration(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	if _, err := alchemyDuration("7 fortnights"); err == nil {
		t.Error("an unknown unit was read")
	}
	out := "Time taken for MC-SAT sampling = 1 mins, 7.38 secs\nTime taken for SampleSat = 16.44 secs\n"
	if d, ok := findDuration(out, reAlchemyMCSAT); !ok || math.Abs(d-67.38) > 1e-9 {
		t.Errorf("findDuration = %g, %v; want 67.38", d, ok)
	}
}
