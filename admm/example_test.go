package admm_test

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/hlmrf"
)

// Paper 000, Example 1: the transitivity rule Knows(P1,P2) & Knows(P2,P3) ->
// Knows(P1,P3) with weight 5, squared, grounded over three people with two
// observed facts, gives four potentials over four unknown atoms.
func example1() *hlmrf.Problem {
	var p hlmrf.Problem
	p.AddVars(4)
	p.AddPotential(5, 0, 2, 0, []int32{0, 1}, []float64{1, -1})       // 5 max(y1 - y2, 0)^2
	p.AddPotential(5, 1, 2, 0, []int32{0, 1, 3}, []float64{-1, 1, 1}) // 5 max(-y1 + y2 + y4 - 1, 0)^2
	p.AddPotential(5, 0, 2, 0, []int32{0, 3}, []float64{1, -1})       // 5 max(y1 - y4, 0)^2
	p.AddPotential(5, -1, 2, 0, []int32{2}, []float64{-1})            // 5 max(1 - y3, 0)^2
	return &p
}

func ExampleSolve() {
	p := example1()
	res, err := admm.Solve(context.Background(), p, admm.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("converged %v, objective %.4f\n", res.Converged(), res.Objective)
	fmt.Printf("y = %.3f\n", res.Values)
	// Output:
	// converged true, objective 0.0000
	// y = [0.000 0.000 1.000 0.000]
}

// twoPriors: the two unknowns must sum to 1 (a hard constraint), while
// priors pull y1 up with weight 2 and y2 up with weight 1 (linear hinges).
func twoPriors() *hlmrf.Problem {
	var p hlmrf.Problem
	p.AddVars(2)
	p.AddPotential(2, -1, 1, 0, []int32{0}, []float64{-1}) // 2 max(1 - y1, 0)
	p.AddPotential(1, -1, 1, 0, []int32{1}, []float64{-1}) // 1 max(1 - y2, 0)
	p.AddConstraint(hlmrf.Equal, 1, 0, []int32{0, 1}, []float64{1, 1})
	return &p
}

// A hard constraint (twoPriors): the MAP state puts all mass on y1.
func ExampleSolver_Solve_constraint() {
	s, err := admm.New(twoPriors(), admm.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("y = %.3f, violated constraints %d\n", res.Values, res.Violated)
	// Output:
	// y = [1.000 0.000], violated constraints 0
}

// Weight learning changes p.Weight in place and solves again: Solve(ctx, nil)
// continues from the previous state and needs far fewer iterations than a
// cold start.
func ExampleSolver_Solve_warmStart() {
	p := example1()
	// Two conflicting priors: y1 up, y2 down (the rule wants y1 <= y2).
	p.AddPotential(1, -1, 2, 0, []int32{0}, []float64{-1}) // 1 max(1 - y1, 0)^2
	p.AddPotential(1, 0, 2, 0, []int32{1}, []float64{1})   // 1 max(y2, 0)^2
	opt := admm.DefaultOptions()
	opt.EpsRel, opt.CheckEvery = 1e-6, 5
	s, err := admm.New(p, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	s.Solve(ctx, []float64{0.5, 0.5, 0.5, 0.5})
	p.Weight[5] = 1.1 // a learner's small step
	warm, _ := s.Solve(ctx, nil)
	cold, _ := admm.Solve(ctx, p, opt)
	fmt.Printf("objective warm %.4f, cold %.4f\n", warm.Objective, cold.Objective)
	fmt.Println("warm start needed fewer iterations:", warm.Iterations < cold.Iterations)
	// Output:
	// objective warm 0.4741, cold 0.4741
	// warm start needed fewer iterations: true
}

// The Lagrangian lower bound certifies a solve: the optimum lies between it
// and the objective. In twoPriors y1 + y2 = 1 leaves one unit of pull
// unsatisfied, cheapest on y2, so the optimum is 1; any duals, even zero
// ones, give a valid (weaker) bound.
func ExampleLowerBound() {
	p := twoPriors()
	res, err := admm.Solve(context.Background(), p, admm.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("objective %.3f, lower bound %.3f\n", res.Objective, res.LowerBound)
	fmt.Printf("bound at zero duals %.3f\n", admm.LowerBound(p, make([]float64, len(p.Var)), make([]float64, len(p.CVar))))
	// Output:
	// objective 1.000, lower bound 1.000
	// bound at zero duals 0.000
}
