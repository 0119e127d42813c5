package kgc

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/pathrule"
)

// Scoring says how the confidences of the rules predicting a candidate
// combine.
type Scoring int

const (
	// MaxPlus compares candidates by their confidences sorted in
	// decreasing order, lexicographically (AnyBURL's default).
	MaxPlus Scoring = iota
	// Max uses the largest confidence only.
	Max
	// NoisyOr scores 1 - prod(1 - conf) over a candidate's
	// Ranker.NoisyOrK largest confidences, ties broken as MaxPlus does.
	// Redundant rules are counted once: a rule that predicts, for the
	// query, exactly the candidates some more confident rule predicted
	// (the many near-duplicate rules of a dense graph, whose predictions
	// for one entity coincide) adds no confidence to them.
	NoisyOr
	// PSL re-scores each query's best maxplus candidates by MAP inference
	// in the PSL model of the rules (EvalOptions.PSL); the other
	// candidates follow in maxplus order.
	PSL
	// Clustered is noisy-or over clusters of redundant rules (SAFRAN's
	// non-redundant noisy-or): the rules of a cluster count once, with the
	// largest confidence among them that predicts the candidate, and the
	// score is 1 - prod(1 - conf) over the candidate's Ranker.NoisyOrK
	// best clusters, ties broken as MaxPlus does over those confidences;
	// a candidate's clusters are those of its ClusterOptions.MaxFired most
	// confident rules. The clusters come from Ranker.Cluster.
	Clustered
	// Learned re-ranks each query's first NoisyOr candidates (the
	// LearnedOptions.TopK of Ranker.FitWeights, which fits the weights on
	// validation queries) by a sum over each candidate's NoisyOrK most
	// confident rules of -log(1 - conf) times a weight of the rule's class
	// (RuleClasses) and place among them; they rank above the other
	// candidates, which keep their NoisyOr order. With every weight 1 it
	// ranks as NoisyOr.
	Learned
)

// noisy reports whether s scores by a noisy-or.
func (s Scoring) noisy() bool { return s == NoisyOr || s == Clustered }

// combined is the scoring whose order rank gives the candidates under s:
// s, but MaxPlus for PSL and NoisyOr for Learned, which re-score the best
// of that order (rescore, reweigh).
func (s Scoring) combined() Scoring {
	switch s {
	case PSL:
		return MaxPlus
	case Learned:
		return NoisyOr
	}
	return s
}

// ParseScoring reads maxplus, max, noisy-or, psl, clustered (also
// spelled safran) or learned.
func ParseScoring(s string) (Scoring, error) {
	switch s {
	case "maxplus":
		return MaxPlus, nil
	case "max":
		return Max, nil
	case "noisy-or", "noisyor":
		return NoisyOr, nil
	case "psl":
		return PSL, nil
	case "clustered", "safran":
		return Clustered, nil
	case "learned":
		return Learned, nil
	}
	return 0, fmt.Errorf("unknown scoring %q (want maxplus, max, noisy-or, psl, clustered or learned)", s)
}

func (s Scoring) String() string {
	switch s {
	case MaxPlus:
		return "maxplus"
	case Max:
		return "max"
	case NoisyOr:
		return "noisy-or"
	case PSL:
		return "psl"
	case Clustered:
		return "clustered"
	case Learned:
		return "learned"
	}
	return fmt.Sprintf("Scoring(%d)", int(s))
}

// Candidate is a ranked answer of a query.
type Candidate struct {
	Entity int32
	seen   int32 // Clustered with a cap: the rules that predicted it so far
	// Score is the candidate's score: its largest confidence for MaxPlus
	// and Max, the noisy-or for NoisyOr (of its clusters' confidences for
	// Clustered), its MAP value for PSL (the largest confidence for a
	// candidate PSL did not re-score), the weighted sum for Learned.
	Score    float64
	confs    []float64 // decreasing; all scorings but Max (Clustered: one per cluster)
	kinds    []uint8   // Learned: the class (ruleClass) of the rules of confs' first NoisyOrK
	clus     []int32   // Clustered: the clusters of confs
	rescored bool      // re-scored by PSL, or re-weighed by Learned
	class    int32     // PSL: the first maxplus position with equal confidences
	tie      int32     // the first position of the list tied with it (setTies)
}

// compare orders a before b when a ranks higher (negative), equal scores
// give 0.
func compare(s Scoring, a, b *Candidate) int {
	if (s == PSL || s == Learned) && a.rescored != b.rescored {
		if a.rescored {
			return -1
		}
		return 1
	}
	switch s {
	case Max, NoisyOr, Clustered, Learned:
		if c := cmp.Compare(b.Score, a.Score); c != 0 || s == Max {
			return c
		}
	case PSL:
		if c := cmp.Compare(b.Score, a.Score); a.rescored && c != 0 {
			return c
		}
		return cmp.Compare(a.class, b.class)
	}
	return compareConfs(a.confs, b.confs)
}

