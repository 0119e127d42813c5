package pathrule

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxWalk is the longest path Walk follows.
const MaxWalk = 3

// Walker walks paths over a graph; it holds working memory over the
// graph's entities, so each goroutine needs its own.
type Walker struct {
	g       *Graph
	mark    []bool  // output deduplication
	cnt     []uint8 // depth 3: distinct predecessors of a middle entity, saturating at 2
	first   []int32 // depth 3: its first predecessor
	touched []int32 // depth 3: middle entities with cnt > 0
	work    int64   // edges looked at since ResetWork
}

// NewWalker returns a walker over g.
func NewWalker(g *Graph) *Walker {
	n := g.NumEntities
	return &Walker{g: g, mark: make([]bool, n), cnt: make([]uint8, n), first: make([]int32, n)}
}

// Work is the number of edges looked at since the last ResetWork.
func (w *Walker) Work() int64 { return w.work }

// ResetWork sets Work to 0.
func (w *Walker) ResetWork() { w.work = 0 }

// Walk returns the distinct entities y reached from x through steps (1 to
// MaxWalk of them) along paths whose entities are all different (x, the
// intermediate entities and y); the result is appended to out[:0]. Its
// cost is the sum of the degrees of the distinct entities reached before
// the last step, however many paths lead through them.
func (w *Walker) Walk(x int32, steps []Step, out []int32) []int32 {
	g := w.g
	out = out[:0]
	add := func(y int32) {
		if !w.mark[y] {
			w.mark[y] = true
			out = append(out, y)
		}
	}
	s0 := g.Step(x, steps[0].R, steps[0].Inverse)
	w.work += int64(len(s0))
	switch len(steps) {
	case 1:
		for _, y := range s0 {
			if y != x {
				add(y)
			}
		}
	case 2:
		for _, a := range s0 {
			if a == x {
				continue
			}
			s1 := g.Step(a, steps[1].R, steps[1].Inverse)
			w.work += int64(len(s1))
			for _, y := range s1 {
				if y != x && y != a {
					add(y)
				}
			}
		}
	case 3:
		for _, a1 := range s0 {
			if a1 == x {
				continue
			}
			s1 := g.Step(a1, steps[1].R, steps[1].Inverse)
			w.work += int64(len(s1))
			for _, a2 := range s1 {
				if a2 == x || a2 == a1 {
					continue
				}
				switch w.cnt[a2] {
				case 0:
					w.cnt[a2], w.first[a2] = 1, a1
					w.touched = append(w.touched, a2)
				case 1:
					w.cnt[a2] = 2 // a1 differs from the first: each a1 comes once
				}
			}
		}
		for _, a2 := range w.touched {
			s2 := g.Step(a2, steps[2].R, steps[2].Inverse)
			w.work += int64(len(s2))
			for _, y := range s2 {
				if y != x && y != a2 && (w.cnt[a2] == 2 || w.first[a2] != y) {
					add(y)
				}
			}
			w.cnt[a2] = 0
		}
		w.touched = w.touched[:0]
	default:
		panic(fmt.Sprintf("pathrule: a walk of %d steps (1 to %d)", len(steps), MaxWalk))
	}
	for _, y := range out {
		w.mark[y] = false
	}
	return out
}

// Defaults of the sampling settings the learners give CountOptions
// (kgc.LearnOptions and structure.GenOptions): 0 means the default, a
// negative value none.
const (
	DefaultPC     = 5
	DefaultSample = 1000
	DefaultErr    = 0.01
	DefaultWork   = 2_000_000
)

// SetDefaults applies the learners' convention to their sampling
// settings: a 0 becomes the default (DefaultPC, DefaultSample, DefaultErr,
// DefaultWork), a negative pc, sample, err or work becomes 0 (no
// smoothing, count exactly, never stop early, no bound on the work). A
// NaN pc is left for the caller to refuse.
func SetDefaults(pc *float64, sample *int, err *float64, work *int64) {
	switch {
	case *pc == 0:
		*pc = DefaultPC
	case *pc < 0:
		*pc = 0
	}
	switch {
	case *sample == 0:
		*sample = DefaultSample
	case *sample < 0:
		*sample = 0
	}
	switch {
	case *err == 0:
		*err = DefaultErr
	case *err < 0:
		*err = 0
	}
	switch {
	case *work == 0:
		*work = DefaultWork
	case *work < 0:
		*work = 0
	}
}

