// Package cache stores a ground hinge-loss MRF on disk in a compact binary
// form that is written once, as it is grounded, and read back block by block
// (by the streaming solver, package dcd), so that a problem never has to be
// in memory whole.
//
// # Format
//
// All integers are little-endian; uvarint is encoding/binary's. A file is
//
//	header   "HINGEPC1" | numVars u64
//	blocks   each: potentials u32 | constraints u32 | payload bytes u32 | CRC-32C of payload u32 | payload
//	footer   templates u32 | templates (kind u8, power u8, weight f64, group i32) |
//	         blocks u32 | per block: offset u64 |
//	         potentials u64 | constraints u64 | CRC-32C of the footer so far u32 |
//	         footer offset u64 | "HINGEEND"
//
// A payload holds the block's potentials, then its constraints, each as
//
//	uvarint template | uvarint terms | constant | terms
//
// where the template (an index into the footer's table) gives the kind
// (potential, <= or =), power, weight and group; index 0 is reserved for a
// template written inline (kind u8, power u8, weight f64, uvarint of the
// group as a uint32),
// used once the table holds maxTemplates entries. The constant is one byte
// b < 255 standing for the integer b-127, or 255 and an f64. Each term is
// uvarint(zigzag(v - prev)<<2 | c), where prev is the previous variable of
// the block's potentials, or of its constraints (0 at the start of each),
// and c is 0 for a coefficient of +1, 1 for -1
// and 2 when an f64 coefficient follows.
//
// Files are written to a temporary name and renamed when complete, and
// every block and the footer carry a checksum, so a killed writer leaves no
// file and a damaged file is refused, naming the block.
package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"

	"github.com/hinge-srl/hinge/hlmrf"
	"github.com/hinge-srl/hinge/internal/atomicfile"
)

const (
	headerMagic = "HINGEPC1"
	footerMagic = "HINGEEND"
	headerSize  = 16
	blockHeader = 16
	// maxTemplates bounds the footer's template table; further distinct
	// (kind, power, weight, group) combinations are written inline.
	maxTemplates = 1 << 16
	// blockBytes is the payload size at which a block is closed.
	blockBytes = 1 << 20
	// minTermBytes is the fewest bytes a term takes (template, count and
	// constant, one byte each).
	minTermBytes = 3
	// Term kinds of a template.
	kindPotential = 0
	kindLessEq    = 1
	kindEqual     = 2
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type template struct {
	kind, power uint8
	weight      float64
	group       int32
}

// Writer encodes a problem into a cache file's bytes as it is added.
type Writer struct {
	w       io.Writer
	numVars int
	off     uint64 // bytes written so far

	tmpl    []template
	tmplIdx map[template]int

	buf      [2][]byte // the open block's payload: potentials, constraints
	prev     [2]int32  // previous variable of each part
	npot     uint32    // potentials in the open block
	ncon     uint32
	blocks   []uint64
	pots     uint64
	cons     uint64
	finished bool
	err      error // the first error: the Writer takes nothing after it
}

// NewWriter starts a cache of a problem with numVars variables on w.
func NewWriter(w io.Writer, numVars int) (*Writer, error) {
	if numVars < 0 || numVars > math.MaxInt32 {
		return nil, fmt.Errorf("cache: %d variables out of range", numVars)
	}
	cw := &Writer{w: w, numVars: numVars, tmpl: []template{{}}, tmplIdx: map[template]int{}}
	var h [headerSize]byte
	copy(h[:], headerMagic)
	binary.LittleEndian.PutUint64(h[8:], uint64(numVars))
	if err := cw.write(h[:]); err != nil {
		return nil, err
	}
	return cw, nil
}

func (cw *Writer) write(b []byte) error {
	n, err := cw.w.Write(b)
	cw.off += uint64(n)
	return err
}

// Err returns the first error an Add or Finish met (a failed write, or a
// problem the format cannot hold), nil when there was none: a caller whose
// fill function fails can tell the cache's own error from its own.
func (cw *Writer) Err() error { return cw.err }

// IsCacheFile reports whether the file at path begins as a cache file
// does (its header's magic), so that a command replacing a cache file can
// refuse to replace anything else.
func IsCacheFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(headerMagic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == headerMagic
}

// Add appends p's potentials and then its constraints (variables are
// columns of the cached problem; p.NumVars is not looked at).
func (cw *Writer) Add(p *hlmrf.Problem) error {
	if cw.err == nil {
		cw.err = cw.add(p)
	}
	return cw.err
}

func (cw *Writer) add(p *hlmrf.Problem) error {
	if cw.finished {
		return errors.New("cache: Add after Finish")
	}
	for i := range p.Weight {
		vs, cs := p.Terms(i)
		if err := cw.addTerm(0, template{kindPotential, p.Power[i], p.Weight[i], p.Group[i]}, p.Const[i], vs, cs); err != nil {
			return err
		}
		cw.npot++
		cw.pots++
	}
	for j := range p.CKind {
		vs, cs := p.CTerms(j)
		k := uint8(kindLessEq)
		if p.CKind[j] == hlmrf.Equal {
			k = kindEqual
		}
		if err := cw.addTerm(1, template{kind: k, group: p.CGroup[j]}, p.CConst[j], vs, cs); err != nil {
			return err
		}
		cw.ncon++
		cw.cons++
	}
	return nil
}

// addTerm encodes a potential (part 0) or a constraint (part 1).
func (cw *Writer) addTerm(part int, t template, c float64, vs []int32, cs []float64) error {
	if err := t.check(); err != nil {
		return fmt.Errorf("cache: %s: %v", kindName(t.kind), err)
	}
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("cache: %s: constant %v", kindName(t.kind), c)
	}
	for k, x := range cs {
		if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("cache: %s: coefficient %v of variable %d", kindName(t.kind), x, vs[k])
		}
	}
	if len(vs) != len(cs) || hasRepeat(vs) {
		return fmt.Errorf("cache: %s: variables and coefficients differ in number or repeat a variable", kindName(t.kind))
	}
	if len(cw.buf[0])+len(cw.buf[1]) >= blockBytes {
		if err := cw.flush(); err != nil {
			return err
		}
	}
	b := cw.buf[part]
	idx, ok := cw.tmplIdx[t]
	if !ok && len(cw.tmpl) < maxTemplates {
		idx, ok = len(cw.tmpl), true
		cw.tmpl = append(cw.tmpl, t)
		cw.tmplIdx[t] = idx
	}
	if ok {
		b = binary.AppendUvarint(b, uint64(idx))
	} else {
		b = append(b, 0, t.kind, t.power)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.weight))
		b = binary.AppendUvarint(b, uint64(uint32(t.group)))
	}
	b = binary.AppendUvarint(b, uint64(len(vs)))
	if r := math.Round(c); r == c && r >= -127 && r <= 127 {
		b = append(b, byte(int(r)+127))
	} else {
		b = append(b, 255)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c))
	}
	for k, v := range vs {
		if v < 0 || int(v) >= cw.numVars {
			return fmt.Errorf("cache: variable %d out of range [0, %d)", v, cw.numVars)
		}
		d := int64(v) - int64(cw.prev[part])
		cw.prev[part] = v
		code := uint64(2)
		switch cs[k] {
		case 1:
			code = 0
		case -1:
			code = 1
		}
		b = binary.AppendUvarint(b, uint64(d<<1^d>>63)<<2|code)
		if code == 2 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(cs[k]))
		}
	}
	cw.buf[part] = b
	return nil
}

