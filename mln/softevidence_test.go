package mln

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
)

// TestSoftEvidence: an atom given a truth value p strictly between 0 and 1
// is unknown with the prior p : 1-p (Tuffy's unit clause of weight
// log(p/(1-p))), on open and on closed (Alchemy's default and '*')
// predicates. The exact marginals are checked against an enumeration of
// the definition times p or 1-p per soft atom, on random programs, and the
// MAP world of every method against the best enumerated world's score.
func TestSoftEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	for trial := range 30 {
		star := rng.IntN(3) == 0
		var b strings.Builder
		b.WriteString("t = {A, B}\n")
		if star {
			b.WriteString("P(t)\nQ(t)\n*R(t)\n") // R closed by '*', P and Q open
		} else {
			b.WriteString("P(t)\nQ(t)\nR(t)\n") // Alchemy: R closed unless queried
		}
		fmt.Fprintf(&b, "%.2f P(x) => Q(x)\n", rng.Float64()*3-1)
		fmt.Fprintf(&b, "%.2f R(x) ^ P(x)\n", rng.Float64()*3-1.5)
		fmt.Fprintf(&b, "%.2f Q(x) v !R(y)\n", rng.Float64()*2)
		var ev strings.Builder
		for _, a := range []string{"P(A)", "P(B)", "Q(A)", "R(A)", "R(B)"} {
			switch rng.IntN(4) {
			case 0:
				p := []float64{0.8, 0.3, 0.05, 0.999, 0.5}[rng.IntN(5)]
				fmt.Fprintf(&ev, "%v %s\n", p, a)
			case 1:
				fmt.Fprintf(&ev, "%s\n", a)
			}
		}
		prog, evidence := b.String(), ev.String()
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			p, evAtoms, net := network(t, prog, evidence, Options{Query: []string{"P", "Q"}})
			res, err := net.Marginals(context.Background(), "exact", DefaultMAPOptions(), SampleOptions{Seed: 1})
			if err != nil {
				t.Fatalf("%s%s\n%v", prog, evidence, err)
			}
			g := res.Ground
			n := len(res.Probs)
			names := make([]string, n)
			index := map[string]int{}
			for v := range names {
				names[v] = key(g.Vars[v].Pred.Name, g.Args(v))
				index[names[v]] = v
			}
			base := world{}
			prior := map[string]float64{}
			for _, a := range evAtoms {
				k := key(a.Pred, constants(a.Args))
				if a.Value > 0 && a.Value < 1 {
					prior[k] = a.Value
					if _, ok := index[k]; !ok {
						t.Fatalf("soft atom %s is not unknown", k)
					}
					continue
				}
				base[k] = a.Value == 1
			}
			logw, top := definitionScores(t, p, net.Domains, names, base, prior)
			want := definitionMarginals(logw, top, n)
			for v := range n {
				if math.Abs(res.Probs[v]-want[v]) > 1e-9 {
					t.Errorf("%s%s\n%s = %.9f, enumeration %.9f", prog, evidence, names[v], res.Probs[v], want[v])
				}
			}
			for _, method := range []string{"lp-round", "exact", "maxwalksat"} {
				mo := DefaultMAPOptions()
				mo.Method = method
				m, err := net.MAP(context.Background(), mo)
				if err != nil {
					t.Fatalf("%s: %v", method, err)
				}
				mask := 0
				for v, x := range m.Values {
					if x == 1 {
						mask |= 1 << v
					}
				}
				if logw[mask] < top-1e-6 {
					t.Errorf("%s%s\n%s: MAP world scores %v, best %v", prog, evidence, method, logw[mask], top)
				}
			}
		})
	}
}

// TestSoftEvidenceErrors: lazy inference refuses soft evidence at its
// line, and an atom given two truth values is refused.
func TestSoftEvidenceErrors(t *testing.T) {
	const prog = "t = {A, B}\nP(t)\nQ(t)\n1 P(x) => Q(x)\n"
	_, _, net := network(t, prog, "Q(B)\n0.8 P(A)\n", Options{Query: []string{"Q"}, Lazy: true})
	err := net.CheckLazy()
	var pe *srcpos.Error
	if err == nil || !errors.As(err, &pe) || pe.Pos.Line != 2 || !strings.Contains(err.Error(), "soft evidence") {
		t.Errorf("CheckLazy: %v", err)
	}
	if _, err := net.LazyMAP(context.Background(), LazyOptions{Seed: 1}); err == nil || !strings.Contains(err.Error(), "soft evidence") {
		t.Errorf("LazyMAP: %v", err)
	}
	for _, ev := range []string{"0.8 P(A)\n0.7 P(A)\n", "P(A)\n0.7 P(A)\n", "0.7 P(A)\n!P(A)\n"} {
		if _, _, _, err := tryNetwork(t, prog, ev, Options{Query: []string{"Q"}}); err == nil {
			t.Errorf("%q: no error", ev)
		}
	}
	// The same soft value twice is one atom.
	_, _, net = network(t, prog, "0.8 P(A)\n0.8 P(A)\n", Options{Query: []string{"Q"}})
	if len(net.soft) != 1 {
		t.Errorf("%d soft atoms", len(net.soft))
	}
}

// TestSoftEvidenceBesideHardClauses: a soft atom a hard clause ties to
// another atom, itself pulled the other way by a near-deterministic weight:
// P(A) 0.8 as evidence, !P(x) v Q(x) hard, 20 !Q(x). Worlds over P(A),
// Q(A), Q(B) (P(B) closed, false): P(A) needs Q(A); (P(A), Q(A)) weigh
// e^20, 1, 4 for (0,0), (0,1), (1,1), so P(A) = 4/(e^20+5), Q(A) =
// 5/(e^20+5), and Q(B) = 1/(1+e^20). Exact marginals and every MAP method
// give these; the soft prior does not override the hard clause.
func TestSoftEvidenceBesideHardClauses(t *testing.T) {
	const prog = "t = {A, B}\nP(t)\nQ(t)\n!P(x) v Q(x).\n20 !Q(x)\n"
	_, _, net := network(t, prog, "0.8 P(A)\n", Options{Query: []string{"Q"}})
	res, err := net.Marginals(context.Background(), "exact", DefaultMAPOptions(), SampleOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	z := math.Exp(20) + 5
	want := map[string]float64{"P(A)": 4 / z, "Q(A)": 5 / z, "Q(B)": 1 / (1 + math.Exp(20))}
	g := res.Ground
	for v, p := range res.Probs {
		name := AtomString(g.Vars[v].Pred.Name, g.Args(v))
		w, ok := want[name]
		if !ok || math.Abs(p-w) > 1e-12 {
			t.Errorf("%s = %.6g, want %.6g", name, p, w)
		}
	}
	if len(res.Probs) != len(want) {
		t.Errorf("%d unknown atoms, want %d", len(res.Probs), len(want))
	}
	for _, method := range []string{"lp-round", "exact", "maxwalksat"} {
		mo := DefaultMAPOptions()
		mo.Method = method
		m, err := net.MAP(context.Background(), mo)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for v, x := range m.Values {
			if x != 0 {
				t.Errorf("%s: %s is %v, want 0", method, AtomString(m.Ground.Vars[v].Pred.Name, m.Ground.Args(v)), x)
			}
		}
	}
}
