package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/mln"
)

// This file runs Alchemy 2 (its infer and learnwts binaries, built by the
// user from Alchemy's public source; -alchemy names their directory) and
// hinge's command line side by side on UW-CSE: MAP (peer-map), MC-SAT
// throughput (peer-mcsat) and weight learning scored on a held-out area
// (peer-learn). Both engines read the same .mln and .db files, written by
// uwFiles from the ExpressGNN folders.

// runStats is what one external run cost.
type runStats struct {
	wall, cpu float64 // seconds
	rssMB     float64 // peak resident set size
	out       string  // standard output and error
}

// runCmd runs a program to completion and measures it.
func runCmd(ctx context.Context, name string, args ...string) (*runStats, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	st := &runStats{wall: time.Since(start).Seconds(), out: out.String()}
	if ps := cmd.ProcessState; ps != nil {
		st.cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			st.rssMB = float64(ru.Maxrss) / 1024
		}
	}
	if err != nil {
		tail := st.out
		if len(tail) > 2000 {
			tail = "..." + tail[len(tail)-2000:]
		}
		return st, fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail)
	}
	return st, nil
}

// hingeBinary is -hinge, or hinge built from this checkout into the output
// directory.
func (c *config) hingeBinary(ctx context.Context) (string, error) {
	if c.hingeBin != "" {
		return c.hingeBin, nil
	}
	_, src, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(src), "..", "..")
	bin := filepath.Join(c.out, "hinge")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hinge")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hinge: %w\n%s", err, out)
	}
	c.hingeBin = bin
	return bin, nil
}

// needAlchemy checks that -alchemy holds Alchemy's binaries bins.
func (c *config) needAlchemy(bins ...string) error {
	if c.alchemyBin == "" {
		return errors.New("-alchemy: the directory of Alchemy 2's infer and learnwts binaries is needed (see README.md)")
	}
	for _, b := range bins {
		if _, err := os.Stat(filepath.Join(c.alchemyBin, b)); err != nil {
			return fmt.Errorf("-alchemy: %w", err)
		}
	}
	return nil
}

// readMarginals reads a result file of marginals, 'Pred(A,B) 0.25' per line
// (Alchemy's format, which hinge mln infer --marginal writes too), keyed by
// the atom without spaces.
func readMarginals(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		i := strings.LastIndexByte(t, ' ')
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: want 'atom probability', got %q", path, line, t)
		}
		p, err := strconv.ParseFloat(t[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out[strings.ReplaceAll(t[:i], " ", "")] = p
	}
	return out, sc.Err()
}

// readTrueAtoms reads Alchemy's MAP result (-m): the true query atoms, one
// per line.
func readTrueAtoms(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.ReplaceAll(strings.TrimSpace(l), " ", ""); l != "" {
			out[l] = true
		}
	}
	return out, nil
}

// uwSet is UW-CSE written as Alchemy files: the program (the folder's
// declarations and rules), the test area's evidence, the training database
// of the other four areas (their facts and true advisedBy atoms, merged
// into one world as the uwcse experiment does), and the test area's query
// atoms with their truth.
type uwSet struct {
	mln, test, train string
	queries          []mln.GroundAtom
}

func (c *config) uwFiles(testArea string) (*uwSet, error) {
	dir := filepath.Join(c.out, "uwcse-"+testArea)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	src := filepath.Join(c.data, "uw-cse", testArea)
	decl, err := os.ReadFile(filepath.Join(src, "predicates"))
	if err != nil {
		return nil, err
	}
	rules, err := os.ReadFile(filepath.Join(src, "rules"))
	if err != nil {
		return nil, err
	}
	s := &uwSet{mln: filepath.Join(dir, "uw.mln"), test: filepath.Join(dir, testArea+".db"), train: filepath.Join(dir, "train.db")}
	if err := os.WriteFile(s.mln, slices.Concat(decl, []byte("\n"), rules), 0o644); err != nil {
		return nil, err
	}
	facts, err := os.ReadFile(filepath.Join(src, "facts"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(s.test, facts, 0o644); err != nil {
		return nil, err
	}
	fo, err := mln.ReadFolder(src)
	if err != nil {
		return nil, err
	}
	s.queries = fo.Queries
	var train bytes.Buffer
	for _, a := range uwAreas {
		if a == testArea {
			continue
		}
		f, err := os.ReadFile(filepath.Join(c.data, "uw-cse", a, "facts"))
		if err != nil {
			return nil, err
		}
		train.Write(f)
		if len(f) > 0 && f[len(f)-1] != '\n' {
			train.WriteByte('\n')
		}
		q, err := os.ReadFile(filepath.Join(c.data, "uw-cse", a, "queries"))
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(q), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "!") {
				train.WriteString(l + "\n")
			}
		}
	}
	return s, os.WriteFile(s.train, train.Bytes(), 0o644)
}

