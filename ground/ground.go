// Package ground turns a model's rules and a store's atoms into a ground
// hinge-loss Markov random field (an hlmrf.Problem), as PSL grounds.
//
// # Variables
//
// Every target atom of the store is a variable of the ground problem,
// numbered deterministically: predicates in model order, then the rows of
// each predicate's table in order. Observed atoms are constants folded into a
// potential's constant. An atom that is neither observed nor a target has the
// value 0, for closed and open predicates alike (an open predicate's missing
// atom is not a variable: it was not asked for).
//
// # Logical rules
//
// Each CNF clause of a logical rule (model.Clauses) is grounded by
// enumerating the substitutions of its bound variables (model.Clause.Bound):
// a join over the atoms present in the store for the clause's binding
// literals (the atoms it negates, or the single atom of a positive prior).
// An absent or observed-0 atom in a negated literal, a positive literal
// observed at 1, or a comparison literal that holds make the ground clause
// satisfied, so it is skipped. The ground potential of a clause is
//
//	w * max(0, 1 - sum of literal truth values)^p
//
// with a positive literal worth y and a negated literal 1-y: in hlmrf form
// coefficient +1 for a negated target, -1 for a positive target, observed
// values folded into the constant, repeated atoms merged. A hard rule gives
// the constraint sum coef*y <= c instead.
//
// # Arithmetic rules
//
// An arithmetic rule is brought to one side, lhs - rhs (rel) 0. Its plain
// (non-summation) variables are bound by joining all of its atoms as present
// in the store (any kind, any value); a summation atom takes part in the join
// through the distinct projections of its present rows onto its other
// positions. For each substitution, every summation atom expands over its
// present rows that match the bound arguments and pass the filters. A filter
// {X: expr} keeps a value of X when the Lukasiewicz value of expr (atoms of
// closed predicates, missing atoms 0; comparisons 0 or 1; ~a = 1-a;
// a & b = max(0, a+b-1); a | b = min(1, a+b); a -> b = min(1, 1-a+b)) is
// greater than 0 (beyond a rounding tolerance of 1e-9). |X| is the number of
// distinct values of X among the expanded rows of the grounding, after
// filters; coefficients are evaluated with model.EvalCoef. A coefficient that
// is not finite (for example 1/|X| with |X| = 0) is an error when it
// multiplies a constant, a plain atom or at least one expanded row, and is
// ignored when it multiplies an empty sum.
//
// A weighted rule gives w*max(lhs-rhs, 0)^p for <=, w*max(rhs-lhs, 0)^p for
// >=, and both (in that order) for =. A hard rule gives a LessEq constraint
// for <= and >= and an Equal constraint for =.
//
// # What is dropped, what is kept
//
// A potential is dropped when, after merging repeated variables, it has no
// target variable or it is satisfied whatever the targets are (the largest
// value of sum coef*y - c over y in [0,1]^n is at most 1e-9). A LessEq
// constraint is dropped when it holds whatever the targets are; an Equal
// constraint only when it has no variable terms and holds. A hard constraint
// violated by constants alone is kept as a constraint with no terms, so that
// a solver reports the violation, and counted in RuleStats.ConstantViolated.
// Constants within 1e-12 of 0 (rounding noise such as 1 - 0.3 - 0.7) are
// stored as 0.
//
// Every potential's Group, and every constraint's CGroup, is the rule's index
// (model.Rule.Index); every potential's weight is the rule's weight.
//
// # Joins and parallelism
//
// Binding atoms are ordered greedily by selectivity: first the smallest
// relation after constant arguments, then repeatedly the atom with all its
// positions bound, else the most bound positions and the smallest expected
// fan-out (store.SubIndex.MeanGroup). Bound positions are looked up through
// store.Table.Index; comparisons and constant-valued literals are checked as
// soon as their variables are bound. All indexes are built before workers
// start. The candidate rows of the first atom are split into chunks; workers
// ground chunks into their own fragments, which are concatenated in chunk
// order, so the result does not depend on the number of threads.
//
// # Joins elsewhere
//
// With Options.Joiner the joins run outside hinge (in PostgreSQL: package
// store/pgstore): a logical clause's substitutions come back as rows of its
// atoms, which pass the same skip rules and the same emitter as the
// in-memory join's; an arithmetic rule's binding join comes back as its
// substitutions, expanded as above. The problem is the same up to the order
// of its potentials and constraints.
package ground

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// eps is the rounding tolerance of the dropping rules and of filters.
const eps = 1e-9

