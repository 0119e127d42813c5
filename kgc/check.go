package kgc

// Unseen counts the triples of a split (test or validation) that name an
// entity or a relation no triple of the graph names: no rule can place
// such an entity, and a relation never seen has no rules at all, so their
// ranks are as good as chance.
type Unseen struct {
	// Entity and Relation are the numbers of triples with an unseen
	// entity (head or tail) and with an unseen relation.
	Entity, Relation int
	// FirstEntity and FirstRelation are the first such triples' indices,
	// -1 when there is none.
	FirstEntity, FirstRelation int
}

// UnseenIn counts the triples of ts whose entities or relation appear in
// no triple of graph.
func UnseenIn(graph, ts []Triple) Unseen {
	ents, rels := map[int32]bool{}, map[int32]bool{}
	for _, t := range graph {
		ents[t.H], ents[t.T], rels[t.R] = true, true, true
	}
	u := Unseen{FirstEntity: -1, FirstRelation: -1}
	for i, t := range ts {
		if !ents[t.H] || !ents[t.T] {
			u.Entity++
			if u.FirstEntity < 0 {
				u.FirstEntity = i
			}
		}
		if !rels[t.R] {
			u.Relation++
			if u.FirstRelation < 0 {
				u.FirstRelation = i
			}
		}
	}
	return u
}

// HeaderLike reports whether first, the first triple of a file, looks like
// a header line read as a triple (head relation tail): its relation and
// both its entities appear in no other triple of all (every file read;
// copies of first itself, as when each split has the header, do not
// count). A real first triple almost never is alone in all three.
func HeaderLike(first Triple, all ...[]Triple) bool {
	for _, ts := range all {
		for _, t := range ts {
			if t != first && (t.R == first.R || t.H == first.H || t.H == first.T || t.T == first.H || t.T == first.T) {
				return false
			}
		}
	}
	return true
}

// RulesOffGraph counts the rules whose head or body names a relation no
// triple of graph has (such a rule can never fire: a rules file of
// another data set), and gives the first one's index (-1: none).
func RulesOffGraph(graph []Triple, rules []Rule) (n, first int) {
	rels := map[int32]bool{}
	for _, t := range graph {
		rels[t.R] = true
	}
	first = -1
	for i := range rules {
		off := !rels[rules[i].Head]
		for _, st := range rules[i].Body {
			off = off || !rels[st.R]
		}
		if off {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	return n, first
}

// Names counts the distinct entities and relations the triples name.
func Names(ts []Triple) (entities, relations int) {
	ents, rels := map[int32]bool{}, map[int32]bool{}
	for _, t := range ts {
		ents[t.H], ents[t.T], rels[t.R] = true, true, true
	}
	return len(ents), len(rels)
}
