package rrf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hinge-srl/hinge/mln"
)

// Evidence fixes some variables: Fixed[v] set means X[v] is given.
type Evidence struct {
	Fixed []bool
	X     []bool
}

func (e *Evidence) check(n int) error {
	if e == nil {
		return nil
	}
	if len(e.Fixed) != n || len(e.X) != n {
		return fmt.Errorf("rrf: evidence has %d/%d entries for %d variables", len(e.Fixed), len(e.X), n)
	}
	return nil
}

func (e *Evidence) fixed(v int) bool { return e != nil && e.Fixed[v] }

// start returns a random assignment respecting the evidence.
func start(n int, ev *Evidence, rng *rand.Rand) []bool {
	return assign(n, ev, func() bool { return rng.IntN(2) == 1 })
}

// chainStart is where Gibbs chain k > 0 starts: chain 1 with every unknown
// variable false, chain 2 with every one true, the others at random. Chains
// that start apart are what lets their agreement (R-hat) tell a run that
// has mixed from one whose chains all fell into one mode: from random
// starts, the four chains of a symmetric, strongly coupled 40-atom network
// all reached its all-false mode and reported 0 for every atom (exact 0.5)
// with R-hat 1.00.
func chainStart(k int, n int, ev *Evidence, rng *rand.Rand) []bool {
	if k != 1 && k != 2 {
		return start(n, ev, rng)
	}
	return assign(n, ev, func() bool { return k == 2 })
}

// assign returns the evidence's values and, for every unknown variable,
// value().
func assign(n int, ev *Evidence, value func() bool) []bool {
	x := make([]bool, n)
	for v := range x {
		if ev.fixed(v) {
			x[v] = ev.X[v]
		} else {
			x[v] = value()
		}
	}
	return x
}

// ICMOptions configure iterated conditional modes.
type ICMOptions struct {
	Restarts  int // random starts (at least 1)
	Seed      uint64
	MaxSweeps int // per restart (0: 1000)
	// Progress, when set, is called after every sweep with the restart
	// (from 0) and the sweeps it has done.
	Progress func(restart, sweeps int)
}

// ICM finds a mode: from a random assignment, set each unknown variable in
// turn to its more probable value given the others, until no single change
// raises the score; the best of Restarts runs is returned with its log
// score s_0 in net (a network grounded from a program has the features the
// evidence decides folded away, so its s_0 differs from the program's by
// their constant). A cancelled ctx stops it before the next variable, with ctx's
// error (a variable under many features can take a while, a sweep over
// many such much longer). A network whose feature values could pass
// float64's range under the evidence (a chain of features under the smooth
// normalisation compounds each one's excess over 1) is refused before the
// first move, and a log score that is not finite is an error, never an
// answer.
func ICM(ctx context.Context, net *Net, ev *Evidence, opt ICMOptions) ([]bool, float64, error) {
	if err := ev.check(net.NumVars); err != nil {
		return nil, 0, err
	}
	if opt.MaxSweeps <= 0 {
		opt.MaxSweeps = 1000
	}
	if err := net.Validate(); err != nil {
		return nil, 0, err
	}
	if err := net.rangeError(ev); err != nil {
		return nil, 0, err
	}
	tp := newTopology(net)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x3c6ef372fe94f82b))
	var best []bool
	bestScore := math.Inf(-1)
	for r := 0; r < max(1, opt.Restarts); r++ {
		s, err := newState(net, tp, start(net.NumVars, ev, rng))
		if err != nil {
			return nil, 0, err
		}
		for sweep := 0; sweep < opt.MaxSweeps; sweep++ {
			changed := false
			for v := range s.X {
				if ev.fixed(v) {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
				g := s.flipGain(v)
				if want := g > 0; want != s.X[v] && g != 0 {
					s.Set(v, want)
					changed = true
				}
			}
			s.refresh() // drop the rounding of the incremental updates
			if opt.Progress != nil {
				opt.Progress(r, sweep+1)
			}
			if !changed {
				break
			}
		}
		if err := finiteScore(s.LogScore()); err != nil {
			return nil, 0, err
		}
		if sc := s.LogScore(); sc > bestScore {
			best, bestScore = append([]bool(nil), s.X...), sc
		}
	}
	return best, bestScore, nil
}

// GibbsOptions configure Gibbs sampling.
type GibbsOptions struct {
	Samples, BurnIn int // sweeps kept and discarded
	Seed            uint64
	// NoFlipMoves leaves out the moves that flip a group of tied
	// variables at once after each sweep (see flipGroups); for measuring
	// what they bring.
	NoFlipMoves bool
	// Progress, when set, is called after every sweep with the sweeps done
	// and BurnIn+Samples.
	Progress func(done, total int)
}

// Gibbs estimates each variable's marginal probability by Gibbs sampling
// from init (nil: a random assignment; an ICM mode shortens the burn-in):
// each step resamples the blocks of variables that heavy features tie
// jointly and every other unknown variable alone (a sweep, see gibbsPlan),
// then proposes to flip each group of variables that features tie
// (flipGroups); a variable alone is drawn from
// P(x_v = 1 | rest) = 1 / (1 + exp(-(s_0(x_v=1) - s_0(x_v=0)))), computed
// from the cached feature sums of v's ancestors only. A cancelled ctx stops
// it before the next variable, with ctx's error. A network whose values
// could overflow is refused as by ICM.
func Gibbs(ctx context.Context, net *Net, ev *Evidence, init []bool, opt GibbsOptions) ([]float64, error) {
	res, err := GibbsChains(ctx, net, ev, init, 1, opt)
	if err != nil {
		return nil, err
	}
	return res.Probs, nil
}

