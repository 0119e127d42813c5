package syntax

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// dataDir returns the shared data directory, skipping the test when the
// PSL examples are absent.
func dataDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(shareddata.Require(t, "psl-examples"))
}

// stripJSONComments blanks '#' and '//' comments outside strings, keeping
// every byte offset (PSL's example configs have '#' comment lines).
func stripJSONComments(src []byte) []byte {
	out := append([]byte(nil), src...)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == '#' || c == '/' && i+1 < len(out) && out[i+1] == '/'):
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		}
	}
	return out
}

// ruleString is one rule string of a JSON config and where it starts.
type ruleString struct {
	text string
	at   srcpos.Position
}

// jsonRules finds the string elements of the top-level "rules" array with
// the position of their first character (after the quote).
func jsonRules(t *testing.T, file string, src []byte) []ruleString {
	t.Helper()
	i := strings.Index(string(src), `"rules"`)
	if i < 0 {
		t.Fatalf("%s: no \"rules\"", file)
	}
	i += len(`"rules"`)
	skip := func() {
		for i < len(src) && strings.IndexByte(" \t\r\n:,", src[i]) >= 0 {
			i++
		}
	}
	skip()
	if i >= len(src) || src[i] != '[' {
		t.Fatalf("%s: \"rules\" is not a list", file)
	}
	i++
	var out []ruleString
	for {
		skip()
		if i >= len(src) || src[i] == ']' {
			return out
		}
		if src[i] != '"' {
			t.Fatalf("%s: offset %d: expected a rule string", file, i)
		}
		start := i
		for i++; i < len(src) && src[i] != '"'; i++ {
			if src[i] == '\\' {
				i++
			}
		}
		i++
		var text string
		if err := json.Unmarshal(src[start:i], &text); err != nil {
			t.Fatalf("%s: offset %d: %v", file, start, err)
		}
		line := 1 + strings.Count(string(src[:start]), "\n")
		col := start + 1 - (strings.LastIndexByte(string(src[:start]), '\n') + 1) + 1
		out = append(out, ruleString{text, srcpos.Position{File: file, Line: line, Col: col}})
	}
}

// TestPSLExampleConfigs parses every rule of the PSL example JSON configs,
// adds it to a model declared from the config's predicates, and checks the
// round trip.
func TestPSLExampleConfigs(t *testing.T) {
	dir := dataDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "psl-examples", "models", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no PSL example configs under %s", dir)
	}
	wantRules := map[string]int{"citeseer.json": 11, "cora.json": 11, "simple-acquaintances.json": 6, "smokers.json": 5}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := stripJSONComments(raw)
			var cfg struct {
				Predicates map[string]struct {
					Targets json.RawMessage `json:"targets"`
				} `json:"predicates"`
			}
			if err := json.Unmarshal(src, &cfg); err != nil {
				t.Fatal(err)
			}
			m := model.New()
			for key, p := range cfg.Predicates {
				name, arity, ok := strings.Cut(key, "/")
				n, err := strconv.Atoi(arity)
				if !ok || err != nil {
					t.Fatalf("predicate key %q", key)
				}
				if _, err := m.AddPredicate(name, n, len(p.Targets) == 0); err != nil {
					t.Fatal(err)
				}
			}
			var rules []*model.Rule
			for _, rs := range jsonRules(t, file, src) {
				r, err := ParseRule(rs.text, rs.at)
				if err != nil {
					t.Errorf("%s: %q: %v", rs.at, rs.text, err)
					continue
				}
				if r.Pos != rs.at {
					t.Errorf("rule at %s, want %s", r.Pos, rs.at)
				}
				if r.Text != strings.TrimSpace(rs.text) {
					t.Errorf("Text %q, want %q", r.Text, rs.text)
				}
				if err := m.AddRule(r); err != nil {
					t.Errorf("%q: %v", rs.text, err)
				}
				rules = append(rules, r)
			}
			if w, ok := wantRules[filepath.Base(file)]; ok && len(rules) != w {
				t.Errorf("%d rules, want %d", len(rules), w)
			}
			checkRoundTrip(t, rules)
		})
	}
}

// TestDrugInteraction parses the drug-interaction example (old PSL syntax:
// '-' as not-equal, '>>', '~'), declares its predicates from its .data file,
// and checks structure and round trip.
func TestDrugInteraction(t *testing.T) {
	dir := filepath.Join(dataDir(t), "psl-examples", "drug-interaction")
	file := filepath.Join(dir, "drug-interaction.psl")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("drug-interaction example not found: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "drug-interaction-learn.data"))
	if err != nil {
		t.Skipf("drug-interaction .data not found: %v", err)
	}
	var decl struct {
		Predicates map[string]string `yaml:"predicates"`
	}
	if err := yaml.Unmarshal(data, &decl); err != nil {
		t.Fatal(err)
	}
	m := model.New()
	for key, kind := range decl.Predicates {
		name, arity, _ := strings.Cut(key, "/")
		n, err := strconv.Atoi(arity)
		if err != nil {
			t.Fatalf("predicate key %q", key)
		}
		if _, err := m.AddPredicate(name, n, kind == "closed"); err != nil {
			t.Fatal(err)
		}
	}
	if err := ParseModel(file, src, m); err != nil {
		t.Fatal(err)
	}
	if len(m.Rules) != 9 {
		t.Fatalf("%d rules, want 9", len(m.Rules))
	}
	first := "w=1 sq (-> (& ATCSimilarity(D1,D2) interacts(D1,D3) validInteraction(D1,D3) validInteraction(D2,D3) (!= D2 D3) (!= D1 D2)) interacts(D2,D3))"
	checks := map[int]string{
		0: first,
		7: "w=1 sq (-> validInteraction(D1,D2) (! interacts(D1,D2)))",
		8: "w=1 sq [interacts(D1,D2)] = [interacts(D2,D1)]",
	}
	for i, want := range checks {
		if got := sexpr(m.Rules[i]); got != want {
			t.Errorf("rule %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
	if m.Rules[7].Comment != "//prior" {
		t.Errorf("prior comment %q", m.Rules[7].Comment)
	}
	if p := m.Rules[8].Pos; p.Line != 12 || p.Col != 1 {
		t.Errorf("last rule at %s", p)
	}
	checkRoundTrip(t, m.Rules)
}
