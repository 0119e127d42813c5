package main

import (
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/progress"
)

// everyLine makes newProgress return line reporters (stderr is not a
// terminal here) that print every update, on a clock that moves one second
// a reading, so that the lines are those a long run would print every few
// seconds.
func everyLine(t *testing.T) {
	t.Helper()
	old := newProgress
	t.Cleanup(func() { newProgress = old })
	newProgress = func(w io.Writer, quiet bool, prefix string) *progress.Reporter {
		if quiet {
			return nil
		}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		return progress.Lines(w, prefix, 0, func() time.Time { now = now.Add(time.Second); return now })
	}
}

// TestProgressLinesOffTerminal: where stderr is not a terminal, mln infer
// (reading the evidence, MAP's ADMM, MC-SAT's steps), rrf infer (reading,
// grounding, ICM and Gibbs sweeps; from a .mln and from a .rrf) and learn
// print progress lines "PREFIX: phase, how far (N s)", as infer does; they
// printed nothing (mln and rrf asked for a terminal), and learn's lines
// gave the time twice ("(5.1 s) (5 s)"). --quiet prints none.
func TestProgressLinesOffTerminal(t *testing.T) {
	everyLine(t)
	dir := t.TempDir()
	mlnProg, db := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	for _, c := range []struct {
		name string
		args []string
		want []string // lines with these prefixes
	}{
		{"mln infer MAP", []string{"mln", "infer", "-i", mlnProg, "-e", db, "-q", "Cancer"},
			[]string{"hinge mln infer: reading smokers.db 0/", "hinge mln infer: building the network", "hinge mln infer: relaxation: ADMM iteration "}},
		{"mln infer MC-SAT", []string{"mln", "infer", "-i", mlnProg, "-e", db, "-q", "Cancer", "--marginal", "--method", "mcsat", "--samples", "100"},
			[]string{"hinge mln infer: reading smokers.db ", "hinge mln infer: mcsat: step "}},
		{"mln infer Gibbs", []string{"mln", "infer", "-i", mlnProg, "-e", db, "-q", "Cancer", "--marginal", "--method", "gibbs", "--samples", "100"},
			[]string{"hinge mln infer: gibbs: step "}},
		{"rrf infer, a Markov logic network", []string{"rrf", "infer", "-i", mlnProg, "-e", db, "-q", "Cancer", "--samples", "20", "--burn-in", "5", "--restarts", "2"},
			[]string{"hinge rrf infer: reading smokers.db ", "hinge rrf infer: grounding: rule 1 of ", "hinge rrf infer: building the random field",
				"hinge rrf infer: ICM: restart 1 of 2, sweep 1 ", "hinge rrf infer: ICM: restart 2 of 2, sweep 1 ", "hinge rrf infer: Gibbs: sweep 40 of 40 "}},
		{"rrf infer, a relational RRF", []string{"rrf", "infer", "-i", "../../examples/rrf/smokers.rrf", "-e", db, "-q", "Cancer", "--samples", "20", "--burn-in", "5"},
			[]string{"hinge rrf infer: reading smokers.db ", "hinge rrf infer: grounding the parfeatures", "hinge rrf infer: ICM: restart 1 of 10, sweep 1 ", "hinge rrf infer: Gibbs: sweep 40 of 40 "}},
		{"learn", []string{"learn", "--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data", "--iterations", "3", "--output", filepath.Join(dir, "l.psl"), "--force"},
			[]string{"hinge learn: mle step 1/3: ", "hinge learn: mle step 3/3: "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkProgressLines(t, stderr, c.want)
			code, _, stderr = runCLI(t, append(c.args[:len(c.args):len(c.args)], "--quiet")...)
			if code == 2 && strings.Contains(stderr, "unknown flag: --quiet") {
				return // a command without --quiet
			}
			if code != 0 || strings.Contains(stderr, " s)\n") {
				t.Errorf("--quiet: exit %d, progress printed:\n%s", code, stderr)
			}
		})
	}
}

// progressLine is a line of a line reporter: the prefix, the phase and how
// far it got, and the seconds since the start, once.
var (
	progressLine = regexp.MustCompile(`^hinge[a-z ]*: .+ \(\d+ s\)$`)
	twoTimes     = regexp.MustCompile(`\([0-9.]+ s\) \(\d+ s\)$`)
)

// checkProgressLines checks that stderr has a progress line starting with
// each of want, and that no progress line gives the time twice.
func checkProgressLines(t *testing.T, stderr string, want []string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if progressLine.MatchString(l) {
			lines = append(lines, l)
			if twoTimes.MatchString(l) {
				t.Errorf("the time twice: %q", l)
			}
		}
	}
	for _, w := range want {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, w) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no progress line starting %q in\n%s", w, stderr)
		}
	}
}
