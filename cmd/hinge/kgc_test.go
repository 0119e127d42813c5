package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/kgc"
)

func TestKGC(t *testing.T) {
	var train, test strings.Builder
	for x := range 40 {
		fmt.Fprintf(&train, "p%d\tparent\tp%d\n", x, x+40)
		fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+40, x)
	}
	for x := range 40 {
		if x%4 == 0 {
			fmt.Fprintf(&test, "p%d\tparent\tp%d\n", x+1, x+1+40) // not in train: child(p_{x+41}, p_{x+1}) is
		}
	}
	test.WriteString("stranger\tparent\tp5\n") // an entity never seen in the graph
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "test.txt": test.String(), "valid.txt": ""})
	// Remove the test triples from the training graph.
	trainText := train.String()
	for _, line := range strings.Split(strings.TrimSpace(test.String()), "\n") {
		trainText = strings.Replace(trainText, line+"\n", "", 1)
	}
	writeFile(t, dir, "train.txt", trainText)
	pred := filepath.Join(dir, "pred.txt")
	rules := filepath.Join(dir, "rules.txt")
	code, stdout, stderr := runCLI(t, "kgc", "--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"),
		"--test", filepath.Join(dir, "test.txt"), "--time", "1s", "--predictions", pred, "--rules", rules, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// 11 test triples, 22 queries; the stranger's two are misses, the
	// others are answered first by parent(X, Y) <= child(Y, X).
	if !strings.Contains(stdout, "22 test queries: MRR 0.9") {
		t.Errorf("metrics:\n%s", stdout)
	}
	text, _ := os.ReadFile(pred)
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if len(lines) != 3*11 || lines[30] != "stranger parent p5" || lines[31] != "Heads: " {
		t.Errorf("predictions (%d lines):\n%s", len(lines), text)
	}
	if r, _ := os.ReadFile(rules); !strings.Contains(string(r), "parent(X,Y) <= child(Y,X)") {
		t.Errorf("rules:\n%s", r)
	}
	// The rules file ranks the same without learning.
	code, again, stderr := runCLI(t, "kgc", "--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"),
		"--test", filepath.Join(dir, "test.txt"), "--rules-in", rules, "--quiet")
	metrics := func(s string) string { return s[strings.Index(s, "queries: MRR"):strings.Index(s, " (top")] }
	if code != 0 || !strings.Contains(again, "rules read from") || metrics(again) != metrics(stdout) {
		t.Errorf("--rules-in: exit %d\n%s%s\nfirst run:\n%s", code, again, stderr, stdout)
	}
	bad := writeFile(t, dir, "bad.txt", "a\tb\n")
	if code, _, stderr := runCLI(t, "kgc", "--train", bad, "--test", bad); code != 2 || !strings.Contains(stderr, "bad.txt:1:1") {
		t.Errorf("bad triples: exit %d, %s", code, stderr)
	}
}

// psl scoring's values are those hinge infer finds for the model and data
// --psl-out writes: the same rules, learned weights and query atoms.
func TestKGCPSLAgreesWithInfer(t *testing.T) {
	var train, test strings.Builder
	for x := range 30 {
		fmt.Fprintf(&train, "p%d\tparent\tp%d\n", x, x+30)
		if x%5 != 0 {
			fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+30, x)
		} else {
			fmt.Fprintf(&test, "p%d\tchild\tp%d\n", x+30, x)
		}
		fmt.Fprintf(&train, "p%d\tfriend\tp%d\n", x, (x*7+3)%60)
	}
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "test.txt": test.String(), "valid.txt": ""})
	out := filepath.Join(dir, "psl")
	code, stdout, stderr := runCLI(t, "kgc", "--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"),
		"--test", filepath.Join(dir, "test.txt"), "--time", "1s", "--score", "psl", "--psl-candidates", "5", "--psl-train", "40", "--psl-out", out, "--quiet")
	if code != 0 || !strings.Contains(stdout, "psl: 12 test queries: MRR") {
		t.Fatalf("kgc: exit %d\n%s%s", code, stdout, stderr)
	}
	want := map[string]float64{}
	values, err := os.ReadFile(filepath.Join(out, "values.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(values)), "\n") {
		f := strings.Split(line, "\t")
		var v float64
		if _, err := fmt.Sscan(f[3], &v); err != nil || len(f) != 4 {
			t.Fatalf("values.tsv line %q", line)
		}
		want[strings.ToUpper(f[0])+"("+f[1]+","+f[2]+")"] = v
	}
	code, stdout, stderr = runCLI(t, "infer", "--model", filepath.Join(out, "model.psl"), "--data", filepath.Join(out, "kgc.data"),
		"--output", filepath.Join(dir, "inferred"))
	if code != 0 {
		t.Fatalf("infer: exit %d\n%s%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "inferred", "*.txt"))
	got := 0
	for _, file := range files {
		text, _ := os.ReadFile(file)
		pred := strings.TrimSuffix(filepath.Base(file), ".txt")
		for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			f := strings.Split(line, "\t")
			var v float64
			fmt.Sscan(f[2], &v)
			atom := pred + "(" + f[0] + "," + f[1] + ")"
			w, ok := want[atom]
			if !ok || math.Abs(w-v) > 1e-6 {
				t.Errorf("%s: infer %g, kgc %g (known %v)", atom, v, w, ok)
			}
			got++
		}
	}
	if got != len(want) || got == 0 {
		t.Errorf("infer wrote %d values, kgc %d", got, len(want))
	}
}

// kgcFiles writes a small graph where parent(X, Y) <= child(Y, X) holds,
// with test triples held out, and returns the file flags.
func kgcFiles(t *testing.T, n int) []string {
	t.Helper()
	var train, test strings.Builder
	for x := range n {
		fmt.Fprintf(&train, "p%d\tparent\tp%d\n", x, x+n)
		if x%4 == 0 {
			fmt.Fprintf(&test, "p%d\tchild\tp%d\n", x+n, x)
		} else {
			fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+n, x)
		}
		fmt.Fprintf(&train, "p%d\tfriend\tp%d\n", x, (x*7+3)%(2*n))
		fmt.Fprintf(&train, "p%d\tfriend\tp%d\n", x+n, (x*5+1)%(2*n))
	}
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "test.txt": test.String(), "valid.txt": ""})
	return []string{"--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"), "--test", filepath.Join(dir, "test.txt")}
}

