package atomicfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Marker names the file WriteDir leaves in every directory it writes. It
// lists the files of the set WriteDir wrote there, so that a later run
// knows which files are its own to replace and which are not.
const Marker = ".hinge-output"

// legacyMarker is the whole of the Marker an earlier hinge wrote, which
// listed no files.
const legacyMarker = "written by hinge; the directory is replaced as a whole by the next run\n"

// errForeignMarker: a file named Marker that neither this hinge nor an
// earlier one wrote.
var errForeignMarker = errors.New("a " + Marker + " that hinge did not write")

// markerHeader is the first line of a Marker; the names of the files
// follow, one a line, quoted as Go strings.
const markerHeader = "hinge output directory: the next run replaces it only if it holds nothing but the files listed below"

// ForeignError is the refusal of a directory that holds something hinge
// did not write there: replacing it would lose that.
type ForeignError struct {
	Dir string
	// Foreign names the entries that are not hinge's, sorted; at most a
	// few are kept, Count says how many there are.
	Foreign []string
	Count   int
	// NoMarker: the directory has no Marker at all, or (ForeignMarker) a
	// file of that name that hinge did not write. Legacy: its Marker
	// was written by an earlier hinge, which did not list its files, so
	// none of them can be told from a file someone else put there.
	NoMarker, ForeignMarker, Legacy bool
}

// maxForeign is how many foreign names a ForeignError keeps.
const maxForeign = 3

func (e *ForeignError) Error() string {
	names := make([]string, len(e.Foreign))
	for i, n := range e.Foreign {
		names[i] = strconv.Quote(n)
	}
	list := strings.Join(names, ", ")
	if e.Count > len(e.Foreign) {
		list += fmt.Sprintf(" and %d more", e.Count-len(e.Foreign))
	}
	switch {
	case e.Legacy:
		return fmt.Sprintf("output directory %s was written by an earlier version of hinge, whose %s marker does not list the files it wrote, so they cannot be told from files added since (%s): remove the directory or give a new one, so that replacing it loses nothing", e.Dir, Marker, list)
	case e.ForeignMarker:
		return fmt.Sprintf("output directory %s holds files hinge did not write (%s; its %s is not a marker hinge wrote): give an empty or new directory, so that replacing it loses nothing", e.Dir, list, Marker)
	case e.NoMarker:
		return fmt.Sprintf("output directory %s holds files hinge did not write (%s; it has no %s marker): give an empty or new directory, so that replacing it loses nothing", e.Dir, list, Marker)
	}
	return fmt.Sprintf("output directory %s holds files hinge did not write (%s, not listed in its %s marker): move them away or give another directory, so that replacing it loses nothing", e.Dir, list, Marker)
}

