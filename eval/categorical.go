package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CategoricalEvaluator is PSL's CategoricalEvaluator: each atom's arguments
// split into an entity (the arguments not at a category index) and a
// category (the arguments at the category indexes), e.g. HasCat(paper, cat)
// with category index 1. As in PSL, each entity's predicted category is the
// atom with the highest predicted value among the atoms that have one
// (targets, with or without truth); then every truth atom of value 1 is
// scored: a hit when it is its entity's predicted category, a miss
// otherwise (also when it has no prediction, Atom.NoPred). ACCURACY is
// hits / (hits + misses), 0 when no truth atom has value 1. Truth atoms of
// value below 1 are not scored: an entity with two true categories gives
// two scored atoms, of which at most one can hit; one with none gives none.
//
// Ties (two categories of an entity with exactly equal highest predicted
// value) go to the category that sorts first: category arguments are
// compared one by one, numerically when both parse as integers and as
// strings otherwise, so the result does not depend on the order of the
// atoms. (PSL flips a coin between categories within 1e-6 of each other.)
// PRED_TIES counts the scored entities whose predicted category was decided
// by this rule.
//
// Every atom must have the same number of arguments, and an (entity,
// category) pair may appear only once.
type CategoricalEvaluator struct {
	// CategoryIndexes are 0-based argument positions; a negative index
	// counts from the end (-1 is the last argument). Option
	// categoricalevaluator.categoryindexes: integers separated by commas,
	// colons (PSL's delimiter) or spaces; default "-1", the default of PSL
	// 2.3 and later (PSL 2.2 and earlier had "1", the second argument: the
	// same for a two-argument predicate, not for a longer one).
	CategoryIndexes []int
	// Representative is ACCURACY (the only one, as in PSL); option
	// categoricalevaluator.representative. The option
	// categoricalevaluator.defaultpredicate is accepted and ignored (the
	// caller chooses the predicate's atoms).
	Representative string
}

var categoricalMetrics = []string{"ACCURACY", "CORRECT", "SCORED", "UNPREDICTED", "PRED_TIES"}

