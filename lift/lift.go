// Package lift finds the symmetries of a ground HL-MRF and solves a smaller
// one in its place (Srinivasan, Babaki, Farnadi and Getoor, "Lifted Hinge-Loss
// Markov Random Fields", AAAI 2019, sections 2.2 and 3).
//
// Refine colors the weighted bipartite factor graph of an hlmrf.Problem
// (variables on one side, potentials and constraints on the other, edge
// weight = coefficient) by color refinement. Lift turns the coloring into a
// lifted problem of the same form: one variable per variable color, one
// potential per potential color with the class's summed weight, one
// constraint per constraint color. The lifted problem is solved by the same
// solver as any other, and Expand maps its solution back: every variable takes
// its class's value.
//
// Equal sums are decided exactly. Coefficients are float64, whose sums depend
// on the order of addition (0.1+0.2-0.1 != 0.2-0.1+0.1), so summing in
// floating point would both split symmetric nodes and merge asymmetric ones.
// Every sum is instead accumulated exactly as a fixed-point integer in units
// of the smallest power of two among the problem's coefficients (fixed.go):
// one 64-bit word for small-integer coefficients, two for typical decimal
// ones, more only for extreme exponent ranges. This gives the true coarsest
// stable coloring under the paper's sum criterion; the stricter but simpler
// "same multiset of edge weights" criterion was rejected because it can
// split classes that the sum criterion keeps together, losing lifting for no
// gain in exactness.
//
// Disjoint copies: a problem made of k copies of one large component (the
// paper's symmetry-injection experiment) is not refined copy by copy, which
// costs far more than k times one copy; the copies are found by hashing,
// verified to be isomorphic, and colored like their original (repeat.go).
// The coloring is the same either way.
//
// Correctness: the coloring is an equitable partition (every potential of a
// class has the same summed coefficient into every variable class, and every
// variable of a class the same summed coefficient from every factor class).
// Averaging any feasible point over the variable classes therefore keeps it
// feasible and, by convexity of the hinges, does not increase the objective;
// so the problem has an optimum that is constant on every class, and on such
// points the lifted objective plus Offset equals the original objective.
package lift

