package rrf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// FromMLN converts a Markov logic knowledge base into a relational RRF, as
// the paper describes (each clause a parfeature): every formula is put in
// conjunctive normal form, and each of its clauses c, over variables v,
// becomes
//
//	Fi_j(v) = lambda * !l_1 + ... + lambda * !l_k
//
// (the conjunction of the negated literals: 1 when the clause is false, at
// most exp(-lambda) otherwise, as FromClauses writes a ground clause), with
// the root term -w_c * sum(v) Fi_j(v), w_c the clause's share of the
// formula's weight by Alchemy's rule (mln.FormulaClauses: a formula's unit
// clauses become one clause of negated literals and negated weight, and the
// weight is divided equally among the clauses; hard formulas weigh
// hardWeight per clause). Every clause weight and every lambda is a weight
// of its own, which learning may move; negative weights need no rewriting.
// The RRF's distribution tends to the network's as lambda grows.
// Existential and universal quantifiers, equality literals, +x terms and
// functional (type!) arguments are refused.
func FromMLN(kb *mln.Program, lambda, hardWeight float64) (*Program, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) || math.IsNaN(hardWeight) || math.IsInf(hardWeight, 0) {
		return nil, fmt.Errorf("rrf: lambda %v must be a positive finite number and the hard weight %v finite", lambda, hardWeight)
	}
	for _, d := range kb.Preds {
		if slices.Contains(d.Unique, true) {
			return nil, srcpos.Errorf(d.Pos, "%s has a functional (!) argument, which an RRF does not express", d.Name)
		}
	}
	p := &Program{Decls: kb, byName: map[string]*ParFeature{}}
	root := &ParFeature{Name: "root"}
	p.Features = append(p.Features, root)
	rootType := map[string]string{} // a root variable's type, by name
	for i, f := range kb.Formulas {
		if err := mln.CheckNesting(f.F); err != nil {
			return nil, err
		}
		mf, err := toModelFormula(f.F)
		if err != nil {
			return nil, err
		}
		cs, err := mln.FormulaClauses(mf, f.Hard)
		if err != nil {
			return nil, srcpos.Errorf(f.Pos, "%v", err)
		}
		for j, wc := range cs {
			c := wc.Clause
			w := f.Weight * wc.Share
			if f.Hard {
				w = hardWeight
			}
			name := fmt.Sprintf("F%d", i+1)
			if len(cs) > 1 {
				name = fmt.Sprintf("F%d_%d", i+1, j+1)
			}
			for kb.Pred(name) != nil {
				name += "_"
			}
			feat := &ParFeature{Name: name, Pos: f.Pos}
			for _, l := range c {
				t := Term{W: len(p.Weights), Pred: l.Atom.PredName, Neg: !l.Neg, Pos: l.Atom.Pos}
				p.Weights = append(p.Weights, lambda)
				for _, a := range l.Atom.Args {
					isVar := a.Kind == model.Variable
					t.Args = append(t.Args, mln.Term{Name: a.Name, IsVar: isVar, Pos: a.Pos})
					if isVar && !slices.Contains(feat.Params, a.Name) {
						feat.Params = append(feat.Params, a.Name)
					}
				}
				feat.Terms = append(feat.Terms, t)
			}
			// The root sums each clause over its own variables. The root
			// gives a variable name one type, so a name another clause
			// used with another type is renamed apart (f3_x).
			args := make([]mln.Term, len(feat.Params))
			sum := make([]string, len(feat.Params))
			for k, v := range feat.Params {
				sum[k] = v
				if ty := varType(kb, c, v); rootType[v] == "" {
					rootType[v] = ty
				} else if rootType[v] != ty {
					sum[k] = strings.ToLower(name) + "_" + v
				}
				args[k] = mln.Term{Name: sum[k], IsVar: true, Pos: f.Pos}
			}
			root.Terms = append(root.Terms, Term{W: len(p.Weights), Sum: sum, Feature: name, Args: args, Pos: f.Pos})
			p.Weights = append(p.Weights, -w)
			p.Features = append(p.Features, feat)
		}
	}
	for _, f := range p.Features {
		p.byName[f.Name] = f
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// toModelFormula converts a quantifier-free Markov logic formula for
// model.Clauses.
func toModelFormula(n mln.Node) (model.Formula, error) {
	switch x := n.(type) {
	case *mln.Atom:
		a := &model.Atom{PredName: x.Pred, Pos: x.P}
		for _, t := range x.Args {
			if t.Plus {
				return nil, srcpos.Errorf(t.Pos, "+%s: a per-constant weight has no RRF counterpart here", t.Name)
			}
			mt := model.Const(t.Name)
			if t.IsVar {
				mt = model.Var(t.Name)
			}
			mt.Pos = t.Pos
			a.Args = append(a.Args, mt)
		}
		return a, nil
	case *mln.Not:
		y, err := toModelFormula(x.X)
		if err != nil {
			return nil, err
		}
		return &model.Not{X: y, Pos: x.P}, nil
	case *mln.Binary:
		l, err := toModelFormula(x.X)
		if err != nil {
			return nil, err
		}
		r, err := toModelFormula(x.Y)
		if err != nil {
			return nil, err
		}
		return x.Connect(l, r), nil
	case *mln.Eq:
		return nil, srcpos.Errorf(x.P, "an equality literal has no RRF counterpart")
	case *mln.Quant:
		return nil, srcpos.Errorf(x.P, "write a quantifier as a parfeature with sum(...) in an .rrf file: the conversion takes quantifier-free formulas")
	}
	return nil, fmt.Errorf("rrf: unknown formula node %T", n)
}

// Text writes the whole program in the file format: the type and predicate
// declarations, then every parfeature with the current weights (for a
// program that has no source text, such as FromMLN's).
func (p *Program) Text() []byte {
	var b strings.Builder
	for _, typ := range p.Decls.TypeOrder {
		cs := make([]string, len(p.Decls.Types[typ]))
		for i, c := range p.Decls.Types[typ] {
			cs[i] = mln.Term{Name: c}.String()
		}
		fmt.Fprintf(&b, "%s = {%s}\n", typ, strings.Join(cs, ", "))
	}
	for _, d := range p.Decls.Preds {
		fmt.Fprintln(&b, d.String())
	}
	b.WriteString("\n")
	for _, f := range p.Features {
		fmt.Fprintln(&b, p.String(f))
	}
	return []byte(b.String())
}

// varType returns the declared type of variable v in clause c (from the
// first atom that has it; "" when no declaration says).
func varType(kb *mln.Program, c model.Clause, v string) string {
	for _, l := range c {
		if l.Atom == nil {
			continue
		}
		d := kb.Pred(l.Atom.PredName)
		for i, a := range l.Atom.Args {
			if a.Kind == model.Variable && a.Name == v && d != nil && i < len(d.Types) {
				return d.Types[i]
			}
		}
	}
	return ""
}
