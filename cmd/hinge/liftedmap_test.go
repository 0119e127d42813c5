package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// communities writes k copies of one small friendship community: the
// template's friendships (both directions) and smokers, each person p of
// copy c named Pc_p. It returns the friendship and smoker lines in the
// form line(pred, args...) gives them.
func communities(k int, line func(pred string, args ...string) string) (friends, smokers string) {
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 4}, {4, 5}}
	smoke := []int{0, 5}
	var f, s strings.Builder
	for c := range k {
		name := func(p int) string { return fmt.Sprintf("P%d_%d", c, p) }
		for _, e := range edges {
			f.WriteString(line("Friends", name(e[0]), name(e[1])))
			f.WriteString(line("Friends", name(e[1]), name(e[0])))
		}
		for _, p := range smoke {
			s.WriteString(line("Smokes", name(p)))
		}
	}
	return f.String(), s.String()
}

// TestInferLiftedDiscrete: hinge infer --lifted --discrete on a PSL model
// of repeated communities gives the plain --discrete run's certified bound
// and a world as good (the rounding's guarantee), 0/1 values, and a report
// with the lifted sizes and times; without symmetry it says it found none.
func TestInferLiftedDiscrete(t *testing.T) {
	tsv := func(pred string, args ...string) string { return strings.Join(args, "\t") + "\n" }
	friends, smokers := communities(6, tsv)
	var targets strings.Builder
	for c := range 6 {
		for p := range 6 {
			fmt.Fprintf(&targets, "P%d_%d\n", c, p)
		}
	}
	smokesTargets := strings.Builder{}
	for _, l := range strings.Split(strings.TrimSpace(targets.String()), "\n") {
		if !strings.Contains(smokers, l+"\n") {
			smokesTargets.WriteString(l + "\n")
		}
	}
	dir := writeFiles(t, map[string]string{
		"m.psl": `0.5: Smokes(X) -> Cancer(X)
0.4: Friends(A1, A2) & Smokes(A1) -> Smokes(A2)
0.3: !Smokes(X)
0.2: !Cancer(X)
`,
		"d.data": `predicates:
  Friends/2: closed
  Smokes/1: open
  Cancer/1: open
observations:
  Friends: friends.txt
  Smokes: smokes_obs.txt
targets:
  Smokes: smokes_targets.txt
  Cancer: cancer_targets.txt
`,
		"friends.txt":        friends,
		"smokes_obs.txt":     smokers,
		"smokes_targets.txt": smokesTargets.String(),
		"cancer_targets.txt": targets.String(),
	})
	args := []string{"infer", "--model", filepath.Join(dir, "m.psl"), "--data", filepath.Join(dir, "d.data"), "--discrete"}
	type report struct {
		Method   string
		Lifted   *problemSizes
		Seconds  map[string]float64
		Discrete maxsat.Report
	}
	runReport := func(extra ...string) (report, map[string]float64, string) {
		t.Helper()
		var r report
		path := filepath.Join(t.TempDir(), "r.json")
		out := t.TempDir()
		code, stdout, errs := runCLI(t, slices.Concat(args, extra, []string{"--report", path, "--output", out})...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		readJSON(t, path, &r)
		vals := readOutputs(t, slices.Concat(args, extra)...)
		return r, vals, stdout
	}
	plain, _, _ := runReport()
	lifted, vals, stdout := runReport("--lifted")
	if lifted.Method != "discrete-lifted" || lifted.Lifted == nil || lifted.Discrete.Lifted == nil {
		t.Fatalf("lifted report: method %q, lifted %v", lifted.Method, lifted.Lifted)
	}
	lr := lifted.Discrete.Lifted
	if !lr.Symmetry || lr.Lifted.Variables*6 > lr.Ground.Variables || lifted.Lifted.Variables != lr.Lifted.Variables {
		t.Errorf("six copies lift to %+v (report %+v)", lr, lifted.Lifted)
	}
	if _, ok := lifted.Seconds["lift"]; !ok {
		t.Error("report lacks seconds.lift")
	}
	if !strings.Contains(stdout, "lifted relaxation: ") || !strings.Contains(stdout, "discrete MAP: ") {
		t.Errorf("stdout lacks the lifted and discrete summaries:\n%s", stdout)
	}
	p, l := plain.Discrete, lifted.Discrete
	if p.LPUpperBound != l.LPUpperBound && math.Abs(p.LPUpperBound-l.LPUpperBound) > 1e-3*(1+p.WeightTotal) {
		t.Errorf("certified bound: plain %v, lifted %v", p.LPUpperBound, l.LPUpperBound)
	}
	if l.HardViolated != 0 || l.WeightSatisfied < 0.75*l.LPUpperBound {
		t.Errorf("lifted world: weight %v, bound %v, %d hard violated", l.WeightSatisfied, l.LPUpperBound, l.HardViolated)
	}
	for k, v := range vals {
		if v != 0 && v != 1 {
			t.Errorf("%s = %v, want 0 or 1", k, v)
		}
	}

	// One community: the people of it are told apart (no symmetry).
	friends1, smokers1 := communities(1, tsv)
	dir1 := writeFiles(t, map[string]string{
		"friends.txt": friends1, "smokes_obs.txt": smokers1,
		"smokes_targets.txt": "P0_1\nP0_2\nP0_3\nP0_4\n", "cancer_targets.txt": "P0_1\nP0_2\nP0_3\nP0_4\nP0_5\n",
	})
	for _, name := range []string{"m.psl", "d.data"} {
		writeFile(t, dir1, name, readFileText(t, filepath.Join(dir, name)))
	}
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, errs := runCLI(t, "infer", "--model", filepath.Join(dir1, "m.psl"), "--data", filepath.Join(dir1, "d.data"), "--discrete", "--lifted", "--report", path)
	if code != 0 {
		t.Fatalf("no symmetry: exit %d: %s", code, errs)
	}
	var r report
	readJSON(t, path, &r)
	if r.Discrete.Lifted == nil || r.Discrete.Lifted.Symmetry || !strings.Contains(stdout, "was solved without lifting: ") {
		t.Errorf("no symmetry: lift report %+v, stdout:\n%s", r.Discrete.Lifted, stdout)
	}
}

func readFileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMLNInferLifted: hinge mln infer --lifted on a network of repeated
// communities gives the plain run's cost and certified bound with a
// smaller relaxation, for lp-round and lp-walksat; --lifted is refused
// with --marginal and --as-rrf.
func TestMLNInferLifted(t *testing.T) {
	atom := func(pred string, args ...string) string { return pred + "(" + strings.Join(args, ", ") + ")\n" }
	friends, smokers := communities(8, atom)
	dir := writeFiles(t, map[string]string{
		"p.mln": `*Friends(person, person)
Smokes(person)
Cancer(person)
1.5  Smokes(x) => Cancer(x)
1.1  Friends(x, y) => (Smokes(x) <=> Smokes(y))
0.5  !Cancer(x)
0.4  !Smokes(x)
`,
		"e.db": friends + smokers,
	})
	base := []string{"mln", "infer", "-i", filepath.Join(dir, "p.mln"), "-e", filepath.Join(dir, "e.db"), "-q", "Smokes,Cancer"}
	type report struct {
		Cost       float64 `json:"cost"`
		LowerBound float64 `json:"cost_lower_bound"`
		MaxSAT     maxsat.Report
	}
	run := func(extra ...string) (report, string, string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "r.json")
		res := filepath.Join(t.TempDir(), "r.txt")
		code, _, errs := runCLI(t, slices.Concat(base, extra, []string{"--report", path, "-r", res})...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		var r report
		readJSON(t, path, &r)
		return r, readFileText(t, res), errs
	}
	for _, method := range []string{"lp-round", "lp-walksat"} {
		extra := []string{"--method", method, "--flips", "2000"}
		plain, _, _ := run(extra...)
		lifted, result, errs := run(append(extra, "--lifted")...)
		lr := lifted.MaxSAT.Lifted
		if lr == nil || !lr.Symmetry || lr.Lifted.Variables*8 > lr.Ground.Variables {
			t.Fatalf("%s: lift report %+v", method, lr)
		}
		if !strings.Contains(errs, "lifted relaxation: ") {
			t.Errorf("%s: stderr lacks the lifted summary:\n%s", method, errs)
		}
		if math.Abs(plain.LowerBound-lifted.LowerBound) > 1e-3*(1+plain.LowerBound) {
			t.Errorf("%s: certified lower bound plain %v, lifted %v", method, plain.LowerBound, lifted.LowerBound)
		}
		if lifted.Cost < lifted.LowerBound-1e-9 || (method == "lp-walksat" && math.Abs(lifted.Cost-plain.Cost) > 1e-9*(1+plain.Cost)) {
			t.Errorf("%s: cost plain %v, lifted %v, lifted bound %v", method, plain.Cost, lifted.Cost, lifted.LowerBound)
		}
		if got := strings.Count(result, "\n"); got != 2*6*8-2*8 {
			t.Errorf("%s: %d result lines, want %d", method, got, 2*6*8-2*8)
		}
	}
	for _, extra := range [][]string{{"--marginal"}, {"--as-rrf"}} {
		code, _, errs := runCLI(t, slices.Concat(base, extra, []string{"--lifted"})...)
		if code != 2 || !strings.Contains(errs, "--lifted") {
			t.Errorf("--lifted %v: exit %d: %s", extra, code, errs)
		}
	}
}
