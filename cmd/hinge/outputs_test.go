package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInferOutputKeepsUserFiles: infer --output DIR where DIR holds
// hinge's earlier outputs and a file the user added is refused with exit
// status 2 before any work (no grounding summary), naming the file, and
// the file is still there; a directory that only holds hinge's earlier
// outputs is replaced as before.
func TestInferOutputKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"infer", "--model", smokersModel, "--data", smokersData, "--output", out}
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	// hinge's own directory is replaced by the next run.
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	notes := writeFile(t, out, "mynotes.txt", "my notes\n")
	for _, extra := range [][]string{nil, {"--streaming"}} {
		code, stdout, errs := runCLI(t, append(args, extra...)...)
		if code != 2 || !strings.Contains(errs, `"mynotes.txt"`) || !strings.Contains(errs, "hinge did not write") {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 naming mynotes.txt", extra, code, errs)
		}
		if strings.Contains(stdout, "potentials") || strings.Contains(stdout, "ADMM") {
			t.Errorf("%v: work was done before the refusal:\n%s", extra, stdout)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "my notes\n" {
			t.Fatalf("%v: the user's file is %q, %v", extra, b, err)
		}
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if want := []string{".hinge-output", "CANCER.txt", "SMOKES.txt", "mynotes.txt"}; !slices.Equal(got, want) {
		t.Errorf("the output directory holds %v, want %v", got, want)
	}
}

// TestInferOutputCheckedFirst: a directory hinge did not write (no marker)
// is refused before loading, grounding or solving, with exit status 2.
func TestInferOutputCheckedFirst(t *testing.T) {
	mine := writeFiles(t, map[string]string{"data.tsv": "a\tb\n"})
	code, stdout, errs := runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--output", mine)
	if code != 2 || !strings.Contains(errs, `"data.tsv"; it has no .hinge-output marker`) || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q: want exit 2 naming data.tsv before any work", code, errs, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(mine, "data.tsv")); err != nil || string(b) != "a\tb\n" {
		t.Errorf("the user's file is %q, %v", b, err)
	}
}
