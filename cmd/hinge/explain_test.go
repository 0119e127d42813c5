package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/explain/explaintest"
	"github.com/hinge-srl/hinge/internal/chromium"
)

var (
	smokersPSL  = []string{"--model", "../../examples/smokers/smokers.psl", "--data", "../../examples/smokers/smokers.data"}
	smokersMLN  = []string{"-i", "../../examples/mln/smokers.mln", "-e", "../../examples/mln/smokers.db", "-q", "Cancer,Smokes"}
	exampleKGC  = []string{"--train", "../../examples/kgc/train.txt", "--valid", "../../examples/kgc/valid.txt", "--test", "../../examples/kgc/test.txt", "--rounds", "1", "--quiet"}
	kgcExplains = "parentOf(person00, person15)" // the first test triple
)

// explainFile is what --explain-json writes, with the fields the tests
// read.
type explainFile struct {
	Engine       string `json:"engine"`
	Explanations []struct {
		Atom  string  `json:"atom"`
		Value float64 `json:"value"`
		Terms []struct {
			Ground   string  `json:"ground"`
			Pull     float64 `json:"pull"`
			Weight   float64 `json:"weight"`
			Distance float64 `json:"distance"`
			FlipCost float64 `json:"flip_cost"`
			Hard     bool    `json:"hard"`
		} `json:"terms"`
		Up       float64 `json:"pull_up"`
		Down     float64 `json:"pull_down"`
		Bound    float64 `json:"bound_multiplier"`
		FlipCost float64 `json:"flip_cost"`
		Resolved *struct {
			Cost, Delta float64
		} `json:"resolved"`
		Queries []struct {
			Query     string    `json:"query"`
			Candidate string    `json:"candidate"`
			Score     float64   `json:"score"`
			Confs     []float64 `json:"confs"`
			Rules     []struct {
				Rule string  `json:"rule"`
				Conf float64 `json:"conf"`
			} `json:"rules"`
		} `json:"queries"`
	} `json:"explanations"`
}

func args(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestExplainCommands runs --explain, --explain-json, --satisfaction and
// --html on each command and checks what they write.
func TestExplainCommands(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }

	// PSL: why is Cancer(Bob) what it is.
	code, stdout, stderr := runCLI(t, args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob)", "--explain-json", out("psl.json"),
		"--satisfaction", out("psl.tsv"), "--html", out("psl.html"), "--quiet"})...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Cancer('Bob') = 0.81", "2 ground rules contain it", "0.5: Smokes('Bob') -> Cancer('Bob') ^2", "0.01: !Cancer('Bob')", "where they balance"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("infer --explain: no %q in\n%s", want, stdout)
		}
	}
	var pf explainFile
	readJSON(t, out("psl.json"), &pf)
	if pf.Engine != "psl" || len(pf.Explanations) != 1 || len(pf.Explanations[0].Terms) != 2 {
		t.Fatalf("psl.json: %+v", pf)
	}
	x := pf.Explanations[0]
	if sum := x.Terms[0].Pull + x.Terms[1].Pull; math.Abs(sum) > 1e-9 || math.Abs(x.Terms[0].Pull) < 0.009 {
		t.Errorf("Cancer(Bob)'s pulls %v and %v do not balance", x.Terms[0].Pull, x.Terms[1].Pull)
	}
	sat, _ := os.ReadFile(out("psl.tsv"))
	if lines := strings.Count(string(sat), "\n"); lines != 41 || !strings.HasPrefix(string(sat), "#rule\t") {
		t.Errorf("satisfaction file: %d lines\n%s", lines, sat)
	}
	if page, _ := os.ReadFile(out("psl.html")); !strings.Contains(string(page), "<!DOCTYPE html>") || strings.Contains(string(page), "http://") || strings.Contains(string(page), "https://") {
		t.Errorf("the report is not a self-contained page")
	}

	// Markov logic: flip cost and re-solve.
	code, stdout, stderr = runCLI(t, args([]string{"mln", "infer"}, smokersMLN, []string{"--explain", "Cancer(Bob)", "--explain-resolve",
		"--explain-json", out("mln.json"), "--satisfaction", out("mln.tsv"), "--html", out("mln.html"), "--quiet"})...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Cancer(Bob) = 1 in the MAP world", "!Smokes(Bob) v Cancer(Bob)", "flipping it to 0 alone would change the cost by +1", "solved again with Cancer(Bob) = 0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("mln infer --explain: no %q in\n%s", want, stdout)
		}
	}
	var mf explainFile
	readJSON(t, out("mln.json"), &mf)
	if mf.Engine != "mln" || len(mf.Explanations) != 1 || mf.Explanations[0].FlipCost != 1 || mf.Explanations[0].Resolved == nil {
		t.Fatalf("mln.json: %+v", mf)
	}
	if sat, _ := os.ReadFile(out("mln.tsv")); strings.Count(string(sat), "\n") != 14 {
		t.Errorf("mln satisfaction file:\n%s", sat)
	}

	// Knowledge-graph completion: the rules behind a triple.
	code, stdout, stderr = runCLI(t, args([]string{"kgc"}, exampleKGC, []string{"--explain", kgcExplains, "--explain-top", "3",
		"--explain-json", out("kgc.json"), "--html", out("kgc.html")})...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"parentOf(person00, person15), scored by noisy-or", "as an answer of (person00, parentOf, ?)", "as an answer of (?, parentOf, person15)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("kgc --explain: no %q in\n%s", want, stdout)
		}
	}
	var kf explainFile
	readJSON(t, out("kgc.json"), &kf)
	if kf.Engine != "kgc" || len(kf.Explanations) != 1 || len(kf.Explanations[0].Queries) != 2 || len(kf.Explanations[0].Queries[0].Rules) > 3 {
		t.Fatalf("kgc.json: %+v", kf)
	}
}

