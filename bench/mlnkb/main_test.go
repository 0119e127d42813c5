package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/mln"
)

// TestGenerators: the knowledge bases have the sizes asked for and are
// programs and evidence hinge reads.
func TestGenerators(t *testing.T) {
	dir := t.TempDir()
	k, err := generateKB(dir, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	if k.facts != 3000 || k.entities != 300 || k.clauses != 30 {
		t.Fatalf("kb: %d facts, %d entities, %d clauses", k.facts, k.entities, k.clauses)
	}
	check := func(k *kb) {
		t.Helper()
		prog, err := mln.ReadProgram(k.prog)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := mln.ReadAtoms(k.evidence, prog, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev) != k.facts || len(prog.Formulas) != k.clauses {
			t.Fatalf("%s: %d atoms, %d formulas; generated %d and %d", k.prog, len(ev), len(prog.Formulas), k.facts, k.clauses)
		}
	}
	check(k)
	data, err := shareddata.Dir()
	if err != nil {
		t.Skipf("kinship needs kinship-mln's rules: %v", err)
	}
	k, err = generateKinship(dir, filepath.Join(data, "kinship-mln", "S5", "rules"), 400, 1)
	if err != nil {
		t.Fatal(err)
	}
	if k.entities != 400 || k.clauses != 22 {
		t.Fatalf("kinship: %d people, %d clauses", k.entities, k.clauses)
	}
	check(k)
}

// TestRunSmall runs the kb experiment on a small knowledge base through a
// freshly built hinge and checks its row.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hinge")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-experiments", "kb", "-sizes", "300", "-work", dir, "-out", dir, "-flips-per-entity", "20"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := os.Open(filepath.Join(dir, "kb.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	// The cutting planes over the relaxation (the default), with a bound
	// at most their cost, then lazy MaxWalkSAT, without one.
	for i, want := range []string{"lp-round (lazy)", "maxwalksat (lazy)"} {
		r := rows[1+i]
		built, _ := strconv.Atoi(r[col["ground_clauses_built"]])
		cross, _ := strconv.ParseFloat(r[col["cross_product"]], 64)
		cost, _ := strconv.ParseFloat(r[col["cost"]], 64)
		bound, berr := strconv.ParseFloat(r[col["cost_lower_bound"]], 64)
		if r[col["exit"]] != "0" || r[col["method"]] != want || built == 0 || float64(built) >= cross || r[col["hard_violated"]] != "0" {
			t.Fatalf("row %v", r)
		}
		if i == 0 && (berr != nil || bound > cost || cost <= 0) || i == 1 && (r[col["cost_lower_bound"]] != "" || r[col["flips"]] != "6000") {
			t.Fatalf("row %v", r)
		}
	}
}

// TestRunMarginalsSmall runs the marginals experiment (lazy MC-SAT) on a
// small knowledge base and checks its row.
func TestRunMarginalsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hinge")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-experiments", "marginals", "-marginal-sizes", "300", "-samples", "10", "-chains", "2", "-burn-in", "2", "-work", dir, "-out", dir}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := os.Open(filepath.Join(dir, "marginals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	r := rows[1]
	built, _ := strconv.Atoi(r[col["ground_clauses_built"]])
	initial, _ := strconv.Atoi(r[col["initial_ground_clauses"]])
	cross, _ := strconv.ParseFloat(r[col["cross_product"]], 64)
	active, _ := strconv.Atoi(r[col["atoms_active"]])
	_, cerr := strconv.ParseFloat(r[col["cpu_s"]], 64)
	if r[col["exit"]] != "0" || built == 0 || initial == 0 || initial > built || float64(built) >= cross || active == 0 || cerr != nil {
		t.Fatalf("row %v", r)
	}
}
