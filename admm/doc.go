// Package admm computes MAP states of hinge-loss Markov random fields
// (hlmrf.Problem) by consensus ADMM, as in Bach et al., "Hinge-Loss Markov
// Random Fields and Probabilistic Soft Logic" (JMLR 2017), and Srinivasan, Babaki, Farnadi and Getoor, "Lifted
// Hinge-Loss Markov Random Fields" (AAAI 2019), section 2.1.
//
// Every potential and hard constraint gets its own local copy of the
// variables it touches. An iteration updates the duals, minimises each term
// plus its augmented-Lagrangian penalty in closed form (linear hinge, squared
// hinge by Sherman-Morrison, projection onto a <= or = constraint), then sets
// each variable to the mean of its copies plus scaled duals, clipped to
// [0,1]. Every closed form moves a term's copies along its coefficients, so
// the solver keeps one number per term instead of a copy and a dual per
// variable of it, and the local step adds each term's move into a
// per-variable accumulator that the consensus step reads (kernels.go).
// Stopping follows PSL 2.3: every CheckEvery iterations the primal residual
// r = ||x_local - z|| and the dual residual s = rho*sqrt(sum_j
// deg_j*(z_j - zprev_j)^2) are compared with
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
// Parallelism: the terms and the variables are cut into chunks of about equal
// work whose boundaries depend only on the problem. In the local step each
// worker runs a fixed, interleaved set of term chunks (worker w: chunks w,
// w+t, w+2t, ...) and adds into its own accumulator; in the consensus step
// (each variable's accumulators, summed in worker order) and the residual
// checks workers claim chunks through atomic cursors, and one that finishes
// early takes the unclaimed chunks of the others. Workers are goroutines that
// live for one Solve and meet at a barrier after each phase. The iteration
// loop allocates nothing and takes no locks (the barrier spins on an atomic
// counter and only sleeps on a condition variable after about a millisecond
// of waiting, e.g. during a slow Progress callback). Results are
// bit-identical from run to run with the same number of threads; another
// thread count groups the accumulator sums differently, which changes results
// only by rounding (TestThreadsAgree: values within 1e-14 after 300
// iterations).
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
