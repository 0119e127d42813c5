package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestExplainManyMatchesOne: the groundings found for many atoms at once
// (one pass over their rules' groundings) explain each atom as those found
// for it alone (a join per atom) do; and the top terms kept, with their
// text made only for the terms that can be kept, are the first of all the
// terms sorted with their text, for every cut, ties included.
func TestExplainManyMatchesOne(t *testing.T) {
	same := func(t *testing.T, what string, a, b any) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s:\n got %s\nwant %s", what, ja, jb)
		}
	}
	for _, files := range [][2]string{smokers, mix, {"testdata/bounds/bounds.psl", "testdata/bounds/bounds.data"}} {
		e := solvedPSL(t, files[0], files[1])
		vs := make([]int, len(e.Values))
		for v := range vs {
			vs[v] = v
		}
		many, err := e.rec.many(vs)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			one, err := e.rec.groundings([]int{v})
			if err != nil {
				t.Fatal(err)
			}
			full := e.explain(v, 0, one)
			for _, top := range []int{0, 1, 2, 3, 10} {
				got := e.explain(v, top, many)
				want := *full
				if top > 0 && len(want.Terms) > top {
					for _, term := range want.Terms[top:] {
						if term.Pull > 0 {
							want.OmittedUp += term.Pull
						} else {
							want.OmittedDown += term.Pull
						}
					}
					want.Terms = want.Terms[:top]
				}
				same(t, fmt.Sprintf("%s %s top %d", files[0], got.Atom, top), got, &want)
			}
		}
	}
	x, _, _ := mapWorld(t, mlnNet[0], mlnNet[1], []string{"Smokes", "Cancer", "Alarm"}, "lp-round")
	vs := make([]int, len(x.Values))
	for v := range vs {
		vs[v] = v
	}
	many, err := x.rec.many(vs)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		one, err := x.rec.groundings([]int{v})
		if err != nil {
			t.Fatal(err)
		}
		full := x.explain(v, 0, one)
		for _, top := range []int{0, 1, 2, 5} {
			got := x.explain(v, top, many)
			want := *full
			if top > 0 && len(want.Terms) > top {
				want.Terms = want.Terms[:top]
			}
			same(t, fmt.Sprintf("mln %s top %d", got.Atom, top), got, &want)
		}
	}
}

// TestExplainCancelled: explaining every atom, and writing the report,
// stop with the context's error once it is done.
func TestExplainCancelled(t *testing.T) {
	e := solvedPSL(t, smokers[0], smokers[1])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.SetContext(ctx)
	// The context is looked at every 1024 steps: with the smokers' 18
	// atoms, a few explanations of every atom are enough to reach it.
	var err error
	for range 200 {
		if _, err = e.ExplainAll(3); err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ExplainAll under a cancelled context: %v", err)
	}
	r := &Report{Engine: "psl", Items: make([]Item, 100)}
	if err := r.WriteHTMLContext(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteHTMLContext under a cancelled context: %v", err)
	}
	var full bytes.Buffer
	if err := r.WriteHTMLContext(context.Background(), &full); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil || !bytes.Equal(page.Bytes(), full.Bytes()) {
		t.Errorf("WriteHTML and WriteHTMLContext differ (%v)", err)
	}
}
