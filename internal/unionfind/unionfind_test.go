package unionfind

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupsAgainstReachability: the groups after random unions are the
// connected components of the union graph, found by a plain search.
func TestGroupsAgainstReachability(t *testing.T) {
	for _, tc := range []struct{ n, unions int }{{1, 0}, {5, 0}, {8, 3}, {40, 25}, {200, 300}} {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.unions)))
		s := New(tc.n)
		adj := make([][]int, tc.n)
		for range tc.unions {
			a, b := rng.IntN(tc.n), rng.IntN(tc.n)
			s.Union(int32(a), int32(b))
			adj[a], adj[b] = append(adj[a], b), append(adj[b], a)
		}
		comp := make([]int, tc.n)
		for v := range comp {
			comp[v] = -1
		}
		var want [][]int32
		for v := range tc.n {
			if comp[v] >= 0 {
				continue
			}
			comp[v] = len(want)
			g, stack := []int32{}, []int{v}
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				g = append(g, int32(u))
				for _, w := range adj[u] {
					if comp[w] < 0 {
						comp[w] = comp[v]
						stack = append(stack, w)
					}
				}
			}
			slices.Sort(g)
			want = append(want, g)
		}
		if got := s.Groups(nil); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("n %d, %d unions: groups %v, want %v", tc.n, tc.unions, got, want)
		}
		even := s.Groups(func(v int) bool { return v%2 == 0 })
		for _, g := range even {
			for _, v := range g {
				if v%2 != 0 || comp[v] != comp[g[0]] {
					t.Fatalf("n %d: kept group %v mixes components or holds an odd element", tc.n, g)
				}
			}
		}
	}
}

// TestDistinct: a group is held once, whatever groups share its first
// element.
func TestDistinct(t *testing.T) {
	var d Distinct
	for _, tc := range []struct {
		g    []int32
		want bool
	}{
		{[]int32{1, 2}, true},
		{[]int32{1, 2, 3}, true},
		{[]int32{1, 2}, false},
		{[]int32{1, 3}, true},
		{[]int32{1, 2, 3}, false},
		{[]int32{4}, true},
		{[]int32{4}, false},
	} {
		if got := d.Add(tc.g); got != tc.want {
			t.Errorf("Add(%v) = %v, want %v", tc.g, got, tc.want)
		}
	}
}
