package kgc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/hinge-srl/hinge/internal/num"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/srcpos"
)

// WriteRules writes rules one a line as the number of body groundings
// (Rule.BodySize), support, confidence and the rule (Rule.Format),
// tab-separated: the file ReadRules reads. A rule the format cannot hold
// (Writable) is left out: written, it would read back as another rule.
func WriteRules(w io.Writer, rules []Rule, v *Vocab) error {
	bw := bufio.NewWriter(w)
	for i := range rules {
		r := &rules[i]
		if !r.Writable(v) {
			continue
		}
		// The confidence as the shortest decimal that reads back as the
		// same float64: --rules-in then ranks exactly as the run that
		// wrote the file (6 digits shifted scores and reordered ties).
		fmt.Fprintf(bw, "%d\t%d\t%s\t%s\n", r.BodySize, r.Support, strconv.FormatFloat(r.Conf, 'g', -1, 64), r.Format(v))
	}
	return bw.Flush()
}

// variable matches the variable names Rule.Format writes (X, Y, A1, A2)
// and AnyBURL's (X, Y, A, B, C, ...: one capital letter); every other
// argument is an entity, so an entity named by one capital letter or A1,
// A2, ... cannot be read back (ReadRules refuses such a rule as malformed
// or reads it as a variable).
var variable = regexp.MustCompile(`^([A-Z]|A[0-9]+)$`)

// ReadsAsVariable reports whether a rules file reads name, in an
// argument's place, as something other than the entity of that name: a
// variable (one capital letter, or A1, A2, ...) or AnyBURL's SelfToken.
func ReadsAsVariable(name string) bool { return name == SelfToken || variable.MatchString(name) }

// Writable reports whether a rules file can hold r: none of its constants
// is an entity whose name reads as a variable (ReadsAsVariable). Such a
// rule, r(X,gA) <= blood(X,A) with A an entity, read back as another
// (blood(X, any entity)).
func (r *Rule) Writable(v *Vocab) bool {
	misread := func(e int32) bool {
		return e != Self && e >= 0 && int(e) < len(v.Entities) && ReadsAsVariable(v.Entities[e])
	}
	switch r.Kind {
	case Cyclic:
		return true
	case AcyclicConst:
		return !misread(r.C) && !misread(r.D)
	}
	return !misread(r.C)
}

var atomRE = regexp.MustCompile(`^([^(),\s][^(),]*)\(([^(),]+),([^(),]+)\)$`)

// ReadRules reads a rules file written by WriteRules (or AnyBURL's, for
// the rule kinds hinge learns), interning names in v, through the shared
// text reader (a byte-order mark skipped; NUL bytes, invalid UTF-8 and
// over-long lines refused). Errors name name:line:col.
//
// It reads AnyBURL's reserved words as AnyBURL (23-1) does: a line whose
// first character is # is a comment; SelfToken (me_myself_i) in a
// constant's place is Self, the rule's own variable (r(X,me_myself_i) is
// the self-loop r(X, X), s(X,me_myself_i) in a body s(X, X)), never an
// entity; a variable is one capital letter (hinge's files also name
// A1, A2, ...).
func ReadRules(name string, r io.Reader, v *Vocab) ([]Rule, error) {
	return ReadRulesWithin(name, r, v, 0)
}

// rulesShare is the share of a memory limit the rules read may take: the
// rest is for the graph, the ranker's indexes and the queries (learning
// stops its rounds at the same share).
const rulesShare = 0.6

// readCheckEvery is the number of rules read between two looks at the heap.
const readCheckEvery = 1 << 14

// ErrRulesOutgrowMemory is wrapped by ReadRulesWithin's error when the
// rules outgrow the limit.
var ErrRulesOutgrowMemory = errors.New("the rules outgrow the memory limit")

// ReadRulesWithin is ReadRules that stops with an error, naming the line
// and wrapping ErrRulesOutgrowMemory, once the heap passes 60% of limit
// bytes (looked at every 16,384 rules; limit 0: no limit): a rules file
// too large to rank within the limit is refused while it is read, not by
// the kernel's out-of-memory killer later.
func ReadRulesWithin(name string, r io.Reader, v *Vocab, limit int64) ([]Rule, error) {
	sc := textfile.NewScanner(r, name)
	var out []Rule
	line, check := 0, readCheckEvery // the heap is looked at once len(out) reaches check
	for sc.Scan() {
		line++
		if limit > 0 && len(out) >= check {
			check += readCheckEvery
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if float64(ms.HeapAlloc) > rulesShare*float64(limit) {
				return nil, fmt.Errorf("%w: %w", ErrRulesOutgrowMemory, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: 1},
					"the %d rules read so far take %.0f MB of memory, past %.0f%% of the memory limit (%.0f MB; the rest is for ranking them)",
					len(out), float64(ms.HeapAlloc)/1e6, 100*rulesShare, float64(limit)/1e6))
			}
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		pos := srcpos.Position{File: name, Line: line, Col: 1}
		f := strings.SplitN(text, "\t", 4)
		if len(f) != 4 {
			return nil, srcpos.Errorf(pos, "want body size, support, confidence and rule, tab-separated")
		}
		body, err1 := strconv.Atoi(f[0])
		support, err2 := strconv.Atoi(f[1])
		conf, err3 := num.Parse(f[2])
		if err1 != nil || err2 != nil || err3 != nil || body < 0 || support < 0 || !(conf >= 0 && conf <= 1) {
			return nil, srcpos.Errorf(pos, "bad statistics %q, %q, %q (want two counts >= 0 and a confidence in [0,1])", f[0], f[1], f[2])
		}
		rule, err := parseRule(f[3], v)
		if err != nil {
			return nil, srcpos.Errorf(srcpos.Position{File: name, Line: line, Col: len(f[0]) + len(f[1]) + len(f[2]) + 4}, "%v", err)
		}
		rule.BodySize, rule.Support, rule.Conf = body, support, conf
		out = append(out, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, textfile.ScanError(err, name, line)
	}
	return out, nil
}

