package cache

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinge-srl/hinge/admm/admmtest"
	"github.com/hinge-srl/hinge/hlmrf"
)

// equalProblems reports the first difference between two problems.
func equalProblems(a, b *hlmrf.Problem) string {
	switch {
	case a.NumVars != b.NumVars:
		return "NumVars"
	case !slices.Equal(a.Weight, b.Weight):
		return "Weight"
	case !slices.Equal(a.Const, b.Const):
		return "Const"
	case !slices.Equal(a.Power, b.Power):
		return "Power"
	case !slices.Equal(a.Group, b.Group):
		return "Group"
	case !slices.Equal(a.Start, b.Start):
		return "Start"
	case !slices.Equal(a.Var, b.Var):
		return "Var"
	case !slices.Equal(a.Coef, b.Coef):
		return "Coef"
	case !slices.Equal(a.CKind, b.CKind):
		return "CKind"
	case !slices.Equal(a.CConst, b.CConst):
		return "CConst"
	case !slices.Equal(a.CGroup, b.CGroup):
		return "CGroup"
	case !slices.Equal(a.CStart, b.CStart):
		return "CStart"
	case !slices.Equal(a.CVar, b.CVar):
		return "CVar"
	case !slices.Equal(a.CCoef, b.CCoef):
		return "CCoef"
	}
	return ""
}

// norm gives an empty problem's offset arrays their leading 0.
func norm(p *hlmrf.Problem) *hlmrf.Problem {
	q := p.Clone()
	if len(q.Start) == 0 {
		q.Start = []int32{0}
	}
	if len(q.CStart) == 0 {
		q.CStart = []int32{0}
	}
	return q
}

// readBack reads the cache file at path whole, failing the test on an
// error, and returns it with its number of blocks.
func readBack(t *testing.T, path string) (*hlmrf.Problem, int) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return p, r.NumBlocks()
}

func testProblems() map[string]*hlmrf.Problem {
	withGroups := admmtest.Clauses(3000, 500, 3, 0, 7)
	for i := range withGroups.Group {
		withGroups.Group[i] = int32(i%5) - 1 // -1 .. 3
		withGroups.Const[i] += float64(i%3) * 0.25
	}
	ints := &hlmrf.Problem{}
	ints.AddVars(10)
	ints.AddPotential(1, -127, 1, 0, []int32{9}, []float64{1})
	ints.AddPotential(1, 127, 2, 0, []int32{0}, []float64{-1})
	ints.AddPotential(1, 128, 1, 0, []int32{0, 9}, []float64{1, 3})
	ints.AddPotential(0, -128, 1, 2, []int32{9, 0}, []float64{0.5, -1})
	ints.AddConstraint(hlmrf.Equal, 0, 1, nil, nil)
	ints.AddConstraint(hlmrf.LessEq, 1e-300, 1, []int32{3}, []float64{-1e300})
	return map[string]*hlmrf.Problem{
		"empty":   {NumVars: 3},
		"ints":    ints,
		"clauses": withGroups,
		// Every weight distinct: past maxTemplates the templates are inline.
		"random": admmtest.Random(admmtest.Config{Vars: 3000, Potentials: maxTemplates + 5000, MinArity: 1, MaxArity: 6,
			Constraints: 2000, EqualFraction: 0.3, ZeroWeights: 0.1, Seed: 3}),
	}
}

func TestRoundTrip(t *testing.T) {
	for name, p := range testProblems() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.cache")
			st, err := WriteProblem(path, p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if st.Bytes != r.Size() || st.Potentials != r.PotStart(r.NumBlocks()) || st.Constraints != r.ConStart(r.NumBlocks()) {
				t.Errorf("stats %+v, file %d bytes, %d potentials, %d constraints", st, r.Size(), r.PotStart(r.NumBlocks()), r.ConStart(r.NumBlocks()))
			}
			got, err := r.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if d := equalProblems(got, norm(p)); d != "" {
				t.Fatalf("read back differs in %s", d)
			}
			if name == "random" && r.NumBlocks() < 2 {
				t.Errorf("%d blocks, want several", r.NumBlocks())
			}
		})
	}
}

