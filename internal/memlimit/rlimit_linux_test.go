package memlimit

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestStatusKB reads the sizes from a status file as the kernel writes
// it, and 0 for a field it lacks.
func TestStatusKB(t *testing.T) {
	status := []byte("Name:\thinge\nVmPeak:\t  900000 kB\nVmSize:\t  812345 kB\nVmData:\t   45678 kB\nVmRSS:\t 1234 kB\n")
	if got := statusKB(status, "VmSize:"); got != 812345<<10 {
		t.Errorf("VmSize = %d, want %d", got, 812345<<10)
	}
	if got := statusKB(status, "VmData:"); got != 45678<<10 {
		t.Errorf("VmData = %d, want %d", got, 45678<<10)
	}
	if got := statusKB([]byte("Name:\thinge\n"), "VmSize:"); got != 0 {
		t.Errorf("without VmSize: %d, want 0", got)
	}
}

// TestAvailableUnderUlimit runs this test binary again under ulimit -v
// and under ulimit -d: Available is then below the limit, where it ignored
// it and a run died of Go's out-of-memory error instead of refusing the
// work; and ulimit -d, which counts data mappings only, leaves a run of a
// small data limit room to work (compared with VmSize, the runtime's
// reservations, it refused every run).
func TestAvailableUnderUlimit(t *testing.T) {
	if v := os.Getenv("HINGE_TEST_ULIMIT_CHILD"); v != "" {
		limit, _ := strconv.ParseInt(v, 10, 64)
		a := Available()
		if a <= 0 || a >= limit || os.Getenv("HINGE_TEST_ULIMIT_DATA") != "" && a < 16<<20 {
			fmt.Printf("Available %d under a limit of %d\n", a, limit)
			os.Exit(3)
		}
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set ulimit with")
	}
	for _, tc := range []struct {
		flag string
		kb   int64
	}{{"-v", 2 << 20}, {"-d", 400000}} {
		cmd := exec.Command(sh, "-c", fmt.Sprintf("ulimit %s %d && exec %q -test.run '^TestAvailableUnderUlimit$'", tc.flag, tc.kb, os.Args[0]))
		cmd.Env = append(os.Environ(), fmt.Sprintf("HINGE_TEST_ULIMIT_CHILD=%d", tc.kb<<10))
		if tc.flag == "-d" {
			cmd.Env = append(cmd.Env, "HINGE_TEST_ULIMIT_DATA=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("under ulimit %s %d: %v\n%s", tc.flag, tc.kb, err, out)
		}
	}
}
