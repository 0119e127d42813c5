package kgc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/hinge-srl/hinge/internal/par"
)

// Rule kinds are clustered apart, each with its own threshold (as in Ott,
// Meilicke and Stuckenschmidt, "SAFRAN: An interpretable, rule-based link
// prediction method outperforming embedding models"): cyclic rules, rules
// with a constant in the body, and the other rules with a constant in the
// head (AcyclicAny and Default).
const kindGroups = 3

func kindGroup(r *Rule) int {
	switch r.Kind {
	case Cyclic:
		return 0
	case AcyclicConst:
		return 1
	}
	return 2
}

// DefaultThresholds are the Jaccard thresholds Cluster tries for each
// relation, query direction and kind of rule (besides no clustering).
var DefaultThresholds = []float64{0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05}

// ClusterOptions configure Ranker.Cluster. Zero values take the defaults.
type ClusterOptions struct {
	// Seed draws the validation sample and the extra starts, and hashes
	// the predictions into sketches.
	Seed uint64
	// MaxValid is the number of validation triples the thresholds are
	// chosen on, a seeded sample of them when there are more (0: 3,000;
	// negative: all).
	MaxValid int
	// Starts is the number of entities of each side of the head relation
	// (heads, tails), drawn at random, from which the compared rules'
	// predictions are collected into their sketches beside those they
	// make for the validation queries (0: 10; negative: none).
	Starts int
	// MaxRules is the number of rules of each relation and kind (of each
	// head constant, for rules with one) compared, those of highest
	// confidence (0: 1,000); the others stay alone in their clusters.
	MaxRules int
	// Sketch is the size of the bottom-k sketch of a rule's predictions
	// (0: 128): Jaccard indexes of sets of at most this size are exact,
	// of larger sets estimated.
	Sketch int
	// Thresholds tried (empty: DefaultThresholds), each in (0, 1].
	Thresholds []float64
	// TopK is the list length of the ranking the thresholds are chosen
	// for (0: 100): a true answer below it is a miss.
	TopK int
	// MaxFired is the number of a candidate's rules, its most confident,
	// among which its clusters are found (0: 50): in the threshold search
	// and, the same, in the ranking, so that the search's scores are the
	// ranking's.
	MaxFired int
	// MinQueries is the fewest validation queries of a relation and
	// direction whose thresholds are searched (0: 1); with fewer its rules
	// stay alone.
	MinQueries int
	// Threads (0: GOMAXPROCS); results do not depend on it.
	Threads int
}

