package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/pgtest"
)

// sortedLines returns the lines of a file, sorted (the PostgreSQL grounder
// emits potentials in the order the server returns them).
func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

// TestGroundDB grounds the smokers example in PostgreSQL (--db, and
// HINGE_DB) and checks that the exported problem is the in-memory one.
func TestGroundDB(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	dir := t.TempDir()
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	mem := filepath.Join(dir, "mem.txt")
	if code, _, errs := runCLI(t, "ground", "-m", model, "-d", data, "--export", mem); code != 0 {
		t.Fatalf("in memory: exit %d: %s", code, errs)
	}
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			pg := filepath.Join(dir, how+".txt")
			args := []string{"ground", "-m", model, "-d", data, "--db-schema", schema, "--export", pg}
			if how == "flag" {
				args = append(args, "--db", url)
			} else {
				t.Setenv(dbEnv, url)
			}
			code, out, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, "copied into PostgreSQL schema "+schema) || !strings.Contains(out, "40           0  total") {
				t.Errorf("stdout %q, stderr %q: want 40 potentials grounded in PostgreSQL", out, errs)
			}
			if got, want := sortedLines(t, pg), sortedLines(t, mem); !slices.Equal(got, want) {
				t.Errorf("exported problems differ:\nPostgreSQL %q\nmemory %q", got, want)
			}
			if got, want := sortedLines(t, pg+".atoms"), sortedLines(t, mem+".atoms"); !slices.Equal(got, want) {
				t.Errorf("atoms differ")
			}
		})
	}
}

// TestGroundDBRead grounds over atoms already in PostgreSQL (--db-read),
// here put there by an earlier --db run, with a .data file that only
// declares the predicates.
func TestGroundDBRead(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.txt"), filepath.Join(dir, "second.txt")
	if code, _, errs := runCLI(t, "ground", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--export", first); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	decl := writeFile(t, dir, "decl.data", "predicates:\n  Friends/2: closed\n  Smokes/1: open\n  Cancer/1: open\n")
	code, _, errs := runCLI(t, "ground", "-m", model, "-d", decl, "--db", url, "--db-schema", schema, "--db-read", "--export", second)
	if code != 0 || !strings.Contains(errs, "read from PostgreSQL") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "no target atoms") {
		t.Errorf("--db-read warns of the declarations' missing atoms, which come from the tables: %s", errs)
	}
	if got, want := sortedLines(t, second), sortedLines(t, first); !slices.Equal(got, want) {
		t.Errorf("ground problems differ:\n--db-read %q\n--db %q", got, want)
	}
	code, _, errs = runCLI(t, "ground", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--db-read")
	if code != 2 || !strings.Contains(errs, "lists atoms too") {
		t.Errorf("--db-read with atoms in --data: exit %d, %q; want exit 2", code, errs)
	}
	// Tables that are not there are named, with exit status 2, not passed
	// on as PostgreSQL's "relation does not exist".
	empty := pgtest.Schema(t, url)
	code, _, errs = runCLI(t, "ground", "-m", model, "-d", decl, "--db", url, "--db-schema", empty, "--db-read")
	if want := "--db-read: schema " + empty + " has no table hinge_constants (the constants), "; code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "SQLSTATE") {
		t.Errorf("--db-read of a schema without tables: exit %d, %q; want exit 2 and %q", code, errs, want)
	}
	extra := writeFile(t, dir, "extra.data", "predicates:\n  Friends/2: closed\n  Smokes/1: open\n  Cancer/1: open\n  Tall/1: closed\n")
	extraModel := writeFile(t, dir, "extra.psl", "1: Friends(A, B) & Smokes(A) & Tall(A) -> Smokes(B)\n")
	code, _, errs = runCLI(t, "ground", "-m", extraModel, "-d", extra, "--db", url, "--db-schema", schema, "--db-read")
	if want := "has no table tall (the atoms of Tall/1)"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("--db-read with a predicate the schema has no table for: exit %d, %q; want exit 2 and %q", code, errs, want)
	}
}

