// Package hlmrf holds a ground hinge-loss Markov random field as flat arrays.
//
// A Problem has NumVars variables y in [0,1], potentials
//
//	Weight[i] * max(sum_k Coef[k]*y[Var[k]] - Const[i], 0)^Power[i]     k in Start[i]..Start[i+1]
//
// and hard linear constraints
//
//	sum_k CCoef[k]*y[CVar[k]]  (<= or =)  CConst[j]                      k in CStart[j]..CStart[j+1]
//
// stored struct-of-arrays in CSR form: no maps, no
// per-potential objects. Within one potential or constraint each variable
// appears at most once and every coefficient is nonzero; the Add methods merge
// repeated variables to keep it that way. The package knows nothing about
// rules: Group records which template (rule) produced a potential so that
// learners can swap weights in place, and nothing more.
package hlmrf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ConstraintKind says whether a hard constraint is an inequality or an equality.
type ConstraintKind uint8

const (
	// LessEq is sum(coef*y) <= const.
	LessEq ConstraintKind = iota
	// Equal is sum(coef*y) == const.
	Equal
)

// String returns "<=" or "=".
func (k ConstraintKind) String() string {
	if k == Equal {
		return "="
	}
	return "<="
}

// Problem is a ground HL-MRF: variables, hinge-loss potentials and hard linear
// constraints, as flat arrays. The zero value is an empty problem ready for
// AddPotential and AddConstraint. Variables are column indexes 0..NumVars-1.
type Problem struct {
	// NumVars is the number of variables.
	NumVars int

	// Potentials, one entry per potential in Weight, Const, Power, Group;
	// Start has one more entry than Weight (CSR row offsets into Var/Coef).
	Weight []float64
	Const  []float64
	Power  []uint8 // 1 (linear hinge) or 2 (squared hinge)
	Group  []int32 // the template (rule) index that produced the potential, or -1
	Start  []int32
	Var    []int32
	Coef   []float64

	// Hard constraints, one entry per constraint in CKind, CConst, CGroup;
	// CStart has one more entry than CKind.
	CKind  []ConstraintKind
	CConst []float64
	CGroup []int32
	CStart []int32
	CVar   []int32
	CCoef  []float64
}

// NumPotentials is the number of potentials.
func (p *Problem) NumPotentials() int { return len(p.Weight) }

// NumConstraints is the number of hard constraints.
func (p *Problem) NumConstraints() int { return len(p.CKind) }

// Terms returns the variables and coefficients of potential i (views into the
// flat arrays; do not append to them).
func (p *Problem) Terms(i int) ([]int32, []float64) {
	a, b := p.Start[i], p.Start[i+1]
	return p.Var[a:b], p.Coef[a:b]
}

// CTerms returns the variables and coefficients of constraint j.
func (p *Problem) CTerms(j int) ([]int32, []float64) {
	a, b := p.CStart[j], p.CStart[j+1]
	return p.CVar[a:b], p.CCoef[a:b]
}

// ConstraintNorm returns the Euclidean norm of constraint j's
// coefficients, ||a_j||, by which its violation tolerance is scaled.
func (p *Problem) ConstraintNorm(j int) float64 {
	_, a := p.CTerms(j)
	var n2 float64
	for _, x := range a {
		n2 += x * x
	}
	return math.Sqrt(n2)
}

// Reset empties p's potentials and constraints, keeping its arrays for
// reuse (NumVars is kept).
func (p *Problem) Reset() {
	p.Weight, p.Const, p.Power, p.Group = p.Weight[:0], p.Const[:0], p.Power[:0], p.Group[:0]
	p.Start, p.Var, p.Coef = p.Start[:0], p.Var[:0], p.Coef[:0]
	p.CKind, p.CConst, p.CGroup = p.CKind[:0], p.CConst[:0], p.CGroup[:0]
	p.CStart, p.CVar, p.CCoef = p.CStart[:0], p.CVar[:0], p.CCoef[:0]
}

// AddVars adds n variables and returns the index of the first.
func (p *Problem) AddVars(n int) int32 {
	first := p.NumVars
	p.NumVars += n
	return int32(first)
}

// AddPotential appends weight*max(sum coef*y[vars] - c, 0)^power. Repeated
// variables are merged and zero coefficients dropped; the slices are copied.
// It returns the index of the new potential.
func (p *Problem) AddPotential(weight, c float64, power uint8, group int32, vars []int32, coefs []float64) int {
	if len(p.Start) == 0 {
		p.Start = append(p.Start, 0)
	}
	p.Var, p.Coef = appendMerged(p.Var, p.Coef, int(p.Start[len(p.Start)-1]), vars, coefs)
	p.Start = append(p.Start, int32(len(p.Var)))
	p.Weight = append(p.Weight, weight)
	p.Const = append(p.Const, c)
	p.Power = append(p.Power, power)
	p.Group = append(p.Group, group)
	return len(p.Weight) - 1
}

