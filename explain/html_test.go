package explain_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/admm"
	"github.com/hinge-srl/hinge/explain"
	"github.com/hinge-srl/hinge/explain/explaintest"
	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/internal/chromium"
	"github.com/hinge-srl/hinge/kgc"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/pipeline"
)

// writeReport writes r to a file and returns its file:// URL.
func writeReport(t *testing.T, r *explain.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), r.Engine+".html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// open opens a report and checks that it loads without errors and asks
// for nothing but itself.
func open(t *testing.T, b *chromium.Browser, url string) *chromium.Page {
	t.Helper()
	p, err := b.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(`document.body.dataset.ready === "1"`); err != nil {
		t.Fatalf("%v\nerrors: %v", err, p.Errors())
	}
	t.Cleanup(func() {
		if errs := p.Errors(); len(errs) > 0 {
			t.Errorf("page errors:\n%s", strings.Join(errs, "\n"))
		}
		for _, u := range p.Requests() {
			if u != url {
				t.Errorf("the page asked for %s", u)
			}
		}
	})
	return p
}

// TestHTMLReportInChromium opens a report of each engine in headless
// Chromium, searches for answers as a user types, and compares every
// figure the page shows with the explanation it came from: exact values in
// the page's data, 4 significant digits in its text. It follows a link from
// one atom's ground rule to another atom's explanation.
func TestHTMLReportInChromium(t *testing.T) {
	b := chromium.Start(t)

	t.Run("psl", func(t *testing.T) {
		prog, err := pipeline.Load(pipeline.Inputs{Model: "../examples/smokers/smokers.psl", Data: "../examples/smokers/smokers.data"})
		if err != nil {
			t.Fatal(err)
		}
		g, err := prog.Ground(ground.Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := admm.New(g.Problem, admm.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		pd, cd := s.Duals()
		x, err := explain.NewPSL(prog.Model, prog.Store, g, res.Values, pd, cd)
		if err != nil {
			t.Fatal(err)
		}
		all, err := x.ExplainAll(3)
		if err != nil {
			t.Fatal(err)
		}
		r := &explain.Report{Engine: "psl", Title: "smokers <&> test", Example: "Cancer('Bob')"}
		byName := map[string]*explain.PSLExplanation{}
		for v, ex := range all {
			r.Items = append(r.Items, explain.Item{Name: ex.Atom, Group: g.Vars[v].Pred.Name, Value: ex.Value, Explanation: ex})
			byName[ex.Atom] = ex
		}
		p := open(t, b, writeReport(t, r))
		var title string
		if err := p.Eval(`document.title`, &title); err != nil || title != "smokers <&> test" {
			t.Fatalf("title %q, %v", title, err)
		}
		check := func(shown *explaintest.Shown) {
			t.Helper()
			want := byName[shown.Atom]
			shown.CheckText(t)
			explaintest.Expect(t, shown.Atom, shown.Head, map[string]float64{"value": want.Value, "pull_up": want.Up, "pull_down": want.Down, "bound_multiplier": want.Bound})
			if len(shown.Rows) != len(want.Terms) {
				t.Fatalf("%s: %d rows shown, %d terms", shown.Atom, len(shown.Rows), len(want.Terms))
			}
			for i, term := range want.Terms {
				w := map[string]float64{"pull": term.Pull, "distance": term.Distance}
				if !term.Hard {
					w["weight"] = term.Weight
				}
				switch {
				case term.Blocks:
				case term.Back != nil && *term.Back != 0:
					w["back"] = *term.Back
				case term.BackQuadratic != 0:
					w["back_quadratic"] = term.BackQuadratic
				}
				explaintest.Expect(t, shown.Atom+" row "+term.Ground, shown.Rows[i], w)
			}
		}
		shown, err := explaintest.Search(p, "Cancer(Bob)", "Cancer('Bob')")
		if err != nil {
			t.Fatal(err)
		}
		check(shown)
		if len(shown.Links) == 0 {
			t.Fatal("no links to other atoms")
		}
		next, err := explaintest.Follow(p, "Smokes('Bob')")
		if err != nil {
			t.Fatal(err)
		}
		check(next)
		for _, name := range []string{"Smokes('Fay')", "Smokes('Helen')"} {
			shown, err := explaintest.Search(p, name, name)
			if err != nil {
				t.Fatal(err)
			}
			check(shown)
		}
	})

	t.Run("mln", func(t *testing.T) {
		prog, err := mln.ReadProgram("testdata/mln/net.mln")
		if err != nil {
			t.Fatal(err)
		}
		ev, err := mln.ReadAtoms("testdata/mln/net.db", prog, false)
		if err != nil {
			t.Fatal(err)
		}
		net, err := mln.Build(prog, ev, mln.Options{Query: []string{"Smokes", "Cancer", "Alarm"}})
		if err != nil {
			t.Fatal(err)
		}
		opt := mln.DefaultMAPOptions()
		res, err := net.MAP(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		x, err := explain.NewMLN(net, res.Ground, res.Values)
		if err != nil {
			t.Fatal(err)
		}
		all, err := x.ExplainAll(0)
		if err != nil {
			t.Fatal(err)
		}
		r := &explain.Report{Engine: "mln", Title: "net"}
		byName := map[string]*explain.MLNExplanation{}
		for v, ex := range all {
			if v == 0 {
				if ex.Resolved, err = x.Resolve(context.Background(), v, opt); err != nil {
					t.Fatal(err)
				}
			}
			r.Items = append(r.Items, explain.Item{Name: ex.Atom, Value: ex.Value, Explanation: ex})
			byName[ex.Atom] = ex
		}
		p := open(t, b, writeReport(t, r))
		for _, it := range r.Items {
			shown, err := explaintest.Search(p, it.Name, it.Name)
			if err != nil {
				t.Fatal(err)
			}
			shown.CheckText(t)
			want := byName[it.Name]
			head := map[string]float64{"value": want.Value, "flip_cost": want.FlipCost}
			if r := want.Resolved; r != nil && !r.Infeasible {
				head["resolved_cost"], head["resolved_delta"] = r.Cost, r.Delta
			}
			explaintest.Expect(t, it.Name, shown.Head, head)
			if len(shown.Rows) != len(want.Terms) {
				t.Fatalf("%s: %d rows, %d terms", it.Name, len(shown.Rows), len(want.Terms))
			}
			for i, term := range want.Terms {
				if !term.Hard {
					explaintest.Expect(t, it.Name+" "+term.Ground, shown.Rows[i], map[string]float64{"flip_cost": term.FlipCost, "weight": term.Weight})
				}
			}
		}
	})

	t.Run("kgc", func(t *testing.T) {
		v := kgc.NewVocab()
		train, err := kgc.ReadTriples(context.Background(), "../examples/kgc/train.txt", v)
		if err != nil {
			t.Fatal(err)
		}
		test, err := kgc.ReadTriples(context.Background(), "../examples/kgc/test.txt", v)
		if err != nil {
			t.Fatal(err)
		}
		g := kgc.NewGraph(train, len(v.Entities), len(v.Relations))
		lr, err := kgc.Learn(context.Background(), g, kgc.LearnOptions{Rounds: 1, Seed: 1, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		rk := kgc.NewRanker(g, lr.Rules, kgc.NoisyOr)
		x := &explain.KGC{Graph: g, Vocab: v, Ranker: rk, Top: 3}
		r := &explain.Report{Engine: "kgc", Title: "kgc", Scoring: "noisy-or"}
		tr := test[0]
		cands := rk.Rank(tr.H, tr.R, true, 5)
		ids := make([]int32, len(cands))
		for i, c := range cands {
			ids[i] = c.Entity
		}
		qs := x.ExplainQuery(tr.H, tr.R, true, ids)
		for i, q := range qs {
			r.Items = append(r.Items, explain.Item{Name: x.KGCAtom(kgc.Triple{H: tr.H, R: tr.R, T: ids[i]}), Group: q.Query, Value: cands[i].Score, Explanation: q})
		}
		p := open(t, b, writeReport(t, r))
		for i, it := range r.Items {
			shown, err := explaintest.Search(p, it.Name, it.Name)
			if err != nil {
				t.Fatal(err)
			}
			shown.CheckText(t)
			explaintest.Expect(t, it.Name, shown.Head, map[string]float64{"value": cands[i].Score, "score": qs[i].Score})
			if len(shown.Rows) != len(qs[i].Rules) {
				t.Fatalf("%s: %d rows, %d rules", it.Name, len(shown.Rows), len(qs[i].Rules))
			}
			for k, rule := range qs[i].Rules {
				explaintest.Expect(t, it.Name+" "+rule.Rule, shown.Rows[k], map[string]float64{"conf": rule.Conf, "support": float64(rule.Support), "body_size": float64(rule.BodySize)})
			}
		}
	})
}

// TestHTMLEscapes: names and titles cannot break out of the page's data
// or markup.
func TestHTMLEscapes(t *testing.T) {
	r := &explain.Report{Engine: "psl", Title: "<b>t</b>", Example: `"x"`,
		Items: []explain.Item{{Name: "P('</script><script>alert(1)</script>')", Value: 0.5, Explanation: map[string]any{"terms": []any{}}}}}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Fatalf("%d </script> in the page, want 2 (the data's and the code's)", n)
	}
	if strings.Contains(page, "<b>t</b>") || !strings.Contains(page, "&lt;b&gt;t&lt;/b&gt;") {
		t.Fatal("the title is not escaped")
	}
	if strings.Contains(page, "{{") {
		t.Fatal("a template slot is left in the page")
	}
}

// TestHTMLReportExactNames: answers whose names differ only by case,
// spaces or quotes (Smokes('ANN'), Smokes('A nn'), Smokes('Ann')) each open
// their own explanation, by search and by a link from a ground rule; the
// page used to fold them into one key, so clicking Smokes('ANN') opened
// Smokes('Ann') (0.975 where the right value is 0). A search that matches
// no name exactly still finds an answer written loosely when one answer
// alone has that form.
func TestHTMLReportExactNames(t *testing.T) {
	b := chromium.Start(t)
	dir := t.TempDir()
	files := map[string]string{
		"m.psl":          "0.5: Smokes(X) -> Cancer(X) ^2\n0.4: Friends(A, B) & Smokes(A) -> Smokes(B) ^2\n0.01: !Smokes(X)\n0.01: !Cancer(X)\n",
		"m.data":         "predicates:\n  Friends/2: closed\n  Smokes/1: open\n  Cancer/1: open\nobservations:\n  Friends: friends.tsv\n  Smokes: smokes_obs.tsv\ntargets:\n  Smokes: smokes.tsv\n  Cancer: cancer.tsv\n",
		"friends.tsv":    "Bob\tAnn\nBob\tA nn\n",
		"smokes_obs.tsv": "Bob\n",
		"smokes.tsv":     "Ann\nANN\nA nn\n",
		"cancer.tsv":     "Ann\nANN\nA nn\nCarl\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := pipeline.Load(pipeline.Inputs{Model: filepath.Join(dir, "m.psl"), Data: filepath.Join(dir, "m.data")})
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Ground(ground.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := admm.New(g.Problem, admm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pd, cd := s.Duals()
	x, err := explain.NewPSL(prog.Model, prog.Store, g, res.Values, pd, cd)
	if err != nil {
		t.Fatal(err)
	}
	all, err := x.ExplainAll(3)
	if err != nil {
		t.Fatal(err)
	}
	r := &explain.Report{Engine: "psl", Title: "names"}
	value := map[string]float64{}
	for v, ex := range all {
		r.Items = append(r.Items, explain.Item{Name: ex.Atom, Group: g.Vars[v].Pred.Name, Value: ex.Value, Explanation: ex})
		value[ex.Atom] = ex.Value
	}
	if value["Smokes('Ann')"] < 0.5 || value["Smokes('ANN')"] > 0.1 {
		t.Fatalf("the data do not separate the names: %v", value)
	}
	p := open(t, b, writeReport(t, r))
	for _, name := range []string{"Smokes('ANN')", "Smokes('A nn')", "Smokes('Ann')", "Cancer('ANN')"} {
		shown, err := explaintest.Search(p, name, name)
		if err != nil {
			t.Fatal(err)
		}
		explaintest.Expect(t, name, shown.Head, map[string]float64{"value": value[name]})
	}
	// From Cancer('ANN') (shown last) to Smokes('ANN') by its link.
	shown, err := explaintest.Follow(p, "Smokes('ANN')")
	if err != nil {
		t.Fatal(err)
	}
	explaintest.Expect(t, "link to Smokes('ANN')", shown.Head, map[string]float64{"value": value["Smokes('ANN')"]})
	// A loose spelling of the one answer of that form is still found.
	if _, err := explaintest.Search(p, "cancer(carl)", "Cancer('Carl')"); err != nil {
		t.Fatal(err)
	}
}
