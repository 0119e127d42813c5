package ground_test

import (
	"fmt"
	"os"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// Example 1 of Srinivasan et al., "Lifted Hinge-Loss Markov Random Fields"
// (AAAI 2019): transitive Knows over Ben, Elsa and Dan.
func ExampleGround() {
	m := model.New()
	knows, _ := m.AddPredicate("Knows", 2, false)
	p1, p2, p3 := model.Var("P1"), model.Var("P2"), model.Var("P3")
	rule := &model.Rule{Weight: 5, Weighted: true, Squared: true, Logical: &model.Implies{
		Body: &model.And{Args: []model.Formula{
			model.NewAtom(knows, p1, p2), model.NewAtom(knows, p2, p3),
			&model.Comparison{Op: model.CmpNeq, Left: p1, Right: p3},
		}},
		Head: model.NewAtom(knows, p1, p3),
	}}
	if err := m.AddRule(rule); err != nil {
		fmt.Println(err)
		return
	}
	s := store.New(m)
	for _, x := range []string{"Ben", "Elsa", "Dan"} {
		s.AddObservation(knows, []string{x, x}, 0)
	}
	s.AddObservation(knows, []string{"Ben", "Elsa"}, 1)
	s.AddObservation(knows, []string{"Elsa", "Dan"}, 1)
	for _, l := range [][]string{{"Dan", "Ben"}, {"Elsa", "Ben"}, {"Ben", "Dan"}, {"Dan", "Elsa"}} {
		s.AddTarget(knows, l)
	}

	res, err := ground.Ground(m, s, ground.Options{Threads: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	hlmrf.Write(os.Stdout, res.Problem)
	hlmrf.WriteAtoms(os.Stdout, res.AtomNames())
	// Output:
	// # variables: 4
	// 5 0:-1 3:-1 #^2
	// 5 0:0 1:1 2:-1 #^2
	// 5 0:0 1:1 4:-1 #^2
	// 5 0:1 4:1 2:1 1:-1 #^2
	// Knows	Dan	Ben
	// Knows	Elsa	Ben
	// Knows	Ben	Dan
	// Knows	Dan	Elsa
}

// A candidate rule, not part of the model, scored against the same store
// and variable numbering (as structure learning does).
func ExampleGrounder_GroundRule() {
	m := model.New()
	friends, _ := m.AddPredicate("Friends", 2, true)
	smokes, _ := m.AddPredicate("Smokes", 1, false)
	s := store.New(m)
	s.AddObservation(friends, []string{"ann", "bob"}, 1)
	s.AddObservation(smokes, []string{"ann"}, 1)
	s.AddTarget(smokes, []string{"bob"})

	g, err := ground.NewGrounder(m, s, ground.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, b := model.Var("A"), model.Var("B")
	cand := &model.Rule{Weight: 1, Weighted: true, Logical: &model.Implies{
		Body: &model.And{Args: []model.Formula{model.NewAtom(friends, a, b), model.NewAtom(smokes, a)}},
		Head: model.NewAtom(smokes, b),
	}}
	p, st, err := g.GroundRule(cand)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Potentials, "potential on", g.Args(int(p.Var[0])))
	// Output:
	// 1 potential on [bob]
}
