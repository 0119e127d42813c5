// Package pgtest finds the PostgreSQL server that tests run against: the
// connection URL in HINGE_TEST_POSTGRES (.ci/run starts a throwaway cluster
// and sets it). Without it, tests that need a server skip with a message
// saying how to run them.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hinge-srl/hinge/ground"
)

// Env is the environment variable holding the test server's URL.
const Env = "HINGE_TEST_POSTGRES"

// URL returns the test server's connection URL, or skips tb when Env is
// unset. A set URL that does not connect fails tb: a configured server that
// is down is an error, not a reason to skip.
func URL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv(Env)
	if url == "" {
		tb.Skipf("no PostgreSQL server: set %s to a connection URL (for example postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run this test; .ci/run starts one", Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("%s=%s: %v", Env, url, err)
	}
	conn.Close(ctx)
	return url
}

var serial atomic.Int64

// Schema returns the name of a new, empty PostgreSQL schema for tb on the
// server at url, dropped with everything in it when tb ends, so tests
// (and concurrent test processes) do not see each other's tables.
func Schema(tb testing.TB, url string) string {
	tb.Helper()
	name := fmt.Sprintf("hinge_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, serial.Add(1))
	name = strings.ToLower(name)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			tb.Errorf("dropping schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", name, err)
		}
	})
	return name
}

// Canonical lists the potentials and constraints of a ground result as
// sorted strings: weight, power, group and constant of each potential (kind,
// constant and group of each constraint) with its terms as (atom,
// coefficient) pairs sorted by atom, so two ground problems with variables
// numbered differently or potentials in a different order compare equal
// exactly when they are the same set (with multiplicity).
func Canonical(res *ground.Result) []string {
	names := res.AtomNames()
	p := res.Problem
	terms := func(vars []int32, coefs []float64) string {
		t := make([]string, len(vars))
		for k, v := range vars {
			t[k] = fmt.Sprintf("%s:%v", strings.Join(names[v], ","), coefs[k])
		}
		slices.Sort(t)
		return strings.Join(t, " ")
	}
	var out []string
	for i := range p.NumPotentials() {
		lo, hi := p.Start[i], p.Start[i+1]
		out = append(out, fmt.Sprintf("potential w=%v p=%d g=%d c=%v [%s]", p.Weight[i], p.Power[i], p.Group[i], p.Const[i], terms(p.Var[lo:hi], p.Coef[lo:hi])))
	}
	for j := range p.NumConstraints() {
		lo, hi := p.CStart[j], p.CStart[j+1]
		out = append(out, fmt.Sprintf("constraint %v c=%v g=%d [%s]", p.CKind[j], p.CConst[j], p.CGroup[j], terms(p.CVar[lo:hi], p.CCoef[lo:hi])))
	}
	slices.Sort(out)
	return out
}