// ClusterReport says what Ranker.Cluster chose and found.
type ClusterReport struct {
	// Thresholds[r][d][k] is the Jaccard threshold chosen for relation
	// r, query direction d (0: head queries (?, r, t), 1: tail queries
	// (h, r, ?)) and kind of rule k (0 cyclic, 1 with a body constant, 2
	// other rules with a head constant); 0 means no clustering.
	Thresholds [][2][kindGroups]float64 `json:"thresholds"`
	// Sketched is the number of rules compared (with a sketch of their
	// predictions), Pairs the pairs of them compared, Similar those with
	// a Jaccard index at or above the smallest threshold.
	Sketched int   `json:"rules_sketched"`
	Pairs    int64 `json:"pairs_compared"`
	Similar  int64 `json:"pairs_similar"`
	// Merged is the number of rules (summed over both directions) that
	// share their cluster with a more confident rule.
	Merged int `json:"rules_merged"`
	// ValidQueries is the number of validation queries the thresholds
	// were chosen on (2 per sampled validation triple); ValidMRR their MRR
	// with the chosen thresholds, ValidMRRUnclustered with every rule its
	// own cluster, both as the search computes them (a candidate's rules
	// cut at MaxFired, candidates the answer's best confidence cannot be
	// reached by left out): a baseline for the thresholds, below plain
	// noisy-or's validation MRR (Kinship, 4 rounds: 0.6164 against 0.6266).
	ValidQueries        int     `json:"valid_queries"`
	ValidMRR            float64 `json:"valid_mrr"`
	ValidMRRUnclustered float64 `json:"valid_mrr_unclustered"`
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// sketch is a bottom-k sketch of a set of predictions: the k smallest
// distinct hashes of its elements, increasing, and the set's size (exact
// while the sketch is not full, else estimated from the k-th hash).
type sketch struct {
	n int
	h []uint64
}

// addHash puts hash x into the bottom-k sketch hs (increasing).
func addHash(hs []uint64, x uint64, k int) []uint64 {
	i, found := slices.BinarySearch(hs, x)
	switch {
	case found:
	case len(hs) < k:
		hs = slices.Insert(hs, i, x)
	case i < len(hs):
		copy(hs[i+1:], hs[i:len(hs)-1])
		hs[i] = x
	}
	return hs
}

// newSketch sketches the set whose k smallest distinct hashes are hs.
func newSketch(hs []uint64, k int) sketch {
	if len(hs) < k {
		return sketch{n: len(hs), h: hs}
	}
	// The k-th smallest of n uniform hashes is near k/(n+1) of the range.
	n := float64(k-1) / (float64(hs[k-1]) / math.Exp2(64))
	return sketch{n: int(max(float64(k), math.Min(n, math.MaxInt32))), h: hs}
}

// jaccard estimates |A ∩ B| / |A ∪ B| from the sketches: exactly when both
// sets fit in their sketches, else from the k smallest hashes of the union
// (those of them in both sketches are in A ∩ B).
func jaccard(a, b sketch, k int) float64 {
	if a.n == 0 || b.n == 0 {
		return 0
	}
	i, j, seen, both := 0, 0, 0, 0
	exact := a.n < k && b.n < k
	for (i < len(a.h) || j < len(b.h)) && (exact || seen < k) {
		switch {
		case j == len(b.h) || (i < len(a.h) && a.h[i] < b.h[j]):
			if !exact && j == len(b.h) && b.n > len(b.h) {
				// b's sketch ended: hashes above its last are unknown.
				return float64(both) / float64(max(seen, 1))
			}
			i++
		case i == len(a.h) || b.h[j] < a.h[i]:
			if !exact && i == len(a.h) && a.n > len(a.h) {
				return float64(both) / float64(max(seen, 1))
			}
			j++
		default:
			i++
			j++
			both++
		}
		seen++
	}
	return float64(both) / float64(seen)
}

// Clustered reports whether Cluster has been called.
func (rk *Ranker) Clustered() bool { return rk.clus != nil }

// clusterOf returns the cluster of each rule of byHead[r] for head
// (tail false) or tail queries; nil: every rule alone.
func (rk *Ranker) clusterOf(r int32, tail bool) []int32 {
	if rk.clus == nil {
		return nil
	}
	d := 0
	if tail {
		d = 1
	}
	return rk.clus[r][d]
}

// Cluster groups the rules of each head relation whose predictions overlap
// for Clustered scoring, as SAFRAN does (Ott, Meilicke and Stuckenschmidt,
// "SAFRAN: An interpretable, rule-based link prediction method
// outperforming embedding models"): rules of one kind joined by a chain of
// pairs whose predictions' Jaccard index is at or above a threshold form a
// cluster (single linkage); a candidate's score is then the noisy-or over
// its clusters of the largest confidence in each (Ranker.NoisyOrK
// clusters at most). The threshold of each relation, query direction and
// kind is chosen among opt.Thresholds (or none) to maximise the MRR of the
// validation triples valid (a seeded sample of opt.MaxValid of them),
// asked both ways and filtered by known (which should hold the graph's and
// the validation triples, not the test ones); ties keep no clustering,
// then the higher threshold. Without validation triples of a relation its
// rules stay alone.
//
// Its cost is bounded whatever the number of rules: relations are done one
// after another, each in one pass over its sampled validation queries
// (every rule that can fire applied once to each, in parallel) and over
// opt.Starts random heads and tails (the compared rules only). Those
// applications give the compared rules' predictions, kept as bottom-k
// sketches (so two rules are compared on the predicted triples of the
// same query entities, with one approximation: a validation query's pass
// stops early, as the ranking does, once it is a miss or its remaining
// rules fall below a tenth of the true answer's confidence, so a weak
// rule's sketch may lack what a stronger rule's holds and their overlap
// is then underestimated, the weak rule left alone); the pairs of
// compared rules of a group (at most opt.MaxRules) are compared once,
// each pair joining the clusters of every threshold it reaches (a
// union-find per threshold, no list of pairs); the thresholds are then
// searched by coordinate ascent over the kinds.
// Cancelling ctx stops it within a few milliseconds of work per thread.
func (rk *Ranker) Cluster(ctx context.Context, valid []Triple, known func(Triple) bool, opt ClusterOptions) (*ClusterReport, error) {
	if opt.MaxValid == 0 {
		opt.MaxValid = 3000
	}
	if opt.Starts == 0 {
		opt.Starts = 10
	}
	if opt.MaxRules <= 0 {
		opt.MaxRules = 1000
	}
	if opt.Sketch <= 0 {
		opt.Sketch = 128
	}
	if len(opt.Thresholds) == 0 {
		opt.Thresholds = DefaultThresholds
	}
	for _, t := range opt.Thresholds {
		if !(t > 0 && t <= 1) {
			return nil, fmt.Errorf("kgc: clustering threshold %v: must be in (0, 1]", t)
		}
	}
	if opt.TopK <= 0 {
		opt.TopK = 100
	}
	if opt.MaxFired <= 0 {
		opt.MaxFired = 50
	}
	opt.MaxFired = max(opt.MaxFired, rk.NoisyOrK) // the bounds in fired need a candidate's NoisyOrK best rules
	if opt.Threads <= 0 {
		opt.Threads = runtime.GOMAXPROCS(0)
	}
	thr := slices.Clone(opt.Thresholds)
	slices.SortFunc(thr, func(a, b float64) int { return cmp.Compare(b, a) })
	thr = slices.Compact(thr)
	nr := len(rk.byHead)
	rep := &ClusterReport{Thresholds: make([][2][kindGroups]float64, nr)}

	// The validation sample, by relation.
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5a17))
	vs := validSample(rk.g, valid, opt.MaxValid, rng)
	vs = vs[:firstN(len(vs), opt.MaxValid)]
	byRel := make([][]Triple, nr)
	for _, t := range vs {
		byRel[t.R] = append(byRel[t.R], t)
	}

	clus := make([][2][]int32, nr)
	var sum, sum0 float64
	work := newClusterWork(rk, opt)
	for h := range int32(nr) {
		if len(byRel[h]) == 0 || len(rk.byHead[h]) == 0 {
			continue // no evidence: every rule alone
		}
		res, err := work.relation(ctx, h, byRel[h], known, thr, rng)
		if err != nil {
			return nil, err
		}
		clus[h] = res.clus
		rep.Thresholds[h] = res.thresholds
		rep.Sketched += res.sketched
		rep.Pairs += res.pairs
		rep.Similar += res.similar
		rep.ValidQueries += res.queries
		sum += res.rr
		sum0 += res.rr0
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for h := range clus {
		for d := range 2 {
			for i, c := range clus[h][d] {
				if c != int32(i) {
					rep.Merged++
				}
			}
		}
	}
	if rep.ValidQueries > 0 {
		rep.ValidMRR, rep.ValidMRRUnclustered = sum/float64(rep.ValidQueries), sum0/float64(rep.ValidQueries)
	}
	rk.clus, rk.clusterCap = clus, opt.MaxFired
	return rep, nil
}

