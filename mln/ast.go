package mln

import (
	"fmt"
	"strings"

	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/suggest"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/maxsat"
	"github.com/hinge-srl/hinge/srcpos"
)

// Program is a parsed .mln file (with its includes).
type Program struct {
	// Types maps a type name to its declared constants, in order.
	Types     map[string][]string
	TypeOrder []string
	// Preds are the predicate declarations, in order.
	Preds []*PredDecl
	// Formulas are the weighted and hard formulas, in order.
	Formulas []*Formula
	// RoundedWeights are the formula weights that a float64 does not hold
	// as written, in the order read: inference works on the float64s, so
	// two formulas whose weights differ beyond float64's digits weigh the
	// same, and an optimum proven is one for the weights as read.
	RoundedWeights []RoundedWeight
	byName         map[string]*PredDecl
}

// RoundedWeight is a formula weight whose text has more significant digits
// than a float64 holds (it is not the shortest decimal of the float64 it
// reads as): 100000000.123456789 is read as 100000000.12345679.
type RoundedWeight struct {
	Pos   srcpos.Position
	Text  string
	Value float64
}

// String is the warning: where, what was written and what it is read as.
func (w RoundedWeight) String() string {
	return fmt.Sprintf("%s: weight %s has more significant digits than a float64 holds; it is read as %s",
		w.Pos, w.Text, maxsat.ShortestText(w.Value))
}

// Pred returns the declaration of the named predicate (case-sensitive, as in
// Alchemy), or nil.
func (p *Program) Pred(name string) *PredDecl { return p.byName[name] }

// undeclared is the error for a predicate name (what names its use: "query
// predicate") that p does not declare, with the nearest declared name when
// it looks like a misspelling of one.
func (p *Program) undeclared(what, name string) error {
	names := make([]string, len(p.Preds))
	for i, d := range p.Preds {
		names[i] = d.Name
	}
	hint := ""
	if near := suggest.Nearest(name, names); near != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", near)
	}
	return fmt.Errorf("%s %s is not declared in the program%s", what, textfile.Clip(name), hint)
}

// PredDecl declares a predicate: its argument types, which arguments are
// functional (type!: exactly one value for each combination of the others)
// and whether it is closed-world (Tuffy's '*').
type PredDecl struct {
	Name   string
	Types  []string
	Unique []bool
	Closed bool
	Pos    srcpos.Position
}

func (d *PredDecl) String() string {
	args := make([]string, len(d.Types))
	for i, t := range d.Types {
		args[i] = t
		if d.Unique[i] {
			args[i] += "!"
		}
	}
	star := ""
	if d.Closed {
		star = "*"
	}
	return fmt.Sprintf("%s%s(%s)", star, d.Name, strings.Join(args, ", "))
}

// Formula is one weighted or hard formula.
type Formula struct {
	Weight float64
	Hard   bool
	// Fixed marks a weight written @w (Tuffy): weight learning keeps it.
	Fixed bool
	F     Node
	Pos   srcpos.Position
	Text  string // the statement as written
}

// Node is a formula's syntax tree.
type Node interface {
	node()
}

// Term is an argument: a variable, a constant, or +var (one formula per
// constant of the variable).
type Term struct {
	Name  string
	IsVar bool
	Plus  bool
	Pos   srcpos.Position
}

// Atom is Pred(t1, ..., tn).
type Atom struct {
	Pred string
	Args []Term
	P    srcpos.Position
}

// Eq is t1 = t2 (Neg: t1 != t2).
type Eq struct {
	L, R Term
	Neg  bool
	P    srcpos.Position
}

// Not is !X.
type Not struct {
	X Node
	P srcpos.Position
}

// Binary is X op Y for op one of "^", "v", "=>", "<=>".
type Binary struct {
	Op   string
	X, Y Node
	P    srcpos.Position
}

// Quant is EXIST/FORALL vars body.
type Quant struct {
	Exist bool
	Vars  []string
	Body  Node
	P     srcpos.Position
}

func (*Atom) node()   {}
func (*Eq) node()     {}
func (*Not) node()    {}
func (*Binary) node() {}
func (*Quant) node()  {}

// String writes the atom in Alchemy syntax.
func (a *Atom) String() string {
	args := make([]string, len(a.Args))
	for i, t := range a.Args {
		args[i] = t.String()
	}
	return a.Pred + "(" + strings.Join(args, ", ") + ")"
}

// AtomString writes a ground atom in Alchemy syntax, Pred(A, "b c"):
// constants that are not plain identifiers or numbers are quoted.
func AtomString(pred string, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Term{Name: a}.String()
	}
	return pred + "(" + strings.Join(q, ", ") + ")"
}

// String writes the term in Alchemy syntax.
func (t Term) String() string {
	switch {
	case t.Plus:
		return "+" + t.Name
	case t.IsVar || isPlainConstant(t.Name):
		return t.Name
	}
	return lex.Quote(t.Name)
}

// isPlainConstant reports whether a constant can be written without quotes.
func isPlainConstant(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '\'') {
			return false
		}
	}
	return true
}
