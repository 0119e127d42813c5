// Package store holds the atoms a model is grounded over: for every
// predicate, the observed atoms with their values, the target atoms (the
// unknowns to infer) and the truth atoms (for evaluation and learning).
//
// Constants are interned to int32 ids in a Dict; each predicate's atoms live
// in a Table with a hash index on the whole argument tuple and lazily built
// indexes on any subset of argument positions, which is what the grounder's
// joins use. LoadTSV reads atom files into a Store (package config reads the
// .data and JSON files that name them); a Go user can build the same in
// memory with AddObservation, AddTarget and AddTruth.
package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/hinge-srl/hinge/model"
)

// Dict interns constants to dense int32 ids.
type Dict struct {
	ids   map[string]int32
	names []string
	num   []int64 // numeric value when names[i] is an integer
	isNum []bool
}

// NewDict returns an empty dictionary.
func NewDict() *Dict { return &Dict{ids: make(map[string]int32)} }

// ID returns the id of s, interning it if new.
func (d *Dict) ID(s string) int32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := int32(len(d.names))
	d.ids[s] = id
	d.names = append(d.names, s)
	n, err := strconv.ParseInt(s, 10, 64)
	d.num = append(d.num, n)
	d.isNum = append(d.isNum, err == nil)
	return id
}

// Lookup returns the id of s if it has been interned.
func (d *Dict) Lookup(s string) (int32, bool) {
	id, ok := d.ids[s]
	return id, ok
}

// Name returns the constant with id.
func (d *Dict) Name(id int32) string { return d.names[id] }

// Len returns the number of interned constants.
func (d *Dict) Len() int { return len(d.names) }

// Less orders constants for the non-symmetric comparison A % B: numerically
// when both are integers, otherwise by their text (integers before text).
func (d *Dict) Less(a, b int32) bool {
	switch {
	case d.isNum[a] && d.isNum[b]:
		return d.num[a] < d.num[b]
	case d.isNum[a] != d.isNum[b]:
		return d.isNum[a]
	}
	return d.names[a] < d.names[b]
}

// Kind says whether an atom in a Table is observed or a target.
type Kind uint8

const (
	// Observed atoms have a fixed value.
	Observed Kind = iota
	// Target atoms are unknowns: the variables of the ground problem.
	Target
)

// Store holds the atoms of every predicate of a model.
type Store struct {
	Model  *model.Model
	Dict   *Dict
	tables []*Table // by Predicate.Index
	truth  []*Table
}

// New returns an empty store for the predicates of m. Predicates added to m
// later get tables on first use.
func New(m *model.Model) *Store {
	return &Store{Model: m, Dict: NewDict()}
}

// Table returns the observed and target atoms of p.
func (s *Store) Table(p *model.Predicate) *Table { return tableOf(&s.tables, p) }

// Truth returns the truth atoms of p (ground truth for evaluation and
// learning; every atom in it is Observed with its true value).
func (s *Store) Truth(p *model.Predicate) *Table { return tableOf(&s.truth, p) }

// tableOf returns p's table in tables (indexed by Predicate.Index), growing
// the slice and creating the table on first use.
func tableOf(tables *[]*Table, p *model.Predicate) *Table {
	for len(*tables) <= p.Index {
		*tables = append(*tables, nil)
	}
	if (*tables)[p.Index] == nil {
		(*tables)[p.Index] = newTable(p)
	}
	return (*tables)[p.Index]
}

// HasTruth reports whether any truth atom was added for p.
func (s *Store) HasTruth(p *model.Predicate) bool {
	return p.Index < len(s.truth) && s.truth[p.Index] != nil && s.truth[p.Index].Len() > 0
}

// ids interns args, checking the arity.
func (s *Store) ids(p *model.Predicate, args []string) ([]int32, error) {
	if len(args) != p.Arity {
		return nil, fmt.Errorf("%s takes %d arguments, found %d", p.Name, p.Arity, len(args))
	}
	out := make([]int32, len(args))
	for i, a := range args {
		out[i] = s.Dict.ID(a)
	}
	return out, nil
}

// CheckValue returns an error unless v is a truth value in [0,1].
func CheckValue(v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return fmt.Errorf("truth value %v is outside [0,1]", v)
	}
	return nil
}

// AtomString formats p(args) for messages.
func AtomString(p *model.Predicate, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + a + "'"
	}
	return p.Name + "(" + strings.Join(q, ", ") + ")"
}

// AddObservation records that p(args) is observed with value v. Observing an
// atom that is a target is an error; observing it twice with different
// values is an error.
func (s *Store) AddObservation(p *model.Predicate, args []string, v float64) error {
	return s.addValue(p, Observations, args, v)
}

// AddTarget records that p(args) is a target (an unknown to infer). Adding a
// target twice is harmless; a target of a closed predicate or one that is
// also observed is an error.
func (s *Store) AddTarget(p *model.Predicate, args []string) error {
	ids, err := s.ids(p, args)
	if err != nil {
		return err
	}
	return s.addIDs(p, Targets, ids, 0, false)
}

// AddTruth records the true value of p(args). Twice with different values is
// an error.
func (s *Store) AddTruth(p *model.Predicate, args []string, v float64) error {
	return s.addValue(p, Truth, args, v)
}

