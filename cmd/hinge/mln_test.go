package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const mlnSmokers = `// smokers, Tuffy style
*Friends(person, person)
Smokes(person)
Cancer(person)
0.5  !Smokes(a1) v Cancer(a1)
0.4  Friends(a1, a2) ^ Smokes(a1) => Smokes(a2)
`

func TestMLNInfer(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	out, rep := filepath.Join(dir, "out.result"), filepath.Join(dir, "r.json")
	code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "-r", out, "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n"
	if string(got) != want || !strings.Contains(errs, "cost 0, certified lower bound 0") {
		t.Errorf("result:\n%s\nwant:\n%s\nstderr: %s", got, want, errs)
	}
	var r mlnReport
	readJSON(t, rep, &r)
	if r.Unknowns != 5 || r.Clauses != 2 || !r.Optimal {
		t.Errorf("report %+v", r)
	}
	// Marginals: with only soft clauses every atom has a probability
	// strictly between 0 and 1; Cancer(Anna) (Anna smokes) is likely.
	code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--marginal", "--samples", "2000", "--seed", "3")
	if code != 0 || !strings.HasPrefix(stdout, "Cancer(Anna) 0.") || strings.Count(stdout, "\n") != 3 {
		t.Errorf("--marginal: exit %d\n%s%s", code, stdout, errs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--marginal", "--method", "lp-round"); code != 2 || !strings.Contains(errs, "is a MAP method") {
		t.Errorf("--marginal --method lp-round: exit %d, %s", code, errs)
	}
	if code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--method", "gibbs"); code != 0 || !strings.HasPrefix(stdout, "Cancer(Anna) 0.") {
		t.Errorf("gibbs: exit %d\n%s%s", code, stdout, errs)
	}
	for _, m := range []string{"lp-walksat", "maxwalksat"} {
		if code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--method", m); code != 0 || !strings.Contains(stdout, "Cancer(Carl) 1") {
			t.Errorf("%s: exit %d\n%s%s", m, code, stdout, errs)
		}
	}
}

func TestMLNInferFolderAndErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "predicates", "parent(person, person)\nchild(person, person)\n")
	writeFile(t, dir, "rules", "1.0 !parent(x, y) v child(y, x)\n")
	writeFile(t, dir, "facts", "parent(1, 2)\nparent(2, 3)\n")
	writeFile(t, dir, "queries", "child(2, 1)\nchild(3, 2)\n!child(1, 3)\n")
	code, stdout, errs := runCLI(t, "mln", "infer", "--folder", dir)
	if code != 0 || !strings.Contains(errs, "accuracy on 3 query atoms with truth: 1.0000") || !strings.Contains(stdout, "child(2, 1) 1") {
		t.Errorf("exit %d\n%s%s", code, stdout, errs)
	}
	bad := writeFile(t, dir, "bad.mln", "P(t)\n1 P(x) v Q(x)\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mln", "infer", "-i", bad, "-q", "P"}, 2, "bad.mln:2:10: unknown predicate Q"},
		{[]string{"mln", "infer", "-q", "P"}, 2, "give the program with -i"},
		{[]string{"mln", "infer", "-i", bad, "--folder", dir}, 2, "either --folder or -i"},
		{[]string{"mln", "infer", "--folder", dir, "--method", "tabu"}, 2, `--method "tabu": want lp-round, lp-walksat, maxwalksat or exact (MAP), or auto, exact, mcsat or gibbs (marginals`},
		{[]string{"mln", "infr"}, 2, `unknown command "infr" (did you mean infer?)`},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	// Unsatisfiable hard clauses: exit 2 with the proof, whatever the
	// method, nothing written; or a world with --hard-weight.
	prog2 := writeFile(t, dir, "hard2.mln", "P(t)\nQ(t)\nP(x) v Q(x).\n!P(x).\n!Q(x).\n1 P(A)\n")
	for _, m := range [][]string{nil, {"--lazy"}, {"--lifted"}, {"--method", "exact"}, {"--lazy", "--method", "exact"}, {"--marginal"}, {"--marginal", "--method", "mcsat"}, {"--marginal", "--lazy"}} {
		out, report := filepath.Join(dir, "unsat.r"), filepath.Join(dir, "unsat.json")
		a := append([]string{"mln", "infer", "-i", prog2, "-q", "P,Q", "-e", writeFile(t, dir, "d.db", ""), "-r", out, "--report", report}, m...)
		code, _, errs = runCLI(t, a...)
		if code != 2 || !strings.Contains(errs, "cannot all hold with this evidence") || !strings.Contains(errs, "P(A) v Q(A)   from P(x) v Q(x).") {
			t.Errorf("unsatisfiable %v: exit %d, %s", m, code, errs)
		}
		for _, f := range []string{out, report} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("unsatisfiable %v: %s written", m, f)
				os.Remove(f)
			}
		}
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog2, "-q", "P,Q", "-e", writeFile(t, dir, "d.db", ""), "--hard-weight", "10"); code != 0 {
		t.Errorf("--hard-weight: exit %d, %s", code, errs)
	}
}

