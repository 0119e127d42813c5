package memlimit

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// rlimitAvailable is the memory the process may still use under its
// resource limits (ulimit -v, RLIMIT_AS, against what it maps, VmSize;
// ulimit -d, RLIMIT_DATA, against its data mappings, VmData), or 0 when
// there is no such limit: half of what the tighter one leaves beyond a
// reserve of rlimitReserve, since the address space grows faster than
// the heap (new threads' stacks, heap arenas mapped whole, the
// collector's own structures), and 1 when nothing is left (Default then
// takes its smallest limit, so that work is refused with a message). A
// run that took the limit less what was mapped died of the runtime's
// out-of-memory error on a cgo build, whose threads map 8 MiB stacks.
func rlimitAvailable() int64 {
	status, _ := os.ReadFile("/proc/self/status")
	best := int64(0)
	for _, l := range []struct {
		res   int
		field string
	}{{syscall.RLIMIT_AS, "VmSize:"}, {syscall.RLIMIT_DATA, "VmData:"}} {
		var r syscall.Rlimit
		if syscall.Getrlimit(l.res, &r) != nil || r.Cur == ^uint64(0) || r.Cur == 0 {
			continue
		}
		left := int64(min(r.Cur, 1<<62)) - statusKB(status, l.field) - rlimitReserve
		if left <= 0 {
			return 1
		}
		if best == 0 || left/2 < best {
			best = left / 2
		}
	}
	return best
}

// rlimitReserve is the address space set aside for the runtime's growth
// besides the heap.
const rlimitReserve = 256 << 20

// statusKB reads a field given in kB (VmSize:, VmData:) from the text of
// a /proc/self/status file, in bytes; 0 when it is not there.
func statusKB(status []byte, field string) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
