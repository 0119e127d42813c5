package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

// maxsatParseV reads the assignment from the 'v' line.
func maxsatParseV(t *testing.T, out string, n int) []bool {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "v ") {
			continue
		}
		x := make([]bool, n)
		for _, tok := range strings.Fields(line)[1:] {
			l, err := strconv.Atoi(tok)
			if err != nil || l == 0 || maxsatAbs(l) > n {
				t.Fatalf("bad v token %q", tok)
			}
			x[maxsatAbs(l)-1] = l > 0
		}
		return x
	}
	t.Fatalf("no v line in:\n%s", out)
	return nil
}

func maxsatAbs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func maxsatLine(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

func TestMaxsatCommand(t *testing.T) {
	// (x1 | x2) w3, ~x1 w2, ~x2 w2, (x1 | ~x3) w1, hard (x3 | x2): the best
	// assignment falsifies weight 2.
	const text = "c test\np wcnf 3 5 100\n3 1 2 0\n2 -1 0\n2 -2 0\n1 1 -3 0\n100 3 2 0\n"
	path := writeFile(t, t.TempDir(), "a.wcnf", text)
	report := filepath.Join(t.TempDir(), "r.json")
	code, out, errs := runCLI(t, "maxsat", path, "--report", report, "--seed", "3", "--local-search", "100", "--threads", "1")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s\n%s", code, errs, out)
	}
	in, err := maxsat.Read(strings.NewReader(text), "a")
	if err != nil {
		t.Fatal(err)
	}
	x := maxsatParseV(t, out, in.NumVars)
	cost := in.FalsifiedWeight(x)
	if got := maxsatLine(out, "o "); got != "o "+strconv.FormatFloat(cost, 'f', -1, 64) {
		t.Fatalf("o line %q, cost of the v assignment %v", got, cost)
	}
	if _, h := in.Eval(x); h != 0 {
		t.Fatalf("assignment violates %d hard clauses", h)
	}
	var rep map[string]any
	readJSON(t, report, &rep)
	for _, k := range []string{"weight_satisfied", "weight_total", "lp_upper_bound", "lp_bound_kind", "certified_ratio", "hard_violated", "variables", "clauses", "seconds"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	sec := rep["seconds"].(map[string]any)
	for _, k := range []string{"load", "relax", "round", "local_search", "total"} {
		if _, ok := sec[k]; !ok {
			t.Errorf("report seconds lacks %q", k)
		}
	}
	sat := rep["weight_satisfied"].(float64)
	ub := rep["lp_upper_bound"].(float64)
	if sat != in.SoftWeight()-cost {
		t.Errorf("weight_satisfied %v, want %v", sat, in.SoftWeight()-cost)
	}
	s := maxsatLine(out, "s ")
	if (s == "s OPTIMUM FOUND") != (sat >= ub) {
		t.Errorf("%q with satisfied %v and bound %v", s, sat, ub)
	}
	if cost != 2 {
		t.Errorf("cost %v, want the optimum 2", cost)
	}
}

func TestMaxsatCommandErrors(t *testing.T) {
	cases := []struct {
		name, text string
		args       []string
		code       int
		want       string
	}{
		{"bad literal", "p wcnf 2 1 10\n1 1 -3 0\n", nil, 2, "bad.wcnf:2:5: literal -3 is out of range"},
		{"wrong count", "p wcnf 2 2 10\n1 1 0\n", nil, 2, "bad.wcnf:1:10: header declares 2 clauses but the file has 1"},
		{"bad flag", "1 1 0\n", []string{"--eps-rel", "-1"}, 2, "eps-rel"},
		{"bad noise", "1 1 0\n", []string{"--noise", "2"}, 2, "--noise"},
		{"infeasible", "h 1 0\nh -1 0\n1 2 0\n", []string{"--repair-steps", "10"}, 1, "violates 1 hard clauses"},
	}
	for _, c := range cases {
		path := writeFile(t, t.TempDir(), "bad.wcnf", c.text)
		code, out, errs := runCLI(t, append([]string{"maxsat", path}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d stderr %q, want exit %d and %q", c.name, code, errs, c.code, c.want)
		}
		if c.code == 1 && maxsatLine(out, "s ") != "s UNSATISFIABLE" {
			t.Errorf("%s: output lacks s UNSATISFIABLE (this one is proven):\n%s", c.name, out)
		}
	}
	if code, _, _ := runCLI(t, "maxsat", filepath.Join(t.TempDir(), "missing.wcnf")); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}

// plantedWCNF writes a satisfiable random 3-SAT instance (every clause holds
// under a hidden assignment) as hard clauses, with one soft unit clause per
// variable.
func plantedWCNF(n, m int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 3))
	hidden := make([]bool, n+1)
	for v := range hidden {
		hidden[v] = rng.IntN(2) == 0
	}
	var b strings.Builder
	for range m {
		for {
			var lits [3]int
			ok := false
			for k := range lits {
				v := 1 + rng.IntN(n)
				if rng.IntN(2) == 0 {
					v = -v
				}
				lits[k] = v
				ok = ok || (v > 0) == hidden[max(v, -v)]
			}
			if ok {
				fmt.Fprintf(&b, "h %d %d %d 0\n", lits[0], lits[1], lits[2])
				break
			}
		}
	}
	for v := 1; v <= n; v++ {
		fmt.Fprintf(&b, "1 %d 0\n", v)
	}
	return b.String()
}

