package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hinge-srl/hinge/mln"
)

// newRand returns the generator of one seeded stream; stream separates the
// uses of one seed (train and test worlds, the samplers).
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^stream))
}

// inclusionConfig is the paper's inclusion-constraint domain (section 5):
// people who lead projects manage people on them.
type inclusionConfig struct {
	People, Projects int
	PLeader          float64 // a person is a project leader (0.25)
	PLead            float64 // a leader leads each project (0.1)
	PManage          float64 // for each led project, the lead manages each person (0.05)
	PExtra           float64 // a spurious management link, any ordered pair (0.001..0.1)
	PNoise           float64 // each observed atom is the truth flipped (0..1)
}

func paperInclusion(pExtra, pNoise float64) inclusionConfig {
	return inclusionConfig{People: 100, Projects: 100, PLeader: 0.25, PLead: 0.1, PManage: 0.05, PExtra: pExtra, PNoise: pNoise}
}

// inclusionWorld is one generated database: the true relations, the
// observed (noisy) copies, and the planted structure that made them.
type inclusionWorld struct {
	Cfg             inclusionConfig
	Leader          []bool
	Lead, ObsLead   [][]bool  // [person][project]
	Manages, ObsMan [][]bool  // [manager][person]; nobody manages themselves
	Team            [][][]int // [person][project]: the people managed through that project (nil unless led)
	Extra           [][]bool  // [manager][person]: the link was drawn as a spurious one
}

func boolMatrix(n, m int) [][]bool {
	out := make([][]bool, n)
	for i := range out {
		out[i] = make([]bool, m)
	}
	return out
}

// genInclusion draws one world from seed. Every random choice is drawn in
// a fixed order from one stream, so a seed always gives the same world.
func genInclusion(c inclusionConfig, seed uint64) *inclusionWorld {
	r := newRand(seed, 1)
	w := &inclusionWorld{Cfg: c, Leader: make([]bool, c.People),
		Lead: boolMatrix(c.People, c.Projects), ObsLead: boolMatrix(c.People, c.Projects),
		Manages: boolMatrix(c.People, c.People), ObsMan: boolMatrix(c.People, c.People),
		Extra: boolMatrix(c.People, c.People), Team: make([][][]int, c.People)}
	for x := range c.People {
		w.Team[x] = make([][]int, c.Projects)
		if r.Float64() >= c.PLeader {
			continue
		}
		w.Leader[x] = true
		for y := range c.Projects {
			if r.Float64() >= c.PLead {
				continue
			}
			w.Lead[x][y] = true
			w.Team[x][y] = []int{}
			for z := range c.People {
				if z != x && r.Float64() < c.PManage {
					w.Team[x][y] = append(w.Team[x][y], z)
					w.Manages[x][z] = true
				}
			}
		}
	}
	for x := range c.People {
		for z := range c.People {
			if z != x && r.Float64() < c.PExtra {
				w.Extra[x][z] = true
				w.Manages[x][z] = true
			}
		}
	}
	for x := range c.People {
		for y := range c.Projects {
			w.ObsLead[x][y] = w.Lead[x][y] != (r.Float64() < c.PNoise)
		}
		for z := range c.People {
			w.ObsMan[x][z] = w.Manages[x][z] != (r.Float64() < c.PNoise)
		}
	}
	return w
}

func person(i int) string  { return fmt.Sprintf("P%d", i) }
func project(i int) string { return fmt.Sprintf("J%d", i) }

func atom(pred string, value bool, args ...string) mln.GroundAtom {
	a := mln.GroundAtom{Pred: pred, Args: make([]mln.Term, len(args))}
	for i, s := range args {
		a.Args[i] = mln.Term{Name: s}
	}
	if value {
		a.Value = 1
	}
	return a
}

// Evidence lists the observed atoms that are true (the observed predicates
// are closed: every other one is false).
func (w *inclusionWorld) Evidence() []mln.GroundAtom {
	var out []mln.GroundAtom
	for x := range w.Cfg.People {
		for y := range w.Cfg.Projects {
			if w.ObsLead[x][y] {
				out = append(out, atom("ObsLead", true, person(x), project(y)))
			}
		}
		for z := range w.Cfg.People {
			if w.ObsMan[x][z] {
				out = append(out, atom("ObsManages", true, person(x), person(z)))
			}
		}
	}
	return out
}

// Truth returns every query atom (ProjectLead and ManagerOf over the whole
// domain, ManagerOf(x, x) included) with its true value, keyed as
// mln.AtomString writes it.
func (w *inclusionWorld) Truth() map[string]bool {
	t := map[string]bool{}
	for x := range w.Cfg.People {
		for y := range w.Cfg.Projects {
			t[mln.AtomString("ProjectLead", []string{person(x), project(y)})] = w.Lead[x][y]
		}
		for z := range w.Cfg.People {
			t[mln.AtomString("ManagerOf", []string{person(x), person(z)})] = w.Manages[x][z]
		}
	}
	return t
}

// Training is the training database: the evidence and the true query
// atoms (the query predicates are closed in training: an atom not listed is
// false).
func (w *inclusionWorld) Training() []mln.GroundAtom {
	out := w.Evidence()
	for x := range w.Cfg.People {
		for y := range w.Cfg.Projects {
			if w.Lead[x][y] {
				out = append(out, atom("ProjectLead", true, person(x), project(y)))
			}
		}
		for z := range w.Cfg.People {
			if w.Manages[x][z] {
				out = append(out, atom("ManagerOf", true, person(x), person(z)))
			}
		}
	}
	return out
}

