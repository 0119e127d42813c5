package mln

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/maxsat"
)

func TestZZExp(t *testing.T) {
	dir := os.Getenv("EXP_DIR")
	if dir == "" {
		t.Skip()
	}
	prog, err := ReadProgram(dir + "/prog.mln")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ReadAtoms(dir+"/evidence.db", prog, false)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadAtoms(dir+"/query.db", prog, true)
	if err != nil {
		t.Fatal(err)
	}
	net, err := Build(prog, ev, Options{QueryAtoms: qs})
	if err != nil {
		t.Fatal(err)
	}
	_, in, err := net.GroundClauses(ground.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pos, _, _ := exactForm(in)
	if f := os.Getenv("EXP_WCNF"); f != "" {
		w, _ := os.Create(f)
		maxsat.Write(w, pos, maxsat.Format2022)
		w.Close()
	}
	lim, _ := time.ParseDuration(os.Getenv("EXP_LIMIT"))
	o := os.Getenv("EXP_OPTS")
	r, err := maxsat.Exact(context.Background(), pos, maxsat.ExactOptions{NoExhaust: strings.Contains(o, "x"), NoMinimize: strings.Contains(o, "m"), NoStratify: strings.Contains(o, "s"), TimeLimit: lim, Progress: func(p maxsat.ExactProgress) {
		t.Logf("%.1fs cost %.6g lb %.6g cores %d calls %d", p.Seconds, p.Cost, p.LowerBound, p.Cores, p.SATCalls)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s cost %v lb %v cores %d calls %d hardened %d %.1fs", r.Status, r.Cost, r.LowerBound, r.Cores, r.SATCalls, r.Hardened, r.Seconds)
}
