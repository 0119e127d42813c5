package explain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

// MLN explains a MAP world of a Markov logic network: for an atom, the
// ground clauses that contain it, whether each holds in the world and
// would hold with the atom flipped, and what flipping the atom (every other
// atom kept) would cost: the change in the world's cost, the weight of the
// soft ground clauses it violates (|w| for each it satisfies, for a
// negative weight w), clause by clause. This is the quantity MaxWalkSAT's
// make and break counts track; at a MAP world no single flip lowers the
// cost, so it is >= 0 unless the search stopped short of a local optimum.
type MLN struct {
	Net    *mln.Network
	Ground *ground.Result
	// Values is the MAP world, 0 or 1 per variable of Ground.Problem.
	Values []float64

	rec *Recoverer
}

// SetContext makes the recovery of ground rules stop once ctx is done.
func (e *MLN) SetContext(ctx context.Context) { e.rec.Context = ctx }

// NewMLN prepares to explain the MAP world values of net's ground network
// g (as mln.Network.MAP returns them).
func NewMLN(net *mln.Network, g *ground.Result, values []float64) (*MLN, error) {
	if net == nil || g == nil || g.Problem == nil {
		return nil, errors.New("explain: no network or ground network")
	}
	if len(values) != g.Problem.NumVars {
		return nil, fmt.Errorf("explain: %d values for %d atoms", len(values), g.Problem.NumVars)
	}
	for i, v := range values {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("explain: value %v of atom %d is not 0 or 1 (a MAP world)", v, i)
		}
	}
	rec, err := NewRecoverer(net.Model, net.Store, g)
	if err != nil {
		return nil, err
	}
	return &MLN{Net: net, Ground: g, Values: values, rec: rec}, nil
}

// MLNTerm is one ground clause containing the explained atom.
type MLNTerm struct {
	// Rule indexes the network's clauses (mln.Network.Clauses, the rules
	// of its model); Formula is the formula as written and Where its
	// position; Clause is the CNF clause of it, with its share of the
	// weight, in Alchemy syntax.
	Rule    int    `json:"rule"`
	Formula string `json:"formula"`
	Where   string `json:"where,omitempty"`
	Clause  string `json:"clause"`
	// Ground is the ground clause (Alchemy syntax, the substitution
	// applied, the literals of the type predicates that enumerate a
	// variable's domain left out), Substitution the variables' constants.
	Ground       string `json:"ground"`
	Substitution string `json:"substitution,omitempty"`
	// Weight is the clause's signed weight (0 for a hard clause: Hard).
	Weight float64 `json:"weight"`
	Hard   bool    `json:"hard,omitempty"`
	// Negated says the clause negates the atom.
	Negated bool `json:"negated"`
	// Satisfied says whether the ground clause holds in the MAP world;
	// FlippedSatisfied whether it would with the atom flipped.
	Satisfied        bool `json:"satisfied"`
	FlippedSatisfied bool `json:"flipped_satisfied"`
	// FlipCost is the change of the clause's cost if the atom flipped
	// (0 for a hard clause: BreaksHard or MendsHard say what the flip does
	// to it). Pull is FlipCost signed towards the atom's value: positive
	// pulls the atom towards true, negative towards false.
	FlipCost   float64 `json:"flip_cost"`
	BreaksHard bool    `json:"breaks_hard,omitempty"`
	MendsHard  bool    `json:"mends_hard,omitempty"`
	Pull       float64 `json:"pull"`
	// Atoms are the ground clause's atoms with their values.
	Atoms []AtomValue `json:"atoms"`

	term int32 // the clause's term number (Recoverer.TermsOf)
}

// MLNExplanation explains one atom's value in a MAP world.
type MLNExplanation struct {
	Atom  string  `json:"atom"`
	Var   int     `json:"var"`
	Value float64 `json:"value"`
	// Terms are the ground clauses kept, the hard ones the flip would
	// break first, then by the size of their flip cost; Count is how many
	// contain the atom in all.
	Terms []MLNTerm `json:"terms"`
	Count int       `json:"count"`
	// FlipCost is the change in the world's cost if the atom alone
	// flipped (every soft clause counted, not only the Terms kept);
	// HardBroken and HardMended count the hard clauses that flip would
	// violate and satisfy.
	FlipCost   float64 `json:"flip_cost"`
	HardBroken int     `json:"hard_broken"`
	HardMended int     `json:"hard_mended"`
	// Resolved is filled by Resolve: the best world found with the atom
	// fixed at the other value.
	Resolved *Resolved `json:"resolved,omitempty"`
}

// Resolved is the outcome of solving the network again with one atom fixed
// at the value it does not have in the MAP world.
type Resolved struct {
	// Method is the MAP method used (as for the world explained).
	Method string `json:"method"`
	// Cost is the cost of the best world found with the atom flipped,
	// Delta that less the MAP world's cost, HardViolated the hard clauses
	// that world violates (the flip may make the hard clauses
	// unsatisfiable: Infeasible, and then Cost and Delta are 0).
	Cost         float64 `json:"cost"`
	Delta        float64 `json:"delta"`
	HardViolated int     `json:"hard_violated"`
	Infeasible   bool    `json:"infeasible,omitempty"`
	// Optimal says whether that world is certified optimal (its cost
	// meets the relaxation's lower bound).
	Optimal bool `json:"optimal"`
}