// AddConstraint appends the hard constraint sum coef*y[vars] (kind) c, with
// repeated variables merged and zero coefficients dropped. It returns the
// index of the new constraint.
func (p *Problem) AddConstraint(kind ConstraintKind, c float64, group int32, vars []int32, coefs []float64) int {
	if len(p.CStart) == 0 {
		p.CStart = append(p.CStart, 0)
	}
	p.CVar, p.CCoef = appendMerged(p.CVar, p.CCoef, int(p.CStart[len(p.CStart)-1]), vars, coefs)
	p.CStart = append(p.CStart, int32(len(p.CVar)))
	p.CKind = append(p.CKind, kind)
	p.CConst = append(p.CConst, c)
	p.CGroup = append(p.CGroup, group)
	return len(p.CKind) - 1
}

// appendMerged appends (vars, coefs) to (dv, dc) summing the coefficients of
// repeated variables and dropping zeros. from is where the current row starts.
func appendMerged(dv []int32, dc []float64, from int, vars []int32, coefs []float64) ([]int32, []float64) {
	if len(vars) > 32 {
		// Long rows (summations): index the row instead of scanning it.
		pos := make(map[int32]int, len(vars))
		for k, v := range vars {
			if q, ok := pos[v]; ok {
				dc[q] += coefs[k]
				continue
			}
			pos[v] = len(dv)
			dv = append(dv, v)
			dc = append(dc, coefs[k])
		}
		return dropZeros(dv, dc, from)
	}
	for k, v := range vars {
		merged := false
		for q := from; q < len(dv); q++ {
			if dv[q] == v {
				dc[q] += coefs[k]
				merged = true
				break
			}
		}
		if !merged {
			dv = append(dv, v)
			dc = append(dc, coefs[k])
		}
	}
	return dropZeros(dv, dc, from)
}

// dropZeros removes the terms from index from on whose coefficient is zero
// (they cancelled when repeated variables were merged).
func dropZeros(dv []int32, dc []float64, from int) ([]int32, []float64) {
	w := from
	for q := from; q < len(dv); q++ {
		if dc[q] != 0 {
			dv[w], dc[w] = dv[q], dc[q]
			w++
		}
	}
	return dv[:w], dc[:w]
}

// Append adds all variables, potentials and constraints of q to p, shifting
// q's variable indexes by p's current NumVars when shiftVars is true (disjoint
// union) or keeping them when false (q refers to p's variables). It returns
// the offset applied.
func (p *Problem) Append(q *Problem, shiftVars bool) int32 {
	var off int32
	if shiftVars {
		off = int32(p.NumVars)
		p.NumVars += q.NumVars
	} else if q.NumVars > p.NumVars {
		p.NumVars = q.NumVars
	}
	p.Start, p.Var = appendRows(p.Start, p.Var, q.Start, q.Var, off)
	p.Coef = append(p.Coef, q.Coef...)
	p.Weight = append(p.Weight, q.Weight...)
	p.Const = append(p.Const, q.Const...)
	p.Power = append(p.Power, q.Power...)
	p.Group = append(p.Group, q.Group...)

	p.CStart, p.CVar = appendRows(p.CStart, p.CVar, q.CStart, q.CVar, off)
	p.CCoef = append(p.CCoef, q.CCoef...)
	p.CKind = append(p.CKind, q.CKind...)
	p.CConst = append(p.CConst, q.CConst...)
	p.CGroup = append(p.CGroup, q.CGroup...)
	return off
}

// appendRows appends the CSR rows (qstart, qvars) to (start, vars), shifting
// their offsets past the existing terms and their variables by off. An empty
// start gets its leading 0 first.
func appendRows(start, vars, qstart, qvars []int32, off int32) ([]int32, []int32) {
	if len(start) == 0 {
		start = append(start, 0)
	}
	base := start[len(start)-1]
	for i := 1; i < len(qstart); i++ {
		start = append(start, base+qstart[i])
	}
	for _, v := range qvars {
		vars = append(vars, v+off)
	}
	return start, vars
}

