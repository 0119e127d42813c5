package kgc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/pathrule"
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
	// Seed draws the entities whose predictions stand for a cyclic rule's
	// and hashes the predictions into sketches.
	Seed uint64
	// Starts is the number of entities of each side of the head relation
	// (heads, tails) from which the cyclic rules' predictions are
	// collected (0: 500). Rules with a constant in the head are compared
	// on all their predictions.
	Starts int
	// MaxRules is the number of rules of each relation and kind (of each
	// head constant, for rules with one) compared, those of highest
	// confidence (0: 2,000); the others stay alone in their clusters.
	MaxRules int
	// Sketch is the size of the bottom-k sketch of a rule's predictions
	// (0: 256): Jaccard indexes of sets of at most this size are exact,
	// of larger sets estimated.
	Sketch int
	// Thresholds tried (empty: DefaultThresholds), each in (0, 1].
	Thresholds []float64
	// TopK is the list length of the ranking the thresholds are chosen
	// for (0: 100): a true answer below it is a miss.
	TopK int
	// MaxFired is the number of rules kept per candidate of a validation
	// query when choosing thresholds (0: 50), the most confident ones.
	MaxFired int
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
	// Pairs is the number of pairs of rules compared, Similar those with
	// a Jaccard index at or above the smallest threshold.
	Pairs   int64 `json:"pairs_compared"`
	Similar int64 `json:"pairs_similar"`
	// Merged is the number of rules (summed over both directions) that
	// share their cluster with a more confident rule.
	Merged int `json:"rules_merged"`
	// ValidQueries is the number of validation queries the thresholds
	// were chosen on; ValidMRR their MRR with the chosen thresholds,
	// ValidMRRUnclustered without clustering (plain noisy-or), both as the
	// search computes them (a candidate's rules cut at MaxFired).
	ValidQueries        int     `json:"valid_queries"`
	ValidMRR            float64 `json:"valid_mrr"`
	ValidMRRUnclustered float64 `json:"valid_mrr_unclustered"`
	// Seconds spent comparing rules (Similarity) and choosing thresholds
	// (Search).
	SimilaritySeconds float64 `json:"similarity_seconds"`
	SearchSeconds     float64 `json:"search_seconds"`
}

// edge is a pair of rules (positions in Ranker.byHead[r]) and their
// Jaccard index.
type edge struct {
	a, b int32
	j    float64
}

