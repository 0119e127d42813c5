package explain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// KinkTol is how close to the hinge's corner (a.y = c) a linear potential's
// inner value may be for its gradient to count as undetermined: there any
// share of its weight in [0, w] is a subgradient, and only the solver's
// dual says which one holds the answer in place.
const KinkTol = 1e-4

// PSL explains the answer of a PSL model (a hinge-loss MRF solved by
// consensus ADMM): which ground rules pull each atom up and down.
//
// At an optimum y of f(y) = sum_i f_i(y) over [0,1]^n with hard
// constraints, 0 = sum_i g_i + nu for some subgradients g_i of the terms
// (potentials and constraints) and nu in the normal cone of the box at y.
// ADMM's dual variables give them (admm.Solver.Duals): -alpha_i is a
// subgradient of term i, so alpha_i's entry for an atom is the term's pull
// on it (positive pushes the atom up), and the pulls of every term on an
// atom sum to -nu: zero when the atom is strictly inside (0, 1) (the pulls
// balance), at most zero at 0 and at least zero at 1, where the bound's
// multiplier nu (Bound) makes up the difference.
type PSL struct {
	Model  *model.Model
	Store  *store.Store
	Ground *ground.Result
	// Values is the answer: one value per variable of Ground.Problem.
	Values []float64
	// PotentialDuals and ConstraintDuals are admm.Solver.Duals() of the
	// solve that found Values (one per local copy).
	PotentialDuals, ConstraintDuals []float64

	rec *Recoverer
}

// SetContext makes the recovery of ground rules stop once ctx is done.
func (e *PSL) SetContext(ctx context.Context) { e.rec.Context = ctx }

// NewPSL checks that the duals fit the problem and prepares to recover its
// ground rules. Without duals (both nil: an answer not found by ADMM on this
// problem, such as a lifted or discrete one) only WriteSatisfaction works.
func NewPSL(m *model.Model, s *store.Store, g *ground.Result, values, potDuals, conDuals []float64) (*PSL, error) {
	if g == nil || g.Problem == nil {
		return nil, errors.New("explain: no ground problem")
	}
	p := g.Problem
	switch {
	case len(values) != p.NumVars:
		return nil, fmt.Errorf("explain: %d values for %d variables", len(values), p.NumVars)
	case potDuals == nil && conDuals == nil:
		// No duals: the satisfaction file only.
	case len(potDuals) != len(p.Var) || len(conDuals) != len(p.CVar):
		return nil, fmt.Errorf("explain: %d potential and %d constraint duals for %d and %d local copies (the duals of the solve of this problem?)", len(potDuals), len(conDuals), len(p.Var), len(p.CVar))
	}
	rec, err := NewRecoverer(m, s, g)
	if err != nil {
		return nil, err
	}
	return &PSL{Model: m, Store: s, Ground: g, Values: values, PotentialDuals: potDuals, ConstraintDuals: conDuals, rec: rec}, nil
}

// AtomValue is an atom of a ground rule with its value; Target says it is
// a variable of the problem (its value inferred), not observed.
type AtomValue struct {
	Atom   string  `json:"atom"`
	Value  float64 `json:"value"`
	Target bool    `json:"target"`
}

