// Package textfile opens the text files hinge reads (models, data, configs,
// ground problems, WCNF) so that a hostile or mistaken input ends in a clear
// error instead of a runaway read: a directory or a symlink loop is named as
// such, binary data (a NUL byte: /dev/zero, an image, UTF-16) is refused at
// the first block, and a whole-file read stops before it outgrows the
// process's memory limit (memlimit.Current).
package textfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/metrics"
	"syscall"

	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/srcpos"
)

// Clip shortens user input echoed in a message (a path, a value) to at most
// about 200 bytes, keeping both ends: a 10 MB path must not make a 10 MB
// message.
func Clip(s string) string {
	if len(s) > 200 {
		return s[:100] + "..." + s[len(s)-97:]
	}
	return s
}

// Open opens path for reading as text. Reads from the returned file fail
// with an error naming path at the first NUL byte.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Describe(path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Describe(path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a file", Clip(path))
	}
	return &file{f: f, r: NewReader(f, path)}, nil
}

type file struct {
	f *os.File
	r io.Reader
}

func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error               { return f.f.Close() }

// ReadFile reads the whole text file at path. Besides Open's checks, it
// refuses a file whose text cannot be held within half the memory limit
// (the other half is for what is parsed from it): a regular file by its
// size before reading, a device or pipe (/dev/zero) as the text arrives.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Describe(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, Describe(path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", Clip(path))
	}
	limit := memlimit.Current() / 2
	tooBig := func(n int64) error {
		return fmt.Errorf("%s: more than %s of text does not fit in the memory limit (%s)", Clip(path), memlimit.Format(n), memlimit.Format(limit*2))
	}
	if limit > 0 && st.Mode().IsRegular() && st.Size() > limit {
		return nil, tooBig(st.Size())
	}
	size := 512
	if st.Mode().IsRegular() && st.Size() > 0 {
		size = int(st.Size()) + 1
	}
	buf := make([]byte, 0, size)
	r := NewReader(f, path)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			return nil, tooBig(int64(len(buf)))
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// NewReader wraps r so that a read fails with an error naming name at the
// first NUL byte: no text format hinge reads contains one, and refusing it
// at once stops an endless binary stream such as /dev/zero. It also stops an
// endless (or merely too large) stream of valid text whose parsed content
// outgrows the memory limit: every heapCheckEvery bytes it compares the
// live heap with memlimit.Current and fails with a *FullError at the line it
// reached once the heap holds more than nine tenths of it.
func NewReader(r io.Reader, name string) io.Reader { return &nulReader{r: r, name: name} }

// heapCheckEvery is how many bytes a NewReader reader passes between heap
// checks.
const heapCheckEvery = 4 << 20

type nulReader struct {
	r         io.Reader
	name      string
	off       int64
	line, col int   // of the next byte, from 1
	checked   int64 // off at the last heap check
	err       error
}

// FullError reports a text input whose content, as parsed so far, fills the
// memory limit.
type FullError struct {
	Name  string
	Line  int   // the line reached, from 1
	Read  int64 // bytes read
	Limit int64 // the memory limit
}

func (e *FullError) Error() string { return fmt.Sprintf("%s:%d: %s", Clip(e.Name), e.Line, e.msg()) }

func (e *FullError) msg() string {
	return fmt.Sprintf("stopped reading after %s: what was read fills the memory limit of %s (an endless or too large input? raise --memory-limit for a large one)",
		memlimit.Format(e.Read), memlimit.Format(e.Limit))
}

// As lets errors.As read a FullError as a *srcpos.Error at its line.
func (e *FullError) As(target any) bool {
	t, ok := target.(**srcpos.Error)
	if ok {
		*t = &srcpos.Error{Pos: srcpos.Position{File: e.Name, Line: e.Line}, Msg: e.msg()}
	}
	return ok
}

