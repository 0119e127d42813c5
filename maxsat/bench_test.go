package maxsat

import (
	"bytes"
	"context"
	"github.com/hinge-srl/hinge/internal/measure"
	"math/rand/v2"
	"testing"
)

// benchInstance is a random instance of m clauses of length 1..3 over m/4
// variables.
func benchInstance(m int) *Instance {
	rng := rand.New(rand.NewPCG(99, 100))
	n := m / 4
	in := &Instance{NumVars: n, Start: []int32{0}}
	lits := make([]Lit, 0, 3)
	for c := 0; c < m; c++ {
		lits = lits[:0]
		k := 1 + rng.IntN(3)
		for len(lits) < k {
			l := Pos(rng.IntN(n))
			if rng.IntN(2) == 0 {
				l = -l
			}
			lits = append(lits, l) // a rare repeat is merged by AddClause
		}
		in.AddClause(float64(1+rng.IntN(10)), false, lits...)
	}
	return in
}

// BenchmarkRound measures the rounding pass (both probabilities, each
// derandomised, plus evaluation); b.N rounds of 10^5 clauses. Report
// ns/clause = ns/op / 1e5.
func BenchmarkRound(b *testing.B) {
	in := benchInstance(100000)
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, in.NumVars)
	for i := range y {
		y[i] = rng.Float64()
	}
	ix := buildIndex(in)
	for b.Loop() {
		round(context.Background(), in, ix, y)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(in.NumClauses()), "ns/clause")
}

// BenchmarkDerandomize is one derandomised pass over 10^5 clauses.
func BenchmarkDerandomize(b *testing.B) {
	in := benchInstance(100000)
	p := make([]float64, in.NumVars)
	for i := range p {
		p[i] = 0.25 + float64(i%3)/4
	}
	ix := buildIndex(in)
	hw := hardWeight(in)
	for b.Loop() {
		derandomize(context.Background(), in, ix, p, hw)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(in.NumClauses()), "ns/clause")
}

// BenchmarkWalkSATFlip measures MaxWalkSAT flips on 10^5 clauses.
func BenchmarkWalkSATFlip(b *testing.B) {
	in := benchInstance(100000)
	const steps = 100000
	for b.Loop() {
		WalkSAT(context.Background(), in, nil, WalkOptions{Steps: steps, Seed: 1})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/steps, "ns/flip")
}

// BenchmarkRead parses a 10^5-clause WCNF file.
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, benchInstance(100000), Format2022); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	cpu0 := measure.CPUSeconds()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	// MB per CPU second: a shared machine's wall time understates it.
	if cpu := measure.CPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}
