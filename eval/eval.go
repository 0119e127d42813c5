// Package eval computes PSL's evaluation metrics over (predicted, truth)
// pairs of ground atoms: DiscreteEvaluator (accuracy, F1, precision, recall
// and the confusion counts at a threshold), ContinuousEvaluator (MAE, MSE,
// RMSE), AUCEvaluator (AUROC, AUPRC of the positive and of the negative class)
// and CategoricalEvaluator (categorical accuracy).
//
// Evaluators are pure functions of their input: no I/O, no randomness. They
// are built by PSL name with New, which accepts PSL's option names
// (discreteevaluator.threshold, aucevaluator.threshold,
// categoricalevaluator.categoryindexes, <evaluator>.representative, ...).
//
// Which atoms are evaluated is the caller's business: PSL's eval.includeobs
// and eval.closetruth options select atoms and are accepted and ignored here.
//
// Input values must be finite and within [0,1] (a slack of 1e-9 is allowed
// for solver round-off); an empty input is an error ("no atoms to evaluate"),
// so no metric is ever NaN.
package eval

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/num"
)

// Atom is one ground atom to evaluate: its arguments (only
// CategoricalEvaluator looks at them), the predicted value and the true
// value.
//
// An atom may lack one of the two values, as PSL's TrainingMap files such
// atoms apart: NoTruth marks a prediction without a truth atom (PSL's
// latent variable), NoPred a truth atom without a prediction (a truth atom
// that is not a target, PSL's missing target, or an observed one when
// observed atoms are not scored). CategoricalEvaluator uses them as PSL's
// does: a NoTruth atom can be its entity's predicted category, a NoPred
// truth atom of value 1 is scored as a miss. The other evaluators score
// only atoms with both values, skipping these.
type Atom struct {
	Args    []string
	Pred    float64
	Truth   float64
	NoTruth bool // Truth is not a value: a prediction without truth
	NoPred  bool // Pred is not a value: a truth atom without prediction
}

// paired returns the atoms that have both a prediction and a truth value
// (atoms itself when every one has).
func paired(atoms []Atom) []Atom {
	n := 0
	for _, a := range atoms {
		if !a.NoTruth && !a.NoPred {
			n++
		}
	}
	if n == len(atoms) {
		return atoms
	}
	out := make([]Atom, 0, n)
	for _, a := range atoms {
		if !a.NoTruth && !a.NoPred {
			out = append(out, a)
		}
	}
	return out
}

// Metric is one named figure of a Result.
type Metric struct {
	Name  string
	Value float64
}

// Result is what an evaluator computed: its metrics in a fixed order (the
// order of the evaluator's MetricNames), and which of them is the
// representative one (PSL's <evaluator>.representative option).
type Result struct {
	// Evaluator is the PSL name of the evaluator, e.g. "DiscreteEvaluator".
	Evaluator string
	// Metrics lists every metric, in the evaluator's MetricNames order.
	Metrics []Metric
	// Representative names the metric chosen by the representative option.
	Representative string
	// HigherIsBetter tells whether a larger Representative value is better
	// (false for the error measures MAE, MSE, RMSE).
	HigherIsBetter bool
}

// Get returns the value of the named metric (case-insensitive).
func (r Result) Get(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if strings.EqualFold(m.Name, name) {
			return m.Value, true
		}
	}
	return 0, false
}

// RepresentativeValue returns the value of the representative metric.
func (r Result) RepresentativeValue() float64 {
	v, _ := r.Get(r.Representative)
	return v
}

// String formats the result on one line, metrics in order, e.g.
// "DiscreteEvaluator: ACCURACY=0.75 F1=0.8 ...". Counts print as integers.
func (r Result) String() string {
	var b strings.Builder
	b.WriteString(r.Evaluator)
	b.WriteString(":")
	for _, m := range r.Metrics {
		b.WriteString(" ")
		b.WriteString(m.Name)
		b.WriteString("=")
		b.WriteString(strconv.FormatFloat(m.Value, 'g', 6, 64))
	}
	return b.String()
}

// Evaluator computes metrics over atoms.
type Evaluator interface {
	// Name is the PSL class name, e.g. "CategoricalEvaluator".
	Name() string
	// MetricNames lists the metrics of every Result, in order.
	MetricNames() []string
	// Evaluate computes the metrics. It fails on empty input, on values
	// that are not finite or outside [0,1], and on malformed atoms.
	Evaluate(atoms []Atom) (Result, error)
}

// ArityChecker is implemented by evaluators that fit only some predicates
// (CategoricalEvaluator needs an entity and a category argument): CheckArity
// says, before any inference, whether atoms of that many arguments can be
// evaluated.
type ArityChecker interface {
	CheckArity(arity int) error
}

// valueSlack is how far outside [0,1] a value may be (solver round-off).
const valueSlack = 1e-9

// checkValues rejects an empty input, an atom with neither value, and
// non-finite or out-of-range values, naming the offending atom.
func checkValues(atoms []Atom) error {
	if len(atoms) == 0 {
		return fmt.Errorf("no atoms to evaluate")
	}
	for i, a := range atoms {
		if a.NoPred && a.NoTruth {
			return fmt.Errorf("atom %d %s has neither a prediction nor a truth value (NoPred and NoTruth)", i, atomString(a))
		}
		if !a.NoPred {
			if err := checkValue(a.Pred); err != nil {
				return fmt.Errorf("atom %d %s: predicted value %v", i, atomString(a), err)
			}
		}
		if !a.NoTruth {
			if err := checkValue(a.Truth); err != nil {
				return fmt.Errorf("atom %d %s: truth value %v", i, atomString(a), err)
			}
		}
	}
	return nil
}

