package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/store"
)

// exactMAPSummary is what --report says of an exact MAP run.
type exactMAPSummary struct {
	// Status is "optimal", "time limit" or "rounded" (maxsat.ExactResult);
	// Gap is (cost - lower bound) / cost.
	Status   string  `json:"status"`
	Gap      float64 `json:"gap"`
	Cores    int     `json:"cores"`
	SATCalls int     `json:"sat_calls"`
	Hardened int     `json:"hardened"`
	// Neighbourhoods and Improvements are the large neighbourhood
	// search's: neighbourhoods solved, and those that gave a better world.
	Neighbourhoods int     `json:"neighbourhoods"`
	Improvements   int     `json:"improvements"`
	WeightScale    float64 `json:"weight_scale"`
	WeightError    float64 `json:"weight_error"`
	Seconds        float64 `json:"seconds"`
}

// exactMAPSummaryOf summarises x (nil: nil) for a world of that cost and
// bound.
func exactMAPSummaryOf(x *maxsat.ExactResult, cost, bound float64) *exactMAPSummary {
	if x == nil {
		return nil
	}
	return &exactMAPSummary{Status: x.Status, Gap: gapOf(cost, bound), Cores: x.Cores, SATCalls: x.SATCalls, Hardened: x.Hardened,
		Neighbourhoods: x.Neighbourhoods, Improvements: x.Improvements, WeightScale: x.Scale, WeightError: x.WeightError, Seconds: x.Seconds}
}

// printExactStatus says how an exact run ended: proven optimal, or at the
// time limit with the gap between the world's cost and the bound.
func printExactStatus(w io.Writer, x *maxsat.ExactResult, cost, bound float64, rounded bool) {
	if x.Optimal {
		fmt.Fprintf(w, "exact: proven optimal%s after %d cores and %d SAT calls%s\n", roundedWord(rounded), x.Cores, x.SATCalls, neighbourhoodsText(x))
		return
	}
	fmt.Fprintf(w, "exact: %s after %d cores and %d SAT calls%s: %s (cost %.6g, bound %.6g)\n",
		exactEnd(x), x.Cores, x.SATCalls, neighbourhoodsText(x), aboveOptimum(cost, bound), cost, bound)
}

// exactEnd says why an exact run that did not prove its world optimal
// ended.
func exactEnd(x *maxsat.ExactResult) string {
	if x.Status == "rounded" {
		return fmt.Sprintf("%s (within 2 x %.3g of the optimum)", roundedEnd, x.WeightError)
	}
	return "stopped at the time limit"
}

// roundedEnd says how an exact search on rounded weights ended (status
// "rounded").
const roundedEnd = "optimal only for the weights rounded to integers"

// aboveOptimum says how far a world of that cost can be from the optimum,
// given a lower bound on it: at most (cost - bound) / bound more (the gap
// of the reports, (cost - bound) / cost, is the share of the cost not
// proven necessary, which understates it).
func aboveOptimum(cost, bound float64) string {
	if bound <= 0 {
		return "the bound is 0, so nothing is proven about how far the world's cost is from the optimum"
	}
	return fmt.Sprintf("the world costs at most %.4g%% more than the optimum", 100*max(0, cost-bound)/bound)
}

// neighbourhoodsText says what the large neighbourhood search did, when
// it ran.
func neighbourhoodsText(x *maxsat.ExactResult) string {
	if x.Neighbourhoods == 0 {
		return ""
	}
	return fmt.Sprintf(" (and %s of the neighbourhood search, %d of which gave a better world)", plural(x.Neighbourhoods, "neighbourhood", "neighbourhoods"), x.Improvements)
}

// gapOf is (cost - bound) / cost, 0 for a cost of 0.
func gapOf(cost, bound float64) float64 {
	if cost <= 0 {
		return 0
	}
	return max(0, (cost-bound)/cost)
}

// lazyMAPBy grounds lazily and finds the MAP world by the method asked:
// cutting planes over the LP relaxation (lp-round, the default), then
// exact rounds for --method exact, or MaxWalkSAT.
func (o *mlnInferOptions) lazyMAPBy(ctx context.Context, net *mln.Network, queries []mln.GroundAtom, load float64, start time.Time, stdout, stderr io.Writer) error {
	if o.method == mln.MethodWalkSAT {
		return o.lazyMAP(ctx, net, queries, load, start, stdout, stderr)
	}
	if o.method == mln.MethodLPWalkSAT {
		// Lazy grounding chosen for want of memory (--lazy with lp-walksat
		// is refused): its relaxation is the cutting planes', and there is
		// no world to walk from before they end.
		fmt.Fprintf(stderr, "hinge mln infer: note: --method lp-walksat needs the full grounding; lazily, MAP is by cutting planes over the relaxation (--method lp-round) from a lazy MaxWalkSAT world\n")
		o.method = mln.MethodLPRound
	}
	return o.lazyCuttingPlanes(ctx, net, queries, load, start, stdout, stderr)
}

