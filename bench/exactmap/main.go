// Command exactmap measures exact MAP inference (hinge mln infer --method
// exact, hinge maxsat --exact: core-guided MAX-SAT, maxsat.Exact) side by
// side with COIN-OR CBC on the same ground networks written as integer
// programs (RockIt's formulation, lp.go), and lazy exact MAP by cutting
// planes (mln.Network.LazyExactMAP) against the full grounding (see
// README.md beside it):
//
//   - peers: Tuffy's smoke, cse and rc1000 (hard weight 100, as Alchemy
//     and Tuffy treat its unsatisfiable hard clauses) and UW-CSE ai: time
//     to a proven optimum, or the cost, bound and gap at -time-limit, for
//     hinge (in this process) and CBC (a child process), and lp-round's
//     time, cost and bound beside them.
//   - wcsp: weighted CSP instances as weighted MAX-SAT: the .wcnf files of
//     -wcsp (fetched from the MaxSAT Evaluations' public copies, never
//     committed) and -generated instances of wcspgen.go; hinge's exact
//     solver, CBC and gophersat's MAX-SAT (a child process of this program,
//     stopped at the limit).
//   - lazy: kinship-mln S1-S5 and generated transitivity models (gen.go)
//     solved exactly on the full grounding and lazily by cutting planes,
//     and a 3,000-person transitivity model lazily only, beside lazy
//     MaxWalkSAT.
//
// Usage:
//
//	go -C bench run ./exactmap                                   # all three
//	go -C bench run ./exactmap -experiments peers -time-limit 600s
//	go -C bench run ./exactmap -experiments wcsp -wcsp /tmp/wcsp  # .wcnf files
//	go -C bench run ./exactmap -experiments lazy
//
// CPU seconds are user + system (this process's own for hinge, GNU time's
// for CBC); time limits are wall-clock for both (CBC's timeMode elapsed).
// Tables go to standard output (Markdown) and CSV files to -out (default:
// hinge-bench-exactmap in the temporary directory; -update-results writes
// the committed results/ beside this program).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	gs "github.com/crillab/gophersat/maxsat"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-gophersat-child" {
		if err := gophersatChild(os.Args[2], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "exactmap:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "exactmap:", err)
		os.Exit(1)
	}
}

