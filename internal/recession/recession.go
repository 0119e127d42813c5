// Package recession finds the directions along which a convex learning
// objective keeps decreasing as weights grow without bound, so that a
// learner can say that no finite optimum exists instead of reporting the
// point where its optimiser happened to stop.
//
// The objectives it serves (pseudo-likelihoods of HL-MRFs and Markov logic
// networks) have a polyhedral cone of directions along which they do not
// increase: { d : rows.d >= 0, d_i >= 0 for the non-negative weights }, and
// a linear gain g with g.d >= 0 on that cone that is positive exactly when
// the objective strictly decreases along d. A direction with g.d > 0 in the
// cone means the objective has no minimiser (it keeps falling along d from
// every point); when there is none, the objective attains its minimum.
package recession

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Cone is the cone of non-increasing directions of an objective over N
// weights, built row by row. A free weight i is split into two
// non-negative columns, d_i = d_i+ - d_i-, so that every column is
// non-negative; rows are kept over columns. A row whose entries are all
// >= 0 holds for every direction and is dropped; one whose entries are
// all <= 0 forces its negative columns to 0 and is not kept either; only
// rows of mixed sign are stored (each once up to a positive factor).
type Cone struct {
	n      int
	colOf  [][2]int32 // weight -> its columns (+, -); -1 none
	colW   []int32    // column -> weight
	colSgn []float64  // column -> +1 or -1
	gain   []float64  // per weight
	neg    []bool     // column has a negative entry in some row
	zero   []bool     // column forced to 0 by a row with no positive entry
	rows   []row      // mixed rows, over columns, sorted by column
	keys   map[string]bool
	buf    row
}

type row struct {
	idx []int32
	val []float64
}

// New returns the cone over n weights, every one non-negative unless
// free[i] (free may be nil).
func New(n int, free []bool) *Cone {
	c := &Cone{n: n, colOf: make([][2]int32, n), gain: make([]float64, n), keys: map[string]bool{}}
	for i := range n {
		c.colOf[i] = [2]int32{int32(len(c.colW)), -1}
		c.colW, c.colSgn = append(c.colW, int32(i)), append(c.colSgn, 1)
		if i < len(free) && free[i] {
			c.colOf[i][1] = int32(len(c.colW))
			c.colW, c.colSgn = append(c.colW, int32(i)), append(c.colSgn, -1)
		}
	}
	c.neg = make([]bool, len(c.colW))
	c.zero = make([]bool, len(c.colW))
	return c
}

// AddGain adds v to the gain of weight i.
func (c *Cone) AddGain(i int, v float64) { c.gain[i] += v }

// Add adds the constraint sum_k val[k] * d[idx[k]] >= 0 (idx distinct).
func (c *Cone) Add(idx []int32, val []float64) {
	r := &c.buf
	r.idx, r.val = r.idx[:0], r.val[:0]
	big := 0.0
	for _, v := range val {
		big = max(big, math.Abs(v))
	}
	if big == 0 {
		return
	}
	nz := 0
	for _, v := range val {
		if v != 0 {
			nz++
		}
	}
	pos, negs := false, false
	for k, i := range idx {
		v := val[k] / big
		if v == 0 {
			continue
		}
		for s, col := range c.colOf[i] {
			if col < 0 {
				continue
			}
			e := v
			if s == 1 {
				e = -v
			}
			r.idx, r.val = append(r.idx, col), append(r.val, e)
			if e > 0 {
				pos = true
			} else {
				negs = true
			}
		}
	}
	if nz == 1 {
		// v*d_i >= 0: a free weight's column of the wrong sign is 0.
		pos = false
		for k := range r.idx {
			r.val[k] = min(r.val[k], 0)
		}
	}
	if !negs {
		return
	}
	for k, col := range r.idx {
		if r.val[k] < 0 {
			c.neg[col] = true
			if !pos {
				c.zero[col] = true
			}
		}
	}
	if !pos {
		return
	}
	ord := make([]int, len(r.idx))
	for k := range ord {
		ord[k] = k
	}
	slices.SortFunc(ord, func(a, b int) int { return int(r.idx[a]) - int(r.idx[b]) })
	var sb strings.Builder
	s := row{idx: make([]int32, len(ord)), val: make([]float64, len(ord))}
	for k, o := range ord {
		s.idx[k], s.val[k] = r.idx[o], r.val[o]
		sb.WriteString(strconv.Itoa(int(s.idx[k])))
		sb.WriteByte(':')
		sb.WriteString(strconv.FormatFloat(s.val[k], 'g', 12, 64))
		sb.WriteByte(' ')
	}
	key := sb.String()
	if c.keys[key] {
		return
	}
	c.keys[key] = true
	c.rows = append(c.rows, s)
}

// Rows is the number of distinct rows of mixed sign kept.
func (c *Cone) Rows() int { return len(c.rows) }