// scoreMarginals is AUC-PR of the positives and the mean conditional
// log-likelihood (probabilities clipped to [0.001, 0.999]) of the query
// atoms; an atom with no probability is an error.
func scoreMarginals(prob map[string]float64, queries []mln.GroundAtom) (auc, cll float64, pos int, err error) {
	atoms := make([]eval.Atom, 0, len(queries))
	for _, q := range queries {
		k := strings.ReplaceAll(atomKey(q), " ", "")
		p, ok := prob[k]
		if !ok {
			return 0, 0, 0, fmt.Errorf("no probability for query atom %s", k)
		}
		atoms = append(atoms, eval.Atom{Args: []string{k}, Pred: p, Truth: q.Value})
		pc := min(0.999, max(0.001, p))
		if q.Value == 1 {
			cll += math.Log(pc)
			pos++
		} else {
			cll += math.Log(1 - pc)
		}
	}
	ev, err := eval.New("AUCEvaluator", nil)
	if err != nil {
		return 0, 0, 0, err
	}
	r, err := ev.Evaluate(atoms)
	if err != nil {
		return 0, 0, 0, err
	}
	auc, _ = r.Get("POSITIVE_AUPRC")
	return auc, cll / float64(len(queries)), pos, nil
}

// findFloat returns the number after the last match of re's group 1 in s.
func findFloat(s string, re *regexp.Regexp) (float64, bool) {
	m := re.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0, false
	}
	x, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	return x, err == nil
}

var (
	reAlchemyCost    = regexp.MustCompile(`Lowest cost of false clauses: (\S+)`)
	reAlchemyMRF     = regexp.MustCompile(`Time taken to construct MRF = (` + alchemyDurationRE + `)`)
	reAlchemyClauses = regexp.MustCompile(`number of grounded clauses = (\d+)`)
)

// median of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// spread gives the median and range of xs.
func spread(xs []float64, format string) string {
	if len(xs) == 1 {
		return fmt.Sprintf(format, xs[0])
	}
	ys := slices.Clone(xs)
	m := median(ys)
	return fmt.Sprintf(format+" ("+format+"-"+format+")", m, ys[0], ys[len(ys)-1])
}

// hingeMLNReport is the part of hinge mln infer's --report this program
// reads.
type hingeMLNReport struct {
	GroundClauses     int     `json:"ground_clauses"`
	AlchemyClauses    int     `json:"alchemy_ground_clauses"`
	AlchemyCost       float64 `json:"alchemy_cost"`
	AlchemyLowerBound float64 `json:"alchemy_cost_lower_bound"`
	Seconds           struct {
		Ground, Solve, Sample, Total float64
	} `json:"seconds"`
}

