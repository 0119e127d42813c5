package mln

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/hinge-srl/hinge/ground"
)

func TestZZLP(t *testing.T) {
	dir := os.Getenv("EXP_DIR")
	if dir == "" {
		t.Skip()
	}
	prog, _ := ReadProgram(dir + "/prog.mln")
	ev, _ := ReadAtoms(dir+"/evidence.db", prog, false)
	qs, _ := ReadAtoms(dir+"/query.db", prog, true)
	net, err := Build(prog, ev, Options{QueryAtoms: qs})
	if err != nil {
		t.Fatal(err)
	}
	_, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(os.Getenv("EXP_LP"))
	w := bufio.NewWriter(f)
	// minimize sum w u_c (+ constants)
	obj := map[string]float64{}
	var cons []string
	konst := 0.0
	k := 0
	for c := range in.NumClauses() {
		wt, lits := in.Weight[c], in.Clause(c)
		lit := func(i int) (string, bool) { return fmt.Sprintf("x%d", lits[i].Var()), lits[i].Neg() }
		switch {
		case in.Hard[c]:
			s := ""
			rhs := 1
			for i := range lits {
				v, n := lit(i)
				if n {
					s += " - " + v
					rhs--
				} else {
					s += " + " + v
				}
			}
			cons = append(cons, fmt.Sprintf("%s >= %d", s, rhs))
		case wt > 0 && len(lits) == 1:
			v, n := lit(0)
			if n { obj[v] += wt } else { obj[v] -= wt; konst += wt }
		case wt < 0 && len(lits) == 1:
			v, n := lit(0)
			if n { obj[v] -= -wt; konst += -wt } else { obj[v] += -wt }
		case wt > 0:
			u := fmt.Sprintf("u%d", k); k++
			obj[u] += wt
			s := " + " + u
			rhs := 1
			for i := range lits {
				v, n := lit(i)
				if n { s += " - " + v; rhs-- } else { s += " + " + v }
			}
			cons = append(cons, fmt.Sprintf("%s >= %d", s, rhs))
		case wt < 0:
			u := fmt.Sprintf("u%d", k); k++
			obj[u] += -wt
			for i := range lits {
				v, n := lit(i)
				if n { cons = append(cons, fmt.Sprintf(" + %s + %s >= 1", u, v)) } else { cons = append(cons, fmt.Sprintf(" + %s - %s >= 0", u, v)) }
			}
		}
	}
	fmt.Fprintln(w, "Minimize\n obj:")
	for v, c := range obj {
		fmt.Fprintf(w, " %+.10g %s\n", c, v)
	}
	fmt.Fprintln(w, "Subject To")
	for i, c := range cons {
		fmt.Fprintf(w, " c%d:%s\n", i, c)
	}
	fmt.Fprintln(w, "Bounds")
	for i := 0; i < k; i++ {
		fmt.Fprintf(w, " 0 <= u%d <= 1\n", i)
	}
	fmt.Fprintln(w, "Binary")
	for v := 0; v < in.NumVars; v++ {
		fmt.Fprintf(w, " x%d\n", v)
	}
	fmt.Fprintln(w, "End")
	w.Flush()
	f.Close()
	t.Logf("constant %v", konst)
}
