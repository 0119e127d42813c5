package mln

import (
	"os"
	"sort"
	"testing"

	"github.com/hinge-srl/hinge/maxsat"
)

func TestZZComp(t *testing.T) {
	f, err := os.Open("/tmp/cse.wcnf")
	if err != nil {
		t.Skip()
	}
	in, err := maxsat.Read(f, "cse")
	if err != nil {
		t.Fatal(err)
	}
	p := make([]int, in.NumVars)
	for i := range p {
		p[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for p[x] != x {
			p[x] = p[p[x]]
			x = p[x]
		}
		return x
	}
	soft, units := 0, 0
	for c := range in.NumClauses() {
		ls := in.Clause(c)
		if !in.Hard[c] {
			soft++
			if len(ls) == 1 {
				units++
			}
		}
		for _, l := range ls[1:] {
			a, b := find(ls[0].Var()), find(l.Var())
			if a != b {
				p[a] = b
			}
		}
	}
	size := map[int]int{}
	for v := range p {
		size[find(v)]++
	}
	var s []int
	for _, n := range size {
		s = append(s, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(s)))
	t.Logf("vars %d clauses %d soft %d units %d components %d largest %v", in.NumVars, in.NumClauses(), soft, units, len(s), s[:min(10, len(s))])
}