// mlnName writes an atom as hinge mln infer does: Pred(A, B).
func mlnName(a Atom) string { return mln.AtomString(a.Pred, a.Args) }

// Explain explains variable v's value, keeping the top clauses (all when
// top <= 0).
func (e *MLN) Explain(v, top int) (*MLNExplanation, error) {
	xs, err := e.ExplainMany([]int{v}, top)
	if err != nil {
		return nil, err
	}
	return xs[0], nil
}

// ExplainAll explains every variable (one recovery pass).
func (e *MLN) ExplainAll(top int) ([]*MLNExplanation, error) {
	vs := make([]int, len(e.Values))
	for v := range vs {
		vs[v] = v
	}
	return e.ExplainMany(vs, top)
}

// ExplainMany explains the variables vs, in that order, keeping the top
// clauses of each (all when top <= 0); see PSL.ExplainMany.
func (e *MLN) ExplainMany(vs []int, top int) ([]*MLNExplanation, error) {
	for _, v := range vs {
		if v < 0 || v >= len(e.Values) {
			return nil, fmt.Errorf("explain: no variable %d", v)
		}
	}
	grs, err := e.rec.groundings(vs)
	if err != nil {
		return nil, err
	}
	out := make([]*MLNExplanation, len(vs))
	for i, v := range vs {
		if err := e.rec.tick(); err != nil {
			return nil, err
		}
		out[i] = e.explain(v, top, grs)
	}
	return out, nil
}

// violated reports whether a ground clause term is violated at y.
func violated(vars []int32, coefs []float64, c float64, y func(int32) float64) bool {
	inner := -c
	for k, u := range vars {
		inner += coefs[k] * y(u)
	}
	return inner > 0.5
}

func (e *MLN) explain(v, top int, grs *foundSet) *MLNExplanation {
	g := e.Ground
	x := &MLNExplanation{Atom: mlnName(VarAtom(g, v)), Var: v, Value: e.Values[v], Terms: []MLNTerm{}} // [] in JSON, not null, for an atom in no clause
	p := g.Problem
	np := p.NumPotentials()
	cur := func(u int32) float64 { return e.Values[u] }
	flipped := func(u int32) float64 {
		if int(u) == v {
			return 1 - e.Values[u]
		}
		return e.Values[u]
	}
	for _, t := range e.rec.TermsOf(v) {
		var vars []int32
		var coefs []float64
		var c float64
		var group int32
		var term MLNTerm
		if int(t) < np {
			vars, coefs = p.Terms(int(t))
			c, group = p.Const[t], p.Group[t]
		} else {
			j := int(t) - np
			vars, coefs = p.CTerms(j)
			c, group = p.CConst[j], p.CGroup[j]
			term.Hard = true
		}
		term.Rule = int(group)
		if int(group) < len(e.Net.Clauses) {
			info := e.Net.Clauses[group]
			if !term.Hard {
				term.Weight = info.Weight
			}
			if info.Formula != nil {
				term.Formula = clip(strings.TrimSpace(info.Formula.Text))
				if info.Formula.Pos.IsValid() {
					term.Where = info.Formula.Pos.String()
				}
			}
			term.Clause = clip(e.Net.Model.Rules[group].Text)
		}
		for k, u := range vars {
			if int(u) == v {
				term.Negated = coefs[k] > 0
			}
		}
		term.Satisfied = !violated(vars, coefs, c, cur)
		term.FlippedSatisfied = !violated(vars, coefs, c, flipped)
		cost := func(sat bool) float64 {
			switch {
			case term.Hard:
				return 0
			case term.Weight >= 0 && !sat:
				return term.Weight
			case term.Weight < 0 && sat:
				return -term.Weight
			}
			return 0
		}
		term.FlipCost = cost(term.FlippedSatisfied) - cost(term.Satisfied)
		if term.Hard {
			term.BreaksHard = term.Satisfied && !term.FlippedSatisfied
			term.MendsHard = !term.Satisfied && term.FlippedSatisfied
			if term.BreaksHard {
				x.HardBroken++
			}
			if term.MendsHard {
				x.HardMended++
			}
		}
		x.FlipCost += term.FlipCost
		term.Pull = term.FlipCost
		if e.Values[v] == 0 {
			term.Pull = -term.FlipCost
		}
		term.term = t
		x.Terms = append(x.Terms, term)
	}
	x.Count = len(x.Terms)
	hardRank := func(t MLNTerm) int {
		switch {
		case t.BreaksHard:
			return 0
		case t.MendsHard:
			return 1
		}
		return 2
	}
	// As PSL.explain: the text only for the clauses that can be kept.
	byCost := func(a, b MLNTerm) int {
		return cmp.Or(cmp.Compare(hardRank(a), hardRank(b)), cmp.Compare(math.Abs(b.FlipCost), math.Abs(a.FlipCost)), cmp.Compare(a.Rule, b.Rule))
	}
	kept := keepTop(x.Terms, top, byCost)
	for i := range x.Terms[:kept] {
		e.termText(&x.Terms[i], grs.get(x.Terms[i].term))
	}
	slices.SortStableFunc(x.Terms[:kept], func(a, b MLNTerm) int {
		return cmp.Or(byCost(a, b), strings.Compare(a.Ground, b.Ground))
	})
	if top > 0 && len(x.Terms) > top {
		x.Terms = x.Terms[:top]
	}
	return x
}