// compareConfs orders decreasing confidence vectors lexicographically, the
// larger first (negative when a ranks higher; a longer vector beats its
// prefix): maxplus's order, and the tie-break of the scorings that compare
// scores first.
func compareConfs(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(b[i], a[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(b), len(a))
}

// DefaultNoisyOrK is Ranker.NoisyOrK unless set: the number of a
// candidate's best rules NoisyOr combines. With every rule combined, the
// many near-duplicate rules of a dense graph push every candidate's score
// to 1 (Kinship's filtered MRR falls to 0.07); 5 was chosen on Kinship's
// validation split (3 to 10 score alike there).
const DefaultNoisyOrK = 5

// Ranker answers queries with a rule set.
type Ranker struct {
	// NoisyOrK is the number of a candidate's largest confidences NoisyOr
	// combines (set by NewRanker to DefaultNoisyOrK; change it before
	// ranking).
	NoisyOrK int
	// RepeatedSets, when set, makes NoisyOr count every rule; by default a
	// rule that predicts, for a query, exactly the candidates a more
	// confident rule predicted adds nothing to their noisy-or (see
	// NoisyOr).
	RepeatedSets bool

	g       *Graph
	scoring Scoring
	// rules by head relation, in decreasing confidence, and conf[r][i]
	// the confidence byHead[r][i] is ranked with (RankBy).
	byHead [][]*Rule
	conf   [][]float64
	// estimate is the Confidence conf holds (-1: a function of RankBy).
	estimate Confidence
	// idx[r][0] indexes byHead[r] for head queries (?, r, e), idx[r][1]
	// for tail queries (e, r, ?).
	idx [][2]ruleIndex
	// clus[r][d][i] is the cluster of rule byHead[r][i] for head (d 0) or
	// tail (d 1) queries, set by Cluster; nil: every rule alone.
	clus [][2][]int32
	// selfHead[r]: some rule of head r is a self-loop r(X, X), which
	// answers a query with its own entity.
	selfHead []bool
	// clusterCap, set by Cluster (ClusterOptions.MaxFired): under
	// Clustered a candidate's clusters are found among its first
	// clusterCap rules, as the threshold search finds them.
	clusterCap int
	// weights[c][j] is Learned's weight of a candidate's j-th most
	// confident rule of class c, set by FitWeights; nil: not fitted.
	// Learned re-weighs a query's first learnedTopK NoisyOr candidates
	// (FitWeights's LearnedOptions.TopK).
	weights     [][]float64
	learnedTopK int
}

// ruleIndex finds the rules of one head relation and query direction that
// can fire for a query entity e (positions in Ranker.byHead, increasing):
// a rule whose body's first step from e is an edge kind (relation and
// direction) of e, r(X, c) <= b(X, d) when e has a b edge to d, r(X, c) <=
// b(X, d) asked from its constant (e = c), and default rules. No other rule
// predicts anything for e.
type ruleIndex struct {
	byKey   map[int32][]int32 // the first step's edge key
	byD     map[int32][]int32 // acyclic with a body constant, asked from the variable: by the constant d
	byConst map[int32][]int32 // acyclic with a body constant, asked from the head constant c
	always  []int32           // default rules
}

// NewRanker prepares rules (any order) for ranking over g. Rules naming a
// relation or entity outside g are not used.
func NewRanker(g *Graph, rules []Rule, s Scoring) *Ranker {
	return newRanker(g, rules, s, nil)
}

// newRanker is NewRanker with the rules for which keep (nil: all) holds.
func newRanker(g *Graph, rules []Rule, s Scoring, keep func(*Rule) bool) *Ranker {
	rk := &Ranker{NoisyOrK: DefaultNoisyOrK, g: g, scoring: s, byHead: make([][]*Rule, g.NumRelations), idx: make([][2]ruleIndex, g.NumRelations),
		selfHead: make([]bool, g.NumRelations)}
	inGraph := func(r *Rule) bool {
		ok := int(r.Head) < g.NumRelations && r.Head >= 0 && int(r.C) < g.NumEntities && int(r.D) < g.NumEntities && r.C >= Self && r.D >= Self
		for _, st := range r.Body {
			ok = ok && int(st.R) < g.NumRelations
		}
		return ok
	}
	for i := range rules {
		r := &rules[i]
		if !inGraph(r) || (keep != nil && !keep(r)) {
			continue
		}
		if r.Kind != Default && r.rev == nil {
			r.rev = pathrule.Reverse(r.Body) // once, before the rules are shared by goroutines
		}
		if r.Kind != Cyclic && r.C == Self {
			rk.selfHead[r.Head] = true
		}
		rk.byHead[r.Head] = append(rk.byHead[r.Head], r)
	}
	rk.RankBy(func(r *Rule) float64 { return r.Conf })
	rk.estimate = PointConfidence
	return rk
}

// rankedRule is a rule with the confidence it is ranked by.
type rankedRule struct {
	r    *Rule
	conf float64
}

// RankBy makes the ranker rank with conf(r) as rule r's confidence
// (NewRanker ranks with r.Conf): the rules are ordered by it and every
// scoring combines it. It drops a clustering and weights made before
// (Cluster or FitWeights again after it). SetConfidence is RankBy with an
// estimate of Confidence.
func (rk *Ranker) RankBy(conf func(*Rule) float64) {
	rk.clus, rk.clusterCap, rk.estimate, rk.weights = nil, 0, -1, nil
	rk.conf = make([][]float64, len(rk.byHead))
	for h, rs := range rk.byHead {
		rc := make([]rankedRule, len(rs))
		for i, r := range rs {
			rc[i] = rankedRule{r, conf(r)}
		}
		slices.SortStableFunc(rc, func(a, b rankedRule) int { return cmp.Compare(b.conf, a.conf) })
		rk.conf[h] = make([]float64, len(rs))
		for i := range rc {
			rs[i], rk.conf[h][i] = rc[i].r, rc[i].conf
		}
		for d := range 2 {
			tail := d == 1
			ix := ruleIndex{byKey: map[int32][]int32{}, byD: map[int32][]int32{}, byConst: map[int32][]int32{}}
			for i, r := range rs {
				pos := int32(i)
				switch {
				case r.Kind == Cyclic:
					st := r.Body[0]
					if !tail {
						st = r.rev[0]
					}
					k := st.Key()
					ix.byKey[k] = append(ix.byKey[k], pos)
				case r.ConstTail != tail && r.C != Self: // a self-loop head answers both ways alike
					if r.Kind == AcyclicConst {
						ix.byConst[r.C] = append(ix.byConst[r.C], pos)
					}
				case r.Kind == AcyclicConst && r.D != Self:
					ix.byD[r.D] = append(ix.byD[r.D], pos)
				case r.Kind != Default: // AcyclicAny, or a self-loop body b(X, X)
					k := r.Body[0].Key()
					ix.byKey[k] = append(ix.byKey[k], pos)
				default:
					ix.always = append(ix.always, pos)
				}
			}
			rk.idx[h][d] = ix
		}
	}
}

// SetConfidence makes the ranker rank with the estimate c of each rule's
// confidence (Rule.RankingConf). It drops a clustering made before, unless
// the ranker already ranks with c.
func (rk *Ranker) SetConfidence(c Confidence) {
	if c == rk.estimate {
		return
	}
	rk.RankBy(func(r *Rule) float64 { return r.RankingConf(c) })
	rk.estimate = c
}

// queryScratch is one worker's working memory for ranking.
type queryScratch struct {
	w       *pathrule.Walker
	pos     []int32 // by entity: 1 + the candidate's index, -1 left out, 0 unseen
	touched []int32
	order   []int32
	buf     []int32
	sets    map[uint64]struct{} // NoisyOr: the prediction sets of the query's rules so far
}

// repeated reports whether a rule of the query has predicted exactly the
// candidates ys (any order) already, and notes them. Sets are told apart
// by a sum of their elements' 64-bit hashes (order-free; two different
// sets of a query collide with probability about 2^-64 per pair).
func (qs *queryScratch) repeated(ys []int32) bool {
	var h uint64
	for _, y := range ys {
		h += mix64(uint64(uint32(y)) + 0x9e3779b97f4a7c15)
	}
	if qs.sets == nil {
		qs.sets = map[uint64]struct{}{}
	}
	if _, seen := qs.sets[h]; seen {
		return true
	}
	qs.sets[h] = struct{}{}
	return false
}

func (rk *Ranker) newQueryScratch() *queryScratch {
	return &queryScratch{w: pathrule.NewWalker(rk.g), pos: make([]int32, rk.g.NumEntities)}
}

// gather returns the positions in byHead[r] of the rules that can fire for
// the query, increasing (decreasing confidence).
func (rk *Ranker) gather(e, r int32, tail bool, qs *queryScratch) []int32 {
	d := 0
	if tail {
		d = 1
	}
	ix := &rk.idx[r][d]
	out := append(qs.order[:0], ix.always...)
	out = append(out, ix.byConst[e]...)
	g := rk.g
	var prev Edge
	for i := range g.Degree(e) {
		ed := g.EdgeAt(e, i)
		newKey := i == 0 || ed.R != prev.R || ed.Inverse != prev.Inverse
		if newKey {
			out = append(out, ix.byKey[Step{R: ed.R, Inverse: ed.Inverse}.Key()]...)
		}
		if len(ix.byD) > 0 && (newKey || ed.To != prev.To) {
			out = append(out, ix.byD[ed.To]...)
		}
		prev = ed
	}
	slices.Sort(out)
	out = slices.Compact(out) // a body constant reached by several edge kinds
	qs.order = out
	return out
}

// queryStats describe one ranked query.
type queryStats struct {
	rules, applied int // rules that could fire, rules applied before the stop
}

// rank answers the query (e, r, ?) when tail, else (?, r, e): the
// candidates some rule predicts, best first under scoring s (ties in
// entity order), without those for which skip is true. With k > 0 it
// applies the rules in decreasing confidence and stops as soon as the
// first k candidates, their order and scores, and the candidates tied with
// the k-th can no longer change, and returns those (the first k, and every
// candidate tied with the k-th); k == 0 applies every rule and returns
// every candidate.
func (rk *Ranker) rank(ctx context.Context, s Scoring, e, r int32, tail bool, k int, skip func(int32) bool, qs *queryScratch) ([]Candidate, queryStats, error) {
	var st queryStats
	if int(r) >= len(rk.byHead) || int(e) >= rk.g.NumEntities || e < 0 || r < 0 {
		return nil, st, nil
	}
	learned := s == Learned
	s = s.combined()
	order := rk.gather(e, r, tail, qs)
	list, conf := rk.byHead[r], rk.conf[r]
	var clu []int32
	if s == Clustered {
		clu = rk.clusterOf(r, tail)
	}
	st.rules = len(order)
	var cands []Candidate
	closed := false
	groups, nextCheck := 0, 1
	defer func() {
		for _, y := range qs.touched {
			qs.pos[y] = 0
		}
		qs.touched = qs.touched[:0]
		clear(qs.sets)
	}()
	for i := 0; i < len(order); {
		c := conf[order[i]]
		for ; i < len(order) && conf[order[i]] == c; i++ {
			rule := list[order[i]]
			var cls uint8
			if learned {
				cls = ruleClass(rule)
			}
			qs.buf = rule.predict(rk.g, e, tail, qs.w, qs.buf)
			st.applied++
			if s == NoisyOr && !rk.RepeatedSets && len(qs.buf) > 0 && qs.repeated(qs.buf) {
				continue
			}
			for _, y := range qs.buf {
				p := qs.pos[y]
				if p < 0 {
					continue
				}
				if p == 0 {
					if closed {
						continue
					}
					qs.touched = append(qs.touched, y)
					if skip != nil && skip(y) {
						qs.pos[y] = -1
						continue
					}
					cands = append(cands, Candidate{Entity: y})
					p = int32(len(cands))
					qs.pos[y] = p
				}
				cd := &cands[p-1]
				if s == Clustered {
					// Only a candidate's first clusterCap rules count (as
					// in the threshold search), and a cluster counts once,
					// with its first (largest) confidence: rules come in
					// decreasing confidence.
					if rk.clusterCap > 0 {
						if int(cd.seen) >= rk.clusterCap {
							continue
						}
						cd.seen++
					}
					id := order[i]
					if clu != nil {
						id = clu[id]
					}
					if slices.Contains(cd.clus, id) {
						continue
					}
					cd.clus = append(cd.clus, id)
				}
				if s != Max || len(cd.confs) == 0 {
					cd.confs = append(cd.confs, c)
					if learned && len(cd.kinds) < max(rk.NoisyOrK, 1) {
						cd.kinds = append(cd.kinds, cls)
					}
				}
			}
		}
		if ctx.Err() != nil { // every group: one rule through a hub can take milliseconds
			return nil, st, ctx.Err()
		}
		if k <= 0 {
			continue
		}
		next := -1.0
		if i < len(order) {
			next = conf[order[i]]
		}
		groups++
		if !closed {
			closed = rk.newcomersLose(s, cands, k, next) || rk.noneUnseen(e, r, qs)
		}
		if closed && next >= 0 && groups >= nextCheck {
			nextCheck = groups + max(1, groups/4)
			if rk.settled(s, cands, k, next) {
				break
			}
			for j := range cands { // settled sorted them
				qs.pos[cands[j].Entity] = int32(j + 1)
			}
		}
	}
	for i := range cands {
		cd := &cands[i]
		switch s {
		case MaxPlus, Max:
			cd.Score = cd.confs[0]
		case NoisyOr, Clustered:
			cd.Score = rk.noisyOr(cd.confs)
		}
	}
	sortBy(s, cands)
	if k > 0 {
		cands = cut(s, cands, k)
	}
	setTies(s, cands)
	return cands, st, nil
}

// setTies sets each candidate's tie: the position of the first candidate
// of the sorted list tied with it.
func setTies(s Scoring, list []Candidate) {
	for i := range list {
		list[i].tie = int32(i)
		if i > 0 && compare(s, &list[i-1], &list[i]) == 0 {
			list[i].tie = list[i-1].tie
		}
	}
}

// noisyOr is 1 - prod(1 - c) over the first NoisyOrK confidences.
func (rk *Ranker) noisyOr(confs []float64) float64 {
	p := 1.0
	for _, c := range confs[:min(len(confs), max(rk.NoisyOrK, 1))] {
		p *= 1 - c
	}
	return 1 - p
}

// noisyOrUpper bounds the noisy-or a candidate with confs can reach when
// every further confidence is at most next (next < 0: none comes).
func (rk *Ranker) noisyOrUpper(confs []float64, next float64) float64 {
	p := 1.0
	K := max(rk.NoisyOrK, 1)
	for _, c := range confs[:min(len(confs), K)] {
		p *= 1 - c
	}
	for range max(0, K-len(confs)) {
		if next <= 0 {
			break
		}
		p *= 1 - next
	}
	return 1 - p
}

// noneUnseen reports whether every entity the query could still be
// answered with has been seen (as a candidate or left out): on a small
// graph a list of fewer than k candidates is then closed too. The query's
// own entity counts only for a relation with self-loop rules.
func (rk *Ranker) noneUnseen(e, r int32, qs *queryScratch) bool {
	unseen := rk.g.NumEntities - len(qs.touched)
	if qs.pos[e] == 0 && !rk.selfHead[r] {
		unseen--
	}
	return unseen <= 0
}

// newcomersLose reports whether at least k candidates rank above every
// candidate not seen yet, whose confidences are at most next; then no new
// candidate can enter the first k or tie with them (a newcomer's best
// confidence is below every seen candidate's).
func (rk *Ranker) newcomersLose(s Scoring, cands []Candidate, k int, next float64) bool {
	if next < 0 {
		return true
	}
	if !s.noisy() {
		return len(cands) >= k
	}
	u := rk.noisyOrUpper(nil, next)
	n := 0
	for i := range cands {
		if rk.noisyOr(cands[i].confs) >= u {
			n++
		}
	}
	return n >= k
}

// settled reports whether the first k candidates, their order and scores
// are final once every further confidence is at most next (seen
// candidates only: newcomersLose holds). It sorts cands by what is known.
func (rk *Ranker) settled(s Scoring, cands []Candidate, k int, next float64) bool {
	if s == Max {
		return true // scores are final (the first confidence) and newcomers lose
	}
	// A candidate's known confidence vector is final in every entry
	// (further ones are below all of them), so two candidates whose
	// vectors differ are ordered for good; identical ones are not.
	differ := func(a, b *Candidate) bool { return !slices.Equal(a.confs, b.confs) }
	if s == MaxPlus {
		sortBy(MaxPlus, cands)
		for i := 0; i < min(k, len(cands)-1); i++ {
			if !differ(&cands[i], &cands[i+1]) {
				return false
			}
		}
		return true
	}
	// NoisyOr, Clustered: a score is final once it has NoisyOrK
	// confidences (for Clustered, the further rules of a candidate's
	// clusters change nothing, and a new cluster's confidence is at most
	// next).
	K := max(rk.NoisyOrK, 1)
	for i := range cands {
		cands[i].Score = rk.noisyOr(cands[i].confs)
	}
	sortBy(s, cands)
	// A Clustered candidate whose first clusterCap rules are seen gets no
	// further confidence: its vector is complete, and two complete equal
	// ones stay tied.
	capped := func(a *Candidate) bool { return s == Clustered && rk.clusterCap > 0 && int(a.seen) >= rk.clusterCap }
	final := func(a *Candidate) bool { return len(a.confs) >= K || capped(a) }
	decided := func(a, b *Candidate) bool { // a above b for good
		if final(a) && final(b) {
			return a.Score > b.Score || (a.Score == b.Score && (differ(a, b) || capped(a) && capped(b)))
		}
		return a.Score > rk.noisyOrUpper(b.confs, next)
	}
	for i := range min(k, len(cands)) {
		if !final(&cands[i]) {
			return false
		}
		if i+1 < len(cands) && !decided(&cands[i], &cands[i+1]) {
			return false
		}
	}
	for j := k + 1; j < len(cands); j++ {
		if !decided(&cands[k-1], &cands[j]) {
			return false
		}
	}
	return true
}

// Rank returns the candidates some rule predicts for the query (e, r, ?)
// when tail, else (?, r, e), best first (ties in entity order): every one
// when k is 0, else the first k and those tied with the k-th. Under
// Learned it ranks as NoisyOr until FitWeights.
func (rk *Ranker) Rank(e, r int32, tail bool, k int) []Candidate {
	kr := k
	if rk.scoring == Learned && k > 0 && rk.weights != nil {
		kr = max(k, rk.learnedTopK)
	}
	cands, _, _ := rk.rank(context.Background(), rk.scoring, e, r, tail, kr, nil, rk.newQueryScratch())
	if rk.reweigh(rk.scoring, cands) && k > 0 {
		cands = cut(Learned, cands, k)
	}
	return cands
}

// sortBy sorts candidates best first under s, ties in entity order.
func sortBy(s Scoring, cands []Candidate) {
	slices.SortFunc(cands, func(a, b Candidate) int {
		return cmp.Or(compare(s, &a, &b), cmp.Compare(a.Entity, b.Entity))
	})
}

// Metrics are filtered ranking metrics over queries.
type Metrics struct {
	Queries int     `json:"queries"`
	MRR     float64 `json:"mrr"`
	Hits1   float64 `json:"hits1"`
	Hits3   float64 `json:"hits3"`
	Hits10  float64 `json:"hits10"`
}

// rankOf is the filtered rank of the true entity among cands: 1 + the
// candidates ranked above it + half of those tied with it, candidates in
// known (other true answers; nil: none) left out; 0 when the true entity
// is not among the candidates (a miss).
func rankOf(s Scoring, cands []Candidate, truth int32, known func(int32) bool) float64 {
	ti := -1
	for i := range cands {
		if cands[i].Entity == truth {
			ti = i
			break
		}
	}
	if ti < 0 {
		return 0
	}
	better, tied := 0, 0
	for i := range cands {
		if i == ti || (known != nil && known(cands[i].Entity)) {
			continue
		}
		switch c := compare(s, &cands[i], &cands[ti]); {
		case c < 0:
			better++
		case c == 0:
			tied++
		}
	}
	return 1 + float64(better) + float64(tied)/2
}

// add accumulates one query's rank (0: a miss).
func (m *Metrics) add(rank float64) {
	m.Queries++
	if rank == 0 {
		return
	}
	m.MRR += 1 / rank
	if rank <= 1 {
		m.Hits1++
	}
	if rank <= 3 {
		m.Hits3++
	}
	if rank <= 10 {
		m.Hits10++
	}
}

func (m *Metrics) finish() {
	if m.Queries == 0 {
		return
	}
	n := float64(m.Queries)
	m.MRR /= n
	m.Hits1 /= n
	m.Hits3 /= n
	m.Hits10 /= n
}

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// TopK is the length of a query's list (0: 100): its best candidates,
	// and those tied with the k-th.
	TopK int
	// Exhaustive applies every rule to every query instead of stopping
	// once the list is settled; the lists are the same.
	Exhaustive bool
	// Threads (0: GOMAXPROCS); results do not depend on it.
	Threads int
	// PSL is the model PSL scoring infers with (NewPSL), ADMM its
	// solver's options, and PSLDump, when set, receives the atoms PSL
	// scored and their values.
	PSL     *PSLModel
	ADMM    admm.Options
	PSLDump func(atoms []Triple, values []float64) error
	// Progress, when set, is called from the ranking goroutines with the
	// queries done so far (of 2 per test triple), every 1% of them (at
	// most every 1,000).
	Progress func(done, total int)
	// Answers, when set, receives each test triple's two answers, in test
	// order, one call at a time, as soon as they and every earlier
	// triple's are ranked (a PredictionWriter writes them); the Evaluation
	// then keeps no lists (its answers' List is nil), so that ranking's
	// memory does not grow with the number of queries. Under PSL, which
	// re-scores every list at the end, it is called then, the lists
	// kept. An error from it stops Evaluate with that error.
	Answers func(i int, heads, tails Answer) error
}

