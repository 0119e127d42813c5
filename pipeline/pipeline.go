// Package pipeline runs a PSL model end to end, the way the hinge command
// does: load a model and its data from PSL's files, ground it, and after
// inference write PSL-style output files and evaluate against truth data.
// It only composes the packages that own each step (syntax, store, ground,
// eval); a Go user who wants the steps separately calls those directly.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hinge-srl/hinge/config"
	"github.com/hinge-srl/hinge/eval"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/field"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"github.com/hinge-srl/hinge/syntax"
)

// Inputs names the files of a PSL program.
type Inputs struct {
	// Model is a .psl rules file. It may be empty when the config carries
	// rules (a JSON config's "rules"); when both are given, Model wins.
	Model string
	// Data is a PSL .data (YAML) file; Config a PSL 3 JSON config. Exactly
	// one of them must be given.
	Data   string
	Config string
	// Partition selects a JSON config's data split: "infer" (the default)
	// or "learn".
	Partition string
}

// Program is a loaded model with its data.
type Program struct {
	Model  *model.Model
	Store  *store.Store
	Config *config.Config
	// RulesFrom says where the rules were read (a file path, or the config).
	RulesFrom string
	// Seconds is the time Load took.
	Seconds float64
	// Warnings are things the data says that are probably not meant, such
	// as an open predicate without a single target atom.
	Warnings []string
}

// Load reads the config (.data or JSON), declares its predicates, parses the
// rules and loads every data file. Errors name the file and position.
func Load(in Inputs) (*Program, error) { return load(in, true) }

// LoadData is Load without rules: the program's model has the config's
// predicates and no rules (in.Model is ignored), for commands that make
// the rules themselves (structure learning).
func LoadData(in Inputs) (*Program, error) { return load(in, false) }

func load(in Inputs, withRules bool) (*Program, error) {
	start := time.Now()
	var cfg *config.Config
	var err error
	switch {
	case in.Data != "" && in.Config != "":
		return nil, errors.New("give either a .data file or a JSON config, not both")
	case in.Data != "":
		cfg, err = config.ReadData(in.Data)
	case in.Config != "":
		part := in.Partition
		if part == "" {
			part = "infer"
		}
		cfg, err = config.ReadJSON(in.Config, part)
	default:
		return nil, errors.New("no data: give a .data file or a JSON config")
	}
	if err != nil {
		return nil, err
	}
	m := model.New()
	if err := cfg.Declare(m); err != nil {
		return nil, err
	}
	prog := &Program{Model: m, Config: cfg}
	switch {
	case !withRules:
		prog.RulesFrom = cfg.Path
	case in.Model != "":
		err = parseRulesFile(in.Model, m)
		prog.RulesFrom = in.Model
	case cfg.RulesFile != "":
		err = parseRulesFile(cfg.RulesFile, m)
		prog.RulesFrom = cfg.RulesFile
	case len(cfg.Rules) > 0:
		err = parseConfigRules(cfg, m)
		prog.RulesFrom = cfg.Path
	default:
		return nil, fmt.Errorf("no rules: give a .psl model file (%s has none)", cfg.Path)
	}
	if err != nil {
		return nil, err
	}
	if withRules && len(m.Rules) == 0 {
		return nil, fmt.Errorf("%s: the model has no rules", prog.RulesFrom)
	}
	prog.Store = store.New(m)
	if err := cfg.Load(prog.Store); err != nil {
		return nil, err
	}
	prog.Warnings = StoreWarnings(prog.Store)
	prog.Seconds = time.Since(start).Seconds()
	return prog, nil
}

// StoreWarnings returns what a store's atoms say that is probably not
// meant: an open predicate without target atoms.
func StoreWarnings(s *store.Store) []string {
	var out []string
	for _, pred := range s.Model.Predicates {
		if !pred.Closed && targetCount(s.Table(pred)) == 0 {
			out = append(out, fmt.Sprintf("open predicate %s has no target atoms (is its targets file empty?): nothing is inferred for it, and its atoms that are not observed count as 0", pred))
		}
	}
	return out
}