// A run cancelled while reading, learning, clustering or ranking (Ctrl-C,
// SIGTERM) says so in the one wording every command uses, exits 1 and
// writes nothing: no rules, predictions (written while ranking, to a
// temporary file) or report.
func TestKGCCancelledWritesNothing(t *testing.T) {
	args := kgcFiles(t, 300)
	// Choosing the rounds needs validation triples and 2 rounds: the test
	// triples serve as validation triples there.
	choosing := append([]string{"--rounds", "2"}, args...)
	choosing[5] = choosing[7]
	for _, phase := range []string{"reading", "learning", "choosing", "clustered", "learned", "ranking"} {
		runArgs := append([]string{"--rounds", "1"}, args...)
		if phase == "choosing" {
			runArgs = choosing
		}
		score := "clustered"
		if phase == "learned" {
			score = "learned"
		}
		dir := t.TempDir()
		outs := []string{filepath.Join(dir, "rules.txt"), filepath.Join(dir, "pred.txt"), filepath.Join(dir, "report.json")}
		ctx, cancel := context.WithCancel(context.Background())
		kgcPhaseHook = func(status string) {
			if strings.HasPrefix(status, phase) {
				cancel()
			}
		}
		var stdout, stderr bytes.Buffer
		code := runContext(ctx, append([]string{"kgc", "--score", score, "--rules", outs[0], "--predictions", outs[1], "--report", outs[2]}, runArgs...), &stdout, &stderr)
		kgcPhaseHook = nil
		cancel()
		msg := stderr.String()
		if want := "hinge kgc: the run was cancelled; no output was written\n"; code != 1 || !strings.HasSuffix(msg, want) || strings.Count(msg, "cancelled") != 1 {
			t.Errorf("%s: exit %d, want 1 and %q as the one message\n%s", phase, code, want, msg)
		}
		for _, p := range outs {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written by a cancelled run", phase, p)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: a cancelled run left %v", phase, ents)
		}
	}
}

// Not on a terminal, a run prints a progress line every few seconds
// (every kgcProgressEvery), none with --quiet.
func TestKGCProgressLines(t *testing.T) {
	defer func(d time.Duration) { kgcProgressEvery = d }(kgcProgressEvery)
	kgcProgressEvery = time.Millisecond
	// Each phase lasts a few ticks, however fast the machine or few its
	// cores (with one, the ticker's goroutine runs while this one sleeps).
	kgcPhaseHook = func(string) { time.Sleep(5 * time.Millisecond) }
	defer func() { kgcPhaseHook = nil }()
	args := kgcFiles(t, 100)
	code, _, stderr := runCLI(t, append([]string{"kgc", "--rounds", "2", "--exhaustive"}, args...)...)
	if code != 0 || !strings.Contains(stderr, "kgc: ") || !strings.Contains(stderr, "s since start)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, append([]string{"kgc", "--rounds", "2", "--quiet"}, args...)...)
	if code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr:\n%s", code, stderr)
	}
}

// --rounds reproduces a timed run: the rounds it reports give the same
// rules file byte for byte; a byte-order mark does not become part of a
// name; bad values are refused before any work.
func TestKGCRounds(t *testing.T) {
	args := kgcFiles(t, 60)
	dir := t.TempDir()
	timed, again, report := filepath.Join(dir, "timed.txt"), filepath.Join(dir, "again.txt"), filepath.Join(dir, "report.json")
	code, stdout, stderr := runCLI(t, append([]string{"kgc", "--time", "300ms", "--round-paths", "500", "--rules", timed, "--report", report, "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var r struct {
		Rounds int `json:"rounds"`
	}
	readJSON(t, report, &r)
	if r.Rounds < 1 {
		t.Fatalf("report: %d rounds", r.Rounds)
	}
	code, stdout, stderr = runCLI(t, append([]string{"kgc", "--rounds", fmt.Sprint(r.Rounds), "--round-paths", "500", "--rules", again, "--quiet"}, args...)...)
	a, _ := os.ReadFile(timed)
	b, _ := os.ReadFile(again)
	if code != 0 || len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("--rounds %d: exit %d, %d bytes of rules, timed run %d\n%s%s", r.Rounds, code, len(b), len(a), stdout, stderr)
	}
	bom := writeFile(t, dir, "bom.txt", "\uFEFFp1\tparent\tp61\n")
	code, stdout, stderr = runCLI(t, append([]string{"kgc", "--rounds", "1", "--rules", filepath.Join(dir, "bom-rules.txt"), "--quiet"}, append(args[:4], "--test", bom)...)...)
	if code != 0 || strings.Contains(stdout+stderr, "\uFEFF") {
		t.Errorf("BOM: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, bad := range [][]string{{"--rounds", "-1"}, {"--sample", "-3"}, {"--sample-err", "2"}, {"--round-paths", "0"}} {
		if code, _, stderr := runCLI(t, append(append([]string{"kgc"}, bad...), args...)...); code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, %s", bad, code, stderr)
		}
	}
}

// --score clustered chooses its thresholds on --valid (needed: exit 2
// without it), ranks, writes a file and a report that says what it chose,
// and gives the same figures on a second run (a seeded, deterministic
// clustering).
func TestKGCClustered(t *testing.T) {
	var train, valid, test strings.Builder
	for x := range 60 {
		line := fmt.Sprintf("p%d\tparent\tp%d\n", x, x+60)
		switch x % 6 {
		case 0:
			test.WriteString(line)
		case 1:
			valid.WriteString(line)
		default:
			train.WriteString(line)
		}
		fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+60, x)
		fmt.Fprintf(&train, "p%d\tkid\tp%d\n", x+60, x) // a redundant copy of child
	}
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "valid.txt": valid.String(), "test.txt": test.String()})
	args := []string{"kgc", "--train", filepath.Join(dir, "train.txt"), "--test", filepath.Join(dir, "test.txt"), "--rounds", "2", "--score", "clustered", "--quiet"}
	if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "--valid") {
		t.Fatalf("clustered without --valid: exit %d, %s", code, stderr)
	}
	args = append(args, "--valid", filepath.Join(dir, "valid.txt"))
	if code, _, stderr := runCLI(t, append(args, "--explain", "parent(p0,p60)")...); code != 2 || !strings.Contains(stderr, "not with --score clustered") {
		t.Fatalf("clustered with --explain: exit %d, %s", code, stderr)
	}
	var outs [2]string
	for i := range outs {
		rep := filepath.Join(dir, fmt.Sprint("report", i, ".json"))
		code, stdout, stderr := runCLI(t, append(args, "--report", rep, "--predictions", filepath.Join(dir, fmt.Sprint("pred", i, ".txt")))...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "clustered: 20 test queries: MRR 1.0000") || !strings.Contains(stdout, "thresholds chosen on 20 validation queries") {
			t.Fatalf("output:\n%s", stdout)
		}
		if r, _ := os.ReadFile(rep); !strings.Contains(string(r), `"thresholds"`) {
			t.Fatalf("report:\n%s", r)
		}
		at := strings.Index(stdout, "clustered: 20 test queries")
		outs[i] = stdout[at : at+strings.Index(stdout[at:], " (top")]
	}
	if outs[0] != outs[1] {
		t.Fatalf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	a, _ := os.ReadFile(filepath.Join(dir, "pred0.txt"))
	b, _ := os.ReadFile(filepath.Join(dir, "pred1.txt"))
	if !bytes.Equal(a, b) {
		t.Fatal("two runs wrote different predictions")
	}
}

