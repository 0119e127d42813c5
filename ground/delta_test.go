package ground

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/model"
	"github.com/hinge-srl/hinge/store"
)

// deltaOracle lists, by brute force over every substitution of the
// clause's variables by every constant, the groundings a ClauseJoin must
// enumerate (see its documentation), each as its variable values and rows.
func deltaOracle(s *store.Store, c model.Clause, nvars int) (keys []string, rows [][]int32) {
	// Variables are numbered in order of first occurrence, literal by
	// literal (a comparison's left operand before its right), as the
	// grounder numbers them.
	slot := map[string]int{}
	note := func(t model.Term) {
		if t.Kind != model.Constant {
			if _, ok := slot[t.Name]; !ok {
				slot[t.Name] = len(slot)
			}
		}
	}
	for _, l := range c {
		if l.Atom != nil {
			for _, t := range l.Atom.Args {
				note(t)
			}
		} else {
			note(l.Cmp.Left)
			note(l.Cmp.Right)
		}
	}
	if len(slot) != nvars {
		panic(fmt.Sprintf("oracle numbers %d variables, the join %d", len(slot), nvars))
	}
	d := s.Dict
	val := make([]int32, nvars)
	name := func(t model.Term) (string, int32) {
		if t.Kind == model.Constant {
			id, ok := d.Lookup(t.Name)
			if !ok {
				id = -1
			}
			return t.Name, id
		}
		id := val[slot[t.Name]]
		return d.Name(id), id
	}
	var rec func(k int)
	rec = func(k int) {
		if k < nvars {
			for id := range int32(d.Len()) {
				val[k] = id
				rec(k + 1)
			}
			return
		}
		rs := make([]int32, 0, len(c))
		for _, l := range c {
			if l.Cmp != nil {
				a, ai := name(l.Cmp.Left)
				b, bi := name(l.Cmp.Right)
				var holds bool
				switch l.Cmp.Op {
				case model.CmpEq:
					holds = a == b
				case model.CmpNeq:
					holds = a != b
				default:
					if ai >= 0 && bi >= 0 {
						holds = d.Less(ai, bi)
					} else {
						holds = nameLess(a, b)
					}
				}
				if holds != l.Neg {
					return // a true comparison literal
				}
				continue
			}
			ids := make([]int32, len(l.Atom.Args))
			missing := false
			for i, t := range l.Atom.Args {
				_, ids[i] = name(t)
				missing = missing || ids[i] < 0
			}
			tab := s.Table(l.Atom.Pred)
			row, ok := -1, false
			if !missing {
				row, ok = tab.Find(ids)
			}
			binding := l.Neg || len(c) == 1
			switch {
			case binding && !ok:
				return // a binding atom must be present
			case binding:
				if v := tab.Value(row); l.Neg && v == 0 || !l.Neg && v == 1 {
					return // its literal is true under its value
				}
			case ok && tab.Kind(row) == store.Observed && tab.Value(row) == 1:
				return // a positive literal observed true
			}
			if !ok {
				row = -1
			}
			rs = append(rs, int32(row))
		}
		keys = append(keys, fmt.Sprint(val))
		rows = append(rows, rs)
	}
	rec(0)
	return keys, rows
}

