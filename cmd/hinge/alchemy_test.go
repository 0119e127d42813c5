package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Alchemy's options are translated before the flags are read, so that
// -ms is not read as -m -s; each translation runs as the hinge flags do.
func TestAlchemyArgs(t *testing.T) {
	root := newRoot()
	for _, tc := range []struct {
		args, want []string
		err        string
	}{
		{[]string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Q", "-ms", "-maxSteps", "500", "-burnMaxSteps=20", "-seed", "7", "-r", "out"},
			[]string{"mln", "infer", "-i", "p.mln", "-e", "e.db", "-q", "Q", "--method", "mcsat", "--samples=500", "--burn-in=20", "--seed=7", "-r", "out"}, ""},
		{[]string{"mln", "infer", "-m", "-mwsMaxSteps", "1000", "-f", "q.db", "-ow", "A,B"},
			[]string{"mln", "infer", "--map", "--true-only", "--flips=1000", "--query-file=q.db", "--open=A,B"}, ""},
		{[]string{"mln", "infer", "-a", "-p", "--", "-ms"}, []string{"mln", "infer", "--map", "--method", "gibbs", "--", "-ms"}, ""},
		{[]string{"mln", "learn", "-i", "p.mln", "-o", "out.mln", "-t", "t.db", "-ne", "Q,R", "-g", "-noPrior", "-gMaxIter", "50", "-noAddUnitClauses"},
			[]string{"mln", "learn", "-i", "p.mln", "-o", "out.mln", "-t", "t.db", "--query=Q,R", "--method", "pll", "--prior-stddev", "-1", "--max-iter=50"}, ""},
		{[]string{"mln", "learn", "-d", "-dNumIter", "5", "-priorStdDev", "2", "-gNoEqualPredWt"},
			[]string{"mln", "learn", "--method", "dn", "--iterations=5", "--prior-stddev=2", "--atom-weights"}, ""},
		{[]string{"mln", "learn", "-gNoEqualPredWt", "false"}, []string{"mln", "learn", "--atom-weights=false"}, ""},
		// Other commands are left alone: PSL's -m is --model.
		{[]string{"infer", "-m", "x.psl", "-d", "x.data"}, []string{"infer", "-m", "x.psl", "-d", "x.data"}, ""},
		// Two options setting one flag to different values are refused
		// (the last one used to win); the same value twice is not.
		{[]string{"mln", "infer", "-ms", "-p"}, nil, "-ms and -p ask for different --method (mcsat and gibbs): give one"},
		{[]string{"mln", "infer", "--method", "gibbs", "-ms"}, nil, "--method and -ms ask for different --method (gibbs and mcsat)"},
		{[]string{"mln", "infer", "-ms", "--method=gibbs"}, nil, "-ms and --method ask for different --method (mcsat and gibbs)"},
		{[]string{"mln", "learn", "-d", "-g"}, nil, "-d and -g ask for different --method (dn and pll)"},
		{[]string{"mln", "infer", "-seed", "1", "--seed", "2"}, nil, "-seed and --seed ask for different --seed (1 and 2)"},
		{[]string{"mln", "infer", "-ms", "--method", "mcsat", "-m", "-a"}, []string{"mln", "infer", "--method", "mcsat", "--method", "mcsat", "--map", "--true-only", "--map"}, ""},
		{[]string{"mln", "infer", "-bp"}, nil, "Alchemy's option -bp has no counterpart in hinge mln infer: belief propagation is not implemented"},
		{[]string{"mln", "learn", "-multipleDatabases"}, nil, "Alchemy's option -multipleDatabases has no counterpart"},
		{[]string{"mln", "infer", "-maxSteps"}, nil, "Alchemy's option -maxSteps needs a value"},
		{[]string{"mln", "infer", "-ms=1"}, nil, "Alchemy's option -ms takes no value"},
		{[]string{"learnwts", "-i", "p.mln", "-o", "o.mln", "-t", "t.db", "-ne", "Q", "-g"}, nil,
			"Alchemy's learnwts is `hinge mln learn` (it takes Alchemy's options): did you mean `hinge mln learn -i p.mln -o o.mln -t t.db -ne Q -g`?"},
		{[]string{"infer", "-i", "my prog.mln", "-e", "e.db", "-r", "out", "-q", "Q", "-ms"}, nil,
			"hinge infer is for PSL models; a Markov logic network (.mln) runs with `hinge mln infer` (it takes Alchemy's options): did you mean `hinge mln infer -i 'my prog.mln' -e e.db -r out -q Q -ms`?"},
		{[]string{"learn", "-i", "p.mln", "-t", "t.db", "-o", "o.mln"}, nil, "did you mean `hinge mln learn -i p.mln -t t.db -o o.mln`?"},
		// Without -m, -a, -ms or -p Alchemy's infer samples marginals:
		// the suggestion keeps that meaning (hinge's default is MAP).
		{[]string{"infer", "-i", "s.mln", "-e", "e.db", "-r", "out", "-q", "Q"}, nil,
			"did you mean `hinge mln infer -i s.mln -e e.db -r out -q Q -ms`? (-ms added: Alchemy's infer samples marginals by MC-SAT unless -m or -a asks for the MAP world"},
		{[]string{"infer", "-i", "s.mln", "-e", "e.db", "-r", "out", "-q", "Q", "-m"}, nil, "did you mean `hinge mln infer -i s.mln -e e.db -r out -q Q -m`?"},
		{[]string{"infer", "-i", "s.mln", "-e", "e.db", "-r", "out", "-q", "Q", "-bp"}, nil, "did you mean `hinge mln infer -i s.mln -e e.db -r out -q Q -bp`?"},
		{[]string{"infer", "-mln", "s.mln", "-evidence", "e.db", "-result", "out", "-q", "Q"}, nil, "did you mean `hinge mln infer -mln s.mln -evidence e.db -result out -q Q`?"},
	} {
		got, err := alchemyArgs(root, tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || exitCode(err) != 2 {
				t.Errorf("%v: error %v, want %q (exit 2)", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case !slices.Equal(got, tc.want):
			t.Errorf("%v:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// The translated command lines run: Alchemy's MC-SAT options give what
// hinge's flags give, -m writes the true query atoms without values (as
// Alchemy's -m does), learnwts -g learns over every predicate, and the
// help lists the translations.
func TestAlchemyArgsRun(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	run := func(args ...string) string {
		t.Helper()
		code, stdout, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return stdout
	}
	alchemy := run("mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-ms", "-maxSteps", "400", "-burnMaxSteps", "10", "-seed", "5")
	hinge := run("mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "--method", "mcsat", "--samples", "400", "--burn-in", "10", "--seed", "5")
	if alchemy != hinge || !strings.HasPrefix(alchemy, "Cancer(Anna) 0.") {
		t.Errorf("-ms:\n%s\n--method mcsat:\n%s", alchemy, hinge)
	}
	all := run("mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-a")
	pos := run("mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-m")
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(all), "\n") {
		if a, ok := strings.CutSuffix(l, " 1"); ok {
			want = append(want, a)
		}
	}
	if len(want) == 0 || pos != strings.Join(want, "\n")+"\n" {
		t.Errorf("-m:\n%s\n-a:\n%s", pos, all)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-m", "--marginal"); code != 2 || !strings.Contains(errs, "--true-only (Alchemy's -m) writes a MAP world") {
		t.Errorf("-m --marginal: exit %d, %s", code, errs)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "learned.mln")
	code, stdout, errs := runCLI(t, "mln", "learn", "-i", prog, "-o", out, "-t", ev, "-g")
	if code != 0 || !strings.Contains(errs, "of 3 predicate(s)") || !strings.HasPrefix(stdout, "     initial      learned  formula\n") {
		t.Errorf("-g: exit %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	for _, c := range [][]string{{"mln", "infer", "--help"}, {"mln", "learn", "--help"}} {
		_, help, _ := runCLI(t, c...)
		for _, w := range []string{"options are accepted as their users type them", "have no counterpart here"} {
			if !strings.Contains(help, w) {
				t.Errorf("%v: no %q in\n%s", c, w, help)
			}
		}
	}
	if _, help, _ := runCLI(t, "mln", "infer", "--help"); !strings.Contains(help, "  -ms                --method mcsat\n") {
		t.Errorf("mln infer --help:\n%s", help)
	}
	if _, help, _ := runCLI(t, "mln", "learn", "--help"); !strings.Contains(help, "  -ne V              --query V\n") {
		t.Errorf("mln learn --help:\n%s", help)
	}
}

// A program and an evidence file given in each other's place, a program
// with no formulas and an undeclared query predicate are bad input (exit
// 2) naming the file and what is wrong, for mln infer, rrf infer and rrf
// learn (they used to exit 0 with an empty result).
func TestSwappedProgramAndEvidence(t *testing.T) {
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	dir := t.TempDir()
	empty := writeFile(t, dir, "decls.mln", "Smokes(person)\nCancer(person)\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mln", "infer", "-i", ev, "-e", ev, "-q", "Cancer"}, "smokers.db:1:1: unknown predicate Friends: Friends(Anna, Bob) is a ground atom, which belongs in an evidence file (.db)"},
		{[]string{"mln", "infer", "-i", ev, "-e", prog, "-q", "Cancer"}, "smokers.db:1:1: unknown predicate Friends"},
		{[]string{"mln", "infer", "-i", prog, "-e", prog, "-q", "Cancer"}, "smokers.mln:4:1: expected a ground atom"},
		{[]string{"rrf", "infer", "-i", ev, "-e", ev, "-q", "Cancer"}, "smokers.db:1:1: unknown predicate Friends"},
		{[]string{"rrf", "learn", "-i", ev, "-t", ev, "-q", "Cancer", "-o", filepath.Join(dir, "x.rrf")}, "smokers.db:1:1: unknown predicate Friends"},
		{[]string{"mln", "learn", "-i", ev, "-t", ev, "-o", filepath.Join(dir, "x.mln")}, "smokers.db:1:1: unknown predicate Friends"},
		{[]string{"mln", "infer", "-i", empty, "-e", ev, "-q", "Cancer"}, "decls.mln: the program has no formulas (it declares 2 predicate(s))"},
		{[]string{"rrf", "infer", "-i", empty, "-e", ev, "-q", "Cancer"}, "decls.mln: the program has no formulas"},
		{[]string{"rrf", "learn", "-i", empty, "-t", ev, "-q", "Cancer", "-o", filepath.Join(dir, "y.rrf")}, "decls.mln: the program has no formulas"},
		{[]string{"mln", "learn", "-i", empty, "-t", ev, "-o", filepath.Join(dir, "y.mln")}, "decls.mln: the program has no formulas"},
		{[]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Drinks"}, "query predicate Drinks is not declared in the program"},
		{[]string{"rrf", "infer", "-i", prog, "-e", ev, "-q", "Drinks"}, "query predicate Drinks is not declared in the program"},
		{[]string{"rrf", "infer", "-i", "../../examples/rrf/smokers.rrf", "-e", ev, "-q", "Drinks"}, "query predicate Drinks is not declared in the program"},
		{[]string{"rrf", "learn", "-i", prog, "-t", ev, "-q", "Drinks", "-o", filepath.Join(dir, "z.rrf")}, "query predicate Drinks is not declared in the program"},
		{[]string{"mln", "learn", "-i", prog, "-t", ev, "-q", "Drinks", "-o", filepath.Join(dir, "z.mln")}, "query predicate Drinks is not declared in the program"},
	} {
		code, stdout, errs := runCLI(t, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, errs, tc.want)
		}
	}
}

// hinge mln learn without -q learns over every predicate (Alchemy's
// learnwts -g without -ne), prints the weights in hinge learn's layout
// (a header, initial then learned), says whether L-BFGS converged, writes a
// +x formula back as one formula per constant, and refuses a training
// world that grounds no clause (it used to write a program of zero
// weights, exit 0).
func TestMLNLearnAllPredicates(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "p.mln", "Owns(person, pet)\nHappy(person)\n// per pet\n1 Owns(x, +p) => Happy(x)\n0.5 Happy(x)\n")
	train := writeFile(t, dir, "t.db", "Owns(A, Cat)\nOwns(B, Dog)\nOwns(C, Dog)\nHappy(A)\nHappy(B)\n!Happy(D)\n")
	out, rep := filepath.Join(dir, "learned.mln"), filepath.Join(dir, "r.json")
	code, stdout, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "-o", out, "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(stdout, "\n")
	if lines[0] != "     initial      learned  formula" || !strings.HasSuffix(lines[1], "  Owns(x, Cat) => Happy(x)") || !strings.HasPrefix(lines[1], "           1 ") ||
		!strings.HasSuffix(lines[2], "  Owns(x, Dog) => Happy(x)") || !strings.HasSuffix(lines[3], "  Happy(x)") || !strings.HasPrefix(lines[3], "         0.5 ") {
		t.Errorf("weights:\n%s", stdout)
	}
	if !strings.Contains(errs, "mln learn: 12 atoms of 2 predicate(s)") || !strings.Contains(errs, "L-BFGS converged after") {
		t.Errorf("stderr: %s", errs)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(string(text), "\n")
	if got[3] != "// Owns(x, +p) => Happy(x): one weight per constant of +p, learned" || !strings.HasSuffix(got[4], "  Owns(x, Cat) => Happy(x)") || !strings.HasSuffix(got[5], "  Owns(x, Dog) => Happy(x)") {
		t.Errorf("learned program:\n%s", text)
	}
	var r struct {
		Converged bool
		Params    []struct {
			Constants []string
			Learned   float64
		}
	}
	readJSON(t, rep, &r)
	if !r.Converged || len(r.Params) != 3 || r.Params[1].Constants[0] != "Dog" {
		t.Errorf("report %+v", r)
	}
	// The learned program reads back and infers.
	if code, _, errs := runCLI(t, "mln", "infer", "-i", out, "-e", train, "-q", "Happy"); code != 0 {
		t.Errorf("infer with the learned program: exit %d, %s", code, errs)
	}
	// No pets: the +x formula has no groundings, and Happy is evidence.
	noneTrain := writeFile(t, dir, "none.db", "!Happy(A)\n")
	if code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", noneTrain, "-q", "Owns", "-o", filepath.Join(dir, "none.mln")); code != 2 || !strings.Contains(errs, "no ground clauses over the training world") {
		t.Errorf("no ground clauses: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "learn", "-i", prog, "-t", train, "--method", "dn", "-o", filepath.Join(dir, "dn.mln")); code != 2 || !strings.Contains(errs, "--method dn needs the query predicates") {
		t.Errorf("dn without -q: exit %d, %s", code, errs)
	}
	code, _, errs = runCLI(t, "mln", "learn", "-i", prog, "-t", train, "--max-iter", "1", "-o", filepath.Join(dir, "one.mln"))
	if code != 0 || !strings.Contains(errs, "L-BFGS did not converge after 1 iterations (IterationLimit") || !strings.Contains(errs, "warning: L-BFGS did not converge (it stopped at the iteration limit: raise --max-iter)") {
		t.Errorf("--max-iter 1: exit %d, %s", code, errs)
	}
}

// TestAlchemySuggestionRuns: hinge infer or hinge learn given a .mln
// program with the PSL commands' flags suggests a hinge mln command, which
// must run: -m/--model becomes -i, -d/--data -e (infer) or -t (learn), a
// PSL data file and the query predicates become placeholders the message
// explains, and flags hinge mln does not have are left out (it suggested
// `hinge mln infer -m P.mln -d D.data`, where -m is --map and -d unknown).
// The suggestion, its placeholders filled, runs with exit status 0.
func TestAlchemySuggestionRuns(t *testing.T) {
	prog, ev, data := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db", "../../examples/smokers/smokers.data"
	out := filepath.Join(t.TempDir(), "learned.mln")
	fill := strings.NewReplacer("QUERY", "Cancer", "EVIDENCE.db", ev, "TRAIN.db", ev)
	for _, tc := range []struct {
		args  []string
		notes []string // in the message besides the command
	}{
		{[]string{"infer", "-m", prog, "-d", data}, []string{"QUERY: the predicates to infer", "EVIDENCE.db: an Alchemy database (.db) in place of the PSL data " + data}},
		{[]string{"infer", "--model", prog, "--data", data}, []string{"EVIDENCE.db"}},
		{[]string{"infer", "--model=" + prog, "-d", ev, "--output", "/tmp/o", "--seed", "3", "--quiet"}, []string{"--output left out: no counterpart in hinge mln infer"}},
		{[]string{"infer", prog, ev}, nil},
		{[]string{"learn", "-m", prog, "-d", data, "--output", out}, []string{"TRAIN.db"}},
		{[]string{"learn", "--model", prog, "--data", ev, "--output", out, "--force", "--l2", "1"}, []string{"--l2 left out"}},
	} {
		code, _, errs := runCLI(t, tc.args...)
		_, after, ok := strings.Cut(errs, "did you mean `")
		cmdline, notes, ok2 := strings.Cut(after, "`?")
		if code != 2 || !ok || !ok2 || !strings.HasPrefix(cmdline, "hinge mln ") {
			t.Errorf("%q: exit %d, stderr %q: want exit 2 and a hinge mln command", tc.args, code, errs)
			continue
		}
		for _, n := range tc.notes {
			if !strings.Contains(notes, n) {
				t.Errorf("%q: %q does not say %q", tc.args, errs, n)
			}
		}
		args := strings.Fields(fill.Replace(cmdline))[1:]
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Errorf("%q suggests %q, which exits %d: %s", tc.args, cmdline, code, errs)
		}
	}
}

// TestTuffyArgs: a Tuffy command line (its -mln, -evidence, -queryFile,
// -marginal, -mcsatSamples, -result) runs under hinge mln infer as the same
// hinge flags do; given to hinge infer it is answered with that command;
// Tuffy's options without a counterpart are refused naming Tuffy, an
// argument left over names the mln command's flags (not PSL's), a
// misspelt query predicate gets a suggestion, -q's blanks are trimmed, and
// Tuffy's -o (its output file, here Alchemy's --open) naming no predicate
// is refused pointing to -r; it used to be ignored silently.
func TestTuffyArgs(t *testing.T) {
	dir := t.TempDir()
	prog, ev := "../../examples/mln/smokers.mln", "../../examples/mln/smokers.db"
	q := writeFile(t, dir, "q.db", "Cancer(x)\n")
	tuffyOut, hingeOut := filepath.Join(dir, "tuffy.txt"), filepath.Join(dir, "hinge.txt")
	code, _, errs := runCLI(t, "mln", "infer", "-mln", prog, "-evidence", ev, "-queryFile", q, "-marginal", "-mcsatSamples", "300", "-result", tuffyOut, "-nopart", "-activateAll")
	if code != 0 {
		t.Fatalf("Tuffy's words: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "--query-file", q, "--marginal", "--samples", "300", "-r", hingeOut); code != 0 {
		t.Fatalf("hinge's words: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(tuffyOut)
	b, _ := os.ReadFile(hingeOut)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("Tuffy's words wrote\n%s\nhinge's\n%s", a, b)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "-mln", prog, "-evidence", ev, "-queryFile", q, "-marginal"}, "did you mean `hinge mln infer -mln " + prog + " -evidence " + ev + " -queryFile " + q + " -marginal`?"},
		{[]string{"mln", "infer", "-i", prog, "-e", ev, "-queryFile", q, "-dribble", "log.txt"}, "Tuffy's option -dribble has no counterpart in hinge mln infer"},
		{[]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "extra"}, `unexpected argument "extra": this command takes only flags (-i PROG.mln -e EVIDENCE.db`},
		{[]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Canser"}, "query predicate Canser is not declared in the program (did you mean Cancer?)"},
		{[]string{"mln", "infer", "-i", prog, "-e", ev, "-q", "Cancer", "-o", filepath.Join(dir, "out.txt")}, "the result file is -r, which is Tuffy's -o"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q: want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Error("-o out.txt wrote a file")
	}
	if code, stdout, errs := runCLI(t, "mln", "infer", "-i", prog, "-e", ev, "-q", "Smokes, Cancer"); code != 0 || !strings.Contains(stdout, "Cancer(Bob)") || !strings.Contains(stdout, "Smokes(") {
		t.Errorf(`-q "Smokes, Cancer": exit %d: %s%s`, code, stdout, errs)
	}
}

// TestPSLDefines: PSL's -D key=value (and -Dkey=value) becomes the hinge
// flag that does the same; logging keys are dropped, a key that sets a
// step the command does not run (a learning key on infer, the seed, the
// solver and the evaluation on ground) is dropped with a note naming it,
// on every command alike (ground used to refuse random.seed and drop
// eval.includeobs without a word), and any other key is refused naming
// the keys hinge reads (it used to be "unknown shorthand flag: 'D'").
func TestPSLDefines(t *testing.T) {
	root := newRoot()
	for _, tc := range []struct {
		args, want []string
		notes      []string // substrings of the notes, one per note
		err        string
	}{
		{[]string{"infer", "-m", "M.psl", "-D", "admmreasoner.maxiterations=10", "-Dadmm.epsilonabs=1e-6", "-D", "log4j.threshold=DEBUG", "-D", "random.seed=3"},
			[]string{"infer", "-m", "M.psl", "--max-iter=10", "--eps-abs=1e-6", "--seed=3"}, nil, ""},
		{[]string{"infer", "-D", "votedperceptron.numsteps=5", "-D", "discreteevaluator.threshold=0.3", "-D", "eval.includeobs=true", "-D", "inference.reasoner=org.linqs.psl.reasoner.dcd.DCDReasoner"},
			[]string{"infer", "--eval-option=discreteevaluator.threshold=0.3", "--include-observed=true", "--streaming"},
			[]string{"hinge infer: note: PSL's -D votedperceptron.numsteps=5 is ignored: it sets weight learning, which hinge infer does not run"}, ""},
		{[]string{"infer", "-D", "eval.closetruth=true"}, []string{"infer", "--eval-option=eval.closetruth=true"}, nil, ""},
		{[]string{"learn", "-D", "eval.closetruth=true"}, []string{"learn"}, []string{"hinge learn: note: PSL's -D eval.closetruth=true is ignored: it sets the evaluation"}, ""},
		{[]string{"learn", "-D", "votedperceptron.numsteps=5", "-D", "parallel.numthreads=2", "--", "-D", "x"},
			[]string{"learn", "--iterations=5", "--threads=2", "--", "-D", "x"}, nil, ""},
		{[]string{"mln", "infer", "-D", "x=1"}, []string{"mln", "infer", "-D", "x=1"}, nil, ""}, // not a PSL command
		{[]string{"infer", "-D", "sgd.learningrate=1"}, nil, nil, "PSL's -D sgd.learningrate: hinge has no such setting"},
		{[]string{"ground", "-D", "sgd.learningrate=1"}, nil, nil, "PSL's -D sgd.learningrate: hinge has no such setting"},
		{[]string{"infer", "-D", "inference.reasoner=SGDReasoner"}, nil, nil, "no SGD solver"},
		{[]string{"infer", "-D", "novalue"}, nil, nil, `PSL's -D "novalue": want key=value`},
		{[]string{"infer", "-D"}, nil, nil, "PSL's -D needs key=value"},
		{[]string{"ground", "-D", "random.seed=1", "-D", "votedperceptron.numsteps=5", "-Dadmm.maxiterations=3", "-D", "eval.includeobs=true",
			"-D", "discreteevaluator.threshold=0.3", "-D", "inference.reasoner=DCDReasoner", "-D", "parallel.numthreads=1", "-D", "log4j.threshold=DEBUG"},
			[]string{"ground", "--threads=1"}, []string{
				"hinge ground: note: PSL's -D random.seed=1 is ignored: it sets the seed of inference's random choices, which hinge ground does not run (it has no --seed)",
				"-D votedperceptron.numsteps=5 is ignored: it sets weight learning, which hinge ground does not run (it has no --iterations)",
				"-D admm.maxiterations=3 is ignored: it sets the ADMM solver",
				"-D eval.includeobs=true is ignored: it sets the evaluation, which hinge ground does not run",
				"-D discreteevaluator.threshold=0.3 is ignored: it sets the evaluation",
				"-D inference.reasoner=DCDReasoner is ignored: it sets inference's solver, which hinge ground does not run"}, ""},
		{[]string{"structure", "-D", "random.seed=1"}, []string{"structure", "-D", "random.seed=1"}, nil, ""}, // no -D there
		{[]string{"learn", "-D", "inference.reasoner=DCDReasoner"}, []string{"learn"}, []string{"-D inference.reasoner=DCDReasoner is ignored: it sets inference's solver; hinge learn infers by ADMM"}, ""},
		{[]string{"infer", "--report", "-Dx.json"}, []string{"infer", "--report", "-Dx.json"}, nil, ""},
		{[]string{"infer", "-D", "admmreasoner.maxiterations="}, nil, nil, "PSL's -D admmreasoner.maxiterations=: no value"},
	} {
		got, notes, err := pslDefines(root, tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || exitCode(err) != 2 {
				t.Errorf("%v: error %v, want %q (exit 2)", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case !slices.Equal(got, tc.want):
			t.Errorf("%v:\n got %q\nwant %q", tc.args, got, tc.want)
		case len(notes) != len(tc.notes):
			t.Errorf("%v: notes %q, want %d", tc.args, notes, len(tc.notes))
		default:
			for i, n := range notes {
				if !strings.Contains(n, tc.notes[i]) {
					t.Errorf("%v: note %q, want %q", tc.args, n, tc.notes[i])
				}
			}
		}
	}
	// The note reaches standard error, and the run goes on.
	if code, _, errs := runCLI(t, args([]string{"ground"}, smokersPSL, []string{"-D", "random.seed=4", "--quiet"})...); code != 0 || !strings.Contains(errs, "hinge ground: note: PSL's -D random.seed=4 is ignored") {
		t.Errorf("ground -D random.seed=4: exit %d, %q", code, errs)
	}
	// Each command's help lists -D with the keys it reads and those it
	// ignores, as pslSetting answers them.
	for _, tc := range []struct {
		cmd        string
		read, skip []string
	}{
		{"infer", []string{"admmreasoner.*", "random.seed", "eval.includeobs", "inference.reasoner"}, []string{"votedperceptron.*"}},
		{"learn", []string{"admmreasoner.*", "random.seed", "votedperceptron.*"}, []string{"eval.includeobs", "inference.reasoner"}},
		{"ground", []string{"parallel.numthreads"}, []string{"admmreasoner.*", "random.seed", "votedperceptron.*", "eval.includeobs", "inference.reasoner"}},
	} {
		code, help, _ := runCLI(t, tc.cmd, "--help")
		_, section, ok := strings.Cut(help, "PSL options:\n  -D key=value")
		section, _, _ = strings.Cut(section, "Global Flags:")
		section = strings.Join(strings.Fields(section), " ")
		readPart, skipPart, _ := strings.Cut(section, "Ignored here")
		if code != 0 || !ok {
			t.Errorf("hinge %s --help: exit %d, no -D:\n%s", tc.cmd, code, help)
			continue
		}
		for _, k := range tc.read {
			if !strings.Contains(readPart, k) {
				t.Errorf("hinge %s --help: -D does not read %s: %s", tc.cmd, k, section)
			}
		}
		for _, k := range tc.skip {
			if !strings.Contains(skipPart, k) {
				t.Errorf("hinge %s --help: -D does not ignore %s: %s", tc.cmd, k, section)
			}
		}
	}
	// A run given PSL's keys is the run given hinge's flags.
	_, viaD, _ := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"-D", "admmreasoner.maxiterations=10", "--quiet"})...)
	_, viaFlag, _ := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--max-iter", "10", "--quiet"})...)
	if !strings.Contains(viaD, "ADMM: 10 iterations") || strings.Split(viaD, "ADMM:")[1][:40] != strings.Split(viaFlag, "ADMM:")[1][:40] {
		t.Errorf("-D admmreasoner.maxiterations=10:\n%s\n--max-iter 10:\n%s", viaD, viaFlag)
	}
}
