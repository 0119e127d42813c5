package main

import (
	"fmt"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/maxsat"
)

// Bytes a solver needs per variable and per term (a variable's
// appearance in a potential, constraint or clause), measured on solve,
// lift and maxsat with a generous margin: 4 million declared variables
// peak at 230 MB (solve, lift) and 290 MB (maxsat).
const (
	bytesPerVar  = 100
	bytesPerTerm = 150
)

// checkFits refuses, before the long work, a problem read from path whose
// solver state cannot fit in the memory limit. A file's header may declare
// far more variables than its content uses ("# variables: 268435455" in a
// 23-byte file): each costs memory in the solver all the same.
func checkFits(path string, vars int, usedBy string, used, terms int) error {
	limit := memlimit.Current()
	if limit <= 0 {
		return nil
	}
	need := int64(vars)*bytesPerVar + int64(terms)*bytesPerTerm
	if need <= limit {
		return nil
	}
	return failed(fmt.Errorf("%s: %d variables (the %s use up to %d) and %d terms need about %s to solve, more than the memory limit of %s (%s)",
		clipPath(path), vars, usedBy, used, terms, memlimit.Format(need), memlimit.Format(limit), memoryLimitFrom))
}

// checkProblemFits is checkFits for a ground problem (solve, lift).
func checkProblemFits(path string, p *hlmrf.Problem) error {
	used := 0
	for _, vs := range [][]int32{p.Var, p.CVar} {
		for _, v := range vs {
			used = max(used, int(v)+1)
		}
	}
	return checkFits(path, p.NumVars, "potentials", used, len(p.Var)+len(p.CVar))
}

// checkInstanceFits is checkFits for a MAX-SAT instance.
func checkInstanceFits(path string, in *maxsat.Instance) error {
	used := 0
	for _, l := range in.Lits {
		used = max(used, l.Var()+1)
	}
	return checkFits(path, in.NumVars, "clauses", used, len(in.Lits))
}
