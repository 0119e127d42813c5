package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/mln"
)

// wcspParams describe a generated weighted CSP.
type wcspParams struct {
	vars, domain      int
	density, hardFrac float64
	seed              uint64
}

func (p wcspParams) String() string {
	return fmt.Sprintf("generated wcsp n=%d d=%d seed %d", p.vars, p.domain, p.seed)
}

// generateWCSP makes a weighted CSP in the direct encoding the MaxSAT
// Evaluations' WCSP instances use (SPOT5, CELAR): a boolean atom per
// variable and value, one value per variable (hard at-least-one and
// pairwise at-most-one clauses), unary costs as soft unit clauses !x_ia,
// and for a fraction density of the variable pairs forbidden value pairs
// (each value pair with probability 0.3) as binary clauses
// !x_ia v !x_jb, hard with probability hardFrac, else soft of weight 1,
// 2, 5, 10 or 100. A planted assignment violates no hard clause, so the
// instance is feasible.
func generateWCSP(p wcspParams) *maxsat.Instance {
	rng := rand.New(rand.NewPCG(p.seed, 0x77637370))
	in := &maxsat.Instance{Start: []int32{0}}
	x := func(i, a int) maxsat.Lit { return maxsat.Pos(i*p.domain + a) }
	planted := make([]int, p.vars)
	for i := range planted {
		planted[i] = rng.IntN(p.domain)
	}
	add := func(w float64, hard bool, lits ...maxsat.Lit) {
		if err := in.AddClause(w, hard, lits...); err != nil {
			panic(err)
		}
	}
	weights := []float64{1, 2, 5, 10, 100}
	for i := range p.vars {
		var alo []maxsat.Lit
		for a := range p.domain {
			alo = append(alo, x(i, a))
			for b := a + 1; b < p.domain; b++ {
				add(0, true, -x(i, a), -x(i, b))
			}
			if rng.IntN(2) == 0 {
				add(float64(rng.IntN(5)+1), false, -x(i, a))
			}
		}
		add(0, true, alo...)
	}
	for i := range p.vars {
		for j := i + 1; j < p.vars; j++ {
			if rng.Float64() >= p.density {
				continue
			}
			for a := range p.domain {
				for b := range p.domain {
					if rng.Float64() >= 0.3 {
						continue
					}
					hard := rng.Float64() < p.hardFrac && !(a == planted[i] && b == planted[j])
					add(weights[rng.IntN(len(weights))], hard, -x(i, a), -x(j, b))
				}
			}
		}
	}
	return in
}

// writeTransitivity writes a transitivity model of n persons into dir and
// returns the program and evidence files: persons in communities of 20,
// three Friends facts (closed) each within the community, a tenth of them
// smokers (evidence; Smokes is open); rules 1.5 Friends => Knows, 0.3
// Knows(x,y) ^ Knows(y,z) => Knows(x,z), a prior -0.4 Knows(x,y), the hard
// !Knows(x,x), 0.8 Smokes(x) ^ Knows(x,y) => Smokes(y) and -0.5 Smokes(x).
// Its full grounding has n^3 transitivity clauses.
func writeTransitivity(dir string, n int, seed uint64) (prog, evidence string, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x7472616e))
	prog = filepath.Join(dir, fmt.Sprintf("trans%d.mln", n))
	evidence = filepath.Join(dir, fmt.Sprintf("trans%d.db", n))
	text := `*Friends(person, person)
Knows(person, person)
Smokes(person)

1.5 Friends(x, y) => Knows(x, y)
0.3 Knows(x, y) ^ Knows(y, z) => Knows(x, z)
-0.4 Knows(x, y)
!Knows(x, x).
0.8 Smokes(x) ^ Knows(x, y) => Smokes(y)
-0.5 Smokes(x)
`
	if err := os.WriteFile(prog, []byte(text), 0o644); err != nil {
		return "", "", err
	}
	f, err := os.Create(evidence)
	if err != nil {
		return "", "", err
	}
	w := bufio.NewWriter(f)
	const community = 20
	for i := range n {
		base := i / community * community
		for range 3 {
			if j := base + rng.IntN(community); j != i && j < n {
				fmt.Fprintf(w, "Friends(P%d, P%d)\n", i, j)
			}
		}
		if rng.Float64() < 0.1 {
			fmt.Fprintf(w, "Smokes(P%d)\n", i)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", "", err
	}
	return prog, evidence, f.Close()
}

