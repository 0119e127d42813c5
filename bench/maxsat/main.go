// Command maxsat benchmarks the maxsat package: LP relaxation by ADMM with a
// certified bound, derandomised rounding, and MaxWalkSAT, on generated
// random 3-SAT-like and MLN-like (smokers: Horn clauses over a friendship
// graph with unit priors, integer or real weights) weighted instances from
// 10^3 to 10^6 clauses.
//
// For each instance it reports the time of relaxation (ADMM plus the
// certificate) and rounding, the rounding pass per million clauses, the
// certified ratio (satisfied weight / certified upper bound), the ratio to an
// exact optimum from gophersat (run in a child process with a time limit,
// since gophersat cannot be interrupted) and the ratio to MaxWalkSAT given the
// same wall time from a random start. Every figure is the median over -reps
// instances (different seeds). -tol sweeps the ADMM relative tolerance to
// show how the certified ratio depends on it.
//
//	go -C bench run ./maxsat                        # the default table
//	go -C bench run ./maxsat -sizes 1000,10000 -reps 5
//	go -C bench run ./maxsat -tol 1e-2,1e-3,1e-4,1e-5 -sizes 100000
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gs "github.com/crillab/gophersat/maxsat"

	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/maxsat"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-exact" {
		exactChild(os.Args[2])
		return
	}
	sizes := flag.String("sizes", "300,1000,10000,100000,1000000", "clause counts (approximate for mln)")
	kinds := flag.String("kinds", "mln,mlnr,3sat", "instance kinds: mln (integer weights), mlnr (real weights), 3sat")
	reps := flag.Int("reps", 3, "instances per row (different seeds); figures are medians")
	seed := flag.Uint64("seed", 1, "base seed of the generators and MaxWalkSAT")
	exactTimeout := flag.Duration("exact-timeout", 20*time.Second, "time limit of the gophersat child process")
	exactMax := flag.Int("exact-max", 100000, "largest clause count given to gophersat")
	tol := flag.String("tol", "", "if set, sweep these ADMM eps-rel values instead of the main table")
	threads := flag.Int("threads", 0, "ADMM threads (0: all cores)")
	ls := flag.Int("local-search", 0, "MaxWalkSAT flips after rounding in the pipeline")
	dump := flag.String("dump", "", "write the generated instances as WCNF into this directory and exit")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (main table or -tol sweep) to this file")
	flag.Parse()
	stopProfile, err := measure.StartCPUProfile(*cpuprofile)
	if err != nil {
		fail(err)
	}
	defer stopProfile()

	sz, err := parseInts(*sizes)
	if err != nil {
		fail(err)
	}
	opt := maxsat.DefaultOptions()
	opt.ADMM.Threads = *threads
	opt.LocalSearch = *ls
	if *dump != "" {
		for _, kind := range strings.Split(*kinds, ",") {
			for _, m := range sz {
				for r := 0; r < *reps; r++ {
					s := repSeed(*seed, r)
					in := generate(kind, m, s)
					path := filepath.Join(*dump, fmt.Sprintf("%s-%d-%d.wcnf", kind, m, s))
					if err := atomicfile.Write(path, func(w io.Writer) error { return maxsat.Write(w, in, maxsat.Format2022) }); err != nil {
						fail(err)
					}
					fmt.Println(path)
				}
			}
		}
		return
	}
	if *tol != "" {
		tolSweep(sz, strings.Split(*kinds, ","), *reps, *seed, opt, *tol)
		return
	}
	kindList := strings.Split(*kinds, ",")
	fmt.Fprintf(os.Stderr, "maxsat benchmark: %d kinds x %d sizes x %d reps; the default table takes about 20 minutes on 2 cores\n"+
		"(10^6-clause instances and gophersat's exact runs of up to %s dominate); progress below, the table on stdout\n",
		len(kindList), len(sz), *reps, *exactTimeout)
	fmt.Printf("ADMM eps-rel %g eps-abs %g, local search %d flips, %d reps, medians\n\n", opt.ADMM.EpsRel, opt.ADMM.EpsAbs, opt.LocalSearch, *reps)
	fmt.Printf("%-5s %9s %9s %7s %8s %8s %10s %9s %9s %9s %9s %9s\n",
		"kind", "clauses", "vars", "iters", "relax_s", "round_s", "round_s/M", "cert", "sat/exact", "exact_s", "sat/mws", "mws_flips")
	start := time.Now()
	for _, kind := range kindList {
		for _, m := range sz {
			var iters, relax, round, perM, cert, exact, exactS, vsMWS, flips []float64
			var vars, clauses int
			for r := 0; r < *reps; r++ {
				s := repSeed(*seed, r)
				fmt.Fprintf(os.Stderr, "  %s %d clauses, instance %d/%d (%.0f s so far)\n", kind, m, r+1, *reps, time.Since(start).Seconds())
				in := generate(kind, m, s)
				vars, clauses = in.NumVars, in.NumClauses()
				res, err := maxsat.Solve(context.Background(), in, opt)
				if err != nil {
					fail(err)
				}
				rep := res.Report
				iters = append(iters, float64(rep.ADMM.Iterations))
				relax = append(relax, rep.Seconds.Relax)
				round = append(round, rep.Seconds.Round)
				perM = append(perM, rep.Seconds.Round/float64(clauses)*1e6)
				cert = append(cert, rep.CertifiedRatio)
				// MaxWalkSAT from a random start, for the pipeline's time.
				budget := time.Duration((rep.Seconds.Relax + rep.Seconds.Round + rep.Seconds.LocalSearch) * float64(time.Second))
				wr, err := maxsat.WalkSAT(context.Background(), in, nil, maxsat.WalkOptions{Steps: math.MaxInt, Seed: s, Deadline: time.Now().Add(budget)})
				if err != nil {
					fail(err)
				}
				vsMWS = append(vsMWS, ratio(rep.WeightSatisfied, rep.HardViolated, wr.Satisfied, wr.HardViolated))
				flips = append(flips, float64(wr.Flips))
				if clauses <= *exactMax && in.IntegerWeights() { // gophersat takes integer weights
					t0 := time.Now()
					opt, ok := exactOptimum(in, *exactTimeout)
					if ok {
						exact = append(exact, rep.WeightSatisfied/opt)
						exactS = append(exactS, time.Since(t0).Seconds())
					}
				}
			}
			fmt.Printf("%-5s %9d %9d %7.0f %8.3f %8.3f %10.3f %9.6f %9s %9s %9.4f %9.0f\n",
				kind, clauses, vars, median(iters), median(relax), median(round), median(perM), median(cert),
				medianOrDash(exact, "%.4f", *reps), medianOrDash(exactS, "%.2f", *reps), median(vsMWS), median(flips))
		}
	}
	fmt.Println("\ncert: satisfied weight / certified upper bound (a proven lower bound on the true ratio);")
	fmt.Println("sat/exact: ratio to gophersat's optimum ('-' when it did not finish in -exact-timeout; n/k when k of n did);")
	fmt.Println("sat/mws: ratio to MaxWalkSAT run from a random start for the same wall time as relax+round.")
}

