package dcd

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
)

// dualStore keeps one float32 dual per term: the potentials' first, then
// the constraints'. load returns the duals of np potentials from pot and nc
// constraints from con (con counts from the start of the store, past every
// potential), possibly in the buffers pa and ca; store writes them back.
type dualStore interface {
	load(pot, np, con, nc int64, pa, ca []float32) ([]float32, []float32, error)
	store(pot int64, pa []float32, con int64, ca []float32) error
}

// memDuals keeps the duals in memory; load returns views.
type memDuals struct{ a []float32 }

func (m *memDuals) load(pot, np, con, nc int64, _, _ []float32) ([]float32, []float32, error) {
	return m.a[pot : pot+np], m.a[con : con+nc], nil
}

func (m *memDuals) store(int64, []float32, int64, []float32) error { return nil }

// fileDuals keeps the duals in a file of little-endian float32s.
type fileDuals struct {
	f   *os.File
	buf []byte
}

func newFileDuals(path string, terms int64) (*fileDuals, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dcd: dual file: %w", err)
	}
	if err := f.Truncate(4 * terms); err != nil { // zeros: every dual starts at 0
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("dcd: dual file %s: %w", path, err)
	}
	return &fileDuals{f: f}, nil
}

func (d *fileDuals) close() {
	if d.f != nil {
		name := d.f.Name()
		d.f.Close()
		os.Remove(name)
		d.f = nil
	}
}

func (d *fileDuals) read(off, n int64, dst []float32) ([]float32, error) {
	if d.f == nil {
		return nil, errClosed
	}
	dst = slices.Grow(dst[:0], int(n))[:n]
	d.buf = slices.Grow(d.buf[:0], int(4*n))[:4*n]
	if _, err := d.f.ReadAt(d.buf, 4*off); err != nil {
		return nil, fmt.Errorf("dcd: reading duals from %s: %w", d.f.Name(), err)
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.buf[4*i:]))
	}
	return dst, nil
}

func (d *fileDuals) write(off int64, src []float32) error {
	if d.f == nil {
		return errClosed
	}
	d.buf = slices.Grow(d.buf[:0], 4*len(src))[:4*len(src)]
	for i, a := range src {
		binary.LittleEndian.PutUint32(d.buf[4*i:], math.Float32bits(a))
	}
	if _, err := d.f.WriteAt(d.buf, 4*off); err != nil {
		return fmt.Errorf("dcd: writing duals to %s: %w", d.f.Name(), err)
	}
	return nil
}

func (d *fileDuals) load(pot, np, con, nc int64, pa, ca []float32) ([]float32, []float32, error) {
	pa, err := d.read(pot, np, pa)
	if err != nil {
		return nil, nil, err
	}
	ca, err = d.read(con, nc, ca)
	return pa, ca, err
}

func (d *fileDuals) store(pot int64, pa []float32, con int64, ca []float32) error {
	if err := d.write(pot, pa); err != nil {
		return err
	}
	return d.write(con, ca)
}
