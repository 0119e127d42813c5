package kgc

import (
	"cmp"
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/pathrule"
)

// LearnOptions configure Learn.
type LearnOptions struct {
	// Time is the learning budget: sampling rounds run until it is spent,
	// and the round running when it passes is dropped whole, so that the
	// rules are those of the rounds done (LearnResult.Rounds), which
	// Rounds reproduces. 0 means 10 s, or no limit when Rounds is set.
	Time time.Duration
	// Rounds, when > 0, is the number of sampling rounds (the amount of
	// work, the same on any machine and load); Time, when also set, still
	// bounds it.
	Rounds int
	// MaxLength is the longest cyclic body (1-3; 0: 3).
	MaxLength int
	// MinSupport and MinConf drop weak rules (0: 2 and 0.0001).
	MinSupport int
	MinConf    float64
	// PC smooths confidences: support / (body + PC) (0: 5; negative:
	// none, support / body).
	PC float64
	// SamplesPerRound is the most paths a round samples (0: 20,000): the
	// first round samples 1,000 and each next one twice as many, up to it.
	SamplesPerRound int
	// Sample is the most body starts a cyclic rule's count draws (0: 1,000;
	// negative: count every start, exactly); SampleErr stops drawing once
	// the confidence's 95% interval is that narrow (0: 0.01; negative:
	// never early); Work bounds the edges one count may look at (0:
	// 2,000,000; negative: no bound). See CountOptions.
	Sample    int
	SampleErr float64
	Work      int64
	// Threads (0: GOMAXPROCS) and Seed. The rules learned depend on Seed
	// and the rounds done, not on Threads.
	Threads int
	Seed    uint64
	// MemoryLimit, when positive, is the memory in bytes the process may
	// use (hinge sets it from --memory-limit): rounds stop (Stopped
	// "memory") once the heap after the next round, grown as much as by
	// the last one, would pass 60% of it, leaving room to rank the rules.
	// The first round is always done.
	MemoryLimit int64
	// Progress, when set, is called after every round done.
	Progress func(RoundStat)
}

// learnChunks is the number of seeded chunks a round's sampling is cut
// into, whatever the number of threads.
const learnChunks = 16

// firstRoundPaths is the number of paths the first round samples; each
// round doubles it, up to LearnOptions.SamplesPerRound, so that a short
// budget still completes rounds (a timed run drops its unfinished one).
const firstRoundPaths = 1000

func (o *LearnOptions) defaults() {
	if o.Time == 0 && o.Rounds <= 0 {
		o.Time = 10 * time.Second
	}
	if o.MaxLength <= 0 || o.MaxLength > MaxPath {
		o.MaxLength = MaxPath
	}
	if o.MinSupport == 0 {
		o.MinSupport = 2
	}
	if o.MinConf == 0 {
		o.MinConf = 0.0001
	}
	if o.SamplesPerRound == 0 {
		o.SamplesPerRound = 20_000
	}
	pathrule.SetDefaults(&o.PC, &o.Sample, &o.SampleErr, &o.Work)
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
}

// RoundStat describes one sampling round done.
type RoundStat struct {
	// Round counts from 1; Candidates are the new rules it counted, Rules
	// the rules kept after it (all rounds so far), Seconds the time since
	// Learn started.
	Round      int     `json:"round"`
	Candidates int     `json:"candidates"`
	Rules      int     `json:"rules"`
	Seconds    float64 `json:"seconds"`
}

// LearnResult is the outcome of Learn.
type LearnResult struct {
	// Rules are the kept rules by decreasing confidence.
	Rules []Rule
	// Rounds of sampling done, Candidates the distinct rules counted.
	Rounds, Candidates int
	// Kept is the number of rounds whose rules Rules holds: Rounds, unless
	// KeepRounds dropped the rules of the later ones.
	Kept int
	// Sampled is the number of kept rules whose statistics were
	// estimated from sampled starts; MaxErr the largest half-width of
	// their confidences' 95% intervals.
	Sampled int
	MaxErr  float64
	// Stopped says why learning ended: "rounds" (Rounds done), "time"
	// (the budget passed; the round running then was dropped), "memory"
	// (another round would outgrow MemoryLimit's share for learning) or
	// "saturated" (a round found no new rule).
	Stopped string
	// Log has one entry per round done.
	Log     []RoundStat
	Seconds float64
}

