// Package explain says why an answer is what it is, for the three kinds of
// answer hinge gives.
//
// For a PSL model (a hinge-loss MRF solved by consensus ADMM, PSL), an
// atom's explanation lists the ground rules that contain it, each as the
// user wrote the rule with its substitution, its weight, the atom's role,
// its distance to satisfaction at the answer, and its pull on the atom:
// ADMM's dual for that rule's copy of the atom, minus a subgradient of its
// hinge. The pulls and the multiplier of the atom's bound 0 <= y <= 1 sum
// to zero, so inside (0, 1) the pulls balance, and an atom at 0 or 1 is held
// there by its bound.
//
// For a Markov logic MAP world (MLN), an atom's explanation lists the
// ground clauses that contain it, whether each holds with the atom as it
// is and flipped, and what flipping the atom alone would cost, clause by
// clause; Resolve solves the network again with the atom held at its other
// value.
//
// For knowledge-graph completion (KGC), a candidate answer's explanation
// lists the rules that predicted it, their confidences and the body
// groundings that fired, and recombines its score from them under the
// ranker's scoring.
//
// The grounder does not record which substitution made a ground rule: a
// Recoverer enumerates each logical rule's groundings again through the
// grounder's own joins (ground.ClauseJoin) and matches each to the ground
// problem's potential or constraint it makes. WriteSatisfaction writes
// every ground rule of a run with its value at the answer; Report.WriteHTML
// writes a run's answers and their explanations as one self-contained,
// searchable HTML page.
package explain
