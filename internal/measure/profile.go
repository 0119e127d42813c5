package measure

import (
	"os"
	"runtime/pprof"
)

// StartCPUProfile starts writing a CPU profile to path and returns the
// function that stops it and closes the file (call it, typically deferred,
// before the program exits). An empty path profiles nothing: stop is then a
// no-op. The programs under bench/ that take a -cpuprofile flag (ground,
// lifted, maxsat) start their profile with it.
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
