package mln

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// Weighted model counting: a component whose junction tree, enumeration
// and lifted counting are all too costly may still be cheap to count by
// search, because its hard clauses propagate and its long clauses vanish
// once one literal holds. modelCount is DPLL with component caching, as
// exact model counters do (Sang, Bacchus, Beame, Kautz and Pitassi,
// "Combining Component Caching and Clause Learning for Effective Model
// Counting", SAT 2004; Darwiche, "New Advances in Compiling CNF to
// Decomposable Negation Normal Form", ECAI 2004), and its search is kept
// as a decision-DNNF circuit so that every atom's marginal comes from one
// top-down pass over it (the circuit's derivatives) instead of one count
// per atom.
//
// A residual problem is a set of clauses none of which the assignment so
// far satisfies, over the variables it leaves unassigned. Its weight Z is
// the sum over those variables' assignments of the product, over its
// clauses, of e^w for a satisfied soft clause of weight w, 1 for a
// violated soft clause, 0 for a violated hard clause. Branching on a
// variable assigns it, propagates the hard clauses that become unit,
// multiplies in e^w for each soft clause that becomes satisfied, drops
// the clauses that become satisfied or violated, and splits what is left
// into connected components, whose weights multiply; a variable left in
// no clause is free (a factor 2, marginal 1/2). A residual problem is
// identified by its clauses and variables (the assignment outside them
// does not change it), and is counted once (the cache). All weights are
// kept as logarithms.

// errCountBudget says that model counting ran past its work budget.
var errCountBudget = errors.New("mln: model counting: over budget")

// wmcBranch is one value of a decision node's variable: its
// log-weight (-Inf: no world), and in the counter's arena from at on,
// the literals unit propagation implied, the variables left free and the
// residual components (node indices). Nodes and arena hold no pointers,
// so the collector does not scan them.
type wmcBranch struct {
	z                     float64
	at                    int
	nImplied, nFree, nKid int32
}

// wmcNode decides variable v: br[0] false, br[1] true; z is the log of
// the sum of the branches' weights.
type wmcNode struct {
	v  int32
	z  float64
	br [2]wmcBranch
}

// wmcStats is the size of a model count: its decision nodes and its work
// units.
type wmcStats struct {
	Nodes int
	Work  float64
}

// counter holds a model count's search state.
type counter struct {
	ctx      context.Context
	in       *maxsat.Instance
	occStart []int32 // the clauses of variable v are occ[occStart[v]:occEnd[v]]
	occEnd   []int32 // (an atom twice in a clause leaves a slot unused)
	occ      []int32
	val      []int8 // 1 true, -1 false, 0 unassigned
	trail    []maxsat.Lit
	nodes    []wmcNode
	arena    []int32
	cache    map[string]int32
	work     float64
	budget   float64
	next     float64 // work at which ctx is next checked
	// scratch, indexed by variable
	count  []int32
	parent []int32
	group  []int32
	seen   []bool
	key    []byte
}

// modelCount computes the exact marginals of in by weighted model
// counting within budget work units (a literal visited, a cache key byte
// written); errCountBudget past it, errNoWorld when no world satisfies
// the hard clauses. It also returns the number of decision nodes and the
// work done.
func modelCount(ctx context.Context, in *maxsat.Instance, budget float64) ([]float64, wmcStats, error) {
	n := in.NumVars
	c := &counter{ctx: ctx, in: in, val: make([]int8, n), cache: map[string]int32{}, budget: budget,
		count: make([]int32, n), parent: make([]int32, n), group: make([]int32, n), seen: make([]bool, n)}
	c.occStart = make([]int32, n+1)
	for _, l := range in.Lits {
		c.occStart[l.Var()+1]++
	}
	for v := range n {
		c.occStart[v+1] += c.occStart[v]
	}
	c.occ = make([]int32, len(in.Lits))
	fill := slices.Clone(c.occStart[:n])
	for cl := range in.NumClauses() {
		for _, l := range in.Clause(cl) {
			v := l.Var()
			if k := fill[v]; k == c.occStart[v] || c.occ[k-1] != int32(cl) {
				c.occ[k] = int32(cl)
				fill[v]++
			}
		}
	}
	c.occEnd = fill
	vars := make([]int32, n)
	for v := range vars {
		vars[v] = int32(v)
	}
	clauses := make([]int32, in.NumClauses())
	for cl := range clauses {
		clauses[cl] = int32(cl)
	}
	// The root: the whole problem as one residual problem, after
	// checking that no clause is violated as it stands (an empty hard
	// clause) and setting aside the variables in no clause.
	z, free, kids, err := c.residual(vars, clauses)
	if err != nil {
		return nil, wmcStats{}, err
	}
	if math.IsInf(z, -1) {
		return nil, wmcStats{}, errNoWorld
	}
	probs := make([]float64, n)
	rho := make([]float64, len(c.nodes))
	for _, v := range free {
		probs[v] = 0.5
	}
	for _, k := range kids {
		rho[k] = 1
	}
	// Children are made before their parents, so decreasing index is a
	// top-down order; rho is the probability that a world passes through
	// the node.
	for id := len(c.nodes) - 1; id >= 0; id-- {
		nd := &c.nodes[id]
		if rho[id] == 0 {
			continue
		}
		for b := range nd.br {
			br := &nd.br[b]
			if math.IsInf(br.z, -1) {
				continue
			}
			p := rho[id] * math.Exp(br.z-nd.z)
			if b == 1 {
				probs[nd.v] += p
			}
			a := c.arena[br.at:]
			for _, l := range a[:br.nImplied] {
				if !maxsat.Lit(l).Neg() {
					probs[maxsat.Lit(l).Var()] += p
				}
			}
			a = a[br.nImplied:]
			for _, v := range a[:br.nFree] {
				probs[v] += p / 2
			}
			for _, k := range a[br.nFree : br.nFree+br.nKid] {
				rho[k] += p
			}
		}
	}
	for v, p := range probs {
		probs[v] = min(max(p, 0), 1)
	}
	return probs, wmcStats{Nodes: len(c.nodes), Work: c.work}, nil
}

