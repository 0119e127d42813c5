// Package pgstore keeps a store's atoms in PostgreSQL and grounds rules
// there (a ground.Joiner): each clause of a logical rule becomes one SQL
// join, planned by PostgreSQL, whose rows are streamed back (pgx reads them
// off the connection one at a time) into the ground problem by package
// ground's own emitter, so hinge holds the ground problem and never the
// join. For an arithmetic rule the join of its atoms gives the distinct
// values of its plain variables; the grounder expands its summations over
// the in-memory store.
//
// # Schema
//
// Everything lives in one PostgreSQL schema (a namespace; "hinge" unless
// given). Constants are interned in the table
//
//	hinge_constants(id integer PRIMARY KEY, name text NOT NULL UNIQUE)
//
// and each predicate P of arity n has a table named lower(P):
//
//	p(atom integer NOT NULL,   -- the atom's row in hinge's store, per part
//	  a0 integer NOT NULL, ..., a<n-1> integer NOT NULL,  -- hinge_constants ids
//	  value double precision NOT NULL,  -- truth value in [0,1]
//	  part smallint NOT NULL)  -- 0 observed, 1 target, 2 truth
//
// Observed and target atoms (part 0 and 1) are numbered together by atom
// from 0, each argument tuple once; truth atoms (part 2) are numbered on
// their own. A target's value is its initial value. Load creates these tables
// from a store with COPY; a user with data already in PostgreSQL can fill
// tables of this shape with SQL and read them with Read.
package pgstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// DefaultSchema is the PostgreSQL schema used when none is given.
const DefaultSchema = "hinge"

// constantsTable holds the interned constants.
const constantsTable = "hinge_constants"

// Part values of the part column.
const (
	partObserved = 0
	partTarget   = 1
	partTruth    = 2
)

// DB is a connection to PostgreSQL and the schema holding a store's tables.
// It is not safe for concurrent use.
type DB struct {
	conn   *pgx.Conn
	schema string
	ctx    context.Context
}

