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

// TestRRFProgramKindHint: rrf infer and rrf learn tell an RRF from Markov
// logic by the program's extension; when a program without one (a pipe, a
// .txt file) fails to parse as the kind it was read as, the error says so
// and how to give the other kind (rrf infer -i <(cat prog.rrf) said only
// "unexpected character"). A named .mln or .rrf, or an error elsewhere,
// gets no hint.
func TestRRFProgramKindHint(t *testing.T) {
	dir := t.TempDir()
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nSmokes(Anna)\n")
	rrfModel := "*Friends(person, person)\nSmokes(person)\nroot = 2 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(x) + 3 * Smokes(y)\n"
	badMLN := "Smokes(person)\n1.5 Smokes(x) =>\n"
	for _, tc := range []struct {
		name    string
		input   func() string
		args    []string // the command, then flags after -i INPUT
		want    []string // substrings of the error
		notWant string
	}{
		{"infer pipe", func() string { return pipePath(t, rrfModel) }, []string{"rrf", "infer", "-e", ev, "-q", "Smokes"},
			[]string{"unexpected character", "was read as Markov logic, since a pipe has no name to tell the kind by: give an RRF program as a file whose name ends in .rrf"}, ""},
		{"infer txt", func() string { return writeFile(t, dir, "prog.txt", rrfModel) }, []string{"rrf", "infer", "-e", ev, "-q", "Smokes"},
			[]string{"prog.txt:3:", "prog.txt was read as Markov logic, since its name ends in neither .rrf nor .mln"}, ""},
		{"learn pipe", func() string { return pipePath(t, mlnSmokers) }, []string{"rrf", "learn", "-t", ev, "-q", "Smokes", "-o", filepath.Join(dir, "l.rrf")},
			[]string{"a Markov logic formula in an RRF file", "was read as an RRF, since a pipe has no name to tell the kind by: give a Markov logic program as a file whose name ends in .mln"}, ""},
		{"infer named mln", func() string { return writeFile(t, dir, "bad.mln", badMLN) }, []string{"rrf", "infer", "-e", ev, "-q", "Smokes"},
			[]string{"bad.mln:2:"}, "was read as"},
		{"infer pipe, error not in the program", func() string { return pipePath(t, mlnSmokers) }, []string{"rrf", "infer", "-e", ev, "-q", "Nope"},
			[]string{"Nope"}, "was read as"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{tc.args[0], tc.args[1], "-i", tc.input()}, tc.args[2:]...)
			code, _, errs := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit %d, stderr %q: want exit 2", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q: want %q", errs, w)
				}
			}
			if tc.notWant != "" && strings.Contains(errs, tc.notWant) {
				t.Errorf("stderr %q: has %q", errs, tc.notWant)
			}
		})
	}
}
