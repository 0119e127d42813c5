package kgc

import (
	"cmp"
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/hinge-srl/hinge/internal/par"
)

// LearnOptions configure Learn.
type LearnOptions struct {
	// Time is the learning budget (0: 10 s). Learning also stops earlier
	// when a round of sampling finds no new rule.
	Time time.Duration
	// MaxLength is the longest cyclic body (1-3; 0: 3).
	MaxLength int
	// MinSupport and MinConf drop weak rules (0: 2 and 0.0001).
	MinSupport int
	MinConf    float64
	// PC smooths confidences: support / (body + PC) (0: 5).
	PC float64
	// SamplesPerRound is the number of paths sampled per round (0: 20,000).
	SamplesPerRound int
	// Threads (0: GOMAXPROCS) and Seed. Which rules are found depends on
	// both and on the time budget (rounds are sampled in fixed seeded
	// chunks, so with Time large enough to saturate, the rule set does not
	// depend on timing).
	Threads int
	Seed    uint64
}

func (o *LearnOptions) defaults() {
	if o.Time == 0 {
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
	if o.PC == 0 {
		o.PC = 5
	}
	if o.SamplesPerRound == 0 {
		o.SamplesPerRound = 20_000
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
}

// LearnResult is the outcome of Learn.
type LearnResult struct {
	// Rules are the kept rules by decreasing confidence.
	Rules []Rule
	// Rounds of sampling, Candidates the distinct rules counted.
	Rounds, Candidates int
	Seconds            float64
}

// Learn learns rules bottom-up from the graph (AnyBURL's scheme): it
// samples a training triple r(a, b) and a random path from a; a path that
// returns to b gives a cyclic rule, the first step of one that does not an
// acyclic rule with the constant b in the head (and with the constant the
// step reaches, or without it), and the same from b's side for rules with
// the constant in the head's first position. Every relation also gets its
// default rules r(X, c) for every c seen in the head. Each new rule's
// support and confidence are counted exactly over the whole graph, in
// parallel. Rounds continue until the time budget is spent (the round
// running at the deadline keeps the rules it has counted by then) or a
// round finds nothing new.
func Learn(ctx context.Context, g *Graph, opt LearnOptions) (*LearnResult, error) {
	opt.defaults()
	start := time.Now()
	deadline := start.Add(opt.Time)
	res := &LearnResult{}
	seen := map[key]bool{}
	var kept []Rule
	marks := make([][]bool, opt.Threads) // per worker, allocated on first use
	// count counts cands and keeps the good ones; when timed, those not
	// counted by the deadline are dropped.
	count := func(cands []key, timed bool) {
		rules := make([]Rule, len(cands))
		par.For(len(cands), opt.Threads, func(w, i int) {
			if ctx.Err() != nil || (timed && time.Now().After(deadline)) {
				return // not counted (Support 0), so not kept
			}
			if marks[w] == nil {
				marks[w] = make([]bool, g.NumEntities)
			}
			rules[i] = cands[i].rule()
			rules[i].Count(g, opt.PC, marks[w])
		})
		for _, r := range rules {
			if r.Support >= opt.MinSupport && r.Conf >= opt.MinConf {
				kept = append(kept, r)
			}
		}
		res.Candidates += len(cands)
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
	count(defaults, false) // O(1) each
	for round := 0; len(g.Triples) > 0 && time.Now().Before(deadline) && ctx.Err() == nil; round++ {
		res.Rounds++
		chunks := opt.Threads * 4
		per := (opt.SamplesPerRound + chunks - 1) / chunks
		found := make([][]key, chunks)
		par.For(chunks, opt.Threads, func(_, c int) {
			rng := rand.New(rand.NewPCG(opt.Seed, uint64(round*chunks+c)))
			for range per {
				found[c] = sample(g, rng, opt.MaxLength, found[c])
			}
		})
		var fresh []key
		for _, ks := range found {
			for _, k := range ks {
				if !seen[k] {
					seen[k] = true
					fresh = append(fresh, k)
				}
			}
		}
		if len(fresh) == 0 {
			break
		}
		count(fresh, true)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(kept, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(b.Conf, a.Conf), cmp.Compare(b.Support, a.Support))
	})
	res.Rules = kept
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
		edges := g.Edges(from)
		for range 4 {
			if len(edges) == 0 {
				return Edge{}, false
			}
			e := edges[rng.IntN(len(edges))]
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
		k.steps[i] = Step{e.R, e.Inverse}
		cur = e.To
	}
	if ok {
		var closing []Edge
		for _, e := range g.Edges(cur) {
			if e.To == t.T && usable(cur, e) {
				closing = append(closing, e)
			}
		}
		if len(closing) > 0 {
			e := closing[rng.IntN(len(closing))]
			k.steps[L-1] = Step{e.R, e.Inverse}
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
		st := Step{e.R, e.Inverse}
		out = append(out,
			key{kind: AcyclicConst, head: t.R, constTail: constTail, c: c, d: e.To, n: 1, steps: [MaxPath]Step{st}},
			key{kind: AcyclicAny, head: t.R, constTail: constTail, c: c, n: 1, steps: [MaxPath]Step{st}})
	}
	return out
}
