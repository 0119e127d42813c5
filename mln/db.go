package mln

import (
	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
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
	return ReadAtomsProgress(path, prog, allowVars, nil)
}

// ReadAtomsProgress is ReadAtoms reporting how far it got: progress, when
// not nil, is called with (0, n) once the file is read and split into its
// n statements, then with the statements parsed so far every
// ProgressEvery statements, and with (n, n) at the end.
func ReadAtomsProgress(path string, prog *Program, allowVars bool, progress func(done, total int)) ([]GroundAtom, error) {
	text, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseAtoms(path, text, prog, allowVars, progress)
}

// ProgressEvery is how many statements ReadAtomsProgress parses between
// calls of its progress function.
const ProgressEvery = 1 << 14

// ParseAtoms is ReadAtoms on text; name is used in positions.
func ParseAtoms(name string, text []byte, prog *Program, allowVars bool) ([]GroundAtom, error) {
	return parseAtoms(name, text, prog, allowVars, nil)
}

func parseAtoms(name string, text []byte, prog *Program, allowVars bool, progress func(done, total int)) ([]GroundAtom, error) {
	sts, err := lex.Statements(name, text)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(0, len(sts))
	}
	out := make([]GroundAtom, 0, len(sts))
	for i, st := range sts {
		if progress != nil && i > 0 && i%ProgressEvery == 0 {
			progress(i, len(sts))
		}
		toks, err := lex.Lex(st.Text, st.Pos, puncts)
		if err != nil {
			return nil, err
		}
		ps := &parser{Parser: lex.Parser{Toks: toks}}
		ga := GroundAtom{Value: 1, Pos: st.Pos}
		if t := ps.Peek(); t.Kind == lex.Number && isWeight(t.Text) && ps.Toks[1].Kind == lex.Ident {
			v, err := num.Parse(t.Text)
			if err != nil || !(v >= 0 && v <= 1) {
				return nil, srcpos.Errorf(t.Pos, "truth value %q must be a number in [0,1]", textfile.Clip(t.Text))
			}
			ga.Value = v
			ps.Next()
		} else if ps.Accept("!") {
			ga.Value = 0
		}
		t := ps.Peek()
		if t.Kind != lex.Ident || !(ps.Toks[ps.I+1].Kind == lex.Punct && ps.Toks[ps.I+1].Text == "(") {
			return nil, srcpos.Errorf(t.Pos, "expected a ground atom Pred(A, B), found %s", lex.Describe(t))
		}
		n, err := ps.atom()
		if err != nil {
			return nil, err
		}
		if t := ps.Peek(); t.Kind != lex.EOF {
			return nil, srcpos.Errorf(t.Pos, "unexpected %s after the atom", lex.Describe(t))
		}
		a := n.(*Atom)
		if prog.Pred(a.Pred) == nil {
			return nil, srcpos.Errorf(a.P, "unknown predicate %s: the program does not declare it", a.Pred)
		}
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
	if progress != nil {
		progress(len(sts), len(sts))
	}
	return out, nil
}
