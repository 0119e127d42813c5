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
// and each predicate P of arity n has a table named by TableName (lower(P),
// shortened with a hash suffix when longer than PostgreSQL keeps):
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
//
// # Tables hinge created
//
// The table hinge_tables(name text PRIMARY KEY, kind text NOT NULL,
// predicate text) of the schema lists the tables hinge created there (kind
// constants, atoms or values). Load and WriteValues replace only those: a
// table (or view, sequence, ...) of the same name that hinge_tables does not
// list, or any table of a schema without hinge_tables (one written by hand,
// or by a hinge that kept no such list), is refused with a *ForeignError
// before anything is changed, unless DB.Replace is set. A values table
// (WriteValues' output) is the user's result, not scratch: Load refuses to
// replace it by a predicate's atoms with a *ValuesError, unless DB.Replace;
// WriteValues replaces it.
package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// DefaultSchema is the PostgreSQL schema used when none is given.
const DefaultSchema = "hinge"

// constantsTable holds the interned constants.
const constantsTable = "hinge_constants"

// metaTable lists the tables hinge created in the schema.
const metaTable = "hinge_tables"

// MaxIdentifier is the length in bytes of the longest identifier PostgreSQL
// keeps (NAMEDATALEN - 1): it cuts longer ones short, so two names that
// share their first MaxIdentifier bytes name the same table.
const MaxIdentifier = 63

// Kinds of table recorded in hinge_tables.
const (
	kindConstants = "constants"
	kindAtoms     = "atoms"
	kindValues    = "values"
)

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

	// Replace lets Load and WriteValues replace tables that hinge did not
	// create (not listed in hinge_tables), and Load replace a values table
	// an earlier WriteValues wrote; without it they refuse them.
	Replace bool
}

// CheckIdentifier returns an error unless name (what names it, for the
// message: "schema", "output table") can name a PostgreSQL object as it is:
// not empty, at most MaxIdentifier bytes, valid UTF-8 without NUL bytes.
func CheckIdentifier(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the %s name is empty", what)
	case len(name) > MaxIdentifier:
		return fmt.Errorf("%s name %q is %d bytes long; PostgreSQL keeps %d and would cut it to %q", what, name, len(name), MaxIdentifier, clipName(name, MaxIdentifier))
	case strings.IndexByte(name, 0) >= 0 || !utf8.ValidString(name):
		return fmt.Errorf("%s name %q holds a NUL byte or invalid UTF-8", what, name)
	}
	return nil
}