// TestMaxsatUnknown: a satisfiable instance whose rounded assignment
// violates hard clauses, with no repair, is UNKNOWN, not UNSATISFIABLE
// (hinge has no proof), and the assignment is still printed.
func TestMaxsatUnknown(t *testing.T) {
	path := writeFile(t, t.TempDir(), "planted.wcnf", plantedWCNF(200, 852, 1))
	code, out, errs := runCLI(t, "maxsat", path, "--local-search", "0", "--repair-steps", "0")
	if code != 1 || maxsatLine(out, "s ") != "s UNKNOWN" || !strings.HasPrefix(maxsatLine(out, "v "), "v ") {
		t.Fatalf("exit %d, s line %q\n%s%s", code, maxsatLine(out, "s "), out, errs)
	}
}

// TestMaxsatWrittenWeights: weights with more significant digits than a
// float64 holds (the outside tester's reproducers). --exact solves them
// as written and proves the right world optimal, its o line the cost in
// full; the LP mode, whose sums are of the rounded float64s, prints 's
// SATISFIABLE' with a comment that says why no optimum is claimed. Both
// printed 's OPTIMUM FOUND' for a world that costs more than the optimum,
// with the cost to 12 significant digits.
func TestMaxsatWrittenWeights(t *testing.T) {
	dir := t.TempDir()
	notClaimed := "so optimality is not claimed; --exact decides on the weights as written"
	for _, c := range []struct {
		text  string
		args  []string
		wants []string
	}{
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", []string{"--exact"},
			[]string{"weights scaled by 1000000000\n", "\no 100000000.123456788\ns OPTIMUM FOUND\nv 1\n"}},
		{"100000000.123456789 1 0\n100000000.123456788 -1 0\n", nil,
			[]string{"c 2 soft weights have more significant digits than a float64 holds (the first, clause 1: 100000000.123456789, read as 100000000.12345679)",
				notClaimed, "\ns SATISFIABLE\n"}},
		{"1125899906842624.3 1 0\n1125899906842624.2 -1 0\n", []string{"--exact"},
			[]string{"weights scaled by 10\n", "\no 1125899906842624.2\ns OPTIMUM FOUND\nv 1\n"}},
		{"1125899906842624.2 1 0\n1125899906842624.3 -1 0\n", []string{"--exact"},
			[]string{"\no 1125899906842624.2\ns OPTIMUM FOUND\nv -1\n"}},
		{"1125899906842624.2 1 0\n1125899906842624.3 -1 0\n", nil, []string{notClaimed, "\ns SATISFIABLE\n"}},
		{"p wcnf 1 2 1000000000000000000\n9007199254740993 1 0\n9007199254740992 -1 0\n", []string{"--exact"},
			[]string{"\no 9007199254740992\ns OPTIMUM FOUND\nv 1\n"}},
		{"9007199254740993 1 0\n9007199254740992 -1 0\n", []string{"--exact"},
			[]string{"\no 9007199254740992\ns OPTIMUM FOUND\nv 1\n"}},
		{"9007199254740993 1 0\n9007199254740992 -1 0\n", nil, []string{notClaimed, "\ns SATISFIABLE\n"}},
		// Weights a float64 holds: the o line is their exact sum.
		{"0.1 1 0\n0.2 1 0\n0.3 1 0\n0.7 -1 0\n", nil, []string{"\no 0.6\ns OPTIMUM FOUND\n"}},
	} {
		path := writeFile(t, dir, "w.wcnf", c.text)
		code, stdout, stderr := runCLI(t, append([]string{"maxsat", "--quiet", path}, c.args...)...)
		if code != 0 {
			t.Errorf("%q %v: exit %d, %s", c.text, c.args, code, stderr)
		}
		for _, w := range c.wants {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q %v: no %q in\n%s", c.text, c.args, w, stdout)
			}
		}
		if len(c.args) == 0 && strings.Contains(stdout, "OPTIMUM") && strings.Contains(c.text, "9007199254740993") {
			t.Errorf("%q: optimum claimed on rounded weights", c.text)
		}
	}
}
