package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Marker names the file WriteDir leaves in every directory it writes, so
// that a later run knows the directory is its own to replace.
const Marker = ".hinge-output"

// WriteDir makes dir hold exactly the files fill writes into the directory
// it is given, as one set: fill writes into a fresh sibling directory, which
// is renamed over dir only when fill succeeded (the old dir is renamed
// aside first and removed after), so a reader sees the old set or the new
// one, never a mixture, and a file of the old set that the new run does not
// write does not survive. dir.lock keeps two runs from writing dir at once:
// a second run fails with a message naming the first one's process. A
// directory that exists, is not empty and was not written by WriteDir (it
// has no Marker file) is refused rather than replaced.
func WriteDir(dir string, fill func(tmp string) error) (err error) {
	dir = filepath.Clean(dir)
	unlock, err := lock(dir + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if err := replaceable(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err = fill(tmp); err != nil {
		return err
	}
	if err = os.WriteFile(filepath.Join(tmp, Marker), []byte("written by hinge; the directory is replaced as a whole by the next run\n"), 0o644); err != nil {
		return err
	}
	if _, statErr := os.Stat(dir); statErr == nil {
		old := tmp + ".old"
		if err = os.Rename(dir, old); err != nil {
			return fmt.Errorf("output directory: %w", err)
		}
		if err = os.Rename(tmp, dir); err != nil {
			os.Rename(old, dir) // put the old set back
			return fmt.Errorf("output directory: %w", err)
		}
		return os.RemoveAll(old)
	}
	if err = os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}

// replaceable reports whether dir may be replaced: it does not exist, is an
// empty directory, or holds WriteDir's Marker.
func replaceable(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	case !st.IsDir():
		return fmt.Errorf("output directory %s is a file", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, Marker)); err == nil {
		return nil
	}
	return fmt.Errorf("output directory %s holds files hinge did not write (no %s): give an empty or new directory, so that replacing it loses nothing", dir, Marker)
}

// lock takes path as a lock file holding this process's id; a lock whose
// process is gone is taken over.
func lock(path string) (func(), error) {
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) || attempt > 0 {
			return nil, fmt.Errorf("locking the output directory: %w", err)
		}
		b, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr == nil && alive(pid) {
			return nil, fmt.Errorf("another hinge run (process %d) is writing this output directory (%s exists); wait for it, or remove the lock if that process is gone", pid, path)
		}
		os.Remove(path) // stale: its process is gone
	}
}

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
