// Command mln measures Markov logic inference and learning on the shared
// data sets (see README.md beside it):
//
//   - tuffy: Tuffy's sample programs (smoke, cse, rc1000): ground size, MAP
//     cost and time of lp-round and lp-walksat, against MaxWalkSAT alone
//     given the same wall time as lp-round, with the certified lower bound.
//   - kinship: kinship-mln S1-S5: MAP cost, time and accuracy on the query
//     atoms.
//   - uwcse: UW-CSE leave-one-area-out: weights learned by pseudo-likelihood
//     on four areas, advisedBy inferred on the fifth by MC-SAT; AUC-PR and
//     conditional log-likelihood of the query atoms, against the file's
//     weights (all 1).
//   - alchemy: MAP on UW-CSE's ai fold and Tuffy's cse sample, the cost given
//     as hinge counts it, as Alchemy 2 counts the same network, and under
//     Alchemy's treatment of negative weights (alchemy.go).
//   - plots: PNG bar charts of uwcse.csv (AUC-PR and CLL per area and
//     weight source; plot.go), from the file of an earlier run.
//   - exact: small networks (hard, near-deterministic and negative
//     clauses, opposite unit clauses) whose marginals are computed by
//     enumeration, against each engine's MC-SAT (exact.go).
//   - exact-share: how much of UW-CSE's ai fold and Tuffy's cse sample
//     exact inference solves (hinge mln infer --marginal's default), and
//     how large the part left to sampling is (exactshare.go).
//   - samplesat: MC-SAT on networks of hard clauses only, 13 to 60 atoms
//     all tied (SampleSAT's uniformity), against their exact marginals.
//   - modes: MC-SAT with and without cluster moves, and Gibbs, on networks
//     whose modes single flips cannot cross (groups of friends, a
//     symmetric network, complete graphs), against exact marginals.
//   - peer-map, peer-mcsat, peer-learn: Alchemy 2 (-alchemy names the
//     directory of its infer and learnwts binaries) and hinge's command
//     line side by side on UW-CSE: MAP cost and time, MC-SAT CPU time a
//     step and agreement, and learnwts -g/-d beside hinge mln learn
//     scored on a held-out area (peers.go).
//
// Usage:
//
//	go -C bench run ./mln                       # all three, about 90 minutes on 2 cores (-dn-iter 0: 10)
//	go -C bench run ./mln -experiments tuffy,kinship
//
// Tables go to standard output (Markdown) and CSV files to -out (default:
// hinge-bench-mln in the system's temporary directory; -update-results
// writes the committed results/ beside this program).
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
	"strings"
	"time"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "mln:", err)
		os.Exit(1)
	}
}

