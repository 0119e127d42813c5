package config

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/measure"
	"github.com/hinge-srl/hinge/internal/shareddata"
	"github.com/hinge-srl/hinge/store"
)

// naiveKeys is an independent count of a TSV file's atoms: the distinct
// argument tuples of its non-blank lines.
func naiveKeys(t *testing.T, path string, arity int, into map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		into[strings.Join(strings.Split(line, "\t")[:arity], "\t")] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestPSLExamples loads every config in shared/data/psl-examples and checks
// the atom counts against a naive count of the same files and rows.
func TestPSLExamples(t *testing.T) {
	root := shareddata.Require(t, "psl-examples")
	configs := []struct {
		path, partition string
	}{
		{"drug-interaction/drug-interaction-eval.data", ""},
		{"drug-interaction/drug-interaction-learn.data", ""},
		{"models/simple-acquaintances.json", "infer"},
		{"models/smokers.json", "infer"},
	}
	for _, c := range configs {
		t.Run(c.path, func(t *testing.T) {
			cfg, s, err := loadConfig(filepath.Join(root, c.path), c.partition)
			if err != nil {
				t.Fatal(err)
			}
			// Expected counts, per predicate and section, from the naive reader.
			want := make(map[string][3]map[string]bool)
			for _, src := range cfg.Sources {
				d, _ := cfg.Predicate(src.Pred)
				w := want[d.Name]
				if w[src.Section] == nil {
					w[src.Section] = make(map[string]bool)
				}
				if src.File != "" {
					naiveKeys(t, src.File, d.Arity, w[src.Section])
				}
				for _, r := range src.Rows {
					w[src.Section][strings.Join(r.Args, "\t")] = true
				}
				want[d.Name] = w
			}
			totalObs, totalTgt, totalTruth := 0, 0, 0
			for _, d := range cfg.Predicates {
				p := s.Model.Predicate(d.Name)
				obs, tgt := 0, 0
				tab := s.Table(p)
				for row := 0; row < tab.Len(); row++ {
					if tab.Kind(row) == store.Target {
						tgt++
					} else {
						obs++
					}
				}
				truth := s.Truth(p).Len()
				w := want[d.Name]
				if obs != len(w[store.Observations]) || tgt != len(w[store.Targets]) || truth != len(w[store.Truth]) {
					t.Errorf("%s: loaded %d observed, %d targets, %d truth; the files hold %d, %d, %d",
						d, obs, tgt, truth, len(w[store.Observations]), len(w[store.Targets]), len(w[store.Truth]))
				}
				if p.Closed != d.Closed || d.Closed && tgt > 0 {
					t.Errorf("%s: closed %v in the model, %v in the config, %d targets", d, p.Closed, d.Closed, tgt)
				}
				t.Logf("%-24s %-6s %7d observed %6d targets %6d truth", d, map[bool]string{true: "closed", false: "open"}[d.Closed], obs, tgt, truth)
				totalObs += obs
				totalTgt += tgt
				totalTruth += truth
			}
			t.Logf("total: %d observed, %d targets, %d truth atoms over %d constants; %d rules in the config",
				totalObs, totalTgt, totalTruth, s.Dict.Len(), len(cfg.Rules))
		})
	}
	// cora.json and citeseer.json name split files that are not in the
	// repository: they must fail with a missing-file error naming the file
	// and the JSON line that refers to it.
	for _, name := range []string{"cora", "citeseer"} {
		t.Run("models/"+name+".json", func(t *testing.T) {
			path := filepath.Join(root, "models", name+".json")
			_, err := ReadJSON(path, "infer")
			if err == nil {
				t.Fatal("expected a missing-file error")
			}
			missing := "../data/" + name + "/0/eval/link_obs.txt"
			src, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			line := 1 + strings.Count(string(src[:strings.Index(string(src), missing)]), "\n")
			re := regexp.MustCompile(regexp.QuoteMeta(path) + `:` + strconv.Itoa(line) + `:\d+: observations of Link/2: missing data file .*` + regexp.QuoteMeta(name+"/0/eval/link_obs.txt"))
			if !re.MatchString(err.Error()) {
				t.Fatalf("got %v\nwant a missing-file error at line %d naming %s", err, line, missing)
			}
			t.Logf("%v", err)
		})
	}
}

// BenchmarkLoadDrugInteraction reads, declares and loads the
// drug-interaction eval .data file (11 TSV files, about 240,000 atoms).
func BenchmarkLoadDrugInteraction(b *testing.B) {
	path := shareddata.Require(b, "psl-examples", "drug-interaction", "drug-interaction-eval.data")
	var bytes int64
	cfg, err := ReadData(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, src := range cfg.Sources {
		fi, err := os.Stat(src.File)
		if err != nil {
			b.Fatal(err)
		}
		bytes += fi.Size()
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	atoms := 0
	cpu0 := measure.CPUSeconds()
	for b.Loop() {
		_, s, err := loadConfig(path, "")
		if err != nil {
			b.Fatal(err)
		}
		o, t, tr := s.Counts()
		atoms = o + t + tr
	}
	b.ReportMetric(float64(atoms)*float64(b.N)/b.Elapsed().Seconds(), "atoms/s")
	if cpu := measure.CPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(atoms)*float64(b.N)/cpu, "atoms/cpu-s")
	}
}