func newCategorical(opts map[string]string) (Evaluator, error) {
	e := &CategoricalEvaluator{CategoryIndexes: []int{-1}, Representative: "ACCURACY"}
	if v, ok := opts["categoryindexes"]; ok {
		idx, err := ParseCategoryIndexes(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		e.CategoryIndexes = idx
	}
	if err := setRepresentative(e.Name(), opts, categoricalMetrics[:1], &e.Representative); err != nil {
		return nil, err
	}
	return e, nil
}

// ParseCategoryIndexes reads a categoricalevaluator.categoryindexes value:
// one or more integers separated by commas, colons or white space.
func ParseCategoryIndexes(s string) ([]int, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ':' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	if len(fields) == 0 {
		return nil, fmt.Errorf("category indexes %q: no index given", s)
	}
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("category indexes %q: %q is not an integer", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// Name returns "CategoricalEvaluator".
func (e *CategoricalEvaluator) Name() string { return "CategoricalEvaluator" }

// MetricNames lists ACCURACY and the counts CORRECT (hits), SCORED (truth
// atoms of value 1: hits and misses), UNPREDICTED (those of them without a
// prediction, all misses) and PRED_TIES (scored entities whose predicted
// category was a tie).
func (e *CategoricalEvaluator) MetricNames() []string {
	return append([]string(nil), categoricalMetrics...)
}

// CheckArity reports whether atoms of arity arguments can be evaluated: the
// category indexes must be in range and leave at least one entity argument
// (a unary predicate has no entity to classify).
func (e *CategoricalEvaluator) CheckArity(arity int) error {
	_, err := e.categories(arity)
	return err
}

// categories marks the category argument positions for atoms of arity
// arguments.
func (e *CategoricalEvaluator) categories(arity int) ([]bool, error) {
	raw := e.CategoryIndexes
	if len(raw) == 0 {
		raw = []int{-1}
	}
	isCat := make([]bool, arity)
	n := 0
	for _, r := range raw {
		k := r
		if k < 0 {
			k += arity
		}
		if k < 0 || k >= arity {
			return nil, fmt.Errorf("%s: category index %d out of range for atoms with %d arguments", e.Name(), r, arity)
		}
		if !isCat[k] {
			n++
		}
		isCat[k] = true
	}
	if n == arity {
		return nil, fmt.Errorf("%s: all %d argument(s) are categories (indexes %v), so there is no entity to classify; it needs a predicate such as HasCat(paper, category)", e.Name(), arity, raw)
	}
	return isCat, nil
}

// argmax tracks the predicted category of one entity.
type argmax struct {
	atom  int     // index of the best atom so far, -1 if none
	value float64 // its predicted value
	ties  int     // how many atoms share that value
}

// consider offers atom i with predicted value v and category cats[i].
func (m *argmax) consider(i int, v float64, cats [][]string) {
	switch {
	case m.atom < 0 || v > m.value:
		*m = argmax{atom: i, value: v, ties: 1}
	case v == m.value:
		m.ties++
		if compareCategory(cats[i], cats[m.atom]) < 0 {
			m.atom = i
		}
	}
}

// Evaluate finds each entity's predicted category and scores the truth
// atoms of value 1 against it.
func (e *CategoricalEvaluator) Evaluate(atoms []Atom) (Result, error) {
	if err := checkValues(atoms); err != nil {
		return Result{}, err
	}
	arity := len(atoms[0].Args)
	isCat, err := e.categories(arity)
	if err != nil {
		return Result{}, fmt.Errorf("%w (atom 0 %s)", err, atomString(atoms[0]))
	}

	index := map[string]int{} // entity key -> position in ents
	var ents []argmax         // in order of first appearance
	entOf := make([]int, len(atoms))
	seen := map[string]int{} // entity+category key -> atom index
	cats := make([][]string, len(atoms))
	var ent, cat []string
	for i, a := range atoms {
		if len(a.Args) != arity {
			return Result{}, fmt.Errorf("%s: atom %d %s has %d arguments, atom 0 has %d", e.Name(), i, atomString(a), len(a.Args), arity)
		}
		ent, cat = ent[:0], cat[:0]
		for j, s := range a.Args {
			if isCat[j] {
				cat = append(cat, s)
			} else {
				ent = append(ent, s)
			}
		}
		cats[i] = append([]string(nil), cat...)
		ek := joinKey(ent)
		full := joinKey(a.Args)
		if j, dup := seen[full]; dup {
			return Result{}, fmt.Errorf("%s: atom %d %s repeats atom %d", e.Name(), i, atomString(a), j)
		}
		seen[full] = i
		k, ok := index[ek]
		if !ok {
			k = len(ents)
			index[ek] = k
			ents = append(ents, argmax{atom: -1})
		}
		entOf[i] = k
		if !a.NoPred {
			ents[k].consider(i, a.Pred, cats)
		}
	}
	var correct, scored, unpredicted, predTies int
	tied := make([]bool, len(ents)) // scored entity counted in predTies
	for i, a := range atoms {
		if a.NoTruth || a.Truth < 1 {
			continue
		}
		scored++
		m := ents[entOf[i]]
		switch {
		case a.NoPred:
			unpredicted++
		case m.atom == i:
			correct++
		}
		if m.ties > 1 && !tied[entOf[i]] {
			tied[entOf[i]] = true
			predTies++
		}
	}
	vals := []float64{ratio(float64(correct), float64(scored)), float64(correct), float64(scored), float64(unpredicted), float64(predTies)}
	return result(e.Name(), categoricalMetrics, vals, cmp.Or(e.Representative, "ACCURACY"), true), nil
}

// joinKey joins arguments with a separator that cannot be confused with
// argument text boundaries (lengths are encoded).
func joinKey(args []string) string {
	var b strings.Builder
	for _, s := range args {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// compareCategory orders category argument lists: argument by argument,
// numerically when both parse as integers, else as strings.
func compareCategory(a, b []string) int {
	return slices.CompareFunc(a, b, CompareArg)
}

// CompareArg orders two atom arguments (ids such as paper or category ids)
// the way CategoricalEvaluator breaks ties: numerically when both parse as
// integers, else as strings. Equal numbers with different text ("01", "1")
// fall back to the string order, so distinct arguments never compare equal.
func CompareArg(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return strings.Compare(a, b)
}
