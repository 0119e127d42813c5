// Package structure learns the rules of a PSL model from relational data
// (Embar, Sridhar, Farnadi, Getoor, "Scalable Structure Learning
// for Probabilistic Soft Logic").
//
// # Path-constrained clause generation
//
// Generate reads the observed atoms of a store as a graph over constants:
// an observed atom with value >= 0.5 (values are rounded at 0.5, as the
// paper says) is an edge, walked in both directions. For every true target
// atom t(a, b) (truth >= 0.5) it enumerates the paths of length 1 to
// MaxLength (default 3) from a to b through distinct constants: every path
// of the breadth-first search trees of definition 3, not only the shortest.
// Each distinct sequence of steps is variablized (definition 2):
//
//	p1(E1, E2) & p2(E3, E2) -> t(E1, E3)
//
// where an inverse step is the original predicate with its arguments
// swapped (p2(E3, E2) above). A path's support is the number of distinct
// target atoms it connects; paths connecting fewer than MinSupport (10) are
// dropped and the best-supported paths are kept up to MaxClauses (50)
// clauses per target predicate, each path giving the clause and its
// negation (head negated). Each target predicate also gets the negative
// prior !t(A, B). A path equal
// to the head itself (t(E1, E2) -> t(E1, E2)) is never generated, nor a
// path from a constant to itself (object identity: a true atom t(a, a)
// is not searched).
//
// # Rules with constants
//
// With GenOptions.Constants, a true atom t(a, b) also instantiates rules
// with one constant in the head and one in the body, as package kgc
// learns them: an observed atom linking a to some d gives p(E1, 'd') ->
// t(E1, 'b'), one linking b to d gives p(E1, 'd') -> t('a', E1) (either
// direction of p, d neither a nor b). Their support is counted the same
// way (the true atoms of the head whose variable the body links to d),
// and the best supported are kept, with their negations, up to Constants
// clauses per target, besides MaxClauses. Such a rule says "members of
// this group visit this place": what a path between variables cannot.
//
// # Counting: exact and sampled
//
// The counting is package pathrule's, the one knowledge-graph completion
// (package kgc) learns its rules with. Where every true atom of a target
// is searched, a path's support is the number of atoms it was found for,
// which is pathrule's exact count. A target with more true atoms than
// GenOptions.Sample (1,000) is searched from a seeded sample of that many,
// and the paths found, most often found first, are counted over all its
// true atoms by pathrule (from at most Sample sampled values of E1 when
// the body has more starts, with the support's 95% interval), until the
// next path's 95% upper bound from the sample cannot reach the kept ones.
// Every kept clause also gets pathrule's count of its body groundings
// under object identity (distinct (E1, Es+1) pairs) and its confidence,
// support / (body + PC), estimated from sampled values of E1 with a
// stated error when the body has more than Sample starts. The search,
// the draws and the counts do not depend on the number of threads.
//
// Predicates of arity 3 or more, which the paper leaves to future work, are
// walked through any ordered pair of their argument positions: a step from
// position i to position j of p(X1, ..., Xk) connects Xi to Xj, and the
// other positions become fresh variables Z1, Z2, ... of the clause. Such a
// literal reads "for some values of the other arguments": PSL grounds the
// clause once per combination of them, so a pair of constants connected
// through several atoms of p counts that many times in the clause's
// potentials.
//
// The graph is package pathrule's, the one knowledge-graph completion
// (package kgc) learns its rules on: every pair of argument positions of a
// predicate is a relation of it, walked forwards or backwards; a
// symmetric binary relation holds each pair both ways and is walked
// forwards only. The heads pathrule counts against are a second graph,
// of the targets' true atoms.
//
// The search is parallel across target atoms; per atom it holds only the
// current path and the set of distinct step sequences found (at most
// (number of step kinds)^MaxLength, in practice a few hundred), never the
// paths themselves. MaxExpansions caps the path extensions tried from one
// atom; atoms that hit it are counted (GenResult.Capped) so the cap is never
// silent. The search order is the order of the sorted adjacency lists, so
// the result is deterministic and does not depend on the number of threads.
//
// # Greedy local search (GLS)
//
// Algorithm 1 of the paper: start from the priors, and in each round score
// every remaining candidate by the pseudo-likelihood of the current model
// plus that candidate after learning all the model's weights by MPLE
// (package learn, exact one-dimensional integrals), warm-started from the
// current weights with the new clause at weight 1. The best candidate is
// added while it improves the score by at least Tolerance, for at most
// MaxRounds rounds. The score is the mean log pseudo-likelihood per target
// atom. All candidates are grounded once; a model is scored on the
// potentials of its clauses, taken from that one ground problem.
// Candidates of a round are scored in parallel.
//
// # Piecewise pseudo-likelihood (PPLL)
//
// Algorithm 2 and theorem 1 of the paper: the piecewise pseudo-likelihood
// factorises over clauses, so maximising it over the weights of all
// candidates at once (projected gradient, w >= 0, package learn's PPLL)
// also chooses the structure: the clauses whose weight stays above zero are
// the learned model. One weight learning replaces GLS's rounds of them.
// Result.Score also gives the selected model's ordinary (coupled)
// pseudo-likelihood so the two methods can be compared on one scale.
package structure