// Options control grounding.
type Options struct {
	// Threads is the number of workers; 0 or less means runtime.GOMAXPROCS(0).
	Threads int
	// Progress, when set, is called as work completes: rule is the rule's
	// index, done of total chunks of that rule are finished (a rule with
	// nothing to ground reports done = total = 0 once). Calls are
	// serialised (never concurrent).
	Progress func(rule, done, total int)
	// MemoryLimit, when positive, is the memory in bytes the process may
	// use. Before grounding a rule its groundings are estimated from the
	// join plan, and while grounding they are counted; when either would
	// take the memory left under the limit (with a conservative cost per
	// grounding that covers solving it too), grounding stops with a
	// *MemoryError naming the rule, instead of the process running out of
	// memory. 0 means Go's soft memory limit (debug.SetMemoryLimit) when one
	// is set, else none; negative means none.
	MemoryLimit int64
	// Estimate, when set, is called with each rule's estimated groundings
	// after its join is planned and before it is grounded (also for a rule
	// the limit then refuses). Calls are serialised.
	Estimate func(r *model.Rule, e Estimate)
	// Joiner, when set, enumerates the substitutions of logical rules, and
	// the substitutions of the plain variables of arithmetic rules,
	// instead of the in-memory joins (for example in PostgreSQL, package
	// store/pgstore); the ground problem is the same. An arithmetic rule's
	// summations are still expanded over the in-memory store's atoms.
	// MemoryLimit is not checked for the joins a Joiner runs. An error of
	// the Joiner is returned as a *JoinError.
	Joiner Joiner
	// Context, when set, cancels grounding: once it is done, Ground and
	// GroundRule stop within a few thousand join steps (between chunks,
	// and inside a chunk's join) and return its error (context.Canceled),
	// wrapped with the rule. A Joiner's rows are checked as they come.
	Context context.Context
	// Sink, when set, receives the ground potentials and constraints as
	// they are grounded, in the order the Result's Problem would hold them
	// (for example a cache.Writer writing them to disk), and the Result's
	// Problem stays empty; the problem never has to be in memory whole.
	// MemoryLimit then refuses no rule by its estimate, and bounds only the
	// groundings held before they pass to the Sink (the pieces of a rule
	// are handed over in order, so a piece finished early waits for the
	// ones before it).
	Sink Sink
}

// Sink takes a ground problem in pieces: each Add appends the piece's
// potentials and then its constraints (variables are the grounder's
// columns). The piece is reused after Add returns.
type Sink interface {
	Add(piece *hlmrf.Problem) error
}

// sinkFlush is the size (potentials plus constraints) at which grounding
// into a Sink hands a piece over.
const sinkFlush = 1 << 16

// countingSink counts what passes into a Sink.
type countingSink struct {
	Sink
	pots, cons int
}

// Add passes a non-empty piece on, counting it; the sink's error comes back
// as a *SinkError.
func (c *countingSink) Add(p *hlmrf.Problem) error {
	if p.NumPotentials() == 0 && p.NumConstraints() == 0 {
		return nil
	}
	if err := c.Sink.Add(p); err != nil {
		return &SinkError{Err: err}
	}
	c.pots += p.NumPotentials()
	c.cons += p.NumConstraints()
	return nil
}

// SinkError is an error of Options.Sink (writing a cache file, say).
type SinkError struct{ Err error }

// Error is the sink's message.
func (e *SinkError) Error() string { return e.Err.Error() }

// Unwrap returns the sink's error.
func (e *SinkError) Unwrap() error { return e.Err }

// AtomRef names an atom of the store: a row of a predicate's table.
type AtomRef struct {
	Pred *model.Predicate
	Row  int
}

// RuleStats reports what one rule grounded to.
type RuleStats struct {
	Rule             *model.Rule
	Potentials       int     // potentials added
	Constraints      int     // hard constraints added, including ConstantViolated
	ConstantViolated int     // hard constraints with no terms violated by constants alone
	Seconds          float64 // wall-clock time spent grounding the rule
}

