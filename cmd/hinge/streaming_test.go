package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/atomicfile"
)

// writeTransitivity writes a transitivity model over n people who each
// know degree others (links observed with probability 0.3, at most 3 per
// person, else targets) with a hard rule that nobody knows more than 4
// people, and returns the model and data paths.
func writeTransitivity(t *testing.T, n, degree int) (string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(degree)))
	var obs, tgt strings.Builder
	for i := range n {
		seen := map[int]bool{i: true}
		observed := 0
		for len(seen) <= degree {
			j := rng.IntN(n)
			if seen[j] {
				continue
			}
			seen[j] = true
			if rng.Float64() < 0.3 && observed < 3 {
				observed++
				fmt.Fprintf(&obs, "p%d\tp%d\t1\n", i, j)
			} else {
				fmt.Fprintf(&tgt, "p%d\tp%d\n", i, j)
			}
		}
	}
	dir := writeFiles(t, map[string]string{
		"t.psl": "1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2\n" +
			"0.5: !Knows(A, B) ^2\n" +
			"Knows(A, +B) <= 4 .\n",
		"t.data":  "predicates:\n  Knows/2: open\nobservations:\n  Knows: obs.txt\ntargets:\n  Knows: tgt.txt\n",
		"obs.txt": obs.String(),
		"tgt.txt": tgt.String(),
	})
	return filepath.Join(dir, "t.psl"), filepath.Join(dir, "t.data")
}

// TestInferStreaming: --streaming gives ADMM's objective within 1e-3 and
// the same values within the tolerance's reach, keeps the cache in --cache,
// and reports its trajectory.
func TestInferStreaming(t *testing.T) {
	psl, data := writeTransitivity(t, 120, 8)
	dir := t.TempDir()
	var objs [2]float64
	var vals [2]map[string]float64
	for i, extra := range [][]string{nil, {"--streaming", "--cache", filepath.Join(dir, "c"), "--shuffle"}} {
		report := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		args := append([]string{"infer", "--model", psl, "--data", data, "--report", report, "--gap-tol", "1e-4"}, extra...)
		vals[i] = readOutputs(t, args...)
		var rep struct {
			Method      string
			Objective   float64
			Potentials  int
			Constraints int
			Status      string
			Streaming   *struct {
				CacheBytes int64 `json:"cache_bytes"`
				Trajectory []struct{ Epoch int }
			}
		}
		readJSON(t, report, &rep)
		objs[i] = rep.Objective
		if rep.Potentials < 5000 || rep.Constraints < 100 {
			t.Errorf("%v: %d potentials, %d constraints: too small a test", extra, rep.Potentials, rep.Constraints)
		}
		if rep.Status != "converged" {
			t.Errorf("%v: status %s", extra, rep.Status)
		}
		if extra != nil {
			if rep.Method != "dcd-streaming" || rep.Streaming == nil || rep.Streaming.CacheBytes == 0 || len(rep.Streaming.Trajectory) == 0 {
				t.Errorf("streaming report: %+v", rep)
			}
			var raw map[string]any
			readJSON(t, report, &raw)
			for _, k := range []string{"primal_residual", "dual_residual", "rho"} {
				if _, ok := raw[k]; ok {
					t.Errorf("the streaming report has ADMM's %q", k)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "c", "ground.cache")); err != nil {
				t.Errorf("--cache: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "c", ".duals*")); len(left) > 0 {
				t.Errorf("the duals file is left behind: %v", left)
			}
		}
	}
	if d := math.Abs(objs[1]-objs[0]) / math.Max(1, objs[0]); d > 1e-3 {
		t.Errorf("streaming objective %.8g, ADMM %.8g", objs[1], objs[0])
	}
	worst := 0.0
	for k, v := range vals[0] {
		worst = math.Max(worst, math.Abs(vals[1][k]-v))
	}
	if len(vals[0]) != len(vals[1]) || worst > 0.05 {
		t.Errorf("%d vs %d values, largest difference %.3g", len(vals[0]), len(vals[1]), worst)
	}
}

// TestInferStreamingChosen: when the ground problem does not fit
// --memory-limit, hinge infer says so and streams instead of failing.
func TestInferStreamingChosen(t *testing.T) {
	psl, data := writeTransitivity(t, 1500, 24)
	code, stdout, stderr := runCLI(t, "infer", "--model", psl, "--data", data, "--memory-limit", "96MiB", "--epochs", "10", "--quiet")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "solving by streaming instead") || !strings.Contains(stdout, "streaming DCD: 10 epochs") {
		t.Fatalf("did not switch to streaming:\n%s\n%s", stdout, stderr)
	}
}

