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
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// File is a file being written to a temporary file beside its path: Commit
// puts it in place, Abort removes it. It serves output produced over a
// long run (written as it comes, put in place only once the run
// succeeded); Write is the short form.
type File struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	done bool
}

// Create starts writing path: nothing is visible at path until Commit.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &File{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Write writes to the temporary file.
func (f *File) Write(b []byte) (int, error) { return f.bw.Write(b) }

// Commit flushes, syncs and closes the temporary file and renames it over
// the path; if any of that fails, the path is left untouched and the
// temporary file removed.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("writing %s: already committed or aborted", f.path)
	}
	if err := f.commit(); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

func (f *File) commit() error {
	if err := f.bw.Flush(); err != nil {
		return err
	}
	if err := f.f.Sync(); err != nil {
		return err
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.f.Name(), f.path)
}

// Abort removes the temporary file, leaving the path untouched; after
// Commit it does nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}
