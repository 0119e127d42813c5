package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMLNInferLazy(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	out, rep := filepath.Join(dir, "out.result"), filepath.Join(dir, "r.json")
	code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--lazy", "-r", out, "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The full grounding's world (TestMLNInfer), true atoms only.
	want := "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n"
	if string(got) != want || !strings.Contains(errs, "MAP (maxwalksat, lazy): cost 0,") || !strings.Contains(errs, "no certified bound") {
		t.Errorf("result:\n%s\nwant:\n%s\nstderr: %s", got, want, errs)
	}
	var r lazyReport
	raw := readJSON(t, rep, &r)
	if !r.Lazy || r.TrueQuery != 5 || r.AllUnknowns != 5 || r.GroundClauses == 0 || r.InitialClauses == 0 || r.InitialClauses > r.GroundClauses || !strings.Contains(string(raw), `"cost_lower_bound": null`) {
		t.Errorf("report %s", raw)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lazy", "--marginal"}, "marginals (--marginal, mcsat, gibbs) need the full grounding"},
		{[]string{"--lazy", "--method", "lp-round"}, "--method lp-round needs the full grounding"},
		{[]string{"--lazy", "--noise", "0"}, "--noise 0: must be in (0,1]"},
	} {
		args := append([]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer"}, tc.args...)
		if code, _, errs := runCLI(t, args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
		}
	}
}

// TestMLNInferLazyByItself: MAP grounds lazily when the unknown atoms would
// not fit in --memory-limit, and when they fit but their full grounding
// does not.
func TestMLNInferLazyByItself(t *testing.T) {
	dir := t.TempDir()
	ev := writeFile(t, dir, "evidence.db", "R(1, 2)\nR(3, 4)\n")
	for _, tc := range []struct {
		name, prog, query, want, out string
	}{
		// 10^6 unknown atoms of T.
		{"unknown atoms", "t = {1, ..., 100}\n*R(t, t)\nT(t, t, t)\n1 !R(x, y) v T(x, y, y)\n", "T", "unknown atoms would take about", "T(1, 2, 2) 1\nT(3, 4, 4) 1\n"},
		// 200 unknown atoms, 8 million ground clauses; S(1) and S(3) each
		// gain 5 and together violate 4 ground clauses of the first.
		{"full grounding", "t = {1, ..., 200}\n*R(t, t)\nS(t)\n1 !S(x) v !S(y) v !S(z) v x = y\n5 !R(x, y) v S(x)\n", "S", "the full grounding, about 8e+06 ground clauses over 200 unknown atoms", "S(1) 1\nS(3) 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := writeFile(t, dir, "p.mln", tc.prog)
			code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", tc.query, "--memory-limit", "96MiB", "--flips", "20000", "--quiet")
			if code != 0 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "grounding lazily instead (--lazy)") || stdout != tc.out {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errs)
			}
		})
	}
}
