package lift

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

// TestExample3 checks the lifted function of paper 000, Example 3:
// 5 max(-y1 + 2y2 - 1, 0)^2 + 10 max(y1 - y2, 0)^2 + 5 max(-y3 + 1, 0)^2.
func TestExample3(t *testing.T) {
	p := admmtest.ReadProblem(t, "../hlmrf/testdata/example1.hlmrf")
	l, err := Lift(p)
	if err != nil {
		t.Fatal(err)
	}
	want := parseProblem(t, "5 0:1 1:-1 2:2 #^2\n10 0:0 1:1 2:-1 #^2\n5 0:-1 3:-1 #^2\n")
	if !isomorphic(l.Problem, want) {
		t.Fatalf("lifted problem\n%v\nis not Example 3's\n%v", canonical(l.Problem, identity(l.Problem.NumVars)), canonical(want, identity(3)))
	}
	if l.Offset != 0 {
		t.Errorf("offset %v, want 0", l.Offset)
	}
	// Closed form: at any lifted point, the lifted objective is the
	// original one at the expanded point.
	sq := func(x float64) float64 { x = math.Max(x, 0); return x * x }
	rng := rand.New(rand.NewPCG(3, 3))
	for range 100 {
		z := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		y := l.Expand(z)
		f := 5*sq(y[0]-y[1]) + 5*sq(-y[0]+y[1]+y[3]-1) + 5*sq(y[0]-y[3]) + 5*sq(-y[2]+1)
		if got := l.Objective(z); math.Abs(got-f) > 1e-12 {
			t.Fatalf("lifted objective %v at %v, original %v at %v", got, z, f, y)
		}
	}
}

// classAverage returns y averaged over each variable class.
func classAverage(l *Lifted, y []float64) (avg, lifted []float64) {
	n := l.Problem.NumVars
	sum := make([]float64, n)
	cnt := make([]float64, n)
	for j, k := range l.VarClass {
		sum[k] += y[j]
		cnt[k]++
	}
	for k := range sum {
		sum[k] /= cnt[k]
	}
	return l.Expand(sum), sum
}

// objectiveScale bounds |objective| over [0,1]^n, for relative tolerances.
func objectiveScale(p *hlmrf.Problem) float64 {
	var s float64
	for i := range p.Weight {
		_, coefs := p.Terms(i)
		h := math.Abs(p.Const[i])
		for _, c := range coefs {
			h += math.Abs(c)
		}
		if p.Power[i] == 2 {
			h *= h
		}
		s += p.Weight[i] * h
	}
	return s
}

// TestLiftProperties checks, on random problems with and without planted
// symmetry, what makes lifting correct without any solver:
//   - the lifted problem is valid and, on points constant on the classes,
//     lifted objective + Offset equals the original objective;
//   - averaging any point over the classes (which lands in the lifted space)
//     does not increase the objective or any constraint class's largest
//     violation, so the original has an optimum in the lifted space.
func TestLiftProperties(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	for _, tc := range refineCases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), 2))
				p, y0 := tc.problem(rng)
				l, err := Lift(p)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := l.Problem.Validate(); err != nil {
					t.Fatalf("seed %d: lifted problem invalid: %v", seed, err)
				}
				scale := objectiveScale(p) + 1
				for trial := range 20 {
					y := make([]float64, p.NumVars)
					for j := range y {
						y[j] = rng.Float64()
					}
					if trial == 0 {
						y = y0
					}
					avg, z := classAverage(l, y)
					fy, favg := p.Objective(y), p.Objective(avg)
					if favg > fy+1e-12*scale {
						t.Fatalf("seed %d: averaging raised the objective from %v to %v", seed, fy, favg)
					}
					if got := l.Objective(z); math.Abs(got-favg) > 1e-12*scale {
						t.Fatalf("seed %d: lifted objective %v + offset, original %v", seed, got, favg)
					}
					for j := range p.CKind {
						if d := p.ConstraintViolation(j, avg); d > 1e-12*scale && d > maxClassViolation(p, l, j, y)+1e-12*scale {
							t.Fatalf("seed %d: averaging raised constraint %d's violation to %v", seed, j, d)
						}
						if k := l.ConClass[j]; k >= 0 {
							if got, want := l.Problem.ConstraintViolation(int(k), z), p.ConstraintViolation(j, avg); math.Abs(got-want) > 1e-12*scale {
								t.Fatalf("seed %d: lifted constraint %d violation %v, original %d: %v", seed, k, got, j, want)
							}
						}
					}
				}
			}
		})
	}
}