// checkPaired is checkValues for the evaluators that score atoms with
// both values: it returns those atoms, and an error when there is none.
func checkPaired(atoms []Atom) ([]Atom, error) {
	if err := checkValues(atoms); err != nil {
		return nil, err
	}
	out := paired(atoms)
	if len(out) == 0 {
		return nil, fmt.Errorf("no atoms to evaluate: none of the %d has both a prediction and a truth value", len(atoms))
	}
	return out, nil
}

func checkValue(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%v is not a number in [0,1]", v)
	}
	if v < -valueSlack || v > 1+valueSlack {
		return fmt.Errorf("%v is outside [0,1]", v)
	}
	return nil
}

// atomString formats an atom's arguments as (a, b, c).
func atomString(a Atom) string {
	return "(" + strings.Join(a.Args, ", ") + ")"
}

// ratio returns num/den, or 0 when den is 0 (PSL's convention).
func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

// constructor builds an evaluator from its own options (keys already
// lower-cased and stripped of the evaluator prefix).
type constructor struct {
	name    string   // PSL class name
	prefix  string   // option prefix, e.g. "discreteevaluator"
	options []string // option names after the prefix
	make    func(opts map[string]string) (Evaluator, error)
}

var constructors = []constructor{
	{"AUCEvaluator", "aucevaluator", []string{"representative", "threshold"}, newAUC},
	{"CategoricalEvaluator", "categoricalevaluator", []string{"categoryindexes", "defaultpredicate", "representative"}, newCategorical},
	{"ContinuousEvaluator", "continuousevaluator", []string{"representative"}, newContinuous},
	{"DiscreteEvaluator", "discreteevaluator", []string{"representative", "threshold"}, newDiscrete},
}

// callerOptions are PSL options that select atoms; the caller applies them.
var callerOptions = map[string]bool{"eval.includeobs": true, "eval.closetruth": true}

// Names lists the PSL names of the evaluators New knows, sorted.
func Names() []string {
	out := make([]string, len(constructors))
	for i, c := range constructors {
		out[i] = c.name
	}
	return out
}

// New returns the evaluator with the given PSL name. The name is matched
// case-insensitively, with or without the "Evaluator" suffix and with or
// without a Java package prefix ("Discrete", "discreteevaluator" and
// "org.linqs.psl.evaluation.statistics.DiscreteEvaluator" are the same).
//
// Option keys are case-insensitive PSL option names. The evaluator's own
// options (e.g. discreteevaluator.threshold) are applied; options of the
// other evaluators are checked for a known name and ignored (PSL options
// are global, so one map may configure several evaluators); eval.includeobs
// and eval.closetruth are ignored (the caller selects the atoms); anything
// else is an error.
func New(name string, options map[string]string) (Evaluator, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	key = strings.TrimSuffix(key, "evaluator")
	var c *constructor
	for i := range constructors {
		if strings.TrimSuffix(constructors[i].prefix, "evaluator") == key {
			c = &constructors[i]
		}
	}
	if c == nil || key == "" {
		return nil, fmt.Errorf("unknown evaluator %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	own := map[string]string{}
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lk := strings.ToLower(strings.TrimSpace(k))
		if callerOptions[lk] {
			continue
		}
		prefix, opt, ok := strings.Cut(lk, ".")
		owner := ownerOf(prefix)
		if !ok || owner == nil || !slices.Contains(owner.options, opt) {
			return nil, fmt.Errorf("%s: unknown option %q (known: %s)", c.name, k, strings.Join(knownOptions(), ", "))
		}
		if owner == c {
			own[opt] = strings.TrimSpace(options[k])
		}
	}
	return c.make(own)
}

// IsOption reports whether name (any case) is in the evaluators' namespace:
// an "eval." option or one prefixed by an evaluator's name
// ("discreteevaluator.threshold", or a misspelt option of one). A PSL
// config's global options hold other components' options too
// ("admm.maxiterations", "runtime.db.intids"), which are not the
// evaluators' to check.
func IsOption(name string) bool {
	prefix, _, ok := strings.Cut(strings.ToLower(strings.TrimSpace(name)), ".")
	if !ok {
		return false
	}
	return prefix == "eval" || ownerOf(prefix) != nil
}

// ownerOf returns the evaluator whose options are prefixed by prefix
// (lower case, without the dot), or nil.
func ownerOf(prefix string) *constructor {
	for i := range constructors {
		if constructors[i].prefix == prefix {
			return &constructors[i]
		}
	}
	return nil
}

// knownOptions lists every option name New accepts.
func knownOptions() []string {
	var out []string
	for _, c := range constructors {
		for _, o := range c.options {
			out = append(out, c.prefix+"."+o)
		}
	}
	for o := range callerOptions {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

// setThreshold sets *t from the threshold option, when given, a number in
// [0,1].
func setThreshold(evaluator string, opts map[string]string, t *float64) error {
	v, ok := opts["threshold"]
	if !ok {
		return nil
	}
	x, err := num.Parse(v)
	if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
		return fmt.Errorf("%s: threshold %q is not a number in [0,1]", evaluator, v)
	}
	*t = x
	return nil
}

// setRepresentative sets *r from the representative option, when given,
// matched (case-insensitively) against the allowed metric names.
func setRepresentative(evaluator string, opts map[string]string, allowed []string, r *string) error {
	v, ok := opts["representative"]
	if !ok {
		return nil
	}
	for _, a := range allowed {
		if strings.EqualFold(a, v) {
			*r = a
			return nil
		}
	}
	return fmt.Errorf("%s: unknown representative metric %q (known: %s)", evaluator, v, strings.Join(allowed, ", "))
}
