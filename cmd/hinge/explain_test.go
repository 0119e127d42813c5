package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/explain"
	"github.com/hinge-srl/hinge/explain/explaintest"
	"github.com/hinge-srl/hinge/internal/chromium"
	"github.com/hinge-srl/hinge/kgc"
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
			Query      string    `json:"query"`
			Candidate  string    `json:"candidate"`
			Score      float64   `json:"score"`
			Confs      []float64 `json:"confs"`
			Rank       float64   `json:"rank"`
			AboveCount int       `json:"above_count"`
			Rules      []struct {
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
	for _, want := range []string{"parentOf(person00, person15), scored by learned weights of each candidate's 5 best rules", "as an answer of (person00, parentOf, ?)", "as an answer of (?, parentOf, person15)"} {
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
			checkPageNumbers(t, name, p)
		})
		return p, f
	}

	p, f := run("psl", args([]string{"infer"}, smokersPSL, []string{"--quiet"}), "Cancer(Bob)")
	checkFormat(t, p)
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

	// An atom in no ground clause: its terms are [] in the JSON (they were
	// null, and the page threw opening it); and --explain-resolve's outcome
	// is on the page as in the JSON (it was left out).
	nd := t.TempDir()
	prog, db := writeFile(t, nd, "m.mln", "t = {C0}\nA(t)\nB(t)\n1 A(x)\n"), writeFile(t, nd, "m.db", "A(C0)\n")
	p, _ = run("mln-no-clause", []string{"mln", "infer", "-i", prog, "-e", db, "-q", "A,B", "-r", filepath.Join(nd, "r.txt"), "--quiet"}, "B(C0)")
	if raw, err := os.ReadFile(filepath.Join(dir, "mln-no-clause.json")); err != nil || !strings.Contains(string(raw), `"terms": []`) {
		t.Errorf("an atom in no clause: terms not [] in %s (%v)", raw, err)
	}
	if _, err := explaintest.Search(p, "b(c0)", "B(C0)"); err != nil {
		t.Fatal(err)
	}
	p, _ = run("mln-resolve", args([]string{"mln", "infer"}, smokersMLN, []string{"--quiet", "--explain-resolve"}), "Cancer(Bob)")
	if _, err := explaintest.Search(p, "cancer(bob)", "Cancer(Bob)"); err != nil {
		t.Fatal(err)
	}
	var detail string
	if err := p.Eval(`document.getElementById("detail").textContent`, &detail); err != nil || !strings.Contains(detail, "Solved again with the atom flipped") {
		t.Errorf("--explain-resolve's outcome not on the page (%v): %q", err, detail)
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
	// The explanation's rank is shown; the JSON's is the filtered rank.
	explaintest.Expect(t, kgcExplains, shown.Head, map[string]float64{"rank": kq.Rank})
	if kq.Rank < 1 || float64(kq.AboveCount) > kq.Rank-1 {
		t.Errorf("%s: rank %g with %d above", kgcExplains, kq.Rank, kq.AboveCount)
	}

	// Each query's list shows its first candidate and its true answer,
	// marked, where it ranks below: the marked item's own page says it
	// is the answer and its rank.
	for _, scoring := range []string{"noisy-or", "maxplus"} {
		p, _ = run("kgc-top1-"+scoring, args([]string{"kgc"}, exampleKGC, []string{"--explain-top", "1", "--score", scoring}), kgcExplains)
		var groups []struct {
			Names  []string
			Marked []bool
		}
		if err := p.Eval(`(() => {
	  const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input"));
	  const out = [];
	  for (const e of document.getElementById("list").children) {
	    if (e.classList.contains("group")) { out.push({names: [], marked: []}); continue; }
	    if (e.tagName !== "A") continue;
	    out[out.length - 1].names.push(e.firstChild.textContent);
	    out[out.length - 1].marked.push(!!e.querySelector(".answer"));
	  }
	  return out;
	})()`, &groups); err != nil {
			t.Fatal(err)
		}
		below := ""
		// One group per query, however many test triples ask it: each
		// lists its first candidate, then its true answers below it,
		// marked, each name once.
		if want := kgcTestQueries(t); len(groups) != want {
			t.Fatalf("%d query groups in the list, want %d", len(groups), want)
		}
		shared := 0
		for _, g := range groups {
			if len(g.Names) > 2 {
				shared++
			}
			if slices.Contains(g.Marked[1:], false) || len(slices.Compact(slices.Sorted(slices.Values(g.Names)))) != len(g.Names) {
				t.Errorf("a query lists %v, marked %v: want its first candidate and then its true answers, marked, each once", g.Names, g.Marked)
			}
			if len(g.Names) == 2 && !g.Marked[0] && below == "" { // one triple's query, its answer ranked below the first
				below = g.Names[1]
			}
		}
		if shared == 0 {
			t.Error("no query lists two true answers below its first candidate: the test shows no shared query")
		}
		if below == "" {
			t.Fatal("no query's true answer ranks below its first candidate: the test shows nothing")
		}
		shown, err = explaintest.Search(p, below, below)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := explaintest.Get(shown.Head, "rank"); !ok || r <= 1 {
			t.Errorf("%s: rank %v shown, want > 1", below, r)
		}
		var says bool
		if err := p.Eval(`document.querySelector("#detail .answer") !== null && /above it: /.test(document.getElementById("detail").textContent)`, &says); err != nil || !says {
			t.Errorf("%s: the page does not say it is the true answer and what ranks above it (%v)", below, err)
		}
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

// --explain needs no test set: with --rules-in (or rules learned) only
// the explained triples' two queries are ranked, every rule applied and
// the known answers (train, valid) left out, and the explanation gives
// the rank and the candidates above. The outputs of a test set's ranking
// are refused without one.
func TestKGCExplainWithoutTest(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.txt")
	if code, stdout, stderr := runCLI(t, args([]string{"kgc"}, exampleKGC, []string{"--rules", rules})...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	base := []string{"kgc", "--train", "../../examples/kgc/train.txt", "--valid", "../../examples/kgc/valid.txt", "--rules-in", rules, "--quiet"}
	j := filepath.Join(dir, "x.json")
	code, stdout, stderr := runCLI(t, append(base, "--explain", kgcExplains, "--explain-json", j)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var f explainFile
	readJSON(t, j, &f)
	if len(f.Explanations) != 1 || len(f.Explanations[0].Queries) != 2 {
		t.Fatalf("%+v", f)
	}
	for _, q := range f.Explanations[0].Queries {
		if q.Rank < 1 {
			t.Errorf("%s: rank %g", q.Query, q.Rank)
		}
	}
	if n := strings.Count(stdout, " (known answers left out)"); n != 2 {
		t.Errorf("%d rank lines, want 2:\n%s", n, stdout)
	}
	if strings.Contains(stdout, "queries: MRR") {
		t.Errorf("metrics without a test set:\n%s", stdout)
	}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--explain", kgcExplains, "--predictions", filepath.Join(dir, "p.txt")}, "--predictions needs --test"},
		{[]string{"--explain", kgcExplains, "--html", filepath.Join(dir, "p.html")}, "--html needs --test"},
		{[]string{"--explain", kgcExplains, "--report", filepath.Join(dir, "r.json")}, "--report needs --test"},
		{nil, "--test may be left out to --explain triples only"},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string{}, base...), c.extra...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.extra, code, c.want, stdout, stderr)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("refused runs wrote files: %v", ents)
	}
}

// kgcTestQueries is the number of distinct queries, (h, r, ?) and
// (?, r, t), of examples/kgc/test.txt.
func kgcTestQueries(t *testing.T) int {
	t.Helper()
	text, err := os.ReadFile("../../examples/kgc/test.txt")
	if err != nil {
		t.Fatal(err)
	}
	qs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		f := strings.Split(line, "\t")
		qs[f[0]+"\t"+f[1]+"\t?"], qs["?\t"+f[1]+"\t"+f[2]] = true, true
	}
	return len(qs)
}

