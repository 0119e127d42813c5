package mln_test

import (
	"context"
	"fmt"
	"sort"

	"github.com/hinge-srl/hinge/mln"
)

// ExampleNetwork_LazyMarginals estimates marginals by lazy MC-SAT on a
// network built without its unknown atoms. Anna smokes (evidence), so the
// ground clauses Smokes(Anna) => Cancer(Anna) and Friends(Anna, Bob) ^
// Smokes(Anna) => Smokes(Bob) can be violated and are built at the start;
// the others are built once a chain's world makes them violable. The
// network is small, so every unknown atom is active from the start
// (LazySampleOptions.MaxActivate) and sampled as MC-SAT samples it: Carl,
// whom no clause reaches from the evidence, gets his exact marginals too
// (Smokes(Carl) 0.3795). The exact marginals of Anna's and Bob's atoms are
// 0.8176, 0.7057 and 0.6476.
func ExampleNetwork_LazyMarginals() {
	prog, err := mln.ParseProgram("smokers.mln", []byte(`*Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
`))
	if err != nil {
		panic(err)
	}
	ev, err := mln.ParseAtoms("smokers.db", []byte("Friends(Anna, Bob)\nSmokes(Anna)\nFriends(Carl, Carl)\n"), prog, false)
	if err != nil {
		panic(err)
	}
	net, err := mln.Build(prog, ev, mln.Options{Query: []string{"Smokes", "Cancer"}, Lazy: true})
	if err != nil {
		panic(err)
	}
	res, err := net.LazyMarginals(context.Background(), mln.LazySampleOptions{SampleOptions: mln.SampleOptions{Samples: 20000, BurnIn: 100, Chains: 4, Seed: 1}})
	if err != nil {
		panic(err)
	}
	var lines []string
	for i, a := range res.Atoms {
		lines = append(lines, fmt.Sprintf("%s %.2f", mln.AtomString(a.Pred.Name, res.Args(net.Store, i)), res.Probs[i]))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("mixed:", res.Diagnostics.Mixed)
	// Output:
	// Cancer(Anna) 0.82
	// Cancer(Bob) 0.71
	// Cancer(Carl) 0.62
	// Smokes(Bob) 0.65
	// Smokes(Carl) 0.38
	// mixed: true
}
