package hlmrf

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func readExample1(t *testing.T) *Problem {
	t.Helper()
	f, err := os.Open("testdata/example1.hlmrf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Read(f, "example1.hlmrf")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExample1Objective(t *testing.T) {
	p := readExample1(t)
	if p.NumVars != 4 || p.NumPotentials() != 4 || p.NumConstraints() != 0 {
		t.Fatalf("got %d vars %d potentials %d constraints", p.NumVars, p.NumPotentials(), p.NumConstraints())
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	// Closed form at an arbitrary point.
	y := []float64{0.9, 0.2, 0.3, 0.6}
	sq := func(x float64) float64 { x = math.Max(x, 0); return x * x }
	want := 5*sq(y[0]-y[1]) + 5*sq(-y[0]+y[1]+y[3]-1) + 5*sq(y[0]-y[3]) + 5*sq(-y[2]+1)
	if got := p.Objective(y); math.Abs(got-want) > 1e-12 {
		t.Fatalf("objective %v, want %v", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	p := readExample1(t)
	p.AddVars(2) // an isolated variable column must survive the round trip
	p.AddConstraint(Equal, 1, -1, []int32{0, 1, 4}, []float64{1, 1, 1})
	p.AddConstraint(LessEq, 0.5, -1, []int32{5}, []float64{-0.25})
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := Read(&buf, "roundtrip")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(p, q); diff != "" {
		t.Fatalf("round trip changed the problem (-want +got):\n%s", diff)
	}
}

func TestAddMergesRepeatedVariables(t *testing.T) {
	var p Problem
	p.AddVars(3)
	p.AddPotential(1, 0, 1, 0, []int32{0, 1, 0, 2}, []float64{1, 1, -1, 2})
	vars, coefs := p.Terms(0)
	if diff := cmp.Diff([]int32{1, 2}, vars); diff != "" {
		t.Fatal(diff)
	}
	if diff := cmp.Diff([]float64{1, 2}, coefs); diff != "" {
		t.Fatal(diff)
	}
	long := make([]int32, 100)
	lc := make([]float64, 100)
	for i := range long {
		long[i] = int32(i % 3)
		lc[i] = 1
	}
	p.AddConstraint(Equal, 1, 0, long, lc)
	vars, coefs = p.CTerms(0)
	if diff := cmp.Diff([]int32{0, 1, 2}, vars); diff != "" {
		t.Fatal(diff)
	}
	if diff := cmp.Diff([]float64{34, 33, 33}, coefs); diff != "" {
		t.Fatal(diff)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestArg checks the signed arguments, which Hinge and ConstraintViolation
// clip.
func TestArg(t *testing.T) {
	var p Problem
	p.AddVars(2)
	p.AddPotential(1, 0.5, 1, -1, []int32{0, 1}, []float64{1, -2})
	p.AddConstraint(LessEq, 1, -1, []int32{1}, []float64{3})
	y := []float64{0.25, 0.5}
	if got := p.Arg(0, y); got != -1.25 {
		t.Errorf("Arg = %v, want 0.25 - 1 - 0.5 = -1.25", got)
	}
	if got := p.Hinge(0, y); got != 0 {
		t.Errorf("Hinge = %v, want 0", got)
	}
	if got := p.CArg(0, y); got != 0.5 {
		t.Errorf("CArg = %v, want 1.5 - 1 = 0.5", got)
	}
}

func TestViolations(t *testing.T) {
	var p Problem
	p.AddVars(2)
	p.AddConstraint(Equal, 1, -1, []int32{0, 1}, []float64{1, 1})
	p.AddConstraint(LessEq, 0.5, -1, []int32{0}, []float64{1})
	v := p.Violations([]float64{0.9, 0.3}, 1e-9)
	if v.Violated != 2 || math.Abs(v.Max-0.4) > 1e-12 || v.Worst != 1 {
		t.Fatalf("got %+v", v)
	}
	v = p.Violations([]float64{0.5, 0.5}, 1e-9)
	if v.Violated != 0 || v.Max != 0 || v.Worst != -1 {
		t.Fatalf("got %+v", v)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bad weight", "x 0:1 1:1\n", "in:1:1: expected a finite nonnegative weight"},
		{"negative weight", "1 0:0 1:1\n-2 1:1\n", "in:2:1: expected a finite nonnegative weight"},
		{"no colon", "1 0:1 1\n", "in:1:7: expected column:value"},
		{"bad column", "1 0:1 a:1\n", "in:1:7: bad column"},
		{"bad value", "1 0:1 2:x\n", "in:1:9: bad value"},
		{"nan value", "1 0:1 2:NaN\n", "in:1:9: bad value"},
		{"bad power", "1 0:1 2:1 #^3\n", "in:1:12: expected ^1 or ^2"},
		{"power on constraint", "= 0:1 2:1 #^2\n", "in:1:11: a constraint line takes no"},
		{"declared too few", "# variables: 1\n1 0:1 2:1\n", "in:2:7: column 2 is out of range: '# variables: 1' (line 1) declares 1 variable columns"},
		{"declared too few, later", "1 0:1 1:1\n1 0:1 1:1 3:1 2:1\n<= 0:1 3:1\n# variables: 2\n", "in:2:11: column 3 is out of range: '# variables: 2' (line 4)"},
		{"out of range in a constraint", "# variables: 2\n1 0:1 1:1\n>= 0:1 1:1 7:2\n", "in:3:12: column 7 is out of range"},
		{"bad declaration", "# variables: many\n", "in:1:2: bad variable count"},
		// Two counts that disagree: the last was taken silently.
		{"two declarations", "# variables: 1\n1 0:0 1:-1\n# variables: 3\n1 0:0 3:-1\n", "in:3:2: '# variables: 3' contradicts '# variables: 1' on line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "in")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add("5 0:0 1:1 2:-1 #^2\n= 0:1 1:1 2:1\n")
	f.Add("# variables: 3\n<= 0:1 3:2\n>= 2:1\n")
	f.Add("1 0:1 1:1 1:-1 # ^1\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Read(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Read accepted a problem that does not validate: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		q, err := Read(&buf, "again")
		if err != nil {
			t.Fatalf("cannot re-read written problem: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(p, q, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("write/read changed the problem:\n%s", diff)
		}
	})
}

// TestValidateOptions checks that each option relaxes its rule alone.
func TestValidateOptions(t *testing.T) {
	zero := &Problem{NumVars: 2}
	zero.AddPotential(1, 0, 1, -1, []int32{0, 1}, []float64{1, 1})
	zero.Coef[1] = 0
	repeat := &Problem{NumVars: 2}
	repeat.AddPotential(1, 0, 1, -1, []int32{0, 1}, []float64{1, 1})
	repeat.Var[1] = 0
	for _, tc := range []struct {
		p    *Problem
		opt  ValidateOption
		want string
	}{{zero, AllowZeroCoefs, "nonzero"}, {repeat, AllowRepeatedVars, "twice"}} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: error %v, want one containing %q", err, tc.want)
		}
		if err := tc.p.Validate(tc.opt); err != nil {
			t.Errorf("Validate(%d): %v", tc.opt, err)
		}
	}
	if err := (&Problem{NumVars: -1}).Validate(AllowZeroCoefs, AllowRepeatedVars); err == nil {
		t.Error("a negative variable count was accepted")
	}
}