// termText fills in the ground clause of term from its grounding gr (nil
// when none matched: the clause in its linear form) and its atoms.
func (e *MLN) termText(term *MLNTerm, gr *Grounding) {
	g := e.Ground
	if gr != nil {
		term.Ground, term.Substitution = mlnGroundText(gr), gr.Substitution()
		for _, a := range gr.Atoms {
			if mln.IsDomainPredicate(a.Atom.Pred) {
				continue
			}
			av := AtomValue{Atom: mlnName(a.Atom), Value: a.Value}
			if a.Var >= 0 {
				av.Value, av.Target = e.Values[a.Var], true
			}
			term.Atoms = append(term.Atoms, av)
		}
		return
	}
	vars, coefs, _, _ := termForm(g.Problem, term.term)
	term.Ground = mlnLinearClause(g, vars, coefs)
	for _, u := range vars {
		term.Atoms = append(term.Atoms, AtomValue{Atom: mlnName(VarAtom(g, int(u))), Value: e.Values[u], Target: true})
	}
}

// mlnGroundText writes a ground clause in Alchemy syntax.
func mlnGroundText(gr *Grounding) string {
	var parts []string
	for _, a := range gr.Atoms {
		if mln.IsDomainPredicate(a.Atom.Pred) {
			continue
		}
		s := mlnName(a.Atom)
		if a.Neg {
			s = "!" + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "(empty clause)"
	}
	return strings.Join(parts, " v ")
}

// mlnLinearClause writes a clause term without a recovered grounding from
// its literals.
func mlnLinearClause(g *ground.Result, vars []int32, coefs []float64) string {
	parts := make([]string, len(vars))
	for k, u := range vars {
		s := mlnName(VarAtom(g, int(u)))
		if coefs[k] > 0 {
			s = "!" + s
		}
		parts[k] = s
	}
	return strings.Join(parts, " v ")
}

// WorldCost is the cost of world x (0/1 per variable) in the ground
// network: the weight of the soft ground clauses it violates (|w| for each
// satisfied clause of negative weight w), and the number of hard clauses it
// violates.
func (e *MLN) WorldCost(x []float64) (cost float64, hardViolated int) {
	p := e.Ground.Problem
	y := func(u int32) float64 { return x[u] }
	for i := range p.NumPotentials() {
		vars, coefs := p.Terms(i)
		bad := violated(vars, coefs, p.Const[i], y)
		w := e.Net.Clauses[p.Group[i]].Weight
		switch {
		case w >= 0 && bad:
			cost += w
		case w < 0 && !bad:
			cost -= w
		}
	}
	for j := range p.NumConstraints() {
		vars, coefs := p.CTerms(j)
		if violated(vars, coefs, p.CConst[j], y) {
			hardViolated++
		}
	}
	return cost, hardViolated
}

// Resolve solves the network again with variable v fixed at the value it
// does not have in the explained world, by opt (the options of the run that
// found the world), and returns that world's cost against the explained
// world's (WorldCost of Values).
func (e *MLN) Resolve(ctx context.Context, v int, opt mln.MAPOptions) (*Resolved, error) {
	if v < 0 || v >= len(e.Values) {
		return nil, fmt.Errorf("explain: no variable %d", v)
	}
	lit := maxsat.Pos(v)
	if e.Values[v] == 1 {
		lit = maxsat.Not(v)
	}
	opt.Fixed = append(append([]maxsat.Lit(nil), opt.Fixed...), lit)
	method := opt.Method
	if method == "" {
		method = mln.MethodLPRound
	}
	base, _ := e.WorldCost(e.Values)
	res, err := e.Net.MAP(ctx, opt)
	var inf *mln.InfeasibleError
	if errors.As(err, &inf) {
		return &Resolved{Method: method, Infeasible: true}, nil
	}
	if err != nil {
		return nil, err
	}
	if res.Ground.Problem.NumVars != len(e.Values) {
		return nil, fmt.Errorf("explain: the network grounds to %d atoms now, %d before", res.Ground.Problem.NumVars, len(e.Values))
	}
	cost, hv := e.WorldCost(res.Values)
	return &Resolved{Method: method, Cost: cost, Delta: cost - base, HardViolated: hv, Optimal: res.Report.Optimal}, nil
}