// Connect opens a connection to the PostgreSQL server at url (for example
// postgres://user@host:5432/db) and uses schema (DefaultSchema when empty)
// for the store's tables. ctx bounds every later operation too. Two runs
// that may use one schema at once each hold its LockSchema first.
func Connect(ctx context.Context, url, schema string) (*DB, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	if err := CheckIdentifier("schema", schema); err != nil {
		return nil, err
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
	setApplicationName(cfg)
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

// TableName is the name of predicate p's table in the schema: its name in
// lower case, or, when that is longer than MaxIdentifier bytes (PostgreSQL
// would cut it short, and two long names could meet in one table), its
// first 54 bytes (fewer, to end on a whole character), '_' and the first 8
// hex digits of the SHA-256 of the lower-case name, 63 bytes in all. In SQL:
// left(lower(P), 54) || '_' || left(encode(sha256(convert_to(lower(P), 'UTF8')), 'hex'), 8)
// for an ASCII name.
func TableName(p *model.Predicate) string {
	n := strings.ToLower(p.Name)
	if len(n) <= MaxIdentifier {
		return n
	}
	sum := sha256.Sum256([]byte(n))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return clipName(n, MaxIdentifier-len(suffix)) + suffix
}

// clipName cuts s to at most n bytes, on a character boundary.
func clipName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checkNames refuses predicates whose tables would collide (names equal but
// for case), or would be one of hinge's own tables.
func checkNames(m *model.Model) error {
	seen := map[string]string{constantsTable: "the constants table", metaTable: "the list of hinge's tables"}
	for _, p := range m.Predicates {
		n := TableName(p)
		if other, ok := seen[n]; ok {
			return fmt.Errorf("predicate %s would be stored in table %s, as %s is (table names ignore case)", p.Name, n, other)
		}
		seen[n] = "predicate " + p.Name
	}
	return nil
}

// CheckModel returns an error when two predicates of m would share a table
// (their names are equal but for case) or one would be a table of hinge's
// own. Load and Read check this before they send anything.
func CheckModel(m *model.Model) error { return checkNames(m) }

// CheckStore returns CheckModel's error for s's model, else an error naming
// the first constant of s that PostgreSQL's text cannot hold: one with a NUL
// byte or invalid UTF-8. Load checks this before it sends anything.
func CheckStore(s *store.Store) error {
	if err := checkNames(s.Model); err != nil {
		return err
	}
	for id := range s.Dict.Len() {
		name := s.Dict.Name(int32(id))
		if strings.IndexByte(name, 0) >= 0 {
			return fmt.Errorf("constant %q holds a NUL byte, which PostgreSQL text cannot hold", clipName(name, 200))
		}
		if !utf8.ValidString(name) {
			return fmt.Errorf("constant %q is not valid UTF-8, which PostgreSQL text must be", clipName(name, 200))
		}
	}
	return nil
}

// ForeignError reports tables (or other relations) that hinge would replace
// but did not create: they are not listed in the schema's hinge_tables, or
// the schema has no hinge_tables at all.
type ForeignError struct {
	Schema string
	Tables []string // the relations, with their kind when not a table ("v (a view)")
	NoList bool     // the schema has no hinge_tables
	Reason string   // when set, why hinge_tables itself is not hinge's list
}

func (e *ForeignError) Error() string {
	qual := make([]string, len(e.Tables))
	for i, t := range e.Tables {
		qual[i] = e.Schema + "." + t
	}
	names := strings.Join(qual, ", ")
	switch {
	case e.Reason != "":
		return fmt.Sprintf("%s %s, so hinge cannot tell which tables of schema %s it created", names, e.Reason, e.Schema)
	case e.NoList:
		return fmt.Sprintf("schema %s has no hinge_tables, the list of the tables hinge created there, so hinge did not create %s (or an older hinge did, which kept no list) and will not replace it", e.Schema, names)
	}
	return fmt.Sprintf("hinge did not create %s (%s.hinge_tables does not list it) and will not replace it", names, e.Schema)
}

// ValuesError reports values tables (written by WriteValues, hinge infer
// --output-table) that Load would replace by the atoms of a predicate of
// the same table name: they hold a user's results, not hinge's scratch.
type ValuesError struct {
	Schema     string
	Tables     []string // the values tables
	Predicates []string // the predicate whose atoms would replace each
}

func (e *ValuesError) Error() string {
	parts := make([]string, len(e.Tables))
	for i, t := range e.Tables {
		parts[i] = fmt.Sprintf("%s.%s (the table of predicate %s)", e.Schema, t, e.Predicates[i])
	}
	verb := "holds"
	if len(parts) > 1 {
		verb = "hold"
	}
	return fmt.Sprintf("%s %s the values an earlier run wrote (hinge infer --output-table); hinge will not replace a result by a predicate's atoms", strings.Join(parts, ", "), verb)
}

// relKinds names the kinds of relation (pg_class.relkind) a table name may
// already belong to, with the DROP statement's word for each.
var relKinds = map[string]struct{ what, drop string }{
	"r": {"", "TABLE"},
	"p": {"a partitioned table", "TABLE"},
	"v": {"a view", "VIEW"},
	"m": {"a materialized view", "MATERIALIZED VIEW"},
	"f": {"a foreign table", "FOREIGN TABLE"},
	"S": {"a sequence", "SEQUENCE"},
	"i": {"an index", "INDEX"},
	"I": {"an index", "INDEX"},
	"c": {"a composite type", "TYPE"},
	"t": {"a TOAST table", "TABLE"},
}

// querier runs queries: a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// relation is an existing relation of the schema.
type relation struct {
	kind string // pg_class.relkind
	oid  uint32
}

// metaColumns are hinge_tables' columns: the table's name, what it holds,
// the predicate whose atoms it holds (kind atoms) and its oid when hinge
// created it (a table dropped and made again by someone else has another).
const metaColumns = "name text PRIMARY KEY, kind text NOT NULL, predicate text, relid oid NOT NULL"

// survey reads which of names exist in the schema and which of those hinge
// created: listed in hinge_tables with the oid they have now, mapped to the
// kind hinge_tables gives them. list says
// whether hinge_tables exists and is hinge's list; bad, when not empty,
// says why an existing hinge_tables is not.
func (db *DB) survey(q querier, names []string) (exist map[string]relation, mine map[string]string, list bool, bad string, err error) {
	ctx := db.ctx
	fail := func(what string, err error) (map[string]relation, map[string]string, bool, string, error) {
		return nil, nil, false, "", fmt.Errorf("PostgreSQL: %s: %w", what, err)
	}
	if exist, err = db.existing(q, append(slices.Clone(names), metaTable)); err != nil {
		return nil, nil, false, "", err
	}
	mine = map[string]string{}
	meta, ok := exist[metaTable]
	if !ok {
		return exist, mine, false, "", nil
	}
	if meta.kind != "r" {
		return exist, mine, false, "is " + relKinds[meta.kind].what + ", not hinge's list of its tables", nil
	}
	var cols []string
	if err := q.QueryRow(ctx, `SELECT coalesce(array_agg(attname::text), '{}') FROM pg_attribute
WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped`, int64(meta.oid)).Scan(&cols); err != nil {
		return fail("reading the columns of "+db.schema+"."+metaTable, err)
	}
	for _, c := range []string{"name", "kind", "relid"} {
		if !slices.Contains(cols, c) {
			return exist, mine, false, "has no column " + c + ": it is not hinge's list of its tables", nil
		}
	}
	listed, err := q.Query(ctx, "SELECT name, kind, relid::int8 FROM "+db.table(metaTable))
	if err != nil {
		return fail("reading "+db.schema+"."+metaTable, err)
	}
	for listed.Next() {
		var n, kind string
		var oid int64
		if err := listed.Scan(&n, &kind, &oid); err != nil {
			listed.Close()
			return fail("reading "+db.schema+"."+metaTable, err)
		}
		if r, ok := exist[n]; ok && r.oid == uint32(oid) {
			mine[n] = kind
		}
	}
	if err := listed.Err(); err != nil {
		return fail("reading "+db.schema+"."+metaTable, err)
	}
	return exist, mine, true, "", nil
}

// existing returns which of names exist in the schema (tables, views and
// the like), with their kind and oid.
func (db *DB) existing(q querier, names []string) (map[string]relation, error) {
	fail := func(err error) (map[string]relation, error) {
		return nil, fmt.Errorf("PostgreSQL: looking for existing tables: %w", err)
	}
	exist := map[string]relation{}
	rows, err := q.Query(db.ctx, `SELECT c.relname::text, c.relkind::text, c.oid::int8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = ANY($2)`, db.schema, names)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var name, kind string
		var oid int64
		if err := rows.Scan(&name, &kind, &oid); err != nil {
			rows.Close()
			return fail(err)
		}
		exist[name] = relation{kind, uint32(oid)}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return exist, nil
}

// check returns which of names exist, refusing with a *ForeignError those
// hinge did not create and with a *ValuesError the values tables among
// those atomsOf maps to a predicate's name (unless db.Replace); list says
// whether the schema has hinge's hinge_tables.
func (db *DB) check(q querier, names []string, atomsOf map[string]string) (exist map[string]relation, list bool, err error) {
	exist, mine, list, bad, err := db.survey(q, names)
	if err != nil {
		return nil, false, err
	}
	if bad != "" && !db.Replace {
		return nil, false, &ForeignError{Schema: db.schema, Tables: []string{metaTable}, Reason: bad}
	}
	var foreign []string
	for _, n := range names {
		if _, ok := mine[n]; ok {
			continue
		}
		if r, ok := exist[n]; ok {
			if w := relKinds[r.kind].what; w != "" {
				n += " (" + w + ")"
			}
			foreign = append(foreign, n)
		}
	}
	if len(foreign) > 0 && !db.Replace {
		return nil, false, &ForeignError{Schema: db.schema, Tables: foreign, NoList: !list}
	}
	if !db.Replace {
		ve := &ValuesError{Schema: db.schema}
		for _, n := range names {
			if p, ok := atomsOf[n]; ok && mine[n] == kindValues {
				ve.Tables = append(ve.Tables, n)
				ve.Predicates = append(ve.Predicates, p)
			}
		}
		if len(ve.Tables) > 0 {
			return nil, false, ve
		}
	}
	return exist, list, nil
}

// claim makes ready to create the tables names in tx: it creates the schema
// and hinge_tables when missing, refuses tables hinge did not create and
// values tables that will hold atomsOf's predicates (check), and drops those
// that exist.
func (db *DB) claim(tx pgx.Tx, names []string, atomsOf map[string]string) error {
	exec := func(sql string) error {
		if _, err := tx.Exec(db.ctx, sql); err != nil {
			return fmt.Errorf("PostgreSQL: %s: %w", sql, err)
		}
		return nil
	}
	if err := exec("CREATE SCHEMA IF NOT EXISTS " + db.Schema()); err != nil {
		return err
	}
	exist, list, err := db.check(tx, names, atomsOf)
	if err != nil {
		return err
	}
	if !list {
		if r, ok := exist[metaTable]; ok { // not hinge's list, and db.Replace
			if err := exec("DROP " + dropWord(r.kind) + " " + db.table(metaTable)); err != nil {
				return err
			}
		}
		if err := exec("CREATE TABLE " + db.table(metaTable) + " (" + metaColumns + ")"); err != nil {
			return err
		}
	}
	for _, n := range names {
		if r, ok := exist[n]; ok {
			if err := exec("DROP " + dropWord(r.kind) + " " + db.table(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropWord is the word of DROP for a relation of kind relkind.
func dropWord(relkind string) string {
	if k, ok := relKinds[relkind]; ok {
		return k.drop
	}
	return "TABLE"
}

// record lists table name, just created in tx, in hinge_tables.
func (db *DB) record(tx pgx.Tx, name, kind, predicate string) error {
	var pred any
	if predicate != "" {
		pred = predicate
	}
	_, err := tx.Exec(db.ctx, "INSERT INTO "+db.table(metaTable)+" (name, kind, predicate, relid) VALUES ($1, $2, $3, $4::regclass) "+
		"ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, predicate = EXCLUDED.predicate, relid = EXCLUDED.relid",
		name, kind, pred, db.table(name))
	if err != nil {
		return fmt.Errorf("PostgreSQL: recording %s.%s in %s: %w", db.schema, name, metaTable, err)
	}
	return nil
}

// Load replaces the schema's tables by the atoms and constants of s: it
// creates the schema if needed, drops and recreates the constants table and
// every predicate's table, copies the rows in with COPY, indexes them and
// analyses them so that PostgreSQL plans joins on real statistics. It
// replaces only tables it created, and never a values table (a *ValuesError;
// see the package documentation), unless db.Replace, and records the tables it creates in hinge_tables. Everything
// happens in one transaction: on an error the schema is as it was.
func (db *DB) Load(s *store.Store) error {
	if err := CheckStore(s); err != nil {
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
	names := []string{constantsTable}
	atomsOf := map[string]string{}
	for _, p := range s.Model.Predicates {
		names = append(names, TableName(p))
		atomsOf[TableName(p)] = p.Name
	}
	if err := db.claim(tx, names, atomsOf); err != nil {
		return err
	}
	consts := db.table(constantsTable)
	if err := exec("CREATE UNLOGGED TABLE " + consts + " (id integer PRIMARY KEY, name text NOT NULL UNIQUE)"); err != nil {
		return err
	}
	if err := db.record(tx, constantsTable, kindConstants, ""); err != nil {
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
		if err := exec(fmt.Sprintf("CREATE UNLOGGED TABLE %s (atom integer NOT NULL, %s value double precision NOT NULL CHECK (value >= 0 AND value <= 1), part smallint NOT NULL CHECK (part IN (0, 1, 2)))",
			name, strings.Join(append(decl, ""), ", "))); err != nil {
			return err
		}
		if err := db.record(tx, TableName(p), kindAtoms, p.Name); err != nil {
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

// CheckOutputName returns an error when name cannot be WriteValues' output
// table for model m: a name PostgreSQL would not keep as it is
// (CheckIdentifier), or one of the tables of hinge or of m. It needs no
// database.
func CheckOutputName(name string, m *model.Model) error {
	if err := CheckIdentifier("output table", name); err != nil {
		return err
	}
	// A name that differs from one of these only in case is another table
	// to PostgreSQL (hinge quotes it), but an unquoted SELECT ... FROM
	// SMOKES reads smokes: refused as well.
	caseOnly := func(table string) string {
		if table == name {
			return ""
		}
		return fmt.Sprintf(" (%s differs from %s only in case, and an unquoted name in SQL means %s)", name, table, table)
	}
	switch {
	case strings.EqualFold(name, constantsTable):
		return fmt.Errorf("output table %s would replace the constants table%s", name, caseOnly(constantsTable))
	case strings.EqualFold(name, metaTable):
		return fmt.Errorf("output table %s would replace the list of hinge's tables%s", name, caseOnly(metaTable))
	}
	for _, p := range m.Predicates {
		if t := TableName(p); strings.EqualFold(t, name) {
			return fmt.Errorf("output table %s would replace the atoms of %s%s", name, p.Name, caseOnly(t))
		}
	}
	return nil
}

// CheckOutput returns the error WriteValues would return for table name
// before writing anything (CheckOutputName's, or a *ForeignError for a table
// hinge did not create), so that a run can be refused before its work. It
// changes nothing.
func (db *DB) CheckOutput(name string, m *model.Model) error {
	if err := CheckOutputName(name, m); err != nil {
		return err
	}
	_, _, err := db.check(db.conn, []string{name}, nil)
	return err
}

// WriteValues replaces table name in the schema by the inferred values of
// the variables of g, a ground result of model m: one row (predicate text, atom integer, args
// text[], value double precision) per target atom, atom being its number in
// the predicate's table. Like Load it replaces only a table it created
// (unless db.Replace) and records the one it creates in hinge_tables. The
// table is replaced in one transaction, so a failure leaves the old one (or
// none), never part of the new.
func (db *DB) WriteValues(name string, m *model.Model, g *ground.Result, values []float64) error {
	commit, _, err := db.PrepareValues(name, m, g, values)
	if err != nil {
		return err
	}
	return commit()
}

// commitWait bounds PrepareValues' commit: a server that stopped answering
// fails the run instead of holding it.
const commitWait = time.Minute

// PrepareValues is WriteValues up to its commit: the new table is written
// in a transaction that commit ends (within commitWait), or rollback
// gives up, leaving the old table; until then the old table is locked (it
// was dropped in the transaction): other sessions that read it wait. One
// of the two must be called before the connection is used again. A run
// puts the table in place with its files this way: a run whose files
// could not be written (a full disk) had already replaced the table.
func (db *DB) PrepareValues(name string, m *model.Model, g *ground.Result, values []float64) (commit func() error, rollback func(), err error) {
	if len(values) != len(g.Vars) {
		return nil, nil, fmt.Errorf("%d values for %d variables", len(values), len(g.Vars))
	}
	if err := CheckOutputName(name, m); err != nil {
		return nil, nil, err
	}
	ctx := db.ctx
	tx, err := db.conn.Begin(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tx.Rollback(context.Background())
		}
	}()
	if err := db.claim(tx, []string{name}, nil); err != nil {
		return nil, nil, err
	}
	table := db.table(name)
	sql := "CREATE TABLE " + table + " (predicate text NOT NULL, atom integer NOT NULL, args text[] NOT NULL, value double precision NOT NULL)"
	if _, err := tx.Exec(ctx, sql); err != nil {
		return nil, nil, fmt.Errorf("PostgreSQL: %s: %w", sql, err)
	}
	if err := db.record(tx, name, kindValues, ""); err != nil {
		return nil, nil, err
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
		return nil, nil, fmt.Errorf("PostgreSQL: writing %s: %w", name, err)
	}
	ok = true
	commit = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), commitWait)
		defer cancel()
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
		return nil
	}
	rollback = func() { tx.Rollback(context.Background()) }
	return commit, rollback, nil
}
