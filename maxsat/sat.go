package maxsat

import (
	"context"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// satSolver is the one interface through which the exact solver (exact.go)
// uses a CDCL SAT solver with assumptions, so that the library behind it
// can be replaced. Variables are 0-based and literals are this package's
// Lit (DIMACS form); clauses and variables only grow.
type satSolver interface {
	// addClause adds a clause for good (the empty clause makes every
	// later call unsatisfiable).
	addClause(lits ...Lit)
	// solve decides the clauses under the assumptions (literals held true
	// for this call only). It returns satTrue, satFalse, or satUnknown
	// when the deadline (if not zero) passed first; once ctx is done it
	// returns ctx's error within about a tenth of a second.
	solve(ctx context.Context, deadline time.Time, assume []Lit) (satResult, error)
	// value is variable v's value in the model of the last satTrue call.
	value(v int) bool
	// failed returns, after satFalse, assumptions that suffice for the
	// clauses to be unsatisfiable (an unsatisfiable core), appended to dst;
	// none when the clauses alone are unsatisfiable.
	failed(dst []Lit) []Lit
}

type satResult int8

const (
	satUnknown satResult = iota
	satTrue
	satFalse
)

// newSATSolver returns the SAT solver the exact solver uses: gini
// (github.com/go-air/gini, pure Go, incremental with assumptions and
// failed-assumption cores). bench/exact compares it with gophersat.
func newSATSolver() satSolver { return &giniSAT{g: gini.New()} }

// giniSAT is satSolver over gini.
type giniSAT struct {
	g *gini.Gini
	// assumed[m] is gen when m was assumed in the last call.
	assumed []uint32
	gen     uint32
	buf     []z.Lit
}

// satSlice is how long one gini call runs before solve looks at its
// context again (gini restarts its search on the next call and keeps what
// it learnt).
const satSlice = 100 * time.Millisecond

func (s *giniSAT) addClause(lits ...Lit) {
	for _, l := range lits {
		s.g.Add(z.Dimacs2Lit(int(l)))
	}
	s.g.Add(z.LitNull)
}

func (s *giniSAT) solve(ctx context.Context, deadline time.Time, assume []Lit) (satResult, error) {
	s.gen++
	s.buf = s.buf[:0]
	for _, l := range assume {
		m := z.Dimacs2Lit(int(l))
		for int(m) >= len(s.assumed) {
			s.assumed = append(s.assumed, 0)
		}
		s.assumed[m] = s.gen
		s.buf = append(s.buf, m)
	}
	for {
		if err := ctx.Err(); err != nil {
			return satUnknown, err
		}
		d := satSlice
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return satUnknown, nil
			}
			d = min(d, left)
		}
		// gini forgets its assumptions after each call.
		s.g.Assume(s.buf...)
		switch s.g.Try(d) {
		case 1:
			return satTrue, nil
		case -1:
			return satFalse, nil
		}
	}
}

func (s *giniSAT) value(v int) bool { return s.g.Value(z.Var(v + 1).Pos()) }

func (s *giniSAT) failed(dst []Lit) []Lit {
	for _, m := range s.g.Why(nil) {
		// gini may name a literal fixed at level 0 alongside the
		// assumptions; the core is the assumptions.
		if int(m) < len(s.assumed) && s.assumed[m] == s.gen {
			dst = append(dst, Lit(m.Dimacs()))
		}
	}
	return dst
}