// PSLTerm is one ground rule (potential or hard constraint) that contains
// the explained atom, and its pull on it.
type PSLTerm struct {
	// Rule is the rule's index in the model (its line in the satisfaction
	// file's rule column), RuleText the rule as written, Where its
	// position in the model file.
	Rule     int    `json:"rule"`
	RuleText string `json:"rule_text"`
	Where    string `json:"where,omitempty"`
	// Ground is the ground rule: the rule with the substitution applied
	// (logical rules), or the term's linear form over the atoms
	// (arithmetic rules). Substitution is "X=Bob, Y=Anna" (empty for an
	// arithmetic rule).
	Ground       string `json:"ground"`
	Substitution string `json:"substitution,omitempty"`
	// Hard marks a hard constraint (no weight); Weight and Squared are
	// those of a potential.
	Hard    bool    `json:"hard,omitempty"`
	Weight  float64 `json:"weight"`
	Squared bool    `json:"squared,omitempty"`
	// Role is where the atom sits in the rule: "body", "head", empty (a
	// logical rule that is not an implication), or, for an arithmetic
	// rule, "coef" and the atom's coefficient; Negated says the ground clause
	// negates the atom (raising it moves the clause away from
	// satisfaction). Coef is the atom's coefficient in the term's linear
	// form a.y - c (positive: raising the atom raises the distance).
	Role    string  `json:"role,omitempty"`
	Negated bool    `json:"negated"`
	Coef    float64 `json:"coef"`
	// Distance is max(a.y - c, 0) at the answer: the ground rule's
	// distance to satisfaction (for a hard constraint, its violation);
	// Penalty its weighted value w*Distance^p.
	Distance float64 `json:"distance"`
	Penalty  float64 `json:"penalty"`
	// Pull is the term's dual on the atom: positive pushes it up.
	// Gradient is minus the term's derivative in the atom where it has one
	// (a squared potential, a linear one away from its corner by more
	// than KinkTol); at the corner, and for hard constraints, only the
	// dual says, and Gradient is null.
	Pull     float64  `json:"pull"`
	Gradient *float64 `json:"gradient"`
	// At a bound (the atom at 0 or 1), where every pull may be 0 and
	// say nothing: what the term would do if the atom left the bound
	// (rose from 0, fell from 1) by d. Back is the rate at which its
	// penalty would change (> 0: it resists the move, a pull back
	// towards the bound), BackQuadratic the coefficient of d^2 of a
	// squared hinge at its corner, which resists only to second order,
	// and Blocks says a hard constraint, tight at the answer, forbids the
	// move. Null inside (0, 1).
	Back          *float64 `json:"back,omitempty"`
	BackQuadratic float64  `json:"back_quadratic,omitempty"`
	Blocks        bool     `json:"blocks,omitempty"`
	// Atoms are the ground rule's atoms with their values.
	Atoms []AtomValue `json:"atoms"`

	term int32 // the term's number (Recoverer.TermsOf)
}

// PSLExplanation explains one atom's value: every ground rule containing
// it, sorted by the size of its pull, the first Top of them kept.
type PSLExplanation struct {
	Atom  string  `json:"atom"`
	Var   int     `json:"var"`
	Value float64 `json:"value"`
	// Terms are the ground rules kept (the largest pulls first); Count
	// is how many contain the atom in all.
	Terms []PSLTerm `json:"terms"`
	Count int       `json:"count"`
	// Up and Down sum the positive and negative pulls of all Count terms;
	// Bound is the multiplier of the bound 0 <= y <= 1, -(Up + Down), so
	// that Up + Down + Bound = 0. It is 0 (to rounding) for an atom
	// strictly between 0 and 1, >= 0 at 0 and <= 0 at 1. At says which:
	// "interior", "lower bound" or "upper bound".
	Up    float64 `json:"pull_up"`
	Down  float64 `json:"pull_down"`
	Bound float64 `json:"bound_multiplier"`
	At    string  `json:"at"`
	// OmittedUp and OmittedDown are the pulls of the terms left out by
	// the top-k cut.
	OmittedUp   float64 `json:"omitted_pull_up"`
	OmittedDown float64 `json:"omitted_pull_down"`
}

// VarAtom names variable v's atom.
func VarAtom(g *ground.Result, v int) Atom {
	return Atom{Pred: g.Vars[v].Pred.Name, Args: g.Args(v)}
}

// pslName writes an atom as PSL quotes constants, Pred('a', 'b'), with the
// escapes ParseAtom reads back (a quote, a backslash, a newline or a tab
// in a constant), so that an explanation's header can be given to
// --explain as it is.
func pslName(a Atom) string {
	q := make([]string, len(a.Args))
	for i, s := range a.Args {
		q[i] = quote(s)
	}
	return a.Pred + "(" + strings.Join(q, ", ") + ")"
}

