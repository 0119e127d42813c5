package explain

import (
	"context"
	"fmt"
	"slices"

	"github.com/hinge-srl/hinge/kgc"
	"github.com/hinge-srl/hinge/pathrule"
)

// KGC explains the scores of knowledge-graph completion: for a candidate
// answer of a query, the rules that predicted it, with their confidences
// and the body groundings that fired (as AnyBURL lists the rules behind each
// prediction), and its score combined from them under the ranker's scoring.
type KGC struct {
	Graph  *kgc.Graph
	Vocab  *kgc.Vocab
	Ranker *kgc.Ranker
	// MaxGroundings is how many body groundings are listed per rule (5
	// when 0); up to 1000 are counted.
	MaxGroundings int
	// Top is how many rules are listed per candidate, the most confident
	// first (all when 0); the confidences of all are kept (Confs).
	Top int
	// Known says which triples are known answers (the graph's, the
	// validation and test triples): Explain leaves them out of the
	// ranking that places a candidate, as the filtered metrics do (nil:
	// none left out).
	Known func(kgc.Triple) bool
	// AboveShown is how many of the candidates ranked above an explained
	// one are listed (5 when 0; all are counted).
	AboveShown int
}

// KGCCandidate is a candidate ranked above an explained one.
type KGCCandidate struct {
	Candidate string  `json:"candidate"`
	Score     float64 `json:"score"`
}

// groundingCount is how many body groundings of a rule are counted.
const groundingCount = 1000

// KGCRule is a rule that predicted the candidate.
type KGCRule struct {
	// Rule is the rule in AnyBURL's syntax, Conf its confidence,
	// Support and BodySize its counts (Sampled: estimated from sampled
	// starts, with 95% error ConfErr).
	Rule     string  `json:"rule"`
	Conf     float64 `json:"conf"`
	Support  int     `json:"support"`
	BodySize int     `json:"body_size"`
	Sampled  bool    `json:"sampled,omitempty"`
	ConfErr  float64 `json:"conf_err,omitempty"`
	// RankConf is the confidence the ranker ranks the rule with when it
	// is not Conf (kgc.LowerConfidence; nil otherwise); the score
	// combines it.
	RankConf *float64 `json:"rank_conf,omitempty"`
	// Weight is the weight learned scoring gives the rule at its place
	// among the candidate's rules (kgc.Ranker.Weight; nil under the other
	// scorings): the score adds Weight * -log(1 - conf).
	Weight *float64 `json:"weight,omitempty"`
	// Groundings are body groundings that fired for this candidate, each
	// its body atoms (none for a default rule); Found counts them (up to
	// 1000: More says there are more).
	Groundings [][]string `json:"groundings"`
	Found      int        `json:"found"`
	More       bool       `json:"more,omitempty"`
}

// KGCQuery explains a candidate of one query.
type KGCQuery struct {
	// Query is "(h, r, ?)" (Tail) or "(?, r, t)"; Candidate the answer
	// explained.
	Query     string `json:"query"`
	Tail      bool   `json:"tail"`
	Candidate string `json:"candidate"`
	// Rules are the rules that predicted the candidate, in decreasing
	// confidence (the first KGC.Top of RuleCount; for noisy-or those that
	// count, see kgc.Ranker.Predictions); Confs the confidences
	// of all RuleCount in that order (maxplus compares candidates by
	// these, lexicographically). Score combines them under the scoring:
	// the largest for max and maxplus, 1 - prod(1 - conf) over the first
	// NoisyOrK for noisy-or, the sum of each rule's Weight * -log(1 -
	// conf) for learned (SetPlace gives a candidate below the first ones
	// learned scoring re-weighs the score it ranks with there, its
	// noisy-or). A candidate no rule predicts has no score (Predicted
	// false).
	Rules     []KGCRule `json:"rules"`
	RuleCount int       `json:"rule_count"`
	Confs     []float64 `json:"confs"`
	Score     float64   `json:"score"`
	Predicted bool      `json:"predicted"`
	// Rank is the candidate's filtered rank in the query's list (as the
	// metrics count it: 1 + the candidates above + half those tied,
	// known answers other than it left out; 0 when no rule predicts
	// it); Above the first KGC.AboveShown of the AboveCount candidates
	// ranked strictly above it, best first.
	Rank       float64        `json:"rank"`
	Above      []KGCCandidate `json:"above"`
	AboveCount int            `json:"above_count"`
	// Tied is the number of other candidates tied with it.
	Tied int `json:"tied"`
	// Answer says that the candidate is the true answer of a test triple
	// asked as this query (the HTML report's lists mark it).
	Answer bool `json:"answer,omitempty"`
}

