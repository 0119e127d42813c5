//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownFD reports whether dir/name is the entry of this process's
// descriptor table (/proc/PID/fd/N or /proc/PID/task/TID/fd/N, which
// /dev/fd and /proc/self/fd resolve to) and which descriptor it names.
func ownFD(dir, name string) (int, bool) {
	rest, ok := strings.CutPrefix(dir, "/proc/")
	if !ok {
		return 0, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 2 && !(len(parts) == 4 && parts[1] == "task") {
		return 0, false
	}
	if parts[len(parts)-1] != "fd" || parts[0] != strconv.Itoa(os.Getpid()) {
		return 0, false
	}
	fd, err := strconv.Atoi(name)
	if err != nil || fd < 0 {
		return 0, false
	}
	return fd, true
}

// mayFollow refuses to follow the symlink at path (st its Lstat, dir its
// directory) where the kernel's protected_symlinks would: in a sticky,
// world-writable directory, a link owned by neither this process's user
// nor the directory's owner.
func mayFollow(path string, st os.FileInfo, dir string) error {
	ds, err := os.Stat(dir)
	if err != nil {
		return err
	}
	dm := ds.Mode()
	if dm&os.ModeSticky == 0 || dm.Perm()&0o002 == 0 {
		return nil
	}
	ls, ok1 := st.Sys().(*syscall.Stat_t)
	dst, ok2 := ds.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || ls.Uid == uint32(os.Geteuid()) || ls.Uid == dst.Uid {
		return nil
	}
	return fmt.Errorf("%s is a symlink of another user (uid %d) in a sticky, world-writable directory: hinge does not follow it, as the kernel's protected_symlinks does not (give the file it names instead)", path, ls.Uid)
}

// openThrough opens t, a descriptor or a special file, for writing: a
// descriptor through a copy of it, closed after (the descriptor itself,
// standard output say, stays open, with its offset and mode, append for a
// file opened with >>, as the caller has them).
func openThrough(t Target) (*os.File, error) {
	if t.FD < 0 {
		if st, err := os.Stat(t.Path); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			return openFIFO(t.Path)
		}
		return os.OpenFile(t.Path, os.O_WRONLY, 0)
	}
	fd, err := syscall.Dup(t.FD)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", t.FD, err)
	}
	return os.NewFile(uintptr(fd), t.Path), nil
}

// openFIFO opens a FIFO for writing once a reader has it open, without
// blocking in the kernel (an open for writing with no reader would, and
// no signal would end the wait): it tries without blocking every 50 ms
// until a reader comes or the interrupt channel (SetInterrupt) closes.
func openFIFO(path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			// Writes block again, as for any FIFO: the reader sets the pace.
			if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		select {
		case <-interruptChan():
			return nil, errors.New("interrupted while waiting for a reader of the FIFO")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// CheckThrough reports whether t, a descriptor or a special file, can take
// a write, before any work: a special file this user may write; a
// descriptor open for writing that the process inherited (Go opens its own,
// and the connections hinge makes, close-on-exec; a descriptor of those is
// not an output).
func CheckThrough(t Target) error {
	if t.FD < 0 {
		if err := syscall.Access(t.Path, 2 /* W_OK */); err != nil {
			return fmt.Errorf("cannot write to %s (%w)", t.Path, err)
		}
		return nil
	}
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(t.FD), syscall.F_GETFL, 0)
	if errno != 0 {
		return fmt.Errorf("descriptor %d is not open (%w)", t.FD, errno)
	}
	if fl&syscall.O_ACCMODE == syscall.O_RDONLY {
		return fmt.Errorf("descriptor %d is open for reading only", t.FD)
	}
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(t.FD), syscall.F_GETFD, 0)
	if errno == 0 && fd&syscall.FD_CLOEXEC != 0 {
		return fmt.Errorf("descriptor %d is one of hinge's own, not an output given to it", t.FD)
	}
	return nil
}