// TestBytesPerPotential checks the size of clause-shaped potentials, the
// grounded rules' usual shape: 3 variables with unit coefficients.
func TestBytesPerPotential(t *testing.T) {
	p := admmtest.Clauses(200000, 200000, 3, 2, 1)
	for i := range p.Weight {
		p.Weight[i] = 1
	}
	path := filepath.Join(t.TempDir(), "p.cache")
	st, err := WriteProblem(path, p)
	if err != nil {
		t.Fatal(err)
	}
	per := float64(st.Bytes) / float64(st.Potentials)
	t.Logf("%d potentials over 200,000 variables: %d bytes, %.1f bytes a potential", st.Potentials, st.Bytes, per)
	if per > 16 {
		t.Errorf("%.1f bytes a potential, want at most 16 for 3 unit-coefficient variables", per)
	}
}

// TestKilledWriter: a fill that fails leaves no file (the atomic rename
// never happens) and an old file in place.
func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.cache")
	p := testProblems()["clauses"]
	if _, err := WriteProblem(path, p); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("killed")
	_, err := Write(path, p.NumVars, func(cw *Writer) error {
		if err := cw.Add(p); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left %d files, want the old one only", len(ents))
	}
	if got, _ := readBack(t, path); equalProblems(got, norm(p)) != "" {
		t.Fatalf("old file differs in %s", equalProblems(got, norm(p)))
	}
}

// TestDamage: a truncated file, a flipped byte in a block and one in the
// footer are each refused with a FormatError.
func TestDamage(t *testing.T) {
	p := testProblems()["random"]
	path := filepath.Join(t.TempDir(), "p.cache")
	if _, err := WriteProblem(path, p); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := map[string]func([]byte) []byte{
		"truncated":    func(b []byte) []byte { return b[:len(b)*2/3] },
		"block byte":   func(b []byte) []byte { b[headerSize+blockHeader+1000] ^= 0x10; return b },
		"footer byte":  func(b []byte) []byte { b[len(b)-40] ^= 1; return b },
		"header magic": func(b []byte) []byte { b[0] = 'X'; return b },
		"empty":        func([]byte) []byte { return nil },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.cache")
			if err := os.WriteFile(bad, damage(slices.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(bad)
			if err == nil {
				_, err = r.ReadAll()
				r.Close()
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError", err)
			}
			if !strings.Contains(err.Error(), bad) {
				t.Errorf("%q does not name the file", err)
			}
			if name == "block byte" && fe.Block != 0 {
				t.Errorf("names block %d, want 0", fe.Block)
			}
		})
	}
}

func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	for name, p := range testProblems() {
		if name == "random" {
			continue
		}
		path := filepath.Join(dir, name)
		if _, err := WriteProblem(path, p); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.cache")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			return
		}
		defer r.Close()
		p, err := r.ReadAll()
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("a cache that reads gives an invalid problem: %v", err)
		}
	})
}