// spend adds w work units, and checks the budget and (now and then) the
// context.
func (c *counter) spend(w float64) error {
	c.work += w
	if c.work > c.budget {
		return errCountBudget
	}
	if c.work >= c.next {
		c.next = c.work + 1<<16
		return c.ctx.Err()
	}
	return nil
}

// status says whether clause cl is satisfied under c.val, and otherwise
// how many of its literals are unassigned and one of them.
func (c *counter) status(cl int32) (sat bool, open int, last maxsat.Lit) {
	lits := c.in.Clause(int(cl))
	c.work += float64(len(lits)) // at most; a satisfied clause may stop sooner
	for _, l := range lits {
		switch c.val[l.Var()] {
		case 0:
			if open == 0 || l != last {
				open++
			}
			last = l
		case 1:
			if !l.Neg() {
				return true, 0, 0
			}
		case -1:
			if l.Neg() {
				return true, 0, 0
			}
		}
	}
	return false, open, last
}

// assign sets literal l true and records it on the trail.
func (c *counter) assign(l maxsat.Lit) {
	if l.Neg() {
		c.val[l.Var()] = -1
	} else {
		c.val[l.Var()] = 1
	}
	c.trail = append(c.trail, l)
}

// propagate runs unit propagation over the hard clauses from the trail's
// entries at from on; false on a conflict. Every clause it looks at is
// work, those satisfied before too (a variable's hard clauses are all
// looked at), so that the budget bounds its time.
func (c *counter) propagate(from int) (bool, error) {
	for i := from; i < len(c.trail); i++ {
		if err := c.spend(0); err != nil {
			return false, err
		}
		v := c.trail[i].Var()
		for _, cl := range c.occ[c.occStart[v]:c.occEnd[v]] {
			if !c.in.Hard[cl] {
				continue
			}
			sat, open, last := c.status(cl)
			switch {
			case sat:
			case open == 0:
				return false, nil
			case open == 1:
				c.assign(last)
			}
		}
	}
	return true, nil
}

// node returns the decision node of the residual problem of vars and
// clauses (sorted), counting it unless the cache has it.
func (c *counter) node(vars, clauses []int32) (int32, error) {
	c.key = c.key[:0]
	c.key = binary.AppendUvarint(c.key, uint64(len(vars)))
	for _, v := range vars {
		c.key = binary.AppendUvarint(c.key, uint64(v))
	}
	for _, cl := range clauses {
		c.key = binary.AppendUvarint(c.key, uint64(cl))
	}
	if err := c.spend(float64(len(c.key))); err != nil {
		return 0, err
	}
	if id, ok := c.cache[string(c.key)]; ok {
		return id, nil
	}
	key := string(c.key)
	// Branch on the variable in the most clauses, hard ones counted twice.
	best, bestCount := vars[0], int32(-1)
	for _, cl := range clauses {
		w := int32(1)
		if c.in.Hard[cl] {
			w = 2
		}
		for _, l := range c.in.Clause(int(cl)) {
			if c.val[l.Var()] == 0 {
				c.count[l.Var()] += w
			}
		}
	}
	for _, v := range vars {
		if c.count[v] > bestCount {
			best, bestCount = v, c.count[v]
		}
	}
	for _, cl := range clauses {
		for _, l := range c.in.Clause(int(cl)) {
			c.count[l.Var()] = 0
		}
	}
	nd := wmcNode{v: best}
	for b := range nd.br {
		start := len(c.trail)
		l := maxsat.Not(int(best))
		if b == 1 {
			l = maxsat.Pos(int(best))
		}
		c.assign(l)
		br := &nd.br[b]
		br.z = math.Inf(-1)
		ok, err := c.propagate(start)
		if err != nil {
			return 0, err
		}
		if ok {
			z, free, kids, err := c.residual(vars, clauses)
			if err != nil {
				return 0, err
			}
			// The recursion below restored the trail: the implied
			// literals are still on it.
			implied := c.trail[start+1:]
			br.z, br.at = z, len(c.arena)
			br.nImplied, br.nFree, br.nKid = int32(len(implied)), int32(len(free)), int32(len(kids))
			for _, l := range implied {
				c.arena = append(c.arena, int32(l))
			}
			c.arena = append(c.arena, free...)
			c.arena = append(c.arena, kids...)
		}
		for _, l := range c.trail[start:] {
			c.val[l.Var()] = 0
		}
		c.trail = c.trail[:start]
		if err := c.spend(0); err != nil {
			return 0, err
		}
	}
	nd.z = logAdd(nd.br[0].z, nd.br[1].z)
	id := int32(len(c.nodes))
	c.nodes = append(c.nodes, nd)
	c.cache[key] = id
	return id, nil
}