// Connect opens a connection to the PostgreSQL server at url (for example
// postgres://user@host:5432/db) and uses schema (DefaultSchema when empty)
// for the store's tables. ctx bounds every later operation too.
func Connect(ctx context.Context, url, schema string) (*DB, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	// The joins are large one-off queries: JIT compilation costs more than
	// it saves, and the tables are scratch copies (Load replaces them), so
	// commits need not wait for the WAL to reach disk.
	for k, v := range map[string]string{"jit": "off", "synchronous_commit": "off"} {
		if _, ok := cfg.RuntimeParams[k]; !ok {
			cfg.RuntimeParams[k] = v
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	return &DB{conn: conn, schema: schema, ctx: ctx}, nil
}

// Close closes the connection.
func (db *DB) Close() error { return db.conn.Close(context.Background()) }

// Conn returns the underlying connection.
func (db *DB) Conn() *pgx.Conn { return db.conn }

// table returns the quoted, schema-qualified name of a table.
func (db *DB) table(name string) string {
	return pgx.Identifier{db.schema, name}.Sanitize()
}

// TableName is the name of predicate p's table in the schema.
func TableName(p *model.Predicate) string { return strings.ToLower(p.Name) }

// checkNames refuses predicates whose tables would collide.
func checkNames(m *model.Model) error {
	seen := map[string]string{constantsTable: "the constants table"}
	for _, p := range m.Predicates {
		n := TableName(p)
		if other, ok := seen[n]; ok {
			return fmt.Errorf("predicate %s would be stored in table %s, as %s is", p.Name, n, other)
		}
		seen[n] = "predicate " + p.Name
	}
	return nil
}

// Load replaces the schema's tables by the atoms and constants of s: it
// creates the schema if needed, drops and recreates the constants table and
// every predicate's table, copies the rows in with COPY, indexes them and
// analyses them so that PostgreSQL plans joins on real statistics.
func (db *DB) Load(s *store.Store) error {
	if err := checkNames(s.Model); err != nil {
		return err
	}
	ctx := db.ctx
	tx, err := db.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	defer tx.Rollback(ctx)
	exec := func(sql string) error {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("PostgreSQL: %s: %w", sql, err)
		}
		return nil
	}
	if err := exec("CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{db.schema}.Sanitize()); err != nil {
		return err
	}
	consts := db.table(constantsTable)
	if err := exec("DROP TABLE IF EXISTS " + consts); err != nil {
		return err
	}
	if err := exec("CREATE UNLOGGED TABLE " + consts + " (id integer PRIMARY KEY, name text NOT NULL UNIQUE)"); err != nil {
		return err
	}
	d := s.Dict
	n := 0
	_, err = tx.CopyFrom(ctx, pgx.Identifier{db.schema, constantsTable}, []string{"id", "name"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if n == d.Len() {
				return nil, nil
			}
			n++
			return []any{int32(n - 1), d.Name(int32(n - 1))}, nil
		}))
	if err != nil {
		return fmt.Errorf("PostgreSQL: copying constants: %w", err)
	}
	for _, p := range s.Model.Predicates {
		name := db.table(TableName(p))
		cols := []string{"atom"}
		var decl, args []string
		for i := 0; i < p.Arity; i++ {
			a := fmt.Sprintf("a%d", i)
			cols = append(cols, a)
			args = append(args, a)
			decl = append(decl, a+" integer NOT NULL")
		}
		cols = append(cols, "value", "part")
		if err := exec("DROP TABLE IF EXISTS " + name); err != nil {
			return err
		}
		if err := exec(fmt.Sprintf("CREATE UNLOGGED TABLE %s (atom integer NOT NULL, %s value double precision NOT NULL CHECK (value >= 0 AND value <= 1), part smallint NOT NULL CHECK (part IN (0, 1, 2)))",
			name, strings.Join(append(decl, ""), ", "))); err != nil {
			return err
		}
		if err := db.copyTable(tx, p, cols, s.Table(p), false); err != nil {
			return err
		}
		if s.HasTruth(p) {
			if err := db.copyTable(tx, p, cols, s.Truth(p), true); err != nil {
				return err
			}
		}
		key := strings.Join(append(args, "part"), ", ")
		if err := exec(fmt.Sprintf("CREATE UNIQUE INDEX ON %s (%s)", name, key)); err != nil {
			return err
		}
		for i := 1; i < p.Arity; i++ { // the unique index serves a0
			if err := exec(fmt.Sprintf("CREATE INDEX ON %s (a%d)", name, i)); err != nil {
				return err
			}
		}
		if err := exec("ANALYZE " + name); err != nil {
			return err
		}
	}
	if err := exec("ANALYZE " + consts); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	return nil
}

// copyTable copies the rows of t (a predicate's atoms, or its truth atoms
// when truth) into p's table.
func (db *DB) copyTable(tx pgx.Tx, p *model.Predicate, cols []string, t *store.Table, truth bool) error {
	row := make([]any, len(cols))
	r := 0
	_, err := tx.CopyFrom(db.ctx, pgx.Identifier{db.schema, TableName(p)}, cols,
		pgx.CopyFromFunc(func() ([]any, error) {
			if r == t.Len() {
				return nil, nil
			}
			row[0] = int32(r)
			for i, id := range t.Args(r) {
				row[1+i] = id
			}
			row[1+p.Arity] = t.Value(r)
			part := int16(partObserved)
			switch {
			case truth:
				part = partTruth
			case t.Kind(r) == store.Target:
				part = partTarget
			}
			row[2+p.Arity] = part
			r++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("PostgreSQL: copying the atoms of %s: %w", p.Name, err)
	}
	return nil
}

// Joiner returns a ground.Joiner that runs rules' joins over the tables
// Load filled (or Read read). The store the grounder uses must be the
// one the tables hold: the same constants' ids and atom numbering.
func (db *DB) Joiner() ground.Joiner { return joiner{db} }

type joiner struct{ db *DB }

// JoinClause runs the clause's join as one SQL query and streams its rows.
func (j joiner) JoinClause(q *ground.ClauseQuery, emit func(rows []int32) error) error {
	return j.stream(j.db.clauseSQL(q), len(q.Atoms), emit)
}

// stream runs a query whose rows are n integers (NULL read as -1) and
// calls emit with each row, as pgx reads it off the connection.
func (j joiner) stream(sql string, n int, emit func([]int32) error) error {
	rows, err := j.db.conn.Query(j.db.ctx, sql, pgx.QueryResultFormats{pgx.BinaryFormatCode})
	if err != nil {
		return j.db.queryError(err)
	}
	defer rows.Close()
	out := make([]int32, n)
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw) != n {
			return fmt.Errorf("PostgreSQL returned %d columns, want %d", len(raw), n)
		}
		for i, b := range raw {
			switch {
			case b == nil:
				out[i] = -1
			case len(b) == 4:
				out[i] = int32(binary.BigEndian.Uint32(b))
			default:
				return fmt.Errorf("PostgreSQL returned a %d-byte integer, want 4", len(b))
			}
		}
		if err := emit(out); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return j.db.queryError(err)
	}
	return nil
}