// ratio compares two assignments' weights, 0 or +Inf when only one of them
// satisfies every hard clause.
func ratio(a float64, ah int, b float64, bh int) float64 {
	switch {
	case ah > 0 && bh == 0:
		return 0
	case ah == 0 && bh > 0:
		return math.Inf(1)
	case b == 0:
		return 1
	}
	return a / b
}

func tolSweep(sz []int, kinds []string, reps int, seed uint64, opt maxsat.Options, list string) {
	fmt.Printf("%-5s %9s %9s %7s %8s %9s %9s %7s %12s\n", "kind", "clauses", "eps_rel", "iters", "relax_s", "cert", "lp_gap", "proven", "source")
	for _, kind := range kinds {
		for _, m := range sz {
			for _, t := range strings.Split(list, ",") {
				e, err := strconv.ParseFloat(t, 64)
				if err != nil {
					fail(err)
				}
				o := opt
				o.ADMM.EpsRel = e
				var iters, relax, cert, gap []float64
				var clauses, proven int
				src := map[string]int{}
				for r := 0; r < reps; r++ {
					in := generate(kind, m, repSeed(seed, r))
					clauses = in.NumClauses()
					res, err := maxsat.Solve(context.Background(), in, o)
					if err != nil {
						fail(err)
					}
					rep := res.Report
					iters = append(iters, float64(rep.ADMM.Iterations))
					relax = append(relax, rep.Seconds.Relax)
					cert = append(cert, rep.CertifiedRatio)
					// Relative gap between the primal LP estimate and the bound.
					gap = append(gap, (rep.LPUpperBound-rep.LPPrimalValue)/rep.WeightTotal)
					src[rep.LPBoundSource]++
					if rep.Optimal {
						proven++
					}
				}
				fmt.Printf("%-5s %9d %9g %7.0f %8.3f %9.6f %9.2e %4d/%-2d %12s\n", kind, clauses, e, median(iters), median(relax), median(cert), median(gap), proven, reps, topKey(src))
			}
		}
	}
	fmt.Println("\nlp_gap: (certified bound - LP primal estimate) / total weight: what the certificate loses to ADMM's inexactness.")
	fmt.Println("proven: runs whose assignment was proven optimal (weight meets the certified bound).")
}

