package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/progress"
)

// familyWorld writes a .data program: Parent observed (a random forest of
// families), Grandparent open with every pair of people as a target and the
// truth Parent(x, y) & Parent(y, z).
func familyWorld(t *testing.T, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	const n = 60
	parent := map[[2]int]bool{}
	var obs strings.Builder
	for c := 4; c < n; c++ {
		p := r.IntN(c)
		parent[[2]int{p, c}] = true
		fmt.Fprintf(&obs, "p%d\tp%d\n", p, c)
	}
	var targets, truth strings.Builder
	for x := range n {
		for z := range n {
			gp := 0
			for y := range n {
				if parent[[2]int{x, y}] && parent[[2]int{y, z}] {
					gp = 1
				}
			}
			fmt.Fprintf(&targets, "p%d\tp%d\n", x, z)
			fmt.Fprintf(&truth, "p%d\tp%d\t%d\n", x, z, gp)
		}
	}
	dir := writeFiles(t, map[string]string{
		"family.data": "predicates:\n  Parent/2: closed\n  Grandparent/2: open\n  Name/1: closed\n" +
			"observations:\n  Parent: parent.txt\n  Name: name.txt\ntargets:\n  Grandparent: gp_targets.txt\ntruth:\n  Grandparent: gp_truth.txt\n",
		"parent.txt":     obs.String(),
		"name.txt":       "p0\n",
		"gp_targets.txt": targets.String(),
		"gp_truth.txt":   truth.String(),
	})
	return filepath.Join(dir, "family.data")
}

func TestStructureLearnsGrandparent(t *testing.T) {
	data := familyWorld(t, 1)
	dir := t.TempDir()
	for _, method := range []string{"ppll", "gls"} {
		t.Run(method, func(t *testing.T) {
			out := filepath.Join(dir, method+".psl")
			report := filepath.Join(dir, method+".json")
			code, stdout, stderr := runCLI(t, "structure", "--data", data, "--target", "Grandparent", "--method", method,
				"--min-support", "2", "--output", out, "--report", report)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			model, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(model), "Parent(E1, E2) & Parent(E2, E3) -> Grandparent(E1, E3)") {
				t.Errorf("learned model lacks the grandparent rule:\n%s", model)
			}
			var rep structureReport
			readJSON(t, report, &rep)
			if rep.Method != method || rep.Candidates == 0 || rep.Kept == 0 || rep.Generation.Examples == 0 {
				t.Errorf("report %+v", rep)
			}
			// The learned model is a PSL model infer reads with the same data.
			code, stdout, stderr = runCLI(t, "infer", "--model", out, "--data", data, "--eval", "AUCEvaluator")
			if code != 0 {
				t.Fatalf("infer exit %d\n%s", code, stderr)
			}
			m := regexp.MustCompile(`AUROC=([0-9.]+)`).FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("no AUROC in\n%s", stdout)
			}
			if auc, _ := strconv.ParseFloat(m[1], 64); auc < 0.99 {
				t.Errorf("AUROC %g with the learned model, want >= 0.99", auc)
			}
		})
	}
}