func TestMLNLearn(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.mln", "// keep this comment\n*Friends(person, person)\nSmokes(person)\nCancer(person)\n1.5  Smokes(x) => Cancer(x)   // cause\nFriends(x, y) ^ Smokes(x) => Smokes(y)\n@0.2 !Cancer(x)\nSmokes(x) => Smokes(x).\n")
	train := writeFile(t, dir, "t.db", "Friends(A, B)\nFriends(B, C)\nSmokes(A)\nSmokes(B)\nCancer(A)\nCancer(B)\n!Cancer(C)\n")
	out := filepath.Join(dir, "learned.mln")
	code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "-q", "Smokes,Cancer", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	if lines[0] != "// keep this comment" || !strings.HasSuffix(lines[4], "  Smokes(x) => Cancer(x)   // cause") || strings.HasPrefix(lines[4], "1.5 ") ||
		lines[6] != "@0.2 !Cancer(x)" || lines[7] != "Smokes(x) => Smokes(x)." {
		t.Errorf("learned program:\n%s", text)
	}
	// The learned program reads back and infers.
	if code, _, errs := runCLI(t, "mln", "infer", "-i", out, "-e", train, "-q", "Cancer"); code != 0 {
		t.Errorf("infer with the learned program: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "-q", "Smokes", "-o", out); code != 2 || !strings.Contains(errs, "exists") {
		t.Errorf("overwrite without --force: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "--method", "dn"); code != 2 || !strings.Contains(errs, "-q") {
		t.Errorf("dn without a query: exit %d, %s", code, errs)
	}
	// Discriminative learning writes the program back the same way.
	dn := filepath.Join(dir, "dn.mln")
	code, _, errs = runCLI(t, "mln", "learn", "-i", prog, "-t", train, "-q", "Smokes,Cancer", "--method", "dn", "--iterations", "20", "-o", dn)
	if code != 0 || !strings.Contains(errs, "diagonal Newton, ") {
		t.Fatalf("dn: exit %d: %s", code, errs)
	}
	if text, _ := os.ReadFile(dn); !strings.Contains(string(text), "@0.2 !Cancer(x)") {
		t.Errorf("dn program:\n%s", text)
	}
	if code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "-q", "Smokes", "--method", "cg", "-o", filepath.Join(dir, "x.mln")); code != 2 || !strings.Contains(errs, "want pll or dn") {
		t.Errorf("unknown method: exit %d, %s", code, errs)
	}
	// A prior of standard deviation 0 is refused (it used to mean the
	// default silently), as Alchemy's -priorStdDev 0 is.
	for _, flag := range [][]string{{"--prior-stddev", "0"}, {"-priorStdDev", "0"}, {"--prior-stddev=NaN"}} {
		a := append([]string{"mln", "learn", "-i", prog, "-t", train, "-o", filepath.Join(dir, "p0.mln")}, flag...)
		if code, _, errs := runCLI(t, a...); code != 2 || !strings.Contains(errs, "--prior-stddev") {
			t.Errorf("%v: exit %d, %s", flag, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p0.mln")); err == nil {
		t.Error("a refused run wrote its output")
	}
}

// TestRRFInfer: the RRF of a Markov logic network gives the network's MAP
// world by ICM and close marginals by Gibbs sampling.
func TestRRFInfer(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	code, stdout, errs := runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--method", "icm")
	if want := "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n"; code != 0 || stdout != want {
		t.Errorf("icm: exit %d\n%s\nwant\n%s%s", code, stdout, want, errs)
	}
	code, stdout, errs = runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--samples", "3000")
	if code != 0 || !strings.HasPrefix(stdout, "Cancer(Anna) 0.") {
		t.Errorf("gibbs: exit %d\n%s%s", code, stdout, errs)
	}
	if code, _, errs := runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--method", "mcsat"); code != 2 || !strings.Contains(errs, "want icm or gibbs") {
		t.Errorf("bad method: exit %d, %s", code, errs)
	}
	// hinge mln infer --as-rrf runs the same engine: ICM for the MAP world,
	// Gibbs for marginals.
	code, asRRF, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes", "--as-rrf")
	if want := "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n"; code != 0 || asRRF != want || !strings.Contains(errs, "rrf: ") {
		t.Errorf("mln infer --as-rrf: exit %d\n%s\nwant\n%s%s", code, asRRF, want, errs)
	}
	code, asRRF, _ = runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--as-rrf", "--marginal", "--samples", "3000")
	_, gibbs, _ := runCLI(t, "rrf", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--samples", "3000")
	if code != 0 || asRRF != gibbs {
		t.Errorf("mln infer --as-rrf --marginal: exit %d\n%s\nrrf infer:\n%s", code, asRRF, gibbs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--as-rrf", "--method", "maxwalksat"); code != 2 || !strings.Contains(errs, "no RRF counterpart") {
		t.Errorf("--as-rrf maxwalksat: exit %d, %s", code, errs)
	}
}

func TestRRFInferRelational(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.rrf", "*Friends(person, person)\nSmokes(person)\nroot = 2 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(x) + 3 * Smokes(y)\n")
	ev := writeFile(t, dir, "e.db", "Friends(A, B)\nSmokes(A)\nSmokes(C)\n")
	code, stdout, errs := runCLI(t, "rrf", "infer", "-i", model, "-e", ev, "-q", "Smokes", "--method", "icm")
	// Smokes(B) joins the friend pair that smokes; nothing pulls the others.
	if code != 0 || stdout != "Smokes(B) 1\n" {
		t.Errorf("exit %d\n%s%s", code, stdout, errs)
	}
	bad := writeFile(t, dir, "bad.rrf", "Smokes(person)\nroot = 1 * sum(x) Nope(x)\n")
	if code, _, errs := runCLI(t, "rrf", "infer", "-i", bad, "-q", "Smokes"); code != 2 || !strings.Contains(errs, "bad.rrf:2:8: Nope is neither") {
		t.Errorf("bad model: exit %d, %s", code, errs)
	}
}

func TestRRFLearn(t *testing.T) {
	dir := t.TempDir()
	src := "// a comment\n*Friends(person, person)\nSmokes(person)\nroot = 1 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 2 * Friends(x, y) + 2 * Smokes(y)\n"
	model := writeFile(t, dir, "m.rrf", src)
	train := writeFile(t, dir, "t.db", "Friends(A, B)\nFriends(B, C)\nSmokes(B)\nSmokes(C)\n")
	out := filepath.Join(dir, "learned.rrf")
	code, _, errs := runCLI(t, "rrf", "learn", "-i", model, "-t", train, "-q", "Smokes", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	if lines[0] != "// a comment" || !strings.HasPrefix(lines[3], "root = ") || lines[3] == "root = 1 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)" {
		t.Errorf("learned model:\n%s", text)
	}
	if code, _, errs := runCLI(t, "rrf", "infer", "-i", out, "-e", train, "-q", "Smokes"); code != 0 {
		t.Errorf("infer with the learned model: exit %d, %s", code, errs)
	}
}

// TestRRFLearnOptions: --method ll and --revise run and show in the written
// model and the summary; bad values are refused with exit 2.
func TestRRFLearnOptions(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.rrf", "*Friends(person, person)\nSmokes(person)\nroot = 1 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 2 * Friends(x, y) + 2 * Smokes(y)\n")
	train := writeFile(t, dir, "t.db", "Friends(A, B)\nFriends(B, C)\nSmokes(B)\nSmokes(C)\n")
	for i, tc := range []struct {
		args      []string
		code      int
		stderr    string // in standard error
		pairTerms int    // terms of the written Pair line (0: no file)
	}{
		{[]string{"--method", "ll", "--max-iter", "30", "--seed", "3"}, 0, "rrf learn (ll): pseudo-log-likelihood", 2},
		{[]string{"--revise", "0.01"}, 0, "--revise added 2 dependencies of weight 0.01", 4},
		{[]string{"--revise", "0.01", "--method", "ll", "--max-iter", "10"}, 0, "IterationLimit", 4},
		{[]string{"--method", "em"}, 2, `--method "em": want pll or ll`, 0},
		{[]string{"--revise", "NaN"}, 2, "--revise: rrf: revision weight NaN", 0},
		{[]string{"--chains", "0"}, 2, "--chains 0", 0},
	} {
		out := filepath.Join(dir, fmt.Sprintf("out%d.rrf", i))
		code, _, errs := runCLI(t, append([]string{"rrf", "learn", "-i", model, "-t", train, "-q", "Smokes", "-o", out}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.stderr, errs)
			continue
		}
		if tc.pairTerms == 0 {
			continue
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		pair := strings.Split(string(text), "\n")[3]
		if n := strings.Count(pair, "*"); !strings.HasPrefix(pair, "Pair(x, y) =") || n != tc.pairTerms {
			t.Errorf("%v: Pair line %q has %d terms, want %d", tc.args, pair, n, tc.pairTerms)
		}
	}
}

// TestRRFLearnFromMLN: a Markov logic knowledge base is converted to an
// RRF (one parfeature per clause), revised, learned and written as an .rrf
// file that hinge rrf infer reads; a formula the conversion cannot take is
// refused with its position.
func TestRRFLearnFromMLN(t *testing.T) {
	dir := t.TempDir()
	kb := writeFile(t, dir, "kb.mln", "*Friends(person, person)\nSmokes(person)\n1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n-1 Smokes(x)\n")
	train := writeFile(t, dir, "t.db", "Friends(A, B)\nFriends(B, C)\nSmokes(B)\nSmokes(C)\n")
	code, _, errs := runCLI(t, "rrf", "learn", "-i", kb, "-t", train, "-q", "Smokes", "--revise", "0.01")
	if code != 0 || !strings.Contains(errs, "--revise added 1 dependencies") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out := filepath.Join(dir, "kb-learned.rrf")
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	if len(lines) < 6 || !strings.HasPrefix(lines[3], "root = ") || !strings.HasPrefix(lines[4], "F1(x, y) = ") || !strings.Contains(lines[4], "Friends(y, x)") {
		t.Errorf("learned model:\n%s", text)
	}
	if code, _, errs := runCLI(t, "rrf", "infer", "-i", out, "-e", train, "-q", "Smokes"); code != 0 {
		t.Errorf("infer with the learned model: exit %d, %s", code, errs)
	}
	bad := writeFile(t, dir, "bad.mln", "Friends(person, person)\nSmokes(person)\n1 EXIST y Friends(x, y)\n")
	if code, _, errs := runCLI(t, "rrf", "learn", "-i", bad, "-t", train, "-q", "Smokes"); code != 2 || !strings.Contains(errs, "bad.mln:3:3: write a quantifier") {
		t.Errorf("quantified knowledge base: exit %d, %s", code, errs)
	}
}

// TestGroundQueryAtoms: ground query atoms, in a query file or given to -q
// (Cancer(Bob); TestQueryWords splits atoms with commas inside), ask for
// those atoms only, as Alchemy does: the result lists them with
// the values the whole predicate's run gives them, for MAP, marginals and
// lazy MAP; an atom of distinct variables asks for every atom. They used to
// list every Cancer atom (query file) or be refused as undeclared (-q).
func TestGroundQueryAtoms(t *testing.T) {
	dir := t.TempDir()
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	qf := writeFile(t, dir, "q.db", "Cancer(Bob)\n")
	lines := func(out string) []string {
		var ls []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" {
				ls = append(ls, l)
			}
		}
		return ls
	}
	for _, mode := range [][]string{{}, {"--marginal", "--seed", "2"}, {"--lazy"}} {
		_, all, _ := runCLI(t, append([]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer,Smokes"}, mode...)...)
		want := map[string]string{}
		for _, l := range lines(all) {
			want[strings.Fields(l)[0]] = l
		}
		for _, q := range [][]string{{"-q", "Cancer(Bob)"}, {"--query-file", qf}, {"-q", "Smokes, Cancer(Bob)"}, {"-q", "Cancer(x)"}} {
			a := append(append([]string{"mln", "infer", "-i", prog, "-e", ev}, q...), mode...)
			code, out, errs := runCLI(t, a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, errs)
			}
			got := lines(out)
			for _, l := range got {
				atom := strings.Fields(l)[0]
				switch {
				case want[atom] != l:
					t.Errorf("%v: %q, the whole run gives %q", a, l, want[atom])
				case q[1] != "Cancer(x)" && strings.HasPrefix(atom, "Cancer(") && atom != "Cancer(Bob)":
					t.Errorf("%v: %s listed, not asked for", a, atom)
				}
			}
			if len(mode) == 0 || mode[0] != "--lazy" { // lazy MAP lists the true atoms only
				n := 0
				for atom := range want {
					if q[1] == "Cancer(x)" && strings.HasPrefix(atom, "Cancer(") || atom == "Cancer(Bob)" || q[1] == "Smokes, Cancer(Bob)" && strings.HasPrefix(atom, "Smokes(") {
						n++
					}
				}
				if len(got) != n {
					t.Errorf("%v: %d lines, want %d:\n%s", a, len(got), n, out)
				}
			}
		}
	}
}

// TestClosedWorldNote: a MAP world whose query atoms are all false because
// the predicate that would make them true is closed by default (and has no
// true atom) says so on stderr, naming the formula and how to open it; with
// that predicate opened, no note.
func TestClosedWorldNote(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.mln", "Friends(person, person)\nSmokes(person)\nCancer(person)\n2 Smokes(x) => Cancer(x)\n1 !Cancer(x)\n")
	ev := writeFile(t, dir, "e.db", "Friends(Anna, Bob)\n")
	_, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer")
	if !strings.Contains(errs, "note: every unknown atom of Cancer came out false; Smokes, in 2 Smokes(x) => Cancer(x), is closed-world by default") {
		t.Errorf("no closed-world note:\n%s", errs)
	}
	if _, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-o", "Smokes"); strings.Contains(errs, "note: every unknown atom") {
		t.Errorf("a note with Smokes open:\n%s", errs)
	}
}

// TestQueryWords: -q's values split at commas outside parentheses and
// quotes, blanks trimmed.
func TestQueryWords(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"Smokes,Cancer"}, []string{"Smokes", "Cancer"}},
		{[]string{"Smokes, Cancer", " Friends "}, []string{"Smokes", "Cancer", "Friends"}},
		{[]string{"Smokes, Friends(Anna, Bob), Cancer(x)"}, []string{"Smokes", "Friends(Anna, Bob)", "Cancer(x)"}},
		{[]string{`Cancer("Bob, Jr"), P('a)b', c)`}, []string{`Cancer("Bob, Jr")`, `P('a)b', c)`}},
		{[]string{`P("a\"b, c")`}, []string{`P("a\"b, c")`}},
		{[]string{",,", ""}, nil},
	} {
		if got := queryWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("queryWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMLNSoftEvidence: `0.8 P(A)` in the evidence (Tuffy's soft evidence)
// is taken by every method but the lazy ones, which refuse it at its line
// (exit 2). The exact marginal of P(A) is (4+4e)/(6e+4): prior odds 4,
// and the clause P(A) => Q(A) of weight 1.
func TestMLNSoftEvidence(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "se.mln", "t={A,B}\nP(t)\nQ(t)\n1 P(x) => Q(x)\n")
	ev := writeFile(t, dir, "se.db", "0.8 P(A)\n")
	want := (4 + 4*math.E) / (6*math.E + 4)
	for _, m := range []string{"exact", "mcsat", "gibbs"} {
		code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P,Q", "--marginal", "--method", m, "--samples", "20000", "--seed", "2")
		var got float64
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, errs)
		}
		if _, err := fmt.Sscanf(stdout, "P(A) %g", &got); err != nil || math.Abs(got-want) > 0.02 {
			t.Errorf("%s: %s(want P(A) %.4f)", m, stdout, want)
		}
	}
	for _, m := range []string{"lp-round", "exact", "maxwalksat"} {
		if code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "P", "--method", m); code != 0 || !strings.Contains(stdout, "P(A) 1") {
			t.Errorf("%s: exit %d\n%s%s", m, code, stdout, errs)
		}
	}
	for _, args := range [][]string{{"--lazy"}, {"--lazy", "--marginal"}} {
		code, _, errs := runCLI(t, append([]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Q"}, args...)...)
		if code != 2 || !strings.Contains(errs, "se.db:1:1: soft evidence") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

// TestAsRRFRefusesBrokenHardClauses: evidence that breaks a hard clause has
// probability 0; mln infer refuses it, and so do --as-rrf and rrf infer on
// the .mln (the RRF's features make the clause soft, and the run answered
// Q(A) 0.7330 under exit 0: an outside tester's); with --hard-weight given
// the clause is soft by the user's word and the run answers.
func TestAsRRFRefusesBrokenHardClauses(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "h.mln", "P(t)\nQ(t)\n!P(x).\n1 P(x) ^ Q(x)\n")
	ev := writeFile(t, dir, "h.db", "P(A)\n")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"mln", "infer", "--marginal", "--as-rrf"}, 2},
		{[]string{"mln", "infer", "--as-rrf"}, 2},
		{[]string{"rrf", "infer"}, 2},
		{[]string{"mln", "infer", "--marginal", "--as-rrf", "--hard-weight", "20"}, 0},
		{[]string{"rrf", "infer", "--hard-weight", "20"}, 0},
	} {
		code, _, errs := runCLI(t, append(tc.args, "-i", prog, "-e", ev, "-q", "Q")...)
		if code != tc.code || (code == 2 && !strings.Contains(errs, "the hard clauses cannot all hold with this evidence")) {
			t.Errorf("%v: exit %d, %s; want exit %d", tc.args, code, errs, tc.code)
		}
		// The RRF's hard clauses are soft at the default --hard-weight
		// already: the refusal says why it asks for the flag (an outside
		// tester found "--hard-weight 20" working where the default did
		// not, unexplained).
		if code == 2 && !strings.Contains(errs, "refuses evidence that breaks one unless --hard-weight is given") {
			t.Errorf("%v: the refusal does not say why --hard-weight is asked for:\n%s", tc.args, errs)
		}
	}
}

