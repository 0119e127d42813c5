package mln

import (
	"fmt"
	"strings"
)

// QueryNotes says what a user may not mean by the ground query atoms they
// asked for (queries; an atom with a variable stands for many and is left
// alone): an atom naming a constant that neither the program nor the
// evidence names (a typo such as Cancer(Anan) silently became an atom of a
// new constant), and an atom the evidence gives, which is not inferred and
// not listed (Alchemy's behaviour; the answer was an empty result).
func QueryNotes(prog *Program, evidence, queries []GroundAtom) []string {
	known := map[string]bool{}
	for _, cs := range prog.Types {
		for _, c := range cs {
			known[c] = true
		}
	}
	for _, f := range prog.Formulas {
		walk(f.F, func(n Node) {
			if a, ok := n.(*Atom); ok {
				for _, t := range a.Args {
					if !t.IsVar && !t.Plus {
						known[t.Name] = true
					}
				}
			}
		})
	}
	given := map[string]float64{}
	for _, a := range evidence {
		for _, t := range a.Args {
			known[t.Name] = true
		}
		given[AtomString(a.Pred, constants(a.Args))] = a.Value
	}
	var notes []string
	for _, q := range queries {
		var unknown []string
		ground := true
		for _, t := range q.Args {
			if t.IsVar {
				ground = false
			} else if !known[t.Name] {
				unknown = append(unknown, t.Name)
			}
		}
		if !ground {
			continue
		}
		atom := AtomString(q.Pred, constants(q.Args))
		if v, ok := given[atom]; ok {
			notes = append(notes, fmt.Sprintf("query atom %s is given by the evidence (%g): it is not inferred, and not listed", atom, v))
		}
		if len(unknown) > 0 {
			notes = append(notes, fmt.Sprintf("query atom %s names %s, which neither the program nor the evidence names (a misspelling?): it is inferred as an atom of a new constant", atom, strings.Join(unknown, ", ")))
		}
	}
	return notes
}

// HiddenNotes names each predicate a formula uses that Build closed for
// want of being queried or opened though it has no evidence atom (a
// program without '*', Alchemy's convention): hinge closes it, every atom
// false, as Alchemy 1 did, where Alchemy 2 leaves a predicate without
// evidence atoms open (its zzfillClosedWorldArray), so the two answer
// differently: P => H, H => Q with evidence on P gave Q 0.5 here and 0.77
// with H open.
func (net *Network) HiddenNotes() []string {
	seen := map[string]bool{}
	var hidden []string
	for _, f := range net.prog.Formulas {
		walk(f.F, func(n Node) {
			a, ok := n.(*Atom)
			if !ok || seen[a.Pred] {
				return
			}
			seen[a.Pred] = true
			if d := net.prog.Pred(a.Pred); d != nil && !d.Closed && !net.open[d.Name] && !net.given[d.Name] && !IsDomainPredicate(d.Name) {
				hidden = append(hidden, d.Name)
			}
		})
	}
	if len(hidden) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: no evidence atom, not a query predicate: closed-world, every atom false (Alchemy 1's rule, hinge's); Alchemy 2 leaves a predicate without evidence open: --open %s to do so",
		strings.Join(hidden, ", "), strings.Join(hidden, ","))}
}
