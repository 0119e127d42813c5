package mln

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hinge-srl/hinge/internal/unionfind"
	"github.com/hinge-srl/hinge/maxsat"
)

// SampleOptions configure marginal inference by sampling.
type SampleOptions struct {
	// Samples is the number of samples kept, over all chains together;
	// BurnIn the number of steps each chain discards first.
	Samples, BurnIn int
	// Chains is the number of independent chains (0: 1), each started
	// from its own random world; their agreement is the convergence
	// figure of the result (Diagnostics). Results depend on Chains and
	// Seed, not on Threads.
	Chains int
	// Threads bounds the chains run at once (0: every core).
	Threads int
	// Seed seeds every random choice.
	Seed uint64
	// SampleSATSteps is the number of simulated-annealing moves SampleSAT
	// makes once it has reached a solution of the selected clauses, to
	// spread its samples over the solutions (0: 5 per variable it walks,
	// at least 100). MaxFlips bounds the moves that look for a solution
	// first (0: 100,000 and 100 per variable); a step that finds none
	// keeps the chain where it is and is counted in Diagnostics.Stuck.
	SampleSATSteps, MaxFlips int
	// SAProb is the probability of a simulated-annealing move (else a
	// WalkSAT move) in SampleSAT before it reaches a solution (0: 0.5),
	// and SATemperature the annealing temperature (0: chosen at each step,
	// see satTemperature).
	SAProb, SATemperature float64
	// BlockWeight and MaxBlock configure Gibbs sampling: atoms tied
	// together by hard clauses, or by clauses of at least two literals
	// whose weight is BlockWeight or more in absolute value (0: 4), are
	// sampled jointly from their exact conditional when the group has at
	// most MaxBlock atoms (0: 12). A group of more atoms tied by hard
	// clauses is refused (MC-SAT handles it); one tied only by heavy soft
	// clauses is sampled atom by atom and may mix slowly.
	BlockWeight float64
	MaxBlock    int
	// Exact bounds exact inference (InferMarginals with MarginalAuto or
	// MarginalExact; see ExactMarginals).
	Exact ExactOptions
	// NoClusterMoves makes SampleSAT's annealing moves flip single atoms
	// only (see clusters); for measuring what cluster moves bring.
	NoClusterMoves bool
	// NoFlipMoves leaves out Gibbs's moves that flip a group of tied atoms
	// at once (see flipGroups); for measuring what they bring.
	NoFlipMoves bool
	// NoGibbsMoves leaves out the Gibbs sweep that follows every MC-SAT
	// step (see MCSAT); for measuring MC-SAT alone.
	NoGibbsMoves bool
	// Progress, if set, is called about five times a second with the
	// steps done and to do over all chains.
	Progress func(done, total int)
}

// DefaultSampleOptions returns 1,000 samples from 4 chains, each after 100
// burn-in steps.
func DefaultSampleOptions() SampleOptions {
	return SampleOptions{Samples: 1000, BurnIn: 100, Chains: 4, Seed: 1}
}

func (o *SampleOptions) check() error {
	if o.Chains == 0 {
		o.Chains = 1
	}
	if o.Samples <= 0 || o.BurnIn < 0 || o.Chains < 0 || o.Threads < 0 || o.SampleSATSteps < 0 || o.MaxFlips < 0 || o.MaxBlock < 0 {
		return fmt.Errorf("mln: samples %d must be > 0; burn-in %d, chains %d, threads %d, SampleSAT steps %d, flips %d and block size %d >= 0",
			o.Samples, o.BurnIn, o.Chains, o.Threads, o.SampleSATSteps, o.MaxFlips, o.MaxBlock)
	}
	if o.Samples < o.Chains {
		return fmt.Errorf("mln: %d samples cannot be shared among %d chains", o.Samples, o.Chains)
	}
	if o.SAProb < 0 || o.SAProb > 1 || o.SATemperature < 0 || o.BlockWeight < 0 || math.IsNaN(o.SATemperature) || math.IsNaN(o.BlockWeight) {
		return fmt.Errorf("mln: SampleSAT annealing probability %v must be in [0,1], its temperature %v and the block weight %v >= 0", o.SAProb, o.SATemperature, o.BlockWeight)
	}
	if o.SAProb == 0 {
		o.SAProb = 0.5
	}
	if o.BlockWeight == 0 {
		o.BlockWeight = 4
	}
	if o.MaxBlock == 0 {
		o.MaxBlock = 12
	}
	return nil
}

// Diagnostics say whether sampling chains have mixed. Each chain's kept
// samples are split into halves and every half is one sequence; for each
// atom the potential scale reduction factor (Gelman and Rubin 1992, split
// as in Gelman et al., Bayesian Data Analysis, 3rd ed.) compares the
// variance of the sequences' estimates with the variance within them. It is
// near 1 when every sequence describes the same distribution and grows when
// they disagree more than sampling noise explains. Each sequence counts
// half a pseudo-sample at 0 and half at 1 (for 0/1 samples its estimate is
// p = (true + 1/2)/(n + 1)), so that sequences that never move still give a
// finite figure.
type Diagnostics struct {
	// Chains and SamplesPerChain say how the samples were drawn.
	Chains, SamplesPerChain int
	// RHat is the largest potential scale reduction over the atoms, at
	// atom RHatAtom (-1 when there are no atoms).
	RHat     float64
	RHatAtom int
	// Spread is the largest difference between two chains' estimates of
	// one atom's probability, at atom SpreadAtom (0 with one chain).
	Spread     float64
	SpreadAtom int
	// MCSE is the largest Monte Carlo standard error of an atom's
	// estimate, at atom MCSEAtom, by batch means (see batchMCSE); 0 and -1
	// where the sampler kept no batches.
	MCSE     float64
	MCSEAtom int
	// FewSamples says that a chain kept fewer samples than MCSEBatches,
	// too few to estimate a standard error (or R-hat): such a run is not
	// mixed (one sample a chain was reported mixed, R-hat 1.000).
	FewSamples bool
	// Mixed is RHat <= MixedRHat, Spread <= MixedSpread and MCSE <=
	// MixedMCSE, with enough samples (not FewSamples): the chains, started
	// apart (see overdispersedStart), agree, and each stayed in a mode no
	// longer than its samples can average.
	Mixed bool
	// Stuck counts MC-SAT steps in which SampleSAT found no solution of the
	// selected clauses within its flips, so the chain stayed where it was
	// (correct, but slower mixing); 0 for Gibbs.
	Stuck int
	// Steps counts MC-SAT steps or Gibbs sweeps over all chains.
	Steps int
}

// MixedRHat is the potential scale reduction below which Diagnostics.Mixed
// holds (1.1, the usual threshold of Gelman and Rubin's diagnostic).
const MixedRHat = 1.1

// MixedSpread is the largest difference between two chains' estimates of
// one atom's probability with which Diagnostics.Mixed holds: a check
// beside R-hat, which compares the chains' differences with the variance
// within them and so can miss chains that each wander slowly between
// modes in different proportions.
const MixedSpread = 0.25

