package kgc

import "context"

// Place is where a candidate stands in a query's ranking, as an
// explanation gives it.
type Place struct {
	// Rank is the filtered rank Evaluate gives a true answer: 1 + the
	// candidates above it + half those tied with it, known answers other
	// than it left out; 0 when no rule predicts it.
	Rank float64
	// Score is the candidate's score in the list (0 when no rule
	// predicts it): under Learned the weighted sum for the re-weighed
	// first candidates, the noisy-or for the others.
	Score float64
	// Above are the candidates ranked strictly above it, best first,
	// known answers left out; Tied is the number of the others tied
	// with it.
	Above []Candidate
	Tied  int
}

// PlaceOf ranks the query (e, r, ?) when tail, else (?, r, e), with every
// rule (no top-k cut) and returns where y stands, leaving out the
// candidates other than y for which known is true (nil: none).
func (rk *Ranker) PlaceOf(ctx context.Context, e, r int32, tail bool, y int32, known func(int32) bool) (Place, error) {
	// PSL re-scores a test set's lists; alone, a query is ranked by its
	// confidences (rank ranks PSL as MaxPlus).
	s := rk.scoring
	skip := func(c int32) bool { return c != y && known != nil && known(c) }
	list, _, err := rk.rank(ctx, s, e, r, tail, 0, skip, rk.newQueryScratch())
	if err != nil {
		return Place{}, err
	}
	rk.reweigh(s, list)
	for j := range list {
		if list[j].Entity == y {
			return rk.PlaceIn(list, j), nil
		}
	}
	return Place{}, nil
}

// PlaceIn returns where list[j] stands in list, a query's answer list as
// Evaluate gives it (known answers other than the query's own left out,
// ties set): the candidates before its first tied one are above it (the
// lists Evaluate keeps have no confidences left to compare).
func (rk *Ranker) PlaceIn(list []Candidate, j int) Place {
	first := int(list[j].tie)
	p := Place{Above: list[:first], Score: list[j].Score}
	for i := first; i < len(list) && list[i].tie == list[j].tie; i++ {
		if i != j {
			p.Tied++
		}
	}
	p.Rank = 1 + float64(first) + float64(p.Tied)/2
	return p
}