// Clone returns a deep copy of p.
func (p *Problem) Clone() *Problem {
	q := &Problem{NumVars: p.NumVars}
	q.Weight = append([]float64(nil), p.Weight...)
	q.Const = append([]float64(nil), p.Const...)
	q.Power = append([]uint8(nil), p.Power...)
	q.Group = append([]int32(nil), p.Group...)
	q.Start = append([]int32(nil), p.Start...)
	q.Var = append([]int32(nil), p.Var...)
	q.Coef = append([]float64(nil), p.Coef...)
	q.CKind = append([]ConstraintKind(nil), p.CKind...)
	q.CConst = append([]float64(nil), p.CConst...)
	q.CGroup = append([]int32(nil), p.CGroup...)
	q.CStart = append([]int32(nil), p.CStart...)
	q.CVar = append([]int32(nil), p.CVar...)
	q.CCoef = append([]float64(nil), p.CCoef...)
	return q
}

// Arg returns sum coef*y - const for potential i: the hinge's argument.
func (p *Problem) Arg(i int, y []float64) float64 {
	s := -p.Const[i]
	for k := p.Start[i]; k < p.Start[i+1]; k++ {
		s += p.Coef[k] * y[p.Var[k]]
	}
	return s
}

// ConstraintText writes constraint j as a sum of its terms, each
// variable written by name, then its kind and constant: "X + 2*Y <= 1"
// ("0 = 1" without terms).
func (p *Problem) ConstraintText(j int, name func(v int32) string) string {
	vars, coefs := p.CTerms(j)
	var b strings.Builder
	for k, v := range vars {
		c := coefs[k]
		switch {
		case k > 0 && c < 0:
			b.WriteString(" - ")
			c = -c
		case k > 0:
			b.WriteString(" + ")
		case c < 0:
			b.WriteString("-")
			c = -c
		}
		if c != 1 {
			b.WriteString(strconv.FormatFloat(c, 'g', -1, 64))
			b.WriteString("*")
		}
		b.WriteString(name(v))
	}
	if len(vars) == 0 {
		b.WriteString("0")
	}
	fmt.Fprintf(&b, " %s %s", p.CKind[j], strconv.FormatFloat(p.CConst[j], 'g', -1, 64))
	return b.String()
}

// CArg returns sum coef*y - const for constraint j: how far its left-hand
// side is above its right-hand side.
func (p *Problem) CArg(j int, y []float64) float64 {
	s := -p.CConst[j]
	for k := p.CStart[j]; k < p.CStart[j+1]; k++ {
		s += p.CCoef[k] * y[p.CVar[k]]
	}
	return s
}

// Hinge returns max(sum coef*y - const, 0) for potential i (before the power).
func (p *Problem) Hinge(i int, y []float64) float64 {
	s := p.Arg(i, y)
	if s < 0 {
		return 0
	}
	return s
}

// Incompatibility returns max(sum coef*y - const, 0)^power for potential i:
// the potential's value without its weight.
func (p *Problem) Incompatibility(i int, y []float64) float64 {
	h := p.Hinge(i, y)
	if p.Power[i] == 2 {
		return h * h
	}
	return h
}

// Objective returns the energy sum_i Weight[i]*Incompatibility(i, y).
// Constraints are not included; see Violation.
func (p *Problem) Objective(y []float64) float64 {
	var f float64
	for i := range p.Weight {
		if p.Weight[i] == 0 {
			continue
		}
		f += p.Weight[i] * p.Incompatibility(i, y)
	}
	return f
}

// ConstraintViolation returns how far y is from satisfying constraint j:
// max(lhs-c, 0) for <= and |lhs-c| for =.
func (p *Problem) ConstraintViolation(j int, y []float64) float64 {
	s := p.CArg(j, y)
	if p.CKind[j] == Equal {
		return math.Abs(s)
	}
	return math.Max(s, 0)
}

// Violation summarises how well y satisfies the hard constraints and the box
// [0,1]: the largest violation, and how many constraints are violated by more
// than tol.
type Violation struct {
	Max      float64 // largest constraint violation (0 when all hold)
	Violated int     // constraints violated by more than the tolerance
	Worst    int     // index of the worst constraint, -1 when none
}

// Violations evaluates every hard constraint at y.
func (p *Problem) Violations(y []float64, tol float64) Violation {
	v := Violation{Worst: -1}
	for j := range p.CKind {
		d := p.ConstraintViolation(j, y)
		if d > tol {
			v.Violated++
		}
		if d > v.Max {
			v.Max, v.Worst = d, j
		}
	}
	return v
}

// ValidateOption relaxes one rule of Validate.
type ValidateOption int

const (
	// AllowZeroCoefs accepts zero coefficients (finite ones still).
	AllowZeroCoefs ValidateOption = iota + 1
	// AllowRepeatedVars accepts a variable more than once within a row.
	AllowRepeatedVars
)

