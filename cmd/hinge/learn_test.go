package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hinge-srl/hinge/syntax"
)

func TestLearnSmokersWritesModelBack(t *testing.T) {
	src, err := os.ReadFile("../../examples/smokers/smokers.psl")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := syntax.ParseFile("smokers.psl", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"mle", "mple", "MaxPseudoLikelihood", "ppll"} {
		t.Run(method, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "learned.psl")
			report := filepath.Join(dir, "r.json")
			flag := "--method"
			if method == "MaxPseudoLikelihood" {
				flag = "--learn"
			}
			code, stdout, errs := runCLI(t, "learn", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data",
				flag, method, "--output", out, "--report", report, "--iterations", "20", "--threads", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, want := range []string{"initial", "learned", "Smokes(X) -> Cancer(X)", "wrote " + out} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			var rep struct {
				Method  string `json:"method"`
				History []struct {
					Iteration int       `json:"iteration"`
					Weights   []float64 `json:"weights"`
				} `json:"history"`
				Rules []struct {
					Initial float64 `json:"initial_weight"`
					Learned float64 `json:"learned_weight"`
				} `json:"rules"`
				Seconds map[string]float64 `json:"seconds"`
			}
			readJSON(t, report, &rep)
			if len(rep.History) == 0 || len(rep.Rules) != len(orig) {
				t.Fatalf("report: %d history entries, %d rules", len(rep.History), len(rep.Rules))
			}
			for _, k := range []string{"load", "ground", "learn", "total"} {
				if _, ok := rep.Seconds[k]; !ok {
					t.Errorf("report seconds lack %q", k)
				}
			}

			// The learned model parses back with the same rules, in order,
			// with the learned weights, and keeps the comments.
			text, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			back, err := syntax.ParseFile(out, text)
			if err != nil {
				t.Fatalf("learned model does not parse: %v\n%s", err, text)
			}
			if len(back) != len(orig) {
				t.Fatalf("%d rules written back, want %d", len(back), len(orig))
			}
			changed := false
			for i := range orig {
				a, b := orig[i], back[i]
				if b.Weight != rep.Rules[i].Learned {
					t.Errorf("rule %d: weight %v in the file, %v in the report", i, b.Weight, rep.Rules[i].Learned)
				}
				if b.Weight != a.Weight {
					changed = true
				}
				b.Weight, b.Comment = a.Weight, a.Comment
				if syntax.Format(a) != syntax.Format(b) {
					t.Errorf("rule %d: %s written back as %s", i, syntax.Format(a), syntax.Format(b))
				}
			}
			if !changed {
				t.Errorf("no weight changed")
			}
			if !strings.Contains(string(text), "# Smoking causes cancer.") {
				t.Errorf("comments not kept:\n%s", text)
			}
		})
	}
}

func TestLearnBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"learn", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--method", "gibbs"},
		{"learn", "--model", "../../examples/smokers/smokers.psl"},
		{"learn", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--constraints", "maybe"},
		{"learn", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--iterations", "-1"},
		{"learn", "--model", filepath.Join(dir, "missing.psl"), "--data", "../../examples/smokers/smokers.data"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
		if strings.Contains(errs, "panic") {
			t.Errorf("%v: %s", args, errs)
		}
	}
}

// TestLearnedPath: the default learned model is beside the input; an input
// that is not a regular file (/dev/stdin, a FIFO, a device) has no place
// beside it, and the output flag must be given (hinge learn -m /dev/stdin
// wrote /dev/stdin-learned.psl, a regular file in /dev).
func TestLearnedPath(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "model.psl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want, err string }{
		{"m/cora.psl", "m/cora-learned.psl", ""},
		{"x.json", "x-learned.psl", ""},
		{"model", "model-learned.psl", ""},
		{"/dev/null", "", "/dev/null is not a regular file"},
		{fifo, "", "give --output"},
	}
	for _, tc := range tests {
		got, err := learnedPath(tc.in, ".psl", "--output")
		if got != tc.want || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("learnedPath(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// A JSON config with learn and infer splits: the learn split (the default
// for hinge learn) has truth; the infer split has none, which is bad input.
func TestLearnJSONConfigPartition(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "friends.json", `{
  "rules": [
    "1.0: Knows(A, B) & Smokes(A) -> Smokes(B) ^2",
    "1.0: Knows(A, B) & Smokes(A) -> !Smokes(B) ^2"
  ],
  "predicates": {
    "Knows/2": {"observations": [["a", "b"], ["b", "c"], ["d", "e"], ["e", "f"]]},
    "Smokes/1": {
      "observations": [["a", 1], ["d", 0]],
      "targets": [["b"], ["c"], ["e"], ["f"]],
      "truth": {"learn": [["b", 1], ["c", 1], ["e", 0], ["f", 0]]}
    }
  }
}
`)
	out := filepath.Join(dir, "learned.psl")
	code, stdout, errs := runCLI(t, "learn", "--config", cfg, "--method", "mple", "--l2", "0.1", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "truth for 4 of 4 targets") {
		t.Errorf("output:\n%s", stdout)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := syntax.ParseFile(out, text)
	if err != nil || len(rules) != 2 {
		t.Fatalf("learned model: %v, %d rules\n%s", err, len(rules), text)
	}
	if !(rules[0].Weight > 0 && rules[1].Weight == 0) {
		t.Errorf("weights %v, %v: want the consistent rule above 0 and the contradicting one at 0", rules[0].Weight, rules[1].Weight)
	}
	code, _, errs = runCLI(t, "learn", "--config", cfg, "--partition", "infer", "--output", out, "--force")
	if code != 2 || !strings.Contains(errs, "truth") {
		t.Errorf("infer split without truth: exit %d, %s", code, errs)
	}
}

// TestExamplesHoldNoLearnedModel: no example directory holds what a
// learning command writes by default beside its model (M-learned.psl,
// P-learned.mln, M-learned.rrf), so that learning from an example as the
// README shows, without --output, works on a fresh clone instead of being
// refused because the output exists.
func TestExamplesHoldNoLearnedModel(t *testing.T) {
	for _, ext := range []string{".psl", ".mln", ".rrf"} {
		models, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "*"+ext))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range models {
			if strings.HasSuffix(m, "-learned"+ext) {
				t.Errorf("%s is committed: it is the default output of learning from %s", m, strings.TrimSuffix(m, "-learned"+ext)+ext)
			}
		}
	}
}

// TestLearnWarnsWhenWorse: learning the smokers' weights, which every method
// makes worse on the example's own truth (Smokes F1 0.8 -> 0), prints the
// comparison on the training truth and a warning, and the perceptron
// collapsing to zero weights says so; --check-train=false skips the
// comparison. All used to report "converged" and write the model silently.
func TestLearnWarnsWhenWorse(t *testing.T) {
	dir := t.TempDir()
	for _, method := range []string{"mple", "mle", "ppll"} {
		out := filepath.Join(dir, method+".psl")
		report := filepath.Join(dir, method+".json")
		code, stdout, stderr := runCLI(t, "learn", "--model", smokersModel, "--data", smokersData, "--method", method, "--output", out, "--report", report, "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		for _, want := range []string{"on the training truth, initial -> learned weights:", "Smokes DiscreteEvaluator F1 0.8 -> 0\n"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: no %q in\n%s", method, want, stdout)
			}
		}
		// Warnings go to standard error (a Python caller logs them as
		// warnings) and into the report.
		const worse = "the learned weights do worse than the initial ones on the training truth (Smokes F1 0.8 -> 0"
		if !strings.Contains(stderr, "warning: "+worse) || strings.Contains(stdout, "warning") {
			t.Errorf("%s: no %q on standard error, or a warning on standard output:\n%s\n%s", method, worse, stderr, stdout)
		}
		if method == "mle" && !strings.Contains(stderr, "the perceptron's weights all reached 0 at step") {
			t.Errorf("mle: no warning about the collapse in\n%s", stderr)
		}
		var rep struct {
			Warnings   []string `json:"warnings"`
			TrainCheck []struct {
				Predicate, Metric string
				Before, After     float64
				Worse             bool
			} `json:"train_check"`
		}
		readJSON(t, report, &rep)
		if len(rep.TrainCheck) != 4 || !rep.TrainCheck[0].Worse || rep.TrainCheck[0].Before != 0.8 {
			t.Errorf("%s: report's train_check %+v", method, rep.TrainCheck)
		}
		if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, worse) }) {
			t.Errorf("%s: report's warnings %q lack %q", method, rep.Warnings, worse)
		}
	}
	code, stdout, _ := runCLI(t, "learn", "--model", smokersModel, "--data", smokersData, "--output", filepath.Join(dir, "x.psl"), "--check-train=false", "--quiet")
	if code != 0 || strings.Contains(stdout, "on the training truth") {
		t.Errorf("--check-train=false: exit %d\n%s", code, stdout)
	}
}

// TestLearnTruthBreaksHardRule: weight learning on a truth world that breaks
// a hard constraint (two people's labels taken as 0 for want of truth
// against Label(A, +C) = 1) says so, naming the rule, and the MPLE
// summary's "fixed by constraints" says how many of them that explains (it
// said "2 fixed by constraints" and nothing else).
func TestLearnTruthBreaksHardRule(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"cc.psl":      "1.0: Link(A, B) & Label(A, C) -> Label(B, C) ^2\n0.1: ~Label(A, C) ^2\nLabel(A, +C) = 1 .\n",
		"cc.data":     "predicates:\n  Link/2: closed\n  Label/2: open\nobservations:\n  Link: link.txt\ntargets:\n  Label: targets.txt\ntruth:\n  Label: truth.txt\n",
		"link.txt":    "a\tb\nb\tc\nc\td\nd\ta\n",
		"targets.txt": "a\tx\na\ty\nb\tx\nb\ty\nc\tx\nc\ty\nd\tx\nd\ty\n",
		"truth.txt":   "a\tx\t1\na\ty\t0\nb\tx\t1\nb\ty\t0\n",
	})
	for _, tc := range []struct{ method, stdout string }{
		{"mple", "2 fixed by constraints (2 of them on atoms of a hard constraint the truth breaks: see the warning)"},
		{"mle", ""},
	} {
		code, stdout, stderr := runCLI(t, "learn", "-m", filepath.Join(dir, "cc.psl"), "-d", filepath.Join(dir, "cc.data"), "--method", tc.method,
			"--output", filepath.Join(dir, tc.method+".psl"), "--quiet")
		const warning = "warning: the truth values break 2 ground constraint(s) of the hard rule "
		if code != 0 || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, warning) || !strings.Contains(stderr, "cc.psl:3:1 Label(A, +C) = 1 . (e.g. Label('c', 'x') + Label('c', 'y') = 1 is 0)") {
			t.Errorf("%s: exit %d, want 0, %q and %q\nstdout:\n%s\nstderr:\n%s", tc.method, code, tc.stdout, warning, stdout, stderr)
		}
	}
}