// Learn learns rules bottom-up from the graph (AnyBURL's scheme): it
// samples a training triple r(a, b) and a random path from a; a path that
// returns to b gives a cyclic rule, the first step of one that does not an
// acyclic rule with the constant b in the head (and with the constant the
// step reaches, or without it), and the same from b's side for rules with
// the constant in the head's first position. Every relation also gets its
// default rules r(X, c) for every c seen in the head. Each new rule's
// support and confidence are counted over the whole graph, in parallel:
// exactly for acyclic and default rules and for cyclic rules with few
// starts, else estimated from sampled starts with a stated error
// (CountOptions). Rounds continue until Rounds are done, the time budget
// passes (the unfinished round is dropped) or a round finds nothing new.
// The rules depend on the seed and the number of rounds only.
func Learn(ctx context.Context, g *Graph, opt LearnOptions) (*LearnResult, error) {
	opt.defaults()
	start := time.Now()
	var deadline time.Time
	if opt.Time > 0 {
		deadline = start.Add(opt.Time)
	}
	late := func() bool { return !deadline.IsZero() && time.Now().After(deadline) }
	res := &LearnResult{}
	seen := map[key]bool{}
	var kept []Rule
	walkers := make([]*pathrule.Walker, opt.Threads) // per worker, allocated on first use
	co := CountOptions{PC: opt.PC, Sample: opt.Sample, Err: opt.SampleErr, Work: opt.Work, Seed: opt.Seed}
	// count counts cands; false when cancelled or (timed) late, and then
	// nothing of cands is kept.
	count := func(cands []key, round int, timed bool) bool {
		rules := make([]Rule, len(cands))
		var stop atomic.Bool
		par.For(len(cands), opt.Threads, func(w, i int) {
			if stop.Load() {
				return
			}
			if ctx.Err() != nil || (timed && late()) {
				stop.Store(true)
				return
			}
			if walkers[w] == nil {
				walkers[w] = pathrule.NewWalker(g)
			}
			rules[i] = cands[i].rule()
			rules[i].Count(g, co, walkers[w])
			rules[i].Round = round
		})
		if stop.Load() {
			return false
		}
		for _, r := range rules {
			if r.Support >= opt.MinSupport && r.Conf >= opt.MinConf {
				kept = append(kept, r)
			}
		}
		res.Candidates += len(cands)
		return true
	}
	// Default rules: every (relation, constant) seen in the head.
	var defaults []key
	for _, t := range g.Triples {
		for _, k := range []key{{kind: Default, head: t.R, constTail: true, c: t.T}, {kind: Default, head: t.R, constTail: false, c: t.H}} {
			if !seen[k] {
				seen[k] = true
				defaults = append(defaults, k)
			}
		}
	}
	count(defaults, 0, false) // O(1) each
	res.Stopped = "saturated"
	var heap, grown uint64 // after the last round, and by it
	for round := 0; len(g.Triples) > 0 && ctx.Err() == nil; round++ {
		if opt.Rounds > 0 && round >= opt.Rounds {
			res.Stopped = "rounds"
			break
		}
		if late() {
			res.Stopped = "time"
			break
		}
		if opt.MemoryLimit > 0 && round > 0 && float64(heap+grown) > rulesShare*float64(opt.MemoryLimit) {
			res.Stopped = "memory"
			break
		}
		paths := min(opt.SamplesPerRound, firstRoundPaths<<min(round, 20))
		per := (paths + learnChunks - 1) / learnChunks
		found := make([][]key, learnChunks)
		par.For(learnChunks, opt.Threads, func(_, c int) {
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(round*learnChunks+c)))
			for range per {
				found[c] = sample(g, rng, opt.MaxLength, found[c])
			}
		})
		var fresh []key
		inRound := map[key]bool{}
		for _, ks := range found {
			for _, k := range ks {
				if !seen[k] && !inRound[k] {
					inRound[k] = true
					fresh = append(fresh, k)
				}
			}
		}
		if len(fresh) == 0 {
			break
		}
		if !count(fresh, res.Rounds+1, true) {
			if ctx.Err() == nil {
				res.Stopped = "time"
			}
			break
		}
		for _, k := range fresh {
			seen[k] = true
		}
		if opt.MemoryLimit > 0 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > heap {
				grown = ms.HeapAlloc - heap
			}
			heap = ms.HeapAlloc
		}
		res.Rounds++
		st := RoundStat{Round: res.Rounds, Candidates: len(fresh), Rules: len(kept), Seconds: time.Since(start).Seconds()}
		res.Log = append(res.Log, st)
		if opt.Progress != nil {
			opt.Progress(st)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(kept, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(b.Conf, a.Conf), cmp.Compare(b.Support, a.Support))
	})
	res.Rules = kept
	res.KeepRounds(res.Rounds) // counts the sampled rules
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// sample draws one training triple and one path and appends the rules it
// gives to out.
func sample(g *Graph, rng *rand.Rand, maxLen int, out []key) []key {
	t := g.Triples[rng.IntN(len(g.Triples))]
	// The triple itself is not a step of its own rule's body.
	usable := func(from int32, e Edge) bool {
		return e.R != t.R || !((from == t.H && !e.Inverse && e.To == t.T) || (from == t.T && e.Inverse && e.To == t.H))
	}
	pick := func(from int32) (Edge, bool) {
		n := g.Degree(from)
		for range 4 {
			if n == 0 {
				return Edge{}, false
			}
			e := g.EdgeAt(from, rng.IntN(n))
			if usable(from, e) {
				return e, true
			}
		}
		return Edge{}, false
	}
	// Cyclic: L-1 random steps from the head, then a step onto the tail.
	L := 1 + rng.IntN(maxLen)
	cur := t.H
	var k key
	k.kind, k.head, k.n = Cyclic, t.R, uint8(L)
	ok := true
	for i := 0; i < L-1; i++ {
		e, found := pick(cur)
		if !found {
			ok = false
			break
		}
		k.steps[i] = Step{R: e.R, Inverse: e.Inverse}
		cur = e.To
	}
	if ok {
		var closing []Edge
		for i := range g.Degree(cur) {
			if e := g.EdgeAt(cur, i); e.To == t.T && usable(cur, e) {
				closing = append(closing, e)
			}
		}
		if len(closing) > 0 {
			e := closing[rng.IntN(len(closing))]
			k.steps[L-1] = Step{R: e.R, Inverse: e.Inverse}
			out = append(out, k)
		}
	}
	// Acyclic: one step from the variable's side, for both head
	// positions holding the constant.
	for _, constTail := range []bool{true, false} {
		v, c := t.H, t.T
		if !constTail {
			v, c = t.T, t.H
		}
		e, found := pick(v)
		if !found {
			continue
		}
		st := Step{R: e.R, Inverse: e.Inverse}
		out = append(out,
			key{kind: AcyclicConst, head: t.R, constTail: constTail, c: c, d: e.To, n: 1, steps: [MaxPath]Step{st}},
			key{kind: AcyclicAny, head: t.R, constTail: constTail, c: c, n: 1, steps: [MaxPath]Step{st}})
	}
	return out
}
