//go:build !unix

package atomicfile

import "os"

// ownFD: no descriptor table is named by a path here.
func ownFD(dir, name string) (int, bool) { return 0, false }

// mayFollow: no protected_symlinks here.
func mayFollow(path string, st os.FileInfo, dir string) error { return nil }

// openThrough opens a special file for writing.
func openThrough(t Target) (*os.File, error) { return os.OpenFile(t.Path, os.O_WRONLY, 0) }

// CheckThrough: a special file is written as it is opened.
func CheckThrough(t Target) error { return nil }

// otherDevice is false where devices are not compared.
func otherDevice(path string) bool { return false }

// placeLock: no placement lock here; a batch's files are placed unlocked.
func placeLock() (unlock func(), err error) { return func() {}, nil }

// newFilePerm and newDirPerm are the modes of a new output file and
// directory.
const newFilePerm, newDirPerm os.FileMode = 0o644, 0o755

// keepOwner: owners are not kept here.
func keepOwner(tmp string, prev os.FileInfo) {}

// Writable: not checked here; renaming over the file tells.
func Writable(path string) error { return nil }
