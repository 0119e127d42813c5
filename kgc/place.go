package kgc

import "context"

// Place is where a candidate stands in a query's ranking, as an
// explanation gives it.
type Place struct {
	// Rank is the filtered rank Evaluate gives a true answer: 1 + the
	// candidates above it + half those tied with it, known answers other
	// than it left out; 0 when no rule predicts it.
	Rank float64
	// Above are the candidates ranked strictly above it, best first,
	// known answers left out.
	Above []Candidate
}

// PlaceOf ranks the query (e, r, ?) when tail, else (?, r, e), with every
// rule (no top-k cut) and returns where y stands, leaving out the
// candidates other than y for which known is true (nil: none).
func (rk *Ranker) PlaceOf(ctx context.Context, e, r int32, tail bool, y int32, known func(int32) bool) (Place, error) {
	s := rk.scoring
	if s == PSL {
		s = MaxPlus // PSL re-scores a test set's lists; alone, a query is ranked by its confidences
	}
	skip := func(c int32) bool { return c != y && known != nil && known(c) }
	list, _, err := rk.rank(ctx, s, e, r, tail, 0, skip, rk.newQueryScratch())
	if err != nil {
		return Place{}, err
	}
	return place(s, list, y, skip), nil
}

// PlaceIn returns where list[j] stands in list, a query's answer list as
// Evaluate gives it (known answers other than the query's own already
// left out).
func (rk *Ranker) PlaceIn(list []Candidate, j int) Place {
	return place(rk.scoring, list, list[j].Entity, nil)
}

// place is where y stands in list, sorted best first under s, leaving out
// the candidates for which skip is true.
func place(s Scoring, list []Candidate, y int32, skip func(int32) bool) Place {
	ti := -1
	for i := range list {
		if list[i].Entity == y {
			ti = i
			break
		}
	}
	if ti < 0 {
		return Place{}
	}
	p := Place{Rank: rankOf(s, list, y, skip)}
	for i := range list[:ti] {
		if (skip == nil || !skip(list[i].Entity)) && compare(s, &list[i], &list[ti]) < 0 {
			p.Above = append(p.Above, list[i])
		}
	}
	return p
}