func readReport(path string) (*hingeMLNReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r hingeMLNReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// peerMAP runs MAP on UW-CSE ai, -runs times each, the systems taking turns:
// Alchemy 2's infer -m (MaxWalkSAT, its defaults: 10^6 flips, one try) and
// hinge mln infer with lp-round and with maxwalksat (10^6 flips). Costs are
// as Alchemy counts them: Alchemy's printed cost, hinge's alchemy_cost, and
// Alchemy's MAP world recounted by hinge as a check of the two counts.
func (c *config) peerMAP(ctx context.Context) error {
	if err := c.needAlchemy("infer"); err != nil {
		return err
	}
	hinge, err := c.hingeBinary(ctx)
	if err != nil {
		return err
	}
	s, err := c.uwFiles("ai")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.mln)
	type series struct {
		name                 string
		cost, bound          []float64
		wall, cpu, rss, grnd []float64
		clauses              int
		recount              []float64
	}
	sys := []*series{{name: "Alchemy 2 infer -m (MaxWalkSAT, 10^6 flips)"}, {name: "hinge mln infer (lp-round)"}, {name: "hinge mln infer --method maxwalksat (10^6 flips)"}}
	for run := 1; run <= c.runs; run++ {
		fmt.Fprintf(c.stderr, "  peer-map run %d/%d ...\n", run, c.runs)
		res := filepath.Join(dir, "alchemy.map")
		st, err := runCmd(ctx, filepath.Join(c.alchemyBin, "infer"), "-i", s.mln, "-e", s.test, "-r", res, "-q", "advisedBy", "-m", "-seed", fmt.Sprint(run))
		if err != nil {
			return err
		}
		cost, ok1 := findFloat(st.out, reAlchemyCost)
		mrf, ok2 := findDuration(st.out, reAlchemyMRF)
		ncl, ok3 := findFloat(st.out, reAlchemyClauses)
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("Alchemy's output lacks the cost, MRF time or clause count:\n%s", st.out)
		}
		rc, err := recountAlchemyWorld(s, res)
		if err != nil {
			return err
		}
		a := sys[0]
		a.cost, a.wall, a.cpu, a.rss, a.grnd, a.clauses = append(a.cost, cost), append(a.wall, st.wall), append(a.cpu, st.cpu), append(a.rss, st.rssMB), append(a.grnd, mrf), int(ncl)
		a.recount = append(a.recount, rc)
		for i, method := range []string{"lp-round", "maxwalksat"} {
			rep := filepath.Join(dir, "hinge-"+method+".json")
			os.Remove(rep)
			st, err := runCmd(ctx, hinge, "mln", "infer", "-i", s.mln, "-e", s.test, "-q", "advisedBy", "--method", method,
				"--seed", fmt.Sprint(run), "-r", filepath.Join(dir, "hinge-"+method+".result"), "--report", rep, "--quiet")
			if err != nil {
				return err
			}
			r, err := readReport(rep)
			if err != nil {
				return err
			}
			h := sys[1+i]
			h.cost, h.wall, h.cpu, h.rss, h.grnd, h.clauses = append(h.cost, r.AlchemyCost), append(h.wall, st.wall), append(h.cpu, st.cpu), append(h.rss, st.rssMB), append(h.grnd, r.Seconds.Ground), r.AlchemyClauses
			h.bound = append(h.bound, r.AlchemyLowerBound)
		}
	}
	rows := [][]string{{"system", "ground clauses (Alchemy's count)", "cost as Alchemy counts", "certified lower bound", "Alchemy's world recounted by hinge", "wall s", "CPU s", "grounding s (Alchemy: its CPU timer; hinge: wall)", "peak RSS MB", "runs"}}
	for _, x := range sys {
		bound, recount := "", ""
		if len(x.bound) > 0 {
			bound = spread(x.bound, "%.4g")
		}
		if len(x.recount) > 0 {
			recount = spread(x.recount, "%.4g")
		}
		rows = append(rows, []string{x.name, fmt.Sprint(x.clauses), spread(x.cost, "%.4g"), bound, recount,
			spread(x.wall, "%.2f"), spread(x.cpu, "%.2f"), spread(x.grnd, "%.2f"), spread(x.rss, "%.0f"), fmt.Sprint(c.runs)})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("peer-map", rows)
}

