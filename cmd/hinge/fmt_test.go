package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestFmt: hinge fmt reads a rule file as hinge infer does (block and line
// comments, a rule over two lines, a weighted rule followed by a hard one
// with no weight between) and prints the rules one a line, or as JSON with
// where each starts; a syntax error is bad input naming line and column.
func TestFmt(t *testing.T) {
	dir := t.TempDir()
	psl := writeFile(t, dir, "m.psl", "/* a block\n   comment */\n0.5: Smokes(X)\n   -> Cancer(X) ^2\n0.01: !Cancer(X) # prior\n// c\nSmokes(X) -> Cancer('a#b') .\n")
	code, stdout, stderr := runCLI(t, "fmt", psl)
	if code != 0 || !strings.Contains(stdout, "0.5: Smokes(X) -> Cancer(X) ^2\n0.01: !Cancer(X)\n") || !strings.Contains(stdout, "Smokes(X) -> Cancer('a#b') .\n") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "fmt", "--json", psl)
	var got []fmtRule
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	want := []fmtRule{{3, 1, "0.5: Smokes(X) -> Cancer(X) ^2"}, {5, 1, "0.01: !Cancer(X)"}, {7, 1, "Smokes(X) -> Cancer('a#b') ."}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rule %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if b, err := os.ReadFile(psl); err != nil || !strings.HasPrefix(string(b), "/* a block\n") {
		t.Errorf("the user's file changed: %q, %v", b, err)
	}
	// Degenerate files: empty, comments only (no rules, exit 0), missing.
	for _, text := range []string{"", "# only\n/* a\n comment */\n// c\n"} {
		f := writeFile(t, dir, "e.psl", text)
		if code, stdout, stderr := runCLI(t, "fmt", f); code != 0 || stdout != "" {
			t.Errorf("%q: exit %d\n%s%s", text, code, stdout, stderr)
		}
		if code, stdout, stderr := runCLI(t, "fmt", "--json", f); code != 0 || strings.TrimSpace(stdout) != "[]" {
			t.Errorf("%q --json: exit %d\n%s%s", text, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "fmt", dir+"/missing.psl"); code != 2 || !strings.Contains(stderr, "missing.psl") {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
	bad := writeFile(t, dir, "bad.psl", "# header\n0.5: Smokes(X) -> \n")
	code, stdout, stderr = runCLI(t, "fmt", "--json", bad)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "bad.psl:2:18: ") {
		t.Errorf("syntax error: exit %d\n%s%s", code, stdout, stderr)
	}
}