// Result is a ground model.
type Result struct {
	// Problem is the ground HL-MRF; its variables are the store's targets.
	Problem *hlmrf.Problem
	// Vars maps a variable column to its atom.
	Vars []AtomRef
	// Rules has one entry per model rule, in order.
	Rules []RuleStats
	// Grounder grounds further rules against the same store and variable
	// numbering, and maps variables back to atoms.
	Grounder *Grounder
}

// VarOf returns the variable column of the atom in row of p's table, or -1
// when the atom is observed.
func (r *Result) VarOf(p *model.Predicate, row int) int32 { return r.Grounder.VarOf(p, row) }

// Ground grounds every rule of m over s. The store must not change while
// grounding or while the result's Grounder is used.
func Ground(m *model.Model, s *store.Store, opt Options) (*Result, error) {
	g, err := NewGrounder(m, s, opt)
	if err != nil {
		return nil, err
	}
	res := &Result{Problem: g.newProblem(), Vars: g.vars, Grounder: g}
	for _, r := range m.Rules {
		if err := g.cancelled(); err != nil {
			return nil, ruleError(r, err)
		}
		st, err := g.groundInto(r, res.Problem)
		if err != nil {
			return nil, err
		}
		res.Rules = append(res.Rules, st)
	}
	return res, nil
}

// Grounder grounds rules over a fixed store with a fixed variable numbering.
// It is safe for concurrent use; the store must not change while it is used.
type Grounder struct {
	m       *model.Model
	s       *store.Store
	threads int
	prog    func(rule, done, total int)
	limit   int64
	onEst   func(*model.Rule, Estimate)
	joiner  Joiner
	sink    *countingSink   // Options.Sink, or nil
	ctx     context.Context // Options.Context, or nil

	tables  []*store.Table // by predicate index
	varOf   [][]int32      // by predicate index: row -> variable column or -1
	unknown []int          // by predicate index: its target atoms
	vars    []AtomRef
}

// NewGrounder numbers the store's target atoms and prepares to ground rules
// of m over s.
func NewGrounder(m *model.Model, s *store.Store, opt Options) (*Grounder, error) {
	if m == nil || s == nil {
		return nil, errors.New("ground: nil model or store")
	}
	if s.Model != m {
		return nil, errors.New("ground: the store was built for a different model")
	}
	g := &Grounder{m: m, s: s, threads: opt.Threads, prog: opt.Progress, limit: opt.MemoryLimit, onEst: opt.Estimate, joiner: opt.Joiner, ctx: opt.Context}
	if opt.Sink != nil {
		g.sink = &countingSink{Sink: opt.Sink}
	}
	if g.limit == 0 {
		// Callers that do not pass a limit (structure learning, Markov logic
		// learning, library users) get the process's: the hinge command sets
		// Go's soft limit from --memory-limit.
		g.limit = memlimit.Current()
	}
	if g.threads <= 0 {
		g.threads = runtime.GOMAXPROCS(0)
	}
	g.tables = make([]*store.Table, len(m.Predicates))
	g.varOf = make([][]int32, len(m.Predicates))
	g.unknown = make([]int, len(m.Predicates))
	n := 0
	for i, p := range m.Predicates {
		if p.Index != i {
			return nil, fmt.Errorf("ground: predicate %s has index %d, want %d", p.Name, p.Index, i)
		}
		t := s.Table(p) // creates empty tables now, never concurrently later
		g.tables[i] = t
		vo := make([]int32, t.Len())
		n0 := n
		for row := range vo {
			if t.Kind(row) == store.Target {
				vo[row] = int32(n)
				n++
			} else {
				vo[row] = -1
			}
		}
		g.varOf[i] = vo
		g.unknown[i] = n - n0
	}
	if int64(n) > 1<<31-1 {
		return nil, fmt.Errorf("ground: %d target atoms do not fit int32 variable columns", n)
	}
	g.vars = make([]AtomRef, 0, n)
	for i, p := range m.Predicates {
		for row, v := range g.varOf[i] {
			if v >= 0 {
				g.vars = append(g.vars, AtomRef{Pred: p, Row: row})
			}
		}
	}
	return g, nil
}

// cancelled is the error of Options.Context once it is done, else nil.
func (g *Grounder) cancelled() error {
	if g.ctx == nil {
		return nil
	}
	return g.ctx.Err()
}

