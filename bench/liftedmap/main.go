// Command liftedmap measures lifted discrete MAP against ground discrete MAP
// (maxsat.Options.Lift: the MAX-SAT LP relaxation lifted by color
// refinement, solved, certified and rounded; see README.md beside it) on
// Markov logic networks and PSL models with the symmetry a user meets:
//
//   - communities: smokers and friends over 10^3-10^5 people made of
//     communities of 10, copies of 10 random community templates;
//   - symmetry: 10^4 people, 1 to 1,000 templates (1,000 to 1 copies of
//     each), for the plot of time against symmetry;
//   - random: smokers and friends on one random friendship graph (no
//     repeated communities);
//   - interchangeable: a network over n people no evidence tells apart,
//     every predicate open, friendship symmetric and transitive;
//   - kinship: the kinship-mln sets S1-S5 (ExpressGNN);
//   - uwcse: UW-CSE's ai area (ExpressGNN folder);
//   - cora, citeseer: the PSL collective-classification models in clause
//     form (exactly one category as hard "at least one" and "at most one"
//     clauses).
//
// Every instance is solved -runs times in three modes, alternating: ground,
// lifted, and lifted with every atom rounded on its own (to measure what
// rounding one representative per class saves). Times are medians, in
// wall-clock seconds; grounding is the same for all modes and reported
// apart. Each instance is checked: lifted and ground certified bounds and
// LP values agree (within -tol of the total soft weight), a lifted world
// violates no hard clause the ground world satisfies, and every world is at
// least 3/4 of its certified bound; the program fails if a check fails.
//
//	go -C bench run ./liftedmap                        # everything, about 10 minutes on 2 cores
//	go -C bench run ./liftedmap -experiments symmetry -runs 5
//	go -C bench run ./liftedmap -quick                 # seconds
//	go -C bench run ./liftedmap -update-results        # refresh results/
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/mln"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "liftedmap:", err)
	var bad *badInputError
	if errors.As(err, &bad) {
		os.Exit(2)
	}
	os.Exit(1)
}

// badInputError marks an error in the flags (exit 2).
type badInputError struct{ err error }

func (e *badInputError) Error() string { return e.err.Error() }

func badInput(format string, args ...any) error {
	return &badInputError{fmt.Errorf(format, args...)}
}

var allExperiments = []string{"communities", "symmetry", "random", "interchangeable", "kinship", "uwcse", "cora", "citeseer"}

