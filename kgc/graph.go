package kgc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/hinge-srl/hinge/internal/textfile"
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
// surrounding blanks ignored) into ids of v, through the shared text reader:
// a NUL byte, an over-long line and a stream that outgrows the memory limit
// are refused with their position, a byte-order mark at the start of the
// file is skipped (as by every reader of hinge), invalid UTF-8 is refused,
// and the read stops within a few thousand lines once ctx
// is done. Errors name path:line:col.
func ReadTriples(ctx context.Context, path string, v *Vocab) ([]Triple, error) {
	f, err := textfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTriples(ctx, path, f, v)
}

// ParseTriples reads triples from r as ReadTriples does; name is used in
// errors.
func ParseTriples(ctx context.Context, name string, r io.Reader, v *Vocab) ([]Triple, error) {
	sc := textfile.NewScanner(r, name)
	var out []Triple
	line := 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		text := bytes.TrimRight(sc.Bytes(), "\r")
		const col = 1
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if !utf8.Valid(text) {
			bad := 0
			for bad < len(text) {
				r, size := utf8.DecodeRune(text[bad:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				bad += size
			}
			return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: col + bad}, "invalid UTF-8 (byte 0x%02X): entity and relation names are UTF-8 text", text[bad])
		}
		fields := bytes.Split(text, []byte{'\t'})
		if len(fields) != 3 {
			return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: col},
				"want head<TAB>relation<TAB>tail, found %d tab-separated field(s)", len(fields))
		}
		at := col
		var ids [3]int32
		for i, fl := range fields {
			s := bytes.TrimSpace(fl)
			if len(s) == 0 {
				return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: at}, "field %d is empty", i+1)
			}
			if i == 1 {
				ids[i] = v.Relation(string(s))
			} else {
				ids[i] = v.Entity(string(s))
			}
			at += len(fl) + 1
		}
		out = append(out, Triple{ids[0], ids[1], ids[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, textfile.ScanError(err, name, line)
	}
	return out, nil
}

// Graph indexes a set of triples for walking: every entity's edges in
// both directions, sorted by (relation, direction, neighbour), in one flat
// array (CSR), and for every relation and direction the sorted entities
// that have such an edge.
type Graph struct {
	NumEntities, NumRelations int
	// Triples are the distinct triples, in first-seen order.
	Triples []Triple
	start   []int64 // by entity: its edges are [start[e], start[e+1])
	ekey    []int32 // edge key: relation*2 + 1 when walked backwards
	eto     []int32 // the neighbour
	// from[key]: the sorted entities with an edge of key; selfOnly[key]
	// those of them whose edges of key are all self-loops.
	from, selfOnly [][]int32
}

// Edge is one step from an entity: relation R walked forwards (Inverse
// false: from head to tail) or backwards, reaching To.
type Edge struct {
	R       int32
	Inverse bool
	To      int32
}

func edgeKey(r int32, inverse bool) int32 {
	if inverse {
		return r*2 + 1
	}
	return r * 2
}

// NewGraph indexes the triples (duplicates are kept once) over
// numEntities entities and numRelations relations.
func NewGraph(triples []Triple, numEntities, numRelations int) *Graph {
	g := &Graph{NumEntities: numEntities, NumRelations: numRelations}
	deg := make([]int64, numEntities+1)
	for _, t := range triples {
		deg[t.H+1]++
		deg[t.T+1]++
	}
	for e := range numEntities {
		deg[e+1] += deg[e]
	}
	packed := make([]uint64, deg[numEntities])
	fill := slices.Clone(deg[:numEntities])
	pack := func(key, to int32) uint64 { return uint64(key)<<32 | uint64(uint32(to)) }
	for _, t := range triples {
		packed[fill[t.H]] = pack(edgeKey(t.R, false), t.T)
		fill[t.H]++
		packed[fill[t.T]] = pack(edgeKey(t.R, true), t.H)
		fill[t.T]++
	}
	g.start = make([]int64, numEntities+1)
	g.ekey = make([]int32, 0, len(packed))
	g.eto = make([]int32, 0, len(packed))
	for e := range numEntities {
		es := packed[deg[e]:deg[e+1]]
		slices.Sort(es)
		es = slices.Compact(es)
		for _, p := range es {
			g.ekey = append(g.ekey, int32(p>>32))
			g.eto = append(g.eto, int32(uint32(p)))
		}
		g.start[e+1] = int64(len(g.ekey))
	}
	// Distinct triples in first-seen order: a triple is new when its
	// forward edge has not been claimed yet.
	claimed := make([]bool, len(g.ekey))
	for _, t := range triples {
		i := g.find(t.H, edgeKey(t.R, false), t.T)
		if !claimed[i] {
			claimed[i] = true
			g.Triples = append(g.Triples, t)
		}
	}
	nk := 2 * numRelations
	g.from, g.selfOnly = make([][]int32, nk), make([][]int32, nk)
	for e := range int32(numEntities) {
		lo, hi := g.start[e], g.start[e+1]
		for i := lo; i < hi; {
			j, self := i, true
			for ; j < hi && g.ekey[j] == g.ekey[i]; j++ {
				self = self && g.eto[j] == e
			}
			g.from[g.ekey[i]] = append(g.from[g.ekey[i]], e)
			if self {
				g.selfOnly[g.ekey[i]] = append(g.selfOnly[g.ekey[i]], e)
			}
			i = j
		}
	}
	return g
}

// find is the index of edge (key, to) of e, which must exist.
func (g *Graph) find(e, key, to int32) int64 {
	lo, hi := g.keyRange(e, key)
	j, _ := slices.BinarySearch(g.eto[lo:hi], to)
	return lo + int64(j)
}

// keyRange is the range of e's edges of key.
func (g *Graph) keyRange(e, key int32) (int64, int64) {
	lo, hi := g.start[e], g.start[e+1]
	ks := g.ekey[lo:hi]
	i, found := slices.BinarySearch(ks, key)
	if !found {
		return 0, 0
	}
	j := i + 1
	for j < len(ks) && ks[j] == key {
		j++
	}
	return lo + int64(i), lo + int64(j)
}

// Has reports whether the graph holds the triple.
func (g *Graph) Has(t Triple) bool {
	if int(t.H) >= g.NumEntities || int(t.R) >= g.NumRelations || t.H < 0 || t.R < 0 {
		return false
	}
	_, found := slices.BinarySearch(g.Step(t.H, t.R, false), t.T)
	return found
}

// Step returns the sorted entities reached from e by one step of relation
// r (forwards: e's tails; inverse: e's heads). The slice is shared.
func (g *Graph) Step(e, r int32, inverse bool) []int32 {
	lo, hi := g.keyRange(e, edgeKey(r, inverse))
	return g.eto[lo:hi]
}

// Degree is the number of e's edges, both directions.
func (g *Graph) Degree(e int32) int { return int(g.start[e+1] - g.start[e]) }

// EdgeAt returns e's i-th edge, 0 <= i < Degree(e), in (relation,
// direction, neighbour) order.
func (g *Graph) EdgeAt(e int32, i int) Edge {
	j := g.start[e] + int64(i)
	k := g.ekey[j]
	return Edge{R: k >> 1, Inverse: k&1 == 1, To: g.eto[j]}
}

// Edges returns e's edges, in (relation, direction, neighbour) order (a
// new slice).
func (g *Graph) Edges(e int32) []Edge {
	out := make([]Edge, g.Degree(e))
	for i := range out {
		out[i] = g.EdgeAt(e, i)
	}
	return out
}

// From returns the sorted entities with at least one edge of relation r in
// the given direction (the heads of r forwards, its tails backwards). The
// slice is shared.
func (g *Graph) From(r int32, inverse bool) []int32 { return g.from[edgeKey(r, inverse)] }

// String summarises the graph.
func (g *Graph) String() string {
	return fmt.Sprintf("%d entities, %d relations, %d triples", g.NumEntities, g.NumRelations, len(g.Triples))
}
