// Package learn learns the weights of a PSL model's rules from truth data:
// maximum likelihood by the voted perceptron (MLE), maximum pseudo-likelihood
// (MPLE) and piecewise pseudo-likelihood (PPLL, as in Embar, Sridhar, Farnadi
// and Getoor, "Scalable Structure Learning for Probabilistic Soft Logic",
// 2018). The data is grounded once (a ground.Result); learning only swaps the
// weights of the ground problem's potentials, which carry Group = rule index.
//
// # Truth
//
// Every variable of the ground problem (a target atom) takes its value from
// the store's truth table; a target without a truth value is taken as 0, as
// PSL's closed truth database does, and counted (TruthStats.Missing, and a
// warning). Data without any truth value is an error. An all-zero truth is
// allowed and warned about.
//
// Weighted rules with ground potentials are learned; a weighted rule without
// potentials keeps its weight (Result.NoGroundings, and a warning) and hard
// rules are not weights. Weights stay >= 0.
//
// # MLE: voted perceptron
//
// The gradient of the log-likelihood with respect to w_r is
// E_w[Phi_r] - Phi_r(truth), where Phi_r(y) is the summed incompatibility of
// rule r's ground potentials. The perceptron replaces the expectation by the
// MAP state under the current weights (consensus ADMM; one admm.Solver is
// reused, so each MAP solve warm-starts from the previous one). A step is
//
//	w_r <- max(0, w_r + StepSize * ((Phi_r(MAP) - Phi_r(truth)) / n_r - L2 * w_r))
//
// with n_r the number of ground potentials of rule r (PSL's gradient
// scaling, which makes the step size independent of how many groundings a
// rule has). Learn returns the average of the iterates (the "voted" part).
// It stops after Iterations steps, or earlier when no weight moves by more
// than Tol * max(1, largest weight). Note that the MAP state is invariant to
// scaling all weights, so the perceptron fixes relative weights; its scale
// comes from the initial weights, the step size and L2.
//
// # MPLE: exact pseudo-likelihood
//
// The pseudo-likelihood (Embar et al., eq. (5)) is a product of one-dimensional
// conditionals, each variable given all others at their true values:
//
//	log PL = sum_i [ -f_i(y_i*) - log Z_i ],  Z_i = integral exp(-f_i(y)) dy,
//
// f_i the weighted potentials that contain y_i. Along one variable every
// potential is a hinge w*max(a*y + b, 0)^p, so f_i is piecewise linear or
// quadratic with breakpoints -b/a. The integral is split at the breakpoints
// (and at the vertex of each quadratic piece) and each piece integrated in
// closed form in log space: exponentials (expm1) for linear pieces, scaled
// Gaussian tail moments for quadratic ones (erfcx, with the first and second
// moments from a continued fraction so nothing cancels), combined by
// log-sum-exp; a piece over which f varies by less than 2 is integrated by
// 16-point Gauss-Legendre quadrature, exact there to rounding, because every
// closed form subtracts nearly equal numbers in that regime. The gradient
// needs E_i[phi_j] for each potential, computed from the same per-piece
// moments through suffix and prefix sums whose terms are all nonnegative.
// Tests check Z and E[phi] against adaptive quadrature to 1e-9 relative with
// weights up to 1e6.
//
// The objective minimised is the mean over conditionals of the negative log
// conditional density of the truth, plus L2/2 * ||w||^2 (so L2 does not
// scale with the data size). It is convex in w. It is minimised by projected
// gradient with spectral (Barzilai-Borwein) steps and a nonmonotone line
// search, projecting onto w >= 0: projection, not a log or softplus
// reparametrisation, because it reaches exact zeros (structure learning reads
// a zero weight as "rule not selected") and keeps the problem convex. It stops
// when the projected gradient's largest entry is at most Tol, or after
// Iterations iterations.
//
// One evaluation of the objective and its gradient costs time linear in the
// number of (conditional, potential) incidences plus breakpoints (after
// sorting each conditional's breakpoints once, at construction); conditionals
// are evaluated in parallel in fixed chunks whose partial sums are added in
// chunk order, so results are identical for every thread count.
//
// # Hard constraints in MPLE
//
// A conditional that ignores the hard constraints puts mass on states the
// model forbids, and for the Cora/Citeseer model (HasCat(A, +C) = 1 .) the
// single-variable conditional of a target in an equality constraint is a
// point: "skip constrained variables" would leave nothing to learn from.
// With ConstraintsPairwise (the default):
//
//   - an inequality constraint restricts a conditional to the interval it
//     allows with the other variables at their true values (integrate over
//     [lo, hi] instead of [0,1]);
//   - a variable in an equality constraint has no single-variable
//     conditional; instead, for each equality constraint with k >= 2
//     variables, each pair (i, j) of its variables (all pairs for k <= 32, a
//     seeded random cycle otherwise) contributes the conditional along the
//     move e_i - (c_i/c_j) e_j, which keeps c_i y_i + c_j y_j and so the
//     constraint fixed: still a one-dimensional piecewise-quadratic density,
//     integrated exactly, restricted by the box and the other constraints;
//   - a move that another equality constraint forbids, or whose interval is a
//     point (for one-hot truth: two categories both at 0), is dropped
//     (LineStats.Fixed); an equality over one variable fixes it.
//
// The product of these conditionals is a composite likelihood (each factor a
// true conditional density of the constrained model), so its maximiser is a
// consistent estimator just like the pseudo-likelihood's. With one-hot truth
// the informative pairs are (true category, other category): the conditional
// compares moving mass from the true category to each other one, which is
// exactly what the classification decision depends on.
//
// ConstraintsIgnore gives PSL's treatment: every variable's conditional over
// [0,1], constraints dropped.
//
// # PPLL
//
// The piecewise pseudo-likelihood (Embar et al., eq. (7)-(8)) uses the same
// conditionals with f restricted to one rule's potentials at a time, so the
// objective is a sum of one-dimensional convex problems, one per rule.
package learn
