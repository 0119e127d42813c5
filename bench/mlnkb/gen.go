package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// kb is a generated Markov logic knowledge base: a program and its
// evidence, written to files.
type kb struct {
	prog, evidence string // file paths
	query          []string
	facts          int
	entities       int
	clauses        int
}

// writeLines writes lines to path.
func writeLines(path string, lines []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Relations of the generated knowledge base.
const (
	kbRelations = 10 // closed binary relations r0..r9: 90% of the facts
	kbClasses   = 4  // closed unary classes c0..c3: 10% of the facts
	kbOpenBin   = 8  // open binary predicates o0..o7
	kbOpenUn    = 4  // open unary predicates u0..u3
	community   = 100
)

// generateKB writes a knowledge base of n entities and 10n facts into dir:
// entities fall into communities of 100, and 90% of a relation's facts
// link two entities of one community (knowledge graphs are clustered; so
// are the joins); the program has 30 clauses (seeded, fixed for a seed):
// two-hop and one-hop rules from the relations to the open predicates,
// chains through open predicates, inverses, classes, a hard exclusion, a
// soft one and a negative-weight prior.
func generateKB(dir string, n int, seed uint64) (*kb, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6b62))
	name := func(i int) string { return fmt.Sprintf("E%d", i) }
	facts := 10 * n
	seen := make(map[[3]int32]bool, facts)
	var ev []string
	for len(ev) < facts*9/10 {
		r := rng.IntN(kbRelations)
		x := rng.IntN(n)
		var y int
		if rng.IntN(10) < 9 {
			base := x / community * community
			y = base + rng.IntN(min(community, n-base))
		} else {
			y = rng.IntN(n)
		}
		k := [3]int32{int32(r), int32(x), int32(y)}
		if x == y || seen[k] {
			continue
		}
		seen[k] = true
		ev = append(ev, fmt.Sprintf("r%d(%s, %s)", r, name(x), name(y)))
	}
	for len(ev) < facts {
		c, x := rng.IntN(kbClasses), rng.IntN(n)
		k := [3]int32{int32(kbRelations + c), int32(x), -1}
		if seen[k] {
			continue
		}
		seen[k] = true
		ev = append(ev, fmt.Sprintf("c%d(%s)", c, name(x)))
	}
	var prog []string
	prog = append(prog, "// A generated knowledge base (bench/mlnkb): closed relations r*, classes c*;", "// open predicates o* and u* are inferred.")
	for r := range kbRelations {
		prog = append(prog, fmt.Sprintf("*r%d(ent, ent)", r))
	}
	for c := range kbClasses {
		prog = append(prog, fmt.Sprintf("*c%d(ent)", c))
	}
	var query []string
	for o := range kbOpenBin {
		prog = append(prog, fmt.Sprintf("o%d(ent, ent)", o))
		query = append(query, fmt.Sprintf("o%d", o))
	}
	for u := range kbOpenUn {
		prog = append(prog, fmt.Sprintf("u%d(ent)", u))
		query = append(query, fmt.Sprintf("u%d", u))
	}
	weights := []string{"0.5", "1", "1.5", "2", "3"}
	w := func() string { return weights[rng.IntN(len(weights))] }
	r := func() int { return rng.IntN(kbRelations) }
	var rules []string
	for k := range 10 { // two hops: r_a(x, y) ^ r_b(y, z) => o_k(x, z)
		rules = append(rules, fmt.Sprintf("%s !r%d(x, y) v !r%d(y, z) v o%d(x, z)", w(), r(), r(), k%kbOpenBin))
	}
	for k := range 4 { // one hop
		rules = append(rules, fmt.Sprintf("%s !r%d(x, y) v o%d(x, y)", w(), r(), (k+3)%kbOpenBin))
	}
	for k := range 5 { // chains through open predicates
		rules = append(rules, fmt.Sprintf("%s !o%d(x, y) v !r%d(y, z) v o%d(x, z)", w(), k, r(), (k+5)%kbOpenBin))
	}
	for k := range 3 { // inverses
		rules = append(rules, fmt.Sprintf("%s !o%d(x, y) v o%d(y, x)", w(), k+1, (k+6)%kbOpenBin))
	}
	for k := range 2 { // classes from open predicates
		rules = append(rules, fmt.Sprintf("%s !o%d(x, y) v u%d(x)", w(), 2*k, k))
	}
	for k := range 2 { // classes from closed ones
		rules = append(rules, fmt.Sprintf("%s !c%d(x) v !r%d(x, y) v u%d(y)", w(), k, r(), k+2))
	}
	rules = append(rules,
		"!u0(x) v !u1(x).",        // a hard exclusion
		"1 !o0(x, y) v !o1(x, y)", // a soft one
		"-0.8 u2(x)",              // a prior against u2
		"2 !u3(x) v c3(x)",        // u3 only within c3
	)
	prog = append(prog, rules...)
	k := &kb{prog: filepath.Join(dir, "kb.mln"), evidence: filepath.Join(dir, "kb.db"), query: query, facts: len(ev), entities: n, clauses: len(rules)}
	if err := writeLines(k.prog, prog); err != nil {
		return nil, err
	}
	return k, writeLines(k.evidence, ev)
}