// targetCount counts the target atoms of a table.
func targetCount(t *store.Table) int {
	n := 0
	for r := range t.Len() {
		if t.Kind(r) == store.Target {
			n++
		}
	}
	return n
}

func parseRulesFile(path string, m *model.Model) error {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading model: %w", err)
	}
	return syntax.ParseModel(path, src, m)
}

func parseConfigRules(cfg *config.Config, m *model.Model) error {
	var errs syntax.ErrorList
	for _, rs := range cfg.Rules {
		var r *model.Rule
		var err error
		if rs.Cols != nil { // escapes moved the bytes
			r, err = syntax.ParseRuleAt(rs.Text, rs.PosAt)
		} else {
			r, err = syntax.ParseRule(rs.Text, rs.Pos)
		}
		if err == nil {
			err = m.AddRule(r)
		}
		if err == nil {
			continue
		}
		var list syntax.ErrorList
		var me *srcpos.Error
		switch {
		case errors.As(err, &list):
			errs = append(errs, list...)
		case errors.As(err, &me):
			errs = append(errs, me)
		default:
			errs = append(errs, &srcpos.Error{Pos: rs.Pos, Msg: err.Error()})
		}
	}
	return errs.Err()
}

// Ground grounds the program's rules over its data.
func (p *Program) Ground(opt ground.Options) (*ground.Result, error) {
	return ground.Ground(p.Model, p.Store, opt)
}

// RuleText returns the rule as the user wrote it, or as hinge prints it,
// clipped to a few hundred bytes (textfile.Clip): it labels a rule in
// summaries, reports and messages, where a rule of 80,000 conjuncts must
// not print a 560 KB line; the rule's position names it exactly.
func RuleText(r *model.Rule) string {
	if r.Text != "" {
		return textfile.Clip(r.Text)
	}
	return textfile.Clip(syntax.Format(r))
}

// OutputName is the file name PSL gives a predicate's inferred values:
// the predicate name in upper case (PSL stores predicate names upper-cased),
// with ".txt".
func OutputName(p *model.Predicate) string { return strings.ToUpper(p.Name) + ".txt" }

// AsPSL rounds a truth value to the 32-bit float PSL stores it as. Outputs
// and evaluation use it, so that an exact tie that ADMM leaves at
// 0.49999999999999994 is written and thresholded as 0.5, as PSL does (its
// DiscreteEvaluator calls it positive), and results compare with PSL's.
func AsPSL(v float64) float64 { return float64(float32(v)) }

