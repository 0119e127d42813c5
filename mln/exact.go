package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// ExactOptions bound exact marginal inference (see ExactMarginals); the
// zero value takes the defaults.
type ExactOptions struct {
	// MaxClique is the largest clique, in atoms, of a junction tree
	// (0: 20, tables of a million entries).
	MaxClique int
	// MaxEntries bounds one component's junction tree: its table entries
	// summed over its cliques (0: 2^23, 64 MB of float64).
	MaxEntries float64
	// MaxConfigs bounds lifted counting: the number of count vectors (one
	// count per exchangeable class, one bit per other atom) summed over
	// (0: 2^20).
	MaxConfigs float64
	// MaxEnumeration bounds enumeration of a component's worlds (what is
	// tried when no junction tree fits): 2^atoms worlds plus the clause
	// occurrences updated as the atoms flip, in Gray-code order (0: 2^26,
	// at most about 0.75 s at the 11 ns per unit measured by
	// BenchmarkEnumerate22: a needle of 22 atoms in two clauses each is
	// 1.3*10^7 units, 0.14 s; of 24 atoms, 5*10^7; 26 atoms never fit).
	MaxEnumeration float64
	// MaxModelCount bounds weighted model counting (tried last): the
	// literals its search looks at plus the bytes of its cache keys (0:
	// 2^23, about 0.4-0.7 s at the 45-80 ns per unit measured on random
	// hard networks of 40 and 50 atoms). Every component gets 1/128 of it
	// first, then those that ran past that get doubling budgets up to it,
	// smallest first, while the failed attempts have spent less than it
	// in all (countComponents).
	MaxModelCount float64
}

func (o ExactOptions) withDefaults() ExactOptions {
	if o.MaxClique <= 0 {
		o.MaxClique = 20
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 1 << 23
	}
	if o.MaxConfigs <= 0 {
		o.MaxConfigs = 1 << 20
	}
	if o.MaxEnumeration <= 0 {
		o.MaxEnumeration = 1 << 26
	}
	if o.MaxModelCount <= 0 {
		o.MaxModelCount = 1 << 23
	}
	return o
}

// How the marginals of a component were found (Component.Method).
const (
	// ExactPropagated: the atoms are fixed by unit propagation over the
	// hard clauses (marginals 0 and 1).
	ExactPropagated = "propagated"
	// ExactFree: the atom is in no clause once the fixed atoms are
	// removed (marginal 1/2).
	ExactFree = "free"
	// ExactJunctionTree: a junction tree on a min-fill elimination order.
	ExactJunctionTree = "junction-tree"
	// ExactCounting: lifted counting over classes of exchangeable atoms.
	ExactCounting = "counting"
	// ExactEnumeration: every world enumerated, in Gray-code order.
	ExactEnumeration = "enumeration"
	// ExactModelCounting: weighted model counting by DPLL with component
	// caching (modelCount).
	ExactModelCounting = "model-counting"
	// Sampled: too costly for either; its marginals are sampled.
	Sampled = "sampled"
)

// Component describes one part of a ground network as exact inference
// split it: its atoms and clauses, how its marginals were found, and what
// that cost or would have cost.
type Component struct {
	Method  string `json:"method"`
	Atoms   int    `json:"atoms"`
	Clauses int    `json:"clauses"`
	// Width is the largest clique of its junction tree, in atoms; for a
	// component too large, a lower bound (the graph's degeneracy + 1, or
	// the clique at which the min-fill order stopped, whichever is
	// larger).
	Width int `json:"width,omitempty"`
	// Entries is the table entries of its junction tree, summed over the
	// cliques; for a component too large, at least 2^Width.
	Entries float64 `json:"entries,omitempty"`
	// Classes and Configs describe lifted counting: the exchangeable
	// classes of two or more atoms found (and verified), and the count
	// vectors summed over (one count per class, one bit per other atom).
	Classes int     `json:"classes,omitempty"`
	Configs float64 `json:"configs,omitempty"`
	// Nodes is the decision nodes of weighted model counting's circuit.
	Nodes int `json:"nodes,omitempty"`
	// CountWork is the budget, in work units, that weighted model
	// counting ran past on a sampled component (0: not tried).
	CountWork float64 `json:"count_work,omitempty"`
	// Vars are the component's atoms (variables of the instance given to
	// ExactMarginals); not in JSON.
	Vars []int32 `json:"-"`
}