func topKey(m map[string]int) string {
	best, bk := -1, ""
	for k, v := range m {
		if v > best || (v == best && k < bk) {
			best, bk = v, k
		}
	}
	return bk
}

// repSeed is the seed of instance r of a row: the same in the main table,
// the -tol sweep and -dump, so dumped instances are the measured ones.
func repSeed(seed uint64, r int) uint64 { return seed + uint64(r)*7919 }

// generate makes an instance of about m clauses.
func generate(kind string, m int, seed uint64) *maxsat.Instance {
	rng := rand.New(rand.NewPCG(seed, 0xda3e39cb94b95bdb))
	switch kind {
	case "3sat":
		return random3SAT(rng, m)
	case "mln":
		return smokers(rng, m)
	case "mlnr":
		// Learned MLN weights are real numbers: scale each by U(0.75, 1.25).
		// Without integer weights the bound cannot be floored, so the
		// certified ratio shows the certificate's own gap.
		in := smokers(rng, m)
		for c := range in.Weight {
			if !in.Hard[c] {
				in.Weight[c] *= 0.75 + 0.5*rng.Float64()
			}
		}
		return in
	}
	fail(fmt.Errorf("unknown kind %q (want mln, mlnr or 3sat)", kind))
	return nil
}

// random3SAT: m clauses of 3 distinct variables over n = m/5 variables (an
// over-constrained ratio, so that not every clause can hold), random signs,
// integer weights 1..10.
func random3SAT(rng *rand.Rand, m int) *maxsat.Instance {
	n := max(3, m/5)
	in := &maxsat.Instance{NumVars: n, Start: []int32{0}}
	for c := 0; c < m; c++ {
		var v [3]int
		v[0] = rng.IntN(n)
		for v[1] = rng.IntN(n); v[1] == v[0]; v[1] = rng.IntN(n) {
		}
		for v[2] = rng.IntN(n); v[2] == v[0] || v[2] == v[1]; v[2] = rng.IntN(n) {
		}
		lits := make([]maxsat.Lit, 3)
		for j := range lits {
			lits[j] = maxsat.Pos(v[j])
			if rng.IntN(2) == 0 {
				lits[j] = maxsat.Not(v[j])
			}
		}
		in.AddClause(float64(1+rng.IntN(10)), false, lits...)
	}
	return in
}

