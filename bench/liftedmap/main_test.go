package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestQuick runs small instances of the generated families and checks the
// CSV: every instance passed its checks, lifted and ground costs and bounds
// are equal, the repeated communities lifted to one template's classes and
// were rounded on the classes; and the plot is a PNG.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"-quick", "-out", dir, "-experiments", "communities,symmetry,random,interchangeable", "-people", "400", "-templates", "1,4", "-constants", "5", "-threads", "1"}
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	f, err := os.Open(filepath.Join(dir, "liftedmap.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+1+2+1+1 {
		t.Fatalf("%d CSV records, want a header and 5 rows", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	num := func(r []string, name string) float64 {
		x, err := strconv.ParseFloat(r[col[name]], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", name, r[col[name]], err)
		}
		return x
	}
	for _, r := range recs[1:] {
		name := r[col["instance"]]
		if r[col["checks_ok"]] != "true" {
			t.Errorf("%s: checks failed: %v", name, r)
		}
		if num(r, "cost_ground") != num(r, "cost_lifted") || num(r, "bound_ground") != num(r, "bound_lifted") {
			t.Errorf("%s: cost %v / %v, bound %v / %v", name, num(r, "cost_ground"), num(r, "cost_lifted"), num(r, "bound_ground"), num(r, "bound_lifted"))
		}
		if r[col["family"]] == "symmetry" && r[col["symmetry"]] != "true" {
			t.Errorf("%s: not lifted (%s)", name, r[col["lift_note"]])
		}
		if strings.HasPrefix(name, "symmetry") && num(r, "copies_per_template") == 100 && (r[col["rounding"]] != "classes" || num(r, "lifted_vars") > 20) {
			t.Errorf("%s: a hundred copies of one community: %s rounding, %v lifted variables", name, r[col["rounding"]], num(r, "lifted_vars"))
		}
	}
	pf, err := os.Open(filepath.Join(dir, "symmetry.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if _, err := png.Decode(pf); err != nil {
		t.Errorf("symmetry.png: %v", err)
	}
	if !strings.Contains(out.String(), "| communities 400 people |") {
		t.Errorf("table lacks the communities row:\n%s", out.String())
	}
}

// TestBadFlags: bad flags are bad input (exit 2).
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-runs", "0"},
		{"-experiments", "nope"},
		{"-method", "gibbs"},
		{"-templates", "0"},
		{"-people", "x"},
		{"-out", "x", "-update-results"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), args, &out, &errb)
		var bad *badInputError
		if !errors.As(err, &bad) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}
