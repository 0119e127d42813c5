package citations

import "slices"

// Rule says how NeighbourMajority chose a paper's category.
type Rule int

const (
	// Majority: one category has strictly the most observed neighbours.
	Majority Rule = iota
	// Tie: several categories share the most observed neighbours; the one
	// most frequent among all observed papers won.
	Tie
	// Fallback: no observed neighbour; the category most frequent among all
	// observed papers was predicted.
	Fallback
)

// String returns "majority", "tie" or "fallback".
func (r Rule) String() string {
	switch r {
	case Majority:
		return "majority"
	case Tie:
		return "tie"
	case Fallback:
		return "fallback"
	}
	return "Rule(?)"
}

// Prediction is the baseline's category for one target paper.
type Prediction struct {
	// Paper and Category index Dataset.Papers and Dataset.Categories.
	Paper, Category int
	// Votes is the number of observed neighbours with Category (0 for
	// Fallback).
	Votes int
	Rule  Rule
}

// NeighbourMajority is the non-collective baseline: each target paper gets
// the category most frequent among its observed neighbours, and the
// accuracy is the fraction of target papers predicted right.
//
// Precisely: the neighbours of paper p are the distinct papers q != p with
// a link p -> q or q -> p (a pair linked both ways counts once; self-links
// are ignored); only observed neighbours vote, one vote each, for their
// category. The category with the most votes wins (Majority). When several
// categories share the most votes, the winner among them is the one most
// frequent among all observed papers (Tie). A paper without observed
// neighbours gets the category most frequent among all observed papers
// (Fallback). Remaining ties in observed frequency go to the category
// listed first in labels.txt.
//
// Predictions are ordered as TargetPapers. The error reports a Split that
// does not fit its data set.
func NeighbourMajority(s *Split) (accuracy float64, predictions []Prediction, err error) {
	if err := s.check(); err != nil {
		return 0, nil, err
	}
	ds := s.Dataset
	K := len(ds.Categories)

	// Global order of categories: by observed frequency, then labels.txt.
	freq := make([]int, K)
	for p, o := range s.Observed {
		if o {
			freq[ds.Label[p]]++
		}
	}
	better := func(a, b int) bool { // is category a preferred to b on ties?
		return freq[a] > freq[b] || (freq[a] == freq[b] && a < b)
	}
	fallback := 0
	for c := 1; c < K; c++ {
		if better(c, fallback) {
			fallback = c
		}
	}

	// Distinct observed neighbours of each paper.
	nbrs := make([][]int, len(ds.Papers))
	for _, l := range ds.Links {
		if l.From == l.To {
			continue
		}
		if s.Observed[l.To] {
			nbrs[l.From] = append(nbrs[l.From], l.To)
		}
		if s.Observed[l.From] {
			nbrs[l.To] = append(nbrs[l.To], l.From)
		}
	}

	targets := s.TargetPapers()
	votes := make([]int, K)
	correct := 0
	for _, p := range targets {
		ns := nbrs[p]
		slices.Sort(ns)
		ns = slices.Compact(ns)
		pred := Prediction{Paper: p, Category: fallback, Rule: Fallback}
		if len(ns) > 0 {
			clear(votes)
			for _, q := range ns {
				votes[ds.Label[q]]++
			}
			best, ties := -1, 0
			for c := range K {
				switch {
				case best < 0 || votes[c] > votes[best]:
					best, ties = c, 1
				case votes[c] == votes[best]:
					ties++
					if better(c, best) {
						best = c
					}
				}
			}
			pred = Prediction{Paper: p, Category: best, Votes: votes[best], Rule: Majority}
			if ties > 1 {
				pred.Rule = Tie
			}
		}
		if pred.Category == ds.Label[p] {
			correct++
		}
		predictions = append(predictions, pred)
	}
	return float64(correct) / float64(len(targets)), predictions, nil
}
