// Package pathrule is the engine under hinge's two rule learners, package
// kgc (knowledge-graph completion) and package structure (PSL structure
// learning): a relational graph over integer entities, path steps over its
// relations, walks along paths whose entities are all different (object
// identity), and the counting of a path rule r(X, Y) <= b1(X, A1), ...,
// bn(An-1, Y): its body groundings (distinct (X, Y) pairs the path
// connects) and its support (those for which r(X, Y) holds), exactly or
// estimated from sampled values of X with a stated error.
//
// # The graph
//
// A Graph holds triples (head, relation, tail) as every entity's edges in
// both directions, sorted by (relation, direction, neighbour), in flat
// arrays (CSR): a step from an entity along one relation and direction is
// a binary search and a slice. Memory is about 16 bytes per triple plus 12
// for the triple list.
//
// # Walks
//
// Walker.Walk returns the distinct entities y reached from x along a path
// of 1 to 3 steps whose entities x, a1, ..., y are pairwise different. It
// works on sets of entities, not on paths: a hub that 10^4 paths cross
// costs its degree once. For three steps a middle entity keeps how many
// distinct predecessors it has (saturating at 2) and the first: y is
// reached through a2 when a2 has two predecessors or its one predecessor
// is not y.
//
// # Counting
//
// Walker.CountPath counts a path rule's body groundings and support. With
// CountOptions.Sample set and more possible starts than that, it draws
// values of X without replacement and walks each exactly; support and body
// size are estimated as N/m times the sums over the m draws (N the starts),
// the confidence support / (body + PC) as their ratio, and its standard
// error by the delta method with the finite-population correction; Err is
// the half-width of the 95% interval. Draws stop early once that
// half-width is below CountOptions.Err, or once CountOptions.Work edges
// have been looked at (a rule through hubs). SupportErr is the half-width
// of the support's own 95% interval, for a learner that selects rules by
// support (package structure).
//
// Walker.CountConst counts a rule with constants, r(X, c) <= b(X, d)
// (or r(c, X) <= b(X, d)), exactly: one walk back from d.
//
// The head relation is looked up in the walked graph, or in
// CountOptions.Heads: package structure walks the observed atoms and looks
// heads up among the true atoms of its target predicates.
package pathrule