// residual counts the assignment as it stands, the parent problem being
// vars and clauses: z is the log-weight of the soft clauses that are now
// satisfied, of the free variables (those left in no open clause) and of
// the components of the open clauses, each counted by node (kids); -Inf
// when a hard clause is violated.
func (c *counter) residual(vars, clauses []int32) (z float64, free, kids []int32, err error) {
	open := make([]int32, 0, len(clauses))
	for _, cl := range clauses {
		sat, n, _ := c.status(cl)
		switch {
		case sat:
			if !c.in.Hard[cl] {
				z += c.in.Weight[cl]
			}
		case n == 0:
			if c.in.Hard[cl] {
				return math.Inf(-1), nil, nil, nil
			}
		default:
			open = append(open, cl)
		}
	}
	// Union-find over the open clauses' unassigned variables.
	for _, v := range vars {
		c.parent[v] = v
		c.seen[v] = false
	}
	find := func(v int32) int32 {
		for c.parent[v] != v {
			c.parent[v] = c.parent[c.parent[v]]
			v = c.parent[v]
		}
		return v
	}
	for _, cl := range open {
		first := int32(-1)
		for _, l := range c.in.Clause(int(cl)) {
			v := int32(l.Var())
			if c.val[v] != 0 {
				continue
			}
			c.seen[v] = true
			if first < 0 {
				first = find(v)
			} else if r := find(v); r != first {
				c.parent[r] = first
			}
		}
	}
	// Group the clauses and variables by root, in increasing order
	// (vars and clauses are sorted, so each group's lists are too).
	// c.group[root] is the root's group + 1 while the groups are made;
	// each group's variables and clauses are counted first, so that all
	// of them take two allocations.
	for _, v := range vars {
		if c.val[v] == 0 && c.seen[v] {
			c.group[find(v)] = 0
		}
	}
	var nv, nc []int
	for _, v := range vars {
		if c.val[v] != 0 {
			continue
		}
		if !c.seen[v] {
			free = append(free, v)
			continue
		}
		r := find(v)
		if c.group[r] == 0 {
			nv, nc = append(nv, 0), append(nc, 0)
			c.group[r] = int32(len(nv))
		}
		nv[c.group[r]-1]++
	}
	openGroup := make([]int32, len(open))
	for i, cl := range open {
		for _, l := range c.in.Clause(int(cl)) {
			if v := int32(l.Var()); c.val[v] == 0 {
				openGroup[i] = c.group[find(v)] - 1
				nc[openGroup[i]]++
				break
			}
		}
	}
	gv, gc := make([][]int32, len(nv)), make([][]int32, len(nv))
	vbuf, cbuf := make([]int32, 0, len(vars)-len(free)), make([]int32, 0, len(open))
	for g := range nv {
		gv[g], vbuf = vbuf[:0:nv[g]], vbuf[nv[g]:cap(vbuf)]
		gc[g], cbuf = cbuf[:0:nc[g]], cbuf[nc[g]:cap(cbuf)]
	}
	for _, v := range vars {
		if c.val[v] == 0 && c.seen[v] {
			g := c.group[find(v)] - 1
			gv[g] = append(gv[g], v)
		}
	}
	for i, cl := range open {
		gc[openGroup[i]] = append(gc[openGroup[i]], cl)
	}
	z += float64(len(free)) * math.Ln2
	for g := range gv {
		id, err := c.node(gv[g], gc[g])
		if err != nil {
			return 0, nil, nil, err
		}
		kids = append(kids, id)
		z += c.nodes[id].z
	}
	return z, free, kids, nil
}
