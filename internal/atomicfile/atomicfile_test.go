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
