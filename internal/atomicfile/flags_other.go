//go:build !linux

package atomicfile

// appendOnly: no inode flags are read here.
func appendOnly(path string) bool { return false }
