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

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/internal/par"
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
	NoisyOr
	// PSL re-scores each query's best maxplus candidates by MAP inference
	// in the PSL model of the rules (EvalOptions.PSL); the other
	// candidates follow in maxplus order.
	PSL
)

// ParseScoring reads maxplus, max, noisy-or or psl.
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
	}
	return 0, fmt.Errorf("unknown scoring %q (want maxplus, max, noisy-or or psl)", s)
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
	}
	return fmt.Sprintf("Scoring(%d)", int(s))
}

// Candidate is a ranked answer of a query.
type Candidate struct {
	Entity int32
	// Score is the candidate's score: its largest confidence for MaxPlus
	// and Max, the noisy-or for NoisyOr, its MAP value for PSL (the
	// largest confidence for a candidate PSL did not re-score).
	Score float64
	confs []float64 // decreasing; all scorings but Max
	psl   bool      // re-scored by PSL
	class int32     // PSL: the first maxplus position with equal confidences
}

// compare orders a before b when a ranks higher (negative), equal scores
// give 0.
func compare(s Scoring, a, b *Candidate) int {
	switch s {
	case Max, NoisyOr:
		if c := cmp.Compare(b.Score, a.Score); c != 0 || s == Max {
			return c
		}
	case PSL:
		if a.psl != b.psl {
			if a.psl {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Score, a.Score); a.psl && c != 0 {
			return c
		}
		return cmp.Compare(a.class, b.class)
	}
	for i := range min(len(a.confs), len(b.confs)) {
		if c := cmp.Compare(b.confs[i], a.confs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(b.confs), len(a.confs))
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

	g       *Graph
	scoring Scoring
	// rules by head relation, in decreasing confidence.
	byHead [][]*Rule
}

// NewRanker prepares rules (any order) for ranking over g.
func NewRanker(g *Graph, rules []Rule, s Scoring) *Ranker {
	rk := &Ranker{NoisyOrK: DefaultNoisyOrK, g: g, scoring: s, byHead: make([][]*Rule, g.NumRelations)}
	for i := range rules {
		r := &rules[i]
		if r.Kind != Default {
			r.rev = reverse(r.Body) // once, before the rules are shared by goroutines
		}
		if int(r.Head) < len(rk.byHead) {
			rk.byHead[r.Head] = append(rk.byHead[r.Head], r)
		}
	}
	for _, rs := range rk.byHead {
		slices.SortStableFunc(rs, func(a, b *Rule) int { return cmp.Compare(b.Conf, a.Conf) })
	}
	return rk
}

// Rank returns every candidate some rule predicts for the query (e, r, ?)
// when tail, else (?, r, e), best first (ties in entity order).
func (rk *Ranker) Rank(e, r int32, tail bool, mark []bool) []Candidate {
	if int(r) >= len(rk.byHead) || int(e) >= rk.g.NumEntities {
		return nil
	}
	idx := map[int32]int{}
	var out []Candidate
	var buf []int32
	for _, rule := range rk.byHead[r] {
		buf = rule.predict(rk.g, e, tail, mark, buf)
		for _, c := range buf {
			i, ok := idx[c]
			if !ok {
				i = len(out)
				idx[c] = i
				out = append(out, Candidate{Entity: c})
			}
			cd := &out[i]
			if rk.scoring == Max {
				cd.Score = max(cd.Score, rule.Conf)
			} else {
				// Rules come in decreasing confidence.
				cd.confs = append(cd.confs, rule.Conf)
			}
		}
	}
	for i := range out {
		cd := &out[i]
		switch rk.scoring {
		case MaxPlus, PSL:
			cd.Score = cd.confs[0]
		case NoisyOr:
			p := 1.0
			for _, c := range cd.confs[:min(len(cd.confs), max(rk.NoisyOrK, 1))] {
				p *= 1 - c
			}
			cd.Score = 1 - p
		}
	}
	if rk.scoring == PSL {
		sortBy(MaxPlus, out) // PSL re-scores the best of this order
	} else {
		sortBy(rk.scoring, out)
	}
	return out
}

// sortBy sorts candidates best first under s, ties in entity order.
func sortBy(s Scoring, cands []Candidate) {
	slices.SortStableFunc(cands, func(a, b Candidate) int {
		return cmp.Or(compare(s, &a, &b), cmp.Compare(a.Entity, b.Entity))
	})
}

// Metrics are filtered ranking metrics over queries.
type Metrics struct {
	Queries                   int
	MRR, Hits1, Hits3, Hits10 float64
}

// rankOf is the filtered rank of the true entity among cands: 1 + the
// candidates ranked above it + half of those tied with it, candidates in
// known (other true answers) left out; 0 when the true entity is not
// among the candidates (a miss).
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
		if i == ti || known(cands[i].Entity) {
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
	// TopK candidates are written per query (0: 100).
	TopK int
	// Threads (0: GOMAXPROCS); results do not depend on it.
	Threads int
	// PSL is the model PSL scoring infers with (NewPSL), ADMM its
	// solver's options, and PSLDump, when set, receives the atoms PSL
	// scored and their values.
	PSL     *PSLModel
	ADMM    admm.Options
	PSLDump func(atoms []Triple, values []float64) error
}

// forQueries calls f(i, mark) for i in [0, n) on threads workers, mark
// a per-worker scratch slice of entities falses; it stops early when ctx
// is done.
func forQueries(ctx context.Context, n, threads, entities int, f func(i int, mark []bool)) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	marks := make([][]bool, threads) // per worker, allocated on first use
	par.For(n, threads, func(w, i int) {
		if ctx.Err() != nil {
			return
		}
		if marks[w] == nil {
			marks[w] = make([]bool, entities)
		}
		f(i, marks[w])
	})
}

// Evaluate asks every test triple both ways, (h, r, ?) and (?, r, t),
// ranks the candidates and computes filtered metrics: known holds every
// true triple (train, valid, test) and the other true answers of a query
// are left out of its ranking. When w is not nil it writes AnyBURL's
// predictions format: per test triple, in order, "h r t", "Heads: " and
// "Tails: " lines with the top-k candidates and scores (tab-separated,
// best first, not filtered).
func (rk *Ranker) Evaluate(ctx context.Context, test []Triple, known func(Triple) bool, v *Vocab, w io.Writer, opt EvalOptions) (Metrics, error) {
	if opt.TopK <= 0 {
		opt.TopK = 100
	}
	if rk.scoring == PSL && opt.PSL == nil {
		return Metrics{}, errors.New("kgc: psl scoring needs a PSL model (EvalOptions.PSL)")
	}
	type answer struct {
		heads, tails []Candidate
		rh, rt       float64
	}
	answers := make([]answer, len(test))
	n := 0 // candidates PSL re-scores
	if rk.scoring == PSL {
		n = opt.PSL.opt.Candidates
	}
	knownTail := func(t Triple) func(int32) bool { return func(e int32) bool { return known(Triple{t.H, t.R, e}) } }
	knownHead := func(t Triple) func(int32) bool { return func(e int32) bool { return known(Triple{e, t.R, t.T}) } }
	// Each query keeps only its top-k candidates (and PSL's n), ranked at
	// once.
	forQueries(ctx, len(test), opt.Threads, rk.g.NumEntities, func(i int, mark []bool) {
		t, a := test[i], &answers[i]
		tails, heads := rk.Rank(t.H, t.R, true, mark), rk.Rank(t.T, t.R, false, mark)
		if rk.scoring == PSL {
			a.tails, a.rt = forPSL(tails, t.T, knownTail(t), n, opt.TopK)
			a.heads, a.rh = forPSL(heads, t.H, knownHead(t), n, opt.TopK)
			return
		}
		a.rt, a.rh = rankOf(rk.scoring, tails, t.T, knownTail(t)), rankOf(rk.scoring, heads, t.H, knownHead(t))
		a.tails, a.heads = top(tails, opt.TopK), top(heads, opt.TopK)
	})
	if err := ctx.Err(); err != nil {
		return Metrics{}, err
	}
	if rk.scoring == PSL {
		per := make([][]Triple, len(test))
		for i, t := range test {
			per[i] = appendAtoms(appendAtoms(nil, t, true, answers[i].tails, n), t, false, answers[i].heads, n)
		}
		atoms := distinct(per)
		values, _, err := opt.PSL.Infer(ctx, atoms, opt.ADMM)
		if err != nil {
			return Metrics{}, err
		}
		if opt.PSLDump != nil {
			if err := opt.PSLDump(atoms, values); err != nil {
				return Metrics{}, err
			}
		}
		value := make(map[Triple]float64, len(atoms))
		for i, a := range atoms {
			value[a] = values[i]
		}
		rescore := func(cands []Candidate, atom func(int32) Triple, truth int32, known func(int32) bool, rank *float64) []Candidate {
			m := min(n, len(cands))
			for j := range cands[:m] {
				cands[j].Score, cands[j].psl = value[atom(cands[j].Entity)], true
			}
			sortBy(PSL, cands[:m]) // the rest stays in maxplus order below
			if *rank == 0 {        // the true answer is among the first n, or missing
				*rank = rankOf(PSL, cands[:m], truth, known)
			}
			return cands[:min(len(cands), opt.TopK)]
		}
		for i, t := range test {
			a := &answers[i]
			a.tails = rescore(a.tails, func(e int32) Triple { return Triple{t.H, t.R, e} }, t.T, knownTail(t), &a.rt)
			a.heads = rescore(a.heads, func(e int32) Triple { return Triple{e, t.R, t.T} }, t.H, knownHead(t), &a.rh)
		}
	}
	var m Metrics
	for _, a := range answers {
		m.add(a.rh)
		m.add(a.rt)
	}
	m.finish()
	if w == nil {
		return m, nil
	}
	bw := bufio.NewWriter(w)
	list := func(label string, cs []Candidate) {
		bw.WriteString(label)
		for _, c := range cs {
			fmt.Fprintf(bw, "%s\t%s\t", v.Entities[c.Entity], formatScore(c.Score))
		}
		bw.WriteByte('\n')
	}
	for i, t := range test {
		fmt.Fprintf(bw, "%s %s %s\n", v.Entities[t.H], v.Relations[t.R], v.Entities[t.T])
		list("Heads: ", answers[i].heads)
		list("Tails: ", answers[i].tails)
	}
	return m, bw.Flush()
}

// forPSL keeps what PSL scoring needs of a query's maxplus ranking: a copy
// of its first max(n, k) candidates, each with its maxplus tie class in
// place of its confidences, and, when the true answer is below the first
// n, its final rank (the first n, re-scored, all rank above it); 0 when
// the true answer is among the first n or missing.
func forPSL(cands []Candidate, truth int32, known func(int32) bool, n, k int) ([]Candidate, float64) {
	n = min(n, len(cands))
	rank := rankOf(MaxPlus, cands[n:], truth, known)
	if rank > 0 {
		for _, c := range cands[:n] {
			if !known(c.Entity) {
				rank++
			}
		}
	}
	kept := cands[:min(len(cands), max(n, k))]
	for i := range kept {
		kept[i].class = int32(i)
		if i > 0 && compare(MaxPlus, &kept[i-1], &kept[i]) == 0 {
			kept[i].class = kept[i-1].class
		}
	}
	return top(kept, len(kept)), rank
}

// top is a copy of the first k candidates without their confidence
// vectors: what the predictions file needs, and all a query keeps.
func top(cands []Candidate, k int) []Candidate {
	out := slices.Clone(cands[:min(k, len(cands))])
	for i := range out {
		out[i].confs = nil
	}
	return out
}

func formatScore(s float64) string {
	if math.IsNaN(s) {
		return "0"
	}
	return fmt.Sprintf("%.6g", s)
}
