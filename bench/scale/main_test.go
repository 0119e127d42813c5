package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRunSmall runs the benchmark at a tiny size in memory and streaming
// (PostgreSQL too when HINGE_TEST_POSTGRES is set) and checks that the
// rows describe the same problem solved to the same objective.
func TestRunSmall(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "scale.csv")
	modes := "memory,streaming"
	db := os.Getenv("HINGE_TEST_POSTGRES")
	if db != "" {
		modes += ",pg-streaming"
	}
	if err := run("300", modes, out, settings{dir: dir, db: db, epochs: 1000, maxIter: 25000}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("%d rows", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	first := rows[1]
	obj0, _ := strconv.ParseFloat(first[col["objective"]], 64)
	for _, r := range rows[1:] {
		obj, _ := strconv.ParseFloat(r[col["objective"]], 64)
		if r[col["potentials"]] != first[col["potentials"]] || r[col["status"]] != "converged" || obj < obj0*(1-2e-3) || obj > obj0*(1+2e-3) {
			t.Errorf("row %v differs from %v", r, first)
		}
		if r[col["mode"]] != "memory" && r[col["cache_bytes"]] == "" {
			t.Errorf("row %v: no cache size", r)
		}
	}
}
