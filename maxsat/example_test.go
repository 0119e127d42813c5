package maxsat_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/maxsat"
)

// Solve a small weighted partial MAX-SAT instance read from WCNF: the answer
// comes with a certified upper bound on the optimum.
func ExampleSolve() {
	const wcnf = `c (x1 | x2) weight 3, ~x1 weight 2, ~x2 weight 2, hard (x1 | ~x3), x3 weight 1
p wcnf 3 5 100
3 1 2 0
2 -1 0
2 -2 0
100 1 -3 0
1 3 0
`
	in, err := maxsat.Read(strings.NewReader(wcnf), "example.wcnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := maxsat.DefaultOptions()
	opt.ADMM.Threads = 1
	res, err := maxsat.Solve(context.Background(), in, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.Report
	fmt.Printf("satisfied %v of %v, certified bound %v, optimal %v\n", r.WeightSatisfied, r.WeightTotal, r.LPUpperBound, r.Optimal)
	fmt.Println("assignment:", res.X)
	// Output:
	// satisfied 6 of 8, certified bound 6, optimal true
	// assignment: [true false true]
}

// MaxWalkSAT on its own, from a random start.
func ExampleWalkSAT() {
	in := &maxsat.Instance{}
	in.AddClause(1, false, maxsat.Pos(0), maxsat.Pos(1))
	in.AddClause(1, false, maxsat.Not(0))
	in.AddClause(1, false, maxsat.Not(1))
	in.AddClause(0, true, maxsat.Pos(0), maxsat.Not(1))
	res, err := maxsat.WalkSAT(context.Background(), in, nil, maxsat.WalkOptions{Steps: 100, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("satisfied", res.Satisfied, "hard violated", res.HardViolated)
	// Output:
	// satisfied 2 hard violated 0
}

// A PSL model whose rules are clauses grounds to linear hinges of clause
// shape; SolveProblem rounds it to a 0/1 MAP state with the same guarantee.
func ExampleSolveProblem() {
	p := &hlmrf.Problem{NumVars: 3}
	// 2: a & b -> c   hinge a + b - c - 1
	p.AddPotential(2, 1, 1, -1, []int32{0, 1, 2}, []float64{1, 1, -1})
	// 1: a   and   1: b   (hinges 1 - a, 1 - b)
	p.AddPotential(1, -1, 1, -1, []int32{0}, []float64{-1})
	p.AddPotential(1, -1, 1, -1, []int32{1}, []float64{-1})
	// 0.5: !c   (hinge c)
	p.AddPotential(0.5, 0, 1, -1, []int32{2}, []float64{1})
	opt := maxsat.DefaultOptions()
	opt.ADMM.Threads = 1
	res, err := maxsat.SolveProblem(context.Background(), p, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.X, res.Report.WeightSatisfied, res.Report.Optimal)
	// Output:
	// [true true true] 4 true
}

// Solve lifted: ten interchangeable communities of three people, each with
// the clauses "a smoker's friend smokes" both ways and a prior against
// smoking. The relaxation lifts to one community's classes; the bound holds
// for the whole instance and the world is rounded one atom per class.
func ExampleSolve_lifted() {
	in := &maxsat.Instance{}
	for c := range 10 {
		a, b, d := 3*c, 3*c+1, 3*c+2
		in.AddClause(2, false, maxsat.Pos(a)) // a smokes, most likely
		for _, e := range [][2]int{{a, b}, {b, d}} {
			in.AddClause(1, false, maxsat.Not(e[0]), maxsat.Pos(e[1]))
			in.AddClause(1, false, maxsat.Not(e[1]), maxsat.Pos(e[0]))
		}
		for _, v := range []int{a, b, d} {
			in.AddClause(0.5, false, maxsat.Not(v))
		}
	}
	opt := maxsat.DefaultOptions()
	opt.ADMM.Threads = 1
	opt.Lift = true
	res, err := maxsat.Solve(context.Background(), in, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res.Report
	l := r.Lifted
	fmt.Printf("lifted %v: %d atoms, %d clauses (from %d, %d); rounded on the %s\n", l.Symmetry, l.Lifted.Variables, l.Lifted.Potentials, l.Ground.Variables, l.Ground.Potentials, l.Rounding)
	fmt.Printf("violated weight %.6g, certified lower bound %.6g, optimal %v\n", r.WeightTotal-r.WeightSatisfied, r.WeightTotal-r.LPUpperBound, r.Optimal)
	// Output:
	// lifted true: 3 atoms, 8 clauses (from 30, 80); rounded on the classes
	// violated weight 15, certified lower bound 15, optimal true
}

// Solve a weighted partial MAX-SAT instance exactly: the world is proven
// optimal by the cores' lower bound (or, with a time limit, comes with
// the bound and the gap).
func ExampleExact() {
	const wcnf = `c (x1 | x2) weight 3, ~x1 weight 2, ~x2 weight 2.5, hard (x1 | ~x3), x3 weight 1
h 1 -3 0
3 1 2 0
2 -1 0
2.5 -2 0
1 3 0
`
	in, err := maxsat.Read(strings.NewReader(wcnf), "example.wcnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := maxsat.Exact(context.Background(), in, maxsat.ExactOptions{TimeLimit: time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: cost %v, lower bound %v\n", res.Status, res.Cost, res.LowerBound)
	fmt.Println("assignment:", res.X)
	// Output:
	// optimal: cost 2, lower bound 2
	// assignment: [true false true]
}