// heapFull reports whether the live heap holds more than nine tenths of
// limit (false without a limit).
func heapFull(limit int64) bool {
	if limit <= 0 {
		return false
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Kind() == metrics.KindUint64 && int64(s[0].Value.Uint64()) > limit/10*9
}

// advance moves the position past b.
func (n *nulReader) advance(b []byte) {
	n.off += int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		n.line += bytes.Count(b, []byte{'\n'})
		n.col = len(b) - i
		return
	}
	n.col += len(b)
}

func (n *nulReader) Read(p []byte) (int, error) {
	if n.err != nil {
		return 0, n.err
	}
	if n.line == 0 {
		n.line, n.col = 1, 1
	}
	k, err := n.r.Read(p)
	if i := bytes.IndexByte(p[:k], 0); i >= 0 {
		n.advance(p[:i])
		n.err = &BinaryError{Name: n.name, Offset: n.off, Line: n.line, Col: n.col}
		// The text before the NUL byte is still delivered (when there is
		// any), so that a parser reports a problem before it first; the
		// next read fails.
		if i == 0 {
			return 0, n.err
		}
		return i, nil
	}
	n.advance(p[:k])
	if n.off-n.checked >= heapCheckEvery {
		n.checked = n.off
		if limit := memlimit.Current(); heapFull(limit) {
			n.err = &FullError{Name: n.name, Line: n.line, Read: n.off, Limit: limit}
			return 0, n.err
		}
	}
	return k, err
}

// BinaryError reports a NUL byte in a file read as text.
type BinaryError struct {
	Name      string
	Offset    int64 // of the NUL byte, from 0
	Line, Col int   // of the NUL byte, from 1
}

// As lets errors.As read a BinaryError as a *srcpos.Error at the NUL
// byte's line and column, as every other input error reads.
func (e *BinaryError) As(target any) bool {
	t, ok := target.(**srcpos.Error)
	if ok {
		*t = &srcpos.Error{Pos: srcpos.Position{File: e.Name, Line: e.Line, Col: e.Col}, Msg: e.Error()}
	}
	return ok
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s is not a text file: a NUL byte at byte %d (binary data, UTF-16 or a device such as /dev/zero)", Clip(e.Name), e.Offset+1)
}

// Describe rewords an error opening or statting path: a symlink loop is named as such
// (the system says "too many levels of symbolic links"), and the path is
// clipped. The result still matches fs.ErrNotExist and the like with
// errors.Is.
func Describe(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is a symlink loop (or a chain of too many symbolic links): %w", Clip(path), syscall.ELOOP)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: Clip(pe.Path), Err: pe.Err}
	}
	return err
}

// MaxLine is the longest line NewScanner accepts: 1 GiB, or a quarter of
// the memory limit when that is smaller (at least 64 KiB).
func MaxLine() int {
	n := int64(1 << 30)
	if l := memlimit.Current() / 4; l > 0 && l < n {
		n = max(l, 64<<10)
	}
	return int(n)
}

// NewScanner returns a line scanner over r for a reader of a line-based
// format: a NUL byte is refused (see NewReader) and a line may hold up to
// MaxLine bytes. Report its error with ScanError.
func NewScanner(r io.Reader, name string) *bufio.Scanner {
	sc := bufio.NewScanner(NewReader(r, name))
	sc.Buffer(make([]byte, 64<<10), MaxLine())
	return sc
}

// ScanError describes the error of a NewScanner scanner that had read lines
// lines when it stopped: binary data as BinaryError says, an over-long line
// with its number, anything else prefixed with name.
func ScanError(err error, name string, lines int) error {
	var be *BinaryError
	var fe *FullError
	switch {
	case errors.As(err, &be), errors.As(err, &fe):
		return err
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: the line is longer than %s (is this a text file of the right kind?)", Clip(name), lines+1, memlimit.Format(int64(MaxLine())))
	}
	return fmt.Errorf("%s: %w", Clip(name), err)
}