// Validate checks the structural invariants: a nonnegative variable count,
// consistent array lengths, monotone offsets, variable indexes in range and
// unique within a row, finite nonnegative weights, finite constants and
// nonzero finite coefficients, powers of 1 or 2. It is meant for problems
// read from outside (files, Go users); the package's own builders keep these
// by construction. Options relax the rules that only some users need (lifting
// reads zero coefficients and repeated variables as zero-weight and parallel
// edges).
func (p *Problem) Validate(opts ...ValidateOption) error {
	zeroOK, repeatOK := slices.Contains(opts, AllowZeroCoefs), slices.Contains(opts, AllowRepeatedVars)
	if p.NumVars < 0 {
		return fmt.Errorf("hlmrf: negative variable count %d", p.NumVars)
	}
	m := len(p.Weight)
	if len(p.Const) != m || len(p.Power) != m || len(p.Group) != m {
		return errors.New("hlmrf: potential arrays have different lengths")
	}
	if err := checkRows("potential", p.Start, m, p.Var, len(p.Coef), p.NumVars, repeatOK); err != nil {
		return err
	}
	for i := 0; i < m; i++ {
		if w := p.Weight[i]; w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("hlmrf: potential %d: weight %v is not a finite nonnegative number", i, w)
		}
		if c := p.Const[i]; math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("hlmrf: potential %d: constant %v is not finite", i, c)
		}
		if p.Power[i] != 1 && p.Power[i] != 2 {
			return fmt.Errorf("hlmrf: potential %d: power %d is not 1 or 2", i, p.Power[i])
		}
	}
	if err := checkCoefs("potential", p.Coef, zeroOK); err != nil {
		return err
	}
	n := len(p.CKind)
	if len(p.CConst) != n || len(p.CGroup) != n {
		return errors.New("hlmrf: constraint arrays have different lengths")
	}
	if err := checkRows("constraint", p.CStart, n, p.CVar, len(p.CCoef), p.NumVars, repeatOK); err != nil {
		return err
	}
	for j := 0; j < n; j++ {
		if p.CKind[j] != LessEq && p.CKind[j] != Equal {
			return fmt.Errorf("hlmrf: constraint %d: unknown kind %d", j, p.CKind[j])
		}
		if c := p.CConst[j]; math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("hlmrf: constraint %d: constant %v is not finite", j, c)
		}
	}
	return checkCoefs("constraint", p.CCoef, zeroOK)
}

// checkCoefs checks that every term coefficient is finite and, unless
// zeroOK, nonzero.
func checkCoefs(what string, coefs []float64, zeroOK bool) error {
	for k, c := range coefs {
		if (c == 0 && !zeroOK) || math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("hlmrf: %s coefficient %d is %v (must be nonzero and finite)", what, k, c)
		}
	}
	return nil
}

// checkRows checks a CSR block's offsets and variable indexes (unique within
// a row unless repeatOK).
func checkRows(what string, start []int32, rows int, vars []int32, ncoef, nvars int, repeatOK bool) error {
	if rows == 0 && len(start) == 0 {
		if len(vars) != 0 || ncoef != 0 {
			return fmt.Errorf("hlmrf: %s terms without rows", what)
		}
		return nil
	}
	if len(start) != rows+1 || start[0] != 0 || int(start[rows]) != len(vars) || len(vars) != ncoef {
		return fmt.Errorf("hlmrf: %s offsets do not match the term arrays", what)
	}
	seen := make(map[int32]struct{})
	for i := 0; i < rows; i++ {
		if start[i+1] < start[i] {
			return fmt.Errorf("hlmrf: %s %d: offsets decrease", what, i)
		}
		clear(seen)
		for k := start[i]; k < start[i+1]; k++ {
			v := vars[k]
			if v < 0 || int(v) >= nvars {
				return fmt.Errorf("hlmrf: %s %d: variable %d out of range [0,%d)", what, i, v, nvars)
			}
			if repeatOK {
				continue
			}
			if _, dup := seen[v]; dup {
				return fmt.Errorf("hlmrf: %s %d: variable %d appears twice", what, i, v)
			}
			seen[v] = struct{}{}
		}
	}
	return nil
}

// VarDegree returns, for every variable, how many potentials and constraints
// it appears in (the number of local copies consensus ADMM keeps for it).
func (p *Problem) VarDegree() []int32 {
	d := make([]int32, p.NumVars)
	for _, v := range p.Var {
		d[v]++
	}
	for _, v := range p.CVar {
		d[v]++
	}
	return d
}