// Answer is one query's ranked list: its candidates, known answers other
// than the true one left out, best first, and the true answer's rank in it
// (0: not in the list, a miss).
type Answer struct {
	List []Candidate
	Rank float64
	// Seconds is the time the query's ranking took; Rules the rules that
	// could fire for it, Applied those applied before its list settled.
	Seconds        float64
	Rules, Applied int
}

// Evaluation is the outcome of Evaluate.
type Evaluation struct {
	Scoring Scoring
	Metrics Metrics
	// Heads[i] and Tails[i] answer test triple i's (?, r, t) and (h, r, ?).
	Heads, Tails []Answer
}

// ReciprocalRanks are the queries' reciprocal ranks (0: a miss), each
// test triple's head query (?, r, t) then its tail query (h, r, ?).
func (ev *Evaluation) ReciprocalRanks() []float64 {
	rr := make([]float64, 0, 2*len(ev.Heads))
	for i := range ev.Heads {
		for _, r := range []float64{ev.Heads[i].Rank, ev.Tails[i].Rank} {
			if r > 0 {
				rr = append(rr, 1/r)
			} else {
				rr = append(rr, 0)
			}
		}
	}
	return rr
}

// QueryTimes returns the median, 90th percentile and largest ranking time
// of a query, in seconds.
func (ev *Evaluation) QueryTimes() (median, p90, maxSec float64) {
	var ts []float64
	for _, as := range [][]Answer{ev.Heads, ev.Tails} {
		for _, a := range as {
			ts = append(ts, a.Seconds)
		}
	}
	if len(ts) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ts)
	return ts[len(ts)/2], ts[min(len(ts)-1, len(ts)*9/10)], ts[len(ts)-1]
}