// TestGroundDBErrors checks the exit status and message when the database
// is unusable: a URL that does not parse or is not PostgreSQL's, or a name
// PostgreSQL would not keep as given, is bad input (2, found before
// connecting), a server that cannot be reached fails the run (1), and none
// writes an output.
func TestGroundDBErrors(t *testing.T) {
	t.Setenv(dbEnv, "")
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	const unreachable = "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5"
	tests := []struct {
		name, url string
		extra     []string
		code      int
		msg       string
	}{
		{"unreachable", unreachable, nil, 1, "--db: connecting to PostgreSQL"},
		{"bad URL", "postgres://host:notaport/db", nil, 2, "--db"},
		{"read without db", "", nil, 2, "--db-read needs --db"},
		{"not PostgreSQL", "mysql://root:secret@dbhost/hinge", nil, 2, "--db: a mysql:// URL; hinge reads only PostgreSQL URLs"},
		{"empty schema", unreachable, []string{"--db-schema", ""}, 2, "--db-schema: the schema name is empty (the default is hinge)"},
		{"long schema", unreachable, []string{"--db-schema", strings.Repeat("s", 64)}, 2, "is 64 bytes long; PostgreSQL keeps 63"},
		{"long output table", unreachable, []string{"--output-table", strings.Repeat("o", 64)}, 2, "--output-table: output table name"},
		{"output table of hinge", unreachable, []string{"--output-table", "hinge_tables"}, 2, "would replace the list of hinge's tables"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "p.txt")
			args := []string{"ground", "-m", model, "-d", data, "--export", out}
			if slices.Contains(tc.extra, "--output-table") {
				args = []string{"infer", "-m", model, "-d", data, "--output", out}
			}
			if tc.url != "" {
				args = append(args, "--db", tc.url)
			} else {
				args = append(args, "--db-read")
			}
			code, _, errs := runCLI(t, append(args, tc.extra...)...)
			if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Contains(errs, "secret") {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q (and no password)", code, errs, tc.code, tc.msg)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written after a failed run (%v)", out, err)
			}
		})
	}
}

// TestDBEmptyOverridesEnv checks that an empty --db grounds in memory when
// HINGE_DB is set (here to a URL that would be refused), and that without
// it HINGE_DB is used; --streaming reports the database's error as its own,
// not as the cache's.
func TestDBEmptyOverridesEnv(t *testing.T) {
	t.Setenv(dbEnv, "postgres://host:notaport/db")
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	tests := []struct {
		name  string
		extra []string
		code  int
		msg   string
	}{
		{"env", nil, 2, "hinge infer: --db: cannot parse"},
		{"env streaming", []string{"--streaming"}, 2, "hinge infer: --db: cannot parse"},
		{"empty flag", []string{"--db", ""}, 0, ""},
		{"empty flag streaming", []string{"--db", "", "--streaming"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"infer", "-m", model, "-d", data, "--output", out, "--quiet"}, tc.extra...)
			code, _, errs := runCLI(t, args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.msg)
			}
			if _, err := os.Stat(out); (err == nil) != (tc.code == 0) {
				t.Errorf("exit %d but %s: %v", code, out, err)
			}
		})
	}
}

// TestInferOutputTable writes the inferred values to a table and checks
// them against the values printed by the same run.
func TestInferOutputTable(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	code, out, errs := runCLI(t, "infer", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "inferred")
	if code != 0 || !strings.Contains(out, "wrote 18 values to table "+schema+".inferred") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT predicate, args, value FROM "+pgx.Identifier{schema, "inferred"}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var pred string
		var args []string
		var value float64
		if err := rows.Scan(&pred, &args, &value); err != nil {
			t.Fatal(err)
		}
		// The printed value of the same atom, as printValues writes it.
		line := fmt.Sprintf("%s('%s') = %.6f\n", pred, strings.Join(args, "', '"), value)
		if !strings.Contains(out, line) {
			t.Errorf("row %q is not among the printed values:\n%s", line, out)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 18 {
		t.Errorf("%d rows, want 18 (the targets)", n)
	}
	code, out, errs = runCLI(t, "infer", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "smokes")
	if code != 2 || !strings.Contains(errs, "would replace the atoms of Smokes") || strings.Contains(out, "ADMM") {
		t.Errorf("--output-table smokes: exit %d, stdout %q, stderr %q; want exit 2 before solving", code, out, errs)
	}
	// A run whose files cannot be written (its report to a full device)
	// writes no table either: it had replaced the table and then said that
	// none of its outputs was written.
	sum := func() (n int, s float64) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT count(*), coalesce(sum(value), 0) FROM "+pgx.Identifier{schema, "inferred"}.Sanitize()).Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		return n, s
	}
	n0, s0 := sum()
	dir := t.TempDir()
	other := writeFile(t, dir, "m.psl", "0.9: Smokes(X) -> Cancer(X) ^2\n0.01: !Smokes(X)\n0.01: !Cancer(X)\n")
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, errs = runCLI(t, "infer", "-m", other, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "inferred", "--report", "/dev/full", "--quiet")
		if n, s := sum(); code != 1 || n != n0 || s != s0 {
			t.Errorf("a run whose report failed: exit %d (%s), table %d rows summing to %g; it was %d summing to %g", code, errs, n, s, n0, s0)
		}
	}
	code, _, errs = runCLI(t, "infer", "-m", other, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "inferred", "--quiet")
	if n, s := sum(); code != 0 || n != n0 || s == s0 {
		t.Errorf("a run that succeeds: exit %d (%s), table %d rows summing to %g, was %d summing to %g: want it replaced", code, errs, n, s, n0, s0)
	}
}

