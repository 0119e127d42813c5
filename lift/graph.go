package lift

import (
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// graph is the weighted bipartite factor graph of a problem: variable nodes
// 0..n-1 on one side; factor nodes n..n+m+c-1 (the m potentials, then the c
// constraints) on the other. Edges are numbered in the problem's CSR order,
// potential terms first, then constraint terms; edge e joins a factor and
// variable fVar[e] with weight the coefficient, stored exactly (fixed.go).
type graph struct {
	p       *hlmrf.Problem
	n, m, c int
	np      int     // potential edges; constraint edges follow
	fStart  []int32 // factor f's edges are fStart[f]..fStart[f+1]
	fVar    []int32 // the variable of each edge
	vStart  []int32 // variable v's incidences are vStart[v]..vStart[v+1]
	scale   fixedScale

	// Packed edges (see pack): factor side in edge order (to = variable),
	// variable side in incidence order (to = factor). An edge's w is its
	// exact weight when scale.words == 1, else its edge number, its weight
	// being fix[w*words:(w+1)*words].
	fEdge, vEdge []edge
	fix          []uint64

	packed bool // fEdge is set (see pack)
}

// edge is an edge seen from one end: its exact one-word weight or its edge
// number (see graph.fEdge), and the other end.
type edge struct {
	w  uint64
	to int32
}

// check verifies everything lifting relies on: p is not nil, passes
// hlmrf's Validate with zero coefficients and a variable repeated within a
// row accepted (both are harmless to lifting: the factor graph simply has a
// zero-weight or a parallel edge), and its nodes and edges fit int32 ids.
func check(p *hlmrf.Problem) error {
	if p == nil {
		return fmt.Errorf("lift: nil problem")
	}
	if err := p.Validate(hlmrf.AllowZeroCoefs, hlmrf.AllowRepeatedVars); err != nil {
		return fmt.Errorf("lift: %w", err)
	}
	if total := int64(p.NumVars) + int64(len(p.Weight)) + int64(len(p.CKind)); total >= math.MaxInt32 {
		return fmt.Errorf("lift: %d variables, potentials and constraints in all: too many for int32 node ids", total)
	}
	if total := int64(len(p.Var)) + int64(len(p.CVar)); total >= math.MaxInt32 {
		return fmt.Errorf("lift: %d terms in all: too many for int32 edge ids", total)
	}
	return nil
}

// newGraph builds the factor graph of a checked problem.
func newGraph(p *hlmrf.Problem) *graph {
	g := &graph{p: p, n: p.NumVars, m: len(p.Weight), c: len(p.CKind), np: len(p.Var)}
	np := len(p.Var)
	nf := g.m + g.c

	g.fStart = make([]int32, nf+1)
	if g.m > 0 {
		copy(g.fStart, p.Start)
	}
	for j := 1; j <= g.c; j++ {
		g.fStart[g.m+j] = int32(np) + p.CStart[j]
	}
	g.fVar = slices.Concat(p.Var, p.CVar)

	// Degrees, for the width of exact sums.
	deg := make([]int32, g.n)
	for _, v := range g.fVar {
		deg[v]++
	}
	maxDeg := 0
	for _, d := range deg {
		maxDeg = max(maxDeg, int(d))
	}
	for f := 0; f < nf; f++ {
		maxDeg = max(maxDeg, int(g.fStart[f+1]-g.fStart[f]))
	}

	// Exact fixed-point coefficients. A value compared during refinement or
	// lifting sums the edges of one node, so the largest degree bounds the
	// number of terms. Coefficients repeat a lot (1, -1): convert each run once.
	var sb scaleBuilder
	for _, cs := range [][]float64{p.Coef, p.CCoef} {
		last := math.NaN()
		for _, x := range cs {
			if x != last {
				sb.add(x)
				last = x
			}
		}
	}
	g.scale = sb.scale(maxDeg)
	return g
}

// pack stores every edge's exact weight for refinement: in fEdge beside its
// variable for one-word weights (a visit reads one cache line instead of
// two), in fix otherwise. Lifting alone does not need it (weight converts on
// the fly), so a problem whose copies are matched rather than refined never
// pays for it.
func (g *graph) pack() {
	g.packed = true
	p, ne, w := g.p, len(g.fVar), g.scale.words
	g.fEdge = make([]edge, ne)
	if w > 1 {
		g.fix = make([]uint64, ne*w)
	}
	tmp := make([]uint64, w)
	e := 0
	for _, cs := range [][]float64{p.Coef, p.CCoef} {
		last := math.NaN()
		for _, x := range cs {
			if x != last || math.Signbit(x) != math.Signbit(last) {
				g.scale.put(tmp, x) // coefficients repeat a lot: convert each run once
				last = x
			}
			g.fEdge[e] = edge{tmp[0], g.fVar[e]}
			if w > 1 {
				copy(g.fix[e*w:(e+1)*w], tmp)
				g.fEdge[e].w = uint64(e)
			}
			e++
		}
	}
}

// transpose builds the variables' side of the graph: for every variable its
// incidences, in edge order.
func (g *graph) transpose() {
	nf := g.m + g.c
	g.vStart = make([]int32, g.n+1)
	for f := 0; f < nf; f++ {
		for _, v := range g.fVar[g.fStart[f]:g.fStart[f+1]] {
			g.vStart[v+1]++
		}
	}
	for v := 0; v < g.n; v++ {
		g.vStart[v+1] += g.vStart[v]
	}
	next := append([]int32(nil), g.vStart[:g.n]...)
	g.vEdge = make([]edge, g.vStart[g.n])
	for f := 0; f < nf; f++ {
		for _, e := range g.fEdge[g.fStart[f]:g.fStart[f+1]] {
			g.vEdge[next[e.to]] = edge{e.w, int32(f)}
			next[e.to]++
		}
	}
}

// weight returns edge e's exact weight (scale.words words; the slice may be
// scratch, which must have scale.words words, valid until the next call).
func (g *graph) weight(e int32, scratch []uint64) []uint64 {
	w := g.scale.words
	switch {
	case !g.packed:
		g.scale.put(scratch, g.coef(e))
		return scratch
	case w == 1:
		scratch[0] = g.fEdge[e].w
		return scratch[:1]
	}
	return g.fix[int(e)*w : int(e+1)*w]
}

// coef returns edge e's coefficient.
func (g *graph) coef(e int32) float64 {
	if int(e) < g.np {
		return g.p.Coef[e]
	}
	return g.p.CCoef[int(e)-g.np]
}
