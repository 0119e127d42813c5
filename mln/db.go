package mln

import (
	"os"
	"strconv"

	"github.com/hinge-srl/hinge/srcpos"
)

// GroundAtom is one atom of an evidence or query file.
type GroundAtom struct {
	Pred string
	Args []Term // constants; in a query file variables are allowed
	// Value is the truth value: 1 for Pred(...), 0 for !Pred(...), or the
	// leading number of a soft atom.
	Value float64
	Pos   srcpos.Position
}

// ReadAtoms reads an evidence (.db) or query file: one atom per line,
// optionally negated with '!' or preceded by a truth value in [0,1]. Every
// atom must name a predicate of prog with the right arity; with
// allowVars false (evidence) every argument must be a constant.
func ReadAtoms(path string, prog *Program, allowVars bool) ([]GroundAtom, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseAtoms(path, text, prog, allowVars)
}

// ParseAtoms is ReadAtoms on text; name is used in positions.
func ParseAtoms(name string, text []byte, prog *Program, allowVars bool) ([]GroundAtom, error) {
	sts, err := statements(name, text)
	if err != nil {
		return nil, err
	}
	out := make([]GroundAtom, 0, len(sts))
	for _, st := range sts {
		toks, err := lex(st.text, st.pos)
		if err != nil {
			return nil, err
		}
		ps := &parser{toks: toks}
		ga := GroundAtom{Value: 1, Pos: st.pos}
		if t := ps.peek(); t.kind == tNumber && isWeight(t.text) && ps.toks[1].kind == tIdent {
			v, err := strconv.ParseFloat(t.text, 64)
			if err != nil || !(v >= 0 && v <= 1) {
				return nil, srcpos.Errorf(t.pos, "truth value %q must be a number in [0,1]", clip(t.text))
			}
			ga.Value = v
			ps.next()
		} else if ps.accept("!") {
			ga.Value = 0
		}
		t := ps.peek()
		if t.kind != tIdent || !(ps.toks[ps.i+1].kind == tPunct && ps.toks[ps.i+1].text == "(") {
			return nil, srcpos.Errorf(t.pos, "expected a ground atom Pred(A, B), found %s", describe(t))
		}
		n, err := ps.atom()
		if err != nil {
			return nil, err
		}
		if t := ps.peek(); t.kind != tEOF {
			return nil, srcpos.Errorf(t.pos, "unexpected %s after the atom", describe(t))
		}
		a := n.(*Atom)
		if err := prog.checkFormula(a); err != nil {
			return nil, err
		}
		for _, tm := range a.Args {
			if tm.Plus || (tm.IsVar && !allowVars) {
				return nil, srcpos.Errorf(tm.Pos, "%s is a variable (lower-case): evidence atoms take constants (upper-case, digits or \"quoted\")", tm.Name)
			}
		}
		ga.Pred, ga.Args = a.Pred, a.Args
		out = append(out, ga)
	}
	return out, nil
}