// GibbsResult holds marginals estimated by Gibbs sampling and whether the
// chains that estimated them agree.
type GibbsResult struct {
	Probs []float64
	// Diagnostics compare the chains (Markov logic's split R-hat, largest
	// spread and largest standard error, mln.Diagnose and SetMCSE); with
	// one chain its two halves.
	Diagnostics mln.Diagnostics
}

// GibbsChains runs chains Gibbs chains (see Gibbs), the first from init
// (nil: a random assignment), the second with every unknown variable
// false, the third with every one true and the others from random
// assignments, each BurnIn sweeps and then its
// share of opt.Samples (the samples are over all chains together), and
// pools them; its Diagnostics say whether the chains agree. Chain k draws
// from its own stream of opt.Seed, so the result depends on the chain
// count, not on anything else.
func GibbsChains(ctx context.Context, net *Net, ev *Evidence, init []bool, chains int, opt GibbsOptions) (*GibbsResult, error) {
	if err := ev.check(net.NumVars); err != nil {
		return nil, err
	}
	if opt.Samples <= 0 || opt.BurnIn < 0 || chains <= 0 {
		return nil, fmt.Errorf("rrf: samples %d and chains %d must be > 0 and burn-in %d >= 0", opt.Samples, chains, opt.BurnIn)
	}
	if err := net.rangeError(ev); err != nil {
		return nil, err
	}
	per := make([]int, chains)
	for k := range per {
		per[k] = opt.Samples / chains
		if k < opt.Samples%chains {
			per[k]++
		}
	}
	sums := make([][2][]float64, chains)
	batches := make([][][]float64, chains) // per chain, the batches' counts (mln.Diagnostics.SetMCSE)
	total, done := 0, 0
	for _, p := range per {
		total += opt.BurnIn + p
	}
	plan := newGibbsPlan(net, ev, opt.NoFlipMoves)
	for k := range chains {
		stream := uint64(0xa54ff53a5f1d36f1) + uint64(k)
		rng := rand.New(rand.NewPCG(opt.Seed, stream))
		x := init
		if k > 0 {
			x = chainStart(k, net.NumVars, ev, rng)
		} else if x == nil {
			x = start(net.NumVars, ev, rng)
		}
		s, err := NewState(net, x)
		if err != nil {
			return nil, err
		}
		sums[k] = [2][]float64{make([]float64, net.NumVars), make([]float64, net.NumVars)}
		batches[k] = mln.NewBatches(net.NumVars)
		for it := 0; it < opt.BurnIn+per[k]; it++ {
			if err := s.step(ctx, ev, plan, rng); err != nil {
				return nil, err
			}
			if err := finiteScore(s.LogScore()); err != nil {
				return nil, err
			}
			if kept := it - opt.BurnIn; kept >= 0 {
				half := 0
				if kept >= per[k]/2 {
					half = 1
				}
				batch := batches[k][mln.BatchOf(kept, per[k])]
				for v, b := range s.X {
					if b {
						sums[k][half][v]++
						batch[v]++
					}
				}
			}
			if done++; opt.Progress != nil {
				opt.Progress(done, total)
			}
		}
		s.refresh()
		if err := finiteScore(s.LogScore()); err != nil {
			return nil, err
		}
	}
	res := &GibbsResult{Probs: make([]float64, net.NumVars)}
	for k := range sums {
		for v := range res.Probs {
			res.Probs[v] += sums[k][0][v] + sums[k][1][v]
		}
	}
	for v := range res.Probs {
		res.Probs[v] /= float64(opt.Samples)
	}
	// 0/1 samples: each one's square is itself.
	res.Diagnostics = mln.Diagnose(net.NumVars, per, sums, sums)
	res.Diagnostics.SetMCSE(net.NumVars, per, batches)
	return res, nil
}

// gibbsSweep resamples every unknown variable once (but those skip marks,
// when not nil), in order, from
// P(x_v = 1 | rest), and every refreshEvery sweeps recomputes the cached
// sums from scratch (which drops the rounding of the incremental updates:
// about 1e-16 of a sum per update). A cancelled ctx stops it before the
// next variable, with ctx's error, leaving the state consistent (every
// variable resampled or not, the sums up to date).
func (s *State) gibbsSweep(ctx context.Context, ev *Evidence, skip []bool, rng *rand.Rand) error {
	for v := range s.X {
		if ev.fixed(v) || skip != nil && skip[v] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		g := s.flipGain(v)
		s.Set(v, rng.Float64() < 1/(1+math.Exp(-g)))
	}
	if s.sweeps++; s.sweeps%refreshEvery == 0 {
		s.refresh()
	}
	return nil
}

// refreshEvery is how many Gibbs sweeps run between two recomputations of
// the cached sums: one costs as much as a sweep over a large network whose
// atoms have few ancestors.
const refreshEvery = 16
