package mln_test

import (
	"context"
	"fmt"
	"math"

	"github.com/hinge-srl/hinge/mln"
)

// ExampleLearnPLL learns the weights of a program with a per-constant
// formula from a training world, over every predicate (no query
// predicates, as Alchemy's learnwts -g), and writes the program back.
func ExampleLearnPLL() {
	src := []byte(`Owns(person, pet)
Happy(person)
1 Owns(x, +p) => Happy(x)
0.5 Happy(x)
`)
	prog, err := mln.ParseProgram("pets.mln", src)
	if err != nil {
		panic(err)
	}
	train, err := mln.ParseAtoms("pets.db", []byte("Owns(A, Cat)\nOwns(B, Dog)\nOwns(C, Dog)\nOwns(D, Cat)\nHappy(A)\nHappy(B)\nHappy(D)\n"), prog, false)
	if err != nil {
		panic(err)
	}
	res, err := mln.LearnPLL(context.Background(), prog, train, nil, mln.LearnOptions{PriorStdDev: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("converged:", res.Converged)
	for _, p := range res.Params {
		fmt.Printf("%5.2f -> %5.2f  %s\n", p.Initial, p.Weight, prog.Formulas[p.Formula].Instance(p.Constants))
	}
	// Two decimals are enough here (and the same on every machine).
	for i := range res.Params {
		res.Params[i].Weight = math.Round(res.Params[i].Weight*100) / 100
	}
	for i := range res.Weights {
		res.Weights[i] = math.Round(res.Weights[i]*100) / 100
	}
	out, err := mln.WithWeights("pets.mln", src, prog, res)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// converged: true
	//  1.00 ->  1.12  Owns(x, Cat) => Happy(x)
	//  1.00 ->  0.78  Owns(x, Dog) => Happy(x)
	//  0.50 ->  0.45  Happy(x)
	// Owns(person, pet)
	// Happy(person)
	// // Owns(x, +p) => Happy(x): one weight per constant of +p, learned
	// 1.12  Owns(x, Cat) => Happy(x)
	// 0.78  Owns(x, Dog) => Happy(x)
	// 0.45 Happy(x)
}
