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
	"testing/iotest"
	"unicode/utf8"

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
	// Multi-byte characters at every offset: the cut keeps whole ones.
	for k := range 4 {
		s := strings.Repeat("p", k) + strings.Repeat("é€😀", 40)
		got := Clip(s)
		if !utf8.ValidString(got) || len(got) > 203 || !strings.Contains(got, "...") {
			t.Errorf("offset %d: Clip gave %q (%d bytes)", k, got, len(got))
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
	if !errors.As(err, &se) || se.Error() != "f.txt:2:3: f.txt is not a text file: a NUL byte at byte 6 (binary data, UTF-16 or a device such as /dev/zero)" {
		t.Fatalf("as srcpos.Error: %v", se)
	}
	if err.Error() != se.Error() {
		t.Fatalf("Error() %q, as srcpos.Error %q: want the same file:line:col message", err, se)
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

// A byte-order mark at the start is skipped, however the reader hands out
// its bytes (one at a time, half a buffer, with EOF on the last bytes);
// only at the start (one anywhere else is refused: two files joined), and
// only a whole one (part of one is not UTF-8). A NUL
// byte after it is placed as the text's own line and column, at its offset
// in the file.
func TestByteOrderMark(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            string // the error's text, "" for none
	}{
		{"mark", BOM + "a\tb\n", "a\tb\n", ""},
		{"mark only", BOM, "", ""},
		{"no mark", "a\n", "a\n", ""},
		{"empty", "", "", ""},
		{"short", "a", "a", ""},
		{"part of a mark", "\xEF\xBB", "", "f.txt:1:1: invalid UTF-8 (byte 0xEF)"},
		{"part of a mark, then text", "\xEF\xBBx\n", "", "f.txt:1:1: invalid UTF-8 (byte 0xEF)"},
		{"two marks", BOM + BOM + "a", "", "f.txt:1:1: a byte-order mark (U+FEFF) after the start"},
		{"mark inside", "a" + BOM + "b", "a", "f.txt:1:2: a byte-order mark (U+FEFF) after the start"},
		{"files joined", BOM + "ab\n" + BOM + "cd\n", "ab\n", "f.txt:2:1: a byte-order mark (U+FEFF) after the start"},
		{"mark across the buffer", strings.Repeat("x", readBuf-1) + BOM, strings.Repeat("x", readBuf-1), "f.txt:1:65536: a byte-order mark"},
	}
	wraps := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data EOF": iotest.DataErrReader,
	}
	for _, tc := range tests {
		for wname, wrap := range wraps {
			t.Run(tc.name+"/"+wname, func(t *testing.T) {
				got, err := io.ReadAll(NewReader(wrap(strings.NewReader(tc.in)), "f.txt"))
				if string(got) != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("read %q, %v; want %q, %q", got, err, tc.want, tc.err)
				}
			})
		}
	}
	path := filepath.Join(t.TempDir(), "bom.txt")
	if err := os.WriteFile(path, []byte(BOM+"ab\ncd\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	var be *BinaryError
	if !errors.As(err, &be) || be.Line != 2 || be.Col != 3 || be.Offset != 8 {
		t.Fatalf("error %v (%+v), want line 2, column 3, offset 8", err, be)
	}
	if err := os.WriteFile(path, []byte(BOM+"ab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(path); err != nil || string(got) != "ab\n" {
		t.Fatalf("ReadFile: %q, %v", got, err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := io.ReadAll(f); err != nil || string(got) != "ab\n" {
		t.Fatalf("Open: %q, %v", got, err)
	}
}

// A reader's error that ends the check for a mark comes after the bytes
// read before it.
func TestByteOrderMarkError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)), "f.txt")
	got, err := io.ReadAll(r)
	if string(got) != "ab" || !errors.Is(err, boom) {
		t.Fatalf("read %q, %v; want \"ab\" then boom", got, err)
	}
}

// Bytes that are not UTF-8 are refused at their line and column, also when
// a read cuts a character in two, or a NUL byte or the end does; the text
// before them is delivered.
func TestEncodingError(t *testing.T) {
	pad := strings.Repeat("x", readBuf-1) // a character across the buffer's end
	tests := []struct {
		name, in  string
		line, col int
		off       int64
	}{
		{"latin-1", "ab\ncaf\xe9\n", 2, 4, 6},
		{"after a mark", BOM + "ab\ncaf\xe9\n", 2, 4, 9},
		{"cut by the end", "ab\nx\xc3", 2, 2, 4},
		{"cut by a NUL byte", "ab\nx\xc3\x00", 2, 2, 4},
		{"continuation alone", "\x80", 1, 1, 0},
		{"surrogate", "a\xed\xa0\x80", 1, 2, 1},
		{"across the buffer", pad + "\xc3(", 1, readBuf, readBuf - 1},
	}
	for _, tc := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			got, err := io.ReadAll(NewReader(r, "f.txt"))
			var ee *EncodingError
			if !errors.As(err, &ee) || ee.Line != tc.line || ee.Col != tc.col || ee.Offset != tc.off {
				t.Errorf("%s (one byte %v): error %v (%+v), want line %d, column %d, offset %d", tc.name, oneByte, err, ee, tc.line, tc.col, tc.off)
				continue
			}
			if want := strings.TrimPrefix(tc.in, BOM)[:tc.off-int64(len(tc.in)-len(strings.TrimPrefix(tc.in, BOM)))]; string(got) != want {
				t.Errorf("%s: delivered %d bytes, want the %d before the bad byte", tc.name, len(got), len(want))
			}
			var se *srcpos.Error
			if !errors.As(err, &se) || se.Pos.Line != tc.line || se.Pos.Col != tc.col {
				t.Errorf("%s: as srcpos.Error: %v", tc.name, se)
			}
		}
	}
	// A file of valid UTF-8 across many buffers reads whole.
	text := strings.Repeat("héllo wörld ✓ 𝄞\n", 20000)
	got, err := io.ReadAll(NewReader(iotest.HalfReader(strings.NewReader(text)), "f.txt"))
	if err != nil || string(got) != text {
		t.Fatalf("%d bytes of %d, %v", len(got), len(text), err)
	}
}

