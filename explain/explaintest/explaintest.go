// Package explaintest reads what an HTML report of package explain shows,
// in a real browser (package internal/chromium), so that tests can compare
// the figures on the page with the explanations they came from.
package explaintest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/chromium"
)

// Figure is one number shown on the page: its name (the JSON field it
// shows), its exact value (the page's data-v attribute; nil for null) and
// the text shown.
type Figure struct {
	K    string   `json:"k"`
	V    *float64 `json:"v"`
	Text string   `json:"text"`
}

// Shown is what the page shows for one answer: its name, the figures
// above its table (its value first), and the figures of each table row.
type Shown struct {
	Atom string     `json:"atom"`
	Head []Figure   `json:"head"`
	Rows [][]Figure `json:"rows"`
	// Links are the atoms the explanation links to.
	Links []string `json:"links"`
}

// extract reads the explanation shown.
const extract = `(() => {
  const d = document.getElementById("detail");
  const fig = e => ({k: e.dataset.k, v: JSON.parse(e.dataset.v), text: e.textContent});
  const head = [...d.querySelectorAll("h2 [data-k], p [data-k]")].map(fig);
  const rows = [...d.querySelectorAll("tr.term")].map(tr => [...tr.querySelectorAll("[data-k]")].map(fig));
  const links = [...d.querySelectorAll("td.atoms a")].map(a => a.textContent);
  return {atom: d.dataset.atom || "", head, rows, links};
})()`

// Search types query into the page's search box, as a user would, waits
// until the page shows the answer named want, and returns what it shows.
func Search(p *chromium.Page, query, want string) (*Shown, error) {
	if err := p.Eval(`(() => { const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input")); s.focus(); return true; })()`, nil); err != nil {
		return nil, err
	}
	if err := p.InsertText(query); err != nil {
		return nil, err
	}
	return waitShown(p, want)
}

// Follow clicks the first link of the explanation shown to the answer
// named atom and returns what the page then shows.
func Follow(p *chromium.Page, atom string) (*Shown, error) {
	q, _ := json.Marshal(atom)
	var ok bool
	if err := p.Eval(`(() => { const a = [...document.querySelectorAll("#detail td.atoms a")].find(a => a.textContent.startsWith(`+string(q)+` + " = ")); if (!a) return false; a.click(); return true; })()`, &ok); err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no link to %s in the explanation shown", atom)
	}
	return waitShown(p, atom)
}

func waitShown(p *chromium.Page, want string) (*Shown, error) {
	q, _ := json.Marshal(want)
	if err := p.WaitFor(`document.getElementById("detail").dataset.atom === ` + string(q)); err != nil {
		var got string
		p.Eval(`document.getElementById("detail").dataset.atom || ""`, &got)
		return nil, fmt.Errorf("the page does not show %s (it shows %q): %v", want, got, err)
	}
	var s Shown
	if err := p.Eval(extract, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// CheckText fails t for every figure whose text is not its exact value
// written with 4 significant digits (a sign allowed).
func (s *Shown) CheckText(t testing.TB) {
	t.Helper()
	check := func(f Figure) {
		if f.V == nil {
			if f.Text != "\u2014" {
				t.Errorf("%s: %s is null but shows %q", s.Atom, f.K, f.Text)
			}
			return
		}
		x, err := strconv.ParseFloat(strings.TrimPrefix(f.Text, "+"), 64)
		if err != nil {
			t.Errorf("%s: %s shows %q, not a number", s.Atom, f.K, f.Text)
			return
		}
		if math.Abs(x-*f.V) > 5e-4*math.Abs(*f.V)+1e-300 {
			t.Errorf("%s: %s shows %q for %v", s.Atom, f.K, f.Text, *f.V)
		}
	}
	for _, f := range s.Head {
		check(f)
	}
	for _, r := range s.Rows {
		for _, f := range r {
			check(f)
		}
	}
}

// Get returns the value of the figure named k among figs (false when it
// is not there or null).
func Get(figs []Figure, k string) (float64, bool) {
	for _, f := range figs {
		if f.K == k && f.V != nil {
			return *f.V, true
		}
	}
	return 0, false
}

// Expect fails t unless the figures named in want are among figs with
// exactly those values.
func Expect(t testing.TB, where string, figs []Figure, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		got, ok := Get(figs, k)
		if !ok {
			t.Errorf("%s: %s not shown", where, k)
		} else if got != w {
			t.Errorf("%s: %s shown as %v, want %v", where, k, got, w)
		}
	}
}