func TestInferStreamingFlags(t *testing.T) {
	psl, data := writeTransitivity(t, 20, 3)
	dir := t.TempDir()
	file := writeFile(t, dir, "afile", "x")
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(dir, "c", "ground.cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--streaming", "--cache", file}, "is a file; give a directory"},
		{[]string{"--streaming", "--cache", filepath.Join(dir, "c")}, "ground.cache is a directory"},
		{[]string{"--streaming", "--cache", out, "--output", out}, "is inside --output"},
		{[]string{"--streaming", "--cache", filepath.Join(out, "c"), "--output", out}, "is inside --output"},
		{[]string{"--streaming", "--lifted"}, "--streaming cannot be combined"},
		{[]string{"--streaming", "--discrete"}, "--streaming cannot be combined"},
		{[]string{"--streaming", "--epochs", "0"}, "--epochs 0"},
		{[]string{"--streaming", "--tau", "-1"}, "--tau -1"},
	} {
		code, _, stderr := runCLI(t, append([]string{"infer", "--model", psl, "--data", data}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// TestCacheDirKeepsOthersFiles: --cache DIR replaces DIR/ground.cache on
// each run, so a file there that is not a cache hinge wrote (an input of
// the run, or the user's) is refused before any work, exit 2, as is
// another output naming the kept cache; and the clean-up of killed runs'
// leftovers removes only the names hinge gives them. Each of these was
// overwritten or deleted under exit 0.
func TestCacheDirKeepsOthersFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.psl":             "1: Friends(A, B) & Smokes(A) -> Smokes(B) ^2\n",
		"d/m.data":          "predicates:\n  Friends/2: closed\n  Smokes/1: open\nobservations:\n  Friends: ground.cache\n  Smokes: smokes.txt\ntargets:\n  Smokes: targets.txt\n",
		"d/ground.cache":    "Anna\tBob\n",
		"d/smokes.txt":      "Anna\t1\n",
		"d/targets.txt":     "Bob\n",
		"mine/ground.cache": "my notes\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name, cache, file string
		extra             []string
	}{
		{"an input named ground.cache", "d", "d/ground.cache", nil},
		{"the user's ground.cache", "mine", "mine/ground.cache", nil},
	} {
		args := append([]string{"infer", "-m", in("m.psl"), "-d", in("d/m.data"), "--streaming", "--cache", in(tc.cache), "--quiet"}, tc.extra...)
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, "is not a cache hinge wrote") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and 'is not a cache hinge wrote'", tc.name, code, errs)
		}
		if b, _ := os.ReadFile(in(tc.file)); !strings.HasSuffix(string(b), "\n") || strings.HasPrefix(string(b), "HINGE") {
			t.Errorf("%s: the file now holds %q", tc.name, b)
		}
	}

	// A run keeps its cache in c; a second run whose --report names it is
	// refused, and the cache stays a cache.
	model, data := writeTransitivity(t, 12, 3)
	c := filepath.Join(t.TempDir(), "c")
	if code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--streaming", "--cache", c, "--quiet"); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, errs)
	}
	code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--streaming", "--cache", c, "--report", filepath.Join(c, "ground.cache"), "--quiet")
	if code != 2 || !strings.Contains(errs, "name the same file") {
		t.Errorf("--report naming the kept cache: exit %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(c, "ground.cache")); err != nil || !strings.HasPrefix(string(b), "HINGEPC") {
		t.Errorf("the kept cache was replaced: %.20q, %v", b, err)
	}

	// Old leftovers of killed runs go; the user's files that merely begin
	// like them stay.
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{".duals123", ".ground.cache.tmp456", ".duals-notes", ".dualsx1", ".ground.cache.tmp-mine"} {
		p := filepath.Join(c, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--streaming", "--cache", c, "--quiet"); code != 0 {
		t.Fatalf("third run: exit %d, %s", code, errs)
	}
	for name, kept := range map[string]bool{".duals123": false, ".ground.cache.tmp456": false, ".duals-notes": true, ".dualsx1": true, ".ground.cache.tmp-mine": true} {
		if _, err := os.Stat(filepath.Join(c, name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}

// TestCacheDirLocked: a --cache directory another run is using is refused
// (exit 2, naming the flag): the cache is written and then read back by
// name, and a second run on the directory in between made the first solve
// the second's problem under exit 0.
func TestCacheDirLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The other run's file in the cache stays as it is; the refused run
	// writes no output.
	other := writeFile(t, dir, "other-run.tsv", "the other run's data\n")
	unlock, err := atomicfile.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--streaming", "--cache", dir, "--output", out, "--quiet"})...)
	if code != 2 || !strings.Contains(stderr, "--cache") {
		t.Errorf("a locked cache directory: exit %d, %s", code, stderr)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "the other run's data\n" {
		t.Errorf("the other run's file: %q, %v", b, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s (%v)", out, err)
	}
	unlock()
	if code, _, stderr := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--streaming", "--cache", dir, "--output", out, "--quiet"})...); code != 0 {
		t.Errorf("once free: exit %d, %s", code, stderr)
	}
}

// TestCacheWithoutStreaming: --cache applies when streaming is given or
// chosen; on a problem that fits in memory nothing was written and nothing
// said (an outside tester's report), so a user looking for ground.cache
// found none. The run now says so.
func TestCacheWithoutStreaming(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--cache", dir, "--quiet"})...)
	if code != 0 || !strings.Contains(stderr, "no cache file is written") {
		t.Errorf("exit %d, stderr %q; want 0 and a note that no cache file is written", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ground.cache")); !os.IsNotExist(err) {
		t.Errorf("ground.cache: %v, want none", err)
	}
}
