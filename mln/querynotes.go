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
