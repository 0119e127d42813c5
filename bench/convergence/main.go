// Command convergence measures how many ADMM iterations, and seconds, it
// takes to reach a certified answer (the objective within a relative gap of
// 1e-3 or 1e-4 of the Lagrangian lower bound, with the residual and
// constraint tests met) for fixed penalties rho and for the adaptive
// policies of admm.RhoPolicy, on real and generated problems:
//
//   - cora, citeseer: collective classification, seed-1 50/50 split, the PSL
//     example model (internal/citations), as bench/lifted grounds them;
//   - ddi: PSL's drug-interaction example, its eval split and weights;
//   - transitivity: Knows(A,B) & Knows(B,C) -> Knows(A,C), about 10^5
//     potentials (ground/groundtest);
//   - linear, squared: random hinge problems with hard constraints
//     (admm/admmtest);
//   - maxsat: the LP relaxation of a random MAX-3-SAT instance, Bach, Huang
//     and Getoor's relaxation (admm/admmtest.Clauses).
//
// Each configuration solves each problem twice from a cold start, with
// GapTol 1e-3 and 1e-4 (other options at their defaults, so both stop only
// when PSL's residual test also holds), and records iterations, seconds and
// the final rho; the 1e-4 run also records the objective at every check, for
// the plots of the gap against time. It writes results.csv, trace.csv and
// one PNG per problem (gap to the best lower bound found against seconds)
// into -out and prints a Markdown table.
//
//	go -C bench run ./convergence                          # everything, about 10 minutes
//	go -C bench run ./convergence -problems cora,linear    # a subset
//	go -C bench run ./convergence -update-results          # refresh results/
//	go -C bench run ./convergence -problems "" -files /tmp/social1.hlmrf   # an exchange file
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/pipeline"
)

var allProblems = []string{"cora", "citeseer", "ddi", "transitivity", "linear", "squared", "maxsat"}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "convergence:", err)
		os.Exit(1)
	}
}

// config is one penalty setting: a fixed rho, or a policy started at rho.
type config struct {
	rho    float64
	policy admm.RhoPolicy
}

func (c config) String() string {
	if c.policy == admm.RhoFixed {
		return "fixed " + strconv.FormatFloat(c.rho, 'g', -1, 64)
	}
	return c.policy.String()
}