// flush writes the open block, if it holds anything.
func (cw *Writer) flush() error {
	if cw.npot == 0 && cw.ncon == 0 {
		return nil
	}
	n := len(cw.buf[0]) + len(cw.buf[1])
	if n > math.MaxUint32 {
		return errors.New("cache: block too large")
	}
	cw.blocks = append(cw.blocks, cw.off)
	var h [blockHeader]byte
	binary.LittleEndian.PutUint32(h[0:], cw.npot)
	binary.LittleEndian.PutUint32(h[4:], cw.ncon)
	binary.LittleEndian.PutUint32(h[8:], uint32(n))
	binary.LittleEndian.PutUint32(h[12:], crc32.Update(crc32.Checksum(cw.buf[0], crcTable), crcTable, cw.buf[1]))
	for _, b := range [][]byte{h[:], cw.buf[0], cw.buf[1]} {
		if err := cw.write(b); err != nil {
			return err
		}
	}
	cw.buf[0], cw.buf[1], cw.prev, cw.npot, cw.ncon = cw.buf[0][:0], cw.buf[1][:0], [2]int32{}, 0, 0
	return nil
}

// Finish writes the last block and the footer. The Writer takes no more.
func (cw *Writer) Finish() error {
	if cw.err != nil || cw.finished {
		return cw.err
	}
	cw.err = cw.finish()
	return cw.err
}

func (cw *Writer) finish() error {
	if err := cw.flush(); err != nil {
		return err
	}
	cw.finished = true
	if len(cw.blocks) > math.MaxUint32 {
		return errors.New("cache: too many blocks")
	}
	start := cw.off
	f := binary.LittleEndian.AppendUint32(nil, uint32(len(cw.tmpl)))
	for _, t := range cw.tmpl {
		f = append(f, t.kind, t.power)
		f = binary.LittleEndian.AppendUint64(f, math.Float64bits(t.weight))
		f = binary.LittleEndian.AppendUint32(f, uint32(t.group))
	}
	f = binary.LittleEndian.AppendUint32(f, uint32(len(cw.blocks)))
	for _, o := range cw.blocks {
		f = binary.LittleEndian.AppendUint64(f, o)
	}
	f = binary.LittleEndian.AppendUint64(f, cw.pots)
	f = binary.LittleEndian.AppendUint64(f, cw.cons)
	f = binary.LittleEndian.AppendUint32(f, crc32.Checksum(f, crcTable))
	f = binary.LittleEndian.AppendUint64(f, start)
	f = append(f, footerMagic...)
	return cw.write(f)
}

// Stats describes what was written.
type Stats struct {
	Potentials, Constraints int64
	Blocks                  int
	Bytes                   int64
}

// Stats reports the sizes so far (Bytes counts the footer after Finish).
func (cw *Writer) Stats() Stats {
	return Stats{Potentials: int64(cw.pots), Constraints: int64(cw.cons), Blocks: len(cw.blocks), Bytes: int64(cw.off) + int64(len(cw.buf[0])+len(cw.buf[1]))}
}

// Write creates the cache file path atomically: fill adds the problem's
// pieces in order to the Writer; the file appears, complete, only if fill
// and the writes succeed.
func Write(path string, numVars int, fill func(*Writer) error) (Stats, error) {
	var st Stats
	err := atomicfile.WriteNow(path, func(w io.Writer) error { // read back by the run
		cw, err := NewWriter(w, numVars)
		if err != nil {
			return err
		}
		if err := fill(cw); err != nil {
			return err
		}
		if err := cw.Finish(); err != nil {
			return err
		}
		st = cw.Stats()
		return nil
	})
	return st, err
}

// WriteProblem writes p to path as a cache file.
func WriteProblem(path string, p *hlmrf.Problem) (Stats, error) {
	return Write(path, p.NumVars, func(cw *Writer) error { return cw.Add(p) })
}

// growTo returns s with length n, reusing its storage.
func growTo[T any](s []T, n int) []T { return slices.Grow(s[:0], n)[:n] }