// recountAlchemyWorld is the cost, as Alchemy counts it, of the world whose
// true query atoms Alchemy's MAP result lists, computed by hinge: ground
// the program, set the atoms, add the weights of the soft ground clauses
// the world violates (or satisfies, for a negative weight), and subtract
// mln.Alchemy's offset.
func recountAlchemyWorld(s *uwSet, result string) (float64, error) {
	truth, err := readTrueAtoms(result)
	if err != nil {
		return 0, err
	}
	prog, err := mln.ReadProgram(s.mln)
	if err != nil {
		return 0, err
	}
	ev, err := mln.ReadAtoms(s.test, prog, false)
	if err != nil {
		return 0, err
	}
	net, err := mln.Build(prog, ev, mln.Options{Query: []string{"advisedBy"}})
	if err != nil {
		return 0, err
	}
	g, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		return 0, err
	}
	x := make([]bool, in.NumVars)
	seen := 0
	for v := range x {
		if x[v] = truth[atomKeyOf(g.Vars[v].Pred.Name, g.Args(v))]; x[v] {
			seen++
		}
	}
	if seen != len(truth) {
		return 0, fmt.Errorf("%s: %d true atoms, %d of them unknown atoms of hinge's grounding", result, len(truth), seen)
	}
	cost := 0.0
	for c := range in.NumClauses() {
		if in.Hard[c] {
			if !in.Satisfied(c, x) {
				return math.Inf(1), nil
			}
			continue
		}
		if in.Satisfied(c, x) == (in.Weight[c] < 0) {
			cost += math.Abs(in.Weight[c])
		}
	}
	return cost - mln.Alchemy(in).Offset, nil
}

// mcsatRun is one engine's MC-SAT on a program and evidence: the
// marginals, the CPU seconds of sampling alone and the MC-SAT steps they
// took (burn-in included), and what the whole run cost.
type mcsatRun struct {
	probs     map[string]float64
	sampleCPU float64
	steps     int
	st        *runStats
}

// hingeChains is the number of chains hinge's MC-SAT runs here (its
// default); each discards its own burn-in.
const hingeChains = 4

// alchemyDurationRE matches a duration as Alchemy prints it.
const alchemyDurationRE = `(?:\d+ hrs?, )?(?:\d+ mins?, )?[\d.e+-]+ secs?`

var reAlchemyMCSAT = regexp.MustCompile(`Time taken for MC-SAT sampling = (` + alchemyDurationRE + `)`)

// findDuration reads the duration in group 1 of re's last match in s.
func findDuration(s string, re *regexp.Regexp) (float64, bool) {
	m := re.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0, false
	}
	d, err := alchemyDuration(m[len(m)-1][1])
	return d, err == nil
}

// alchemyDuration reads a duration as Alchemy's Timer::printTime writes
// it: "7.38 secs", "1 mins, 7.38 secs", "2 hrs, 1 mins, 7.38 secs".
func alchemyDuration(s string) (float64, error) {
	total := 0.0
	for _, part := range strings.Split(s, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			return 0, fmt.Errorf("Alchemy duration %q: want NUMBER UNIT parts", s)
		}
		x, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("Alchemy duration %q: %w", s, err)
		}
		switch strings.TrimSuffix(f[1], "s") {
		case "hr":
			x *= 3600
		case "min":
			x *= 60
		case "sec":
		default:
			return 0, fmt.Errorf("Alchemy duration %q: unknown unit %q", s, f[1])
		}
		total += x
	}
	return total, nil
}

// alchemyMCSAT runs Alchemy's infer -ms (burn-in 100) on advisedBy. Its
// sampling time is its own timer's, which counts the process's user CPU
// time.
func (c *config) alchemyMCSAT(ctx context.Context, prog, evidence, result string, samples, seed int) (*mcsatRun, error) {
	st, err := runCmd(ctx, filepath.Join(c.alchemyBin, "infer"), "-i", prog, "-e", evidence, "-r", result, "-q", "advisedBy", "-ms",
		"-maxSteps", fmt.Sprint(samples), "-burnMinSteps", "100", "-burnMaxSteps", "100", "-seed", fmt.Sprint(seed))
	if err != nil {
		return nil, err
	}
	secs, ok := findDuration(st.out, reAlchemyMCSAT)
	if !ok {
		return nil, fmt.Errorf("Alchemy's output lacks the MC-SAT sampling time:\n%s", st.out)
	}
	p, err := readMarginals(result)
	if err != nil {
		return nil, err
	}
	return &mcsatRun{probs: p, sampleCPU: secs, steps: samples + 100, st: st}, nil
}

