package mln

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadAtomsProgress: ReadAtomsProgress reports (0, n) once the file is
// split into its n statements, every ProgressEvery statements, and (n, n)
// at the end, and reads the same atoms as ReadAtoms.
func TestReadAtomsProgress(t *testing.T) {
	prog, err := ParseProgram("p.mln", []byte("Friends(person, person)\nSmokes(person)\n1 Smokes(x) => Smokes(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, ProgressEvery, 2*ProgressEvery + 5} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Friends(P%d, P%d)\n", i, i+1)
		}
		path := filepath.Join(t.TempDir(), "e.db")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var calls [][2]int
		got, err := ReadAtomsProgress(path, prog, false, func(done, total int) { calls = append(calls, [2]int{done, total}) })
		if err != nil {
			t.Fatal(err)
		}
		want := [][2]int{{0, n}}
		for i := ProgressEvery; i < n; i += ProgressEvery {
			want = append(want, [2]int{i, n})
		}
		want = append(want, [2]int{n, n})
		if !reflect.DeepEqual(calls, want) {
			t.Errorf("%d atoms: progress calls %v, want %v", n, calls, want)
		}
		plain, err := ReadAtoms(path, prog, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n || !reflect.DeepEqual(got, plain) {
			t.Errorf("%d atoms: ReadAtomsProgress read %d atoms, not those of ReadAtoms (%d)", n, len(got), len(plain))
		}
	}
}