// The HTML report's items at --explain-top 3: one group per query however
// many test triples ask it, its items in place order, each candidate once,
// and every test triple's true answer there and marked wherever its own
// list ranks it.
func TestKGCReportItemsSharedQueries(t *testing.T) {
	ctx := context.Background()
	v := kgc.NewVocab()
	var sets [3][]kgc.Triple
	for i, f := range []string{"train", "valid", "test"} {
		ts, err := kgc.ReadTriples(ctx, "../../examples/kgc/"+f+".txt", v)
		if err != nil {
			t.Fatal(err)
		}
		sets[i] = ts
	}
	train, test := sets[0], sets[2]
	g := kgc.NewGraph(train, len(v.Entities), len(v.Relations))
	lr, err := kgc.Learn(ctx, g, kgc.LearnOptions{Rounds: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	known := tripleSet(sets[:]...)
	isKnown := func(t kgc.Triple) bool { return known[t] }
	rk := kgc.NewRanker(g, lr.Rules, kgc.NoisyOr)
	ev, err := rk.Evaluate(ctx, test, isKnown, kgc.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := &explain.KGC{Graph: g, Vocab: v, Ranker: rk, Top: 3, Known: isKnown}
	items, err := kgcReportItems(ctx, x, rk, test, ev, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}   // group + name
	closed := map[string]bool{} // groups already left
	last, shared := "", 0
	lastRank := 0.0
	answers := map[string]int{} // marked items by group
	for _, it := range items {
		q := it.Explanation.(explain.KGCQuery)
		if it.Group != last {
			if closed[it.Group] {
				t.Fatalf("group %s comes back after another", it.Group)
			}
			closed[last], last, lastRank = true, it.Group, 0
		}
		if seen[it.Group+" "+it.Name] {
			t.Fatalf("%s listed twice under %s", it.Name, it.Group)
		}
		seen[it.Group+" "+it.Name] = true
		if q.Rank < lastRank {
			t.Fatalf("%s: rank %v after %v: not in place order", it.Group, q.Rank, lastRank)
		}
		lastRank = q.Rank
		if q.Answer {
			answers[it.Group]++
		}
	}
	// Every test triple's answer is marked under its query when its list
	// holds it.
	for i, tr := range test {
		for _, a := range []struct {
			list  []kgc.Candidate
			name  string
			truth int32
		}{{ev.Tails[i].List, x.KGCAtom(tr), tr.T}, {ev.Heads[i].List, x.KGCAtom(tr), tr.H}} {
			if slices.ContainsFunc(a.list, func(c kgc.Candidate) bool { return c.Entity == a.truth }) && !slices.ContainsFunc(items, func(it explain.Item) bool {
				return it.Name == a.name && it.Explanation.(explain.KGCQuery).Answer
			}) {
				t.Fatalf("%s: in its list but not marked in the report", a.name)
			}
		}
	}
	for _, n := range answers {
		if n > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no group holds two true answers: the test shows no shared query")
	}
}

// checkFormat checks the page's number format against Go's %.4g on
// ties, exponents, signs and a spread of random values.
func checkFormat(t *testing.T, p *chromium.Page) {
	t.Helper()
	xs := []float64{-0.65625, 0.65625, 0.5, 12345, 12355, 1.0005, 99995, 0.000123456, 0.0001, 1e-5, 123456789, -2.5e-7, 1e21, 3, 0.1 + 0.2}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 300 {
		xs = append(xs, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(24)-12)))
	}
	var got []string
	js, _ := json.Marshal(xs)
	if err := p.Eval("JSON.parse("+strconv.Quote(string(js))+").map(hingeFormat)", &got); err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		if want := strconv.FormatFloat(x, 'g', 4, 64); got[i] != want {
			t.Errorf("the page writes %v as %q, the terminal as %q", x, got[i], want)
		}
	}
}

