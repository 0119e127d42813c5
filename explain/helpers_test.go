package explain

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/pipeline"
)

// solvedPSL loads a PSL program, grounds it and solves it by ADMM with
// tight tolerances, and returns its explainer.
func solvedPSL(t *testing.T, modelFile, dataFile string) *PSL {
	t.Helper()
	prog, err := pipeline.Load(pipeline.Inputs{Model: modelFile, Data: dataFile})
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Ground(ground.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := admm.DefaultOptions()
	opt.EpsAbs, opt.EpsRel, opt.GapTol, opt.MaxIter, opt.Threads = 1e-9, 1e-9, 0, 200000, 1
	s, err := admm.New(g.Problem, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pd, cd := s.Duals()
	e, err := NewPSL(prog.Model, prog.Store, g, res.Values, pd, cd)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var smokers = [2]string{filepath.Join("..", "examples", "smokers", "smokers.psl"), filepath.Join("..", "examples", "smokers", "smokers.data")}
