package kgc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// RoundsOptions configure ChooseRounds. Zero values take the defaults.
type RoundsOptions struct {
	// Scoring (see RoundsScoring), NoisyOrK (0: DefaultNoisyOrK) and
	// Confidence rank the validation queries as the run will rank its
	// test queries.
	Scoring    Scoring
	NoisyOrK   int
	Confidence Confidence
	// MaxValid is the number of validation triples ranked, a seeded
	// sample when there are more (0: 1,000; negative: all).
	MaxValid int
	// TopK is the list length (0: DefaultRoundsTopK): a true answer
	// below it is a miss.
	TopK int
	// Threads (0: GOMAXPROCS) and Seed (of the sample).
	Threads int
	Seed    uint64
	// Progress, when set, is called before each checkpoint is ranked.
	Progress func(rounds int)
}

// DefaultRoundsTopK is RoundsOptions.TopK unless set: the choice compares
// the checkpoints' MRR over the first 10 places, where nearly all of it
// is; on Kinship (104 entities) it chooses as with the whole list of 100
// and ranks 3.8 times faster.
const DefaultRoundsTopK = 10

// RoundsScoring is the scoring ChooseRounds ranks with for a run ranked
// with s: s, but NoisyOr for Clustered and Learned (their clusters and
// weights are chosen on the rules kept) and MaxPlus for PSL (the
// candidates PSL re-scores).
func RoundsScoring(s Scoring) Scoring {
	if s == Clustered {
		return NoisyOr
	}
	return s.combined()
}

// RoundsTrial is one checkpoint ChooseRounds ranked: the rules of the
// first Rounds rounds and their validation MRR (lists of
// RoundsOptions.TopK).
type RoundsTrial struct {
	Rounds   int     `json:"rounds"`
	Rules    int     `json:"rules"`
	ValidMRR float64 `json:"valid_mrr"`
	// SE is the standard error of the paired difference of reciprocal
	// ranks between this checkpoint and the last (0 for the last).
	SE float64 `json:"se_vs_all_rounds"`
}

// RoundsChoice is the outcome of ChooseRounds.
type RoundsChoice struct {
	// Rounds is the number of rounds whose rules are kept, of Of done.
	Rounds int `json:"rounds"`
	Of     int `json:"of"`
	// ValidQueries is the number of validation queries ranked (2 per
	// validation triple of the sample), TopK their lists' length.
	ValidQueries int           `json:"valid_queries"`
	TopK         int           `json:"top_k"`
	Tried        []RoundsTrial `json:"tried"`
	// Confirm, when the sample chose fewer rounds than done and there
	// are more validation triples than it holds, compares those rounds
	// with all on up to 5 times as many (the sample among them); the
	// fewer are kept only if they rank them better too.
	Confirm *RoundsConfirm `json:"confirm,omitempty"`
	Seconds float64        `json:"seconds"`
}

// RoundsConfirm is the check of a choice of fewer rounds on a larger
// validation sample: the validation MRR of the rules of the first Rounds
// rounds and of all, over ValidQueries queries, and the standard error of
// their paired difference.
type RoundsConfirm struct {
	Rounds       int     `json:"rounds"`
	ValidQueries int     `json:"valid_queries"`
	ValidMRR     float64 `json:"valid_mrr"`
	AllMRR       float64 `json:"valid_mrr_all_rounds"`
	SE           float64 `json:"se"`
}

// Checkpoints are the round counts ChooseRounds compares for a run of n
// rounds, increasing: n, n/2, n/4, ... (rounded up) down to 1. A run of 2n
// rounds has every checkpoint of a run of n, so that doubling the budget
// never lowers the validation MRR of the rounds chosen.
func Checkpoints(n int) []int {
	var cs []int
	for c := n; c >= 1; c = (c + 1) / 2 {
		cs = append(cs, c)
		if c == 1 {
			break
		}
	}
	slices.Reverse(cs)
	return cs
}

