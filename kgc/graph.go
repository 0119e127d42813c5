package kgc

import (
	"bytes"
	"context"
	"io"
	"unicode/utf8"

	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/pathrule"
	"github.com/hinge-srl/hinge/srcpos"
)

// Triple is a fact head -relation-> tail, by ids.
type Triple = pathrule.Triple

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
	// bad reports a line's problem, unless the reader stopped in that
	// line (a NUL byte, invalid UTF-8): then the reader's error, which
	// says why the line was cut.
	bad := func(err error) ([]Triple, error) {
		if !sc.Scan() && sc.Err() != nil {
			return nil, textfile.ScanError(sc.Err(), name, line)
		}
		return nil, err
	}
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
			i := 0
			for i < len(text) {
				r, size := utf8.DecodeRune(text[i:])
				if r == utf8.RuneError && size <= 1 {
					break
				}
				i += size
			}
			return bad(srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: col + i}, "invalid UTF-8 (byte 0x%02X): entity and relation names are UTF-8 text", text[i]))
		}
		fields := bytes.Split(text, []byte{'\t'})
		if len(fields) != 3 {
			return bad(srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: col},
				"want head<TAB>relation<TAB>tail, found %d tab-separated field(s)", len(fields)))
		}
		at := col
		var ids [3]int32
		for i, fl := range fields {
			s := bytes.TrimSpace(fl)
			if len(s) == 0 {
				return bad(srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: at}, "field %d is empty", i+1))
			}
			if i == 1 {
				ids[i] = v.Relation(string(s))
			} else {
				ids[i] = v.Entity(string(s))
			}
			at += len(fl) + 1
		}
		out = append(out, Triple{H: ids[0], R: ids[1], T: ids[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, textfile.ScanError(err, name, line)
	}
	return out, nil
}

// Graph is the relational graph rules are learned from and applied to
// (package pathrule, shared with structure learning).
type Graph = pathrule.Graph

// Edge is one step from an entity (pathrule.Edge).
type Edge = pathrule.Edge

// NewGraph indexes the triples (duplicates are kept once) over
// numEntities entities and numRelations relations.
func NewGraph(triples []Triple, numEntities, numRelations int) *Graph {
	return pathrule.NewGraph(triples, numEntities, numRelations)
}
