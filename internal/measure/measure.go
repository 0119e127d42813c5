// Package measure holds what benchmarks share for reporting their runs (the
// programs under bench/ and the packages' go test benchmarks): the process's
// CPU time (CPUTime, CPUSeconds; in cputime_*.go), the median of repeated
// measurements, the peak resident memory (PeakRSSMB, ResetPeak), and the
// -cpuprofile flag's profile (StartCPUProfile).
package measure

import "slices"

// CPUSeconds is CPUTime in seconds.
func CPUSeconds() float64 { return CPUTime().Seconds() }

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 when xs is empty. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