// lazy: exact MAP on the full grounding against lazy exact MAP by cutting
// planes, and lazy MaxWalkSAT beside them.
func (c *config) lazy(ctx context.Context, transFull string, transLazy int) error {
	type model struct {
		name  string
		build func(lazy bool) (*mln.Network, error)
		full  bool
	}
	var models []model
	for s := 1; s <= 5; s++ {
		p := program{name: fmt.Sprintf("kinship-mln S%d", s), dir: filepath.Join(c.data, "kinship-mln", fmt.Sprintf("S%d", s))}
		models = append(models, model{p.name, p.build, true})
	}
	trans := func(n int, full bool) error {
		prog, ev, err := writeTransitivity(c.work, n, 1)
		if err != nil {
			return err
		}
		build := func(lazy bool) (*mln.Network, error) {
			p, err := mln.ReadProgram(prog)
			if err != nil {
				return nil, err
			}
			atoms, err := mln.ReadAtoms(ev, p, false)
			if err != nil {
				return nil, err
			}
			return mln.Build(p, atoms, mln.Options{Query: []string{"Knows", "Smokes"}, Lazy: lazy})
		}
		models = append(models, model{fmt.Sprintf("transitivity, %d persons", n), build, full})
		return nil
	}
	for _, s := range strings.Split(transFull, ",") {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			return fmt.Errorf("-trans-sizes: %q is not a number of persons", s)
		}
		if err := trans(n, true); err != nil {
			return err
		}
	}
	if transLazy > 0 {
		if err := trans(transLazy, false); err != nil {
			return err
		}
	}
	rows := [][]string{{"model", "full: ground clauses", "status", "cost", "CPU s",
		"lazy: clauses built", "rounds", "status", "cost", "bound", "CPU s", "agree", "lazy MaxWalkSAT cost (10^6 flips)", "CPU s"}}
	for _, m := range models {
		fmt.Fprintf(c.stderr, "  lazy %s ...\n", m.name)
		row := []string{m.name, "", "", "", ""}
		fullCost, fullOptimal := math.NaN(), false
		if m.full {
			net, err := m.build(false)
			if err != nil {
				return err
			}
			mo := mln.DefaultMAPOptions()
			mo.Method, mo.TimeLimit = mln.MethodExact, c.limit
			var res *mln.MAPResult
			cpu, _, err := timed(func() (err error) {
				res, err = net.MAP(ctx, mo)
				return err
			})
			if err != nil {
				return err
			}
			status := "optimal"
			if res.Exact != nil {
				status = res.Exact.Status
			}
			pr := res.Ground.Problem
			fullCost, fullOptimal = res.Cost, res.Report.Optimal
			row = []string{m.name, fmt.Sprint(pr.NumPotentials() + pr.NumConstraints()), status, g6(res.Cost), f1(cpu)}
		}
		net, err := m.build(true)
		if err != nil {
			return err
		}
		var lr *mln.LazyExactResult
		cpu, _, err := timed(func() (err error) {
			lr, err = net.LazyExactMAP(ctx, mln.LazyExactOptions{TimeLimit: c.limit})
			return err
		})
		if err != nil {
			return err
		}
		agree := ""
		switch {
		case !m.full:
		case fullOptimal && lr.Optimal && math.Abs(fullCost-lr.Cost) <= 1e-6*(1+fullCost):
			agree = "yes"
		case fullOptimal && lr.Optimal:
			agree = "NO"
		default:
			agree = "(not both proven)"
		}
		wnet, err := m.build(true)
		if err != nil {
			return err
		}
		var wr *mln.LazyResult
		wcpu, _, err := timed(func() (err error) {
			wr, err = wnet.LazyMAP(ctx, mln.LazyOptions{Seed: 1})
			return err
		})
		if err != nil {
			return err
		}
		rows = append(rows, append(row, fmt.Sprint(lr.ActiveClauses), fmt.Sprint(lr.Rounds), lr.Status, g6(lr.Cost), g6(lr.LowerBound), f1(cpu),
			agree, g6(wr.Cost), f1(wcpu)))
	}
	return c.writeCSV("lazy", rows)
}
