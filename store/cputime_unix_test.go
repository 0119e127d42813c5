//go:build unix

package store

import "syscall"

// processCPU returns the CPU time (user + system) the process has used, in
// seconds, so benchmarks can report a figure that other processes on a
// shared machine disturb less than wall time.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