// WriteDir makes dir hold exactly the files fill writes into the directory
// it is given, as one set: fill writes regular files (no subdirectories)
// into a fresh sibling directory, which gets a Marker listing them and is
// renamed over dir only when fill succeeded (the old dir is renamed aside
// first and removed after), so a reader sees the old set or the new one,
// never a mixture, and a file of the old set that the new run does not
// write does not survive. dir.lock keeps two runs from writing dir at once:
// a second run fails with a message naming the first one's process.
//
// Only what hinge wrote is ever replaced: dir must not exist, be empty, or
// hold nothing but its Marker and the files that Marker lists (see
// CheckDir, which a caller runs before long work; WriteDir runs it again
// under the lock, as the directory may have changed since). Anything else
// in dir refuses the run with a *ForeignError, and dir is left as it was.
//
// dir is made absolute first, so that the lock and the sibling directory
// are beside it for any spelling of it ("." or "out/" or ".."), never
// inside it; messages name dir as given.
//
// A symlink naming dir is left in place and the directory it points to is
// replaced (or created, when the link dangles), as Write does for a file.
//
// A run that takes the lock early (LockDir), so that a second run is
// refused at its start rather than at its end, keeps it here: WriteDir
// does not lock again then. That holds for every caller in the process
// while the lock is held: two goroutines of one process that write one
// directory must not rely on WriteDir to keep them apart.
func WriteDir(dir string, fill func(tmp string) error) (err error) {
	b := current()
	defer func() {
		if err != nil && b != nil {
			b.Fail() // the run's other outputs are not put in place either
		}
	}()
	name := dir
	if dir, err = resolveDir(dir); err != nil {
		return err
	}
	if _, mine := held.Load(dir + ".lock"); !mine {
		unlock, err := lock(dir + ".lock")
		if err != nil {
			return err
		}
		if b != nil {
			defer b.later(unlock) // held until the batch's outputs are in place
		} else {
			defer unlock()
		}
	}
	if err := checkDir(dir, name); err != nil {
		return err
	}
	tmp, err := tempFor(dir, "-", func(pattern string) (string, error) { return os.MkdirTemp(filepath.Dir(dir), pattern) })
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	// The new set keeps the old directory's mode (a private 0700 one
	// became 0755; a setgid 2770 one 0770) and, where the process may give
	// them (as root), its owner and group (root's run gave a user's
	// directory to root), set before fill so that the files fill creates
	// get the group a setgid directory gives them, as the kernel would
	// have. A new one gets what the umask leaves of 0777, and the setgid
	// bit the kernel gave it in a setgid parent.
	perm := newDirPerm
	if st, err := os.Stat(dir); err == nil {
		perm = keptMode(st)
		keepOwner(tmp, st)
	} else if st, err := os.Stat(tmp); err == nil {
		perm |= st.Mode() & os.ModeSetgid
	}
	if err = os.Chmod(tmp, perm); err != nil {
		return err
	}
	direct.Add(1) // the files fill writes are in the set before it is listed
	err = fill(tmp)
	direct.Add(-1)
	if err != nil {
		return err
	}
	written, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	var list bytes.Buffer
	list.WriteString(markerHeader + "\n")
	for _, e := range written {
		if e.Name() == Marker || !e.Type().IsRegular() {
			return fmt.Errorf("output directory: %s is not a file hinge may write there", strconv.Quote(e.Name()))
		}
		list.WriteString(strconv.Quote(e.Name()) + "\n")
	}
	if err = os.WriteFile(filepath.Join(tmp, Marker), list.Bytes(), 0o644); err != nil {
		return err
	}
	if b != nil {
		return b.stage(stageFile, func() error { return replaceDir(dir, name, tmp) }, func() { os.RemoveAll(tmp) }, name)
	}
	return replaceDir(dir, name, tmp)
}