// RulesApplied returns the median number of rules that could fire for a
// query, the median number applied before its list settled (the others
// could no longer change it), and the share of all rules that could fire
// that were applied.
func (ev *Evaluation) RulesApplied() (medianFiring, medianApplied int, share float64) {
	var firing, applied []float64
	var sf, sa float64
	for _, as := range [][]Answer{ev.Heads, ev.Tails} {
		for _, a := range as {
			firing, applied = append(firing, float64(a.Rules)), append(applied, float64(a.Applied))
			sf, sa = sf+float64(a.Rules), sa+float64(a.Applied)
		}
	}
	if len(firing) == 0 {
		return 0, 0, 0
	}
	slices.Sort(firing)
	slices.Sort(applied)
	return int(firing[len(firing)/2]), int(applied[len(applied)/2]), sa / max(sf, 1)
}

// forQueries calls f(i, qs) for i in [0, n) on threads workers, qs a
// per-worker scratch; it stops early when ctx is done.
func (rk *Ranker) forQueries(ctx context.Context, n, threads int, f func(i int, qs *queryScratch)) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	scratches := make([]*queryScratch, threads) // per worker, allocated on first use
	par.For(n, threads, func(w, i int) {
		if ctx.Err() != nil {
			return
		}
		if scratches[w] == nil {
			scratches[w] = rk.newQueryScratch()
		}
		f(i, scratches[w])
	})
}

