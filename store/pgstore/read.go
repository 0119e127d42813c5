package pgstore

import (
	"fmt"
	"strings"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// Read builds a store for m from tables of the documented schema that
// already exist (filled by Load, or by a user with SQL), so that grounding
// with Joiner uses them as they are. Constant ids must be 0, 1, ... without
// gaps, and the observed and target atoms of each predicate numbered 0, 1,
// ... (atom) without gaps, for example with row_number() over () - 1, each
// argument tuple once. Read changes nothing in the database.
func (db *DB) Read(m *model.Model) (*store.Store, error) {
	if err := checkNames(m); err != nil {
		return nil, err
	}
	if err := db.checkReadable(m); err != nil {
		return nil, err
	}
	s := store.New(m)
	rows, err := db.conn.Query(db.ctx, "SELECT id, name FROM "+db.table(constantsTable)+" ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: reading %s: %w", constantsTable, err)
	}
	for rows.Next() {
		var id int32
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("PostgreSQL: reading %s: %w", constantsTable, err)
		}
		if want := int32(s.Dict.Len()); id != want || s.Dict.ID(name) != want {
			rows.Close()
			return nil, contentErrorf("%s: constant %q has id %d; ids must be 0, 1, ... without gaps and names distinct", constantsTable, name, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("PostgreSQL: reading %s: %w", constantsTable, err)
	}
	for _, p := range m.Predicates {
		if err := db.readTable(s, p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ContentError reports tables whose content does not follow the schema
// Read reads (ids with gaps, an argument tuple twice, an id that names no
// constant): bad input, as a mistake in a data file is.
type ContentError struct{ Err error }

func (e *ContentError) Error() string { return e.Err.Error() }

func (e *ContentError) Unwrap() error { return e.Err }

func contentErrorf(format string, args ...any) error {
	return &ContentError{fmt.Errorf(format, args...)}
}

// MissingError reports tables Read needs that the schema does not have.
type MissingError struct {
	Schema string
	// Tables are the missing tables, each with what it holds.
	Tables []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("schema %s has no table %s: reading atoms from the database needs the constants' table and one table a predicate, as a run with --db (without --db-read) writes them or as the README's schema describes",
		e.Schema, strings.Join(e.Tables, ", "))
}

// checkReadable returns a *MissingError naming the tables of m (and the
// constants' table) that the schema does not have, so that a schema that
// was never filled is named as such instead of by PostgreSQL's "relation
// does not exist".
func (db *DB) checkReadable(m *model.Model) error {
	names := []string{constantsTable}
	what := map[string]string{constantsTable: constantsTable + " (the constants)"}
	for _, p := range m.Predicates {
		n := TableName(p)
		names = append(names, n)
		what[n] = fmt.Sprintf("%s (the atoms of %s/%d)", n, p.Name, p.Arity)
	}
	found, err := db.existing(db.conn, names)
	if err != nil {
		return err
	}
	var missing []string
	for _, n := range names {
		if _, ok := found[n]; !ok {
			missing = append(missing, what[n])
		}
	}
	if len(missing) > 0 {
		return &MissingError{Schema: db.schema, Tables: missing}
	}
	return nil
}

// readTable adds the atoms of p's table to s, observed and targets in atom
// order, then truth atoms.
func (db *DB) readTable(s *store.Store, p *model.Predicate) error {
	cols := []string{"atom"}
	for i := 0; i < p.Arity; i++ {
		cols = append(cols, fmt.Sprintf("a%d", i))
	}
	cols = append(cols, "value", "part")
	name := TableName(p)
	rows, err := db.conn.Query(db.ctx, fmt.Sprintf("SELECT %s FROM %s ORDER BY part = %d, atom", strings.Join(cols, ", "), db.table(name), partTruth))
	if err != nil {
		return fmt.Errorf("PostgreSQL: reading the atoms of %s from table %s: %w", p.Name, name, err)
	}
	defer rows.Close()
	ids := make([]int32, p.Arity)
	args := make([]string, p.Arity)
	dest := []any{new(int32)}
	for i := range ids {
		dest = append(dest, &ids[i])
	}
	var value float64
	var part int16
	dest = append(dest, &value, &part)
	t := s.Table(p)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("PostgreSQL: reading table %s: %w", name, err)
		}
		atom := *dest[0].(*int32)
		for i, id := range ids {
			if id < 0 || int(id) >= s.Dict.Len() {
				return contentErrorf("table %s: atom %d: argument a%d = %d is not an id in %s", name, atom, i, id, constantsTable)
			}
			args[i] = s.Dict.Name(id)
		}
		if part == partObserved || part == partTarget {
			if first, ok := t.Find(ids); ok {
				return contentErrorf("table %s: atoms %d and %d have the same arguments %s: each argument tuple may appear once among the observed and target atoms (part 0 and 1)",
					name, first, atom, store.AtomString(p, args))
			}
		}
		switch part {
		case partObserved:
			err = s.AddObservation(p, args, value)
		case partTarget:
			err = s.AddTarget(p, args)
			if err == nil {
				t.SetValue(t.Len()-1, value)
			}
		case partTruth:
			err = s.AddTruth(p, args, value)
		default:
			err = fmt.Errorf("part %d is not 0 (observed), 1 (target) or 2 (truth)", part)
		}
		if err != nil {
			return contentErrorf("table %s: atom %d: %w", name, atom, err)
		}
		if part != partTruth && int(atom) != t.Len()-1 {
			return contentErrorf("table %s: observed and target atoms must be numbered 0, 1, ... without gaps or repeats (atom %d where %d was expected)", name, atom, t.Len()-1)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("PostgreSQL: reading table %s: %w", name, err)
	}
	return nil
}
