package explain

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

// mapWorld builds a network from a program and evidence, finds its MAP
// world by method and returns the explainer, the MAP options and the
// network's ground clauses as a MAX-SAT instance (signed weights).
func mapWorld(t *testing.T, prog, db string, query []string, method string) (*MLN, mln.MAPOptions, *maxsat.Instance) {
	t.Helper()
	p, err := mln.ReadProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := mln.ReadAtoms(db, p, false)
	if err != nil {
		t.Fatal(err)
	}
	net, err := mln.Build(p, ev, mln.Options{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	opt := mln.DefaultMAPOptions()
	opt.Method = method
	opt.MaxSAT.Seed, opt.MaxSAT.LocalSearch = 1, 10000
	opt.Ground = ground.Options{Threads: 1}
	res, err := net.MAP(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	_, in, err := net.GroundClauses(ground.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewMLN(net, res.Ground, res.Values)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := x.WorldCost(res.Values); math.Abs(c-res.Cost) > 1e-9 {
		t.Fatalf("WorldCost %v, MAP's cost %v", c, res.Cost)
	}
	return x, opt, in
}

// instanceCost is a world's cost over the MAX-SAT instance's clauses
// (literals, not the hinge form the explainer reads): the weight of the
// violated soft clauses of positive weight, |w| for each satisfied one of
// negative weight w, and the hard clauses violated.
func instanceCost(in *maxsat.Instance, x []bool) (cost float64, hard int) {
	for c := range in.NumClauses() {
		sat := in.Satisfied(c, x)
		switch w := in.Weight[c]; {
		case in.Hard[c]:
			if !sat {
				hard++
			}
		case w >= 0 && !sat:
			cost += w
		case w < 0 && sat:
			cost -= w
		}
	}
	return cost, hard
}

// bestWith enumerates every world with variable v at value b and returns
// the least cost of one that violates no hard clause (ok false: none).
func bestWith(in *maxsat.Instance, v int, b bool) (best float64, ok bool) {
	n := in.NumVars
	x := make([]bool, n)
	best = math.Inf(1)
	for mask := range 1 << n {
		for i := range n {
			x[i] = mask>>i&1 == 1
		}
		if x[v] != b {
			continue
		}
		if c, h := instanceCost(in, x); h == 0 && c < best {
			best, ok = c, true
		}
	}
	return best, ok
}

func boolWorld(values []float64) []bool {
	x := make([]bool, len(values))
	for i, v := range values {
		x[i] = v == 1
	}
	return x
}

var mlnNet = [2]string{"testdata/mln/net.mln", "testdata/mln/net.db"}

// TestMLNFlipCost checks, for every atom of the test networks under every
// MAP method, the explanation's flip cost (and its hard clauses broken and
// mended) against the cost of the flipped world computed from the
// network's MAX-SAT instance, and that the clause-by-clause flip costs sum
// to it.
func TestMLNFlipCost(t *testing.T) {
	nets := []struct {
		files [2]string
		query []string
	}{
		{mlnNet, []string{"Smokes", "Cancer", "Alarm"}},
		{[2]string{"../examples/mln/smokers.mln", "../examples/mln/smokers.db"}, []string{"Smokes", "Cancer"}},
	}
	for _, n := range nets {
		for _, method := range []string{mln.MethodLPRound, mln.MethodLPWalkSAT, mln.MethodWalkSAT} {
			x, _, in := mapWorld(t, n.files[0], n.files[1], n.query, method)
			world := boolWorld(x.Values)
			base, baseHard := instanceCost(in, world)
			all, err := x.ExplainAll(0)
			if err != nil {
				t.Fatal(err)
			}
			for v, ex := range all {
				flipped := append([]bool(nil), world...)
				flipped[v] = !flipped[v]
				cost, hard := instanceCost(in, flipped)
				if math.Abs(ex.FlipCost-(cost-base)) > 1e-9 || ex.HardBroken-ex.HardMended != hard-baseHard {
					t.Errorf("%s %s: flip cost %v, hard %+d; the instance says %v, %+d", method, ex.Atom, ex.FlipCost, ex.HardBroken-ex.HardMended, cost-base, hard-baseHard)
				}
				sum := 0.0
				for _, term := range ex.Terms {
					sum += term.FlipCost
					if term.Satisfied == term.FlippedSatisfied && term.FlipCost != 0 {
						t.Errorf("%s: %s costs %v to flip but its state does not change", ex.Atom, term.Ground, term.FlipCost)
					}
					if sign := map[float64]float64{0: -1, 1: 1}[ex.Value]; term.Pull != sign*term.FlipCost {
						t.Errorf("%s: pull %v, flip cost %v", ex.Atom, term.Pull, term.FlipCost)
					}
				}
				if math.Abs(sum-ex.FlipCost) > 1e-9 {
					t.Errorf("%s: clause flip costs sum to %v, total %v", ex.Atom, sum, ex.FlipCost)
				}
				// The world is a local optimum of every method here: no single
				// flip that keeps the hard clauses lowers its cost.
				if ex.HardBroken == 0 && ex.FlipCost < -1e-9 {
					t.Errorf("%s %s: flipping lowers the cost by %v", method, ex.Atom, -ex.FlipCost)
				}
			}
		}
	}
}

// TestMLNResolve checks the re-solved cost of every atom of the test
// network against enumeration: the least cost of a world with the atom
// flipped that keeps the hard clauses. A re-solve certified optimal must
// find exactly it; none may beat it.
func TestMLNResolve(t *testing.T) {
	x, opt, in := mapWorld(t, mlnNet[0], mlnNet[1], []string{"Smokes", "Cancer", "Alarm"}, mln.MethodLPRound)
	base, _ := instanceCost(in, boolWorld(x.Values))
	optimal, infeasible := 0, 0
	for v := range x.Values {
		r, err := x.Resolve(context.Background(), v, opt)
		if err != nil {
			t.Fatal(err)
		}
		best, ok := bestWith(in, v, x.Values[v] == 0)
		name := mlnName(VarAtom(x.Ground, v))
		switch {
		case !ok:
			if !r.Infeasible {
				t.Errorf("%s: no world with it flipped keeps the hard clauses, yet re-solving found %+v", name, r)
			}
			infeasible++
		case r.Infeasible:
			t.Errorf("%s: re-solving says infeasible, enumeration finds cost %v", name, best)
		case r.HardViolated > 0 || r.Delta < best-base-1e-9 || r.Optimal && math.Abs(r.Delta-(best-base)) > 1e-9:
			t.Errorf("%s: re-solved delta %v (optimal %v, %d hard violated), enumeration %v", name, r.Delta, r.Optimal, r.HardViolated, best-base)
		case r.Optimal:
			optimal++
		}
	}
	if optimal == 0 || infeasible == 0 {
		t.Fatalf("%d re-solves certified optimal, %d infeasible: the test checks nothing", optimal, infeasible)
	}
	// The values are restored: the explained world is unchanged.
	var buf bytes.Buffer
	ex, err := x.Explain(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ex.Resolved, _ = x.Resolve(context.Background(), 0, opt)
	if err := ex.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "solved again with") {
		t.Fatalf("text without the re-solve:\n%s", buf.String())
	}
}

// TestMLNSatisfaction checks the satisfaction file: one line per ground
// clause, costs summing to the world's cost, and a hard clause's state.
func TestMLNSatisfaction(t *testing.T) {
	x, _, in := mapWorld(t, mlnNet[0], mlnNet[1], []string{"Smokes", "Cancer", "Alarm"}, mln.MethodLPRound)
	var buf bytes.Buffer
	if err := x.WriteSatisfaction(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != MLNSatisfactionHeader || len(lines)-1 != in.NumClauses() {
		t.Fatalf("%d lines for %d clauses; header %q", len(lines)-1, in.NumClauses(), lines[0])
	}
	total := 0.0
	for _, line := range lines[1:] {
		cols := strings.Split(line, "\t")
		if len(cols) != 6 {
			t.Fatalf("%q", line)
		}
		if cols[2] != "hard" {
			total += parseFloat(t, cols[4])
		} else if cols[3] != "1" {
			t.Errorf("hard clause violated: %q", line)
		}
		if strings.Contains(cols[5], "dom$") {
			t.Errorf("a type predicate shown: %q", line)
		}
	}
	if want, _ := instanceCost(in, boolWorld(x.Values)); math.Abs(total-want) > 1e-9 {
		t.Fatalf("costs sum to %v, the world costs %v", total, want)
	}
}
