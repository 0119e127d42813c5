// Package shareddata locates the project's shared data sets (Cora, Citeseer,
// the PSL examples, ...): $HINGE_DATA when set, otherwise ../shared/data
// beside the repository root (the outermost directory with a go.mod). The data is read in place, never copied into the
// repository; tests that need it skip, with the reason, when it is absent.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data directory, or an error saying why it is not
// there.
func Dir() (string, error) {
	if d := os.Getenv("HINGE_DATA"); d != "" {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return "", fmt.Errorf("HINGE_DATA=%s is not a directory", d)
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	// The repository root is the outermost directory holding a go.mod: the
	// benchmarks are a module nested inside it, and their data is the
	// root's ../shared/data, not theirs.
	root := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			root = dir
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if root == "" {
		return "", fmt.Errorf("no go.mod above %s to locate ../shared/data (set HINGE_DATA)", wd)
	}
	d := filepath.Clean(filepath.Join(root, "..", "shared", "data"))
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return "", fmt.Errorf("shared data directory %s not found (set HINGE_DATA)", d)
	}
	return d, nil
}

// Require returns the path of elem (joined) inside the shared data
// directory, skipping the test or benchmark with a clear message when the
// directory or that path is absent.
func Require(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := Dir()
	if err != nil {
		tb.Skipf("shared data not available: %v", err)
	}
	p := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data not available: %v (set HINGE_DATA to the shared data directory)", err)
	}
	return p
}
