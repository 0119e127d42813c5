package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/par"
	"github.com/hinge-srl/hinge/learn"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// Method is a structure-learning method.
type Method int

const (
	// PPLL learns the weights of all candidates at once under the piecewise
	// pseudo-likelihood and keeps the clauses whose weight is not zero
	// (Embar et al., algorithm 2 and theorem 1).
	PPLL Method = iota
	// GLS is greedy local search (Embar et al., algorithm 1): add, one at a
	// time, the candidate that most improves the pseudo-likelihood after
	// learning the weights.
	GLS
)

// String returns "ppll" or "gls".
func (m Method) String() string {
	switch m {
	case PPLL:
		return "ppll"
	case GLS:
		return "gls"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod reads "ppll" or "gls", case-insensitively.
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ppll", "piecewisepseudolikelihood":
		return PPLL, nil
	case "gls", "greedy":
		return GLS, nil
	}
	return 0, fmt.Errorf("unknown structure-learning method %q (want ppll or gls)", s)
}

// Options configure Learn. Start from DefaultOptions.
type Options struct {
	Method Method
	// Squared makes every generated rule a squared hinge (^2).
	Squared bool
	// L2 is the weight of the regulariser L2/2 * ||w||^2 of every weight
	// learning (see package learn for its scale).
	L2 float64
	// Iterations and Tol bound each weight learning (projected gradient).
	Iterations int
	Tol        float64
	// MaxRounds bounds the rounds of GLS (clauses added).
	MaxRounds int
	// Tolerance stops GLS when the best candidate improves the score (the
	// mean log pseudo-likelihood per target atom) by less.
	Tolerance float64
	// Threads: GLS scores candidates in parallel, PPLL evaluates its
	// conditionals in parallel; grounding uses the same number. 0 means
	// GOMAXPROCS.
	Threads int
	// Seed for the pseudo-likelihood's pairing of large equality
	// constraints (see learn.PLOptions.Seed).
	Seed uint64
	// Progress, if set, is called with a one-line status as work advances.
	Progress func(status string)
	// Joiner, when set, runs the candidates' joins outside hinge (in
	// PostgreSQL: ground.Options.Joiner); the ground problem is the same.
	Joiner ground.Joiner
}

// DefaultOptions returns PPLL with squared hinges, L2 0.01, at most 200
// projected-gradient iterations to tolerance 1e-6, and for GLS at most 10
// rounds with tolerance 1e-4.
func DefaultOptions() Options {
	return Options{Method: PPLL, Squared: true, L2: 0.01, Iterations: 200, Tol: 1e-6, MaxRounds: 10, Tolerance: 1e-4}
}

// Validate reports the first option out of range.
func (o *Options) Validate() error {
	switch {
	case o.Method != PPLL && o.Method != GLS:
		return fmt.Errorf("unknown method %d", o.Method)
	case !(o.L2 >= 0) || math.IsInf(o.L2, 0):
		return fmt.Errorf("L2 %v: must be a finite number >= 0", o.L2)
	case o.Iterations < 1:
		return fmt.Errorf("iterations %d: must be >= 1", o.Iterations)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("tolerance %v: must be a finite number >= 0", o.Tol)
	case o.MaxRounds < 0:
		return fmt.Errorf("max rounds %d: must be >= 0", o.MaxRounds)
	case !(o.Tolerance >= 0) || math.IsInf(o.Tolerance, 0):
		return fmt.Errorf("GLS tolerance %v: must be a finite number >= 0", o.Tolerance)
	case o.Threads < 0:
		return fmt.Errorf("threads %d: must be >= 0", o.Threads)
	}
	return nil
}

// Round is one round of GLS.
type Round struct {
	Round int `json:"round"`
	// Added is the candidate added (index into Result.Candidates), -1 when
	// the round added nothing (no candidate improved the score enough).
	Added int `json:"added"`
	// Score is the best score of the round (the model's score when Added
	// is -1), Improvement its gain over the previous model.
	Score       float64 `json:"score"`
	Improvement float64 `json:"improvement"`
	// Scored is the number of candidates scored.
	Scored  int     `json:"scored"`
	Seconds float64 `json:"seconds"`
}

