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
)

// Reader reads a cache file block by block. It implements dcd.Source.
// Block may be called by one goroutine at a time; the rest are read-only.
type Reader struct {
	f       *os.File
	name    string
	size    int64
	numVars int
	tmpl    []template
	offs    []int64 // block offsets, then the footer's
	pot     []int64 // first potential of each block, then the total
	con     []int64
	buf     []byte
	checked []bool // blocks decoded once with every check (see decode)
}

// FormatError says what is wrong with a cache file and where.
type FormatError struct {
	File  string
	Block int // -1 for the header or footer
	What  string
}

// Error says what is wrong, where, and what to do.
func (e *FormatError) Error() string {
	if e.Block >= 0 {
		return fmt.Sprintf("%s: block %d: %s (the cache is damaged; delete it to ground again)", e.File, e.Block, e.What)
	}
	return fmt.Sprintf("%s: %s (not a complete hinge cache file; delete it to ground again)", e.File, e.What)
}

// Open opens and checks a cache file's header, footer and block index.
// Each block's checksum is checked when the block is read.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := open(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func open(f *os.File, path string) (*Reader, error) {
	bad := func(format string, a ...any) error {
		return &FormatError{File: path, Block: -1, What: fmt.Sprintf(format, a...)}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < headerSize+16 {
		return nil, bad("%d bytes is too short", size)
	}
	var h [headerSize]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, err
	}
	if string(h[:8]) != headerMagic {
		return nil, bad("no %s header", headerMagic)
	}
	nv := binary.LittleEndian.Uint64(h[8:])
	if nv > math.MaxInt32 {
		return nil, bad("%d variables out of range", nv)
	}
	var tail [16]byte
	if _, err := f.ReadAt(tail[:], size-16); err != nil {
		return nil, err
	}
	if string(tail[8:]) != footerMagic {
		return nil, bad("no %s trailer (a write that did not finish?)", footerMagic)
	}
	fstart := int64(binary.LittleEndian.Uint64(tail[:8]))
	if fstart < headerSize || fstart > size-16-4 {
		return nil, bad("footer offset %d out of range", fstart)
	}
	foot := make([]byte, size-16-fstart)
	if _, err := f.ReadAt(foot, fstart); err != nil {
		return nil, err
	}
	body, sum := foot[:len(foot)-4], binary.LittleEndian.Uint32(foot[len(foot)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return nil, bad("footer checksum mismatch")
	}
	r := &Reader{f: f, name: path, size: size, numVars: int(nv)}
	d := body
	need := func(n int) bool { return len(d) >= n }
	if !need(4) {
		return nil, bad("footer truncated")
	}
	nt := int(binary.LittleEndian.Uint32(d))
	d = d[4:]
	if nt < 1 || !need(nt*14+4) {
		return nil, bad("template table of %d entries does not fit the footer", nt)
	}
	r.tmpl = make([]template, nt)
	for i := range r.tmpl {
		t := template{kind: d[0], power: d[1], weight: math.Float64frombits(binary.LittleEndian.Uint64(d[2:])), group: int32(binary.LittleEndian.Uint32(d[10:]))}
		if err := t.check(); err != nil && i > 0 {
			return nil, bad("template %d: %v", i, err)
		}
		r.tmpl[i] = t
		d = d[14:]
	}
	nb := int(binary.LittleEndian.Uint32(d))
	d = d[4:]
	if len(d) != nb*8+16 {
		return nil, bad("block index of %d blocks does not fit the footer", nb)
	}
	r.offs = make([]int64, nb+1)
	for b := range nb {
		r.offs[b] = int64(binary.LittleEndian.Uint64(d[8*b:]))
	}
	r.offs[nb] = fstart
	d = d[8*nb:]
	pots, cons := binary.LittleEndian.Uint64(d), binary.LittleEndian.Uint64(d[8:])
	r.pot, r.con = make([]int64, nb+1), make([]int64, nb+1)
	r.checked = make([]bool, nb)
	var hb [blockHeader]byte
	for b := range nb {
		if r.offs[b] < headerSize || r.offs[b]+blockHeader > r.offs[b+1] {
			return nil, bad("block %d offset %d out of order", b, r.offs[b])
		}
		if _, err := f.ReadAt(hb[:], r.offs[b]); err != nil {
			return nil, err
		}
		np, nc, n := binary.LittleEndian.Uint32(hb[0:]), binary.LittleEndian.Uint32(hb[4:]), binary.LittleEndian.Uint32(hb[8:])
		if r.offs[b]+blockHeader+int64(n) != r.offs[b+1] {
			return nil, bad("block %d: %d payload bytes do not end where the next block starts", b, n)
		}
		if uint64(np)+uint64(nc) > uint64(n)/minTermBytes {
			// The counts are not under the block's checksum: bound them
			// by the payload before anything is sized by them.
			return nil, bad("block %d: %d terms cannot fit %d bytes", b, uint64(np)+uint64(nc), n)
		}
		r.pot[b+1], r.con[b+1] = r.pot[b]+int64(np), r.con[b]+int64(nc)
	}
	if nb > 0 && r.offs[0] != headerSize {
		return nil, bad("first block at %d, want %d", r.offs[0], headerSize)
	}
	if uint64(r.pot[nb]) != pots || uint64(r.con[nb]) != cons {
		return nil, bad("blocks hold %d potentials and %d constraints, footer says %d and %d", r.pot[nb], r.con[nb], pots, cons)
	}
	return r, nil
}

