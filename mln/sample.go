package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hinge-srl/hinge/maxsat"
)

// SampleOptions configure marginal inference by sampling.
type SampleOptions struct {
	// Samples is the number of samples kept; BurnIn the number discarded
	// first.
	Samples, BurnIn int
	// Seed seeds every random choice.
	Seed uint64
	// SampleSATSteps is the number of SampleSAT moves per MC-SAT step
	// (0: one per variable, at least 100).
	SampleSATSteps int
	// SAProb is the probability of a simulated-annealing move (else a
	// WalkSAT move) in SampleSAT, and SATemperature its temperature
	// (Alchemy's defaults: 0.5 and 0.1 when zero).
	SAProb, SATemperature float64
}

// DefaultSampleOptions returns 1,000 samples after 100 burn-in steps.
func DefaultSampleOptions() SampleOptions {
	return SampleOptions{Samples: 1000, BurnIn: 100, Seed: 1}
}

// clauseIndex lists, for every variable, the clauses it occurs in.
type clauseIndex struct {
	in  *maxsat.Instance
	occ [][]int32 // variable -> clauses
	// sign[v][k] is the number of positive minus negative literals of v in
	// clause occ[v][k]: flipping v from false to true changes the clause's
	// count of true literals by sign, from true to false by -sign.
	sign [][]int8
}

func newClauseIndex(in *maxsat.Instance) *clauseIndex {
	ix := &clauseIndex{in: in, occ: make([][]int32, in.NumVars), sign: make([][]int8, in.NumVars)}
	for c := range in.NumClauses() {
		for _, l := range in.Clause(c) {
			v := l.Var()
			k := len(ix.occ[v])
			if k == 0 || ix.occ[v][k-1] != int32(c) {
				ix.occ[v] = append(ix.occ[v], int32(c))
				ix.sign[v] = append(ix.sign[v], 0)
				k++
			}
			if l.Neg() {
				ix.sign[v][k-1]--
			} else {
				ix.sign[v][k-1]++
			}
		}
	}
	return ix
}

// gain is the change in clause occ[v][k]'s count of true literals when v
// flips from its value in x.
func (ix *clauseIndex) gain(x []bool, v, k int) int {
	g := int(ix.sign[v][k])
	if x[v] {
		return -g
	}
	return g
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

func (o *SampleOptions) check() error {
	if o.Samples <= 0 || o.BurnIn < 0 || o.SampleSATSteps < 0 {
		return fmt.Errorf("mln: samples %d must be > 0, burn-in %d and SampleSAT steps %d >= 0", o.Samples, o.BurnIn, o.SampleSATSteps)
	}
	if o.SAProb < 0 || o.SAProb > 1 || o.SATemperature < 0 {
		return fmt.Errorf("mln: SampleSAT annealing probability %v must be in [0,1] and temperature %v >= 0", o.SAProb, o.SATemperature)
	}
	if o.SAProb == 0 {
		o.SAProb = 0.5
	}
	if o.SATemperature == 0 {
		o.SATemperature = 0.1
	}
	return nil
}

// Gibbs estimates the marginal probability that each variable is true by
// Gibbs sampling, from start (nil: all false): each sweep resamples every
// variable from its conditional given the others,
// P(x_v = 1 | rest) = 1 / (1 + exp(-(W1 - W0))), W1 and W0 the weights of
// the soft clauses satisfied with x_v true and false. Hard clauses must be
// made soft first (Options.HardWeight): with deterministic dependencies the
// chain cannot move between the worlds they allow (use MCSAT).
func Gibbs(ctx context.Context, in *maxsat.Instance, start []bool, opt SampleOptions) ([]float64, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if in.NumHard() > 0 {
		return nil, errors.New("mln: Gibbs sampling cannot handle hard clauses (it would not mix); soften them with a hard weight, or use MC-SAT")
	}
	ix := newClauseIndex(in)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6a09e667f3bcc909))
	x := make([]bool, in.NumVars)
	if start != nil {
		copy(x, start)
	}
	count := make([]float64, in.NumVars)
	for it := 0; it < opt.BurnIn+opt.Samples; it++ {
		if it%16 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for v := range x {
			var w0, w1 float64
			for _, c := range ix.occ[v] {
				x[v] = false
				if in.Satisfied(int(c), x) {
					w0 += in.Weight[c]
				}
				x[v] = true
				if in.Satisfied(int(c), x) {
					w1 += in.Weight[c]
				}
			}
			x[v] = rng.Float64() < 1/(1+math.Exp(w0-w1))
		}
		if it >= opt.BurnIn {
			tally(count, x)
		}
	}
	return normalize(count, opt.Samples), nil
}

