package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMLNInferLazy(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	// The full grounding's world (TestMLNInfer), true atoms only: by the
	// cutting planes over the relaxation (the default), which prove it
	// optimal, and by lazy MaxWalkSAT, which has no bound.
	want := "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n"
	for _, method := range []string{"", "lp-round", "maxwalksat", "lp-round --time-limit 1m"} {
		out, rep := filepath.Join(dir, "out.result"), filepath.Join(dir, "r.json")
		args := []string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--lazy", "-r", out, "--report", rep}
		if method != "" {
			args = append(args, append([]string{"--method"}, strings.Fields(method)...)...)
		}
		code, _, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", method, code, errs)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if method == "maxwalksat" {
			if string(got) != want || !strings.Contains(errs, "MAP (maxwalksat, lazy): cost 0,") || !strings.Contains(errs, "no certified bound") {
				t.Errorf("result:\n%s\nwant:\n%s\nstderr: %s", got, want, errs)
			}
			var r lazyReport
			raw := readJSON(t, rep, &r)
			if !r.Lazy || r.TrueQuery != 5 || r.AllUnknowns != 5 || r.GroundClauses == 0 || r.InitialClauses == 0 || r.InitialClauses > r.GroundClauses || !strings.Contains(string(raw), `"cost_lower_bound": null`) {
				t.Errorf("report %s", raw)
			}
			continue
		}
		if string(got) != want || !strings.Contains(errs, "MAP (lp-round, lazy: cutting planes from lazy MaxWalkSAT's world of cost ") || !strings.Contains(errs, "cost 0, certified lower bound 0, proven optimal for the whole network") {
			t.Errorf("%q: result:\n%s\nwant:\n%s\nstderr: %s", method, got, want, errs)
		}
		var r lazyExactReport
		raw := readJSON(t, rep, &r)
		if !r.Lazy || r.Method != "lp-round" || !r.Optimal || r.Status != "optimal" || r.TrueQuery != 5 || r.RelaxedRounds == 0 || r.Rounds != r.RelaxedRounds || r.Cores != 0 || r.InitialClauses > r.GroundClauses || r.HardViolated != 0 || !strings.Contains(string(raw), `"hard_violated": 0`) {
			t.Errorf("%q: report %s", method, raw)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lazy", "--method", "gibbs"}, "--method gibbs needs the full grounding"},
		{[]string{"--lazy", "--marginal", "--method", "gibbs"}, "--method gibbs needs the full grounding"},
		{[]string{"--lazy", "--method", "lp-walksat"}, "--method lp-walksat needs the full grounding"},
		{[]string{"--lazy", "--method", "maxwalksat", "--time-limit", "1s"}, "--time-limit 1s applies to MAP by --method exact"},
		{[]string{"--lazy", "--noise", "0"}, "--noise 0: must be in (0,1]"},
		// 0 ran the default million flips without a word.
		{[]string{"--lazy", "--flips", "0"}, "--flips 0: must be > 0"},
		{[]string{"--flips", "0"}, "--flips 0: must be > 0"},
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
			// lp-walksat, refused with --lazy, runs as lp-round when the run
			// grounds lazily by itself, and says so (it ran lp-round without
			// a word, --flips unused).
			code, stdout, errs = runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", tc.query, "--memory-limit", "96MiB", "--method", "lp-walksat", "--flips", "20000", "--quiet")
			if code != 0 || !strings.Contains(errs, "--method lp-walksat needs the full grounding; lazily, MAP is by cutting planes") || stdout != tc.out {
				t.Errorf("lp-walksat: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errs)
			}
		})
	}
}

// marginalLines reads 'Pred(A, B) p' lines.
func marginalLines(t *testing.T, out string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.LastIndexByte(l, ' ')
		var p float64
		if _, err := fmt.Sscan(l[i+1:], &p); i < 0 || err != nil {
			t.Fatalf("line %q", l)
		}
		m[l[:i]] = p
	}
	return m
}

