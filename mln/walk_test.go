package mln

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
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

// A MAP search cancelled during MaxWalkSAT returns the context's error, not
// the best world found so far as if it were the answer (hinge mln infer
// --method maxwalksat wrote its result and exited 0 on Ctrl-C). The network
// is small, so the relaxation is solved within milliseconds and the
// cancellation, 300 ms in, lands in the walk of 10^9 flips.
func TestMAPWalkCancelled(t *testing.T) {
	// Every world violates one of the four clauses: the walk never ends
	// on its own before its flips are spent.
	_, _, net := network(t, "P(person)\n1 P(A) v P(B)\n1 !P(A) v !P(B)\n1 P(A) v !P(B)\n1 !P(A) v P(B)\n", "", Options{Query: []string{"P"}})
	for _, method := range []string{MethodWalkSAT, MethodLPWalkSAT} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		opt := DefaultMAPOptions()
		opt.Method, opt.MaxSAT.LocalSearch = method, 1_000_000_000
		if res, err := net.MAP(ctx, opt); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v (result %v), want context.Canceled", method, err, res != nil)
		}
		cancel()
	}
}
