package kgc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/hinge-srl/hinge/internal/optimctx"
)

// RuleClasses names the classes of rules Learned weighs apart, in the
// order of LearnedReport.Weights: cyclic rules of 1, 2 and 3 body atoms,
// acyclic rules with a body constant (AcyclicConst), with a free body
// variable (AcyclicAny), and default rules.
var RuleClasses = [...]string{"cyclic-1", "cyclic-2", "cyclic-3", "acyclic-constant", "acyclic-any", "default"}

// ruleClass is the place of r's class in RuleClasses.
func ruleClass(r *Rule) uint8 {
	switch r.Kind {
	case Cyclic:
		return uint8(min(max(len(r.Body), 1), MaxPath) - 1)
	case AcyclicConst:
		return 3
	case AcyclicAny:
		return 4
	}
	return 5
}

// errNotFitted is Evaluate's error under Learned before FitWeights.
var errNotFitted = errors.New("kgc: learned scoring needs Ranker.FitWeights first")

// LearnedOptions configure Ranker.FitWeights.
type LearnedOptions struct {
	// Seed draws the validation sample.
	Seed uint64
	// MaxValid is the number of validation triples the weights are fitted
	// on, a seeded sample of them when there are more (0: 5,000;
	// negative: all).
	MaxValid int
	// TopK is the length of the NoisyOr lists re-weighed (0: 100), as
	// EvalOptions.TopK: a true answer below it is a miss.
	TopK int
	// L2 pulls the weights towards 1, NoisyOr's ranking: the fit
	// minimises the validation queries' mean cross-entropy plus L2/2 times
	// the squared distance of the weights from 1 (0: 0.001; negative:
	// none).
	L2 float64
	// Threads (0: GOMAXPROCS); results do not depend on it.
	Threads int
}

// ClassWeights are the weights of one class of rules, by place among a
// candidate's most confident rules.
type ClassWeights struct {
	Class   string    `json:"class"`
	Weights []float64 `json:"weights"`
}

// LearnedReport says what Ranker.FitWeights fitted.
type LearnedReport struct {
	// Weights has one entry per class of RuleClasses.
	Weights []ClassWeights `json:"weights"`
	// ValidQueries is the number of validation queries ranked (2 per
	// sampled triple), Fitted those whose NoisyOr list holds the true
	// answer and another candidate, which the weights are fitted on.
	ValidQueries int `json:"valid_queries"`
	Fitted       int `json:"fitted_queries"`
	// ValidMRR is the MRR of the ValidQueries with the weights fitted
	// on them (in-sample), ValidMRRNoisyOr with NoisyOr's ranking.
	ValidMRR        float64 `json:"valid_mrr"`
	ValidMRRNoisyOr float64 `json:"valid_mrr_noisy_or"`
	// Iterations of the quasi-Newton fit (L-BFGS); Converged is false
	// when it stopped before converging (at its iteration limit, or a
	// line search that found no lower point).
	Iterations int  `json:"iterations"`
	Converged  bool `json:"converged"`
}

// Fitted reports whether FitWeights has given the ranker its weights.
func (rk *Ranker) Fitted() bool { return rk.weights != nil }

// Weight is the weight Learned gives rule r at place j (from 0) among a
// candidate's rules, in decreasing confidence: the fitted weight of its
// class and place, 0 from place NoisyOrK on; before FitWeights, NoisyOr's
// 1 (0 from NoisyOrK on).
func (rk *Ranker) Weight(r *Rule, j int) float64 {
	if rk.weights == nil {
		if j < max(rk.NoisyOrK, 1) {
			return 1
		}
		return 0
	}
	w := rk.weights[ruleClass(r)]
	if j >= len(w) {
		return 0
	}
	return w[j]
}

// clampConf keeps -log(1 - c) finite for a confidence of 1 (--pc 0).
const clampConf = 1 - 1e-9

// Evidence is -log(1 - conf), the term of a rule of confidence conf in a
// NoisyOr score (whose sum is -log(1 - noisy-or)) or, weighted, a Learned
// one; a confidence of 1 counts as 1 - 1e-9.
func Evidence(conf float64) float64 { return -math.Log1p(-min(conf, clampConf)) }

// weighed is a candidate's Learned score.
func (rk *Ranker) weighed(cd *Candidate) float64 {
	s := 0.0
	for j, cls := range cd.kinds {
		if w := rk.weights[cls]; j < len(w) {
			s += w[j] * Evidence(cd.confs[j])
		}
	}
	return s
}

