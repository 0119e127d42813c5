package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmall runs two generated problems with one fixed rho and both
// policies, and checks the table, the CSV rows and the plots.
func TestSmall(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"-problems", "maxsat,squared", "-rhos", "1", "-out", out}, &stdout); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 2 problems x 3 configurations x 2 gaps, and the header.
	if len(rows) != 13 {
		t.Fatalf("%d CSV rows, want 13", len(rows))
	}
	for _, r := range rows[1:] {
		if r[8] != "converged" {
			t.Errorf("%s %s gap %s: %s", r[0], r[4], r[5], r[8])
		}
	}
	if !strings.Contains(stdout.String(), "| squared |") {
		t.Errorf("no table row for squared:\n%s", stdout.String())
	}
	if st, err := os.Stat(filepath.Join(out, "squared.png")); err != nil || st.Size() == 0 {
		t.Errorf("squared.png: %v", err)
	}
	if err := run(context.Background(), []string{"-problems", "nosuch", "-out", out}, &stdout); err == nil {
		t.Error("an unknown problem was accepted")
	}
}
