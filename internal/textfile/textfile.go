// Package textfile opens the text files hinge reads (models, data, configs,
// ground problems, WCNF) so that a hostile or mistaken input ends in a clear
// error instead of a runaway read: a directory or a symlink loop is named as
// such, binary data (a NUL byte: /dev/zero, an image, UTF-16) is refused at
// the first block, and a whole-file read stops before it outgrows the
// process's memory limit (memlimit.Current). A UTF-8 byte-order mark at the
// start of a file is skipped here, once for every reader: what follows it
// is line 1, column 1.
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
	"unicode/utf8"

	"github.com/hinge-srl/hinge/internal/memlimit"
	"github.com/hinge-srl/hinge/srcpos"
)

// Clip shortens user input echoed in a message (a path, a value) to at most
// about 200 bytes, keeping both ends: a 10 MB path must not make a 10 MB
// message.
func Clip(s string) string {
	if len(s) > 200 {
		// Cut at character boundaries: half a UTF-8 character made the
		// text invalid (a rule with an accent in hinge ground's table).
		head, tail := 100, len(s)-97
		for head > 0 && !utf8.RuneStart(s[head]) {
			head--
		}
		for tail < len(s) && !utf8.RuneStart(s[tail]) {
			tail++
		}
		return s[:head] + "..." + s[tail:]
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

// BOM is the UTF-8 byte-order mark (U+FEFF), which some editors put at the
// start of a text file.
const BOM = "\uFEFF"

// NewReader wraps r as the reader of a text file named name: a UTF-8
// byte-order mark at its start is skipped (one anywhere else is refused as
// an *EncodingError, Mark), and a read fails, after the text
// before it, with a *BinaryError at the first NUL byte (no text format
// hinge reads contains one, and refusing it at once stops an endless binary
// stream such as /dev/zero) or an *EncodingError at the first byte that is
// not UTF-8 (hinge's texts are UTF-8: a Latin-1 file would otherwise give
// constants that print wrongly and that PostgreSQL refuses). It also stops
// an endless (or merely too large) stream of valid text whose parsed
// content outgrows the memory limit: every heapCheckEvery bytes it compares
// the live heap with memlimit.Current and fails with a *FullError at the
// line it reached once the heap holds more than nine tenths of it.
func NewReader(r io.Reader, name string) io.Reader { return &textReader{r: r, name: name} }

// heapCheckEvery is how many bytes a NewReader reader passes between heap
// checks.
const heapCheckEvery = 4 << 20

// textReader is NewReader's reader. It reads r into buf and hands out the
// bytes it has checked: buf[lo:ok] checked and not yet delivered, buf[ok:hi]
// read but not yet checked (the start of a character the last read cut).
type textReader struct {
	r          io.Reader
	name       string
	buf        []byte
	lo, ok, hi int
	off        int64 // of buf[lo] in the file, from 0
	line, col  int   // of buf[lo], from 1
	checked    int64 // off at the last heap check
	started    bool  // the start was looked at for a byte-order mark
	eof        bool  // r is at its end
	rerr       error // r's error, returned after buf[lo:ok]
	bad        byte  // 0, or what stops the text at buf[ok]: 0xFF invalid UTF-8, 1 a NUL byte, 2 a byte-order mark
	err        error // once set, every read returns it
}

// readBuf is the size of a textReader's buffer.
const readBuf = 64 << 10

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

// EncodingError reports a byte that is not UTF-8 in a file read as text,
// or a byte-order mark after its start (Mark).
type EncodingError struct {
	Name      string
	Offset    int64 // of the byte, from 0
	Line, Col int   // of the byte, from 1
	Byte      byte
	Mark      bool // a byte-order mark (U+FEFF) that is not at the start
}

func (e *EncodingError) msg() string {
	if e.Mark {
		return "a byte-order mark (U+FEFF) after the start of the text (two files joined, for example with cat?): remove it"
	}
	return fmt.Sprintf("invalid UTF-8 (byte 0x%02X): hinge reads text as UTF-8; convert the file (for example with iconv -f latin1 -t utf-8)", e.Byte)
}

func (e *EncodingError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", Clip(e.Name), e.Line, e.Col, e.msg())
}

// As lets errors.As read an EncodingError as a *srcpos.Error at the byte.
func (e *EncodingError) As(target any) bool {
	t, ok := target.(**srcpos.Error)
	if ok {
		*t = &srcpos.Error{Pos: srcpos.Position{File: e.Name, Line: e.Line, Col: e.Col}, Msg: e.msg()}
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
func (n *textReader) advance(b []byte) {
	n.off += int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		n.line += bytes.Count(b, []byte{'\n'})
		n.col = len(b) - i
		return
	}
	n.col += len(b)
}

func (n *textReader) Read(p []byte) (int, error) {
	if n.err != nil {
		return 0, n.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for n.lo == n.ok {
		switch {
		case n.bad == 1:
			n.err = &BinaryError{Name: n.name, Offset: n.off, Line: n.line, Col: n.col}
		case n.bad == 2:
			n.err = &EncodingError{Name: n.name, Offset: n.off, Line: n.line, Col: n.col, Byte: n.buf[n.ok], Mark: true}
		case n.bad != 0:
			n.err = &EncodingError{Name: n.name, Offset: n.off, Line: n.line, Col: n.col, Byte: n.buf[n.ok]}
		case n.rerr != nil:
			n.err = n.rerr
		case n.eof:
			return 0, io.EOF
		}
		if n.err != nil {
			return 0, n.err
		}
		if n.started && n.hi == n.ok && len(p) >= readBuf/4 {
			// Nothing held back: read straight into p.
			if k := n.direct(p); k > 0 {
				return n.deliver(p[:k])
			}
			continue
		}
		n.fill()
	}
	k := copy(p, n.buf[n.lo:n.ok])
	n.lo += k
	return n.deliver(p[:k])
}

// deliver moves the position past b, the bytes a read returns, and checks
// the heap every heapCheckEvery bytes.
func (n *textReader) deliver(b []byte) (int, error) {
	n.advance(b)
	if n.off-n.checked >= heapCheckEvery {
		n.checked = n.off
		if limit := memlimit.Current(); heapFull(limit) {
			n.err = &FullError{Name: n.name, Line: n.line, Read: n.off, Limit: limit}
			return 0, n.err
		}
	}
	return len(b), nil
}

// read reads r into b, noting its end or error.
func (n *textReader) read(b []byte) int {
	k, err := n.r.Read(b)
	switch {
	case err == io.EOF:
		n.eof = true
	case err != nil:
		n.rerr = err
	}
	return k
}

// direct reads r into p and returns how many of its bytes are checked text;
// what follows them (the start of a cut character, or the bad byte) is
// kept in buf.
func (n *textReader) direct(p []byte) int {
	k := n.read(p)
	good, wait := n.check(p[:k])
	if wait || n.bad != 0 {
		n.lo, n.ok = 0, 0
		n.hi = copy(n.bufAt(), p[good:min(k, good+utf8.UTFMax)])
	}
	return good
}

// bufAt returns buf, made when first needed.
func (n *textReader) bufAt() []byte {
	if n.buf == nil {
		n.buf = make([]byte, readBuf)
	}
	return n.buf
}

// fill reads more of r behind the unchecked bytes and checks what it can.
func (n *textReader) fill() {
	buf := n.bufAt()
	m := copy(buf, buf[n.ok:n.hi])
	n.lo, n.ok, n.hi = 0, 0, m
	n.hi += n.read(buf[n.hi:])
	if !n.started {
		if n.hi < len(BOM) && !n.eof && n.rerr == nil {
			return // too little to tell yet
		}
		n.started = true
		n.line, n.col = 1, 1
		if bytes.HasPrefix(buf[:n.hi], []byte(BOM)) {
			n.lo, n.ok = len(BOM), len(BOM)
			n.off = int64(len(BOM)) // offsets count the mark; columns do not
		}
	}
	good, _ := n.check(buf[n.ok:n.hi])
	n.ok += good
}

// check returns the length of the text at the start of b: valid UTF-8
// without NUL bytes. When it stops before the end of b it sets bad (what
// stops it), or says to wait for the rest of a character that b ends in
// the middle of (when r may give more).
func (n *textReader) check(b []byte) (good int, wait bool) {
	nul := bytes.IndexByte(b, 0)
	if nul >= 0 {
		b = b[:nul]
	}
	j := validPrefix(b)
	if m := bytes.Index(b[:j], []byte(BOM)); m >= 0 {
		// A mark after the start (two files joined with cat, say) would
		// otherwise become part of a name, invisibly.
		n.bad = 2
		return m, false
	}
	switch {
	case j < len(b) && (utf8.FullRune(b[j:]) || n.eof || n.rerr != nil || nul >= 0):
		n.bad = 0xFF // not UTF-8, or a character cut by the end or a NUL byte
	case j < len(b):
		wait = true
	case nul >= 0:
		n.bad = 1
	}
	return j, wait
}

// validPrefix returns the length of the longest prefix of b that is valid
// UTF-8 (a character cut at the end of b is not counted).
func validPrefix(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	i := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return i
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
		*t = &srcpos.Error{Pos: srcpos.Position{File: e.Name, Line: e.Line, Col: e.Col}, Msg: e.msg()}
	}
	return ok
}

func (e *BinaryError) msg() string {
	return fmt.Sprintf("%s is not a text file: a NUL byte at byte %d (binary data, UTF-16 or a device such as /dev/zero)", Clip(e.Name), e.Offset+1)
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", Clip(e.Name), e.Line, e.Col, e.msg())
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
// format: a byte-order mark is skipped, a NUL byte and invalid UTF-8 are
// refused (see NewReader) and a line may hold up to MaxLine bytes. The
// lines before such a byte are scanned; the line it cuts is not (the
// scanner stops with the error instead of handing out a truncated line).
// Report its error with ScanError.
func NewScanner(r io.Reader, name string) *bufio.Scanner {
	tr := &textReader{r: r, name: name}
	sc := bufio.NewScanner(tr)
	sc.Buffer(make([]byte, 64<<10), MaxLine())
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && tr.err != nil && bytes.IndexByte(data, '\n') < 0 {
			return 0, nil, tr.err
		}
		return bufio.ScanLines(data, atEOF)
	})
	return sc
}

// ScanError describes the error of a NewScanner scanner that had read lines
// lines when it stopped: binary data and invalid UTF-8 as BinaryError and
// EncodingError say, an over-long line
// with its number, anything else prefixed with name.
func ScanError(err error, name string, lines int) error {
	var be *BinaryError
	var fe *FullError
	var ee *EncodingError
	switch {
	case errors.As(err, &be), errors.As(err, &fe), errors.As(err, &ee):
		return err
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: the line is longer than %s (is this a text file of the right kind?)", Clip(name), lines+1, memlimit.Format(int64(MaxLine())))
	}
	return fmt.Errorf("%s: %w", Clip(name), err)
}