// FuzzNewReader: whatever the bytes and however they arrive, NewReader
// delivers them without a leading byte-order mark, up to the first NUL byte,
// byte that is not UTF-8 or byte-order mark after the start, where it fails with a *BinaryError or an
// *EncodingError at that byte's offset.
func FuzzNewReader(f *testing.F) {
	for _, s := range []string{"", BOM, BOM + "a\x00b", "\xEF\xBB", "\xEF\xBB\xBF\xEF", "ab\ncd\x00", "x" + BOM, "caf\xe9", "\xc3\x00"} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, oneByte bool) {
		var r io.Reader = strings.NewReader(string(in))
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		tr := NewReader(r, "f")
		var got []byte
		var err error
		if oneByte { // a large buffer, read into at once
			p := make([]byte, readBuf)
			for {
				k, e := tr.Read(p)
				got = append(got, p[:k]...)
				if e != nil {
					if e != io.EOF {
						err = e
					}
					break
				}
			}
		} else {
			got, err = io.ReadAll(tr)
		}
		start := 0
		if strings.HasPrefix(string(in), BOM) {
			start = len(BOM)
		}
		// The oracle: decode character by character.
		rest, stop, nul := in[start:], -1, false
		for i := 0; i < len(rest); {
			if rest[i] == 0 {
				stop, nul = i, true
				break
			}
			c, size := utf8.DecodeRune(rest[i:])
			if c == utf8.RuneError && size <= 1 || c == '\uFEFF' {
				stop = i
				break
			}
			i += size
		}
		want := rest
		if stop >= 0 {
			want = rest[:stop]
		}
		if string(got) != string(want) {
			t.Fatalf("read %q, want %q", got, want)
		}
		var be *BinaryError
		var ee *EncodingError
		switch {
		case stop < 0 && err != nil:
			t.Fatalf("error %v in valid text", err)
		case stop >= 0 && nul && (!errors.As(err, &be) || be.Offset != int64(start+stop)):
			t.Fatalf("error %v (%+v), want a NUL byte at offset %d", err, be, start+stop)
		case stop >= 0 && !nul && (!errors.As(err, &ee) || ee.Offset != int64(start+stop)):
			t.Fatalf("error %v (%+v), want invalid UTF-8 or a byte-order mark at offset %d", err, ee, start+stop)
		}
	})
}

// BenchmarkScan reads 64 MB of TSV-like text line by line through
// NewScanner, as the line-based readers do.
func BenchmarkScan(b *testing.B) {
	text := strings.Repeat("person1234\tperson5678\t0.75\n", 64<<20/28)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		sc := NewScanner(strings.NewReader(text), "f")
		for sc.Scan() {
		}
		if sc.Err() != nil {
			b.Fatal(sc.Err())
		}
	}
}

// A scanner hands out the lines before a NUL byte or a byte that is not
// UTF-8, then stops with its error, never with the line it cuts.
func TestScannerStopsAtBadByte(t *testing.T) {
	for _, in := range []string{"l1\nl2\nab\xffcd\n", "l1\nl2\nab\x00cd\n", "l1\nl2\n\xff"} {
		sc := NewScanner(strings.NewReader(in), "f.txt")
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		var se *srcpos.Error
		if strings.Join(lines, ",") != "l1,l2" || !errors.As(sc.Err(), &se) || se.Pos.Line != 3 {
			t.Errorf("%q: lines %q, error %v; want l1, l2 and an error on line 3", in, lines, sc.Err())
		}
	}
}
