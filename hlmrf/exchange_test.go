package hlmrf

import (
	"strings"
	"testing"
)

// TestRepeatedColumnsSum: a column given twice on one line is summed, the
// constant's (0:c) as well as a variable's.
func TestRepeatedColumnsSum(t *testing.T) {
	p, err := Read(strings.NewReader("2 0:0.5 1:1 0:0.25 1:2\n<= 0:1 2:1 0:-0.5\n"), "r.hlmrf")
	if err != nil {
		t.Fatal(err)
	}
	vs, cs := p.Terms(0)
	if p.Const[0] != 0.75 || len(vs) != 1 || cs[0] != 3 {
		t.Errorf("potential: constant %v, terms %v %v; want 0.75 and 3*y1", p.Const[0], vs, cs)
	}
	if p.CConst[0] != 0.5 {
		t.Errorf("constraint constant %v, want 0.5", p.CConst[0])
	}
}
