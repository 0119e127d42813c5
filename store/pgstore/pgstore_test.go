package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/internal/pgtest"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/pipeline"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/store/pgstore"
	"github.com/hinge-srl/hinge/syntax"
)

// connect opens a connection to the test server with a fresh schema.
func connect(t *testing.T) *pgstore.DB {
	t.Helper()
	url := pgtest.URL(t)
	db, err := pgstore.Connect(context.Background(), url, pgtest.Schema(t, url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// groundInDB loads s into the test server and grounds m there.
func groundInDB(t *testing.T, m *model.Model, s *store.Store) *ground.Result {
	t.Helper()
	db := connect(t)
	if err := db.Load(s); err != nil {
		t.Fatal(err)
	}
	res, err := ground.Ground(m, s, ground.Options{Joiner: db.Joiner()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkSame grounds m over s in memory and in PostgreSQL and compares the
// two ground problems as sorted sets (pgtest.Canonical).
func checkSame(t *testing.T, m *model.Model, s *store.Store) {
	t.Helper()
	mem, err := ground.Ground(m, s, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pg := groundInDB(t, m, s)
	want, got := pgtest.Canonical(mem), pgtest.Canonical(pg)
	if len(want) == 0 {
		t.Fatal("the in-memory ground problem is empty: the comparison would prove nothing")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		if len(diff) > 4000 {
			diff = diff[:4000] + "..."
		}
		t.Fatalf("PostgreSQL ground problem differs from the in-memory one (-memory +postgres):\n%s", diff)
	}
	for i, rs := range mem.Rules {
		if p := pg.Rules[i]; p.Potentials != rs.Potentials || p.Constraints != rs.Constraints || p.ConstantViolated != rs.ConstantViolated {
			t.Errorf("rule %d: PostgreSQL %+v, memory %+v", i, p, rs)
		}
	}
	t.Logf("%d potentials and constraints the same", len(want))
}

func addRules(t *testing.T, m *model.Model, rules ...string) {
	t.Helper()
	for _, text := range rules {
		r, err := syntax.ParseRule(text, srcpos.Position{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		r.Text = text
		if err := m.AddRule(r); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
}

func TestSmokers(t *testing.T) {
	pgtest.URL(t) // skip before loading anything without a server
	prog, err := pipeline.Load(pipeline.Inputs{Model: "../../examples/smokers/smokers.psl", Data: "../../examples/smokers/smokers.data"})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, prog.Model, prog.Store)
}

// randomStore fills closed C1/1, C2/2 and open O1/1, O2/2, O3/3 over a small
// domain (with integers, for %) with atoms absent, observed at 0, 1 or in
// between, or targets.
func randomStore(m *model.Model, seed uint64) (*store.Store, error) {
	rng := rand.New(rand.NewPCG(seed, 19))
	domain := []string{"a", "b", "c", "1", "12", "d"}[:4+rng.IntN(3)]
	values := []float64{0, 1, 1, 0.25, 0.5, 0.7}
	s := store.New(m)
	for _, p := range m.Predicates {
		tuples := [][]string{{}}
		for range p.Arity {
			var next [][]string
			for _, tu := range tuples {
				for _, a := range domain {
					next = append(next, append(append([]string{}, tu...), a))
				}
			}
			tuples = next
		}
		for _, tu := range tuples {
			x := rng.Float64()
			var err error
			switch {
			case x < 0.3:
			case !p.Closed && x < 0.65:
				err = s.AddTarget(p, tu)
			default:
				err = s.AddObservation(p, tu, values[rng.IntN(len(values))])
			}
			if err != nil {
				return nil, err
			}
			if rng.IntN(4) == 0 {
				if err := s.AddTruth(p, tu, values[rng.IntN(len(values))]); err != nil {
					return nil, err
				}
			}
		}
	}
	return s, nil
}

// TestGenerated compares the two grounders on models covering every shape
// of logical rule over random stores.
func TestGenerated(t *testing.T) {
	pgtest.URL(t) // skip before loading anything without a server
	tests := []struct {
		name  string
		rules []string
	}{
		{"implication", []string{"1.5: C2(A, B) & O1(A) -> O1(B) ^2", "2: O2(A, B) & O2(B, C) -> O2(A, C)"}},
		{"negation", []string{"1: ~O1(A) & C2(A, B) -> O1(B)", "1: C1(A) & O2(A, B) -> ~O1(B)", "0.5: O1(A) -> ~O2(A, A) | O1(A)"}},
		{"constants", []string{"1: O2(A, 'a') & C1(A) -> O1(A)", "1: C2('b', A) -> O2(A, 'c')", "1: O1('zz') & C1(A) -> O1(A)", "1: C1(A) -> O2(A, 'zz')"}},
		{"comparisons", []string{"1: C2(A, B) & (A != B) -> O2(B, A) ^2", "1: O2(A, B) & (A == B) -> O1(A)", "1: O2(A, B) & (A % B) -> O2(B, A)", "1: O1(A) & (A != 'a') -> C1(A)", "1: O1(A) & ('a' == 'b') -> C1(A)"}},
		{"hard", []string{"O2(A, B) -> O2(B, A) .", "C1(A) & O1(A) -> O2(A, A) .", "C2(A, B) & ~O1(A) -> O1(B) ."}},
		{"priors", []string{"0.1: ~O1(A)", "0.2: O2(A, B) ^2", "0.3: ~O3(A, B, C) ^2"}},
		{"disjunctions", []string{"1: O3(A, B, C) -> O2(A, B) | O2(B, C) | C1(A)", "1: O3(A, B, C) & O1(C) & C2(C, A) -> O1(A) | ~O2(A, A)"}},
		{"repeated", []string{"1: O2(A, A) & O3(A, B, A) -> O1(B)", "1: O2(A, B) & O2(B, A) -> O1(A) | O1(A)"}},
		{"arithmetic", []string{"O2(A, +B) = 1 .", "1: O1(A) + O1(B) <= C2(A, B) ^2", "O3(A, B, +C) <= 1 .", "2: O2(A, +B) >= 0.5 * O1(A)", "1: O1(+A) <= 2"}},
		{"cardinality and filters", []string{"1/|B| * O2(A, +B) = O1(A) .", "1: O2(A, +B) <= 1 {B: C1(B)}", "O3(+A, B, +C) >= 1 . {A: ~C1(A)} {C: C2(C, B)}"}},
		{"arithmetic constants", []string{"O2('a', +B) <= 1 .", "1: O2(A, 'zz') + O1(A) <= 1", "O1('b') + O1('c') = 1 ."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(3) {
				t.Run(fmt.Sprint(seed), func(t *testing.T) {
					m := model.New()
					for _, d := range []struct {
						name   string
						arity  int
						closed bool
					}{{"C1", 1, true}, {"C2", 2, true}, {"O1", 1, false}, {"O2", 2, false}, {"O3", 3, false}} {
						if _, err := m.AddPredicate(d.name, d.arity, d.closed); err != nil {
							t.Fatal(err)
						}
					}
					addRules(t, m, tc.rules...)
					s, err := randomStore(m, seed)
					if err != nil {
						t.Fatal(err)
					}
					checkSame(t, m, s)
				})
			}
		})
	}
}

// TestTransitivity compares the grounders on PSL's grounding scaling model.
func TestTransitivity(t *testing.T) {
	pgtest.URL(t) // skip before loading anything without a server
	m, s, err := groundtest.Transitivity(3000, 10, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, m, s)
}

// TestCora compares the grounders on Cora's collective classification
// model (internal/citations, seed 1), with its arithmetic rule
// HasCat(A, +C) = 1.
func TestCora(t *testing.T) { testCitations(t, "cora") }

// TestCiteseer is TestCora on Citeseer.
func TestCiteseer(t *testing.T) { testCitations(t, "citeseer") }

func testCitations(t *testing.T, name string) {
	pgtest.URL(t) // skip before loading anything without a server
	if testing.Short() {
		t.Skip("real data; skipped in -short")
	}
	out := t.TempDir()
	if _, err := citations.WriteSplitPSL(shareddata.Require(t, name), name, 1, 0.5, out); err != nil {
		t.Fatal(err)
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(out, name+".psl"), Data: filepath.Join(out, name+".data")})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, prog.Model, prog.Store)
}

// TestDrugInteraction compares the grounders on psl-examples'
// drug-interaction model, when its data is present.
func TestDrugInteraction(t *testing.T) {
	pgtest.URL(t) // skip before loading anything without a server
	if testing.Short() {
		t.Skip("real data; skipped in -short")
	}
	dir := shareddata.Require(t, "psl-examples", "drug-interaction")
	data := filepath.Join(dir, "drug-interaction-eval.data")
	rules := filepath.Join(dir, "drug-interaction.psl")
	for _, f := range []string{data, rules} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("drug-interaction data absent: %v", err)
		}
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: rules, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, prog.Model, prog.Store)
}

// killer is a Joiner that terminates the server's backend of its
// connection after the first substitution, as a server going away mid-run.
type killer struct {
	ground.Joiner
	db  *pgstore.DB
	url string
}

func (k killer) JoinClause(q *ground.ClauseQuery, emit func([]int32) error) error {
	pid := k.db.Conn().PgConn().PID()
	first := true
	return k.Joiner.JoinClause(q, func(rows []int32) error {
		if first {
			first = false
			ctx := context.Background()
			other, err := pgx.Connect(ctx, k.url)
			if err != nil {
				return err
			}
			defer other.Close(ctx)
			if _, err := other.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
				return err
			}
		}
		return emit(rows)
	})
}

// TestServerGone checks that losing the server mid-join is a *JoinError,
// not a partial ground problem.
func TestServerGone(t *testing.T) {
	url := pgtest.URL(t)
	db, err := pgstore.Connect(context.Background(), url, pgtest.Schema(t, url))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, s, err := groundtest.Transitivity(3000, 10, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Load(s); err != nil {
		t.Fatal(err)
	}
	res, err := ground.Ground(m, s, ground.Options{Joiner: killer{db.Joiner(), db, url}})
	var je *ground.JoinError
	if !errors.As(err, &je) || res != nil {
		t.Fatalf("got result %v, error %v; want no result and a *ground.JoinError", res != nil, err)
	}
	t.Log(err)
}

// TestLoadRefusesCollidingNames checks that a predicate whose table would
// be the constants table is refused.
func TestLoadRefusesCollidingNames(t *testing.T) {
	m := model.New()
	if _, err := m.AddPredicate("Hinge_Constants", 1, false); err != nil {
		t.Fatal(err)
	}
	db := connect(t)
	if err := db.Load(store.New(m)); err == nil || !strings.Contains(err.Error(), "table hinge_constants") {
		t.Fatalf("got %v, want an error about table hinge_constants", err)
	}
}

// collect is a ground.Sink that appends the pieces.
type collect struct{ p *hlmrf.Problem }

func (c *collect) Add(piece *hlmrf.Problem) error { c.p.Append(piece, false); return nil }

// shared counts the consecutive potentials that share a variable.
func shared(p *hlmrf.Problem) int {
	n := 0
	for i := 1; i < p.NumPotentials(); i++ {
		a, _ := p.Terms(i - 1)
		b, _ := p.Terms(i)
		for _, v := range b {
			if slices.Contains(a, v) {
				n++
				break
			}
		}
	}
	return n
}

// TestRowOrder: PostgreSQL returns a clause's rows in the first atom's
// order, so that consecutive potentials share variables about as often as
// the in-memory grounder's do, also when its hash joins batch (as they do at
// 10^7 potentials under the default work_mem, and return rows out of
// order); into a sink as well.
func TestRowOrder(t *testing.T) {
	pgtest.URL(t)
	m, s, err := groundtest.Transitivity(2000, 10, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := ground.Ground(m, s, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := connect(t)
	if err := db.Load(s); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Conn().Exec(context.Background(), "SET work_mem = '64kB'"); err != nil {
		t.Fatal(err)
	}
	c := &collect{p: &hlmrf.Problem{NumVars: mem.Problem.NumVars, Start: []int32{0}, CStart: []int32{0}}}
	pg, err := ground.Ground(m, s, ground.Options{Joiner: db.Joiner(), Sink: c})
	if err != nil {
		t.Fatal(err)
	}
	pg.Problem = c.p
	if diff := cmp.Diff(pgtest.Canonical(mem), pgtest.Canonical(pg)); diff != "" {
		t.Fatalf("the problems differ:\n%.2000s", diff)
	}
	sp, sm := shared(c.p), shared(mem.Problem)
	t.Logf("consecutive potentials sharing a variable: %d from PostgreSQL, %d in memory, of %d", sp, sm, c.p.NumPotentials())
	if 10*sp < 9*sm {
		t.Errorf("PostgreSQL's rows share variables %d times, the in-memory grounder's %d: out of order?", sp, sm)
	}
}

// TestTableName: a table name is the predicate's name in lower case, or for
// a name longer than PostgreSQL keeps, a 63-byte name ending in a hash, so
// that names sharing their first 63 bytes get tables of their own; the
// documented SQL gives the same name.
func TestTableName(t *testing.T) {
	long := strings.Repeat("LongPredicateName", 4) // 68 bytes
	tests := []struct {
		name, want string // want "" when hashed
	}{
		{"Smokes", "smokes"},
		{strings.Repeat("a", 63), strings.Repeat("a", 63)},
		{strings.Repeat("a", 64), ""},
		{long + "One", ""},
		{long + "Two", ""},
		{strings.Repeat("é", 40), ""}, // 80 bytes: the cut falls inside a character
	}
	seen := map[string]string{}
	for _, tc := range tests {
		got := pgstore.TableName(&model.Predicate{Name: tc.name})
		switch {
		case tc.want != "" && got != tc.want:
			t.Errorf("TableName(%s) = %s, want %s", tc.name, got, tc.want)
		case len(got) > pgstore.MaxIdentifier || !utf8.ValidString(got):
			t.Errorf("TableName(%s) = %q: %d bytes, valid UTF-8 %v", tc.name, got, len(got), utf8.ValidString(got))
		case tc.want == "" && !strings.HasPrefix(strings.ToLower(tc.name), got[:len(got)-9]):
			t.Errorf("TableName(%s) = %s does not begin with the name", tc.name, got)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%s and %s share table %s", tc.name, other, got)
		}
		seen[got] = tc.name
	}
	// The README's SQL for an ASCII name, run by PostgreSQL.
	url := pgtest.URL(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	for _, name := range []string{long + "One", long + "Two", strings.Repeat("Z", 64)} {
		var sql string
		err := conn.QueryRow(t.Context(), "SELECT left(lower($1), 54) || '_' || left(encode(sha256(convert_to(lower($1), 'UTF8')), 'hex'), 8)", name).Scan(&sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := pgstore.TableName(&model.Predicate{Name: name}); got != sql {
			t.Errorf("TableName(%s) = %s, the documented SQL gives %s", name, got, sql)
		}
	}
}

// TestLongNames grounds, in PostgreSQL and in memory, a model whose two
// predicates share their first 63 bytes (PostgreSQL's identifier length).
func TestLongNames(t *testing.T) {
	pgtest.URL(t)
	long := strings.Repeat("Averyverylongpredicatename", 3)
	m := model.New()
	for _, d := range []struct {
		name   string
		closed bool
	}{{long + "Alpha", true}, {long + "Beta", false}, {"Out", false}} {
		if _, err := m.AddPredicate(d.name, 1, d.closed); err != nil {
			t.Fatal(err)
		}
	}
	addRules(t, m, "1: "+long+"Alpha(X) -> "+long+"Beta(X) ^2", "3: "+long+"Alpha(X) -> Out(X) ^2")
	s := store.New(m)
	for _, err := range []error{
		s.AddObservation(m.Predicates[0], []string{"x"}, 1),
		s.AddObservation(m.Predicates[0], []string{"y"}, 1),
		s.AddTarget(m.Predicates[1], []string{"x"}),
		s.AddTarget(m.Predicates[2], []string{"x"}),
		s.AddTarget(m.Predicates[2], []string{"y"}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkSame(t, m, s)
}

// TestForeignTables: Load and WriteValues replace only the tables hinge
// created and listed in hinge_tables; a user's table of the same name
// (also one made again under a name hinge had used, or any table of a
// schema without hinge_tables) is refused as a *ForeignError and left as it
// was, unless Replace.
func TestForeignTables(t *testing.T) {
	url := pgtest.URL(t)
	m := model.New()
	smokes, _ := m.AddPredicate("Smokes", 1, false)
	addRules(t, m, "1: ~Smokes(A)")
	s := store.New(m)
	if err := s.AddTarget(smokes, []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		setup   []string // SQL after a first Load (when load) into the schema, %s the schema
		load    bool     // Load once first
		refused string   // the table named, "" when accepted
		noList  bool
	}{
		{"empty schema", nil, false, "", false},
		{"hinge's own tables", nil, true, "", false},
		{"user table", []string{"CREATE TABLE %s.smokes (note text)"}, false, "smokes", true},
		{"user view", []string{"CREATE VIEW %s.smokes AS SELECT 1 AS one"}, false, "smokes (a view)", true},
		{"made again by the user", []string{"DROP TABLE %s.smokes", "CREATE TABLE %s.smokes (note text)"}, true, "smokes", false},
		{"older hinge", []string{"DROP TABLE %s.hinge_tables"}, true, "hinge_constants", true},
		{"list that is not hinge's", []string{"CREATE TABLE %s.hinge_tables (x int)"}, false, "hinge_tables", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := pgtest.Schema(t, url)
			db, err := pgstore.Connect(t.Context(), url, schema)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Conn().Exec(t.Context(), "CREATE SCHEMA "+db.Schema()); err != nil {
				t.Fatal(err)
			}
			if tc.load {
				if err := db.Load(s); err != nil {
					t.Fatal(err)
				}
			}
			for _, sql := range tc.setup {
				if _, err := db.Conn().Exec(t.Context(), fmt.Sprintf(sql, db.Schema())); err != nil {
					t.Fatal(err)
				}
			}
			var before int
			db.Conn().QueryRow(t.Context(), "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1", schema).Scan(&before)
			err = db.Load(s)
			var fe *pgstore.ForeignError
			if tc.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &fe) || !slices.Contains(fe.Tables, tc.refused) || fe.NoList != tc.noList || !strings.Contains(err.Error(), schema+"."+tc.refused) {
				t.Fatalf("got %v (%+v), want a *ForeignError naming %s.%s, NoList %v", err, fe, schema, tc.refused, tc.noList)
			}
			var after int
			db.Conn().QueryRow(t.Context(), "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1", schema).Scan(&after)
			if after != before {
				t.Errorf("the refused Load changed the schema: %d relations before, %d after", before, after)
			}
			db.Replace = true
			if err := db.Load(s); err != nil {
				t.Fatalf("with Replace: %v", err)
			}
			db.Replace = false
			if err := db.Load(s); err != nil {
				t.Fatalf("after Replace, hinge's own tables: %v", err)
			}
		})
	}
}

// TestWriteValuesForeign: the output table is refused when it is a user's
// table (CheckOutput says so before anything is written), a name PostgreSQL
// would cut short, or one of hinge's tables.
func TestWriteValuesForeign(t *testing.T) {
	m := model.New()
	smokes, _ := m.AddPredicate("Smokes", 1, false)
	addRules(t, m, "1: ~Smokes(A)")
	s := store.New(m)
	if err := s.AddTarget(smokes, []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	db := connect(t)
	if err := db.Load(s); err != nil {
		t.Fatal(err)
	}
	g, err := ground.Ground(m, s, ground.Options{Joiner: db.Joiner()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Conn().Exec(t.Context(), "CREATE TABLE "+db.Schema()+".mine (note text)"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ table, err string }{
		{"out", ""},
		{"out", ""}, // hinge's own now
		{"mine", "hinge did not create"},
		{"smokes", "would replace the atoms of Smokes"},
		{"hinge_tables", "list of hinge's tables"},
		{"hinge_constants", "constants table"},
		{strings.Repeat("o", 64), "PostgreSQL keeps 63"},
		{"", "empty"},
	}
	for _, tc := range tests {
		check := db.CheckOutput(tc.table, m)
		err := db.WriteValues(tc.table, m, g, []float64{0.5})
		for _, e := range []error{check, err} {
			if tc.err == "" && e != nil || tc.err != "" && (e == nil || !strings.Contains(e.Error(), tc.err)) {
				t.Errorf("%q: CheckOutput %v, WriteValues %v; want %q", tc.table, check, err, tc.err)
			}
		}
	}
}

// TestLoadRefusesBadConstants: a constant PostgreSQL text cannot hold is
// refused before anything is sent.
func TestLoadRefusesBadConstants(t *testing.T) {
	for _, c := range []string{"a\x00b", "caf\xe9"} {
		m := model.New()
		p, _ := m.AddPredicate("P", 1, false)
		s := store.New(m)
		if err := s.AddTarget(p, []string{c}); err != nil {
			t.Fatal(err)
		}
		if err := pgstore.CheckStore(s); err == nil {
			t.Errorf("%q: CheckStore accepted it", c)
		}
		db := connect(t)
		if err := db.Load(s); err == nil || !strings.Contains(err.Error(), "constant") {
			t.Errorf("%q: Load: %v", c, err)
		}
	}
}

// TestLoadKeepsValues: a values table an earlier WriteValues wrote is the
// user's result: Load of a model with a predicate of that table name
// refuses it with a *ValuesError and changes nothing, unless Replace;
// WriteValues may still replace it, and Load may replace an atoms table.
func TestLoadKeepsValues(t *testing.T) {
	url := pgtest.URL(t)
	first := model.New()
	smokes, _ := first.AddPredicate("Smokes", 1, false)
	addRules(t, first, "1: ~Smokes(A)")
	s1 := store.New(first)
	if err := s1.AddTarget(smokes, []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	// second has a predicate whose table is the first run's output table.
	second := model.New()
	results, _ := second.AddPredicate("Results", 1, false)
	addRules(t, second, "1: ~Results(A)")
	s2 := store.New(second)
	if err := s2.AddTarget(results, []string{"bob"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		output  string // the first run's output table
		replace bool
		refused bool
	}{
		{"values table of a predicate's name", "results", false, true},
		{"with Replace", "results", true, false},
		{"values table of another name", "out", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := pgtest.Schema(t, url)
			db, err := pgstore.Connect(t.Context(), url, schema)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Load(s1); err != nil {
				t.Fatal(err)
			}
			g, err := ground.Ground(first, s1, ground.Options{Joiner: db.Joiner()})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.WriteValues(tc.output, first, g, []float64{0.25}); err != nil {
				t.Fatal(err)
			}
			if err := db.WriteValues(tc.output, first, g, []float64{0.5}); err != nil {
				t.Fatalf("a second WriteValues of the same table: %v", err)
			}
			db.Replace = tc.replace
			err = db.Load(s2)
			var ve *pgstore.ValuesError
			if !tc.refused {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), schema+"."+tc.output) || !strings.Contains(err.Error(), "predicate Results") {
				t.Fatalf("got %v, want a *ValuesError naming %s.%s and predicate Results", err, schema, tc.output)
			}
			var value float64
			if err := db.Conn().QueryRow(t.Context(), "SELECT value FROM "+db.Schema()+"."+tc.output).Scan(&value); err != nil || value != 0.5 {
				t.Errorf("after the refused Load the values table reads %v, %v; want 0.5", value, err)
			}
		})
	}
}

// TestCheckOutputNameCase: an --output-table that differs from a
// predicate's table or hinge's own only in case is refused: PostgreSQL
// keeps the quoted name apart, but an unquoted SELECT ... FROM SMOKES
// reads the atoms of Smokes (an outside tester's report).
func TestCheckOutputNameCase(t *testing.T) {
	m := &model.Model{Predicates: []*model.Predicate{{Name: "Smokes", Arity: 1}}}
	for _, tc := range []struct {
		name, want string // want "" for accepted
	}{
		{"results", ""},
		{"Results", ""},
		{"smokes", "would replace the atoms of Smokes"},
		{"SMOKES", "SMOKES differs from smokes only in case"},
		{"Hinge_Tables", "differs from hinge_tables only in case"},
		{"HINGE_CONSTANTS", "differs from hinge_constants only in case"},
	} {
		err := pgstore.CheckOutputName(tc.name, m)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