type config struct {
	data, out      string
	flips, samples int
	learnIter      int
	dnIter         int
	// Side by side with Alchemy 2 (exact.go, peers.go).
	alchemyBin, hingeBin    string
	runs                    int
	randomNets, exactSeeds  int
	exactSamples            int
	peerSamples, peerDNIter int
	satSamples              int
	engines                 map[string]bool // MC-SAT engines to run: "alchemy", "hinge"
	peerLearners            string
	stdout, stderr          io.Writer
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mln", flag.ContinueOnError)
	fs.SetOutput(stderr)
	experiments := fs.String("experiments", "tuffy,kinship,uwcse", "comma-separated: tuffy, kinship, uwcse, alchemy, plots, exact, exact-share, samplesat, modes, peer-map, peer-mcsat, peer-learn")
	data := fs.String("data", "", "shared data directory (default: $HINGE_DATA or ../shared/data)")
	out := fs.String("out", "", "directory for the CSV files (default: hinge-bench-mln in the temporary directory)")
	update := fs.Bool("update-results", false, "write the CSV files into the committed results/ beside this program")
	flips := fs.Int("flips", 1_000_000, "MaxWalkSAT flips of lp-walksat")
	samples := fs.Int("samples", 500, "MC-SAT samples (uwcse)")
	learnIter := fs.Int("learn-iter", 200, "L-BFGS iterations of weight learning (uwcse)")
	dnIter := fs.Int("dn-iter", 10, "diagonal Newton iterations of discriminative learning (uwcse; 0: skip it)")
	alchemyBin := fs.String("alchemy", os.Getenv("ALCHEMY_BIN"), "directory of Alchemy 2's infer and learnwts binaries (exact, peer-*; default $ALCHEMY_BIN)")
	hingeBin := fs.String("hinge", "", "hinge binary to run (exact, peer-*; default: built from this checkout into -out)")
	runs := fs.Int("runs", 3, "runs of each system, taking turns (peer-map, peer-mcsat)")
	randomNets := fs.Int("random-nets", 5, "randomly generated networks besides the five written ones (exact)")
	exactSeeds := fs.Int("exact-seeds", 3, "seeds of each engine on each network (exact)")
	exactSamples := fs.Int("exact-samples", 10_000, "MC-SAT samples on each network (exact)")
	peerSamples := fs.Int("peer-samples", 1000, "MC-SAT samples (peer-mcsat, peer-learn's test inference)")
	peerDNIter := fs.Int("peer-dn-iter", 10, "iterations of learnwts -d and hinge mln learn --method dn (peer-learn)")
	satSamples := fs.Int("samplesat-samples", 100_000, "MC-SAT samples on each network and seed (samplesat)")
	peerLearners := fs.String("peer-learners", "", "peer-learn: comma-separated learners to run (file, alchemy-g, hinge-pll, alchemy-d, hinge-dn, alchemy-g-ne, hinge-pll-q, alchemy-g-nounit; default all)")
	engines := fs.String("engines", "alchemy,hinge", "MC-SAT engines to run (exact, peer-mcsat, peer-learn's test inference): alchemy, hinge or both")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c := &config{data: *data, out: *out, flips: *flips, samples: *samples, learnIter: *learnIter, dnIter: *dnIter,
		alchemyBin: *alchemyBin, hingeBin: *hingeBin, runs: *runs, randomNets: *randomNets, exactSeeds: *exactSeeds,
		exactSamples: *exactSamples, peerSamples: *peerSamples, satSamples: *satSamples, peerDNIter: *peerDNIter, engines: map[string]bool{}, peerLearners: *peerLearners,
		stdout: stdout, stderr: stderr}
	if c.runs < 1 || c.exactSeeds < 1 || c.exactSamples < 1 || c.peerSamples < 1 || c.peerDNIter < 1 || c.randomNets < 0 || c.satSamples < 4 {
		return errors.New("-runs, -exact-seeds, -exact-samples, -peer-samples and -peer-dn-iter must be positive, -random-nets >= 0, -samplesat-samples >= 4")
	}
	for _, e := range strings.Split(*engines, ",") {
		if e = strings.TrimSpace(e); e != "alchemy" && e != "hinge" {
			return fmt.Errorf("-engines: unknown engine %q (want alchemy, hinge)", e)
		}
		c.engines[strings.TrimSpace(e)] = true
	}
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
		c.out = filepath.Join(os.TempDir(), "hinge-bench-mln")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mln benchmark: %s; all three take about 90 minutes on 2 cores (10 with -dn-iter 0); CSV files to %s\n", *experiments, c.out)
	for _, e := range strings.Split(*experiments, ",") {
		fmt.Fprintf(stdout, "%s: load average %s on %d cores at the start\n\n", e, loadAvg(), runtime.NumCPU())
		var err error
		switch strings.TrimSpace(e) {
		case "tuffy":
			err = c.tuffy(ctx)
		case "kinship":
			err = c.kinship(ctx)
		case "alchemy":
			err = c.alchemy(ctx)
		case "plots":
			err = c.plots()
		case "uwcse":
			err = c.uwcse(ctx)
		case "exact":
			err = c.exact(ctx)
		case "exact-share":
			err = c.exactShare(ctx)
		case "samplesat":
			err = c.sampleSAT(ctx)
		case "modes":
			err = c.modes(ctx)
		case "peer-map":
			err = c.peerMAP(ctx)
		case "peer-mcsat":
			err = c.peerMCSAT(ctx)
		case "peer-learn":
			err = c.peerLearn(ctx)
		default:
			err = fmt.Errorf("unknown experiment %q (want tuffy, kinship, uwcse, alchemy, plots, exact, exact-share, samplesat, modes, peer-map, peer-mcsat, peer-learn)", e)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
		fmt.Fprintf(stdout, "%s: load average %s at the end\n\n", e, loadAvg())
	}
	return nil
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }
func g6(x float64) string { return fmt.Sprintf("%.6g", x) }

// tuffy runs MAP on Tuffy's samples.
func (c *config) tuffy(ctx context.Context) error {
	rows := [][]string{{"program", "unknowns", "ground clauses", "method", "cost", "certified lower bound", "seconds"}}
	for _, s := range []struct {
		name       string
		hardWeight float64
	}{{"smoke", 0}, {"cse", 0}, {"rc1000", 100}} {
		dir := filepath.Join(c.data, "tuffy", s.name)
		fmt.Fprintf(c.stderr, "  tuffy %s ...\n", s.name)
		prog, err := mln.ReadProgram(filepath.Join(dir, "prog.mln"))
		if err != nil {
			return err
		}
		ev, err := mln.ReadAtoms(filepath.Join(dir, "evidence.db"), prog, false)
		if err != nil {
			return err
		}
		qs, err := mln.ReadAtoms(filepath.Join(dir, "query.db"), prog, true)
		if err != nil {
			return err
		}
		net, err := mln.Build(prog, ev, mln.Options{QueryAtoms: qs, HardWeight: s.hardWeight})
		if err != nil {
			return err
		}
		name := s.name
		if s.hardWeight > 0 {
			name += fmt.Sprintf(" (hard weight %g)", s.hardWeight)
		}
		var lpTime float64
		var in *maxsat.Instance
		for _, m := range []string{mln.MethodLPRound, mln.MethodLPWalkSAT} {
			mo := mln.DefaultMAPOptions()
			mo.Method = m
			mo.MaxSAT.LocalSearch = c.flips
			start := time.Now()
			res, err := net.MAP(ctx, mo)
			if err != nil {
				return err
			}
			secs := time.Since(start).Seconds()
			if m == mln.MethodLPRound {
				lpTime = secs
				if in, err = maxsat.FromProblem(res.Ground.Problem); err != nil {
					return err
				}
			}
			p := res.Ground.Problem
			rows = append(rows, []string{name, fmt.Sprint(p.NumVars), fmt.Sprint(p.NumPotentials() + p.NumConstraints()), m, g6(res.Cost), g6(res.LowerBound), f3(secs)})
		}
		// MaxWalkSAT alone from a random start, for lp-round's whole time
		// (grounding included: MaxWalkSAT needs the ground clauses too, so
		// it gets their time on top of its own share).
		wr, err := maxsat.WalkSAT(ctx, in, nil, maxsat.WalkOptions{Steps: math.MaxInt, Seed: 1, Deadline: time.Now().Add(time.Duration(lpTime * float64(time.Second)))})
		if err != nil {
			return err
		}
		cost := in.SoftWeight() - wr.Satisfied
		if wr.HardViolated > 0 {
			cost = math.Inf(1)
		}
		rows = append(rows, []string{name, fmt.Sprint(in.NumVars), fmt.Sprint(in.NumClauses()), fmt.Sprintf("maxwalksat, same time (%d flips)", wr.Flips), g6(cost), "", f3(lpTime)})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("tuffy", rows)
}

// kinship runs MAP on kinship-mln S1-S5.
func (c *config) kinship(ctx context.Context) error {
	rows := [][]string{{"set", "facts", "queries", "unknowns", "ground clauses", "cost", "certified lower bound", "accuracy", "seconds"}}
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("S%d", i)
		fmt.Fprintf(c.stderr, "  kinship %s ...\n", name)
		fo, err := mln.ReadFolder(filepath.Join(c.data, "kinship-mln", name))
		if err != nil {
			return err
		}
		start := time.Now()
		res, acc, err := folderMAP(ctx, fo)
		if err != nil {
			return err
		}
		p := res.Ground.Problem
		rows = append(rows, []string{name, fmt.Sprint(len(fo.Evidence)), fmt.Sprint(len(fo.Queries)), fmt.Sprint(p.NumVars),
			fmt.Sprint(p.NumPotentials() + p.NumConstraints()), g6(res.Cost), g6(res.LowerBound), fmt.Sprintf("%.4f", acc), f3(time.Since(start).Seconds())})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("kinship", rows)
}

// queryPreds lists the predicates of query atoms.
func queryPreds(qs []mln.GroundAtom) []string {
	var out []string
	for _, q := range qs {
		if !slices.Contains(out, q.Pred) {
			out = append(out, q.Pred)
		}
	}
	return out
}

// folderMAP runs lp-round on a folder and scores the query atoms.
func folderMAP(ctx context.Context, fo *mln.Folder) (*mln.MAPResult, float64, error) {
	net, err := mln.Build(fo.Program, fo.Evidence, mln.Options{Query: queryPreds(fo.Queries)})
	if err != nil {
		return nil, 0, err
	}
	res, err := net.MAP(ctx, mln.DefaultMAPOptions())
	if err != nil {
		return nil, 0, err
	}
	value := map[string]float64{}
	for v, ref := range res.Ground.Vars {
		value[mln.AtomString(ref.Pred.Name, res.Ground.Args(v))] = res.Values[v]
	}
	right := 0
	for _, q := range fo.Queries {
		if value[atomKey(q)] == q.Value {
			right++
		}
	}
	return res, float64(right) / float64(len(fo.Queries)), nil
}

func atomKey(a mln.GroundAtom) string {
	args := make([]string, len(a.Args))
	for i, t := range a.Args {
		args[i] = t.Name
	}
	return mln.AtomString(a.Pred, args)
}

var uwAreas = []string{"ai", "graphics", "language", "systems", "theory"}

// weightSet is one row's formula weights.
type weightSet struct {
	name    string
	weights []float64
	secs    string
}

// uwcse: leave-one-area-out weight learning and MC-SAT inference.
func (c *config) uwcse(ctx context.Context) error {
	rows := [][]string{{"test area", "weights", "query atoms", "positives", "AUC-PR", "CLL", "learn s", "infer s"}}
	for _, test := range uwAreas {
		fmt.Fprintf(c.stderr, "  uwcse %s ...\n", test)
		fo, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", test))
		if err != nil {
			return err
		}
		// Training world: the other areas' facts and query truths.
		var train []mln.GroundAtom
		for _, a := range uwAreas {
			if a == test {
				continue
			}
			other, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", a))
			if err != nil {
				return err
			}
			train = append(append(train, other.Evidence...), other.Queries...)
		}
		start := time.Now()
		lr, err := mln.LearnPLL(ctx, fo.Program, train, queryPreds(fo.Queries), mln.LearnOptions{MaxIter: c.learnIter})
		if err != nil {
			return err
		}
		learnSecs := time.Since(start).Seconds()
		file := make([]float64, len(fo.Program.Formulas))
		for i, f := range fo.Program.Formulas {
			file[i] = f.Weight
		}
		sets := []weightSet{{"file (all 1)", file, ""}, {"learned (PLL)", lr.Weights, f3(learnSecs)}}
		if c.dnIter > 0 {
			start = time.Now()
			dr, err := mln.LearnDiscriminative(ctx, fo.Program, train, queryPreds(fo.Queries), mln.DiscOptions{Iterations: c.dnIter, Seed: 1})
			if err != nil {
				return err
			}
			sets = append(sets, weightSet{"learned (DN)", dr.Weights, f3(time.Since(start).Seconds())})
		}
		for _, w := range sets {
			for i, f := range fo.Program.Formulas {
				if !f.Hard {
					f.Weight = w.weights[i]
				}
			}
			start := time.Now()
			auc, cll, pos, err := c.uwMarginals(ctx, fo)
			if err != nil {
				return err
			}
			rows = append(rows, []string{test, w.name, fmt.Sprint(len(fo.Queries)), fmt.Sprint(pos), fmt.Sprintf("%.4f", auc), fmt.Sprintf("%.4f", cll), w.secs, f3(time.Since(start).Seconds())})
		}
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("uwcse", rows)
}

// uwMarginals runs MC-SAT on a folder and scores the query atoms: AUC-PR of
// the positives and the mean conditional log-likelihood (probabilities
// clipped to [0.001, 0.999], as is usual for MLN CLL).
func (c *config) uwMarginals(ctx context.Context, fo *mln.Folder) (auc, cll float64, pos int, err error) {
	net, err := mln.Build(fo.Program, fo.Evidence, mln.Options{Query: queryPreds(fo.Queries)})
	if err != nil {
		return 0, 0, 0, err
	}
	so := mln.DefaultSampleOptions()
	so.Samples = c.samples
	res, err := net.Marginals(ctx, mln.MethodMCSAT, mln.DefaultMAPOptions(), so)
	if err != nil {
		return 0, 0, 0, err
	}
	prob := map[string]float64{}
	for v, ref := range res.Ground.Vars {
		prob[mln.AtomString(ref.Pred.Name, res.Ground.Args(v))] = res.Probs[v]
	}
	atoms := make([]eval.Atom, 0, len(fo.Queries))
	for _, q := range fo.Queries {
		p := prob[atomKey(q)]
		atoms = append(atoms, eval.Atom{Args: []string{atomKey(q)}, Pred: p, Truth: q.Value})
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
	return auc, cll / float64(len(fo.Queries)), pos, nil
}

// writeCSV writes rows (the first is the header) to out/name.csv.
func (c *config) writeCSV(name string, rows [][]string) error {
	return results.WriteCSV(filepath.Join(c.out, name+".csv"), rows)
}
