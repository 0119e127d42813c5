package dcd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hinge-srl/hinge/cache"
	"github.com/hinge-srl/hinge/dcd"
	"github.com/hinge-srl/hinge/hlmrf"
)

// Solve a problem streamed from a cache file: two variables pulled towards
// 1 and towards each other, one pushed towards 0 more strongly.
func ExampleSolve() {
	p := &hlmrf.Problem{}
	p.AddVars(2)
	p.AddPotential(1, -1, 1, 0, []int32{0}, []float64{-1})      // 1*max(1-y0, 0)
	p.AddPotential(2, 0, 1, 1, []int32{1}, []float64{1})        // 2*max(y1, 0)
	p.AddPotential(3, 0, 1, 2, []int32{0, 1}, []float64{1, -1}) // 3*max(y0-y1, 0)
	dir, _ := os.MkdirTemp("", "dcd-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "p.cache")
	if _, err := cache.WriteProblem(path, p); err != nil {
		fmt.Println(err)
		return
	}
	r, err := cache.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	opt := dcd.DefaultOptions()
	opt.GapTol = 1e-6
	res, err := dcd.Solve(context.Background(), r, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: objective %.3f, lower bound %.3f, y = [%.2f %.2f]\n", res.Status, res.Objective, res.LowerBound, res.Values[0], res.Values[1])
	// Output: converged: objective 1.000, lower bound 1.000, y = [0.00 0.00]
}
