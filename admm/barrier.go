package admm

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// barrier is a reusable barrier for a fixed number of goroutines. The fast
// path is lock-free: arrivals count with an atomic add and waiters spin on a
// generation counter. A waiter that spins for long (a slow Progress callback,
// more threads than cores) falls back to sleeping on a condition variable, so
// an idle worker never burns a core for long; the mutex is touched only on
// that slow path.
type barrier struct {
	n        int32
	_        [60]byte
	count    atomic.Int32
	_        [60]byte
	gen      atomic.Uint32
	_        [60]byte
	sleepers atomic.Int32
	mu       sync.Mutex
	cond     sync.Cond
}

// spinLimit is how many times a waiter polls before yielding to the
// scheduler and, after sleepAfter yields, going to sleep. One poll is a few
// nanoseconds; a phase of a small problem takes microseconds.
const (
	spinLimit  = 1 << 12
	sleepAfter = 64
)

func newBarrier(n int) *barrier {
	b := &barrier{n: int32(n)}
	b.cond.L = &b.mu
	return b
}

// wait blocks until all n goroutines have called wait. Memory written by any
// of them before wait is visible to all of them after it (the atomic
// operations order it).
func (b *barrier) wait() {
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.gen.Store(g + 1)
		if b.sleepers.Load() > 0 {
			b.mu.Lock()
			b.cond.Broadcast()
			b.mu.Unlock()
		}
		return
	}
	for y := 0; y < sleepAfter; y++ {
		for i := 0; i < spinLimit; i++ {
			if b.gen.Load() != g {
				return
			}
		}
		runtime.Gosched()
	}
	b.mu.Lock()
	b.sleepers.Add(1)
	for b.gen.Load() == g {
		b.cond.Wait()
	}
	b.sleepers.Add(-1)
	b.mu.Unlock()
}
