package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/hinge-srl/hinge/ground"
	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/citations"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/pipeline"
)

// smokersProgram is smokers and friends in Markov logic (Richardson and
// Domingos 2006) with priors that conflict with the friendship rule, so
// that worlds cost something: Friends is closed-world evidence, Smokes and
// Cancer are queried.
const smokersProgram = `*Friends(person, person)
Smokes(person)
Cancer(person)
1.5  Smokes(x) => Cancer(x)
1.1  Friends(x, y) => (Smokes(x) <=> Smokes(y))
0.5  !Cancer(x)
0.4  !Smokes(x)
`

// community is one community's template: friendships (undirected) among
// its members, and its evidence.
type community struct {
	edges             [][2]int
	smokes, nonsmoker []int
	cancer            []int
	size              int
}

// randomCommunity draws a community of size people: each pair friends with
// probability 0.3, each person a known smoker with probability 0.2, a known
// non-smoker with 0.1, known to have cancer with 0.1.
func randomCommunity(rng *rand.Rand, size int) community {
	c := community{size: size}
	for i := range size {
		for j := i + 1; j < size; j++ {
			if rng.Float64() < 0.3 {
				c.edges = append(c.edges, [2]int{i, j})
			}
		}
		switch u := rng.Float64(); {
		case u < 0.2:
			c.smokes = append(c.smokes, i)
		case u < 0.3:
			c.nonsmoker = append(c.nonsmoker, i)
		}
		if rng.Float64() < 0.1 {
			c.cancer = append(c.cancer, i)
		}
	}
	return c
}

// communitiesDB is the evidence of people/size communities, community k
// a copy of template k mod len(templates); person i of community k is
// Pk_i.
func communitiesDB(people, size int, templates []community) string {
	var b strings.Builder
	for k := range people / size {
		t := templates[k%len(templates)]
		name := func(i int) string { return fmt.Sprintf("P%d_%d", k, i) }
		for _, e := range t.edges {
			fmt.Fprintf(&b, "Friends(%s, %s)\nFriends(%s, %s)\n", name(e[0]), name(e[1]), name(e[1]), name(e[0]))
		}
		for _, i := range t.smokes {
			fmt.Fprintf(&b, "Smokes(%s)\n", name(i))
		}
		for _, i := range t.nonsmoker {
			fmt.Fprintf(&b, "!Smokes(%s)\n", name(i))
		}
		for _, i := range t.cancer {
			fmt.Fprintf(&b, "Cancer(%s)\n", name(i))
		}
	}
	return b.String()
}

// communitiesNet builds the smokers network of people in communities of
// size made from templates distinct random communities (seeded).
func communitiesNet(people, size, templates int, seed uint64) (*mln.Network, error) {
	rng := rand.New(rand.NewPCG(seed, 35))
	ts := make([]community, templates)
	for i := range ts {
		ts[i] = randomCommunity(rng, size)
	}
	return buildNet(smokersProgram, communitiesDB(people, size, ts), []string{"Smokes", "Cancer"})
}

// directedProgram is smokers and friends with influence along directed
// friendships, for the random graphs: the undirected program's <=> grounds
// every clause of a pair twice (once from each direction), which lifting
// merges, so it would not be a network without symmetry.
const directedProgram = `*Friends(person, person)
Smokes(person)
Cancer(person)
1.5  Smokes(x) => Cancer(x)
1.1  Friends(x, y) ^ Smokes(x) => Smokes(y)
0.5  !Cancer(x)
0.4  !Smokes(x)
`

// randomNet is smokers and friends on one random directed friendship graph
// over all people (each person befriends degree others on average) with
// the evidence probabilities of randomCommunity: no repeated communities,
// and for degrees well above 1 hardly any two people alike.
func randomNet(people int, degree float64, seed uint64) (*mln.Network, error) {
	rng := rand.New(rand.NewPCG(seed, 36))
	var b strings.Builder
	seen := map[[2]int]bool{}
	for range int(degree * float64(people)) {
		i, j := rng.IntN(people), rng.IntN(people)
		if i == j || seen[[2]int{i, j}] {
			continue
		}
		seen[[2]int{i, j}] = true
		fmt.Fprintf(&b, "Friends(P%d, P%d)\n", i, j)
	}
	for i := range people {
		switch u := rng.Float64(); {
		case u < 0.2:
			fmt.Fprintf(&b, "Smokes(P%d)\n", i)
		case u < 0.3:
			fmt.Fprintf(&b, "!Smokes(P%d)\n", i)
		}
		if rng.Float64() < 0.1 {
			fmt.Fprintf(&b, "Cancer(P%d)\n", i)
		}
	}
	return buildNet(directedProgram, b.String(), []string{"Smokes", "Cancer"})
}