// reweigh re-ranks a NoisyOr list rank returned for s == Learned by the
// fitted weights: its first learnedTopK candidates (every one when 0; and
// those tied with the last of them) are re-weighed and ranked above the
// others, which keep their NoisyOr order and scores. It reports whether it
// did: a list of any other scoring, or before FitWeights, is left as it
// is.
func (rk *Ranker) reweigh(s Scoring, list []Candidate) bool {
	if s != Learned || rk.weights == nil {
		return false
	}
	n := len(list)
	if rk.learnedTopK > 0 {
		n = len(cut(NoisyOr, list, rk.learnedTopK))
	}
	for i := range list[:n] {
		list[i].Score, list[i].rescored = rk.weighed(&list[i]), true
	}
	sortBy(Learned, list[:n])
	setTies(Learned, list)
	return true
}

// fitQuery is one validation query's list as the fit sees it: for
// candidate i, the classes and evidences of its rules are
// cls/ev[off[i]:off[i+1]], and lex[i] compares its confidences with the
// true answer's as Learned breaks a tie of scores (negative: above it);
// truth is the true answer's place (-1: not in the list), rr0 its
// reciprocal rank under NoisyOr (0: a miss).
type fitQuery struct {
	off   []int32
	cls   []uint8
	ev    []float64
	lex   []int8
	truth int
	rr0   float64
}

// score is candidate i's score with the weights x (class c, place j at
// x[c*K+j]).
func (q *fitQuery) score(x []float64, K, i int) float64 {
	s := 0.0
	for a := q.off[i]; a < q.off[i+1]; a++ {
		s += x[int(q.cls[a])*K+int(a-q.off[i])] * q.ev[a]
	}
	return s
}

// rr is the reciprocal rank of q's true answer, as Evaluate gives it, when
// the candidates are scored with x (weight of class c and place j at
// x[c*K+j]) and the list cut to topK: 0 when topK candidates rank above it.
func (q *fitQuery) rr(x []float64, K, topK int) float64 {
	if q.truth < 0 {
		return 0
	}
	st := q.score(x, K, q.truth)
	better, tied := 0, 0
	for i := range len(q.off) - 1 {
		if i == q.truth {
			continue
		}
		switch s := q.score(x, K, i); {
		case s > st || (s == st && q.lex[i] < 0):
			better++
		case s == st && q.lex[i] == 0:
			tied++
		}
	}
	if better >= topK {
		return 0
	}
	return 1 / (1 + float64(better) + float64(tied)/2)
}

// FitWeights fits the weights of Learned scoring on the validation triples
// valid (a seeded sample of opt.MaxValid of them), both ways, as Evaluate
// ranks test triples: each query's NoisyOr list of opt.TopK candidates
// (known answers other than its own left out; known should hold the
// training and validation triples) is re-weighed, and the weights minimise
// the mean cross-entropy of the true answer under a softmax of the
// candidates' scores, over the queries whose true answer is in the list,
// plus the pull of opt.L2 towards 1 (NoisyOr). A candidate's score is the
// sum, over its NoisyOrK most confident rules, of -log(1 - conf) times the
// weight of the rule's class and place; the loss is convex in the weights,
// minimised by L-BFGS. The ranker then ranks with them under Learned
// (RankBy drops them). It stops with ctx's error when ctx is done.
func (rk *Ranker) FitWeights(ctx context.Context, valid []Triple, known func(Triple) bool, opt LearnedOptions) (*LearnedReport, error) {
	if opt.MaxValid == 0 {
		opt.MaxValid = 5000
	}
	if opt.TopK <= 0 {
		opt.TopK = 100
	}
	if opt.L2 == 0 {
		opt.L2 = 1e-3
	}
	opt.L2 = max(opt.L2, 0)
	if opt.Threads <= 0 {
		opt.Threads = runtime.GOMAXPROCS(0)
	}
	K := max(rk.NoisyOrK, 1)
	rk.weights, rk.learnedTopK = nil, 0
	vs := validSample(rk.g, valid, opt.MaxValid, rand.New(rand.NewPCG(opt.Seed, 0x1ea2)))
	vs = vs[:firstN(len(vs), opt.MaxValid)]
	n := 2 * len(vs)
	queries, err := rk.fitQueries(ctx, vs, known, opt.TopK, K, opt.Threads)
	if err != nil {
		return nil, err
	}
	var fit []*fitQuery
	for i := range queries {
		if q := &queries[i]; q.truth >= 0 && len(q.off) > 2 {
			fit = append(fit, q)
		}
	}
	nc := len(RuleClasses)
	dim := nc * K
	loss := fitLoss(fit, K, opt.L2)
	x0 := make([]float64, dim)
	for j := range x0 {
		x0[j] = 1
	}
	rep := &LearnedReport{ValidQueries: n, Fitted: len(fit)}
	x := x0
	if len(fit) > 0 {
		problem := optimize.Problem{
			Func: func(x []float64) float64 { return loss(x, nil) },
			Grad: func(g, x []float64) { loss(x, g) },
		}
		settings := &optimize.Settings{MajorIterations: 1000, GradientThreshold: 1e-7,
			Converger: optimctx.Converger{Ctx: ctx, Converger: &optimize.FunctionConverge{Absolute: 1e-10, Iterations: 50}}}
		res, err := optimize.Minimize(problem, x0, settings, &optimize.LBFGS{})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if res != nil {
			x = res.X
			rep.Iterations = res.Stats.MajorIterations
			rep.Converged = err == nil && (res.Status == optimize.GradientThreshold || res.Status == optimize.FunctionConvergence)
		}
	} else {
		rep.Converged = true // nothing to fit: NoisyOr's weights
	}
	w := make([][]float64, nc)
	for c := range w {
		w[c] = append([]float64(nil), x[c*K:(c+1)*K]...)
		rep.Weights = append(rep.Weights, ClassWeights{Class: RuleClasses[c], Weights: w[c]})
	}
	rk.weights, rk.learnedTopK = w, opt.TopK
	var sum, sum0 float64
	for i := range queries {
		sum += queries[i].rr(x, K, opt.TopK)
		sum0 += queries[i].rr0
	}
	if n > 0 {
		rep.ValidMRR, rep.ValidMRRNoisyOr = sum/float64(n), sum0/float64(n)
	}
	return rep, nil
}

