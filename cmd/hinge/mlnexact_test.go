package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/maxsat"
)

// exactMLN is a small network whose optimum is not the all-false world:
// a negative weight, a hard clause and an existential.
const exactMLN = `*Friends(person, person)
Smokes(person)
Cancer(person)
Likes(person, person)
1.5 Friends(x, y) ^ Smokes(x) => Smokes(y)
2 !Smokes(x) v Cancer(x)
-0.7 Cancer(x)
!Cancer(x) v !Likes(x, x).
1 EXIST y Likes(x, y)
`

// TestMLNInferExact: --method exact proves its world optimal, and so does
// --lazy --method exact by cutting planes, with the same cost and true
// atoms; --time-limit belongs to --method exact.
func TestMLNInferExact(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", exactMLN)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	full, rep := filepath.Join(dir, "full.result"), filepath.Join(dir, "r.json")
	code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes,Likes", "--method", "exact", "--time-limit", "1m", "-r", full, "--report", rep)
	if code != 0 || !strings.Contains(errs, "proven optimal") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r mlnReport
	readJSON(t, rep, &r)
	// The relaxation may prove the optimum before the exact search starts
	// (no exact summary then).
	if !r.Optimal || r.Cost != r.LowerBound || r.Exact != nil && r.Exact.Status != "optimal" {
		t.Errorf("report: %+v", r)
	}
	lazy, lrep := filepath.Join(dir, "lazy.result"), filepath.Join(dir, "l.json")
	code, _, errs = runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes,Likes", "--lazy", "--method", "exact", "-r", lazy, "--report", lrep)
	if code != 0 || !strings.Contains(errs, "proven optimal for the whole network") {
		t.Fatalf("lazy: exit %d: %s", code, errs)
	}
	var lr lazyExactReport
	readJSON(t, lrep, &lr)
	if !lr.Optimal || lr.Cost != r.Cost || lr.Rounds < 1 {
		t.Errorf("lazy report %+v, full cost %v", lr, r.Cost)
	}
	// Optimal worlds tie here (one Likes(x, y) a person is enough for
	// the existential), and the lazy search starts from lazy MaxWalkSAT's
	// world, so the two may give different optimal worlds: the lazy one's
	// true atoms must be true atoms of the query predicates, and its cost
	// is compared above (mln's tests evaluate lazy worlds in the full
	// network).
	f, _ := os.ReadFile(full)
	l, _ := os.ReadFile(lazy)
	all := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		atom, _, _ := cutLast(line)
		all[atom] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(string(l)), "\n") {
		if atom, v, _ := cutLast(line); v != "1" || !all[atom] {
			t.Errorf("lazy result line %q: want a query atom of the full run, true", line)
		}
	}
	for _, args := range [][]string{
		{"--time-limit", "5s"},
		{"--method", "lp-round", "--time-limit", "5s"},
		{"--method", "exact", "--time-limit", "-1s"},
	} {
		code, _, errs := runCLI(t, append([]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer"}, args...)...)
		if code != 2 || !strings.Contains(errs, "--time-limit") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

// TestMaxsatExact: hinge maxsat --exact prints the optimum (checked by
// enumeration) with 's OPTIMUM FOUND'; at a time limit too short to prove
// anything it never says so.
func TestMaxsatExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	dir := t.TempDir()
	for trial := range 6 {
		in := &maxsat.Instance{Start: []int32{0}}
		for range 30 {
			var lits []maxsat.Lit
			for _, v := range rng.Perm(10)[:1+rng.IntN(3)] {
				l := maxsat.Pos(v)
				if rng.IntN(2) == 0 {
					l = -l
				}
				lits = append(lits, l)
			}
			if err := in.AddClause(float64(rng.IntN(20))/4, rng.IntN(8) == 0, lits...); err != nil {
				t.Fatal(err)
			}
		}
		in.NumVars = 10
		path := filepath.Join(dir, "i.wcnf")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := maxsat.Write(f, in, maxsat.Format2022); err != nil {
			t.Fatal(err)
		}
		f.Close()
		best := -1.0
		x := make([]bool, 10)
		for mask := range 1 << 10 {
			for v := range x {
				x[v] = mask>>v&1 == 1
			}
			if _, hv := in.Eval(x); hv == 0 {
				if c := in.FalsifiedWeight(x); best < 0 || c < best {
					best = c
				}
			}
		}
		code, out, errs := runCLI(t, "maxsat", "--exact", path)
		if best < 0 {
			if code != 1 || !strings.Contains(out, "s UNSATISFIABLE") {
				t.Errorf("trial %d: unsatisfiable; exit %d\n%s%s", trial, code, out, errs)
			}
			continue
		}
		v := maxsatParseV(t, out, 10)
		if code != 0 || !strings.Contains(out, "s OPTIMUM FOUND") || in.FalsifiedWeight(v) != best {
			t.Errorf("trial %d: optimum %v; exit %d\n%s%s", trial, best, code, maxsatLine(out, "o "), errs)
		}
	}
	// A nanosecond proves nothing on an instance that needs cores.
	rng = rand.New(rand.NewPCG(1, 1))
	path := filepath.Join(dir, "hard.wcnf")
	hard := &maxsat.Instance{Start: []int32{0}}
	for range 2000 {
		a, b, c := maxsat.Pos(rng.IntN(300)), maxsat.Pos(rng.IntN(300)), maxsat.Pos(rng.IntN(300))
		if err := hard.AddClause(float64(1+rng.IntN(5)), false, a, -b, c); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.Create(path)
	maxsat.Write(f, hard, maxsat.Format2022)
	f.Close()
	code, out, _ := runCLI(t, "maxsat", "--exact", "--time-limit", "1ns", path)
	if strings.Contains(out, "OPTIMUM FOUND") || (code == 0) != strings.Contains(out, "s SATISFIABLE") {
		t.Errorf("after a nanosecond: exit %d\n%s", code, maxsatLine(out, "s "))
	}
	if code, _, errs := runCLI(t, "maxsat", "--time-limit", "5s", path); code != 2 || !strings.Contains(errs, "--exact") {
		t.Errorf("--time-limit without --exact: exit %d, %s", code, errs)
	}
}

// TestExactCancelled: exact runs cancelled before or during the search
// exit 1 and write nothing, within moments of the cancellation.
func TestExactCancelled(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", exactMLN)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nSmokes(Anna)\n")
	// Pigeons into fewer holes, each pigeon's "in some hole" soft: the
	// first core is a pigeonhole refutation, exponential for CDCL.
	hard := &maxsat.Instance{Start: []int32{0}}
	const pigeons, holes = 14, 13
	at := func(p, h int) maxsat.Lit { return maxsat.Pos(p*holes + h) }
	for p := range pigeons {
		var some []maxsat.Lit
		for h := range holes {
			some = append(some, at(p, h))
			for q := p + 1; q < pigeons; q++ {
				if err := hard.AddClause(0, true, -at(p, h), -at(q, h)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := hard.AddClause(1, false, some...); err != nil {
			t.Fatal(err)
		}
	}
	wcnf := filepath.Join(dir, "hard.wcnf")
	f, _ := os.Create(wcnf)
	maxsat.Write(f, hard, maxsat.Format2022)
	f.Close()
	res, rep := filepath.Join(dir, "out"), filepath.Join(dir, "r.json")
	for _, args := range [][]string{
		{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes,Likes", "--method", "exact", "-r", res, "--report", rep},
		{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes,Likes", "--method", "exact", "--lazy", "-r", res, "--report", rep},
		{"maxsat", "--exact", wcnf, "--report", rep},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		code, _, errs := runCancelled(t, ctx, args...)
		checkCancelled(t, strings.Join(args[:2], " "), code, errs, res, rep)
	}
	// During the search: the hard instance takes far longer than this.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	code, _, errs := runCancelled(t, ctx, "maxsat", "--exact", wcnf, "--report", rep)
	if time.Since(t0) > time.Minute {
		t.Errorf("the cancelled search ran on for %v", time.Since(t0))
	}
	checkCancelled(t, "maxsat --exact during the search", code, errs, rep)
}

// TestMaxsatBigWeights: the o line is the cost in full (1234567890123457
// was written 1.23456789012e+15), a soft weight past 2^53 says that sums
// are rounded, and --exact on weights it must round says its world is
// optimal only for the rounded weights, not OPTIMUM FOUND at cost 3 where
// 2 was possible (and a weight of 2 beside 1.9e18 is rounded up to 1, not
// to 0: its clause was falsified where nothing had to be).
func TestMaxsatBigWeights(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text  string
		args  []string
		wants []string
	}{
		// The relaxation's bound is 2.5e6 (1e-9 of it) above: no proof.
		{"1234567890123457 1 0\n1234567890123457 -1 0\n", nil, []string{"\no 1234567890123457\n", "\ns SATISFIABLE\n"}},
		{"1234567890123457 1 0\n1234567890123457 -1 0\n", []string{"--exact"}, []string{"\no 1234567890123457\n", "\ns OPTIMUM FOUND\n"}},
		// The weight 2 is rounded up to 1, not to 0, and still counts.
		{"2 -1 0\n1926435979311867380 2 1 0\n", []string{"--exact"}, []string{"beyond 2^53: costs and bounds are float64 sums, which at this size are 256 or more apart",
			"\no 0\n", "\ns OPTIMUM FOUND\n"}},
		// Optimal for the rounded weights at 3.000000001; 2.000000001 is.
		{"24482890864802689 1 0\n2 -2 0\n3 2 0\n0.000000001 -1 0\n", []string{"--exact"}, []string{"optimal only for the weights rounded to integers", "\ns SATISFIABLE\n"}},
		{"22158789378894856 1 0\n34411217634596121 1 0\n3 -2 0\nh 3 2 0\n", nil, []string{"\ns SATISFIABLE\n"}},
		{"0.000000001 1 0\nh -1 3 0\n", nil, []string{"\no 0\n", "\ns OPTIMUM FOUND\n"}},
	} {
		path := writeFile(t, dir, "w.wcnf", c.text)
		code, stdout, stderr := runCLI(t, append([]string{"maxsat", path}, c.args...)...)
		if code != 0 {
			t.Errorf("%q %v: exit %d, %s", c.text, c.args, code, stderr)
		}
		for _, w := range c.wants {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q %v: no %q in\n%s", c.text, c.args, w, stdout)
			}
		}
	}
}

// cutLast splits a result line at its last space: the atom and its value.
func cutLast(line string) (atom, value string, ok bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return line, "", false
	}
	return line[:i], line[i+1:], true
}

// TestMLNRoundedWeights: formula weights with more significant digits
// than a float64 holds are warned about (file:line:col, the value read),
// and exact MAP's proven optimum is one for the weights as read. It said
// "proven optimal" for the world the rounded weights give, not the
// optimum of the weights as written.
func TestMLNRoundedWeights(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text  string
		wants []string
		not   []string
	}{
		{"t = {A}\nP(t)\n100000000.123456788 P(x)\n100000000.123456789 !P(x)\n", []string{
			"warning: " + filepath.Join(dir, "p.mln") + ":3:1: weight 100000000.123456788 has more significant digits than a float64 holds; it is read as 100000000.12345679\n",
			":4:1: weight 100000000.123456789 has more",
			"proven optimal for the weights as read (rounded to float64: see the warnings)"}, nil},
		{"t = {A}\nP(t)\n1.5 P(x)\n0.1 !P(x)\n", []string{", proven optimal;"}, []string{"warning:", "rounded to float64"}},
	} {
		path := writeFile(t, dir, "p.mln", c.text)
		code, _, stderr := runCLI(t, "mln", "infer", "-i", path, "-q", "P", "--method", "exact", "--quiet")
		if code != 0 {
			t.Fatalf("%q: exit %d, %s", c.text, code, stderr)
		}
		for _, w := range c.wants {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: no %q in\n%s", c.text, w, stderr)
			}
		}
		for _, w := range c.not {
			if strings.Contains(stderr, w) {
				t.Errorf("%q: %q in\n%s", c.text, w, stderr)
			}
		}
	}
}
