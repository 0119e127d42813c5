package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/hinge-srl/hinge/bench/internal/results"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/maxsat/maxsattest"
	"github.com/hinge-srl/hinge/mln"
)

// Exact marginals: how much of the shared data sets exact
// inference solves (exact-share), and whether SampleSAT samples the
// solutions of hard clauses uniformly once more atoms are tied than Gibbs'
// blocks hold (samplesat).

// exactShare splits UW-CSE's ai fold and Tuffy's cse sample as hinge mln
// infer --marginal does (mln.ExactMarginals with the default limits) and
// says how many atoms come out exact, how, and how large the sampled part
// is: its largest component, and the clique its junction tree would need
// at least.
func (c *config) exactShare(ctx context.Context) error {
	rows := [][]string{{"data set", "unknown atoms", "merged clauses", "exact atoms", "junction tree atoms (components)", "counted atoms (components)",
		"fixed by hard clauses", "in no clause", "sampled atoms (components)", "largest sampled component", "its clique at least", "CPU seconds (median of 3)"}}
	sets := []struct {
		name  string
		build func() (*mln.Network, error)
	}{
		{"UW-CSE ai", func() (*mln.Network, error) {
			fo, err := mln.ReadFolder(filepath.Join(c.data, "uw-cse", "ai"))
			if err != nil {
				return nil, err
			}
			return mln.Build(fo.Program, fo.Evidence, mln.Options{Query: queryPreds(fo.Queries)})
		}},
		{"Tuffy cse", func() (*mln.Network, error) {
			dir := filepath.Join(c.data, "tuffy", "cse")
			prog, err := mln.ReadProgram(filepath.Join(dir, "prog.mln"))
			if err != nil {
				return nil, err
			}
			ev, err := mln.ReadAtoms(filepath.Join(dir, "evidence.db"), prog, false)
			if err != nil {
				return nil, err
			}
			qs, err := mln.ReadAtoms(filepath.Join(dir, "query.db"), prog, true)
			if err != nil {
				return nil, err
			}
			return mln.Build(prog, ev, mln.Options{QueryAtoms: qs})
		}},
	}
	for _, s := range sets {
		fmt.Fprintf(c.stderr, "  exact-share %s ...\n", s.name)
		net, err := s.build()
		if err != nil {
			return err
		}
		_, in, err := net.GroundClauses(ground.Options{})
		if err != nil {
			return err
		}
		var res *mln.ExactResult
		var secs []float64
		for range 3 {
			start := measure.CPUSeconds()
			if res, err = mln.ExactMarginals(ctx, in, mln.ExactOptions{}, false); err != nil {
				return err
			}
			secs = append(secs, measure.CPUSeconds()-start)
		}
		by := map[string][2]int{} // method -> atoms, components
		var big mln.Component
		for _, comp := range res.Components {
			t := by[comp.Method]
			t[0] += comp.Atoms
			t[1]++
			by[comp.Method] = t
			if comp.Method == mln.Sampled && comp.Atoms > big.Atoms {
				big = comp
			}
		}
		ac := func(m string) string { return fmt.Sprintf("%d (%d)", by[m][0], by[m][1]) }
		bigText, width := "-", "-"
		if big.Atoms > 0 {
			bigText = fmt.Sprintf("%d atoms, %d clauses", big.Atoms, big.Clauses)
			width = fmt.Sprintf("%d atoms", big.Width)
		}
		rows = append(rows, []string{s.name, fmt.Sprint(in.NumVars), fmt.Sprint(res.Merged), fmt.Sprintf("%d (%.1f%%)", res.ExactAtoms(), 100*float64(res.ExactAtoms())/float64(in.NumVars)),
			ac(mln.ExactJunctionTree), ac(mln.ExactCounting), fmt.Sprint(by[mln.ExactPropagated][0]), fmt.Sprint(by[mln.ExactFree][0]),
			ac(mln.Sampled), bigText, width, f3(measure.Median(secs))})
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("exact-share", rows)
}

// hardNet is a network of hard clauses only, the target uniform over
// their solutions, with every atom tied to the others.
type hardNet struct {
	name string
	in   *maxsat.Instance
}

// tiedFamily is the network of two hard formulas (Q(x1) ^ R(x1, y1)) =>
// R(x1, y2). and R(x2, y2) => !P(y2). over n constants of t0 and m of t1,
// with the evidence Q(A2) and !R(A3, B2): n + m + nm - 2 unknown atoms, all
// tied by hard clauses (3 and 3: 13 atoms, on which SampleSAT from fresh
// random worlds gave 0.380 for an exact 0.273).
func tiedFamily(n, m int) (*hardNet, error) {
	var a, b []string
	for i := 1; i <= n; i++ {
		a = append(a, fmt.Sprintf("A%d", i))
	}
	for j := 1; j <= m; j++ {
		b = append(b, fmt.Sprintf("B%d", j))
	}
	prog := fmt.Sprintf("t0 = {%s}\nt1 = {%s}\nP(t1)\nQ(t0)\nR(t0, t1)\n(Q(x1) ^ R(x1, y1)) => R(x1, y2).\nR(x2, y2) => !P(y2).\n",
		strings.Join(a, ", "), strings.Join(b, ", "))
	p, err := mln.ParseProgram("family.mln", []byte(prog))
	if err != nil {
		return nil, err
	}
	ev, err := mln.ParseAtoms("family.db", []byte("Q(A2)\n!R(A3, B2)\n"), p, false)
	if err != nil {
		return nil, err
	}
	net, err := mln.Build(p, ev, mln.Options{Query: []string{"P", "Q", "R"}})
	if err != nil {
		return nil, err
	}
	_, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		return nil, err
	}
	return &hardNet{fmt.Sprintf("two hard formulas, %dx%d constants", n, m), in}, nil
}

