package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
	"go.yaml.in/yaml/v3"
)

// ReadData reads a PSL CLI .data file: YAML with the sections
//
//	predicates:            # Name/arity: open | closed
//	  Knows/2: open
//	  Lived/2: closed
//	observations:          # predicate: file, or a list of files
//	  Knows: knows_obs.txt
//	targets:
//	  Knows: [knows_targets_1.txt, knows_targets_2.txt]
//	truth:
//	  Knows: knows_truth.txt
//
// A predicate may also be declared in PSL's long form, a list such as
// "[closed, {types: [UniqueIntID, String]}, block]"; with types the arity
// may be left out of the name. Types and block are recorded and otherwise
// unused. Names in the data sections match declarations case-insensitively.
// File paths are relative to the .data file and must exist.
//
// Errors name path:line:col: an unknown or repeated section (an unknown
// top-level section is an error, as in PSL), a bad Name/arity, a misspelt
// open/closed, a predicate used but not declared, targets for a closed
// predicate, an entry without its colon ("Friends/2" alone on its line,
// which YAML reads as text running into the next entry), and a missing
// data file (naming the file and the line that refers to it).
func ReadData(path string) (*Config, error) {
	src, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDataFile(path, src, checkFile)
}

// yamlLine finds the line number in yaml.v3's error messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are yaml.v3's parser (not scanner) error messages,
// whose line numbers it reports 0-based.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// parseDataFile parses a .data file's contents; stat checks data files.
func parseDataFile(path string, src []byte, stat func(string) error) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		if e := missingColon(path, src, err); e != nil {
			return nil, e
		}
		return nil, yamlError(path, err)
	}
	at := func(n *yaml.Node) srcpos.Position { return srcpos.Position{File: path, Line: n.Line, Col: n.Column} }
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty data file: want the sections predicates, observations, targets and truth", path)
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, srcpos.Errorf(at(root), "a data file is a mapping of sections (predicates, observations, targets, truth), found %s", yamlKind(root))
	}
	cfg := &Config{Path: path}
	sections, order, err := dataSections(root, at)
	if err != nil {
		return nil, err
	}
	preds, ok := sections["predicates"]
	if !ok {
		return nil, fmt.Errorf("%s: no predicates section: declare each predicate as Name/arity: open or closed", path)
	}
	if preds.Kind != yaml.MappingNode {
		if !isNull(preds) {
			return nil, srcpos.Errorf(at(preds), "predicates must map Name/arity to open or closed, found %s%s", yamlKind(preds), colonHint("predicates", preds))
		}
	}
	for i := 0; i+1 < len(preds.Content); i += 2 {
		k, v := deref(preds.Content[i]), deref(preds.Content[i+1])
		d, err := dataPredicate(k, v, at)
		if err != nil {
			return nil, err
		}
		if prev, dup := cfg.Predicate(d.Name); dup {
			return nil, srcpos.Errorf(d.Pos, "predicate %s declared twice (first at %d:%d)", d.Name, prev.Pos.Line, prev.Pos.Col)
		}
		cfg.Predicates = append(cfg.Predicates, d)
	}
	for _, name := range order {
		var what store.Section
		switch name {
		case "observations":
			what = store.Observations
		case "targets":
			what = store.Targets
		case "truth":
			what = store.Truth
		default:
			continue
		}
		sec := sections[name]
		if isNull(sec) {
			continue
		}
		if sec.Kind != yaml.MappingNode {
			return nil, srcpos.Errorf(at(sec), "%s must map predicate names to files, found %s%s", name, yamlKind(sec), colonHint(name, sec))
		}
		if err := cfg.dataFiles(name, what, sec, at, stat); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// yamlError turns a yaml.v3 error into path:line: YAML: problem.
func yamlError(path string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			// yaml.v3 reports the 0-based line of the construct being
			// parsed for parser (not scanner) errors.
			line++
		}
		return fmt.Errorf("%s:%d: YAML: %s", path, line, m[2])
	}
	return fmt.Errorf("%s: %s", path, strings.Replace(msg, "yaml: ", "YAML: ", 1))
}