type config struct {
	runs           int
	out, data      string
	method         string
	flips          int
	tol            float64
	people         []int
	templates      []int
	size           int
	degree         float64
	constants      []int
	seed           uint64
	stdout, stderr io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("liftedmap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", strings.Join(allExperiments, ","), "comma-separated: "+strings.Join(allExperiments, ", "))
	runs := fs.Int("runs", 3, "timed runs per instance and mode (medians are reported)")
	out := fs.String("out", "", "directory for liftedmap.csv and symmetry.png (default: hinge-bench-liftedmap in the system's temporary directory)")
	update := fs.Bool("update-results", false, "write into the committed results/ beside this program")
	data := fs.String("data", "", "shared data directory (default: $HINGE_DATA or ../shared/data)")
	method := fs.String("method", mln.MethodLPRound, "MAP method: lp-round or lp-walksat")
	flips := fs.Int("flips", 100000, "MaxWalkSAT flips for lp-walksat")
	tol := fs.Float64("tol", 1e-3, "largest accepted difference of lifted and ground certified bounds and LP values, relative to 1 + the total soft weight")
	people := fs.String("people", "1000,10000,100000", "communities: numbers of people")
	templates := fs.String("templates", "1,10,100,1000", "symmetry: numbers of community templates among the 10^4 people")
	size := fs.Int("community", 10, "people per community")
	degree := fs.Float64("degree", 10, "random: average number of friends")
	constants := fs.String("constants", "10,20,40", "interchangeable: numbers of people")
	seed := fs.Uint64("seed", 1, "seed of the generated networks and of the Cora/Citeseer split")
	fs.IntVar(&threads, "threads", 0, "grounding and ADMM threads (0: all cores)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the lifted runs to this file")
	quick := fs.Bool("quick", false, "small sizes and one run: communities of 10^3 people, symmetry over 1,000 people, interchangeable up to 10, kinship")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &badInputError{err}
	}
	if fs.NArg() > 0 {
		return badInput("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c := &config{runs: *runs, out: *out, method: *method, flips: *flips, tol: *tol, size: *size, degree: *degree, seed: *seed, stdout: stdout, stderr: stderr}
	switch {
	case *update && *out != "":
		return badInput("-out and -update-results exclude each other")
	case *update:
		_, src, _, ok := runtime.Caller(0)
		if !ok {
			return badInput("-update-results: cannot locate the source directory")
		}
		c.out = filepath.Join(filepath.Dir(src), "results")
	case c.out == "":
		c.out = filepath.Join(os.TempDir(), "hinge-bench-liftedmap")
	}
	var err error
	exps, err := parseList(*experiments, allExperiments)
	if err != nil {
		return badInput("-experiments: %v", err)
	}
	if c.people, err = parseInts(*people); err != nil {
		return badInput("-people: %v", err)
	}
	if c.templates, err = parseInts(*templates); err != nil {
		return badInput("-templates: %v", err)
	}
	if c.constants, err = parseInts(*constants); err != nil {
		return badInput("-constants: %v", err)
	}
	if *quick {
		if !set["runs"] {
			c.runs = 1
		}
		if !set["people"] {
			c.people = []int{1000}
		}
		if !set["templates"] {
			c.templates = []int{1, 10, 100}
		}
		if !set["constants"] {
			c.constants = []int{6, 10}
		}
		if !set["experiments"] {
			exps = []string{"communities", "symmetry", "interchangeable", "kinship"}
		}
	}
	switch {
	case c.runs < 1:
		return badInput("-runs must be at least 1, got %d", c.runs)
	case c.method != mln.MethodLPRound && c.method != mln.MethodLPWalkSAT:
		return badInput("-method %q: want lp-round or lp-walksat", c.method)
	case c.size < 2:
		return badInput("-community must be at least 2, got %d", c.size)
	}
	symPeople := 10000
	if *quick {
		symPeople = 1000
	}
	for _, t := range c.templates {
		if t < 1 || t > symPeople/c.size {
			return badInput("-templates: %d: want 1..%d (the communities among %d people)", t, symPeople/c.size, symPeople)
		}
	}
	if c.data = *data; c.data == "" {
		c.data, _ = shareddata.Dir()
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		profile = f
	}
	var all []*result
	add := func(inst *instance, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", inst.name, err)
		}
		fmt.Fprintf(stderr, "%s: %d runs in 3 modes...\n", inst.name, c.runs)
		r, err := measureInstance(ctx, inst, c.runs, c.method, c.flips)
		if err != nil {
			return err
		}
		all = append(all, r)
		return nil
	}
	for _, e := range exps {
		var err error
		switch e {
		case "communities":
			for _, n := range c.people {
				inst := &instance{family: e, name: fmt.Sprintf("communities %d people", n), people: n, symmetry: float64(n/c.size) / 10}
				inst.net, err = communitiesNet(n, c.size, 10, c.seed)
				if err = add(inst, err); err != nil {
					return err
				}
			}
		case "symmetry":
			for _, t := range c.templates {
				inst := &instance{family: e, name: fmt.Sprintf("symmetry %d people, %d templates", symPeople, t), people: symPeople, symmetry: float64(symPeople/c.size) / float64(t)}
				inst.net, err = communitiesNet(symPeople, c.size, t, c.seed)
				if err = add(inst, err); err != nil {
					return err
				}
			}
		case "random":
			for _, n := range c.people {
				if n > 10000 {
					continue
				}
				inst := &instance{family: e, name: fmt.Sprintf("random graph %d people, degree %g", n, c.degree), people: n}
				inst.net, err = randomNet(n, c.degree, c.seed)
				if err = add(inst, err); err != nil {
					return err
				}
			}
		case "interchangeable":
			for _, n := range c.constants {
				inst := &instance{family: e, name: fmt.Sprintf("interchangeable %d people", n), people: n}
				inst.net, err = interchangeableNet(n)
				if err = add(inst, err); err != nil {
					return err
				}
			}
		case "kinship", "uwcse":
			sets := []string{"S1", "S2", "S3", "S4", "S5"}
			base := filepath.Join(c.data, "kinship-mln")
			if e == "uwcse" {
				sets, base = []string{"ai"}, filepath.Join(c.data, "uw-cse")
			}
			if _, serr := os.Stat(base); c.data == "" || serr != nil {
				fmt.Fprintf(stderr, "%s: skipped: shared data not found (set -data or $HINGE_DATA)\n", e)
				continue
			}
			for _, s := range sets {
				inst := &instance{family: e, name: e + " " + s}
				inst.net, err = folderNet(filepath.Join(base, s))
				if err = add(inst, err); err != nil {
					return err
				}
			}
		case "cora", "citeseer":
			if c.data == "" {
				fmt.Fprintf(stderr, "%s: skipped: shared data not found (set -data or $HINGE_DATA)\n", e)
				continue
			}
			inst := &instance{family: e, name: e + " (PSL, clause form)"}
			inst.prob, inst.groundSec, err = citationsProblem(c.data, e, c.seed)
			if err = add(inst, err); err != nil {
				return err
			}
		}
	}
	rows := table(all, c.tol)
	if err := results.WriteCSV(filepath.Join(c.out, "liftedmap.csv"), csvRows(all, c.tol)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "## Lifted against ground discrete MAP (%s, %d threads): medians of %d runs, seconds wall unless marked CPU\n\n", c.method, threadCount(), c.runs)
	results.Markdown(stdout, rows)
	if err := plotSymmetry(filepath.Join(c.out, "symmetry.png"), all); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(c.out, "liftedmap.csv"), filepath.Join(c.out, "symmetry.png"))
	var failed []string
	for _, r := range all {
		if !r.ok(c.tol) {
			failed = append(failed, r.inst.name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("checks failed on %s (see the checks column)", strings.Join(failed, ", "))
	}
	return nil
}

// threadCount is the number of threads -threads means.
func threadCount() int {
	if threads > 0 {
		return threads
	}
	return runtime.GOMAXPROCS(0)
}

// table is the Markdown table: one row per instance.
func table(all []*result, tol float64) [][]string {
	rows := [][]string{{"instance", "ground atoms / clauses (hard)", "lifted relaxation", "grounding", "ground MAP", "lifted MAP", "speed-up (with grounding)", "CPU: ground / lifted MAP (speed-up)",
		"lift / lifted solve / certificate / rounding", "rounding: classes vs atoms", "cost ground / lifted", "lower bound ground / lifted", "checks"}}
	for _, r := range all {
		g, l, a := r.last(modeGround), r.last(modeLifted), r.last(modeLiftedAtoms)
		lr := l.rep.Lifted
		lifted := "not lifted"
		if lr != nil && lr.Note != "" {
			lifted += ": " + strings.SplitN(lr.Note, ":", 2)[0]
		}
		if lr != nil && lr.Symmetry {
			lifted = fmt.Sprintf("%d / %d (%d)", lr.Lifted.Variables, lr.Lifted.Potentials+lr.Lifted.Constraints, lr.Lifted.Constraints)
			if lr.Hashed {
				lifted += ", hashed"
			}
		}
		gm, lm := r.median(modeGround, mapSec), r.median(modeLifted, mapSec)
		gr := r.median(modeGround, groundSec)
		rounding := "atoms"
		if lr != nil && lr.Rounding == "classes" {
			rounding = fmt.Sprintf("%s vs %s s, cost %s vs %s", f3(r.median(modeLifted, roundSec)), f3(r.median(modeLiftedAtoms, roundSec)), fg(l.cost), fg(a.cost))
		}
		rows = append(rows, []string{
			r.inst.name,
			fmt.Sprintf("%d / %d (%d)", g.vars, g.clauses, g.hard), lifted, f3(gr), f3(gm), f3(lm),
			fmt.Sprintf("%s (%s)", ratio(gm, lm), ratio(gr+gm, gr+lm)),
			fmt.Sprintf("%s / %s (%s)", f3(r.median(modeGround, mapCPU)), f3(r.median(modeLifted, mapCPU)), ratio(r.median(modeGround, mapCPU), r.median(modeLifted, mapCPU))),
			fmt.Sprintf("%s / %s / %s / %s", f3(r.median(modeLifted, liftSec)), f3(r.median(modeLifted, liftedSolveSec)), f3(r.median(modeLifted, certifySec)), f3(r.median(modeLifted, roundSec))),
			rounding,
			fmt.Sprintf("%s / %s", fg(g.cost), fg(l.cost)), fmt.Sprintf("%s / %s", fg(g.bound), fg(l.bound)),
			checks(r, tol),
		})
	}
	return rows
}

// checks summarises the checks of one instance.
func checks(r *result, tol float64) string {
	s := fmt.Sprintf("bound diff %.1e, ratio >= %.4f", r.boundDiff, r.minRatio)
	if r.hardWorse {
		s += ", LIFTED WORLD VIOLATES HARD CLAUSES"
	}
	if !r.ok(tol) {
		s = "FAIL: " + s
	}
	return s
}

// csvRows is liftedmap.csv: one row per instance, every median.
func csvRows(all []*result, tol float64) [][]string {
	rows := [][]string{{"family", "instance", "people", "copies_per_template", "ground_vars", "ground_clauses", "ground_hard", "lifted_vars", "lifted_potentials", "lifted_constraints",
		"symmetry", "grounding_s", "ground_map_s", "lifted_map_s", "lifted_atoms_map_s", "speedup_map", "speedup_with_grounding",
		"ground_map_cpu_s", "lifted_map_cpu_s", "lifted_atoms_map_cpu_s", "speedup_map_cpu", "ground_relax_s",
		"lift_s", "lifted_solve_s", "certify_s", "round_lifted_s", "round_lifted_atoms_s", "round_ground_s", "rounding",
		"cost_ground", "cost_lifted", "cost_lifted_atoms", "bound_ground", "bound_lifted", "gap_lifted", "admm_iterations_ground", "admm_iterations_lifted",
		"max_bound_diff", "max_lp_diff", "min_certified_ratio", "checks_ok", "lift_note", "rounding_note", "hashed"}}
	for _, r := range all {
		g, l, a := r.last(modeGround), r.last(modeLifted), r.last(modeLiftedAtoms)
		lr := l.rep.Lifted
		lv, lp, lc, sym, rounding, note, rnote, hashed := 0, 0, 0, false, "", "", "", false
		if lr != nil {
			lv, lp, lc, sym, rounding, note, rnote, hashed = lr.Lifted.Variables, lr.Lifted.Potentials, lr.Lifted.Constraints, lr.Symmetry, lr.Rounding, lr.Note, lr.RoundingNote, lr.Hashed
		}
		gm, lm, gr := r.median(modeGround, mapSec), r.median(modeLifted, mapSec), r.median(modeGround, groundSec)
		rows = append(rows, []string{
			r.inst.family, r.inst.name, strconv.Itoa(r.inst.people), fg(r.inst.symmetry), strconv.Itoa(g.vars), strconv.Itoa(g.clauses), strconv.Itoa(g.hard),
			strconv.Itoa(lv), strconv.Itoa(lp), strconv.Itoa(lc), strconv.FormatBool(sym),
			f4(gr), f4(gm), f4(lm), f4(r.median(modeLiftedAtoms, mapSec)), f3(gm / lm), f3((gr + gm) / (gr + lm)),
			f4(r.median(modeGround, mapCPU)), f4(r.median(modeLifted, mapCPU)), f4(r.median(modeLiftedAtoms, mapCPU)), f3(r.median(modeGround, mapCPU) / r.median(modeLifted, mapCPU)), f4(r.median(modeGround, relaxSec)),
			f4(r.median(modeLifted, liftSec)), f4(r.median(modeLifted, liftedSolveSec)), f4(r.median(modeLifted, certifySec)),
			f4(r.median(modeLifted, roundSec)), f4(r.median(modeLiftedAtoms, roundSec)), f4(r.median(modeGround, roundSec)), rounding,
			fg(g.cost), fg(l.cost), fg(a.cost), fg(g.bound), fg(l.bound), fg(l.cost - l.bound),
			strconv.Itoa(g.rep.ADMM.Iterations), strconv.Itoa(l.rep.ADMM.Iterations),
			fmt.Sprintf("%.3g", r.boundDiff), fmt.Sprintf("%.3g", r.lpDiff), fmt.Sprintf("%.6f", r.minRatio), strconv.FormatBool(r.ok(tol)), note, rnote, strconv.FormatBool(hashed),
		})
	}
	return rows
}

// ratio is a/b as a speed-up, or "-" when either time is below a
// millisecond (too short to time).
func ratio(a, b float64) string {
	if a < 1e-3 || b < 1e-3 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
func fg(x float64) string { return strconv.FormatFloat(x, 'g', 7, 64) }

// parseList splits a comma-separated list and checks every element is
// known.
func parseList(s string, known []string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		ok := false
		for _, k := range known {
			ok = ok || k == f
		}
		if !ok {
			return nil, fmt.Errorf("unknown %q (want %s)", f, strings.Join(known, ", "))
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}
