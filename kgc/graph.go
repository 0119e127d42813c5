package kgc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hinge-srl/hinge/srcpos"
)

// Triple is a fact head -relation-> tail, by ids.
type Triple struct{ H, R, T int32 }

// Vocab interns entity and relation names.
type Vocab struct {
	Entities, Relations []string
	ent, rel            map[string]int32
}

// NewVocab returns an empty vocabulary.
func NewVocab() *Vocab { return &Vocab{ent: map[string]int32{}, rel: map[string]int32{}} }

func intern(names *[]string, ids map[string]int32, s string) int32 {
	if id, ok := ids[s]; ok {
		return id
	}
	id := int32(len(*names))
	ids[s] = id
	*names = append(*names, s)
	return id
}

// Entity returns the id of an entity name, adding it if new.
func (v *Vocab) Entity(s string) int32 { return intern(&v.Entities, v.ent, s) }

// Relation returns the id of a relation name, adding it if new.
func (v *Vocab) Relation(s string) int32 { return intern(&v.Relations, v.rel, s) }

// ReadTriples reads head<TAB>relation<TAB>tail lines (blank lines and
// surrounding blanks ignored) into ids of v. Errors name path:line:col.
func ReadTriples(path string, v *Vocab) ([]Triple, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTriples(path, f, v)
}

// ParseTriples reads triples from r; name is used in errors.
func ParseTriples(name string, r io.Reader, v *Vocab) ([]Triple, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []Triple
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		fields := bytes.Split(bytes.TrimSpace(text), []byte{'\t'})
		if len(fields) != 3 {
			return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: 1},
				"want head<TAB>relation<TAB>tail, found %d tab-separated field(s)", len(fields))
		}
		for i, fl := range fields {
			if len(bytes.TrimSpace(fl)) == 0 {
				return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: 1}, "field %d is empty", i+1)
			}
		}
		out = append(out, Triple{
			H: v.Entity(string(bytes.TrimSpace(fields[0]))),
			R: v.Relation(string(bytes.TrimSpace(fields[1]))),
			T: v.Entity(string(bytes.TrimSpace(fields[2]))),
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}

// Graph indexes a set of triples: for every relation the sorted tails of
// each head and heads of each tail, and for every entity its edges in
// both directions.
type Graph struct {
	NumEntities, NumRelations int
	Triples                   []Triple
	out, in                   []map[int32][]int32 // by relation: head -> tails, tail -> heads
	adj                       [][]Edge            // by entity
	has                       map[Triple]bool
}

// Edge is one step from an entity: relation R walked forwards (Inverse
// false: from head to tail) or backwards, reaching To.
type Edge struct {
	R       int32
	Inverse bool
	To      int32
}

// NewGraph indexes the triples (duplicates are kept once) over
// numEntities entities and numRelations relations.
func NewGraph(triples []Triple, numEntities, numRelations int) *Graph {
	g := &Graph{NumEntities: numEntities, NumRelations: numRelations, has: make(map[Triple]bool, len(triples))}
	g.out = make([]map[int32][]int32, numRelations)
	g.in = make([]map[int32][]int32, numRelations)
	for r := range g.out {
		g.out[r], g.in[r] = map[int32][]int32{}, map[int32][]int32{}
	}
	g.adj = make([][]Edge, numEntities)
	for _, t := range triples {
		if g.has[t] {
			continue
		}
		g.has[t] = true
		g.Triples = append(g.Triples, t)
		g.out[t.R][t.H] = append(g.out[t.R][t.H], t.T)
		g.in[t.R][t.T] = append(g.in[t.R][t.T], t.H)
		g.adj[t.H] = append(g.adj[t.H], Edge{t.R, false, t.T})
		g.adj[t.T] = append(g.adj[t.T], Edge{t.R, true, t.H})
	}
	for r := range g.out {
		for _, m := range []map[int32][]int32{g.out[r], g.in[r]} {
			for k, v := range m {
				slices.Sort(v)
				m[k] = v
			}
		}
	}
	for e := range g.adj {
		slices.SortFunc(g.adj[e], func(a, b Edge) int {
			switch {
			case a.R != b.R:
				return int(a.R - b.R)
			case a.Inverse != b.Inverse:
				if a.Inverse {
					return 1
				}
				return -1
			}
			return int(a.To - b.To)
		})
	}
	return g
}

// Has reports whether the graph holds the triple.
func (g *Graph) Has(t Triple) bool { return g.has[t] }

// Step returns the entities reached from e by one step of relation r
// (forwards: e's tails; inverse: e's heads). The slice is shared.
func (g *Graph) Step(e, r int32, inverse bool) []int32 {
	if inverse {
		return g.in[r][e]
	}
	return g.out[r][e]
}

// Edges returns e's edges (shared).
func (g *Graph) Edges(e int32) []Edge { return g.adj[e] }
