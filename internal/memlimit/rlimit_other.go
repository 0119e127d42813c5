//go:build !linux

package memlimit

// rlimitAvailable is 0 (no limit known) where the resource limits are not
// read.
func rlimitAvailable() int64 { return 0 }