// CountOptions say how CountPath counts a path rule's body groundings.
type CountOptions struct {
	// PC smooths the confidence: support / (body size + PC).
	PC float64
	// Sample is the most body starts (values of X) a count looks at,
	// drawn at random without replacement; 0 counts every start (exact).
	// A rule with no more starts than Sample is counted exactly.
	Sample int
	// Err stops the sampling early, after at least MinDraws starts, once
	// the confidence's 95% interval has a half-width of at most Err (0:
	// never early).
	Err float64
	// Work stops the sampling once this many edges have been looked at
	// (a rule through hubs), with at least one start drawn (0: no bound).
	Work int64
	// Seed seeds the draws, with the stream CountPath is given.
	Seed uint64
	// Heads, when set, is the graph the head relation is looked up in
	// (over the same entity ids), for a learner whose heads are not edges
	// of the graph it walks (package structure: the true atoms of target
	// predicates); nil looks the head up in the walked graph.
	Heads *Graph
}

// MinDraws is the fewest starts drawn before CountOptions.Err may stop a
// sampled count.
const MinDraws = 100

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Count is a path rule's statistics.
type Count struct {
	// Support is the number of body groundings whose head holds, Body the
	// number of body groundings (distinct (X, Y) pairs); estimates,
	// rounded, when Sampled > 0.
	Support, Body int
	// Conf is support / (body + PC).
	Conf float64
	// Sampled is the number of starts drawn, 0 for an exact count; Err the
	// half-width of the confidence's 95% interval and SupportErr that of
	// the support's (both 0 when exact).
	Sampled         int
	Err, SupportErr float64
}

// CountPath counts the body groundings of head(X, Y) <= body (a path from
// X to Y under object identity) and its support, exactly or from starts
// drawn with the random stream (opt.Seed, stream).
//
// A sampled count draws values x of X uniformly without replacement from
// the N entities where the body's first step can start, and walks each
// exactly: h_x of its y are supported, y_x are body groundings. With m
// draws the support and body size are estimated as N/m sum h and N/m sum y
// (unbiased), the confidence as their smoothed ratio c, and its standard
// error by the delta method, sqrt(N^2 (1 - m/N) s^2 / m) / (body + PC), s^2
// the sample variance of h - c y; Err is 1.96 times it, at least the
// rule-of-three bound 3N/m / (body + PC) when no draw (or every draw) was
// supported, and at most 1. SupportErr is 1.96 N sqrt((1 - m/N) s_h^2 / m),
// s_h^2 the sample variance of h, and at least the rule-of-three bound
// 3N/m max(1, mean h) when every draw had the same h.
func (w *Walker) CountPath(head int32, body []Step, opt CountOptions, stream uint64) Count {
	g := w.g
	heads := g
	if opt.Heads != nil {
		heads = opt.Heads
	}
	starts := g.From(body[0].R, body[0].Inverse)
	n := len(starts)
	exact := opt.Sample <= 0 || n <= opt.Sample
	var rng *rand.Rand
	var swapped map[int]int
	if !exact {
		rng = rand.New(rand.NewPCG(opt.Seed, stream))
		swapped = map[int]int{}
	}
	var sh, sy, shh, shy, syy float64
	var ys []int32
	m := 0
	w.work = 0
	for m < n {
		// The m-th draw: a partial Fisher-Yates shuffle of the starts'
		// indices, its swaps kept in a map.
		i := m
		if !exact {
			j := m + rng.IntN(n-m)
			vi, ok := swapped[j]
			if !ok {
				vi = j
			}
			vm, ok := swapped[m]
			if !ok {
				vm = m
			}
			swapped[j] = vm
			i = vi
		}
		x := starts[i]
		ys = w.Walk(x, body, ys)
		h := 0
		for _, y := range ys {
			if heads.Has(Triple{x, head, y}) {
				h++
			}
		}
		m++
		fh, fy := float64(h), float64(len(ys))
		sh, sy, shh, shy, syy = sh+fh, sy+fy, shh+fh*fh, shy+fh*fy, syy+fy*fy
		if exact {
			continue
		}
		if m >= opt.Sample || (opt.Work > 0 && w.work >= opt.Work) {
			break
		}
		if opt.Err > 0 && m >= MinDraws && m%16 == 0 {
			if _, err := ratioError(sh, sy, shh, shy, syy, m, n, opt.PC); err <= opt.Err {
				break
			}
		}
	}
	if m == n {
		return Count{Support: int(sh), Body: int(sy), Conf: sh / (sy + opt.PC)}
	}
	scale := float64(n) / float64(m)
	c := Count{Support: int(math.Round(sh * scale)), Body: int(math.Round(sy * scale)), Sampled: m}
	c.Conf, c.Err = ratioError(sh, sy, shh, shy, syy, m, n, opt.PC)
	c.SupportErr = totalError(sh, shh, m, n)
	return c
}