// --score learned fits its weights on --valid (needed: exit 2 without it),
// says what it fitted on its line and in the report, explains a triple
// with each rule's weight, and gives the same predictions on a second run.
// It is the default with --valid, noisy-or without.
func TestKGCLearned(t *testing.T) {
	base := []string{"kgc", "--train", "../../examples/kgc/train.txt", "--test", "../../examples/kgc/test.txt", "--rounds", "2", "--score", "learned", "--quiet"}
	if code, _, stderr := runCLI(t, base...); code != 2 || !strings.Contains(stderr, "give --valid") {
		t.Fatalf("learned without --valid: exit %d, %s", code, stderr)
	}
	args := append(base, "--valid", "../../examples/kgc/valid.txt")
	if code, _, stderr := runCLI(t, append(args, "--learned-valid", "-1")...); code != 2 || !strings.Contains(stderr, "--learned-valid -1: must be >= 0") {
		t.Errorf("--learned-valid -1: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, append(args, "--explain", kgcExplains)...)
	if code != 0 || !strings.Contains(stdout, "scored by learned weights") || !strings.Contains(stdout, "; weight ") {
		t.Errorf("--explain: exit %d\n%s%s", code, stdout, stderr)
	}
	// Validation triples that fit nothing say so under --score learned;
	// by default such a --valid file ranks with noisy-or.
	empty := writeFile(t, t.TempDir(), "valid.txt", "")
	code, stdout, stderr = runCLI(t, append(base, "--valid", empty)...)
	if code != 0 || !strings.Contains(stdout, "learned: no weights fitted: none of the 0 validation queries") || !strings.Contains(stdout, "every weight stays 1") {
		t.Errorf("empty --valid: exit %d\n%s%s", code, stdout, stderr)
	}
	auto := slices.DeleteFunc(slices.Clone(base), func(a string) bool { return a == "--score" || a == "learned" })
	code, stdout, stderr = runCLI(t, append(auto, "--valid", empty)...)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "noisy-or: 58 test queries") {
		t.Errorf("empty --valid, default scoring: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{exampleKGC, "learned: 58 test queries"}, {[]string{"--train", "../../examples/kgc/train.txt", "--test", "../../examples/kgc/test.txt", "--rounds", "1", "--quiet"}, "noisy-or: 58 test queries"}} {
		if code, stdout, stderr := runCLI(t, append([]string{"kgc"}, c.args...)...); code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("default scoring: %v: exit %d, want %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
	dir := t.TempDir()
	var preds [2][]byte
	for i := range preds {
		rep, pred := filepath.Join(dir, fmt.Sprint("r", i, ".json")), filepath.Join(dir, fmt.Sprint("p", i, ".txt"))
		code, stdout, stderr := runCLI(t, append(args, "--report", rep, "--predictions", pred)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if !regexp.MustCompile(`learned: weights of 6 rule classes x 5 places fitted on \d+ validation queries \(2 per triple; \d+ with the true answer and another candidate in their list\), \d+ iterations: validation MRR [0-9.]+ in sample \(noisy-or [0-9.]+\)`).MatchString(stdout) ||
			!strings.Contains(stdout, "learned: 58 test queries: MRR") {
			t.Fatalf("output:\n%s", stdout)
		}
		var r struct {
			Scoring string
			Learned *kgc.LearnedReport
			Seconds struct{ Fit float64 }
		}
		readJSON(t, rep, &r)
		if r.Scoring != "learned" || r.Learned == nil || len(r.Learned.Weights) != len(kgc.RuleClasses) || len(r.Learned.Weights[0].Weights) != 5 || r.Learned.Fitted == 0 || r.Seconds.Fit <= 0 {
			t.Fatalf("report: %+v", r)
		}
		preds[i], _ = os.ReadFile(pred)
	}
	if len(preds[0]) == 0 || !bytes.Equal(preds[0], preds[1]) {
		t.Fatal("two runs wrote different (or no) predictions")
	}
}

// TestKGCPSLOutKeepsUserFiles: --psl-out DIR is written as one set, as infer
// --output is: a directory holding a file hinge did not write is refused
// before any work (exit 2) and the file is left as it was (the model,
// data and values files used to be written into it one by one, over a
// user's model.psl); hinge's own earlier set is replaced.
func TestKGCPSLOutKeepsUserFiles(t *testing.T) {
	var train, test strings.Builder
	for x := range 20 {
		fmt.Fprintf(&train, "p%d\tparent\tp%d\n", x, x+20)
		if x%4 != 0 {
			fmt.Fprintf(&train, "p%d\tchild\tp%d\n", x+20, x)
		} else {
			fmt.Fprintf(&test, "p%d\tchild\tp%d\n", x+20, x)
		}
	}
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "test.txt": test.String()})
	out := filepath.Join(dir, "psl")
	kgcRun := func() (int, string) {
		code, stdout, stderr := runCLI(t, "kgc", "--train", filepath.Join(dir, "train.txt"), "--test", filepath.Join(dir, "test.txt"),
			"--rounds", "1", "--score", "psl", "--psl-candidates", "3", "--psl-train", "10", "--psl-out", out, "--quiet")
		return code, stdout + stderr
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(out, "model.psl")
	if err := os.WriteFile(mine, []byte("my own model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg := kgcRun()
	if code != 2 || !strings.Contains(msg, "holds files hinge did not write") || strings.Contains(msg, "MRR") {
		t.Fatalf("a user's file in --psl-out: exit %d, want 2 before any work:\n%s", code, msg)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "my own model\n" {
		t.Fatalf("the user's model.psl: %q, %v", b, err)
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	for run := range 2 { // a new set, then hinge's own set replaced
		if code, msg := kgcRun(); code != 0 {
			t.Fatalf("run %d: exit %d:\n%s", run, code, msg)
		}
		for _, f := range []string{"model.psl", "kgc.data", "values.tsv"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("run %d: %v", run, err)
			}
		}
	}
}

// The reproducer through --rules-in: AnyBURL's
// r(X,me_myself_i) <= s(A,X) is the self-loop r(X, X), so e4 is the answer
// of both queries of the test triple e4 r e4 (MRR 1), and no prediction
// names me_myself_i.
func TestKGCReadsAnyBURLSelfLoops(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"train.txt": "p1\ts\te1\np2\ts\te2\np3\ts\te3\np4\ts\te4\ne1\tr\te1\ne2\tr\te2\ne1\tt\te2\n",
		"valid.txt": "e3\tr\te3\n",
		"test.txt":  "e4\tr\te4\n",
		"rules.txt": "3\t2\t0.6666\tr(X,me_myself_i) <= s(A,X)\n",
	})
	pred := filepath.Join(dir, "pred.txt")
	code, stdout, stderr := runCLI(t, "kgc", "--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"),
		"--test", filepath.Join(dir, "test.txt"), "--rules-in", filepath.Join(dir, "rules.txt"), "--predictions", pred, "--score", "noisy-or", "--quiet")
	if code != 0 || !strings.Contains(stdout, "2 test queries: MRR 1.0000") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	text, _ := os.ReadFile(pred)
	if want := "e4 r e4\nHeads: e4\t0.6666\t\nTails: e4\t0.6666\t\n"; string(text) != want {
		t.Errorf("predictions:\n%q\nwant\n%q", text, want)
	}
}

// Sampled confidences are summarised by what a user can act on: the
// intervals' half-widths at the median and 90th percentile and the widest
// interval of a rule confident enough to matter, named, with the flag
// that narrows it (not the largest half-width of any rule, often +-1).
func TestKGCSampledIntervals(t *testing.T) {
	args := kgcFiles(t, 300)
	var stdout, stderr bytes.Buffer
	report := filepath.Join(t.TempDir(), "report.json")
	code := runContext(context.Background(), append([]string{"kgc", "--rounds", "2", "--sample", "3", "--sample-err", "0", "--quiet", "--report", report}, args...), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	out := stdout.String()
	re := regexp.MustCompile(`confidences: \d+ rules estimated from sampled starts \(the others counted exactly\); 95% intervals \+-[0-9.e-]+ at the median, \+-[0-9.e-]+ at the 90th percentile; (widest with confidence >= 0.1: [0-9.]+ in \[[0-9.]+, [0-9.]+\] for \S+\(X,Y\) <= .* \(--sample draws more starts, 0 counts exactly\)|none of a rule with confidence >= 0.1)\n`)
	if !re.MatchString(out) {
		t.Errorf("no summary of the sampled intervals:\n%s", out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		SampledRules int `json:"sampled_rules"`
		SampledErr   struct {
			Median, P90 float64
			Widest      *struct{ Rule string }
		} `json:"sampled_confidence_error"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.SampledRules == 0 || rep.SampledErr.P90 < rep.SampledErr.Median || (strings.Contains(out, "widest") != (rep.SampledErr.Widest != nil)) {
		t.Errorf("report disagrees with the output: %+v\n%s", rep, out)
	}
}

// Input that is read but likely not meant is named on stderr: a header
// line read as a triple, validation and test triples with an entity or a
// relation the graph never names, and a missing --valid (with the validation file
// beside the training file, when there is one). Clean input warns of
// nothing.
func TestKGCInputWarnings(t *testing.T) {
	args := kgcFiles(t, 300)
	flag := func(name string) string {
		for i := range args {
			if args[i] == name {
				return args[i+1]
			}
		}
		t.Fatalf("no %s", name)
		return ""
	}
	train, test, valid := flag("--train"), flag("--test"), flag("--valid")
	b, err := os.ReadFile(train)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	headed := filepath.Join(dir, "train.tsv")
	if err := os.WriteFile(headed, append([]byte("head\trelation\ttail\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	selfNamed := filepath.Join(dir, "train-self.txt")
	if err := os.WriteFile(selfNamed, append(b, "p1\tfriend\tme_myself_i\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	varNamed := filepath.Join(dir, "train-var.txt")
	if err := os.WriteFile(varNamed, append(b, "p1\tfriend\tA\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	otherRules := filepath.Join(dir, "other-rules.txt")
	if err := os.WriteFile(otherRules, []byte("10\t5\t0.5\tr(X,Y) <= s(Y,X)\n10\t9\t0.9\tparent(X,Y) <= child(Y,X)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	clean := filepath.Join(dir, "test-clean.txt")
	newRel := filepath.Join(dir, "test-rel.txt")
	stranger := filepath.Join(dir, "test-stranger.txt")
	headedTest := filepath.Join(dir, "test-headed.txt")
	if err := os.WriteFile(headedTest, append([]byte("head\trelation\ttail\n"), tb...), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := strings.Split(strings.TrimSpace(string(tb)), "\n")
	for path, extra := range map[string]string{clean: "", newRel: "p1\tcousin\tp2\n", stranger: "stranger\tparent\tp5\n"} {
		if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"+extra), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		args      []string
		want, not []string
	}{
		{"clean", []string{"--train", train, "--valid", valid, "--test", clean}, nil, []string{"warning", "note"}},
		{"header", []string{"--train", headed, "--valid", valid, "--test", clean},
			[]string{`warning: ` + headed + `: the first triple, "head relation tail", looks like a header line`}, []string{"test triples"}},
		{"header in every split", []string{"--train", headed, "--valid", valid, "--test", headedTest},
			[]string{`warning: ` + headed + `: the first triple`, `warning: ` + headedTest + `: the first triple, "head relation tail"`}, nil},
		{"an entity named me_myself_i", []string{"--train", selfNamed, "--valid", valid, "--test", clean, "--rules", filepath.Join(dir, "rules.txt")},
			[]string{"warning: 1 entities are named as a rules file names variables (me_myself_i;", "--rules leaves it out"}, []string{"header"}},
		{"an entity named A", []string{"--train", varNamed, "--valid", valid, "--test", clean, "--rules", filepath.Join(dir, "rules-a.txt")},
			[]string{"warning: 1 entities are named as a rules file names variables (A;"}, []string{"header"}},
		{"lower confidences from a rules file", []string{"--train", train, "--valid", valid, "--test", clean, "--rules-in", otherRules, "--confidence", "lower"},
			[]string{"warning: --confidence lower with --rules-in: a rules file holds no sampling error"}, []string{"header"}},
		{"rules of another graph", []string{"--train", train, "--valid", valid, "--test", clean, "--rules-in", otherRules},
			[]string{"warning: " + otherRules + ": 1 of 2 rules name a relation the graph never names, first r(X,Y) <= s(Y,X); they can never fire"}, []string{"header"}},
		{"unseen entity", []string{"--train", train, "--valid", valid, "--test", stranger},
			[]string{`test triples name an entity that no triple of the graph (--train, --facts) names, first "stranger parent p5"`}, []string{"header", "relation the graph"}},
		{"unseen relation", []string{"--train", train, "--valid", valid, "--test", newRel},
			[]string{`1 of ` + fmt.Sprint(len(kept)+1) + ` test triples have a relation the graph never names, first "p1 cousin p2"`}, []string{"header"}},
		{"unseen entity in valid", []string{"--train", train, "--valid", stranger, "--test", clean},
			[]string{`validation triples name an entity that no triple of the graph (--train, --facts) names, first "stranger parent p5"`, "predict it; such triples tell nothing when the scoring is fitted\n"}, []string{"test triples", "relation the graph"}},
		{"unseen entity in valid, rounds chosen too", []string{"--train", train, "--valid", stranger, "--test", clean, "--rounds", "3"},
			[]string{"predict it; such triples tell nothing when the rounds are chosen or the scoring is fitted\n"}, nil},
		{"unseen entity in valid, nothing chosen", []string{"--train", train, "--valid", stranger, "--test", clean, "--score", "maxplus", "--choose-rounds=false"},
			[]string{`validation triples name an entity`, "nor predict it\n"}, []string{"tell nothing"}},

		{"unseen relation in valid", []string{"--train", train, "--valid", newRel, "--test", clean},
			[]string{`1 of ` + fmt.Sprint(len(kept)+1) + ` validation triples have a relation the graph never names, first "p1 cousin p2"; no rule is learned for it; such triples tell nothing`}, []string{"test triples"}},
		{"no valid, one beside", []string{"--train", train, "--test", clean},
			[]string{"note: no --valid", "give --valid " + valid}, []string{"warning"}},
		{"no valid, none beside", []string{"--train", headed, "--test", clean},
			[]string{"note: no --valid", "lower the MRR\n"}, []string{"give --valid"}},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := runContext(context.Background(), append([]string{"kgc", "--rounds", "1", "--quiet"}, tc.args...), &stdout, &stderr)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s", tc.name, code, stderr.String())
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, stderr.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr has %q:\n%s", tc.name, w, stderr.String())
			}
		}
	}
}

// A rules file without a rule (only comments, or empty) is refused
// before any work: ranking with no rule would print MRR 0 and exit 0.
func TestKGCRulesInEmpty(t *testing.T) {
	args := kgcFiles(t, 50)
	for _, content := range []string{"", "# AnyBURL rules\n\n# none\n"} {
		rules := filepath.Join(t.TempDir(), "rules.txt")
		if err := os.WriteFile(rules, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := runContext(context.Background(), append([]string{"kgc", "--rules-in", rules, "--quiet"}, args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), rules+": no rules in it") || strings.Contains(stdout.String(), "MRR") {
			t.Errorf("%q: exit %d\n%s%s", content, code, stdout.String(), stderr.String())
		}
	}
}

// --confidence lower ranks a rule of thin evidence below one of equal
// point confidence with more (3 of 3 against 30 of 75 body groundings, both
// 0.375 with pc 5), where point ties them; a bad value is refused before
// any work.
func TestKGCConfidence(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"train.txt": "q\tb\td1\nq\tb\td2\nc1\tx\tc2\n",
		"test.txt":  "q\tr\tc2\n",
		"rules.txt": "3\t3\t0.375\tr(X,c1) <= b(X,d1)\n75\t30\t0.375\tr(X,c2) <= b(X,d2)\n",
	})
	args := []string{"kgc", "--train", filepath.Join(dir, "train.txt"), "--test", filepath.Join(dir, "test.txt"),
		"--rules-in", filepath.Join(dir, "rules.txt"), "--score", "maxplus", "--quiet"}
	// (q, r, ?): c1 and c2 tie under point (rank 1.5), c2 first under
	// lower; (?, r, c2) has q alone.
	for conf, want := range map[string]string{"point": "MRR 0.8333", "lower": "MRR 1.0000"} {
		code, stdout, stderr := runCLI(t, append(args, "--confidence", conf)...)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--confidence %s: exit %d, want %s\n%s%s", conf, code, want, stdout, stderr)
		}
	}
	out := filepath.Join(dir, "pred.txt")
	if code, _, stderr := runCLI(t, append(args, "--confidence", "upper", "--predictions", out)...); code != 2 || !strings.Contains(stderr, "--confidence") {
		t.Errorf("--confidence upper: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--confidence upper wrote predictions")
	}
}

// --pc 0 means no smoothing (confidence = support / body groundings), not
// the default 5 it once became silently; a negative one is refused.
func TestKGCNoSmoothing(t *testing.T) {
	args := kgcFiles(t, 50)
	for _, tc := range []struct {
		pc string
		// smoothing is the pc each rules file line must satisfy.
		smoothing float64
	}{{"0", 0}, {"5", 5}, {"2.5", 2.5}} {
		rules := filepath.Join(t.TempDir(), "rules.txt")
		var stdout, stderr bytes.Buffer
		if code := runContext(context.Background(), append([]string{"kgc", "--rounds", "1", "--pc", tc.pc, "--sample", "0", "--rules", rules, "--quiet"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("--pc %s: exit %d\n%s", tc.pc, code, stderr.String())
		}
		b, err := os.ReadFile(rules)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, l := range lines {
			var body, support int
			var conf float64
			if _, err := fmt.Sscanf(l, "%d\t%d\t%g\t", &body, &support, &conf); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			if want := float64(support) / (float64(body) + tc.smoothing); math.Abs(conf-want) > 1e-5*want {
				t.Fatalf("--pc %s: %q has confidence %g, want %d / (%d + %g) = %g", tc.pc, l, conf, support, body, tc.smoothing, want)
			}
		}
	}
	// Values no rule can use are refused, exit 2: they dropped every rule
	// (--min-conf NaN or 2, --pc +Inf) under exit 0 and MRR 0.
	for _, bad := range [][]string{{"--pc", "-1", "--pc -1: must be a number >= 0"}, {"--pc", "+Inf", "--pc +Inf: must be a number >= 0"},
		{"--min-conf", "NaN", "--min-conf NaN: must be between 0 and 1"}, {"--min-conf", "2", "--min-conf 2: must be between 0 and 1"},
		{"--min-conf", "-0.5", "--min-conf -0.5: must be between 0 and 1"}, {"--threads", "-1", "--threads -1: must be >= 0"}} {
		var stdout, stderr bytes.Buffer
		if code := runContext(context.Background(), append([]string{"kgc", bad[0], bad[1]}, args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), bad[2]) {
			t.Errorf("%s %s: exit %d\n%s", bad[0], bad[1], code, stderr.String())
		}
	}
}

// A run cancelled while its HTML report is written, the last step a
// cancellation stops, writes none of its outputs: the rules and the
// predictions, finished by then, were put in place before the report
// and stayed behind under "no output was written".
func TestKGCCancelledWhileReporting(t *testing.T) {
	args := kgcFiles(t, 100)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	renderHook = cancel
	defer func() { renderHook = nil }()
	var stdout, stderr bytes.Buffer
	code := runContext(ctx, append([]string{"kgc", "--rounds", "1", "--quiet", "--rules", filepath.Join(dir, "r.txt"),
		"--predictions", filepath.Join(dir, "p.txt"), "--html", filepath.Join(dir, "h.html")}, args...), &stdout, &stderr)
	if code != 1 || !strings.HasSuffix(stderr.String(), "hinge kgc: the run was cancelled; no output was written\n") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a cancelled run left %v", ents)
	}

	// The user's own files of those names (an earlier run's, say) are
	// left as they were, and nothing else is left beside them.
	mine := map[string]string{"r.txt": "my rules\n", "p.txt": "my predictions\n", "h.html": "<p>my report</p>\n"}
	for name, text := range mine {
		writeFile(t, dir, name, text)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	renderHook = cancel
	stderr.Reset()
	code = runContext(ctx, append([]string{"kgc", "--rounds", "1", "--quiet", "--rules", filepath.Join(dir, "r.txt"),
		"--predictions", filepath.Join(dir, "p.txt"), "--html", filepath.Join(dir, "h.html")}, args...), &stdout, &stderr)
	if code != 1 {
		t.Errorf("over the user's files: exit %d\n%s", code, stderr.String())
	}
	for name, text := range mine {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
			t.Errorf("%s: now %q (%v), was %q", name, b, err, text)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(mine) {
		t.Errorf("a cancelled run left %v beside the user's files", ents)
	}
}

// A rules file written by --rules ranks, read back with --rules-in,
// exactly as the run that wrote it: the same predictions file byte for
// byte (confidences written as the shortest decimal that reads back,
// entities interned in the learning run's order, so ties list alike).
func TestKGCRulesRoundTrip(t *testing.T) {
	args := kgcFiles(t, 120)
	for _, scoring := range []string{"noisy-or", "maxplus", "max"} {
		dir := t.TempDir()
		rules, learned, reread := filepath.Join(dir, "rules.txt"), filepath.Join(dir, "learned.txt"), filepath.Join(dir, "reread.txt")
		var stdout, stderr bytes.Buffer
		if code := runContext(context.Background(), append([]string{"kgc", "--rounds", "2", "--score", scoring, "--rules", rules, "--predictions", learned, "--quiet"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s", scoring, code, stderr.String())
		}
		if code := runContext(context.Background(), append([]string{"kgc", "--rules-in", rules, "--score", scoring, "--predictions", reread, "--quiet"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("%s --rules-in: exit %d\n%s", scoring, code, stderr.String())
		}
		a, _ := os.ReadFile(learned)
		b, _ := os.ReadFile(reread)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: the predictions ranked with the rules file differ from the learning run's (%d and %d bytes)", scoring, len(a), len(b))
		}
	}
}

// --predictions /dev/stdout gets the predictions alone on standard
// output: the summary goes to standard error.
func TestKGCPredictionsToStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	args := kgcFiles(t, 60)
	dir := t.TempDir()
	file := filepath.Join(dir, "p.txt")
	if code, _, stderr := runCLI(t, append([]string{"kgc", "--rounds", "1", "--quiet", "--predictions", file}, args...)...); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want, _ := os.ReadFile(file)
	stdout := filepath.Join(dir, "stdout") // a link of our own, as TestResultToDevStdout's
	if err := os.Symlink("/proc/self/fd/1", stdout); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"kgc", "--rounds", "1", "--quiet", "--predictions", stdout}, args...)...)
	cmd.Env = append(os.Environ(), "HINGE_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil || !bytes.Equal(got, want) || !strings.Contains(stderr.String(), "MRR") {
		t.Errorf("%v; standard output (%d bytes) is not the predictions alone (%d bytes), or the summary is not on standard error:\n%.300s\nstderr:\n%s", err, len(got), len(want), got, stderr.String())
	}
}

// denseKGCFiles writes a small dense random graph (16 entities, 6
// relations, 400 triples; r1 the inverse of r0 70% of the time) whose
// validation and test triples are held-out r1 triples: later rounds find
// rarer rules there, some of which rank worse.
func denseKGCFiles(t *testing.T, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 9))
	var train, valid, test strings.Builder
	seen := map[[3]int]bool{}
	for len(seen) < 400 {
		h, r, tl := rng.IntN(16), rng.IntN(6), rng.IntN(16)
		if seen[[3]int{h, r, tl}] || r == 1 {
			seen[[3]int{h, r, tl}] = true
			continue
		}
		seen[[3]int{h, r, tl}] = true
		fmt.Fprintf(&train, "e%d\tr%d\te%d\n", h, r, tl)
		if r == 0 && rng.IntN(10) < 7 {
			inv := fmt.Sprintf("e%d\tr1\te%d\n", tl, h)
			switch rng.IntN(4) {
			case 0:
				valid.WriteString(inv)
			case 1:
				test.WriteString(inv)
			default:
				train.WriteString(inv)
			}
		}
	}
	dir := writeFiles(t, map[string]string{"train.txt": train.String(), "test.txt": test.String(), "valid.txt": valid.String()})
	return []string{"--train", filepath.Join(dir, "train.txt"), "--valid", filepath.Join(dir, "valid.txt"), "--test", filepath.Join(dir, "test.txt")}
}

// With --valid, the rules kept are a checkpoint's chosen on the validation
// triples: the run says which, the report gives every checkpoint tried,
// --rules writes the rules kept (--rounds with the chosen number learns
// them again), and --choose-rounds=false keeps every round's.
func TestKGCChooseRounds(t *testing.T) {
	files := denseKGCFiles(t, 2)
	dir := filepath.Dir(files[1])
	args := append([]string{"kgc", "--round-paths", "400", "--quiet", "--threads", "1"}, files...)
	type report struct {
		Rules, Rounds int
		KeptRounds    int `json:"kept_rounds"`
		Chosen        *struct {
			Rounds, Of   int
			ValidQueries int `json:"valid_queries"`
			Tried        []struct {
				Rounds   int
				ValidMRR float64 `json:"valid_mrr"`
			}
		} `json:"chosen_rounds"`
	}
	rulesIn := func(path string) int {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	chosenRules, allRules, rep := filepath.Join(dir, "chosen.rules"), filepath.Join(dir, "all.rules"), filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI(t, append(args, "--rounds", "12", "--rules", chosenRules, "--report", rep)...)
	if code != 0 || !strings.Contains(stdout, "rounds: the rules of the first ") || !strings.Contains(stdout, "checkpoints 1, 2, 3, 6, 12") {
		t.Fatalf("exit %d, no line saying fewer rounds were kept (the data should make a later round lose)\n%s%s", code, stdout, stderr)
	}
	var r report
	readJSON(t, rep, &r)
	if r.Chosen == nil || r.Chosen.Of != 12 || r.Rounds != 12 || r.KeptRounds != r.Chosen.Rounds || r.Chosen.Rounds >= 12 || len(r.Chosen.Tried) != 5 ||
		r.Rules != rulesIn(chosenRules) {
		t.Fatalf("report %+v, %d rules written\n%s", r, rulesIn(chosenRules), stdout)
	}
	best, bestRounds := -1.0, 0
	for _, tr := range r.Chosen.Tried {
		if tr.ValidMRR >= best {
			best, bestRounds = tr.ValidMRR, tr.Rounds
		}
	}
	if r.Chosen.Rounds != bestRounds {
		t.Errorf("kept %d rounds; the best validation MRR is %d rounds' (%+v)", r.Chosen.Rounds, bestRounds, r.Chosen.Tried)
	}
	again := filepath.Join(dir, "again.rules")
	if code, stdout, stderr := runCLI(t, append(args, "--rounds", fmt.Sprint(r.Chosen.Rounds), "--rules", again)...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	a, _ := os.ReadFile(chosenRules)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("--rounds %d learns %d rules, the 12-round run kept %d", r.Chosen.Rounds, rulesIn(again), rulesIn(chosenRules))
	}
	code, stdout, stderr = runCLI(t, append(args, "--rounds", "12", "--rules", allRules, "--report", rep, "--choose-rounds=false")...)
	var all report
	readJSON(t, rep, &all)
	if code != 0 || strings.Contains(stdout, "rounds: ") || all.Chosen != nil || all.KeptRounds != 12 || all.Rules != rulesIn(allRules) || all.Rules <= r.Rules {
		t.Errorf("--choose-rounds=false: exit %d, report %+v (the chosen run kept %d rules)\n%s%s", code, all, r.Rules, stdout, stderr)
	}
	// A sample of 3 validation triples: a choice of fewer rounds made on it
	// is checked on 15 (all of them here) and said so.
	code, stdout, stderr = runCLI(t, append(args, "--rounds", "12", "--report", rep, "--choose-valid", "3")...)
	var small struct {
		Chosen struct {
			Rounds, Of int
			Confirm    *struct {
				Rounds       int
				ValidQueries int `json:"valid_queries"`
			}
		} `json:"chosen_rounds"`
	}
	readJSON(t, rep, &small)
	if cf := small.Chosen.Confirm; code != 0 || cf == nil || cf.ValidQueries != r.Chosen.ValidQueries ||
		!strings.Contains(stdout, fmt.Sprintf(" %d", cf.ValidQueries)) || (small.Chosen.Rounds != cf.Rounds && small.Chosen.Rounds != 12) {
		t.Errorf("--choose-valid 3: exit %d, report %+v\n%s%s", code, small, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, append(args, "--choose-valid", "-1")...); code != 2 || !strings.Contains(stderr, "--choose-valid") {
		t.Errorf("--choose-valid -1: exit %d, %s", code, stderr)
	}
}

// A --rules-in file whose rules outgrow --memory-limit's share is refused
// while read: exit 2, naming the file, the line and the flag.
func TestKGCRulesInMemoryLimit(t *testing.T) {
	var b strings.Builder
	for range 200_000 {
		b.WriteString("3\t1\t0.25\tchild(X,Y) <= parent(Y,X)\n")
	}
	args := kgcFiles(t, 20)
	rules := writeFile(t, t.TempDir(), "big.rules", b.String())
	code, stdout, stderr := runCLI(t, append([]string{"kgc", "--rules-in", rules, "--memory-limit", "16MiB", "--quiet"}, args...)...)
	if code != 2 || !strings.Contains(stderr, "big.rules:") || !strings.Contains(stderr, "rules read so far") || !strings.Contains(stderr, "raise --memory-limit") {
		t.Errorf("exit %d, want 2 and the line and flag named\n%s%s", code, stdout, stderr)
	}
}

// A run cancelled while choosing its rounds or fitting the learned
// weights leaves the user's own files of its outputs' names as they were,
// and nothing beside them; a run of one round has nothing to choose and
// says nothing of it.
func TestKGCChoosingCancelledKeepsUserFiles(t *testing.T) {
	files := denseKGCFiles(t, 2)
	for _, phase := range []string{"choosing", "learned"} {
		dir := t.TempDir()
		mine := map[string]string{"r.txt": "my rules\n", "p.txt": "my predictions\n", "r.json": "{\"mine\": true}\n"}
		for name, text := range mine {
			writeFile(t, dir, name, text)
		}
		outs := []string{"--rules", filepath.Join(dir, "r.txt"), "--predictions", filepath.Join(dir, "p.txt"), "--report", filepath.Join(dir, "r.json")}
		ctx, cancel := context.WithCancel(context.Background())
		reached := false
		kgcPhaseHook = func(status string) {
			if strings.HasPrefix(status, phase) {
				reached = true
				cancel()
			}
		}
		var stdout, stderr bytes.Buffer
		code := runContext(ctx, append(append([]string{"kgc", "--rounds", "12", "--round-paths", "400", "--threads", "1"}, outs...), files...), &stdout, &stderr)
		kgcPhaseHook = nil
		cancel()
		if !reached || code != 1 || !strings.HasSuffix(stderr.String(), "hinge kgc: the run was cancelled; no output was written\n") {
			t.Errorf("%s reached: %v; exit %d\n%s", phase, reached, code, stderr.String())
		}
		for name, text := range mine {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
				t.Errorf("%s: %s: now %q (%v), was %q", phase, name, b, err, text)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != len(mine) {
			t.Errorf("%s: a cancelled run left %v beside the user's files", phase, ents)
		}
	}

	kgcPhaseHook = nil
	rep := filepath.Join(t.TempDir(), "one.json")
	code, out, errOut := runCLI(t, append([]string{"kgc", "--rounds", "1", "--quiet", "--report", rep}, files...)...)
	var r struct {
		KeptRounds int             `json:"kept_rounds"`
		Chosen     json.RawMessage `json:"chosen_rounds"`
	}
	readJSON(t, rep, &r)
	if code != 0 || strings.Contains(out, "rounds: ") || r.KeptRounds != 1 || r.Chosen != nil {
		t.Errorf("--rounds 1: exit %d, report %+v\n%s%s", code, r, out, errOut)
	}
}

// A flag of one scoring given under another is refused, naming the flag,
// the scoring it belongs to and the one the run has (auto resolved), and
// --choose-valid where no rounds are chosen, leaving the user's files of
// its outputs' names as they were; under its own scoring each is accepted.
func TestKGCScoringFlagsRefusedElsewhere(t *testing.T) {
	ex := "../../examples/kgc/"
	base := []string{"kgc", "--train", ex + "train.txt", "--test", ex + "test.txt", "--rounds", "2", "--quiet"}
	valid := []string{"--valid", ex + "valid.txt"}
	rules := writeFile(t, t.TempDir(), "rules.txt", "10\t5\t0.5\tparent(X,Y) <= child(Y,X)\n")
	empty := writeFile(t, t.TempDir(), "valid.txt", "")
	for _, c := range []struct {
		name string
		args []string
		want string // "" accepted
	}{
		{"learned flag, auto without --valid", []string{"--learned-valid", "10"},
			"--learned-valid applies to --score learned only; this run scores with noisy-or (--score auto: learned with validation triples, noisy-or without): give --score learned and --valid with triples to use it"},
		{"learned flag, auto with an empty --valid", []string{"--learned-valid", "10", "--valid", empty},
			"--learned-valid applies to --score learned only; this run scores with noisy-or (--score auto: learned with validation triples, noisy-or without): give --score learned and --valid with triples to use it"},
		{"cluster flag without --valid", []string{"--score", "noisy-or", "--cluster-starts", "3"},
			"--cluster-starts applies to --score clustered only; this run scores with noisy-or: give --score clustered and --valid with triples to use it"},
		{"psl-out under noisy-or", []string{"--score", "noisy-or", "--psl-out", filepath.Join(t.TempDir(), "psl")}, "--psl-out applies to --score psl only"},
		{"learned flag under noisy-or", append([]string{"--score", "noisy-or", "--learned-valid", "10"}, valid...),
			"--learned-valid applies to --score learned only; this run scores with noisy-or: give --score learned to use it"},
		{"learned flag under auto with --valid", append([]string{"--learned-valid", "10"}, valid...), ""},
		{"cluster flag under auto's learned", append([]string{"--cluster-valid", "10"}, valid...),
			"--cluster-valid applies to --score clustered only; this run scores with learned (--score auto: learned with validation triples, noisy-or without): give --score clustered to use it"},
		{"cluster flag under clustered", append([]string{"--score", "clustered", "--cluster-starts", "2"}, valid...), ""},
		{"psl flag under maxplus", []string{"--score", "maxplus", "--psl-train", "10"}, "--psl-train applies to --score psl only; this run scores with maxplus: give --score psl to use it"},
		{"noisy-or-k under max", []string{"--score", "max", "--noisy-or-k", "3"}, "--noisy-or-k applies to --score noisy-or, learned, clustered only; this run scores with max: give --score noisy-or to use it"},
		{"noisy-or-k under auto", []string{"--noisy-or-k", "3"}, ""},
		{"choose-valid without --valid", []string{"--choose-valid", "10"}, "--choose-valid: no rounds are chosen here (no validation triples)"},
		{"choose-valid with an empty --valid", []string{"--choose-valid", "10", "--valid", empty}, "--choose-valid: no rounds are chosen here (no validation triples)"},
		{"choose-valid with one round", append([]string{"--choose-valid", "10", "--rounds", "1"}, valid...), "--choose-valid: no rounds are chosen here (--rounds 1 learns one round)"},
		{"choose-valid without choosing", append([]string{"--choose-valid", "10", "--choose-rounds=false"}, valid...), "--choose-valid: no rounds are chosen here (--choose-rounds=false)"},
		{"choose-valid with --rules-in", append([]string{"--choose-valid", "10", "--rules-in", rules}, valid...), "--choose-valid: no rounds are chosen here (rules read with --rules-in carry no rounds)"},
		{"choose-valid choosing", append([]string{"--choose-valid", "10"}, valid...), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(slices.Clone(base), c.args...)
			// A refused run leaves the user's files of its outputs' names
			// as they were, and nothing beside them (some are refused only
			// once --valid is read).
			out := t.TempDir()
			pred, rep := writeFile(t, out, "mine.pred", "mine\n"), writeFile(t, out, "mine.json", "{}\n")
			if c.want != "" {
				args = append(args, "--predictions", pred, "--report", rep)
			}
			code, _, stderr := runCLI(t, args...)
			if c.want == "" {
				if code != 0 {
					t.Fatalf("exit %d, %s", code, stderr)
				}
				return
			}
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, want %q in\n%s", code, c.want, stderr)
			}
			a, _ := os.ReadFile(pred)
			b, _ := os.ReadFile(rep)
			entries, _ := os.ReadDir(out)
			if string(a) != "mine\n" || string(b) != "{}\n" || len(entries) != 2 {
				t.Fatalf("refused run changed the user's files: %q, %q, %d entries", a, b, len(entries))
			}
		})
	}
}
