package maxsat

import (
	"slices"
	"testing"
)

func TestHardConflict(t *testing.T) {
	type cl struct {
		hard bool
		lits []Lit
	}
	for _, tc := range []struct {
		name    string
		clauses []cl
		want    []int
	}{
		{"satisfiable", []cl{{true, []Lit{Pos(0)}}, {true, []Lit{Not(0), Pos(1)}}, {true, []Lit{Not(1), Pos(2)}}}, nil},
		{"a chain to a contradiction, beside unrelated clauses", []cl{
			{true, []Lit{Pos(3), Pos(4)}},
			{true, []Lit{Not(1), Pos(2)}},
			{true, []Lit{Pos(0)}},
			{false, []Lit{Not(2)}},
			{true, []Lit{Not(0), Pos(1)}},
			{true, []Lit{Not(2), Not(0)}},
			{true, []Lit{Not(3), Pos(5)}},
		}, []int{1, 2, 4, 5}},
		{"soft clauses do not count", []cl{{false, []Lit{Pos(0)}}, {true, []Lit{Not(0)}}}, nil},
		{"opposite hard units", []cl{{true, []Lit{Pos(0), Pos(1)}}, {true, []Lit{Not(2)}}, {true, []Lit{Pos(2)}}}, []int{1, 2}},
		{"propagation is not enough", []cl{ // unsatisfiable, but no unit clause
			{true, []Lit{Pos(0), Pos(1)}}, {true, []Lit{Pos(0), Not(1)}}, {true, []Lit{Not(0), Pos(1)}}, {true, []Lit{Not(0), Not(1)}},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Instance{}
			for _, c := range tc.clauses {
				if err := in.AddClause(1, c.hard, c.lits...); err != nil {
					t.Fatal(err)
				}
			}
			got := in.HardConflict()
			if !slices.Equal(got, tc.want) {
				t.Fatalf("HardConflict() = %v, want %v", got, tc.want)
			}
			// The clauses returned are unsatisfiable together: no world
			// satisfies them all.
			if got == nil {
				return
			}
			x := make([]bool, in.NumVars)
			for mask := range 1 << in.NumVars {
				for v := range x {
					x[v] = mask>>v&1 == 1
				}
				all := true
				for _, c := range got {
					all = all && in.Satisfied(c, x)
				}
				if all {
					t.Fatalf("world %v satisfies every clause of %v", x, got)
				}
			}
		})
	}
}