type config struct {
	data, out, work, cbc string
	limit                time.Duration
	stdout, stderr       io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("exactmap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", "peers,wcsp,lazy", "comma-separated: peers, wcsp, lazy")
	data := fs.String("data", "", "shared data directory (default: $HINGE_DATA or ../shared/data)")
	limit := fs.Duration("time-limit", 600*time.Second, "time limit of each exact run (hinge and CBC alike)")
	cbc := fs.String("cbc", "cbc", "the CBC binary (apt-get install coinor-cbc)")
	wcsp := fs.String("wcsp", "", "wcsp: a directory of .wcnf files to solve besides the generated ones")
	generated := fs.Int("generated", 4, "wcsp: generated weighted CSP instances (wcspgen.go)")
	transFull := fs.String("trans-sizes", "40,60", "lazy: persons of the transitivity models solved both in full and lazily")
	transLazy := fs.Int("trans-lazy", 3000, "lazy: persons of the transitivity model solved lazily only (0: none)")
	programs := fs.String("programs", "smoke,cse,rc1000,ai", "peers: which programs (smoke, cse, rc1000, ai)")
	out := fs.String("out", "", "directory for the CSV files (default: hinge-bench-exactmap in the temporary directory)")
	update := fs.Bool("update-results", false, "write the CSV files into the committed results/ beside this program")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := &config{data: *data, out: *out, cbc: *cbc, limit: *limit, stdout: stdout, stderr: stderr}
	if c.data == "" {
		d, err := shareddata.Dir()
		if err != nil {
			return err
		}
		c.data = d
	}
	switch {
	case *update && c.out != "":
		return errors.New("-out and -update-results exclude each other")
	case *update:
		_, src, _, _ := runtime.Caller(0)
		c.out = filepath.Join(filepath.Dir(src), "results")
	case c.out == "":
		c.out = filepath.Join(os.TempDir(), "hinge-bench-exactmap")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "hinge-exactmap-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c.work = dir
	for _, e := range strings.Split(*experiments, ",") {
		switch e {
		case "peers":
			err = c.peers(ctx, *programs)
		case "wcsp":
			err = c.wcspRuns(ctx, *wcsp, *generated)
		case "lazy":
			err = c.lazy(ctx, *transFull, *transLazy)
		default:
			err = fmt.Errorf("unknown experiment %q (want peers, wcsp or lazy)", e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *config) writeCSV(name string, rows [][]string) error {
	results.Markdown(c.stdout, rows)
	return results.WriteCSV(filepath.Join(c.out, name+".csv"), rows)
}

func g6(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func f1(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// pct is 100*(cost-bound)/cost, the gap.
func pct(cost, bound float64) string {
	if math.IsNaN(cost) || math.IsNaN(bound) {
		return ""
	}
	if cost <= 0 {
		return "0"
	}
	return strconv.FormatFloat(100*max(0, cost-bound)/cost, 'f', 2, 64) + "%"
}

// program is a Markov logic network read from the shared data.
type program struct {
	name, dir  string
	hardWeight float64
}

// build reads and binds a program: a Tuffy sample (prog.mln, evidence.db,
// query.db) or an ExpressGNN folder.
func (p program) build(lazy bool) (*mln.Network, error) {
	if _, err := os.Stat(filepath.Join(p.dir, "prog.mln")); err != nil {
		fo, err := mln.ReadFolder(p.dir)
		if err != nil {
			return nil, err
		}
		var q []string
		for _, a := range fo.Queries {
			q = append(q, a.Pred)
		}
		return mln.Build(fo.Program, fo.Evidence, mln.Options{Query: q, HardWeight: p.hardWeight, Lazy: lazy})
	}
	prog, err := mln.ReadProgram(filepath.Join(p.dir, "prog.mln"))
	if err != nil {
		return nil, err
	}
	ev, err := mln.ReadAtoms(filepath.Join(p.dir, "evidence.db"), prog, false)
	if err != nil {
		return nil, err
	}
	qs, err := mln.ReadAtoms(filepath.Join(p.dir, "query.db"), prog, true)
	if err != nil {
		return nil, err
	}
	return mln.Build(prog, ev, mln.Options{QueryAtoms: qs, HardWeight: p.hardWeight, Lazy: lazy})
}

// timed runs f and returns its CPU seconds (this process's) and wall
// seconds.
func timed(f func() error) (cpu, wall float64, err error) {
	c0, t0 := measure.CPUSeconds(), time.Now()
	err = f()
	return measure.CPUSeconds() - c0, time.Since(t0).Seconds(), err
}

// peers: hinge's exact MAP beside CBC and lp-round. The exact run's
// progress (each improvement of either bound) goes to trace.csv.
func (c *config) peers(ctx context.Context, which string) error {
	trace := [][]string{{"program", "seconds", "cost", "lower bound", "cores"}}
	rows := [][]string{{"program", "unknowns", "ground clauses", "lp-round cost", "lp-round bound", "lp-round CPU s",
		"hinge exact status", "cost", "bound", "gap", "CPU s", "wall s", "cores",
		"CBC status", "CBC cost", "CBC bound", "CBC gap", "CBC CPU s", "CBC wall s",
		"Alchemy's count: hinge cost", "bound", "CBC cost", "agree"}}
	all := map[string]program{
		"smoke":  {name: "Tuffy smoke", dir: filepath.Join(c.data, "tuffy", "smoke")},
		"cse":    {name: "Tuffy cse", dir: filepath.Join(c.data, "tuffy", "cse")},
		"rc1000": {name: "Tuffy rc1000 (hard weight 100)", dir: filepath.Join(c.data, "tuffy", "rc1000"), hardWeight: 100},
		"ai":     {name: "UW-CSE ai", dir: filepath.Join(c.data, "uw-cse", "ai")},
	}
	for _, key := range strings.Split(which, ",") {
		p, ok := all[key]
		if !ok {
			return fmt.Errorf("-programs: unknown program %q (want smoke, cse, rc1000 or ai)", key)
		}
		fmt.Fprintf(c.stderr, "  peers %s ...\n", p.name)
		net, err := p.build(false)
		if err != nil {
			return err
		}
		var lp *mln.MAPResult
		lpCPU, _, err := timed(func() (err error) {
			lp, err = net.MAP(ctx, mln.DefaultMAPOptions())
			return err
		})
		if err != nil {
			return err
		}
		mo := mln.DefaultMAPOptions()
		mo.Method, mo.TimeLimit = mln.MethodExact, c.limit
		last := -1.0
		mo.ExactProgress = func(pr maxsat.ExactProgress) {
			if pr.Seconds-last >= 1 { // a row a second at most
				last = pr.Seconds
				trace = append(trace, []string{p.name, f1(pr.Seconds), g6(pr.Cost), g6(pr.LowerBound), fmt.Sprint(pr.Cores)})
			}
		}
		var ex *mln.MAPResult
		cpu, wall, err := timed(func() (err error) {
			ex, err = net.MAP(ctx, mo)
			return err
		})
		if err != nil {
			return err
		}
		status, cores := "optimal (lp-round)", 0
		if ex.Exact != nil {
			status, cores = ex.Exact.Status, ex.Exact.Cores
		}
		_, in, err := net.GroundClauses(ground.Options{})
		if err != nil {
			return err
		}
		cb, err := runCBC(ctx, c.cbc, c.work, in, c.limit)
		if err != nil {
			return err
		}
		agree := "yes"
		tol := 1e-6 * (1 + math.Abs(ex.Cost))
		switch {
		case ex.Report.Optimal && cb.status == "optimal" && math.Abs(ex.Cost-cb.cost) > tol:
			agree = "NO: both optimal, costs differ"
		case ex.Report.Optimal && cb.bound > ex.Cost+tol, cb.status == "optimal" && ex.LowerBound > cb.cost+tol:
			agree = "NO: a bound above the other's optimum"
		case !ex.Report.Optimal || cb.status != "optimal":
			agree = "(not both proven)"
		}
		off := ex.Alchemy.Offset
		pr := ex.Ground.Problem
		rows = append(rows, []string{p.name, fmt.Sprint(pr.NumVars), fmt.Sprint(pr.NumPotentials() + pr.NumConstraints()),
			g6(lp.Cost), g6(lp.LowerBound), f1(lpCPU),
			status, g6(ex.Cost), g6(ex.LowerBound), pct(ex.Cost, ex.LowerBound), f1(cpu), f1(wall), fmt.Sprint(cores),
			cb.status, g6(cb.cost), g6(cb.bound), pct(cb.cost, cb.bound), f1(cb.cpu), f1(cb.wall),
			g6(ex.Cost - off), g6(max(0, ex.LowerBound-off)), g6(cb.cost - off), agree})
	}
	if err := results.WriteCSV(filepath.Join(c.out, "trace.csv"), trace); err != nil {
		return err
	}
	return c.writeCSV("peers", rows)
}

// wcspRuns: weighted CSP instances, fetched and generated.
func (c *config) wcspRuns(ctx context.Context, dir string, generated int) error {
	type inst struct {
		name string
		in   *maxsat.Instance
		path string
	}
	var insts []inst
	if dir != "" {
		files, err := filepath.Glob(filepath.Join(dir, "*.wcnf"))
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			in, err := readWCNF(f)
			if err != nil {
				return err
			}
			insts = append(insts, inst{filepath.Base(f), in, f})
		}
	}
	for k := range generated {
		g := wcspParams{vars: 40 + 20*k, domain: 4 + k%3, density: 0.15, hardFrac: 0.3, seed: uint64(k + 1)}
		in := generateWCSP(g)
		path := filepath.Join(c.work, fmt.Sprintf("gen%d.wcnf", k))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := maxsat.Write(f, in, maxsat.Format2022); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		insts = append(insts, inst{g.String(), in, path})
	}
	rows := [][]string{{"instance", "variables", "clauses (hard)", "hinge status", "cost", "bound", "CPU s", "cores",
		"CBC status", "CBC cost", "CBC bound", "CBC CPU s", "gophersat cost", "gophersat CPU s", "agree"}}
	for _, it := range insts {
		fmt.Fprintf(c.stderr, "  wcsp %s ...\n", it.name)
		var r *maxsat.ExactResult
		cpu, _, err := timed(func() (err error) {
			r, err = maxsat.Exact(ctx, it.in, maxsat.ExactOptions{TimeLimit: c.limit})
			return err
		})
		if err != nil {
			return err
		}
		cb, err := runCBC(ctx, c.cbc, c.work, it.in, c.limit)
		if err != nil {
			return err
		}
		gCost, gCPU, gStatus := c.gophersat(ctx, it.path)
		agree := "yes"
		switch {
		case r.Optimal && cb.status == "optimal" && math.Abs(r.Cost-cb.cost) > 1e-6*(1+r.Cost):
			agree = "NO: CBC's optimum differs"
		case r.Optimal && gStatus == "optimal" && math.Abs(r.Cost-gCost) > 1e-6*(1+r.Cost):
			agree = "NO: gophersat's optimum differs"
		case !r.Optimal:
			agree = "(hinge not proven)"
		case cb.status != "optimal" && gStatus != "optimal":
			agree = "(no peer proven)"
		}
		cost := math.NaN()
		if r.X != nil {
			cost = r.Cost
		}
		gc := g6(gCost)
		if gStatus != "optimal" {
			gc = gStatus
		}
		rows = append(rows, []string{it.name, fmt.Sprint(it.in.NumVars), fmt.Sprintf("%d (%d)", it.in.NumClauses(), it.in.NumHard()),
			r.Status, g6(cost), g6(r.LowerBound), f1(cpu), fmt.Sprint(r.Cores),
			cb.status, g6(cb.cost), g6(cb.bound), f1(cb.cpu), gc, f1(gCPU), agree})
	}
	return c.writeCSV("wcsp", rows)
}

func readWCNF(path string) (*maxsat.Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return maxsat.Read(f, path)
}

// gophersat solves a .wcnf file with gophersat's MAX-SAT (linear search
// with a pseudo-Boolean constraint) in a child process of this program,
// stopped at the time limit: its optimum (status "optimal") and CPU
// seconds, or status "time limit" or the error.
func (c *config) gophersat(ctx context.Context, path string) (cost, cpu float64, status string) {
	self, err := os.Executable()
	if err != nil {
		return math.NaN(), 0, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, c.limit)
	defer cancel()
	timeFile := filepath.Join(c.work, "gophersat-time.txt")
	cmd := exec.CommandContext(ctx, "/usr/bin/time", "-f", "%U %S", "-o", timeFile, self, "-gophersat-child", path)
	killGroup(cmd)
	out, err := cmd.Output()
	if b, rerr := os.ReadFile(timeFile); rerr == nil {
		if fs := strings.Fields(string(b)); len(fs) >= 2 {
			u, _ := strconv.ParseFloat(fs[len(fs)-2], 64)
			s, _ := strconv.ParseFloat(fs[len(fs)-1], 64)
			cpu = u + s
		}
	}
	if ctx.Err() != nil {
		// Killed with GNU time: no CPU figure, only the wall-clock limit.
		return math.NaN(), math.NaN(), "time limit"
	}
	if err != nil {
		return math.NaN(), cpu, "failed: " + err.Error()
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		return math.NaN(), cpu, "failed: " + err.Error()
	}
	return v, cpu, "optimal"
}

// gophersatChild solves a .wcnf file (integer weights) with gophersat and
// prints the optimal cost.
func gophersatChild(path string, w io.Writer) error {
	in, err := readWCNF(path)
	if err != nil {
		return err
	}
	var constrs []gs.Constr
	lost := 0.0
	for cl := range in.NumClauses() {
		var lits []gs.Lit
		for _, l := range in.Clause(cl) {
			name := fmt.Sprint("x", l.Var())
			if l.Neg() {
				lits = append(lits, gs.Not(name))
			} else {
				lits = append(lits, gs.Var(name))
			}
		}
		switch wt := in.Weight[cl]; {
		case in.Hard[cl]:
			constrs = append(constrs, gs.HardClause(lits...))
		case wt != math.Trunc(wt):
			return fmt.Errorf("%s: gophersat takes integer weights, clause %d has %v", path, cl, wt)
		case len(lits) == 0:
			lost += wt
		case wt > 0:
			constrs = append(constrs, gs.WeightedClause(lits, int(wt)))
		}
	}
	_, cost := gs.New(constrs...).Solve()
	if cost < 0 {
		return errors.New("gophersat: the hard clauses are unsatisfiable")
	}
	_, err = fmt.Fprintln(w, float64(cost)+lost)
	return err
}