func TestStructureBadInput(t *testing.T) {
	data := familyWorld(t, 2)
	dir := t.TempDir()
	exists := writeFile(t, dir, "exists.psl", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", data}, "give at least one --target"},
		{[]string{"--data", data, "--target", "Nope"}, "--target Nope: no such predicate"},
		{[]string{"--data", data, "--target", "Parent"}, "is closed"},
		{[]string{"--data", data, "--target", "Name"}, "closed"},
		{[]string{"--data", data, "--target", "Grandparent", "--method", "beam"}, "unknown structure-learning method"},
		{[]string{"--data", data, "--target", "Grandparent", "--max-length", "7"}, "--max-length 7"},
		{[]string{"--data", data, "--target", "Grandparent", "--min-support", "0"}, "--min-support 0"},
		{[]string{"--data", data, "--target", "Grandparent", "--exclude", "Nope"}, "--exclude Nope"},
		{[]string{"--data", data, "--target", "Grandparent", "--output", exists}, "exists"},
		{[]string{"--data", data, "--target", "Grandparent", "--output", data, "--force"}, "refusing to overwrite"},
		{[]string{"--data", data, "--target", "Grandparent", "--output", filepath.Join(dir, "none", "x.psl")}, "does not exist"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"structure"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (stdout %q), want exit 2 and %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

func TestStructureGenerateOnly(t *testing.T) {
	data := familyWorld(t, 3)
	out := filepath.Join(t.TempDir(), "candidates.psl")
	report := filepath.Join(t.TempDir(), "candidates.json")
	code, stdout, stderr := runCLI(t, "structure", "--data", data, "--target", "Grandparent", "--generate-only",
		"--min-support", "2", "--max-clauses", "2", "--output", out, "--report", report)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	text, _ := os.ReadFile(out)
	rules := 0
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "1: ") {
			rules++
		}
	}
	if rules != 3 || !strings.Contains(stdout, "wrote 3 candidate clauses") {
		t.Errorf("%d rules (the prior, a clause and its negation wanted)\n%s\n%s", rules, text, stdout)
	}
	// The report is written too (it was silently not): every candidate
	// with its support, nothing learned.
	var rep struct {
		GenerateOnly bool `json:"generate_only"`
		Candidates   int
		Rules        []struct {
			Rule    string
			Support int
			Weight  float64
		}
	}
	readJSON(t, report, &rep)
	if !rep.GenerateOnly || rep.Candidates != 3 || len(rep.Rules) != 3 || rep.Rules[1].Support < 2 || rep.Rules[1].Weight != 1 {
		t.Errorf("report %+v", rep)
	}
	// A search cut short is warned of on standard error and in the report.
	code, _, stderr = runCLI(t, "structure", "--data", data, "--target", "Grandparent", "--generate-only",
		"--min-support", "2", "--max-expansions", "2", "--output", out, "--report", report, "--force")
	var capped struct{ Warnings []string }
	readJSON(t, report, &capped)
	if code != 0 || !strings.Contains(stderr, "warning: the search from") || len(capped.Warnings) != 1 || !strings.HasPrefix(capped.Warnings[0], "the search from") {
		t.Errorf("--max-expansions 2: exit %d, warnings %q\n%s", code, capped.Warnings, stderr)
	}
}

// Not on a terminal, generation, grounding and learning print progress
// lines (every few seconds; every status here), none with --quiet.
func TestStructureProgressLines(t *testing.T) {
	defer func(f func(io.Writer, bool) *progress.Reporter) { newStructureProgress = f }(newStructureProgress)
	newStructureProgress = func(w io.Writer, quiet bool) *progress.Reporter {
		if quiet {
			return nil
		}
		return progress.Lines(w, "hinge structure", 0, time.Now)
	}
	data := familyWorld(t, 4)
	dir := t.TempDir()
	for _, method := range []string{"ppll", "gls"} {
		code, stdout, stderr := runCLI(t, "structure", "--data", data, "--target", "Grandparent", "--method", method, "--min-support", "2",
			"--max-rounds", "1", "--output", filepath.Join(dir, method+".psl"))
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		for _, want := range []string{"hinge structure: generating clauses: searched paths from ", "hinge structure: grounding candidate clauses: ",
			map[string]string{"ppll": "hinge structure: ppll iteration ", "gls": "hinge structure: gls round 1: scored "}[method]} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: no %q in stderr:\n%s", method, want, stderr)
			}
		}
	}
	code, stdout, stderr := runCLI(t, "structure", "--data", data, "--target", "Grandparent", "--min-support", "2", "--quiet",
		"--output", filepath.Join(dir, "quiet.psl"))
	if code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr:\n%s%s", code, stderr, stdout)
	}
}

// Rules with constants and sampled counts from the command line: the
// rules parse back, the report gives every clause's body groundings and
// confidence, and a sampled target's supports come with their intervals;
// --sample 0 counts exactly; the learned model (with nothing new asked
// for) is the same with the defaults and with every count exact.
func TestStructureConstantsAndSampling(t *testing.T) {
	data := familyWorld(t, 5)
	dir := t.TempDir()
	run := func(name string, args ...string) (string, structureReport) {
		out, report := filepath.Join(dir, name+".psl"), filepath.Join(dir, name+".json")
		code, stdout, stderr := runCLI(t, append([]string{"structure", "--data", data, "--target", "Grandparent", "--min-support", "2",
			"--output", out, "--report", report, "--quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rep structureReport
		readJSON(t, report, &rep)
		return string(text), rep
	}
	def, _ := run("default")
	exact, rep := run("exact", "--sample", "0")
	if def != exact {
		t.Errorf("the default and --sample 0 learn different models:\n%s\n%s", def, exact)
	}
	for _, r := range rep.Rules {
		if !strings.HasPrefix(r.Rule, "!Grandparent(A, B)") && (r.Body == 0 || r.Conf <= 0 || r.Sampled != 0 || r.SupportErr != 0) {
			t.Errorf("--sample 0: %+v", r)
		}
	}
	withConst, rep := run("constants", "--constants", "4", "--sample", "20", "--sample-err", "0")
	if rep.Generation.SampledTargets != 1 || rep.Generation.Examples != 20 || rep.Options.Sample != 20 || rep.Options.Constants != 4 {
		t.Errorf("report generation %+v, options %+v", rep.Generation, rep.Options)
	}
	consts, sampled := 0, 0
	for _, r := range rep.Rules {
		if strings.Contains(r.Rule, "'") {
			consts++
		}
		if r.SupportErr > 0 {
			sampled++
		}
	}
	if consts == 0 || consts > 4 || sampled == 0 {
		t.Errorf("%d rules with constants, %d sampled supports:\n%s", consts, sampled, withConst)
	}
	if !strings.Contains(withConst, "# support about ") {
		t.Errorf("no estimated support in the model's comments:\n%s", withConst)
	}
	// The learned model parses back.
	code, _, stderr := runCLI(t, "infer", "--model", filepath.Join(dir, "constants.psl"), "--data", data, "--quiet", "--output", filepath.Join(dir, "inferred"))
	if code != 0 {
		t.Errorf("infer with the learned model: exit %d\n%s", code, stderr)
	}
	for _, bad := range [][]string{{"--constants", "-1"}, {"--constants-min-support", "-2"}, {"--sample", "-3"}, {"--sample-err", "2"}, {"--sample-err", "NaN"}} {
		code, _, stderr := runCLI(t, append([]string{"structure", "--data", data, "--target", "Grandparent"}, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, %s", bad, code, stderr)
		}
	}
}