// clusterWork is Cluster's working memory, reused from relation to
// relation: per thread, a query scratch and the sketches it collects.
type clusterWork struct {
	rk      *Ranker
	opt     ClusterOptions
	threads int
	qs      []*queryScratch
	sk      [][][]uint64 // by thread, by rule position: bottom-k hashes
}

func newClusterWork(rk *Ranker, opt ClusterOptions) *clusterWork {
	return &clusterWork{rk: rk, opt: opt, threads: opt.Threads, qs: make([]*queryScratch, opt.Threads), sk: make([][][]uint64, opt.Threads)}
}

// relationResult is what Cluster finds for one relation.
type relationResult struct {
	clus              [2][]int32
	thresholds        [2][kindGroups]float64
	sketched, queries int
	pairs, similar    int64
	rr, rr0           float64 // summed reciprocal ranks, chosen and unclustered
	validByDir        [2][]validQuery
	compared          []bool    // by rule position: sketched and compared
	groups            [][]int32 // positions of the rules compared with each other
	unionsByThreshold [][]int32 // by threshold: each rule's cluster (nil: no pair reaches it)
	kindOf            []int8
	similarKinds      [kindGroups]bool
}

// relation clusters the rules of head relation h: it applies them to the
// validation queries of vs and to random starts, sketching the compared
// rules' predictions, compares those rules pair by pair within their
// groups and chooses the thresholds of both directions.
func (cw *clusterWork) relation(ctx context.Context, h int32, vs []Triple, known func(Triple) bool, thr []float64, rng *rand.Rand) (*relationResult, error) {
	rk, opt := cw.rk, cw.opt
	g := rk.g
	rules := rk.byHead[h]
	n := len(rules)
	res := &relationResult{kindOf: make([]int8, n), compared: make([]bool, n)}

	// Groups of rules compared with each other: the cyclic ones, and the
	// others by kind group, head constant and its side; in each, the
	// MaxRules most confident.
	type gkey struct {
		kind      int
		c         int32
		constTail bool
	}
	index := map[gkey]int{}
	for i, r := range rules {
		k := gkey{kind: kindGroup(r)}
		res.kindOf[i] = int8(k.kind)
		if r.Kind != Cyclic {
			k.c, k.constTail = r.C, r.ConstTail
		}
		gi, ok := index[k]
		if !ok {
			gi = len(res.groups)
			index[k] = gi
			res.groups = append(res.groups, nil)
		}
		if len(res.groups[gi]) < opt.MaxRules {
			res.groups[gi] = append(res.groups[gi], int32(i)) // rules come by decreasing confidence
			res.compared[i] = true
		}
	}
	res.groups = slices.DeleteFunc(res.groups, func(ps []int32) bool {
		if len(ps) < 2 {
			res.compared[ps[0]] = false
			return true
		}
		return false
	})

	// The queries: both directions of each validation triple (ranked),
	// then random heads (tail queries) and tails (head queries) of h
	// (sketched only).
	type query struct {
		e, truth int32
		tail     bool
		t        Triple
		valid    bool
	}
	var qs []query
	for _, t := range vs {
		qs = append(qs, query{e: t.T, truth: t.H, t: t, valid: true}, query{e: t.H, truth: t.T, tail: true, t: t, valid: true})
	}
	if opt.Starts > 0 && len(res.groups) > 0 {
		for _, tail := range []bool{true, false} {
			es := slices.Clone(g.From(h, !tail))
			m := min(opt.Starts, len(es))
			for i := range m {
				j := i + rng.IntN(len(es)-i)
				es[i], es[j] = es[j], es[i]
			}
			for _, e := range es[:m] {
				qs = append(qs, query{e: e, tail: tail})
			}
		}
	}
	seed := mix64(opt.Seed ^ uint64(uint32(h))<<20 ^ 0x5afe)
	vqs := make([]validQuery, len(qs))
	for w := range cw.threads {
		if cw.sk[w] == nil || cap(cw.sk[w]) < n {
			cw.sk[w] = make([][]uint64, n)
		}
		cw.sk[w] = cw.sk[w][:n]
	}
	par.For(len(qs), cw.threads, func(w, i int) {
		if ctx.Err() != nil {
			return
		}
		if cw.qs[w] == nil {
			cw.qs[w] = rk.newQueryScratch()
		}
		q := qs[i]
		sketch := func(p int32, ys []int32) {
			hs := cw.sk[w][p]
			for _, y := range ys {
				x := q.e
				if !q.tail {
					x, y = y, x
				}
				hs = addHash(hs, mix64(uint64(uint32(x))<<32|uint64(uint32(y))^seed), opt.Sketch)
			}
			cw.sk[w][p] = hs
		}
		if !q.valid {
			rk.applyCompared(ctx, q.e, h, q.tail, res.compared, sketch, cw.qs[w])
			return
		}
		_, _, skip := askedAs(q.t, q.tail, known)
		vqs[i] = rk.fired(ctx, q.e, h, q.tail, q.truth, skip, opt.MaxFired, opt.TopK, res.compared, sketch, cw.qs[w])
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, q := range qs {
		if q.valid {
			d := 0
			if q.tail {
				d = 1
			}
			res.validByDir[d] = append(res.validByDir[d], vqs[i])
		}
	}
	res.queries = 2 * len(vs)

	// The sketches: each compared rule's hashes from every thread merged.
	sks := make([]sketch, n)
	var merged []uint64
	for p := range n {
		if !res.compared[p] {
			continue
		}
		merged = merged[:0]
		for w := range cw.threads {
			merged = append(merged, cw.sk[w][p]...)
			cw.sk[w][p] = nil
		}
		slices.Sort(merged)
		merged = slices.Compact(merged)
		sks[p] = newSketch(slices.Clone(merged[:min(len(merged), opt.Sketch)]), opt.Sketch)
		res.sketched++
	}

	// One pass over the pairs of each group: a pair joins, in the
	// union-find of every threshold its Jaccard index reaches, the
	// clusters of its two rules.
	minT := thr[len(thr)-1]
	parent := make([][]int32, len(thr))
	find := func(uf []int32, x int32) int32 {
		for uf[x] != x {
			uf[x] = uf[uf[x]]
			x = uf[x]
		}
		return x
	}
	for _, ps := range res.groups {
		for i, a := range ps {
			if i%64 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, b := range ps[i+1:] {
				na, nb := sks[a].n, sks[b].n
				if na == 0 || nb == 0 || float64(min(na, nb)) < minT*float64(max(na, nb)) {
					continue // |A ∩ B| / |A ∪ B| <= min / max
				}
				res.pairs++
				j := jaccard(sks[a], sks[b], opt.Sketch)
				if j < minT {
					continue
				}
				res.similar++
				res.similarKinds[res.kindOf[ps[0]]] = true
				for ti, t := range thr {
					if j < t {
						continue
					}
					if parent[ti] == nil {
						parent[ti] = make([]int32, n)
						for x := range parent[ti] {
							parent[ti][x] = int32(x)
						}
					}
					x, y := find(parent[ti], a), find(parent[ti], b)
					if x != y {
						parent[ti][max(x, y)] = min(x, y)
					}
				}
			}
		}
	}
	for _, uf := range parent {
		for x := range uf {
			uf[x] = find(uf, int32(x))
		}
	}
	res.unionsByThreshold = parent

	for d := range 2 {
		t, c, best, none := rk.chooseThresholds(ctx, h, res, res.validByDir[d], thr, opt.TopK, max(opt.MinQueries, 1))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.thresholds[d], res.clus[d] = t, c
		res.rr += best
		res.rr0 += none
	}
	return res, nil
}

// applyCompared applies to the query the compared rules that can fire for
// it, handing each rule's predictions to sketch.
func (rk *Ranker) applyCompared(ctx context.Context, e, r int32, tail bool, compared []bool, sketch func(p int32, ys []int32), qs *queryScratch) {
	list := rk.byHead[r]
	for _, p := range rk.gather(e, r, tail, qs) {
		// Every rule: one rule through a hub can take milliseconds.
		if ctx.Err() != nil {
			return
		}
		if compared[p] {
			qs.buf = list[p].predict(rk.g, e, tail, qs.w, qs.buf)
			sketch(p, qs.buf)
		}
	}
}

// validQuery is one validation query as the threshold search sees it: the
// rules (positions, increasing) predicting the true answer, those
// predicting each other candidate that may rank at or above it under some
// clustering and below it under another, each cut at MaxFired, and the
// number of candidates above it under every clustering.
type validQuery struct {
	truth  []int32
	others [][]int32
	above  int
}

// fired applies the rules that can fire for the query, in decreasing
// confidence, handing the predictions of the compared ones to sketch, and
// returns, for the true answer and for each candidate whose place relative
// to it depends on the clustering, the rules predicting it, at most
// maxFired each. Under any clustering a candidate's score lies between its
// largest confidence and its plain noisy-or (over its NoisyOrK best
// rules): a candidate whose noisy-or is below the true answer's largest
// confidence is always below it (left out), one whose largest confidence
// is above the true answer's noisy-or always above it (counted in above);
// a query with topK such candidates is a miss whatever the clusters. The
// same bounds stop it early: a candidate first predicted once the
// noisy-or of NoisyOrK rules of the current confidence is below the true
// answer's largest confidence is always below it, and topK candidates
// above what an unseen true answer can still reach make a miss. Past that
// point the rules of less than a tenth of the true answer's largest
// confidence are not applied (an approximation of the search: each moves
// a score by less than that; the ranking itself applies them).

func (rk *Ranker) fired(ctx context.Context, e, r int32, tail bool, truth int32, skip func(int32) bool, maxFired, topK int, compared []bool, sketch func(p int32, ys []int32), qs *queryScratch) validQuery {
	order := rk.gather(e, r, tail, qs)
	list, conf := rk.byHead[r], rk.conf[r]
	var lists [][]int32
	defer func() {
		for _, y := range qs.touched {
			qs.pos[y] = 0
		}
		qs.touched = qs.touched[:0]
	}()
	// Once no candidate seen from now on can reach the true answer's
	// lowest possible score (its largest confidence), newcomers are left
	// out (closed); once every candidate kept has maxFired rules, only the
	// compared rules are applied, for their sketches. While the true
	// answer is unseen, topK candidates whose largest confidence is above
	// what it can still reach make the query a miss.
	closed, full := false, 0
	for n, p := range order {
		c := conf[p]
		if ctx.Err() != nil { // every rule: one through a hub can take milliseconds
			return validQuery{} // the caller sees ctx and drops it all
		}
		if n%64 == 63 {
			if u := rk.noisyOrUpper(nil, c); qs.pos[truth] == 0 && len(lists) >= topK {
				above := 0
				for _, l := range lists {
					if conf[l[0]] > u {
						above++
					}
				}
				if above >= topK {
					return validQuery{}
				}
			}
		}
		if qs.pos[truth] > 0 {
			truthLow := conf[lists[qs.pos[truth]-1][0]]
			if !closed && rk.noisyOrUpper(nil, c) < truthLow {
				closed = true
			}
			if closed && c < truthLow/10 {
				break // the search's approximation: weaker rules move no score much
			}
		}
		if closed && full == len(lists) && (compared == nil || !compared[p]) {
			continue
		}
		qs.buf = list[p].predict(rk.g, e, tail, qs.w, qs.buf)
		if compared != nil && compared[p] {
			sketch(p, qs.buf)
		}
		for _, y := range qs.buf {
			i := qs.pos[y]
			if i < 0 {
				continue
			}
			if i == 0 {
				if closed {
					continue
				}
				qs.touched = append(qs.touched, y)
				if skip(y) {
					qs.pos[y] = -1
					continue
				}
				lists = append(lists, nil)
				i = int32(len(lists))
				qs.pos[y] = i
			}
			if len(lists[i-1]) < maxFired {
				lists[i-1] = append(lists[i-1], p)
				if len(lists[i-1]) == maxFired {
					full++
				}
			}
		}
	}
	var vq validQuery
	ti := qs.pos[truth]
	if ti <= 0 {
		return vq // no rule predicts the true answer: a miss whatever the clusters
	}
	upper := func(l []int32) float64 {
		p := 1.0
		for _, x := range l[:min(len(l), max(rk.NoisyOrK, 1))] {
			p *= 1 - conf[x]
		}
		return 1 - p
	}
	truthLow, truthHigh := conf[lists[ti-1][0]], upper(lists[ti-1])
	for i, l := range lists {
		switch {
		case int32(i) == ti-1 || upper(l) < truthLow:
		case conf[l[0]] > truthHigh:
			vq.above++
		default:
			vq.others = append(vq.others, l)
		}
	}
	if vq.above >= topK {
		return validQuery{} // a miss under every clustering
	}
	vq.truth = lists[ti-1]
	return vq
}

// chooseThresholds picks relation h's thresholds for one direction by
// coordinate ascent over the kinds (two passes), starting from no
// clustering; it returns them, the clusters they give, and the summed
// reciprocal ranks of the validation queries with them and with no
// clustering.
func (rk *Ranker) chooseThresholds(ctx context.Context, h int32, res *relationResult, vq []validQuery, thr []float64, topK, minQueries int) ([kindGroups]float64, []int32, float64, float64) {
	rules := rk.byHead[h]
	n := len(rules)
	// The clusters of kind k's rules at threshold thr[ti-1] (ti 0: none)
	// are those of the union-find of that threshold.
	combined := func(sel [kindGroups]int) []int32 {
		c := make([]int32, n)
		for i := range c {
			k := res.kindOf[i]
			if ti := sel[k]; ti > 0 && res.unionsByThreshold[ti-1] != nil {
				c[i] = res.unionsByThreshold[ti-1][i]
			} else {
				c[i] = int32(i)
			}
		}
		return c
	}
	var sc scoreScratch
	eval := func(c []int32) float64 {
		s := 0.0
		for i := range vq {
			if ctx.Err() != nil { // every query: one can take milliseconds
				return 0 // the caller sees ctx and drops it all
			}
			if rank := rk.validRank(&vq[i], rk.conf[h], c, topK, &sc); rank > 0 {
				s += 1 / rank
			}
		}
		return s
	}
	var sel [kindGroups]int
	cur := combined(sel)
	none := eval(cur)
	best := none
	if len(vq) >= minQueries {
		for range 2 {
			for k := range kindGroups {
				if !res.similarKinds[k] {
					continue
				}
				for ti := 1; ti <= len(thr); ti++ {
					if ti == sel[k] {
						continue
					}
					try := sel
					try[k] = ti
					c := combined(try)
					if v := eval(c); v > best+1e-9 {
						best, sel, cur = v, try, c
					}
				}
			}
		}
	}
	var out [kindGroups]float64
	for k := range kindGroups {
		if sel[k] > 0 {
			out[k] = thr[sel[k]-1]
		}
	}
	return out, cur, best, none
}

// scoreScratch is working memory of validRank.
type scoreScratch struct {
	a, b []float64
	seen []int32
}

// clusteredConfs appends to out the confidences (conf, by position) of the
// first k distinct clusters among the rules ps (increasing positions: decreasing
// confidence), each cluster's first (largest).
func (rk *Ranker) clusteredConfs(conf []float64, ps []int32, c []int32, k int, out []float64, seen []int32) ([]float64, []int32) {
	out, seen = out[:0], seen[:0]
	for _, p := range ps {
		id := c[p]
		if slices.Contains(seen, id) {
			continue
		}
		seen = append(seen, id)
		out = append(out, conf[p])
		if len(out) == k {
			break
		}
	}
	return out, seen
}

// validRank is the true answer's filtered rank among the query's
// candidates under clusters c (0: a miss), as Evaluate would give it with a
// list of topK, but that candidates whose NoisyOrK best clusters have the
// same confidences count as tied (Evaluate compares their further
// clusters): the search looks at NoisyOrK clusters per candidate.
func (rk *Ranker) validRank(q *validQuery, conf []float64, c []int32, topK int, sc *scoreScratch) float64 {
	if q.truth == nil {
		return 0
	}
	k := max(rk.NoisyOrK, 1)
	sc.a, sc.seen = rk.clusteredConfs(conf, q.truth, c, k, sc.a, sc.seen)
	ta := Candidate{confs: sc.a}
	ta.Score = rk.noisyOr(ta.confs)
	better, tied := q.above, 0
	for _, l := range q.others {
		sc.b, sc.seen = rk.clusteredConfs(conf, l, c, k, sc.b, sc.seen)
		cb := Candidate{confs: sc.b}
		cb.Score = rk.noisyOr(cb.confs)
		switch compare(Clustered, &cb, &ta) {
		case -1:
			better++
		case 0:
			tied++
		}
	}
	if better >= topK {
		return 0
	}
	return 1 + float64(better) + float64(tied)/2
}

var errNotClustered = errors.New("kgc: clustered scoring needs Ranker.Cluster first")