// KGCExplanation explains a triple as the answer of both its queries.
type KGCExplanation struct {
	Atom     string     `json:"atom"`
	Scoring  string     `json:"scoring"`
	NoisyOrK int        `json:"noisy_or_k,omitempty"`
	Queries  []KGCQuery `json:"queries"`
}

// KGCAtom writes triple t as relation(head, tail).
func (k *KGC) KGCAtom(t kgc.Triple) string {
	return Atom{Pred: k.Vocab.Relations[t.R], Args: []string{k.Vocab.Entities[t.H], k.Vocab.Entities[t.T]}}.String()
}

// FindTriple reads atom a as a triple relation(head, tail) of the
// vocabulary; the error says what is missing.
func FindTriple(v *kgc.Vocab, a Atom) (kgc.Triple, error) {
	if len(a.Args) != 2 {
		return kgc.Triple{}, fmt.Errorf("%s: a triple is relation(head, tail), with 2 arguments, not %d", a, len(a.Args))
	}
	r := slices.Index(v.Relations, a.Pred)
	if r < 0 {
		return kgc.Triple{}, fmt.Errorf("%s: no relation %q in the triples", a, a.Pred)
	}
	var ids [2]int32
	for i, name := range a.Args {
		id := slices.Index(v.Entities, name)
		if id < 0 {
			return kgc.Triple{}, fmt.Errorf("%s: no entity %q in the triples", a, name)
		}
		ids[i] = int32(id)
	}
	return kgc.Triple{H: ids[0], R: int32(r), T: ids[1]}, nil
}

// Explain explains triple t as the tail answer of (h, r, ?) and the head
// answer of (?, r, t): the rules that predict it and where it stands in
// each query's ranking (every rule applied, known answers left out), with
// the candidates above it. It stops with ctx's error once ctx is done.
func (k *KGC) Explain(ctx context.Context, t kgc.Triple) (*KGCExplanation, error) {
	x := &KGCExplanation{Atom: k.KGCAtom(t), Scoring: k.Ranker.Scoring().String()}
	if s := k.Ranker.Scoring(); s == kgc.NoisyOr || s == kgc.Learned {
		x.NoisyOrK = k.Ranker.NoisyOrK
	}
	for _, tail := range []bool{true, false} {
		e, y := t.H, t.T
		known := func(c int32) bool { return k.Known != nil && k.Known(kgc.Triple{H: t.H, R: t.R, T: c}) }
		if !tail {
			e, y = t.T, t.H
			known = func(c int32) bool { return k.Known != nil && k.Known(kgc.Triple{H: c, R: t.R, T: t.T}) }
		}
		q := k.ExplainQuery(e, t.R, tail, []int32{y})[0]
		p, err := k.Ranker.PlaceOf(ctx, e, t.R, tail, y, known)
		if err != nil {
			return nil, err
		}
		k.SetPlace(&q, p)
		x.Queries = append(x.Queries, q)
	}
	return x, nil
}

// SetPlace sets q's rank and the candidates above it from p, and its
// score to the list's (they differ under learned scoring for a candidate
// below the first ones re-weighed, which keeps its noisy-or).
func (k *KGC) SetPlace(q *KGCQuery, p kgc.Place) {
	if p.Rank > 0 {
		q.Score = p.Score
	}
	shown := k.AboveShown
	if shown <= 0 {
		shown = 5
	}
	q.Rank, q.AboveCount, q.Tied, q.Above = p.Rank, len(p.Above), p.Tied, []KGCCandidate{}
	for _, c := range p.Above[:min(shown, len(p.Above))] {
		q.Above = append(q.Above, KGCCandidate{Candidate: k.Vocab.Entities[c.Entity], Score: c.Score})
	}
}