// FindVar finds the variable of atom a in a store grounded by g: the error
// says what is wrong (no such predicate, constant or atom, or an observed
// atom, which was not inferred).
func FindVar(m *model.Model, s *store.Store, g *ground.Result, a Atom) (int, error) {
	pred := m.Predicate(a.Pred)
	if pred == nil {
		return -1, fmt.Errorf("%s: no predicate %s in the model", a, a.Pred)
	}
	if len(a.Args) != pred.Arity {
		return -1, fmt.Errorf("%s: %s takes %d argument(s), not %d", a, pred.Name, pred.Arity, len(a.Args))
	}
	ids := make([]int32, len(a.Args))
	for i, c := range a.Args {
		id, ok := s.Dict.Lookup(c)
		if !ok {
			return -1, fmt.Errorf("%s: %q is not a constant of the data", a, c)
		}
		ids[i] = id
	}
	t := s.Table(pred)
	row, ok := t.Find(ids)
	if !ok {
		return -1, fmt.Errorf("%s: no such atom (not a target, not observed%s)", a, map[bool]string{true: "; the predicate is closed, so it is 0", false: ""}[pred.Closed])
	}
	if t.Kind(row) != store.Target {
		return -1, fmt.Errorf("%s is observed (value %g), not inferred: nothing to explain", a, t.Value(row))
	}
	if g == nil {
		return row, nil // a row, for callers checking before grounding
	}
	v := g.VarOf(pred, row)
	if v < 0 {
		return -1, fmt.Errorf("%s: not a variable of the ground problem", a)
	}
	return int(v), nil
}

// Explain explains variable v's value, keeping the top largest pulls (all
// when top <= 0).
func (e *PSL) Explain(v int, top int) (*PSLExplanation, error) {
	xs, err := e.ExplainMany([]int{v}, top)
	if err != nil {
		return nil, err
	}
	return xs[0], nil
}

// ExplainAll explains every variable, recovering the ground rules in one
// pass (Recoverer.many) instead of one per atom.
func (e *PSL) ExplainAll(top int) ([]*PSLExplanation, error) {
	vs := make([]int, len(e.Values))
	for v := range vs {
		vs[v] = v
	}
	return e.ExplainMany(vs, top)
}

// ExplainMany explains the variables vs, in that order, keeping the top
// largest pulls of each (all when top <= 0). Their ground rules are
// recovered by a join per variable for a few of them, else in one pass over
// the groundings of their rules; the text of a ground rule is made only for
// those kept. It stops, with the context's error, once the context
// (SetContext) is done.
func (e *PSL) ExplainMany(vs []int, top int) ([]*PSLExplanation, error) {
	for _, v := range vs {
		if v < 0 || v >= len(e.Values) {
			return nil, fmt.Errorf("explain: no variable %d", v)
		}
	}
	if err := e.checkDuals(); err != nil {
		return nil, err
	}
	grs, err := e.rec.groundings(vs)
	if err != nil {
		return nil, err
	}
	out := make([]*PSLExplanation, len(vs))
	for i, v := range vs {
		if err := e.rec.tick(); err != nil {
			return nil, err
		}
		out[i] = e.explain(v, top, grs)
	}
	return out, nil
}

// checkDuals refuses to explain without the solve's duals.
func (e *PSL) checkDuals() error {
	if e.PotentialDuals == nil && e.ConstraintDuals == nil && (len(e.Ground.Problem.Var) > 0 || len(e.Ground.Problem.CVar) > 0) {
		return errors.New("explain: no duals of the solve: the pulls come from ADMM's duals at the answer")
	}
	return nil
}

func (e *PSL) explain(v, top int, grs *foundSet) *PSLExplanation {
	g := e.Ground
	x := &PSLExplanation{Atom: pslName(VarAtom(g, v)), Var: v, Value: e.Values[v]}
	terms := e.rec.TermsOf(v)
	x.Terms = make([]PSLTerm, len(terms))
	for i, t := range terms {
		x.Terms[i] = e.term(v, t)
		if p := x.Terms[i].Pull; p > 0 {
			x.Up += p
		} else {
			x.Down += p
		}
	}
	x.Count = len(x.Terms)
	x.Bound = -(x.Up + x.Down)
	switch y := x.Value; {
	case y <= 1e-9:
		x.At = "lower bound"
	case y >= 1-1e-9:
		x.At = "upper bound"
	default:
		x.At = "interior"
	}
	// The largest pulls first, then by rule, then by the ground rule's
	// text: the text is made only for the terms that can be kept (those
	// before the top-th and those tied with it), so that explaining every
	// atom does not write out every ground rule.
	byPull := func(a, b PSLTerm) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Pull), math.Abs(a.Pull)), cmp.Compare(backKey(b), backKey(a)), cmp.Compare(b.BackQuadratic, a.BackQuadratic), cmp.Compare(a.Rule, b.Rule))
	}
	kept := keepTop(x.Terms, top, byPull)
	for i := range x.Terms[:kept] {
		e.termText(v, &x.Terms[i], grs.get(x.Terms[i].term))
	}
	slices.SortStableFunc(x.Terms[:kept], func(a, b PSLTerm) int {
		return cmp.Or(byPull(a, b), strings.Compare(a.Ground, b.Ground))
	})
	if top > 0 && len(x.Terms) > top {
		for _, t := range x.Terms[top:] {
			if t.Pull > 0 {
				x.OmittedUp += t.Pull
			} else {
				x.OmittedDown += t.Pull
			}
		}
		x.Terms = x.Terms[:top]
	}
	return x
}