// smokers grounds a Markov-logic smokers model over P people, each with 5
// random friends. Half of the friendships are observed (the rule's ground
// clause loses its Friends literal); the other half are query atoms F(x,y)
// with a prior and, for half of them, noisy evidence:
//
//	2  Smokes(x) & Friends(x,y) -> Smokes(y)    ~S(x) | S(y)  or  ~S(x) | ~F(x,y) | S(y)
//	3  Smokes(x) -> Cancer(x)                   ~S(x) | C(x)
//	1  !Smokes(x)                               ~S(x)           unit priors
//	1  !Cancer(x)                               ~C(x)
//	1  !Friends(x,y)                            ~F(x,y)         (query friendships)
//	2  Friends(x,y)                             F(x,y)          (half of them: noisy evidence)
//	5  Smokes(x)  for 20% of people (noisy evidence)
//	hard Smokes(x) for 2%, hard !Cancer(x) for 1% (observed)
//
// With every friendship observed the clauses are all implications a -> b
// and units, a min-cut problem whose LP relaxation is integral; the
// three-literal clauses of query friendships make it a real MAX-SAT problem.
// About 13 clauses per person.
func smokers(rng *rand.Rand, m int) *maxsat.Instance {
	P := max(2, int(float64(m)/13))
	in := &maxsat.Instance{Start: []int32{0}}
	S := func(x int) int { return 2 * x }
	C := func(x int) int { return 2*x + 1 }
	next := 2 * P // friendship atoms are numbered after S and C
	in.NumVars = next
	for x := 0; x < P; x++ {
		for f := 0; f < 5; f++ {
			y := rng.IntN(P)
			if y == x {
				continue
			}
			if rng.IntN(2) == 0 {
				in.AddClause(2, false, maxsat.Not(S(x)), maxsat.Pos(S(y)))
				continue
			}
			F := next
			next++
			in.AddClause(2, false, maxsat.Not(S(x)), maxsat.Not(F), maxsat.Pos(S(y)))
			in.AddClause(1, false, maxsat.Not(F))
			if rng.IntN(2) == 0 {
				in.AddClause(2, false, maxsat.Pos(F))
			}
		}
		in.AddClause(3, false, maxsat.Not(S(x)), maxsat.Pos(C(x)))
		in.AddClause(1, false, maxsat.Not(S(x)))
		in.AddClause(1, false, maxsat.Not(C(x)))
		switch u := rng.Float64(); {
		case u < 0.20:
			in.AddClause(5, false, maxsat.Pos(S(x)))
		case u < 0.22:
			in.AddClause(1, true, maxsat.Pos(S(x)))
		case u < 0.23:
			in.AddClause(1, true, maxsat.Not(C(x)))
		}
	}
	return in
}

// exactOptimum runs gophersat on in in a child process (this program with
// -exact FILE) killed after timeout. It returns the optimal satisfied weight.
func exactOptimum(in *maxsat.Instance, timeout time.Duration) (float64, bool) {
	dir, err := os.MkdirTemp("", "maxsat-bench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "in.wcnf")
	if err := atomicfile.Write(path, func(w io.Writer) error { return maxsat.Write(w, in, maxsat.Format2022) }); err != nil {
		fail(err)
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, self, "-exact", path).Output()
	if err != nil {
		var ee *exec.ExitError
		if ctx.Err() != nil || errors.As(err, &ee) {
			return 0, false
		}
		fail(err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		fail(fmt.Errorf("gophersat child printed %q", out))
	}
	return v, !math.IsNaN(v)
}

// exactChild is the child process: read the file, solve it with gophersat,
// print the optimal satisfied weight (NaN when the hard clauses are
// unsatisfiable).
func exactChild(path string) {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	in, err := maxsat.Read(bufio.NewReader(f), path)
	f.Close()
	if err != nil {
		fail(err)
	}
	constrs := make([]gs.Constr, 0, in.NumClauses())
	names := make([]string, in.NumVars)
	for i := range names {
		names[i] = "x" + strconv.Itoa(i)
	}
	for c := 0; c < in.NumClauses(); c++ {
		lits := make([]gs.Lit, 0, 4)
		for _, l := range in.Clause(c) {
			if l.Neg() {
				lits = append(lits, gs.Not(names[l.Var()]))
			} else {
				lits = append(lits, gs.Var(names[l.Var()]))
			}
		}
		if in.Hard[c] {
			constrs = append(constrs, gs.HardClause(lits...))
		} else if in.Weight[c] > 0 {
			constrs = append(constrs, gs.WeightedClause(lits, int(in.Weight[c])))
		}
	}
	_, cost := gs.New(constrs...).Solve()
	if cost < 0 {
		fmt.Println("NaN")
		return
	}
	fmt.Println(in.SoftWeight() - float64(cost))
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, t := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad size %q", t)
		}
		out = append(out, v)
	}
	return out, nil
}

// median is measure.Median, but NaN for no values (as with -reps 0), so
// that an empty cell does not read as a measured 0.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return measure.Median(v)
}

func medianOrDash(v []float64, format string, reps int) string {
	if len(v) == 0 {
		return "-"
	}
	s := fmt.Sprintf(format, median(v))
	if len(v) < reps {
		s += fmt.Sprintf("(%d/%d)", len(v), reps)
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "maxsat bench:", err)
	os.Exit(1)
}
