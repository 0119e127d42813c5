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

// TestWriteDirKeepsUserFiles: a file someone added to an output directory
// that hinge wrote is never deleted: the next run is refused, naming it,
// and the directory is left as it was.
func TestWriteDirKeepsUserFiles(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := WriteDir(dir, writeFiles("A.txt", "B.txt")); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "mynotes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(dir, writeFiles("A.txt"))
	var fe *ForeignError
	if !errors.As(err, &fe) || !slices.Equal(fe.Foreign, []string{"mynotes.txt"}) || !strings.Contains(err.Error(), `"mynotes.txt"`) {
		t.Fatalf("error %v, want a refusal naming mynotes.txt", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Fatalf("the user's file: %q, %v", b, err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{Marker, "A.txt", "B.txt", "mynotes.txt"}) {
		t.Errorf("the directory changed: %v", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("left beside the directory: %v", got)
	}
}

// TestWriteDirFileAddedDuringRun: a file added to the directory while the
// new set is being written (after any check before the run) is not lost
// either: the swap is refused and the old set stays.
func TestWriteDirFileAddedDuringRun(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := WriteDir(dir, writeFiles("A.txt")); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dir); err != nil {
		t.Fatalf("hinge's own directory refused: %v", err)
	}
	err := WriteDir(dir, func(tmp string) error {
		if err := os.WriteFile(filepath.Join(dir, "late.txt"), []byte("mine"), 0o644); err != nil {
			return err
		}
		return writeFiles("A.txt", "B.txt")(tmp)
	})
	var fe *ForeignError
	if !errors.As(err, &fe) || !slices.Equal(fe.Foreign, []string{"late.txt"}) || fe.Dir != dir {
		t.Fatalf("error %v, want a refusal naming late.txt in %s", err, dir)
	}
	if got := names(t, dir); !slices.Equal(got, []string{Marker, "A.txt", "late.txt"}) {
		t.Errorf("the directory changed: %v", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("left beside the directory: %v", got)
	}
}

// TestCheckDir: what may be replaced and what is refused, and why.
func TestCheckDir(t *testing.T) {
	// marker is the Marker WriteDir writes for these names.
	marker := func(names ...string) string {
		s := markerHeader + "\n"
		for _, n := range names {
			s += fmt.Sprintf("%q\n", n)
		}
		return s
	}
	const legacy = "written by hinge; the directory is replaced as a whole by the next run\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // "name/" makes a directory
		want  string            // "" accepted; else a substring of the error
		// foreign lists what the *ForeignError names, when it is one.
		foreign []string
	}{
		{"new", nil, "", nil},
		{"empty", map[string]string{}, "", nil},
		{"listed", map[string]string{Marker: marker("A.txt", "B.txt"), "A.txt": "", "B.txt": ""}, "", nil},
		{"listed, some gone", map[string]string{Marker: marker("A.txt", "B.txt"), "A.txt": ""}, "", nil},
		{"marker alone", map[string]string{Marker: marker()}, "", nil},
		{"odd names", map[string]string{Marker: marker("a\nb.txt", `q"x.txt`), "a\nb.txt": "", `q"x.txt`: ""}, "", nil},
		{"unlisted file", map[string]string{Marker: marker("A.txt"), "A.txt": "", "mynotes.txt": ""}, `"mynotes.txt", not listed in its .hinge-output marker`, []string{"mynotes.txt"}},
		{"listed name is a directory", map[string]string{Marker: marker("A.txt"), "A.txt/": ""}, "hinge did not write", []string{"A.txt"}},
		{"no marker", map[string]string{"data.tsv": ""}, `("data.tsv"; it has no .hinge-output marker)`, []string{"data.tsv"}},
		{"many", map[string]string{Marker: marker(), "a": "", "b": "", "c": "", "d": "", "e": ""}, `"a", "b", "c" and 2 more`, []string{"a", "b", "c"}},
		{"earlier hinge's marker", map[string]string{Marker: legacy, "A.txt": ""}, "written by an earlier version of hinge", []string{"A.txt"}},
		{"earlier hinge's marker alone", map[string]string{Marker: legacy}, "", nil},
		{"a user's file named like the marker", map[string]string{Marker: "my notes\n"}, `(".hinge-output"; its .hinge-output is not a marker hinge wrote)`, []string{Marker}},
		{"an empty file named like the marker", map[string]string{Marker: ""}, "not a marker hinge wrote", []string{Marker}},
		{"a user's marker and files", map[string]string{Marker: "x", "A.txt": ""}, "not a marker hinge wrote", []string{Marker, "A.txt"}},
		{"marker is a directory", map[string]string{Marker + "/": ""}, "marker is not a regular file", nil},
		{"bad marker line", map[string]string{Marker: markerHeader + "\nA.txt\n"}, ".hinge-output:2: not a quoted file name", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if tc.files != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, content := range tc.files {
				p := filepath.Join(dir, name)
				var err error
				if strings.HasSuffix(name, "/") {
					err = os.Mkdir(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte(content), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			err := CheckDir(dir)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				// What CheckDir accepts, WriteDir replaces.
				if err := WriteDir(dir, writeFiles("C.txt")); err != nil {
					t.Fatal(err)
				}
				if got := names(t, dir); !slices.Equal(got, []string{Marker, "C.txt"}) {
					t.Errorf("after WriteDir: %v", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var fe *ForeignError
			if errors.As(err, &fe) != (tc.foreign != nil) || fe != nil && !slices.Equal(fe.Foreign, tc.foreign) {
				t.Errorf("foreign entries %+v, want %v", fe, tc.foreign)
			}
			if err := WriteDir(dir, writeFiles("C.txt")); err == nil {
				t.Error("WriteDir replaced what CheckDir refuses")
			}
		})
	}
	// A file is not a directory.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if err := CheckDir(f); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("a file: %v", err)
	}
}

// TestWriteDirMarkerLists: the Marker lists exactly the files written.
func TestWriteDirMarkerLists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, writeFiles("B.txt", "A.txt")); err != nil {
		t.Fatal(err)
	}
	got, legacy, err := readMarker(filepath.Join(dir, Marker))
	if err != nil || legacy || !slices.Equal(got, []string{"A.txt", "B.txt"}) {
		t.Fatalf("marker lists %v (legacy %v, %v)", got, legacy, err)
	}
	// fill may write neither the Marker nor a subdirectory.
	for _, bad := range []func(string) error{
		writeFiles(Marker),
		func(tmp string) error { return os.Mkdir(filepath.Join(tmp, "sub"), 0o755) },
	} {
		if err := WriteDir(dir, bad); err == nil || !strings.Contains(err.Error(), "is not a file hinge may write there") {
			t.Errorf("error %v", err)
		}
	}
}

// TestLockIsHingesOwn: a file named like the lock that holds no process id
// is the user's: it is refused and kept, not removed as a stale lock; and
// a lock is removed at the end only while it is still this run's.
func TestLockIsHingesOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(dir+".lock", []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); err == nil || !strings.Contains(err.Error(), "not a hinge lock") {
		t.Fatalf("LockDir over a user's file: %v", err)
	}
	if b, _ := os.ReadFile(dir + ".lock"); string(b) != "my notes\n" {
		t.Fatalf("the user's file is now %q", b)
	}
	os.Remove(dir + ".lock")
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Someone replaces the lock while the run holds it: it is not ours to
	// remove any more.
	os.WriteFile(dir+".lock", []byte("theirs\n"), 0o644)
	unlock()
	if b, _ := os.ReadFile(dir + ".lock"); string(b) != "theirs\n" {
		t.Errorf("the replaced lock was removed (%q)", b)
	}
}
