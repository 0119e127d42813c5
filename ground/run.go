package ground

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hinge-srl/hinge/hlmrf"
)

// job is one unit of grounding (a clause of a logical rule, or an arithmetic
// rule) whose work is a list of items (the candidate rows of the first join
// step, or the substitutions of an arithmetic rule) that can be split into
// contiguous chunks.
type job interface {
	items() int
	newWorker() worker
}

// worker grounds items [lo, hi) of its job into out, in item order. A worker
// is used by one goroutine at a time and keeps its scratch space between
// calls.
type worker interface {
	ground(lo, hi int, out *hlmrf.Problem) error
	violated() int // constant-violated constraints emitted so far
}

// chunksPerThread is how many chunks each thread's share is split into, for
// load balancing (join fan-out is uneven) and progress reports.
const chunksPerThread = 64

func chunkCount(n, threads int) int {
	return min(n, chunksPerThread*threads)
}

func chunkBounds(c, nc, n int) (int, int) {
	return int(int64(c) * int64(n) / int64(nc)), int(int64(c+1) * int64(n) / int64(nc))
}

// run grounds the jobs of one rule into dst and returns the number of
// constant-violated constraints. With one chunk the worker writes straight
// into dst; otherwise each chunk goes into a fragment and the fragments are
// appended in chunk order, so dst is the same for any number of threads.
// With a sink, what passes to it is given back to bud (the rule's budget,
// which the workers spend; nil when there is no limit).
func (g *Grounder) run(rule int, jobs []job, dst *hlmrf.Problem, bud *budget) (int, error) {
	toSink := func(p *hlmrf.Problem) error {
		if err := g.sink.Add(p); err != nil {
			return err
		}
		if bud != nil {
			bud.used.Add(-outCost(outSize(p)))
		}
		return nil
	}
	counts := make([]int, len(jobs))
	total := 0
	for i, j := range jobs {
		counts[i] = chunkCount(j.items(), g.threads)
		total += counts[i]
	}
	if total == 0 && g.prog != nil {
		g.prog(rule, 0, 0) // nothing to do: the rule is finished
	}
	done := 0
	viol := 0
	var mu sync.Mutex
	report := func() {
		if g.prog == nil {
			return
		}
		mu.Lock()
		done++
		g.prog(rule, done, total)
		mu.Unlock()
	}
	for i, j := range jobs {
		n, nc := j.items(), counts[i]
		if nc == 0 {
			continue
		}
		if err := g.cancelled(); err != nil {
			return 0, err
		}
		if nc == 1 {
			w := j.newWorker()
			if err := w.ground(0, n, dst); err != nil {
				return 0, err
			}
			if g.sink != nil {
				if err := toSink(dst); err != nil {
					return 0, err
				}
				dst.Reset()
			}
			report()
			viol += w.violated()
			continue
		}
		// Each worker grounds the chunks it claims into a reused scratch
		// problem and keeps an exact-size fragment of each (also on one
		// thread: appending straight into dst would reallocate its growing
		// arrays again and again).
		frags := make([]*hlmrf.Problem, nc)
		errs := make([]error, nc)
		var stop atomic.Bool
		// With a sink, finished fragments pass to it in chunk order as soon
		// as every earlier one has (under flushMu; a chunk finished when it
		// is next goes straight from the worker's scratch), so that only
		// the fragments finished out of order are held, and a worker does
		// not start a chunk more than 2 per worker ahead of the next to
		// pass (it waits on more), so that one slow chunk cannot make the
		// others fill the memory.
		var flushMu sync.Mutex
		moved := sync.NewCond(&flushMu)
		flushed := 0
		ahead := 2 * min(g.threads, nc)
		// pass hands chunk c's fragment (in scratch) to the sink, with
		// every finished one after it, or keeps a copy until its turn.
		pass := func(c int, scratch *hlmrf.Problem) error {
			flushMu.Lock()
			defer flushMu.Unlock()
			defer moved.Broadcast()
			if c != flushed {
				frags[c] = scratch.Clone()
				return nil
			}
			if err := toSink(scratch); err != nil {
				return err
			}
			for flushed++; flushed < nc && frags[flushed] != nil; flushed++ {
				if err := toSink(frags[flushed]); err != nil {
					return err
				}
				frags[flushed] = nil
			}
			return nil
		}
		halt := func() {
			flushMu.Lock()
			stop.Store(true)
			moved.Broadcast()
			flushMu.Unlock()
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		workers := make([]worker, min(g.threads, nc))
		for k := range workers {
			workers[k] = j.newWorker()
			w := workers[k]
			wg.Go(func() {
				scratch := &hlmrf.Problem{NumVars: dst.NumVars}
				for !stop.Load() {
					c := int(next.Add(1) - 1)
					if c >= nc {
						return
					}
					if g.sink != nil {
						flushMu.Lock()
						for c >= flushed+ahead && !stop.Load() {
							moved.Wait()
						}
						flushMu.Unlock()
					}
					if err := g.cancelled(); err != nil {
						errs[c] = err
						halt()
						return
					}
					lo, hi := chunkBounds(c, nc, n)
					scratch.Reset()
					if err := w.ground(lo, hi, scratch); err != nil {
						errs[c] = err
						halt()
						return
					}
					if g.sink != nil {
						if err := pass(c, scratch); err != nil {
							errs[c] = err
							halt()
							return
						}
					} else {
						frags[c] = scratch.Clone()
					}
					report()
				}
			})
		}
		wg.Wait()
		// Chunks are claimed in order and a claimed chunk always finishes,
		// so the first error by chunk index is the one a sequential run
		// reports.
		for _, err := range errs {
			if err != nil {
				return 0, err
			}
		}
		for _, w := range workers {
			viol += w.violated()
		}
		if g.sink == nil {
			appendAll(dst, frags)
		}
	}
	return viol, nil
}

// appendAll appends the fragments to dst in order (hlmrf.Problem.Append
// without shifting variables), growing dst's arrays once.
func appendAll(dst *hlmrf.Problem, frags []*hlmrf.Problem) {
	var np, nt, nc, nct int
	for _, f := range frags {
		np += f.NumPotentials()
		nt += len(f.Var)
		nc += f.NumConstraints()
		nct += len(f.CVar)
	}
	dst.Weight = slices.Grow(dst.Weight, np)
	dst.Const = slices.Grow(dst.Const, np)
	dst.Power = slices.Grow(dst.Power, np)
	dst.Group = slices.Grow(dst.Group, np)
	dst.Start = slices.Grow(dst.Start, np+1)
	dst.Var = slices.Grow(dst.Var, nt)
	dst.Coef = slices.Grow(dst.Coef, nt)
	dst.CKind = slices.Grow(dst.CKind, nc)
	dst.CConst = slices.Grow(dst.CConst, nc)
	dst.CGroup = slices.Grow(dst.CGroup, nc)
	dst.CStart = slices.Grow(dst.CStart, nc+1)
	dst.CVar = slices.Grow(dst.CVar, nct)
	dst.CCoef = slices.Grow(dst.CCoef, nct)
	for i, f := range frags {
		dst.Append(f, false)
		frags[i] = nil
	}
}
