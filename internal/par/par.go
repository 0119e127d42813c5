// Package par runs loops over item indexes on a few goroutines.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is the number of goroutines For uses for n items on threads
// threads (threads <= 0: runtime.GOMAXPROCS(0)): at least 1, at most n.
func Workers(n, threads int) int {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, threads))
}

// For calls f(worker, i) once for every i in [0, n), on Workers(n, threads)
// goroutines; worker (in [0, Workers)) identifies the goroutine, for
// per-worker scratch space. Items are claimed in increasing order, one at a
// time. For returns when every call has returned; a caller that must stop
// early (a cancelled context) returns from f at once.
func For(n, threads int, f func(worker, i int)) {
	w := Workers(n, threads)
	if w == 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range w {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(k, i)
			}
		})
	}
	wg.Wait()
}
