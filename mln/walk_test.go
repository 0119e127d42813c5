package mln

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// MaxWalkSAT walks the merged network, as Alchemy does. Unmerged, every
// atom with opposite unit clauses (2 P(x) and 1.5 !P(x)) keeps one of them
// violated in every world, so nearly every clause the walk picks to repair
// is such a unit and the flip only swaps which one is violated: with 400
// atoms and 20,000 flips the walk ended far from the optimum (UW-CSE ai:
// 2,738 as Alchemy counts against lp-round's optimal 215).
func TestMaxWalkSATWalksMergedNetwork(t *testing.T) {
	var consts []string
	for i := range 400 {
		consts = append(consts, fmt.Sprintf("C%d", i))
	}
	prog := "t = {" + strings.Join(consts, ", ") + "}\nP(t)\nQ(t)\n2 P(x)\n1.5 !P(x)\n1 P(x) => Q(x)\n"
	_, _, net := network(t, prog, "", Options{Query: []string{"P", "Q"}})
	for _, method := range []string{MethodWalkSAT, MethodLPWalkSAT} {
		opt := DefaultMAPOptions()
		opt.Method, opt.MaxSAT.LocalSearch = method, 20000
		res, err := net.MAP(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		// The optimum: every P and Q true, costing the 1.5 of !P(x) per
		// constant (0 once the unit clauses are merged).
		if want := 400 * 1.5; res.Cost > want+1e-9 {
			t.Errorf("%s: cost %v, the optimum is %v", method, res.Cost, want)
		}
	}
}