// WriteValues writes the inferred value of every target atom of p, one line
// per atom, "arg1<TAB>...<TAB>value" with the value as PSL's 32-bit float,
// in the store's row order; a constant holding a tab, a line break or
// blanks at its ends is quoted (internal/field), so the file loads back.
func WriteValues(w io.Writer, g *ground.Result, p *model.Predicate, values []float64) error {
	buf := make([]byte, 0, 128)
	for v, ref := range g.Vars {
		if ref.Pred != p {
			continue
		}
		buf = buf[:0]
		for _, a := range g.Args(v) {
			buf = append(buf, field.Quote(a)...)
			buf = append(buf, '\t')
		}
		buf = strconv.AppendFloat(buf, AsPSL(values[v]), 'g', -1, 32)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// TargetPredicates lists the predicates that have target atoms, in model
// order.
func TargetPredicates(g *ground.Result) []*model.Predicate {
	// The grounder numbers variables predicate by predicate in model order,
	// so each predicate's variables are one run of g.Vars.
	var out []*model.Predicate
	for _, ref := range g.Vars {
		if len(out) == 0 || out[len(out)-1] != ref.Pred {
			out = append(out, ref.Pred)
		}
	}
	return out
}

// WriteOutputs makes dir hold DIR/PRED.txt (see OutputName) for every
// predicate with targets, and nothing else, as one set (atomicfile.WriteDir:
// written aside and swapped in, locked against a concurrent run, never a
// mixture of two runs' files). It returns the files' paths.
func WriteOutputs(dir string, g *ground.Result, values []float64) ([]string, error) {
	var files []string
	err := atomicfile.WriteDir(dir, func(tmp string) error {
		for _, p := range TargetPredicates(g) {
			name := OutputName(p)
			if err := atomicfile.Write(filepath.Join(tmp, name), func(w io.Writer) error { return WriteValues(w, g, p, values) }); err != nil {
				return err
			}
			files = append(files, filepath.Join(dir, name))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// Evaluation is the result of one evaluator on one predicate.
type Evaluation struct {
	Predicate *model.Predicate
	// Atoms counts the atoms with both a prediction and a truth value,
	// those the evaluators other than CategoricalEvaluator score (its own
	// figures say what it scored).
	Atoms  int
	Result eval.Result
}

// DefaultEvaluators are used for a predicate with truth data when neither
// the config nor the caller names any.
var DefaultEvaluators = []string{"DiscreteEvaluator", "ContinuousEvaluator"}

// EvalOptions choose what to evaluate.
type EvalOptions struct {
	// Evaluators, when non-empty, are applied to every predicate with truth
	// data (like PSL's --eval), instead of the config's per-predicate ones.
	Evaluators []string
	// Options are evaluator options (PSL names, e.g.
	// "categoricalevaluator.categoryindexes"), applied over the config's;
	// eval.includeobs and eval.closetruth here decide over the config's and
	// over IncludeObserved and CloseTruth.
	Options map[string]string
	// IncludeObserved also evaluates truth atoms that are observed, with
	// their observed value as the prediction (PSL's eval.includeobs). The
	// config's eval.includeobs option sets it too.
	IncludeObserved bool
	// CloseTruth also evaluates target atoms that have no truth atom,
	// against a truth of 0 (PSL's eval.closetruth). The option
	// eval.closetruth=true (config or Options) sets it too.
	CloseTruth bool
	// Note, when set, is told what the evaluation of a predicate leaves
	// out and why, one line for each kind of atom left out (truth atoms
	// that are not targets, truth atoms that are observed, targets without
	// truth), with the count and an example.
	Note func(string)
}

// Evaluate compares the inferred values with the truth data of every
// predicate that has some, scoring the atoms PSL scores (its TrainingMap
// and Evaluator.getMap): a truth atom whose atom is a target, predicted by
// its inferred value. A truth atom whose atom is observed is scored only
// with IncludeObserved (eval.includeobs, default false), its observed value
// the prediction; a target without a truth atom (PSL's latent variable)
// only with CloseTruth (eval.closetruth, default false), against 0; a truth
// atom that is neither a target nor observed (PSL's "missing target") is
// never scored. opt.Note hears of what was left out. Predicates are
// evaluated in model order.
func (p *Program) Evaluate(g *ground.Result, values []float64, opt EvalOptions) ([]Evaluation, error) {
	if err := p.CheckEvaluators(opt); err != nil {
		return nil, err
	}
	var out []Evaluation
	for _, pred := range p.Model.Predicates {
		if !p.Store.HasTruth(pred) {
			continue
		}
		specs := p.evalSpecs(pred, opt)
		sel := evalSelection{includeObs: opt.IncludeObserved, closeTruth: opt.CloseTruth}
		// The config's, then the caller's, which win, "false" too; keys
		// in any case, as eval.New reads them.
		set := func(options map[string]string, onlyTrue bool) {
			for k, v := range options {
				on := strings.EqualFold(strings.TrimSpace(v), "true")
				if onlyTrue && !on {
					continue
				}
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "eval.includeobs":
					sel.includeObs = on
				case "eval.closetruth":
					sel.closeTruth = on
				}
			}
		}
		for _, sp := range specs {
			set(sp.Options, true)
		}
		set(opt.Options, false)
		evs := make([]eval.Evaluator, len(specs))
		categorical := false
		for i, sp := range specs {
			ev, err := eval.New(sp.Evaluator, sp.Options) // checked above
			if err != nil {
				return nil, err
			}
			evs[i] = ev
			categorical = categorical || ev.Name() == "CategoricalEvaluator"
		}
		atoms, npaired, left := p.evalAtoms(g, pred, values, sel)
		// CategoricalEvaluator scores the truth atoms of value 1 even when
		// none has a prediction (each a miss: ACCURACY 0, as PSL's); the
		// others need a pair.
		misses := false
		if categorical && npaired == 0 {
			misses = slices.ContainsFunc(atoms, func(a eval.Atom) bool { return !a.NoTruth && a.Truth >= 1 })
		}
		if opt.Note != nil {
			for _, n := range left.notes(pred, sel, npaired, categorical, misses) {
				opt.Note(n)
			}
		}
		if npaired == 0 && !misses {
			continue
		}
		for _, ev := range evs {
			if npaired == 0 && ev.Name() != "CategoricalEvaluator" {
				continue
			}
			res, err := ev.Evaluate(atoms)
			if err != nil {
				return nil, fmt.Errorf("evaluating %s with %s: %w", pred.Name, ev.Name(), err)
			}
			out = append(out, Evaluation{Predicate: pred, Atoms: npaired, Result: res})
		}
	}
	return out, nil
}

// CheckEvaluators reports, before any inference, an evaluator that cannot
// be built (unknown name or option) or does not fit a predicate it would be
// applied to (CategoricalEvaluator on a unary predicate).
func (p *Program) CheckEvaluators(opt EvalOptions) error {
	for _, pred := range p.Model.Predicates {
		if !p.Store.HasTruth(pred) {
			continue
		}
		for _, sp := range p.evalSpecs(pred, opt) {
			ev, err := eval.New(sp.Evaluator, sp.Options)
			if err == nil {
				if c, ok := ev.(eval.ArityChecker); ok {
					err = c.CheckArity(pred.Arity)
				}
			}
			if err != nil {
				if sp.Pos.IsValid() {
					return fmt.Errorf("%s: evaluator for %s: %w", sp.Pos, pred.Name, err)
				}
				return fmt.Errorf("evaluator for %s: %w", pred.Name, err)
			}
		}
	}
	return nil
}

func (p *Program) evalSpecs(pred *model.Predicate, opt EvalOptions) []config.EvalSpec {
	var specs []config.EvalSpec
	if len(opt.Evaluators) > 0 {
		for _, name := range opt.Evaluators {
			specs = append(specs, config.EvalSpec{Evaluator: name})
		}
	} else if p.Config != nil {
		for name, list := range p.Config.Evaluations {
			if strings.EqualFold(name, pred.Name) {
				specs = append(specs, list...)
			}
		}
	}
	if len(specs) == 0 {
		for _, name := range DefaultEvaluators {
			specs = append(specs, config.EvalSpec{Evaluator: name})
		}
	}
	// Options: the config's global options in the evaluators' namespace
	// (the others are other components', e.g. admm.maxiterations), the
	// spec's own, then the caller's.
	for i := range specs {
		o := map[string]string{}
		if p.Config != nil {
			for k, v := range p.Config.Options {
				if eval.IsOption(k) {
					o[k] = v
				}
			}
		}
		for k, v := range specs[i].Options {
			o[k] = v
		}
		for k, v := range opt.Options {
			o[k] = v
		}
		specs[i].Options = o
	}
	return specs
}

// evalSelection is which atoms beyond the (target, truth) pairs are
// scored: PSL's eval.includeobs and eval.closetruth.
type evalSelection struct{ includeObs, closeTruth bool }

// leftOut counts the atoms of a predicate that evaluation does not score,
// by kind, each with its first atom as an example.
type leftOut struct {
	notTarget, observed, latent       int
	notTargetEx, observedEx, latentEx string
}

// notes says what was left out, one line per kind; categorical says
// CategoricalEvaluator is applied to pred, which (as PSL's) counts a truth
// atom of value 1 without a prediction as a miss, and misses that pred has
// such atoms though none is paired (scored).
func (l leftOut) notes(pred *model.Predicate, sel evalSelection, scored int, categorical, misses bool) []string {
	var out []string
	missNote := ""
	if categorical {
		missNote = "; CategoricalEvaluator, as PSL's, counts those of truth 1 as misses"
	}
	if l.notTarget > 0 {
		out = append(out, fmt.Sprintf("%s of %s %s neither a target nor observed, e.g. %s: not scored, as in PSL (its \"missing targets\"; list them as targets to have them inferred and scored)%s",
			plural(l.notTarget, "truth atom"), pred.Name, isAre(l.notTarget), l.notTargetEx, missNote))
	}
	if l.observed > 0 && !sel.includeObs {
		out = append(out, fmt.Sprintf("%s of %s %s observed, e.g. %s: not scored, as in PSL by default (--include-observed, PSL's eval.includeobs, scores them with their observed value)%s",
			plural(l.observed, "truth atom"), pred.Name, isAre(l.observed), l.observedEx, missNote))
	}
	if l.latent > 0 && !sel.closeTruth {
		verb := "have"
		if l.latent == 1 {
			verb = "has"
		}
		out = append(out, fmt.Sprintf("%s of %s %s no truth value, e.g. %s: not scored, as in PSL by default (PSL's eval.closetruth=true scores them against 0)",
			plural(l.latent, "target atom"), pred.Name, verb, l.latentEx))
	}
	switch {
	case scored == 0 && misses:
		out = append(out, fmt.Sprintf("%s has truth atoms but none paired with a prediction: only CategoricalEvaluator is applied (every truth atom of value 1 a miss)", pred.Name))
	case scored == 0 && len(out) > 0:
		out = append(out, fmt.Sprintf("%s has truth atoms but none to score: it is not evaluated", pred.Name))
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// evalAtoms pairs pred's truth atoms with their predictions as PSL's
// TrainingMap does: a target's inferred value; an observed atom's value
// with sel.includeObs; a target without truth against 0 with
// sel.closeTruth. What is not paired is kept with eval.Atom's NoPred (a
// truth atom of no target, or of an observed atom without
// sel.includeObs) or NoTruth (a target without truth without
// sel.closeTruth, or an observed atom without truth with sel.includeObs),
// for CategoricalEvaluator, which uses them as PSL's does; the other
// evaluators skip them. It returns the atoms, how many of them are paired,
// and what evaluation leaves out.
func (p *Program) evalAtoms(g *ground.Result, pred *model.Predicate, values []float64, sel evalSelection) ([]eval.Atom, int, leftOut) {
	truth := p.Store.Truth(pred)
	tab := p.Store.Table(pred)
	var left leftOut
	atoms := make([]eval.Atom, 0, truth.Len())
	npaired := 0
	example := func(args []int32) string { return store.AtomString(pred, p.Store.Names(args)) }
	for row := 0; row < truth.Len(); row++ {
		args := truth.Args(row)
		a := eval.Atom{Args: p.Store.Names(args), Truth: AsPSL(truth.Value(row))}
		r, ok := tab.Find(args)
		switch {
		case !ok:
			if left.notTarget == 0 {
				left.notTargetEx = example(args)
			}
			left.notTarget++
			a.NoPred = true
		case tab.Kind(r) == store.Target:
			a.Pred = AsPSL(values[g.Grounder.VarOf(pred, r)])
		default:
			if left.observed == 0 {
				left.observedEx = example(args)
			}
			left.observed++
			if sel.includeObs {
				a.Pred = AsPSL(tab.Value(r))
			} else {
				a.NoPred = true
			}
		}
		if !a.NoPred {
			npaired++
		}
		atoms = append(atoms, a)
	}
	for r := range tab.Len() {
		target := tab.Kind(r) == store.Target
		if !target && !sel.includeObs {
			continue
		}
		args := tab.Args(r)
		if _, ok := truth.Find(args); ok {
			continue
		}
		a := eval.Atom{Args: p.Store.Names(args), NoTruth: true}
		if target {
			if left.latent == 0 {
				left.latentEx = example(args)
			}
			left.latent++
			a.Pred = AsPSL(values[g.Grounder.VarOf(pred, r)])
			if sel.closeTruth {
				a.NoTruth = false
				npaired++
			}
		} else {
			a.Pred = AsPSL(tab.Value(r))
		}
		atoms = append(atoms, a)
	}
	return atoms, npaired, left
}