// ChooseRounds ranks the validation triples (both ways, filtered by
// known: the graph's and the validation triples) with the rules of the
// first c rounds for every c of Checkpoints(rounds) (rules of round 0, the
// default rules and rules read from a file, in every one) and returns the c
// of the largest validation MRR, the last on a tie; a c below rounds that
// won on a sample of the validation triples is kept only if it also ranks
// a sample 5 times as large (or every validation triple) better than all
// rounds' rules (RoundsChoice.Confirm). Learning longer finds
// rules that are rarer and, on a small dense graph, whose confidences are
// more often high by chance: with the rounds chosen so, a longer budget
// keeps the rules of a shorter one when the validation split says they rank
// better. Rules' Round must be set as Learn sets it. Validation triples
// naming a relation or entity outside g are left out; one whose answer no
// rule predicts counts as a miss.
func ChooseRounds(ctx context.Context, g *Graph, rules []Rule, rounds int, valid []Triple, known func(Triple) bool, opt RoundsOptions) (*RoundsChoice, error) {
	start := time.Now()
	if opt.MaxValid == 0 {
		opt.MaxValid = 1000
	}
	if opt.NoisyOrK <= 0 {
		opt.NoisyOrK = DefaultNoisyOrK
	}
	if opt.TopK <= 0 {
		opt.TopK = DefaultRoundsTopK
	}
	s := RoundsScoring(opt.Scoring)
	all := validSample(g, valid, opt.MaxValid, rand.New(rand.NewPCG(opt.Seed, 0x0c4e)))
	vs, confirm := all[:firstN(len(all), opt.MaxValid)], all[:firstN(len(all), confirmTimes*opt.MaxValid)]
	ch := &RoundsChoice{Rounds: rounds, Of: rounds, ValidQueries: 2 * len(vs), TopK: opt.TopK}
	if len(vs) == 0 || rounds <= 1 {
		ch.Seconds = time.Since(start).Seconds()
		return ch, nil
	}
	// ranker ranks with the rules of the first c rounds; rank gives each
	// query's reciprocal rank (0: a miss) of ts.
	ranker := func(c int) *Ranker {
		if opt.Progress != nil {
			opt.Progress(c)
		}
		rk := newRanker(g, rules, s, func(r *Rule) bool { return r.Round <= c })
		rk.NoisyOrK = opt.NoisyOrK
		rk.SetConfidence(opt.Confidence)
		return rk
	}
	rank := func(rk *Ranker, ts []Triple) ([]float64, error) {
		ev, err := rk.Evaluate(ctx, ts, known, EvalOptions{TopK: opt.TopK, Threads: opt.Threads,
			Answers: func(int, Answer, Answer) error { return nil }}) // no lists kept
		if err != nil {
			return nil, err
		}
		return ev.ReciprocalRanks(), nil
	}
	cps := Checkpoints(rounds)
	rrs := make([][]float64, len(cps)) // per checkpoint, the reciprocal rank of each query
	best := -1.0
	var rk *Ranker // the last one built: all rounds' rules
	for ci, c := range cps {
		rk = ranker(c)
		rr, err := rank(rk, vs)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, rs := range rk.byHead {
			n += len(rs)
		}
		rrs[ci] = rr
		mrr := mean(rr)
		ch.Tried = append(ch.Tried, RoundsTrial{Rounds: c, Rules: n, ValidMRR: mrr})
		if mrr >= best {
			best, ch.Rounds = mrr, c
		}
	}
	last := rrs[len(rrs)-1]
	chosen := slices.Index(cps, ch.Rounds)
	for ci := range ch.Tried[:len(cps)-1] {
		_, ch.Tried[ci].SE = PairedDiff(rrs[ci], last)
	}
	if ch.Rounds < rounds && len(confirm) > len(vs) {
		// Fewer rounds won on the sample: they are kept only if they also
		// win on the larger one, of which the sample is the first part
		// (ranked already).
		more := confirm[len(vs):]
		rrAll, err := rank(rk, more)
		if err != nil {
			return nil, err
		}
		rrFew, err := rank(ranker(ch.Rounds), more)
		if err != nil {
			return nil, err
		}
		rrFew, rrAll = append(slices.Clone(rrs[chosen]), rrFew...), append(slices.Clone(last), rrAll...)
		cf := &RoundsConfirm{Rounds: ch.Rounds, ValidQueries: 2 * len(confirm), ValidMRR: mean(rrFew), AllMRR: mean(rrAll)}
		_, cf.SE = PairedDiff(rrFew, rrAll)
		if cf.ValidMRR <= cf.AllMRR {
			ch.Rounds = rounds
		}
		ch.Confirm = cf
	}
	ch.Seconds = time.Since(start).Seconds()
	return ch, nil
}

// validSample is the triples of valid that name only g's relations and
// entities, shuffled by rng when there are more than max > 0: a caller's
// sample of max is then their first max (firstN).
func validSample(g *Graph, valid []Triple, max int, rng *rand.Rand) []Triple {
	var vs []Triple
	for _, t := range valid {
		if t.R >= 0 && int(t.R) < g.NumRelations && t.H >= 0 && t.T >= 0 && int(t.H) < g.NumEntities && int(t.T) < g.NumEntities {
			vs = append(vs, t)
		}
	}
	if max > 0 && len(vs) > max {
		rng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
	}
	return vs
}

// firstN is how many of n come first when at most max are taken (max <=
// 0: all).
func firstN(n, max int) int {
	if max > 0 {
		return min(n, max)
	}
	return n
}

// confirmTimes is the size of the validation sample a choice of fewer
// rounds is confirmed on, in multiples of RoundsOptions.MaxValid (or
// every validation triple, when fewer).
const confirmTimes = 5

// mean is the mean of xs (0 when empty).
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// PairedDiff is the mean of a[i] - b[i] over the queries and its
// standard error (the sample deviation of the differences over the square
// root of their number; 0 for fewer than 2).
func PairedDiff(a, b []float64) (mean, se float64) {
	n := float64(len(a))
	if len(a) != len(b) || n < 2 {
		return 0, 0
	}
	for i := range a {
		mean += a[i] - b[i]
	}
	mean /= n
	var ss float64
	for i := range a {
		d := a[i] - b[i] - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// KeepRounds drops the rules found after round n (rules of round 0, the
// default rules, stay) and counts Sampled and MaxErr again; Kept becomes n.
// The rules left are those a run of n rounds learns.
func (lr *LearnResult) KeepRounds(n int) {
	lr.Rules = slices.DeleteFunc(lr.Rules, func(r Rule) bool { return r.Round > n })
	lr.Sampled, lr.MaxErr = 0, 0
	for _, r := range lr.Rules {
		if r.Sampled > 0 {
			lr.Sampled++
			lr.MaxErr = max(lr.MaxErr, r.Err)
		}
	}
	lr.Kept = n
}