// names lists f(0), ..., f(n-1), comma-separated: a type's constants.
func names(n int, f func(int) string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = f(i)
	}
	return strings.Join(s, ", ")
}

// inclusionDecls declares the domain (every constant, so that the domains
// do not depend on which atoms happen to be observed) and the predicates:
// the observed copies closed ('*'), the true relations open.
func inclusionDecls(c inclusionConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "person = {%s}\n", names(c.People, person))
	fmt.Fprintf(&b, "project = {%s}\n", names(c.Projects, project))
	b.WriteString("*ObsLead(person, project)\n*ObsManages(person, person)\nProjectLead(person, project)\nManagerOf(person, person)\n")
	return b.String()
}

// fdConfig is the paper's functional-dependency domain: a supplier table
// Supplier(TaxID, CompanyName, PartType) merged from K databases, each with
// its own name for a company.
type fdConfig struct {
	TaxIDs, Names, Parts int
	K                    int     // names per equivalence group (Names % K == 0)
	PSupply              float64 // a name used by a tax ID supplies each part type (0.25)
	PNoise               float64 // a tuple's company name is replaced by a random name
}

func paperFD(k int, pNoise float64) fdConfig {
	return fdConfig{TaxIDs: 30, Names: 30, Parts: 30, K: k, PSupply: 0.25, PNoise: pNoise}
}

// fdWorld is one generated supplier table with the truth: name n belongs
// to group Group[n] (names [g*K, (g+1)*K)); tax ID t uses group TaxGroup[t].
type fdWorld struct {
	Cfg      fdConfig
	Group    []int
	TaxGroup []int
	Clean    [][][]bool // [tax][name][part] before corruption
	Supplier [][][]bool // [tax][name][part] as observed
}

func boolCube(a, b, c int) [][][]bool {
	out := make([][][]bool, a)
	for i := range out {
		out[i] = boolMatrix(b, c)
	}
	return out
}

// genFD draws one supplier table from seed: each tax ID takes one of the
// Names/K groups uniformly; for each name of its group and each part type
// the tuple is present with probability PSupply; then each tuple's name is
// replaced with probability PNoise by a name drawn uniformly from all Names
// (a duplicate tuple merges).
func genFD(c fdConfig, seed uint64) *fdWorld {
	if c.K <= 0 || c.Names%c.K != 0 {
		panic(fmt.Sprintf("fd: group size %d does not divide %d names", c.K, c.Names))
	}
	r := newRand(seed, 2)
	w := &fdWorld{Cfg: c, Group: make([]int, c.Names), TaxGroup: make([]int, c.TaxIDs),
		Clean: boolCube(c.TaxIDs, c.Names, c.Parts), Supplier: boolCube(c.TaxIDs, c.Names, c.Parts)}
	for n := range c.Names {
		w.Group[n] = n / c.K
	}
	groups := c.Names / c.K
	for t := range c.TaxIDs {
		g := r.IntN(groups)
		w.TaxGroup[t] = g
		for n := g * c.K; n < (g+1)*c.K; n++ {
			for z := range c.Parts {
				if r.Float64() < c.PSupply {
					w.Clean[t][n][z] = true
				}
			}
		}
	}
	for t := range c.TaxIDs {
		for n := range c.Names {
			for z := range c.Parts {
				if !w.Clean[t][n][z] {
					continue
				}
				m := n
				if r.Float64() < c.PNoise {
					m = r.IntN(c.Names)
				}
				w.Supplier[t][m][z] = true
			}
		}
	}
	return w
}

func taxID(i int) string { return fmt.Sprintf("T%d", i) }
func cname(i int) string { return fmt.Sprintf("N%d", i) }
func part(i int) string  { return fmt.Sprintf("Z%d", i) }

// Evidence lists the observed supplier tuples (Supplier is closed).
func (w *fdWorld) Evidence() []mln.GroundAtom {
	var out []mln.GroundAtom
	for t := range w.Cfg.TaxIDs {
		for n := range w.Cfg.Names {
			for z := range w.Cfg.Parts {
				if w.Supplier[t][n][z] {
					out = append(out, atom("Supplier", true, taxID(t), cname(n), part(z)))
				}
			}
		}
	}
	return out
}

// Equiv reports whether two names are in one group (reflexive).
func (w *fdWorld) Equiv(a, b int) bool { return w.Group[a] == w.Group[b] }

// Truth returns the scored query atoms, Equiv(a, b) for a != b (the
// reflexive ones are true by definition and not scored).
func (w *fdWorld) Truth() map[string]bool {
	t := map[string]bool{}
	for a := range w.Cfg.Names {
		for b := range w.Cfg.Names {
			if a != b {
				t[mln.AtomString("Equiv", []string{cname(a), cname(b)})] = w.Equiv(a, b)
			}
		}
	}
	return t
}

// Training is the evidence and every true Equiv atom (reflexive ones
// included: the relation is an equivalence).
func (w *fdWorld) Training() []mln.GroundAtom {
	out := w.Evidence()
	for a := range w.Cfg.Names {
		for b := range w.Cfg.Names {
			if w.Equiv(a, b) {
				out = append(out, atom("Equiv", true, cname(a), cname(b)))
			}
		}
	}
	return out
}

func fdDecls(c fdConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tax = {%s}\n", names(c.TaxIDs, taxID))
	fmt.Fprintf(&b, "name = {%s}\n", names(c.Names, cname))
	fmt.Fprintf(&b, "part = {%s}\n", names(c.Parts, part))
	b.WriteString("*Supplier(tax, name, part)\nEquiv(name, name)\n")
	return b.String()
}
