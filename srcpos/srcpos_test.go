package srcpos

import "testing"

func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		pos  Position
		want string
	}{
		{Position{File: "m.psl", Line: 3, Col: 4}, "m.psl:3:4: bad"},
		{Position{Line: 3, Col: 4}, "3:4: bad"},
		{Position{File: "m.psl"}, "m.psl: bad"},
		{Position{}, "bad"},
	} {
		if got := Errorf(c.pos, "bad").Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.pos, got, c.want)
		}
	}
}
