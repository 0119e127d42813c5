// Package config reads what PSL says about data: a PSL CLI .data file
// (YAML) or a PSL 3 JSON config, with the predicates, rules, data files,
// inline rows and evaluators they name, and loads that data into a
// store.Store. Every error names file:line:col.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

// Config is what a PSL data description says, whichever file it came from:
// a PSL CLI .data file (YAML; ReadData) or a PSL 3 JSON config
// (ReadJSON). Declare adds its predicates to a model and Load reads its
// atoms into a store, so a command does the same thing for either input.
type Config struct {
	// Path is the .data or .json file the config was read from.
	Path string
	// Partition is the data split that was selected ("infer", "learn" or
	// "validation") for a JSON config; empty for a .data file.
	Partition string
	// Predicates are the declared predicates, in file order.
	Predicates []PredicateDecl
	// Rules are the rule strings of a JSON config, in order (the top-level
	// list, then the selected split's list), each with the position of its
	// first character in the JSON file. Empty for .data files.
	Rules []RuleSource
	// RulesFile is a .psl file named by the config (resolved against the
	// config's directory), if any; RulesFilePos is where it was named.
	RulesFile    string
	RulesFilePos srcpos.Position
	// Evaluations lists, by predicate name as declared, the evaluators the
	// config asks for.
	Evaluations map[string][]EvalSpec
	// Options are the config's option settings (top level, then the selected
	// split's, which override). Values are text as PSL takes them.
	Options map[string]string
	// OptionPos is where each of Options is set in the file (its key).
	OptionPos map[string]srcpos.Position
	// Sources are the data sources for observations, targets and truth, in
	// file order.
	Sources []Source
}

// PredicateDecl is one declared predicate.
type PredicateDecl struct {
	Name   string
	Arity  int
	Closed bool
	Pos    srcpos.Position // where the declaration is
	// Types are argument types if the config gives them (PSL's ConstantType
	// names). They are checked against the arity and otherwise unused.
	Types []string
	// Block records PSL's "block" flag from a .data file; unused.
	Block bool
	// Options are per-predicate options of a JSON config.
	Options map[string]string
}

// String returns Name/Arity.
func (d PredicateDecl) String() string { return d.Name + "/" + strconv.Itoa(d.Arity) }

// RuleSource is one rule string from a config.
type RuleSource struct {
	Text string
	// Pos is the position of the rule's first character inside the config
	// file.
	Pos srcpos.Position
	// Cols, when the JSON string has escape sequences (\", \u0051, \n),
	// is the column in the file of each byte of Text (an escape's
	// backslash for the bytes it stands for) and then of the closing
	// quote; nil when Text's byte k is at column Pos.Col+k.
	Cols []int32
}

// PosAt returns the position in the config file of Text's byte at off,
// or for off = len(Text) of the closing quote (syntax.ParseRuleAt's
// posAt).
func (r RuleSource) PosAt(off int) srcpos.Position {
	pos := r.Pos
	switch {
	case r.Cols == nil:
		pos.Col += off
	case off < len(r.Cols):
		pos.Col = int(r.Cols[off])
	case len(r.Cols) > 0:
		pos.Col = int(r.Cols[len(r.Cols)-1])
	}
	return pos
}

// EvalSpec is one evaluator requested for a predicate.
type EvalSpec struct {
	Evaluator string // e.g. "DiscreteEvaluator"
	Options   map[string]string
	Primary   bool
	Pos       srcpos.Position
}

// Source is one data source: a TSV file or (in JSON configs) rows written
// inline.
type Source struct {
	Pred    string // predicate name as declared
	Section store.Section
	// File is the data file's path resolved against the config's directory;
	// empty for inline rows.
	File string
	// Rows are inline rows (JSON configs only).
	Rows []Row
	// Pos is where the config names this source.
	Pos srcpos.Position
}

// Row is one inline atom: its arguments and, if given, its value (for
// targets, the initial value).
type Row struct {
	Args     []string
	Value    float64
	HasValue bool
	Pos      srcpos.Position
}

// Read reads a .data file (PSL CLI YAML) or a .json file (PSL 3
// config), chosen by the file's extension. partition selects the data split
// of a JSON config ("infer" when empty, "learn" or "validation"); .data files
// have no splits (PSL uses one .data file per split), so for them partition
// is ignored.
func Read(path, partition string) (*Config, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".data":
		return ReadData(path)
	case ".json":
		return ReadJSON(path, partition)
	}
	return nil, fmt.Errorf("%s: unknown kind of config: want a .data file (PSL CLI, YAML) or a .json file (PSL 3 config)", path)
}