// ExactResult is what exact inference found: the marginals of the atoms
// it could afford, and the rest of the network, to be sampled.
type ExactResult struct {
	// Probs holds every variable's marginal; valid where Exact is true.
	Probs []float64
	Exact []bool
	// Components lists the connected components of the network that
	// unit propagation over the hard clauses leaves (and one entry each
	// for the propagated and the free atoms, when there are any), largest
	// first.
	Components []Component
	// Rest is the network of the components to sample (clauses merged and
	// simplified by the fixed atoms), over RestVars: its variable i is
	// variable RestVars[i] of the instance. Nil when everything is exact.
	Rest     *maxsat.Instance
	RestVars []int32
	// Merged is the number of clauses of in once identical ones are
	// merged (as the samplers see it).
	Merged int
}

// ExactAtoms counts the variables whose marginals are exact.
func (r *ExactResult) ExactAtoms() int { return countTrue(r.Exact) }

// countTrue counts the true entries of b.
func countTrue(b []bool) int {
	n := 0
	for _, e := range b {
		if e {
			n++
		}
	}
	return n
}

// TooLargeError says that exact inference cannot afford a component, and
// what it would cost.
type TooLargeError struct {
	Component Component
	Options   ExactOptions
}

// Error gives the component's size and the estimated cost against the
// limits.
func (e *TooLargeError) Error() string {
	c, o := e.Component, e.Options.withDefaults()
	return fmt.Sprintf("exact marginals: a component of %d atoms and %d clauses is too large: its junction tree needs a clique of at least %d atoms (at least %.3g table entries; the limits are %d atoms and %.3g entries), its 2^%d worlds are too many to enumerate, no exchangeable classes make it countable in %.3g configurations, and weighted model counting ran past %.3g units of work; sample it (--method mcsat, or the default, which samples only such components)",
		c.Atoms, c.Clauses, c.Width, c.Entries, o.MaxClique, o.MaxEntries, c.Atoms, o.MaxConfigs, c.CountWork)
}

