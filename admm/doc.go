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
// and the solver stops when both hold and no hard constraint is violated at
// the consensus point beyond Options.ConstraintTol, or after MaxIter.
//
// Parallelism: terms are split into contiguous blocks per worker for the
// local step, variables into contiguous ranges for the consensus step, which
// reduces each variable's copies through a precomputed variable -> copy index
// in a fixed order. Workers are goroutines that live for one Solve and meet
// at a spinning barrier; the iteration loop takes no locks and allocates
// nothing. Block boundaries and residual partial sums are defined by
// problem-only chunks, so results are bit-identical for every thread count.
package admm