// replaceDir puts tmp, a complete new set, in dir's place (named name in
// messages), removing the old set; on failure the old set stays (or is
// put back) and tmp is removed.
func replaceDir(dir, name, tmp string) (err error) {
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if _, statErr := os.Lstat(dir); statErr == nil {
		old := tmp + ".old"
		if err = os.Rename(dir, old); err != nil {
			return fmt.Errorf("output directory: %w", err)
		}
		// Checked again once the old set is aside, where nothing adds to
		// it: a file put into dir while fill ran would be lost with it.
		if err = checkDir(old, name); err != nil {
			if rerr := os.Rename(old, dir); rerr != nil {
				return fmt.Errorf("%w; and putting it back failed, it is at %s: %v", err, old, rerr)
			}
			return err
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

// resolveDir is the directory WriteDir writes for dir: absolute, symlinks
// followed (Resolve), not the root directory and not a file.
func resolveDir(dir string) (string, error) {
	t, err := Resolve(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("output directory %s: %w", dir, err)
	case t.Exists && !t.Dir:
		return "", fmt.Errorf("output directory %s is a file", dir)
	case filepath.Dir(t.Path) == t.Path:
		return "", fmt.Errorf("output directory %s is the root directory, which cannot be replaced", dir)
	case t.Exists && IsMountPoint(t.Path):
		return "", fmt.Errorf("output directory %s is a mount point (a volume, a bind mount): hinge replaces an output directory whole, by renaming, which a mount point does not allow; give a directory inside it", dir)
	}
	return t.Path, nil
}

// IsMountPoint reports whether path (absolute, symlinks followed) is where
// a file system or a bind-mounted file is mounted: listed as a mount point
// in /proc/self/mountinfo, which names bind mounts too, or, where that
// cannot be read, on another device than its parent. Renaming cannot
// replace such a path.
func IsMountPoint(path string) bool {
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 4 && unescapeMount(f[4]) == path {
				return true
			}
		}
		return false
	}
	return otherDevice(path)
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, \011,
// \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// held lists the lock files this process holds through LockDir.
var held sync.Map

// LockDir takes the lock that WriteDir takes for dir (DIR.lock beside the
// directory, symlinks followed), for a whole run: a second run that would
// write dir, in this process or another, is refused from then on, naming
// this one's process, and WriteDir in this run does not lock again.
// unlock releases it.
func LockDir(dir string) (unlock func(), err error) {
	if dir, err = resolveDir(dir); err != nil {
		return nil, err
	}
	path := dir + ".lock"
	release, err := lock(path)
	if err != nil {
		return nil, err
	}
	held.Store(path, true)
	unlockNow := func() {
		held.Delete(path)
		release()
	}
	if b := current(); b != nil {
		// Held until the batch's outputs are in place.
		return func() { b.later(unlockNow) }, nil
	}
	return unlockNow, nil
}

// CheckDir reports whether WriteDir may replace dir: it does not exist, is
// an empty directory, or holds its Marker and only the regular files that
// Marker lists. Otherwise the error is a *ForeignError naming what is not
// hinge's (a directory whose Marker an earlier version of hinge wrote,
// without a list, is refused too: its files cannot be told from others),
// or says that dir is not a directory or cannot be read.
func CheckDir(dir string) error {
	path, err := resolveDir(dir)
	if err != nil {
		return err
	}
	return checkDir(path, dir)
}

// checkDir is CheckDir naming the directory name in its messages.
func checkDir(dir, name string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	case !st.IsDir():
		return fmt.Errorf("output directory %s is a file", name)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	listed, legacy, err := readMarker(filepath.Join(dir, Marker))
	noMarker := errors.Is(err, os.ErrNotExist)
	foreignMarker := errors.Is(err, errForeignMarker)
	if err != nil && !noMarker && !foreignMarker {
		return fmt.Errorf("output directory %s: %w", name, err)
	}
	// A file named like the marker that hinge did not write is the
	// user's, as is everything beside it.
	fe := &ForeignError{Dir: name, NoMarker: noMarker || foreignMarker, ForeignMarker: foreignMarker, Legacy: legacy}
	for _, e := range entries {
		name := e.Name()
		if name == Marker && e.Type().IsRegular() && !foreignMarker {
			continue
		}
		if !legacy && !noMarker && e.Type().IsRegular() && slices.Contains(listed, name) {
			continue
		}
		if fe.Count++; len(fe.Foreign) < maxForeign {
			fe.Foreign = append(fe.Foreign, name)
		}
	}
	if fe.Count > 0 {
		return fe
	}
	return nil
}

// readMarker returns the names a Marker lists; legacy says it is an
// earlier hinge's marker, which lists nothing.
func readMarker(path string) (names []string, legacy bool, err error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("its %s marker is not a regular file", Marker)
	}
	if st.Size() > 1<<24 {
		return nil, false, fmt.Errorf("its %s marker is %d bytes, more than hinge writes", Marker, st.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	if !sc.Scan() || sc.Text() != markerHeader {
		if string(b) == legacyMarker {
			return nil, true, nil
		}
		return nil, false, errForeignMarker
	}
	for line := 2; sc.Scan(); line++ {
		name, err := strconv.Unquote(sc.Text())
		if err != nil {
			return nil, false, fmt.Errorf("%s:%d: not a quoted file name: %s", Marker, line, strconv.Quote(sc.Text()))
		}
		names = append(names, name)
	}
	return names, false, sc.Err()
}

// lock takes path as a lock file holding this process's id; a lock whose
// process is gone is taken over. A file there that holds no process id is
// not hinge's lock and is refused, never removed; and the lock is removed
// at the end only while it still holds this process's id.
func lock(path string) (func(), error) {
	mine := strconv.Itoa(os.Getpid()) + "\n"
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_, werr := f.WriteString(mine)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("locking the output directory: %w", werr)
			}
			return func() {
				if b, err := os.ReadFile(path); err == nil && string(b) == mine {
					os.Remove(path)
				}
			}, nil
		}
		if errors.Is(err, syscall.ENAMETOOLONG) {
			return nil, fmt.Errorf("locking the output directory: its lock file %s beside it would have a name longer than the file system takes (the directory's name plus \".lock\"): give the directory a shorter name", strconv.Quote(filepath.Base(path)))
		}
		if !errors.Is(err, os.ErrExist) || attempt > 0 {
			return nil, fmt.Errorf("locking the output directory: %w", err)
		}
		b, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		switch {
		case perr != nil:
			return nil, fmt.Errorf("%s exists and is not a hinge lock (it holds no process id): move it away, hinge uses that name to lock the output directory", path)
		case ProcessAlive(pid):
			return nil, fmt.Errorf("another hinge run (process %d) is writing this output directory (%s exists); wait for it, or remove the lock if that process is gone", pid, path)
		}
		os.Remove(path) // stale: its process is gone
	}
}

// ProcessAlive reports whether a process with this id exists (a lock's
// holder, a parent hinge watches).
func ProcessAlive(pid int) bool {
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