// interchangeableNet is a network over n people that no evidence tells
// apart, every predicate open (Friends included, with symmetry and
// transitivity formulas): its ground network has n^3 transitivity clauses
// and lifts to a handful of classes.
func interchangeableNet(n int) (*mln.Network, error) {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString(`}
Friends(person, person)
Smokes(person)
Cancer(person)
1.5  Smokes(x) => Cancer(x)
1.1  Friends(x, y) ^ Smokes(x) => Smokes(y)
0.7  Friends(x, y) => Friends(y, x)
0.3  Friends(x, y) ^ Friends(y, z) => Friends(x, z)
0.8  !Friends(x, y)
0.5  !Cancer(x)
0.6  Smokes(x)
`)
	return buildNet(b.String(), "", []string{"Friends", "Smokes", "Cancer"})
}

func buildNet(program, db string, query []string) (*mln.Network, error) {
	prog, err := mln.ParseProgram("bench.mln", []byte(program))
	if err != nil {
		return nil, err
	}
	ev, err := mln.ParseAtoms("bench.db", []byte(db), prog, false)
	if err != nil {
		return nil, err
	}
	return mln.Build(prog, ev, mln.Options{Query: query})
}

// folderNet reads an ExpressGNN folder (kinship-mln, uw-cse).
func folderNet(dir string) (*mln.Network, error) {
	fo, err := mln.ReadFolder(dir)
	if err != nil {
		return nil, err
	}
	var query []string
	seen := map[string]bool{}
	for _, q := range fo.Queries {
		if !seen[q.Pred] {
			seen[q.Pred] = true
			query = append(query, q.Pred)
		}
	}
	return mln.Build(fo.Program, fo.Evidence, mln.Options{Query: query})
}

// citationsProblem grounds the collective-classification model of Cora or
// Citeseer (internal/citations, seeded 50/50 split) in its clause form for
// discrete MAP: the rules as written but linear (on 0/1 values squaring
// changes nothing), and "exactly one category" as the hard clauses
// "at least one" (HasCat(A, +C) >= 1) and "at most one"
// (HasCat(A, C1) & C1 != C2 >> !HasCat(A, C2)).
func citationsProblem(dataDir, name string, seed uint64) (*hlmrf.Problem, float64, error) {
	dir := filepath.Join(dataDir, name)
	if _, err := os.Stat(dir); err != nil {
		return nil, 0, fmt.Errorf("data set missing: %w", err)
	}
	ds, err := citations.Load(dir, name)
	if err != nil {
		return nil, 0, err
	}
	split, err := citations.NewSplit(ds, seed, 0.5)
	if err != nil {
		return nil, 0, err
	}
	tmp, err := os.MkdirTemp("", "hinge-liftedmap-"+name+"-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(tmp)
	if err := citations.WritePSL(split, tmp); err != nil {
		return nil, 0, err
	}
	model := filepath.Join(tmp, name+".psl")
	src, err := os.ReadFile(model)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSuffix(line, " ^2")
		if strings.TrimSpace(line) == "HasCat(A, +C) = 1 ." {
			out = append(out, "HasCat(A, +C) >= 1 .", "HasCat(A, C1) & (C1 != C2) >> !HasCat(A, C2) .")
			continue
		}
		out = append(out, line)
	}
	if err := os.WriteFile(model, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		return nil, 0, err
	}
	sw := startWatch()
	prog, err := pipeline.Load(pipeline.Inputs{Model: model, Data: filepath.Join(tmp, name+".data")})
	if err != nil {
		return nil, 0, err
	}
	g, err := prog.Ground(ground.Options{})
	if err != nil {
		return nil, 0, err
	}
	return g.Problem, sw.elapsed(), nil
}
