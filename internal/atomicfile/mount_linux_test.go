package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMountPointRefused: a mount point (here a bind mount, as a container
// volume is) cannot be replaced by renaming, so CheckDir refuses it before
// any work, saying so; it passed every check and the rename failed after
// the whole run. A directory inside it is written as usual.
func TestMountPointRefused(t *testing.T) {
	if !IsMountPoint("/proc") {
		t.Errorf("/proc is not seen as a mount point")
	}
	if IsMountPoint(t.TempDir()) {
		t.Errorf("a temporary directory is seen as a mount point")
	}
	if got := unescapeMount(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("unescapeMount: %q", got)
	}
	base := t.TempDir()
	host, vol := filepath.Join(base, "host"), filepath.Join(base, "vol")
	for _, d := range []string{host, vol} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount(host, vol, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here (%v): the mountinfo parsing is tested above", err)
	}
	defer syscall.Unmount(vol, 0)
	if err := CheckDir(vol); err == nil || !strings.Contains(err.Error(), "is a mount point") {
		t.Errorf("CheckDir of a bind mount: %v", err)
	}
	// A bind-mounted file is a mount point too.
	src, file := filepath.Join(base, "src.txt"), filepath.Join(base, "report.json")
	for _, f := range []string{src, file} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount(src, file, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("bind-mounting a file: %v", err)
	}
	defer syscall.Unmount(file, 0)
	if !IsMountPoint(file) {
		t.Errorf("a bind-mounted file is not seen as a mount point")
	}
	inside := filepath.Join(vol, "out")
	if err := WriteDir(inside, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "a.txt"), []byte("a\n"), 0o644) }); err != nil {
		t.Fatalf("a directory inside the mount point: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(host, "out", "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("written inside the mount: %q, %v", b, err)
	}
}
