package structure_test

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/structure"
)

// Generate path-constrained clauses for Grandparent from a tiny family and
// learn which to keep with PPLL.
func ExampleGenerate() {
	m := model.New()
	parent, _ := m.AddPredicate("Parent", 2, true)
	gp, _ := m.AddPredicate("Grandparent", 2, false)
	s := store.New(m)
	for _, pc := range [][2]string{{"ann", "bob"}, {"bob", "cid"}, {"ann", "dan"}, {"dan", "eve"}} {
		s.AddObservation(parent, pc[:], 1)
	}
	for _, x := range []string{"ann", "bob", "dan"} {
		for _, z := range []string{"cid", "eve", "bob"} {
			s.AddTarget(gp, []string{x, z})
			v := 0.0
			if x == "ann" && z != "bob" {
				v = 1
			}
			s.AddTruth(gp, []string{x, z}, v)
		}
	}
	gen, err := structure.Generate(context.Background(), s, []*model.Predicate{gp}, structure.GenOptions{MinSupport: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range gen.Candidates {
		fmt.Printf("support %d: %s\n", c.Support, c.Text())
	}
	res, err := structure.Learn(context.Background(), s, gen.Candidates, structure.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kept:")
	for _, r := range res.Model() {
		fmt.Printf("%.2f: %s\n", r.Weight, res.Candidates[r.Index].Text())
	}
	// Output:
	// support 0: !Grandparent(A, B)
	// support 2: Parent(E1, E2) & Parent(E2, E3) -> Grandparent(E1, E3)
	// support 2: Parent(E1, E2) & Parent(E2, E3) -> !Grandparent(E1, E3)
	// kept:
	// 2.57: Parent(E1, E2) & Parent(E2, E3) -> Grandparent(E1, E3)
	// 1.21: !Grandparent(A, B)
}
