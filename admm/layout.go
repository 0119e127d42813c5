package admm

import "github.com/hinge-srl/hinge/hlmrf"

// layout is the solver's internal order of a problem, chosen for memory
// locality. One ADMM iteration reads the consensus value of every variable
// of every term and then, per variable, gathers the local copies of all its
// terms: when the terms of a variable and the variables of a term sit far
// apart in memory (a problem written in random order, a lifted problem
// numbered by color class, a problem read from a file), nearly every one of
// those reads misses the cache. On the shuffled social-affiliation problem
// of bench/lifted (108,030 potentials, 22,050 constraints, 650 iterations,
// 2 threads; `go -C bench run ./lifted -experiments social -social-max-k 1`)
// the solve took 2.74 s before this layout and 0.81 s with it.
//
// The layout numbers variables in breadth-first order over the factor graph
// (a variable's neighbours are the variables it shares a term with, as in
// Cuthill-McKee ordering) and places terms in the order the search first
// reaches them, so the variables of a term get nearby numbers and the terms
// of nearby variables nearby positions. Potentials are then grouped, keeping
// that order within each group, by arity (1, 2, 3, more) and power, so that
// the fixed-arity kernels see long runs; constraints follow the potentials.
// The layout depends only on the problem's structure, so results stay
// deterministic; the solver maps values, weights, warm starts and duals
// between the layout and the caller's numbering at its boundary.
//
// Depth-first numbering and maximum cardinality search (with variants) were
// measured against this order and lost on real problems; bench/admm/README.md
// has the figures.
type layout struct {
	varNew []int32 // caller's variable j -> internal index
	pot    []int32 // internal potential position -> caller's potential
	con    []int32 // internal constraint position -> caller's constraint
}

// newLayout computes the layout of p in O(variables + terms + copies).
func newLayout(p *hlmrf.Problem) layout {
	n, m, nc := p.NumVars, p.NumPotentials(), p.NumConstraints()
	termVars := func(t int32) []int32 {
		if int(t) < m {
			v, _ := p.Terms(int(t))
			return v
		}
		v, _ := p.CTerms(int(t) - m)
		return v
	}

	// Variable -> terms (potential i is term i, constraint j term m+j).
	vstart := make([]int32, n+1)
	for j, d := range p.VarDegree() {
		vstart[j+1] = vstart[j] + d
	}
	vterm := make([]int32, vstart[n])
	next := append([]int32(nil), vstart[:n]...)
	for t := int32(0); t < int32(m+nc); t++ {
		for _, v := range termVars(t) {
			vterm[next[v]] = t
			next[v]++
		}
	}

	// Breadth-first search from each not yet numbered variable, in the
	// caller's order. The visited marks are bit sets (one bit per variable
	// and per term), which stay in cache where int32 or bool arrays would
	// not: the search's reads are as scattered as the problem.
	varNew := make([]int32, n)
	numbered := make([]uint64, (n+63)/64)
	seen := make([]uint64, (m+nc+63)/64)
	order := make([]int32, 0, m+nc) // terms in the order first reached
	queue := next[:0]               // variables in search order (reuses next)
	for root := range int32(n) {
		if numbered[root>>6]&(1<<(root&63)) != 0 {
			continue
		}
		numbered[root>>6] |= 1 << (root & 63)
		varNew[root] = int32(len(queue))
		queue = append(queue, root)
		for h := len(queue) - 1; h < len(queue); h++ {
			v := queue[h]
			for _, t := range vterm[vstart[v]:vstart[v+1]] {
				if seen[t>>6]&(1<<(t&63)) != 0 {
					continue
				}
				seen[t>>6] |= 1 << (t & 63)
				order = append(order, t)
				for _, u := range termVars(t) {
					if numbered[u>>6]&(1<<(u&63)) == 0 {
						numbered[u>>6] |= 1 << (u & 63)
						varNew[u] = int32(len(queue))
						queue = append(queue, u)
					}
				}
			}
		}
	}
	// Terms without variables are never reached: keep them, at the end.
	for t := range int32(m + nc) {
		if seen[t>>6]&(1<<(t&63)) == 0 {
			order = append(order, t)
		}
	}

	// Potentials grouped by kind (stable counting sort), then constraints.
	const kinds = 8
	kind := func(i int32) int {
		a := int(p.Start[i+1] - p.Start[i])
		if a > 3 {
			a = 0
		}
		return a*2 + int(p.Power[i]&1)
	}
	var count [kinds + 1]int
	for _, t := range order {
		if int(t) < m {
			count[kind(t)+1]++
		}
	}
	for k := range kinds {
		count[k+1] += count[k]
	}
	l := layout{varNew: varNew, pot: make([]int32, m), con: make([]int32, 0, nc)}
	for _, t := range order {
		if int(t) < m {
			k := kind(t)
			l.pot[count[k]] = t
			count[k]++
		} else {
			l.con = append(l.con, t-int32(m))
		}
	}
	return l
}