// TestLearnWarnsOfBrokenHardClauses: a training world that breaks a hard
// formula has probability 0 under the knowledge base; mln learn and rrf
// learn on the .mln (whose features make the formula soft; it learned
// without a word) both say so and still learn, and a world that keeps
// the hard formulas gets no warning. With --separate-dbs the warning
// names the world.
func TestLearnWarnsOfBrokenHardClauses(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "kb.mln", "P(person)\nQ(person)\n!P(x).\n1.5 P(x) => Q(x)\n")
	broken := writeFile(t, dir, "broken.db", "P(A)\nQ(A)\nQ(B)\n")
	kept := writeFile(t, dir, "kept.db", "Q(A)\nQ(C)\n")
	for i, tc := range []struct {
		args []string
		warn string // "" for none
	}{
		{[]string{"mln", "learn", "-t", broken, "-q", "P,Q"}, "violates 1 ground hard clause(s)"},
		{[]string{"rrf", "learn", "-t", broken, "-q", "P", "-q", "Q"}, "the training world violates 1 ground hard clause(s) of " + prog},
		{[]string{"rrf", "learn", "-t", kept, "-q", "P", "-q", "Q"}, ""},
		{[]string{"rrf", "learn", "-t", kept, "-t", broken, "--separate-dbs", "-q", "P", "-q", "Q"}, "training world " + broken + " violates 1"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		code, _, errs := runCLI(t, append(tc.args, "-i", prog, "-o", out)...)
		if code != 0 {
			t.Errorf("%v: exit %d, %s", tc.args, code, errs)
			continue
		}
		if got := strings.Contains(errs, "hard clause"); got != (tc.warn != "") || !strings.Contains(errs, tc.warn) {
			t.Errorf("%v: stderr %q, want the warning %q", tc.args, errs, tc.warn)
		}
	}
	// The user's files are as they were.
	for path, want := range map[string]string{prog: "P(person)\nQ(person)\n!P(x).\n1.5 P(x) => Q(x)\n", broken: "P(A)\nQ(A)\nQ(B)\n", kept: "Q(A)\nQ(C)\n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want it unchanged", path, got, err)
		}
	}
}

