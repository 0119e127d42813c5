// Command admm-bench measures the ADMM solver's cost per potential-iteration
// on generated problems and prints a table: problem size x thread count,
// median (or minimum, -stat min) of several runs of a fixed number of
// iterations.
//
//	go -C bench run ./admm -sizes 1e4,1e5,1e6,1e7 -threads 1,2 -runs 5
//
// Problems are the kinds of admmtest.BenchConfig, as in admm's
// BenchmarkIteration, over sizes/ratio variables: 3-variable squared or
// linear hinges with random coefficients and constants whose variables are
// drawn uniformly (sq3, lin3) or mostly from a window (sq3local, whose window
// and long-range probability -window and -far override); their optimum is not
// an exact fixed point, so no run stops before its iteration count. Each run
// continues the same solver for -iters iterations with convergence disabled
// (residual checks every 50 iterations still happen, as in a real solve).
// Besides wall time the table gives the process CPU time per
// potential-iteration, which is what to read on a machine shared with other
// work: wall time then includes waiting for a core. For N threads the CPU
// time is the sum over the workers, including time spent spinning at
// barriers, so on an idle machine wall time is about CPU time / N and the
// speedup over one thread is about N*cpu(1)/cpu(N): the "cpu speedup" column.
// On a loaded machine it underestimates (waiting for a descheduled partner
// inflates cpu(N)); the measured wall speedup is printed too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/internal/measure"
)

func main() {
	sizes := flag.String("sizes", "1e4,1e5,1e6", "comma-separated numbers of potentials")
	threads := flag.String("threads", "1,2", "comma-separated thread counts")
	kinds := flag.String("kinds", "sq3,lin3", "problem kinds: "+admmtest.BenchKinds)
	window := flag.Int("window", 0, "sq3local: variables per window (0: the kind's)")
	far := flag.Float64("far", -1, "sq3local: probability that a variable is drawn from all variables instead of the window (negative: the kind's)")
	runs := flag.Int("runs", 5, "runs per cell (-stat says which statistic is reported)")
	iters := flag.Int("iters", 0, "iterations per run (0: about 3e7 potential-iterations per run, at least 50)")
	ratio := flag.Float64("ratio", 4, "potentials per variable")
	seed := flag.Uint64("seed", 1, "problem seed")
	stat := flag.String("stat", "median", "statistic over runs: median, or min (the best run: on a shared machine, with many short runs, an estimate of the idle-machine figure)")
	flag.Parse()
	if err := run(*sizes, *threads, *kinds, *runs, *iters, *ratio, *seed, *stat, *window, *far); err != nil {
		fmt.Fprintln(os.Stderr, "admm-bench:", err)
		os.Exit(2)
	}
}

func parseList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || x < 1 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, int(x))
	}
	return out, nil
}

func run(sizesArg, threadsArg, kindsArg string, runs, iters int, ratio float64, seed uint64, stat string, window int, far float64) error {
	pick := measure.Median
	switch stat {
	case "median":
	case "min":
		pick = slices.Min[[]float64]
	default:
		return fmt.Errorf("unknown -stat %q (want median or min)", stat)
	}
	sizes, err := parseList(sizesArg)
	if err != nil {
		return err
	}
	threads, err := parseList(threadsArg)
	if err != nil {
		return err
	}
	if runs < 1 || ratio <= 0 || window < 0 || far > 1 {
		return fmt.Errorf("need -runs >= 1, -ratio > 0, -window >= 0 and -far <= 1")
	}
	fmt.Printf("GOMAXPROCS %d, %s, %s of %d runs, load average at start: %s\n", runtime.GOMAXPROCS(0), runtime.Version(), stat, runs, loadavg())
	fmt.Printf("%-8s %10s %9s %7s %9s %16s %15s %14s %11s %8s %8s\n", "kind", "potentials", "variables", "threads", "iters/run", "wall ns/pot-iter", "cpu ns/pot-iter", "speedup (wall)", "cpu speedup", "setup s", "heap MiB")
	for _, kind := range strings.Split(kindsArg, ",") {
		for _, m := range sizes {
			c, err := admmtest.BenchConfig(kind, m, max(3, int(float64(m)/ratio)), seed)
			if err != nil {
				return err
			}
			if c.Window > 0 && window > 0 {
				c.Window = window
			}
			if c.Window > 0 && far >= 0 {
				c.Far = far
			}
			p := admmtest.Random(c)
			it := iters
			if it == 0 {
				it = max(50, 30_000_000/m)
			}
			var base, baseCPU float64
			var baseTh int
			for _, th := range threads {
				opt := admm.DefaultOptions()
				// Iterations only: no convergence, and no Lagrangian bound at the
				// last iteration (GapTol 0), which would add about five iterations' worth.
				opt.EpsAbs, opt.EpsRel, opt.GapTol = 0, 0, 0
				opt.MaxIter = it
				opt.Threads = th
				t0 := time.Now()
				s, err := admm.New(p, opt)
				if err != nil {
					return err
				}
				setup := time.Since(t0).Seconds()
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				ctx := context.Background()
				if _, err := s.Solve(ctx, nil); err != nil { // warm-up run
					return err
				}
				var wall, cpu []float64
				for r := 0; r < runs; r++ {
					c0 := measure.CPUTime()
					w0 := time.Now()
					res, err := s.Solve(ctx, nil)
					if err != nil {
						return err
					}
					if res.Iterations != it {
						return fmt.Errorf("%s m=%d: solve stopped after %d of %d iterations", kind, m, res.Iterations, it)
					}
					pi := float64(res.Iterations) * float64(m)
					wall = append(wall, float64(time.Since(w0).Nanoseconds())/pi)
					cpu = append(cpu, float64((measure.CPUTime()-c0).Nanoseconds())/pi)
				}
				mw, mc := pick(wall), pick(cpu)
				if th == threads[0] {
					base, baseCPU, baseTh = mw, mc, th
				}
				est := float64(th) / float64(baseTh) * baseCPU / mc
				fmt.Printf("%-8s %10d %9d %7d %9d %16.2f %15.2f %13.2fx %10.2fx %8.2f %8.0f\n", kind, m, c.Vars, th, it, mw, mc, base/mw, est, setup, float64(ms.HeapAlloc)/(1<<20))
			}
		}
	}
	fmt.Printf("load average at end: %s\n", loadavg())
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
