package ground

import (
	"strconv"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// argKind says where an atom argument's value comes from.
type argKind uint8

const (
	argConst   argKind = iota // a constant interned in the store's dictionary
	argVar                    // a rule variable: val[slot]
	argSum                    // a summation variable: val[slot], free in joins
	argMissing                // a constant absent from the dictionary
)

type arg struct {
	kind argKind
	v    int32 // constant id or variable slot
}

// patom is an atom of a rule compiled against the store.
type patom struct {
	tab     *store.Table
	varOf   []int32 // row -> variable column, -1 when observed; nil in delta joins (the table grows: Kind says)
	args    []arg
	neg     bool // logical: the clause negates it
	missing bool // a constant argument is not in the dictionary: no rows match
	hasSum  bool // arithmetic: some argument is a summation variable
	// skipTrue: logical binding atoms skip rows that make their literal true
	// (observed 0 when negated, observed 1 when positive).
	skipTrue bool
}

// observed reports whether row r of a's table is an observed atom.
func (a *patom) observed(r int32) bool {
	if a.varOf == nil {
		return a.tab.Kind(int(r)) == store.Observed
	}
	return a.varOf[r] < 0
}

// slots assigns variable names to dense slots.
type slots struct {
	index map[string]int32
	names []string
}

func (s *slots) get(name string) int32 {
	if s.index == nil {
		s.index = make(map[string]int32)
	}
	if i, ok := s.index[name]; ok {
		return i
	}
	i := int32(len(s.names))
	s.index[name] = i
	s.names = append(s.names, name)
	return i
}

// compileAtom resolves a's arguments: constants to dictionary ids, variables
// to slots (summation variables marked argSum).
func (g *Grounder) compileAtom(a *model.Atom, sl *slots) patom {
	p := patom{tab: g.tables[a.Pred.Index], varOf: g.varOf[a.Pred.Index], args: make([]arg, len(a.Args))}
	for i, t := range a.Args {
		switch t.Kind {
		case model.Constant:
			if id, ok := g.s.Dict.Lookup(t.Name); ok {
				p.args[i] = arg{argConst, id}
			} else {
				p.args[i] = arg{argMissing, -1}
				p.missing = true
			}
		case model.Variable:
			p.args[i] = arg{argVar, sl.get(t.Name)}
		case model.SumVariable:
			p.args[i] = arg{argSum, sl.get(t.Name)}
			p.hasSum = true
		}
	}
	return p
}

// fillKey writes the values of the given arguments into key.
func fillKey(key []int32, src []arg, val []int32) []int32 {
	for i, a := range src {
		if a.kind == argConst {
			key[i] = a.v
		} else {
			key[i] = val[a.v]
		}
	}
	return key
}

// operand is one side of a comparison: a variable slot, or a constant (id,
// or -1 with its name when the dictionary does not have it).
type operand struct {
	slot int32 // -1 for a constant
	id   int32
	name string
}

// pcmp is a compiled comparison literal.
type pcmp struct {
	op   model.CmpOp
	l, r operand
	neg  bool // the clause negates it (a comparison in the rule's body)
}

func (g *Grounder) compileOperand(t model.Term, sl *slots) operand {
	if t.Kind == model.Constant {
		if id, ok := g.s.Dict.Lookup(t.Name); ok {
			return operand{slot: -1, id: id, name: t.Name}
		}
		return operand{slot: -1, id: -1, name: t.Name}
	}
	return operand{slot: sl.get(t.Name), id: -1}
}

func (g *Grounder) compileCmp(c *model.Comparison, neg bool, sl *slots) pcmp {
	return pcmp{op: c.Op, l: g.compileOperand(c.Left, sl), r: g.compileOperand(c.Right, sl), neg: neg}
}

// constant reports whether both sides are constants.
func (c *pcmp) constant() bool { return c.l.slot < 0 && c.r.slot < 0 }

// holds evaluates the comparison under the substitution val.
func (c *pcmp) holds(val []int32, d *store.Dict) bool {
	a, b := c.l.id, c.r.id
	if c.l.slot >= 0 {
		a = val[c.l.slot]
	}
	if c.r.slot >= 0 {
		b = val[c.r.slot]
	}
	if a >= 0 && b >= 0 {
		switch c.op {
		case model.CmpEq:
			return a == b
		case model.CmpNeq:
			return a != b
		}
		return d.Less(a, b)
	}
	// A constant the dictionary does not have: compare by name.
	an, bn := c.l.name, c.r.name
	if a >= 0 {
		an = d.Name(a)
	}
	if b >= 0 {
		bn = d.Name(b)
	}
	switch c.op {
	case model.CmpEq:
		return an == bn
	case model.CmpNeq:
		return an != bn
	}
	return nameLess(an, bn)
}

// literalTrue reports whether the comparison literal is true (so the ground
// clause is satisfied).
func (c *pcmp) literalTrue(val []int32, d *store.Dict) bool {
	return c.holds(val, d) != c.neg
}

// nameLess is store.Dict.Less on names: integers numerically and before
// text, text lexicographically.
func nameLess(a, b string) bool {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case (errA == nil) != (errB == nil):
		return errA == nil
	}
	return a < b
}

