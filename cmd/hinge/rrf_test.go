package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRRFNorm: --norm picks the normalisation (the default is smooth), a
// bad one is refused with exit 2, and max and smooth give the same mode on a
// model whose weights are far from 0.
func TestRRFNorm(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.rrf", "*Friends(person, person)\nSmokes(person)\nroot = 2 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(x) + 3 * Smokes(y)\n")
	ev := writeFile(t, dir, "e.db", "Friends(A, B)\nSmokes(A)\nSmokes(C)\n")
	for _, norm := range []string{"", "smooth", "max", "softplus"} {
		args := []string{"rrf", "infer", "-i", model, "-e", ev, "-q", "Smokes", "--method", "icm"}
		if norm != "" {
			args = append(args, "--norm", norm)
		}
		code, stdout, errs := runCLI(t, args...)
		if norm == "softplus" {
			// Softplus scales each Pair down by about (1 + e^-3)^-3: the
			// pull towards the smoking friend stays, the mode too.
			if code != 0 {
				t.Errorf("--norm softplus: exit %d: %s", code, errs)
			}
			continue
		}
		if code != 0 || stdout != "Smokes(B) 1\n" {
			t.Errorf("--norm %q: exit %d\n%s%s", norm, code, stdout, errs)
		}
	}
	if code, _, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Smokes", "--norm", "relu"); code != 2 || !strings.Contains(errs, `--norm: normalisation "relu": want smooth, max or softplus`) {
		t.Errorf("bad --norm: exit %d, %s", code, errs)
	}
	train := writeFile(t, dir, "t.db", "Friends(A, B)\nSmokes(B)\n")
	if code, _, errs := runCLI(t, "rrf", "learn", "-i", model, "-t", train, "-q", "Smokes", "--norm", "max", "-o", filepath.Join(dir, "o.rrf")); code != 0 || !strings.Contains(errs, "rrf learn (pll)") {
		t.Errorf("learn --norm max: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "rrf", "learn", "-i", model, "-t", train, "-q", "Smokes", "--norm", "x", "-o", filepath.Join(dir, "p.rrf")); code != 2 || !strings.Contains(errs, "--norm") {
		t.Errorf("learn bad --norm: exit %d, %s", code, errs)
	}
}

// TestRRFLearnSeparateDBs: with --separate-dbs two databases are two worlds
// (their constants are not paired): learning converges and differs from
// learning on the two merged, in which the pairs across the databases are
// false Friends atoms.
func TestRRFLearnSeparateDBs(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.rrf", "*Friends(person, person)\nSmokes(person)\nroot = 1 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 2 * Friends(x, y) + 2 * Smokes(y)\n")
	a := writeFile(t, dir, "a.db", "Friends(A, B)\nSmokes(B)\n")
	b := writeFile(t, dir, "b.db", "Friends(C, D)\nFriends(D, E)\nSmokes(D)\nSmokes(E)\n")
	var texts []string
	for i, extra := range [][]string{nil, {"--separate-dbs"}} {
		out := filepath.Join(dir, fmt.Sprintf("o%d.rrf", i))
		code, _, errs := runCLI(t, append([]string{"rrf", "learn", "-i", model, "-t", a + "," + b, "-q", "Smokes", "-o", out}, extra...)...)
		if code != 0 || !strings.Contains(errs, "GradientThreshold") && !strings.Contains(errs, "converged") && !strings.Contains(errs, "Failure") {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(text))
	}
	if texts[0] == texts[1] {
		t.Errorf("separate databases learned what the merged ones did:\n%s", texts[1])
	}
}

// TestRRFMemoryLimit: a grounding past --memory-limit fails with exit 1,
// naming the parfeature and the flag.
func TestRRFMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	var people []string
	for i := range 300 { // 90,000 Pair features of 2 unknown atoms: about 17 MB
		people = append(people, fmt.Sprintf("P%d", i))
	}
	model := writeFile(t, dir, "m.rrf", "person = {"+strings.Join(people, ", ")+"}\nSmokes(person)\nroot = 1 * sum(x, y) Pair(x, y)\nPair(x, y) = 2 * Smokes(x) + 2 * Smokes(y)\n")
	code, _, errs := runCLI(t, "--memory-limit", "16MiB", "rrf", "infer", "-i", model, "-q", "Smokes")
	if code != 1 || !strings.Contains(errs, "m.rrf:4:1: parfeature Pair") || !strings.Contains(errs, "exceeds the memory limit") || !strings.Contains(errs, "--memory-limit") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestRRFGibbsConvergence: Gibbs marginals of an RRF come with the chains'
// agreement (R-hat and spread), as Markov logic's samplers do: --as-rrf
// --marginal gave no diagnostic; --strict makes chains that disagree an
// error, with nothing written (one sweep from random worlds cannot agree).
func TestRRFGibbsConvergence(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	for _, a := range [][]string{{"mln", "infer", "--as-rrf", "--marginal", "-i", prog}, {"rrf", "infer", "-i", prog}, {"rrf", "infer", "-i", "../../examples/rrf/smokers.rrf"}} {
		code, _, errs := runCLI(t, append(a, "-e", ev, "-q", "Cancer,Smokes")...)
		if code != 0 || !strings.Contains(errs, "convergence: 4 chains x 250 samples; largest R-hat") {
			t.Errorf("%v: exit %d\n%s", a, code, errs)
		}
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	code, _, errs := runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--samples", "4", "--burn-in", "0", "--chains", "4", "--strict", "-r", out)
	if code != 1 || !strings.Contains(errs, "--strict: the marginals cannot be trusted") {
		t.Errorf("--strict with 4 chains of one sample: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict wrote the result")
	}
}
