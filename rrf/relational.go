package rrf

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/lex"
	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/mln"
	"github.com/hinge-srl/hinge/srcpos"
)

// Program is a relational RRF read from a file: Markov logic declarations
// (types and predicates) and parfeatures, one of them named root.
type Program struct {
	Decls    *mln.Program
	Features []*ParFeature
	// Weights holds one weight per term of every parfeature, tied across
	// the groundings: term k of feature f has weight Weights[f.Terms[k].W].
	Weights []float64
	// Norm is the normalisation of every parfeature but the root (see the
	// package documentation); it decides what the weights mean.
	Norm   Norm
	byName map[string]*ParFeature
}

// ParFeature is a parameterised feature: the exponential of a weighted sum
// of its terms.
type ParFeature struct {
	Name   string
	Params []string
	Terms  []Term
	Pos    srcpos.Position
	types  map[string]string // variable -> type, parameters and summation variables
}

// Term is one weighted child of a parfeature: an atom (possibly negated) or
// another parfeature, summed over the constants of its Sum variables.
type Term struct {
	W       int // index into Program.Weights
	Sum     []string
	Neg     bool
	Pred    string // an atom's predicate, or
	Feature string // a parfeature's name
	Args    []mln.Term
	Pos     srcpos.Position
}

// rrfPuncts is the punctuation of parfeature lines.
var rrfPuncts = []string{"(", ")", ",", "=", "+", "-", "*", "!"}

// ReadProgram reads a relational RRF file.
func ReadProgram(path string) (*Program, error) {
	text, err := textfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseProgram(path, text)
}

