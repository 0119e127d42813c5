// Command rrf reproduces the integrity-constraint experiments of Lowd and
// Domingos, "Recursive Random Fields" (IJCAI 2007, Figure 2), with hinge's
// Markov logic and RRF engines, and measures the RRF engine (see README.md
// beside it):
//
//   - inclusion: ProjectLead / ManagerOf with noisy observed copies; both
//     models learn their weights by pseudo-likelihood on a generated training
//     world and infer the true relations of a generated test world from the
//     observed ones (MLN by MC-SAT, RRF by Gibbs from an ICM mode); AUC-PR
//     and conditional log-likelihood of the query atoms against noise.
//   - fd: a supplier table with company names in equivalence groups of size
//     k, names corrupted; predict which names are equivalent.
//   - perf: Gibbs sweeps per second and PLL learning time of the RRF on both
//     domains, and the time of one flip as the inclusion domain grows with
//     the per-atom degree fixed.
//
// Usage:
//
//	go -C bench run ./rrf                         # everything, 10 pairs per point
//	go -C bench run ./rrf -pairs 2 -experiments fd
//
// Tables go to standard output (Markdown) and CSV files and PNG plots to
// -out (default: hinge-bench-rrf in the system's temporary directory;
// -update-results writes the committed results/ beside this program).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/rrf"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "rrf:", err)
		os.Exit(1)
	}
}

