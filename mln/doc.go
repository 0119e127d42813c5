// Package mln reads Markov logic networks in the formats of Alchemy and
// Tuffy and turns them into weighted ground clauses through hinge's own
// model, store and grounder, so that MAP inference is the MAX-SAT pipeline
// of package maxsat (LP relaxation, derandomised rounding with a certified
// bound, MaxWalkSAT).
//
// # Files
//
// A program (.mln) holds, one statement per line:
//
//	// comment            /* block comment */       #include "other.mln"
//	person = {Anna, Bob, Carl}                      type with its constants
//	num = {1, ..., 10}                              integer range
//	*Friends(person, person)                        closed-world predicate (Tuffy's *)
//	HasPosition(person, pos!)                       pos! : exactly one pos per person
//	1.5  Smokes(x) => Cancer(x)                     weighted formula
//	-0.5 Friends(x, y) ^ !Smokes(y)                 negative weight
//	Friends(x, y) <=> Friends(y, x).                hard formula (ends in '.')
//	0.8  Smokes(+x)                                 one formula (and weight) per constant of x
//	@2   Smokes(x) => Cancer(x)                     a fixed weight (Tuffy): learning keeps it
//	1    EXIST y Friends(x, y)                      quantifiers: EXIST, FORALL
//
// The grammar of a formula, loosest first (=> is left associative, as in
// Alchemy's grammar: A => B => C is (A => B) => C; => binds tighter than
// <=>, so P => Q <=> R is (P => Q) <=> R; <=> chains either way alike; a
// quantifier extends as far right as possible):
//
//	formula  = quant | equiv
//	quant    = ("EXIST" | "FORALL") var {"," var} formula
//	equiv    = implies ["<=>" formula]
//	implies  = or {"=>" (or | quant)}
//	or       = and {"v" and}
//	and      = unary {"^" unary}
//	unary    = "!" unary | "(" formula ")" | quant | atom | term "=" term | term "!=" term
//	atom     = Ident "(" term {"," term} ")"
//	term     = var | constant | "+" var
//
// A variable starts with a lower-case letter; a constant starts with an
// upper-case letter or a digit, or is a double-quoted string. A statement
// without a weight that is a single atom of an undeclared predicate whose
// arguments are all type names (identifiers that do not start with an
// upper-case letter) declares that predicate; a ground atom of an
// undeclared predicate, as in an evidence file given as the program, is an
// error that says so. A formula without a weight and without the final '.'
// has weight 0 (its weight is to be learned). A formula may nest at most
// MaxNesting levels deep (connectives, negations, quantifiers and
// parentheses): the parser refuses deeper ones, and Build refuses deeper
// formulas built in Go, before any recursive walk reaches them.
//
// Evidence (.db): one ground atom per line, `Pred(A, B)` (true),
// `!Pred(A, B)` (false), or `0.8 Pred(A, B)` (soft evidence, as Tuffy
// means it: a truth value p strictly between 0 and 1 makes the atom
// unknown, even in a closed predicate, with a prior unit clause of weight
// log(p/(1-p)); 0 and 1 are false and true). Lazy inference refuses soft
// evidence (Network.CheckLazy), and so does weight learning. A query file lists atoms the same way; a variable in an
// argument stands for every constant of the argument's type.
//
// The ExpressGNN folders (../shared/data/uw-cse/AREA, kinship-mln/SN) are
// read by ReadFolder: `predicates` (declarations), `rules` (weighted
// clauses), `facts` (evidence) and `queries` (query atoms with their truth:
// `advisedBy(A, B)` true, `!advisedBy(A, B)` false).
//
// # Semantics
//
// Formulas become clauses by conversion to conjunctive normal form after
// existential quantifiers are expanded over their variable's domain (the
// disjunction of the body over every constant) and +x over its constants.
// A soft formula's weight goes to its clauses by Alchemy's rule
// (FormulaClauses): the unit clauses are gathered into one clause of their
// negations with the negated weight (w P ^ Q ^ R is -w !P v !Q v !R, exactly
// the formula's factor), and the weight is divided equally among the
// clauses so made, tautologies counted before they are dropped. Where a
// formula has several clauses of two or more literals, their weights only
// approximate the formula's factor, as in Alchemy. A hard formula's
// clauses are each hard.
// A clause of negative weight w is kept as written and costs |w| for every
// grounding it satisfies, as in Alchemy: its rule grounds with weight |w|
// (rules have nonnegative weights) and GroundClauses restores the sign.
// MC-SAT and Gibbs take signed weights; MAP solves an equivalent instance
// in which each negative ground clause becomes an auxiliary atom z with the
// unit clause z of weight |w| and hard clauses !z v !l_i (positiveForm), so
// the LP relaxation's bound is certified for this model too.
//
// A type's domain is its declared constants and every constant that occurs
// at an argument of that type in the evidence, the queries and the formulas.
//
// Closed world: if any predicate is declared with '*' (Tuffy's convention),
// the '*' predicates are closed (an atom not in the evidence is false) and
// all others open; otherwise (Alchemy's convention) the query predicates and
// the predicates named open are open, and all others closed. Every atom of an
// open predicate that the evidence does not fix is an unknown (a variable
// of the ground problem); the query predicates' unknowns are the answer.
//
// Grounding runs on hinge's grounder: each clause is a rule whose negative
// literals are the join that enumerates its groundings; a variable that
// occurs only in positive literals is bound by a closed domain predicate of
// its type, so the grounder enumerates that type's constants only there. A
// ground clause that the evidence satisfies is dropped, and one whose
// literals are all fixed by the evidence is a constant, counted in the
// report but not in the ground problem.
//
// # Cost
//
// The cost of a world is the weight of the soft ground clauses it violates
// (for a negative weight w: |w| for each one it satisfies), every ground
// clause counted as grounded; ground clauses the evidence
// decides are not counted, nor are clauses of weight 0. Alchemy 2 counts
// another network with the same most probable worlds: it merges identical
// ground clauses (summing their weights) after rewriting every soft unit
// clause !a of weight w as a of weight -w, so a unit clause a of weight P and
// a unit clause !a of weight N become one clause of weight P-N and the
// constant min(P, N), which one of the two always costs, disappears from its
// cost. Alchemy (AlchemyView, MAPResult.Alchemy, and the alchemy_* fields of
// hinge mln infer's report) gives the merged clause count and that constant:
// on UW-CSE's ai fold hinge grounds 352,605 clauses that merge into exactly
// Alchemy's 161,875, and its MAP world costs 4,657 as hinge counts and 215
// as Alchemy counts (Alchemy's own MaxWalkSAT world: 306).
//
// # Inference
//
// MAP (Network.MAP) is weighted MAX-SAT over the ground clauses (package
// maxsat: LP relaxation and rounding with a certified bound, MaxWalkSAT).
// Marginals (Network.Marginals, InferMarginals) are exact wherever that is
// affordable (ExactMarginals): after identical ground clauses are merged
// and unit propagation over the hard clauses fixes what they force, the
// network splits into connected components, and each is solved by a
// junction tree on a min-fill elimination order (jtree.go) when its
// cliques are small, by enumerating its worlds in Gray-code order
// (enumerate.go) when they are few (22 to 24 atoms), or by lifted counting over classes of atoms that
// color refinement proposes and a check of every transposition proves
// fully exchangeable (count.go), as for a complete graph of soft
// equivalences at any size, or by weighted model counting (wmc.go: DPLL
// with component caching, its search kept as a decision-DNNF circuit so
// that one top-down pass gives every atom's marginal), within a budget of
// work, since its cost is not known before it runs as a junction tree's
// is (the tables of its cliques); the rest is sampled. Model counting
// goes last, and reaches what the treewidth hides: hard clauses that
// propagate, long clauses that one true literal removes (a needle of 200
// atoms in one clause: 399 decision nodes). On UW-CSE's ai fold and
// Tuffy's cse sample every atom is in one component whose graph has a
// degeneracy of 67 (so no junction tree has cliques under 68 atoms), its
// atoms fall into far too many classes to count, and model counting runs
// past its budget: nothing there is exact, and everything is sampled
// (bench/mln, exact-share).
//
// Sampling is MC-SAT (Poon and Domingos 2006), each step followed by a
// Gibbs sweep, or Gibbs sampling alone, which samples atoms tied by hard
// or heavy clauses jointly in small blocks and refuses hard clauses that
// tie more atoms than that. MC-SAT's SampleSAT is a kernel that leaves
// the uniform distribution over the selected clauses' solutions unchanged,
// and its moves flip whole clusters of atoms that the selected
// implications tie, so that chains cross between the modes of
// equivalences, functional constraints and groups of friends. Both
// samplers report Rao-Blackwellised estimates, run several chains from
// worlds spread apart and say whether they agree (Diagnostics: split R-hat
// and the largest difference between chains; Mixed needs both small).
// Agreement cannot reveal a mode that no chain visited.
//
// LazyMAP finds a MAP world without the full grounding, as LazySAT does
// (Singla and Domingos 2006): unknown atoms start false, a ground clause is
// built once it can be violated (found by the grounder's delta joins,
// ground.ClauseJoin, as MaxWalkSAT makes atoms true), and memory grows with
// the clauses built. It has no certified bound. LazyMarginals is lazy
// MC-SAT (Poon, Domingos and Sumner 2008) over the same lazy grounding: a
// clause built during a step takes its selection coin then. On a network
// of at most 100,000 unknown atoms every atom is active from the start, so
// that the chains target what MCSAT targets (but without its cluster
// moves, so they mix worse where hard clauses tie atoms); on a larger one SampleSAT
// moves only the active atoms, and the atoms no built clause reaches stay
// false, so the marginals are those of the network conditioned on them
// being false (LazyMarginalResult.Complete and NeverActivated say which).
// A network built with Options.Lazy holds no unknown atoms; Materialize
// adds them, and GroundingEstimate says what the full grounding would
// take.
//
// # Learning
//
// LearnPLL learns the soft formulas' weights from a training world as
// Alchemy's learnwts -g does: it maximises the pseudo-log-likelihood of
// the query predicates' atoms (of every predicate's when none is given),
// each predicate's atoms weighted by one over its number of groundings,
// with a Gaussian prior centred on the program's weights (standard
// deviation 100), by L-BFGS, preconditioned by each weight's curvature at
// the start. The domains are the program's constants and those of the
// whole training world, whichever predicates are queried. The ground
// clauses stream from the grounder into one coefficient per atom and
// weight, so memory grows with the atoms, not with the ground clauses. A
// formula's weight is shared by its clauses; a +x formula learns one weight
// per constant, and WithWeights writes it back as Alchemy writes it, one
// formula per constant. The result says whether L-BFGS converged. On the
// smokers program the weights agree with Alchemy 2's learnwts -g to 3e-3.
// LearnDiscriminative maximises the conditional log-likelihood of the
// query atoms by diagonal Newton (Lowd and Domingos 2007) with expected
// counts from MC-SAT chains, as learnwts -d.
package mln
