package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if !strings.Contains(stdout, "22 queries: MRR 0.9") {
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
	metrics := func(s string) string { return s[strings.Index(s, "maxplus:"):strings.Index(s, " (ranking")] }
	if code != 0 || !strings.Contains(again, "rules read from") || metrics(again) != metrics(stdout) {
		t.Errorf("--rules-in: exit %d\n%s%s\nfirst run:\n%s", code, again, stderr, stdout)
	}
	bad := writeFile(t, dir, "bad.txt", "a\tb\n")
	if code, _, stderr := runCLI(t, "kgc", "--train", bad, "--test", bad); code != 2 || !strings.Contains(stderr, "bad.txt:1:1") {
		t.Errorf("bad triples: exit %d, %s", code, stderr)
	}
}
