// Package atomicfile writes files so that a reader never sees a half-written
// one: the content goes to a temporary file in the same directory, which is
// synced and renamed over the target only when writing succeeded.
//
// A path is followed to what it names first (Resolve): a symlink is left in
// place and the file it points to is written (replaced, or created when the
// link dangles); a device, FIFO or socket (/dev/null, a named pipe) and a
// descriptor of the process (/dev/stdout) are written through, never
// replaced, with nothing written there when the content fails.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fill writes. If fill or any file
// operation fails, path is left untouched and the temporary file removed.
// path is followed to what it names (see the package documentation): a
// symlink's target is replaced, not the symlink, and a device, FIFO or
// descriptor is written through.
func Write(path string, fill func(w io.Writer) error) error {
	t, err := Resolve(path)
	switch {
	case err != nil:
	case t.Dir:
		err = errors.New("it is a directory")
	case t.Through():
		err = writeThrough(t, fill)
	default:
		err = write(t.Path, fill)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// write replaces the regular file path (or creates it) through a
// temporary file beside it. A file that exists keeps its permissions.
func write(path string, fill func(w io.Writer) error) (err error) {
	perm := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = buffered(f, fill); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// buffered runs fill on a buffer in front of f and flushes it.
func buffered(f *os.File, fill func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fill(bw); err != nil {
		return err
	}
	return bw.Flush()
}