// lazyTrueLines formats the true query atoms of a lazy MAP world (atoms
// and their 0/1 values; args gives an atom's arguments), sorted, as
// 'Pred(A, B) 1' lines ('Pred(A, B)' with --true-only), and the accuracy
// of the world on the query atoms with a known truth (nil when there are
// none): every atom not among atoms is false.
func (o *mlnInferOptions) lazyTrueLines(net *mln.Network, atoms []ground.AtomRef, values []float64, args func(*store.Store, int) []string, queries []mln.GroundAtom) ([]string, *float64) {
	format := "%s 1"
	if o.trueOnly {
		format = "%s"
	}
	var lines []string
	truth := map[string]bool{}
	for i, a := range atoms {
		if values[i] == 1 && net.Reported(a.Pred, args(net.Store, i)) {
			s := mln.AtomString(a.Pred.Name, args(net.Store, i))
			truth[s] = true
			lines = append(lines, fmt.Sprintf(format, s))
		}
	}
	sort.Strings(lines)
	if len(queries) == 0 {
		return lines, nil
	}
	right := 0
	for _, q := range queries {
		args := make([]string, len(q.Args))
		for i, t := range q.Args {
			args[i] = t.Name
		}
		if truth[mln.AtomString(q.Pred, args)] == (q.Value >= 0.5) {
			right++
		}
	}
	acc := float64(right) / float64(len(queries))
	return lines, &acc
}

// lazyExactReport is the --report JSON of hinge mln infer --lazy with
// --method lp-round (the default) or exact: cutting planes.
type lazyExactReport struct {
	Formulas       int     `json:"formulas"`
	Clauses        int     `json:"clauses"`
	Lazy           bool    `json:"lazy"`
	Method         string  `json:"method"`
	GroundClauses  int     `json:"ground_clauses"`
	InitialClauses int     `json:"initial_ground_clauses"`
	HardClauses    int     `json:"ground_hard_clauses"`
	Unknowns       int     `json:"unknown_atoms"`
	AllUnknowns    float64 `json:"all_unknown_atoms"`
	CrossProduct   float64 `json:"cross_product"`
	// Cost is the world's cost in the whole network, LowerBound a
	// certified lower bound on every world's.
	Cost       float64 `json:"cost"`
	LowerBound float64 `json:"cost_lower_bound"`
	Optimal    bool    `json:"optimal"`
	Status     string  `json:"status"`
	// HardViolated counts the hard clauses the world breaks: 0.
	HardViolated int `json:"hard_violated"`
	// StartFlips and StartCost describe the lazy MaxWalkSAT world the
	// cutting planes start from.
	StartFlips int     `json:"start_flips"`
	StartCost  float64 `json:"start_cost"`
	// Rounds are the rounds, RelaxedRounds of them over the LP
	// relaxation; Stalled says those stopped as they stalled.
	Rounds        int      `json:"rounds"`
	RelaxedRounds int      `json:"relaxed_rounds"`
	Stalled       bool     `json:"stalled"`
	Cores         int      `json:"cores"`
	SATCalls      int      `json:"sat_calls"`
	TrueQuery     int      `json:"true_query_atoms"`
	Accuracy      *float64 `json:"accuracy,omitempty"`
	Queries       int      `json:"queries,omitempty"`
	Seconds       struct {
		Load   float64 `json:"load"`
		Ground float64 `json:"ground"`
		Solve  float64 `json:"solve"`
		Total  float64 `json:"total"`
	} `json:"seconds"`
}