// otherDevice reports whether path is on another device than its parent
// directory (a mount point of another file system).
func otherDevice(path string) bool {
	a, err1 := os.Stat(path)
	b, err2 := os.Stat(filepath.Dir(path))
	if err1 != nil || err2 != nil {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev != sb.Dev
}

// placeLock takes the machine's placement lock (an flock on
// hinge-place.lock in the temporary directory, shared by every user: made
// readable by all, and opened without O_CREAT when it exists, which a
// sticky /tmp's protected_regular refuses for another user's file): a
// batch puts its files in place while holding it, so that two runs writing
// the same files leave one run's set, not some files of each. It is held
// for the renames alone. While it waits, an interrupt (SetInterrupt)
// returns errPlaceInterrupted; a lock held longer than placeWait (a run
// stopped with Ctrl-Z inside its renames) is given up, as is a lock file
// that cannot be opened: the files are then placed unlocked.
func placeLock() (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), "hinge-place.lock")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o666); err == nil {
			f.Chmod(0o666) // whatever the umask: every user takes it
		} else if errors.Is(err, os.ErrExist) {
			f, err = os.Open(path)
		}
	}
	if err != nil {
		return func() {}, nil
	}
	deadline := time.Now().Add(placeWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		case !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR), time.Now().After(deadline):
			f.Close()
			return func() {}, nil
		}
		select {
		case <-interruptChan():
			f.Close()
			return nil, errPlaceInterrupted
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// placeWait is how long placeLock waits for another run's renames.
const placeWait = 30 * time.Second

// newFilePerm and newDirPerm are the modes of a new output file and
// directory: 0666 and 0777 less the process's umask, as a shell's
// redirection and mkdir give (a umask of 077 had results written 0644).
var newFilePerm, newDirPerm = func() (os.FileMode, os.FileMode) {
	mask := syscall.Umask(0) // read it: set it back at once, at start-up
	syscall.Umask(mask)
	return os.FileMode(0o666 &^ mask), os.FileMode(0o777 &^ mask)
}()

// keepOwner gives the temporary file or directory tmp the owner and group
// of prev, the one it replaces, where this process may (root may give
// any; a user may give a group of theirs): a file of another user that
// root rewrote became root's, and its owner could no longer read it.
// Best effort.
func keepOwner(tmp string, prev os.FileInfo) {
	if prev == nil {
		return
	}
	st, ok := prev.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	// Compared with what tmp has, not with this process's ids: in a
	// setgid directory tmp has the directory's group.
	if cur, err := os.Lstat(tmp); err == nil {
		if ct, ok := cur.Sys().(*syscall.Stat_t); ok && ct.Uid == st.Uid && ct.Gid == st.Gid {
			return
		}
	}
	if os.Chown(tmp, int(st.Uid), int(st.Gid)) != nil {
		os.Chown(tmp, -1, int(st.Gid)) // not root: the group, if one of ours
	}
}

// Writable reports, for an existing output, whether this process may
// write it: a file made read-only (mode 444) is the usual way to say "do
// not overwrite", which renaming over it would ignore. A file that only
// takes appends (chattr +a), or another user's file in a sticky directory
// such as /tmp, can be written but not replaced by a rename: refused here,
// before the run, where the rename failed once the work was done.
func Writable(path string) error {
	if err := syscall.Access(path, 2 /* W_OK */); err != nil {
		return fmt.Errorf("it is read-only to this user (%w): make it writable to replace it, or give another path", err)
	}
	if appendOnly(path) {
		return errors.New("it is append-only or immutable (chattr +a or +i), and hinge replaces an output by renaming, which that forbids: clear the attribute (chattr -a) or give another path")
	}
	st, err1 := os.Lstat(path)
	dir, err2 := os.Stat(filepath.Dir(path))
	if err1 != nil || err2 != nil {
		return nil
	}
	fs, ok1 := st.Sys().(*syscall.Stat_t)
	ds, ok2 := dir.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return nil
	}
	return stickyReplace(int(fs.Uid), int(ds.Uid), os.Geteuid(), dir.Mode()&os.ModeSticky != 0)
}

// stickyReplace refuses to replace a file of user fileUID in a directory
// of user dirUID as user euid when the directory is sticky: the kernel
// lets only the file's or the directory's owner (or root) rename over it.
func stickyReplace(fileUID, dirUID, euid int, sticky bool) error {
	if !sticky || euid == 0 || fileUID == euid || dirUID == euid {
		return nil
	}
	return fmt.Errorf("it belongs to another user (uid %d) in a sticky directory (such as /tmp), where only its owner may replace it, which hinge does by renaming: give another path", fileUID)
}