// ExplainQuery explains candidates of the query (e, r, ?) when tail, else
// (?, r, e), applying each rule of the query once.
func (k *KGC) ExplainQuery(e, r int32, tail bool, cands []int32) []KGCQuery {
	v := k.Vocab
	q := fmt.Sprintf("(?, %s, %s)", v.Relations[r], v.Entities[e])
	if tail {
		q = fmt.Sprintf("(%s, %s, ?)", v.Entities[e], v.Relations[r])
	}
	at := map[int32]int{}
	out := make([]KGCQuery, len(cands))
	for i, c := range cands {
		at[c] = i
		out[i] = KGCQuery{Query: q, Tail: tail, Candidate: v.Entities[c], Rules: []KGCRule{}, Confs: []float64{}, Above: []KGCCandidate{}}
	}
	s := k.Ranker.Scoring()
	learned := s == kgc.Learned && k.Ranker.Fitted()
	if s == kgc.Learned && !learned {
		s = kgc.NoisyOr // ranks as noisy-or until its weights are fitted
	}
	weighed := make([]float64, len(cands)) // learned: the score so far
	k.Ranker.Predictions(e, r, tail, func(rule *kgc.Rule, conf float64, pred []int32) {
		for _, y := range pred {
			i, ok := at[y]
			if !ok {
				continue
			}
			var w float64
			if learned {
				w = k.Ranker.Weight(rule, out[i].RuleCount)
				weighed[i] += w * kgc.Evidence(conf)
			}
			if k.Top <= 0 || len(out[i].Rules) < k.Top {
				kr := k.ruleFor(rule, e, tail, y)
				if conf != rule.Conf {
					kr.RankConf = &conf
				}
				if learned {
					kr.Weight = &w
				}
				out[i].Rules = append(out[i].Rules, kr)
			}
			out[i].Confs = append(out[i].Confs, conf)
			out[i].RuleCount++
		}
	})
	for i := range out {
		if len(out[i].Confs) > 0 {
			out[i].Predicted = true
			out[i].Score = weighed[i]
			if !learned {
				out[i].Score = Combine(s, k.Ranker.NoisyOrK, out[i].Confs)
			}
		}
	}
	return out
}

// Combine is a candidate's score from the confidences of the rules that
// predict it, in decreasing order: the first for max and maxplus (and psl,
// whose candidates not re-scored keep it), 1 - prod(1 - conf) over the
// first noisyOrK for noisy-or.
func Combine(s kgc.Scoring, noisyOrK int, confs []float64) float64 {
	if len(confs) == 0 {
		return 0
	}
	if s != kgc.NoisyOr {
		return confs[0]
	}
	p := 1.0
	for _, c := range confs[:min(len(confs), max(noisyOrK, 1))] {
		p *= 1 - c
	}
	return 1 - p
}

// ruleFor describes rule as it predicted candidate y for the query.
func (k *KGC) ruleFor(rule *kgc.Rule, e int32, tail bool, y int32) KGCRule {
	kr := KGCRule{Rule: rule.Format(k.Vocab), Conf: rule.Conf, Support: rule.Support, BodySize: rule.BodySize,
		Sampled: rule.Sampled > 0, ConfErr: rule.Err, Groundings: [][]string{}}
	limit := k.MaxGroundings
	if limit <= 0 {
		limit = 5
	}
	add := func(atoms []string) bool {
		kr.Found++
		if len(kr.Groundings) < limit {
			kr.Groundings = append(kr.Groundings, atoms)
		}
		if kr.Found >= groundingCount {
			kr.More = true
			return false
		}
		return true
	}
	g, v := k.Graph, k.Vocab
	atom := func(st pathrule.Step, a, b int32) string {
		if st.Inverse {
			a, b = b, a
		}
		return Atom{Pred: v.Relations[st.R], Args: []string{v.Entities[a], v.Entities[b]}}.String()
	}
	switch rule.Kind {
	case kgc.Cyclic:
		x, z := e, y
		if !tail {
			x, z = y, e
		}
		path := []int32{x}
		var walk func(i int, at int32) bool
		walk = func(i int, at int32) bool {
			st := rule.Body[i]
			last := i == len(rule.Body)-1
			for _, b := range g.Step(at, st.R, st.Inverse) {
				// Object identity: the path's entities all differ, and
				// only the last one is the path's end.
				if slices.Contains(path, b) || last != (b == z) {
					continue
				}
				path = append(path, b)
				ok := true
				if last {
					atoms := make([]string, len(rule.Body))
					for j, s := range rule.Body {
						atoms[j] = atom(s, path[j], path[j+1])
					}
					ok = add(atoms)
				} else {
					ok = walk(i+1, b)
				}
				path = path[:len(path)-1]
				if !ok {
					return false
				}
			}
			return true
		}
		walk(0, x)
	case kgc.AcyclicConst:
		// r(X, c) <= b(X, d): X is the query's entity (asked from X's side)
		// or the candidate (asked from the constant's side).
		xv, d := e, rule.D
		if rule.ConstTail != tail && rule.C != kgc.Self {
			xv = y
		}
		if d == kgc.Self { // b(X, X)
			d = xv
		}
		add([]string{atom(rule.Body[0], xv, d)})
	case kgc.AcyclicAny:
		st := rule.Body[0]
		for _, b := range g.Step(e, st.R, st.Inverse) {
			// The free variable is neither X nor the head's constant.
			if b != e && b != rule.C && !add([]string{atom(st, e, b)}) {
				break
			}
		}
	case kgc.Default:
		add([]string{})
	}
	return kr
}