// ParseProgram parses the text of a relational RRF file: declarations as in
// Markov logic, and one parfeature per line (see the package documentation
// for the grammar). name is used in positions.
func ParseProgram(name string, text []byte) (*Program, error) {
	sts, err := lex.Statements(name, text)
	if err != nil {
		return nil, err
	}
	// Parfeature lines are blanked out of the text the Markov logic reader
	// sees, which keeps every declaration's position.
	lines := strings.SplitAfter(string(text), "\n")
	var feats []lex.Statement
	for _, st := range sts {
		if isFeatureLine(st) {
			feats = append(feats, st)
			l := lines[st.Pos.Line-1]
			lines[st.Pos.Line-1] = strings.Repeat(" ", len(strings.TrimRight(l, "\r\n"))) + l[len(strings.TrimRight(l, "\r\n")):]
		}
	}
	decls, err := mln.ParseProgram(name, []byte(strings.Join(lines, "")))
	if err != nil {
		return nil, err
	}
	if len(decls.Formulas) > 0 {
		f := decls.Formulas[0]
		return nil, srcpos.Errorf(f.Pos, "a Markov logic formula in an RRF file: write it as a parfeature, Name(params) = w * child + ...")
	}
	p := &Program{Decls: decls, byName: map[string]*ParFeature{}}
	for _, st := range feats {
		f, err := p.parseFeature(st)
		if err != nil {
			return nil, err
		}
		if old := p.byName[f.Name]; old != nil {
			return nil, srcpos.Errorf(f.Pos, "parfeature %s defined again (first at %s)", f.Name, old.Pos)
		}
		if decls.Pred(f.Name) != nil {
			return nil, srcpos.Errorf(f.Pos, "%s is a predicate and cannot also be a parfeature", f.Name)
		}
		p.byName[f.Name] = f
		p.Features = append(p.Features, f)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// isFeatureLine reports whether a statement reads Name(...) = ... or
// Name = ... (a type declaration, Name = {...}, does not lex here).
func isFeatureLine(st lex.Statement) bool {
	toks, err := lex.Lex(st.Text, st.Pos, rrfPuncts)
	if err != nil || len(toks) < 3 || toks[0].Kind != lex.Ident {
		return false
	}
	if toks[1].Kind == lex.Punct && toks[1].Text == "=" {
		return true
	}
	if toks[1].Text != "(" {
		return false
	}
	for i := 2; i+1 < len(toks); i++ {
		if toks[i].Kind == lex.Punct && toks[i].Text == ")" {
			return toks[i+1].Kind == lex.Punct && toks[i+1].Text == "="
		}
	}
	return false
}

func (p *Program) parseFeature(st lex.Statement) (*ParFeature, error) {
	toks, err := lex.Lex(st.Text, st.Pos, rrfPuncts)
	if err != nil {
		return nil, err
	}
	ps := &lex.Parser{Toks: toks}
	name := ps.Next()
	f := &ParFeature{Name: name.Text, Pos: name.Pos}
	if ps.Accept("(") && !ps.IsPunct(")") {
		for {
			v := ps.Next()
			if v.Kind != lex.Ident || !isVar(v.Text) {
				return nil, srcpos.Errorf(v.Pos, "parfeature %s: expected a parameter (a lower-case variable), found %s", f.Name, lex.Describe(v))
			}
			if slices.Contains(f.Params, v.Text) {
				return nil, srcpos.Errorf(v.Pos, "parfeature %s: parameter %s repeated", f.Name, v.Text)
			}
			f.Params = append(f.Params, v.Text)
			if !ps.Accept(",") {
				break
			}
		}
	}
	if !ps.IsPunct("=") {
		if _, err := ps.Expect(")", "closing the parameters"); err != nil {
			return nil, err
		}
	}
	ps.Next() // =
	for first := true; ; first = false {
		sign := 1.0
		switch {
		case ps.Accept("+"):
		case ps.Accept("-"):
			sign = -1
		case !first:
			if t := ps.Peek(); t.Kind != lex.EOF {
				return nil, srcpos.Errorf(t.Pos, "expected '+' or '-' before the next term, found %s", lex.Describe(t))
			}
			return f, nil
		}
		t, err := p.parseTerm(ps, sign)
		if err != nil {
			return nil, err
		}
		f.Terms = append(f.Terms, t)
	}
}

// parseTerm reads [number ["*"]] ["sum" "(" vars ")"] ["!"] Name "(" args ")".
func (p *Program) parseTerm(ps *lex.Parser, sign float64) (Term, error) {
	t := Term{Pos: ps.Peek().Pos}
	w := 1.0
	if tok := ps.Peek(); tok.Kind == lex.Number {
		v, err := num.Parse(tok.Text)
		if err != nil || v != v || v > 1e300 || v < -1e300 {
			return t, srcpos.Errorf(tok.Pos, "bad weight %s", lex.Describe(tok))
		}
		w = v
		ps.Next()
		ps.Accept("*")
	}
	t.W = len(p.Weights)
	p.Weights = append(p.Weights, sign*w)
	if tok := ps.Peek(); tok.Kind == lex.Ident && tok.Text == "sum" && ps.Toks[ps.I+1].Text == "(" {
		ps.Next()
		ps.Next()
		for {
			v := ps.Next()
			if v.Kind != lex.Ident || !isVar(v.Text) {
				return t, srcpos.Errorf(v.Pos, "sum: expected a variable, found %s", lex.Describe(v))
			}
			t.Sum = append(t.Sum, v.Text)
			if !ps.Accept(",") {
				break
			}
		}
		if _, err := ps.Expect(")", "closing sum(...)"); err != nil {
			return t, err
		}
	}
	t.Neg = ps.Accept("!")
	name := ps.Next()
	if name.Kind != lex.Ident || !ps.Accept("(") {
		return t, srcpos.Errorf(name.Pos, "expected an atom Pred(...) or a parfeature Name(...), found %s", lex.Describe(name))
	}
	for !ps.IsPunct(")") {
		a := ps.Next()
		switch a.Kind {
		case lex.Ident, lex.Number, lex.String:
			t.Args = append(t.Args, mln.Term{Name: a.Text, IsVar: a.Kind == lex.Ident && isVar(a.Text), Pos: a.Pos})
		default:
			return t, srcpos.Errorf(a.Pos, "expected a variable or a constant, found %s", lex.Describe(a))
		}
		if !ps.Accept(",") {
			break
		}
	}
	if _, err := ps.Expect(")", "closing the arguments"); err != nil {
		return t, err
	}
	if p.Decls.Pred(name.Text) != nil {
		t.Pred = name.Text
	} else {
		t.Feature = name.Text
	}
	return t, nil
}

func isVar(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }

// check resolves names and arities, forbids cycles, and infers every
// variable's type (from the predicates' declarations, across parfeature
// references) until nothing changes.
func (p *Program) check() error {
	root := p.byName["root"]
	if root == nil {
		return fmt.Errorf("rrf: no parfeature named root (the distribution is exp(root) / Z)")
	}
	if len(root.Params) > 0 {
		return srcpos.Errorf(root.Pos, "root takes no parameters")
	}
	for _, f := range p.Features {
		f.types = map[string]string{}
		for _, t := range f.Terms {
			switch {
			case t.Pred != "":
				d := p.Decls.Pred(t.Pred)
				if len(d.Types) != len(t.Args) {
					return srcpos.Errorf(t.Pos, "predicate %s takes %d argument(s), found %d", t.Pred, len(d.Types), len(t.Args))
				}
			default:
				g := p.byName[t.Feature]
				if g == nil {
					return srcpos.Errorf(t.Pos, "%s is neither a declared predicate nor a parfeature", t.Feature)
				}
				if t.Neg {
					return srcpos.Errorf(t.Pos, "'!' applies to atoms; negate a parfeature with a negative weight")
				}
				if len(g.Params) != len(t.Args) {
					return srcpos.Errorf(t.Pos, "parfeature %s takes %d argument(s), found %d", g.Name, len(g.Params), len(t.Args))
				}
			}
			for _, a := range t.Args {
				if a.IsVar && !slices.Contains(f.Params, a.Name) && !slices.Contains(t.Sum, a.Name) {
					return srcpos.Errorf(a.Pos, "variable %s is neither a parameter of %s nor summed in this term", a.Name, f.Name)
				}
			}
		}
	}
	if _, err := p.noCycle(root, map[string]int{}, map[string]int{}, 1); err != nil {
		return err
	}
	// Type inference to a fixpoint.
	set := func(f *ParFeature, v, typ string, pos srcpos.Position) (bool, error) {
		old, ok := f.types[v]
		switch {
		case !ok:
			f.types[v] = typ
			return true, nil
		case old != typ:
			return false, srcpos.Errorf(pos, "variable %s of %s is of type %s here and %s elsewhere", v, f.Name, typ, old)
		}
		return false, nil
	}
	for changed := true; changed; {
		changed = false
		for _, f := range p.Features {
			for _, t := range f.Terms {
				for k, a := range t.Args {
					if !a.IsVar {
						continue
					}
					var typ string
					if t.Pred != "" {
						typ = p.Decls.Pred(t.Pred).Types[k]
					} else if ct, ok := p.byName[t.Feature].types[p.byName[t.Feature].Params[k]]; ok {
						typ = ct
					} else if pt, ok := f.types[a.Name]; ok {
						// Propagate downwards: the child's parameter takes the type.
						g := p.byName[t.Feature]
						c, err := set(g, g.Params[k], pt, t.Pos)
						if err != nil {
							return err
						}
						changed = changed || c
						continue
					} else {
						continue
					}
					c, err := set(f, a.Name, typ, a.Pos)
					if err != nil {
						return err
					}
					changed = changed || c
				}
			}
		}
	}
	for _, f := range p.Features {
		for _, v := range f.Params {
			if f.types[v] == "" {
				return srcpos.Errorf(f.Pos, "the type of parameter %s of %s cannot be inferred (it reaches no atom)", v, f.Name)
			}
		}
		for _, t := range f.Terms {
			for _, v := range t.Sum {
				if f.types[v] == "" {
					return srcpos.Errorf(t.Pos, "the type of summed variable %s cannot be inferred (it reaches no atom)", v)
				}
			}
		}
	}
	return nil
}

// MaxDepth bounds how deeply parfeatures may refer to one another: the
// longest chain of references from root, root included. Deeper programs
// are refused when read, so that hostile input cannot exhaust the stack of
// the reader, the grounder or any walk over the features.
const MaxDepth = 1000

// noCycle fails when a parfeature refers back to itself (state: 1 on the
// current path, 2 done), or when a chain of references from root is longer
// than MaxDepth; it returns the height of f (the longest chain from f,
// memoised in height). depth is f's place on the current path.
func (p *Program) noCycle(f *ParFeature, state, height map[string]int, depth int) (int, error) {
	switch state[f.Name] {
	case 1:
		return 0, srcpos.Errorf(f.Pos, "parfeature %s refers to itself (through its children): an RRF is acyclic", f.Name)
	case 2:
		return height[f.Name], nil
	}
	if depth > MaxDepth {
		return 0, srcpos.Errorf(f.Pos, "parfeatures nested too deeply: a chain of references from root reaches %s more than %d levels down", f.Name, MaxDepth)
	}
	state[f.Name] = 1
	h := 1
	for _, t := range f.Terms {
		if t.Feature != "" {
			ch, err := p.noCycle(p.byName[t.Feature], state, height, depth+1)
			if err != nil {
				return 0, err
			}
			h = max(h, ch+1)
		}
	}
	if depth-1+h > MaxDepth {
		return 0, srcpos.Errorf(f.Pos, "parfeatures nested too deeply: a chain of references from root through %s is longer than %d levels", f.Name, MaxDepth)
	}
	state[f.Name], height[f.Name] = 2, h
	return h, nil
}

// Grounded is a relational RRF grounded over a network's atoms.
type Grounded struct {
	Net *Net
	// Evidence has an entry per variable; the grounder folds the atoms the
	// data decides (observed, or absent from a closed-world predicate) into
	// their features as constants, so it fixes none.
	Evidence *Evidence
	// Atoms names each variable: predicate and constants.
	Atoms []GroundAtom
	// Target marks the unknown atoms (the store's targets): every variable.
	Target []bool
}

// GroundAtom is a variable's atom.
type GroundAtom struct {
	Pred string
	Args []string
}

// String writes the parfeature as a line of the file format, with the
// program's current weights.
func (p *Program) String(f *ParFeature) string {
	var b strings.Builder
	b.WriteString(f.Name)
	if len(f.Params) > 0 {
		b.WriteString("(" + strings.Join(f.Params, ", ") + ")")
	}
	b.WriteString(" =")
	for k, t := range f.Terms {
		w := p.Weights[t.W]
		switch {
		case k == 0 && w < 0:
			b.WriteString(" -")
		case k == 0:
			b.WriteString(" ")
		case w < 0:
			b.WriteString(" - ")
		default:
			b.WriteString(" + ")
		}
		b.WriteString(strconv.FormatFloat(math.Abs(w), 'g', -1, 64) + " *")
		if len(t.Sum) > 0 {
			b.WriteString(" sum(" + strings.Join(t.Sum, ", ") + ")")
		}
		b.WriteString(" ")
		if t.Neg {
			b.WriteString("!")
		}
		args := make([]string, len(t.Args))
		for i, a := range t.Args {
			args[i] = a.String()
		}
		name := t.Pred
		if name == "" {
			name = t.Feature
		}
		b.WriteString(name + "(" + strings.Join(args, ", ") + ")")
	}
	return b.String()
}

// WithWeights returns the file text src with every parfeature line
// rewritten with the program's current weights; declarations, comments on
// their own lines and layout are kept.
func (p *Program) WithWeights(src []byte) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	for _, f := range p.Features {
		i := f.Pos.Line - 1
		if i < 0 || i >= len(lines) {
			continue
		}
		l := lines[i]
		end := l[len(strings.TrimRight(l, "\r\n")):]
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		lines[i] = indent + p.String(f) + end
	}
	return []byte(strings.Join(lines, ""))
}

// LearnRelational learns the program's weights from one training world
// (Learn, by the method opt names): the atoms of the query predicates are the
// unknowns, true when training lists them as true and false otherwise
// (closed world); every other atom is evidence. The program's weights are
// replaced by the learned ones.
func (p *Program) LearnRelational(ctx context.Context, training []mln.GroundAtom, query []string, opt LearnOptions) (*LearnResult, error) {
	return p.LearnRelationalWorlds(ctx, [][]mln.GroundAtom{training}, query, opt)
}

// LearnRelationalWorlds is LearnRelational over several training worlds,
// each a database of its own (its own constants and domains, grounded on
// its own), the weights tied across them (LearnTied): Alchemy's learning
// from multiple databases. A grounding of several worlds merged into one
// also pairs the constants of different worlds, which is larger and, for
// the query atoms across worlds, says they are false.
func (p *Program) LearnRelationalWorlds(ctx context.Context, worlds [][]mln.GroundAtom, query []string, opt LearnOptions) (*LearnResult, error) {
	isQuery := map[string]bool{}
	for _, q := range query {
		isQuery[q] = true
	}
	gopt := opt.Ground
	if gopt.Context == nil {
		gopt.Context = ctx
	}
	var data []Data
	for _, training := range worlds {
		var evidence, qatoms []mln.GroundAtom
		truth := map[string]bool{}
		for _, a := range training {
			if isQuery[a.Pred] {
				args := make([]string, len(a.Args))
				for i, t := range a.Args {
					args[i] = t.Name
				}
				truth[a.Pred+"\x00"+strings.Join(args, "\x00")] = a.Value >= 0.5
				// Query atoms listed in training also name constants of the
				// domains.
				qatoms = append(qatoms, a)
				continue
			}
			evidence = append(evidence, a)
		}
		net, err := mln.Build(p.Decls, evidence, mln.Options{Query: query, QueryAtoms: qatoms})
		if err != nil {
			return nil, err
		}
		gr, err := p.GroundWith(net, gopt)
		if err != nil {
			return nil, err
		}
		x := make([]bool, gr.Net.NumVars)
		for v, a := range gr.Atoms {
			x[v] = gr.Evidence.X[v]
			if !gr.Evidence.Fixed[v] {
				x[v] = truth[a.Pred+"\x00"+strings.Join(a.Args, "\x00")]
			}
		}
		data = append(data, Data{Net: gr.Net, Worlds: [][]bool{x}, Evidence: gr.Evidence})
	}
	unknown := 0
	for _, d := range data {
		unknown += d.Net.NumVars
	}
	if unknown == 0 {
		// Nothing depends on the weights: "converged" at the file's weights
		// would read as learned.
		return nil, fmt.Errorf("rrf: the training data have no atom of the query predicates %s (no constant of their types): nothing to learn", strings.Join(query, ", "))
	}
	res, err := LearnTied(ctx, data, opt)
	if err != nil {
		return nil, err
	}
	copy(p.Weights, data[0].Net.Weights)
	return res, nil
}
