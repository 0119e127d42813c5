package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/pgtest"
	"github.com/hinge-srl/hinge/store/pgstore"
)

// syncBuffer is a bytes.Buffer safe to write from a run and read from the
// test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// otherCancerModel writes a second model with a predicate Cancer, of other
// atoms than the smokers', and returns its --model and --data.
func otherCancerModel(t *testing.T) (string, string) {
	t.Helper()
	var targets, genes strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&targets, "P%d\n", i)
		if i <= 100 {
			fmt.Fprintf(&genes, "P%d\n", i)
		}
	}
	dir := writeFiles(t, map[string]string{
		"other.psl":  "1.0: Gene(X) -> Cancer(X) ^2\n0.01: !Cancer(X)\n",
		"other.data": "predicates:\n  Gene/1: closed\n  Cancer/1: open\nobservations:\n  Gene: gene.txt\ntargets:\n  Cancer: ct.txt\n",
		"gene.txt":   genes.String(),
		"ct.txt":     targets.String(),
	})
	return filepath.Join(dir, "other.psl"), filepath.Join(dir, "other.data")
}

// smokersOnDB is what the smokers run on PostgreSQL prints when it grounded
// its own atoms: its 40 potentials and Carl's value.
func smokersOnDB(out string) bool {
	return strings.Contains(out, "40           0  total") && strings.Contains(out, "Cancer('Carl') = 0.990000")
}

// TestDBRunWaitsForSchema: a run on a schema that another run holds (here
// the test, through the lock every run takes) says it waits, naming the
// holder, and grounds only once the schema is free; it used to go ahead and
// replace, or ground over, the other run's tables.
func TestDBRunWaitsForSchema(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	held, err := pgstore.LockSchema(context.Background(), url, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(context.Background(), []string{"infer", "--model", smokersModel, "--data", smokersData, "--db", url, "--db-schema", schema}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "waiting for another run using PostgreSQL schema "+schema) {
		select {
		case code := <-done:
			t.Fatalf("the run did not wait for the schema: exit %d\n%s%s", code, stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no waiting message after 30 s: %q", stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "hinge (process") {
		t.Errorf("the message does not name the holder: %q", stderr.String())
	}
	select {
	case code := <-done:
		t.Fatalf("the run ended (exit %d) while the schema was held", code)
	case <-time.After(300 * time.Millisecond):
	}
	held.Release()
	select {
	case code := <-done:
		if code != 0 || !smokersOnDB(stdout.String()) {
			t.Errorf("exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not go on once the schema was free")
	}
}

// TestDBConcurrentRunsOneSchema: two models sharing a predicate name run at
// once on one schema, new each round (so both may create it), and each
// gets its own answer with exit 0: 40 potentials and Cancer('Carl') 0.99
// for the smokers, 300 for the other. Before the schema lock, some rounds
// ended with the smokers' run grounding the other's Cancer table (27
// potentials, Carl 0 or 1, exit 0), a grounding error, or PostgreSQL's raw
// duplicate key on pg_namespace.
func TestDBConcurrentRunsOneSchema(t *testing.T) {
	url := pgtest.URL(t)
	otherModel, otherData := otherCancerModel(t)
	for round := range 5 {
		schema := pgtest.Schema(t, url)
		var wg sync.WaitGroup
		var codeA, codeB int
		var outA, errA, outB, errB string
		wg.Add(2)
		go func() {
			defer wg.Done()
			codeA, outA, errA = runCLI(t, "infer", "--model", smokersModel, "--data", smokersData, "--db", url, "--db-schema", schema, "--quiet")
		}()
		go func() {
			defer wg.Done()
			codeB, outB, errB = runCLI(t, "infer", "--model", otherModel, "--data", otherData, "--db", url, "--db-schema", schema, "--quiet")
		}()
		wg.Wait()
		if codeA != 0 || !smokersOnDB(outA) {
			t.Errorf("round %d, smokers: exit %d\n%s%s", round, codeA, outA, errA)
		}
		if codeB != 0 || !strings.Contains(outB, "300           0  total") {
			t.Errorf("round %d, other model: exit %d\n%s%s", round, codeB, outB, errB)
		}
	}
}
