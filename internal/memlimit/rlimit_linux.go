package memlimit

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// rlimitAvailable is the memory the process may still use under its
// resource limits (ulimit -v, RLIMIT_AS; ulimit -d, RLIMIT_DATA), or 0
// when there is no such limit: half of what the smaller limit leaves
// beyond what is mapped now (the binary, the runtime's reservations) and
// a reserve of rlimitReserve, since the address space grows faster than
// the heap (new threads' stacks, heap arenas mapped whole, the
// collector's own structures). A run that took the limit less what was
// mapped died of the runtime's out-of-memory error on a cgo build, whose
// threads map 8 MiB stacks.
func rlimitAvailable() int64 {
	limit, mapped := addressSpace()
	if limit == 0 {
		return 0
	}
	left := limit - mapped - rlimitReserve
	if left <= 0 {
		return 1 // nothing left: Default takes the smallest limit
	}
	return left / 2
}

// addressSpace returns the smaller of the address-space and data limits
// (0: none) and what the process maps now.
func addressSpace() (limit, mapped int64) {
	var best uint64
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var r syscall.Rlimit
		if syscall.Getrlimit(res, &r) == nil && r.Cur != ^uint64(0) && r.Cur > 0 && (best == 0 || r.Cur < best) {
			best = r.Cur
		}
	}
	if best == 0 {
		return 0, 0
	}
	return int64(min(best, 1<<62)), vmSize("/proc/self/status")
}

// CheckAddressSpace returns an error when the process's resource limits
// (ulimit -v or -d) leave it too little address space to run beyond what
// it maps at start (the runtime would die of its out-of-memory error at
// the first large allocation), saying how much to give; nil otherwise.
func CheckAddressSpace() error {
	limit, mapped := addressSpace()
	if limit == 0 || limit-mapped > rlimitReserve {
		return nil
	}
	return fmt.Errorf("the address-space limit (ulimit -v or -d: %s) leaves too little room: hinge maps %s at start and needs %s more to run; raise the limit (ulimit -v unlimited, or at least %d KiB)",
		Format(limit), Format(mapped), Format(rlimitReserve), (mapped+2*rlimitReserve)>>10)
}

// rlimitReserve is the address space set aside for the runtime's growth
// besides the heap.
const rlimitReserve = 256 << 20

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
