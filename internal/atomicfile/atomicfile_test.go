package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteNewNeverReplaces: a file that must be new (WriteNew, CreateNew:
// a learned model without --force) is not put over a file at its path,
// whether that file was there when the write began or appeared while the
// content was written (a second run's model: it was silently replaced),
// with or without a batch; the error is an *AppearedError naming the
// temporary file, which keeps the content. Where nothing is there, the
// file is created, and no temporary file is left.
func TestWriteNewNeverReplaces(t *testing.T) {
	for _, tc := range []struct {
		name           string
		before, during bool // a file at the path when the write begins, or made before Commit
		batch          bool
	}{
		{"nothing there", false, false, false},
		{"nothing there, in a batch", false, false, true},
		{"there from the start", true, false, false},
		{"appeared while writing", false, true, false},
		{"appeared while writing, in a batch", false, true, true},
		{"appeared before the batch ends", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "model.psl")
			other := func() {
				if err := os.WriteFile(path, []byte("other\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.before {
				other()
			}
			var b *Batch
			if tc.batch {
				b = Begin()
				defer b.End()
			}
			f, err := CreateNew(path)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(f, "mine\n")
			if tc.during {
				other()
			}
			err = f.Commit()
			if tc.batch && err == nil {
				if tc.name == "appeared before the batch ends" {
					other()
				}
				_, err = b.End()
			}
			appeared := tc.before || tc.during || tc.name == "appeared before the batch ends"
			var ae *AppearedError
			if !appeared {
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); string(got) != "mine\n" {
					t.Errorf("the new file holds %q", got)
				}
				if n := names(t, dir); len(n) != 1 {
					t.Errorf("left in the directory: %q", n)
				}
				return
			}
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *AppearedError", err)
			}
			if got, _ := os.ReadFile(path); string(got) != "other\n" {
				t.Errorf("the file that was there now holds %q", got)
			}
			if kept, err := os.ReadFile(ae.Kept); err != nil || string(kept) != "mine\n" {
				t.Errorf("the result kept in %s: %q, %v", ae.Kept, kept, err)
			}
			if !strings.Contains(err.Error(), "appeared") || !strings.Contains(err.Error(), ae.Kept) {
				t.Errorf("message %q does not say the file appeared and where the result is", err)
			}
		})
	}
}

// TestTempNamesNearNameMax: an output whose name is near NAME_MAX (which a
// shell creates fine) is written, replaced and, as a directory, replaced
// again: the temporary name ".NAME.tmpNNNN" passed the limit there, and
// the run failed only once its work was done.
func TestTempNamesNearNameMax(t *testing.T) {
	for _, n := range []int{100, 238, 241, 245, 250} {
		dir := t.TempDir()
		file := filepath.Join(dir, strings.Repeat("f", n))
		for i := 0; i < 2; i++ {
			if err := Write(file, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
				t.Errorf("file of %d bytes, write %d: %v", n, i+1, err)
			}
		}
		out := filepath.Join(dir, strings.Repeat("d", n))
		for i := 0; i < 2; i++ {
			if err := WriteDir(out, writeFiles("A.txt")); err != nil {
				t.Errorf("directory of %d bytes, write %d: %v", n, i+1, err)
			}
		}
		if got := names(t, dir); len(got) != 2 {
			t.Errorf("%d bytes: left in the directory: %q", n, got)
		}
	}
	// 255 bytes: a file still fits; a directory's lock (NAME.lock) does
	// not, and says so.
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, strings.Repeat("f", 255)), func(w io.Writer) error { return nil }); err != nil {
		t.Errorf("file of 255 bytes: %v", err)
	}
	if err := WriteDir(filepath.Join(dir, strings.Repeat("d", 255)), writeFiles("A.txt")); err == nil || !strings.Contains(err.Error(), "shorter name") {
		t.Errorf("directory of 255 bytes: %v, want its lock's name refused as too long", err)
	}
}