// TestPieces: pieces that each hold potentials and constraints (as a
// grounder's rules hand them over) read back as their concatenation, the
// potentials in order and the constraints in order.
func TestPieces(t *testing.T) {
	all := &hlmrf.Problem{NumVars: 50, Start: []int32{0}, CStart: []int32{0}}
	var pieces []*hlmrf.Problem
	for seed := range uint64(40) {
		p := admmtest.Random(admmtest.Config{Vars: 50, Potentials: int(seed % 3 * 3000), MinArity: 1, MaxArity: 4,
			Constraints: int(seed % 2 * 3000), EqualFraction: 0.5, Seed: seed})
		pieces = append(pieces, p)
		all.Append(p, false)
	}
	path := filepath.Join(t.TempDir(), "p.cache")
	if _, err := Write(path, 50, func(w *Writer) error {
		for _, p := range pieces {
			if err := w.Add(p); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, blocks := readBack(t, path)
	if d := equalProblems(got, all); d != "" {
		t.Fatalf("read back differs in %s", d)
	}
	if blocks < 3 {
		t.Errorf("%d blocks: too few to mix pieces across blocks", blocks)
	}
}

// TestKilledProcess: a process killed while writing a cache (SIGKILL: no
// deferred clean-up runs) leaves the old file whole and no new one; only
// its temporary file remains, which Open refuses.
func TestKilledProcess(t *testing.T) {
	if os.Getenv("HINGE_CACHE_KILL_CHILD") != "" {
		p := admmtest.Clauses(1000, 100, 3, 1, 1)
		Write(os.Getenv("HINGE_CACHE_KILL_CHILD"), p.NumVars, func(w *Writer) error {
			for {
				if err := w.Add(p); err != nil {
					return err
				}
				time.Sleep(time.Millisecond)
			}
		})
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ground.cache")
	old := testProblems()["clauses"]
	if _, err := WriteProblem(path, old); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcess$")
	cmd.Env = append(os.Environ(), "HINGE_CACHE_KILL_CHILD="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has written a few blocks.
	var tmp string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if info, err := e.Info(); err == nil && e.Name() != "ground.cache" && info.Size() > 3*blockBytes {
				tmp = filepath.Join(dir, e.Name())
			}
		}
		if tmp != "" {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if tmp == "" {
		t.Fatal("the child wrote no temporary file")
	}
	if got, _ := readBack(t, path); equalProblems(got, norm(old)) != "" {
		t.Fatal("the old cache changed")
	}
	var fe *FormatError
	if _, err := Open(tmp); !errors.As(err, &fe) {
		t.Errorf("the killed writer's temporary file opens: %v", err)
	}
}

// FuzzDecode decodes arbitrary payloads as a block (past the checksum, which
// random mutations of whole files almost never get through): never a
// panic, and a payload that decodes is a valid problem.
func FuzzDecode(f *testing.F) {
	path := filepath.Join(f.TempDir(), "p.cache")
	p := testProblems()["ints"]
	if _, err := WriteProblem(path, p); err != nil {
		f.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer r.Close()
	b, _ := os.ReadFile(path)
	f.Add(b[r.offs[0]+blockHeader:r.offs[1]], uint8(p.NumPotentials()), uint8(p.NumConstraints()))
	f.Fuzz(func(t *testing.T, payload []byte, np, nc uint8) {
		var q hlmrf.Problem
		q.NumVars = r.NumVars()
		if int(np)+int(nc) > len(payload)/minTermBytes {
			return // Open refuses such counts
		}
		if err := r.decode(payload, int(np), int(nc), &q, true); err != nil {
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("a payload that decodes gives an invalid problem: %v", err)
		}
	})
}

// TestWriterRefuses: the writer refuses what the reader would refuse,
// before writing any of it.
func TestWriterRefuses(t *testing.T) {
	for name, add := range map[string]func(p *hlmrf.Problem){
		"negative weight": func(p *hlmrf.Problem) { p.AddPotential(-1, 0, 1, 0, []int32{0}, []float64{1}) },
		"power 3":         func(p *hlmrf.Problem) { p.AddPotential(1, 0, 3, 0, []int32{0}, []float64{1}) },
		"NaN constant":    func(p *hlmrf.Problem) { p.AddPotential(1, math.NaN(), 1, 0, []int32{0}, []float64{1}) },
		"Inf coefficient": func(p *hlmrf.Problem) { p.AddConstraint(hlmrf.LessEq, 0, 0, []int32{0}, []float64{math.Inf(1)}) },
	} {
		p := &hlmrf.Problem{NumVars: 2}
		add(p)
		if _, err := WriteProblem(filepath.Join(t.TempDir(), "p.cache"), p); err == nil {
			t.Errorf("%s: written", name)
		}
	}
	// Groups below -1 round-trip (inline templates code them as uint32).
	p := &hlmrf.Problem{NumVars: 2}
	for i := range maxTemplates + 2 {
		p.AddPotential(float64(i), 0, 1, int32(-i), []int32{0}, []float64{1})
	}
	path := filepath.Join(t.TempDir(), "p.cache")
	if _, err := WriteProblem(path, p); err != nil {
		t.Fatal(err)
	}
	got, _ := readBack(t, path)
	if d := equalProblems(got, norm(p)); d != "" {
		t.Fatalf("differs in %s", d)
	}
}
