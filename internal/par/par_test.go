package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct{ n, threads int }{{0, 4}, {1, 4}, {5, 1}, {100, 3}, {7, 0}} {
		var calls [100]atomic.Int32
		var badWorker atomic.Bool
		For(tc.n, tc.threads, func(w, i int) {
			calls[i].Add(1)
			if w < 0 || w >= Workers(tc.n, tc.threads) {
				badWorker.Store(true)
			}
		})
		for i := range tc.n {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n %d threads %d: item %d called %d times", tc.n, tc.threads, i, c)
			}
		}
		if badWorker.Load() {
			t.Errorf("n %d threads %d: worker index out of range", tc.n, tc.threads)
		}
	}
}

// TestWorkersDefault: threads <= 0 means every core, as the options that
// pass it through say (0: GOMAXPROCS).
func TestWorkersDefault(t *testing.T) {
	for _, threads := range []int{0, -1} {
		if got, want := Workers(1000, threads), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Workers(1000, %d) = %d, want GOMAXPROCS %d", threads, got, want)
		}
	}
	if got := Workers(1, 0); got != 1 {
		t.Errorf("Workers(1, 0) = %d", got)
	}
}
