package lift

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hinge-srl/hinge/hlmrf"
)

// This file holds the independent oracles the tests compare against. They
// share no code with the package: exact sums are big.Rat, and refinement is
// the textbook round-by-round recoloring of every node.

// node is a node of the factor graph: a variable, potential or constraint.
type node struct {
	kind byte // 'v', 'p', 'c'
	idx  int
}

// incidences lists the (neighbor, coefficient) pairs of every node.
type incidence struct {
	nb   node
	coef float64
}

func incidences(p *hlmrf.Problem) map[node][]incidence {
	inc := make(map[node][]incidence)
	for i := range p.Weight {
		vars, coefs := p.Terms(i)
		for k, v := range vars {
			pn, vn := node{'p', i}, node{'v', int(v)}
			inc[pn] = append(inc[pn], incidence{vn, coefs[k]})
			inc[vn] = append(inc[vn], incidence{pn, coefs[k]})
		}
	}
	for j := range p.CKind {
		vars, coefs := p.CTerms(j)
		for k, v := range vars {
			cn, vn := node{'c', j}, node{'v', int(v)}
			inc[cn] = append(inc[cn], incidence{vn, coefs[k]})
			inc[vn] = append(inc[vn], incidence{cn, coefs[k]})
		}
	}
	return inc
}

func allNodes(p *hlmrf.Problem) []node {
	var out []node
	for v := 0; v < p.NumVars; v++ {
		out = append(out, node{'v', v})
	}
	for i := range p.Weight {
		out = append(out, node{'p', i})
	}
	for j := range p.CKind {
		out = append(out, node{'c', j})
	}
	return out
}

// sumsInto returns node x's exact sums of edge weights per color of its
// neighbors, as a canonical string ("color=rational;..." sorted, zeros left out).
func sumsInto(inc []incidence, color func(node) string) string {
	sums := make(map[string]*big.Rat)
	for _, e := range inc {
		c := color(e.nb)
		if sums[c] == nil {
			sums[c] = new(big.Rat)
		}
		sums[c].Add(sums[c], new(big.Rat).SetFloat64(e.coef))
	}
	var parts []string
	for c, s := range sums {
		if s.Sign() != 0 {
			parts = append(parts, c+"="+s.RatString())
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func colorFunc(col *Coloring) func(node) string {
	return func(x node) string {
		switch x.kind {
		case 'v':
			return fmt.Sprintf("v%d", col.Var[x.idx])
		case 'p':
			return fmt.Sprintf("p%d", col.Pot[x.idx])
		}
		return fmt.Sprintf("c%d", col.Con[x.idx])
	}
}

// checkStable verifies that col is a stable (equitable) coloring of p that
// refines the initial coloring: nodes of one color agree on their initial
// label and on their exact sums into every color.
func checkStable(p *hlmrf.Problem, col *Coloring) error {
	if len(col.Var) != p.NumVars || len(col.Pot) != len(p.Weight) || len(col.Con) != len(p.CKind) {
		return fmt.Errorf("coloring sizes %d/%d/%d, problem %d/%d/%d", len(col.Var), len(col.Pot), len(col.Con), p.NumVars, len(p.Weight), len(p.CKind))
	}
	inc := incidences(p)
	cf := colorFunc(col)
	seen := make(map[string]string) // color -> label and sums of its first member
	for _, x := range allNodes(p) {
		label := initialLabel(p, x) + "|" + sumsInto(inc[x], cf)
		c := cf(x)
		if first, ok := seen[c]; ok && first != label {
			return fmt.Errorf("color %s is not stable: %c%d has %q, an earlier member %q", c, x.kind, x.idx, label, first)
		}
		seen[c] = label
	}
	return nil
}

func initialLabel(p *hlmrf.Problem, x node) string {
	norm := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	switch x.kind {
	case 'p':
		return fmt.Sprintf("p w=%s c=%s d=%d", norm(p.Weight[x.idx]).RatString(), norm(p.Const[x.idx]).RatString(), p.Power[x.idx])
	case 'c':
		return fmt.Sprintf("c %s %s", p.CKind[x.idx], norm(p.CConst[x.idx]).RatString())
	}
	return "v"
}

// naiveRefine is the textbook algorithm: every round recolors every node by
// (its color, its exact sums into every color), until the number of colors
// stops growing. It returns the coloring numbered like Refine's.
func naiveRefine(p *hlmrf.Problem) *Coloring {
	nodes := allNodes(p)
	inc := incidences(p)
	color := make(map[node]int)
	ids := make(map[string]int)
	for _, x := range nodes {
		l := initialLabel(p, x)
		if _, ok := ids[l]; !ok {
			ids[l] = len(ids)
		}
		color[x] = ids[l]
	}
	count := len(ids)
	for {
		cf := func(x node) string { return fmt.Sprint(color[x]) }
		next := make(map[node]int)
		ids = make(map[string]int)
		for _, x := range nodes {
			sig := fmt.Sprintf("%d|%s", color[x], sumsInto(inc[x], cf))
			if _, ok := ids[sig]; !ok {
				ids[sig] = len(ids)
			}
			next[x] = ids[sig]
		}
		color = next
		if len(ids) == count {
			break
		}
		count = len(ids)
	}
	col := &Coloring{Var: make([]int32, p.NumVars), Pot: make([]int32, len(p.Weight)), Con: make([]int32, len(p.CKind))}
	number := func(dst []int32, kind byte) int {
		m := make(map[int]int32)
		for i := range dst {
			c := color[node{kind, i}]
			if _, ok := m[c]; !ok {
				m[c] = int32(len(m))
			}
			dst[i] = m[c]
		}
		return len(m)
	}
	col.NumVar = number(col.Var, 'v')
	col.NumPot = number(col.Pot, 'p')
	col.NumCon = number(col.Con, 'c')
	return col
}
