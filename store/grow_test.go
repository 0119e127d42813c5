package store

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/hinge-srl/hinge/model"
)

// TestIndexesFollowAddedRows checks that partial indexes built before rows
// are added find the new rows (in ascending row order, as a fresh index
// would), across the rebuilds that the added rows trigger.
func TestIndexesFollowAddedRows(t *testing.T) {
	for _, tc := range []struct {
		name       string
		before     int // rows before the indexes are built
		after      int // rows added with the indexes in use
		a0, a1, a2 int // argument ranges
	}{
		{"built empty", 0, 3000, 30, 20, 5},
		{"built small, grows past rebuilds", 50, 5000, 12, 40, 3},
		{"built large", 4000, 1500, 25, 25, 4},
		{"few keys", 10, 2000, 2, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := model.New()
			p, _ := m.AddPredicate("R", 3, false)
			s := New(m)
			r := rand.New(rand.NewPCG(3, uint64(tc.before)))
			add := func() {
				args := []string{strconv.Itoa(r.IntN(tc.a0)), strconv.Itoa(r.IntN(tc.a1)), strconv.Itoa(r.IntN(tc.a2))}
				if err := s.AddTarget(p, args); err != nil {
					t.Fatal(err)
				}
			}
			for range tc.before {
				add()
			}
			tab := s.Table(p)
			ixs := make([]*SubIndex, 8)
			for mask := range uint32(8) {
				ixs[mask] = tab.Index(mask)
			}
			check := func() {
				t.Helper()
				for mask, ix := range ixs {
					if tab.Index(uint32(mask)) != ix {
						t.Fatalf("mask %b: Index returned a new index after rows were added", mask)
					}
					pos := ix.Positions()
					groups := map[string][]int32{}
					for row := range tab.Len() {
						k := ""
						for _, q := range pos {
							k += strconv.Itoa(int(tab.Arg(row, q))) + ","
						}
						groups[k] = append(groups[k], int32(row))
					}
					if ix.Groups() != len(groups) {
						t.Fatalf("mask %b: %d groups, want %d", mask, ix.Groups(), len(groups))
					}
					if want := float64(tab.Len()) / float64(max(len(groups), 1)); tab.Len() > 0 && ix.MeanGroup() != want {
						t.Fatalf("mask %b: mean group %v, want %v", mask, ix.MeanGroup(), want)
					}
					for trial := range 30 {
						key := make([]int32, len(pos))
						if tab.Len() > 0 {
							row := r.IntN(tab.Len())
							for k, q := range pos {
								key[k] = tab.Arg(row, q)
							}
						}
						if trial%7 == 0 && len(key) > 0 {
							key[0] = s.Dict.ID("absent")
						}
						k := ""
						for _, v := range key {
							k += strconv.Itoa(int(v)) + ","
						}
						if got, want := ix.Lookup(key), groups[k]; !slices.Equal(got, want) {
							t.Fatalf("mask %b key %v after %d rows: got %v, want %v", mask, key, tab.Len(), got, want)
						}
					}
				}
			}
			check()
			for i := range tc.after {
				add()
				if i%97 == 0 || i == tc.after-1 {
					check()
				}
			}
		})
	}
}
