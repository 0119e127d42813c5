package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Target is where a write to a path lands once symlinks are followed.
type Target struct {
	// Path is absolute, with every symlink followed: the file that is
	// written (or created, when a dangling symlink names it).
	Path string
	// FD is the descriptor of this process that the path names
	// (/dev/stdout, /dev/fd/N, /proc/self/fd/N), written through; -1 when
	// it names none.
	FD int
	// Special: Path is an existing file that is not a regular file or a
	// directory (a device such as /dev/null, a FIFO, a socket), which is
	// written through as it is, never replaced.
	Special bool
	// Dir: Path is an existing directory.
	Dir bool
	// Exists: Path exists (always, when FD >= 0 or Special or Dir).
	Exists bool
}

// Through reports whether a write reaches t by writing through an open
// file (a descriptor or a special file) rather than by replacing Path.
func (t Target) Through() bool { return t.FD >= 0 || t.Special }

// maxHops is how many symlinks Resolve follows before calling it a loop,
// as the kernel's own limit (40) does.
const maxHops = 40

// Resolve follows path's symlinks to the file a write reaches: a symlink
// to a regular file, or a dangling one, resolves to the file it names (which
// Write then replaces or creates, leaving the symlink in place); a device,
// FIFO or socket is Special; /dev/stdout and the other names of this
// process's open descriptors give FD.
func Resolve(path string) (Target, error) {
	if path == "" {
		return Target{}, errors.New("empty path")
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return Target{}, err
	}
	for hops := 0; ; hops++ {
		if hops > maxHops {
			return Target{}, fmt.Errorf("%s: %w (a symlink loop)", path, syscall.ELOOP)
		}
		// The directory part first, so that a relative link and ".." are
		// taken from where the link really is.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
			if fd, ok := ownFD(dir, filepath.Base(p)); ok {
				return Target{Path: p, FD: fd, Exists: true}, nil
			}
		}
		st, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return Target{Path: p, FD: -1}, nil
		}
		if err != nil {
			return Target{}, err
		}
		switch m := st.Mode(); {
		case m&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return Target{}, err
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(p), link)
			}
			p = link
		case m.IsRegular():
			return Target{Path: p, FD: -1, Exists: true}, nil
		case m.IsDir():
			return Target{Path: p, FD: -1, Dir: true, Exists: true}, nil
		default:
			return Target{Path: p, FD: -1, Special: true, Exists: true}, nil
		}
	}
}

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

// writeThrough writes what fill writes to t, a descriptor or a special
// file, as it is: fill writes into a temporary file first, so that a fill
// that fails writes nothing there at all, and the content is then copied
// through.
func writeThrough(t Target, fill func(w io.Writer) error) (err error) {
	buf, err := os.CreateTemp("", "hinge-output-*")
	if err != nil {
		return err
	}
	defer func() {
		buf.Close()
		os.Remove(buf.Name())
	}()
	if err := buffered(buf, fill); err != nil {
		return err
	}
	if _, err := buf.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var out *os.File
	if t.FD >= 0 {
		// A copy of the descriptor, closed after: the descriptor itself
		// (standard output, say) stays open, with its offset and mode
		// (append, for a file opened with >>) as the caller has them.
		fd, err := syscall.Dup(t.FD)
		if err != nil {
			return fmt.Errorf("descriptor %d: %w", t.FD, err)
		}
		out = os.NewFile(uintptr(fd), t.Path)
	} else if out, err = os.OpenFile(t.Path, os.O_WRONLY, 0); err != nil {
		return err
	}
	if _, err := io.Copy(out, buf); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
