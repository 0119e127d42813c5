package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// ReadJSON reads a PSL 3 JSON config (the format of PSL's runtime
// configs and of psl-examples' models/*.json) and selects one data split:
// partition is "infer" (the default when empty), "learn" or "validation".
//
// Supported, following PSL 3's RuntimeConfig:
//
//   - "rules": a list of rule strings, or a string naming a .psl file
//     relative to the JSON file.
//   - "predicates": an object keyed by "Name/arity" (or "Name" with an
//     "arity" or "types" property). Each predicate may have "observations",
//     "targets" and "truth", each either a list (used for every split) or an
//     object keyed by split: "all", "learn", "validation", "infer". A list
//     holds file paths (relative to the JSON file) and inline rows such as
//     ["Bob", 1] or ["Anna"]: arity entries, or arity+1 with the value last
//     (for targets, an initial value). Row entries are strings or numbers;
//     numbers become their text (1 -> "1"). Also "evaluations" (a list of
//     evaluator names or objects {"evaluator": ..., "options": {...},
//     "primary": bool}), "options", "arity", "types", "force-open", and
//     "type" when it names StandardPredicate.
//   - "options": an object of option settings (values become text).
//   - "learn", "validation", "infer": per-split "rules" and "options", added
//     to (rules) or overriding (options) the top-level ones for that split.
//
// A predicate is open iff it has targets in "all" or in the selected split,
// or "force-open" is true; otherwise it is closed. Data of other splits is
// checked for shape but not loaded, and its files need not exist.
//
// Rejected with a clear error: external function predicates ("function"),
// predicate types other than StandardPredicate (deep/model predicates), and
// any key PSL does not define. The file may contain '#', '//' and '/* */'
// comments, single-quoted strings and trailing commas, as PSL allows. Every
// error names path:line:col; a data file that does not exist is reported
// with its path and the line that names it.
func ReadJSON(path, partition string) (*Config, error) {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseJSONConfig(path, src, partition, checkFile)
}

