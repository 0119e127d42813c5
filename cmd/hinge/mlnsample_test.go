package main

import (
	"fmt"
	"math"
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