// totalError is the half-width of the 95% interval of the total N/m sum h
// estimated from m of n starts (sums of h and h^2).
func totalError(sh, shh float64, m, n int) float64 {
	if m >= n {
		return 0
	}
	fm, fn := float64(m), float64(n)
	v := 0.0
	if m > 1 {
		v = max(0, (shh-sh*sh/fm)/(fm-1))
	}
	err := z95 * fn * math.Sqrt((1-fm/fn)*v/fm)
	if v == 0 {
		// Every draw alike (none supported, say): the starts not drawn may
		// differ, and the rule of three bounds how many (3/m of them).
		err = max(err, 3*fn/fm*max(1, sh/fm))
	}
	return err
}

// CountConst counts the body groundings and support of a rule with
// constants, head(X, c) <= body(X, d) when constTail, else head(c, X) <=
// body(X, d): the body groundings are the distinct X reached backwards
// from d through body (1 to MaxWalk steps, object identity), but c
// itself; the support those for which the head holds (in opt.Heads when
// set). The count is exact (a walk from one entity); opt.PC smooths the
// confidence.
func (w *Walker) CountConst(head, c int32, constTail bool, body []Step, d int32, opt CountOptions) Count {
	heads := w.g
	if opt.Heads != nil {
		heads = opt.Heads
	}
	var out Count
	for _, v := range w.Walk(d, Reverse(body), nil) {
		if v == c {
			continue // object identity: the variable is not the head's constant
		}
		out.Body++
		t := Triple{H: v, R: head, T: c}
		if !constTail {
			t = Triple{H: c, R: head, T: v}
		}
		if heads.Has(t) {
			out.Support++
		}
	}
	out.Conf = float64(out.Support) / (float64(out.Body) + opt.PC)
	return out
}

// ratioError estimates the confidence from m of n starts (sums of h, y,
// h^2, h y and y^2) and the half-width of its 95% interval.
func ratioError(sh, sy, shh, shy, syy float64, m, n int, pc float64) (conf, err float64) {
	scale := float64(n) / float64(m)
	den := sy*scale + pc
	if den == 0 {
		return 0, 0
	}
	conf = sh * scale / den
	if m >= n {
		return conf, 0
	}
	fm := float64(m)
	// Sample variance of d = h - conf*y.
	sd := sh - conf*sy
	sdd := shh - 2*conf*shy + conf*conf*syy
	v := 0.0
	if m > 1 {
		v = max(0, (sdd-sd*sd/fm)/(fm-1))
	}
	fpc := 1 - fm/float64(n)
	err = z95 * math.Sqrt(float64(n)*float64(n)*fpc*v/fm) / den
	if sh == 0 || sh == sy {
		err = max(err, 3*scale/den)
	}
	return conf, min(err, 1) // a confidence is in [0, 1]
}
