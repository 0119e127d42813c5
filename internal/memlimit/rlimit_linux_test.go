package memlimit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestVMSize reads the mapped size from a status file as the kernel
// writes it, and 0 from one without it.
func TestVMSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "status")
	if err := os.WriteFile(p, []byte("Name:\thinge\nVmPeak:\t  900000 kB\nVmSize:\t  812345 kB\nVmRSS:\t 1234 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := vmSize(p); got != 812345<<10 {
		t.Errorf("vmSize = %d, want %d", got, 812345<<10)
	}
	if err := os.WriteFile(p, []byte("Name:\thinge\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := vmSize(p); got != 0 {
		t.Errorf("vmSize without VmSize = %d, want 0", got)
	}
}

// TestAvailableUnderUlimit runs this test binary again under ulimit -v:
// Available is then below the limit (by what the process has mapped),
// where it ignored it and a run died of Go's out-of-memory error instead
// of refusing the work.
func TestAvailableUnderUlimit(t *testing.T) {
	if v := os.Getenv("HINGE_TEST_ULIMIT_CHILD"); v != "" {
		limit, _ := strconv.ParseInt(v, 10, 64)
		if a := Available(); a <= 0 || a >= limit {
			fmt.Printf("Available %d under a limit of %d\n", a, limit)
			os.Exit(3)
		}
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set ulimit -v with")
	}
	const kb = 2 << 20 // 2 GiB
	cmd := exec.Command(sh, "-c", fmt.Sprintf("ulimit -v %d && exec %q -test.run '^TestAvailableUnderUlimit$'", kb, os.Args[0]))
	cmd.Env = append(os.Environ(), fmt.Sprintf("HINGE_TEST_ULIMIT_CHILD=%d", int64(kb)<<10))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("under ulimit -v %d: %v\n%s", kb, err, out)
	}
}