type ruleAtom struct{ rel, a, b string }

func parseAtom(s string) (ruleAtom, error) {
	m := atomRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ruleAtom{}, fmt.Errorf("%q is not an atom rel(a,b)", s)
	}
	return ruleAtom{m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3])}, nil
}

// parseRule reads "r(X,Y) <= b(X,A1), c(A1,Y)" and the acyclic and
// default forms Rule.Format writes.
func parseRule(s string, v *Vocab) (Rule, error) {
	head, body, ok := strings.Cut(s, " <=")
	if !ok {
		return Rule{}, fmt.Errorf("rule %q has no \" <=\"", s)
	}
	h, err := parseAtom(head)
	if err != nil {
		return Rule{}, err
	}
	var atoms []ruleAtom
	if body = strings.TrimSpace(body); body != "" {
		for _, part := range strings.Split(body, "),") {
			if !strings.HasSuffix(part, ")") {
				part += ")"
			}
			a, err := parseAtom(part)
			if err != nil {
				return Rule{}, err
			}
			atoms = append(atoms, a)
		}
	}
	r := Rule{Head: v.Relation(h.rel)}
	hx, hy := variable.MatchString(h.a), variable.MatchString(h.b)
	switch {
	case hx && hy:
		if h.a != "X" || h.b != "Y" || len(atoms) == 0 || len(atoms) > MaxPath {
			return Rule{}, fmt.Errorf("rule %q: a cyclic rule is r(X,Y) <= 1 to %d atoms", s, MaxPath)
		}
		r.Kind = Cyclic
		cur := "X"
		seen := map[string]bool{"X": true}
		for _, a := range atoms {
			switch cur {
			case a.a:
				r.Body = append(r.Body, Step{R: v.Relation(a.rel), Inverse: false})
				cur = a.b
			case a.b:
				r.Body = append(r.Body, Step{R: v.Relation(a.rel), Inverse: true})
				cur = a.a
			default:
				return Rule{}, fmt.Errorf("rule %q: %s(%s,%s) does not continue the path from %s", s, a.rel, a.a, a.b, cur)
			}
			// A path through a variable already on it (c(A,A), or back to
			// X) is a body hinge's rules cannot hold: read as a path through
			// new variables, it was another rule.
			if seen[cur] || !variable.MatchString(cur) {
				return Rule{}, fmt.Errorf("rule %q: %s(%s,%s) leads back to %s or to an entity; a cyclic rule's body is a path X, A1, ..., Y through new variables", s, a.rel, a.a, a.b, cur)
			}
			seen[cur] = true
		}
		if cur != "Y" {
			return Rule{}, fmt.Errorf("rule %q: the body path ends at %s, not Y", s, cur)
		}
		return r, nil
	case hx == hy:
		return Rule{}, fmt.Errorf("rule %q: the head needs one variable and one entity, or X and Y", s)
	}
	constant := func(name string) int32 {
		if name == SelfToken {
			return Self
		}
		return v.Entity(name)
	}
	vname := h.a
	if hy {
		vname, r.ConstTail, r.C = h.b, false, constant(h.a)
	} else {
		r.ConstTail, r.C = true, constant(h.b)
	}
	switch len(atoms) {
	case 0:
		r.Kind = Default
		return r, nil
	case 1:
	default:
		return Rule{}, fmt.Errorf("rule %q: an acyclic rule has one body atom", s)
	}
	a := atoms[0]
	var other string
	switch vname {
	case a.a:
		r.Body, other = []Step{{R: v.Relation(a.rel)}}, a.b
	case a.b:
		r.Body, other = []Step{{R: v.Relation(a.rel), Inverse: true}}, a.a
	default:
		return Rule{}, fmt.Errorf("rule %q: the body atom does not contain the head's variable %s", s, vname)
	}
	if other == vname {
		return Rule{}, fmt.Errorf("rule %q: %s(%s,%s) is a self-loop: write %s(%s,%s)", s, a.rel, a.a, a.b, a.rel, vname, SelfToken)
	}
	if variable.MatchString(other) {
		r.Kind = AcyclicAny
	} else {
		r.Kind, r.D = AcyclicConst, constant(other)
	}
	return r, nil
}