// missingColon explains a YAML error that an entry without its colon
// causes ("Friends/2" on a line of its own, or "Friends/2 closed"): YAML
// reads such a line as text running on into the next entry, and reports
// "mapping values are not allowed in this context" on the next line, or
// "could not find expected ':'" on the line itself when no entry follows.
// It returns the error naming the line without a colon, or nil when the
// YAML error is something else.
func missingColon(path string, src []byte, yerr error) error {
	m := yamlLine.FindStringSubmatch(yerr.Error())
	if m == nil {
		return nil
	}
	errLine, _ := strconv.Atoi(m[1])
	lines := strings.Split(string(src), "\n")
	// The lines without a colon that run into the error: from the error
	// line ("could not find expected ':'", the line itself) or the line
	// before it (the error line has the next entry's colon) back over
	// blank and comment lines.
	last := errLine - 1 // 0-based index of the line to start from
	switch m[2] {
	case "could not find expected ':'":
	case "mapping values are not allowed in this context":
		last--
	case "did not find expected key": // a comment ended the text
		// A parser error: its line is 0-based, so errLine is the 1-based
		// number of the line before the error line, and last indexes it.
	default:
		return nil
	}
	if last < 0 || last >= len(lines) {
		return nil
	}
	var bad []int                      // 0-based, last first
	content := func(l string) string { // the line without its comment
		l = strings.TrimSuffix(l, "\r")
		if i := strings.Index(l, " #"); i >= 0 {
			l = l[:i]
		}
		return strings.TrimSpace(l)
	}
	for i := last; i >= 0; i-- {
		t := content(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.ContainsAny(t, ":[]{}\"'") || strings.HasPrefix(t, "-") {
			break
		}
		bad = append(bad, i)
	}
	if len(bad) == 0 {
		return nil
	}
	first := bad[len(bad)-1]
	also := ""
	if len(bad) > 1 {
		var ns []string
		for i := len(bad) - 2; i >= 0; i-- {
			ns = append(ns, strconv.Itoa(bad[i]+1))
		}
		also = fmt.Sprintf(" (nor has line %s)", ns[0])
		if len(ns) > 1 {
			also = fmt.Sprintf(" (nor have lines %s)", strings.Join(ns, ", "))
		}
	}
	text := content(lines[first])
	indent := len(lines[first]) - len(strings.TrimLeft(lines[first], " \t"))
	// The section is the last top-level "name:" line above.
	section := ""
	if indent > 0 {
		for i := first - 1; i >= 0; i-- {
			l := strings.TrimSuffix(lines[i], "\r")
			if l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '#' {
				section, _, _ = strings.Cut(l, ":")
				section = strings.ToLower(strings.TrimSpace(section))
				break
			}
		}
	}
	return srcpos.Errorf(srcpos.Position{File: path, Line: first + 1, Col: indent + 1}, "entry %q has no colon%s: %s", text, also, colonFix(section, text))
}

// colonHint is, for a section whose value is text (an entry without its
// colon directly under the section), what to write instead.
func colonHint(section string, v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		return ""
	}
	return ": if it is an entry, it has no colon: " + colonFix(section, v.Value)
}

// colonFix says how to write text, an entry of section ("" at the top
// level) that lacks its colon.
func colonFix(section, text string) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return "every entry is key: value"
	}
	if len(words) > 1 {
		return fmt.Sprintf("write %q", words[0]+": "+strings.Join(words[1:], " "))
	}
	w := words[0]
	switch section {
	case "":
		return fmt.Sprintf("a section is written %q", w+":")
	case "predicates":
		return fmt.Sprintf("say whether it is open or closed, %q or %q", w+": open", w+": closed")
	case "observations", "targets", "truth":
		return fmt.Sprintf("name its data file, %q", w+": FILE.txt")
	}
	return fmt.Sprintf("write %q", w+": VALUE")
}

// dataSections returns the sections of a .data file by lower-case name,
// and their names in file order.
func dataSections(root *yaml.Node, at func(*yaml.Node) srcpos.Position) (map[string]*yaml.Node, []string, error) {
	sections := make(map[string]*yaml.Node)
	var order []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), deref(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, nil, srcpos.Errorf(at(k), "a section name must be a plain word, found %s", yamlKind(k))
		}
		name := strings.ToLower(k.Value)
		switch name {
		case "predicates", "observations", "targets", "truth":
		default:
			return nil, nil, srcpos.Errorf(at(k), "unknown section %q: want predicates, observations, targets or truth", k.Value)
		}
		if _, dup := sections[name]; dup {
			return nil, nil, srcpos.Errorf(at(k), "section %s given twice", name)
		}
		sections[name] = v
		order = append(order, name)
	}
	return sections, order, nil
}