// cancelEvery is how many join steps (or a Joiner's rows) pass between two
// looks at Options.Context; arithCancelEvery how many substitutions of an
// arithmetic rule, each of which may expand many rows.
const (
	cancelEvery      = 1 << 10
	arithCancelEvery = 1 << 8
)

// NumVars is the number of variables (target atoms).
func (g *Grounder) NumVars() int { return len(g.vars) }

// Vars maps variable columns to atoms (shared: do not modify).
func (g *Grounder) Vars() []AtomRef { return g.vars }

// VarOf returns the variable column of the atom in row of p's table, or -1
// when the atom is observed or the row does not exist.
func (g *Grounder) VarOf(p *model.Predicate, row int) int32 {
	if p == nil || p.Index < 0 || p.Index >= len(g.varOf) || row < 0 || row >= len(g.varOf[p.Index]) {
		return -1
	}
	return g.varOf[p.Index][row]
}

// Args returns the arguments (constants) of variable v's atom; v must be a
// column in [0, NumVars).
func (g *Grounder) Args(v int) []string {
	a := g.vars[v]
	return g.s.Names(g.tables[a.Pred.Index].Args(a.Row))
}

// AtomNames lists every variable's atom as PRED, arg1, ... (the rows of a
// .atoms listing, for hlmrf.WriteAtoms).
func (g *Grounder) AtomNames() [][]string {
	out := make([][]string, len(g.vars))
	for v, a := range g.vars {
		args := g.tables[a.Pred.Index].Args(a.Row)
		row := make([]string, 1+len(args))
		row[0] = a.Pred.Name
		for i, id := range args {
			row[1+i] = g.s.Dict.Name(id)
		}
		out[v] = row
	}
	return out
}

// Args returns the arguments (constants) of variable v's atom.
func (r *Result) Args(v int) []string { return r.Grounder.Args(v) }

// AtomNames lists every variable's atom as PRED, arg1, ... (see
// Grounder.AtomNames).
func (r *Result) AtomNames() [][]string { return r.Grounder.AtomNames() }

func (g *Grounder) newProblem() *hlmrf.Problem {
	return &hlmrf.Problem{NumVars: len(g.vars), Start: []int32{0}, CStart: []int32{0}}
}

// GroundRule grounds one rule (resolved against the grounder's model, for
// example a candidate rule in structure learning) against the same store and
// variable numbering. The problem has NumVars variables; its potentials'
// Group is r.Index.
//
// A Grounder made with Options.Sink grounds through Ground only (its pieces
// go to the sink, in order): GroundRule refuses.
func (g *Grounder) GroundRule(r *model.Rule) (*hlmrf.Problem, RuleStats, error) {
	if g.sink != nil {
		return nil, RuleStats{Rule: r}, errors.New("ground: GroundRule on a grounder with a Sink (use Ground)")
	}
	p := g.newProblem()
	st, err := g.groundInto(r, p)
	if err != nil {
		return nil, RuleStats{Rule: r}, err
	}
	return p, st, nil
}

// checkEstimate reports a rule's estimate to Options.Estimate and refuses
// the rule when the estimated bytes exceed its budget.
func (g *Grounder) checkEstimate(r *model.Rule, est Estimate, bytes float64, bud *budget) error {
	if g.onEst != nil {
		g.onEst(r, est)
	}
	if bud != nil && bytes > float64(bud.max) && g.sink == nil {
		return &MemoryError{Rule: r, Groundings: est.Emitted, Cause: est.Cause, CrossProduct: est.CrossProduct, Limit: g.limit}
	}
	return nil
}

// spent turns a worker's errOverBudget into the rule's *MemoryError with
// the count reached.
func (g *Grounder) spent(r *model.Rule, bud *budget, err error) error {
	if err == errOverBudget {
		return &MemoryError{Rule: r, Groundings: float64(bud.count.Load()), Counted: true, Limit: g.limit}
	}
	return err
}

