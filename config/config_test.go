package config

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// summarize describes a config and the store it loads into, for golden
// files: declarations, sources, rules, evaluations, options, and per
// predicate the number of observed, target and truth atoms with the sum of
// their values.
func summarize(cfg *Config, s *store.Store) string {
	var b strings.Builder
	fmt.Fprintf(&b, "config %s partition %q\n", filepath.ToSlash(cfg.Path), cfg.Partition)
	for _, d := range cfg.Predicates {
		state := "open"
		if d.Closed {
			state = "closed"
		}
		fmt.Fprintf(&b, "predicate %s %s at %d:%d types=%v block=%v options=%v\n", d, state, d.Pos.Line, d.Pos.Col, d.Types, d.Block, d.Options)
	}
	for _, src := range cfg.Sources {
		if src.File != "" {
			fmt.Fprintf(&b, "source %s %s file %s at %d:%d\n", src.Section, src.Pred, filepath.ToSlash(src.File), src.Pos.Line, src.Pos.Col)
			continue
		}
		fmt.Fprintf(&b, "source %s %s %d rows at %d:%d:", src.Section, src.Pred, len(src.Rows), src.Pos.Line, src.Pos.Col)
		for _, r := range src.Rows {
			fmt.Fprintf(&b, " %v", r.Args)
			if r.HasValue {
				fmt.Fprintf(&b, "=%v", r.Value)
			}
		}
		b.WriteString("\n")
	}
	for _, r := range cfg.Rules {
		fmt.Fprintf(&b, "rule at %d:%d %q\n", r.Pos.Line, r.Pos.Col, r.Text)
	}
	if cfg.RulesFile != "" {
		fmt.Fprintf(&b, "rules file %s at %d:%d\n", filepath.ToSlash(cfg.RulesFile), cfg.RulesFilePos.Line, cfg.RulesFilePos.Col)
	}
	var names []string
	for n := range cfg.Evaluations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, e := range cfg.Evaluations[n] {
			fmt.Fprintf(&b, "evaluation %s %s primary=%v options=%v at %d:%d\n", n, e.Evaluator, e.Primary, e.Options, e.Pos.Line, e.Pos.Col)
		}
	}
	var keys []string
	for k := range cfg.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "option %s = %s\n", k, cfg.Options[k])
	}
	if s != nil {
		for _, p := range s.Model.Predicates {
			obs, tgt, tru := 0, 0, 0
			var sumObs, sumTgt, sumTru float64
			t := s.Table(p)
			for row := 0; row < t.Len(); row++ {
				if t.Kind(row) == store.Target {
					tgt++
					sumTgt += t.Value(row)
				} else {
					obs++
					sumObs += t.Value(row)
				}
			}
			tt := s.Truth(p)
			for row := 0; row < tt.Len(); row++ {
				tru++
				sumTru += tt.Value(row)
			}
			fmt.Fprintf(&b, "loaded %s closed=%v: %d observed (sum %.4g), %d targets (sum %.4g), %d truth (sum %.4g)\n",
				p, p.Closed, obs, sumObs, tgt, sumTgt, tru, sumTru)
		}
		fmt.Fprintf(&b, "constants %d\n", s.Dict.Len())
	}
	return b.String()
}

// loadConfig reads a config, declares it into a new model and loads a store.
func loadConfig(path, partition string) (*Config, *store.Store, error) {
	cfg, err := Read(path, partition)
	if err != nil {
		return nil, nil, err
	}
	m := model.New()
	if err := cfg.Declare(m); err != nil {
		return cfg, nil, err
	}
	s := store.New(m)
	if err := cfg.Load(s); err != nil {
		return cfg, s, err
	}
	return cfg, s, nil
}

func TestConfigGolden(t *testing.T) {
	tests := []struct{ path, partition, golden string }{
		{"testdata/acq/acq.data", "", "testdata/acq/acq.data.golden"},
		{"testdata/acq/acq.json", "", "testdata/acq/acq.json.infer.golden"},
		{"testdata/acq/acq.json", "learn", "testdata/acq/acq.json.learn.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			cfg, s, err := loadConfig(tt.path, tt.partition)
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(cfg, s)
			if *update {
				if err := os.WriteFile(tt.golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tt.golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("summary differs from %s (run go test -update after checking):\n%s", tt.golden, got)
			}
		})
	}
}

