package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hinge-srl/hinge/mln"
)

// How hinge mln infer --marginal says which marginals are exact and
// whether the sampled ones can be trusted.

// exactSummary groups a network's components by how their marginals were
// found, for the report and stderr.
type exactSummary struct {
	Atoms      int                     `json:"atoms"`
	Sampled    int                     `json:"sampled_atoms"`
	ByMethod   map[string]methodTotals `json:"by_method"`
	SampledSet []mln.Component         `json:"sampled_components,omitempty"`
}

// methodTotals counts the components (and atoms) of one method, with the
// largest junction tree clique or counted class configurations among them.
type methodTotals struct {
	Components int     `json:"components"`
	Atoms      int     `json:"atoms"`
	MaxWidth   int     `json:"max_width,omitempty"`
	MaxConfigs float64 `json:"max_configs,omitempty"`
}

// summarizeExact sums up exact inference's components; nil when the
// network was sampled in full (no exact inference ran).
func summarizeExact(exact []bool, comps []mln.Component) *exactSummary {
	if exact == nil {
		return nil
	}
	s := &exactSummary{ByMethod: map[string]methodTotals{}}
	for _, e := range exact {
		if e {
			s.Atoms++
		}
	}
	for _, c := range comps {
		t := s.ByMethod[c.Method]
		t.Components++
		t.Atoms += c.Atoms
		if c.Method == mln.Sampled {
			s.Sampled += c.Atoms
			s.SampledSet = append(s.SampledSet, c)
		} else {
			t.MaxWidth = max(t.MaxWidth, c.Width)
			t.MaxConfigs = max(t.MaxConfigs, c.Configs)
		}
		s.ByMethod[c.Method] = t
	}
	return s
}

// print writes the summary's stderr line.
func (s *exactSummary) print(w io.Writer, total int) {
	var parts []string
	for _, m := range []string{mln.ExactJunctionTree, mln.ExactEnumeration, mln.ExactCounting, mln.ExactModelCounting, mln.ExactPropagated, mln.ExactFree} {
		t, ok := s.ByMethod[m]
		if !ok {
			continue
		}
		switch m {
		case mln.ExactJunctionTree:
			parts = append(parts, fmt.Sprintf("%d in %s by junction tree (cliques of at most %d atoms)", t.Atoms, plural(t.Components, "component", ""), t.MaxWidth))
		case mln.ExactEnumeration:
			parts = append(parts, fmt.Sprintf("%d in %s by enumerating every world", t.Atoms, plural(t.Components, "component", "")))
		case mln.ExactCounting:
			parts = append(parts, fmt.Sprintf("%d in %s by counting exchangeable atoms", t.Atoms, plural(t.Components, "component", "")))
		case mln.ExactModelCounting:
			parts = append(parts, fmt.Sprintf("%d in %s by weighted model counting", t.Atoms, plural(t.Components, "component", "")))
		case mln.ExactPropagated:
			parts = append(parts, fmt.Sprintf("%d fixed by the hard clauses", t.Atoms))
		case mln.ExactFree:
			parts = append(parts, fmt.Sprintf("%d in no clause", t.Atoms))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "exact marginals: %d of %d atoms (%s)\n", s.Atoms, total, strings.Join(parts, "; "))
	if s.Sampled == 0 {
		return
	}
	big := slices.MaxFunc(s.SampledSet, func(a, b mln.Component) int { return a.Atoms - b.Atoms })
	fmt.Fprintf(w, "sampled by MC-SAT: %d atoms in %s too large for exact inference (the largest, %d atoms and %d clauses, needs junction tree cliques of at least %d atoms, its worlds are too many to enumerate, and weighted model counting ran past %.3g units of work)\n",
		s.Sampled, plural(len(s.SampledSet), "component", ""), big.Atoms, big.Clauses, big.Width, big.CountWork)
}

// printConvergence writes the chains' diagnostics on one line; atom names
// a variable.
func printConvergence(w io.Writer, d mln.Diagnostics, atom func(int) string) {
	fmt.Fprintf(w, "convergence: %s\n", convergenceText(d, atom))
}

// convergenceText is the chains' largest R-hat, spread and standard error,
// each with its atom, for the convergence lines of hinge mln infer and
// hinge rrf infer.
func convergenceText(d mln.Diagnostics, atom func(int) string) string {
	return fmt.Sprintf("largest R-hat %.3f (%s), largest difference between chains %.3f (%s), largest standard error %.3f (%s)",
		d.RHat, atom(d.RHatAtom), d.Spread, atom(d.SpreadAtom), d.MCSE, atom(d.MCSEAtom))
}

// mixedWarning says on stderr why the chains cannot be trusted; atom names
// a variable.
func mixedWarning(w io.Writer, d mln.Diagnostics, atom func(int) string, advice string) {
	fmt.Fprintf(w, "warning: the chains have not mixed (%s; they must agree to R-hat %.1f and %.2g, with standard errors of at most %.2g): the sampled marginals are not to be trusted; %s\n",
		notMixedWhy(d, atom), mln.MixedRHat, mln.MixedSpread, mln.MixedMCSE, advice)
}

// notMixedWhy says which of the diagnostics d failed first, for the
// warnings of hinge mln infer and hinge rrf infer; atom names a variable.
func notMixedWhy(d mln.Diagnostics, atom func(int) string) string {
	switch {
	case d.RHat > mln.MixedRHat:
		return fmt.Sprintf("R-hat %.3g at %s", d.RHat, atom(d.RHatAtom))
	case d.Spread > mln.MixedSpread:
		return fmt.Sprintf("two chains differ by %.3g at %s", d.Spread, atom(d.SpreadAtom))
	case d.FewSamples:
		return fmt.Sprintf("%d samples a chain are too few to estimate a standard error: at least %d", d.SamplesPerChain, mln.MCSEBatches)
	default:
		return fmt.Sprintf("the estimate of %s has a Monte Carlo standard error of %.3g: the chains move slowly between its values", atom(d.MCSEAtom), d.MCSE)
	}
}

// notTrusted is the error of --strict when a run cannot be trusted.
func notTrusted(why string) error {
	return failed(fmt.Errorf("--strict: the marginals cannot be trusted (%s); nothing written", why))
}