// Evaluate asks every test triple both ways, (h, r, ?) and (?, r, t), and
// ranks the candidates: each query's list holds its TopK best candidates
// (and those tied with the k-th), leaving out the known answers other than
// the test triple's own (known holds every true triple: train, valid,
// test). The metrics are filtered MRR and Hits@k over those lists: the
// rank of the true answer counts the candidates above it and half of
// those tied with it; a true answer not in its list is a miss. Queries are
// ranked in parallel, each stopping once its list is settled (see
// EvalOptions.Exhaustive).
func (rk *Ranker) Evaluate(ctx context.Context, test []Triple, known func(Triple) bool, opt EvalOptions) (*Evaluation, error) {
	if opt.TopK <= 0 {
		opt.TopK = 100
	}
	if rk.scoring == PSL && opt.PSL == nil {
		return nil, errors.New("kgc: psl scoring needs a PSL model (EvalOptions.PSL)")
	}
	if rk.scoring == Clustered && !rk.Clustered() {
		return nil, errNotClustered
	}
	if rk.scoring == Learned && rk.weights == nil {
		return nil, errNotFitted
	}
	if rk.scoring == Learned && len(rk.weights[0]) != max(rk.NoisyOrK, 1) {
		return nil, fmt.Errorf("kgc: learned scoring: NoisyOrK is %d, the weights were fitted with %d: FitWeights again", rk.NoisyOrK, len(rk.weights[0]))
	}
	ev := &Evaluation{Scoring: rk.scoring, Heads: make([]Answer, len(test)), Tails: make([]Answer, len(test))}
	k, n := opt.TopK, 0
	switch rk.scoring {
	case PSL:
		n = opt.PSL.opt.Candidates // candidates PSL re-scores
		k = max(k, n)
	case Learned:
		n = rk.learnedTopK // candidates Learned re-weighs
		k = max(k, n)
	}
	if opt.Exhaustive {
		k = 0
	}
	var done atomic.Int64
	total := 2 * len(test)
	// The first error stops the others (an atomic.Value would panic on a
	// second error of another type: a writer's *fs.PathError, then the
	// other workers' context.Canceled).
	var failMu sync.Mutex
	var firstErr error
	failed := func() error {
		failMu.Lock()
		defer failMu.Unlock()
		return firstErr
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fail := func(err error) {
		failMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		failMu.Unlock()
		cancel()
	}
	// Streaming (opt.Answers): triples handed on in order as soon as both
	// their queries and every earlier triple's are done.
	stream := opt.Answers != nil && rk.scoring != PSL // PSL re-scores every list at the end
	var mu sync.Mutex
	var halves []uint8 // queries done, by test triple
	next := 0
	if stream {
		halves = make([]uint8, len(test))
	}
	handOn := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		halves[i]++
		for next < len(test) && halves[next] == 2 && failed() == nil {
			if err := opt.Answers(next, ev.Heads[next], ev.Tails[next]); err != nil {
				fail(err)
				return
			}
			ev.Heads[next].List, ev.Tails[next].List = nil, nil
			next++
		}
	}
	rk.forQueries(ctx, total, opt.Threads, func(q int, qs *queryScratch) {
		i, tail := q/2, q%2 == 1
		t := test[i]
		e, truth, skip := askedAs(t, tail, known)
		a := &ev.Heads[i]
		if tail {
			a = &ev.Tails[i]
		}
		start := time.Now()
		list, st, err := rk.rank(ctx, rk.scoring, e, t.R, tail, k, skip, qs)
		if err != nil {
			fail(err)
			return
		}
		if opt.Exhaustive {
			s := rk.scoring.combined()
			list = cut(s, list, max(opt.TopK, n))
			setTies(s, list)
		}
		rk.reweigh(rk.scoring, list)
		if rk.scoring == PSL {
			classes(list)
		} else {
			list = cut(rk.scoring, list, opt.TopK)
			a.Rank = rankOf(rk.scoring, list, truth, nil)
		}
		// A copy of its own length: the list is a prefix of every
		// candidate the query saw, which would stay reachable through it.
		kept := make([]Candidate, len(list))
		for j := range list {
			kept[j] = list[j]
			kept[j].confs, kept[j].clus, kept[j].kinds = nil, nil, nil
		}
		a.List, a.Seconds, a.Rules, a.Applied = kept, time.Since(start).Seconds(), st.rules, st.applied
		if d := done.Add(1); opt.Progress != nil && (d%int64(max(1, min(1000, total/100))) == 0 || int(d) == total) {
			opt.Progress(int(d), total)
		}
		if stream {
			handOn(i)
		}
	})
	if err := failed(); err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rk.scoring == PSL {
		if err := rk.rescore(ctx, ev, test, n, opt); err != nil {
			return nil, err
		}
		if opt.Answers != nil {
			for i := range test {
				if err := opt.Answers(i, ev.Heads[i], ev.Tails[i]); err != nil {
					return nil, err
				}
			}
		}
	}
	var m Metrics
	for i := range test {
		m.add(ev.Heads[i].Rank)
		m.add(ev.Tails[i].Rank)
	}
	m.finish()
	ev.Metrics = m
	return ev, nil
}