// lazyCuttingPlanes finds a MAP world by cutting planes over lazily built
// ground clauses (mln.Network.LazyRelaxedMAP, and LazyExactMAP for
// --method exact) and writes the true query atoms.
func (o *mlnInferOptions) lazyCuttingPlanes(ctx context.Context, net *mln.Network, queries []mln.GroundAtom, load float64, start time.Time, stdout, stderr io.Writer) error {
	bar := o.bar
	relax := maxsat.DefaultOptions()
	relax.ADMM, relax.Noise, relax.Seed = o.admm, o.noise, o.seed // the walk that repairs a rounded world breaking hard clauses
	opt := mln.LazyExactOptions{TimeLimit: o.timeLimit, MemoryLimit: memlimit.Current(), Seed: o.seed, Relaxation: &relax,
		Progress: func(round, clauses int, cost, bound float64) {
			bar.Status("cutting planes: round %d, %d ground clauses, cost %.6g, lower bound %.6g", round, clauses, cost, bound)
		}}
	solve, method := net.LazyRelaxedMAP, mln.MethodLPRound
	if o.method == mln.MethodExact {
		solve, method = net.LazyExactMAP, mln.MethodExact
	}
	// A start world by lazy MaxWalkSAT (100,000 flips unless --flips says
	// otherwise): the answer is never costlier. Where the relaxation is far
	// from integral its rounded worlds can all cost more than the all-false
	// world (an outside tester's Horn knowledge base of 300 entities:
	// 6,618.5 after 27 rounds, where lazy MaxWalkSAT reached 6,101.9).
	flips := 100_000
	if o.changed("flips") {
		flips = o.flips
	}
	bar.Status("lazy MaxWalkSAT for a start world: %d flips", flips)
	walk, err := net.LazyMAP(ctx, mln.LazyOptions{Flips: flips, Seed: o.seed, Noise: o.noise, MemoryLimit: memlimit.Current()})
	if err != nil {
		bar.Done()
		return mlnFailed(err)
	}
	for i, v := range walk.Values {
		if v == 1 {
			opt.Start = append(opt.Start, walk.Atoms[i])
		}
	}
	res, err := solve(ctx, opt)
	bar.Done()
	if err != nil {
		return mlnFailed(err)
	}
	rep := lazyExactReport{Formulas: net.Formulas, Clauses: len(net.Clauses), Lazy: true, Method: method,
		GroundClauses: res.ActiveClauses, InitialClauses: res.InitialClauses, HardClauses: res.HardClauses, Unknowns: res.ActiveAtoms,
		AllUnknowns: net.UnknownAtoms(), CrossProduct: res.CrossProduct, Cost: res.Cost, LowerBound: res.LowerBound,
		Optimal: res.Optimal, Status: res.Status, HardViolated: res.HardViolated, StartFlips: flips, StartCost: walk.Cost,
		Rounds: res.Rounds, RelaxedRounds: res.RelaxedRounds, Stalled: res.Stalled, Cores: res.Cores, SATCalls: res.SATCalls}
	rep.Seconds.Load, rep.Seconds.Ground, rep.Seconds.Solve = load, res.Seconds.Ground, res.Seconds.Solve
	lines, acc := o.lazyTrueLines(net, res.Atoms, res.Values, res.Args, queries)
	rep.TrueQuery = len(lines)
	if acc != nil {
		rep.Accuracy, rep.Queries = acc, len(queries)
	}
	if err := writeResult(o.result, stdout, lines); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mln: %s; lazy grounding: %d ground clauses built (%d hard) over %d unknown atoms, %d of them in %.3f s before the first round (the clauses' variables range over %.3g substitutions)\n",
		formulaCounts(net), rep.GroundClauses, rep.HardClauses, rep.Unknowns, rep.InitialClauses, rep.Seconds.Ground, rep.CrossProduct)
	word := ", proven optimal for the whole network" + roundedWord(o.rounded)
	switch {
	case res.Status == "rounded":
		word = "; " + roundedEnd + ": " + aboveOptimum(res.Cost, res.LowerBound)
	case res.Status == "relaxed":
		word = " for the whole network: " + aboveOptimum(res.Cost, res.LowerBound) + " (--method exact searches for a proof of the optimum; give it a --time-limit)"
	case !res.Optimal:
		word = "; stopped at the time limit: " + aboveOptimum(res.Cost, res.LowerBound)
	}
	how := fmt.Sprintf("%s, lazy: cutting planes from lazy MaxWalkSAT's world of cost %.6g (%d flips), %s of the LP relaxation", method, walk.Cost, flips, plural(res.RelaxedRounds, "round", "rounds"))
	if res.Stalled {
		how += " (stalled: the bound rose by less than 0.1% in three rounds that found no better world)"
	}
	if method == mln.MethodExact && res.Rounds > res.RelaxedRounds {
		how += fmt.Sprintf(" then %s", plural(res.Rounds-res.RelaxedRounds, "exact round", "exact rounds"))
	}
	fmt.Fprintf(stderr, "MAP (%s): cost %.6g, certified lower bound %.6g%s; ", how, res.Cost, res.LowerBound, word)
	if method == mln.MethodExact {
		fmt.Fprintf(stderr, "%d cores, %d SAT calls; ", res.Cores, res.SATCalls)
	}
	fmt.Fprintf(stderr, "%.3f s; %d query atoms true, every other one false\n", res.Seconds.Solve, rep.TrueQuery)
	if rep.Accuracy != nil {
		fmt.Fprintf(stderr, "accuracy on %d query atoms with truth: %.4f\n", rep.Queries, *rep.Accuracy)
	}
	rep.Seconds.Total = time.Since(start).Seconds()
	if o.report != "" {
		if err := writeJSON(o.report, rep); err != nil {
			return failed(err)
		}
	}
	return nil
}
