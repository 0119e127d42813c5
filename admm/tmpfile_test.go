package admm

import (
	"bufio"
	"context"
	"os"
	"testing"

	"hinge/hlmrf"
)

func BenchmarkTmpFile(b *testing.B) {
	name := os.Getenv("PROBLEM")
	if name == "" {
		b.Skip()
	}
	f, _ := os.Open(name)
	p, err := hlmrf.Read(bufio.NewReader(f), name)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Threads = 1
	if os.Getenv("NOGAP") != "" {
		opt.GapTol = 0
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := Solve(context.Background(), p, opt)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Iterations), "iters")
	}
}
