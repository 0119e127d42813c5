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

// GraphNames are the entities and relations the triples of a graph name:
// the one pass over the graph the input checks share.
type GraphNames struct {
	ents, rels map[int32]bool
}

// NamesOf gathers the entities and relations graph names.
func NamesOf(graph []Triple) GraphNames {
	n := GraphNames{ents: map[int32]bool{}, rels: map[int32]bool{}}
	for _, t := range graph {
		n.ents[t.H], n.ents[t.T], n.rels[t.R] = true, true, true
	}
	return n
}

// Count gives the numbers of distinct entities and relations.
func (n GraphNames) Count() (entities, relations int) { return len(n.ents), len(n.rels) }

// Unseen counts the triples of ts whose entities or relation appear in no
// triple of the graph.
func (n GraphNames) Unseen(ts []Triple) Unseen {
	u := Unseen{FirstEntity: -1, FirstRelation: -1}
	for i, t := range ts {
		if !n.ents[t.H] || !n.ents[t.T] {
			u.Entity++
			if u.FirstEntity < 0 {
				u.FirstEntity = i
			}
		}
		if !n.rels[t.R] {
			u.Relation++
			if u.FirstRelation < 0 {
				u.FirstRelation = i
			}
		}
	}
	return u
}

// RulesOff counts the rules whose head or body names a relation no triple
// of the graph has (such a rule can never fire: a rules file of another
// data set), and gives the first one's index (-1: none).
func (n GraphNames) RulesOff(rules []Rule) (count, first int) {
	first = -1
	for i := range rules {
		off := !n.rels[rules[i].Head]
		for _, st := range rules[i].Body {
			off = off || !n.rels[st.R]
		}
		if off {
			count++
			if first < 0 {
				first = i
			}
		}
	}
	return count, first
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
