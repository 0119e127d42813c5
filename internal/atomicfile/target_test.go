//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/internal/devtest"
)

// text is a fill that writes s.
func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// failing is a fill that writes part of its content and fails.
func failing(w io.Writer) error {
	io.WriteString(w, "partial")
	return errors.New("boom")
}

// TestWriteFollowsSymlinks: a symlink named as the output stays a symlink
// and the file it points to gets the content (replaced, or created when the
// link dangles), through chains of links and relative links with "..".
func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target.txt")
	for _, tc := range []struct {
		name string
		link func() string // makes the link(s); returns the path given to Write
	}{
		{"to a file", func() string {
			os.WriteFile(target, []byte("old"), 0o644)
			return link(t, target, filepath.Join(dir, "l1"))
		}},
		{"dangling", func() string {
			os.Remove(target)
			return link(t, target, filepath.Join(dir, "l2"))
		}},
		{"chain", func() string {
			os.WriteFile(target, []byte("old"), 0o644)
			return link(t, link(t, target, filepath.Join(dir, "l3")), filepath.Join(dir, "l4"))
		}},
		{"relative with ..", func() string {
			os.WriteFile(target, []byte("old"), 0o644)
			return link(t, "../target.txt", filepath.Join(sub, "l5"))
		}},
		{"link to a directory in the path", func() string {
			os.WriteFile(filepath.Join(sub, "f.txt"), []byte("old"), 0o644)
			target = filepath.Join(sub, "f.txt")
			return filepath.Join(link(t, sub, filepath.Join(dir, "l6")), "f.txt")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.link()
			if err := Write(path, text("new")); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "new" {
				t.Errorf("target: %q, %v", b, err)
			}
			if st, err := os.Lstat(path); err != nil || (st.Mode()&os.ModeSymlink == 0 && !strings.HasSuffix(path, "f.txt")) {
				t.Errorf("the link was replaced: %v %v", st.Mode(), err)
			}
			if err := Write(path, failing); err == nil {
				t.Fatal("want the fill's error")
			}
			if b, _ := os.ReadFile(target); string(b) != "new" {
				t.Errorf("a failed write changed the target to %q", b)
			}
		})
	}
	// Nothing left beside the targets.
	for _, d := range []string{dir, sub} {
		for _, n := range names(t, d) {
			if strings.Contains(n, ".tmp") {
				t.Errorf("temporary file left in %s: %s", d, n)
			}
		}
	}
}

// link makes a symlink at name pointing to to and returns name.
func link(t *testing.T, to, name string) string {
	t.Helper()
	if err := os.Symlink(to, name); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestWriteSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	link(t, b, a)
	link(t, a, b)
	err := Write(a, text("x"))
	if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), "symlink loop") {
		t.Fatalf("error %v, want a symlink loop", err)
	}
}

// TestWriteThroughDevice: a device (through a symlink to it too) and a
// FIFO are written through and stay what they are. The device is a null
// device of the test's own (made when the test runs as root), so that a
// failure cannot replace the machine's /dev/null.
func TestWriteThroughDevice(t *testing.T) {
	dir := t.TempDir()
	if dev := devtest.NullDevice(t, dir); dev != "" {
		null := link(t, dev, filepath.Join(dir, "null"))
		if err := Write(null, text("discarded")); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("the device is now %v (%v)", st.Mode(), err)
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link is now %v (%v)", st.Mode(), err)
		}
	}
	if tg, err := Resolve("/dev/null"); err != nil || !tg.Special {
		t.Errorf("Resolve(/dev/null) = %+v, %v", tg, err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := readFIFO(fifo, 0)
	err := Write(fifo, text("through the pipe\n"))
	var s string
	select {
	case s = <-got:
	case <-time.After(10 * time.Second):
		// Nothing opened the FIFO: unblock the reader if it still
		// waits (a FIFO replaced by a file leaves it waiting).
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if s != "through the pipe\n" {
		t.Errorf("read %q from the FIFO", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", st.Mode(), err)
	}
}

// TestWriteFIFOWithoutReader: a write through a FIFO that no process
// reads waits for a reader without blocking in the kernel, so closing the
// SetInterrupt channel ends the wait with an error (it hung, and Ctrl-C
// could not stop it), and a reader that comes later gets the output.
func TestWriteFIFOWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan struct{})
	defer SetInterrupt(done)()
	time.AfterFunc(100*time.Millisecond, func() { close(done) })
	errc := make(chan error, 1)
	go func() { errc <- Write(fifo, text("never read\n")) }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "interrupted while waiting for a reader") {
			t.Errorf("interrupted write: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write still waits 10 s after the interrupt")
	}

	// A reader that opens the FIFO a little later gets the output.
	SetInterrupt(make(chan struct{}))
	got := readFIFO(fifo, 200*time.Millisecond)
	if err := Write(fifo, text("read late\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "read late\n" {
		t.Errorf("the late reader read %q", s)
	}
}

// TestWriteThroughDescriptor: /proc/self/fd/N, /dev/fd/N and a symlink to
// one write through this process's descriptor N (as /dev/stdout does), and
// a fill that fails writes nothing there.
func TestWriteThroughDescriptor(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := strconv.Itoa(int(w.Fd()))
	l := link(t, "/proc/self/fd/"+fd, filepath.Join(t.TempDir(), "out"))
	for _, p := range []string{"/proc/self/fd/" + fd, "/dev/fd/" + fd, l} {
		tg, err := Resolve(p)
		if err != nil || tg.FD != int(w.Fd()) {
			t.Fatalf("Resolve(%s) = %+v, %v", p, tg, err)
		}
		if err := Write(p, failing); err == nil {
			t.Fatal("want the fill's error")
		}
		if err := Write(p, text(p+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	w.Close() // the descriptor stays open through the writes until here
	b, _ := io.ReadAll(r)
	want := "/proc/self/fd/" + fd + "\n/dev/fd/" + fd + "\n" + l + "\n"
	if string(b) != want {
		t.Errorf("read %q, want %q", b, want)
	}
	if tg, err := Resolve("/dev/stdout"); err != nil || tg.FD != 1 {
		t.Errorf("Resolve(/dev/stdout) = %+v, %v", tg, err)
	}
}

func TestWriteKeepsPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, text("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

// TestWriteDirThroughSymlink: an output directory named by a symlink (to a
// directory, dangling, with a trailing slash) stays a symlink and the
// directory it names holds the set.
func TestWriteDirThroughSymlink(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link(t, real, filepath.Join(parent, "l")), filepath.Join(parent, "l") + "/"} {
		if err := WriteDir(p, writeFiles("A.txt")); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(filepath.Join(parent, "l")); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link is now %v (%v)", st.Mode(), err)
		}
		if got := names(t, real); len(got) != 2 || got[1] != "A.txt" {
			t.Errorf("%s: the directory holds %v", p, got)
		}
	}
	dangling := link(t, filepath.Join(parent, "new"), filepath.Join(parent, "d"))
	if err := WriteDir(dangling, writeFiles("B.txt")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, filepath.Join(parent, "new")); len(got) != 2 || got[1] != "B.txt" {
		t.Errorf("dangling link's directory holds %v", got)
	}
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the dangling link is now %v (%v)", st.Mode(), err)
	}
}

// TestLockDirForTheRun: a run that locks its output directory at its start
// refuses a second run from then on (not only during the final swap), and
// still writes the set itself.
func TestLockDirForTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); err == nil || !strings.Contains(err.Error(), "another hinge run") {
		t.Fatalf("second LockDir: %v, want a refusal", err)
	}
	if err := WriteDir(dir, writeFiles("A.txt")); err != nil {
		t.Fatalf("WriteDir under the run's own lock: %v", err)
	}
	unlock()
	if _, err := os.Stat(dir + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left after unlock: %v", err)
	}
	if err := WriteDir(dir, writeFiles("B.txt")); err != nil {
		t.Fatal(err)
	}
}