// ExactMarginals computes marginals exactly wherever that is affordable,
// and returns the rest of the network to be sampled. The clauses of in
// (signed weights, as MCSAT takes them) are merged as the samplers merge
// them (mergeClauses), unit propagation over the hard clauses fixes the
// atoms they force (marginals 0 and 1), the clauses are simplified by them,
// and the network splits into connected components. An atom in no clause
// then has marginal 1/2. Each component is solved by a junction tree on a
// min-fill elimination order when its cliques fit opt (junctionTree), else
// by enumerating its worlds when they are few enough (enumerate, within
// opt.MaxEnumeration), else by lifted counting when its atoms fall into
// few classes of exchangeable atoms (countExchangeable), else by weighted
// model counting when its search fits opt.MaxModelCount (modelCount: hard
// clauses that propagate and long clauses that one literal satisfies
// keep it small where the treewidth is not); a component that fits none
// is left in Rest. When strict, such a component is a *TooLargeError instead.
func ExactMarginals(ctx context.Context, in *maxsat.Instance, opt ExactOptions, strict bool) (*ExactResult, error) {
	opt = opt.withDefaults()
	n := in.NumVars
	res := &ExactResult{Probs: make([]float64, n), Exact: make([]bool, n)}
	m := mergeClauses(in).in
	res.Merged = m.NumClauses()
	val, err := propagateHard(m)
	if err != nil {
		return nil, err
	}
	simple := simplify(m, val)
	comps := components(simple)
	var propagated, free Component
	propagated.Method, free.Method = ExactPropagated, ExactFree
	inClause := make([]bool, n)
	for _, c := range comps {
		for _, v := range c.vars {
			inClause[v] = true
		}
	}
	for v := range n {
		switch {
		case val[v] != 0:
			res.Probs[v], res.Exact[v] = float64(max(val[v], 0)), true
			propagated.Atoms++
			propagated.Vars = append(propagated.Vars, int32(v))
		case !inClause[v]:
			res.Probs[v], res.Exact[v] = 0.5, true
			free.Atoms++
			free.Vars = append(free.Vars, int32(v))
		}
	}
	reps := make([]Component, len(comps))
	probs := make([][]float64, len(comps))
	var pending []int // components left to model counting
	for i, c := range comps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		reps[i] = Component{Atoms: len(c.vars), Clauses: c.in.NumClauses(), Vars: c.vars}
		if probs[i], err = c.solve(ctx, opt, &reps[i]); err != nil {
			return nil, err
		}
		if probs[i] == nil {
			pending = append(pending, i)
		}
	}
	if err := countComponents(ctx, comps, pending, opt.MaxModelCount, reps, probs); err != nil {
		return nil, err
	}
	var rest []*component
	for i, c := range comps {
		if probs[i] == nil {
			reps[i].Method = Sampled
			if strict {
				return nil, &TooLargeError{Component: reps[i], Options: opt}
			}
			rest = append(rest, c)
		} else {
			for j, v := range c.vars {
				res.Probs[v], res.Exact[v] = probs[i][j], true
			}
		}
		res.Components = append(res.Components, reps[i])
	}
	slices.SortStableFunc(res.Components, func(a, b Component) int { return b.Atoms - a.Atoms })
	for _, c := range []Component{propagated, free} {
		if c.Atoms > 0 {
			res.Components = append(res.Components, c)
		}
	}
	if len(rest) > 0 {
		res.Rest, res.RestVars = joinComponents(rest)
	}
	return res, nil
}

// propagateHard runs unit propagation over the hard clauses of in and
// returns each variable's forced value (1 true, -1 false, 0 free), or an
// error when they contradict each other.
func propagateHard(in *maxsat.Instance) ([]int8, error) {
	if core := in.HardConflict(); core != nil {
		return nil, fmt.Errorf("mln: the hard clauses cannot all hold: unit propagation derives a contradiction from %d of them", len(core))
	}
	val := make([]int8, in.NumVars)
	occ := make([][]int32, in.NumVars)
	for c := range in.NumClauses() {
		if in.Hard[c] {
			for _, l := range in.Clause(c) {
				occ[l.Var()] = append(occ[l.Var()], int32(c))
			}
		}
	}
	var queue []int
	visit := func(c int) {
		open, openLit := 0, maxsat.Lit(0)
		for _, l := range in.Clause(c) {
			switch v := val[l.Var()]; {
			case v == 0:
				open, openLit = open+1, l
			case (v == 1) != l.Neg():
				return
			}
		}
		if open == 1 {
			val[openLit.Var()] = 1
			if openLit.Neg() {
				val[openLit.Var()] = -1
			}
			queue = append(queue, openLit.Var())
		}
	}
	for c := range in.NumClauses() {
		if !in.Hard[c] {
			continue
		}
		visit(c)
		for len(queue) > 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, d := range occ[v] {
				visit(int(d))
			}
		}
	}
	return val, nil
}

