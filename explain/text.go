package explain

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// signed writes x with its sign and 4 significant digits.
func signed(x float64) string {
	if x == 0 {
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func withSign(x float64) string {
	s := signed(x)
	if x > 0 {
		return "+" + s
	}
	return s
}

// plural returns "1 ground rule" or "3 ground rules".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// contain says "1 ground rule contains it" or "3 ground rules contain it".
func contain(n int, what string) string {
	if n == 1 {
		return "1 " + what + " contains it"
	}
	return plural(n, what) + " contain it"
}

// WriteText writes the explanation for a terminal: the atom and its value,
// one line per ground rule kept (largest pull first) with its pull, weight,
// distance to satisfaction, the atom's role and the ground rule, then the
// sums of the pulls and the bound's multiplier.
func (x *PSLExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %.6g: %s", x.Atom, x.Value, contain(x.Count, "ground rule"))
	if len(x.Terms) < x.Count {
		fmt.Fprintf(&b, ", the %d largest pulls shown", len(x.Terms))
	}
	b.WriteString(" (pull: the rule's ADMM dual on the atom at the answer; > 0 pushes it up)\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  pull\tweight\tdistance\trole\tground rule")
	for _, t := range x.Terms {
		wt := "hard"
		if !t.Hard {
			wt = signed(t.Weight)
			if t.Squared {
				wt += " ^2"
			}
		}
		where := t.Where
		if t.Substitution != "" {
			where += "; " + t.Substitution
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s   (%s)\n", withSign(t.Pull), wt, signed(t.Distance), roleWord(t.Role, t.Negated), t.Ground, where)
	}
	tw.Flush()
	if len(x.Terms) < x.Count {
		fmt.Fprintf(&b, "  ... %d more: pulls %s up, %s down\n", x.Count-len(x.Terms), withSign(x.OmittedUp), withSign(x.OmittedDown))
	}
	fmt.Fprintf(&b, "  pulls up %s, down %s; ", withSign(x.Up), withSign(x.Down))
	bound := x.Bound
	if math.Abs(bound) < 1e-12 {
		bound = 0 // rounding in the sum
	}
	switch x.At {
	case "interior":
		fmt.Fprintf(&b, "the atom is inside (0, 1), where they balance (bound multiplier %s)\n", signed(bound))
	case "lower bound":
		fmt.Fprintf(&b, "the atom is at 0, held there by the bound y >= 0 (multiplier %s)\n", withSign(bound))
		writeBack(&b, x, "rising from 0")
	default:
		fmt.Fprintf(&b, "the atom is at 1, held there by the bound y <= 1 (multiplier %s)\n", withSign(bound))
		writeBack(&b, x, "falling from 1")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBack says what the ground rules shown would do if the atom, at a
// bound, left it by d: the hard constraints that forbid it, the rates at
// which penalties would grow (or shrink), and the squared rules that resist
// only to second order.
func writeBack(b *strings.Builder, x *PSLExplanation, move string) {
	var parts []string
	for _, t := range x.Terms {
		switch {
		case t.Blocks:
			parts = append(parts, "forbidden by "+t.Ground)
		case t.Back != nil && *t.Back != 0:
			parts = append(parts, fmt.Sprintf("%s per unit from %s", withSign(*t.Back), t.Ground))
		case t.BackQuadratic != 0:
			parts = append(parts, fmt.Sprintf("+%s*d^2 from %s", signed(t.BackQuadratic), t.Ground))
		}
	}
	if len(parts) == 0 {
		fmt.Fprintf(b, "  %s, the penalties shown would not change to first or second order\n", move)
		return
	}
	fmt.Fprintf(b, "  %s by d, the penalty would change: %s\n", move, strings.Join(parts, "; "))
}

// roleWord describes the atom's place in a ground rule.
func roleWord(role string, negated bool) string {
	if role != "" {
		return role
	}
	if negated {
		return "negated"
	}
	return "positive"
}

// WriteText writes the explanation for a terminal: the atom's value in the
// MAP world, the ground clauses (those the flip would break or mend first,
// then by flip cost), what flipping the atom alone would cost, and, when
// Resolve was run, the cost of the best world found with it flipped.
func (x *MLNExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	other := 1 - x.Value
	fmt.Fprintf(&b, "%s = %g in the MAP world: %s", x.Atom, x.Value, contain(x.Count, "ground clause"))
	if len(x.Terms) < x.Count {
		fmt.Fprintf(&b, ", %d shown", len(x.Terms))
	}
	fmt.Fprintf(&b, "; flipping it to %g alone would change the cost by %s", other, withSign(x.FlipCost))
	if x.HardBroken > 0 {
		fmt.Fprintf(&b, " and violate %s", plural(x.HardBroken, "hard clause"))
	}
	if x.HardMended > 0 {
		fmt.Fprintf(&b, " and satisfy %s now violated", plural(x.HardMended, "hard clause"))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  flip cost\tweight\tholds\tflipped\tground clause")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, t := range x.Terms {
		cost, wt := withSign(t.FlipCost), signed(t.Weight)
		if t.Hard {
			wt, cost = "hard", "0"
			if t.BreaksHard {
				cost = "breaks"
			} else if t.MendsHard {
				cost = "mends"
			}
		}
		where := t.Where
		if t.Substitution != "" {
			where += "; " + t.Substitution
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s   (%s: %s)\n", cost, wt, yes[t.Satisfied], yes[t.FlippedSatisfied], t.Ground, where, t.Formula)
	}
	tw.Flush()
	if r := x.Resolved; r != nil {
		switch {
		case r.Infeasible:
			fmt.Fprintf(&b, "  solved again with %s = %g (%s): the hard clauses cannot all hold\n", x.Atom, other, r.Method)
		default:
			opt := ""
			if r.Optimal {
				opt = ", certified optimal"
			}
			fmt.Fprintf(&b, "  solved again with %s = %g (%s): best world found costs %.6g, %s against this world (%d hard clause(s) violated%s)\n",
				x.Atom, other, r.Method, r.Cost, withSign(r.Delta), r.HardViolated, opt)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes the explanation for a terminal: for each query the
// candidate answers, its score and the rules that predicted it, with their
// confidences and body groundings.
func (x *KGCExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	how := x.Scoring
	switch {
	case x.Scoring == "learned":
		how = fmt.Sprintf("learned weights of each candidate's %d best rules (the score adds weight * -log(1 - conf) of each)", x.NoisyOrK)
	case x.NoisyOrK > 0:
		how = fmt.Sprintf("noisy-or of each candidate's %d best rules", x.NoisyOrK)
	}
	fmt.Fprintf(&b, "%s, scored by %s:\n", x.Atom, how)
	for _, q := range x.Queries {
		if !q.Predicted {
			fmt.Fprintf(&b, "  as an answer of %s: %s is predicted by no rule\n", q.Query, q.Candidate)
			continue
		}
		shown := ""
		if len(q.Rules) < q.RuleCount {
			shown = fmt.Sprintf(", the %d most confident shown", len(q.Rules))
		}
		fmt.Fprintf(&b, "  as an answer of %s: %s scores %.6g from %s%s\n", q.Query, q.Candidate, q.Score, plural(q.RuleCount, "rule"), shown)
		if q.Rank > 0 {
			fmt.Fprintf(&b, "    %s (known answers left out)%s\n", rankText(q.Rank, q.Tied), aboveText(q.Above, q.AboveCount))
		}
		for _, r := range q.Rules {
			est := ""
			if r.Sampled {
				est = fmt.Sprintf(" +-%.2g, sampled", r.ConfErr)
			}
			if r.RankConf != nil {
				est += fmt.Sprintf("; ranked with %.4f", *r.RankConf)
			}
			if r.Weight != nil {
				est += fmt.Sprintf("; weight %.4g", *r.Weight)
			}
			fmt.Fprintf(&b, "    conf %.4f  %s   (support %d of %d%s)\n", r.Conf, r.Rule, r.Support, r.BodySize, est)
			for _, g := range r.Groundings {
				if len(g) == 0 {
					b.WriteString("        (no body: a default rule)\n")
					continue
				}
				fmt.Fprintf(&b, "        %s\n", strings.Join(g, ", "))
			}
			if n := r.Found - len(r.Groundings); n > 0 {
				more := ""
				if r.More {
					more = " or more"
				}
				fmt.Fprintf(&b, "        ... %d%s more body groundings\n", n, more)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rankText says a filtered rank ("ranked 7th"), and with how many
// others it is tied: ties count half, so a rank may end in .5.
func rankText(r float64, tied int) string {
	tie := ""
	if tied > 0 {
		tie = fmt.Sprintf(", tied with %s", plural(tied, "other"))
	}
	if r != float64(int(r)) {
		return fmt.Sprintf("ranked %g%s", r, tie)
	}
	n := int(r)
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("ranked %d%s%s", n, suffix, tie)
}

// aboveText lists the candidates ranked above an explained one.
func aboveText(above []KGCCandidate, count int) string {
	if count == 0 {
		return ""
	}
	parts := make([]string, len(above))
	for i, c := range above {
		parts[i] = fmt.Sprintf("%s (%.4g)", c.Candidate, c.Score)
	}
	more := ""
	if n := count - len(above); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return "; above it: " + strings.Join(parts, ", ") + more
}
