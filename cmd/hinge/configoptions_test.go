package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigGlobalOptions: a PSL 3 config's global "options" hold every
// component's options; those outside the evaluators' namespace
// (admm.maxiterations, runtime.db.intids, as in PSL's own examples) are not
// the evaluators' and must not make them refuse the run, while a misspelt
// evaluator option is still refused with its position. The others mean
// what PSL's -D means (they were ignored without a word), a -D or flag on
// the command line overrides them, and one hinge does not read is refused
// at its position, as -D refuses it.
func TestConfigGlobalOptions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "acq", "acq.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, options string
		args          []string // after infer --config acq.json
		code          int
		want          string
	}{
		{"other components' options", `"runtime.db.intids": false, "admm.maxiterations": 1000`, nil, 0, "(4 atoms) DiscreteEvaluator: ACCURACY=1 "},
		{"misspelt evaluator option", `"discreteevaluator.treshold": 0.4`, nil, 2, `acq.json:29:17: evaluator for Knows: DiscreteEvaluator: unknown option "discreteevaluator.treshold"`},
		// The options mean what PSL's -D means (they were ignored: 100
		// iterations), and the command line's -D or flag wins.
		{"option as -D", `"admmreasoner.maxiterations": 3`, nil, 0, "ADMM: 3 iterations"},
		{"PSL 3 spelling", `"ADMM.MaxIterations": 4, "inference.normalize": false`, nil, 0, "ADMM: 4 iterations"},
		{"-D overrides the config", `"admmreasoner.maxiterations": 3`, []string{"-D", "admmreasoner.maxiterations=5"}, 0, "ADMM: 5 iterations"},
		{"a flag overrides the config", `"admmreasoner.maxiterations": 3`, []string{"--max-iter", "7"}, 0, "ADMM: 7 iterations"},
		{"learning option on infer", `"votedperceptron.numsteps": 3`, nil, 0, "ADMM: 100 iterations"},
		{"unknown option", `"admmreasoner.maxiterations": 3, "bogus.key": 1`, nil, 2, "acq.json:4:42: option bogus.key: hinge has no such setting"},
		{"bad value", `"admmreasoner.maxiterations": "three"`, nil, 2, `acq.json:4:9: option admmreasoner.maxiterations=three (hinge's --max-iter): invalid argument "three"`},
		{"empty value", `"random.seed": ""`, nil, 2, "acq.json:4:9: option random.seed: no value"},
		{"unknown reasoner", `"inference.reasoner": "SGDReasoner"`, nil, 2, "acq.json:4:9: option inference.reasoner=SGDReasoner: hinge has no SGD solver"},
		{"another command's option on ground", `"random.seed": 4, "admmreasoner.maxiterations": 3`, []string{"ground"}, 0, "total: "},
		// structure applies the options too (they were ignored without a
		// word); the voted perceptron's are not its learner's.
		{"unknown option on structure", `"bogus.key": 1`, []string{"structure", "--target", "Knows"}, 2, "acq.json:4:9: option bogus.key: hinge has no such setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := acqConfig(t, src, tc.options)
			var stdout, stderr bytes.Buffer
			args := []string{"infer", "--config", cfg}
			if len(tc.args) > 0 && (tc.args[0] == "ground" || tc.args[0] == "structure") {
				args[0], tc.args = tc.args[0], tc.args[1:]
			}
			code := run(append(args, tc.args...), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestStructureConfigOptions: hinge structure applies a config's
// random.seed and parallel.numthreads (it ignored every option), and leaves
// its own learner's --iterations alone when the config sets the voted
// perceptron's steps.
func TestStructureConfigOptions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "acq", "acq.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := acqConfig(t, src, `"random.seed": 7, "parallel.numthreads": 1, "votedperceptron.numsteps": 3`)
	dir := filepath.Dir(cfg)
	report := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	args := []string{"structure", "--config", cfg, "--target", "Knows", "--min-support", "1", "--output", filepath.Join(dir, "o.psl"), "--report", report}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	var r struct {
		Options struct {
			Seed       uint64 `json:"seed"`
			Threads    int    `json:"threads"`
			Iterations int    `json:"iterations"`
		} `json:"options"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Options.Seed != 7 || r.Options.Threads != 1 || r.Options.Iterations != 200 {
		t.Errorf("report options %+v, want seed 7, threads 1 and the default 200 iterations\n%s", r.Options, b)
	}
}

// acqConfig writes config/testdata/acq's files (src is its acq.json) to a
// temporary directory with the config's options block replaced by options,
// and returns the config's path.
func acqConfig(t *testing.T, src []byte, options string) string {
	t.Helper()
	const block = `"runtime.db.intids": false,
        "admm.maxiterations": 1000`
	if !strings.Contains(string(src), block) {
		t.Fatal("config/testdata/acq/acq.json no longer has the options block these tests replace")
	}
	dir := t.TempDir()
	acq := filepath.Join("..", "..", "config", "testdata", "acq")
	ents, err := os.ReadDir(acq)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(acq)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "acq.json")
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(src), block, options, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}
