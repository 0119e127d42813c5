//go:build unix

package lift

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system, all threads) used by the process
// so far. Benchmarks report it beside wall time because the machine they run
// on may be shared: CPU time is what the code costs.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