// MixedMCSE is the largest Monte Carlo standard error of an estimate
// with which Diagnostics.Mixed holds, so that an estimate said to be mixed
// is within about 0.05 of its limit (two standard errors): chains that
// each switch between two modes only a few times can agree with one
// another (R-hat 1.07, chains 0.08 apart) on a wrong mixture (Gibbs at
// 0.26 for an exact 0.5); their batch means, 0 or 1 by turns, say so. On
// 200 random networks of 3-14 atoms at the default 1,000 samples it
// flagged 2 MC-SAT runs whose estimates were within 0.05, and 42 of 189
// Gibbs runs (soft implication graphs that single-site Gibbs crosses
// slowly: standard errors of 0.03-0.05).
const MixedMCSE = 0.025

// MCSEBatches is the number of batches each chain's kept samples are cut
// into for the Monte Carlo standard error (Diagnostics.SetMCSE).
const MCSEBatches = 10

// BatchOf is the batch (of MCSEBatches) that holds a chain's kept sample
// number kept of per.
func BatchOf(kept, per int) int { return kept * MCSEBatches / per }

// NewBatches returns a chain's batch sums over n atoms, MCSEBatches of
// them, for SetMCSE.
func NewBatches(n int) [][]float64 {
	b := make([][]float64, MCSEBatches)
	for i := range b {
		b[i] = make([]float64, n)
	}
	return b
}

// SetMCSE sets d's largest Monte Carlo standard error and its atom from
// the chains' batch sums (batches[k][b][v] adds up atom v's estimates over
// batch b of chain k's per[k] kept samples: see BatchOf and batchMCSE),
// and makes Mixed require it to be at most MixedMCSE. Any sampler of 0/1
// worlds can use it after Diagnose.
func (d *Diagnostics) SetMCSE(n int, per []int, batches [][][]float64) {
	d.MCSE, d.MCSEAtom = batchMCSE(n, per, batches)
	d.FewSamples = n > 0 && slices.ContainsFunc(per, func(p int) bool { return p < MCSEBatches })
	d.Mixed = d.Mixed && d.MCSE <= MixedMCSE && !d.FewSamples
}

// batchMCSE returns the largest Monte Carlo standard error of the n atoms'
// estimates, and its atom, by batch means: batches[k][b][v] adds up atom
// v's estimates over batch b of chain k's per[k] kept samples (batchOf).
// With S_b a batch's sum, n_b its size, N every batch's samples and p the
// estimate, Var(p) is about B/(B-1) sum_b (S_b - n_b p)^2 / N^2 over the B
// batches that hold samples (the ratio estimator's variance, were the
// batches independent), times (1+r)/(1-r) for r the correlation of
// consecutive batch means within a chain (an AR(1) chain's variance
// factor; r in [0, 0.95]): batches shorter than the time a chain stays in
// a mode are correlated, and without the factor a chain sitting in one
// mode batch after batch was taken for ten independent batches (0.049 for
// an estimate 0.24 off).
func batchMCSE(n int, per []int, batches [][][]float64) (float64, int) {
	sizes := make([][]float64, len(batches)) // [chain][batch]
	total := 0.0
	nb := 0
	for k := range batches {
		sizes[k] = make([]float64, len(batches[k]))
		for kept := range per[k] {
			sizes[k][BatchOf(kept, per[k])]++
		}
		for _, z := range sizes[k] {
			total += z
			if z > 0 {
				nb++
			}
		}
	}
	if nb < 2 || total == 0 {
		return 0, -1
	}
	at := func(k, b, v int) float64 {
		if v < len(batches[k][b]) {
			return batches[k][b][v]
		}
		return 0
	}
	worst, worstAt := 0.0, -1
	for v := range n {
		sum := 0.0
		for k := range batches {
			for b := range batches[k] {
				sum += at(k, b, v)
			}
		}
		p := sum / total
		ss, dev2, lag := 0.0, 0.0, 0.0
		for k := range batches {
			prev, havePrev := 0.0, false
			for b := range batches[k] {
				z := sizes[k][b]
				if z == 0 {
					havePrev = false
					continue
				}
				s := at(k, b, v)
				r := s - z*p
				ss += r * r
				d := s/z - p
				dev2 += d * d
				if havePrev {
					lag += prev * d
				}
				prev, havePrev = d, true
			}
		}
		rho := 0.0
		if dev2 > 0 {
			rho = min(max(lag/dev2, 0), 0.95)
		}
		se := math.Sqrt(ss*float64(nb)/float64(nb-1)*(1+rho)/(1-rho)) / total
		if se > worst || worstAt < 0 {
			worst, worstAt = se, v
		}
	}
	return worst, worstAt
}

// Samples is the result of a sampler: every variable's estimated
// probability of being true and how far to trust it.
type Samples struct {
	Probs       []float64
	Diagnostics Diagnostics
	// Merged is the number of clauses sampled, identical ground clauses
	// merged (mergeClauses).
	Merged int
	// Exact says which variables' marginals are exact (nil when the
	// network was sampled in full), and Components how the network was
	// split for exact inference (see ExactMarginals).
	Exact      []bool
	Components []Component
}

// sampler is one Markov chain.
type sampler interface {
	// step moves the chain one step (an MC-SAT step, a Gibbs sweep).
	step() error
	// estimate is the chain's current estimate of each atom's probability
	// of being true: the atom's conditional probability given the others
	// (Rao-Blackwellised), or its value in the current world.
	estimate() []float64
	// stuck counts the steps that left the chain where it was for want of
	// a solution.
	stuck() int
}

// runChains runs opt.Chains chains made by mk (chain k from its own seed),
// each opt.BurnIn steps and then its share of opt.Samples, at most
// opt.Threads at once, and returns the pooled marginals of n variables with
// the chains' diagnostics.
func runChains(ctx context.Context, n int, opt SampleOptions, mk func(k int, rng *rand.Rand) (sampler, error)) (*Samples, error) {
	chains := opt.Chains
	per := make([]int, chains)
	for k := range per {
		per[k] = opt.Samples / chains
		if k < opt.Samples%chains {
			per[k]++
		}
	}
	total := 0
	for _, s := range per {
		total += opt.BurnIn + s
	}
	// sums[k][h][v] and squares[k][h][v]: the sum of v's estimates and of
	// their squares over half h of chain k's samples.
	sums := make([][2][]float64, chains)
	squares := make([][2][]float64, chains)
	batches := make([][][]float64, chains) // per chain, the batches' sums (batchMCSE)
	stuck := make([]int, chains)
	errs := make([]error, chains)
	var done atomic.Int64
	threads := opt.Threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, max(1, threads))
	var wg sync.WaitGroup
	for k := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[k] = ctx.Err()
				return
			}
			rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15*uint64(k+1)))
			s, err := mk(k, rng)
			if err != nil {
				errs[k] = err
				return
			}
			sums[k] = [2][]float64{make([]float64, n), make([]float64, n)}
			squares[k] = [2][]float64{make([]float64, n), make([]float64, n)}
			batches[k] = NewBatches(n)
			for it := 0; it < opt.BurnIn+per[k]; it++ {
				if ctx.Err() != nil {
					errs[k] = ctx.Err()
					return
				}
				if err := s.step(); err != nil {
					errs[k] = err
					return
				}
				done.Add(1)
				if kept := it - opt.BurnIn; kept >= 0 {
					half := 0
					if kept >= per[k]/2 {
						half = 1
					}
					est := s.estimate()
					add(sums[k][half], squares[k][half], est)
					addTo(batches[k][BatchOf(kept, per[k])], est)
				}
			}
			stuck[k] = s.stuck()
		}()
	}
	if opt.Progress != nil {
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		tick := time.NewTicker(200 * time.Millisecond)
	wait:
		for {
			select {
			case <-finished:
				break wait
			case <-tick.C:
				opt.Progress(int(done.Load()), total)
			}
		}
		tick.Stop()
		opt.Progress(int(done.Load()), total)
	} else {
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return summarize(n, per, sums, squares, batches, stuck, total), nil
}

