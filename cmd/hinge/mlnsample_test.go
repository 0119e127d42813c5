package main

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The marginals of a network with a hard equivalence: 0.5 P(x), -1 Q(x),
// P(x) <=> Q(x). over three constants gives P(P(A)) = e^-0.5/(1+e^-0.5)
// = 0.3775 for every atom, by either sampler (MC-SAT used to answer 0); the
// report says how many chains ran and that they agree; Gibbs refuses hard
// clauses that tie more atoms than it samples jointly, naming MC-SAT.
func TestMLNMarginalsHardClauses(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "pq.mln", "c = {A, B, C}\nP(c)\nQ(c)\n0.5 P(x)\n-1 Q(x)\nP(x) <=> Q(x).\n")
	ev := writeFile(t, dir, "pq.db", "")
	want := math.Exp(-0.5) / (1 + math.Exp(-0.5))
	for _, m := range []string{"mcsat", "gibbs"} {
		rep := dir + "/" + m + ".json"
		code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P,Q", "--method", m, "--samples", "4000", "--report", rep)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 6 {
			t.Fatalf("%s: %d lines:\n%s", m, len(lines), stdout)
		}
		for _, l := range lines {
			var atom string
			var p float64
			if _, err := fmt.Sscan(l, &atom, &p); err != nil || math.Abs(p-want) > 0.02 {
				t.Errorf("%s: %q, want %.4f", m, l, want)
			}
		}
		if !strings.Contains(errs, "convergence: largest R-hat") || strings.Contains(errs, "warning") {
			t.Errorf("%s: stderr %s", m, errs)
		}
		var r struct {
			Convergence struct {
				Chains int  `json:"chains"`
				Mixed  bool `json:"mixed"`
			} `json:"convergence"`
		}
		readJSON(t, rep, &r)
		if r.Convergence.Chains != 4 || !r.Convergence.Mixed {
			t.Errorf("%s: report %+v", m, r)
		}
	}
	// A chain of 20 atoms tied by hard implications: too many for one block.
	var b strings.Builder
	b.WriteString("c = {A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T}\nNext(c, c)\nR(c)\n1 R(x)\nR(x) ^ Next(x, y) => R(y).\n")
	var evb strings.Builder
	for i := 'A'; i < 'T'; i++ {
		fmt.Fprintf(&evb, "Next(%c, %c)\n", i, i+1)
	}
	prog2 := writeFile(t, dir, "chain.mln", b.String())
	ev2 := writeFile(t, dir, "chain.db", evb.String())
	code, _, errs := runCLI(t, "mln", "infer", "-i", prog2, "-e", ev2, "-q", "R", "--method", "gibbs")
	if code != 2 || !strings.Contains(errs, "--method mcsat") {
		t.Errorf("gibbs over 20 atoms tied by hard clauses: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog2, "-e", ev2, "-q", "R", "--method", "mcsat", "--samples", "400"); code != 0 {
		t.Errorf("mcsat on the same: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P", "--marginal", "--chains", "0"); code != 2 || !strings.Contains(errs, "--chains 0") {
		t.Errorf("--chains 0: exit %d, %s", code, errs)
	}
}

// TestMLNMarginalsExact: --marginal is exact where affordable (the issue 41
// network of 13 atoms tied by hard clauses: R(A2, B1) = 0.2732, P(B2) =
// 0.2568 exactly) and says so on stderr and in the report; --method exact
// refuses a component too large (exit 1, nothing written) with its cost;
// --strict makes chains that disagree an error (exit 1, nothing written),
// where without it the run warns and reports mixed false.
func TestMLNMarginalsExact(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "hard.mln", "t0 = {A1, A2, A3}\nt1 = {B1, B2, B3}\nP(t1)\nQ(t0)\nR(t0, t1)\n(Q(x1) ^ R(x1, y1)) => R(x1, y2).\nR(x2, y2) => !P(y2).\n")
	ev := writeFile(t, dir, "hard.db", "Q(A2)\n!R(A3,B2)\n")
	rep := dir + "/r.json"
	code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P,Q,R", "--marginal", "--report", rep)
	if code != 0 || !strings.Contains(stdout, "R(A2, B1) 0.2732") || !strings.Contains(stdout, "P(B2) 0.2568") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errs)
	}
	if !strings.Contains(errs, "exact marginals: 13 of 13 atoms") || strings.Contains(errs, "convergence") {
		t.Errorf("stderr:\n%s", errs)
	}
	var r struct {
		Method string `json:"method"`
		Mixed  bool   `json:"mixed"`
		Exact  struct {
			Atoms   int `json:"atoms"`
			Sampled int `json:"sampled_atoms"`
		} `json:"exact"`
	}
	readJSON(t, rep, &r)
	if r.Method != "auto" || !r.Mixed || r.Exact.Atoms != 13 || r.Exact.Sampled != 0 {
		t.Errorf("report %+v", r)
	}

	// 40 smokers with random friends (a fixed pseudo-random graph):
	// cliques of 24 atoms or more, and no two smokers exchangeable.
	var fp, fe strings.Builder
	fp.WriteString("person = {")
	for i := 1; i <= 40; i++ {
		if i > 1 {
			fp.WriteString(", ")
		}
		fmt.Fprintf(&fp, "P%d", i)
	}
	fp.WriteString("}\n*Friends(person, person)\nSmokes(person)\n1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n0.3 Smokes(x)\n")
	x := uint32(7)
	for i := 1; i <= 40; i++ {
		for j := 1; j <= 40; j++ {
			x = x*1664525 + 1013904223
			if i != j && x>>24 < 77 {
				fmt.Fprintf(&fe, "Friends(P%d, P%d)\n", i, j)
			}
		}
	}
	fprog, fev := writeFile(t, dir, "friends.mln", fp.String()), writeFile(t, dir, "friends.db", fe.String())
	res := dir + "/friends.result"
	code, _, errs = runCLI(t, "mln", "infer", "-i", fprog, "-e", fev, "-q", "Smokes", "--marginal", "--method", "exact", "-r", res)
	if _, err := os.Stat(res); code != 1 || !strings.Contains(errs, "too large") || !strings.Contains(errs, "table entries") || err == nil {
		t.Errorf("--method exact on 40 friends: exit %d (want 1), result written %v\n%s", code, err == nil, errs)
	}
	// The default samples it, and says why.
	code, _, errs = runCLI(t, "mln", "infer", "-i", fprog, "-e", fev, "-q", "Smokes", "--marginal", "--samples", "400", "-r", res)
	if code != 0 || !strings.Contains(errs, "sampled by MC-SAT: 40 atoms in 1 component") {
		t.Errorf("default on 40 friends: exit %d\n%s", code, errs)
	}

	// Gibbs on a strong complete graph of equivalences, of more atoms than
	// its flip moves flip at once: chains stuck in the all-true and the
	// all-false worlds.
	var cg strings.Builder
	cg.WriteString("person = {P1")
	for i := 2; i <= 70; i++ {
		fmt.Fprintf(&cg, ", P%d", i)
	}
	cg.WriteString("}\nS(person)\n3 S(x) <=> S(y)\n")
	cprog := writeFile(t, dir, "cg.mln", cg.String())
	res = dir + "/cg.result"
	code, _, errs = runCLI(t, "mln", "infer", "-i", cprog, "-q", "S", "--method", "gibbs", "--report", rep, "-r", res)
	var rg struct {
		Mixed bool `json:"mixed"`
	}
	readJSON(t, rep, &rg)
	if code != 0 || !strings.Contains(errs, "warning: the chains have not mixed") || rg.Mixed {
		t.Errorf("gibbs on the complete graph: exit %d, mixed %v\n%s", code, rg.Mixed, errs)
	}
	os.Remove(res)
	code, _, errs = runCLI(t, "mln", "infer", "-i", cprog, "-q", "S", "--method", "gibbs", "--strict", "-r", res)
	if _, err := os.Stat(res); code != 1 || !strings.Contains(errs, "--strict") || err == nil {
		t.Errorf("--strict: exit %d (want 1), result written %v\n%s", code, err == nil, errs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", cprog, "-q", "S", "--marginal", "--method", "exact", "--lazy"); code != 2 || !strings.Contains(errs, "--lazy") {
		t.Errorf("--method exact --lazy: exit %d\n%s", code, errs)
	}
}

