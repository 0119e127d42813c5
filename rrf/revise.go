package rrf

import (
	"fmt"
	"math"
	"slices"

	"github.com/hinge-srl/hinge/mln"
)

// Revise prepares the program for theory revision, as the paper proposes
// (section 4, after KBANN): the knowledge base is the initial RRF, and
// every parfeature except the root also gets small-weight dependencies on
// the atoms it does not use, so that weight learning can grow the ones the
// data call for and leave the others negligible. For every parfeature f
// other than root, every declared predicate P and every tuple of distinct
// parameters of f whose types are P's argument types, Revise appends the
// term eps * P(params) unless f already has P over exactly those parameters
// as an unsummed child (of either sign: a learned weight may take either
// sign, so one term per atom is enough). Each added term has its own
// weight, tied across the groundings. It returns the number of terms
// added. Dependencies through new summation variables or on other
// parfeatures are not added.
//
// The change to the distribution is bounded and vanishes with eps. An
// added atom a moves its feature's normalised log value s_i - M_i by
// eps*a - m(eps), within [-|eps|, |eps|] (m(eps) lies between 0 and eps
// under NormMax and NormSmooth), and exp is L-Lipschitz below log L, L the
// largest value a feature reaches (1 under NormMax, within exp(0.028) per
// child of 1 under NormSmooth), so a ground feature with k_i added
// children changes by at most about
//
//	b_i = k_i |eps| + sum_j |w_ij| b_j   (over its feature children j),
//
// the root's score s_0 by at most b_0, and every log P(x) by at most 2 b_0,
// which is linear in eps. Under NormSoftplus, m(eps) is about log 2: the
// added atoms scale their features by about 2^-k_i whatever eps, and the
// change does not vanish.
func (p *Program) Revise(eps float64) (int, error) {
	if eps == 0 || math.IsNaN(eps) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("rrf: revision weight %v must be a nonzero finite number", eps)
	}
	added := 0
	for _, f := range p.Features {
		if f.Name == "root" {
			continue
		}
		for _, d := range p.Decls.Preds {
			tuple := make([]string, len(d.Types))
			var fill func(k int)
			fill = func(k int) {
				if k == len(tuple) {
					if f.hasAtom(d.Name, tuple) {
						return
					}
					t := Term{W: len(p.Weights), Pred: d.Name, Pos: f.Pos}
					for _, v := range tuple {
						t.Args = append(t.Args, mln.Term{Name: v, IsVar: true, Pos: f.Pos})
					}
					p.Weights = append(p.Weights, eps)
					f.Terms = append(f.Terms, t)
					added++
					return
				}
				for _, v := range f.Params {
					if f.types[v] == d.Types[k] && !slices.Contains(tuple[:k], v) {
						tuple[k] = v
						fill(k + 1)
					}
				}
			}
			fill(0)
		}
	}
	return added, nil
}

// hasAtom reports whether f has the atom pred(vars) as an unsummed child.
func (f *ParFeature) hasAtom(pred string, vars []string) bool {
	for _, t := range f.Terms {
		if t.Pred != pred || len(t.Sum) > 0 || len(t.Args) != len(vars) {
			continue
		}
		same := true
		for k, a := range t.Args {
			same = same && a.IsVar && a.Name == vars[k]
		}
		if same {
			return true
		}
	}
	return false
}
