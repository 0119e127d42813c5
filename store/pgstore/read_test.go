package pgstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/ground/groundtest"
	"github.com/hinge-srl/hinge/internal/pgtest"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/store/pgstore"
)

// TestReadRoundTrip loads a store, reads it back and grounds over the
// read store in PostgreSQL: the ground problem is the original in-memory
// one.
func TestReadRoundTrip(t *testing.T) {
	m, s, err := groundtest.Transitivity(200, 5, 0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	db := connect(t)
	if err := db.Load(s); err != nil {
		t.Fatal(err)
	}
	read, err := db.Read(m)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := ground.Ground(m, s, ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := ground.Ground(m, read, ground.Options{Joiner: db.Joiner()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pgtest.Canonical(mem), pgtest.Canonical(pg)); diff != "" || mem.Problem.NumPotentials() == 0 {
		t.Fatalf("%d potentials; ground problem over the read store differs:\n%s", mem.Problem.NumPotentials(), diff)
	}
}

// TestReadUserTables fills the schema's tables with SQL, as a user with
// data in PostgreSQL would, and checks what Read makes of them.
func TestReadUserTables(t *testing.T) {
	const schema = `
CREATE TABLE hinge_constants (id integer PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE friends (atom integer, a0 integer, a1 integer, value float8, part smallint);
CREATE TABLE smokes (atom integer, a0 integer, value float8, part smallint);
`
	const good = `
INSERT INTO hinge_constants VALUES (0, 'alice'), (1, 'bob'), (2, 'carol');
INSERT INTO friends VALUES (0, 0, 1, 1, 0), (1, 1, 2, 0.5, 0);
INSERT INTO smokes VALUES (0, 0, 1, 0), (1, 1, 0.3, 1), (2, 2, 0, 1), (0, 2, 1, 2);
`
	tests := []struct {
		name, sql, err string
	}{
		{"good", good, ""},
		{"id gap", "INSERT INTO hinge_constants VALUES (0, 'alice'), (2, 'bob');", "ids must be 0, 1, ..."},
		{"atom gap", "INSERT INTO hinge_constants VALUES (0, 'alice'), (1, 'bob'); INSERT INTO smokes VALUES (0, 0, 1, 0), (2, 1, 0, 1);", "numbered 0, 1, ..."},
		{"bad part", "INSERT INTO hinge_constants VALUES (0, 'alice'); INSERT INTO smokes VALUES (0, 0, 1, 7);", "part 7"},
		{"bad id", "INSERT INTO hinge_constants VALUES (0, 'alice'); INSERT INTO smokes VALUES (0, 5, 1, 0);", "a0 = 5 is not an id"},
		{"bad value", "INSERT INTO hinge_constants VALUES (0, 'alice'); INSERT INTO smokes VALUES (0, 0, 1.5, 0);", "outside [0,1]"},
		{"repeated tuple", "INSERT INTO hinge_constants VALUES (0, 'alice'), (1, 'bob'); INSERT INTO smokes VALUES (0, 0, 1, 0), (1, 1, 0, 1), (2, 0, 1, 0);", "atoms 0 and 2 have the same arguments Smokes('alice')"},
		{"repeated target", "INSERT INTO hinge_constants VALUES (0, 'alice'); INSERT INTO smokes VALUES (0, 0, 0, 1), (1, 0, 0, 1);", "atoms 0 and 1 have the same arguments Smokes('alice')"},
		{"observed and target", "INSERT INTO hinge_constants VALUES (0, 'alice'); INSERT INTO smokes VALUES (0, 0, 1, 0), (1, 0, 0, 1);", "atoms 0 and 1 have the same arguments"},
		{"missing table", "DROP TABLE smokes;", "has no table smokes (the atoms of Smokes/1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := model.New()
			friends, _ := m.AddPredicate("Friends", 2, true)
			smokes, _ := m.AddPredicate("Smokes", 1, false)
			addRules(t, m, "0.4: Friends(A, B) & Smokes(A) -> Smokes(B) ^2")
			db := connect(t)
			ctx := t.Context()
			sql := "CREATE SCHEMA " + db.Schema() + "; SET search_path TO " + db.Schema() + ";" + schema + tc.sql
			if _, err := db.Conn().Exec(ctx, sql); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Conn().Exec(ctx, "RESET search_path"); err != nil {
				t.Fatal(err)
			}
			read, err := db.Read(m)
			if tc.err != "" {
				var ce *pgstore.ContentError
				var me *pgstore.MissingError
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error containing %q", err, tc.err)
				}
				if !errors.As(err, &ce) && !errors.As(err, &me) {
					t.Fatalf("%v is neither a ContentError nor a MissingError (bad input, exit status 2)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := store.New(m)
			for _, add := range []error{
				want.AddObservation(friends, []string{"alice", "bob"}, 1),
				want.AddObservation(friends, []string{"bob", "carol"}, 0.5),
				want.AddObservation(smokes, []string{"alice"}, 1),
				want.AddTarget(smokes, []string{"bob"}),
				want.AddTarget(smokes, []string{"carol"}),
				want.AddTruth(smokes, []string{"carol"}, 1),
			} {
				if add != nil {
					t.Fatal(add)
				}
			}
			mem, err := ground.Ground(m, want, ground.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pg, err := ground.Ground(m, read, ground.Options{Joiner: db.Joiner()})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(pgtest.Canonical(mem), pgtest.Canonical(pg)); diff != "" || mem.Problem.NumPotentials() != 2 {
				t.Fatalf("%d potentials; differs:\n%s", mem.Problem.NumPotentials(), diff)
			}
			if o, tg, tr := read.Counts(); o != 3 || tg != 2 || tr != 1 {
				t.Errorf("read %d observed, %d targets, %d truth; want 3, 2, 1", o, tg, tr)
			}
			if v := read.Table(smokes).Value(1); v != 0.3 {
				t.Errorf("initial value of Smokes(bob) %v, want 0.3", v)
			}
		})
	}
}
