package dcd

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/cache"
)

// BenchmarkEpoch times passes over a cached problem of 10^6 clause-shaped
// potentials (3 variables, unit coefficients) with the duals in a file, as
// hinge infer --streaming runs them: ns/epoch includes the checks made
// every CheckEvery epochs.
func BenchmarkEpoch(b *testing.B) {
	p := admmtest.Clauses(1_000_000, 200_000, 3, 2, 1)
	for i := range p.Weight {
		p.Weight[i] = 1
	}
	path := filepath.Join(b.TempDir(), "p.cache")
	if _, err := cache.WriteProblem(path, p); err != nil {
		b.Fatal(err)
	}
	r, err := cache.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	o := DefaultOptions()
	o.MaxEpochs = b.N
	o.DualFile = filepath.Join(b.TempDir(), "duals")
	b.ResetTimer()
	start := time.Now()
	res, err := Solve(context.Background(), r, o)
	if err != nil {
		b.Fatal(err)
	}
	// A solve can converge before b.N epochs.
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(res.Epochs), "ns/epoch")
	b.ReportMetric(float64(res.Epochs), "epochs")
}