// plantedHard is maxsattest.PlantedHard of n atoms drawn with seed.
func plantedHard(n int, seed uint64) *hardNet {
	in := maxsattest.PlantedHard(rand.New(rand.NewPCG(seed, 41)), n)
	return &hardNet{fmt.Sprintf("planted hard clauses, %d atoms", n), in}
}

// sampleSAT measures MC-SAT on hard-only networks of 13 to 60 tied atoms,
// where it is SampleSAT alone (with and without the Gibbs sweep after each
// step), against their exact marginals (junction tree): the largest error
// over the atoms, for -samplesat-samples samples and three seeds.
func (c *config) sampleSAT(ctx context.Context) error {
	var nets []*hardNet
	for _, nm := range [][2]int{{3, 3}, {4, 4}, {5, 5}, {6, 6}, {6, 8}} {
		h, err := tiedFamily(nm[0], nm[1])
		if err != nil {
			return err
		}
		nets = append(nets, h)
	}
	for i, n := range []int{13, 20, 30, 45, 60} {
		nets = append(nets, plantedHard(n, uint64(i)))
	}
	rows := [][]string{{"network", "atoms", "hard clauses", "solutions", "sampler", "samples", "largest error (worst of 3 seeds)", "R-hat (worst)", "CPU seconds a run (median)"}}
	for _, h := range nets {
		ex, err := mln.ExactMarginals(ctx, h.in, mln.ExactOptions{MaxClique: 24, MaxEntries: 1 << 26}, true)
		if err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
		solutions := "-"
		if h.in.NumVars <= 20 {
			solutions = fmt.Sprint(countSolutions(h.in))
		}
		for _, pure := range []bool{true, false} {
			name := "MC-SAT with its Gibbs sweep"
			if pure {
				name = "SampleSAT alone (no Gibbs sweep)"
			}
			worst, rhat := 0.0, 0.0
			var secs []float64
			for seed := uint64(1); seed <= 3; seed++ {
				fmt.Fprintf(c.stderr, "  samplesat %s, %s, seed %d ...\n", h.name, name, seed)
				start := measure.CPUSeconds()
				s, err := mln.MCSAT(ctx, h.in, mln.SampleOptions{Samples: c.satSamples, BurnIn: 1000, Chains: 4, Threads: 1, Seed: seed, NoGibbsMoves: pure})
				if err != nil {
					return fmt.Errorf("%s: %w", h.name, err)
				}
				secs = append(secs, measure.CPUSeconds()-start)
				for v, p := range s.Probs {
					worst = max(worst, math.Abs(p-ex.Probs[v]))
				}
				rhat = max(rhat, s.Diagnostics.RHat)
			}
			rows = append(rows, []string{h.name, fmt.Sprint(h.in.NumVars), fmt.Sprint(h.in.NumClauses()), solutions, name, fmt.Sprint(c.satSamples),
				fmt.Sprintf("%.4f", worst), fmt.Sprintf("%.3f", rhat), f3(measure.Median(secs))})
		}
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("samplesat", rows)
}

// countSolutions counts the worlds that satisfy in's hard clauses.
func countSolutions(in *maxsat.Instance) int {
	x := make([]bool, in.NumVars)
	n := 0
	for mask := 0; mask < 1<<in.NumVars; mask++ {
		for v := range x {
			x[v] = mask>>v&1 == 1
		}
		if _, hv := in.Eval(x); hv == 0 {
			n++
		}
	}
	return n
}

// modeNet is a network with modes that single flips cannot cross, built
// from a program.
type modeNet struct{ name, prog, evidence, query string }

// modeNets are groups of friends (Smokes(x) ^ Friends(x, y) =>
// Smokes(y): everyone smoking or no one), a network symmetric under
// swapping two constants, and complete graphs of soft
// equivalences.
func modeNets() []modeNet {
	var nets []modeNet
	for _, n := range []int{16, 20, 24} {
		rng := rand.New(rand.NewPCG(1, 3))
		var people []string
		for i := 1; i <= n; i++ {
			people = append(people, fmt.Sprintf("P%d", i))
		}
		var ev strings.Builder
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				if i != j && rng.Float64() < 0.3 {
					fmt.Fprintf(&ev, "Friends(P%d, P%d)\n", i, j)
				}
			}
		}
		nets = append(nets, modeNet{fmt.Sprintf("%d friends, 30%% friendships", n),
			"person = {" + strings.Join(people, ", ") + "}\n*Friends(person, person)\nSmokes(person)\n1 Smokes(x) ^ Friends(x, y) => Smokes(y)\n0.3 Smokes(x)\n",
			ev.String(), "Smokes"})
	}
	nets = append(nets, modeNet{"symmetric functional, 16 atoms",
		"t1 = {A1, A2, A3, A4}\nt2 = {B1, B2}\nP(t1, t2!)\nQ(t1, t2)\n5.75 P(x, y) <=> Q(x, y)\n5 Q(x, y) => Q(x2, y)\n", "", "P,Q"})
	for _, g := range []struct {
		n    int
		w, h string
	}{{14, "1", "0.1"}, {40, "0.2", "0.1"}} {
		var people []string
		for i := 1; i <= g.n; i++ {
			people = append(people, fmt.Sprintf("P%d", i))
		}
		nets = append(nets, modeNet{fmt.Sprintf("complete graph, %d people, %s S(x) <=> S(y), %s S(x)", g.n, g.w, g.h),
			"person = {" + strings.Join(people, ", ") + "}\nS(person)\n" + g.w + " S(x) <=> S(y)\n" + g.h + " S(x)\n", "", "S"})
	}
	return nets
}