// summarize pools the chains' sums of n estimates over their kept samples
// (per[k] of chain k, split in halves) into marginals and diagnostics;
// total is the steps made over all chains.
func summarize(n int, per []int, sums, squares [][2][]float64, batches [][][]float64, stuck []int, total int) *Samples {
	samples := 0
	for _, p := range per {
		samples += p
	}
	res := &Samples{Probs: make([]float64, n)}
	for k := range sums {
		for h := range 2 {
			for v, c := range sums[k][h] {
				res.Probs[v] += c
			}
		}
	}
	for v := range res.Probs {
		res.Probs[v] /= float64(samples)
	}
	res.Diagnostics = Diagnose(n, per, sums, squares)
	d := &res.Diagnostics
	d.SetMCSE(n, per, batches)
	for k := range stuck {
		d.Stuck += stuck[k]
	}
	d.Steps = total
	return res
}

// Diagnose says whether chains that sampled n atoms agree (see
// Diagnostics; Stuck and Steps are left 0): chain k kept per[k] samples,
// split into two halves, and sums[k][h][v] and squares[k][h][v] add up, over
// the samples of half h, the sample's estimate of atom v's probability (its
// 0/1 value, or a conditional probability) and its square. Any sampler of
// 0/1 worlds can use it.
func Diagnose(n int, per []int, sums, squares [][2][]float64) Diagnostics {
	chains := len(per)
	d := Diagnostics{Chains: chains, RHat: 1, RHatAtom: -1, SpreadAtom: -1, MCSEAtom: -1}
	if chains > 0 {
		d.SamplesPerChain = per[chains-1]
	}
	for v := range n {
		if r := splitRHat(sums, squares, per, v); r > d.RHat || d.RHatAtom < 0 {
			d.RHat, d.RHatAtom = r, v
		}
		lo, hi := 1.0, 0.0
		for k := range sums {
			p := (sums[k][0][v] + sums[k][1][v]) / float64(per[k])
			lo, hi = min(lo, p), max(hi, p)
		}
		if s := hi - lo; s > d.Spread && chains > 1 {
			d.Spread, d.SpreadAtom = s, v
		}
	}
	d.Mixed = d.RHat <= MixedRHat && d.Spread <= MixedSpread
	return d
}

// splitRHat is variable v's split potential scale reduction over the chains'
// half sequences (see Diagnostics).
func splitRHat(sums, squares [][2][]float64, per []int, v int) float64 {
	var means, vars []float64
	minLen := math.MaxInt
	for k := range sums {
		half := per[k] / 2
		for h, n := range [2]int{half, per[k] - half} {
			if n == 0 {
				continue
			}
			// With half a pseudo-sample at 0 and half at 1.
			p := (sums[k][h][v] + 0.5) / float64(n+1)
			m2 := (squares[k][h][v] + 0.5) / float64(n+1)
			means = append(means, p)
			vars = append(vars, max(0, m2-p*p)*float64(n+1)/float64(n))
			minLen = min(minLen, n)
		}
	}
	m := float64(len(means))
	if m < 2 || minLen < 2 {
		return 1
	}
	n := float64(minLen)
	mean, w := 0.0, 0.0
	for i := range means {
		mean += means[i]
		w += vars[i]
	}
	mean /= m
	w /= m
	b := 0.0
	for _, p := range means {
		b += (p - mean) * (p - mean)
	}
	b *= n / (m - 1)
	return math.Sqrt(((n-1)/n*w + b/n) / w)
}

// add adds one sample's estimates to the sums and their squares.
func add(sum, square, p []float64) {
	for v, q := range p {
		sum[v] += q
		square[v] += q * q
	}
}

// addTo adds p to sum.
func addTo(sum, p []float64) {
	for v, q := range p {
		sum[v] += q
	}
}

// tally adds one sample to the counts of true values.
func tally(count []float64, x []bool) {
	for v, b := range x {
		if b {
			count[v]++
		}
	}
}

// clauseIndex lists, for every variable, the clauses it occurs in.
type clauseIndex struct {
	in  *maxsat.Instance
	occ [][]int32 // variable -> clauses
	// pos[v][k] and neg[v][k] say whether clause occ[v][k] has v as a
	// positive and as a negative literal (both in x v !x).
	pos, neg [][]bool
}

func newClauseIndex(in *maxsat.Instance) *clauseIndex {
	ix := &clauseIndex{in: in, occ: make([][]int32, in.NumVars), pos: make([][]bool, in.NumVars), neg: make([][]bool, in.NumVars)}
	for c := range in.NumClauses() {
		for _, l := range in.Clause(c) {
			v := l.Var()
			k := len(ix.occ[v])
			if k == 0 || ix.occ[v][k-1] != int32(c) {
				ix.occ[v] = append(ix.occ[v], int32(c))
				ix.pos[v] = append(ix.pos[v], false)
				ix.neg[v] = append(ix.neg[v], false)
				k++
			}
			if l.Neg() {
				ix.neg[v][k-1] = true
			} else {
				ix.pos[v][k-1] = true
			}
		}
	}
	return ix
}

