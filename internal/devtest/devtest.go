//go:build unix

// Package devtest makes device files for tests of what hinge does when an
// output path names a device: a user's /dev/null must never be replaced.
package devtest

import (
	"path/filepath"
	"syscall"
	"testing"
)

// NullDevice makes a character device like /dev/null (1, 3) in dir and
// returns its path, or "" when this process may not (not root): the
// caller then skips its device case.
func NullDevice(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "nulldev")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no device of our own (%v): the device case is not run", err)
		return ""
	}
	return p
}
