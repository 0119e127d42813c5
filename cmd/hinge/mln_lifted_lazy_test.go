package main

import (
	"strings"
	"testing"
)

// TestMLNInferLiftedLazy: --lifted lifts the LP relaxation of the full
// grounding, which lazy grounding does not build. --lifted --lazy ran
// lazily and dropped --lifted without a word (exit 0); it is refused before
// any work, exit 2, naming both flags. When the run would ground lazily by
// itself (beyond --memory-limit), --lifted is refused too (exit 1, as for
// --explain), not dropped.
func TestMLNInferLiftedLazy(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--lifted", "--lazy")
	if code != 2 || !strings.Contains(errs, "--lifted") || !strings.Contains(errs, "--lazy") || stdout != "" {
		t.Errorf("--lifted --lazy: exit %d, stdout %q, stderr %q: want exit 2 naming both flags and no result", code, stdout, errs)
	}
	// 10^6 unknown atoms of T would not fit in 96 MiB: grounding lazily
	// by itself.
	dir := t.TempDir()
	big := writeFile(t, dir, "p.mln", "t = {1, ..., 100}\n*R(t, t)\nT(t, t, t)\n1 !R(x, y) v T(x, y, y)\n")
	small := writeFile(t, dir, "evidence.db", "R(1, 2)\nR(3, 4)\n")
	code, stdout, errs = runCLI(t, "mln", "infer", "-i", big, "-e", small, "-q", "T", "--lifted", "--memory-limit", "96MiB", "--quiet")
	if code != 1 || !strings.Contains(errs, "--lifted") || !strings.Contains(errs, "--memory-limit") || stdout != "" {
		t.Errorf("--lifted beyond --memory-limit: exit %d, stdout %q, stderr %q: want exit 1 naming --lifted and the limit", code, stdout, errs)
	}
}
