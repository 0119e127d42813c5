package syntax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/srcpos"
)

// A random-program oracle: generate formulas and linear expressions as text
// together with a direct evaluator, parse the text, and check that the parsed
// structure evaluates to the same value under random assignments. This checks
// precedence, associativity, signs and the linearisation of arithmetic sides
// independently of the printer.

// gen is a generated expression: its text, precedence (for parenthesising
// it inside others), and its value.
type gen struct {
	text string
	prec int
	pure bool // arithmetic: contains no atom
	eval func(env *genEnv) float64
	bool func(env *genEnv) bool
}

// genEnv assigns values to atoms (by text), comparisons and cardinalities.
type genEnv struct {
	vals  map[string]float64
	truth map[string]bool
	card  map[string]int
	rng   *rand.Rand
}

func (e *genEnv) val(key string) float64 {
	v, ok := e.vals[key]
	if !ok {
		v = math.Round(e.rng.Float64()*100) / 100
		e.vals[key] = v
	}
	return v
}

func (e *genEnv) is(key string) bool {
	v, ok := e.truth[key]
	if !ok {
		v = e.rng.IntN(2) == 1
		e.truth[key] = v
	}
	return v
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// paren wraps g in parentheses when its precedence is below min.
func paren(g gen, min int) string {
	if g.prec < min {
		return "(" + g.text + ")"
	}
	return g.text
}

// Formula precedences: 1 implication, 2 or, 3 and, 4 not/literal.
func genFormula(r *rand.Rand, depth int) gen {
	if depth <= 0 || r.IntN(4) == 0 {
		switch r.IntN(4) {
		case 0, 1:
			a := pick(r, "P(X)", "Q(X, 'c')", "R(X, Y)", "s(Y)")
			return gen{text: a, prec: 4, bool: func(e *genEnv) bool { return e.is(a) }}
		case 2:
			op := pick(r, "!=", "-", "==", "%", "^")
			text := "X " + op + " Y"
			key := "cmp" + map[string]string{"!=": "!=", "-": "!=", "==": "==", "%": "%", "^": "%"}[op]
			return gen{text: pick(r, text, "("+text+")"), prec: 4, bool: func(e *genEnv) bool { return e.is(key) }}
		default:
			a := pick(r, "P(X)", "s(Y)")
			return gen{text: "(" + a + ")", prec: 4, bool: func(e *genEnv) bool { return e.is(a) }}
		}
	}
	switch r.IntN(5) {
	case 0:
		x := genFormula(r, depth-1)
		return gen{text: pick(r, "!", "~") + paren(x, 4), prec: 4, bool: func(e *genEnv) bool { return !x.bool(e) }}
	case 1:
		a, b := genFormula(r, depth-1), genFormula(r, depth-1)
		return gen{text: paren(a, 3) + pick(r, " & ", " && ", "&") + paren(b, 3), prec: 3,
			bool: func(e *genEnv) bool { return a.bool(e) && b.bool(e) }}
	case 2:
		a, b := genFormula(r, depth-1), genFormula(r, depth-1)
		return gen{text: paren(a, 2) + pick(r, " | ", " || ") + paren(b, 2), prec: 2,
			bool: func(e *genEnv) bool { return a.bool(e) || b.bool(e) }}
	case 3:
		a, b := genFormula(r, depth-1), genFormula(r, depth-1)
		return gen{text: paren(a, 2) + pick(r, " -> ", " >> ") + paren(b, 2), prec: 1,
			bool: func(e *genEnv) bool { return !a.bool(e) || b.bool(e) }}
	default:
		a, b := genFormula(r, depth-1), genFormula(r, depth-1)
		return gen{text: paren(a, 2) + pick(r, " <- ", " << ") + paren(b, 2), prec: 1,
			bool: func(e *genEnv) bool { return a.bool(e) || !b.bool(e) }}
	}
}

// Arithmetic precedences: 1 sum, 2 product, 3 unary/primary.
func genNumber(r *rand.Rand) gen {
	v := pick(r, 0.0, 1, 2, 3, 0.5, 0.25, 10, 1e-3)
	return gen{text: formatNumber(v), prec: 3, pure: true, eval: func(*genEnv) float64 { return v }}
}

// genDivisor returns a pure expression that is at least 0.25, so that
// quotients stay finite.
func genDivisor(r *rand.Rand) gen {
	switch r.IntN(3) {
	case 0:
		v := pick(r, 2.0, 4, 0.5, 0.25)
		return gen{text: formatNumber(v), prec: 3, pure: true, eval: func(*genEnv) float64 { return v }}
	case 1:
		return gen{text: "|Y|", prec: 3, pure: true, eval: func(e *genEnv) float64 { return float64(e.card["Y"]) }}
	}
	x := genArith(r, 1, false)
	return gen{text: "@Max[1, " + x.text + "]", prec: 3, pure: true, eval: func(e *genEnv) float64 { return math.Max(1, x.eval(e)) }}
}

func genArith(r *rand.Rand, depth int, atoms bool) gen {
	if depth <= 0 || r.IntN(4) == 0 {
		switch k := r.IntN(4); {
		case k == 0 && atoms:
			a := pick(r, "A(X)", "B(X, 'c')", "C(X, +Y)", "d(+Y)")
			return gen{text: a, prec: 3, eval: func(e *genEnv) float64 { return e.val(a) }}
		case k == 1:
			return gen{text: "|Y|", prec: 3, pure: true, eval: func(e *genEnv) float64 { return float64(e.card["Y"]) }}
		default:
			return genNumber(r)
		}
	}
	switch r.IntN(8) {
	case 0:
		x := genArith(r, depth-1, atoms)
		return gen{text: "-" + paren(x, 3), prec: 3, pure: x.pure, eval: func(e *genEnv) float64 { return -x.eval(e) }}
	case 1, 2:
		a, b := genArith(r, depth-1, atoms), genArith(r, depth-1, atoms)
		return gen{text: paren(a, 1) + " + " + paren(b, 2), prec: 1, pure: a.pure && b.pure,
			eval: func(e *genEnv) float64 { return a.eval(e) + b.eval(e) }}
	case 3:
		a, b := genArith(r, depth-1, atoms), genArith(r, depth-1, atoms)
		return gen{text: paren(a, 1) + " - " + paren(b, 2), prec: 1, pure: a.pure && b.pure,
			eval: func(e *genEnv) float64 { return a.eval(e) - b.eval(e) }}
	case 4:
		// One factor without atoms: products stay linear.
		a, b := genArith(r, depth-1, false), genArith(r, depth-1, atoms)
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		return gen{text: paren(a, 2) + " * " + paren(b, 3), prec: 2, pure: a.pure && b.pure,
			eval: func(e *genEnv) float64 { return a.eval(e) * b.eval(e) }}
	case 5:
		a, b := genArith(r, depth-1, atoms), genDivisor(r)
		return gen{text: paren(a, 2) + " / " + paren(b, 3), prec: 2, pure: a.pure,
			eval: func(e *genEnv) float64 { return a.eval(e) / b.eval(e) }}
	case 6:
		if atoms {
			// A coefficient written directly before an atom.
			c := pick(r, "2", "0.5", "|Y|")
			a := pick(r, "A(X)", "C(X, +Y)")
			return gen{text: c + " " + a, prec: 2, eval: func(e *genEnv) float64 {
				f := float64(e.card["Y"])
				if c != "|Y|" {
					f, _ = parseNumber(c)
				}
				return f * e.val(a)
			}}
		}
		fallthrough
	default:
		a, b := genArith(r, depth-1, false), genArith(r, depth-1, false)
		name, f := "@Min", math.Min
		if r.IntN(2) == 0 {
			name, f = "@Max", math.Max
		}
		open, close := pick(r, "[", "("), "]"
		if open == "(" {
			close = ")"
		}
		return gen{text: name + open + a.text + ", " + b.text + close, prec: 3, pure: true,
			eval: func(e *genEnv) float64 { return f(a.eval(e), b.eval(e)) }}
	}
}

func evalFormula(f model.Formula, e *genEnv) bool {
	switch x := f.(type) {
	case *model.Atom:
		return e.is(atomText(x))
	case *model.Comparison:
		op := map[model.CmpOp]string{model.CmpEq: "==", model.CmpNeq: "!=", model.CmpNonSym: "%"}[x.Op]
		return e.is("cmp" + op)
	case *model.Not:
		return !evalFormula(x.X, e)
	case *model.And:
		v := true
		for _, a := range x.Args {
			v = evalFormula(a, e) && v
		}
		return v
	case *model.Or:
		v := false
		for _, a := range x.Args {
			v = evalFormula(a, e) || v
		}
		return v
	case *model.Implies:
		return !evalFormula(x.Body, e) || evalFormula(x.Head, e)
	}
	panic(fmt.Sprintf("unknown formula %T", f))
}

// atomText renders an atom as the generator writes it.
func atomText(a *model.Atom) string {
	var b []byte
	b = append(b, a.PredName...)
	b = append(b, '(')
	for i, t := range a.Args {
		if i > 0 {
			b = append(b, ", "...)
		}
		switch t.Kind {
		case model.Constant:
			b = append(b, Quote(t.Name)...)
		case model.SumVariable:
			b = append(b, '+')
			b = append(b, t.Name...)
		default:
			b = append(b, t.Name...)
		}
	}
	return string(append(b, ')'))
}

func evalSide(side []model.Summand, e *genEnv) float64 {
	var sum float64
	for _, s := range side {
		c := model.EvalCoef(s.Coef, func(v string) int { return e.card[v] })
		if s.Atom != nil {
			c *= e.val(atomText(s.Atom))
		}
		sum += c
	}
	return sum
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// parseAndReformat parses src as a rule and parses Format of it back,
// failing the test when either does not parse or the two parse differently.
func parseAndReformat(t *testing.T, src string) (rule, back *model.Rule) {
	t.Helper()
	rule, err := ParseRule(src, srcpos.Position{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	back, err = ParseRule(Format(rule), srcpos.Position{})
	if err != nil {
		t.Fatalf("%s formats as %s: %v", src, Format(rule), err)
	}
	if d := diffRule(rule, back); d != "" {
		t.Fatalf("%s formats as %s, which parses differently:\n%s", src, Format(rule), d)
	}
	return rule, back
}

func TestGeneratedFormulas(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		g := genFormula(r, 5)
		src := "1: " + g.text
		rule, _ := parseAndReformat(t, src)
		for k := 0; k < 8; k++ {
			env := &genEnv{truth: map[string]bool{}, rng: rand.New(rand.NewPCG(uint64(i), uint64(k)))}
			if want, got := g.bool(env), evalFormula(rule.Logical, env); want != got {
				t.Fatalf("%s: parsed formula %s is %v, want %v (assignment %v)", src, fexpr(rule.Logical), got, want, env.truth)
			}
		}
	}
}

func TestGeneratedArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		lhs, rhs := genArith(r, 5, true), genArith(r, 5, true)
		src := lhs.text + " <= " + rhs.text + " ."
		rule, back := parseAndReformat(t, src)
		for k := 0; k < 4; k++ {
			env := &genEnv{vals: map[string]float64{}, card: map[string]int{"Y": 1 + k}, rng: rand.New(rand.NewPCG(uint64(i), uint64(k)))}
			for _, side := range []struct {
				g    gen
				a, b []model.Summand
			}{{lhs, rule.Arith.LHS, back.Arith.LHS}, {rhs, rule.Arith.RHS, back.Arith.RHS}} {
				want := side.g.eval(env)
				if got := evalSide(side.a, env); !near(got, want) {
					t.Fatalf("%s: side %s evaluates to %v, want %v", src, sideExpr(side.a), got, want)
				}
				if got := evalSide(side.b, env); !near(got, want) {
					t.Fatalf("%s: formatted as %s, evaluates to %v, want %v", src, Format(rule), got, want)
				}
			}
		}
	}
}
