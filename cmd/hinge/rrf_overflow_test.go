package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestRRFDeepChainOverflow: a 300-level chain of parfeatures, whose values
// under the smooth normalisation overflow a float64, is refused with exit 2
// and the parfeature's position, and prints no answer (it printed a log
// score of +Inf and a marginal of 0.062 with exit 0); under --norm max it
// is answered.
func TestRRFDeepChainOverflow(t *testing.T) {
	dir := t.TempDir()
	lines := []string{"Smokes(person)", "Cancer(person)", "root = 1 * sum(x) F0(x)"}
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("F%d(x) = 1 * F%d(x) + 1 * Smokes(x)", i, i+1))
	}
	lines = append(lines, "F300(x) = 1 * Cancer(x)")
	model := writeFile(t, dir, "ch.rrf", strings.Join(lines, "\n")+"\n")
	ev := writeFile(t, dir, "d.db", "Smokes(Anna)\n")
	for _, method := range []string{"icm", "gibbs"} {
		code, stdout, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Cancer", "--method", method)
		if code != 2 || stdout != "" || !strings.Contains(errs, "ch.rrf:68:1: parfeature F64's value can reach") || strings.Contains(errs, "Inf") {
			t.Errorf("--method %s: exit %d\n%s%s", method, code, stdout, errs)
		}
	}
	code, stdout, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Cancer", "--norm", "max")
	if code != 0 || !strings.HasPrefix(stdout, "Cancer(Anna) ") || !strings.Contains(errs, "ICM mode log score 1 ") {
		t.Errorf("--norm max: exit %d\n%s%s", code, stdout, errs)
	}
}