// hingeMCSAT runs hinge mln infer --marginal (MC-SAT, hingeChains chains,
// burn-in 100 each) on advisedBy. With base, the sampling CPU time is the
// run's CPU time less that of a run that keeps one sample a chain and
// discards none (reading, grounding, merging); without it, it is 0.
func (c *config) hingeMCSAT(ctx context.Context, hinge, prog, evidence, result string, samples, seed int, base bool) (*mcsatRun, error) {
	args := func(samples, burnIn int, res string) []string {
		return []string{"mln", "infer", "-i", prog, "-e", evidence, "-q", "advisedBy", "--marginal", "--method", "mcsat", "--samples", fmt.Sprint(samples),
			"--burn-in", fmt.Sprint(burnIn), "--chains", fmt.Sprint(hingeChains), "--seed", fmt.Sprint(seed), "-r", res, "--quiet"}
	}
	st, err := runCmd(ctx, hinge, args(samples, 100, result)...)
	if err != nil {
		return nil, err
	}
	p, err := readMarginals(result)
	if err != nil {
		return nil, err
	}
	r := &mcsatRun{probs: p, steps: samples + hingeChains*100, st: st}
	if base {
		b, err := runCmd(ctx, hinge, args(hingeChains, 0, result+".base")...)
		if err != nil {
			return nil, err
		}
		r.sampleCPU = st.cpu - b.cpu
	}
	return r, nil
}

// peerMCSAT runs each engine's MC-SAT on UW-CSE ai with the file's weights
// (all 1), -peer-samples samples (Alchemy: one chain after 100 burn-in
// steps; hinge: hingeChains chains sharing them, 100 burn-in steps each),
// -runs times taking turns (run r with seed r): the CPU time of sampling
// per MC-SAT step (both engines' steps are one slice-sampling step over the
// whole network), the whole run's wall and CPU time and memory, the
// marginals' AUC-PR and CLL on the query atoms, and how far an engine's
// runs with different seeds disagree (a chain that has not mixed depends on
// its seed). CPU time is the figure that stays comparable
// when the machine is shared.
func (c *config) peerMCSAT(ctx context.Context) error {
	s, err := c.uwFiles("ai")
	if err != nil {
		return err
	}
	var hinge string
	if c.engines["hinge"] {
		if hinge, err = c.hingeBinary(ctx); err != nil {
			return err
		}
	}
	if c.engines["alchemy"] {
		if err := c.needAlchemy("infer"); err != nil {
			return err
		}
	}
	dir := filepath.Dir(s.mln)
	type series struct {
		name                    string
		perStep, wall, cpu, rss []float64
		auc, cll                []float64
		steps                   int
		last                    map[string]float64
		// selfDiff is the largest difference between the marginals of
		// two runs (seeds) of the engine, and atoms the number of atoms
		// that differ by more than 0.1 there.
		selfDiff float64
		selfAt   string
		atoms    int
	}
	var sys []*series
	for _, e := range []string{"alchemy", "hinge"} {
		if c.engines[e] {
			sys = append(sys, &series{name: e})
		}
	}
	for run := 1; run <= c.runs; run++ {
		for _, x := range sys {
			fmt.Fprintf(c.stderr, "  peer-mcsat %s run %d/%d ...\n", x.name, run, c.runs)
			res := filepath.Join(dir, x.name+".marginals")
			var r *mcsatRun
			if x.name == "alchemy" {
				r, err = c.alchemyMCSAT(ctx, s.mln, s.test, res, c.peerSamples, run)
			} else {
				r, err = c.hingeMCSAT(ctx, hinge, s.mln, s.test, res, c.peerSamples, run, true)
			}
			if err != nil {
				return err
			}
			auc, cll, _, err := scoreMarginals(r.probs, s.queries)
			if err != nil {
				return fmt.Errorf("%s: %w", x.name, err)
			}
			x.perStep = append(x.perStep, 1000*r.sampleCPU/float64(r.steps))
			x.wall, x.cpu, x.rss = append(x.wall, r.st.wall), append(x.cpu, r.st.cpu), append(x.rss, r.st.rssMB)
			if x.last != nil {
				if d, k := largestDiff(x.last, r.probs); d > x.selfDiff {
					x.selfDiff, x.selfAt = d, k
				}
				n := 0
				for k, p := range r.probs {
					if math.Abs(p-x.last[k]) > 0.1 {
						n++
					}
				}
				x.atoms = max(x.atoms, n)
			}
			x.auc, x.cll, x.last, x.steps = append(x.auc, auc), append(x.cll, cll), r.probs, r.steps
		}
	}
	rows := [][]string{{"engine", "samples", "MC-SAT steps", "CPU ms a step", "steps a CPU second", "wall s", "CPU s", "peak RSS MB", "AUC-PR", "CLL", "runs", "largest difference between consecutive runs", "atoms differing by > 0.1"}}
	for _, x := range sys {
		name, samples := "Alchemy 2 infer -ms", fmt.Sprintf("%d after 100 burn-in", c.peerSamples)
		if x.name == "hinge" {
			name, samples = "hinge mln infer --marginal", fmt.Sprintf("%d over %d chains, 100 burn-in each", c.peerSamples, hingeChains)
		}
		ms := median(slices.Clone(x.perStep))
		rows = append(rows, []string{name, samples, fmt.Sprint(x.steps), spread(x.perStep, "%.2f"), fmt.Sprintf("%.0f", 1000/ms),
			spread(x.wall, "%.2f"), spread(x.cpu, "%.2f"), spread(x.rss, "%.0f"), spread(x.auc, "%.4f"), spread(x.cll, "%.4f"), fmt.Sprint(c.runs),
			fmt.Sprintf("%.4f %s", x.selfDiff, x.selfAt), fmt.Sprint(x.atoms)})
	}
	results.Markdown(c.stdout, rows)
	if len(sys) == 2 {
		d, k := largestDiff(sys[0].last, sys[1].last)
		fmt.Fprintf(c.stdout, "Largest difference between the engines' marginals (last run): %.4f at %s\n\n", d, k)
	}
	return c.writeCSV("peer-mcsat", rows)
}

