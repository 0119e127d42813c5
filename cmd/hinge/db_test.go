package main

import (
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
}

// TestGroundDBErrors checks the exit status and message when the database
// is unusable: a URL that does not parse is bad input (2), a server that
// cannot be reached fails the run (1), and neither writes an output.
func TestGroundDBErrors(t *testing.T) {
	t.Setenv(dbEnv, "")
	model, data := "../../examples/smokers/smokers.psl", "../../examples/smokers/smokers.data"
	tests := []struct {
		name, url string
		code      int
		msg       string
	}{
		{"unreachable", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5", 1, "--db: connecting to PostgreSQL"},
		{"bad URL", "postgres://host:notaport/db", 2, "--db"},
		{"read without db", "", 2, "--db-read needs --db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "p.txt")
			args := []string{"ground", "-m", model, "-d", data, "--export", out}
			if tc.url != "" {
				args = append(args, "--db", tc.url)
			} else {
				args = append(args, "--db-read")
			}
			code, _, errs := runCLI(t, args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.msg)
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
	code, _, errs = runCLI(t, "infer", "-m", model, "-d", data, "--db", url, "--db-schema", schema, "--output-table", "smokes")
	if code != 1 || !strings.Contains(errs, "would replace the atoms of Smokes") {
		t.Errorf("--output-table smokes: exit %d, %q; want exit 1", code, errs)
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
		"out/.keep":    "",
		"report/.keep": "",
	})
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	killed := make(chan bool, 1)
	go func() {
		// Terminate the backend running the grounding join, once seen.
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
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
	if !<-killed {
		t.Skipf("the grounding join finished before it could be cut (exit %d); nothing to check", code)
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
	for _, d := range []string{out, filepath.Dir(report)} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != ".keep" {
				t.Errorf("%s written after the server went away", filepath.Join(d, e.Name()))
			}
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