// TestMarginalDigits: --digits writes the marginals with that many
// decimals (exact ones to 12 here, 1/(1+e^0.5) for a person who does not
// smoke), in mln infer and in rrf infer; outside 1..17 it is refused.
func TestMarginalDigits(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	code, stdout, stderr := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer(Gary)", "--marginal", "--method", "exact", "--digits", "12")
	if want := fmt.Sprintf("Cancer(Gary) %.12f\n", 1/(1+math.Exp(0.5))); code != 0 || stdout != want {
		t.Errorf("exit %d: %q, want %q\n%s", code, stdout, want, stderr)
	}
	code, stdout, stderr = runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer(Gary)", "--digits", "6")
	if fields := strings.Fields(stdout); code != 0 || len(fields) != 2 || len(fields[1]) != len("0.123456") {
		t.Errorf("rrf infer --digits 6: exit %d: %q\n%s", code, stdout, stderr)
	}
	for _, cmd := range [][]string{{"mln", "infer"}, {"rrf", "infer"}} {
		code, _, stderr = runCLI(t, append(cmd, "-i", prog, "-e", ev, "-q", "Cancer", "--digits", "0")...)
		if code != 2 || !strings.Contains(stderr, "--digits 0: want 1 to 17") {
			t.Errorf("%v --digits 0: exit %d, %s", cmd, code, stderr)
		}
	}
}

// TestQueryAtomNotes: a query atom that names a constant nothing else
// names (a misspelling), or that the evidence gives, is warned of; it was
// answered for a new constant, or left out of an empty result, in silence.
func TestQueryAtomNotes(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	code, stdout, stderr := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer(Anan),Cancer(Edward),Cancer(Gary)", "--marginal")
	if code != 0 || !strings.Contains(stderr, "warning: query atom Cancer(Anan) names Anan, which neither the program nor the evidence names") ||
		!strings.Contains(stderr, "warning: query atom Cancer(Edward) is given by the evidence (1)") || strings.Contains(stderr, "Cancer(Gary)") ||
		!strings.Contains(stdout, "Cancer(Gary) ") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("a predicate query: exit %d, %s", code, stderr)
	}
}