// queryError words a query's error, saying so when the connection is gone
// (the server stopped or the backend was terminated mid-query).
func (db *DB) queryError(err error) error {
	if db.conn.IsClosed() {
		return fmt.Errorf("PostgreSQL: the connection was lost during the query: %w", err)
	}
	return fmt.Errorf("PostgreSQL: %w", err)
}

// sqlJoin names, for a query's atoms t0, t1, ..., a column holding each
// variable's value and the conditions that make a row match its atom.
type sqlJoin struct {
	db     *DB
	varCol []string
}

// newSQLJoin takes each variable's column from the first atom for which
// inner holds (the atoms joined with an inner join).
func newSQLJoin(db *DB, q *ground.ClauseQuery, inner func(ground.QueryAtom) bool) *sqlJoin {
	j := &sqlJoin{db: db, varCol: make([]string, q.Vars)}
	for i, a := range q.Atoms {
		if !inner(a) {
			continue
		}
		for k, x := range a.Args {
			if x.Var >= 0 && !x.Free && j.varCol[x.Var] == "" {
				j.varCol[x.Var] = col(i, k)
			}
		}
	}
	return j
}

func col(i, k int) string { return fmt.Sprintf("t%d.a%d", i, k) }

// from is atom i's table with its alias.
func (j *sqlJoin) from(i int, a ground.QueryAtom) string {
	return fmt.Sprintf("%s t%d", j.db.table(TableName(a.Pred)), i)
}

func (j *sqlJoin) term(x ground.QueryTerm) string {
	if x.Var >= 0 {
		return j.varCol[x.Var]
	}
	return fmt.Sprint(x.Const)
}

// conds are the conditions that make atom i's row an observed or target
// atom matching the query's atom (free positions match anything).
func (j *sqlJoin) conds(i int, a ground.QueryAtom) []string {
	conds := []string{fmt.Sprintf("t%d.part < %d", i, partTruth)}
	for k, x := range a.Args {
		if c := col(i, k); !x.Free && c != j.term(x) {
			conds = append(conds, c+" = "+j.term(x))
		}
	}
	return conds
}

// clauseSQL builds the query of a clause: the binding atoms inner-joined on
// their shared variables and constants, each non-binding atom left-joined,
// and the clause's skip rules (observed literals and comparisons that make
// it true; for a weighted rule, no target atom) as conditions, selecting
// every atom's number.
func (db *DB) clauseSQL(q *ground.ClauseQuery) string {
	j := newSQLJoin(db, q, func(a ground.QueryAtom) bool { return a.Binding })
	var sel, from, where []string
	for i, a := range q.Atoms {
		sel = append(sel, fmt.Sprintf("t%d.atom", i))
		if a.Binding {
			trueValue := 1
			if a.Neg {
				trueValue = 0
			}
			from = append(from, j.from(i, a))
			where = append(where, j.conds(i, a)...)
			where = append(where, fmt.Sprintf("NOT (t%d.part = %d AND t%d.value = %d)", i, partObserved, i, trueValue))
		}
	}
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM " + strings.Join(from, " CROSS JOIN ")
	for i, a := range q.Atoms {
		if !a.Binding {
			sql += fmt.Sprintf(" LEFT JOIN %s ON %s", j.from(i, a), strings.Join(j.conds(i, a), " AND "))
			where = append(where, fmt.Sprintf("(t%d.atom IS NULL OR NOT (t%d.part = %d AND t%d.value = 1))", i, i, partObserved, i))
		}
	}
	if q.NeedTarget {
		var some []string
		for i := range q.Atoms {
			some = append(some, fmt.Sprintf("t%d.part = %d", i, partTarget))
		}
		where = append(where, "("+strings.Join(some, " OR ")+")")
	}
	for _, c := range q.Cmps {
		// Keep the substitution when the comparison literal is false.
		var op string
		switch {
		case c.Op == model.CmpEq && c.Neg, c.Op == model.CmpNeq && !c.Neg:
			op = " = "
		case c.Op == model.CmpNeq && c.Neg, c.Op == model.CmpEq && !c.Neg:
			op = " <> "
		default:
			continue // A % B orders constants as hinge does: checked by the grounder
		}
		where = append(where, j.term(c.Left)+op+j.term(c.Right))
	}
	sql += " WHERE " + strings.Join(where, " AND ")
	// Rows in the order of the first binding atom, as the in-memory join
	// emits them, so that consecutive ground clauses share variables: a
	// streaming solve over a problem in hash-join order misses the cache
	// at every step (bench/scale at 10^8: 297 s of solving against 73 s).
	// The sort costs PostgreSQL nothing measurable (it plans it in
	// parallel): 10.9-11.3 s against 11.9-12.4 s at 10^7.
	for i, a := range q.Atoms {
		if a.Binding {
			sql += fmt.Sprintf(" ORDER BY t%d.atom", i)
			break
		}
	}
	return sql
}

