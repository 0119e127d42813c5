package mln

import (
	"math"
	"slices"

	"github.com/hinge-srl/hinge/maxsat"
)

// Cluster moves. A binary clause l1 v l2 is two implications, !l1 -> l2
// and !l2 -> l1, and the literals of a strongly connected component of the
// graph of the implications that an MC-SAT step selects are equal in every
// solution of the step (as 2-SAT solvers use them: Aspvall, Plass and
// Tarjan 1979). A hard or near-deterministic equivalence (a <=> b is
// !a v b and a v !b) makes one, as do the two halves of a functional
// constraint over two values (exactly one of a and b), a soft equivalence
// whose two clauses the step selects, and a cycle of selected implications
// Smokes(x) ^ Friends(x, y) => Smokes(y) around a group of friends. The
// step's annealing moves flip a whole component at once (each atom as its
// literal in the component says), a move across the modes that such
// implications separate, which single flips could make only through
// worlds violating one clause per atom: all friends smoking or none. On a
// network of soft equivalences this is Swendsen and Wang's cluster
// algorithm (1987), which MC-SAT's selection is for such clauses (see
// selectPairs), the clusters' flips taken by annealing moves; on a
// complete graph of equivalences a single move flips the whole graph.
// Since every solution of the step has each component's literals equal,
// the moves are a Metropolis chain over the worlds that keep them equal,
// and its trace on the solutions is still uniform (see uniformMoves).

// selectPairs decides the selection of the soft equivalence pairs of
// positive weight before the other clauses. The two clauses of a pair,
// weights w1 >= w2 > 0, are never both violated (l1 v l2 or !l1 v !l2
// always holds), so their factor exp(w1 [c1] + w2 [c2]) is
// exp(w2) exp(w2 [l1 != l2]) exp((w1 - w2) [c1]): one feature, that the
// pair's literals differ, of weight w2, and clause c1 alone of weight
// w1 - w2. MC-SAT may take its slice over any such factorisation of the
// distribution (Poon and Domingos 2006 state it for any features), and
// this one selects the feature, both clauses as one constraint, with
// probability 1 - exp(-w2) when the world satisfies both: the bond of
// Swendsen and Wang, where clause by clause one of the two is often
// selected alone, a one-way constraint that holds a cluster still.
func (ch *mcsatChain) selectPairs() {
	pairs := ch.net.pairs()
	if len(pairs) == 0 {
		return
	}
	in := ch.net.in
	if ch.paired == nil {
		ch.paired = make([]uint32, in.NumClauses())
	}
	for _, pr := range pairs {
		c, d := pr[0], pr[1]
		wc, wd := in.Weight[c], in.Weight[d]
		if in.Hard[c] || in.Hard[d] || wc <= 0 || wd <= 0 {
			continue
		}
		ch.paired[c], ch.paired[d] = ch.stamp, ch.stamp
		if wc < wd {
			c, d, wc, wd = d, c, wd, wc
		}
		satC, satD := ch.ntrue[c] > 0, ch.ntrue[d] > 0
		if satC && satD && ch.rng.Float64() < -math.Expm1(-wd) {
			ch.selected[c], ch.selected[d] = ch.stamp, ch.stamp
			continue
		}
		if rest := wc - wd; satC && rest > 0 && ch.rng.Float64() < -math.Expm1(-rest) {
			ch.selected[c] = ch.stamp
		}
	}
}

// equivalencePairs lists the pairs (c, d) of binary clauses of in whose
// literals are each other's negations, c < d.
func equivalencePairs(in *maxsat.Instance) [][2]int32 {
	type key [2]maxsat.Lit
	binary := map[key]int32{}
	norm := func(a, b maxsat.Lit) key {
		if a > b {
			a, b = b, a
		}
		return key{a, b}
	}
	var pairs [][2]int32
	for c := range in.NumClauses() {
		lits := in.Clause(c)
		if len(lits) != 2 || lits[0].Var() == lits[1].Var() {
			continue
		}
		if d, ok := binary[norm(-lits[0], -lits[1])]; ok {
			pairs = append(pairs, [2]int32{d, int32(c)})
		}
		binary[norm(lits[0], lits[1])] = int32(c)
	}
	return pairs
}