// backKey orders terms at a bound by what they do against leaving it: a
// blocking hard constraint first, then by the rate of resistance.
func backKey(t PSLTerm) float64 {
	switch {
	case t.Blocks:
		return math.Inf(1)
	case t.Back == nil:
		return 0
	}
	return math.Abs(*t.Back)
}

// keepTop sorts ts stably by order and returns how many of them can be
// among the first top once ties under order are broken by another key:
// all of them when top <= 0, else those up to the top-th and every one
// tied with it.
func keepTop[T any](ts []T, top int, order func(a, b T) int) int {
	slices.SortStableFunc(ts, order)
	if top <= 0 || len(ts) <= top {
		return len(ts)
	}
	n := top
	for n < len(ts) && order(ts[top-1], ts[n]) == 0 {
		n++
	}
	return n
}

// term gives the figures of term t (TermsOf's numbering) as it bears on
// variable v; termText adds its text.
func (e *PSL) term(v int, t int32) PSLTerm {
	p := e.Ground.Problem
	vars, coefs, c, op := termForm(p, t)
	out := PSLTerm{term: t}
	var duals []float64
	if np := p.NumPotentials(); int(t) < np {
		out.Rule = int(p.Group[t])
		out.Weight, out.Squared = p.Weight[t], p.Power[t] == 2
		duals = e.PotentialDuals[p.Start[t]:p.Start[t+1]]
	} else {
		j := int(t) - np
		out.Rule = int(p.CGroup[j])
		out.Hard = true
		duals = e.ConstraintDuals[p.CStart[j]:p.CStart[j+1]]
	}
	inner := -c
	for k, u := range vars {
		inner += coefs[k] * e.Values[u]
		if int(u) == v {
			out.Coef = coefs[k]
			out.Pull = duals[k]
		}
	}
	if op == "=" {
		out.Distance = math.Abs(inner)
	} else {
		out.Distance = max(inner, 0)
	}
	if !out.Hard {
		pw := 1.0
		if out.Squared {
			pw = 2
		}
		out.Penalty = out.Weight * math.Pow(out.Distance, pw)
		switch {
		case out.Squared:
			gr := -2 * out.Weight * out.Distance * out.Coef
			out.Gradient = &gr
		case inner > KinkTol:
			gr := -out.Weight * out.Coef
			out.Gradient = &gr
		case inner < -KinkTol:
			gr := 0.0
			out.Gradient = &gr
		}
	}
	out.Negated = out.Coef > 0
	e.back(v, &out, inner)
	return out
}

// back fills in what term out (inner value inner) would do if variable v
// left the bound it is at (see PSLTerm.Back).
func (e *PSL) back(v int, out *PSLTerm, inner float64) {
	dir := 0.0
	switch y := e.Values[v]; {
	case y <= 1e-9:
		dir = 1 // rising from 0
	case y >= 1-1e-9:
		dir = -1 // falling from 1
	default:
		return
	}
	a := dir * out.Coef // the inner value's rate along the move
	rate := 0.0
	switch {
	case out.Hard:
		p := e.Ground.Problem
		equal := p.CKind[int(out.term)-p.NumPotentials()] == hlmrf.Equal
		tight := math.Abs(inner) <= KinkTol
		out.Blocks = a != 0 && (equal || tight && a > 0)
	case !out.Squared:
		switch {
		case inner > KinkTol:
			rate = out.Weight * a
		case inner >= -KinkTol:
			rate = out.Weight * max(a, 0)
		}
	default:
		if inner > KinkTol {
			rate = 2 * out.Weight * inner * a
		}
		if inner >= -KinkTol && (inner > KinkTol || a > 0) {
			out.BackQuadratic = out.Weight * a * a
		}
	}
	out.Back = &rate
}

