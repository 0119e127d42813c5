package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatch: while a batch is active the outputs of a run are put in
// place together when it ends, or, when one failed, none is and every
// path keeps what it held (a run that failed part-way replaced the
// outputs written before the failure). A device that refuses the write
// at the end (/dev/full) stops the renames too.
func TestBatch(t *testing.T) {
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	fill := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	failing := func(w io.Writer) error { return errors.New("disk full") }
	for _, tc := range []struct {
		name   string
		third  func(dir string) error
		endErr string
		placed bool
	}{
		{"all succeed", func(dir string) error { return Write(filepath.Join(dir, "c.txt"), fill("new c")) }, "", true},
		{"the third fails", func(dir string) error { return Write(filepath.Join(dir, "c.txt"), failing) }, "", false},
		{"the third is aborted", func(dir string) error {
			f, err := Create(filepath.Join(dir, "c.txt"))
			if err == nil {
				f.Abort()
			}
			return err
		}, "", false},
		{"the third cannot be started", func(dir string) error {
			return Write(filepath.Join(dir, "gone", "c.txt"), fill("new c"))
		}, "", false},
		{"a device refuses the write at the end", func(dir string) error { return Write("/dev/full", fill("x")) }, "no space left", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a device refuses the write at the end" {
				if _, err := os.Stat("/dev/full"); err != nil {
					t.Skip("no /dev/full here")
				}
			}
			dir := t.TempDir()
			a, c, out := filepath.Join(dir, "a.txt"), filepath.Join(dir, "c.txt"), filepath.Join(dir, "out")
			write(t, a, "old a")
			write(t, c, "old c")
			if err := WriteDir(out, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "x.txt"), []byte("old x"), 0o644) }); err != nil {
				t.Fatal(err)
			}
			b := Begin()
			if err := Write(a, fill("new a")); err != nil {
				t.Fatal(err)
			}
			if err := WriteDir(out, func(tmp string) error { return Write(filepath.Join(tmp, "x.txt"), fill("new x")) }); err != nil {
				t.Fatal(err)
			}
			if read(a) != "old a" || read(filepath.Join(out, "x.txt")) != "old x" {
				t.Fatalf("an output was put in place before the batch ended")
			}
			tc.third(dir)
			_, err := b.End()
			if tc.endErr == "" && err != nil || tc.endErr != "" && (err == nil || !strings.Contains(err.Error(), tc.endErr)) {
				t.Fatalf("End: %v, want %q", err, tc.endErr)
			}
			wantA, wantX, wantC := "old a", "old x", "old c"
			if tc.placed {
				wantA, wantX, wantC = "new a", "new x", "new c"
			}
			if read(a) != wantA || read(filepath.Join(out, "x.txt")) != wantX || read(c) != wantC {
				t.Errorf("a %q, x %q, c %q; want %q, %q, %q", read(a), read(filepath.Join(out, "x.txt")), read(c), wantA, wantX, wantC)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "a.txt" && n != "c.txt" && n != "out" {
					t.Errorf("left behind: %s", n)
				}
			}
			if err := CheckDir(out); err != nil {
				t.Errorf("the output directory after the batch: %v", err)
			}
		})
	}
}

// TestBatchAfterEnd: a file created while a batch is active belongs to
// it: committed after the batch has ended, it is refused and removed (it
// was put in place on its own), and a lock released after the end is
// released at once.
func TestBatchAfterEnd(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "late.txt")
	b := Begin()
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := LockDir(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	b.Fail()
	if _, err := b.End(); err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("late\n"))
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("a commit after the batch ended: %v", err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Errorf("the late file was put in place")
	}
	unlock()
	if _, err := os.Stat(filepath.Join(dir, "out.lock")); err == nil {
		t.Errorf("the lock file is still there")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
