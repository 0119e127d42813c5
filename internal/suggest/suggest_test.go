package suggest

import "testing"

func TestNearest(t *testing.T) {
	preds := []string{"Smokes", "Cancer", "Friends"}
	for _, tc := range []struct{ word, want string }{
		{"Canser", "Cancer"},
		{"cancer", "Cancer"},
		{"Smoke", "Smokes"},
		{"Frends", "Friends"},
		{"Weather", ""},
		{"", ""},
		{"X", ""},
	} {
		if got := Nearest(tc.word, preds); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
