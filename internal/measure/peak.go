package measure

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// PeakRSSMB returns the process's peak resident memory (Linux: VmHWM of
// /proc/self/status) in MB, 0 where it is not known.
func PeakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	return 0
}

// ResetPeak returns the garbage to the system and resets the process's peak
// resident memory (Linux: clear_refs 5), so that a later PeakRSSMB speaks
// of what ran since; where it cannot be reset, PeakRSSMB keeps the peak of
// the whole process.
func ResetPeak() {
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