// TestDataAndJSONAgree loads the same data through the .data file and the
// JSON config and checks both stores hold the same atoms.
func TestDataAndJSONAgree(t *testing.T) {
	_, s1, err := loadConfig("testdata/acq/acq.data", "")
	if err != nil {
		t.Fatal(err)
	}
	_, s2, err := loadConfig("testdata/acq/acq.json", "infer")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Lived", "Knows"} {
		p1, p2 := s1.Model.Predicate(name), s2.Model.Predicate(name)
		if p1.Closed != p2.Closed {
			t.Errorf("%s: closed %v in .data, %v in JSON", name, p1.Closed, p2.Closed)
		}
		if a, b := tableAtoms(s1, s1.Table(p1)), tableAtoms(s2, s2.Table(p2)); !maps.Equal(a, b) {
			t.Errorf("%s: .data %v\nJSON %v", name, a, b)
		}
	}
	// The JSON adds two inline Likes rows and one inline truth row.
	l1, l2 := tableAtoms(s1, s1.Table(s1.Model.Predicate("Likes"))), tableAtoms(s2, s2.Table(s2.Model.Predicate("Likes")))
	if len(l2) != len(l1)+2 || l2["Frank|Chess"] != (atomRec{0.5, store.Observed}) || l2["Gina|Chess"] != (atomRec{1, store.Observed}) {
		t.Errorf("Likes: .data %v\nJSON %v", l1, l2)
	}
	tr1, tr2 := tableAtoms(s1, s1.Truth(s1.Model.Predicate("Knows"))), tableAtoms(s2, s2.Truth(s2.Model.Predicate("Knows")))
	if len(tr2) != len(tr1)+1 || tr2["Zed|Yan"] != (atomRec{1, store.Observed}) {
		t.Errorf("Knows truth: .data %v\nJSON %v", tr1, tr2)
	}
}

func TestReadKind(t *testing.T) {
	_, err := Read("model.yaml", "")
	if err == nil || !strings.Contains(err.Error(), "model.yaml: unknown kind of config") {
		t.Fatalf("got %v", err)
	}
	_, err = Read(filepath.Join(t.TempDir(), "none.data"), "")
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("got %v", err)
	}
}

func TestDeclareConflict(t *testing.T) {
	cfg, err := ReadData("testdata/acq/acq.data")
	if err != nil {
		t.Fatal(err)
	}
	m := model.New()
	if _, err := m.AddPredicate("knows", 3, false); err != nil {
		t.Fatal(err)
	}
	err = cfg.Declare(m)
	if err == nil || !strings.Contains(err.Error(), "acq.data:5:3: predicate Knows declared with arity 3 and 2") {
		t.Fatalf("got %v", err)
	}
	// Loading into a model that lacks the predicates is an error, not a panic.
	err = cfg.Load(store.New(model.New()))
	if err == nil || !strings.Contains(err.Error(), "predicate Lived is not declared in the model") {
		t.Fatalf("got %v", err)
	}
}

// configErrorCase is a config (and its data files) that must fail, at read
// or at load time, with an error containing want.
type configErrorCase struct {
	name      string
	files     map[string]string // file name -> contents; the config is the first key ending in .data or .json
	partition string
	want      string
}

func runConfigErrors(t *testing.T, cfgName string, tests []configErrorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := loadConfig(filepath.Join(dir, cfgName), tt.partition)
			want := tt.want
			if i := strings.Index(want, "$DIR/../"); i >= 0 {
				want = want[:i] + filepath.Dir(dir) + "/" + want[i+len("$DIR/../"):]
			}
			want = strings.ReplaceAll(want, "$DIR", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got error %v\nwant it to contain %q", err, want)
			}
		})
	}
}

type atomRec struct {
	value float64
	kind  store.Kind
}

func tableAtoms(s *store.Store, t *store.Table) map[string]atomRec {
	out := make(map[string]atomRec, t.Len())
	for row := 0; row < t.Len(); row++ {
		out[strings.Join(s.Names(t.Args(row)), "|")] = atomRec{t.Value(row), t.Kind(row)}
	}
	return out
}