// TestExplainBadInput: a malformed or unknown atom, and flags that do not
// go together, are bad input (exit 2) found before any work, naming the
// flag; nothing is written.
func TestExplainBadInput(t *testing.T) {
	dir := t.TempDir()
	j := filepath.Join(dir, "x.json")
	cases := []struct {
		args []string
		want string
	}{
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob", "--explain-json", j}), "--explain: atom \"Cancer(Bob\", column 11: missing ')'"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Zed)", "--explain-json", j}), `"Zed" is not a constant of the data`},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Friends(Anna, Bob)", "--explain-json", j}), "is observed (value 1), not inferred"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob, Anna)", "--explain-json", j}), "Cancer takes 1 argument(s), not 2"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Nope(Bob)", "--explain-json", j}), "no predicate Nope"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain-json", j}), "--explain-json writes the explanations of --explain"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob)", "--lifted", "--explain-json", j}), "not with --lifted or --discrete"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob)", "--explain-top", "-1"}), "--explain-top -1"},
		{args([]string{"infer"}, smokersPSL, []string{"--explain", "Cancer(Bob)", "--db", "postgres://postgres@127.0.0.1:1/postgres", "--explain-json", j}), "not with --db: an explanation grounds the rules again"},
		{args([]string{"infer"}, smokersPSL, []string{"--satisfaction", filepath.Join(dir, "s.tsv"), "--streaming"}), "not with --streaming"},
		{args([]string{"infer"}, smokersPSL, []string{"--html", filepath.Join(dir, "no", "r.html")}), "--html"},
		{args([]string{"mln", "infer"}, smokersMLN, []string{"--explain", "Cancer(Bob)", "--marginal", "--explain-json", j}), "not with --marginal or a sampling method"},
		{args([]string{"mln", "infer"}, smokersMLN, []string{"--explain", "Friends(Anna, Bob)", "--explain-json", j}), "is observed"},
		{args([]string{"mln", "infer"}, smokersMLN, []string{"--explain-resolve"}), "--explain-resolve solves again"},
		{args([]string{"mln", "infer"}, smokersMLN, []string{"--explain", "Cancer(Bob)", "--lazy", "--explain-json", j}), "not with --lazy"},
		{args([]string{"kgc"}, exampleKGC, []string{"--explain", kgcExplains, "--score", "psl", "--explain-json", j}), "not with --score psl"},
		{args([]string{"kgc"}, exampleKGC, []string{"--explain", "parentOf(person00, nobody)", "--explain-json", j}), `no entity "nobody"`},
		{args([]string{"kgc"}, exampleKGC, []string{"--explain", "parentOf(person00)", "--explain-json", j}), "2 arguments, not 1"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
		if _, err := os.Stat(j); err == nil {
			t.Fatalf("%v wrote %s", c.args, j)
		}
	}
}

