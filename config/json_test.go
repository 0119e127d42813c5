package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/srcpos"
	"github.com/hinge-srl/hinge/store"
)

func TestJSONConfigErrors(t *testing.T) {
	files := func(cfg string, extra ...string) map[string]string {
		m := map[string]string{"x.json": cfg, "k.txt": "a\tb\n"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	runConfigErrors(t, "x.json", []configErrorCase{
		{name: "syntax error",
			files: files("{\n  # comment\n  \"rules\": [\"1: A(X) -> B(X)\",]\n  \"predicates\": {}\n}"),
			want:  `x.json:4:3: unexpected '"', expected ',' or '}' after the value of "rules"`},
		{name: "not an object",
			files: files("[1]"),
			want:  `x.json:1:1: a config is a JSON object with rules, predicates and options, found an array`},
		{name: "unknown top-level key",
			files: files("{\"rule\": []}"),
			want:  `x.json:1:2: unknown key "rule": want rules, predicates, options, learn, validation or infer`},
		{name: "rule not a string",
			files: files("{\"rules\": [\"1: A(X)\", 2]}"),
			want:  `x.json:1:23: rules: each rule must be a string, found a number`},
		{name: "rules neither list nor file",
			files: files("{\"rules\": {}}"),
			want:  `x.json:1:11: rules must be a list of rule strings or the name of a .psl file, found an object`},
		{name: "missing rules file",
			files: files("{\"rules\": \"model.psl\"}"),
			want:  `x.json:1:11: rules: missing rules file $DIR/model.psl`},
		{name: "two rules files",
			files: files("{\"rules\": \"m.psl\", \"infer\": {\"rules\": \"m.psl\"}}", "m.psl", "1: A(X)\n"),
			want:  `x.json:1:39: a second rules file "m.psl": only one is supported (the first is at 1:11)`},
		{name: "missing data file names file and line",
			files: files("{\"predicates\": {\n  \"Link/2\": {\n    \"observations\": {\n      \"learn\": [\"nope.txt\"],\n      \"infer\": [\"k.txt\", \"../data/missing.txt\"]\n    }\n  }\n}}"),
			want:  `x.json:5:26: observations of Link/2: missing data file $DIR/../data/missing.txt`},
		{name: "missing file of the selected split only",
			files:     files("{\"predicates\": {\"Link/2\": {\"observations\": {\"learn\": [\"nope.txt\"], \"infer\": [\"k.txt\"]}}}}"),
			partition: "learn",
			want:      `x.json:1:55: observations of Link/2: missing data file $DIR/nope.txt`},
		{name: "row too long",
			files: files("{\"predicates\": {\"Smokes/1\": {\"observations\": [[\"Anna\", 1, 2]]}}}"),
			want:  `x.json:1:47: observations of Smokes/1: a row has 3 entries, want 1 (the arguments) or 2 (the arguments and a value)`},
		{name: "row value outside [0,1]",
			files: files("{\"predicates\": {\"Smokes/1\": {\"truth\": [[\"Anna\", 1.5]]}}}"),
			want:  `x.json:1:49: truth of Smokes/1: truth value 1.5 is outside [0,1]`},
		{name: "row value not a number",
			files: files("{\"predicates\": {\"Smokes/1\": {\"truth\": [[\"Anna\", \"yes\"]]}}}"),
			want:  `x.json:1:49: truth of Smokes/1: value "yes" is not a number`},
		{name: "row argument an object",
			files: files("{\"predicates\": {\"Smokes/1\": {\"truth\": [[{}]]}}}"),
			want:  `x.json:1:41: truth of Smokes/1: row entries must be strings or numbers, found an object`},
		{name: "empty argument",
			files: files("{\"predicates\": {\"Smokes/1\": {\"targets\": [[\"\"]]}}}"),
			want:  `x.json:1:43: targets of Smokes/1: argument 1 is empty`},
		{name: "data entry neither file nor row",
			files: files("{\"predicates\": {\"Smokes/1\": {\"targets\": [7]}}}"),
			want:  `x.json:1:42: targets of Smokes/1: expected a file name or a row such as ["a", "b"], found a number`},
		{name: "unknown split",
			files: files("{\"predicates\": {\"Link/2\": {\"observations\": {\"test\": [\"k.txt\"]}}}}"),
			want:  `x.json:1:45: observations of Link/2: unknown split "test": want all, learn, validation or infer`},
		{name: "split not a list",
			files: files("{\"predicates\": {\"Link/2\": {\"observations\": {\"infer\": \"k.txt\"}}}}"),
			want:  `x.json:1:54: observations of Link/2: split infer must be a list of files and rows, found a string`},
		{name: "partition not a list or object",
			files: files("{\"predicates\": {\"Link/2\": {\"truth\": \"k.txt\"}}}"),
			want:  `x.json:1:37: truth of Link/2 must be a list of files and rows, or an object keyed by split`},
		{name: "function predicate",
			files: files("{\"predicates\": {\"Sim/2\": {\"function\": \"org.example.Sim\"}}}"),
			want:  `x.json:1:27: predicate Sim/2: external function predicates ("function") are not supported`},
		{name: "deep predicate",
			files: files("{\"predicates\": {\"Cls/2\": {\"type\": \"DeepPredicate\"}}}"),
			want:  `x.json:1:35: predicate Cls/2: type DeepPredicate is not supported: only standard predicates (StandardPredicate) are`},
		{name: "unknown predicate key",
			files: files("{\"predicates\": {\"Link/2\": {\"closed\": true}}}"),
			want:  `x.json:1:28: predicate Link/2: unknown key "closed": want observations, targets, truth, evaluations, options, arity, types, force-open or type`},
		{name: "arity mismatch",
			files: files("{\"predicates\": {\"Link/2\": {\"arity\": 3}}}"),
			want:  `x.json:1:37: predicate Link/2: arity 3 does not match the 2 in its name`},
		{name: "types mismatch",
			files: files("{\"predicates\": {\"Link/2\": {\"types\": [\"UniqueIntID\"]}}}"),
			want:  `x.json:1:17: predicate Link/2: arity 2 but 1 types`},
		{name: "no arity",
			files: files("{\"predicates\": {\"Link\": {}}}"),
			want:  `x.json:1:17: predicate "Link": give its arity as Name/arity (e.g. Link/2) or with "arity"`},
		{name: "bad predicate key",
			files: files("{\"predicates\": {\"Link/two\": {}}}"),
			want:  `x.json:1:17: bad predicate "Link/two"`},
		{name: "predicate declared twice",
			files: files("{\"predicates\": {\"Link/2\": {}, \"LINK/2\": {}}}"),
			want:  `x.json:1:31: predicate LINK declared twice (first at 1:17)`},
		{name: "predicate not an object",
			files: files("{\"predicates\": {\"Link/2\": \"closed\"}}"),
			want:  `x.json:1:27: predicate Link/2 must be an object (with observations, targets, truth, ...), found a string`},
		{name: "force-open not a boolean",
			files: files("{\"predicates\": {\"Link/2\": {\"force-open\": \"yes\"}}}"),
			want:  `x.json:1:42: predicate Link/2: force-open must be true or false, found a string`},
		{name: "evaluation without evaluator",
			files: files("{\"predicates\": {\"Link/2\": {\"evaluations\": [{\"options\": {}}]}}}"),
			want:  `x.json:1:44: predicate Link/2: evaluation without an "evaluator" name`},
		{name: "evaluation unknown key",
			files: files("{\"predicates\": {\"Link/2\": {\"evaluations\": [{\"evaluator\": \"E\", \"weight\": 1}]}}}"),
			want:  `x.json:1:63: predicate Link/2: unknown evaluation key "weight": want evaluator, options or primary`},
		{name: "option not a scalar",
			files: files("{\"options\": {\"a\": {\"b\": 1}}}"),
			want:  `x.json:1:19: options: option "a" must be a string, number or boolean, found an object`},
		{name: "split with unknown key",
			files: files("{\"learn\": {\"predicates\": {}}}"),
			want:  `x.json:1:12: unknown key "predicates" in learn: want rules or options`},
		{name: "bad partition",
			files:     files("{}"),
			partition: "test",
			want:      `x.json: unknown partition "test": want infer, learn or validation`},
		{name: "observed and target inline",
			files: files("{\"predicates\": {\"Smokes/1\": {\n \"observations\": [[\"Anna\"]],\n \"targets\": [[\"Bob\"], [\"Anna\"]]}}}"),
			want:  `x.json:3:23: Smokes('Anna') is listed both as an observation and as a target`},
		{name: "observed twice inline",
			files: files("{\"predicates\": {\"Smokes/1\": {\"observations\": [[\"Anna\"], [\"Anna\", 0.5]]}}}"),
			want:  `x.json:1:57: Smokes('Anna') is observed twice, with values 1 and 0.5`},
		{name: "bad line in a data file",
			files: files("{\"predicates\": {\"Link/2\": {\"observations\": [\"k.txt\", \"v.txt\"]}}}", "v.txt", "a\tc\t0.5\na\tb\t7\n"),
			want:  `$DIR/v.txt:2:5: truth value 7 is outside [0,1]`},
	})
}

// TestJSONClosedness checks PSL 3's rule: open iff targets in "all" or the
// selected split, or force-open.
func TestJSONClosedness(t *testing.T) {
	src := `{"predicates": {
		"A/1": {"targets": [["x"]]},
		"B/1": {"targets": {"learn": [["x"]]}},
		"C/1": {"targets": {"infer": [["x"]]}},
		"D/1": {"observations": [["x"]], "force-open": true},
		"E/1": {"observations": [["x"]]},
		"F/1": {"targets": {"all": [], "validation": [["x"]]}}
	}}`
	want := map[string]map[string]bool{ // partition -> predicate -> closed
		"infer":      {"A": false, "B": true, "C": false, "D": false, "E": true, "F": true},
		"learn":      {"A": false, "B": false, "C": true, "D": false, "E": true, "F": true},
		"validation": {"A": false, "B": true, "C": true, "D": false, "E": true, "F": false},
	}
	for part, preds := range want {
		cfg, err := parseJSONConfig("c.json", []byte(src), part, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, closed := range preds {
			d, ok := cfg.Predicate(name)
			if !ok || d.Closed != closed {
				t.Errorf("partition %s: %s closed=%v, want %v", part, name, d.Closed, closed)
			}
		}
	}
}

// FuzzReadJSON: any input gives a config or a positioned error, never
// a panic; accepted configs are consistent.
func FuzzReadJSON(f *testing.F) {
	for _, p := range []string{"testdata/acq/acq.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Add([]byte(`{"predicates": {"Smokes/1": {"observations": [["Anna"], ["Bob", 0.5]], "targets": {"learn": [["C"]]}}}, "rules": ["1: Smokes(X)"]}`), uint8(1))
	f.Add([]byte(`{"predicates": {"P/1": {"targets": [["a"]]}}, "rules": ["1: P('\u0041') & P(\"b\") ->\n!P(X)"]}`), uint8(0))
	f.Add([]byte(`{"infer": {"rules": "m.psl", "options": {"a": 1}}, "predicates": {"P": {"types": ["A", "B"], "evaluations": "E"}}}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, part uint8) {
		partition := []string{"infer", "learn", "validation"}[part%3]
		cfg, err := parseJSONConfig("f.json", data, partition, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		hasTargets := make(map[string]bool)
		for _, s := range cfg.Sources {
			d, ok := cfg.Predicate(s.Pred)
			if !ok {
				t.Fatalf("source for undeclared predicate %s", s.Pred)
			}
			if s.Section == store.Targets {
				hasTargets[d.Name] = true
			}
			for _, r := range s.Rows {
				if len(r.Args) != d.Arity || r.HasValue && store.CheckValue(r.Value) != nil {
					t.Fatalf("bad row accepted for %s: %+v", d, r)
				}
			}
		}
		for _, d := range cfg.Predicates {
			if d.Arity < 1 {
				t.Fatalf("arity %d accepted", d.Arity)
			}
			if hasTargets[d.Name] && d.Closed {
				t.Fatalf("%s has targets but is closed", d)
			}
		}
		for _, r := range cfg.Rules {
			if r.Cols == nil {
				continue
			}
			if len(r.Cols) != len(r.Text)+1 || !slices.IsSorted(r.Cols) || int(r.Cols[0]) != r.Pos.Col {
				t.Fatalf("rule %q at %v: columns %v, want one per byte and the closing quote's, rising from the rule's", r.Text, r.Pos, r.Cols)
			}
		}
	})
}

// TestJSONOptionPositions: a config's options, the top level's then the
// selected split's, come with the place of each key, from ReadJSON and
// from ReadJSONOptions alike, so that a command applying them can name the
// line of one it refuses.
func TestJSONOptionPositions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	src := `{
  "options": {"a.x": 1,
    "b.y": "two"},
  "learn": {"options": {"a.x": 3}},
  "infer": {"rules": []},
  "predicates": {"P/1": {"observations": [["u"]]}}
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		part string
		want map[string]string // key -> value@line:col
	}{
		{"infer", map[string]string{"a.x": "1@2:15", "b.y": "two@3:5"}},
		{"learn", map[string]string{"a.x": "3@4:25", "b.y": "two@3:5"}},
	} {
		cfg, err := ReadJSON(path, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		opts, pos, err := ReadJSONOptions(path, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string][2]any{"ReadJSON": {cfg.Options, cfg.OptionPos}, "ReadJSONOptions": {opts, pos}} {
			o, p := got[0].(map[string]string), got[1].(map[string]srcpos.Position)
			if len(o) != len(tc.want) {
				t.Errorf("%s %s: options %v, want %v", tc.part, name, o, tc.want)
			}
			for k, w := range tc.want {
				if g := fmt.Sprintf("%s@%d:%d", o[k], p[k].Line, p[k].Col); g != w || p[k].File != path {
					t.Errorf("%s %s: %s = %s in %s, want %s", tc.part, name, k, g, p[k].File, w)
				}
			}
		}
	}
}