// askedAs is triple t asked as (h, r, ?) when tail, else as (?, r, t):
// the entity asked from, the true answer, and skip, true for the known
// answers (known holds every true triple) other than the true one.
func askedAs(t Triple, tail bool, known func(Triple) bool) (e, truth int32, skip func(int32) bool) {
	if tail {
		return t.H, t.T, func(y int32) bool { return y != t.T && known(Triple{H: t.H, R: t.R, T: y}) }
	}
	return t.T, t.H, func(y int32) bool { return y != t.H && known(Triple{H: y, R: t.R, T: t.T}) }
}

// cut is the first k candidates of a sorted list and those tied with the
// k-th.
func cut(s Scoring, list []Candidate, k int) []Candidate {
	if len(list) <= k {
		return list
	}
	n := k
	for n < len(list) && compare(s, &list[k-1], &list[n]) == 0 {
		n++
	}
	return list[:n]
}

// classes sets each candidate's maxplus tie class (the position of the
// first candidate with equal confidences), for PSL's tie-breaks.
func classes(list []Candidate) {
	for i := range list {
		list[i].class = int32(i)
		if i > 0 && compare(MaxPlus, &list[i-1], &list[i]) == 0 {
			list[i].class = list[i-1].class
		}
		list[i].Score = list[i].confs[0]
	}
}

