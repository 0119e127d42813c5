package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// Resolve follows path's symlinks to the file a write reaches, as the
// kernel would: a symlink to a regular file, or a dangling one, resolves to
// the file it names (which Write then replaces or creates, leaving the
// symlink in place); a device, FIFO or socket is Special; /dev/stdout and
// the other names of this process's open descriptors give FD. ".." is taken
// after the symlinks before it, never by cleaning the path as text. A
// symlink that the kernel's protected_symlinks would not follow for this
// process (one in a sticky, world-writable directory such as /tmp, owned
// by neither this user nor the directory's owner) is refused: another user
// could otherwise point hinge's output at a file of this one's.
func Resolve(path string) (Target, error) {
	if path == "" {
		return Target{}, errors.New("empty path")
	}
	p := path
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return Target{}, err
		}
		p = wd + string(filepath.Separator) + p
	}
	for hops := 0; ; hops++ {
		if hops > maxHops {
			return Target{}, fmt.Errorf("%s: %w (a symlink loop)", path, syscall.ELOOP)
		}
		dir, base := split(p)
		if base == "." || base == ".." {
			// A directory named through "..": the kernel's walk, whole.
			r, err := filepath.EvalSymlinks(p)
			if err != nil {
				return Target{}, err
			}
			return Target{Path: r, FD: -1, Dir: true, Exists: true}, nil
		}
		// The directory part first, so that a relative link and ".." are
		// taken from where the link really is.
		rdir, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, os.ErrNotExist) {
			return Target{Path: filepath.Join(filepath.Clean(dir), base), FD: -1}, nil // its directory is missing: the caller says so
		}
		if err != nil {
			return Target{}, err
		}
		p = filepath.Join(rdir, base)
		if fd, ok := ownFD(rdir, base); ok {
			return Target{Path: p, FD: fd, Exists: true}, nil
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
			if err := mayFollow(p, st, rdir); err != nil {
				return Target{}, err
			}
			link, err := os.Readlink(p)
			if err != nil {
				return Target{}, err
			}
			if !filepath.IsAbs(link) {
				link = rdir + string(filepath.Separator) + link
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

// split cuts an absolute path, not cleaned, into its directory and its last
// element (trailing separators dropped: "out/" is "out").
func split(p string) (dir, base string) {
	sep := string(filepath.Separator)
	for len(p) > len(filepath.VolumeName(p))+1 && strings.HasSuffix(p, sep) {
		p = strings.TrimSuffix(p, sep)
	}
	i := strings.LastIndex(p, sep)
	if i <= len(filepath.VolumeName(p)) {
		return p[:i+1], p[i+1:]
	}
	return p[:i], p[i+1:]
}