// termText fills in the text of out (made by term for variable v): the
// rule, the ground rule from its grounding gr (nil for an arithmetic rule,
// shown in its linear form), and the ground rule's atoms.
func (e *PSL) termText(v int, out *PSLTerm, gr *Grounding) {
	if out.Rule >= 0 && out.Rule < len(e.Model.Rules) {
		r := e.Model.Rules[out.Rule]
		out.RuleText = ruleText(r)
		if r.Pos.IsValid() {
			out.Where = r.Pos.String()
		}
	}
	if gr != nil {
		out.Ground = gr.PSLText()
		out.Substitution = gr.Substitution()
		for _, a := range gr.Atoms {
			av := AtomValue{Atom: pslName(a.Atom), Value: a.Value}
			if a.Var >= 0 {
				av.Value, av.Target = e.Values[a.Var], true
				if int(a.Var) == v && out.Role == "" {
					out.Role = a.Role
				}
			}
			out.Atoms = append(out.Atoms, av)
		}
		return
	}
	vars, coefs, c, op := termForm(e.Ground.Problem, out.term)
	out.Role = "coef " + strconv.FormatFloat(out.Coef, 'g', 6, 64)
	out.Ground = linearForm(e.Ground, vars, coefs, c, op, *out)
	for _, u := range vars {
		out.Atoms = append(out.Atoms, AtomValue{Atom: pslName(VarAtom(e.Ground, int(u))), Value: e.Values[u], Target: true})
	}
}

// termForm is term t's linear form a.y - c (TermsOf's numbering: a
// potential, or a constraint after them) and the relation it is held to
// ("<=", or "=" for an equality constraint).
func termForm(p *hlmrf.Problem, t int32) (vars []int32, coefs []float64, c float64, op string) {
	if np := p.NumPotentials(); int(t) >= np {
		j := int(t) - np
		vars, coefs = p.CTerms(j)
		op = "<="
		if p.CKind[j] == hlmrf.Equal {
			op = "="
		}
		return vars, coefs, p.CConst[j], op
	}
	vars, coefs = p.Terms(int(t))
	return vars, coefs, p.Const[t], "<="
}

// ruleText is the rule as written, clipped for display.
func ruleText(r *model.Rule) string {
	return clip(strings.TrimSpace(r.Text))
}

// linearForm writes a term over atom names: "0.5 * max(Smokes('Bob') -
// Cancer('Bob') - 0, 0)^2", or for a constraint (op <= or =)
// "Smokes('Bob') + ... <= 1".
func linearForm(g *ground.Result, vars []int32, coefs []float64, c float64, op string, t PSLTerm) string {
	var b strings.Builder
	for k, u := range vars {
		cf := coefs[k]
		switch {
		case k == 0 && cf < 0:
			b.WriteString("-")
		case k > 0 && cf < 0:
			b.WriteString(" - ")
		case k > 0:
			b.WriteString(" + ")
		}
		if a := math.Abs(cf); a != 1 {
			b.WriteString(strconv.FormatFloat(a, 'g', 6, 64))
			b.WriteString("*")
		}
		b.WriteString(pslName(VarAtom(g, int(u))))
	}
	lin := b.String()
	if t.Hard {
		return fmt.Sprintf("%s %s %s", lin, op, strconv.FormatFloat(c, 'g', 6, 64))
	}
	pw := ""
	if t.Squared {
		pw = "^2"
	}
	minus := " - " + strconv.FormatFloat(c, 'g', 6, 64)
	switch {
	case c == 0:
		minus = ""
	case c < 0:
		minus = " + " + strconv.FormatFloat(-c, 'g', 6, 64)
	}
	return fmt.Sprintf("%s * max(%s%s, 0)%s", strconv.FormatFloat(t.Weight, 'g', 6, 64), lin, minus, pw)
}