// mergeSmall sums the coefficients of repeated variables (quadratic scan,
// for short rows) and drops zero coefficients, in place.
func mergeSmall(vars []int32, coefs []float64) ([]int32, []float64) {
	n := 0
	for k, v := range vars {
		merged := false
		for q := 0; q < n; q++ {
			if vars[q] == v {
				coefs[q] += coefs[k]
				merged = true
				break
			}
		}
		if !merged {
			vars[n], coefs[n] = v, coefs[k]
			n++
		}
	}
	return dropZero(vars[:n], coefs[:n])
}

// mergeDense is mergeSmall for long rows: pos maps a variable to its place
// in the row (-1 when absent) and is restored to all -1 on return.
func mergeDense(vars []int32, coefs []float64, pos []int32) ([]int32, []float64) {
	n := 0
	for k, v := range vars {
		if q := pos[v]; q >= 0 {
			coefs[q] += coefs[k]
			continue
		}
		pos[v] = int32(n)
		vars[n], coefs[n] = v, coefs[k]
		n++
	}
	for _, v := range vars[:n] {
		pos[v] = -1
	}
	return dropZero(vars[:n], coefs[:n])
}

func dropZero(vars []int32, coefs []float64) ([]int32, []float64) {
	n := 0
	for k := range vars {
		if coefs[k] != 0 {
			vars[n], coefs[n] = vars[k], coefs[k]
			n++
		}
	}
	return vars[:n], coefs[:n]
}

// clean returns c with rounding noise (|c| <= 1e-12, for example from
// 1 - 0.3 - 0.7) and -0 replaced by 0, so that constants read as written.
func clean(c float64) float64 {
	if c <= 1e-12 && c >= -1e-12 {
		return 0
	}
	return c
}

// maxOver is the largest value of sum coef*y over y in [0,1]^n.
func maxOver(coefs []float64) float64 {
	s := 0.0
	for _, c := range coefs {
		if c > 0 {
			s += c
		}
	}
	return s
}

// template is what every ground potential or constraint of a rule shares;
// its add methods emit them.
type template struct {
	weight float64
	power  uint8 // 1, or 2 for a squared rule
	group  int32 // the rule's index
	hard   bool
}

func templateOf(r *model.Rule) template {
	t := template{weight: r.Weight, power: 1, group: int32(r.Index), hard: !r.Weighted}
	if r.Squared {
		t.power = 2
	}
	return t
}

// addHinge appends weight*max(sum coef*y - c, 0)^power unless it has no
// variable or is satisfied for every y. The terms must be merged already.
func (t *template) addHinge(out *hlmrf.Problem, vars []int32, coefs []float64, c float64) {
	if len(vars) == 0 || maxOver(coefs)-c <= eps {
		return
	}
	c = clean(c)
	out.AddPotential(t.weight, c, t.power, t.group, vars, coefs)
}

// addLessEq appends sum coef*y <= c unless it holds for every y. With no
// variable it is kept only when violated, and then it reports true.
func (t *template) addLessEq(out *hlmrf.Problem, vars []int32, coefs []float64, c float64) bool {
	if maxOver(coefs)-c <= eps {
		return false
	}
	c = clean(c)
	out.AddConstraint(hlmrf.LessEq, c, t.group, vars, coefs)
	return len(vars) == 0
}

// addEqual appends sum coef*y = c; with no variable it is kept only when
// violated, and then it reports true.
func (t *template) addEqual(out *hlmrf.Problem, vars []int32, coefs []float64, c float64) bool {
	if len(vars) == 0 {
		if c <= eps && c >= -eps {
			return false
		}
		out.AddConstraint(hlmrf.Equal, c, t.group, nil, nil)
		return true
	}
	c = clean(c)
	out.AddConstraint(hlmrf.Equal, c, t.group, vars, coefs)
	return false
}