// rescore infers the PSL values of every test query's first n maxplus
// candidates and re-ranks: those n first, by value (ties by maxplus), the
// others below in maxplus order.
func (rk *Ranker) rescore(ctx context.Context, ev *Evaluation, test []Triple, n int, opt EvalOptions) error {
	per := make([][]Triple, len(test))
	for i, t := range test {
		per[i] = appendAtoms(appendAtoms(nil, t, true, ev.Tails[i].List, n), t, false, ev.Heads[i].List, n)
	}
	atoms := distinct(per)
	values, _, err := opt.PSL.Infer(ctx, atoms, opt.ADMM)
	if err != nil {
		return err
	}
	if opt.PSLDump != nil {
		if err := opt.PSLDump(atoms, values); err != nil {
			return err
		}
	}
	value := make(map[Triple]float64, len(atoms))
	for i, a := range atoms {
		value[a] = values[i]
	}
	for i, t := range test {
		for _, q := range []struct {
			a     *Answer
			atom  func(int32) Triple
			truth int32
		}{
			{&ev.Tails[i], func(e int32) Triple { return Triple{H: t.H, R: t.R, T: e} }, t.T},
			{&ev.Heads[i], func(e int32) Triple { return Triple{H: e, R: t.R, T: t.T} }, t.H},
		} {
			list := q.a.List
			m := min(n, len(list))
			for j := range list[:m] {
				list[j].Score, list[j].rescored = value[q.atom(list[j].Entity)], true
			}
			sortBy(PSL, list[:m]) // the rest stays in maxplus order below
			q.a.List = cut(PSL, list, opt.TopK)
			setTies(PSL, q.a.List)
			q.a.Rank = rankOf(PSL, q.a.List, q.truth, nil)
		}
	}
	return nil
}

