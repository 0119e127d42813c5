package kgc_test

import (
	"context"
	"fmt"

	"github.com/hinge-srl/hinge/kgc"
)

// Two rules with the same predictions over the graph (s and u) count once
// under clustered scoring, and two that overlap by a third (v and w) twice:
// b ranks above d. Noisy-or counts once the rules that predict exactly the
// same candidates for the query: s and u predict {d}, v and w {b}, and it
// puts d first.
func ExampleRanker_Cluster() {
	v := kgc.NewVocab()
	var graph []kgc.Triple
	for _, t := range [][3]string{
		{"a", "r", "x"}, {"c", "r", "y"}, {"e", "r", "z"},
		{"a", "s", "d"}, {"c", "s", "b"}, {"a", "u", "d"}, {"c", "u", "b"},
		{"a", "v", "b"}, {"e", "v", "f"}, {"a", "w", "b"}, {"c", "w", "d"},
	} {
		graph = append(graph, kgc.Triple{H: v.Entity(t[0]), R: v.Relation(t[1]), T: v.Entity(t[2])})
	}
	valid := []kgc.Triple{{H: v.Entity("a"), R: v.Relation("r"), T: v.Entity("b")}}
	g := kgc.NewGraph(graph, len(v.Entities), len(v.Relations))
	rule := func(body string, conf float64) kgc.Rule {
		return kgc.Rule{Kind: kgc.Cyclic, Head: v.Relation("r"), Body: []kgc.Step{{R: v.Relation(body)}}, Conf: conf}
	}
	rules := []kgc.Rule{rule("s", 0.6), rule("u", 0.5), rule("v", 0.45), rule("w", 0.4)}
	known := func(t kgc.Triple) bool { return g.Has(t) || t == valid[0] }
	for _, s := range []kgc.Scoring{kgc.NoisyOr, kgc.Clustered} {
		rk := kgc.NewRanker(g, rules, s)
		if s == kgc.Clustered {
			rep, err := rk.Cluster(context.Background(), valid, known, kgc.ClusterOptions{})
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println("cyclic rules' threshold, tail queries:", rep.Thresholds[v.Relation("r")][1][0])
		}
		fmt.Printf("%s:", s)
		for _, c := range rk.Rank(v.Entity("a"), v.Relation("r"), true, 0) {
			fmt.Printf(" %s %.2f", v.Entities[c.Entity], c.Score)
		}
		fmt.Println()
	}
	// Output:
	// noisy-or: d 0.60 b 0.45
	// cyclic rules' threshold, tail queries: 0.95
	// clustered: b 0.67 d 0.60
}
