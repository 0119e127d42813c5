package hlmrf

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/measure"
)

// TestRepeatedColumnsSum: a column given twice on one line is summed, the
// constant's (0:c) as well as a variable's.
func TestRepeatedColumnsSum(t *testing.T) {
	p, err := Read(strings.NewReader("2 0:0.5 1:1 0:0.25 1:2\n<= 0:1 2:1 0:-0.5\n"), "r.hlmrf")
	if err != nil {
		t.Fatal(err)
	}
	vs, cs := p.Terms(0)
	if p.Const[0] != 0.75 || len(vs) != 1 || cs[0] != 3 {
		t.Errorf("potential: constant %v, terms %v %v; want 0.75 and 3*y1", p.Const[0], vs, cs)
	}
	if p.CConst[0] != 0.5 {
		t.Errorf("constraint constant %v, want 0.5", p.CConst[0])
	}
}

// BenchmarkRead reads a generated exchange file of 10^6 potentials (two or
// three variables each, squared and linear, some hard constraints, about
// 30 MB) and reports MB/s.
func BenchmarkRead(b *testing.B) {
	p := &Problem{NumVars: 100000, Start: []int32{0}, CStart: []int32{0}}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 1000000 {
		k := 2 + i%2
		vars := make([]int32, k)
		coefs := make([]float64, k)
		for j := range vars {
			vars[j] = int32(rng.IntN(p.NumVars))
			coefs[j] = float64(1 - 2*(j%2))
		}
		if i%100 == 0 {
			p.AddConstraint(LessEq, 1, -1, vars, coefs)
			continue
		}
		p.AddPotential(float64(rng.IntN(1000))/1000, float64(rng.IntN(10))/10, uint8(1+i%2), -1, vars, coefs)
	}
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		b.Fatal(err)
	}
	text := buf.Bytes()
	b.SetBytes(int64(len(text)))
	cpu0 := measure.CPUSeconds()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(text), "bench.txt"); err != nil {
			b.Fatal(err)
		}
	}
	// MB per CPU second (the collector's work included): a shared
	// machine's wall time understates it.
	if cpu := measure.CPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(text))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}