// sketch is a bottom-k sketch of a set of predictions: the set's size and
// the Sketch smallest distinct hashes of its elements, increasing.
type sketch struct {
	n int
	h []uint64
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// newSketch sketches the keys (any order, repeats allowed).
func newSketch(keys []uint64, seed uint64, k int) sketch {
	hs := make([]uint64, len(keys))
	for i, x := range keys {
		hs[i] = mix64(x ^ seed)
	}
	slices.Sort(hs)
	hs = slices.Compact(hs)
	n := len(hs)
	return sketch{n: n, h: slices.Clip(hs[:min(k, n)])}
}

// bodySet is a set of entities (increasing) and its sketch, one element
// longer than the sketches compared.
type bodySet struct {
	vs []int32
	sk sketch
}

// without is the sketch (of size k) of the set without entity c.
func (b bodySet) without(c int32, seed uint64, k int) sketch {
	out := sketch{n: b.sk.n, h: b.sk.h}
	if _, in := slices.BinarySearch(b.vs, c); in {
		out.n--
		hc := mix64(uint64(uint32(c)) ^ seed)
		if i, found := slices.BinarySearch(out.h, hc); found {
			out.h = slices.Delete(slices.Clone(out.h), i, i+1)
		}
	}
	out.h = out.h[:min(k, len(out.h))]
	return out
}

// jaccard estimates |A ∩ B| / |A ∪ B| from the sketches: exactly when both
// sets fit in their sketches, else from the k smallest hashes of the union
// (those of them in both sketches are in A ∩ B).
func jaccard(a, b sketch, k int) float64 {
	if a.n == 0 || b.n == 0 {
		return 0
	}
	i, j, seen, both := 0, 0, 0, 0
	exact := a.n <= k && b.n <= k
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
// (Jaccard index of their predicted triples over the graph) for Clustered
// scoring, as SAFRAN does (Ott, Meilicke and Stuckenschmidt, "SAFRAN: An
// interpretable, rule-based link prediction method outperforming embedding
// models"): rules of one kind joined by a chain of pairs at or above a
// threshold form a cluster (single linkage); a candidate's score is then
// the noisy-or over its clusters of the largest confidence in each
// (Ranker.NoisyOrK clusters at most). The threshold of each relation,
// query direction and kind is chosen among opt.Thresholds (or none) to
// maximise the MRR of the validation triples valid, asked both ways and
// filtered by known (which should hold the graph's and the validation
// triples, not the test ones); ties keep no clustering, then the higher
// threshold. Without validation triples of a relation its rules stay
// alone.
func (rk *Ranker) Cluster(ctx context.Context, valid []Triple, known func(Triple) bool, opt ClusterOptions) (*ClusterReport, error) {
	if opt.Starts <= 0 {
		opt.Starts = 500
	}
	if opt.MaxRules <= 0 {
		opt.MaxRules = 2000
	}
	if opt.Sketch <= 0 {
		opt.Sketch = 256
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

	start := time.Now()
	edges := make([][kindGroups][]edge, nr)
	pairs := make([][2]int64, nr)
	minT := thr[len(thr)-1]
	var mu sync.Mutex
	par.For(nr, opt.Threads, func(_, h int) {
		if ctx.Err() != nil {
			return
		}
		e, p, s := rk.similar(ctx, int32(h), opt, minT)
		edges[h] = e
		pairs[h] = [2]int64{p, s}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, p := range pairs {
		rep.Pairs += p[0]
		rep.Similar += p[1]
	}
	rep.SimilaritySeconds = time.Since(start).Seconds()

	start = time.Now()
	vq, err := rk.validationQueries(ctx, valid, known, opt)
	if err != nil {
		return nil, err
	}
	clus := make([][2][]int32, nr)
	var rr, rr0 [2][]float64
	rr[0], rr[1], rr0[0], rr0[1] = make([]float64, nr), make([]float64, nr), make([]float64, nr), make([]float64, nr)
	par.For(2*nr, opt.Threads, func(_, q int) {
		if ctx.Err() != nil {
			return
		}
		h, d := q/2, q%2
		t, c, best, none := rk.chooseThresholds(ctx, int32(h), edges[h], vq[h][d], thr, opt.TopK)
		mu.Lock()
		rep.Thresholds[h][d], clus[h][d] = t, c
		rr[d][h], rr0[d][h] = best, none
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sum, sum0 float64
	for h := range nr {
		for d := range 2 {
			rep.ValidQueries += len(vq[h][d])
			sum += rr[d][h]
			sum0 += rr0[d][h]
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
	rk.clus = clus
	rep.SearchSeconds = time.Since(start).Seconds()
	return rep, nil
}

// similar returns, for each kind of rule of head relation h, the pairs of
// rules whose Jaccard index is at least minT, in decreasing index (ties by
// positions), and the numbers of pairs compared and kept.
func (rk *Ranker) similar(ctx context.Context, h int32, opt ClusterOptions, minT float64) (out [kindGroups][]edge, compared, kept int64) {
	g := rk.g
	rules := rk.byHead[h]
	w := pathrule.NewWalker(g)
	seed := mix64(opt.Seed ^ (uint64(uint32(h)) << 20) ^ 0x5afe)
	// Starts for cyclic rules: a seeded sample of the relation's heads
	// and of its tails.
	rng := rand.New(rand.NewPCG(seed, 1))
	sample := func(es []int32) []int32 {
		es = slices.Clone(es)
		n := min(opt.Starts, len(es))
		for i := range n {
			j := i + rng.IntN(len(es)-i)
			es[i], es[j] = es[j], es[i]
		}
		return es[:n]
	}
	heads, tails := sample(g.From(h, false)), sample(g.From(h, true))
	// Groups of rules compared with each other: the cyclic ones, and the
	// others by kind group, head constant and its side.
	type gkey struct {
		kind      int
		c         int32
		constTail bool
	}
	groups := map[gkey][]int32{}
	var order []gkey
	for i, r := range rules {
		k := gkey{kind: kindGroup(r)}
		if r.Kind != Cyclic {
			k.c, k.constTail = r.C, r.ConstTail
		}
		if len(groups[k]) >= opt.MaxRules {
			continue
		}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], int32(i))
	}
	var buf []int32
	var keys []uint64
	bodySets := map[int32]bodySet{}
	for _, k := range order {
		ps := groups[k]
		if len(ps) < 2 {
			continue
		}
		sk := make([]sketch, len(ps))
		for i, p := range ps {
			if ctx.Err() != nil {
				return out, compared, kept // the caller sees ctx and drops it all
			}
			r := rules[p]
			keys = keys[:0]
			switch r.Kind {
			case Cyclic:
				for _, x := range heads {
					buf = r.predict(g, x, true, w, buf)
					for _, y := range buf {
						keys = append(keys, uint64(uint32(x))<<32|uint64(uint32(y)))
					}
				}
				for _, y := range tails {
					buf = r.predict(g, y, false, w, buf)
					for _, x := range buf {
						keys = append(keys, uint64(uint32(x))<<32|uint64(uint32(y)))
					}
				}
			case AcyclicConst:
				// Every variable value whose body holds (asked from the
				// head constant, the rule gives them all).
				if r.C == Self {
					buf = append(buf[:0], r.bodySet(g, w)...) // r(X, X) for each
				} else {
					buf = r.predict(g, r.C, !r.ConstTail, w, buf)
				}
				for _, v := range buf {
					keys = append(keys, uint64(uint32(v)))
				}
			default:
				// The variable values of the body (entities with an edge
				// of the step, or every value of the head's variable
				// side), but the constant: sketched once per set, the
				// constant taken out per rule.
				var set []int32
				ck := int32(-1)
				if r.Kind == AcyclicAny {
					st := r.Body[0]
					ck = st.Key()
					set = g.From(st.R, st.Inverse)
				} else {
					if r.ConstTail {
						ck = -2
					}
					set = g.From(r.Head, !r.ConstTail)
				}
				base, ok := bodySets[ck]
				if !ok {
					var self []int32
					if r.Kind == AcyclicAny {
						self = g.SelfOnly(r.Body[0].R, r.Body[0].Inverse)
					}
					var vs []int32
					keys = keys[:0]
					for _, v := range set {
						if _, only := slices.BinarySearch(self, v); !only {
							vs = append(vs, v)
							keys = append(keys, uint64(uint32(v)))
						}
					}
					base = bodySet{vs: vs, sk: newSketch(keys, seed, opt.Sketch+1)}
					bodySets[ck] = base
				}
				sk[i] = base.without(r.C, seed, opt.Sketch)
				continue
			}
			sk[i] = newSketch(keys, seed, opt.Sketch)
		}
		var es []edge
		for i := range ps {
			if i%64 == 0 && ctx.Err() != nil {
				return out, compared, kept
			}
			for j := i + 1; j < len(ps); j++ {
				a, b := sk[i].n, sk[j].n
				if a == 0 || b == 0 || float64(min(a, b)) < minT*float64(max(a, b)) {
					continue // |A ∩ B| / |A ∪ B| <= min / max
				}
				compared++
				if jv := jaccard(sk[i], sk[j], opt.Sketch); jv >= minT {
					es = append(es, edge{a: ps[i], b: ps[j], j: jv})
				}
			}
		}
		kept += int64(len(es))
		out[k.kind] = append(out[k.kind], es...)
	}
	for k := range out {
		slices.SortFunc(out[k], func(x, y edge) int {
			return cmp.Or(cmp.Compare(y.j, x.j), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
		})
	}
	return out, compared, kept
}

// clusters joins the rules of edges at or above t (single linkage): each
// position's cluster is the smallest position of its component; n
// positions.
func clusters(n int, edges []edge, t float64) []int32 {
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range edges {
		if e.j < t {
			break
		}
		a, b := find(e.a), find(e.b)
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	for i := range parent {
		parent[i] = find(int32(i))
	}
	return parent
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

// validationQueries applies every rule to every validation query and keeps
// what the threshold search needs, by relation and direction.
func (rk *Ranker) validationQueries(ctx context.Context, valid []Triple, known func(Triple) bool, opt ClusterOptions) ([][2][]validQuery, error) {
	nr := len(rk.byHead)
	out := make([][2][]validQuery, nr)
	var vs []Triple
	for _, t := range valid {
		if int(t.R) < nr && int(t.H) < rk.g.NumEntities && int(t.T) < rk.g.NumEntities && t.H >= 0 && t.T >= 0 && t.R >= 0 {
			vs = append(vs, t)
		}
	}
	res := make([]validQuery, 2*len(vs))
	rk.forQueries(ctx, len(res), opt.Threads, func(q int, qs *queryScratch) {
		t, tail := vs[q/2], q%2 == 1
		e, truth := t.T, t.H
		skip := func(y int32) bool { return y != truth && known(Triple{H: y, R: t.R, T: t.T}) }
		if tail {
			e, truth = t.H, t.T
			skip = func(y int32) bool { return y != truth && known(Triple{H: t.H, R: t.R, T: y}) }
		}
		res[q] = rk.fired(ctx, e, t.R, tail, truth, skip, opt.MaxFired, opt.TopK, qs)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for q := range res {
		t := vs[q/2]
		out[t.R][q%2] = append(out[t.R][q%2], res[q])
	}
	return out, nil
}

// fired applies every rule that can fire for the query and returns, for
// the true answer and for each candidate whose place relative to it
// depends on the clustering, the rules predicting it, at most maxFired
// each. Under any clustering a candidate's score lies between its largest
// confidence and its plain noisy-or (over its NoisyOrK best rules): a
// candidate whose noisy-or is below the true answer's largest confidence
// is always below it (left out), one whose largest confidence is above the
// true answer's noisy-or always above it (counted in above); a query with
// topK such candidates is a miss whatever the clusters.
func (rk *Ranker) fired(ctx context.Context, e, r int32, tail bool, truth int32, skip func(int32) bool, maxFired, topK int, qs *queryScratch) validQuery {
	order := rk.gather(e, r, tail, qs)
	list := rk.byHead[r]
	var lists [][]int32
	defer func() {
		for _, y := range qs.touched {
			qs.pos[y] = 0
		}
		qs.touched = qs.touched[:0]
	}()
	for n, p := range order {
		if n%64 == 63 && ctx.Err() != nil {
			return validQuery{} // the caller sees ctx and drops it all
		}
		qs.buf = list[p].predict(rk.g, e, tail, qs.w, qs.buf)
		for _, y := range qs.buf {
			i := qs.pos[y]
			if i < 0 {
				continue
			}
			if i == 0 {
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
			p *= 1 - list[x].Conf
		}
		return 1 - p
	}
	truthLow, truthHigh := list[lists[ti-1][0]].Conf, upper(lists[ti-1])
	for i, l := range lists {
		switch {
		case int32(i) == ti-1 || upper(l) < truthLow:
		case list[l[0]].Conf > truthHigh:
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
func (rk *Ranker) chooseThresholds(ctx context.Context, h int32, edges [kindGroups][]edge, vq []validQuery, thr []float64, topK int) ([kindGroups]float64, []int32, float64, float64) {
	rules := rk.byHead[h]
	n := len(rules)
	kind := make([]int8, n)
	for i, r := range rules {
		kind[i] = int8(kindGroup(r))
	}
	// assign[k][ti]: clusters of kind k's rules with threshold thr[ti-1]
	// (ti 0: none), nil when kind k has no similar pair.
	var assign [kindGroups][][]int32
	for k := range kindGroups {
		if len(edges[k]) == 0 {
			continue
		}
		assign[k] = make([][]int32, len(thr)+1)
		for ti, t := range thr {
			assign[k][ti+1] = clusters(n, edges[k], t)
		}
	}
	combined := func(sel [kindGroups]int) []int32 {
		c := make([]int32, n)
		for i := range c {
			k := kind[i]
			if assign[k] == nil || sel[k] == 0 {
				c[i] = int32(i)
			} else {
				c[i] = assign[k][sel[k]][i]
			}
		}
		return c
	}
	var sc scoreScratch
	eval := func(c []int32) float64 {
		s := 0.0
		for i := range vq {
			if i%256 == 255 && ctx.Err() != nil {
				return 0 // the caller sees ctx and drops it all
			}
			if rank := rk.validRank(&vq[i], rules, c, topK, &sc); rank > 0 {
				s += 1 / rank
			}
		}
		return s
	}
	var sel [kindGroups]int
	cur := combined(sel)
	none := eval(cur)
	best := none
	if len(vq) > 0 {
		for range 2 {
			for k := range kindGroups {
				if assign[k] == nil {
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
	if len(vq) == 0 {
		cur = combined([kindGroups]int{}) // no evidence: every rule alone
	}
	return out, cur, best, none
}

// scoreScratch is working memory of validRank.
type scoreScratch struct {
	a, b []float64
	seen []int32
}

// clusteredConfs appends to out the confidences of the distinct clusters
// among the rules ps (increasing positions: decreasing confidence), each
// cluster's first (largest).
func (rk *Ranker) clusteredConfs(rules []*Rule, ps []int32, c []int32, out []float64, seen []int32) ([]float64, []int32) {
	out, seen = out[:0], seen[:0]
	for _, p := range ps {
		id := c[p]
		if slices.Contains(seen, id) {
			continue
		}
		seen = append(seen, id)
		out = append(out, rules[p].Conf)
	}
	return out, seen
}

// validRank is the true answer's filtered rank among the query's
// candidates under clusters c (0: a miss), as Evaluate would give it with a
// list of topK.
func (rk *Ranker) validRank(q *validQuery, rules []*Rule, c []int32, topK int, sc *scoreScratch) float64 {
	if q.truth == nil {
		return 0
	}
	sc.a, sc.seen = rk.clusteredConfs(rules, q.truth, c, sc.a, sc.seen)
	ta := Candidate{confs: sc.a}
	ta.Score = rk.noisyOr(ta.confs)
	better, tied := q.above, 0
	for _, l := range q.others {
		sc.b, sc.seen = rk.clusteredConfs(rules, l, c, sc.b, sc.seen)
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