// maxClassViolation is the largest violation at y among the constraints of
// constraint j's class.
func maxClassViolation(p *hlmrf.Problem, l *Lifted, j int, y []float64) float64 {
	var m float64
	for i, c := range l.Coloring.Con {
		if c == l.Coloring.Con[j] {
			m = math.Max(m, p.ConstraintViolation(i, y))
		}
	}
	return m
}

// TestPlantedSize: k permuted copies of a problem lift to exactly what one
// copy lifts to, which is no larger than one copy.
func TestPlantedSize(t *testing.T) {
	for _, tc := range refineCases {
		for seed := range 10 {
			rng := rand.New(rand.NewPCG(uint64(seed), 4))
			base, y0 := randomProblem(rng, tc.spec)
			one, err := Lift(base)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{2, 5} {
				p, _ := planted(rng, base, y0, k)
				l, err := Lift(p)
				if err != nil {
					t.Fatal(err)
				}
				lp := l.Problem
				if lp.NumVars != one.Problem.NumVars || lp.NumPotentials() != one.Problem.NumPotentials() || lp.NumConstraints() != one.Problem.NumConstraints() {
					t.Fatalf("%s seed %d: %d copies lift to %d/%d/%d, one copy to %d/%d/%d", tc.name, seed, k,
						lp.NumVars, lp.NumPotentials(), lp.NumConstraints(),
						one.Problem.NumVars, one.Problem.NumPotentials(), one.Problem.NumConstraints())
				}
				if lp.NumVars > base.NumVars || lp.NumPotentials() > base.NumPotentials() || lp.NumConstraints() > base.NumConstraints() {
					t.Fatalf("%s seed %d: lifted problem larger than one copy", tc.name, seed)
				}
				if math.Abs(l.Offset-float64(k)*one.Offset) > 1e-9*(1+math.Abs(l.Offset)) {
					t.Fatalf("%s seed %d: offset %v, want %d x %v", tc.name, seed, l.Offset, k, one.Offset)
				}
			}
		}
	}
}

// noSymmetry returns a problem in which every potential has its own weight,
// so no two nodes can share a color.
func noSymmetry(rng *rand.Rand, vars, pots int) *hlmrf.Problem {
	p := &hlmrf.Problem{}
	p.AddVars(vars)
	for i := range pots {
		k := 1 + rng.IntN(3)
		vs := make([]int32, 0, k)
		cs := make([]float64, 0, k)
		for _, v := range rng.Perm(vars)[:k] {
			vs = append(vs, int32(v))
			cs = append(cs, trickyCoefs[rng.IntN(len(trickyCoefs))])
		}
		// Variable i%vars gets a private potential so that it is told apart.
		if i < vars {
			vs, cs = []int32{int32(i)}, []float64{1}
		}
		p.AddPotential(1+float64(i)/float64(pots), float64(rng.IntN(3))/2, uint8(1+rng.IntN(2)), int32(i), vs, cs)
	}
	return p
}

// TestNoSymmetryLiftsToItself: without symmetry the lifted problem is the
// original (same order, since classes are numbered by first member).
func TestNoSymmetryLiftsToItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		p := noSymmetry(rng, 10, 40)
		p.CStart = []int32{0} // as hlmrf.Read makes it, and Lift
		l, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p, l.Problem, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("lifted problem differs (-original +lifted):\n%s", diff)
		}
		if !cmp.Equal(l.VarClass, toInt32(identity(10))) || !cmp.Equal(l.PotClass, toInt32(identity(40))) {
			t.Fatalf("maps are not the identity: %v %v", l.VarClass, l.PotClass)
		}
	}
}

func toInt32(a []int) []int32 {
	out := make([]int32, len(a))
	for i, x := range a {
		out[i] = int32(x)
	}
	return out
}

