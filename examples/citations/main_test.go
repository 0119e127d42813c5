package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyData writes a four-paper network: a and b cite each other, c cites
// a, d has no links.
func tinyData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"labels.txt": "1\tRed\n2\tGreen\n",
		"t.labels":   "a\t1\nb\t1\nc\t2\nd\t2\n",
		"t.links":    "a\tb\nb\ta\nc\ta\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRun(t *testing.T) {
	data := tinyData(t)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"-dataset", "t", "-data", data, "-out", out, "-seed", "3", "-learn-seed", "4"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, sub := range []string{"eval", "learn"} {
		for _, f := range []string{"link_obs.txt", "hasCat_obs.txt", "hasCat_targets.txt", "hasCat_truth.txt", "t.psl", "t.data"} {
			if _, err := os.Stat(filepath.Join(out, sub, f)); err != nil {
				t.Error(err)
			}
		}
	}
	for _, want := range []string{
		"t: 4 papers, 2 categories, 3 links",
		"eval split (seed 3, observed fraction 0.5): 2 observed, 2 target papers",
		"learn split (seed 4, observed fraction 0.5)",
		"link_obs.txt 3 atoms, hasCat_obs.txt 4, hasCat_targets.txt 4, hasCat_truth.txt 4",
		"neighbour-majority baseline: accuracy ",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestRunWithoutLearnSeedWritesOnlyEval(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-dataset", "t", "-data", tinyData(t), "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "learn")); !os.IsNotExist(err) {
		t.Errorf("learn split written without -learn-seed (%v)", err)
	}
}

func TestRunErrors(t *testing.T) {
	data := tinyData(t)
	out := t.TempDir()
	tests := []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"-out", out}, 2, "-dataset is required"},
		{[]string{"-dataset", "t", "-data", data}, 2, "-out is required"},
		{[]string{"-dataset", "t", "-data", data, "-out", out, "-observed", "1"}, 2, "-observed 1: want a fraction"},
		{[]string{"-dataset", "t", "-data", data, "-out", out, "-learn-seed", "1"}, 2, "-learn-seed 1 equals -seed"},
		{[]string{"-dataset", "nope", "-data", data, "-out", out}, 2, "nope.labels"},
		{[]string{"-dataset", "t", "-data", data, "-out", out, "-bogus"}, 2, "flag provided but not defined"},
		{[]string{"-dataset", "t", "-data", data, "-out", out, "extra"}, 2, "unexpected arguments"},
		// An output path under a regular file cannot be created: a failed run.
		{[]string{"-dataset", "t", "-data", data, "-out", filepath.Join(data, "labels.txt", "x")}, 1, "labels.txt"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.wantErr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.wantErr)
		}
	}
}
