package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigGlobalOptions: a PSL 3 config's global "options" hold every
// component's options; those outside the evaluators' namespace
// (admm.maxiterations, runtime.db.intids, as in PSL's own examples) are not
// the evaluators' and must not make them refuse the run, while a misspelt
// evaluator option is still refused with its position.
func TestConfigGlobalOptions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "acq", "acq.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `"admm.maxiterations": 1000`) {
		t.Fatal("config/testdata/acq/acq.json no longer has the admm option this test is about")
	}
	for _, tc := range []struct {
		name, options string
		code          int
		want          string
	}{
		{"other components' options", `"runtime.db.intids": false, "admm.maxiterations": 1000`, 0, "(4 atoms) DiscreteEvaluator: ACCURACY=1 "},
		{"misspelt evaluator option", `"discreteevaluator.treshold": 0.4`, 2, `acq.json:29:17: evaluator for Knows: DiscreteEvaluator: unknown option "discreteevaluator.treshold"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
			text := strings.Replace(string(src), `"runtime.db.intids": false,
        "admm.maxiterations": 1000`, tc.options, 1)
			if text == string(src) && tc.code != 0 {
				t.Fatal("the options block of acq.json was not found")
			}
			cfg := filepath.Join(dir, "acq.json")
			if err := os.Remove(cfg); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"infer", "--config", cfg}, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}
