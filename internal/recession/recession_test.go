package recession

import (
	"slices"
	"testing"
)

// TestSolve checks the cone's answers on small cones worked by hand.
func TestSolve(t *testing.T) {
	type r struct {
		idx []int32
		val []float64
	}
	for _, tc := range []struct {
		name    string
		n       int
		free    []bool
		gain    []float64
		rows    []r
		alone   []int8
		dir     []float64 // nil: none
		decided bool
	}{
		{"no rows, gain", 2, nil, []float64{1, 0}, nil, []int8{1, 0}, nil, true},
		{"blocked alone", 1, nil, []float64{1}, []r{{[]int32{0}, []float64{-1}}}, []int8{0}, nil, true},
		// d0 >= d1 and d1 >= d0: only (1,1), which gains.
		{"pair", 2, nil, []float64{1, 1}, []r{{[]int32{0, 1}, []float64{1, -1}}, {[]int32{0, 1}, []float64{-1, 1}}}, []int8{0, 0}, []float64{1, 1}, true},
		// d1 >= d0, d0 >= 2 d1: only 0.
		{"pair infeasible", 2, nil, []float64{1, 1}, []r{{[]int32{0, 1}, []float64{-1, 1}}, {[]int32{0, 1}, []float64{1, -2}}}, []int8{0, 0}, nil, true},
		// Flat direction: (1,1) is in the cone but gains nothing.
		{"flat", 2, nil, []float64{1, -1}, []r{{[]int32{0, 1}, []float64{1, -1}}, {[]int32{0, 1}, []float64{-1, 1}}}, []int8{0, 0}, nil, true},
		// A free weight whose rows ask d0 <= 0 gains by falling.
		{"free falls", 1, []bool{true}, []float64{-2}, []r{{[]int32{0}, []float64{-1}}}, []int8{-1}, nil, true},
		// Rows of both signs on a free weight fix it at 0.
		{"free fixed", 1, []bool{true}, []float64{1}, []r{{[]int32{0}, []float64{-1}}, {[]int32{0}, []float64{2}}}, []int8{0}, nil, true},
		// Free weights: d0 - d1 >= 0 and d1 - d0 >= 0 and d0 + d1 >= 0,
		// gain d0 + d1: (1,1).
		{"free pair", 2, []bool{true, true}, []float64{1, 1}, []r{{[]int32{0, 1}, []float64{1, -1}}, {[]int32{0, 1}, []float64{-1, 1}}, {[]int32{0, 1}, []float64{1, 1}}}, []int8{0, 0}, []float64{1, 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.n, tc.free)
			for i, g := range tc.gain {
				c.AddGain(i, g)
			}
			for _, row := range tc.rows {
				c.Add(row.idx, row.val)
			}
			res := c.Solve(100)
			if !slices.Equal(res.Alone, tc.alone) || res.Decided != tc.decided {
				t.Fatalf("alone %v decided %v, want %v %v", res.Alone, res.Decided, tc.alone, tc.decided)
			}
			if tc.dir == nil && res.Direction != nil || tc.dir != nil && !slices.EqualFunc(res.Direction, tc.dir, func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }) {
				t.Fatalf("direction %v, want %v", res.Direction, tc.dir)
			}
		})
	}
	// Too big a program: not decided.
	c := New(2, nil)
	c.AddGain(0, 1)
	c.Add([]int32{0, 1}, []float64{1, -1})
	c.Add([]int32{0, 1}, []float64{-1, 1})
	if res := c.Solve(2); res.Decided || res.Unbounded() {
		t.Errorf("limit 2: %+v", res)
	}
}