// modes measures the samplers on networks with modes against their exact
// marginals: MC-SAT with cluster moves (the default), MC-SAT flipping
// single atoms, and Gibbs sampling; the largest error over the atoms and
// seeds, and in how many of the seeds' runs the chains said they agreed.
func (c *config) modes(ctx context.Context) error {
	rows := [][]string{{"network", "atoms", "sampler", "samples", "largest error (worst of 3 seeds)", "runs reported mixed", "runs off by > 0.05 yet reported mixed", "CPU seconds a run (median)"}}
	for _, mn := range modeNets() {
		p, err := mln.ParseProgram("modes.mln", []byte(mn.prog))
		if err != nil {
			return err
		}
		ev, err := mln.ParseAtoms("modes.db", []byte(mn.evidence), p, false)
		if err != nil {
			return err
		}
		net, err := mln.Build(p, ev, mln.Options{Query: strings.Split(mn.query, ",")})
		if err != nil {
			return err
		}
		_, in, err := net.GroundClauses(ground.Options{})
		if err != nil {
			return err
		}
		ex, err := mln.ExactMarginals(ctx, in, mln.ExactOptions{MaxClique: 24, MaxEntries: 1 << 26}, true)
		if err != nil {
			return fmt.Errorf("%s: %w", mn.name, err)
		}
		for _, sampler := range []string{"MC-SAT, cluster moves (default)", "MC-SAT, single flips", "Gibbs"} {
			worst, mixed, falseMixed := 0.0, 0, 0
			var secs []float64
			for seed := uint64(1); seed <= 3; seed++ {
				fmt.Fprintf(c.stderr, "  modes %s, %s, seed %d ...\n", mn.name, sampler, seed)
				opt := mln.SampleOptions{Samples: 10_000, BurnIn: 100, Chains: 4, Threads: 1, Seed: seed, NoClusterMoves: sampler == "MC-SAT, single flips"}
				start := measure.CPUSeconds()
				var s *mln.Samples
				if sampler == "Gibbs" {
					s, err = mln.Gibbs(ctx, in, opt)
				} else {
					s, err = mln.MCSAT(ctx, in, opt)
				}
				if err != nil && sampler == "Gibbs" && strings.Contains(err.Error(), "more than the") {
					break // hard clauses tie more atoms than a block: Gibbs refuses
				}
				if err != nil {
					return fmt.Errorf("%s, %s: %w", mn.name, sampler, err)
				}
				secs = append(secs, measure.CPUSeconds()-start)
				w := 0.0
				for v, q := range s.Probs {
					w = max(w, math.Abs(q-ex.Probs[v]))
				}
				worst = max(worst, w)
				if s.Diagnostics.Mixed {
					mixed++
					if w > 0.05 {
						falseMixed++
					}
				}
			}
			if len(secs) == 0 {
				rows = append(rows, []string{mn.name, fmt.Sprint(in.NumVars), sampler, "", "refused: hard clauses tie more atoms than a block", "", "", ""})
				continue
			}
			rows = append(rows, []string{mn.name, fmt.Sprint(in.NumVars), sampler, "10000", fmt.Sprintf("%.4f", worst), fmt.Sprintf("%d of %d", mixed, len(secs)),
				fmt.Sprint(falseMixed), f3(measure.Median(secs))})
		}
	}
	results.Markdown(c.stdout, rows)
	return c.writeCSV("modes", rows)
}
