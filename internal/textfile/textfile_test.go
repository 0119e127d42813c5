package textfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/srcpos"
)

func TestOpenAndReadFile(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "ok.txt")
	if err := os.WriteFile(text, []byte("a\tb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("ab\x00cd"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, strings.Repeat("x", 1<<20))
	cases := []struct {
		name, path string
		want       string // "" for success; else a substring of the error
		notExist   bool
	}{
		{"text", text, "", false},
		{"binary", bin, "is not a text file: a NUL byte at byte 3", false},
		{"directory", dir, "is a directory", false},
		{"symlink loop", loop, "is a symlink loop", false},
		{"missing", filepath.Join(dir, "absent"), "no such file", true},
		{"10 MB path", long, "file name too long", false},
		{"dev zero", "/dev/zero", "is not a text file: a NUL byte at byte 1", false},
	}
	for _, c := range cases {
		if c.path == "/dev/zero" {
			if _, err := os.Stat(c.path); err != nil {
				continue
			}
		}
		b, err1 := ReadFile(c.path)
		var err2 error
		if f, err := Open(c.path); err != nil {
			err2 = err
		} else {
			_, err2 = io.ReadAll(io.LimitReader(f, 1<<20))
			f.Close()
		}
		for i, err := range []error{err1, err2} {
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s (%d): %v", c.name, i, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s (%d): err = %v, want %q", c.name, i, err, c.want)
			case err != nil && len(err.Error()) > 500:
				t.Errorf("%s (%d): %d-byte message", c.name, i, len(err.Error()))
			case c.notExist && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("%s (%d): %v does not match fs.ErrNotExist", c.name, i, err)
			}
		}
		if c.want == "" && string(b) != "a\tb\n" {
			t.Errorf("%s: read %q", c.name, b)
		}
	}
}

func TestReadFileMemoryLimit(t *testing.T) {
	prev := memlimit.Set(64 << 20)
	defer memlimit.Restore(prev)
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(40 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "does not fit in the memory limit (64.0 MiB)") {
		t.Errorf("40 MiB file under a 64 MiB limit: %v", err)
	}
}

func TestClip(t *testing.T) {
	for _, n := range []int{0, 200, 201, 10 << 20} {
		s := strings.Repeat("p", n)
		got := Clip(s)
		if n <= 200 && got != s || n > 200 && len(got) != 200 {
			t.Errorf("Clip of %d bytes gave %d bytes", n, len(got))
		}
	}
}

// A NUL byte's error carries its line and column, and reads as a
// *srcpos.Error, as every other input error does.
func TestBinaryErrorPosition(t *testing.T) {
	r := NewReader(strings.NewReader("ab\ncd\x00ef"), "f.txt")
	_, err := io.ReadAll(r)
	var be *BinaryError
	if !errors.As(err, &be) || be.Line != 2 || be.Col != 3 || be.Offset != 5 {
		t.Fatalf("error %v (%+v), want line 2, column 3, offset 5", err, be)
	}
	var se *srcpos.Error
	if !errors.As(err, &se) || se.Pos.String() != "f.txt:2:3" {
		t.Fatalf("as srcpos.Error: %v", se)
	}
}

// endless yields distinct valid lines ("1\n", "2\n", ...) without end, up to
// max bytes (then EOF, so that a broken check ends the test).
type endless struct {
	n, read, max int64
	pending      []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.max {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) {
		if len(e.pending) == 0 {
			e.n++
			e.pending = append(strconv.AppendInt(e.pending[:0], e.n, 10), '\n')
		}
		c := copy(p[k:], e.pending)
		e.pending = e.pending[c:]
		k += c
	}
	e.read += int64(k)
	return k, nil
}

// TestEndlessText: an endless stream of valid, distinct lines that a
// loader keeps stops with a *FullError once the heap nears the memory
// limit, long before the stream's 2 GiB cap.
func TestEndlessText(t *testing.T) {
	prev := memlimit.Set(64 << 20)
	defer memlimit.Restore(prev)
	sc := NewScanner(&endless{max: 2 << 30}, "endless.tsv")
	var kept []string
	for sc.Scan() {
		kept = append(kept, sc.Text())
	}
	err := ScanError(sc.Err(), "endless.tsv", len(kept))
	var fe *FullError
	if sc.Err() == nil || !errors.As(err, &fe) {
		t.Fatalf("read %d lines, err %v; want a *FullError", len(kept), sc.Err())
	}
	if fe.Line < len(kept) { // the reader is ahead of the scanner by its buffer
		t.Errorf("error at line %d, %d lines kept", fe.Line, len(kept))
	}
	var pe *srcpos.Error
	if !errors.As(err, &pe) || pe.Pos.File != "endless.tsv" || !strings.HasPrefix(err.Error(), "endless.tsv:") || !strings.Contains(err.Error(), "fills the memory limit of 64.0 MiB") {
		t.Errorf("error %q (position %v)", err, pe)
	}
	if fe.Read > 1<<30 {
		t.Errorf("read %d bytes before stopping", fe.Read)
	}
	kept = nil
}