// TestMLNInferLazyMarginals: --lazy --marginal gives the full grounding's
// MC-SAT marginals on the smokers network (every atom is activated there),
// and its report says what was built.
func TestMLNInferLazyMarginals(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	rep := filepath.Join(dir, "r.json")
	base := []string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--marginal", "--samples", "20000", "--quiet"}
	code, full, errs := runCLI(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, lazy, errs := runCLI(t, append(base, "--lazy", "--report", rep)...)
	if code != 0 || !strings.Contains(errs, "mcsat (lazy)") || !strings.Contains(errs, "every query atom listed") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, l := marginalLines(t, full), marginalLines(t, lazy)
	if len(f) != 5 || len(l) != 5 {
		t.Fatalf("full:\n%s\nlazy:\n%s", full, lazy)
	}
	for a, p := range f {
		if math.Abs(l[a]-p) > 0.02 {
			t.Errorf("%s: lazy %.4f, full %.4f", a, l[a], p)
		}
	}
	// Cancer(Anna) is in one ground clause, 0.5 Smokes(Anna) => Cancer(Anna)
	// with Smokes(Anna) true: e^0.5 / (1 + e^0.5).
	if want := 1 / (1 + math.Exp(-0.5)); math.Abs(l["Cancer(Anna)"]-want) > 0.02 {
		t.Errorf("Cancer(Anna) %.4f, exact %.4f", l["Cancer(Anna)"], want)
	}
	var r map[string]any
	raw := readJSON(t, rep, &r)
	if r["lazy"] != true || r["ground_clauses"].(float64) != 5 || r["initial_ground_clauses"].(float64) != 2 || r["convergence"].(map[string]any)["mixed"] != true ||
		r["complete"] != true || r["never_activated"].(float64) != 0 || r["mixed"] != true {
		t.Errorf("report %s", raw)
	}
}

// TestMLNInferLazyMarginalsByItself: marginals by MC-SAT ground lazily
// when the unknown atoms would not fit in --memory-limit.
func TestMLNInferLazyMarginalsByItself(t *testing.T) {
	dir := t.TempDir()
	ev := writeFile(t, dir, "evidence.db", "R(1, 2)\nR(3, 4)\n")
	// 10^6 unknown atoms of T; T(1, 2, 2) and T(3, 4, 4) are in one ground
	// clause each, of weight 1 with its other literal false.
	prog := writeFile(t, dir, "p.mln", "t = {1, ..., 100}\n*R(t, t)\nT(t, t, t)\n1 !R(x, y) v T(x, y, y)\n")
	code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "T", "--marginal", "--samples", "8000", "--memory-limit", "96MiB", "--quiet")
	if code != 0 || !strings.Contains(errs, "grounding lazily instead (--lazy)") || !strings.Contains(errs, "mcsat (lazy)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errs)
	}
	m := marginalLines(t, stdout)
	want := 1 / (1 + math.Exp(-1))
	if len(m) != 2 || math.Abs(m["T(1, 2, 2)"]-want) > 0.02 || math.Abs(m["T(3, 4, 4)"]-want) > 0.02 {
		t.Errorf("got %v, want T(1, 2, 2) and T(3, 4, 4) at %.4f", m, want)
	}
	// The other 999,998 atoms of T, in no clause, have probability 1/2,
	// and were held false: the run says so, and --strict refuses it.
	if !strings.Contains(errs, "999998 unknown atoms were never activated") {
		t.Errorf("stderr does not say which atoms were held false:\n%s", errs)
	}
	res := filepath.Join(dir, "r.txt")
	code, _, errs = runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "T", "--marginal", "--samples", "800", "--memory-limit", "96MiB", "--quiet", "--strict", "-r", res)
	if _, err := os.Stat(res); code != 1 || !strings.Contains(errs, "--strict") || err == nil {
		t.Errorf("--strict: exit %d (want 1), result file written: %v\n%s", code, err == nil, errs)
	}
}

// TestMLNInferLazyStartCost: the cutting planes' start world is reported
// at its cost when lazy MaxWalkSAT's best world is the all-false one (it
// was reported at 0, the cost of no start, for a world of cost 1).
func TestMLNInferLazyStartCost(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.mln", "t = {A}\nQ(t)\n1 Q(x)\n2 !Q(x)\n")
	ev := writeFile(t, dir, "e.db", "")
	rep := filepath.Join(dir, "r.json")
	code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Q", "--lazy", "-r", filepath.Join(dir, "out"), "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r lazyExactReport
	raw := readJSON(t, rep, &r)
	if r.StartCost != 1 || r.Cost != 1 || !r.Optimal || !strings.Contains(errs, "lazy MaxWalkSAT's world of cost 1 (") {
		t.Errorf("report %s\nstderr %s", raw, errs)
	}
}

// TestMLNInferLazyFailureKeepsFiles: a lazy MAP run that fails (hard
// clauses the evidence breaks) leaves the user's existing result and
// report files as they were, by every lazy MAP method.
func TestMLNInferLazyFailureKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.mln", "t = {A}\n*E(t)\nP(t)\nE(x) => P(x).\n")
	ev := writeFile(t, dir, "e.db", "E(A)\n!P(A)\n")
	out := writeFile(t, dir, "out.result", "keep me\n")
	rep := writeFile(t, dir, "r.json", "{\"keep\": true}\n")
	for _, method := range []string{"lp-round", "exact", "maxwalksat"} {
		code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P", "--lazy", "--method", method, "-r", out, "--report", rep)
		if code == 0 {
			t.Errorf("%s: exit 0 for evidence that breaks a hard clause\n%s", method, errs)
		}
		for path, want := range map[string]string{out: "keep me\n", rep: "{\"keep\": true}\n"} {
			if got, err := os.ReadFile(path); err != nil || string(got) != want {
				t.Errorf("%s: %s now holds %q (%v)", method, path, got, err)
			}
		}
	}
}
