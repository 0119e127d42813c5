package explain_test

import (
	"context"
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/explain"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/pipeline"
)

func ExampleParseAtom() {
	for _, s := range []string{"Cancer(Bob)", "Friends('Anna', \"Bob\")", "_hypernym(00260881, 00262792)"} {
		a, err := explain.ParseAtom(s)
		fmt.Println(a.Pred, a.Args, err)
	}
	_, err := explain.ParseAtom("Cancer(Bob")
	fmt.Println(err)
	// Output:
	// Cancer [Bob] <nil>
	// Friends [Anna Bob] <nil>
	// _hypernym [00260881 00262792] <nil>
	// atom "Cancer(Bob", column 11: missing ')'
}

// Why is Cancer(Bob) what it is in the smokers example? Solve the model
// with ADMM, keep the solver, and explain the atom from its duals.
func ExamplePSL_Explain() {
	prog, err := pipeline.Load(pipeline.Inputs{Model: "../examples/smokers/smokers.psl", Data: "../examples/smokers/smokers.data"})
	if err != nil {
		panic(err)
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		panic(err)
	}
	opt := admm.DefaultOptions()
	opt.EpsAbs, opt.EpsRel = 1e-9, 1e-9
	s, err := admm.New(g.Problem, opt)
	if err != nil {
		panic(err)
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	pot, con := s.Duals()
	x, err := explain.NewPSL(prog.Model, prog.Store, g, res.Values, pot, con)
	if err != nil {
		panic(err)
	}
	atom, _ := explain.ParseAtom("Cancer(Bob)")
	v, err := explain.FindVar(prog.Model, prog.Store, g, atom)
	if err != nil {
		panic(err)
	}
	ex, err := x.Explain(v, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s = %.4f\n", ex.Atom, ex.Value)
	for _, t := range ex.Terms {
		fmt.Printf("%+.4f  %s  (%s)\n", t.Pull, t.Ground, t.Substitution)
	}
	// 0 up to the solver's accuracy inside (0, 1): rounded, without the
	// sign of a tiny negative remainder.
	fmt.Printf("bound multiplier %.4f (%s)\n", math.Round(ex.Bound*1e4)/1e4+0, ex.At)
	// Output:
	// Cancer('Bob') = 0.8150
	// +0.0100  0.5: Smokes('Bob') -> Cancer('Bob') ^2  (X=Bob)
	// -0.0100  0.01: !Cancer('Bob')  (X=Bob)
	// bound multiplier 0.0000 (interior)
}

// What would flipping an atom of a Markov logic MAP world cost?
func ExampleMLN_Explain() {
	prog, err := mln.ReadProgram("../examples/mln/smokers.mln")
	if err != nil {
		panic(err)
	}
	evidence, err := mln.ReadAtoms("../examples/mln/smokers.db", prog, false)
	if err != nil {
		panic(err)
	}
	net, err := mln.Build(prog, evidence, mln.Options{Query: []string{"Cancer", "Smokes"}})
	if err != nil {
		panic(err)
	}
	res, err := net.MAP(context.Background(), mln.DefaultMAPOptions())
	if err != nil {
		panic(err)
	}
	x, err := explain.NewMLN(net, res.Ground, res.Values)
	if err != nil {
		panic(err)
	}
	atom, _ := explain.ParseAtom("Cancer(Bob)")
	v, err := explain.FindVar(net.Model, net.Store, res.Ground, atom)
	if err != nil {
		panic(err)
	}
	ex, err := x.Explain(v, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s = %g; flipping it alone costs %+g\n", ex.Atom, ex.Value, ex.FlipCost)
	for _, t := range ex.Terms {
		fmt.Printf("%+g  %s\n", t.FlipCost, t.Ground)
	}
	// Output:
	// Cancer(Bob) = 1; flipping it alone costs +1
	// +1.5  !Smokes(Bob) v Cancer(Bob)
	// -0.5  !Cancer(Bob)
}