// peerLearn learns UW-CSE's weights on four areas and scores advisedBy on
// the fifth (ai), with Alchemy 2's learnwts -g (every predicate, its
// default, with and without the unit clauses it adds by default; and -ne
// advisedBy) and -d (scaled conjugate gradient, its default, -peer-dn-iter
// iterations) and hinge mln learn --method pll (every predicate, its
// default with no -q; and -q advisedBy) and --method dn (-peer-dn-iter
// iterations). Every learned program is scored with the MC-SAT marginals
// of each engine in -engines (-peer-samples samples): AUC-PR and CLL.
func (c *config) peerLearn(ctx context.Context) error {
	if err := c.needAlchemy("infer", "learnwts"); err != nil {
		return err
	}
	hinge, err := c.hingeBinary(ctx)
	if err != nil {
		return err
	}
	s, err := c.uwFiles("ai")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.mln)
	lw := filepath.Join(c.alchemyBin, "learnwts")
	it := fmt.Sprint(c.peerDNIter)
	learners := []struct {
		key, name string
		bin       string
		args      []string
	}{
		{"file", "file weights (all 1)", "", nil},
		{"alchemy-g", "Alchemy 2 learnwts -g", lw, []string{"-g", "-i", s.mln, "-t", s.train}},
		{"hinge-pll", "hinge mln learn --method pll", hinge, []string{"mln", "learn", "--method", "pll", "-i", s.mln, "-t", s.train, "--force"}},
		{"alchemy-d", "Alchemy 2 learnwts -d -ne advisedBy -dNumIter " + it, lw, []string{"-d", "-i", s.mln, "-t", s.train, "-ne", "advisedBy", "-dNumIter", it}},
		{"hinge-dn", "hinge mln learn --method dn -q advisedBy --iterations " + it, hinge, []string{"mln", "learn", "--method", "dn", "-i", s.mln, "-t", s.train, "-q", "advisedBy", "--iterations", it, "--force"}},
		{"alchemy-g-ne", "Alchemy 2 learnwts -g -ne advisedBy", lw, []string{"-g", "-i", s.mln, "-t", s.train, "-ne", "advisedBy"}},
		{"hinge-pll-q", "hinge mln learn --method pll -q advisedBy", hinge, []string{"mln", "learn", "--method", "pll", "-i", s.mln, "-t", s.train, "-q", "advisedBy", "--force"}},
		{"alchemy-g-nounit", "Alchemy 2 learnwts -g -noAddUnitClauses", lw, []string{"-g", "-noAddUnitClauses", "-i", s.mln, "-t", s.train}},
	}
	keep := map[string]bool{}
	for _, k := range strings.Split(c.peerLearners, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keep[k] = true
		}
	}
	known := map[string]bool{}
	for _, l := range learners {
		known[l.key] = true
	}
	for k := range keep {
		if !known[k] {
			return fmt.Errorf("-peer-learners: unknown learner %q", k)
		}
	}
	rows := [][]string{{"learner", "learn wall s", "learn CPU s", "learn peak RSS MB", "test inference", "AUC-PR", "CLL", "infer wall s", "note"}}
	for i, l := range learners {
		if len(keep) > 0 && !keep[l.key] {
			continue
		}
		fmt.Fprintf(c.stderr, "  peer-learn %s ...\n", l.name)
		learned := s.mln
		wall, cpu, rss, note := "", "", "", ""
		if l.bin != "" {
			learned = filepath.Join(dir, fmt.Sprintf("learned-%d.mln", i))
			os.Remove(learned)
			flag := "-o"
			st, err := runCmd(ctx, l.bin, append(l.args, flag, learned)...)
			if err != nil {
				// A learner that fails is a row, not the end of the run.
				note = "failed: " + lastLine(st.out)
				rows = append(rows, []string{l.name, f3(st.wall), f3(st.cpu), fmt.Sprintf("%.0f", st.rssMB), "", "", "", "", note})
				if err := c.writeCSV("peer-learn", rows); err != nil {
					return err
				}
				continue
			}
			wall, cpu, rss = f3(st.wall), f3(st.cpu), fmt.Sprintf("%.0f", st.rssMB)
			if zeros, n := zeroWeights(learned); n > 0 && zeros == n {
				note = fmt.Sprintf("all %d weights written are 0", n)
			}
		}
		for _, e := range []string{"alchemy", "hinge"} {
			if !c.engines[e] {
				continue
			}
			res := filepath.Join(dir, fmt.Sprintf("learned-%d.%s.marginals", i, e))
			var r *mcsatRun
			if e == "alchemy" {
				r, err = c.alchemyMCSAT(ctx, learned, s.test, res, c.peerSamples, 1)
			} else {
				r, err = c.hingeMCSAT(ctx, hinge, learned, s.test, res, c.peerSamples, 1, false)
			}
			name := map[string]string{"alchemy": "Alchemy 2 MC-SAT", "hinge": "hinge MC-SAT"}[e]
			if err != nil {
				rows = append(rows, []string{l.name, wall, cpu, rss, name, "", "", "", "failed: " + firstLine(err.Error())})
				continue
			}
			auc, cll, _, err := scoreMarginals(r.probs, s.queries)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", l.name, name, err)
			}
			rows = append(rows, []string{l.name, wall, cpu, rss, name, fmt.Sprintf("%.4f", auc), fmt.Sprintf("%.4f", cll), f3(r.st.wall), note})
		}
		// The file is rewritten after every learner, so that a long run
		// stopped early keeps what it measured.
		if err := c.writeCSV("peer-learn", rows); err != nil {
			return err
		}
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("peer-learn", rows)
}

// lastLine is the last non-blank line of s (a failed program's message).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// zeroWeights counts the weighted formulas of a learned program and those
// whose weight is 0.
func zeroWeights(path string) (zeros, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[0], "//") {
			continue
		}
		w, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		n++
		if w == 0 {
			zeros++
		}
	}
	return zeros, n
}

// loadAvg is the machine's 1-, 5- and 15-minute load averages.
func loadAvg() string {
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
