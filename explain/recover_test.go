package explain

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

var mix = [2]string{"testdata/mix/mix.psl", "testdata/mix/mix.data"}

// TestRecoverReground checks every recovered grounding against the
// grounder itself: the rule with the substitution applied (no variable
// left) is grounded on its own, and one of the potentials or constraints
// it gives must be the one the grounding was matched to (same variables,
// coefficients and constant). Every term of a logical rule must be
// matched, and the store's values must be as they were.
func TestRecoverReground(t *testing.T) {
	for _, files := range [][2]string{smokers, mix, {"testdata/bounds/bounds.psl", "testdata/bounds/bounds.data"}} {
		e := solvedPSL(t, files[0], files[1])
		p := e.Ground.Problem
		np := p.NumPotentials()
		before := storeValues(e.Store, e.Model)
		logical := 0
		for i := range np {
			if e.Model.Rules[p.Group[i]].Logical != nil {
				logical++
			}
		}
		for j := range p.NumConstraints() {
			if e.Model.Rules[p.CGroup[j]].Logical != nil {
				logical++
			}
		}
		matched := 0
		unmatched, err := e.rec.All(func(term int32, g *Grounding) error {
			matched++
			cp := *g.Rule
			sub := map[string]string{}
			for i, n := range g.Names {
				sub[n] = g.Values[i]
			}
			cp.Logical = substitute(g.Rule.Logical, sub)
			q, _, err := e.Ground.Grounder.GroundRule(&cp)
			if err != nil {
				t.Fatalf("%s: %v", g.PSLText(), err)
			}
			if !sameTerm(p, int(term), q) {
				t.Errorf("%s (term %d) does not reground to its term", g.PSLText(), term)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if unmatched != 0 || matched != logical {
			t.Fatalf("%s: %d of %d logical terms matched, %d unmatched", files[0], matched, logical, unmatched)
		}
		if after := storeValues(e.Store, e.Model); !slices.Equal(before, after) {
			t.Fatalf("%s: the store's values changed", files[0])
		}
		// Of, variable by variable, gives each term the same grounding.
		for v := range e.Values {
			grs, err := e.rec.Of(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, term := range e.rec.TermsOf(v) {
				rule := groupOf(p, int(term))
				if e.Model.Rules[rule].Logical != nil && grs[term] == nil {
					t.Errorf("%s: no grounding for term %d of variable %d", files[0], term, v)
				}
			}
		}
	}
}

// groupOf is the rule of a term (potentials, then constraints).
func groupOf(p *hlmrf.Problem, term int) int32 {
	if term < p.NumPotentials() {
		return p.Group[term]
	}
	return p.CGroup[term-p.NumPotentials()]
}

func storeValues(s *store.Store, m *model.Model) []float64 {
	var out []float64
	for _, pred := range m.Predicates {
		t := s.Table(pred)
		for r := range t.Len() {
			out = append(out, t.Value(r))
		}
	}
	return out
}

// termOf returns a term (potentials, then constraints) as sorted
// (variable, coefficient) pairs, its constant, and a description of its
// kind (weight and power, or the constraint's relation).
func termOf(p *hlmrf.Problem, t int) ([][2]float64, float64, string) {
	var vs []int32
	var cs []float64
	var c float64
	var kind string
	if t < p.NumPotentials() {
		vs, cs = p.Terms(t)
		c, kind = p.Const[t], fmt.Sprintf("w%v^%d", p.Weight[t], p.Power[t])
	} else {
		j := t - p.NumPotentials()
		vs, cs = p.CTerms(j)
		c, kind = p.CConst[j], p.CKind[j].String()
	}
	pairs := make([][2]float64, len(vs))
	for k := range vs {
		pairs[k] = [2]float64{float64(vs[k]), cs[k]}
	}
	slices.SortFunc(pairs, func(a, b [2]float64) int { return int(a[0] - b[0]) })
	return pairs, c, kind
}

// sameTerm reports whether term t of p is among the terms of q.
func sameTerm(p *hlmrf.Problem, t int, q *hlmrf.Problem) bool {
	pp, pc, pk := termOf(p, t)
	for u := range q.NumPotentials() + q.NumConstraints() {
		qp, qc, qk := termOf(q, u)
		if pk == qk && slices.Equal(pp, qp) && math.Abs(pc-qc) <= 1e-12 {
			return true
		}
	}
	return false
}
