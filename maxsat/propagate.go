package maxsat

// HardConflict runs unit propagation over the hard clauses alone. When it
// derives a contradiction, it returns the indexes (in clause order) of hard
// clauses that together cannot all hold: the clause found false and, for
// every literal of the derivation, the unit clause that forced it. A short
// list is a readable proof that the hard clauses are unsatisfiable. It
// returns nil when propagation finds no contradiction, which does not prove
// the hard clauses satisfiable.
func (in *Instance) HardConflict() []int {
	occ := make([][]int32, in.NumVars) // hard clauses of each variable
	for c := range in.NumClauses() {
		if in.Hard[c] {
			for _, l := range in.Clause(c) {
				occ[l.Var()] = append(occ[l.Var()], int32(c))
			}
		}
	}
	val := make([]int8, in.NumVars) // 0 unknown, 1 true, -1 false
	reason := make([]int32, in.NumVars)
	var queue []int
	// visit forces the last open literal of clause c, or returns true when
	// every literal of c is false.
	visit := func(c int) bool {
		open, openLit := 0, Lit(0)
		for _, l := range in.Clause(c) {
			switch v := val[l.Var()]; {
			case v == 0:
				open, openLit = open+1, l
			case (v == 1) != l.Neg():
				return false // satisfied
			}
		}
		switch open {
		case 0:
			return true
		case 1:
			v := openLit.Var()
			val[v], reason[v] = 1, int32(c)
			if openLit.Neg() {
				val[v] = -1
			}
			queue = append(queue, v)
		}
		return false
	}
	conflict := -1
	for c := 0; c < in.NumClauses() && conflict < 0; c++ {
		if in.Hard[c] && visit(c) {
			conflict = c
		}
		for len(queue) > 0 && conflict < 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, d := range occ[v] {
				if visit(int(d)) {
					conflict = int(d)
					break
				}
			}
		}
	}
	if conflict < 0 {
		return nil
	}
	// Walk the derivation back from the false clause.
	inCore := map[int]bool{conflict: true}
	seen := make([]bool, in.NumVars)
	stack := []int{conflict}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, l := range in.Clause(c) {
			v := l.Var()
			if seen[v] || int(reason[v]) == c {
				continue
			}
			seen[v] = true
			r := int(reason[v])
			if !inCore[r] {
				inCore[r] = true
				stack = append(stack, r)
			}
		}
	}
	core := make([]int, 0, len(inCore))
	for c := range in.NumClauses() {
		if inCore[c] {
			core = append(core, c)
		}
	}
	return core
}