// TestExplainHTMLInChromium opens each command's --html report in
// headless Chromium, searches for the atom given to --explain as a user
// types it, and checks that every figure shown equals the --explain-json
// file's.
func TestExplainHTMLInChromium(t *testing.T) {
	b := chromium.Start(t)
	dir := t.TempDir()
	run := func(name string, cmd []string, atom string) (*chromium.Page, explainFile) {
		t.Helper()
		h, j := filepath.Join(dir, name+".html"), filepath.Join(dir, name+".json")
		code, stdout, stderr := runCLI(t, append(cmd, "--explain", atom, "--explain-json", j, "--html", h)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		var f explainFile
		readJSON(t, j, &f)
		p, err := b.Open("file://" + h)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(`document.body.dataset.ready === "1"`); err != nil {
			t.Fatalf("%v: %v", err, p.Errors())
		}
		t.Cleanup(func() {
			if errs := p.Errors(); len(errs) > 0 {
				t.Errorf("%s: page errors: %v", name, errs)
			}
		})
		return p, f
	}

	p, f := run("psl", args([]string{"infer"}, smokersPSL, []string{"--quiet"}), "Cancer(Bob)")
	want := f.Explanations[0]
	shown, err := explaintest.Search(p, "Cancer(Bob)", want.Atom)
	if err != nil {
		t.Fatal(err)
	}
	shown.CheckText(t)
	explaintest.Expect(t, want.Atom, shown.Head, map[string]float64{"value": want.Value, "pull_up": want.Up, "pull_down": want.Down, "bound_multiplier": want.Bound})
	if len(shown.Rows) != len(want.Terms) {
		t.Fatalf("%d rows shown, %d in the JSON", len(shown.Rows), len(want.Terms))
	}
	for i, term := range want.Terms {
		explaintest.Expect(t, term.Ground, shown.Rows[i], map[string]float64{"pull": term.Pull, "weight": term.Weight, "distance": term.Distance})
	}

	p, f = run("mln", args([]string{"mln", "infer"}, smokersMLN, []string{"--quiet", "--explain-top", "0"}), "Cancer(Bob)")
	mw := f.Explanations[0]
	shown, err = explaintest.Search(p, "cancer(bob)", mw.Atom)
	if err != nil {
		t.Fatal(err)
	}
	shown.CheckText(t)
	explaintest.Expect(t, mw.Atom, shown.Head, map[string]float64{"value": mw.Value, "flip_cost": mw.FlipCost})
	for i, term := range mw.Terms {
		explaintest.Expect(t, term.Ground, shown.Rows[i], map[string]float64{"flip_cost": term.FlipCost, "weight": term.Weight})
	}

	p, f = run("kgc", args([]string{"kgc"}, exampleKGC, []string{"--explain-top", "0"}), kgcExplains)
	kq := f.Explanations[0].Queries[0] // as the answer of (person00, parentOf, ?)
	shown, err = explaintest.Search(p, kgcExplains, kgcExplains)
	if err != nil {
		t.Fatal(err)
	}
	shown.CheckText(t)
	explaintest.Expect(t, kgcExplains, shown.Head, map[string]float64{"score": kq.Score})
	if len(shown.Rows) != len(kq.Rules) {
		t.Fatalf("%d rules shown, %d in the JSON", len(shown.Rows), len(kq.Rules))
	}
	for i, r := range kq.Rules {
		explaintest.Expect(t, r.Rule, shown.Rows[i], map[string]float64{"conf": r.Conf})
	}
}

// TestExplainWithoutDuals: --satisfaction needs no duals, so it works
// with --discrete and --lifted; a problem too big for memory, which infer
// would solve from disk, is refused before solving when explanations are
// asked for, and nothing is written.
func TestExplainWithoutDuals(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []string{"--discrete", "--lifted"} {
		sat := filepath.Join(dir, mode[2:]+".tsv")
		code, stdout, stderr := runCLI(t, args([]string{"infer"}, smokersPSL, []string{mode, "--satisfaction", sat, "--quiet"})...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", mode, code, stdout, stderr)
		}
		text, _ := os.ReadFile(sat)
		if lines := strings.Split(strings.TrimSpace(string(text)), "\n"); len(lines) != 41 {
			t.Errorf("%s: %d lines", mode, len(lines))
		}
	}
	psl, data := writeTransitivity(t, 1500, 24)
	sat := filepath.Join(dir, "big.tsv")
	code, stdout, stderr := runCLI(t, "infer", "--model", psl, "--data", data, "--memory-limit", "96MiB", "--satisfaction", sat, "--quiet")
	if code != 1 || !strings.Contains(stderr, "--satisfaction: the ground problem must be in memory") || strings.Contains(stdout, "streaming DCD") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(sat); err == nil {
		t.Fatal("the satisfaction file was written")
	}
}