// ReadJSONOptions returns the options ReadJSON would give the config at
// path for partition (Config.Options and Config.OptionPos: the top-level
// "options", then the split's), reading nothing else, so that a command
// can apply them to its settings before it reads the data. It checks only
// what it reads: ReadJSON reports the rest of the file's errors.
func ReadJSONOptions(path, partition string) (map[string]string, map[string]srcpos.Position, error) {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	part := strings.ToLower(partition)
	if part == "" {
		part = "infer"
	}
	root, err := parseJSON(path, src)
	if err != nil {
		return nil, nil, err
	}
	r := &jsonConfigReader{cfg: &Config{Path: path}}
	if root.Kind != jsonObject {
		return nil, nil, nil
	}
	var split *jsonValue
	for _, m := range root.Keys {
		switch {
		case m.Key == "options":
			if err := r.options(m.Value, "options"); err != nil {
				return nil, nil, err
			}
		case m.Key == part && m.Value.Kind == jsonObject:
			split = m.Value
		}
	}
	if split != nil {
		for _, sm := range split.Keys {
			if sm.Key == "options" {
				if err := r.options(sm.Value, part+".options"); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return r.cfg.Options, r.cfg.OptionPos, nil
}

// JSONFiles lists the data files the JSON config at path names in every
// partition (infer, learn, validation), so that a command reading one
// partition can keep its outputs off the files of the others too. A
// partition that does not parse is passed over: ReadJSON reports its
// errors when it is read.
func JSONFiles(path string) []string {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return nil
	}
	var files []string
	for _, part := range []string{"infer", "learn", "validation"} {
		cfg, err := parseJSONConfig(path, src, part, func(string) error { return nil })
		if err != nil {
			continue
		}
		if cfg.RulesFile != "" {
			files = append(files, cfg.RulesFile)
		}
		for _, s := range cfg.Sources {
			files = append(files, s.File)
		}
	}
	return files
}

// splitNames are PSL 3's data splits.
var splitNames = []string{"all", "learn", "validation", "infer"}

func parseJSONConfig(path string, src []byte, partition string, stat func(string) error) (*Config, error) {
	part := strings.ToLower(partition)
	if part == "" {
		part = "infer"
	}
	if part != "infer" && part != "learn" && part != "validation" {
		return nil, fmt.Errorf("%s: unknown partition %q: want infer, learn or validation", path, partition)
	}
	root, err := parseJSON(path, src)
	if err != nil {
		return nil, err
	}
	if root.Kind != jsonObject {
		return nil, srcpos.Errorf(root.Pos, "a config is a JSON object with rules, predicates and options, found %s", root.Kind)
	}
	r := &jsonConfigReader{cfg: &Config{Path: path, Partition: part}, part: part, stat: stat}
	var preds *jsonValue
	var splitVals []jsonMember
	for _, m := range root.Keys {
		switch m.Key {
		case "rules":
			if err := r.rules(m.Value); err != nil {
				return nil, err
			}
		case "options":
			if err := r.options(m.Value, "options"); err != nil {
				return nil, err
			}
		case "predicates":
			preds = m.Value
		case "learn", "validation", "infer":
			splitVals = append(splitVals, m)
		default:
			return nil, srcpos.Errorf(m.Pos, "unknown key %q: want rules, predicates, options, learn, validation or infer", m.Key)
		}
	}
	// The selected split's rules and options come after the top-level ones.
	for _, m := range splitVals {
		if m.Value.Kind != jsonObject {
			return nil, srcpos.Errorf(m.Value.Pos, "%s must be an object with rules and options, found %s", m.Key, m.Value.Kind)
		}
		for _, sm := range m.Value.Keys {
			switch sm.Key {
			case "rules":
				if m.Key == part {
					err = r.rules(sm.Value)
				} else {
					err = (&jsonConfigReader{cfg: &Config{Path: path}}).rules(sm.Value)
				}
			case "options":
				if m.Key == part {
					err = r.options(sm.Value, m.Key+".options")
				} else {
					_, _, err = jsonOptions(sm.Value, m.Key+".options")
				}
			default:
				err = srcpos.Errorf(sm.Pos, "unknown key %q in %s: want rules or options", sm.Key, m.Key)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if preds != nil {
		if preds.Kind != jsonObject {
			return nil, srcpos.Errorf(preds.Pos, "predicates must be an object keyed by Name/arity, found %s", preds.Kind)
		}
		for _, m := range preds.Keys {
			if err := r.predicate(m); err != nil {
				return nil, err
			}
		}
	}
	return r.cfg, nil
}

type jsonConfigReader struct {
	cfg  *Config
	part string
	stat func(string) error
}

// options reads an "options" object into the config, over what it has.
func (r *jsonConfigReader) options(v *jsonValue, what string) error {
	opts, pos, err := jsonOptions(v, what)
	if err != nil {
		return err
	}
	if len(opts) == 0 {
		return nil
	}
	if r.cfg.Options == nil {
		r.cfg.Options = make(map[string]string, len(opts))
		r.cfg.OptionPos = make(map[string]srcpos.Position, len(opts))
	}
	for k, val := range opts {
		r.cfg.Options[k] = val
		r.cfg.OptionPos[k] = pos[k]
	}
	return nil
}

// rules reads a rules value: a list of rule strings or a .psl file name.
func (r *jsonConfigReader) rules(v *jsonValue) error {
	switch v.Kind {
	case jsonString:
		if r.cfg.RulesFile != "" {
			return srcpos.Errorf(v.Pos, "a second rules file %q: only one is supported (the first is at %d:%d)", v.Text, r.cfg.RulesFilePos.Line, r.cfg.RulesFilePos.Col)
		}
		if v.Text == "" {
			return srcpos.Errorf(v.Pos, "rules: empty file name")
		}
		file := resolve(r.cfg.Path, v.Text)
		if r.stat != nil {
			if err := r.stat(file); err != nil {
				return srcpos.Errorf(v.Pos, "rules: %v", strings.Replace(err.Error(), "data file", "rules file", 1))
			}
		}
		r.cfg.RulesFile, r.cfg.RulesFilePos = file, v.Pos
	case jsonArray:
		for _, it := range v.Items {
			if it.Kind != jsonString {
				return srcpos.Errorf(it.Pos, "rules: each rule must be a string, found %s", it.Kind)
			}
			pos := it.Pos
			pos.Col++ // past the opening quote
			r.cfg.Rules = append(r.cfg.Rules, RuleSource{Text: it.Text, Pos: pos, Cols: it.Cols})
		}
	default:
		return srcpos.Errorf(v.Pos, "rules must be a list of rule strings or the name of a .psl file, found %s", v.Kind)
	}
	return nil
}

// jsonOptions reads an object of scalar option values, with the position
// of each key.
func jsonOptions(v *jsonValue, what string) (map[string]string, map[string]srcpos.Position, error) {
	if v.Kind != jsonObject {
		return nil, nil, srcpos.Errorf(v.Pos, "%s must be an object of option settings, found %s", what, v.Kind)
	}
	out := make(map[string]string, len(v.Keys))
	pos := make(map[string]srcpos.Position, len(v.Keys))
	for _, m := range v.Keys {
		t, ok := m.Value.scalarText()
		if !ok {
			return nil, nil, srcpos.Errorf(m.Value.Pos, "%s: option %q must be a string, number or boolean, found %s", what, m.Key, m.Value.Kind)
		}
		out[m.Key] = t
		pos[m.Key] = m.Pos
	}
	return out, pos, nil
}

// predicate reads one entry of "predicates".
func (r *jsonConfigReader) predicate(m jsonMember) error {
	name, arity, err := parsePredicateKey(m.Key)
	if err != nil {
		return srcpos.Errorf(m.Pos, "%v", err)
	}
	if prev, dup := r.cfg.Predicate(name); dup {
		return srcpos.Errorf(m.Pos, "predicate %s declared twice (first at %d:%d)", name, prev.Pos.Line, prev.Pos.Col)
	}
	d := PredicateDecl{Name: name, Arity: arity, Pos: m.Pos}
	v := m.Value
	if v.Kind != jsonObject {
		return srcpos.Errorf(v.Pos, "predicate %s must be an object (with observations, targets, truth, ...), found %s", m.Key, v.Kind)
	}
	forceOpen := false
	var parts [3]*jsonValue // by store.Section
	var evals *jsonValue
	for _, pm := range v.Keys {
		pv := pm.Value
		switch pm.Key {
		case "observations":
			parts[store.Observations] = pv
		case "targets":
			parts[store.Targets] = pv
		case "truth":
			parts[store.Truth] = pv
		case "evaluations":
			evals = pv
		case "options":
			opts, _, err := jsonOptions(pv, "predicate "+m.Key+" options")
			if err != nil {
				return err
			}
			d.Options = opts
		case "arity":
			n, err := strconv.Atoi(pv.Text)
			if pv.Kind != jsonNumber || err != nil || n < 1 {
				return srcpos.Errorf(pv.Pos, "predicate %s: arity must be a whole number >= 1", m.Key)
			}
			if d.Arity != 0 && d.Arity != n {
				return srcpos.Errorf(pv.Pos, "predicate %s: arity %d does not match the %d in its name", m.Key, n, d.Arity)
			}
			d.Arity = n
		case "types":
			if pv.Kind != jsonArray {
				return srcpos.Errorf(pv.Pos, "predicate %s: types must be a list of type names, found %s", m.Key, pv.Kind)
			}
			for _, t := range pv.Items {
				if t.Kind != jsonString {
					return srcpos.Errorf(t.Pos, "predicate %s: a type must be a name such as UniqueIntID, found %s", m.Key, t.Kind)
				}
				d.Types = append(d.Types, t.Text)
			}
		case "force-open":
			if pv.Kind != jsonBool {
				return srcpos.Errorf(pv.Pos, "predicate %s: force-open must be true or false, found %s", m.Key, pv.Kind)
			}
			forceOpen = pv.Text == "true"
		case "type":
			if pv.Kind != jsonString || (pv.Text != "StandardPredicate" && !strings.HasSuffix(pv.Text, ".StandardPredicate")) {
				return srcpos.Errorf(pv.Pos, "predicate %s: type %s is not supported: only standard predicates (StandardPredicate) are", m.Key, pv.Text)
			}
		case "function":
			return srcpos.Errorf(pm.Pos, "predicate %s: external function predicates (\"function\") are not supported", m.Key)
		case "name":
			if pv.Kind != jsonString || !strings.EqualFold(pv.Text, name) {
				return srcpos.Errorf(pv.Pos, "predicate %s: name %q does not match its key", m.Key, pv.Text)
			}
		default:
			return srcpos.Errorf(pm.Pos, "predicate %s: unknown key %q: want observations, targets, truth, evaluations, options, arity, types, force-open or type", m.Key, pm.Key)
		}
	}
	if len(d.Types) > 0 {
		if d.Arity == 0 {
			d.Arity = len(d.Types)
		} else if d.Arity != len(d.Types) {
			return srcpos.Errorf(m.Pos, "predicate %s: arity %d but %d types", m.Key, d.Arity, len(d.Types))
		}
	}
	if d.Arity == 0 {
		return srcpos.Errorf(m.Pos, "predicate %q: give its arity as Name/arity (e.g. %s/2) or with \"arity\"", m.Key, name)
	}
	var sources []Source
	hasTargets := false
	for sec := store.Observations; sec <= store.Truth; sec++ {
		if parts[sec] == nil {
			continue
		}
		srcs, err := r.partition(d, sec, parts[sec])
		if err != nil {
			return err
		}
		if sec == store.Targets && len(srcs) > 0 {
			hasTargets = true
		}
		sources = append(sources, srcs...)
	}
	d.Closed = !(forceOpen || hasTargets)
	if evals != nil {
		specs, err := jsonEvaluations(m.Key, evals)
		if err != nil {
			return err
		}
		if len(specs) > 0 {
			if r.cfg.Evaluations == nil {
				r.cfg.Evaluations = make(map[string][]EvalSpec)
			}
			r.cfg.Evaluations[d.Name] = specs
		}
	}
	r.cfg.Predicates = append(r.cfg.Predicates, d)
	r.cfg.Sources = append(r.cfg.Sources, sources...)
	return nil
}

// partition reads an observations/targets/truth value and returns the
// sources of the "all" split and the selected one.
func (r *jsonConfigReader) partition(d PredicateDecl, sec store.Section, v *jsonValue) ([]Source, error) {
	var out []Source
	switch v.Kind {
	case jsonArray:
		return r.dataSpec(d, sec, "all", v, out)
	case jsonObject:
		for _, m := range v.Keys {
			known := false
			for _, s := range splitNames {
				known = known || m.Key == s
			}
			if !known {
				return nil, srcpos.Errorf(m.Pos, "%s of %s: unknown split %q: want all, learn, validation or infer", sec, d, m.Key)
			}
			if m.Value.Kind != jsonArray {
				return nil, srcpos.Errorf(m.Value.Pos, "%s of %s: split %s must be a list of files and rows, found %s", sec, d, m.Key, m.Value.Kind)
			}
			var err error
			if out, err = r.dataSpec(d, sec, m.Key, m.Value, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, srcpos.Errorf(v.Pos, "%s of %s must be a list of files and rows, or an object keyed by split (all, learn, validation, infer), found %s", sec, d, v.Kind)
}

// dataSpec reads a list of files and inline rows of one split, appending
// those of the selected split (and "all") to out.
func (r *jsonConfigReader) dataSpec(d PredicateDecl, sec store.Section, split string, v *jsonValue, out []Source) ([]Source, error) {
	use := split == "all" || split == r.part
	var rows []Row
	var rowsPos srcpos.Position
	flush := func() {
		if len(rows) > 0 {
			out = append(out, Source{Pred: d.Name, Section: sec, Rows: rows, Pos: rowsPos})
			rows = nil
		}
	}
	for _, it := range v.Items {
		switch it.Kind {
		case jsonString:
			if it.Text == "" {
				return nil, srcpos.Errorf(it.Pos, "%s of %s: empty file name", sec, d)
			}
			if !use {
				continue
			}
			file := resolve(r.cfg.Path, it.Text)
			if r.stat != nil {
				if err := r.stat(file); err != nil {
					return nil, srcpos.Errorf(it.Pos, "%s of %s: %v", sec, d, err)
				}
			}
			flush()
			out = append(out, Source{Pred: d.Name, Section: sec, File: file, Pos: it.Pos})
		case jsonArray:
			row, err := jsonRow(d, sec, it)
			if err != nil {
				return nil, err
			}
			if use {
				if len(rows) == 0 {
					rowsPos = it.Pos
				}
				rows = append(rows, row)
			}
		default:
			return nil, srcpos.Errorf(it.Pos, "%s of %s: expected a file name or a row such as [\"a\", \"b\"], found %s", sec, d, it.Kind)
		}
	}
	flush()
	return out, nil
}

// jsonRow reads one inline row.
func jsonRow(d PredicateDecl, sec store.Section, v *jsonValue) (Row, error) {
	row := Row{Pos: v.Pos}
	n := len(v.Items)
	if n != d.Arity && n != d.Arity+1 {
		return row, srcpos.Errorf(v.Pos, "%s of %s: a row has %d entries, want %d (the arguments) or %d (the arguments and a value)", sec, d, n, d.Arity, d.Arity+1)
	}
	for i, it := range v.Items {
		t, ok := it.scalarText()
		if !ok || it.Kind == jsonBool && i < d.Arity {
			return row, srcpos.Errorf(it.Pos, "%s of %s: row entries must be strings or numbers, found %s", sec, d, it.Kind)
		}
		if i == d.Arity {
			if it.Kind != jsonNumber && it.Kind != jsonString {
				return row, srcpos.Errorf(it.Pos, "%s of %s: the value must be a number in [0,1], found %s", sec, d, it.Kind)
			}
			x, err := num.Parse(strings.TrimSpace(it.Text))
			if err != nil {
				return row, srcpos.Errorf(it.Pos, "%s of %s: value %q is not a number", sec, d, it.Text)
			}
			if err := store.CheckValue(x); err != nil {
				return row, srcpos.Errorf(it.Pos, "%s of %s: %v", sec, d, err)
			}
			row.Value, row.HasValue = x, true
			break
		}
		if t == "" {
			return row, srcpos.Errorf(it.Pos, "%s of %s: argument %d is empty", sec, d, i+1)
		}
		row.Args = append(row.Args, t)
	}
	return row, nil
}

// jsonEvaluations reads a predicate's evaluations: a list (or a single one)
// of evaluator names and objects.
func jsonEvaluations(pred string, v *jsonValue) ([]EvalSpec, error) {
	items := v.Items
	if v.Kind != jsonArray {
		items = []*jsonValue{v}
	}
	var out []EvalSpec
	for _, it := range items {
		switch it.Kind {
		case jsonString:
			if it.Text == "" {
				return nil, srcpos.Errorf(it.Pos, "predicate %s: empty evaluator name", pred)
			}
			out = append(out, EvalSpec{Evaluator: it.Text, Pos: it.Pos})
		case jsonObject:
			e := EvalSpec{Pos: it.Pos}
			for _, m := range it.Keys {
				switch m.Key {
				case "evaluator":
					if m.Value.Kind != jsonString || m.Value.Text == "" {
						return nil, srcpos.Errorf(m.Value.Pos, "predicate %s: evaluator must be an evaluator name, found %s", pred, m.Value.Kind)
					}
					e.Evaluator = m.Value.Text
				case "options":
					opts, _, err := jsonOptions(m.Value, "evaluator options")
					if err != nil {
						return nil, err
					}
					e.Options = opts
				case "primary":
					if m.Value.Kind != jsonBool {
						return nil, srcpos.Errorf(m.Value.Pos, "predicate %s: primary must be true or false, found %s", pred, m.Value.Kind)
					}
					e.Primary = m.Value.Text == "true"
				default:
					return nil, srcpos.Errorf(m.Pos, "predicate %s: unknown evaluation key %q: want evaluator, options or primary", pred, m.Key)
				}
			}
			if e.Evaluator == "" {
				return nil, srcpos.Errorf(it.Pos, "predicate %s: evaluation without an \"evaluator\" name", pred)
			}
			out = append(out, e)
		default:
			return nil, srcpos.Errorf(it.Pos, "predicate %s: an evaluation is an evaluator name or an object with \"evaluator\", found %s", pred, it.Kind)
		}
	}
	return out, nil
}