// dataFiles adds the files of one data section (observations, targets or
// truth: what) to c.Sources, checking each with stat when it is not nil.
func (c *Config) dataFiles(name string, what store.Section, sec *yaml.Node, at func(*yaml.Node) srcpos.Position, stat func(string) error) error {
	path := c.Path
	seen := make(map[string]srcpos.Position)
	for i := 0; i+1 < len(sec.Content); i += 2 {
		k, v := deref(sec.Content[i]), deref(sec.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return srcpos.Errorf(at(k), "%s: expected a predicate name, found %s", name, yamlKind(k))
		}
		if first, dup := seen[strings.ToLower(k.Value)]; dup {
			return srcpos.Errorf(at(k), "%s: %s given twice (first at %d:%d); list several files as [a.txt, b.txt]", name, k.Value, first.Line, first.Col)
		}
		seen[strings.ToLower(k.Value)] = at(k)
		pname := k.Value
		if j := strings.LastIndexByte(pname, '/'); j >= 0 {
			pname = pname[:j] // tolerate Name/arity here too; the arity is checked below
		}
		d, ok := c.Predicate(pname)
		if !ok {
			return srcpos.Errorf(at(k), "%s: unknown predicate %q (declared: %s)", name, k.Value, declNames(c.Predicates))
		}
		if pname != k.Value {
			if _, ar, err := parsePredicateKey(k.Value); err != nil || ar != d.Arity {
				return srcpos.Errorf(at(k), "%s: %q does not match the declaration %s", name, k.Value, d)
			}
		}
		if what == store.Targets && d.Closed {
			return srcpos.Errorf(at(k), "targets given for %s, which is declared closed (fully observed) at %d:%d; declare it open", d, d.Pos.Line, d.Pos.Col)
		}
		var files []*yaml.Node
		switch v.Kind {
		case yaml.ScalarNode:
			if !isNull(v) {
				files = []*yaml.Node{v}
			}
		case yaml.SequenceNode:
			for _, f := range v.Content {
				files = append(files, deref(f))
			}
		}
		if len(files) == 0 {
			return srcpos.Errorf(at(k), "%s of %s: expected a file name or a list of file names", name, d)
		}
		for _, f := range files {
			if f.Kind != yaml.ScalarNode || isNull(f) || f.Value == "" {
				return srcpos.Errorf(at(f), "%s of %s: expected a file name, found %s", name, d, yamlKind(f))
			}
			file := resolve(path, f.Value)
			if stat != nil {
				if err := stat(file); err != nil {
					return srcpos.Errorf(at(f), "%s of %s: %v", name, d, err)
				}
			}
			c.Sources = append(c.Sources, Source{Pred: d.Name, Section: what, File: file, Pos: at(f)})
		}
	}
	return nil
}

// dataPredicate parses one entry of the predicates section.
func dataPredicate(k, v *yaml.Node, at func(*yaml.Node) srcpos.Position) (PredicateDecl, error) {
	if k.Kind != yaml.ScalarNode {
		return PredicateDecl{}, srcpos.Errorf(at(k), "expected a predicate Name/arity, found %s", yamlKind(k))
	}
	name, arity, err := parsePredicateKey(k.Value)
	if err != nil {
		return PredicateDecl{}, srcpos.Errorf(at(k), "%v", err)
	}
	d := PredicateDecl{Name: name, Arity: arity, Pos: at(k)}
	var items []*yaml.Node
	switch v.Kind {
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			items = append(items, deref(it))
		}
	default:
		return d, srcpos.Errorf(at(v), "predicate %s: expected open or closed, found %s", k.Value, yamlKind(v))
	}
	seenOC := false
	for _, it := range items {
		switch it.Kind {
		case yaml.ScalarNode:
			if isNull(it) {
				return d, srcpos.Errorf(at(k), "predicate %s: say whether it is open or closed", k.Value)
			}
			w := strings.ToLower(it.Value)
			switch w {
			case "open", "closed":
				if seenOC {
					return d, srcpos.Errorf(at(it), "predicate %s: open or closed given twice", k.Value)
				}
				seenOC = true
				d.Closed = w == "closed"
			case "block":
				d.Block = true
			default:
				return d, srcpos.Errorf(at(it), "predicate %s: %q is not open or closed%s", k.Value, it.Value, suggestOpenClosed(w))
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(it.Content); j += 2 {
				mk, mv := deref(it.Content[j]), deref(it.Content[j+1])
				if mk.Kind != yaml.ScalarNode || mk.Value != "types" {
					return d, srcpos.Errorf(at(mk), "predicate %s: unknown property %q (want types)", k.Value, mk.Value)
				}
				if mv.Kind != yaml.SequenceNode {
					return d, srcpos.Errorf(at(mv), "predicate %s: types must be a list of type names, found %s", k.Value, yamlKind(mv))
				}
				d.Types = d.Types[:0]
				for _, t := range mv.Content {
					t = deref(t)
					if t.Kind != yaml.ScalarNode || isNull(t) {
						return d, srcpos.Errorf(at(t), "predicate %s: a type must be a name such as UniqueIntID, found %s", k.Value, yamlKind(t))
					}
					d.Types = append(d.Types, t.Value)
				}
			}
		default:
			return d, srcpos.Errorf(at(it), "predicate %s: expected open, closed, block or {types: [...]}, found %s", k.Value, yamlKind(it))
		}
	}
	if !seenOC {
		return d, srcpos.Errorf(at(k), "predicate %s: say whether it is open or closed", k.Value)
	}
	if len(d.Types) > 0 {
		if d.Arity == 0 {
			d.Arity = len(d.Types)
		} else if d.Arity != len(d.Types) {
			return d, srcpos.Errorf(at(k), "predicate %s: arity %d but %d types", k.Value, d.Arity, len(d.Types))
		}
	}
	if d.Arity == 0 {
		return d, srcpos.Errorf(at(k), "predicate %q: give its arity as Name/arity, e.g. %s/2", k.Value, name)
	}
	return d, nil
}

// suggestOpenClosed suggests the word a misspelling probably meant.
func suggestOpenClosed(w string) string {
	switch {
	case strings.HasPrefix(w, "o") || strings.HasSuffix(w, "pen"):
		return ` (did you mean "open"?)`
	case strings.HasPrefix(w, "c") || strings.HasSuffix(w, "sed"):
		return ` (did you mean "closed"?)`
	}
	return ""
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "an empty document"
}
