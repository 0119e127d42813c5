// Package admmtest generates random hinge-loss MRFs for tests and
// benchmarks of MAP solvers. Every generator is deterministic in its seed.
package admmtest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
)

// Clauses returns m potentials over n variables, each the Lukasiewicz
// distance to satisfaction of a disjunction of k distinct literals with
// random signs (the LP/QP relaxation of a random weighted MAX-k-SAT
// instance): literal y_j contributes -y_j, literal not y_j contributes
// y_j - 1, so the potential is
//
//	w * max(1 - sum_pos y_j - sum_neg (1 - y_j), 0)^power
//
// with w uniform in [0.5, 1.5). power 1 or 2 fixes every potential's power;
// power 0 draws 1 or 2 per potential. k must be at most n.
func Clauses(m, n, k int, power uint8, seed uint64) *hlmrf.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	p := &hlmrf.Problem{}
	p.AddVars(n)
	p.Weight = make([]float64, 0, m)
	p.Const = make([]float64, 0, m)
	p.Power = make([]uint8, 0, m)
	p.Group = make([]int32, 0, m)
	p.Start = make([]int32, 1, m+1)
	p.Var = make([]int32, 0, m*k)
	p.Coef = make([]float64, 0, m*k)
	vars := make([]int32, k)
	coefs := make([]float64, k)
	for i := 0; i < m; i++ {
		neg := 0
		for t := 0; t < k; t++ {
			v := int32(rng.IntN(n))
			for slices.Contains(vars[:t], v) {
				v = int32(rng.IntN(n))
			}
			vars[t] = v
			if rng.IntN(2) == 0 {
				coefs[t] = -1
			} else {
				coefs[t] = 1
				neg++
			}
		}
		pw := power
		if pw == 0 {
			pw = uint8(1 + rng.IntN(2))
		}
		p.AddPotential(0.5+rng.Float64(), float64(neg-1), pw, 0, vars, coefs)
	}
	return p
}

// Config describes a random problem for Random.
type Config struct {
	Vars, Potentials int
	// MinArity and MaxArity bound the number of variables of a potential
	// (at least 1, at most Vars).
	MinArity, MaxArity int
	// Power is 1 or 2 for all potentials, 0 for a random mix.
	Power uint8
	// Constraints hard constraints of arity MinArity..MaxArity are added;
	// EqualFraction of them are equalities. All of them hold at a hidden
	// random point of [0,1]^Vars, so the problem is feasible.
	Constraints   int
	EqualFraction float64
	// ZeroWeights is the fraction of potentials given weight 0.
	ZeroWeights float64
	// Window, when positive, gives the terms locality: a term's variables
	// are drawn from Window consecutive variables (cyclically) starting at a
	// random one, except that each is drawn from all variables instead with
	// probability Far. This is a small-world hypergraph in the manner of
	// Watts and Strogatz's rewired ring lattice: mostly local, with random
	// long-range links. Window 0 draws every variable uniformly.
	Window int
	Far    float64
	Seed   uint64
}

// BenchKinds names the problem kinds of the ADMM iteration benchmarks
// (admm's BenchmarkIteration and bench/admm), for BenchConfig.
const BenchKinds = "sq3 (3-variable squared hinges over uniformly drawn variables), lin3 (the same, linear), sq3local (squared, each variable from a window of 1000, or from all with probability 0.01)"

// BenchConfig returns the Config of the benchmark problem kind (BenchKinds)
// with the given numbers of potentials and variables: 3-variable hinges;
// in sq3local a small-world problem (Window 1000, Far 0.01), mostly local
// as grounded problems of entity-centred rules are, with random long-range
// links.
func BenchConfig(kind string, potentials, vars int, seed uint64) (Config, error) {
	c := Config{Vars: vars, Potentials: potentials, MinArity: 3, MaxArity: 3, Power: 2, Seed: seed}
	switch kind {
	case "sq3":
	case "lin3":
		c.Power = 1
	case "sq3local":
		c.Window, c.Far = 1000, 0.01
	default:
		return c, fmt.Errorf("admmtest: unknown benchmark kind %q (want sq3, lin3 or sq3local)", kind)
	}
	return c, nil
}

// Random returns a problem with random real coefficients in [-2,2] (away
// from 0), constants in [-1,1] and weights in [0.1, 3).
func Random(c Config) *hlmrf.Problem {
	rng := rand.New(rand.NewPCG(c.Seed, 0x2545f4914f6cdd1d))
	p := &hlmrf.Problem{}
	p.AddVars(c.Vars)
	hidden := make([]float64, c.Vars)
	for j := range hidden {
		hidden[j] = rng.Float64()
	}
	row := func() ([]int32, []float64) {
		k := c.MinArity + rng.IntN(c.MaxArity-c.MinArity+1)
		vars := make([]int32, k)
		coefs := make([]float64, k)
		from, span := 0, c.Vars
		if c.Window > 0 && c.Window < c.Vars {
			from, span = rng.IntN(c.Vars), max(c.Window, k)
		}
		draw := func() int32 {
			if span == c.Vars || rng.Float64() < c.Far {
				return int32(rng.IntN(c.Vars))
			}
			return int32((from + rng.IntN(span)) % c.Vars)
		}
		for t := range vars {
			v := draw()
			for slices.Contains(vars[:t], v) {
				v = draw()
			}
			vars[t] = v
			x := 0.25 + 1.75*rng.Float64()
			if rng.IntN(2) == 0 {
				x = -x
			}
			coefs[t] = x
		}
		return vars, coefs
	}
	for i := 0; i < c.Potentials; i++ {
		vars, coefs := row()
		pw := c.Power
		if pw == 0 {
			pw = uint8(1 + rng.IntN(2))
		}
		w := 0.1 + 2.9*rng.Float64()
		if rng.Float64() < c.ZeroWeights {
			w = 0
		}
		p.AddPotential(w, 2*rng.Float64()-1, pw, 0, vars, coefs)
	}
	for j := 0; j < c.Constraints; j++ {
		vars, coefs := row()
		at := 0.0
		for t, v := range vars {
			at += coefs[t] * hidden[v]
		}
		if rng.Float64() < c.EqualFraction {
			p.AddConstraint(hlmrf.Equal, at, 0, vars, coefs)
		} else {
			p.AddConstraint(hlmrf.LessEq, at+0.5*rng.Float64(), 0, vars, coefs)
		}
	}
	return p
}
