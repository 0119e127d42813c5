package citations

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/hinge-srl/hinge/eval"
)

// Split divides a data set's papers into observed ones (category known,
// written to hasCat_obs.txt) and target ones (category inferred and
// evaluated).
type Split struct {
	Dataset *Dataset
	// Seed and ObservedFraction are what the split was made from.
	Seed             uint64
	ObservedFraction float64
	// Observed[i] tells whether paper i is observed; the rest are targets.
	Observed []bool
}

// NewSplit draws a seeded random split: round(observedFraction * papers)
// papers, chosen uniformly, are observed and the others are targets. The
// same seed and data set always give the same split (the shuffle is a
// Fisher-Yates over PCG-DXSM with an unbiased bounded draw, all written
// here so Go releases cannot change it). PSL's examples use 0.5. The
// fraction must leave at least one observed and one target paper.
func NewSplit(ds *Dataset, seed uint64, observedFraction float64) (*Split, error) {
	n := len(ds.Papers)
	if math.IsNaN(observedFraction) || observedFraction <= 0 || observedFraction >= 1 {
		return nil, fmt.Errorf("observed fraction %v: want a number strictly between 0 and 1", observedFraction)
	}
	k := int(math.Round(observedFraction * float64(n)))
	if k < 1 || k > n-1 {
		return nil, fmt.Errorf("observed fraction %v of %d papers gives %d observed and %d target papers; want at least one of each", observedFraction, n, k, n-k)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	src := rand.NewPCG(seed, 0x9e3779b97f4a7c15)
	for i := n - 1; i > 0; i-- {
		j := int(boundedUint64(src, uint64(i+1)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	s := &Split{Dataset: ds, Seed: seed, ObservedFraction: observedFraction, Observed: make([]bool, n)}
	for _, p := range perm[:k] {
		s.Observed[p] = true
	}
	return s, nil
}

// boundedUint64 returns a uniform number in [0, n) (Lemire's method).
func boundedUint64(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// ObservedPapers returns the observed papers' indexes, ordered by paper id
// (numerically when ids are integers).
func (s *Split) ObservedPapers() []int { return s.papers(true) }

// TargetPapers returns the target papers' indexes, ordered by paper id.
func (s *Split) TargetPapers() []int { return s.papers(false) }

func (s *Split) papers(observed bool) []int {
	var out []int
	for i, o := range s.Observed {
		if o == observed {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b int) int { return eval.CompareArg(s.Dataset.Papers[a], s.Dataset.Papers[b]) })
	return out
}