// Result is the outcome of Learn.
type Result struct {
	Method     Method
	Candidates []Candidate
	// Rules are the candidates' rules, in candidate order, with the learned
	// weights (0 for a clause not selected).
	Rules []*model.Rule
	// Selected tells which candidates are in the learned model.
	Selected []bool
	// Potentials is the number of ground potentials of each candidate.
	Potentials []int
	// Score is the learned model's mean log pseudo-likelihood per target
	// atom (for PPLL the model's own pseudo-likelihood at the PPLL weights,
	// so the two methods compare).
	Score float64
	// Objective is PPLL's objective at the learned weights (PPLL only).
	Objective float64
	// Iterations and Converged describe PPLL's weight learning.
	Iterations int
	Converged  bool
	// Rounds are GLS's rounds.
	Rounds []Round
	// Learnings counts weight learnings (1 for PPLL).
	Learnings int
	// Ground describes the ground problem of all candidates.
	Variables, GroundPotentials int
	Truth                       learn.TruthStats
	GroundSeconds, LearnSeconds float64
	Warnings                    []string
}

// Model returns the selected rules sorted by decreasing weight (ties in
// candidate order), each with a comment giving its support.
func (r *Result) Model() []*model.Rule {
	var out []*model.Rule
	for i, ok := range r.Selected {
		if ok {
			out = append(out, r.Rules[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *model.Rule) int { return cmp.Compare(b.Weight, a.Weight) })
	return out
}

// Learn grounds every candidate once over s (adding their rules to s.Model,
// which must have no rules yet) and selects clauses and weights with the
// chosen method. The targets' truth values come from the store's truth
// atoms; a target atom without one is taken as 0.
func Learn(ctx context.Context, s *store.Store, cands []Candidate, opt Options) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Threads == 0 {
		opt.Threads = runtime.GOMAXPROCS(0)
	}
	m := s.Model
	if len(m.Rules) != 0 {
		return nil, fmt.Errorf("structure: the model already has %d rules; structure learning starts from an empty model", len(m.Rules))
	}
	if len(cands) == 0 {
		return nil, errors.New("structure: no candidate clauses")
	}
	res := &Result{Method: opt.Method, Candidates: cands, Selected: make([]bool, len(cands)), Potentials: make([]int, len(cands))}
	for i := range cands {
		r, err := CandidateRule(&cands[i], opt.Squared)
		if err != nil {
			return nil, err
		}
		if err := m.AddRule(r); err != nil {
			return nil, fmt.Errorf("structure: candidate %q: %w", cands[i].Text(), err)
		}
		res.Rules = append(res.Rules, r)
	}
	start := time.Now()
	progress(opt, "grounding %d candidate clauses", len(cands))
	gopt := ground.Options{Threads: opt.Threads, Joiner: opt.Joiner, Context: ctx}
	if opt.Progress != nil {
		gopt.Progress = func(rule, done, total int) {
			if done == total {
				rule++
			}
			progress(opt, "grounding candidate clauses: %d/%d done", rule, len(cands))
		}
	}
	g, err := ground.Ground(m, s, gopt)
	if err != nil {
		return nil, err
	}
	res.GroundSeconds = time.Since(start).Seconds()
	p := g.Problem
	res.Variables, res.GroundPotentials = p.NumVars, p.NumPotentials()
	for _, grp := range p.Group {
		res.Potentials[grp]++
	}
	truth, ts, err := learn.Truth(g, s)
	if err != nil {
		return nil, err
	}
	res.Truth = ts
	start = time.Now()
	switch opt.Method {
	case PPLL:
		// learn.Learn's warnings, which ppll keeps, already say so.
		err = res.ppll(ctx, g, s, truth, opt)
	case GLS:
		if ts.Missing > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d target atoms have no truth value and are taken as 0", ts.Missing, ts.Targets))
		}
		err = res.gls(ctx, p, truth, opt)
	}
	res.LearnSeconds = time.Since(start).Seconds()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// CandidateRule is the candidate as a weighted rule of weight 1, with a
// comment giving its support (and its 95% interval when it is an
// estimate).
func CandidateRule(c *Candidate, squared bool) (*model.Rule, error) {
	text := "1: " + c.Text()
	if squared {
		text += " ^2"
	}
	r, err := syntax.ParseRule(text, srcpos.Position{})
	if err != nil {
		return nil, fmt.Errorf("structure: candidate %q does not parse: %w", text, err)
	}
	// Messages (a grounding refused for memory, say) name the clause, not
	// a position in a file that does not exist.
	r.Text, r.Pos = c.Text(), srcpos.Position{}
	switch {
	case c.IsPrior():
		r.Comment = "# negative prior"
	case c.SupportErr > 0:
		r.Comment = fmt.Sprintf("# support about %d (95%% interval +-%.0f)", c.Support, c.SupportErr)
	default:
		r.Comment = fmt.Sprintf("# support %d", c.Support)
	}
	return r, nil
}

func progress(opt Options, format string, args ...any) {
	if opt.Progress != nil {
		opt.Progress(fmt.Sprintf(format, args...))
	}
}

// ppll learns all weights at once with the piecewise pseudo-likelihood.
func (res *Result) ppll(ctx context.Context, g *ground.Result, s *store.Store, truth []float64, opt Options) error {
	lo := learn.DefaultOptions()
	lo.Method, lo.Iterations, lo.Tol, lo.L2, lo.Threads, lo.Seed = learn.PPLL, opt.Iterations, opt.Tol, opt.L2, opt.Threads, opt.Seed
	lo.Progress = func(st learn.Step) {
		progress(opt, "ppll iteration %d: objective %.8g, projected gradient %.3g", st.Iteration, st.Objective, st.GradNorm)
	}
	lr, err := learn.Learn(ctx, g, s, s.Model, lo)
	if err != nil {
		return err
	}
	res.Learnings = 1
	res.Objective, res.Iterations, res.Converged = lr.Objective, lr.Iterations, lr.Converged
	res.Warnings = append(res.Warnings, lr.Warnings...)
	for i, r := range res.Rules {
		w := 0.0
		if lr.Learned[i] {
			w = lr.Weights[i]
		}
		r.Weight = w
		res.Selected[i] = w > 0
	}
	// The learned model's own (coupled) pseudo-likelihood, to compare with
	// GLS's score.
	sc := newScorer(g.Problem, truth, opt)
	w := make([]float64, len(res.Rules))
	for i, r := range res.Rules {
		w[i] = r.Weight
	}
	res.Score, err = sc.score(res.Selected, w)
	return err
}

// scorer evaluates the pseudo-likelihood of subsets of the candidates.
type scorer struct {
	p     *hlmrf.Problem
	truth []float64
	pots  [][]int32 // potentials of each group
	opt   Options
}

func newScorer(p *hlmrf.Problem, truth []float64, opt Options) *scorer {
	sc := &scorer{p: p, truth: truth, opt: opt}
	groups := 0
	for _, grp := range p.Group {
		groups = max(groups, int(grp)+1)
	}
	sc.pots = make([][]int32, groups)
	for i, grp := range p.Group {
		sc.pots[grp] = append(sc.pots[grp], int32(i))
	}
	return sc
}

// sub is the ground problem restricted to the potentials of the groups in
// set (constraints all kept).
func (sc *scorer) sub(set []bool) *hlmrf.Problem {
	p := sc.p
	q := &hlmrf.Problem{NumVars: p.NumVars, Start: []int32{0},
		CKind: p.CKind, CConst: p.CConst, CGroup: p.CGroup, CStart: p.CStart, CVar: p.CVar, CCoef: p.CCoef}
	for grp, in := range set {
		if !in || grp >= len(sc.pots) {
			continue
		}
		for _, i := range sc.pots[grp] {
			vars, coefs := p.Terms(int(i))
			q.Weight = append(q.Weight, p.Weight[i])
			q.Const = append(q.Const, p.Const[i])
			q.Power = append(q.Power, p.Power[i])
			q.Group = append(q.Group, p.Group[i])
			q.Var = append(q.Var, vars...)
			q.Coef = append(q.Coef, coefs...)
			q.Start = append(q.Start, int32(len(q.Var)))
		}
	}
	if q.CStart == nil {
		q.CStart = []int32{0}
	}
	return q
}

// fit learns the weights of the groups in set by MPLE from w0 (threads
// workers) and returns the score and the weights.
func (sc *scorer) fit(ctx context.Context, set []bool, w0 []float64, threads int) (float64, []float64, error) {
	learnable := sc.learnable(set)
	pl, err := learn.NewPseudoLikelihood(sc.sub(set), sc.truth, learnable,
		learn.PLOptions{L2: sc.opt.L2, Threads: threads, Seed: sc.opt.Seed})
	if err != nil {
		return 0, nil, err
	}
	min, err := pl.Minimize(ctx, w0, sc.opt.Iterations, sc.opt.Tol)
	if err != nil {
		return 0, nil, err
	}
	return pl.LogLikelihood(min.Weights) / float64(max(1, sc.p.NumVars)), min.Weights, nil
}

// score is the mean log pseudo-likelihood per target atom of the groups in
// set at weights w.
func (sc *scorer) score(set []bool, w []float64) (float64, error) {
	pl, err := learn.NewPseudoLikelihood(sc.sub(set), sc.truth, sc.learnable(set),
		learn.PLOptions{L2: sc.opt.L2, Threads: sc.opt.Threads, Seed: sc.opt.Seed})
	if err != nil {
		return 0, err
	}
	return pl.LogLikelihood(w) / float64(max(1, sc.p.NumVars)), nil
}

func (sc *scorer) learnable(set []bool) []bool {
	l := make([]bool, len(set))
	for g, in := range set {
		l[g] = in && g < len(sc.pots) && len(sc.pots[g]) > 0
	}
	return l
}

// gls is greedy local search: start from the priors, add the best candidate
// while it improves the score by at least Tolerance.
func (res *Result) gls(ctx context.Context, p *hlmrf.Problem, truth []float64, opt Options) error {
	sc := newScorer(p, truth, opt)
	n := len(res.Candidates)
	set := make([]bool, n)
	w := make([]float64, n)
	for i, c := range res.Candidates {
		if c.IsPrior() && res.Potentials[i] > 0 {
			set[i], w[i] = true, 1
		}
	}
	cur, w, err := sc.fit(ctx, set, w, opt.Threads)
	if err != nil {
		return err
	}
	res.Learnings++
	start := time.Now()
	for round := 1; round <= opt.MaxRounds; round++ {
		var cand []int
		for i := range n {
			if !set[i] && res.Potentials[i] > 0 {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			break
		}
		scores := make([]float64, len(cand))
		weights := make([][]float64, len(cand))
		errs := make([]error, len(cand))
		inner := max(1, opt.Threads/par.Workers(len(cand), opt.Threads))
		var (
			done int
			mu   sync.Mutex
		)
		par.For(len(cand), opt.Threads, func(_, k int) {
			if ctx.Err() != nil {
				return
			}
			s := slices.Clone(set)
			s[cand[k]] = true
			w0 := slices.Clone(w)
			w0[cand[k]] = 1
			scores[k], weights[k], errs[k] = sc.fit(ctx, s, w0, inner)
			mu.Lock()
			done++
			progress(opt, "gls round %d: scored %d/%d candidates", round, done, len(cand))
			mu.Unlock()
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		best := -1
		for k := range cand {
			if errs[k] != nil {
				return errs[k]
			}
			if best < 0 || scores[k] > scores[best] {
				best = k
			}
		}
		res.Learnings += len(cand)
		rd := Round{Round: round, Added: -1, Score: cur, Improvement: scores[best] - cur, Scored: len(cand), Seconds: time.Since(start).Seconds()}
		if scores[best]-cur < opt.Tolerance {
			res.Rounds = append(res.Rounds, rd)
			break
		}
		rd.Added, rd.Score = cand[best], scores[best]
		res.Rounds = append(res.Rounds, rd)
		set[cand[best]] = true
		cur, w = scores[best], weights[best]
	}
	res.Score = cur
	for i, r := range res.Rules {
		r.Weight = 0
		if set[i] {
			r.Weight = w[i]
		}
		res.Selected[i] = set[i] && w[i] > 0
	}
	return nil
}