// TestConstantClasses covers classes whose coefficients all cancel.
func TestConstantClasses(t *testing.T) {
	t.Run("potentials dropped into the offset", func(t *testing.T) {
		// 2 max(y1 - y2 + 1, 0) + 2 max(y2 - y1 + 1, 0) + max(y3 - 0.5, 0)^2:
		// y1 and y2 are symmetric, the first two potentials become the
		// constant 2*2*max(1, 0) = 4. The original minimum is 4 (at y1 = y2).
		p := parseProblem(t, "2 0:-1 1:1 2:-1\n2 0:-1 1:-1 2:1\n1 0:0.5 3:1 #^2\n")
		l, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		if l.Offset != 4 {
			t.Errorf("offset %v, want 4", l.Offset)
		}
		if want := []int32{-1, -1, 0}; !cmp.Equal(l.PotClass, want) {
			t.Errorf("PotClass %v, want %v", l.PotClass, want)
		}
		want := parseProblem(t, "# variables: 2\n1 0:0.5 2:1 #^2\n")
		if !isomorphic(l.Problem, want) {
			t.Errorf("lifted %v", canonical(l.Problem, identity(l.Problem.NumVars)))
		}
		for _, z := range [][]float64{{0, 0}, {0.3, 1}, {1, 0.2}} {
			if got, want := l.Objective(z), p.Objective(l.Expand(z)); math.Abs(got-want) > 1e-15 {
				t.Errorf("objective %v, want %v", got, want)
			}
		}
	})
	t.Run("satisfied constraints dropped", func(t *testing.T) {
		p := parseProblem(t, "= 0:0 1:1 2:-1\n= 0:0 1:-1 2:1\n<= 0:0.5 1:1 2:-1\n<= 0:0.5 1:-1 2:1\n1 0:0 1:1\n1 0:0 2:1\n")
		l, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		if l.Problem.NumConstraints() != 0 || !cmp.Equal(l.ConClass, []int32{-1, -1, -1, -1}) {
			t.Errorf("constraints %d, ConClass %v", l.Problem.NumConstraints(), l.ConClass)
		}
	})
	for _, tc := range []struct{ name, text string }{
		{"infeasible inequality", "<= 0:-0.5 1:1 2:-1\n<= 0:-0.5 1:-1 2:1\n"},
		{"infeasible equality", "= 0:1 1:1 2:-1\n= 0:1 1:-1 2:1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Lift(parseProblem(t, tc.text))
			var ie *InfeasibleError
			if !errors.As(err, &ie) || ie.Constraint != 0 || ie.Members != 2 {
				t.Fatalf("error %v, want an InfeasibleError for constraint 0 of 2", err)
			}
		})
	}
	t.Run("equality over a class", func(t *testing.T) {
		// y1 + y2 = 1 with y1, y2 symmetric lifts to 2 y = 1.
		p := parseProblem(t, "= 0:1 1:1 2:1\n1 0:0 1:1\n1 0:0 2:1\n")
		l, err := Lift(p)
		if err != nil {
			t.Fatal(err)
		}
		want := parseProblem(t, "= 0:1 1:2\n2 0:0 1:1\n")
		if !isomorphic(l.Problem, want) {
			t.Errorf("lifted %v", canonical(l.Problem, identity(l.Problem.NumVars)))
		}
	})
}

// TestLiftGroups: a lifted potential keeps its members' group when they
// agree on one, and -1 otherwise.
func TestLiftGroups(t *testing.T) {
	p := &hlmrf.Problem{}
	p.AddVars(4)
	p.AddPotential(1, 0, 1, 7, []int32{0}, []float64{1})
	p.AddPotential(1, 0, 1, 7, []int32{1}, []float64{1})
	p.AddPotential(2, 0, 1, 3, []int32{2}, []float64{1})
	p.AddPotential(2, 0, 1, 4, []int32{3}, []float64{1})
	l, err := Lift(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{7, -1}; !cmp.Equal(l.Problem.Group, want) {
		t.Errorf("groups %v, want %v", l.Problem.Group, want)
	}
}

func TestExpandPanicsOnWrongLength(t *testing.T) {
	l, err := Lift(parseProblem(t, "1 0:0 1:1 2:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.Expand([]float64{1, 2, 3})
}
