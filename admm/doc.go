// Package admm computes MAP states of hinge-loss Markov random fields
// (hlmrf.Problem) by consensus ADMM, as in Bach et al., "Hinge-Loss Markov
// Random Fields and Probabilistic Soft Logic" (JMLR 2017) and paper 000
// section 2.1.
//
// Every potential and hard constraint gets its own local copy of the
// variables it touches. An iteration updates the duals, minimises each term
// plus its augmented-Lagrangian penalty in closed form (linear hinge, squared
// hinge by Sherman-Morrison, projection onto a <= or = constraint: see
// kernels.go), then sets each variable to the mean of its copies plus scaled
// duals, clipped to [0,1]. Stopping follows PSL 2.3: every CheckEvery
// iterations the primal residual r = ||x_local - z|| and the dual residual
// s = rho*sqrt(sum_j deg_j*(z_j - zprev_j)^2) are compared with
//
//	eps_pri  = sqrt(#copies)*EpsAbs + EpsRel*max(||x_local||, ||z expanded to copies||)
//	eps_dual = sqrt(#copies)*EpsAbs + EpsRel*||alpha||
//
// and the solver stops when both hold, no hard constraint is violated at
// the consensus point beyond Options.ConstraintTol and (hinge's addition,
// off with GapTol 0) the objective is within Options.GapTol (relative) of
// the Lagrangian lower bound of the current duals (bound.go; computed only
// once the other tests pass), or after MaxIter. The bound certifies the
// answer: the optimum lies between it and the objective (Result.LowerBound).
//
// Parallelism: the terms and the variables are cut into chunks of about
// equal work whose boundaries depend only on the problem. Each worker owns a
// contiguous run of chunks for the local step and one for the consensus
// step (which reduces each variable's copies through a precomputed variable
// -> copy index, in a fixed order) and claims them through an atomic cursor;
// a worker that finishes early takes the unclaimed chunks of the others.
// Workers are goroutines that live for one Solve and meet at a barrier after
// each phase. The iteration loop allocates nothing and takes no locks (the
// barrier spins on an atomic counter and only sleeps on a condition variable
// after about a millisecond of waiting, e.g. during a slow Progress
// callback). Chunk results and residual partial sums do not depend on which
// worker computed them, so results are bit-identical for every thread count.
//
// Run-time structure: the solver works in its own order of the problem
// (layout.go: variables numbered breadth-first over the factor graph, terms
// in the order the search reaches them) so that the reads of an iteration
// stay close in memory whatever order the caller's problem is in; values,
// weights, warm starts and duals are mapped at the boundary. Potentials are
// grouped into runs of equal arity and power, and runs of 1-, 2- and
// 3-variable potentials use fixed-stride kernels (kernels.go) that do the
// same arithmetic as the general loop.
package admm