// point is one check of a traced solve.
type point struct{ sec, obj float64 }

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("convergence", flag.ContinueOnError)
	probs := fs.String("problems", strings.Join(allProblems, ","), "problems to run: "+strings.Join(allProblems, ", "))
	files := fs.String("files", "", "more problems: exchange-format files (comma-separated), named by their base names")
	rhos := fs.String("rhos", "0.1,0.3,1,3,10,30,100", "fixed penalties to run")
	policies := fs.String("policies", "balance,spectral", "adaptive policies to run (started at rho 1)")
	threads := fs.Int("threads", 2, "ADMM threads (iterations do not depend on it)")
	maxIter := fs.Int("max-iter", 25000, "iteration limit")
	data := fs.String("data", "", "shared data directory (default $HINGE_DATA or ../shared/data)")
	out := fs.String("out", filepath.Join(os.TempDir(), "hinge-bench-convergence"), "output directory")
	update := fs.Bool("update-results", false, "write into bench/convergence/results")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *update {
		*out = filepath.Join("convergence", "results")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var configs []config
	for _, s := range strings.Split(*rhos, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(r > 0) {
			return fmt.Errorf("-rhos: bad penalty %q", s)
		}
		configs = append(configs, config{rho: r})
	}
	for _, s := range strings.Split(*policies, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := admm.ParseRhoPolicy(s)
		if err != nil {
			return fmt.Errorf("-policies: %w", err)
		}
		configs = append(configs, config{rho: 1, policy: p})
	}
	dataDir := *data
	if dataDir == "" {
		dataDir, _ = shareddata.Dir() // "" when absent: the data problems are skipped
	}
	header := []string{"problem", "variables", "potentials", "constraints", "config", "gap", "iterations", "seconds", "status", "objective", "lower_bound", "final_rho"}
	rows := [][]string{header}
	traceRows := [][]string{{"problem", "config", "iteration", "seconds", "objective"}}
	names := strings.Split(*probs, ",")
	if *files != "" {
		names = append(names, strings.Split(*files, ",")...)
	}
	for _, arg := range names {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			continue
		}
		p, err := problem(arg, dataDir)
		if err != nil {
			return fmt.Errorf("%s: %w", arg, err)
		}
		name := strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg)) // a file's label
		if p == nil {
			fmt.Fprintf(stdout, "%s: skipped (no shared data at %q)\n", name, dataDir)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d variables, %d potentials, %d constraints\n", name, p.NumVars, p.NumPotentials(), p.NumConstraints())
		traces := map[string][]point{}
		best := math.Inf(-1)
		for _, c := range configs {
			for _, gap := range []float64{1e-3, 1e-4} {
				opt := admm.DefaultOptions()
				opt.Rho, opt.RhoPolicy, opt.GapTol, opt.Threads, opt.MaxIter = c.rho, c.policy, gap, *threads, *maxIter
				var trace []point
				start := time.Now()
				if gap == 1e-4 {
					opt.Progress = func(pr admm.Progress) {
						trace = append(trace, point{time.Since(start).Seconds(), pr.Objective})
						traceRows = append(traceRows, []string{name, c.String(), strconv.Itoa(pr.Iteration), f4(time.Since(start).Seconds()), strconv.FormatFloat(pr.Objective, 'g', 10, 64)})
					}
				}
				res, err := admm.Solve(ctx, p, opt)
				sec := time.Since(start).Seconds()
				if err != nil {
					return fmt.Errorf("%s %v: %w", name, c, err)
				}
				if gap == 1e-4 {
					traces[c.String()] = trace
				}
				if !math.IsNaN(res.LowerBound) {
					best = max(best, res.LowerBound)
				}
				rows = append(rows, []string{name, strconv.Itoa(p.NumVars), strconv.Itoa(p.NumPotentials()), strconv.Itoa(p.NumConstraints()),
					c.String(), strconv.FormatFloat(gap, 'g', -1, 64), strconv.Itoa(res.Iterations), f4(sec), res.Status.String(),
					strconv.FormatFloat(res.Objective, 'g', 10, 64), strconv.FormatFloat(res.LowerBound, 'g', 10, 64), strconv.FormatFloat(res.Rho, 'g', 4, 64)})
				fmt.Fprintf(stdout, "  %-12s gap %g: %6d iterations %8.3f s  %s  rho %.3g\n", c, gap, res.Iterations, sec, res.Status, res.Rho)
			}
		}
		if err := plotTraces(filepath.Join(*out, name+".png"), name, configs, traces, best); err != nil {
			return err
		}
	}
	if err := results.WriteCSV(filepath.Join(*out, "results.csv"), rows); err != nil {
		return err
	}
	if err := results.WriteCSV(filepath.Join(*out, "trace.csv"), traceRows); err != nil {
		return err
	}
	results.Markdown(stdout, summary(rows))
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// summary is the table of iterations (and seconds) to each gap, a row per
// problem and a column per configuration.
func summary(rows [][]string) [][]string {
	var probs, confs []string
	cell := map[[2]string]string{}
	for _, r := range rows[1:] {
		if !slices.Contains(probs, r[0]) {
			probs = append(probs, r[0])
		}
		if !slices.Contains(confs, r[4]) {
			confs = append(confs, r[4])
		}
		it := r[6]
		if r[8] != admm.Converged.String() {
			it = ">" + it
		}
		k := [2]string{r[0], r[4]}
		if cell[k] == "" {
			cell[k] = it
		} else {
			cell[k] += " / " + it
		}
	}
	out := [][]string{append([]string{"problem (iterations to gap 1e-3 / 1e-4)"}, confs...)}
	for _, p := range probs {
		row := []string{p}
		for _, c := range confs {
			row = append(row, cell[[2]string{p, c}])
		}
		out = append(out, row)
	}
	return out
}

