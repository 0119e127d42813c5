package kgc

import "testing"

func TestHeaderLike(t *testing.T) {
	tr := func(h, r, t int32) Triple { return Triple{H: h, R: r, T: t} }
	data := []Triple{tr(1, 1, 2), tr(2, 1, 3), tr(3, 2, 1)}
	tests := []struct {
		name  string
		first Triple
		want  bool
	}{
		{"alone in all three", tr(10, 9, 11), true},
		{"self loop alone", tr(10, 9, 10), true},
		{"relation seen", tr(10, 1, 11), false},
		{"head seen", tr(1, 9, 11), false},
		{"tail seen", tr(10, 9, 3), false},
		{"a real first triple", data[0], false},
	}
	for _, tc := range tests {
		file := append([]Triple{tc.first}, data...)
		if tc.first == data[0] {
			file = data
		}
		if got := HeaderLike(tc.first, file, nil); got != tc.want {
			t.Errorf("%s: HeaderLike = %v, want %v", tc.name, got, tc.want)
		}
		// The same header at the top of every split.
		if got := HeaderLike(tc.first, file, []Triple{tc.first, data[1]}, []Triple{tc.first}); got != tc.want {
			t.Errorf("%s, in every split: HeaderLike = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestUnseen(t *testing.T) {
	graph := []Triple{{H: 0, R: 0, T: 1}, {H: 1, R: 1, T: 2}}
	test := []Triple{{H: 0, R: 0, T: 2}, {H: 5, R: 0, T: 1}, {H: 0, R: 7, T: 1}, {H: 2, R: 7, T: 6}}
	u := NamesOf(graph).Unseen(test)
	want := Unseen{Entity: 2, Relation: 2, FirstEntity: 1, FirstRelation: 2}
	if u != want {
		t.Errorf("UnseenIn = %+v, want %+v", u, want)
	}
	if u := NamesOf(graph).Unseen(graph); u != (Unseen{FirstEntity: -1, FirstRelation: -1}) {
		t.Errorf("the graph against itself: %+v", u)
	}
}

func TestRulesOff(t *testing.T) {
	graph := []Triple{{H: 0, R: 0, T: 1}, {H: 1, R: 1, T: 2}}
	rules := []Rule{
		{Kind: Cyclic, Head: 0, Body: []Step{{R: 1}}},         // on the graph
		{Kind: Default, Head: 1},                              // on the graph, no body
		{Kind: Cyclic, Head: 0, Body: []Step{{R: 1}, {R: 5}}}, // a body relation off it
		{Kind: AcyclicAny, Head: 7, Body: []Step{{R: 0}}},     // its head off it
	}
	if n, first := NamesOf(graph).RulesOff(rules); n != 2 || first != 2 {
		t.Errorf("RulesOffGraph = %d, first %d; want 2, first 2", n, first)
	}
	if n, first := NamesOf(graph).RulesOff(rules[:2]); n != 0 || first != -1 {
		t.Errorf("rules on the graph: %d, first %d", n, first)
	}
}
