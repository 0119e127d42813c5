package measure

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %g, want %g", tc.xs, got, tc.want)
		}
	}
}

func TestStartCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := StartCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	x := 0.0
	for i := range 1000000 {
		x += float64(i)
	}
	_ = x
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile not written: %v %v", fi, err)
	}
	// No path: nothing to start, stop is a no-op.
	if stop, err := StartCPUProfile(""); err != nil || stop() != nil {
		t.Fatal("empty path", err)
	}
	if _, err := StartCPUProfile(filepath.Join(t.TempDir(), "no", "such", "dir", "p")); err == nil {
		t.Fatal("no error for an uncreatable file")
	}
}

// TestPeakRSS: the peak counts memory the process touched, and survives
// ResetPeak only as what is resident now.
func TestPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status: the peak is not known here")
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	if p := PeakRSSMB(); p < 64 {
		t.Fatalf("peak %.1f MB after touching 64 MB", p)
	}
	runtime.KeepAlive(b)
	ResetPeak()
	if p := PeakRSSMB(); p <= 0 {
		t.Fatalf("peak %.1f MB after ResetPeak", p)
	}
}