// JoinVars runs the join of an arithmetic rule's atoms as one SQL query
// selecting the distinct values of its variables, and streams them.
func (j joiner) JoinVars(q *ground.ClauseQuery, emit func(vals []int32) error) error {
	return j.stream(j.db.varsSQL(q), q.Vars, emit)
}

// varsSQL builds the query of JoinVars: every atom inner-joined, distinct
// variable values selected (one empty row when there are no variables and
// the atoms match).
func (db *DB) varsSQL(q *ground.ClauseQuery) string {
	j := newSQLJoin(db, q, func(ground.QueryAtom) bool { return true })
	var from, where []string
	for i, a := range q.Atoms {
		from = append(from, j.from(i, a))
		where = append(where, j.conds(i, a)...)
	}
	sql := "SELECT DISTINCT " + strings.Join(j.varCol, ", ")
	if q.Vars == 0 {
		sql = "SELECT"
	}
	if len(from) > 0 {
		sql += " FROM " + strings.Join(from, " CROSS JOIN ") + " WHERE " + strings.Join(where, " AND ")
	}
	if q.Vars == 0 {
		sql += " LIMIT 1"
	}
	return sql
}

// Schema returns the quoted name of the schema holding the tables.
func (db *DB) Schema() string { return pgx.Identifier{db.schema}.Sanitize() }

// WriteValues replaces table name in the schema by the inferred values of
// the variables of g, a ground result of model m: one row (predicate text, atom integer, args
// text[], value double precision) per target atom, atom being its number in
// the predicate's table. The table is replaced in one transaction, so a
// failure leaves the old one (or none), never part of the new.
func (db *DB) WriteValues(name string, m *model.Model, g *ground.Result, values []float64) error {
	if len(values) != len(g.Vars) {
		return fmt.Errorf("%d values for %d variables", len(values), len(g.Vars))
	}
	if name == constantsTable {
		return fmt.Errorf("output table %s would replace the constants table", name)
	}
	for _, p := range m.Predicates {
		if TableName(p) == name {
			return fmt.Errorf("output table %s would replace the atoms of %s", name, p.Name)
		}
	}
	ctx := db.ctx
	tx, err := db.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	defer tx.Rollback(ctx)
	table := db.table(name)
	for _, sql := range []string{
		"CREATE SCHEMA IF NOT EXISTS " + db.Schema(),
		"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (predicate text NOT NULL, atom integer NOT NULL, args text[] NOT NULL, value double precision NOT NULL)",
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("PostgreSQL: %s: %w", sql, err)
		}
	}
	v := 0
	_, err = tx.CopyFrom(ctx, pgx.Identifier{db.schema, name}, []string{"predicate", "atom", "args", "value"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if v == len(values) {
				return nil, nil
			}
			a := g.Vars[v]
			row := []any{a.Pred.Name, int32(a.Row), g.Args(v), values[v]}
			v++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("PostgreSQL: writing %s: %w", name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	return nil
}