// ruleError wraps err with the rule's position and text.
func ruleError(r *model.Rule, err error) error {
	where := r.Pos.String()
	what := fmt.Sprintf("rule %d", r.Index)
	if r.Text != "" {
		what = fmt.Sprintf("rule %q", textfile.Clip(r.Text))
	}
	if where != "" {
		return fmt.Errorf("%s: %s: %w", where, what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkRule verifies that r is a valid rule over the grounder's model and
// that the store has not grown since the grounder was made.
func (g *Grounder) checkRule(r *model.Rule) error {
	if r == nil {
		return errors.New("ground: nil rule")
	}
	var err error
	for _, a := range r.Atoms() {
		p := a.Pred
		switch {
		case p == nil:
			err = fmt.Errorf("atom %s is not resolved to a predicate", a.PredName)
		case p.Index < 0 || p.Index >= len(g.tables) || g.m.Predicates[p.Index] != p:
			err = fmt.Errorf("predicate %s is not one the grounder was made for (added to the model later?)", p.Name)
		case p.Arity > 32:
			err = fmt.Errorf("predicate %s has arity %d; grounding supports at most 32 arguments", p.Name, p.Arity)
		case g.tables[p.Index].Len() != len(g.varOf[p.Index]):
			err = fmt.Errorf("the atoms of %s changed after the grounder was made", p.Name)
		}
		if err != nil {
			return ruleError(r, err)
		}
	}
	return r.Validate()
}

// groundInto appends r's ground potentials and constraints to dst.
func (g *Grounder) groundInto(r *model.Rule, dst *hlmrf.Problem) (RuleStats, error) {
	st := RuleStats{Rule: r}
	if err := g.checkRule(r); err != nil {
		return st, err
	}
	start := time.Now()
	if g.sink != nil {
		// dst only passes pieces on: every rule starts from an empty one.
		dst = g.newProblem()
	}
	p0, c0 := g.counts(dst)
	var viol int
	var err error
	if g.joiner != nil && r.Logical != nil {
		viol, err = g.groundJoined(r, dst)
	} else {
		viol, err = g.groundJobs(r, dst)
	}
	if err == nil && g.sink != nil {
		err = g.sink.Add(dst)
	}
	if err != nil {
		return st, err
	}
	p1, c1 := g.counts(dst)
	st.Potentials, st.Constraints = p1-p0, c1-c0
	st.ConstantViolated = viol
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// counts is the number of potentials and constraints grounded so far into
// dst, or into the sink.
func (g *Grounder) counts(dst *hlmrf.Problem) (int, int) {
	if g.sink != nil {
		return g.sink.pots, g.sink.cons
	}
	return dst.NumPotentials(), dst.NumConstraints()
}

// groundJobs grounds r into dst by planned jobs (the in-memory joins; an
// arithmetic rule's binding join goes to the Joiner when there is one) and
// returns the number of constant-violated constraints.
func (g *Grounder) groundJobs(r *model.Rule, dst *hlmrf.Problem) (int, error) {
	bud := newBudget(g.limit)
	var jobs []job
	if r.Logical != nil {
		clauses, err := model.Clauses(r.Logical)
		if err != nil {
			return 0, ruleError(r, err)
		}
		var est Estimate
		var bytes, biggest float64
		for _, c := range clauses {
			cp := g.planClause(r, c)
			if cp.never {
				continue
			}
			cp.bud = bud
			jobs = append(jobs, cp)
			e := cp.estimate()
			if bud != nil && e.Groundings*float64(groundCost(len(cp.atoms))) > float64(bud.max) {
				if kept, cause, cross := cp.emitted(e.Groundings); cause != "" {
					e.Emitted, e.Cause, e.CrossProduct = kept, cause, cross
				}
			}
			est.Groundings += e.Groundings
			est.Emitted += e.Emitted
			bytes += e.Emitted * float64(groundCost(len(cp.atoms)))
			if e.Emitted > biggest || est.Cause == "" {
				biggest, est.Cause, est.CrossProduct = e.Emitted, e.Cause, e.CrossProduct
			}
		}
		if err := g.checkEstimate(r, est, bytes, bud); err != nil {
			return 0, ruleError(r, err)
		}
	} else {
		ap, err := g.planArith(r, bud)
		if err != nil {
			return 0, ruleError(r, g.spent(r, bud, err))
		}
		if ap != nil {
			jobs = append(jobs, ap)
		}
	}
	viol, err := g.run(r.Index, jobs, dst, bud)
	if err != nil {
		return 0, ruleError(r, g.spent(r, bud, err))
	}
	return viol, nil
}
