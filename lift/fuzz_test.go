package lift

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hinge-srl/hinge/hlmrf"
)

// byteReader hands out fuzz bytes, then zeros.
type byteReader struct{ b []byte }

func (r *byteReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

var fuzzValues = []float64{1, -1, 0.1, 0.2, -0.3, 0.5, 2, 1e-17, -0.1, 3, 0}

// value returns a table value, or (rarely) a raw float64 from the next 8
// bytes when it is finite.
func (r *byteReader) value() float64 {
	c := r.next()
	if c >= 250 {
		var buf [8]byte
		for i := range buf {
			buf[i] = r.next()
		}
		if x := math.Float64frombits(binary.LittleEndian.Uint64(buf[:])); !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x
		}
		return 1
	}
	return fuzzValues[int(c)%len(fuzzValues)]
}

// fuzzProblem builds a small problem straight into the CSR arrays, so that
// repeated variables and zero coefficients within a row occur too.
func fuzzProblem(data []byte) (*hlmrf.Problem, *byteReader) {
	r := &byteReader{data}
	p := &hlmrf.Problem{NumVars: 1 + int(r.next()%6), Start: []int32{0}, CStart: []int32{0}}
	rows := int(r.next() % 12)
	for range rows {
		kind := r.next()
		k := int(r.next() % 4)
		var vars []int32
		var coefs []float64
		for range k {
			vars = append(vars, int32(int(r.next())%p.NumVars))
			coefs = append(coefs, r.value())
		}
		if kind%4 == 3 {
			ck := hlmrf.LessEq
			if kind&16 != 0 {
				ck = hlmrf.Equal
			}
			p.CVar = append(p.CVar, vars...)
			p.CCoef = append(p.CCoef, coefs...)
			p.CStart = append(p.CStart, int32(len(p.CVar)))
			p.CKind = append(p.CKind, ck)
			p.CConst = append(p.CConst, r.value())
			p.CGroup = append(p.CGroup, -1)
			continue
		}
		p.Var = append(p.Var, vars...)
		p.Coef = append(p.Coef, coefs...)
		p.Start = append(p.Start, int32(len(p.Var)))
		p.Weight = append(p.Weight, math.Abs(r.value()))
		p.Const = append(p.Const, r.value())
		p.Power = append(p.Power, 1+kind&1)
		p.Group = append(p.Group, int32(kind%3))
	}
	return p, r
}

// FuzzLift: Lift never panics; when it succeeds the coloring is the coarsest
// stable one and, at any lifted point, the lifted objective plus Offset and
// the lifted constraint violations equal the original ones at the expanded
// point.
func FuzzLift(f *testing.F) {
	f.Add([]byte{3, 4, 0, 2, 0, 1, 1, 2, 1, 0, 2, 1, 3, 0, 1, 1})
	f.Add([]byte{2, 6, 0, 2, 0, 0, 1, 1, 0, 2, 0, 1, 1, 0, 3, 1, 0, 0, 4, 0, 0, 4, 1, 0, 1, 0})
	f.Add([]byte{5, 8, 19, 3, 1, 2, 2, 5, 3, 8, 3, 3, 1, 2, 4, 5, 0, 1, 1, 3, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{1, 2, 0, 1, 0, 250, 0, 0, 0, 0, 0, 0, 240, 127, 1, 0, 1, 1, 0, 250, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, r := fuzzProblem(data)
		l, err := Lift(p)
		if err != nil {
			var ie *InfeasibleError
			if errors.As(err, &ie) || strings.Contains(err.Error(), "overflows") {
				return
			}
			t.Fatalf("unexpected error: %v", err)
		}
		if err := checkStable(p, l.Coloring); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(naiveRefine(p), l.Coloring); diff != "" {
			t.Fatalf("not the coarsest stable coloring (-naive +Refine):\n%s", diff)
		}
		// Hashed lifting, when it succeeds, is the same lifting; its bound
		// never exceeds the coloring.
		b, err := NewBounder(p)
		if err != nil {
			t.Fatal(err)
		}
		if hl, ok, err := b.Lift(64); err == nil && ok {
			if diff := cmp.Diff(l, hl, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("hashed lifting differs (-Lift +hashed):\n%s", diff)
			}
		}
		if v, m, c := b.Counts(); v > l.Coloring.NumVar || m > l.Coloring.NumPot || c > l.Coloring.NumCon {
			t.Fatalf("bound %d/%d/%d above the coloring %d/%d/%d", v, m, c, l.Coloring.NumVar, l.Coloring.NumPot, l.Coloring.NumCon)
		}
		if err := l.Problem.Validate(); err != nil {
			t.Fatalf("lifted problem invalid: %v", err)
		}
		scale := objectiveScale(p)
		if math.IsInf(scale, 0) || math.IsNaN(scale) {
			return // magnitudes overflow float64: nothing to compare
		}
		z := make([]float64, l.Problem.NumVars)
		for k := range z {
			z[k] = float64(r.next()) / 255
		}
		y := l.Expand(z)
		if got, want := l.Objective(z), p.Objective(y); math.Abs(got-want) > 1e-12*scale+1e-300 {
			t.Fatalf("lifted objective + offset %v, original %v (scale %v)", got, want, scale)
		}
		for j, k := range l.ConClass {
			want := p.ConstraintViolation(j, y)
			var got float64
			if k >= 0 {
				got = l.Problem.ConstraintViolation(int(k), z)
			}
			_, coefs := p.CTerms(j)
			cs := math.Abs(p.CConst[j])
			for _, c := range coefs {
				cs += math.Abs(c)
			}
			if math.Abs(got-want) > 1e-12*cs+1e-300 {
				t.Fatalf("constraint %d: violation %v, lifted %v", j, want, got)
			}
		}
	})
}

// FuzzRepeated: for a fuzzed problem beside a relabelled copy of itself and
// a copy with one coefficient changed, the repeated-components path (every
// component a candidate) never panics and gives refine's coloring.
func FuzzRepeated(f *testing.F) {
	f.Add([]byte{3, 4, 0, 2, 0, 1, 1, 2, 1, 0, 2, 1, 3, 0, 1, 1})
	f.Add([]byte{2, 6, 0, 2, 0, 0, 1, 1, 0, 2, 0, 1, 1, 0, 3, 1, 0, 0, 4, 0, 0, 4, 1, 0, 1, 0})
	f.Add([]byte{5, 8, 19, 3, 1, 2, 2, 5, 3, 8, 3, 3, 1, 2, 4, 5, 0, 1, 1, 3, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		base, r := fuzzProblem(data)
		if check(base) != nil {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(r.next()), 28))
		p, _ := planted(rng, base, make([]float64, base.NumVars), 2)
		if len(base.Coef) > 0 {
			near := base.Clone()
			near.Coef[int(r.next())%len(near.Coef)] += 0.5
			p.Append(near, true)
		}
		if check(p) != nil {
			return
		}
		cd := findCandidates(p, repeatParams{minNodes: 1, large: 1})
		if cd == nil {
			return
		}
		got := colorRepeated(newGraph(p), p, cd)
		if got == nil {
			return
		}
		if diff := cmp.Diff(refine(newGraph(p), p), got); diff != "" {
			t.Fatalf("repeated components give another coloring (-refine +repeated):\n%s", diff)
		}
	})
}
