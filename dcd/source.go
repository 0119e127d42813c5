package dcd

import "github.com/hinge-srl/hinge/hlmrf"

// memSource serves an in-memory problem as blocks of views into it.
type memSource struct {
	p      *hlmrf.Problem
	blocks []*hlmrf.Problem
	pot    []int64
	con    []int64
}

// FromProblem serves p as blocks of at most blockSize potentials, then
// blocks of at most blockSize constraints, without copying it; the terms
// come in p's order whatever the block size. blockSize <= 0 means one
// block.
func FromProblem(p *hlmrf.Problem, blockSize int) Source {
	np, nc := p.NumPotentials(), p.NumConstraints()
	if blockSize <= 0 {
		blockSize = max(np+nc, 1)
	}
	s := &memSource{p: p, pot: []int64{0}, con: []int64{0}}
	if blockSize >= np+nc {
		s.blocks = []*hlmrf.Problem{p}
		s.pot, s.con = append(s.pot, int64(np)), append(s.con, int64(nc))
		return s
	}
	add := func(v *hlmrf.Problem, pb, cb int) {
		s.blocks = append(s.blocks, v)
		s.pot, s.con = append(s.pot, int64(pb)), append(s.con, int64(cb))
	}
	for a := 0; a < np; a += blockSize {
		b := min(a+blockSize, np)
		add(&hlmrf.Problem{NumVars: p.NumVars, Weight: p.Weight[a:b], Const: p.Const[a:b], Power: p.Power[a:b], Group: p.Group[a:b],
			Start: p.Start[a : b+1], Var: p.Var, Coef: p.Coef}, b, 0)
	}
	for a := 0; a < nc; a += blockSize {
		b := min(a+blockSize, nc)
		add(&hlmrf.Problem{NumVars: p.NumVars, CKind: p.CKind[a:b], CConst: p.CConst[a:b], CGroup: p.CGroup[a:b],
			CStart: p.CStart[a : b+1], CVar: p.CVar, CCoef: p.CCoef}, np, b)
	}
	return s
}

func (s *memSource) NumVars() int         { return s.p.NumVars }
func (s *memSource) NumBlocks() int       { return len(s.blocks) }
func (s *memSource) PotStart(b int) int64 { return s.pot[b] }
func (s *memSource) ConStart(b int) int64 { return s.con[b] }
func (s *memSource) Block(b int, _ *hlmrf.Problem) (*hlmrf.Problem, error) {
	return s.blocks[b], nil
}