// person is one member of a generated family tree.
type person struct {
	male           bool
	father, mother int // -1 when unknown (a founder, or married into the tree)
	spouse         int
	children       []int
}

// generateKinship writes a kinship knowledge base of n people into dir:
// a family tree grown generation by generation (couples have 0 to 4
// children, who marry within the tree or someone who joins it; new families
// are founded when the old ones die out), with its facts for father, mother, husband, son,
// daughter, brother, sister, uncle, aunt, nephew and niece (closed), and
// male, female, child and wife open. The program is kinship-mln's 22
// clauses (rules, read from the shared data), which mention child, male,
// female and wife but have no facts for them.
func generateKinship(dir, rulesFile string, n int, seed uint64) (*kb, error) {
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b696e))
	kids := []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4} // children per couple
	var ps []person
	add := func(male bool, father, mother int) int {
		ps = append(ps, person{male: male, father: father, mother: mother, spouse: -1})
		return len(ps) - 1
	}
	// Founding couples, then generations; new families are founded when
	// the old ones die out.
	var gen []int
	for len(ps) < n {
		if len(gen) == 0 {
			for f := 0; f < max(1, n/40) && len(ps)+2 <= n; f++ {
				h := add(true, -1, -1)
				wf := add(false, -1, -1)
				ps[h].spouse, ps[wf].spouse = wf, h
				gen = append(gen, h, wf)
			}
			if len(gen) == 0 {
				break
			}
		}
		var next []int
		// Couples of this generation have children.
		for _, p := range gen {
			if !ps[p].male || ps[p].spouse < 0 {
				continue
			}
			wf := ps[p].spouse
			for range kids[rng.IntN(len(kids))] {
				if len(ps) >= n {
					break
				}
				c := add(rng.IntN(2) == 0, p, wf)
				ps[p].children = append(ps[p].children, c)
				ps[wf].children = append(ps[wf].children, c)
				next = append(next, c)
			}
		}
		// The children marry: each other (not siblings) or someone new.
		rng.Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
		var single []int
		for _, c := range next {
			if rng.IntN(5) == 0 {
				continue // stays single
			}
			single = append(single, c)
		}
		for i := 0; i < len(single); i++ {
			c := single[i]
			if ps[c].spouse >= 0 {
				continue
			}
			partner := -1
			for j := i + 1; j < len(single) && j < i+8; j++ {
				d := single[j]
				if ps[d].spouse < 0 && ps[d].male != ps[c].male && ps[d].father != ps[c].father {
					partner = d
					break
				}
			}
			if partner < 0 && len(ps) < n {
				partner = add(!ps[c].male, -1, -1) // married into the tree
				next = append(next, partner)
			}
			if partner >= 0 {
				ps[c].spouse, ps[partner].spouse = partner, c
			}
		}
		gen = next
	}
	name := func(i int) string { return fmt.Sprint(i) }
	var ev []string
	fact := func(pred string, a, b int) { ev = append(ev, fmt.Sprintf("%s(%s, %s)", pred, name(a), name(b))) }
	for i, p := range ps {
		if p.male && p.spouse >= 0 {
			fact("husband", i, p.spouse)
		}
		for _, c := range p.children {
			if p.male {
				fact("father", i, c)
			} else {
				fact("mother", i, c)
			}
			if ps[c].male {
				fact("son", c, i)
			} else {
				fact("daughter", c, i)
			}
		}
	}
	siblings := func(i int) []int {
		f := ps[i].father
		if f < 0 {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(ps[f].children), func(c int) bool { return c == i })
	}
	for i, p := range ps {
		for _, s := range siblings(i) {
			if p.male {
				fact("brother", i, s)
			} else {
				fact("sister", i, s)
			}
			// i is an uncle or aunt of s's children.
			for _, c := range ps[s].children {
				if p.male {
					fact("uncle", i, c)
				} else {
					fact("aunt", i, c)
				}
				if ps[c].male {
					fact("nephew", c, i)
				} else {
					fact("niece", c, i)
				}
			}
		}
	}
	var prog []string
	prog = append(prog, "// A generated kinship knowledge base (bench/mlnkb) with kinship-mln's clauses:",
		"// the predicates with facts are closed, male, female, child and wife open.")
	for _, p := range []string{"father", "mother", "husband", "son", "daughter", "brother", "sister", "uncle", "aunt", "nephew", "niece"} {
		prog = append(prog, fmt.Sprintf("*%s(person, person)", p))
	}
	prog = append(prog, "wife(person, person)", "male(person)", "female(person)", "child(person, person)")
	count := 0
	for _, l := range strings.Split(string(rules), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			prog = append(prog, l)
			count++
		}
	}
	k := &kb{prog: filepath.Join(dir, "kinship.mln"), evidence: filepath.Join(dir, "kinship.db"),
		query: []string{"male", "female", "child", "wife"}, facts: len(ev), entities: len(ps), clauses: count}
	if err := writeLines(k.prog, prog); err != nil {
		return nil, err
	}
	return k, writeLines(k.evidence, ev)
}