// simplify returns in (merged) without the clauses that the fixed atoms
// (val) satisfy, tautologies and clauses of weight 0, and with the fixed
// atoms' false literals left out, identical clauses merged again when
// leaving literals out made any.
func simplify(in *maxsat.Instance, val []int8) *maxsat.Instance {
	out := &maxsat.Instance{NumVars: in.NumVars, Start: []int32{0}}
	var lits []maxsat.Lit
	shortened := false
	for c := range in.NumClauses() {
		if !in.Hard[c] && in.Weight[c] == 0 {
			continue
		}
		lits = lits[:0]
		sat := false
		for _, l := range in.Clause(c) {
			switch v := val[l.Var()]; {
			case v == 0:
				lits = append(lits, l)
			case (v == 1) != l.Neg():
				sat = true
			}
		}
		if sat || len(lits) == 0 {
			continue // an empty hard clause was ruled out by propagateHard
		}
		shortened = shortened || len(lits) < len(in.Clause(c))
		taut := false
		for i, l := range lits {
			if slices.Contains(lits[i+1:], -l) {
				taut = true
				break
			}
		}
		if taut {
			continue
		}
		out.Lits = append(out.Lits, lits...)
		out.Start = append(out.Start, int32(len(out.Lits)))
		out.Weight = append(out.Weight, in.Weight[c])
		out.Hard = append(out.Hard, in.Hard[c])
	}
	if !shortened {
		return out
	}
	return mergeClauses(out).in
}

// component is a connected part of a network: its variables (of the whole
// network, sorted) and its clauses over local variables 0..len(vars)-1.
type component struct {
	vars []int32
	in   *maxsat.Instance
}

// components splits in into its connected components (union-find over the
// clauses' atoms); atoms in no clause belong to none.
func components(in *maxsat.Instance) []*component {
	n := in.NumVars
	parent := make([]int32, n)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	used := make([]bool, n)
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		r := find(int32(lits[0].Var()))
		for _, l := range lits {
			used[l.Var()] = true
			if s := find(int32(l.Var())); s != r {
				parent[s] = r
			}
		}
	}
	index := make([]int32, n) // root -> component, +1
	local := make([]int32, n) // var -> local index
	var comps []*component
	for v := range n {
		if !used[v] {
			continue
		}
		r := find(int32(v))
		if index[r] == 0 {
			comps = append(comps, &component{in: &maxsat.Instance{Start: []int32{0}}})
			index[r] = int32(len(comps))
		}
		c := comps[index[r]-1]
		local[v] = int32(len(c.vars))
		c.vars = append(c.vars, int32(v))
	}
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		k := comps[index[find(int32(lits[0].Var()))]-1]
		for _, l := range lits {
			u := int(local[l.Var()])
			if l.Neg() {
				k.in.Lits = append(k.in.Lits, maxsat.Not(u))
			} else {
				k.in.Lits = append(k.in.Lits, maxsat.Pos(u))
			}
		}
		k.in.Start = append(k.in.Start, int32(len(k.in.Lits)))
		k.in.Weight = append(k.in.Weight, in.Weight[c])
		k.in.Hard = append(k.in.Hard, in.Hard[c])
	}
	for _, k := range comps {
		k.in.NumVars = len(k.vars)
	}
	return comps
}

// joinComponents puts components side by side in one instance, and
// returns it with the map from its variables to the components' ones.
func joinComponents(cs []*component) (*maxsat.Instance, []int32) {
	out := &maxsat.Instance{Start: []int32{0}}
	var vars []int32
	for _, c := range cs {
		off := len(vars)
		vars = append(vars, c.vars...)
		for _, l := range c.in.Lits {
			if l.Neg() {
				out.Lits = append(out.Lits, maxsat.Not(off+l.Var()))
			} else {
				out.Lits = append(out.Lits, maxsat.Pos(off+l.Var()))
			}
		}
		base := out.Start[len(out.Start)-1]
		for _, s := range c.in.Start[1:] {
			out.Start = append(out.Start, base+s)
		}
		out.Weight = append(out.Weight, c.in.Weight...)
		out.Hard = append(out.Hard, c.in.Hard...)
	}
	out.NumVars = len(vars)
	return out, vars
}

