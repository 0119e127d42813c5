//go:build unix

package measure

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system, all threads) the process has used
// so far. Benchmarks report it beside wall time because the machine they run
// on may be shared: CPU time is what the code costs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
