package mln

import (
	"path/filepath"

	"github.com/hinge-srl/hinge/internal/textfile"
)

// Folder is a data set in the ExpressGNN layout: a program and its
// evidence, and query atoms whose Value is their truth.
type Folder struct {
	Program  *Program
	Evidence []GroundAtom
	Queries  []GroundAtom
}

// ReadFolder reads dir/predicates (declarations), dir/rules (formulas),
// dir/facts (evidence) and dir/queries (query atoms with their truth: Pred(A)
// true, !Pred(A) false).
func ReadFolder(dir string) (*Folder, error) {
	p := &Program{Types: map[string][]string{}, byName: map[string]*PredDecl{}}
	for _, name := range []string{"predicates", "rules"} {
		path := filepath.Join(dir, name)
		text, err := textfile.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := p.parse(path, text, 0); err != nil {
			return nil, err
		}
	}
	ev, err := ReadAtoms(filepath.Join(dir, "facts"), p, false)
	if err != nil {
		return nil, err
	}
	qs, err := ReadAtoms(filepath.Join(dir, "queries"), p, false)
	if err != nil {
		return nil, err
	}
	return &Folder{Program: p, Evidence: ev, Queries: qs}, nil
}