// problem builds the named problem (or reads an exchange-format file given
// by a path), or returns nil when it needs shared data that is absent.
func problem(name, dataDir string) (*hlmrf.Problem, error) {
	if strings.ContainsRune(name, os.PathSeparator) || strings.HasSuffix(name, ".hlmrf") {
		f, err := textfile.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return hlmrf.Read(f, name)
	}
	switch name {
	case "cora", "citeseer":
		dir := filepath.Join(dataDir, name)
		if _, err := os.Stat(dir); err != nil {
			return nil, nil
		}
		tmp, err := os.MkdirTemp("", "hinge-convergence-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if _, err := citations.WriteSplitPSL(dir, name, 1, 0.5, tmp); err != nil {
			return nil, err
		}
		return groundPSL(filepath.Join(tmp, name+".psl"), filepath.Join(tmp, name+".data"))
	case "ddi":
		dir := filepath.Join(dataDir, "psl-examples", "drug-interaction")
		if _, err := os.Stat(dir); err != nil {
			return nil, nil
		}
		return groundPSL(filepath.Join(dir, "drug-interaction.psl"), filepath.Join(dir, "drug-interaction-eval.data"))
	case "transitivity":
		m, s, err := groundtest.Transitivity(1300, 10, 0.5, 1)
		if err != nil {
			return nil, err
		}
		g, err := ground.Ground(m, s, ground.Options{})
		if err != nil {
			return nil, err
		}
		return g.Problem, nil
	case "linear":
		return admmtest.Random(admmtest.Config{Vars: 5000, Potentials: 15000, MinArity: 1, MaxArity: 4, Power: 1, Constraints: 500, EqualFraction: 0.3, Seed: 1}), nil
	case "squared":
		return admmtest.Random(admmtest.Config{Vars: 5000, Potentials: 15000, MinArity: 1, MaxArity: 4, Power: 2, Constraints: 500, EqualFraction: 0.3, Seed: 2}), nil
	case "maxsat":
		return admmtest.Clauses(40000, 10000, 3, 1, 1), nil
	}
	return nil, fmt.Errorf("unknown problem (want one of %s)", strings.Join(allProblems, ", "))
}

// groundPSL loads a PSL model and data file and grounds them.
func groundPSL(model, data string) (*hlmrf.Problem, error) {
	prog, err := pipeline.Load(pipeline.Inputs{Model: model, Data: data})
	if err != nil {
		return nil, err
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		return nil, err
	}
	return g.Problem, nil
}

// plotTraces draws each configuration's relative distance to the best
// lower bound found, |objective - best| / max(1, |best|), against seconds,
// log-log (an iterate that still violates hard constraints can be below the
// bound).
func plotTraces(path, name string, configs []config, traces map[string][]point, best float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: gap to the best lower bound against time", name)
	p.X.Label.Text = "seconds (log scale)"
	p.Y.Label.Text = "|objective - bound| / max(1, |bound|) (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: 1}, plot.LogTicks{Prec: 1}
	p.Add(plotter.NewGrid())
	lines := 0
	lo, hi := plotter.XY{X: math.Inf(1), Y: math.Inf(1)}, plotter.XY{X: math.Inf(-1), Y: math.Inf(-1)}
	for i, c := range configs {
		var xy plotter.XYs
		for _, pt := range traces[c.String()] {
			g := math.Abs(pt.obj-best) / max(1, math.Abs(best)) // below the bound while constraints are violated
			if pt.sec > 0 && g > 0 && !math.IsInf(best, 0) {
				xy = append(xy, plotter.XY{X: pt.sec, Y: g})
				lo.X, lo.Y, hi.X, hi.Y = min(lo.X, pt.sec), min(lo.Y, g), max(hi.X, pt.sec), max(hi.Y, g)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		if c.policy != admm.RhoFixed {
			l.Width = vg.Points(2.5)
		} else {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(c.String(), l)
		lines++
	}
	if lines == 0 {
		return nil // nothing above the bound to draw on log axes
	}
	// Log axes need a range that spans at least one tick.
	p.X.Min, p.X.Max = lo.X/2, hi.X*2
	p.Y.Min, p.Y.Max = lo.Y/2, hi.Y*2
	p.Legend.Top = true
	return atomicfile.Write(path, func(w io.Writer) error {
		wt, err := p.WriterTo(7*vg.Inch, 5*vg.Inch, "png")
		if err != nil {
			return err
		}
		_, err = wt.WriteTo(w)
		return err
	})
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