// TestAsRRFOutputs: hinge mln infer --as-rrf honours --report (a new file
// written, a stale one replaced, with the RRF run's figures) and
// --true-only (only the true atoms, without a value, as mln infer writes
// them); --true-only with marginals is refused, as without --as-rrf.
func TestAsRRFOutputs(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "prog.mln", mlnSmokers)
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	rel := writeFile(t, dir, "m.rrf", "*Friends(person, person)\nSmokes(person)\nroot = 2 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(x) + 3 * Smokes(y)\n")
	relEv := writeFile(t, dir, "e.db", "Friends(A, B)\nSmokes(A)\nSmokes(C)\n")
	tests := []struct {
		name       string
		input, ev  string
		flags      []string
		stale      bool   // a report of an earlier run is there first
		code       int    // exit status
		result     string // the result file, when code is 0
		method     string // the report's method, when code is 0
		errContain string // stderr, when code is not 0
	}{
		{"report, new file", prog, ev, []string{"-q", "Cancer,Smokes"}, false, 0,
			"Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\nSmokes(Bob) 1\nSmokes(Carl) 1\n", "icm", ""},
		{"report replaces a stale one", prog, ev, []string{"-q", "Cancer"}, true, 0,
			"Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\n", "icm", ""},
		{"true-only", prog, ev, []string{"-q", "Cancer,Smokes", "--true-only"}, false, 0,
			"Cancer(Anna)\nCancer(Bob)\nCancer(Carl)\nSmokes(Bob)\nSmokes(Carl)\n", "icm", ""},
		{"marginals report", prog, ev, []string{"-q", "Cancer", "--marginal", "--samples", "200"}, false, 0, "", "gibbs", ""},
		{"relational report", rel, relEv, []string{"-q", "Smokes"}, false, 0, "", "icm", ""},
		{"true-only with marginals", prog, ev, []string{"-q", "Cancer", "--marginal", "--true-only"}, true, 2, "", "", "--true-only"},
		// The Markov logic engine's settings were ignored without a word.
		{"lazy", prog, ev, []string{"-q", "Cancer", "--lazy"}, true, 2, "", "", "--lazy: not with --as-rrf"},
		{"Alchemy's -lazy", prog, ev, []string{"-q", "Cancer", "-lazy"}, true, 2, "", "", "--lazy: not with --as-rrf"},
		{"flips", prog, ev, []string{"-q", "Cancer", "--flips", "10"}, true, 2, "", "", "--flips: not with --as-rrf"},
		{"ADMM", prog, ev, []string{"-q", "Cancer", "--max-iter", "10"}, true, 2, "", "", "--max-iter: not with --as-rrf"},
		{"time limit", prog, ev, []string{"-q", "Cancer", "--time-limit", "1s"}, true, 2, "", "", "--time-limit: not with --as-rrf"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(dir, fmt.Sprintf("rep%d.json", i))
			result := filepath.Join(dir, fmt.Sprintf("r%d.txt", i))
			const stale = "REPORT OF AN EARLIER RUN\n"
			if tc.stale {
				writeFile(t, dir, filepath.Base(report), stale)
			}
			args := append([]string{"mln", "infer", "-i", tc.input, "-e", tc.ev, "--as-rrf", "-r", result, "--report", report}, tc.flags...)
			code, _, errs := runCLI(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			b, err := os.ReadFile(report)
			if tc.code != 0 {
				if !strings.Contains(errs, tc.errContain) || string(b) != stale {
					t.Errorf("stderr %q, report %q: want %q named and the report kept", errs, b, tc.errContain)
				}
				return
			}
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			var rep rrfReport
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("report %q: %v", b, err)
			}
			if rep.Engine != "rrf" || rep.Method != tc.method || rep.Unknowns == 0 || rep.Features == 0 || (tc.method == "gibbs") != (rep.Convergence != nil) {
				t.Errorf("report %s: want engine rrf, method %s, its atoms and features, convergence for gibbs alone", b, tc.method)
			}
			if got, err := os.ReadFile(result); err != nil || tc.result != "" && string(got) != tc.result {
				t.Errorf("result %q (%v), want %q", got, err, tc.result)
			}
		})
	}
}