// TestResolveDotDotAfterSymlink: ".." after a symlink goes up from where
// the link leads, as the kernel takes it, in the path given and in a
// link's target; cleaning the path as text first named another file.
func TestResolveDotDotAfterSymlink(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"here", "elsewhere/deep"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link(t, filepath.Join(root, "elsewhere", "deep"), filepath.Join(root, "here", "sub"))
	want := filepath.Join(root, "elsewhere", "out.txt")
	if tg, err := Resolve(filepath.Join(root, "here", "sub") + "/../out.txt"); err != nil || tg.Path != want {
		t.Errorf("here/sub/../out.txt resolves to %+v (%v), want %s", tg, err, want)
	}
	l := link(t, "sub/../x.txt", filepath.Join(root, "here", "l"))
	if tg, err := Resolve(l); err != nil || tg.Path != filepath.Join(root, "elsewhere", "x.txt") {
		t.Errorf("a link to sub/../x.txt resolves to %+v (%v)", tg, err)
	}
	if err := Write(filepath.Join(root, "here", "sub")+"/../out.txt", text("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the file was not written where the kernel puts it: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "here", "out.txt")); err == nil {
		t.Error("a file was written where the cleaned text points")
	}
}

// TestResolveProtectedSymlink: a symlink of another user in a sticky,
// world-writable directory (a planted /tmp/report.json) is not followed, as
// the kernel's protected_symlinks would not; one of this user's is.
func TestResolveProtectedSymlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a symlink of another user")
	}
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	planted := link(t, victim, filepath.Join(dir, "report.json"))
	if err := os.Lchown(planted, 65534, 65534); err != nil {
		t.Skip(err)
	}
	if err := Write(planted, text("report")); err == nil || !strings.Contains(err.Error(), "protected_symlinks") {
		t.Errorf("a planted link was followed: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the victim was written: %q", b)
	}
	own := link(t, victim, filepath.Join(dir, "mine.json"))
	if err := Write(own, text("mine")); err != nil {
		t.Errorf("this user's own link: %v", err)
	}
}

// TestCheckThrough: a descriptor must be open for writing and not one of
// the process's own (close-on-exec); a special file must be writable.
func TestCheckThrough(t *testing.T) {
	f, err := os.Open("/dev/null") // read only, close-on-exec (Go's own)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := CheckThrough(Target{FD: int(f.Fd())}); err == nil || !strings.Contains(err.Error(), "reading only") {
		t.Errorf("a read-only descriptor: %v", err)
	}
	w, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := CheckThrough(Target{FD: int(w.Fd())}); err == nil || !strings.Contains(err.Error(), "hinge's own") {
		t.Errorf("a close-on-exec descriptor: %v", err)
	}
	if err := CheckThrough(Target{FD: 1 << 20}); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("a descriptor not open: %v", err)
	}
	if err := CheckThrough(Target{FD: -1, Path: "/dev/null", Special: true}); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
}

// readFIFO opens fifo for reading after delay, on its own goroutine, and
// sends what it read (or the open's error); a reader that never gets a
// writer does not block the test (the channel is buffered).
func readFIFO(fifo string, delay time.Duration) <-chan string {
	got := make(chan string, 1)
	go func() {
		time.Sleep(delay)
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	return got
}