// TestClauseJoinAgainstBruteForce runs All and From (for every atom and
// every row of its table) on the logical rules of seeded random worlds,
// with random values on the targets, against deltaOracle; then adds target
// rows (which the indexes built for the first round must follow), changes
// values and checks again.
func TestClauseJoinAgainstBruteForce(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	total := 0
	for seed := range uint64(n) {
		m, s, err := randomWorld(seed, 3)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 77))
		var joins []*ClauseJoin
		var clauses []model.Clause
		for _, r := range m.Rules {
			if r.Logical == nil {
				continue
			}
			js, err := ClauseJoins(m, s, r)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			cs, _ := model.Clauses(r.Logical)
			if len(cs) != len(js) {
				t.Fatalf("seed %d: %d joins for %d clauses", seed, len(js), len(cs))
			}
			joins = append(joins, js...)
			clauses = append(clauses, cs...)
		}
		setValues := func() {
			for _, p := range m.Predicates {
				tab := s.Table(p)
				for row := range tab.Len() {
					if tab.Kind(row) == store.Target {
						tab.SetValue(row, float64(rng.IntN(2)))
					}
				}
			}
		}
		for round := range 2 {
			setValues()
			for k, j := range joins {
				wantKeys, wantRows := deltaOracle(s, clauses[k], j.Query.Vars)
				total += len(wantKeys)
				var got []string
				err := j.All(func(vals, rows []int32) error {
					key := fmt.Sprint(vals)
					got = append(got, key)
					if i := slices.Index(wantKeys, key); i >= 0 && !slices.Equal(rows, wantRows[i]) {
						t.Errorf("seed %d round %d clause %d: %s rows %v, want %v", seed, round, k, key, rows, wantRows[i])
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				sortedEqual(t, fmt.Sprintf("seed %d round %d clause %d All", seed, round, k), got, wantKeys)
				if err := j.From(len(j.Query.Atoms), 0, func([]int32, []int32) error { return nil }); err == nil {
					t.Errorf("From on an atom the clause lacks: no error")
				}
				for ai, qa := range j.Query.Atoms {
					tab := s.Table(qa.Pred)
					for row := range int32(tab.Len()) {
						var want, got []string
						for i, rs := range wantRows {
							if rs[ai] == row {
								want = append(want, wantKeys[i])
							}
						}
						if err := j.From(ai, row, func(vals, rows []int32) error {
							if rows[ai] != row {
								t.Errorf("From(%d, %d) emitted row %d for the seed", ai, row, rows[ai])
							}
							got = append(got, fmt.Sprint(vals))
							return nil
						}); err != nil {
							t.Fatal(err)
						}
						sortedEqual(t, fmt.Sprintf("seed %d round %d clause %d From(%d, %d)", seed, round, k, ai, row), got, want)
					}
				}
			}
			// Grow the open tables: every remaining atom of O1 and O2 over
			// the constants becomes a target.
			for _, name := range []string{"O1", "O2"} {
				p := m.Predicate(name)
				consts := make([]string, s.Dict.Len())
				for id := range consts {
					consts[id] = s.Dict.Name(int32(id))
				}
				for _, a := range consts {
					args := []string{a}
					if p.Arity == 2 {
						args = append(args, consts[rng.IntN(len(consts))])
					}
					if _, ok := s.Table(p).Find(ids(s, args)); !ok {
						if err := s.AddTarget(p, args); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
	if total < 20*n {
		t.Fatalf("only %d groundings over %d worlds: too sparse to test much", total, n)
	}
}

func ids(s *store.Store, args []string) []int32 {
	out := make([]int32, len(args))
	for i, a := range args {
		out[i] = s.Dict.ID(a)
	}
	return out
}

func sortedEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %d groundings %s, want %d %s", what, len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
	}
}

// TestClauseJoinEmitError checks that an emitter's error stops the join and
// comes back.
func TestClauseJoinEmitError(t *testing.T) {
	x := newSocial(t)
	r := weighted(1, false, imp(at(x.friend, "A", "B"), at(x.knows, "A", "B")))
	x.add(t, r)
	js, err := ClauseJoins(x.m, x.s, r)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	stop := fmt.Errorf("stop")
	if err := js[0].All(func([]int32, []int32) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("All: error %v after %d calls, want the emitter's after 1", err, calls)
	}
	if _, err := ClauseJoins(x.m, x.s, &model.Rule{Weighted: true, Weight: 1, Arith: &model.Arithmetic{}}); err == nil {
		t.Fatal("an arithmetic rule: no error")
	}
}