// Result is the outcome of Cone.Solve.
type Result struct {
	// Alone[i] is +1 when e_i (weight i growing alone) is a direction of
	// strict decrease, -1 when -e_i is (a free weight falling alone), and
	// 0 otherwise.
	Alone []int8
	// Direction is a direction of strict decrease that no single weight
	// gives alone (largest entry 1 in absolute value, the weights Alone
	// marks at 0), or nil when there is none.
	Direction []float64
	// Decided is false when the combinations of weights were not checked
	// (the linear program was larger than the limit given to Solve, or
	// failed numerically): then no Alone entry and no Direction does not
	// prove that a minimum exists.
	Decided bool
}

// Unbounded reports whether r found a direction of strict decrease.
func (r Result) Unbounded() bool {
	return r.Direction != nil || slices.ContainsFunc(r.Alone, func(s int8) bool { return s != 0 })
}

// MaxLP is the learners' bound on Solve's linear program (its rows plus
// columns, after the cone's reductions): beyond it, combinations of
// weights are not checked.
const MaxLP = 400

// gainTol is the relative size below which a gain counts as 0.
const gainTol = 1e-9

// Solve finds the weights that decrease the objective alone, then, over
// the others, a combination that does (one linear program; maxLP bounds
// its constraints plus columns, beyond which Decided is false).
func (c *Cone) Solve(maxLP int) Result {
	res := Result{Alone: make([]int8, c.n), Decided: true}
	gscale := 0.0
	for _, g := range c.gain {
		gscale += math.Abs(g)
	}
	if gscale == 0 {
		return res // flat in every direction it has
	}
	gtol := gainTol * gscale
	cg := func(k int32) float64 { return c.colSgn[k] * c.gain[c.colW[k]] }
	ncol := len(c.colW)
	for k := range ncol {
		if !c.neg[k] && cg(int32(k)) > gtol {
			res.Alone[c.colW[k]] = int8(c.colSgn[k])
		}
	}
	// Combinations over the rest: weights found alone stay 0, and a row
	// whose live entries are all <= 0 forces its negative ones to 0.
	alive := make([]bool, ncol)
	for k := range alive {
		alive[k] = !c.zero[k] && res.Alone[c.colW[k]] == 0
	}
	live := c.rows
	for changed := true; changed; {
		changed = false
		var keep []row
		for _, r := range live {
			pos, negs := false, false
			w, one := int32(-1), true
			for q, k := range r.idx {
				if alive[k] {
					pos = pos || r.val[q] > 0
					negs = negs || r.val[q] < 0
					if w >= 0 && c.colW[k] != w {
						one = false
					}
					w = c.colW[k]
				}
			}
			if one {
				// Only a free weight's two columns are live: v*d_w >= 0
				// forces the column of the wrong sign to 0.
				pos = false
			}
			switch {
			case !negs:
				// Holds for every live direction.
			case !pos:
				for q, k := range r.idx {
					if alive[k] && r.val[q] < 0 {
						alive[k] = false
						changed = true
					}
				}
			default:
				keep = append(keep, r)
			}
		}
		live = keep
	}
	// With no row of mixed sign left, every live column alone is in the
	// cone and gains at most gtol (else Alone has it): so does their sum.
	if len(live) == 0 {
		return res
	}
	var lc []int32
	pos := make([]int, ncol)
	for k, a := range alive {
		if a {
			pos[k] = len(lc)
			lc = append(lc, int32(k))
		}
	}
	m, nc := len(live), len(lc)
	if m+1 > maxLP || m+nc > maxLP {
		res.Decided = false
		return res
	}
	// maximise gain.d  s.t.  rows.d - s = 0, sum d = 1, d, s >= 0.
	A := mat.NewDense(m+1, nc+m, nil)
	obj := make([]float64, nc+m)
	b := make([]float64, m+1)
	for q, k := range lc {
		obj[q] = -cg(k) / gscale
		A.Set(m, q, 1)
	}
	for j, r := range live {
		for q, k := range r.idx {
			if alive[k] {
				A.Set(j, pos[k], r.val[q])
			}
		}
		A.Set(j, nc+j, -1)
	}
	b[m] = 1
	f, x, err := lp.Simplex(obj, A, b, 1e-12, nil)
	switch {
	case errors.Is(err, lp.ErrInfeasible):
		return res // the live columns span no direction of the cone
	case err != nil:
		res.Decided = false
		return res
	}
	if -f*gscale <= gtol {
		return res
	}
	dir := make([]float64, c.n)
	for q, k := range lc {
		dir[c.colW[k]] += c.colSgn[k] * x[q]
	}
	big := 0.0
	for _, v := range dir {
		big = max(big, math.Abs(v))
	}
	for i := range dir {
		dir[i] /= big
		if math.Abs(dir[i]) < 1e-9 {
			dir[i] = 0
		}
	}
	res.Direction = dir
	return res
}