type config struct {
	out           string
	pairs         int
	seed          uint64
	samples, burn int
	learnIter     int
	l2            float64
	rrfLearn      string
	norm          rrf.Norm
	people        int
	whyK          int
	whyNoise      float64
	// UW-CSE (experiment uwcse)
	data, saveDir  string
	areas          []string
	lambda         float64
	memLimit       int64
	merged         bool
	mlnInfer       string
	noise, extra   []float64
	ks             []int
	stdout, stderr io.Writer
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("%q: want probabilities in [0, 1]", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rrf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", "inclusion,fd,perf", "comma-separated: inclusion, fd, perf; not in the default set: uwcse (UW-CSE leave one area out), uwperf (the engine on UW-CSE ai), why (where the RRF loses: learning, inference or the model)")
	whyK := fs.Int("why-k", 5, "why: functional-dependency group size")
	whyNoise := fs.Float64("why-noise", 0.7, "why: functional-dependency noise")
	out := fs.String("out", "", "directory for the CSV and PNG files (default: hinge-bench-rrf in the temporary directory)")
	update := fs.Bool("update-results", false, "write the results into the committed results/ beside this program")
	pairs := fs.Int("pairs", 10, "generated train/test pairs per point")
	seed := fs.Uint64("seed", 1, "base seed: pair i of a point uses seeds derived from (seed, i)")
	samples := fs.Int("samples", 200, "samples kept by MC-SAT and by Gibbs")
	burn := fs.Int("burn-in", 50, "samples discarded first by MC-SAT and by Gibbs")
	learnIter := fs.Int("learn-iter", 50, "L-BFGS iterations of weight learning (both models)")
	l2 := fs.Float64("l2", 0.01, "RRF learning: pull l2/2 * |w - w0|^2 towards the initial (knowledge base) weights")
	rrfLearn := fs.String("rrf-learn", "pll", "RRF learning method: pll (pseudo-likelihood, L-BFGS) or ll (likelihood, sampled gradient; -learn-iter steps)")
	mlnInfer := fs.String("mln-infer", mln.MethodGibbs, "MLN marginals: gibbs (from all false) or mcsat (from a MaxWalkSAT world)")
	norm := fs.String("norm", rrf.NormSmooth.String(), "RRF feature normalisation: smooth (the rrf package's default: max(w, 0) smoothed near 0), max (sum of the positive weights) or softplus (sum of log(1 + exp(w)))")
	data := fs.String("data", "", "uwcse: shared data directory (default: $HINGE_DATA or ../shared/data)")
	areas := fs.String("areas", strings.Join(uwAreas, ","), "uwcse: test areas")
	uwIter := fs.Int("uw-iter", 200, "uwcse: L-BFGS iterations of weight learning (0: the file's weights only)")
	uwSamples := fs.Int("uw-samples", 500, "uwcse: Gibbs samples kept")
	uwBurn := fs.Int("uw-burn-in", 100, "uwcse: Gibbs samples discarded first")
	lambda := fs.Float64("lambda", 10, "uwcse: sharpness of a converted clause's feature (rrf.FromMLN)")
	memLimit := fs.String("memory-limit", "8GiB", "uwcse: memory limit of a grounding (the ground network and one state)")
	save := fs.String("save", "", "uwcse: directory to write the learned programs to (default: none)")
	merged := fs.Bool("merged", false, "uwcse: train on the four areas merged into one world (as bench/mln) instead of four worlds with tied weights")
	people := fs.Int("people", 50, "inclusion: people and projects (the paper: 100; one 100x100 pair takes about 40 s here, so 50 by default)")
	noise := fs.String("noise", "0,0.1,0.2,0.3,0.5,0.7,1", "noise levels (inclusion: flip probability of an observed atom; fd: corruption probability of a name)")
	extra := fs.String("extra", "0.001,0.01,0.1", "inclusion: probabilities of a spurious management link")
	ks := fs.String("k", "2,5", "fd: sizes of the name equivalence groups (each divides 30)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := &config{out: *out, pairs: *pairs, seed: *seed, samples: *samples, burn: *burn, learnIter: *learnIter, l2: *l2, rrfLearn: *rrfLearn, people: *people, mlnInfer: *mlnInfer, stdout: stdout, stderr: stderr}
	var err error
	if c.norm, err = rrf.ParseNorm(*norm); err != nil {
		return fmt.Errorf("-norm: %w", err)
	}
	c.data, c.saveDir, c.lambda, c.merged = *data, *save, *lambda, *merged
	c.whyK, c.whyNoise = *whyK, *whyNoise
	if c.whyK <= 0 || 30%c.whyK != 0 || c.whyNoise < 0 || c.whyNoise > 1 {
		return errors.New("-why-k must divide 30 and -why-noise be a probability")
	}
	c.areas = strings.Split(*areas, ",")
	for _, a := range c.areas {
		if !slices.Contains(uwAreas, a) {
			return fmt.Errorf("-areas: %q is not a UW-CSE area (%s)", a, strings.Join(uwAreas, ", "))
		}
	}
	if c.memLimit, err = memlimit.ParseSize(*memLimit); err != nil {
		return fmt.Errorf("-memory-limit: %w", err)
	}
	if !(c.lambda > 0) || *uwIter < 0 || *uwSamples <= 0 || *uwBurn < 0 {
		return errors.New("-lambda and -uw-samples must be positive, -uw-iter and -uw-burn-in >= 0")
	}
	if c.noise, err = parseFloats(*noise); err != nil {
		return fmt.Errorf("-noise: %w", err)
	}
	if c.extra, err = parseFloats(*extra); err != nil {
		return fmt.Errorf("-extra: %w", err)
	}
	for _, f := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k <= 0 || 30%k != 0 {
			return fmt.Errorf("-k: %q must divide 30", f)
		}
		c.ks = append(c.ks, k)
	}
	if c.mlnInfer != mln.MethodGibbs && c.mlnInfer != mln.MethodMCSAT {
		return fmt.Errorf("-mln-infer %q: want gibbs or mcsat", c.mlnInfer)
	}
	if c.rrfLearn != "pll" && c.rrfLearn != "ll" {
		return fmt.Errorf("-rrf-learn %q: want pll or ll", c.rrfLearn)
	}
	if c.pairs <= 0 || c.samples <= 0 || c.burn < 0 || c.learnIter <= 0 || c.people < 2 {
		return errors.New("-pairs, -samples, -learn-iter must be positive, -burn-in >= 0, -people >= 2")
	}
	switch {
	case *update && c.out != "":
		return errors.New("-out and -update-results exclude each other")
	case *update:
		_, src, _, _ := runtime.Caller(0)
		c.out = filepath.Join(filepath.Dir(src), "results")
	case c.out == "":
		c.out = filepath.Join(os.TempDir(), "hinge-bench-rrf")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rrf benchmark: %s, %d pairs per point; results to %s\n", *experiments, c.pairs, c.out)
	for _, e := range strings.Split(*experiments, ",") {
		var err error
		switch strings.TrimSpace(e) {
		case "inclusion":
			err = c.inclusion(ctx)
		case "fd":
			err = c.fd(ctx)
		case "perf":
			err = c.perf(ctx)
		case "why":
			err = c.why(ctx)
		case "uwperf":
			uw := *c
			uw.learnIter = *uwIter
			if uw.data == "" {
				if uw.data, err = shareddata.Dir(); err != nil {
					return err
				}
			}
			err = uw.uwperf(ctx)
		case "uwcse":
			uw := *c
			uw.learnIter, uw.samples, uw.burn = *uwIter, *uwSamples, *uwBurn
			if uw.data == "" {
				if uw.data, err = shareddata.Dir(); err != nil {
					return err
				}
			}
			err = uw.uwcse(ctx)
		default:
			err = fmt.Errorf("unknown experiment %q (want inclusion, fd, perf, uwcse, uwperf, why)", e)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
	}
	return nil
}

// pairSeed derives the seeds of pair i of a point: the point's parameters
// do not enter, so every point sees the same sequence of seeds (and at a
// fixed noise level the same underlying clean worlds where the generator
// draws them first).
func (c *config) pairSeed(i int) (train, test uint64) {
	return c.seed*1_000_003 + uint64(2*i), c.seed*1_000_003 + uint64(2*i+1)
}

// task is one train/test pair ready for both models.
type task struct {
	decls     string
	mlnText   string
	rrfText   string
	query     []string
	train     []mln.GroundAtom
	testEv    []mln.GroundAtom
	truth     map[string]bool // the scored query atoms
	inferSeed uint64
}

// result is one model's score on one pair.
type result struct {
	AUC, CLL     float64
	Learn, Infer float64 // seconds
	Positives    int
	Atoms        int
	LearnStatus  string  // RRF only: why L-BFGS stopped
	Converged    bool    // RRF only: rrf.LearnResult.Converged
	GradNorm     float64 // RRF only: the objective's gradient norm at the end
	PLL          float64 // RRF only: the training world's pseudo-log-likelihood at the learned weights
}

// score computes AUC-PR (positive class) and the mean conditional
// log-likelihood of the scored atoms, probabilities clipped to
// [0.001, 0.999] as bench/mln does (a sampled marginal can be exactly 0
// or 1).
func score(prob map[string]float64, truth map[string]bool) (result, error) {
	var r result
	items := make([]eval.Scored, 0, len(truth))
	for k, t := range truth {
		p, ok := prob[k]
		if !ok {
			return r, fmt.Errorf("no marginal for query atom %s", k)
		}
		items = append(items, eval.Scored{Score: p, Positive: t})
		pc := min(0.999, max(0.001, p))
		if t {
			r.CLL += math.Log(pc)
			r.Positives++
		} else {
			r.CLL += math.Log(1 - pc)
		}
	}
	r.Atoms = len(items)
	r.CLL /= float64(len(items))
	r.AUC = eval.AUPRC(items)
	return r, nil
}

// runMLN learns the formula weights by pseudo-likelihood on the training
// world and estimates the test marginals by Gibbs sampling (or MC-SAT).
// Gibbs is the default: with the large unit weights PLL learns here (-12.8
// on Equiv, against many small clause weights), MC-SAT keeps a satisfied
// heavy clause selected at almost every step and does not leave its start
// (the marginals it returns are the start world's 0/1 values).
func (c *config) runMLN(ctx context.Context, t *task) (result, error) {
	prog, err := mln.ParseProgram("model.mln", []byte(t.decls+t.mlnText))
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	lr, err := mln.LearnPLL(ctx, prog, t.train, t.query, mln.LearnOptions{MaxIter: c.learnIter})
	if err != nil {
		return result{}, fmt.Errorf("MLN learning: %w", err)
	}
	learn := time.Since(start).Seconds()
	for i, f := range prog.Formulas {
		if lr.Learned[i] {
			f.Weight = lr.Weights[i]
		}
	}
	start = time.Now()
	net, err := mln.Build(prog, t.testEv, mln.Options{Query: t.query})
	if err != nil {
		return result{}, err
	}
	so := mln.DefaultSampleOptions()
	so.Samples, so.BurnIn, so.Seed = c.samples, c.burn, t.inferSeed
	mo := mln.DefaultMAPOptions()
	mo.Method = mln.MethodWalkSAT
	mo.MaxSAT.LocalSearch = 100_000
	mo.MaxSAT.Seed = t.inferSeed
	res, err := net.Marginals(ctx, c.mlnInfer, mo, so)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", c.mlnInfer, err)
	}
	prob := map[string]float64{}
	for v, ref := range res.Ground.Vars {
		prob[mln.AtomString(ref.Pred.Name, res.Ground.Args(v))] = res.Probs[v]
	}
	r, err := score(prob, t.truth)
	r.Learn, r.Infer = learn, time.Since(start).Seconds()
	return r, err
}

// runRRF learns the RRF's weights by back-propagated pseudo-likelihood
// from the knowledge base's initial weights (learning method c.rrfLearn)
// and estimates the test marginals by Gibbs sampling from an ICM mode.
func (c *config) runRRF(ctx context.Context, t *task) (result, *rrf.Program, error) {
	return c.learnInfer(ctx, t, t.rrfText, nil)
}

// point runs both models on c.pairs generated pairs and returns the
// per-pair results (index: pair, then 0 MLN, 1 RRF).
func (c *config) point(ctx context.Context, label string, mk func(trainSeed, testSeed uint64) *task) ([][2]result, error) {
	var out [][2]result
	for i := range c.pairs {
		trs, tes := c.pairSeed(i)
		t := mk(trs, tes)
		t.inferSeed = tes
		m, err := c.runMLN(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("%s pair %d: %w", label, i, err)
		}
		r, _, err := c.runRRF(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("%s pair %d: %w", label, i, err)
		}
		fmt.Fprintf(c.stderr, "    %s pair %d: MLN AUC %.3f CLL %.3f (learn %.1fs, infer %.1fs)  RRF AUC %.3f CLL %.3f (learn %.1fs %s, converged %v, gradient %.2g, PLL %.2f, infer %.1fs)\n",
			label, i, m.AUC, m.CLL, m.Learn, m.Infer, r.AUC, r.CLL, r.Learn, r.LearnStatus, r.Converged, r.GradNorm, r.PLL, r.Infer)
		out = append(out, [2]result{m, r})
	}
	return out, nil
}

// meanSD of one field over the pairs.
func meanSD(rs [][2]result, model int, f func(result) float64) (float64, float64) {
	n := float64(len(rs))
	m := 0.0
	for _, r := range rs {
		m += f(r[model])
	}
	m /= n
	v := 0.0
	for _, r := range rs {
		d := f(r[model]) - m
		v += d * d
	}
	if n > 1 {
		v /= n - 1
	}
	return m, math.Sqrt(v)
}

var pointHeader = []string{"model", "noise", "pairs", "query atoms", "positives (mean)", "AUC-PR", "AUC-PR sd", "CLL", "CLL sd", "learn s", "infer s", "converged", "train PLL"}

func pointRows(rs [][2]result, noise float64) [][]string {
	var rows [][]string
	for model, name := range []string{"MLN", "RRF"} {
		auc, aucSD := meanSD(rs, model, func(r result) float64 { return r.AUC })
		cll, cllSD := meanSD(rs, model, func(r result) float64 { return r.CLL })
		pos, _ := meanSD(rs, model, func(r result) float64 { return float64(r.Positives) })
		lrn, _ := meanSD(rs, model, func(r result) float64 { return r.Learn })
		inf, _ := meanSD(rs, model, func(r result) float64 { return r.Infer })
		conv, pll := "", ""
		if model == 1 { // L-BFGS's ending and the pseudo-log-likelihood it reached, RRF only
			n := 0
			for _, r := range rs {
				if r[1].Converged {
					n++
				}
			}
			p, _ := meanSD(rs, model, func(r result) float64 { return r.PLL })
			conv, pll = fmt.Sprintf("%d/%d", n, len(rs)), fmt.Sprintf("%.2f", p)
		}
		rows = append(rows, []string{name, g(noise), fmt.Sprint(len(rs)), fmt.Sprint(rs[0][model].Atoms), fmt.Sprintf("%.1f", pos),
			fmt.Sprintf("%.4f", auc), fmt.Sprintf("%.4f", aucSD), fmt.Sprintf("%.4f", cll), fmt.Sprintf("%.4f", cllSD), fmt.Sprintf("%.2f", lrn), fmt.Sprintf("%.2f", inf), conv, pll})
	}
	return rows
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rrfCols are a per-pair row's last columns: L-BFGS's ending and the
// training pseudo-log-likelihood (RRF rows; empty for the MLN's).
func rrfCols(r result, model int) []string {
	if model != 1 {
		return []string{"", ""}
	}
	return []string{r.LearnStatus, fmt.Sprintf("%.4f", r.PLL)}
}

// inclusion runs the inclusion-constraint experiment over every
// (extra, noise) point.
func (c *config) inclusion(ctx context.Context) error {
	rows := [][]string{append([]string{"p_extra"}, pointHeader...)}
	raw := [][]string{{"p_extra", "noise", "pair", "model", "AUC-PR", "CLL", "learn s", "infer s", "L-BFGS", "train PLL"}}
	var curves []curve
	for _, pe := range c.extra {
		mc, rc := curve{name: fmt.Sprintf("MLN, extra %g", pe)}, curve{name: fmt.Sprintf("RRF, extra %g", pe), dashed: true}
		for _, pn := range c.noise {
			cfg := paperInclusion(pe, pn)
			cfg.People, cfg.Projects = c.people, c.people
			label := fmt.Sprintf("inclusion extra %g noise %g", pe, pn)
			fmt.Fprintf(c.stderr, "  %s ...\n", label)
			rs, err := c.point(ctx, label, func(trs, tes uint64) *task {
				tr, te := genInclusion(cfg, trs), genInclusion(cfg, tes)
				return &task{decls: inclusionDecls(cfg), mlnText: inclusionMLN, rrfText: inclusionRRF,
					query: []string{"ProjectLead", "ManagerOf"}, train: tr.Training(), testEv: te.Evidence(), truth: te.Truth()}
			})
			if err != nil {
				return err
			}
			for _, r := range pointRows(rs, pn) {
				rows = append(rows, append([]string{g(pe)}, r...))
			}
			for i, r := range rs {
				for m, name := range []string{"MLN", "RRF"} {
					raw = append(raw, append([]string{g(pe), g(pn), fmt.Sprint(i), name, fmt.Sprintf("%.4f", r[m].AUC), fmt.Sprintf("%.4f", r[m].CLL), fmt.Sprintf("%.2f", r[m].Learn), fmt.Sprintf("%.2f", r[m].Infer)}, rrfCols(r[m], m)...))
				}
			}
			mc.add(pn, rs, 0)
			rc.add(pn, rs, 1)
			if err := c.writeCSV("inclusion", rows); err != nil { // after every point: a long run keeps what it has
				return err
			}
		}
		curves = append(curves, mc, rc)
	}
	results.Markdown(c.stdout, rows)
	if err := c.writeCSV("inclusion-pairs", raw); err != nil {
		return err
	}
	return c.plot("inclusion", "Inclusion constraints", curves)
}

// fd runs the functional-dependency experiment over every (k, noise) point.
func (c *config) fd(ctx context.Context) error {
	rows := [][]string{append([]string{"k"}, pointHeader...)}
	raw := [][]string{{"k", "noise", "pair", "model", "AUC-PR", "CLL", "learn s", "infer s", "L-BFGS", "train PLL"}}
	var curves []curve
	for _, k := range c.ks {
		mc, rc := curve{name: fmt.Sprintf("MLN, k=%d", k)}, curve{name: fmt.Sprintf("RRF, k=%d", k), dashed: true}
		for _, pn := range c.noise {
			cfg := paperFD(k, pn)
			label := fmt.Sprintf("fd k %d noise %g", k, pn)
			fmt.Fprintf(c.stderr, "  %s ...\n", label)
			rs, err := c.point(ctx, label, func(trs, tes uint64) *task {
				tr, te := genFD(cfg, trs), genFD(cfg, tes)
				return &task{decls: fdDecls(cfg), mlnText: fdMLN, rrfText: fdRRF,
					query: []string{"Equiv"}, train: tr.Training(), testEv: te.Evidence(), truth: te.Truth()}
			})
			if err != nil {
				return err
			}
			for _, r := range pointRows(rs, pn) {
				rows = append(rows, append([]string{fmt.Sprint(k)}, r...))
			}
			for i, r := range rs {
				for m, name := range []string{"MLN", "RRF"} {
					raw = append(raw, append([]string{fmt.Sprint(k), g(pn), fmt.Sprint(i), name, fmt.Sprintf("%.4f", r[m].AUC), fmt.Sprintf("%.4f", r[m].CLL), fmt.Sprintf("%.2f", r[m].Learn), fmt.Sprintf("%.2f", r[m].Infer)}, rrfCols(r[m], m)...))
				}
			}
			mc.add(pn, rs, 0)
			rc.add(pn, rs, 1)
			if err := c.writeCSV("fd", rows); err != nil {
				return err
			}
		}
		curves = append(curves, mc, rc)
	}
	results.Markdown(c.stdout, rows)
	if err := c.writeCSV("fd-pairs", raw); err != nil {
		return err
	}
	return c.plot("fd", "Functional dependencies", curves)
}

// writeCSV writes rows (the first is the header) to out/name.csv.
func (c *config) writeCSV(name string, rows [][]string) error {
	return results.WriteCSV(filepath.Join(c.out, name+".csv"), rows)
}
