package explain

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/hlmrf"
)

// SatisfactionHeader is the first line of a PSL satisfaction file.
const SatisfactionHeader = "#rule\twhere\tweight\tpower\tdistance\tsatisfaction\tpenalty\tground_rule"

// WriteSatisfaction writes every ground rule of the answer, one a line,
// tab-separated after a header line starting with '#':
//
//	rule  where  weight  power  distance  satisfaction  penalty  ground_rule
//
// rule is the rule's index in the model (0 first), where its position;
// weight is the rule's weight, or "hard" for a hard constraint; power 1 or
// 2 ("-" for a constraint); distance is max(a.y - c, 0) at the answer, the
// ground rule's distance to satisfaction (for a constraint its violation,
// |a.y - c| for an equality); satisfaction is 1 - distance for a logical
// rule, whose ground rule is a clause with that truth value in Lukasiewicz
// logic ("-" for an arithmetic rule); penalty is weight*distance^power
// ("-" for a constraint). ground_rule is the rule as written with the
// substitution applied, or, for an arithmetic rule, the term's linear form
// over the atoms. Ground rules come rule by rule for logical rules, then the
// arithmetic rules' terms. Numbers are written in full precision, so the
// file sorts (sort -t$'\t' -k5,5gr) and greps as it is.
func (e *PSL) WriteSatisfaction(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(SatisfactionHeader + "\n")
	p := e.Ground.Problem
	np := p.NumPotentials()
	done := make([]bool, np+p.NumConstraints())
	line := func(t int32, gr *Grounding) error {
		done[t] = true
		var vars []int32
		var coefs []float64
		var c float64
		var group int32
		var d float64 // the distance to satisfaction, or the violation
		hard, equal := int(t) >= np, false
		if !hard {
			vars, coefs = p.Terms(int(t))
			c, group = p.Const[t], p.Group[t]
			d = p.Hinge(int(t), e.Values)
		} else {
			j := int(t) - np
			vars, coefs = p.CTerms(j)
			c, group, equal = p.CConst[j], p.CGroup[j], p.CKind[j] == hlmrf.Equal
			d = p.ConstraintViolation(j, e.Values)
		}
		where := ""
		if group >= 0 && int(group) < len(e.Model.Rules) && e.Model.Rules[group].Pos.IsValid() {
			where = e.Model.Rules[group].Pos.String()
		}
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		cols := []string{strconv.Itoa(int(group)), where}
		if hard {
			cols = append(cols, "hard", "-", f(d))
		} else {
			cols = append(cols, f(p.Weight[t]), strconv.Itoa(int(p.Power[t])), f(d))
		}
		if gr != nil {
			cols = append(cols, f(1-d))
		} else {
			cols = append(cols, "-")
		}
		if hard {
			cols = append(cols, "-")
		} else {
			cols = append(cols, f(p.Weight[t]*math.Pow(d, float64(p.Power[t]))))
		}
		var text string
		if gr != nil {
			text = gr.PSLText()
		} else {
			pt := PSLTerm{Hard: hard}
			if !hard {
				pt.Weight, pt.Squared = p.Weight[t], p.Power[t] == 2
			}
			op := "<="
			if equal {
				op = "="
			}
			text = linearForm(e.Ground, vars, coefs, c, op, pt)
		}
		cols = append(cols, oneLine(text))
		_, err := bw.WriteString(strings.Join(cols, "\t") + "\n")
		return err
	}
	if _, err := e.rec.All(line); err != nil {
		return err
	}
	for t := range done {
		if !done[t] {
			if err := line(int32(t), nil); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// oneLine replaces tabs and line breaks (a rule written over several
// lines) by blanks, so that a ground rule is one field of one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// MLNSatisfactionHeader is the first line of a Markov logic satisfaction
// file.
const MLNSatisfactionHeader = "#clause\twhere\tweight\tsatisfied\tcost\tground_clause"

// WriteSatisfaction writes every ground clause of the network with its
// state in the MAP world, one a line, tab-separated after a header line
// starting with '#':
//
//	clause  where  weight  satisfied  cost  ground_clause
//
// clause indexes the network's clauses (mln.Network.Clauses), where is the
// formula's position; weight is the clause's signed weight or "hard";
// satisfied is 1 or 0; cost is what the clause costs in the world (its
// weight when a positive-weight clause is violated, |w| when a
// negative-weight one is satisfied, else 0; "-" for a hard clause);
// ground_clause is the ground clause in Alchemy syntax. Their costs sum to
// the world's cost.
func (e *MLN) WriteSatisfaction(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(MLNSatisfactionHeader + "\n")
	p := e.Ground.Problem
	np := p.NumPotentials()
	done := make([]bool, np+p.NumConstraints())
	y := func(u int32) float64 { return e.Values[u] }
	line := func(t int32, gr *Grounding) error {
		done[t] = true
		var vars []int32
		var coefs []float64
		var c float64
		var group int32
		hard := int(t) >= np
		if !hard {
			vars, coefs = p.Terms(int(t))
			c, group = p.Const[t], p.Group[t]
		} else {
			j := int(t) - np
			vars, coefs = p.CTerms(j)
			c, group = p.CConst[j], p.CGroup[j]
		}
		sat := !violated(vars, coefs, c, y)
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		where := ""
		info := e.Net.Clauses[group]
		if info.Formula != nil && info.Formula.Pos.IsValid() {
			where = info.Formula.Pos.String()
		}
		cols := []string{strconv.Itoa(int(group)), where}
		if hard {
			cols = append(cols, "hard")
		} else {
			cols = append(cols, f(info.Weight))
		}
		if sat {
			cols = append(cols, "1")
		} else {
			cols = append(cols, "0")
		}
		switch {
		case hard:
			cols = append(cols, "-")
		case info.Weight >= 0 && !sat:
			cols = append(cols, f(info.Weight))
		case info.Weight < 0 && sat:
			cols = append(cols, f(-info.Weight))
		default:
			cols = append(cols, "0")
		}
		text := mlnLinearClause(e.Ground, vars, coefs)
		if gr != nil {
			text = mlnGroundText(gr)
		}
		cols = append(cols, oneLine(text))
		_, err := bw.WriteString(strings.Join(cols, "\t") + "\n")
		return err
	}
	if _, err := e.rec.All(line); err != nil {
		return err
	}
	for t := range done {
		if !done[t] {
			if err := line(int32(t), nil); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