// checkPageNumbers checks that every figure the page shows is written as
// the terminal writes it (Go's %.4g: 0.5, not 0.5000; 1.235e+05; a tie
// such as -0.65625 to even, -0.6562, where JavaScript's toPrecision wrote
// -0.6563), a positive change with its + sign.
func checkPageNumbers(t *testing.T, name string, p *chromium.Page) {
	t.Helper()
	var cells []struct {
		Text string
		V    *float64
	}
	if err := p.Eval(`Array.from(document.querySelectorAll(".num[data-v]")).map(e => ({text: e.textContent, v: JSON.parse(e.dataset.v)}))`, &cells); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	for _, c := range cells {
		want := "\u2014"
		if c.V != nil {
			want = strconv.FormatFloat(*c.V, 'g', 4, 64)
		}
		if c.Text != want && !(c.V != nil && *c.V > 0 && c.Text == "+"+want) {
			t.Errorf("%s: the page shows %q for %v; the terminal writes %q", name, c.Text, c.V, want)
		}
	}
}

// TestMLNHTMLQueryOrder: mln infer's --html report lists the query
// predicates in the order the query names them (-q Cancer,Smokes listed
// Smokes first, the program's order), each one's atoms in the network's
// order; a query file's predicates follow -q's.
func TestMLNHTMLQueryOrder(t *testing.T) {
	dir := t.TempDir()
	qfile := writeFile(t, dir, "q.db", "Smokes(Bob)\nCancer(x)\n")
	name := regexp.MustCompile(`"name":"([A-Za-z]+)\(`)
	for _, tc := range []struct {
		query []string // -q / --query-file arguments
		want  string   // the predicates in the page's order
	}{
		{[]string{"-q", "Cancer,Smokes"}, "Cancer Smokes"},
		{[]string{"-q", "Smokes,Cancer"}, "Smokes Cancer"},
		{[]string{"-q", "Smokes(x), Cancer(Bob)"}, "Smokes Cancer"},
		{[]string{"-q", "Cancer", "-q", "Smokes"}, "Cancer Smokes"},
		{[]string{"--query-file", qfile}, "Smokes Cancer"},
	} {
		h := filepath.Join(dir, "r.html")
		a := append([]string{"mln", "infer", "-i", "../../examples/mln/smokers.mln", "-e", "../../examples/mln/smokers.db", "--html", h, "--quiet"}, tc.query...)
		code, stdout, stderr := runCLI(t, a...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", tc.query, code, stdout, stderr)
		}
		page, _ := os.ReadFile(h)
		var order []string
		for _, m := range name.FindAllStringSubmatch(string(page), -1) {
			if len(order) == 0 || order[len(order)-1] != m[1] {
				order = append(order, m[1])
			}
		}
		if got := strings.Join(order, " "); got != tc.want {
			t.Errorf("%v: the page lists %s, want %s", tc.query, got, tc.want)
		}
	}
}
