// Package hinge is the root of the hinge module, a statistical relational
// learning engine: weighted first-order rules (Probabilistic Soft Logic) are
// grounded over relational data into a hinge-loss Markov random field whose
// MAP state is found by consensus ADMM, optionally lifted by color
// refinement, or rounded to 0/1 with a certified guarantee.
//
// The packages, in the order data flows through them:
//
//   - syntax: the PSL rule language (lexer, parser, printer)
//   - srcpos: the source position and error type every reader reports
//   - model: predicates, rules, validation
//   - store: atoms, interned constants, join indexes, the TSV loader
//   - config: PSL .data files and JSON configs
//   - ground: rules x store -> ground potentials and constraints
//   - hlmrf: the ground problem as flat arrays; the exchange format
//   - admm: consensus ADMM with a certified lower bound
//   - lift: color refinement and the lifted problem
//   - maxsat: weighted MAX-SAT, LP relaxation, derandomised rounding
//   - mln: Markov logic (Alchemy and Tuffy files) on the same grounder and maxsat
//   - rrf: recursive random fields
//   - learn: weight learning (voted perceptron, pseudo-likelihood)
//   - eval: PSL's evaluators
//   - pipeline: load, ground, write outputs, evaluate
//
// The command is cmd/hinge; README.md is the user's guide. This package
// holds no code: its test runs the README's quick commands.
package hinge
