// Package atomicfile writes files so that a reader never sees a half-written
// one: the content goes to a temporary file in the same directory, which is
// synced and renamed over the target only when writing succeeded.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fill writes. If fill or any file
// operation fails, path is left untouched and the temporary file removed.
func Write(path string, fill func(w io.Writer) error) error {
	if err := write(path, fill); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func write(path string, fill func(w io.Writer) error) (err error) {
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
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