// countComponents tries weighted model counting on the components
// pending (indices into comps) in rounds of doubling budgets: every one
// gets budget/128 first, then those that ran past it get twice what they
// had, smallest first, while the failed attempts have spent less than
// budget in all. So a hopeless component costs the others little (one
// had taken the whole budget, and a 200-atom needle beside it, 2.7*10^5
// units, went to MC-SAT: 0.042 for 0.163 at 40 atoms), and the time lost
// to components that never fit is at most budget plus budget/128 each.
// It fills reps and probs for those it counts, and each other's
// CountWork with the last budget it ran past.
func countComponents(ctx context.Context, comps []*component, pending []int, budget float64, reps []Component, probs [][]float64) error {
	slices.SortStableFunc(pending, func(a, b int) int { return len(comps[a].vars) - len(comps[b].vars) })
	spent := 0.0
	for b := budget / 128; len(pending) > 0; b *= 2 {
		var next []int
		for _, i := range pending {
			try := min(b, budget)
			if b > budget/128 { // past the first round, the shared pool
				try = min(try, budget-spent)
			}
			if try <= reps[i].CountWork { // no more than it ran past (CountWork >= 0)
				next = append(next, i)
				continue
			}
			p, st, err := modelCount(ctx, comps[i].in, try)
			switch {
			case err == errCountBudget:
				spent += try
				reps[i].CountWork = try
				next = append(next, i)
			case err != nil:
				return err
			default:
				probs[i] = p
				reps[i].Method, reps[i].Nodes = ExactModelCounting, st.Nodes
			}
		}
		if len(next) == len(pending) && (b >= budget || spent >= budget) {
			break
		}
		pending = next
	}
	return nil
}

// solve computes the component's marginals by a junction tree, by
// enumerating its worlds or by lifted counting, filling rep; nil
// marginals when none is affordable (model counting is tried after, by
// countComponents).
func (c *component) solve(ctx context.Context, opt ExactOptions, rep *Component) ([]float64, error) {
	// Where the soft weights can span more than e^700, a junction tree's
	// scaled tables lose entries and it runs again on logarithms
	// (junctionTree); enumeration, exact and as cheap for a component
	// that fits, goes first there.
	fits := enumerationWork(c.in) <= opt.MaxEnumeration
	if !fits || softSpan(c.in) <= 700 {
		if probs, err := c.junctionTree(ctx, opt, rep); probs != nil || err != nil {
			return probs, err
		}
	}
	if fits {
		probs, err := enumerate(ctx, c.in)
		if err != nil {
			return nil, err
		}
		rep.Method = ExactEnumeration
		return probs, nil
	}
	probs, classes, configs, err := countExchangeable(ctx, c.in, opt.MaxConfigs)
	if err != nil {
		return nil, err
	}
	if probs != nil {
		rep.Method, rep.Classes, rep.Configs = ExactCounting, classes, configs
	}
	return probs, nil
}

// junctionTree solves the component by a junction tree when its cliques fit
// opt, filling rep's width and table entries; nil marginals when it does
// not fit.
func (c *component) junctionTree(ctx context.Context, opt ExactOptions, rep *Component) ([]float64, error) {
	adj, w, ok := primalGraph(c.in, opt.MaxClique)
	if !ok {
		rep.Width, rep.Entries = w, math.Ldexp(1, w)
	} else if d := degeneracy(adj) + 1; d > opt.MaxClique || math.Ldexp(1, d) > opt.MaxEntries {
		rep.Width, rep.Entries = d, math.Ldexp(1, d)
	} else {
		el, ok, err := minFill(ctx, adj, opt.MaxClique, opt.MaxEntries)
		if err != nil {
			return nil, err
		}
		rep.Width, rep.Entries = max(el.width, d), max(el.entries, math.Ldexp(1, d))
		if ok {
			probs, err := junctionTree(ctx, c.in, el)
			if err != nil {
				return nil, err
			}
			rep.Method = ExactJunctionTree
			return probs, nil
		}
	}
	return nil, nil
}

// errNoWorld is returned when no world satisfies a component's hard clauses.
var errNoWorld = errors.New("mln: exact marginals: no world satisfies the hard clauses")

// softSpan is the sum of the soft clauses' |weights|: no two worlds'
// log-weights differ by more.
func softSpan(in *maxsat.Instance) float64 {
	s := 0.0
	for c, w := range in.Weight {
		if !in.Hard[c] {
			s += math.Abs(w)
		}
	}
	return s
}