// clusterUnits groups a step's walk atoms into the units that cluster
// moves flip: the implication graph of the step's binary constraints (its
// edges, over the literals 2i and 2i+1 of walk atom i, true and false),
// its strongly connected components, and the units, unit u holding
// unitAtoms[unitStart[u]:unitStart[u+1]]. MC-SAT's and lazy MC-SAT's
// chains each keep one, to reuse its scratch from step to step.
type clusterUnits struct {
	edges               [][2]int32
	eStart, eAdj, eFill []int32
	scc                 sccState
	sccUnit, unitID     []int32
	unitStart, unitNext []int32
	unitAtoms           []int32
}

// implication adds the two implications of a binary clause whose
// literals are a and b (literal nodes, see clusterUnits): !a -> b and
// !b -> a.
func (cu *clusterUnits) implication(a, b int32) {
	cu.edges = append(cu.edges, [2]int32{a ^ 1, b}, [2]int32{b ^ 1, a})
}

// clusters groups the step's walk atoms into units (unitStart, unitAtoms)
// by the strongly connected components of the implications of the active
// clauses with two unfixed literals (see units). It returns false when
// every unit is a single atom, so that moves flip single atoms.
func (ch *mcsatChain) clusters() bool {
	node := func(l maxsat.Lit) int32 {
		i := 2 * ch.walkAt[l.Var()] // walkAt is set (indexActive)
		if l.Neg() {
			i++
		}
		return i
	}
	ch.edges = ch.edges[:0]
	for _, c := range ch.active {
		var two [2]maxsat.Lit
		k := 0
		for _, l := range ch.net.in.Clause(int(c)) {
			if ch.fixed[l.Var()] == ch.stamp {
				continue // false: an active clause has no true fixed literal
			}
			if k == 2 {
				k = 3
				break
			}
			two[k] = l
			k++
		}
		if k != 2 || two[0].Var() == two[1].Var() {
			continue
		}
		ch.implication(node(two[0]), node(two[1]))
	}
	return ch.units(ch.walk)
}

// units groups the walk atoms walk into units by the strongly connected
// components of the implication graph cu.edges (Tarjan's algorithm,
// iterative), each component taken with its mirror (the negated literals)
// as one unit. It returns false when every unit is a single atom.
func (cu *clusterUnits) units(walk []int32) bool {
	if len(cu.edges) == 0 {
		return false
	}
	w := len(walk)
	m := 2 * w
	start := slices.Grow(cu.eStart[:0], m+1)[:m+1]
	clear(start)
	for _, e := range cu.edges {
		start[e[0]+1]++
	}
	for i := range m {
		start[i+1] += start[i]
	}
	adj := slices.Grow(cu.eAdj[:0], len(cu.edges))[:len(cu.edges)]
	fill := slices.Grow(cu.eFill[:0], m)[:m]
	copy(fill, start[:m])
	for _, e := range cu.edges {
		adj[fill[e[0]]] = e[1]
		fill[e[0]]++
	}
	cu.eStart, cu.eAdj, cu.eFill = start, adj, fill
	comp := tarjan(m, start, adj, &cu.scc)
	// A unit per pair of mirrored components: atom i joins the unit of its
	// true literal's component or of its false literal's, whichever has
	// one (flipping an atom flips both of its literals, so flipping every
	// atom of a unit keeps each component's literals equal).
	unitOf := slices.Grow(cu.sccUnit[:0], m)[:m]
	for i := range unitOf {
		unitOf[i] = -1
	}
	cu.sccUnit = unitOf
	units := int32(0)
	cu.unitID = slices.Grow(cu.unitID[:0], w)[:w]
	for i := range w {
		cp, cn := comp[2*i], comp[2*i+1]
		switch {
		case unitOf[cp] >= 0:
			cu.unitID[i] = unitOf[cp]
		case unitOf[cn] >= 0:
			cu.unitID[i] = unitOf[cn]
		default:
			unitOf[cp] = units
			cu.unitID[i] = units
			units++
		}
	}
	if int(units) == w {
		return false
	}
	// Bucket the walk's atoms by unit.
	cu.unitStart = slices.Grow(cu.unitStart[:0], int(units)+1)[:units+1]
	clear(cu.unitStart)
	for _, u := range cu.unitID {
		cu.unitStart[u+1]++
	}
	for u := range units {
		cu.unitStart[u+1] += cu.unitStart[u]
	}
	cu.unitAtoms = slices.Grow(cu.unitAtoms[:0], w)[:w]
	next := slices.Grow(cu.unitNext[:0], int(units))[:units]
	copy(next, cu.unitStart[:units])
	cu.unitNext = next
	for i, u := range cu.unitID {
		cu.unitAtoms[next[u]] = walk[i]
		next[u]++
	}
	return true
}