// addValue checks v and the arity, interns args and adds the atom with its
// value to a section (AddObservation and AddTruth).
func (s *Store) addValue(p *model.Predicate, what Section, args []string, v float64) error {
	if err := CheckValue(v); err != nil {
		return fmt.Errorf("%s: %w", AtomString(p, args), err)
	}
	ids, err := s.ids(p, args)
	if err != nil {
		return err
	}
	return s.addIDs(p, what, ids, v, true)
}

// addIDs adds an atom given by interned argument ids to a section: the one
// place the rules of AddObservation, AddTarget and AddTruth live (the TSV
// loader calls it directly, without allocating). v must already be a valid
// truth value. For targets, hasValue sets the atom's initial value to v.
func (s *Store) addIDs(p *model.Predicate, what Section, ids []int32, v float64, hasValue bool) error {
	switch what {
	case Observations:
		t := s.Table(p)
		if row, ok := t.Find(ids); ok {
			if t.kind[row] == Target {
				return fmt.Errorf("%s is listed both as an observation and as a target", AtomString(p, s.Names(ids)))
			}
			if t.value[row] != v {
				return fmt.Errorf("%s is observed twice, with values %v and %v", AtomString(p, s.Names(ids)), t.value[row], v)
			}
			return nil
		}
		t.add(ids, v, Observed)
	case Targets:
		if p.Closed {
			return fmt.Errorf("%s: predicate %s is closed (fully observed) and cannot have targets", AtomString(p, s.Names(ids)), p.Name)
		}
		t := s.Table(p)
		row, ok := t.Find(ids)
		if ok {
			if t.kind[row] == Observed {
				return fmt.Errorf("%s is listed both as an observation and as a target", AtomString(p, s.Names(ids)))
			}
		} else {
			row = t.Len()
			t.add(ids, 0, Target)
		}
		if hasValue {
			t.value[row] = v
		}
	case Truth:
		t := s.Truth(p)
		if row, ok := t.Find(ids); ok {
			if t.value[row] != v {
				return fmt.Errorf("%s has two truth values, %v and %v", AtomString(p, s.Names(ids)), t.value[row], v)
			}
			return nil
		}
		t.add(ids, v, Observed)
	default:
		return fmt.Errorf("unknown section %v", what)
	}
	return nil
}

// Names converts interned ids back to constants.
func (s *Store) Names(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.Dict.Name(id)
	}
	return out
}

// Counts summarises the store: observed, target and truth atoms over all
// predicates.
func (s *Store) Counts() (observed, targets, truth int) {
	for _, t := range s.tables {
		if t == nil {
			continue
		}
		for _, k := range t.kind {
			if k == Target {
				targets++
			} else {
				observed++
			}
		}
	}
	for _, t := range s.truth {
		if t != nil {
			truth += t.Len()
		}
	}
	return
}

// Table holds the atoms of one predicate, row by row: arguments (interned
// ids, row-major), a value (observed value; for targets, an initial value)
// and a kind.
type Table struct {
	Pred  *model.Predicate
	arity int
	args  []int32
	value []float64
	kind  []Kind
	full  hashIndex

	mu  sync.Mutex
	sub map[uint32]*SubIndex
}

func newTable(p *model.Predicate) *Table {
	return &Table{Pred: p, arity: p.Arity}
}

// Len is the number of atoms in the table.
func (t *Table) Len() int { return len(t.kind) }

// Arity is the number of arguments per atom.
func (t *Table) Arity() int { return t.arity }

// Args returns the argument ids of a row (a view: do not modify).
func (t *Table) Args(row int) []int32 { return t.args[row*t.arity : (row+1)*t.arity : (row+1)*t.arity] }

// Arg returns argument i of a row.
func (t *Table) Arg(row, i int) int32 { return t.args[row*t.arity+i] }

// Value returns the value of a row.
func (t *Table) Value(row int) float64 { return t.value[row] }

// SetValue changes the value of a row (for example a target's initial value).
func (t *Table) SetValue(row int, v float64) { t.value[row] = v }

// Kind returns whether a row is observed or a target.
func (t *Table) Kind(row int) Kind { return t.kind[row] }

// Find returns the row of the atom with the given arguments.
func (t *Table) Find(args []int32) (int, bool) {
	return t.full.find(args, t.args, t.arity)
}

func (t *Table) add(args []int32, v float64, k Kind) {
	row := len(t.kind)
	t.args = append(t.args, args...)
	t.value = append(t.value, v)
	t.kind = append(t.kind, k)
	t.full.insert(row, t.args, t.arity)
	t.mu.Lock()
	for _, ix := range t.sub {
		ix.insert(row)
	}
	t.mu.Unlock()
}

// Index returns an index of the table on the argument positions set in mask
// (bit i for position i), built on first use and kept up to date as atoms
// are added. It is safe to call from several goroutines; the table must not
// change while an index is being used.
func (t *Table) Index(mask uint32) *SubIndex {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ix, ok := t.sub[mask]; ok {
		return ix
	}
	ix := buildSubIndex(t, mask)
	if t.sub == nil {
		t.sub = make(map[uint32]*SubIndex)
	}
	t.sub[mask] = ix
	return ix
}
