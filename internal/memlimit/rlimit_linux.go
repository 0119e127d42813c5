package memlimit

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// rlimitAvailable is the address space the process may still map under
// its resource limits (ulimit -v, RLIMIT_AS; ulimit -d, RLIMIT_DATA): the
// smaller limit less what is mapped now (the runtime's reservations and
// the binary), or 0 when there is no such limit.
func rlimitAvailable() int64 {
	var best uint64
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var r syscall.Rlimit
		if syscall.Getrlimit(res, &r) == nil && r.Cur != ^uint64(0) && r.Cur > 0 && (best == 0 || r.Cur < best) {
			best = r.Cur
		}
	}
	if best == 0 {
		return 0
	}
	used := vmSize("/proc/self/status")
	if int64(best) <= used {
		return 1 // nothing left: the smallest limit, which Resolve refuses
	}
	return int64(best) - used
}

// vmSize reads the process's mapped size (VmSize, in kB) from a
// /proc/self/status file, 0 when it cannot.
func vmSize(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
