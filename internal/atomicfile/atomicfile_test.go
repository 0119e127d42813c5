package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "first\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the fill error", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "first\n" {
		t.Fatalf("file changed to %q after a failed write", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
}

func TestWriteMissingDir(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "x"), func(io.Writer) error { return nil })
	if err == nil {
		t.Fatal("want an error for a missing directory")
	}
}

// A File's content shows at its path only after Commit; Abort (deferred
// after a Commit too) leaves the old content and no temporary file.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new\n")
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("content %q before Commit", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("content %q after Abort", b)
	}
	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Fatalf("content %q after Commit", b)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
}