import (
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Lifted is a lifted problem and the maps between it and the original.
type Lifted struct {
	// Problem is the lifted problem: an ordinary hlmrf.Problem whose
	// variables, potentials and constraints are the color classes of the
	// original's, numbered in order of their first member.
	Problem *hlmrf.Problem

	// VarClass maps each original variable to its lifted variable.
	VarClass []int32
	// PotClass maps each original potential to its lifted potential, or -1
	// if its class became constant (every coefficient cancelled within the
	// class) and was dropped; its value is in Offset.
	PotClass []int32
	// ConClass maps each original constraint to its lifted constraint, or -1
	// if its class became constant and always holds (so was dropped).
	ConClass []int32

	// Offset is the total value of the dropped constant potentials: for every
	// lifted point y, Problem.Objective(y) + Offset equals the original
	// objective at Expand(y) (up to floating-point rounding).
	Offset float64

	// Coloring is the coloring the lifted problem was built from.
	Coloring *Coloring

	// Copies has one entry per potential term of Problem (in the order of
	// Problem.Var) followed by one per constraint term (Problem.CVar): how
	// many local copies of the original problem the term stands for (class
	// size times the number of the representative's variables that fall in
	// that variable class). Consensus ADMM weighted by these counts
	// (admm.Options.Copies) runs on the lifted problem as plain ADMM runs on
	// the original from a symmetric start, so it needs about the same number
	// of iterations, each over fewer terms.
	Copies []float64
}

// InfeasibleError reports that the hard constraints cannot all hold: a
// constraint class reduced to a false constant statement.
type InfeasibleError struct {
	Constraint int                  // an original constraint of the class (its first)
	Members    int                  // how many original constraints the class has
	Kind       hlmrf.ConstraintKind // the class's kind
	Const      float64              // the class's constant: the class says 0 Kind Const
}

// Error says which constraint class is false.
func (e *InfeasibleError) Error() string {
	return fmt.Sprintf("lift: hard constraints are infeasible: constraint %d (one of %d symmetric constraints) has all its coefficients cancel within the variable classes, leaving 0 %s %v, which is false", e.Constraint, e.Members, e.Kind, e.Const)
}

// Lift computes the coarsest stable coloring of p (see Refine) and builds the
// lifted problem from it.
//
// A lifted potential has the summed weight of its class, the class's constant
// and power, and on lifted variable k the coefficient that every potential of
// the class has into variable class k in total (computed exactly, then
// rounded once to float64); it is the paper's (sum of edge weights)/|class|.
// Constraints are lifted the same way, keeping kind and constant. When every
// coefficient of a class cancels, the lifted potential is the constant
// weight*max(-c,0)^d: it is dropped and its value added to Offset; a constant
// constraint that holds is dropped, and one that fails (0 > c, or 0 != c for
// an equality) means the original constraints are infeasible, reported as an
// *InfeasibleError.
//
// p must be well formed: consistent CSR arrays, variable indexes in range,
// finite numbers, nonnegative weights, powers 1 or 2; Lift returns an error,
// never panics, otherwise. Zero coefficients and variables repeated within a
// row are accepted. p is not modified.
func Lift(p *hlmrf.Problem) (*Lifted, error) {
	return LiftWithin(p, 0)
}

// LiftWithin is Lift for a solve with constraint tolerance tol
// (admm.Options.ConstraintTol): a constraint class whose coefficients all
// cancel holds when its constant statement fails by at most tol, as the
// solver's test lets its members fail (an observed 0.9999999 under a hard
// x = 1 leaves 0 = 1e-7: within the tolerance unlifted, "infeasible" when
// lifting judged it exactly).
func LiftWithin(p *hlmrf.Problem, tol float64) (*Lifted, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	g, col := color(p)
	return build(p, g, col, tol)
}

// LiftIfSymmetric is Lift for a caller that solves the original problem when
// lifting would not shrink it: when the coloring has no symmetry
// (Coloring.Symmetric is false) it returns a nil *Lifted with the coloring,
// without building the lifted problem, which would be a copy of p. Otherwise
// it returns what Lift returns, the coloring being l.Coloring.
func LiftIfSymmetric(p *hlmrf.Problem) (*Lifted, *Coloring, error) {
	if err := check(p); err != nil {
		return nil, nil, err
	}
	g, col := color(p)
	if !col.Symmetric() {
		return nil, col, nil
	}
	l, err := build(p, g, col, 0)
	return l, col, err
}

// build makes the lifted problem of p from its graph and coarsest stable
// coloring.
func build(p *hlmrf.Problem, g *graph, col *Coloring, tol float64) (*Lifted, error) {
	l := &Lifted{
		Problem:  &hlmrf.Problem{NumVars: col.NumVar, Start: []int32{0}, CStart: []int32{0}},
		VarClass: col.Var,
		PotClass: make([]int32, g.m),
		ConClass: make([]int32, g.c),
		Coloring: col,
	}
	b := newRowBuilder(g, col)
	lp := l.Problem

	// One lifted potential per class, from its first member, unless its
	// coefficients all cancel.
	size, rep, group := classInfo(col.Pot, col.NumPot, p.Group)
	newID := make([]int32, col.NumPot)
	for k, i := range rep {
		w := float64(size[k]) * p.Weight[i]
		if math.IsInf(w, 0) {
			return nil, fmt.Errorf("lift: potential %d: the summed weight of its %d symmetric potentials overflows float64", i, size[k])
		}
		vars, coefs, err := b.row(int(i))
		if err != nil {
			return nil, fmt.Errorf("lift: potential %d: %w", i, err)
		}
		if len(vars) == 0 {
			newID[k] = -1
			h := math.Max(-p.Const[i], 0)
			if p.Power[i] == 2 {
				h *= h
			}
			l.Offset += w * h
			continue
		}
		newID[k] = int32(lp.AddPotential(w, p.Const[i], p.Power[i], group[k], vars, coefs))
		l.Copies = appendCopies(l.Copies, col.Var, p.Var[p.Start[i]:p.Start[i+1]], vars, size[k])
	}
	renumber(l.PotClass, col.Pot, newID)

	// Constraints likewise; one whose coefficients all cancel must hold.
	size, rep, group = classInfo(col.Con, col.NumCon, p.CGroup)
	newID = make([]int32, col.NumCon)
	var ccopies []float64
	for k, j := range rep {
		vars, coefs, err := b.row(g.m + int(j))
		if err != nil {
			return nil, fmt.Errorf("lift: constraint %d: %w", j, err)
		}
		kind, c := p.CKind[j], p.CConst[j]
		if len(vars) == 0 {
			newID[k] = -1
			if (kind == hlmrf.LessEq && !(-c <= tol)) || (kind == hlmrf.Equal && !(math.Abs(c) <= tol)) {
				return nil, &InfeasibleError{Constraint: int(j), Members: int(size[k]), Kind: kind, Const: c}
			}
			continue
		}
		newID[k] = int32(lp.AddConstraint(kind, c, group[k], vars, coefs))
		ccopies = appendCopies(ccopies, col.Var, p.CVar[p.CStart[j]:p.CStart[j+1]], vars, size[k])
	}
	renumber(l.ConClass, col.Con, newID)
	l.Copies = append(l.Copies, ccopies...)
	return l, nil
}

// renumber sets dst[i] to the lifted factor of class color[i] (newID).
func renumber(dst, color, newID []int32) {
	for i, k := range color {
		dst[i] = newID[k]
	}
}

// classInfo returns per class its size, first member and the group of its
// members (-1 unless all members share one).
func classInfo(color []int32, n int, groups []int32) (size, rep, group []int32) {
	size = make([]int32, n)
	rep = make([]int32, n)
	group = make([]int32, n)
	for i, k := range color {
		if size[k] == 0 {
			rep[k] = int32(i)
			group[k] = groups[i]
		} else if group[k] != groups[i] {
			group[k] = -1
		}
		size[k]++
	}
	return size, rep, group
}

// rowBuilder sums one factor's coefficients per variable class.
type rowBuilder struct {
	g       *graph
	class   []int32 // variable -> class
	slot    []int32 // class -> index in the current row, or -1
	first   []int32 // per row entry: its first edge
	count   []int32 // per row entry: how many edges
	acc     []uint64
	scratch []uint64 // one weight (graph.weight)
	vars    []int32
	coefs   []float64
}

func newRowBuilder(g *graph, col *Coloring) *rowBuilder {
	slot := make([]int32, col.NumVar)
	for i := range slot {
		slot[i] = -1
	}
	return &rowBuilder{g: g, class: col.Var, slot: slot}
}

// row returns factor f's lifted terms: per variable class the exact sum of
// f's coefficients into it, rounded to float64, zeros left out. The slices
// are reused by the next call.
func (b *rowBuilder) row(f int) ([]int32, []float64, error) {
	g := b.g
	lo, hi := g.fStart[f], g.fStart[f+1]
	b.vars, b.first, b.count = b.vars[:0], b.first[:0], b.count[:0]
	merged := false
	for e := lo; e < hi; e++ {
		k := b.class[g.fVar[e]]
		if q := b.slot[k]; q >= 0 {
			b.count[q]++
			merged = true
			continue
		}
		b.slot[k] = int32(len(b.vars))
		b.vars = append(b.vars, k)
		b.first = append(b.first, e)
		b.count = append(b.count, 1)
	}
	b.coefs = b.coefs[:0]
	if !merged {
		// Every class has one term: the coefficients are the original ones.
		for q, k := range b.vars {
			b.slot[k] = -1
			b.coefs = append(b.coefs, g.coef(b.first[q]))
		}
		return b.dropZeros()
	}
	w := g.scale.words
	if need := len(b.vars) * w; cap(b.acc) < need {
		b.acc = make([]uint64, need)
	}
	clear(b.acc[:len(b.vars)*w])
	if len(b.scratch) < w {
		b.scratch = make([]uint64, w)
	}
	for e := lo; e < hi; e++ {
		q := int(b.slot[b.class[g.fVar[e]]])
		if b.count[q] > 1 {
			addTo(b.acc[q*w:(q+1)*w], g.weight(e, b.scratch[:w]))
		}
	}
	for q, k := range b.vars {
		b.slot[k] = -1
		x := g.coef(b.first[q])
		if b.count[q] > 1 {
			var ok bool
			if x, ok = g.scale.float(b.acc[q*w : (q+1)*w]); !ok {
				for _, k := range b.vars[q+1:] {
					b.slot[k] = -1
				}
				return nil, nil, fmt.Errorf("the summed coefficient of %d terms in one variable class overflows float64", b.count[q])
			}
		}
		b.coefs = append(b.coefs, x)
	}
	return b.dropZeros()
}

// dropZeros removes the terms whose coefficient is zero.
func (b *rowBuilder) dropZeros() ([]int32, []float64, error) {
	out := 0
	for q, x := range b.coefs {
		if x != 0 {
			b.vars[out], b.coefs[out] = b.vars[q], x
			out++
		}
	}
	return b.vars[:out], b.coefs[:out], nil
}

// Expand maps lifted values back to the original variables: each variable
// takes the value of its class. It panics if len(liftedValues) is not the
// number of lifted variables.
func (l *Lifted) Expand(liftedValues []float64) []float64 {
	if len(liftedValues) != l.Problem.NumVars {
		panic(fmt.Sprintf("lift: Expand got %d values for %d lifted variables", len(liftedValues), l.Problem.NumVars))
	}
	y := make([]float64, len(l.VarClass))
	for j, k := range l.VarClass {
		y[j] = liftedValues[k]
	}
	return y
}

// Objective returns the original problem's objective at Expand(liftedValues):
// the lifted objective plus Offset.
func (l *Lifted) Objective(liftedValues []float64) float64 {
	return l.Problem.Objective(liftedValues) + l.Offset
}

// appendCopies appends, for every lifted variable of a lifted row, how many
// original local copies it stands for: the class size times the number of
// the representative row's variables (orig) that fall in that class.
func appendCopies(dst []float64, varClass []int32, orig, lifted []int32, size int32) []float64 {
	if len(orig) > 32 {
		count := make(map[int32]int, len(lifted))
		for _, v := range orig {
			count[varClass[v]]++
		}
		for _, lv := range lifted {
			dst = append(dst, float64(size)*float64(count[lv]))
		}
		return dst
	}
	for _, lv := range lifted {
		n := 0
		for _, v := range orig {
			if varClass[v] == lv {
				n++
			}
		}
		dst = append(dst, float64(size)*float64(n))
	}
	return dst
}