// WrittenScores are the scores the predictions file gives a ranked list
// (as Rank or Evaluate return it, best first): each
// candidate's score, lowered by the fewest steps of the float64 grid
// needed to make the written scores decrease strictly wherever the list's
// order does (a tie-break, such as maxplus's later confidences, folded into
// the score) and stay equal where candidates tie. Sorting by them, with
// equal ones tied, is the list's order.
func WrittenScores(list []Candidate) []float64 {
	w := make([]float64, len(list))
	for i := range list {
		switch {
		case i == 0:
			w[i] = list[i].Score
		case list[i].tie == list[i-1].tie:
			w[i] = w[i-1]
		case list[i].Score < w[i-1]:
			w[i] = list[i].Score
		default:
			w[i] = math.Nextafter(w[i-1], math.Inf(-1))
		}
	}
	return w
}

// WritePredictions writes AnyBURL's predictions format: per test triple,
// in order, "h r t", then "Heads: " and "Tails: " lines with the
// candidates of its lists and their written scores (WrittenScores; the
// shortest decimal that reads back as the same float64), tab-separated,
// best first.
func (ev *Evaluation) WritePredictions(w io.Writer, test []Triple, v *Vocab) error {
	pw := NewPredictionWriter(w, v)
	for i, t := range test {
		pw.Write(t, ev.Heads[i], ev.Tails[i])
	}
	return pw.Flush()
}

// PredictionWriter writes the predictions format of WritePredictions one
// test triple at a time, for EvalOptions.Answers.
type PredictionWriter struct {
	bw *bufio.Writer
	v  *Vocab
}

// NewPredictionWriter writes to w with the names of v.
func NewPredictionWriter(w io.Writer, v *Vocab) *PredictionWriter {
	return &PredictionWriter{bw: bufio.NewWriterSize(w, 1<<16), v: v}
}

// Write writes test triple t with the lists of its answers; the error is
// the underlying writer's, if any.
func (pw *PredictionWriter) Write(t Triple, heads, tails Answer) error {
	bw, v := pw.bw, pw.v
	list := func(label string, cs []Candidate) {
		bw.WriteString(label)
		for i, s := range WrittenScores(cs) {
			bw.WriteString(v.Entities[cs[i].Entity])
			bw.WriteByte('\t')
			bw.WriteString(strconv.FormatFloat(s, 'g', -1, 64))
			bw.WriteByte('\t')
		}
		bw.WriteByte('\n')
	}
	fmt.Fprintf(bw, "%s %s %s\n", v.Entities[t.H], v.Relations[t.R], v.Entities[t.T])
	list("Heads: ", heads.List)
	list("Tails: ", tails.List)
	_, err := bw.Write(nil) // the writer's first error, kept by bufio
	return err
}

// Flush writes out what is buffered.
func (pw *PredictionWriter) Flush() error { return pw.bw.Flush() }