// pipePath returns a path (/dev/fd/N) that reads text from a pipe once, as
// /dev/stdin or a process substitution does: a second open of it reads
// nothing.
func pipePath(t *testing.T, text string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if _, err := w.WriteString(text); err != nil { // small: within the pipe's buffer
		t.Fatal(err)
	}
	w.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s here: %v", path, err)
	}
	return path
}

// TestProgramOnPipe: a program on a pipe is read once, for its #include
// lines and its parse (the #include scan had emptied the pipe, and every
// command then said the program had no formulas), by every command that
// reads one.
func TestProgramOnPipe(t *testing.T) {
	dir := t.TempDir()
	ev := writeFile(t, dir, "evidence.db", "Friends(Anna, Bob)\nFriends(Bob, Carl)\nSmokes(Anna)\n")
	train := writeFile(t, dir, "t.db", "Friends(Anna, Bob)\nSmokes(Anna)\nSmokes(Bob)\nCancer(Anna)\n")
	rrfModel := "*Friends(person, person)\nSmokes(person)\nroot = 2 * sum(x, y) Pair(x, y) - 1 * sum(x) Smokes(x)\nPair(x, y) = 3 * Friends(x, y) + 3 * Smokes(x) + 3 * Smokes(y)\n"
	tests := []struct {
		name    string
		program string
		args    []string // after -i PATH
		stdout  string   // what stdout holds, when not ""
	}{
		{"mln infer", mlnSmokers, []string{"mln", "infer", "-e", ev, "-q", "Cancer"}, "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\n"},
		{"mln infer --as-rrf", mlnSmokers, []string{"mln", "infer", "--as-rrf", "-e", ev, "-q", "Cancer"}, "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\n"},
		{"rrf infer", mlnSmokers, []string{"rrf", "infer", "--method", "icm", "-e", ev, "-q", "Cancer"}, "Cancer(Anna) 1\nCancer(Bob) 1\nCancer(Carl) 1\n"},
		{"mln learn", mlnSmokers, []string{"mln", "learn", "-t", train, "-q", "Smokes,Cancer", "-o", filepath.Join(dir, "learned.mln")}, ""},
		{"rrf learn", rrfModel, []string{"rrf", "learn", "-t", writeFile(t, dir, "r.db", "Friends(A, B)\nSmokes(B)\n"), "-q", "Smokes", "-o", filepath.Join(dir, "learned.rrf")}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{tc.args[0], tc.args[1], "-i", pipePath(t, tc.program)}, tc.args[2:]...)
			code, stdout, errs := runCLI(t, args...)
			if code != 0 || tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, errs, tc.stdout)
			}
		})
	}
}