// Predicate returns the declaration of the named predicate, ignoring case.
func (c *Config) Predicate(name string) (PredicateDecl, bool) {
	for _, d := range c.Predicates {
		if strings.EqualFold(d.Name, name) {
			return d, true
		}
	}
	return PredicateDecl{}, false
}

// Declare adds the config's predicates to m. A predicate m already has (in
// any case) must have the same arity; its closedness is set from the config.
func (c *Config) Declare(m *model.Model) error {
	for _, d := range c.Predicates {
		if _, err := m.AddPredicate(d.Name, d.Arity, d.Closed); err != nil {
			return srcpos.Errorf(d.Pos, "%v", err)
		}
	}
	return nil
}

// Load reads every data source of the config into s, in order. The
// predicates must be declared in s.Model (see Declare). Errors name the data
// file's line, or the config position of an inline row or of a file that
// cannot be opened.
func (c *Config) Load(s *store.Store) error {
	for _, src := range c.Sources {
		p := s.Model.Predicate(src.Pred)
		if p == nil {
			return srcpos.Errorf(src.Pos, "predicate %s is not declared in the model (call Config.Declare first)", src.Pred)
		}
		if src.File != "" {
			if err := loadFile(s, p, src); err != nil {
				return err
			}
		}
		for _, r := range src.Rows {
			if len(r.Args) != p.Arity {
				return srcpos.Errorf(r.Pos, "%s takes %d arguments, found %d", p, p.Arity, len(r.Args))
			}
			if err := addRow(s, p, src.Section, r); err != nil {
				return srcpos.Errorf(r.Pos, "%v", err)
			}
		}
	}
	return nil
}

// addRow adds an inline row of p's arity to a section of s.
func addRow(s *store.Store, p *model.Predicate, sec store.Section, r Row) error {
	v := 1.0
	if r.HasValue {
		v = r.Value
		if err := store.CheckValue(v); err != nil {
			return fmt.Errorf("%s: %v", store.AtomString(p, r.Args), err)
		}
	}
	switch sec {
	case store.Observations:
		return s.AddObservation(p, r.Args, v)
	case store.Truth:
		return s.AddTruth(p, r.Args, v)
	}
	if err := s.AddTarget(p, r.Args); err != nil || !r.HasValue {
		return err
	}
	ids := make([]int32, len(r.Args))
	for i, a := range r.Args {
		ids[i] = s.Dict.ID(a)
	}
	t := s.Table(p)
	row, _ := t.Find(ids)
	t.SetValue(row, v)
	return nil
}

func loadFile(s *store.Store, p *model.Predicate, src Source) error {
	f, err := textfile.Open(src.File)
	if err != nil {
		return srcpos.Errorf(src.Pos, "%s of %s: %v", src.Section, p, fileProblem(src.File, err))
	}
	defer f.Close()
	return store.LoadTSV(s, p, src.Section, f, src.File)
}

// fileProblem describes why a data file cannot be used.
func fileProblem(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("missing data file %s", textfile.Clip(path))
	}
	return fmt.Errorf("cannot read data file: %v", textfile.Describe(path, err))
}

// checkFile reports whether path names a readable regular file.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fileProblem(path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("data file %s is a directory", textfile.Clip(path))
	}
	return nil
}

// resolve makes a path named in the config at cfgPath relative to the
// config's directory (absolute paths stay as they are).
func resolve(cfgPath, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(cfgPath), p)
}

// parsePredicateKey splits "Name/arity" (or a bare "Name", arity 0).
func parsePredicateKey(key string) (name string, arity int, err error) {
	name = key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		name = key[:i]
		a := key[i+1:]
		n, aerr := strconv.Atoi(a)
		if aerr != nil || n < 1 || strings.ContainsAny(a, "+-") {
			return "", 0, fmt.Errorf("bad predicate %q: the arity after '/' must be a whole number >= 1, e.g. Knows/2", key)
		}
		arity = n
	}
	if !model.IsIdentifier(name) {
		return "", 0, fmt.Errorf("bad predicate %q: want Name/arity with Name an identifier (letters, digits, '_' or '$', not starting with a digit), e.g. Knows/2", key)
	}
	return name, arity, nil
}

// declNames lists declared predicates for messages.
func declNames(decls []PredicateDecl) string {
	if len(decls) == 0 {
		return "none"
	}
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.String()
	}
	return strings.Join(names, ", ")
}
