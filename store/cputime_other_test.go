//go:build !unix

package store

// processCPU is not measured on this platform.
func processCPU() float64 { return 0 }
