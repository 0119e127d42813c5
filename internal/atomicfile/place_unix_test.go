//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPlaceLockExcludes: a second holder of the placement lock waits until
// the first releases it (two runs writing the same files put their sets
// in place one after the other: 12 of 100 racing pairs had mixed them);
// an interrupt ends the wait with errPlaceInterrupted (Ctrl-C was ignored
// there, and the run then wrote its files under exit 0); the lock file is
// readable by every user whatever the umask.
func TestPlaceLockExcludes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	unlock, err := placeLock()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "hinge-place.lock")); err != nil || st.Mode().Perm() != 0o666 {
		t.Errorf("the lock file: %v, %v; want mode 0666", st, err)
	}
	got := make(chan error)
	go func() {
		u, err := placeLock()
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case <-got:
		t.Fatal("the lock was taken twice")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not passed on")
	}

	unlock, err = placeLock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	done := make(chan struct{})
	defer SetInterrupt(done)()
	go func() {
		_, err := placeLock()
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	close(done)
	select {
	case err := <-got:
		if !errors.Is(err, errPlaceInterrupted) {
			t.Errorf("interrupted while waiting: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an interrupt did not end the wait")
	}
}

// TestModesAndOwners: a new output gets what the umask leaves of 0666 (a
// umask of 077 had results written 0644), a replaced file keeps its mode
// and (where the process may give it: as root) its owner, a replaced
// output directory keeps its mode (a private 0700 one became 0755), and a
// read-only output is refused (for a user other than root, whom no mode
// stops).
func TestModesAndOwners(t *testing.T) {
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	if newFilePerm != os.FileMode(0o666&^mask) || newDirPerm != os.FileMode(0o777&^mask) {
		t.Errorf("new file %v, directory %v; the umask %03o leaves %v and %v", newFilePerm, newDirPerm, mask, os.FileMode(0o666&^mask), os.FileMode(0o777&^mask))
	}
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			t.Fatal(err)
		}
	}
	mode := func(path string) os.FileMode {
		t.Helper()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	fresh := filepath.Join(dir, "new.txt")
	write(fresh, "a")
	if m := mode(fresh); m != newFilePerm {
		t.Errorf("a new file is %v, want %v", m, newFilePerm)
	}
	priv := filepath.Join(dir, "private.txt")
	write(priv, "a")
	if err := os.Chmod(priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(priv, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	write(priv, "b")
	if m := mode(priv); m != 0o600 {
		t.Errorf("a replaced 0600 file is %v", m)
	}
	if st, _ := os.Stat(priv); os.Geteuid() == 0 && st.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Errorf("a file of user 65534 rewritten by root belongs to %d", st.Sys().(*syscall.Stat_t).Uid)
	}
	out := filepath.Join(dir, "out")
	fill := func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "A.txt"), nil, 0o644) }
	if err := WriteDir(out, fill); err != nil {
		t.Fatal(err)
	}
	if m := mode(out); m != newDirPerm {
		t.Errorf("a new output directory is %v, want %v", m, newDirPerm)
	}
	if err := os.Chmod(out, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(out, fill); err != nil {
		t.Fatal(err)
	}
	if m := mode(out); m != 0o700 {
		t.Errorf("a replaced 0700 output directory is %v", m)
	}
	ro := filepath.Join(dir, "ro.txt")
	write(ro, "a")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := Writable(ro); (err == nil) != (os.Geteuid() == 0) {
		t.Errorf("Writable of a 0444 file, euid %d: %v", os.Geteuid(), err)
	}
}

// TestReplacedKeepsFullModeAndOwner: a replaced output keeps its whole
// mode, setuid, setgid and sticky bits included (4755, 2640 and 1600
// report files came back 755, 640 and 600; a 2770 output directory 770),
// and, as root, a replaced output directory keeps its owner and group (it
// became root's, 0:0, and its user could no longer list it); the files in
// a setgid directory get its group, as the kernel gives them, and a new
// output directory in a setgid directory keeps the setgid bit the kernel
// gave it.
func TestReplacedKeepsFullModeAndOwner(t *testing.T) {
	root := os.Geteuid() == 0
	stat := func(path string) (os.FileMode, uint32, uint32) {
		t.Helper()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		s := st.Sys().(*syscall.Stat_t)
		return st.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky), s.Uid, s.Gid
	}
	const uid, gid = 1234, 5678
	for _, tc := range []struct {
		name  string
		dir   bool
		mode  os.FileMode
		chown bool // give it to uid:gid first (root only)
	}{
		{"file 0640", false, 0o640, false},
		{"file 4755", false, 0o755 | os.ModeSetuid, false},
		{"file 2640", false, 0o640 | os.ModeSetgid, false},
		{"file 1600", false, 0o600 | os.ModeSticky, false},
		{"file 2640 of another user", false, 0o640 | os.ModeSetgid, true},
		{"directory 0700", true, 0o700, false},
		{"directory 2770", true, 0o770 | os.ModeSetgid, false},
		{"directory 2770 of another user", true, 0o770 | os.ModeSetgid, true},
		{"directory 1777", true, 0o777 | os.ModeSticky, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.chown && !root {
				t.Skip("giving a file to another user needs root")
			}
			path := filepath.Join(t.TempDir(), "out")
			write := func() {
				t.Helper()
				var err error
				if tc.dir {
					err = WriteDir(path, writeFiles("A.txt"))
				} else {
					err = Write(path, text("x"))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			write()
			if tc.chown {
				if err := os.Chown(path, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			wantMode, wantUID, wantGID := stat(path)
			if wantMode != tc.mode {
				t.Skipf("the file system gives mode %v for %v", wantMode, tc.mode)
			}
			write()
			if m, u, g := stat(path); m != wantMode || u != wantUID || g != wantGID {
				t.Errorf("replaced: mode %v, owner %d:%d; want %v, %d:%d", m, u, g, wantMode, wantUID, wantGID)
			}
			if tc.dir && tc.mode&os.ModeSetgid != 0 {
				if _, _, g := stat(filepath.Join(path, "A.txt")); g != wantGID {
					t.Errorf("a file in the setgid directory has group %d, want the directory's %d", g, wantGID)
				}
			}
		})
	}
	t.Run("new directory in a setgid one", func(t *testing.T) {
		parent := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(parent, 0o775|os.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		if m, _, _ := stat(parent); m&os.ModeSetgid == 0 {
			t.Skip("the file system does not keep the setgid bit")
		}
		out := filepath.Join(parent, "out")
		if err := WriteDir(out, writeFiles("A.txt")); err != nil {
			t.Fatal(err)
		}
		if m, _, _ := stat(out); m&os.ModeSetgid == 0 {
			t.Errorf("a new output directory in a setgid directory is %v, without the setgid bit mkdir gives it", m)
		}
	})
}