// TestGroundErrorExitStatus checks the exit status grounding errors map
// to: the database failing (a *ground.JoinError, as TestServerGone in
// store/pgstore provokes) fails the run, the rules being wrong is bad input.
func TestGroundErrorExitStatus(t *testing.T) {
	join := fmt.Errorf("rule 0: %w", &ground.JoinError{Err: errors.New("PostgreSQL: FATAL: terminating connection due to administrator command")})
	tests := []struct {
		name string
		err  error
		code int
	}{
		{"join error", join, 1},
		{"bad rule", errors.New("rule 0: predicate P is not one the grounder was made for"), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ee *exitError
			if !errors.As(groundError(tc.err), &ee) || ee.code != tc.code {
				t.Fatalf("groundError(%v) = %v, want exit status %d", tc.err, groundError(tc.err), tc.code)
			}
		})
	}
}

// TestInferDBServerGone terminates hinge's PostgreSQL backend while it
// streams a join's rows: hinge infer must exit 1 with a clear error and
// write no output.
func TestInferDBServerGone(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	// A chain-like Knows over 4,000 people, each knowing the next 10 (links
	// alternately observed and targets): about 400,000 groundings, enough
	// for the join to run while it is cut.
	var obs, tgt strings.Builder
	const n = 4000
	for i := range n {
		for d := 1; d <= 10; d++ {
			if (i+d)%2 == 0 {
				fmt.Fprintf(&obs, "p%d\tp%d\t1\n", i, (i+d)%n)
			} else {
				fmt.Fprintf(&tgt, "p%d\tp%d\n", i, (i+d)%n)
			}
		}
	}
	dir := writeFiles(t, map[string]string{
		"m.psl":        "1: Knows(A, B) & Knows(B, C) -> Knows(A, C) ^2\n",
		"d.data":       "predicates:\n  Knows/2: open\nobservations:\n  Knows: obs.txt\ntargets:\n  Knows: tgt.txt\n",
		"obs.txt":      obs.String(),
		"tgt.txt":      tgt.String(),
		"report/.keep": "",
	})
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx, stop := context.WithCancel(t.Context())
	killed := make(chan bool, 1)
	go func() {
		// Terminate the backend running the grounding join, once seen,
		// until the run ends.
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			var pid int32
			err := conn.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT t0.atom%' AND position($1 in query) > 0 LIMIT 1`, schema).Scan(&pid)
			if err == nil {
				_, err = conn.Exec(ctx, "SELECT pg_terminate_backend($1)", pid)
				killed <- err == nil
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		killed <- false
	}()
	out := filepath.Join(dir, "out")
	report := filepath.Join(dir, "report", "r.json")
	code, stdout, errs := runCLI(t, "infer", "-m", filepath.Join(dir, "m.psl"), "-d", filepath.Join(dir, "d.data"),
		"--db", url, "--db-schema", schema, "--output", out, "--report", report, "--quiet")
	stop()
	if !<-killed {
		if code != 0 {
			t.Fatalf("exit %d before the join could be cut: %s", code, errs)
		}
		t.Skipf("the grounding join finished before it could be cut; nothing to check")
	}
	// The server's message when the rows were flowing; a broken connection
	// when the backend died while sorting them (nothing sent yet).
	gone := strings.Contains(errs, "terminating connection") || strings.Contains(errs, "broken pipe") || strings.Contains(errs, "unexpected EOF")
	if code != 1 || !strings.Contains(errs, "PostgreSQL") || !gone {
		t.Fatalf("exit %d, stderr %q; want exit 1 and the server's message or the lost connection", code, errs)
	}
	if strings.Contains(stdout, "ADMM") {
		t.Errorf("inference ran after the server went away:\n%s", stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s made after the server went away (%v)", out, err)
	}
	entries, err := os.ReadDir(filepath.Dir(report))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".keep" {
			t.Errorf("%s written after the server went away", filepath.Join(filepath.Dir(report), e.Name()))
		}
	}
	t.Log(errs)
}

// TestStructureDB: structure learning grounds its candidates in
// PostgreSQL with --db and learns the model it learns in memory.
func TestStructureDB(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	data := familyWorld(t, 2)
	dir := t.TempDir()
	var models [2]string
	for i, extra := range [][]string{nil, {"--db", url, "--db-schema", schema}} {
		out := filepath.Join(dir, fmt.Sprintf("m%d.psl", i))
		args := append([]string{"structure", "--data", data, "--target", "Grandparent", "--min-support", "2", "--output", out}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", extra, code, stdout, stderr)
		}
		if extra != nil && !strings.Contains(stderr, "copied into PostgreSQL schema "+schema) {
			t.Errorf("--db: stderr %q does not say the atoms went to PostgreSQL", stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		models[i] = string(b)
	}
	if models[0] != models[1] || !strings.Contains(models[1], "Parent(E1, E2) & Parent(E2, E3) -> Grandparent(E1, E3)") {
		t.Errorf("in memory:\n%s\nwith --db:\n%s", models[0], models[1])
	}
}

// TestDBLongPredicateNames: two predicates whose names share their first 63
// bytes (PostgreSQL's identifier length) get tables of their own, so the
// run under --db answers exactly as the in-memory run.
func TestDBLongPredicateNames(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	long := strings.Repeat("Averyverylongpredicatename", 3) // 78 bytes
	a, b := long+"Alpha", long+"Beta"
	dir := writeFiles(t, map[string]string{
		"m.psl":  fmt.Sprintf("1: %[1]s(X) -> %[2]s(X) ^2\n1: ~%[2]s(X) ^2\n3: %[1]s(X) -> Out(X) ^2\n", a, b),
		"d.data": fmt.Sprintf("predicates:\n  %s/1: closed\n  %s/1: open\n  Out/1: open\nobservations:\n  %[1]s: a.tsv\ntargets:\n  %[2]s: b.tsv\n  Out: o.tsv\n", a, b),
		"a.tsv":  "x\ny\n",
		"b.tsv":  "x\n",
		"o.tsv":  "x\ny\n",
	})
	args := []string{"infer", "-m", filepath.Join(dir, "m.psl"), "-d", filepath.Join(dir, "d.data"), "--quiet"}
	code, mem, errs := runCLI(t, append(args, "--db", "")...)
	if code != 0 {
		t.Fatalf("in memory: exit %d: %s", code, errs)
	}
	code, pg, errs := runCLI(t, append(args, "--db", url, "--db-schema", schema)...)
	if code != 0 {
		t.Fatalf("--db: exit %d: %s", code, errs)
	}
	values := func(out string) []string {
		var v []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " = ") {
				v = append(v, l)
			} else if total, _, ok := strings.Cut(l, ", grounded in"); ok {
				v = append(v, total)
			}
		}
		return v
	}
	if got, want := values(pg), values(mem); !slices.Equal(got, want) || len(want) != 4 {
		t.Errorf("--db answers differently from the in-memory run:\n--db %q\nmemory %q", got, want)
	}
}

// TestDBKeepsForeignTables: --db replaces only the tables hinge created
// (listed in the schema's hinge_tables). A user's table named like a
// predicate's, or named by --output-table, is refused by name (exit 2,
// before any grounding or solving, the table untouched) unless
// --db-replace; tables hinge created are replaced on the next run without
// it.
func TestDBKeepsForeignTables(t *testing.T) {
	url := pgtest.URL(t)
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// userTable creates schema.name holding one row the user cares about.
	userTable := func(t *testing.T, schema, name string) {
		t.Helper()
		q := pgx.Identifier{schema, name}.Sanitize()
		if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()+"; CREATE TABLE "+q+" (note text); INSERT INTO "+q+" VALUES ('mine')"); err != nil {
			t.Fatal(err)
		}
	}
	// intact reports whether the user's row is still there.
	intact := func(t *testing.T, schema, name string) bool {
		t.Helper()
		var note string
		err := conn.QueryRow(ctx, "SELECT note FROM "+pgx.Identifier{schema, name}.Sanitize()).Scan(&note)
		return err == nil && note == "mine"
	}
	tests := []struct {
		name   string
		user   string   // the user's table
		extra  []string // more flags
		refuse string   // the table named in the refusal
	}{
		{"predicate table", "smokes", nil, "smokes"},
		{"constants table", "hinge_constants", nil, "hinge_constants"},
		{"output table", "inferred", []string{"--output-table", "inferred"}, "inferred"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := pgtest.Schema(t, url)
			userTable(t, schema, tc.user)
			args := append([]string{"infer", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--quiet"}, tc.extra...)
			code, out, errs := runCLI(t, args...)
			if code != 2 || !strings.Contains(errs, schema+"."+tc.refuse) || !strings.Contains(errs, "--db-replace") {
				t.Fatalf("exit %d, stderr %q; want exit 2 naming %s.%s and --db-replace", code, errs, schema, tc.refuse)
			}
			if strings.Contains(out, "ADMM") {
				t.Errorf("refused after solving:\n%s", out)
			}
			if !intact(t, schema, tc.user) {
				t.Fatalf("the user's table %s.%s was replaced", schema, tc.user)
			}
			if code, _, errs := runCLI(t, append(args, "--db-replace")...); code != 0 {
				t.Fatalf("--db-replace: exit %d: %s", code, errs)
			}
			if intact(t, schema, tc.user) {
				t.Errorf("--db-replace kept the user's table %s.%s", schema, tc.user)
			}
			// Now hinge's own: replaced without --db-replace.
			if code, _, errs := runCLI(t, args...); code != 0 {
				t.Fatalf("second run over hinge's own tables: exit %d: %s", code, errs)
			}
		})
	}
}

// TestDBUpgradeSchema: a schema written by a hinge that kept no
// hinge_tables (its constants' and predicates' tables, no record of them)
// is refused with a word on what to do, and one run with --db-replace takes
// it over.
func TestDBUpgradeSchema(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	args := []string{"ground", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--quiet"}
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE "+pgx.Identifier{schema, "hinge_tables"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, args...)
	if code != 2 || !strings.Contains(errs, "no hinge_tables") || !strings.Contains(errs, "--db-replace") {
		t.Fatalf("exit %d, stderr %q; want exit 2 saying the schema has no hinge_tables and how to take it over", code, errs)
	}
	for _, extra := range [][]string{{"--db-replace"}, nil} {
		if code, _, errs := runCLI(t, append(args, extra...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
	}
}

// TestDBKeepsOutputTable: the values table of an earlier `infer
// --output-table` is the user's result: a later run of another model with a
// predicate of that table's name is refused (exit 2, naming the table and
// --db-replace, before any work, the values kept) unless --db-replace,
// while a later infer writing the same --output-table replaces it.
func TestDBKeepsOutputTable(t *testing.T) {
	url := pgtest.URL(t)
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	dir := t.TempDir()
	writeFile(t, dir, "t.txt", "A\nB\n")
	writeFile(t, dir, "o.txt", "A\n")
	other := writeFile(t, dir, "m.psl", "1: Obs(X) -> Results(X)\n")
	otherData := writeFile(t, dir, "d.data", "predicates:\n  Obs/1: closed\n  Results/1: open\nobservations:\n  Obs: o.txt\ntargets:\n  Results: t.txt\n")
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tests := []struct {
		name    string
		args    []string // the later run, before --db
		refused bool
	}{
		{"ground of a model with predicate Results", []string{"ground", "-m", other, "-d", otherData}, true},
		{"infer of a model with predicate Results", []string{"infer", "-m", other, "-d", otherData}, true},
		{"infer writing the same output table", []string{"infer", "-m", model, "-d", data, "--output-table", "results"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := pgtest.Schema(t, url)
			results := pgx.Identifier{schema, "results"}.Sanitize()
			if code, _, errs := runCLI(t, "infer", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "results", "--quiet"); code != 0 {
				t.Fatalf("first infer: exit %d: %s", code, errs)
			}
			values := func() (n int) {
				t.Helper()
				conn.QueryRow(ctx, "SELECT count(*) FROM "+results+" WHERE predicate IS NOT NULL").Scan(&n)
				return n
			}
			args := append(slices.Clone(tc.args), "--db", url, "--db-schema", schema, "--quiet")
			code, out, errs := runCLI(t, args...)
			if !tc.refused {
				if code != 0 || values() != 18 {
					t.Fatalf("exit %d (%s), %d values; want exit 0 and 18 values", code, errs, values())
				}
				return
			}
			if code != 2 || !strings.Contains(errs, schema+".results") || !strings.Contains(errs, "--db-replace") || strings.Contains(out, "ADMM") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 before any work, naming %s.results and --db-replace", code, out, errs, schema)
			}
			if n := values(); n != 18 {
				t.Fatalf("the refused run left %d values in %s, want 18", n, results)
			}
			if code, _, errs := runCLI(t, append(args, "--db-replace")...); code != 0 {
				t.Fatalf("--db-replace: exit %d: %s", code, errs)
			}
		})
	}
}
