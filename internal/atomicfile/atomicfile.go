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
	"sync/atomic"
)

// interrupt holds the channel whose closing ends a wait for a FIFO's
// reader (SetInterrupt); nil: none.
var interrupt atomic.Pointer[<-chan struct{}]

// SetInterrupt makes the closing of done (a run's context's Done) end any
// wait of a write through a FIFO for its reader, with an error, and
// returns a function that restores the channel set before. Without it
// such a wait lasts until a reader comes.
func SetInterrupt(done <-chan struct{}) (restore func()) {
	old := interrupt.Swap(&done)
	return func() { interrupt.Store(old) }
}

// interruptChan is the channel SetInterrupt set (nil, never ready, when
// none).
func interruptChan() <-chan struct{} {
	if p := interrupt.Load(); p != nil {
		return *p
	}
	return nil
}

// Write creates or replaces path with what fill writes. If fill or any file
// operation fails, path is left untouched and the temporary file removed.
// path is followed to what it names (see the package documentation): a
// symlink's target is replaced, not the symlink, and a device, FIFO or
// descriptor is written through.
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

// File is output being written to a temporary file: Commit puts it in
// place, Abort removes it. It serves output produced over a long run
// (written as it comes, put in place only once the run succeeded); Write
// is the short form. For a regular file the temporary file lies beside
// the resolved path and Commit renames it there; for a device, FIFO or
// descriptor it lies in the system's temporary directory and Commit
// copies it through.
type File struct {
	// batch is the batch active when the file was created (nil: none),
	// which Commit stages it in and Abort fails.
	batch  *Batch
	path   string // as the caller named it, for messages
	target Target
	perm   os.FileMode
	prev   os.FileInfo // the file replaced, nil when new: its owner is kept
	f      *os.File
	bw     *bufio.Writer
	done   bool
}

// Create starts writing path: nothing is visible at path until Commit.
func Create(path string) (*File, error) {
	b := current()
	f, err := create(path)
	if err != nil {
		if b != nil {
			b.Fail() // an output that cannot even be started fails the run's batch
		}
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	f.batch = b
	return f, nil
}

func create(path string) (*File, error) {
	t, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	if t.Dir {
		return nil, errors.New("it is a directory")
	}
	// A new file gets the mode the umask leaves of 0666, as a shell's
	// redirection would; a replaced one keeps its mode and owner.
	out := &File{path: path, target: t, perm: newFilePerm}
	var tmp *os.File
	if t.Through() {
		tmp, err = os.CreateTemp("", "hinge-output-*")
	} else {
		if st, err := os.Stat(t.Path); err == nil {
			out.perm, out.prev = st.Mode().Perm(), st
		}
		tmp, err = os.CreateTemp(filepath.Dir(t.Path), "."+filepath.Base(t.Path)+".tmp*")
	}
	if err != nil {
		return nil, err
	}
	out.f = tmp
	out.bw = bufio.NewWriterSize(tmp, 1<<16)
	return out, nil
}

// Write writes to the temporary file.
func (f *File) Write(b []byte) (int, error) { return f.bw.Write(b) }

// Commit flushes the temporary file and puts it in place: renamed over a
// regular file, copied through a device, FIFO or descriptor. The temporary
// file is removed either way. A regular file is left untouched when any of
// that fails; a device or descriptor may have received part of the
// content when the copy fails part-way (a closed pipe).
//
// While a Batch is active, Commit finishes the temporary file (a write
// that fails fails here) and leaves it for the batch's End to put in
// place with the run's other outputs.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("writing %s: already committed or aborted", f.path)
	}
	if b := f.batch; b != nil {
		if err := f.finish(); err != nil {
			f.Abort()
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
		f.done = true
		kind := stageFile
		if f.target.Through() {
			kind = stageThrough
		}
		return b.stage(kind, func() error {
			err := f.place()
			f.remove()
			if err != nil {
				return fmt.Errorf("writing %s: %w", f.path, err)
			}
			return nil
		}, f.remove, f.path)
	}
	err := f.finish()
	if err == nil {
		err = f.place()
	}
	f.Abort()
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// finish writes out what is buffered; a file to be renamed is synced,
// closed and given its mode.
func (f *File) finish() error {
	if err := f.bw.Flush(); err != nil {
		return err
	}
	if f.target.Through() {
		return nil
	}
	if err := f.f.Sync(); err != nil {
		return err
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	keepOwner(f.f.Name(), f.prev)
	return os.Chmod(f.f.Name(), f.perm)
}

// place puts the finished temporary file in place: renamed over a regular
// file, copied through a device, FIFO or descriptor.
func (f *File) place() error {
	if f.target.Through() {
		if _, err := f.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		out, err := openThrough(f.target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, f.f); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	if err := os.Rename(f.f.Name(), f.target.Path); err != nil {
		return err
	}
	f.f = nil // renamed: nothing left to remove
	return nil
}

// Abort removes the temporary file, leaving the path untouched; after
// Commit it does nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.batch != nil {
		f.batch.Fail() // an output of the run failed or was given up: none is put in place
	}
	f.remove()
}

// remove removes the temporary file, if there is one still.
func (f *File) remove() {
	if f.f != nil {
		f.f.Close()
		os.Remove(f.f.Name())
		f.f = nil
	}
}
