package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodData = `predicates:
  Friends/2: closed
  Smokes/1: open
observations:
  Friends: friends.txt
  Smokes: smokes_obs.txt
targets:
  Smokes: smokes_targets.txt
truth:
  Smokes: smokes_truth.txt
`

const goodModel = `0.4: Friends(A, B) & Smokes(A) -> Smokes(B) ^2
0.01: !Smokes(X)
`

func goodFiles() map[string]string {
	return map[string]string{
		"m.psl":              goodModel,
		"d.data":             goodData,
		"friends.txt":        "a\tb\nb\tc\n",
		"smokes_obs.txt":     "a\t1\n",
		"smokes_targets.txt": "b\nc\n",
		"smokes_truth.txt":   "b\t1\nc\t0\n",
	}
}

func TestGroundReport(t *testing.T) {
	dir := writeFiles(t, goodFiles())
	report := filepath.Join(dir, "r.json")
	export := filepath.Join(dir, "g.hlmrf")
	code, out, errs := runCLI(t, "ground", "--model", filepath.Join(dir, "m.psl"), "--data", filepath.Join(dir, "d.data"),
		"--report", report, "--export", export)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "total: 2 variables") {
		t.Fatalf("summary missing totals:\n%s", out)
	}
	var rep struct {
		Variables, Potentials, Constraints int
		Rules                              []struct {
			Rule   string
			Ground int
		}
		Seconds map[string]float64
	}
	readJSON(t, report, &rep)
	// Friends(a,b)&Smokes(a)->Smokes(b) and Friends(b,c)&Smokes(b)->Smokes(c): 2; priors on b, c: 2.
	if rep.Variables != 2 || rep.Potentials != 4 || rep.Constraints != 0 || len(rep.Rules) != 2 ||
		rep.Rules[0].Ground != 2 || rep.Rules[1].Ground != 2 || rep.Rules[0].Rule != "0.4: Friends(A, B) & Smokes(A) -> Smokes(B) ^2" {
		t.Fatalf("report %+v", rep)
	}
	for _, k := range []string{"load", "ground", "total"} {
		if _, ok := rep.Seconds[k]; !ok {
			t.Fatalf("seconds.%s missing: %v", k, rep.Seconds)
		}
	}
	atoms, err := os.ReadFile(export + ".atoms")
	if err != nil {
		t.Fatal(err)
	}
	if string(atoms) != "Smokes\tb\nSmokes\tc\n" {
		t.Fatalf("atoms file %q", atoms)
	}
}

// TestBadInput: every kind of bad input gives one clear error naming the
// file and line (or the rule and atom), and exit status 2.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		patch map[string]string // files replaced in the good set ("" deletes)
		want  string            // substring of stderr; DIR is the temp directory
	}{
		{"unknown predicate", map[string]string{"m.psl": "1: Friends(A, B) & Smoke(A) -> Smokes(B)\n"}, "m.psl:1:20: unknown predicate Smoke"},
		{"wrong arity", map[string]string{"m.psl": "1: Friends(A) -> Smokes(A)\n"}, "m.psl:1:4: predicate Friends takes 2 arguments, found 1"},
		{"unbound head variable", map[string]string{"m.psl": "1: Smokes(A) -> Friends(A, B)\n"}, "m.psl:1:28: variable B is not bound"},
		{"unquoted constant", map[string]string{"m.psl": "1: Friends(A, 1) -> Smokes(A)\n"}, "m.psl:1:15: constant 1 must be quoted"},
		{"negative weight", map[string]string{"m.psl": "-1: Smokes(A) -> Smokes(A)\n"}, "m.psl:1:1: weight -1 must be >= 0"},
		{"NaN weight", map[string]string{"m.psl": "NaN: Friends(A, B) -> Smokes(A)\n"}, "m.psl:1:1: weight NaN is not a finite number"},
		{"infinite weight", map[string]string{"m.psl": "Inf: Friends(A, B) -> Smokes(A)\n"}, "m.psl:1:1: weight Inf is not a finite number"},
		{"truth out of range", map[string]string{"smokes_truth.txt": "b\t1\nc\t1.5\n"}, "smokes_truth.txt:2:3: truth value 1.5 is outside [0,1]"},
		{"observation and target", map[string]string{"smokes_targets.txt": "b\na\n"}, "smokes_targets.txt:2"},
		{"missing data file", map[string]string{"friends.txt": ""}, "friends.txt"},
		{"malformed TSV", map[string]string{"friends.txt": "a\tb\nb\tc\td\te\n"}, "friends.txt:2"},
		{"bad data file", map[string]string{"d.data": "predicates:\n  Friends/x: closed\n"}, "d.data:2"},
		{"missing model", map[string]string{"m.psl": ""}, "m.psl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := goodFiles()
			patch(files, tt.patch)
			dir := writeFiles(t, files)
			code, _, errs := runCLI(t, "ground", "--model", filepath.Join(dir, "m.psl"), "--data", filepath.Join(dir, "d.data"))
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, errs)
			}
			if !strings.Contains(errs, tt.want) {
				t.Fatalf("stderr %q does not contain %q", errs, tt.want)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 2 {
				t.Fatalf("want one clear error, got:\n%s", errs)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"ground"},           // no data
		{"ground", "--data"}, // flag without value
		{"ground", "--nope"}, // unknown flag
		{"nosuchcommand"},    // unknown command
		{"ground", "--data", "x", "--threads", "-1"}, // bad thread count
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errs)
		}
	}
}