// fitQueries ranks the validation triples vs both ways (query 2i asks
// (?, r, t) of vs[i], 2i+1 (h, r, ?)) as Learned does before re-weighing:
// their NoisyOr lists of topK, known answers other than the query's own
// left out, each as the fit sees it (its candidates' K most confident
// rules), not the lists themselves.
func (rk *Ranker) fitQueries(ctx context.Context, vs []Triple, known func(Triple) bool, topK, K, threads int) ([]fitQuery, error) {
	n := 2 * len(vs)
	queries := make([]fitQuery, n)
	rk.forQueries(ctx, n, threads, func(q int, qs *queryScratch) {
		t, tail := vs[q/2], q%2 == 1
		e, truth, skip := askedAs(t, tail, known)
		list, _, err := rk.rank(ctx, Learned, e, t.R, tail, topK, skip, qs)
		if err != nil {
			return // ctx is done: FitWeights returns its error
		}
		list = cut(NoisyOr, list, topK)
		ti := slices.IndexFunc(list, func(c Candidate) bool { return c.Entity == truth })
		if ti < 0 {
			queries[q] = fitQuery{truth: -1} // a miss either way: nothing to keep
			return
		}
		fq := fitQuery{truth: ti, off: make([]int32, 1, len(list)+1), lex: make([]int8, len(list))}
		fq.rr0 = 1 / rankOf(NoisyOr, list, truth, nil)
		for i := range list {
			cd := &list[i]
			for j := range min(len(cd.kinds), K) {
				fq.cls = append(fq.cls, cd.kinds[j])
				fq.ev = append(fq.ev, Evidence(cd.confs[j]))
			}
			fq.off = append(fq.off, int32(len(fq.cls)))
			fq.lex[i] = int8(compareConfs(cd.confs, list[ti].confs)) // as a tie of scores is broken
		}
		queries[q] = fq
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return queries, nil
}

// fitLoss is FitWeights's objective over the queries fit, the weight of
// class c and place j at x[c*K+j]: the mean cross-entropy of the true
// answers under a softmax of the candidates' scores plus l2/2 times the
// squared distance of x from 1. With grad non-nil it also stores the
// gradient there.
func fitLoss(fit []*fitQuery, K int, l2 float64) func(x, grad []float64) float64 {
	return func(x, grad []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		total := 0.0
		var sc []float64
		for _, q := range fit {
			m := len(q.off) - 1
			sc = sc[:0]
			top := math.Inf(-1)
			for i := range m {
				s := q.score(x, K, i)
				sc = append(sc, s)
				top = max(top, s)
			}
			z := 0.0
			for _, s := range sc {
				z += math.Exp(s - top)
			}
			total += top + math.Log(z) - sc[q.truth]
			if grad == nil {
				continue
			}
			for i := range m {
				p := math.Exp(sc[i]-top) / z
				if i == q.truth {
					p--
				}
				for a := q.off[i]; a < q.off[i+1]; a++ {
					grad[int(q.cls[a])*K+int(a-q.off[i])] += p * q.ev[a]
				}
			}
		}
		nf := float64(max(len(fit), 1))
		total /= nf
		for j := range x {
			total += l2 / 2 * (x[j] - 1) * (x[j] - 1)
			if grad != nil {
				grad[j] = grad[j]/nf + l2*(x[j]-1)
			}
		}
		return total
	}
}