// MCSAT estimates marginals by MC-SAT (Poon and Domingos 2006): from a
// state that satisfies the hard clauses (start), each step selects every
// satisfied soft clause with probability 1 - exp(-w) (every hard clause
// always) and moves to a near-uniform sample of the states that satisfy
// all selected clauses, found by SampleSAT (WalkSAT moves mixed with
// simulated annealing). start must satisfy the hard clauses: a MAP world
// does.
func MCSAT(ctx context.Context, in *maxsat.Instance, start []bool, opt SampleOptions) ([]float64, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if len(start) != in.NumVars {
		return nil, fmt.Errorf("mln: MC-SAT start has %d values for %d variables", len(start), in.NumVars)
	}
	if _, hv := in.Eval(start); hv > 0 {
		return nil, fmt.Errorf("mln: MC-SAT must start from a state that satisfies the hard clauses; this one violates %d", hv)
	}
	ch := newChain(in, start, opt)
	count := make([]float64, in.NumVars)
	for it := 0; it < opt.BurnIn+opt.Samples; it++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ch.step()
		if it >= opt.BurnIn {
			tally(count, ch.x)
		}
	}
	return normalize(count, opt.Samples), nil
}

// chain is an MC-SAT Markov chain: its state x moves one MC-SAT step at a
// time. The instance's weights are read at every step, so a learner may
// change them between steps (the chain then continues from its state, a
// persistent chain). Weights may be negative: a clause of weight w < 0 that
// x violates is selected with probability 1 - exp(w) as the constraint that
// it stays violated (its negation, a conjunction), as Alchemy does.
type chain struct {
	ss    *sampleSAT
	x     []bool
	steps int
}

func newChain(in *maxsat.Instance, start []bool, opt SampleOptions) *chain {
	steps := opt.SampleSATSteps
	if steps == 0 {
		steps = max(100, in.NumVars)
	}
	return &chain{ss: newSampleSAT(in, opt, rand.New(rand.NewPCG(opt.Seed, 0xbb67ae8584caa73b))),
		x: append([]bool(nil), start...), steps: steps}
}

// step makes one MC-SAT step.
func (ch *chain) step() {
	ch.ss.selectClauses(ch.x)
	ch.ss.run(ch.x, ch.steps)
}

// tally adds one sample to the counts of true values.
func tally(count []float64, x []bool) {
	for v, b := range x {
		if b {
			count[v]++
		}
	}
}

// normalize turns counts over n samples into frequencies.
func normalize(count []float64, n int) []float64 {
	for v := range count {
		count[v] /= float64(n)
	}
	return count
}

// sampleSAT holds SampleSAT's state over the selected clauses.
type sampleSAT struct {
	*clauseIndex
	opt      SampleOptions
	rng      *rand.Rand
	selected []bool  // clause -> in M
	ntrue    []int32 // clause -> true literals (selected clauses only)
	unsat    []int32 // selected clauses with no true literal
	pos      []int32 // clause -> index in unsat, or -1
	cands    []int   // scratch for fixVar
	// prob caches each clause's selection probability 1 - exp(-|w|) for
	// the weight probW it was computed from (-1: not yet).
	prob, probW []float64
}

func newSampleSAT(in *maxsat.Instance, opt SampleOptions, rng *rand.Rand) *sampleSAT {
	m := in.NumClauses()
	s := &sampleSAT{clauseIndex: newClauseIndex(in), opt: opt, rng: rng,
		selected: make([]bool, m), ntrue: make([]int32, m), pos: make([]int32, m),
		prob: make([]float64, m), probW: make([]float64, m)}
	for c := range s.prob {
		s.prob[c] = -1
	}
	return s
}

// selectClauses picks M for the next step: the hard clauses, each soft
// clause of weight w > 0 that x satisfies with probability 1 - exp(-w), and
// each soft clause of weight w < 0 that x violates with probability
// 1 - exp(w) (it must then stay violated).
func (s *sampleSAT) selectClauses(x []bool) {
	s.unsat = s.unsat[:0]
	for c := range s.selected {
		s.pos[c] = -1
		n := s.trueLits(c, x)
		s.ntrue[c] = int32(n)
		w := s.in.Weight[c]
		if w != s.probW[c] || s.prob[c] < 0 {
			// The weight changed (or is new): 1 - exp(-|w|).
			s.probW[c], s.prob[c] = w, -math.Expm1(-math.Abs(w))
		}
		var sel bool
		switch {
		case s.in.Hard[c]:
			sel = true
		case w > 0:
			sel = n > 0 && s.rng.Float64() < s.prob[c]
		case w < 0:
			sel = n == 0 && s.rng.Float64() < s.prob[c]
		}
		s.selected[c] = sel
		if sel && s.violated(c, n) {
			s.pos[c] = int32(len(s.unsat))
			s.unsat = append(s.unsat, int32(c))
		}
	}
}