// numUnits is the number of units of the last units call that returned
// true.
func (cu *clusterUnits) numUnits() int { return len(cu.unitStart) - 1 }

// unit returns unit u's atoms.
func (cu *clusterUnits) unit(u int) []int32 { return cu.unitAtoms[cu.unitStart[u]:cu.unitStart[u+1]] }

// sccState is the scratch of tarjan.
type sccState struct {
	index, low, comp []int32
	onStack          []bool
	stack, call      []int32
	edge             []int32
}

// tarjan numbers the strongly connected components of the graph of m
// nodes whose node u has the successors adj[start[u]:start[u+1]] (Tarjan
// 1972, with an explicit call stack) and returns each node's component.
func tarjan(m int, start, adj []int32, st *sccState) []int32 {
	grow := func(s []int32) []int32 { return slices.Grow(s[:0], m)[:m] }
	st.index, st.low, st.comp, st.edge = grow(st.index), grow(st.low), grow(st.comp), grow(st.edge)
	st.onStack = slices.Grow(st.onStack[:0], m)[:m]
	for u := range m {
		st.index[u], st.onStack[u] = -1, false
	}
	st.stack, st.call = st.stack[:0], st.call[:0]
	next, comps := int32(0), int32(0)
	for root := range int32(m) {
		if st.index[root] >= 0 {
			continue
		}
		st.call = append(st.call, root)
		st.index[root], st.low[root], st.edge[root] = next, next, start[root]
		next++
		st.stack = append(st.stack, root)
		st.onStack[root] = true
		for len(st.call) > 0 {
			u := st.call[len(st.call)-1]
			if e := st.edge[u]; e < start[u+1] {
				st.edge[u]++
				v := adj[e]
				switch {
				case st.index[v] < 0:
					st.index[v], st.low[v], st.edge[v] = next, next, start[v]
					next++
					st.stack = append(st.stack, v)
					st.onStack[v] = true
					st.call = append(st.call, v)
				case st.onStack[v]:
					st.low[u] = min(st.low[u], st.index[v])
				}
				continue
			}
			st.call = st.call[:len(st.call)-1]
			if len(st.call) > 0 {
				p := st.call[len(st.call)-1]
				st.low[p] = min(st.low[p], st.low[u])
			}
			if st.low[u] == st.index[u] {
				for {
					v := st.stack[len(st.stack)-1]
					st.stack = st.stack[:len(st.stack)-1]
					st.onStack[v] = false
					st.comp[v] = comps
					if v == u {
						break
					}
				}
				comps++
			}
		}
	}
	return st.comp
}

// annealUnit makes one annealing move over the step's clusters: a random
// cluster, all its atoms flipped, kept with probability
// min(1, exp(-delta/temp)), delta the change in violated active clauses.
// It returns whether it moved.
func (ch *mcsatChain) annealUnit(temp float64) bool {
	atoms := ch.unit(ch.rng.IntN(ch.numUnits()))
	if len(atoms) == 1 {
		return ch.anneal1(int(atoms[0]), temp)
	}
	// A cluster's atoms flip together, so every atom keeps its parity to
	// the root and every selected equivalence among them stays satisfied.
	before := len(ch.unsat)
	for _, v := range atoms {
		ch.flip(int(v))
	}
	d := len(ch.unsat) - before
	if d <= 0 || (temp > 0 && ch.rng.Float64() < math.Exp(-float64(d)/temp)) {
		return true
	}
	for _, v := range atoms {
		ch.flip(int(v))
	}
	return false
}
