package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists a directory's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func writeFiles(files ...string) func(string) error {
	return func(tmp string) error {
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(tmp, f), []byte(f), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestWriteDirReplacesAsOneSet(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := WriteDir(dir, writeFiles("A.txt", "B.txt")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{Marker, "A.txt", "B.txt"}) {
		t.Fatalf("first run: %v", got)
	}
	// A second run that writes only A: B, from the first run, is gone.
	if err := WriteDir(dir, writeFiles("A.txt")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{Marker, "A.txt"}) {
		t.Errorf("second run: %v", got)
	}
	// A failing run leaves the directory as it was and nothing beside it.
	boom := errors.New("boom")
	if err := WriteDir(dir, func(tmp string) error { writeFiles("C.txt")(tmp); return boom }); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{Marker, "A.txt"}) {
		t.Errorf("after a failed run: %v", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("left beside the directory: %v", got)
	}
}

func TestWriteDirRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.tsv"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(dir, writeFiles("A.txt"))
	if err == nil || !strings.Contains(err.Error(), "holds files hinge did not write") {
		t.Fatalf("error %v", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"data.tsv"}) {
		t.Errorf("the directory changed: %v", got)
	}
}

func TestWriteDirLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// A lock held by a live process (this one) refuses the run.
	if err := os.WriteFile(dir+".lock", []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(dir, writeFiles("A.txt"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("another hinge run (process %d)", os.Getpid())) {
		t.Fatalf("error %v", err)
	}
	// A stale lock (no such process) is taken over, and released after.
	if err := os.WriteFile(dir+".lock", []byte("2147483646\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, writeFiles("A.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}
