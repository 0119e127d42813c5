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
	"syscall"
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
	return write(path, fill, false)
}

// WriteNew is Write for a file that must not exist (CreateNew): an
// existing file is never replaced, one that appeared while the run went on
// included; the error is then an *AppearedError.
func WriteNew(path string, fill func(w io.Writer) error) error {
	return write(path, fill, true)
}

func write(path string, fill func(w io.Writer) error, noReplace bool) error {
	f, err := createFile(path, noReplace)
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
	// noReplace: put in place only where no file is (CreateNew).
	noReplace bool
	f         *os.File
	bw        *bufio.Writer
	done      bool
}

// Create starts writing path: nothing is visible at path until Commit.
func Create(path string) (*File, error) { return createFile(path, false) }

// CreateNew is Create for a file that must not exist when it is put in
// place: Commit never replaces a file there, one that appeared while the
// content was written (another run, a user) included. It then fails with
// an *AppearedError and leaves the content in its temporary file, named
// in the error. The check and the placing are one step (a hard link, which
// fails when the name exists), so that a file created just before it is
// kept too; where the file system has no hard links the check comes just
// before the rename.
func CreateNew(path string) (*File, error) { return createFile(path, true) }

func createFile(path string, noReplace bool) (*File, error) {
	b := current()
	f, err := create(path, noReplace)
	if err != nil {
		if b != nil {
			b.Fail() // an output that cannot even be started fails the run's batch
		}
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	f.batch = b
	return f, nil
}

func create(path string, noReplace bool) (*File, error) {
	t, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	if t.Dir {
		return nil, errors.New("it is a directory")
	}
	// A new file gets the mode the umask leaves of 0666, as a shell's
	// redirection would; a replaced one keeps its mode (setuid, setgid
	// and sticky bits too) and owner. A file that must be new replaces
	// nothing: what is there by the end is not its to copy.
	out := &File{path: path, target: t, perm: newFilePerm, noReplace: noReplace}
	var tmp *os.File
	if t.Through() {
		tmp, err = os.CreateTemp("", "hinge-output-*")
	} else {
		if st, err := os.Stat(t.Path); err == nil && !noReplace {
			out.perm, out.prev = keptMode(st), st
		}
		_, err = tempFor(t.Path, "", func(pattern string) (string, error) {
			f, err := os.CreateTemp(filepath.Dir(t.Path), pattern)
			tmp = f
			if err != nil {
				return "", err
			}
			return f.Name(), nil
		})
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
	if f.noReplace {
		return f.placeNew()
	}
	if err := os.Rename(f.f.Name(), f.target.Path); err != nil {
		return err
	}
	f.f = nil // renamed: nothing left to remove
	return nil
}

// AppearedError is the failure of a file that must be new (CreateNew,
// WriteNew) when a file is at its path by the time it is put in place:
// that file is left as it is, and the content written is kept in Kept.
type AppearedError struct {
	Path string // the path as the caller named it
	Kept string // the temporary file that holds the content written
}

func (e *AppearedError) Error() string {
	return fmt.Sprintf("%s appeared while the run went on (another run or a user wrote it) and was left as it is; this run's result was kept in %s: rename it over %s to use it instead", e.Path, e.Kept, e.Path)
}

// placeNew puts the finished temporary file at the target's path only if
// nothing is there: a hard link fails when the name exists, in the same
// step as it creates it (a rename would replace the file). On a file
// system without hard links the path is checked just before a rename.
// When a file is there, the temporary file is kept (an *AppearedError
// names it): the run's result is not thrown away.
func (f *File) placeNew() error {
	tmp := f.f.Name()
	err := os.Link(tmp, f.target.Path)
	if err != nil && !errors.Is(err, os.ErrExist) {
		// No hard links here (EPERM on FAT, ENOTSUP, EMLINK): check, rename.
		if _, serr := os.Lstat(f.target.Path); serr == nil {
			err = os.ErrExist
		} else if !errors.Is(serr, os.ErrNotExist) {
			return serr
		} else if err = os.Rename(tmp, f.target.Path); err == nil {
			f.f = nil
			return nil
		}
	}
	if errors.Is(err, os.ErrExist) {
		f.f = nil // kept: it holds the result
		return &AppearedError{Path: f.path, Kept: tmp}
	}
	if err != nil {
		return err
	}
	os.Remove(tmp) // linked: the file is in place under its name
	f.f = nil
	return nil
}

// keptMode is the part of a replaced file's mode that its replacement
// keeps: the permissions and the setuid, setgid and sticky bits (a
// setgid 2770 directory came back 0770, and lost its group's files).
func keptMode(st os.FileInfo) os.FileMode {
	return st.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
}

// nameMax is the longest file name most file systems take (NAME_MAX).
const nameMax = 255

// tempFor makes a temporary file or directory beside path by mk (which
// is given a pattern for os.CreateTemp or os.MkdirTemp and returns the
// name made): named ".BASE.tmp*" after path's last element, so that a
// leftover says what it was for, or ".hinge-tmp*" where that name, with
// the random digits (up to 10) and suffix (a further name made from it,
// such as ".old") added, would pass nameMax or the file system refuses it
// as too long: an output named near the limit (which a shell creates
// fine) failed only once the whole run was done.
func tempFor(path, suffix string, mk func(pattern string) (string, error)) (string, error) {
	long := "." + filepath.Base(path) + ".tmp" + suffix
	if len(long)+10+len(".old") <= nameMax {
		name, err := mk(long + "*")
		if !errors.Is(err, syscall.ENAMETOOLONG) {
			return name, err
		}
	}
	return mk(".hinge-tmp" + suffix + "*")
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