func (t template) check() error {
	switch {
	case t.kind > kindEqual:
		return fmt.Errorf("kind %d", t.kind)
	case t.kind == kindPotential && t.power != 1 && t.power != 2:
		return fmt.Errorf("power %d", t.power)
	case t.kind == kindPotential && !(t.weight >= 0 && t.weight <= math.MaxFloat64):
		return fmt.Errorf("weight %v", t.weight)
	}
	return nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Name is the file's path.
func (r *Reader) Name() string { return r.name }

// NumVars is the number of variables.
func (r *Reader) NumVars() int { return r.numVars }

// NumBlocks is the number of blocks.
func (r *Reader) NumBlocks() int { return len(r.offs) - 1 }

// PotStart is the first potential of block b (the total for b = NumBlocks).
func (r *Reader) PotStart(b int) int64 { return r.pot[b] }

// ConStart is the first constraint of block b (the total for b = NumBlocks).
func (r *Reader) ConStart(b int) int64 { return r.con[b] }

// Size is the file's size in bytes.
func (r *Reader) Size() int64 { return r.size }

// Block decodes block b into scratch (reset first; a new problem when nil)
// and returns it. Its variables are the cached problem's columns.
func (r *Reader) Block(b int, scratch *hlmrf.Problem) (*hlmrf.Problem, error) {
	if b < 0 || b >= r.NumBlocks() {
		return nil, fmt.Errorf("cache: block %d out of range [0, %d)", b, r.NumBlocks())
	}
	p := scratch
	if p == nil {
		p = &hlmrf.Problem{}
	}
	p.Reset()
	p.NumVars = r.numVars
	n := r.offs[b+1] - r.offs[b]
	r.buf = growTo(r.buf, int(n))
	if _, err := r.f.ReadAt(r.buf, r.offs[b]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: block %d: %w", r.name, b, err)
	}
	payload := r.buf[blockHeader:]
	if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(r.buf[12:]) {
		return nil, &FormatError{File: r.name, Block: b, What: "checksum mismatch"}
	}
	np := int(r.pot[b+1] - r.pot[b])
	nc := int(r.con[b+1] - r.con[b])
	if err := r.decode(payload, np, nc, p, !r.checked[b]); err != nil {
		return nil, &FormatError{File: r.name, Block: b, What: err.Error()}
	}
	r.checked[b] = true
	return p, nil
}

// decode fills p from a block's payload of np potentials and nc constraints.
// With first it also checks that no term repeats a variable; a block whose
// checksum matches decodes the same every time, so that check (the only one
// that costs per term) runs on a block's first read only, not every epoch.
func (r *Reader) decode(d []byte, np, nc int, p *hlmrf.Problem, first bool) error {
	pos := 0
	uv := func() (uint64, error) {
		x, n := binary.Uvarint(d[pos:])
		if n <= 0 {
			return 0, errors.New("truncated or overlong number")
		}
		pos += n
		return x, nil
	}
	f64 := func() (float64, error) {
		if len(d)-pos < 8 {
			return 0, errors.New("truncated number")
		}
		x := math.Float64frombits(binary.LittleEndian.Uint64(d[pos:]))
		pos += 8
		return x, nil
	}
	prev := int64(0)
	p.Start = append(p.Start, 0)
	p.CStart = append(p.CStart, 0)
	for i := range np + nc {
		if i == np {
			prev = 0 // the constraints' variables are coded apart
		}
		ti, err := uv()
		if err != nil {
			return err
		}
		var t template
		switch {
		case ti == 0:
			if len(d)-pos < 2 {
				return errors.New("truncated template")
			}
			t.kind, t.power = d[pos], d[pos+1]
			pos += 2
			if t.weight, err = f64(); err != nil {
				return err
			}
			g, err := uv()
			if err != nil {
				return err
			}
			if g > math.MaxUint32 {
				return fmt.Errorf("group %d out of range", g)
			}
			t.group = int32(uint32(g))
			if err := t.check(); err != nil {
				return fmt.Errorf("inline template: %v", err)
			}
		case ti < uint64(len(r.tmpl)):
			t = r.tmpl[ti]
		default:
			return fmt.Errorf("template %d out of range", ti)
		}
		if (i < np) != (t.kind == kindPotential) {
			return fmt.Errorf("term %d: a %s where a %s belongs", i, kindName(t.kind), kindName(map[bool]uint8{true: kindPotential, false: kindLessEq}[i < np]))
		}
		k, err := uv()
		if err != nil {
			return err
		}
		if k > uint64(len(d)-pos) {
			return fmt.Errorf("term %d: %d variables cannot fit the block", i, k)
		}
		if pos >= len(d) {
			return errors.New("truncated constant")
		}
		c := float64(int(d[pos]) - 127)
		pos++
		if d[pos-1] == 255 {
			if c, err = f64(); err != nil {
				return err
			}
			if math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("term %d: constant %v", i, c)
			}
		}
		vars, coefs := &p.Var, &p.Coef
		if i >= np {
			vars, coefs = &p.CVar, &p.CCoef
		}
		for range k {
			x, err := uv()
			if err != nil {
				return err
			}
			code := x & 3
			z := x >> 2
			v := prev + (int64(z>>1) ^ -int64(z&1))
			if v < 0 || v >= int64(r.numVars) {
				return fmt.Errorf("term %d: variable %d out of range [0, %d)", i, v, r.numVars)
			}
			prev = v
			coef := 1.0
			switch code {
			case 1:
				coef = -1
			case 2:
				if coef, err = f64(); err != nil {
					return err
				}
				if coef == 0 || math.IsNaN(coef) || math.IsInf(coef, 0) {
					return fmt.Errorf("term %d: coefficient %v", i, coef)
				}
			case 3:
				return fmt.Errorf("term %d: coefficient code 3", i)
			}
			*vars = append(*vars, int32(v))
			*coefs = append(*coefs, coef)
		}
		if row := (*vars)[len(*vars)-int(k):]; first && hasRepeat(row) {
			return fmt.Errorf("term %d: a variable appears twice", i)
		}
		if i < np {
			p.Weight = append(p.Weight, t.weight)
			p.Const = append(p.Const, c)
			p.Power = append(p.Power, t.power)
			p.Group = append(p.Group, t.group)
			p.Start = append(p.Start, int32(len(p.Var)))
		} else {
			kind := hlmrf.LessEq
			if t.kind == kindEqual {
				kind = hlmrf.Equal
			}
			p.CKind = append(p.CKind, kind)
			p.CConst = append(p.CConst, c)
			p.CGroup = append(p.CGroup, t.group)
			p.CStart = append(p.CStart, int32(len(p.CVar)))
		}
	}
	if pos != len(d) {
		return fmt.Errorf("%d bytes after the last term", len(d)-pos)
	}
	return nil
}

// hasRepeat reports whether a row names a variable twice (the writer's
// problems never do: hlmrf merges repeated variables).
func hasRepeat(row []int32) bool {
	if len(row) <= 16 {
		for i := 1; i < len(row); i++ {
			if slices.Contains(row[:i], row[i]) {
				return true
			}
		}
		return false
	}
	seen := make(map[int32]bool, len(row))
	for _, v := range row {
		if seen[v] {
			return true
		}
		seen[v] = true
	}
	return false
}

func kindName(k uint8) string {
	switch k {
	case kindPotential:
		return "potential"
	case kindLessEq, kindEqual:
		return "constraint"
	}
	return fmt.Sprintf("kind %d", k)
}

// ReadAll reads the whole cached problem into memory.
func (r *Reader) ReadAll() (*hlmrf.Problem, error) {
	all := &hlmrf.Problem{NumVars: r.numVars, Start: []int32{0}, CStart: []int32{0}}
	var scratch hlmrf.Problem
	for b := range r.NumBlocks() {
		p, err := r.Block(b, &scratch)
		if err != nil {
			return nil, err
		}
		all.Append(p, false)
	}
	return all, nil
}
