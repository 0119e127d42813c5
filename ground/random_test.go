package ground

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// randomWorld draws a small model and store from seed: closed predicates C1
// (arity 1) and C2 (arity 2), open O1, O2 and O3, a domain of four to six
// constants (two of them integers, for %), atoms absent, observed at 0, 1 or
// in between, or targets; then nrules random logical and arithmetic rules.
func randomWorld(seed uint64, nrules int) (*model.Model, *store.Store, error) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	m := model.New()
	c1, _ := m.AddPredicate("C1", 1, true)
	c2, _ := m.AddPredicate("C2", 2, true)
	o1, _ := m.AddPredicate("O1", 1, false)
	o2, _ := m.AddPredicate("O2", 2, false)
	o3, _ := m.AddPredicate("O3", 3, false)
	preds := []*model.Predicate{c1, c2, o1, o2, o3}
	closed := []*model.Predicate{c1, c2}
	domain := []string{"a", "b", "c", "1", "12", "d"}[:4+rng.IntN(3)]
	values := []float64{0, 1, 1, 0.25, 0.5, 0.7, 0.3, 0.8}
	s := store.New(m)
	for _, p := range preds {
		tuples := [][]string{{}}
		for range p.Arity {
			var next [][]string
			for _, tu := range tuples {
				for _, a := range domain {
					next = append(next, append(append([]string{}, tu...), a))
				}
			}
			tuples = next
		}
		rng.Shuffle(len(tuples), func(i, j int) { tuples[i], tuples[j] = tuples[j], tuples[i] })
		for _, tu := range tuples {
			x := rng.Float64()
			if p.Arity == 3 && x < 0.6 {
				continue // keep the ternary relation sparse
			}
			switch {
			case x < 0.35:
			case !p.Closed && x < 0.7:
				if err := s.AddTarget(p, tu); err != nil {
					return nil, nil, err
				}
			default:
				if err := s.AddObservation(p, tu, values[rng.IntN(len(values))]); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	vars := []string{"A", "B", "C"}
	randTerm := func(allowed []string) string {
		if rng.IntN(8) == 0 {
			return []string{"'a'", "'1'", "'zz'"}[rng.IntN(3)]
		}
		return allowed[rng.IntN(len(allowed))]
	}
	randAtom := func(from []*model.Predicate, allowed []string) *model.Atom {
		p := from[rng.IntN(len(from))]
		args := make([]string, p.Arity)
		for i := range args {
			args[i] = randTerm(allowed)
		}
		return at(p, args...)
	}
	randCmp := func() model.Formula {
		op := []model.CmpOp{model.CmpEq, model.CmpNeq, model.CmpNonSym}[rng.IntN(3)]
		return cmp(op, randTerm(vars), randTerm(vars))
	}
	randLogical := func() model.Formula {
		if rng.IntN(6) == 0 { // prior
			a := randAtom(preds, vars)
			if rng.IntN(2) == 0 {
				return not(a)
			}
			return a
		}
		var body []model.Formula
		for range 1 + rng.IntN(3) {
			var f model.Formula = randAtom(preds, vars)
			if rng.IntN(5) == 0 {
				f = not(f)
			}
			body = append(body, f)
		}
		if rng.IntN(3) == 0 {
			body = append(body, randCmp())
		}
		var head model.Formula
		switch rng.IntN(5) {
		case 0:
			head = or(randAtom(preds, vars), randAtom(preds, vars))
		case 1:
			head = and(randAtom(preds, vars), randAtom(preds, vars))
		case 2:
			head = not(randAtom(preds, vars))
		case 3:
			head = randCmp()
		default:
			head = randAtom(preds, vars)
		}
		if len(body) == 1 {
			return imp(body[0], head)
		}
		return imp(and(body...), head)
	}
	plain := []string{"A", "B"}
	sums := []string{"+X", "+Y"}
	randCoef := func(sumVars []string) model.Coefficient {
		var cardinal model.Coefficient = num(2)
		if len(sumVars) > 0 {
			cardinal = card(sumVars[rng.IntN(len(sumVars))])
		}
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return num(float64(rng.IntN(5)) - 2)
		case 2:
			return cardinal
		case 3:
			return bin('/', num(1), cmax(num(1), cardinal))
		case 4:
			return cmin(num(1.5), bin('-', cardinal, num(0.5)))
		case 5:
			if rng.IntN(4) == 0 {
				return bin('/', num(1), cardinal) // may be 1/0
			}
			return bin('*', num(0.5), cardinal)
		}
		return num(0.5 + float64(rng.IntN(4))/2)
	}
	randArith := func() *model.Arithmetic {
		ar := &model.Arithmetic{Rel: []model.Relation{model.LE, model.GE, model.EQ}[rng.IntN(3)]}
		allowed := append(append([]string{}, plain...), sums[:rng.IntN(3)]...)
		var sumVars []string
		for _, side := range []*[]model.Summand{&ar.LHS, &ar.RHS} {
			for range 1 + rng.IntN(2) {
				if rng.IntN(5) == 0 {
					*side = append(*side, sc(float64(rng.IntN(5))/2-1))
					continue
				}
				a := randAtom(preds, allowed)
				for _, t := range a.Args {
					if t.Kind == model.SumVariable {
						sumVars = append(sumVars, t.Name)
					}
				}
				*side = append(*side, sa(nil, a))
			}
		}
		for i := range ar.LHS {
			ar.LHS[i].Coef = randCoef(sumVars)
		}
		for i := range ar.RHS {
			ar.RHS[i].Coef = randCoef(sumVars)
		}
		done := map[string]bool{}
		for _, v := range sumVars {
			if done[v] || rng.IntN(2) == 0 {
				continue
			}
			done[v] = true
			fvars := append([]string{v}, plain...)
			var e model.Formula = randAtom(closed, fvars)
			switch rng.IntN(5) {
			case 0:
				e = not(e)
			case 1:
				e = and(e, randAtom(closed, fvars))
			case 2:
				e = or(e, cmp(model.CmpNeq, v, "'a'"))
			case 3:
				e = imp(randAtom(closed, fvars), e)
			}
			ar.Filters = append(ar.Filters, filter(v, e))
		}
		return ar
	}
	for added, tries := 0, 0; added < nrules && tries < 50*nrules; tries++ {
		r := &model.Rule{Weighted: rng.IntN(4) != 0, Weight: []float64{1, 2.5, 0.5}[rng.IntN(3)]}
		r.Squared = r.Weighted && rng.IntN(2) == 0
		if rng.IntN(3) == 0 {
			r.Arith = randArith()
		} else {
			r.Logical = randLogical()
		}
		if err := m.AddRule(r); err != nil {
			continue // unbound variables and the like: draw again
		}
		added++
	}
	return m, s, nil
}

// TestRandomAgainstBruteForce grounds seeded random models with the
// grounder (1 and 3 threads) and the brute-force oracle.
func TestRandomAgainstBruteForce(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	items := 0
	for seed := range uint64(n) {
		m, s, err := randomWorld(seed, 1+int(seed%4))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			res := compareWithOracle(t, m, s, 1, 3)
			if res != nil {
				items += res.Problem.NumPotentials() + res.Problem.NumConstraints()
			}
		})
	}
	if items < 10*n {
		t.Fatalf("only %d ground items over %d random worlds: the generator is too sparse to test much", items, n)
	}
}

// FuzzGround draws random worlds from the fuzzer's seeds and checks the
// grounder against the brute-force oracle (and that it never panics).
func FuzzGround(f *testing.F) {
	for _, s := range []uint64{0, 1, 7, 42, 1234} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, seed uint64, nrules uint8) {
		m, s, err := randomWorld(seed, 1+int(nrules%5))
		if err != nil {
			t.Fatal(err)
		}
		compareWithOracle(t, m, s, 1, 2)
	})
}
