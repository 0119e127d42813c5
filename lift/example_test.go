package lift_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/lift"
)

// Example lifts Example 1 of Srinivasan et al., "Lifted Hinge-Loss Markov
// Random Fields" (AAAI 2019), and solves the lifted problem.
func Example() {
	p, err := hlmrf.Read(strings.NewReader(`
5 0:0 1:1 2:-1 #^2
5 0:1 1:-1 2:1 4:1 #^2
5 0:0 1:1 4:-1 #^2
5 0:-1 3:-1 #^2
`), "example1")
	if err != nil {
		log.Fatal(err)
	}
	l, err := lift.Lift(p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("variable classes:", l.VarClass)
	fmt.Println("potential classes:", l.PotClass)
	for i := range l.Problem.Weight {
		vars, coefs := l.Problem.Terms(i)
		fmt.Printf("%g * max(", l.Problem.Weight[i])
		for k, v := range vars {
			fmt.Printf("%+g*z%d ", coefs[k], v+1)
		}
		fmt.Printf("- %g, 0)^%d\n", l.Problem.Const[i], l.Problem.Power[i])
	}

	r, err := admm.Solve(context.Background(), l.Problem, admm.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	y := l.Expand(r.Values)
	fmt.Printf("original objective at the expanded solution: %.4f\n", p.Objective(y))
	// Output:
	// variable classes: [0 1 2 1]
	// potential classes: [0 1 0 2]
	// 10 * max(+1*z1 -1*z2 - 0, 0)^2
	// 5 * max(-1*z1 +2*z2 - 1, 0)^2
	// 5 * max(-1*z3 - -1, 0)^2
	// original objective at the expanded solution: 0.0000
}

// ExampleRefine shows the coloring of two symmetric copies of a potential.
func ExampleRefine() {
	p := &hlmrf.Problem{}
	p.AddVars(4)
	p.AddPotential(1, 0, 1, -1, []int32{0, 1}, []float64{1, -1})
	p.AddPotential(1, 0, 1, -1, []int32{2, 3}, []float64{1, -1})
	col, err := lift.Refine(p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(col.Var, col.Pot, col.NumVar, col.NumPot)
	// Output: [0 1 0 1] [0 0] 2 1
}

// ExampleClassBound bounds the lifted size of two copies of a potential
// pair from below, without refining.
func ExampleClassBound() {
	p := &hlmrf.Problem{}
	p.AddVars(4)
	p.AddPotential(1, 0, 1, -1, []int32{0, 1}, []float64{1, -1})
	p.AddPotential(1, 0, 1, -1, []int32{2, 3}, []float64{1, -1})
	vars, pots, cons, err := lift.ClassBound(p, 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vars, pots, cons)
	// Output: 2 1 0
}