// gain is the change in clause occ[v][k]'s count of true literals when v
// flips from its value in x.
func (ix *clauseIndex) gain(x []bool, v, k int) int {
	g := b2i(ix.pos[v][k]) - b2i(ix.neg[v][k])
	if x[v] {
		return -g
	}
	return g
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// trueLits counts the literals of clause c that x makes true.
func (ix *clauseIndex) trueLits(c int, x []bool) int {
	n := 0
	for _, l := range ix.in.Clause(c) {
		if x[l.Var()] != l.Neg() {
			n++
		}
	}
	return n
}

// MCSAT estimates marginals by MC-SAT (Poon and Domingos, "Sound and
// Efficient Inference with Probabilistic and Deterministic Dependencies",
// AAAI 2006). Identical ground clauses are merged first (mergeClauses), so
// that the sampler sees the network Alchemy and the cost see. The chains
// start apart (overdispersedStart: a MaxWalkSAT world, every atom false,
// every atom true, random worlds); a chain's first step moves to a world
// that satisfies the hard clauses. Every later step selects each hard
// clause, each soft clause of weight w > 0 that the current world
// satisfies with probability 1 - exp(-w) (the two clauses of a soft
// equivalence as one feature: selectPairs), and each soft clause of weight
// w < 0 that it violates with probability 1 - exp(w) (as the constraint
// that it stays violated), then moves within the worlds that satisfy
// every selected clause by SampleSAT (Wei, Erenrich and Selman, "Towards
// Efficient Sampling: Exploiting Random Walk Strategies", AAAI 2004) made
// a kernel that leaves the uniform distribution over them unchanged:
// unit propagation fixes what the selection forces, every atom no
// selected clause holds gets a fresh random value, and the others move
// from the current world (a solution: the clauses were selected among
// those it satisfies) by annealing moves, single atoms or whole clusters
// that the selected implications tie (clusters), taken at the m-th visit
// to a solution (uniformMoves). That makes MC-SAT exact in the limit
// whatever the number of atoms the hard clauses tie, where SampleSAT from
// a fresh random world, kept at the last solution it visited, is biased
// towards the solutions its walk reaches first (on 13 atoms tied by two
// hard formulas, 0.380 for an exact 0.273 at 10^5 samples).
//
// Each step is followed by a Gibbs sweep (blocked as in Gibbs; not with
// opt.NoGibbsMoves). Both kernels leave the distribution unchanged, so their
// composition does too, and the sweep frees atoms that MC-SAT alone holds
// still: a violated negative-weight clause of several literals is selected,
// with probability 1 - exp(-|w|), as the constraint that all its atoms keep
// their values, so a heavy one (|w| of 10 or more) holds its mode for about
// exp(|w|) steps. The estimates are the atoms' conditional probabilities in
// the sweep, averaged over the samples (Rao-Blackwellised); without the
// sweep, the worlds' values.
func MCSAT(ctx context.Context, in *maxsat.Instance, opt SampleOptions) (*Samples, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	return mcsat(ctx, mergeClauses(in), opt)
}

// mcsat is MCSAT over a merged network.
func mcsat(ctx context.Context, net *mergedNet, opt SampleOptions) (*Samples, error) {
	in := net.in
	ix := newClauseIndex(net.in)
	sw, err := newSweep(net.in, ix, opt, false)
	if err != nil {
		return nil, err
	}
	s, err := runChains(ctx, in.NumVars, opt, func(k int, rng *rand.Rand) (sampler, error) {
		start, err := overdispersedStart(ctx, k, net.in, rng)
		if err != nil {
			return nil, err
		}
		return newMCSATChain(net, ix, sw, start, opt, rng), nil
	})
	if err == nil {
		s.Merged = net.in.NumClauses()
	}
	return s, err
}

// overdispersedStart is chain k's first world over the merged network m:
// for chain 0 a good world found by MaxWalkSAT (10 flips per atom, between
// 1,000 and 100,000), for chain 1 every atom false, for chain 2 every atom
// true, and a random world for the others. A chain's first step moves to a
// solution of the hard clauses near its start (WalkSAT moves from it), so
// the chains start from solutions spread over the worlds: one in or near
// the most probable mode, one among mostly false atoms, one among mostly
// true ones (as a graph of soft equivalences has them). Chains that cannot
// cross between the modes they start in disagree, and the diagnostics see
// it, where chains from random worlds all fall into one.
func overdispersedStart(ctx context.Context, k int, m *maxsat.Instance, rng *rand.Rand) ([]bool, error) {
	x := make([]bool, m.NumVars)
	switch k {
	case 0:
		flips := min(max(10*m.NumVars, 1000), 100_000)
		res, err := maxsat.WalkSAT(ctx, walkableMerged(m), nil, maxsat.WalkOptions{Steps: flips, Seed: rng.Uint64()})
		if err != nil {
			return nil, err
		}
		copy(x, res.X)
	case 1:
	case 2:
		for v := range x {
			x[v] = true
		}
	default:
		for v := range x {
			x[v] = rng.IntN(2) == 1
		}
	}
	return x, nil
}

// mcsatChain is an MC-SAT Markov chain over a merged network.
type mcsatChain struct {
	// chainState holds the chain's world and every clause's count in it
	// between steps; during SampleSAT only the active clauses' counts are
	// kept.
	*chainState
	net        *mergedNet
	sw         *sweep
	opt        SampleOptions
	prev       []bool
	stuckSteps int
	hardOK     bool // x satisfies the hard clauses

	stamp    uint32
	selected []uint32 // clause -> stamp when selected as a clause
	sat      []uint32 // clause -> stamp when satisfied by the fixed atoms
	fixed    []uint32 // var -> stamp when fixed (to x's value)
	walking  []uint32 // var -> stamp when one of the walk's atoms
	active   []int32  // selected clauses that the fixed atoms do not satisfy
	walk     []int32  // unfixed atoms of the active clauses
	queue    []int32
	unsat    []int32 // active clauses with no true literal
	pos      []int32 // clause -> index in unsat, or -1
	cands    []int32
	prob     []float64 // clause -> selection probability for weight probW
	probW    []float64
	// The walk atoms' occurrences in the active clauses (indexActive):
	// walk atom v, at walkAt[v], has aOcc[aStart[i]:aEnd[i]].
	walkAt       []int32
	aStart, aEnd []int32
	aOcc         []activeOcc

	// The step's clusters (see clusters).
	clusterUnits
	// paired[c] == stamp: soft clause c's selection was decided with its
	// equivalence pair's (selectPairs).
	paired []uint32
}

// chain is the MC-SAT chain the discriminative learner keeps.
type chain = mcsatChain

// persistentNet is the merged network a learner's persistent MC-SAT chains
// share. The learner changes the source network's weights between
// sampling rounds and then calls refresh, while no chain steps; the chains
// continue from their states.
type persistentNet struct {
	net *mergedNet
	ix  *clauseIndex
	sw  *sweep
}

func newPersistentNet(in *maxsat.Instance) *persistentNet {
	net := mergeClauses(in)
	ix := newClauseIndex(net.in)
	opt := SampleOptions{Samples: 1}
	if err := opt.check(); err != nil {
		panic(err) // the defaults are valid
	}
	sw, err := newSweep(net.in, ix, opt, false)
	if err != nil {
		panic(err) // not strict: no error
	}
	return &persistentNet{net: net, ix: ix, sw: sw}
}

// refresh re-reads the source network's weights.
func (p *persistentNet) refresh() { p.net.refresh() }

// chain starts a chain at start (nil: a random world).
func (p *persistentNet) chain(start []bool, opt SampleOptions) *chain {
	if err := opt.check(); err != nil {
		panic(err) // the learner checked its options
	}
	return newMCSATChain(p.net, p.ix, p.sw, start, opt, rand.New(rand.NewPCG(opt.Seed, 0xbb67ae8584caa73b)))
}

func newMCSATChain(net *mergedNet, ix *clauseIndex, sw *sweep, start []bool, opt SampleOptions, rng *rand.Rand) *mcsatChain {
	n, m := net.in.NumVars, net.in.NumClauses()
	ch := &mcsatChain{chainState: newChainState(ix, rng), net: net, sw: sw, opt: opt, prev: make([]bool, n),
		selected: make([]uint32, m), sat: make([]uint32, m), pos: make([]int32, m),
		fixed: make([]uint32, n), walking: make([]uint32, n),
		prob: make([]float64, m), probW: make([]float64, m)}
	if start != nil {
		copy(ch.x, start)
	} else {
		for v := range ch.x {
			ch.x[v] = rng.IntN(2) == 1
		}
	}
	for c := range ch.prob {
		ch.prob[c] = -1
	}
	_, hv := net.in.Eval(ch.x)
	ch.hardOK = hv == 0
	ch.recount()
	return ch
}

func (ch *mcsatChain) stuck() int { return ch.stuckSteps }

// step makes one MC-SAT step. While the chain's world violates hard clauses
// (only before its first step), the step selects the hard clauses alone.
func (ch *mcsatChain) step() error {
	ch.stamp++
	if ch.stamp == 0 { // wrapped: clear the stamps
		clear(ch.selected)
		clear(ch.sat)
		clear(ch.fixed)
		clear(ch.walking)
		ch.stamp = 1
	}
	copy(ch.prev, ch.x)
	if !ch.sampleSAT() {
		if !ch.hardOK {
			return fmt.Errorf("mln: MC-SAT found no world that satisfies the hard clauses in %d flips (they may be unsatisfiable)", ch.maxFlips())
		}
		copy(ch.x, ch.prev)
		ch.stuckSteps++
	}
	ch.hardOK = true
	ch.recount()
	if ch.opt.NoGibbsMoves {
		ch.condFromWorld()
		return nil
	}
	return ch.sweep(ch.sw)
}

// selectClauses marks the clauses of this step's constraint set M (see
// MCSAT) and fixes the atoms that unit clauses and negated clauses force;
// it returns false on a contradiction (possible only before the chain's
// world satisfies the hard clauses).
func (ch *mcsatChain) selectClauses() bool {
	in := ch.net.in
	ch.queue = ch.queue[:0]
	x := ch.x
	if ch.hardOK {
		ch.selectPairs()
	}
	for c := range in.NumClauses() {
		w, hard := in.Weight[c], in.Hard[c]
		var sel bool
		switch {
		case hard:
			sel = true
		case !ch.hardOK || w == 0 || (ch.paired != nil && ch.paired[c] == ch.stamp):
		default:
			if w != ch.probW[c] || ch.prob[c] < 0 {
				ch.probW[c], ch.prob[c] = w, -math.Expm1(-math.Abs(w))
			}
			n := ch.ntrue[c]
			if (w > 0) != (n > 0) || ch.rng.Float64() >= ch.prob[c] {
				continue
			}
			if w < 0 {
				// The clause stays violated: every literal false, as x has it.
				for _, l := range in.Clause(c) {
					if !ch.fix(l.Var(), x[l.Var()]) {
						return false
					}
				}
				continue
			}
			sel = true
		}
		if !sel {
			continue
		}
		ch.selected[c] = ch.stamp
		if lits := in.Clause(c); len(lits) == 1 {
			if !ch.fix(lits[0].Var(), !lits[0].Neg()) {
				return false
			}
		}
	}
	return true
}

// fix fixes v to val for this step; false when it is fixed to the other
// value already. The value is stored in x.
func (ch *mcsatChain) fix(v int, val bool) bool {
	if ch.fixed[v] == ch.stamp {
		return ch.x[v] == val
	}
	ch.fixed[v] = ch.stamp
	ch.x[v] = val
	ch.queue = append(ch.queue, int32(v))
	return true
}

// propagate runs unit propagation over the selected clauses from the atoms
// queued by fix; false on a contradiction.
func (ch *mcsatChain) propagate() bool {
	in := ch.net.in
	for len(ch.queue) > 0 {
		v := ch.queue[len(ch.queue)-1]
		ch.queue = ch.queue[:len(ch.queue)-1]
		for _, c32 := range ch.occ[v] {
			c := int(c32)
			if ch.selected[c] != ch.stamp || ch.sat[c] == ch.stamp {
				continue
			}
			open, openLit := 0, maxsat.Lit(0)
			for _, l := range in.Clause(c) {
				u := l.Var()
				switch {
				case ch.fixed[u] != ch.stamp:
					open, openLit = open+1, l
				case ch.x[u] != l.Neg():
					ch.sat[c] = ch.stamp
				}
			}
			if ch.sat[c] == ch.stamp {
				continue
			}
			switch open {
			case 0:
				return false
			case 1:
				if !ch.fix(openLit.Var(), !openLit.Neg()) {
					return false
				}
				ch.sat[c] = ch.stamp
			}
		}
	}
	return true
}

func (ch *mcsatChain) maxFlips() int {
	if ch.opt.MaxFlips > 0 {
		return ch.opt.MaxFlips
	}
	return max(100_000, 100*ch.net.in.NumVars)
}

// sampleSAT replaces x by a near-uniform sample of the worlds that satisfy
// this step's selected clauses, or returns false (x then holds garbage)
// when it finds none within the flip budget.
func (ch *mcsatChain) sampleSAT() bool {
	in := ch.net.in
	if !ch.selectClauses() || !ch.propagate() {
		return false
	}
	// The selected clauses the fixed atoms do not satisfy, and their
	// unfixed atoms; a clause the fixed atoms satisfy was marked by
	// propagate only when one of its atoms was dequeued, so look again.
	ch.active, ch.walk = ch.active[:0], ch.walk[:0]
	for c := range in.NumClauses() {
		if ch.selected[c] != ch.stamp || ch.sat[c] == ch.stamp {
			continue
		}
		satisfied := false
		for _, l := range in.Clause(c) {
			if u := l.Var(); ch.fixed[u] == ch.stamp && ch.x[u] != l.Neg() {
				satisfied = true
				break
			}
		}
		if satisfied {
			ch.sat[c] = ch.stamp
			continue
		}
		ch.active = append(ch.active, int32(c))
		for _, l := range in.Clause(c) {
			if u := l.Var(); ch.fixed[u] != ch.stamp && ch.walking[u] != ch.stamp {
				ch.walking[u] = ch.stamp
				ch.walk = append(ch.walk, int32(u))
			}
		}
	}
	ch.indexActive()
	// Every atom the selection leaves free and no active clause holds is
	// uniform given the rest: a fresh random value. Before the chain's
	// world satisfies the hard clauses, the walk's atoms keep their values
	// too, so that the chain's first solution is found from its start
	// (see overdispersedStart).
	for v := range ch.x {
		if ch.fixed[v] != ch.stamp && ch.walking[v] != ch.stamp {
			ch.x[v] = ch.rng.IntN(2) == 1
		}
	}
	ch.unsat = ch.unsat[:0]
	for _, c := range ch.active {
		n := ch.trueLits(int(c), ch.x)
		ch.ntrue[c] = int32(n)
		ch.pos[c] = -1
		if n == 0 {
			ch.pos[c] = int32(len(ch.unsat))
			ch.unsat = append(ch.unsat, c)
		}
	}
	if len(ch.walk) == 0 {
		return len(ch.unsat) == 0
	}
	temp := satTemperature(ch.opt, len(ch.walk))
	budget := ch.maxFlips()
	// Only before the first solution: WalkSAT moves (a variable of a
	// random violated clause, the one breaking fewest clauses or a random
	// one) mixed with annealing moves find one. Later the world satisfies
	// every selected clause already (they were chosen among those it
	// satisfies).
	for f := 0; len(ch.unsat) > 0; f++ {
		if f >= budget {
			return false
		}
		if ch.rng.Float64() >= ch.opt.SAProb {
			c := int(ch.unsat[ch.rng.IntN(len(ch.unsat))])
			ch.flip(ch.fixVar(c, ch.rng.IntN(2) == 1))
			continue
		}
		ch.anneal(temp)
	}
	return ch.uniformMoves(temp, budget)
}

// satTemperature is opt.SATemperature, or when that is 0 the temperature
// of a step's annealing moves over walk atoms: 1/ln(e + walk), at most 0.5.
// A move that violates one clause is accepted with probability
// exp(-1/T) = 1/(e + walk), so that the moves out of the solutions, about
// walk of them, add up to about one: the chain spends about half its moves
// at a solution whatever the number of atoms it walks (at 0.5 on UW-CSE's
// 600-atom walks it nearly never came back to one), while on a walk of a
// dozen atoms it crosses barriers of a few violated clauses in a few
// hundred moves.
func satTemperature(opt SampleOptions, walk int) float64 {
	if opt.SATemperature > 0 {
		return opt.SATemperature
	}
	return min(0.5, 1/math.Log(math.E+float64(walk)))
}

// sampleSATVisits is the number of visits to a solution after which
// SampleSAT takes its sample: opt.SampleSATSteps, or 5 per atom walked
// (at least 100), plus 0 or 1 at random. A fixed number would make the
// kernel periodic where every move is accepted (a single cluster flips at
// every move, and would be back where it started after an even number).
func sampleSATVisits(opt SampleOptions, walk int, rng *rand.Rand) int {
	m := opt.SampleSATSteps
	if m == 0 {
		m = max(100, 5*walk)
	}
	return m + rng.IntN(2)
}

// uniformMoves moves the walk's atoms from a solution of the active
// clauses to another, leaving the uniform distribution over the solutions
// unchanged (see sampleSAT), and returns false when it fails to come back
// to a solution within budget flips (the step then keeps the previous
// world). Annealing moves (a random walk atom, flipped with probability
// min(1, exp(-delta/T)), delta the change in violated active clauses) are
// a Metropolis chain whose stationary distribution is proportional to
// exp(-violated/T), uniform on the solutions; the chain watched only while
// it is at a solution (its trace on the solutions) is a Markov chain whose
// stationary distribution is that one restricted to the solutions, the
// uniform distribution (Levin, Peres and Wilmer, Markov Chains and Mixing
// Times, the induced chain). So the sample is the world at the chain's
// m-th visit to a solution, a fixed m (each move that ends at a solution,
// staying put included, is a visit): m steps of the trace chain from the
// current solution (m is drawn before the moves: see sampleSATVisits).
// Moves through worlds that violate clauses cross between solutions that
// single flips cannot join, and a cluster move (see clusters) flips atoms
// that the step's selected implications tie together at once.
func (ch *mcsatChain) uniformMoves(temp float64, budget int) bool {
	visits := sampleSATVisits(ch.opt, len(ch.walk), ch.rng)
	units := !ch.opt.NoClusterMoves && ch.clusters()
	for f := 0; visits > 0; f++ {
		if f >= budget {
			return false // the step goes back to the previous world
		}
		if units {
			ch.annealUnit(temp)
		} else {
			ch.anneal(temp)
		}
		if len(ch.unsat) == 0 {
			visits--
		}
	}
	return true
}

// anneal makes one simulated-annealing move at temperature temp and returns
// the atom it flipped, or -1.
func (ch *mcsatChain) anneal(temp float64) int {
	v := int(ch.walk[ch.rng.IntN(len(ch.walk))])
	if ch.anneal1(v, temp) {
		return v
	}
	return -1
}

// anneal1 flips atom v with probability min(1, exp(-delta/temp)), delta
// the change in violated active clauses, and returns whether it did.
func (ch *mcsatChain) anneal1(v int, temp float64) bool {
	d := ch.delta(v)
	if d <= 0 || (temp > 0 && ch.rng.Float64() < math.Exp(-float64(d)/temp)) {
		ch.flip(v)
		return true
	}
	return false
}

// fixVar picks an unfixed atom of violated active clause c: one whose flip
// leaves the fewest active clauses violated when greedy, else a random one.
func (ch *mcsatChain) fixVar(c int, greedy bool) int {
	cands := ch.cands[:0]
	for _, l := range ch.net.in.Clause(c) {
		if u := l.Var(); ch.fixed[u] != ch.stamp {
			cands = append(cands, int32(u))
		}
	}
	ch.cands = cands
	if !greedy {
		return int(cands[ch.rng.IntN(len(cands))])
	}
	// The fewest breaks, ties broken at random (reservoir sampling): a
	// fixed tie-break would favour one side of every symmetric choice.
	v, best, ties := int(cands[0]), math.MaxInt, 0
	for _, u := range cands {
		switch d := ch.delta(int(u)); {
		case d < best:
			best, v, ties = d, int(u), 1
		case d == best:
			ties++
			if ch.rng.IntN(ties) == 0 {
				v = int(u)
			}
		}
	}
	return v
}

// activeOcc is an occurrence of a walk atom in an active clause: the
// clause, and the change in its true literals when the atom goes from
// false to true (1 for a positive literal, -1 for a negated one).
type activeOcc struct {
	c int32
	g int8
}

// indexActive lists, for every walk atom (walkAt gives its position), its
// occurrences in the step's active clauses, so that moves look at those
// alone rather than at every clause of the atom.
func (ch *mcsatChain) indexActive() {
	w := len(ch.walk)
	if ch.walkAt == nil {
		ch.walkAt = make([]int32, len(ch.x))
	}
	for i, v := range ch.walk {
		ch.walkAt[v] = int32(i)
	}
	start := slices.Grow(ch.aStart[:0], w+1)[:w+1]
	clear(start)
	for _, c := range ch.active {
		for _, l := range ch.net.in.Clause(int(c)) {
			if u := l.Var(); ch.fixed[u] != ch.stamp {
				start[ch.walkAt[u]+1]++
			}
		}
	}
	for i := range w {
		start[i+1] += start[i]
	}
	occ := slices.Grow(ch.aOcc[:0], int(start[w]))[:start[w]]
	end := slices.Grow(ch.aEnd[:0], w)[:w]
	copy(end, start[:w])
	for _, c := range ch.active {
		for _, l := range ch.net.in.Clause(int(c)) {
			u := l.Var()
			if ch.fixed[u] == ch.stamp {
				continue
			}
			g := int8(1)
			if l.Neg() {
				g = -1
			}
			i := ch.walkAt[u]
			if e := end[i]; e > start[i] && occ[e-1].c == c { // x v !x
				occ[e-1].g += g
				continue
			}
			occ[end[i]] = activeOcc{c, g}
			end[i]++
		}
	}
	ch.aStart, ch.aOcc, ch.aEnd = start, occ, end
}

// activeOf returns walk atom v's occurrences in the active clauses.
func (ch *mcsatChain) activeOf(v int) []activeOcc {
	i := ch.walkAt[v]
	return ch.aOcc[ch.aStart[i]:ch.aEnd[i]]
}

// flip flips v and updates the active clauses' counts.
func (ch *mcsatChain) flip(v int) {
	for _, o := range ch.activeOf(v) {
		c := o.c
		g := int32(o.g)
		if ch.x[v] {
			g = -g
		}
		was := ch.ntrue[c]
		n := was + g
		ch.ntrue[c] = n
		switch {
		case was == 0 && n > 0:
			i := ch.pos[c]
			last := ch.unsat[len(ch.unsat)-1]
			ch.unsat[i] = last
			ch.pos[last] = i
			ch.unsat = ch.unsat[:len(ch.unsat)-1]
			ch.pos[c] = -1
		case was > 0 && n == 0:
			ch.pos[c] = int32(len(ch.unsat))
			ch.unsat = append(ch.unsat, int32(c))
		}
	}
	ch.x[v] = !ch.x[v]
}

// delta is the change in the number of violated active clauses if v were
// flipped.
func (ch *mcsatChain) delta(v int) int {
	d := 0
	for _, o := range ch.activeOf(v) {
		g := int32(o.g)
		if ch.x[v] {
			g = -g
		}
		switch n := ch.ntrue[o.c]; {
		case n == 0 && n+g > 0:
			d--
		case n > 0 && n+g == 0:
			d++
		}
	}
	return d
}

// Gibbs estimates the marginal probability that each variable is true by
// Gibbs sampling. Identical clauses are merged first, as for MC-SAT. The
// chains start apart, as MC-SAT's do (below), and each sweep resamples
// every atom
// from its conditional given the others,
// P(x_v = 1 | rest) = 1 / (1 + exp(-(W1 - W0))), W1 and W0 the weights of
// the clauses satisfied with x_v true and false. Atoms tied together by hard
// clauses, or by clauses of two or more literals whose weight is at least
// opt.BlockWeight in absolute value, are resampled jointly, as one block,
// from their exact conditional (every assignment of the block enumerated;
// one that violates a hard clause has probability 0), as Alchemy blocks
// mutually exclusive atoms: single-atom moves cannot cross between the
// worlds that such clauses allow. A block of more than opt.MaxBlock atoms
// tied by hard clauses is refused (MC-SAT samples those networks);
// heavy soft clauses that would make too large a block are left to
// single-atom moves, and the diagnostics show whether the chains mixed.
func Gibbs(ctx context.Context, in *maxsat.Instance, opt SampleOptions) (*Samples, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	net := mergeClauses(in)
	ix := newClauseIndex(net.in)
	sw, err := newSweep(net.in, ix, opt, true)
	if err != nil {
		return nil, err
	}
	var groups []flipGroup
	if !opt.NoFlipMoves {
		groups = flipGroups(net.in, ix, sw)
	}
	s, err := runChains(ctx, in.NumVars, opt, func(k int, rng *rand.Rand) (sampler, error) {
		ch := &gibbsChain{chainState: newChainState(ix, rng), sw: sw, groups: groups}
		// Apart, as MCSAT's chains start (overdispersedStart): from the
		// most probable mode MaxWalkSAT finds, every atom false, every
		// atom true, random worlds, so that chains stuck in different
		// modes disagree. Chains from random worlds alone all fell into
		// one mode of a symmetric network and reported R-hat 1.00. A
		// start that violates a hard clause is repaired by the first
		// sweep: the atoms of every hard clause are one block, resampled
		// from its exact conditional, where such worlds have probability
		// 0. (Replacing such a start by a random world lost the mode it
		// stood for: with a hard unit clause beside a symmetric ring, all
		// four chains fell into one mode.)
		start, err := overdispersedStart(ctx, k, net.in, rng)
		if err != nil {
			return nil, err
		}
		copy(ch.x, start)
		ch.recount()
		return ch, nil
	})
	if err == nil {
		s.Merged = net.in.NumClauses()
	}
	return s, err
}

// gibbsBlock is a group of atoms Gibbs resamples jointly: its atoms, the
// clauses they occur in, and for each of those clauses its literals on the
// block's atoms as (position in the block, negated).
type gibbsBlock struct {
	vars    []int32
	clauses []int32
	lits    [][]blockLit
	// occ[i] lists atom i's literals as (clause position in clauses,
	// negated), for the Gray-code walk of sampleBlock.
	occ [][]blockOcc
}

type blockOcc struct {
	clause int32
	neg    bool
}

type blockLit struct {
	at  int8
	neg bool
}

// sweep is the order of a Gibbs sweep: the blocks, then the atoms in no
// block.
type sweep struct {
	blocks  []gibbsBlock
	singles []int32
}

// newSweep groups the atoms that hard or heavy clauses tie together
// (union-find over their clauses) into blocks of up to opt.MaxBlock atoms.
// A larger group tied by hard clauses is an error when strict (Gibbs
// sampling alone could not leave the worlds they allow) and otherwise left
// to single-atom moves (MC-SAT's steps cross between those worlds).
func newSweep(in *maxsat.Instance, ix *clauseIndex, opt SampleOptions, strict bool) (*sweep, error) {
	sets := unionfind.New(in.NumVars)
	tied := func(c int) bool {
		return len(in.Clause(c)) >= 2 && (in.Hard[c] || math.Abs(in.Weight[c]) >= opt.BlockWeight)
	}
	for c := range in.NumClauses() {
		if lits := in.Clause(c); tied(c) {
			for _, l := range lits[1:] {
				sets.Union(int32(lits[0].Var()), int32(l.Var()))
			}
		}
	}
	hardIn := make([]bool, in.NumVars) // representative -> tied by a hard clause
	for c := range in.NumClauses() {
		if in.Hard[c] && tied(c) {
			hardIn[sets.Find(int32(in.Clause(c)[0].Var()))] = true
		}
	}
	sw := &sweep{}
	for _, vs := range sets.Groups(nil) {
		if len(vs) < 2 || len(vs) > opt.MaxBlock {
			if len(vs) > opt.MaxBlock && hardIn[sets.Find(vs[0])] && strict {
				return nil, fmt.Errorf("mln: Gibbs sampling: hard clauses tie %d atoms together, more than the %d it samples jointly (single-atom moves could not leave the worlds they allow); use --method mcsat", len(vs), opt.MaxBlock)
			}
			sw.singles = append(sw.singles, vs...) // atom by atom
			continue
		}
		b := gibbsBlock{vars: vs, occ: make([][]blockOcc, len(vs))}
		at := map[int32]int8{}
		for i, v := range vs {
			at[v] = int8(i)
		}
		seen := map[int32]bool{}
		for _, v := range vs {
			for _, c := range ix.occ[v] {
				if seen[c] {
					continue
				}
				seen[c] = true
				var bl []blockLit
				for _, l := range in.Clause(int(c)) {
					if i, ok := at[int32(l.Var())]; ok {
						bl = append(bl, blockLit{i, l.Neg()})
					}
				}
				for _, l := range bl {
					b.occ[l.at] = append(b.occ[l.at], blockOcc{int32(len(b.clauses)), l.neg})
				}
				b.clauses = append(b.clauses, c)
				b.lits = append(b.lits, bl)
			}
		}
		sw.blocks = append(sw.blocks, b)
	}
	slices.Sort(sw.singles)
	return sw, nil
}

// chainState is a chain's state: a world, every clause's count of true
// literals in it, and the chain's random source.
type chainState struct {
	*clauseIndex
	rng   *rand.Rand
	x     []bool
	ntrue []int32
	// cond holds, for each atom, its conditional probability of being
	// true given the others when it was last resampled.
	cond      []float64
	score     []float64 // scratch: log-weight of each block assignment
	blockTrue []int32   // scratch: true literals of a block's clauses
}

func newChainState(ix *clauseIndex, rng *rand.Rand) *chainState {
	n := ix.in.NumVars
	return &chainState{clauseIndex: ix, rng: rng, x: make([]bool, n), ntrue: make([]int32, ix.in.NumClauses()), cond: make([]float64, n)}
}

func (w *chainState) estimate() []float64 { return w.cond }

// condFromWorld sets every atom's estimate to its value in the world.
func (w *chainState) condFromWorld() {
	for v, b := range w.x {
		w.cond[v] = float64(b2i(b))
	}
}

// recount sets every clause's count from x.
func (w *chainState) recount() {
	for c := range w.ntrue {
		w.ntrue[c] = int32(w.trueLits(c, w.x))
	}
}

// set gives v the value val and updates the clause counts.
func (w *chainState) set(v int, val bool) {
	if w.x[v] == val {
		return
	}
	for k, c := range w.occ[v] {
		w.ntrue[c] += int32(w.gain(w.x, v, k))
	}
	w.x[v] = val
}

// resample draws atom v from its conditional given the other atoms,
// P(x_v = 1 | rest) = 1 / (1 + exp(-(W1 - W0))), W1 and W0 the weights of
// the soft clauses satisfied with x_v true and false; a value that violates
// a hard clause has probability 0.
func (w *chainState) resample(v int) error {
	in := w.in
	var w0, w1 float64
	hard0, hard1 := false, false
	for k, c32 := range w.occ[v] {
		c := int(c32)
		// The clause's true literals other than v's.
		rest := int(w.ntrue[c])
		if w.x[v] {
			rest -= b2i(w.pos[v][k])
		} else {
			rest -= b2i(w.neg[v][k])
		}
		sat0, sat1 := rest+b2i(w.neg[v][k]) > 0, rest+b2i(w.pos[v][k]) > 0
		if in.Hard[c] {
			hard0, hard1 = hard0 || !sat0, hard1 || !sat1
			continue
		}
		if sat0 {
			w0 += in.Weight[c]
		}
		if sat1 {
			w1 += in.Weight[c]
		}
	}
	var p float64
	switch {
	case hard0 && hard1:
		return fmt.Errorf("mln: Gibbs sampling: the hard clauses on atom %d cannot both hold", v)
	case hard0:
		p = 1
	case hard1:
		p = 0
	default:
		p = 1 / (1 + math.Exp(w0-w1))
	}
	w.cond[v] = p
	w.set(v, w.rng.Float64() < p)
	return nil
}

// gibbsChain is a Gibbs sampling chain.
type gibbsChain struct {
	*chainState
	sw     *sweep
	groups []flipGroup
}

func (ch *gibbsChain) stuck() int { return 0 }

// step sweeps, then proposes to flip each group (flipMove). The sweep
// comes first so that a start violating hard clauses is repaired by the
// blocks before any flip: a flip that repairs some is accepted whatever the
// soft weights say, and flips made first pulled the all-true start of a
// tied group into the all-false mode in its first step, every chain then
// in one mode and called mixed 0.435 off.
func (ch *gibbsChain) step() error {
	if err := ch.sweep(ch.sw); err != nil {
		return err
	}
	for i := range ch.groups {
		ch.flipMove(&ch.groups[i])
	}
	return nil
}

// sweep resamples every block and every other atom once.
func (w *chainState) sweep(sw *sweep) error {
	for i := range sw.blocks {
		if err := w.sampleBlock(&sw.blocks[i]); err != nil {
			return err
		}
	}
	for _, v := range sw.singles {
		if err := w.resample(int(v)); err != nil {
			return err
		}
	}
	return nil
}

// sampleBlock resamples block b from its exact conditional given the other
// atoms.
func (ch *chainState) sampleBlock(b *gibbsBlock) error {
	in := ch.in
	size := len(b.vars)
	states := 1 << size
	if cap(ch.score) < states {
		ch.score = make([]float64, states)
	}
	score := ch.score[:states]
	cur := 0
	for i, v := range b.vars {
		if ch.x[v] {
			cur |= 1 << i
		}
	}
	// Each clause's true literals in the block's all-false assignment,
	// where drawBlock's walk starts.
	if cap(ch.blockTrue) < len(b.clauses) {
		ch.blockTrue = make([]int32, len(b.clauses))
	}
	cnt := ch.blockTrue[:len(b.clauses)]
	for j, c32 := range b.clauses {
		// True literals outside the block, plus the block's negated ones
		// (true in the all-false assignment the walk starts from).
		n := int(ch.ntrue[c32])
		for _, bl := range b.lits[j] {
			if (cur>>bl.at&1 == 1) != bl.neg {
				n--
			}
			if bl.neg {
				n++
			}
		}
		cnt[j] = int32(n)
	}
	pick, ok := drawBlock(score, b.clauses, cnt, in.Hard, in.Weight, b.occ, b.vars, ch.cond, ch.rng)
	if !ok {
		return fmt.Errorf("mln: Gibbs sampling: no assignment of %d atoms tied by hard clauses satisfies them", size)
	}
	for i, v := range b.vars {
		ch.set(int(v), pick>>i&1 == 1)
	}
	return nil
}

// drawBlock draws a block of atoms from its exact conditional. clauses are
// the block's clauses (indexes into hard and weight), cnt[j] the true
// literals of clauses[j] in the block's all-false assignment, occ[i] atom
// i's literals in them. It walks the block's assignments in Gray-code
// order, each one flip from the last, keeping every clause's count of true
// literals (cnt is changed) and the score (the weight of the satisfied
// soft clauses; -Inf while a hard clause is violated) up to date, so that
// a step costs the flipped atom's clauses, not all of them. It sets
// cond[vars[i]] to atom i's conditional probability of being true and
// returns the assignment drawn with rng (bit i: atom i), or ok false when
// no assignment satisfies the hard clauses. score holds 1 << len(occ)
// entries.
func drawBlock(score []float64, clauses, cnt []int32, hard []bool, weight []float64, occ [][]blockOcc, vars []int32, cond []float64, rng *rand.Rand) (pick int, ok bool) {
	sc, hardViolated := 0.0, 0
	for j, c := range clauses {
		switch n := cnt[j]; {
		case hard[c]:
			if n == 0 {
				hardViolated++
			}
		case n > 0:
			sc += weight[c]
		}
	}
	states := len(score)
	st := 0
	for k := range states {
		if k > 0 {
			i := bits.TrailingZeros(uint(k))
			st ^= 1 << i
			on := st>>i&1 == 1
			for _, o := range occ[i] {
				c := clauses[o.clause]
				was := cnt[o.clause]
				if on != o.neg {
					cnt[o.clause]++
				} else {
					cnt[o.clause]--
				}
				now := cnt[o.clause]
				if (was > 0) == (now > 0) {
					continue
				}
				switch {
				case hard[c] && now > 0:
					hardViolated--
				case hard[c]:
					hardViolated++
				case now > 0:
					sc += weight[c]
				default:
					sc -= weight[c]
				}
			}
		}
		if hardViolated > 0 {
			score[st] = math.Inf(-1)
		} else {
			score[st] = sc
		}
	}
	top := math.Inf(-1)
	for _, s := range score {
		top = max(top, s)
	}
	if math.IsInf(top, -1) {
		return 0, false
	}
	sum := 0.0
	for s := range score {
		score[s] = math.Exp(score[s] - top)
		sum += score[s]
	}
	for i, v := range vars {
		p := 0.0
		for st, q := range score {
			if st>>i&1 == 1 {
				p += q
			}
		}
		cond[v] = p / sum
	}
	r := rng.Float64() * sum
	pick = states - 1
	for s, p := range score {
		if r < p {
			pick = s
			break
		}
		r -= p
	}
	return pick, true
}