// violated says whether selected clause c with n true literals is violated:
// no true literal, or for a negative-weight soft clause (selected as its
// negation) any true literal.
func (s *sampleSAT) violated(c, n int) bool {
	if s.in.Weight[c] < 0 && !s.in.Hard[c] {
		return n > 0
	}
	return n == 0
}

// fixVar picks a variable of violated clause c whose flip repairs it in
// part: any of its variables for an ordinary clause, one whose literal is
// true for a negated one; greedy picks the smallest delta.
func (s *sampleSAT) fixVar(x []bool, c int, greedy bool) int {
	lits := s.in.Clause(c)
	anti := s.in.Weight[c] < 0 && !s.in.Hard[c]
	cands := s.cands[:0]
	for _, l := range lits {
		if !anti || x[l.Var()] != l.Neg() {
			cands = append(cands, l.Var())
		}
	}
	s.cands = cands
	if !greedy {
		return cands[s.rng.IntN(len(cands))]
	}
	v, best := cands[0], math.MaxInt
	for _, u := range cands {
		if d := s.delta(x, u); d < best {
			best, v = d, u
		}
	}
	return v
}

// flip flips v and updates the counts of the selected clauses.
func (s *sampleSAT) flip(x []bool, v int) {
	for k, c32 := range s.occ[v] {
		c := int(c32)
		if !s.selected[c] {
			continue
		}
		was := s.ntrue[c]
		n := was + int32(s.gain(x, v, k))
		s.ntrue[c] = n
		switch vWas, vNow := s.violated(c, int(was)), s.violated(c, int(n)); {
		case vWas && !vNow:
			i := s.pos[c]
			last := s.unsat[len(s.unsat)-1]
			s.unsat[i] = last
			s.pos[last] = i
			s.unsat = s.unsat[:len(s.unsat)-1]
			s.pos[c] = -1
		case !vWas && vNow:
			s.pos[c] = int32(len(s.unsat))
			s.unsat = append(s.unsat, int32(c))
		}
	}
	x[v] = !x[v]
}

// delta is the change in the number of violated selected clauses if v
// were flipped.
func (s *sampleSAT) delta(x []bool, v int) int {
	d := 0
	for k, c32 := range s.occ[v] {
		c := int(c32)
		if !s.selected[c] {
			continue
		}
		n := int(s.ntrue[c])
		switch vWas, vNow := s.violated(c, n), s.violated(c, n+s.gain(x, v, k)); {
		case vWas && !vNow:
			d--
		case !vWas && vNow:
			d++
		}
	}
	return d
}

// run makes steps SampleSAT moves from x. While selected clauses are
// unsatisfied, a WalkSAT move (with probability 1 - SAProb) flips a
// variable of a random one of them (greedily or at random); a simulated
// annealing move flips a random variable with probability
// min(1, exp(-delta/T)). Once all are satisfied, only annealing moves that
// keep them satisfied are made, which samples among the solutions.
func (s *sampleSAT) run(x []bool, steps int) {
	n := len(x)
	if n == 0 {
		return
	}
	for range steps {
		if len(s.unsat) > 0 && s.rng.Float64() >= s.opt.SAProb {
			c := int(s.unsat[s.rng.IntN(len(s.unsat))])
			s.flip(x, s.fixVar(x, c, s.rng.IntN(2) == 1))
			continue
		}
		v := s.rng.IntN(n)
		d := s.delta(x, v)
		if len(s.unsat) == 0 && d > 0 {
			continue // stay among the solutions
		}
		if d <= 0 || s.rng.Float64() < math.Exp(-float64(d)/s.opt.SATemperature) {
			s.flip(x, v)
		}
	}
	// SampleSAT stops at a solution; if the walk ended outside one, keep
	// walking (bounded) until all selected clauses hold again.
	for extra := 0; len(s.unsat) > 0 && extra < 100*steps; extra++ {
		c := int(s.unsat[s.rng.IntN(len(s.unsat))])
		s.flip(x, s.fixVar(x, c, false))
	}
}
