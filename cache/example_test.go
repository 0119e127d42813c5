package cache_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hinge-srl/hinge/cache"
	"github.com/hinge-srl/hinge/hlmrf"
)

// Write a problem in pieces, as a grounder hands them over, and read it back
// block by block.
func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "cache-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ground.cache")
	st, err := cache.Write(path, 3, func(w *cache.Writer) error {
		for i := range int32(3) {
			piece := &hlmrf.Problem{NumVars: 3}
			piece.AddPotential(1, 0, 2, 0, []int32{i, (i + 1) % 3}, []float64{1, -1})
			if err := w.Add(piece); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := cache.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	p, err := r.ReadAll()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d potentials in %d block(s); the last is over variables %v\n", st.Potentials, st.Blocks, p.Var[p.Start[2]:p.Start[3]])
	// Output: 3 potentials in 1 block(s); the last is over variables [2 0]
}
